"""WebSocket connections for the streaming endpoints, framed by wsproto.

The HTTP server has already parsed the upgrade request; :func:`handshake`
checks it and picks the subprotocol the way kube-apiserver's ``wsstream``
does (the first one the client offers that the endpoint serves; none
offered means the endpoint's default), and gives the ``101`` answer's
headers. After that, :class:`WebSocket` runs wsproto's sans-I/O
:class:`~wsproto.connection.Connection` over a :class:`~.sockio.SharedSocket`.

Promises of :class:`WebSocket`:

* :meth:`~WebSocket.receive` returns whole messages (``bytes`` for binary,
  ``str`` for text), answers pings itself, and returns ``None`` once the
  peer closed (its close frame is answered) or the connection broke;
  with ``timeout`` it may return :data:`TIMEOUT` instead.
* :meth:`~WebSocket.send` may be called from any thread; a message is sent
  whole and never interleaves with another.
* :meth:`~WebSocket.close` sends a close frame once (with a code and reason);
  the peer's answer ends :meth:`~WebSocket.receive`.
* A message larger than :data:`MAX_MESSAGE` closes the connection with 1009
  (message too big), as a server that cannot buffer it must.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import Final

from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.frame_protocol import CloseReason
from wsproto.utilities import generate_accept_token

from ...api.errors import BadRequest
from ...client.sockio import SharedSocket

__all__ = ["MAX_MESSAGE", "TIMEOUT", "WebSocket", "handshake", "is_websocket"]

#: Largest message accepted (kubectl sends at most 32 KiB of stdin at a time).
MAX_MESSAGE = 16 * 1024 * 1024


class _Timeout:
    def __repr__(self) -> str:
        return "TIMEOUT"


#: What :meth:`WebSocket.receive` returns when its timeout passed.
TIMEOUT: Final = _Timeout()


def is_websocket(headers: Mapping[str, str]) -> bool:
    """An ``Upgrade: websocket`` request (``Connection`` includes ``upgrade``)."""
    connection = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    return headers.get("upgrade", "").strip().lower() == "websocket" and "upgrade" in connection


def offered_protocols(headers: Mapping[str, str]) -> list[str]:
    raw = headers.get("sec-websocket-protocol", "")
    return [p.strip() for p in raw.split(",") if p.strip()]


def handshake(headers: Mapping[str, str], served: Sequence[str],
              default: str | None = None) -> tuple[str, list[tuple[str, str]]]:
    """The subprotocol chosen and the ``101`` answer's headers.

    ``served`` is in the server's order of preference only for equal offers:
    as wsstream does, the client's order decides. With no subprotocol
    offered, ``default`` is used (the unnamed protocol of old clients), or
    the request is refused when there is none.
    """
    key = headers.get("sec-websocket-key", "").strip()
    if headers.get("sec-websocket-version", "").strip() != "13":
        raise BadRequest("unsupported WebSocket version: only 13 is served")
    if not key:
        raise BadRequest("the WebSocket handshake has no Sec-WebSocket-Key")
    offered = offered_protocols(headers)
    chosen: str | None = None
    if not offered:
        chosen = default
    else:
        chosen = next((p for p in offered if p in served), None)
    if chosen is None:
        raise BadRequest(f"requested protocol(s) are not supported: {offered or '[]'}; "
                         f"supports {list(served)}")
    answer = [("Upgrade", "websocket"), ("Connection", "Upgrade"),
              ("Sec-WebSocket-Accept", generate_accept_token(key.encode()).decode())]
    if offered:
        answer.append(("Sec-WebSocket-Protocol", chosen))
    return chosen, answer


class WebSocket:
    """The server side of one WebSocket (see the module docstring)."""

    def __init__(self, sock: SharedSocket, protocol: str = "") -> None:
        self.sock = sock
        self.protocol = protocol
        self._ws = Connection(ConnectionType.SERVER)
        self._lock = threading.Lock()
        self._parts: list[bytes | str] = []
        self._pending: list[bytes | str | None] = []
        self._closing = False

    # ------------------------------------------------------------------ sending

    def _write(self, event: BytesMessage | TextMessage | CloseConnection) -> None:
        with self._lock:
            if self._ws.state not in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING) \
                    and not isinstance(event, CloseConnection):
                raise ConnectionError("the WebSocket is closed")
            if isinstance(event, CloseConnection) and \
                    self._ws.state not in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING):
                return
            data = self._ws.send(event)
        self.sock.sendall(data)

    def send(self, message: bytes | str) -> None:
        if isinstance(message, bytes):
            self._write(BytesMessage(data=message))
        else:
            self._write(TextMessage(data=message))

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send the close frame (once); what the peer still sends is read
        and dropped by :meth:`receive` until its close answer."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        with contextlib.suppress(ConnectionError):
            self._write(CloseConnection(code=code, reason=reason or None))

    @property
    def open(self) -> bool:
        return self._ws.state == ConnectionState.OPEN

    # ------------------------------------------------------------------ receiving

    def receive(self, timeout: float | None = None) -> bytes | str | _Timeout | None:
        while not self._pending:
            if self._ws.state == ConnectionState.CLOSED or self.sock.closed:
                return None
            data = self.sock.recv(65536, timeout=timeout)
            if data is None:
                return TIMEOUT
            with self._lock:
                self._ws.receive_data(data or None)
                replies = self._drain()
            for reply in replies:
                try:
                    self.sock.sendall(reply)
                except ConnectionError:
                    self._pending.append(None)
            if not data:
                self._pending.append(None)
        return self._pending.pop(0)

    def _drain(self) -> list[bytes]:
        """Turn wsproto's events into messages; the bytes to answer with."""
        replies: list[bytes] = []
        for event in self._ws.events():
            if isinstance(event, (BytesMessage, TextMessage)):
                self._parts.append(bytes(event.data) if isinstance(event, BytesMessage)
                                   else event.data)
                if sum(len(p) for p in self._parts) > MAX_MESSAGE:
                    self._parts.clear()
                    if self._ws.state == ConnectionState.OPEN:
                        replies.append(self._ws.send(CloseConnection(
                            code=CloseReason.MESSAGE_TOO_BIG,
                            reason=f"messages are limited to {MAX_MESSAGE} bytes")))
                        self._closing = True
                    continue
                if event.message_finished:
                    if isinstance(event, BytesMessage):
                        whole: bytes | str = b"".join(p for p in self._parts
                                                      if isinstance(p, bytes))
                    else:
                        whole = "".join(p for p in self._parts if isinstance(p, str))
                    self._parts.clear()
                    self._pending.append(whole)
            elif isinstance(event, Ping):
                if self._ws.state == ConnectionState.OPEN:
                    replies.append(self._ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                if self._ws.state == ConnectionState.REMOTE_CLOSING:
                    replies.append(self._ws.send(event.response()))
                self._pending.append(None)
        return replies
