"""Writing a whole file atomically and durably.

:func:`write_atomically` promises: after it returns, ``path`` holds exactly
``data`` (one bytes object, or the concatenation of an iterable of them,
written as they come so a large file never sits in memory whole) with mode
``mode`` and survives a crash or power loss (the data and
the directory entry were fsynced); a crash before that leaves the old file
(or none) and at most a ``<name>.tmp`` that the next write overwrites. It
does not follow a symlink at the temporary path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path: Path, data: bytes | Iterable[bytes], *, mode: int = 0o600) -> int:
    """Replace ``path`` with ``data`` (module contract); returns the number of
    bytes written; raises OSError (and whatever the iterable raises, leaving
    ``path`` as it was)."""
    tmp = path.with_name(path.name + ".tmp")
    # O_TRUNC, not O_EXCL: a temp file left by a crash is ours to overwrite.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW,
                 mode)
    try:
        os.fchmod(fd, mode)  # a leftover temp file keeps its old mode otherwise
        size = 0
        for chunk in (data,) if isinstance(data, bytes) else data:
            view = memoryview(chunk)
            size += len(view)
            while view:
                view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return size
