"""A connection two threads can use at once: one reading, others writing.

A streaming session (exec, attach, port-forward) reads the client in one
thread while another writes the process's output to it. With TLS that is not
safe on a blocking socket: OpenSSL's ``SSL_read`` and ``SSL_write`` must not
run on one connection at the same time. So the socket is made non-blocking,
every OpenSSL call runs under one short lock, and waiting (for input, or for
room to write) happens outside it, in ``select``. Whole writes are
serialised by a second lock so that frames from different threads never
interleave.

Promises: :meth:`SharedSocket.recv` returns data, ``b""`` at end of input,
or ``None`` when ``timeout`` passed first; :meth:`SharedSocket.sendall`
writes everything or raises :class:`ConnectionError` (peer gone, or no room
for :data:`SEND_TIMEOUT` seconds: a client that stopped reading);
:meth:`SharedSocket.close` wakes both.
"""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import threading
import time

__all__ = ["SEND_TIMEOUT", "SharedSocket"]

#: Seconds a write may wait for the client to make room before giving up.
SEND_TIMEOUT = 60.0
#: Longest single wait, so a close from another thread is noticed.
_TICK = 0.5


class SharedSocket:
    """See the module docstring."""

    def __init__(self, sock: socket.socket, buffered: bytes = b"") -> None:
        self._sock = sock
        self._buffered = buffered
        self._io = threading.Lock()      # one OpenSSL call at a time
        self._writing = threading.Lock()  # one whole write at a time
        self._closed = threading.Event()
        sock.setblocking(False)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def _wait(self, *, read: bool, seconds: float) -> None:
        with contextlib.suppress(OSError, ValueError):
            if read:
                select.select([self._sock], [], [], seconds)
            else:
                select.select([], [self._sock], [], seconds)

    def recv(self, size: int = 65536, timeout: float | None = None) -> bytes | None:
        if self._buffered:
            data, self._buffered = self._buffered[:size], self._buffered[size:]
            return data
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._closed.is_set():
            want_write = False
            with self._io:
                try:
                    return self._sock.recv(size)
                except (ssl.SSLWantReadError, BlockingIOError, InterruptedError):
                    pass
                except ssl.SSLWantWriteError:
                    want_write = True
                except (ssl.SSLZeroReturnError, ssl.SSLEOFError, ConnectionError):
                    # A clean close, or a peer that hung up without TLS's goodbye
                    # (kubectl does when its user presses Ctrl-C): the end either way.
                    return b""
                except OSError:
                    if self._closed.is_set():
                        return b""
                    raise
            remaining = _TICK if deadline is None else min(_TICK, deadline - time.monotonic())
            if remaining <= 0:
                return None
            self._wait(read=not want_write, seconds=remaining)
        return b""

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        with self._writing:
            deadline = time.monotonic() + SEND_TIMEOUT
            while view:
                if self._closed.is_set():
                    raise ConnectionError("the connection is closed")
                want_read = False
                with self._io:
                    try:
                        sent = self._sock.send(view)
                        view = view[sent:]
                        deadline = time.monotonic() + SEND_TIMEOUT
                        continue
                    except (ssl.SSLWantWriteError, BlockingIOError, InterruptedError):
                        pass
                    except ssl.SSLWantReadError:
                        want_read = True
                    except OSError as exc:
                        raise ConnectionError(f"the client went away: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise ConnectionError(f"the client read nothing for {SEND_TIMEOUT:.0f} s")
                self._wait(read=want_read, seconds=_TICK)

    def close(self, *, release: bool = False) -> None:
        """Stop both directions; idempotent. The socket itself is closed by
        its owner (the HTTP server) after this, or here with ``release``."""
        if not self._closed.is_set():
            self._closed.set()
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
        if release:
            with self._io:
                self._sock.close()
