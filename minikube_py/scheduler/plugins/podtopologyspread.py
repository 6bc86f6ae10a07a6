"""PodTopologySpread: keep matching pods evenly spread over topology domains.

Filter (``whenUnsatisfiable: DoNotSchedule``): for each constraint, a node
must carry the topology key (else UnschedulableAndUnresolvable, ``... (missing
required label)``), and ``matching pods in the node's domain + (1 if the pod
matches its own selector) - global minimum <= maxSkew`` (else Unschedulable).
The global minimum is taken over the domains of *eligible* nodes (those with
every constraint's key that pass ``nodeAffinityPolicy`` -- default Honor: the
pod's nodeSelector/required affinity -- and ``nodeTaintsPolicy`` -- default
Ignore), and is 0 while there are fewer domains than ``minDomains``.
``matchLabelKeys`` add the pod's own label values to the selector.

Score (``ScheduleAnyway``): per node ``sum(count * log(domains + 2) +
maxSkew - 1)``, rounded, then normalised so the least crowded node scores 100
(``100 * (max + min - score) / max``). Nodes of the filtered list without
every key are ignored (score 0) unless only the system defaults apply.

**System defaults**: a pod without constraints gets ``kubernetes.io/hostname``
maxSkew 3 and ``topology.kubernetes.io/zone`` maxSkew 5, both ScheduleAnyway,
*selecting the pods of the same controller*. Which pods those are is the
caller's knowledge: pass ``controller_selector(pod) -> Selector | None`` to the
:class:`~..framework.Framework` (kube-scheduler unions the selectors of the
pod's Services and its ReplicaSet/StatefulSet/ReplicationController). Without
a callback, or when it returns None or an empty selector, the defaults do
nothing, exactly like a pod that belongs to no controller.

Counting walks the pods of the pod's namespace once per selector (terminating
pods are skipped); everything per node is NumPy over label columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from minikube_py.api.labels import (
    EQUALS,
    Requirement,
    Selector,
    SelectorError,
    selector_from_label_selector,
)

from ...api.access import mapping as _map
from ..framework import MAX_NODE_SCORE, CycleState, Handle, PluginArgsError, PreFilterResult
from ..gil import zeros
from ..podinfo import PodInfo
from ..snapshot import Snapshot
from ..status import REASONS, Code, Status
from .helpers import F64, I64, U16, BoolArr, Slots, round_half_away
from .nodeaffinity import RequiredNodeAffinity
from .tainttoleration import hard_taint_lut

NAME: Final = "PodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH: Final = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH: Final = ERR_REASON_CONSTRAINTS_NOT_MATCH + \
    " (missing required label)"
LABEL_HOSTNAME: Final = "kubernetes.io/hostname"
LABEL_ZONE: Final = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE: Final = "DoNotSchedule"
SCHEDULE_ANYWAY: Final = "ScheduleAnyway"
SYSTEM_DEFAULT_CONSTRAINTS: Final = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)
_PREFILTER_KEY: Final = "PreFilter" + NAME
_PRESCORE_KEY: Final = "PreScore" + NAME




@dataclass(frozen=True, slots=True)
class Constraint:
    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    honor_affinity: bool = True
    honor_taints: bool = False


def build_constraints(raw: Sequence[object], pod_labels: Mapping[str, str],
                      action: str) -> list[Constraint]:
    """``filterTopologySpreadConstraints``; raises SelectorError on a bad selector."""
    out: list[Constraint] = []
    for item in raw:
        c = _map(item)
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = selector_from_label_selector(c.get("labelSelector"))
        keys = [str(k) for k in c.get("matchLabelKeys") or []]
        extra = [Requirement.create(k, EQUALS, [pod_labels[k]]) for k in keys if k in pod_labels]
        if extra and not selector.nothing:
            selector = Selector((*selector.requirements, *extra))
        min_domains = c.get("minDomains")
        out.append(Constraint(
            int(c.get("maxSkew") or 1), str(c.get("topologyKey") or ""), selector,
            min_domains if isinstance(min_domains, int) else 1,
            c.get("nodeAffinityPolicy", "Honor") != "Ignore",
            c.get("nodeTaintsPolicy", "Ignore") == "Honor"))
    return out


class _Counter:
    """Matching pods per slot, one walk of the namespace per selector."""

    def __init__(self, snap: Snapshot, namespace: str) -> None:
        self.snap = snap
        self.namespace = namespace
        self._cache: dict[Selector, I64] = {}

    def counts(self, selector: Selector) -> I64:
        got = self._cache.get(selector)
        if got is not None:
            return got
        slots: list[int] = []
        if not selector.empty() and not selector.nothing:
            for rec in self.snap.pods_in_namespace(self.namespace):
                # Terminating pods do not count (kubernetes#87621).
                if rec.info.deleting or rec.slot < 0:
                    continue
                if selector.matches(rec.info.labels):
                    slots.append(rec.slot)
        out = np.bincount(np.array(slots, np.int64), minlength=self.snap.capacity).astype(
            np.int64)
        self._cache[selector] = out
        return out


@dataclass
class _KeyStats:
    sums: I64       # matching pods per value id
    domains: int
    minimum: int


@dataclass
class _PreFilterState:
    constraints: list[Constraint]
    keys: dict[str, _KeyStats]


@dataclass
class _PreScoreState:
    constraints: list[Constraint]
    weights: list[float]
    ignored: BoolArr
    pair_sums: dict[str, I64]
    counter: _Counter
    empty_id: int


class PodTopologySpread:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        args = args or {}
        defaulting = str(args.get("defaultingType") or "System")
        defaults = args.get("defaultConstraints") or []
        if defaulting not in ("System", "List"):
            raise PluginArgsError([("defaultingType", f'Unsupported value: "{defaulting}": '
                                    'supported values: "List", "System"')])
        if defaulting == "System" and defaults:
            raise PluginArgsError([("defaultingType", 'Invalid value: "System": when '
                                    ".defaultConstraints are not empty")])
        if not isinstance(defaults, list):
            raise PluginArgsError([("defaultConstraints", "must be a list")])
        self.system_defaulted = defaulting == "System"
        self.default_constraints: tuple[Any, ...] = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else tuple(defaults))
        self.handle = handle or Handle()
        self._rid_label = REASONS.intern(NAME, Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                         ERR_REASON_NODE_LABEL_NOT_MATCH)
        self._rid_skew = REASONS.intern(NAME, Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)

    def _constraints(self, state: CycleState, pod: PodInfo,
                     action: str) -> list[Constraint]:
        own = pod.spec.get("topologySpreadConstraints")
        if isinstance(own, list) and own:
            return build_constraints(own, pod.labels, action)
        constraints = build_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        selector = None
        callback = state.controller_selector or self.handle.controller_selector
        if callback is not None:
            selector = callback(pod.pod)
        if selector is None or selector.empty():
            return []
        return [Constraint(c.max_skew, c.topology_key, selector, c.min_domains,
                           c.honor_affinity, c.honor_taints) for c in constraints]

    def _eligible(self, pod: PodInfo, snap: Snapshot, slots: Slots,
                  constraints: Sequence[Constraint]) -> tuple[BoolArr, BoolArr, BoolArr]:
        """(has every key, passes required affinity, has no untolerated hard taint)."""
        keys_ok = np.ones(len(slots), np.bool_)
        for c in constraints:
            keys_ok &= snap.label_column(c.topology_key)[slots] >= 0
        aff_ok = np.ones(len(slots), np.bool_)
        if any(c.honor_affinity for c in constraints):
            required = RequiredNodeAffinity.of(pod)
            if not required.trivial:
                aff_ok = required.match(snap, slots)
        taint_ok = np.ones(len(slots), np.bool_)
        if any(c.honor_taints for c in constraints):
            taint_ok = hard_taint_lut(snap, pod.tolerations)[snap.taint_set_ids[slots]] == 0
        return keys_ok, aff_ok, taint_ok

    # ------------------------------------------------------------- filter

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   snap: Snapshot) -> tuple[PreFilterResult | None, Status]:
        try:
            constraints = self._constraints(state, pod, DO_NOT_SCHEDULE)
        except SelectorError as exc:
            return None, Status.error(f"calculating preFilterState: {exc}")
        if not constraints:
            return None, Status.skip()
        order = snap.order()
        keys_ok, aff_ok, taint_ok = self._eligible(pod, snap, order, constraints)
        counter = _Counter(snap, pod.namespace)
        # Per key, the count a node contributes; a later constraint with the
        # same key overwrites it, as kube-scheduler's per-node map does.
        per_key: dict[str, I64] = {}
        for c in constraints:
            include = keys_ok.copy()
            if c.honor_affinity:
                include &= aff_ok
            if c.honor_taints:
                include &= taint_ok
            current = per_key.get(c.topology_key)
            if current is None:
                current = np.full(len(order), -1, np.int64)
            per_key[c.topology_key] = np.where(include, counter.counts(c.selector)[order],
                                               current)
        nvalues = snap.value_count()
        keys: dict[str, _KeyStats] = {}
        for key, node_counts in per_key.items():
            included = node_counts >= 0
            vals = snap.label_column(key)[order][included].astype(np.int64)
            sums = np.bincount(vals, weights=node_counts[included],
                               minlength=nvalues).astype(np.int64)
            present = np.bincount(vals, minlength=nvalues) > 0
            domains = int(present.sum())
            keys[key] = _KeyStats(sums, domains, int(sums[present].min()) if domains else 0)
        state.write(_PREFILTER_KEY, _PreFilterState(constraints, keys))
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> U16 | None:
        pre = state.get(_PREFILTER_KEY)
        if not isinstance(pre, _PreFilterState) or not pre.constraints:
            return None
        out = zeros(len(slots), np.uint16)
        alive = np.ones(len(slots), np.bool_)
        for c in pre.constraints:
            col = snap.label_column(c.topology_key)[slots]
            missing = alive & (col < 0)
            out[missing] = self._rid_label
            alive &= ~missing
            stats = pre.keys.get(c.topology_key)
            if stats is None or stats.domains == 0:
                continue
            minimum = stats.minimum if stats.domains >= c.min_domains else 0
            self_match = 1 if c.selector.matches(pod.labels) else 0
            safe = np.clip(col, 0, max(len(stats.sums) - 1, 0))
            matched = np.where((col >= 0) & (col < len(stats.sums)),
                               stats.sums[safe] if len(stats.sums) else 0, 0)
            skewed = alive & (matched + self_match - minimum > c.max_skew)
            out[skewed] = self._rid_skew
            alive &= ~skewed
        return out if out.any() else None

    # -------------------------------------------------------------- score

    def pre_score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> Status:
        if snap.num_nodes == 0:
            return Status.skip()
        try:
            constraints = self._constraints(state, pod, SCHEDULE_ANYWAY)
        except SelectorError as exc:
            return Status.error(f"calculating preScoreState: {exc}")
        if not constraints:
            return Status.skip()
        own = pod.spec.get("topologySpreadConstraints")
        require_all = bool(isinstance(own, list) and own) or not self.system_defaulted
        keys_ok = np.ones(len(slots), np.bool_)
        for c in constraints:
            keys_ok &= snap.label_column(c.topology_key)[slots] >= 0
        ignored = ~keys_ok if require_all else zeros(len(slots), np.bool_)
        nvalues = snap.value_count()
        empty = snap.value_id("")
        empty_id = empty if empty >= 0 else nvalues  # "" for a missing label
        kept = ~ignored
        registered: dict[str, BoolArr] = {}
        weights: list[float] = []
        for c in constraints:
            if c.topology_key == LABEL_HOSTNAME:
                weights.append(math.log(int(kept.sum()) + 2))
                continue
            col = snap.label_column(c.topology_key)[slots]
            mapped = np.where(col >= 0, col, empty_id)[kept]
            present = np.bincount(mapped.astype(np.int64), minlength=nvalues + 1) > 0
            reg = registered.get(c.topology_key)
            registered[c.topology_key] = present if reg is None else (reg | present)
            # Domain count per constraint: pairs this constraint registered first.
            size = int((present & ~reg).sum()) if reg is not None else int(present.sum())
            weights.append(math.log(size + 2))
        order = snap.order()
        all_keys_ok = np.ones(len(order), np.bool_)
        if require_all:
            for c in constraints:
                all_keys_ok &= snap.label_column(c.topology_key)[order] >= 0
        _, aff_ok, taint_ok = self._eligible(pod, snap, order, constraints)
        counter = _Counter(snap, pod.namespace)
        pair_sums: dict[str, I64] = {}
        for c in constraints:
            if c.topology_key == LABEL_HOSTNAME:
                continue
            include = all_keys_ok.copy()
            if c.honor_affinity:
                include &= aff_ok
            if c.honor_taints:
                include &= taint_ok
            col = snap.label_column(c.topology_key)[order]
            mapped = np.where(col >= 0, col, empty_id).astype(np.int64)
            include &= registered[c.topology_key][mapped]
            sums = np.bincount(mapped[include], weights=counter.counts(c.selector)[order][include],
                               minlength=nvalues + 1).astype(np.int64)
            prev = pair_sums.get(c.topology_key)
            pair_sums[c.topology_key] = sums if prev is None else prev + sums
        state.write(_PRESCORE_KEY, _PreScoreState(constraints, weights, ignored, pair_sums,
                                                  counter, empty_id))
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> I64:
        pre = state.get(_PRESCORE_KEY)
        if not isinstance(pre, _PreScoreState):
            return zeros(len(slots), np.int64)
        total: F64 = zeros(len(slots), np.float64)
        for c, weight in zip(pre.constraints, pre.weights, strict=True):
            col = snap.label_column(c.topology_key)[slots]
            present = col >= 0
            if c.topology_key == LABEL_HOSTNAME:
                cnt = pre.counter.counts(c.selector)[slots]
            else:
                sums = pre.pair_sums[c.topology_key]
                cnt = sums[np.where(present, col, pre.empty_id)]
            total = np.where(present, total + (cnt * weight + float(c.max_skew - 1)), total)
        return np.where(pre.ignored, 0, round_half_away(total))

    def normalize(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots,
                  scores: I64) -> I64:
        pre = state.get(_PRESCORE_KEY)
        if not isinstance(pre, _PreScoreState) or len(scores) == 0:
            return scores
        kept = ~pre.ignored
        if not kept.any():
            return zeros(len(scores), np.int64)
        lo = int(scores[kept].min())
        hi = int(scores[kept].max())
        if hi == 0:
            return np.where(kept, MAX_NODE_SCORE, 0).astype(np.int64)
        return np.where(kept, MAX_NODE_SCORE * (hi + lo - scores) // hi, 0).astype(np.int64)

