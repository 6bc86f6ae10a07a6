"""DefaultPreemption: when nothing fits, find a node where evicting lower-priority pods helps.

PostFilter, as kube-scheduler v1.32's ``preemption.Evaluator``:

1. **Eligibility**: ``preemptionPolicy: Never`` pods do not preempt
   (``not eligible due to preemptionPolicy=Never.``), nor do pods whose
   nominated node still has a lower-priority pod terminating because of a
   previous preemption.
2. **Candidates**: nodes the filters rejected as *Unschedulable* (never
   UnschedulableAndUnresolvable) are tried from a random offset, until
   ``max(10% of them, 100)`` candidates are found.
3. **Victims per node** (``SelectVictimsOnNode``): remove every pod of lower
   priority; if the pod still does not fit, the node is no candidate (its
   filter verdict is kept; with no lower-priority pods at all it is ``No
   preemption victims found for incoming pod``). Otherwise re-add the removed
   pods from most to least important (priority, then earlier start) and keep
   each one whose return still lets the pod fit; the rest are the victims.
4. **Pick** (``pickOneNodeForPreemption``): the lowest highest-victim
   priority, then the smallest sum of priorities, then the fewest victims,
   then the latest start time among the highest-priority victims, then the
   first candidate.

With no candidate the message is a FitError over the dry-run verdicts, the
other nodes counting as ``Preemption is not helpful for scheduling``, prefixed
``preemption: ``. There are no PodDisruptionBudgets in minikube-py, so every
candidate is non-violating.

Dry runs detach pods from the snapshot and re-attach them before returning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ..decision import Preemption, Victim
from ..framework import CycleState, Diagnosis, Handle, PluginArgsError, fit_error_message
from ..podinfo import PodInfo
from ..snapshot import PodRecord, Snapshot
from ..status import PASS, REASONS, Code, Status

if TYPE_CHECKING:
    from ..framework import Framework

NAME: Final = "DefaultPreemption"
NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
NO_VICTIMS: Final = "No preemption victims found for incoming pod"
_INT32_OFFSET: Final = 2**31


def _int_arg(args: Mapping[str, Any], key: str, default: int, lo: int, hi: int | None,
             errors: list[tuple[str, str]]) -> int:
    value = args.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < lo or (
            hi is not None and value > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        errors.append((key, f"Invalid value: {value!r}: not in valid range {rng}"))
        return default
    return value


class DefaultPreemption:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        args = args or {}
        errors: list[tuple[str, str]] = []
        self.min_candidate_nodes_percentage = _int_arg(
            args, "minCandidateNodesPercentage", 10, 0, 100, errors)
        self.min_candidate_nodes_absolute = _int_arg(
            args, "minCandidateNodesAbsolute", 100, 0, None, errors)
        if errors:
            raise PluginArgsError(errors)
        if self.min_candidate_nodes_percentage == 0 and self.min_candidate_nodes_absolute == 0:
            raise PluginArgsError([("minCandidateNodesAbsolute", "Invalid value: 0: cannot be "
                                    "zero at the same time as minCandidateNodesPercentage")])
        self._not_helpful = REASONS.intern("", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_HELPFUL)
        self._no_victims = REASONS.intern(NAME, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)

    def num_candidates(self, num_nodes: int) -> int:
        """``calculateNumCandidates``."""
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        n = max(n, self.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def eligible(self, pod: PodInfo, snap: Snapshot, diagnosis: Diagnosis) -> str | None:
        """``PodEligibleToPreemptOthers``: None when eligible, else the reason."""
        if pod.preemption_policy == "Never":
            return "not eligible due to preemptionPolicy=Never."
        if pod.nominated_node_name:
            slot = snap.slot_of(pod.nominated_node_name)
            if slot >= 0:
                rid = diagnosis.status_of(slot)
                if rid != PASS and REASONS.get(rid).code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None
                for rec in snap.pods_on(slot):
                    if rec.info.priority < pod.priority and rec.info.terminating_by_preemption:
                        return "not eligible due to a terminating pod on the nominated node."
        return None

    def post_filter(self, state: CycleState, pod: PodInfo, snap: Snapshot,
                    diagnosis: Diagnosis, fw: Framework) -> tuple[Preemption | None, Status]:
        reason = self.eligible(pod, snap, diagnosis)
        if reason is not None:
            return None, Status.unschedulable("preemption: " + reason)
        potential = diagnosis.slots_with_code(Code.UNSCHEDULABLE, snap.order()).tolist()
        statuses: dict[int, int] = {}
        candidates: list[tuple[int, list[PodRecord]]] = []
        if potential:
            offset = state.rng.randrange(len(potential))
            wanted = self.num_candidates(len(potential))
            for i in range(len(potential)):
                slot = potential[(offset + i) % len(potential)]
                victims, rid = self.select_victims(pod, snap, slot, fw, state)
                if victims:
                    candidates.append((slot, victims))
                    if len(candidates) >= wanted:
                        break
                else:
                    statuses[slot] = rid
        if not candidates:
            status = np.array(list(statuses.values()), np.uint16)
            message = fit_error_message(diagnosis.num_all_nodes, status, self._not_helpful)
            return None, Status.unschedulable("preemption: " + message)
        slot, victims = pick_one_node(candidates, state.now_ns)
        return Preemption(snap.name_of(slot), tuple(Victim(r.info.pod) for r in victims)), \
            Status.success()

    def select_victims(self, pod: PodInfo, snap: Snapshot, slot: int, fw: Framework,
                       state: CycleState) -> tuple[list[PodRecord], int]:
        """``SelectVictimsOnNode``: (victims, 0) or ([], the reason id)."""
        lower = [rec for rec in snap.pods_on(slot) if rec.info.priority < pod.priority]
        if not lower:
            return [], self._no_victims
        out: list[PodRecord] = []
        detached: list[PodRecord] = []
        try:
            for rec in lower:
                snap.detach(rec)
                detached.append(rec)
            rid = fw.evaluate_node(pod, snap, slot, state)
            if rid != PASS:
                return [], rid
            # Reprieve the most important pods first.
            lower.sort(key=lambda r: (-r.info.priority, start_ns(r.info, state.now_ns)))
            for rec in lower:
                snap.reattach(rec)
                detached.remove(rec)
                if fw.evaluate_node(pod, snap, slot, state) != PASS:
                    snap.detach(rec)
                    detached.append(rec)
                    out.append(rec)
        finally:
            for rec in detached:
                snap.reattach(rec)
        if not out:
            return [], REASONS.intern(NAME, Code.ERROR, f'expected at least one victim pod on '
                                      f'node "{snap.name_of(slot)}"')
        return out, PASS


def start_ns(info: PodInfo, now_ns: int) -> int:
    """``GetPodStartTime``: status.startTime, or now for pods not started yet."""
    return info.start_time_ns if info.start_time_ns is not None else now_ns


def pick_one_node(candidates: Sequence[tuple[int, list[PodRecord]]],
                  now_ns: int) -> tuple[int, list[PodRecord]]:
    """``pickOneNodeForPreemption`` over candidates whose victims are sorted
    most important first."""
    def highest(victims: list[PodRecord]) -> int:
        return -victims[0].info.priority

    def priority_sum(victims: list[PodRecord]) -> int:
        return -sum(v.info.priority + _INT32_OFFSET for v in victims)

    def fewest(victims: list[PodRecord]) -> int:
        return -len(victims)

    def latest_start(victims: list[PodRecord]) -> int:
        # Earliest start among the highest-priority victims; later is better.
        top = victims[0].info.priority
        earliest = start_ns(victims[0].info, now_ns)
        for v in victims:
            if v.info.priority == top:
                earliest = min(earliest, start_ns(v.info, now_ns))
            elif v.info.priority > top:
                top = v.info.priority
                earliest = start_ns(v.info, now_ns)
        return earliest

    remaining = list(candidates)
    for score in (highest, priority_sum, fewest, latest_start):
        best = max(score(victims) for _, victims in remaining)
        remaining = [c for c in remaining if score(c[1]) == best]
        if len(remaining) == 1:
            break
    return remaining[0]
