"""In-memory streams for the fake runtime: exec and attach without processes.

A :class:`FakeStream` behaves like ``cat`` behind a banner: it first writes
``fake exec: <command>`` (or ``fake attach: <container>``) and a newline to
stdout, then echoes every byte sent to its stdin back on stdout; a
``resize`` is echoed as ``resize WxH`` on stderr (so the API server's
channel protocols can be tested end to end). The output ends when stdin is
closed or the session is closed; the exit code is the one the fake runtime
was told for that container. Port-forwarding to a fake pod gives an echo
connection for a port a container of it declares, and "connection refused"
otherwise.
"""

from __future__ import annotations

import collections
import socket
import threading

from .base import ContainerRuntimeError
from .streaming import STDERR, STDOUT

__all__ = ["FakeStream", "echo_connection"]


class FakeStream:
    """See the module docstring."""

    def __init__(self, banner: bytes, *, tty: bool, stdin: bool, exit_code: int | None) -> None:
        self._tty = tty
        self._stdin = stdin
        self._code = exit_code
        self._cond = threading.Condition()
        self._out: collections.deque[tuple[int, bytes]] = collections.deque([(STDOUT, banner)])
        self._ended = not stdin
        self._closed = False

    @property
    def tty(self) -> bool:
        return self._tty

    def recv(self) -> tuple[int, bytes] | None:
        with self._cond:
            while not self._out and not self._ended and not self._closed:
                self._cond.wait()
            if self._out and not self._closed:
                fd, data = self._out.popleft()
                return (STDOUT if self._tty else fd), data
            return None

    def send(self, data: bytes) -> None:
        with self._cond:
            if self._stdin and not self._ended and data:
                self._out.append((STDOUT, data))
                self._cond.notify_all()

    def close_stdin(self) -> None:
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def resize(self, width: int, height: int) -> None:
        with self._cond:
            if self._tty and not self._ended:
                self._out.append((STDERR, f"resize {width}x{height}\n".encode()))
                self._cond.notify_all()

    def exit_code(self, timeout: float = 2.0) -> int | None:
        return self._code

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


def echo_connection(port: int, declared: set[int]) -> socket.socket:
    """One end of a connection whose other end echoes what it receives
    (a thread that ends when either side closes)."""
    if port not in declared:
        raise ContainerRuntimeError(
            f"failed to connect to localhost:{port} inside the fake pod: connection refused")
    ours, theirs = socket.socketpair()

    def echo() -> None:
        with theirs:
            while True:
                try:
                    data = theirs.recv(65536)
                    if not data:
                        return
                    theirs.sendall(data)
                except OSError:
                    return

    threading.Thread(target=echo, name=f"fake-port-{port}", daemon=True).start()
    return ours
