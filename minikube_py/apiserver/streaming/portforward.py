"""``pods/portforward``: connections to a pod's ports, as kubectl and the official client open them.

Three ways in, one way to the pod (the kubelet's: ``localhost:PORT`` in the
pod's network namespace, through :class:`~.connect.StreamSource`):

* **SPDY/3.1 in a WebSocket** (subprotocol ``SPDY/3.1+portforward.k8s.io``):
  kubectl 1.31+ (client-go ``tools/portforward/tunneling_*``). The binary
  messages are a byte stream carrying SPDY frames, exactly what the kubelet
  would get after an HTTP upgrade (kube-apiserver's ``streamtunnel.go``
  relays them).
* **SPDY/3.1 by HTTP upgrade** (``Upgrade: SPDY/3.1``,
  ``X-Stream-Protocol-Version: portforward.k8s.io``): older kubectl, or
  ``KUBECTL_PORT_FORWARD_WEBSOCKETS=false``.
* **WebSocket channels** (``v4.channel.k8s.io`` and the older names): the
  official Python client. The ``ports`` query lists the ports; port ``i``
  gets data channel ``2i`` and error channel ``2i+1``; each channel starts
  with the port number (two bytes, little-endian); one connection per port
  per WebSocket (the kubelet's ``portforward/websocket.go``).

With SPDY, every connection kubectl accepts locally is a pair of streams with
the same ``requestid``: ``streamtype: error`` then ``streamtype: data``, and
the ``port`` header. Each pair gets one connection to the pod; its bytes go
both ways until the pod side closes (then the data stream is finished) or
kubectl resets or finishes the pair. A port nobody listens on is reported on
the error stream in the kubelet's words (``error forwarding port 80 to pod
NAME_NAMESPACE, uid UID: failed to connect to localhost:80 inside namespace
..."``), which kubectl prints as ``an error occurred forwarding 8080 -> 80:
...``.

Everything ends when the client goes away, the pod's connections close, or
the API server stops: pod sockets are closed and the relay threads end.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import struct
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...api.errors import BadRequest
from ...client.sockio import SharedSocket
from ..handlers import Request, Response
from . import channels
from .portforward_common import TICK, Dialer, pump
from .spdyforward import RawBytes, SpdyForwarder, WebSocketBytes
from .websocket import TIMEOUT, WebSocket, handshake, is_websocket, offered_protocols

if TYPE_CHECKING:
    from .connect import StreamSource

__all__ = ["SPDY_TUNNEL_PROTOCOL", "handle", "parse_ports"]

log = logging.getLogger(__name__)

#: The WebSocket subprotocol kubectl tunnels SPDY in.
SPDY_TUNNEL_PROTOCOL = "SPDY/3.1+portforward.k8s.io"
#: The SPDY subprotocol (``X-Stream-Protocol-Version``) of port-forwarding.
PORT_FORWARD_PROTOCOL = "portforward.k8s.io"


def parse_ports(values: list[str]) -> list[int]:
    """The ports of the ``ports`` query (comma-separated, repeatable), with the
    kubelet's errors."""
    if not values:
        raise BadRequest('query parameter "port" is required')
    ports: list[int] = []
    for raw in values:
        if not raw:
            raise BadRequest('query parameter "port" cannot be empty')
        for part in raw.split(","):
            try:
                port = int(part)
            except ValueError:
                raise BadRequest(f'unable to parse "{raw}" as a port: strconv.ParseUint: '
                                 f'parsing "{part}": invalid syntax') from None
            if not 0 < port < 65536:
                raise BadRequest(f'port "{raw}" must be > 0 and < 65536')
            ports.append(port)
    return ports


def handle(pod: Mapping[str, Any], req: Request, source: StreamSource,
           stopping: Callable[[], bool], unavailable: type[Exception]) -> Response:
    """The upgrade answer for a port-forward request (see the module docstring)."""
    dial = Dialer(pod, source, unavailable)
    if is_websocket(req.headers):
        if SPDY_TUNNEL_PROTOCOL in offered_protocols(req.headers):
            _, answer = handshake(req.headers, [SPDY_TUNNEL_PROTOCOL])

            def tunnel(sock: SharedSocket) -> None:
                ws = WebSocket(sock, SPDY_TUNNEL_PROTOCOL)
                SpdyForwarder(WebSocketBytes(ws), dial, stopping).run()

            return Response(101, headers=answer, upgrade=tunnel)
        query: dict[str, list[str]] = {}
        for key, value in req.query_list:
            query.setdefault(key, []).append(value)
        ports = parse_ports(query.get("ports", []) + query.get("port", []))
        protocol, answer = handshake(req.headers, channels.PORT_FORWARD_PROTOCOLS,
                                     default=channels.DEFAULT)

        def channel_forward(sock: SharedSocket) -> None:
            ws = WebSocket(sock, protocol)
            _ChannelForwarder(ws, channels.by_name(protocol), ports, dial, stopping).run()

        return Response(101, headers=answer, upgrade=channel_forward)
    upgrade = req.headers.get("upgrade", "").strip().lower()
    versions = [v.strip() for v in req.headers.get("x-stream-protocol-version", "").split(",")]
    if upgrade == "spdy/3.1":
        if PORT_FORWARD_PROTOCOL not in versions:
            raise BadRequest(f"unable to upgrade: unable to negotiate protocol: client "
                             f"supports {versions}, server supports "
                             f"[{PORT_FORWARD_PROTOCOL}]")
        answer = [("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1"),
                  ("X-Stream-Protocol-Version", PORT_FORWARD_PROTOCOL)]

        def spdy(sock: SharedSocket) -> None:
            SpdyForwarder(RawBytes(sock), dial, stopping).run()

        return Response(101, headers=answer, upgrade=spdy)
    raise BadRequest("Upgrade request required")


# ---------------------------------------------------------------------- WebSocket channels


class _ChannelForwarder:
    """One WebSocket, one connection per port (the official client)."""

    def __init__(self, ws: WebSocket, proto: channels.ChannelProtocol, ports: list[int],
                 dial: Dialer, stopping: Callable[[], bool]) -> None:
        self.ws, self.proto, self.ports, self.dial = ws, proto, ports, dial
        self.stopping = stopping
        self.sockets: dict[int, socket.socket] = {}
        self.lock = threading.Lock()
        self.left = len(ports)
        self.all_done = threading.Event()

    def _finished_one(self) -> None:
        with self.lock:
            self.left -= 1
            if self.left <= 0:
                self.all_done.set()
        if self.all_done.is_set():
            self.ws.close(1000)

    def run(self) -> None:
        threads: list[threading.Thread] = []
        try:
            for i, port in enumerate(self.ports):
                head = struct.pack("<H", port)
                self.ws.send(self.proto.encode(2 * i, head))
                self.ws.send(self.proto.encode(2 * i + 1, head))
            for i, port in enumerate(self.ports):
                conn = self.dial(port)
                if isinstance(conn, str):
                    self.ws.send(self.proto.encode(2 * i + 1, conn.encode()))
                    self._finished_one()
                    continue
                self.sockets[i] = conn
                channel = 2 * i
                thread = threading.Thread(
                    target=pump, name=f"portforward-{port}",
                    args=(conn, lambda data, c=channel: self.ws.send(self.proto.encode(c, data)),
                          self._finished_one), daemon=True)
                thread.start()
                threads.append(thread)
            self._read_client()
        except ConnectionError as exc:
            log.debug("port-forward: %s", exc)
        finally:
            for conn in self.sockets.values():
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
            for thread in threads:
                thread.join(timeout=5)

    def _read_client(self) -> None:
        while True:
            message = self.ws.receive(timeout=TICK)
            if message is None:
                return
            if message is TIMEOUT or not isinstance(message, (bytes, str)):
                if self.stopping():
                    self.ws.close(1001, "the API server is shutting down")
                    return
                continue
            try:
                decoded = self.proto.decode(message)
            except ValueError:
                continue
            if decoded is None:
                continue
            channel, data = decoded
            conn = self.sockets.get(channel // 2) if channel % 2 == 0 else None
            if conn is not None and data:
                try:
                    conn.sendall(data)
                except OSError as exc:
                    log.debug("port-forward: writing to the pod failed: %s", exc)


