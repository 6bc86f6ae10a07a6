"""A WebSocket to the API server, for our own exec and port-forward (the dashboard).

The handshake and framing are wsproto's (client side); the connection is the
:class:`~.http.HTTPClient`'s endpoint with its TLS settings and token, so it
reaches exactly what kubectl reaches. :class:`ClientWebSocket` may be used by
two threads at once (one receiving, others sending), over a
:class:`~.sockio.SharedSocket`.

A refused handshake raises the API server's error (a ``StatusError`` with
Kubernetes' reason, from the answer's ``Status``).
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from urllib.parse import urlencode

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    RejectConnection,
    RejectData,
    Request,
)

from .http import HTTPClient, status_error
from .sockio import SharedSocket
from .wsconn import WebSocketConnection

__all__ = ["ClientWebSocket"]

_HANDSHAKE_TIMEOUT = 30.0


class ClientWebSocket(WebSocketConnection):
    """See the module docstring."""

    @classmethod
    def connect(cls, client: HTTPClient, path: str, query: Sequence[tuple[str, str]],
                protocols: Sequence[str]) -> ClientWebSocket:
        raw = socket.create_connection((client.host, client.port), timeout=_HANDSHAKE_TIMEOUT)
        sock: socket.socket = raw
        if client.tls is not None:
            sock = client.tls.wrap_socket(raw, server_hostname=client.host)
        ws = WSConnection(ConnectionType.CLIENT)
        target = path + ("?" + urlencode(list(query)) if query else "")
        sock.sendall(ws.send(Request(
            host=f"{client.host}:{client.port}", target=target, subprotocols=list(protocols),
            extra_headers=[(b"authorization", f"Bearer {client.endpoint.token}".encode()),
                           (b"user-agent", b"minikube-py")])))
        status, body = 0, b""
        while True:
            data = sock.recv(65536)
            ws.receive_data(data or None)
            for event in ws.events():
                if isinstance(event, AcceptConnection):
                    out = cls(SharedSocket(sock), ws, event.subprotocol or "")
                    # Frames that came with the 101 are waiting in wsproto already.
                    with out._lock:
                        replies = out._drain()
                    for reply in replies:
                        out.sock.sendall(reply)
                    return out
                if isinstance(event, RejectConnection):
                    status = event.status_code
                    if not event.has_body:
                        raise status_error(status, b"")
                elif isinstance(event, RejectData):
                    body += event.data
                    if event.body_finished:
                        sock.close()
                        raise status_error(status, body)
            if not data:
                sock.close()
                raise status_error(status or 502, body or b"the API server closed the "
                                   b"connection during the WebSocket handshake")

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Say goodbye (close frame) and drop the connection."""
        super().close(code, reason)
        self.sock.close(release=True)
