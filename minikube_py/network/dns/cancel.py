"""Socket waits that a stopping server can cut short.

The DNS server's threads block in two places: reading a client's TCP stream
and waiting for an upstream resolver. Both wait through :meth:`Cancel.wait`,
which polls the socket together with the read end of a socketpair; setting
the :class:`Cancel` writes one byte there and never drains it, so every wait
in progress or to come returns at once by raising :class:`Cancelled`. That
is how ``DnsServer.stop()`` ends within a moment instead of after the
longest upstream timeout, without polling loops or closing sockets under
another thread's feet.
"""

from __future__ import annotations

import select
import socket
import threading

__all__ = ["Cancel", "Cancelled"]


class Cancelled(Exception):
    """The wait was cut short because its :class:`Cancel` was set."""


class Cancel:
    """A one-shot signal that wakes every :meth:`wait` on it, from any thread."""

    def __init__(self) -> None:
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._event = threading.Event()
        self._lock = threading.Lock()

    def set(self) -> None:
        """Cut every current and future wait short. Idempotent."""
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            self._writer.send(b"x")  # left unread: the read end stays readable

    def is_set(self) -> bool:
        return self._event.is_set()

    def fileno(self) -> int:
        """A descriptor that turns readable when the signal is set, for a
        caller that polls many sockets at once."""
        return self._reader.fileno()

    def wait(self, sock: socket.socket, timeout: float, *, write: bool = False) -> bool:
        """Wait until ``sock`` is readable (or writable, with ``write``).

        True when it is, False when ``timeout`` seconds passed first; raises
        :class:`Cancelled` once the signal is set, even if ``sock`` is ready
        too (a stopping server starts nothing new).
        """
        if self._event.is_set():
            raise Cancelled
        if timeout <= 0:
            return False
        poller = select.poll()
        poller.register(sock, select.POLLOUT if write else select.POLLIN)
        poller.register(self._reader, select.POLLIN)
        events = poller.poll(timeout * 1000)
        if self._event.is_set():
            raise Cancelled
        return bool(events)

    def close(self) -> None:
        """Release the socketpair (after every waiter is gone)."""
        self._reader.close()
        self._writer.close()
