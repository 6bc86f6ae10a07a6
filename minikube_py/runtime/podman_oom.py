"""Which containers the kernel OOM-killed, read from the kernel log.

Podman learns of OOM kills from conmon, and conmon 2.1.x with Podman 4.3 on
cgroup v1 writes its ``oom`` marker into its *working directory* instead of
the container's bundle, so ``State.OOMKilled`` stays false there (measured on
Debian 12: a container killed by its memory limit reports exit code 137 and
``OOMKilled: false``). The kernel, however, logs every memcg OOM kill with
the cgroup of the victim::

    oom-kill:constraint=CONSTRAINT_MEMCG,...,oom_memcg=/libpod_parent/<pod>/libpod-<id>,
    task_memcg=/libpod_parent/<pod>/libpod-<id>,task=sh,pid=2448,uid=0

so :class:`KernelOomLog` reads ``/dev/kmsg`` (non-blocking, incrementally)
and remembers the container ids named there. It is a second opinion the
runtime asks only when Podman says "not OOM-killed" for a failed container.
Reading ``/dev/kmsg`` needs root (``CAP_SYSLOG`` with ``dmesg_restrict``);
when it is unreadable :meth:`KernelOomLog.oom_killed` just answers False.
"""

from __future__ import annotations

import errno
import os
import re
import threading

__all__ = ["KMSG_PATH", "KernelOomLog", "oom_container_ids"]

KMSG_PATH = "/dev/kmsg"
_OOM_LINE = re.compile(rb"oom-kill:.*?(?:oom_memcg|task_memcg)=")
_LIBPOD = re.compile(rb"libpod-([0-9a-f]{64})")
#: At most this many ids are remembered (oldest forgotten first).
_MAX_IDS = 10_000


def oom_container_ids(record: bytes) -> set[str]:
    """The Podman container ids a kernel log record names as OOM victims."""
    if not _OOM_LINE.search(record):
        return set()
    return {m.group(1).decode() for m in _LIBPOD.finditer(record)}


class KernelOomLog:
    """Thread-safe, lazily opened reader of the kernel log's OOM-kill records."""

    def __init__(self, path: str = KMSG_PATH) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._unavailable = ""
        self._ids: dict[str, None] = {}  # insertion-ordered set

    @property
    def unavailable(self) -> str:
        """Why the kernel log cannot be read ("" while it can, or before the first try)."""
        return self._unavailable

    def readable(self) -> bool:
        with self._lock:
            return self._open()

    def oom_killed(self, container_id: str) -> bool:
        """Whether the kernel logged an OOM kill in ``container_id``'s cgroup."""
        with self._lock:
            self._drain()
            return container_id in self._ids

    def _open(self) -> bool:
        if self._fd is not None:
            return True
        if self._unavailable:
            return False
        try:
            self._fd = os.open(self._path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            self._unavailable = f"cannot read {self._path}: {exc.strerror or exc}"
            return False
        return True

    def _drain(self) -> None:
        if not self._open() or self._fd is None:
            return
        while True:
            try:
                record = os.read(self._fd, 8192)
            except BlockingIOError:
                return  # read everything logged so far
            except OSError as exc:
                if exc.errno == errno.EPIPE:
                    continue  # records were overwritten before we read them
                if exc.errno == errno.EINVAL:
                    continue  # a record larger than our buffer: skip it
                self._unavailable = f"reading {self._path} failed: {exc.strerror or exc}"
                os.close(self._fd)
                self._fd = None
                return
            if not record:
                return
            for cid in oom_container_ids(record):
                self._ids[cid] = None
                if len(self._ids) > _MAX_IDS:
                    del self._ids[next(iter(self._ids))]

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
