"""Kubernetes' WebSocket channel protocols (``*.channel.k8s.io``).

Each WebSocket message carries one channel's bytes behind a channel number:
a first byte in the binary protocols, a first character (``'0'`` + n) in
front of the base64 text in the ``base64`` ones. The versions differ in
what the error channel carries and in how stdin ends:

==========================  ======  ==============================================
subprotocol                 codec   error channel / extras
==========================  ======  ==============================================
``v5.channel.k8s.io``       binary  JSON ``Status``; ``[255, n]`` closes channel n
``v4.channel.k8s.io``       binary  JSON ``Status`` (success too)
``v4.base64.channel.k8s.io`` base64 JSON ``Status``
``channel.k8s.io``          binary  the error text on failure only
``base64.channel.k8s.io``   base64  the error text on failure only
(none offered)              binary  as ``channel.k8s.io``
==========================  ======  ==============================================

(k8s.io/apimachinery ``util/httpstream/wsstream``, the kubelet's
``cri/streaming/remotecommand/websocket.go`` and the API server's
``util/proxy/websocket.go``; client-go's ``tools/remotecommand``.) For
exec and attach the channels are stdin 0, stdout 1, stderr 2, error 3,
resize 4; for port-forward, data ``2i`` and error ``2i+1`` for the i-th
port.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "CLOSE",
    "ERROR",
    "EXEC_PROTOCOLS",
    "PORT_FORWARD_PROTOCOLS",
    "RESIZE",
    "STDERR",
    "STDIN",
    "STDOUT",
    "ChannelProtocol",
    "by_name",
    "incoming",
]

STDIN, STDOUT, STDERR, ERROR, RESIZE = 0, 1, 2, 3, 4
#: v5's close signal: ``[CLOSE, n]`` says the sender will write no more on n.
CLOSE = 255


@dataclass(frozen=True, slots=True)
class ChannelProtocol:
    """One subprotocol's framing (see the module table)."""

    name: str
    base64: bool
    version: int

    @property
    def status_json(self) -> bool:
        """The error channel carries a JSON ``Status`` (v4 and later)."""
        return self.version >= 4

    @property
    def close_signal(self) -> bool:
        return self.version >= 5

    def encode(self, channel: int, data: bytes) -> bytes | str:
        if self.base64:
            return chr(ord("0") + channel) + base64.b64encode(data).decode()
        return bytes((channel,)) + data

    def decode(self, message: bytes | str) -> tuple[int, bytes] | None:
        """``(channel, data)`` of one message; ``None`` for an empty one.
        Raises ValueError for a base64 message that is not base64."""
        if not message:
            return None
        if self.base64 or isinstance(message, str):
            text = message if isinstance(message, str) else message.decode("latin-1")
            channel = ord(text[0]) - ord("0") if self.base64 else ord(text[0])
            body = text[1:]
            if not self.base64:
                return channel, body.encode("latin-1")
            try:
                return channel, base64.b64decode(body, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"channel {channel}: the message is not base64: {exc}") \
                    from None
        return message[0], bytes(message[1:])


_ALL = [
    ChannelProtocol("v5.channel.k8s.io", base64=False, version=5),
    ChannelProtocol("v4.channel.k8s.io", base64=False, version=4),
    ChannelProtocol("v4.base64.channel.k8s.io", base64=True, version=4),
    ChannelProtocol("channel.k8s.io", base64=False, version=1),
    ChannelProtocol("base64.channel.k8s.io", base64=True, version=1),
]
_BY_NAME = {p.name: p for p in _ALL}
#: What exec and attach serve, newest first; "" is an old client that offers none.
EXEC_PROTOCOLS = [p.name for p in _ALL]
#: What the WebSocket port-forward serves (the kubelet's: v4 and the unversioned).
PORT_FORWARD_PROTOCOLS = ["v4.channel.k8s.io", "v4.base64.channel.k8s.io", "channel.k8s.io",
                          "base64.channel.k8s.io"]
#: The protocol of a client that offers none.
DEFAULT = "channel.k8s.io"


def by_name(name: str) -> ChannelProtocol:
    return _BY_NAME[name or DEFAULT]


class Receiver(Protocol):
    """A WebSocket's receiving side: whole messages, ``None`` once closed."""

    def receive(self) -> object: ...


def incoming(ws: Receiver, proto: ChannelProtocol) -> Iterator[tuple[int, bytes]]:
    """``(channel, data)`` of every message until the WebSocket closes;
    empty messages carry nothing and yield nothing. A base64 message that is
    not base64 raises ValueError."""
    while (message := ws.receive()) is not None:
        if isinstance(message, (bytes, str)):
            decoded = proto.decode(message)
            if decoded is not None:
                yield decoded
