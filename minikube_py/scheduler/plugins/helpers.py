"""Arithmetic shared by plugins, written to give Go's exact integers.

Go's integer division truncates toward zero and ``math.Round`` rounds half
away from zero; NumPy's ``//`` floors and ``np.round`` rounds half to even.
These helpers keep scores bit-identical to kube-scheduler's.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..framework import MAX_NODE_SCORE
from ..snapshot import Slots as Slots  # what plugins index nodes with

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]
U16 = npt.NDArray[np.uint16]
BoolArr = npt.NDArray[np.bool_]


def trunc_div(a: I64, b: I64 | int) -> I64:
    """Go's ``a / b`` on int64 (truncates toward zero); ``b`` must not be 0."""
    q = np.abs(a) // np.abs(b)
    return np.where((np.sign(a) * np.sign(b)) < 0, -q, q).astype(np.int64)


def round_half_away(x: F64) -> I64:
    """Go's ``int64(math.Round(x))``."""
    fl = np.floor(x)
    frac = x - fl
    up = np.where(x >= 0, frac >= 0.5, frac > 0.5)
    return (fl + up).astype(np.int64)


def default_normalize(scores: I64, *, reverse: bool) -> I64:
    """``helper.DefaultNormalizeScore(MaxNodeScore, reverse, scores)``."""
    if len(scores) == 0:
        return scores
    max_count = int(scores.max())
    if max_count <= 0:
        if reverse:
            return np.full(len(scores), MAX_NODE_SCORE, np.int64)
        return scores
    out = MAX_NODE_SCORE * scores // max_count
    return (MAX_NODE_SCORE - out) if reverse else out


def verdicts(failed: BoolArr, rid: int) -> U16 | None:
    """One reason id where ``failed``, 0 elsewhere; None when nothing failed."""
    if not failed.any():
        return None
    return np.where(failed, rid, 0).astype(np.uint16)
