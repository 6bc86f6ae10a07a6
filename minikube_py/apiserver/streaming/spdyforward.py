"""SPDY/3.1 port-forwarding sessions (kubectl), over a WebSocket tunnel or an
upgraded connection: stream pairs in, pod connections out (see
:mod:`.portforward` for the protocol as kubectl and the kubelet speak it)."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable, Mapping

from ...client.sockio import SharedSocket
from .portforward_common import TICK, Dialer, pump
from .spdy import (
    DataReceived,
    ServerSession,
    SessionClosed,
    StreamEnded,
    StreamOpened,
    StreamReset,
)
from .websocket import TIMEOUT, WebSocket

__all__ = ["RawBytes", "SpdyForwarder", "WebSocketBytes"]

log = logging.getLogger(__name__)


class RawBytes:
    """SPDY straight on the upgraded connection."""

    def __init__(self, sock: SharedSocket) -> None:
        self.sock = sock

    def read(self, timeout: float) -> bytes | None:
        return self.sock.recv(65536, timeout=timeout)

    def write(self, data: bytes) -> None:
        self.sock.sendall(data)

    def close(self) -> None:
        self.sock.close()


class WebSocketBytes:
    """SPDY in binary WebSocket messages (message boundaries mean nothing)."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws

    def read(self, timeout: float) -> bytes | None:
        message = self.ws.receive(timeout=timeout)
        if message is None:
            return b""
        if message is TIMEOUT:
            return None
        data = message.encode() if isinstance(message, str) else message
        # An empty message is not the end (client-go writes some): nothing yet.
        return data if isinstance(data, bytes) and data else None

    def write(self, data: bytes) -> None:
        self.ws.send(data)

    def close(self) -> None:
        self.ws.close(1000)


class _Pair:
    """The error and data streams of one forwarded connection."""

    def __init__(self) -> None:
        self.error: int | None = None
        self.data: int | None = None
        self.port = 0
        self.conn: socket.socket | None = None


class SpdyForwarder:
    """One SPDY session: stream pairs in, pod connections out."""

    def __init__(self, transport: RawBytes | WebSocketBytes, dial: Dialer,
                 stopping: Callable[[], bool]) -> None:
        self.transport = transport
        self.dial = dial
        self.stopping = stopping
        self.session = ServerSession()
        self.lock = threading.Lock()  # the session and the order of its bytes
        self.pairs: dict[str, _Pair] = {}
        self.by_stream: dict[int, _Pair] = {}
        self.threads: list[threading.Thread] = []

    def _flush(self) -> None:
        """Write what the session has queued (call with ``lock`` held, so
        bytes leave in the order the session produced them)."""
        data = self.session.data_to_send()
        if data:
            self.transport.write(data)

    def run(self) -> None:
        try:
            while True:
                data = self.transport.read(TICK)
                if data is None:
                    if self.stopping():
                        with self.lock:
                            self.session.go_away()
                            self._flush()
                        return
                    continue
                if not data:
                    return
                with self.lock:
                    events = self.session.receive(data)
                    self._flush()
                for event in events:
                    if self._on_event(event):
                        return
        except ConnectionError as exc:
            log.debug("port-forward (SPDY): the client went away: %s", exc)
        except ValueError as exc:  # SpdyProtocolError
            log.info("port-forward: the client broke the SPDY protocol: %s", exc)
        finally:
            for pair in list(self.pairs.values()):
                self._close_pod(pair)
            for thread in self.threads:
                thread.join(timeout=5)
            with contextlib.suppress(Exception):
                self.transport.close()

    def _on_event(self, event: object) -> bool:
        """Handle one session event; True when the session is over."""
        if isinstance(event, StreamOpened):
            self._opened(event.stream_id, event.headers)
        elif isinstance(event, DataReceived):
            pair = self.by_stream.get(event.stream_id)
            if pair is not None and pair.conn is not None and event.stream_id == pair.data:
                try:
                    pair.conn.sendall(event.data)
                except OSError as exc:
                    log.debug("port-forward: writing to the pod failed: %s", exc)
        elif isinstance(event, StreamEnded):
            pair = self.by_stream.get(event.stream_id)
            if pair is not None and pair.conn is not None and event.stream_id == pair.data:
                with contextlib.suppress(OSError):
                    pair.conn.shutdown(socket.SHUT_WR)
        elif isinstance(event, StreamReset):
            pair = self.by_stream.get(event.stream_id)
            if pair is not None:
                self._close_pod(pair)
        elif isinstance(event, SessionClosed):
            return True
        return False

    def _opened(self, stream_id: int, headers: Mapping[str, list[str]]) -> None:
        def first(name: str) -> str:
            values = headers.get(name) or [""]
            return values[0]

        kind, request_id = first("streamtype"), first("requestid")
        try:
            port = int(first("port"))
        except ValueError:
            port = 0
        with self.lock:
            if kind not in ("error", "data") or not 0 < port < 65536:
                # The kubelet refuses such a stream with RST_STREAM CANCEL.
                self.session.reset(stream_id)
                self._flush()
                return
            self.session.reply(stream_id)
            self._flush()
        pair = self.pairs.setdefault(request_id, _Pair())
        pair.port = port
        if kind == "error":
            pair.error = stream_id
        else:
            pair.data = stream_id
        self.by_stream[stream_id] = pair
        if pair.error is not None and pair.data is not None and pair.conn is None:
            self._connect(request_id, pair)

    def _connect(self, request_id: str, pair: _Pair) -> None:
        conn = self.dial(pair.port)
        if isinstance(conn, str):
            with self.lock:
                assert pair.error is not None and pair.data is not None
                self.session.send_data(pair.error, conn.encode())
                self.session.end_stream(pair.error)
                self.session.end_stream(pair.data)
                self._flush()
            self.pairs.pop(request_id, None)
            return
        pair.conn = conn
        data_stream = pair.data
        assert data_stream is not None

        def deliver(data: bytes) -> None:
            with self.lock:
                self.session.send_data(data_stream, data)
                self._flush()

        def done() -> None:
            with self.lock, contextlib.suppress(ConnectionError):
                if pair.error is not None:
                    self.session.end_stream(pair.error)
                self.session.end_stream(data_stream)
                self._flush()
            self.pairs.pop(request_id, None)

        thread = threading.Thread(target=pump, args=(conn, deliver, done),
                                  name=f"portforward-{pair.port}", daemon=True)
        thread.start()
        self.threads = [t for t in self.threads if t.is_alive()] + [thread]

    def _close_pod(self, pair: _Pair) -> None:
        conn, pair.conn = pair.conn, None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()
