"""A local port forwarded to a pod's port (the dashboard's ``shift+f``).

:class:`PortForward` listens on ``127.0.0.1:LOCAL`` and, for every
connection it accepts, opens a ``pods/portforward`` WebSocket
(``v4.channel.k8s.io``, one connection per WebSocket, as the official client
does) and copies bytes both ways until either side closes. The pod's error
channel (nothing listens there, the pod went away) ends that connection and
is kept as :attr:`PortForward.last_error`. :meth:`PortForward.stop` closes the
listener and every connection; no thread outlives it.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading

from ..apiserver.streaming import channels
from ..client.http import HTTPClient
from ..client.websocket import ClientWebSocket

__all__ = ["PortForward"]

log = logging.getLogger(__name__)


class PortForward:
    """See the module docstring."""

    def __init__(self, client: HTTPClient, namespace: str, pod: str, remote_port: int, *,
                 local_port: int = 0, address: str = "127.0.0.1") -> None:
        self.client = client
        self.namespace, self.pod, self.remote_port = namespace, pod, remote_port
        self._listener = socket.create_server((address, local_port))
        self.address = address
        self.local_port = int(self._listener.getsockname()[1])
        self.last_error = ""
        self.connections = 0  # handled so far
        self._active: set[socket.socket] = set()
        self._sockets: set[ClientWebSocket] = set()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._stopped = threading.Event()
        self._acceptor = threading.Thread(target=self._accept, daemon=True,
                                          name=f"port-forward-{self.local_port}")

    def __str__(self) -> str:
        return (f"{self.address}:{self.local_port} -> {self.namespace}/{self.pod}:"
                f"{self.remote_port}")

    @property
    def active(self) -> int:
        with self._lock:
            return len(self._active)

    def start(self) -> PortForward:
        self._acceptor.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            conns, sockets = list(self._active), list(self._sockets)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for ws in sockets:
            ws.close()
        self._acceptor.join(timeout=5)
        for thread in list(self._threads):
            thread.join(timeout=5)

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True,
                                      name=f"port-forward-conn-{self.local_port}")
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with self._lock:
            self._active.add(conn)
            self.connections += 1
        ws: ClientWebSocket | None = None
        try:
            ws = ClientWebSocket.connect(
                self.client, f"/api/v1/namespaces/{self.namespace}/pods/{self.pod}/portforward",
                [("ports", str(self.remote_port))], ["v4.channel.k8s.io"])
            with self._lock:
                self._sockets.add(ws)
            self._relay(conn, ws)
        except Exception as exc:
            self.last_error = str(exc)
            log.info("port-forward %s: %s", self, exc)
        finally:
            if ws is not None:
                ws.close()
                with self._lock:
                    self._sockets.discard(ws)
            with self._lock:
                self._active.discard(conn)
            conn.close()

    def _relay(self, conn: socket.socket, ws: ClientWebSocket) -> None:
        proto = channels.by_name(ws.protocol)
        seen: set[int] = set()

        def upstream() -> None:
            try:
                while data := conn.recv(65536):
                    ws.send(proto.encode(0, data))
            except (OSError, ConnectionError):
                pass
            finally:
                ws.close()

        sender = threading.Thread(target=upstream, daemon=True, name="port-forward-up")
        sender.start()
        try:
            for channel, data in channels.incoming(ws, proto):
                if channel not in seen:
                    seen.add(channel)  # the first frame of a channel is its port number
                    continue
                if channel == 0:
                    conn.sendall(data)
                elif channel == 1 and data:
                    self.last_error = data.decode(errors="replace")
                    return
        finally:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            sender.join(timeout=5)
