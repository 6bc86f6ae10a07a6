"""TaintToleration: taints repel pods that do not tolerate them.

Filter: the first ``NoSchedule``/``NoExecute`` taint of a node (in the node's
order) that no toleration tolerates rejects the node as
UnschedulableAndUnresolvable with ``node(s) had untolerated taint {key:
value}``. Score: the number of ``PreferNoSchedule`` taints not tolerated by
the pod's tolerations with an empty or ``PreferNoSchedule`` effect,
normalised *reversed* (fewest untolerated taints score 100).

Nodes share interned taint sets (:attr:`Snapshot.taint_sets`), so both
extension points evaluate each distinct set once and map the verdict onto
every node with one NumPy gather.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from ..framework import CycleState, Handle
from ..gil import zeros
from ..podinfo import (
    NO_EXECUTE,
    NO_SCHEDULE,
    PREFER_NO_SCHEDULE,
    PodInfo,
    Taint,
    Toleration,
    tolerations_tolerate,
)
from ..snapshot import Snapshot
from ..status import REASONS, Code, Status
from .helpers import I64, U16, Slots, default_normalize

NAME: Final = "TaintToleration"
_PRESCORE_KEY: Final = "PreScore" + NAME
_HARD: Final = (NO_SCHEDULE, NO_EXECUTE)


def untolerated_hard_taint(taints: Sequence[Taint],
                           tolerations: Sequence[Toleration]) -> Taint | None:
    """``FindMatchingUntoleratedTaint`` with ``DoNotScheduleTaintsFilterFunc``."""
    for taint in taints:
        if taint.effect in _HARD and not tolerations_tolerate(tolerations, taint):
            return taint
    return None


def hard_taint_lut(snap: Snapshot, tolerations: Sequence[Toleration]) -> U16:
    """Per taint-set id: 1 when the set has an untolerated hard taint, else 0."""
    sets = snap.taint_sets
    lut = zeros(len(sets), np.uint16)
    for tid, taints in enumerate(sets):
        if taints and untolerated_hard_taint(taints, tolerations) is not None:
            lut[tid] = 1
    return lut


class TaintToleration:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        # (tolerations, number of taint sets) -> reason id per taint set.
        self._cache: dict[tuple[tuple[Toleration, ...], int], U16] = {}

    def _filter_lut(self, snap: Snapshot, tolerations: tuple[Toleration, ...]) -> U16:
        sets = snap.taint_sets
        key = (tolerations, len(sets))
        lut = self._cache.get(key)
        if lut is None:
            lut = zeros(len(sets), np.uint16)
            for tid, taints in enumerate(sets):
                taint = untolerated_hard_taint(taints, tolerations)
                if taint is not None:
                    lut[tid] = REASONS.intern(
                        NAME, Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                        f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}")
            if len(self._cache) > 256:
                self._cache.clear()
            self._cache[key] = lut
        return lut

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> U16 | None:
        lut = self._filter_lut(snap, pod.tolerations)
        if not lut.any():
            return None
        return lut[snap.taint_set_ids[slots]]

    def pre_score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> Status:
        # Tolerations with an empty effect tolerate PreferNoSchedule taints too.
        prefer = tuple(t for t in pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE))
        counts = zeros(len(snap.taint_sets), np.int64)
        for tid, taints in enumerate(snap.taint_sets):
            counts[tid] = sum(1 for t in taints if t.effect == PREFER_NO_SCHEDULE
                              and not tolerations_tolerate(prefer, t))
        state.write(_PRESCORE_KEY, counts)
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> I64:
        counts = state.get(_PRESCORE_KEY)
        if not isinstance(counts, np.ndarray) or len(counts) != len(snap.taint_sets):
            self.pre_score(state, pod, snap, slots)
            counts = state.read(_PRESCORE_KEY)
        assert isinstance(counts, np.ndarray)
        return np.asarray(counts[snap.taint_set_ids[slots]], np.int64)

    def normalize(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots,
                  scores: I64) -> I64:
        return default_normalize(scores, reverse=True)
