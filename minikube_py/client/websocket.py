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

import contextlib
import socket
import threading
from collections.abc import Sequence
from urllib.parse import urlencode

from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)

from .http import HTTPClient, status_error
from .sockio import SharedSocket

__all__ = ["ClientWebSocket"]

_HANDSHAKE_TIMEOUT = 30.0


class ClientWebSocket:
    """See the module docstring."""

    def __init__(self, sock: SharedSocket, ws: WSConnection, protocol: str,
                 leftover: list[bytes | str | None]) -> None:
        self._sock = sock
        self._ws = ws
        self.protocol = protocol
        self._lock = threading.Lock()
        self._pending = leftover
        self._parts: list[bytes | str] = []

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
                    shared = SharedSocket(sock)
                    out = cls(shared, ws, event.subprotocol or "", [])
                    out._absorb()
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

    # ------------------------------------------------------------------ messages

    def _absorb(self) -> list[bytes]:
        """wsproto's events into whole messages; returns replies to send."""
        replies: list[bytes] = []
        for event in self._ws.events():
            if isinstance(event, (BytesMessage, TextMessage)):
                self._parts.append(bytes(event.data) if isinstance(event, BytesMessage)
                                   else event.data)
                if event.message_finished:
                    if isinstance(event, BytesMessage):
                        self._pending.append(b"".join(p for p in self._parts
                                                      if isinstance(p, bytes)))
                    else:
                        self._pending.append("".join(p for p in self._parts
                                                     if isinstance(p, str)))
                    self._parts.clear()
            elif isinstance(event, Ping):
                replies.append(self._ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                if self._ws.state == ConnectionState.REMOTE_CLOSING:
                    replies.append(self._ws.send(event.response()))
                self._pending.append(None)
        return replies

    def receive(self, timeout: float | None = None) -> bytes | str | bool | None:
        """The next whole message; ``None`` once closed; ``False`` on timeout."""
        while not self._pending:
            if self._ws.state == ConnectionState.CLOSED or self._sock.closed:
                return None
            data = self._sock.recv(65536, timeout=timeout)
            if data is None:
                return False
            with self._lock:
                self._ws.receive_data(data or None)
                replies = self._absorb()
            for reply in replies:
                try:
                    self._sock.sendall(reply)
                except ConnectionError:
                    self._pending.append(None)
            if not data:
                self._pending.append(None)
        return self._pending.pop(0)

    def send(self, message: bytes | str) -> None:
        with self._lock:
            if self._ws.state != ConnectionState.OPEN:
                raise ConnectionError("the WebSocket is closed")
            data = self._ws.send(BytesMessage(data=message) if isinstance(message, bytes)
                                 else TextMessage(data=message))
        self._sock.sendall(data)

    def close(self) -> None:
        """Say goodbye (close frame) and drop the connection."""
        with self._lock:
            data = b""
            if self._ws.state == ConnectionState.OPEN:
                data = self._ws.send(CloseConnection(code=1000))
        if data:
            with contextlib.suppress(ConnectionError):
                self._sock.sendall(data)
        self._sock.close(release=True)
