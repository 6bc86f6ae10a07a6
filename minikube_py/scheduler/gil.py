"""Array and file helpers that keep the interpreter lock.

NumPy releases the interpreter lock around its sorts (``sort``, ``argsort``,
``unique``) at any size, around ``searchsorted`` and ``bincount``, around a
gather whose indices are not of its index type (they are cast first: hence
:data:`~.snapshot.Slots`) or that indexes two dimensions at once (``a[slots,
col]``; ``a[:, col][slots]`` keeps the lock), and around element-wise loops
over more than 500 elements (so columns, not ``[m, k]`` arrays), and around
the ``calloc`` of an ``np.zeros`` past 1 KB (hence :func:`zeros`). In the
daemon another thread is nearly always waiting for the lock: a release can
hand it over (the longer the call, the likelier), and the scheduling thread
then waits until that thread blocks or its switch interval (5 ms) runs out. Measured
against one busy thread at 500 nodes, a scheduling cycle took 7.8 ms instead
of 0.28 and 0.65 ms of its own CPU instead of 0.28 (the context switches and
cold caches). The scheduling cycle is the chain's one serial stage, so it
uses these helpers, which do the same work under the lock, on its hot path.

:func:`os.write` releases the lock too: the scheduler's one write a cycle
(its decision, to the decision file) took 1.6 ms wall and 0.44 switches
against one busy thread instead of 5 µs, so :func:`write_held` makes it keep
the lock. (Not the store's journal, tried: writers that keep the lock take it
from the scheduling thread; through the daemon at 5,000 nodes the binds kept
0.71-0.88 of the create rate instead of 0.94-0.95.)
"""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt


def distinct(values: npt.NDArray[Any]) -> list[int]:
    """The distinct integers of ``values``, ascending (``np.unique(values).tolist()``
    without the sort that releases the lock; cheap for the few distinct
    values of reason ids and fit-failure combinations)."""
    return sorted(set(values.tolist()))


#: The longest run NumPy fills or loops over element-wise with the lock held.
_HELD_RUN = 500


def zeros(shape: int | tuple[int, ...], dtype: Any = np.float64) -> npt.NDArray[Any]:
    """``np.zeros(shape, dtype)`` keeping the lock: NumPy allocates a zeroed
    buffer past 1 KB with ``calloc`` with the lock released (230 int64 scores
    are 1.8 KB), so the array is made empty and filled in runs of at most
    :data:`_HELD_RUN` elements, each filled under the lock (about 0.5 us more
    than ``np.zeros`` when no other thread wants the lock)."""
    out = np.empty(shape, dtype)
    if out.size <= _HELD_RUN:
        out.fill(0)
        return out
    flat = out.reshape(-1)  # a view: the array is contiguous
    for start in range(0, flat.size, _HELD_RUN):
        flat[start:start + _HELD_RUN] = 0
    return out


def first_two_present(fracs: Sequence[npt.NDArray[np.float64]],
                      valids: Sequence[npt.NDArray[np.bool_]]
                      ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per row, the first and second ``fracs`` values where ``valids`` (0.0
    where a row has fewer), in column order, given column by column: what
    ``argsort(~valid, kind="stable")`` with ``take_along_axis`` gives on the
    stacked columns. Columns keep each pass as long as a column (the 2-D
    passes were ``m * k`` elements, past the 500 at 500 nodes scored)."""
    m = len(fracs[0]) if fracs else 0
    f0 = zeros(m, np.float64)
    f1 = zeros(m, np.float64)
    seen = zeros(m, np.int64)
    for frac, present in zip(fracs, valids, strict=True):
        f0 = np.where(present & (seen == 0), frac, f0)
        f1 = np.where(present & (seen == 1), frac, f1)
        seen += present
    return f0, f1


def _libc_write() -> Callable[[int, bytes, int], int] | None:
    try:
        # PyDLL: the interpreter lock is *not* released during the call.
        write = ctypes.PyDLL(None, use_errno=True).write
    except (OSError, AttributeError):
        return None
    write.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)
    write.restype = ctypes.c_ssize_t
    return write


_WRITE = _libc_write()


def write_held(fd: int, data: bytes) -> int:
    """:func:`os.write` without releasing the interpreter lock: returns the
    bytes written (possibly fewer than given), raises :class:`OSError` with
    the errno, retries on EINTR. Only for short writes to regular files: a
    write that blocks (a pipe, a socket, a disk throttling dirty pages)
    blocks every thread of the process meanwhile. Falls back to
    :func:`os.write` where the C library cannot be loaded."""
    if _WRITE is None:
        return os.write(fd, data)
    while True:
        written = _WRITE(fd, data, len(data))
        if written >= 0:
            return written
        code = ctypes.get_errno()
        if code != errno.EINTR:
            raise OSError(code, os.strerror(code))
