"""One open WebSocket, either side: whole messages in and out over a shared socket.

The API server's streaming endpoints (server side) and the dashboard's exec
and port-forward (client side) both run wsproto's sans-I/O connection over a
:class:`~.sockio.SharedSocket`; this is the part they share, after the
handshake each does its own way.

Promises of :class:`WebSocketConnection`:

* :meth:`~WebSocketConnection.receive` returns whole messages (``bytes`` for
  binary, ``str`` for text), answers pings itself, and returns ``None`` once
  the peer closed (its close frame is answered) or the connection broke; with
  ``timeout`` it returns :data:`TIMEOUT` when nothing came in time.
* :meth:`~WebSocketConnection.send` may be called from any thread; a message
  is sent whole and never interleaves with another.
* :meth:`~WebSocketConnection.close` sends a close frame once; the peer's
  answer ends :meth:`~WebSocketConnection.receive`.
* A message larger than :data:`MAX_MESSAGE` closes the connection with 1009
  (message too big): it is not buffered without bound.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Final

from wsproto import WSConnection
from wsproto.connection import Connection, ConnectionState
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.frame_protocol import CloseReason

from .sockio import SharedSocket

__all__ = ["MAX_MESSAGE", "TIMEOUT", "WebSocketConnection"]

#: Largest message accepted (kubectl sends at most 32 KiB of stdin at a time).
MAX_MESSAGE = 16 * 1024 * 1024


class _Timeout:
    def __repr__(self) -> str:
        return "TIMEOUT"


#: What :meth:`WebSocketConnection.receive` returns when its timeout passed.
TIMEOUT: Final = _Timeout()

_SENDING = (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING)


class WebSocketConnection:
    """See the module docstring. ``ws`` is wsproto's connection, past its handshake."""

    def __init__(self, sock: SharedSocket, ws: Connection | WSConnection,
                 protocol: str = "") -> None:
        self.sock = sock
        self.protocol = protocol
        self._ws = ws
        self._lock = threading.Lock()
        self._parts: list[bytes | str] = []
        self._size = 0  # of the message being assembled
        self._pending: list[bytes | str | None] = []
        self._closing = False

    @property
    def open(self) -> bool:
        return self._ws.state == ConnectionState.OPEN

    # ------------------------------------------------------------------ sending

    def _write(self, event: BytesMessage | TextMessage | CloseConnection) -> None:
        with self._lock:
            if self._ws.state not in _SENDING:
                if isinstance(event, CloseConnection):
                    return  # closed already: nothing to say goodbye to
                raise ConnectionError("the WebSocket is closed")
            data = self._ws.send(event)
        self.sock.sendall(data)

    def send(self, message: bytes | str) -> None:
        self._write(BytesMessage(data=message) if isinstance(message, bytes)
                    else TextMessage(data=message))

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send the close frame (once); what the peer still sends is read and
        dropped by :meth:`receive` until its close answer."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        with contextlib.suppress(ConnectionError):
            self._write(CloseConnection(code=code, reason=reason or None))

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
        """wsproto's events into whole messages (call with the lock held);
        the bytes to answer with."""
        replies: list[bytes] = []
        for event in self._ws.events():
            if isinstance(event, (BytesMessage, TextMessage)):
                part = bytes(event.data) if isinstance(event, BytesMessage) else event.data
                self._parts.append(part)
                self._size += len(part)
                if self._size > MAX_MESSAGE:
                    self._parts.clear()
                    self._size = 0
                    if self._ws.state == ConnectionState.OPEN:
                        replies.append(self._ws.send(CloseConnection(
                            code=CloseReason.MESSAGE_TOO_BIG,
                            reason=f"messages are limited to {MAX_MESSAGE} bytes")))
                        self._closing = True
                    continue
                if event.message_finished:
                    whole: bytes | str
                    if isinstance(event, BytesMessage):
                        whole = b"".join(p for p in self._parts if isinstance(p, bytes))
                    else:
                        whole = "".join(p for p in self._parts if isinstance(p, str))
                    self._parts.clear()
                    self._size = 0
                    self._pending.append(whole)
            elif isinstance(event, Ping):
                if self._ws.state == ConnectionState.OPEN:
                    replies.append(self._ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                if self._ws.state == ConnectionState.REMOTE_CLOSING:
                    replies.append(self._ws.send(event.response()))
                self._pending.append(None)
        return replies
