"""Streams into containers: what ``kubectl exec``, ``attach`` and ``port-forward`` ride on.

CRI serves these through the kubelet's streaming server (``Exec``,
``Attach``, ``PortForward``); here a runtime hands the kubelet a
:class:`StreamSession` (a running process's stdin, output and terminal) or a
connected socket, and the API server relays them to the client.

Contract of a :class:`StreamSession`:

* :meth:`~StreamSession.recv` blocks until output arrives and returns
  ``(1, data)`` for stdout or ``(2, data)`` for stderr (with a TTY everything
  is stdout, as on a terminal); ``None`` once the output has ended (the
  process exited, or the session was closed).
* :meth:`~StreamSession.send` writes to the process's stdin;
  :meth:`~StreamSession.close_stdin` gives it end-of-file (``kubectl cp``
  depends on it). Both are no-ops when the session has no stdin.
* :meth:`~StreamSession.resize` sets the terminal size (TTY sessions only;
  ignored otherwise).
* :meth:`~StreamSession.exit_code` is the process's exit status once its
  output has ended (``None`` for attach, whose process is the container's own,
  or when the runtime could not tell).
* :meth:`~StreamSession.close` is idempotent and may be called from any
  thread; a blocked ``recv`` returns ``None`` promptly. Closing an exec
  session whose process still runs kills that process (the client is gone,
  nobody can read its output); closing an attach session leaves the
  container alone, as Kubernetes does.
* ``send``/``close_stdin``/``resize`` may be called from one thread while
  another is in ``recv``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["STDERR", "STDOUT", "ExecOptions", "StreamSession"]

STDOUT = 1
STDERR = 2


@dataclass(frozen=True, slots=True)
class ExecOptions:
    """Which streams a session carries (``kubectl exec -i -t``)."""

    stdin: bool = False
    stdout: bool = True
    stderr: bool = True
    tty: bool = False


class StreamSession(Protocol):
    """A process's streams (see the module contract)."""

    @property
    def tty(self) -> bool: ...

    def recv(self) -> tuple[int, bytes] | None: ...

    def send(self, data: bytes) -> None: ...

    def close_stdin(self) -> None: ...

    def resize(self, width: int, height: int) -> None: ...

    def exit_code(self, timeout: float = 2.0) -> int | None: ...

    def close(self) -> None: ...
