"""Exclusive ownership of a state directory.

Two processes writing the same journal would interleave records and corrupt
it, so the store takes an ``fcntl.flock`` on ``DIR/lock`` for its lifetime.
The kernel releases the lock when the process dies (even by SIGKILL), so a
crash never leaves a stale lock behind; the pid written into the file is only
there to make the refusal message useful.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path


class StateDirLocked(RuntimeError):
    """Another live process owns the state directory."""


class DirLock:
    """Holds ``DIR/lock`` until :meth:`release` (or process exit)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "lock"
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise StateDirLocked(
                f"state directory {directory} is in use by another minikube-py process "
                f"(pid {holder}); stop that process first or choose another --state-dir"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd >= 0:
            # Clearing the pid is cosmetic: on a read-only or failing disk it must not
            # keep the lock (and the process's shutdown) from completing.
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1
