"""InterPodAffinity: place pods near (affinity) or away from (anti-affinity) other pods.

Filter, in kube-scheduler's order:

1. required **affinity**: the node must carry every term's topology key and,
   for every term, its domain must hold a pod matching *all* terms; if no pod
   anywhere matches and the pod matches its own terms, any node with the keys
   will do (the first pod of a group). UnschedulableAndUnresolvable,
   ``node(s) didn't match pod affinity rules``.
2. required **anti-affinity**: no pod matching a term in the node's domain.
   Unschedulable, ``node(s) didn't match pod anti-affinity rules``.
3. the **symmetric** check: no existing pod's required anti-affinity term
   matches this pod within that pod's domain, which the node shares.
   Unschedulable, ``node(s) didn't satisfy existing pods anti-affinity rules``.

Terms apply to the pod's namespace unless ``namespaces`` /
``namespaceSelector`` say otherwise; for the incoming pod the selector is
resolved against the namespaces the snapshot knows (``Snapshot.set_namespace``).

Score: for every existing pod, the incoming pod's preferred terms it matches
(+weight / -weight for anti), its required affinity terms the incoming pod
matches (``hardPodAffinityWeight``, default 1) and its preferred terms the
incoming pod matches, all credited to the existing pod's topology domain;
a node scores the sum over its domains, normalised min..max onto 0..100.

The per-pod walks are the irregular part and run in Python, once per cycle;
per-node checks are NumPy lookups by label value id. Pods that need none of
this skip the plugin entirely.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from ..framework import CycleState, Handle, PluginArgsError, PreFilterResult
from ..gil import zeros
from ..podinfo import AffinityTerm, PodInfo, WeightedAffinityTerm
from ..snapshot import PodRecord, Snapshot
from ..status import REASONS, Code, Status
from .helpers import I32, I64, U16, BoolArr, Slots

NAME: Final = "InterPodAffinity"
ERR_REASON_EXISTING_ANTI_AFFINITY: Final = (
    "node(s) didn't satisfy existing pods anti-affinity rules")
ERR_REASON_AFFINITY: Final = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY: Final = "node(s) didn't match pod anti-affinity rules"
_PREFILTER_KEY: Final = "PreFilter" + NAME
_PRESCORE_KEY: Final = "PreScore" + NAME

Pair = tuple[str, str]


def merge_namespaces(term: AffinityTerm, snap: Snapshot) -> AffinityTerm:
    """``mergeAffinityTermNamespacesIfNotEmpty``: resolve a namespace selector
    into names (an empty selector ``{}`` keeps matching every namespace)."""
    if term.namespace_selector.empty():
        return term
    names = [n for n, labels in snap.namespaces().items()
             if term.namespace_selector.matches(labels)]
    return term.with_namespaces(names)


def _matches_all(terms: Sequence[AffinityTerm], info: PodInfo) -> bool:
    """``podMatchesAllAffinityTerms`` (namespace selectors already merged)."""
    if not terms:
        return False
    return all(t.matches(info.namespace, info.labels, None) for t in terms)


def _candidates(snap: Snapshot, terms: Iterable[AffinityTerm]) -> Iterable[PodRecord]:
    """The pods a set of merged terms can match: their namespaces' pods, or all
    pods when a term's namespace selector is still ``{}``."""
    namespaces: set[str] = set()
    for term in terms:
        if not term.namespace_selector.nothing:
            return snap.pods()
        namespaces |= term.namespaces
    out: list[PodRecord] = []
    for ns in sorted(namespaces):
        out.extend(snap.pods_in_namespace(ns))
    return out


def _bump(counts: dict[Pair, int], labels: Mapping[str, str], key: str, value: int) -> None:
    tv = labels.get(key)
    if tv is not None:
        pair = (key, tv)
        counts[pair] = counts.get(pair, 0) + value
        if counts[pair] == 0:
            del counts[pair]


@dataclass
class _PreFilterState:
    affinity: tuple[AffinityTerm, ...]
    anti: tuple[AffinityTerm, ...]
    existing_anti: dict[Pair, int]
    affinity_counts: dict[Pair, int]
    anti_counts: dict[Pair, int]
    self_match: bool


@dataclass
class _PreScoreState:
    topology_score: dict[str, dict[str, int]]


class InterPodAffinity:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        args = args or {}
        weight = args.get("hardPodAffinityWeight", 1)
        if not isinstance(weight, int) or isinstance(weight, bool) or not 0 <= weight <= 100:
            raise PluginArgsError([("hardPodAffinityWeight",
                                    f"Invalid value: {weight!r}: not in valid range [0, 100]")])
        self.hard_pod_affinity_weight = weight
        self.ignore_preferred_terms_of_existing_pods = bool(
            args.get("ignorePreferredTermsOfExistingPods", False))
        self._rid_aff = REASONS.intern(NAME, Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                       ERR_REASON_AFFINITY)
        self._rid_anti = REASONS.intern(NAME, Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY)
        self._rid_existing = REASONS.intern(NAME, Code.UNSCHEDULABLE,
                                            ERR_REASON_EXISTING_ANTI_AFFINITY)

    # ------------------------------------------------------------- filter

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   snap: Snapshot) -> tuple[PreFilterResult | None, Status]:
        if pod.parse_errors:
            return None, Status.unschedulable(f"parsing pod: {'; '.join(pod.parse_errors)}",
                                              unresolvable=True)
        affinity = tuple(merge_namespaces(t, snap) for t in pod.required_affinity_terms)
        anti = tuple(merge_namespaces(t, snap) for t in pod.required_anti_affinity_terms)
        ns_labels = snap.namespace_labels(pod.namespace)
        existing: dict[Pair, int] = {}
        for rec in snap.pods_with_required_anti_affinity():
            if rec.slot < 0:
                continue
            labels = snap.labels_of(rec.slot)
            for term in rec.info.required_anti_affinity_terms:
                if term.matches(pod.namespace, pod.labels, ns_labels):
                    _bump(existing, labels, term.topology_key, 1)
        aff_counts: dict[Pair, int] = {}
        anti_counts: dict[Pair, int] = {}
        if affinity or anti:
            for rec in _candidates(snap, (*affinity, *anti)):
                if rec.slot < 0:
                    continue
                labels = snap.labels_of(rec.slot)
                if affinity and _matches_all(affinity, rec.info):
                    for term in affinity:
                        _bump(aff_counts, labels, term.topology_key, 1)
                for term in anti:
                    if term.matches(rec.info.namespace, rec.info.labels, None):
                        _bump(anti_counts, labels, term.topology_key, 1)
        if not existing and not affinity and not anti:
            return None, Status.skip()
        state.write(_PREFILTER_KEY, _PreFilterState(affinity, anti, existing, aff_counts,
                                                    anti_counts, _matches_all(affinity, pod)))
        return None, Status.success()

    @staticmethod
    def _pair_mask(snap: Snapshot, counts: Mapping[Pair, int], key: str, col: I32) -> BoolArr:
        """Nodes whose ``key`` value has a positive count."""
        vids = [snap.value_id(v) for (k, v), n in counts.items() if k == key and n > 0]
        if not vids:
            return zeros(len(col), np.bool_)
        return np.isin(col, vids)

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> U16 | None:
        pre = state.get(_PREFILTER_KEY)
        if not isinstance(pre, _PreFilterState):
            return None
        out = zeros(len(slots), np.uint16)
        alive = np.ones(len(slots), np.bool_)
        if pre.affinity:
            has_keys = np.ones(len(slots), np.bool_)
            pods_exist = np.ones(len(slots), np.bool_)
            for term in pre.affinity:
                col = snap.label_column(term.topology_key)[slots]
                has_keys &= col >= 0
                pods_exist &= self._pair_mask(snap, pre.affinity_counts, term.topology_key, col)
            # The first pod of a self-affine group may go anywhere with the keys.
            first_of_group = not pre.affinity_counts and pre.self_match
            ok = has_keys & (pods_exist | first_of_group)
            out[~ok] = self._rid_aff
            alive &= ok
        if pre.anti_counts:
            bad = zeros(len(slots), np.bool_)
            for term in pre.anti:
                col = snap.label_column(term.topology_key)[slots]
                bad |= self._pair_mask(snap, pre.anti_counts, term.topology_key, col)
            bad &= alive
            out[bad] = self._rid_anti
            alive &= ~bad
        if pre.existing_anti:
            bad = zeros(len(slots), np.bool_)
            for (key, value), n in pre.existing_anti.items():
                if n > 0:
                    bad |= snap.label_column(key)[slots] == snap.value_id(value)
            bad &= alive
            out[bad] = self._rid_existing
        return out if out.any() else None

    # -------------------------------------------------------------- score

    def pre_score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> Status:
        if len(slots) == 0:
            return Status.skip()
        has_constraints = bool(pod.preferred_affinity_terms or
                               pod.preferred_anti_affinity_terms)
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status.skip()
        pref = [WeightedAffinityTerm(merge_namespaces(w.term, snap), w.weight)
                for w in pod.preferred_affinity_terms]
        pref_anti = [WeightedAffinityTerm(merge_namespaces(w.term, snap), w.weight)
                     for w in pod.preferred_anti_affinity_terms]
        ns_labels = snap.namespace_labels(pod.namespace)
        scores: dict[str, dict[str, int]] = {}

        def credit(term: AffinityTerm, weight: int, namespace: str, labels: Mapping[str, str],
                   ns_lbls: Mapping[str, str] | None, node_labels: Mapping[str, str]) -> None:
            if term.matches(namespace, labels, ns_lbls):
                tv = node_labels.get(term.topology_key)
                if tv is not None:
                    per_key = scores.setdefault(term.topology_key, {})
                    per_key[tv] = per_key.get(tv, 0) + weight

        records = snap.pods() if has_constraints else snap.pods_with_affinity()
        hard = self.hard_pod_affinity_weight
        for rec in records:
            if rec.slot < 0:
                continue
            node_labels = snap.labels_of(rec.slot)
            if not node_labels:
                continue
            other = rec.info
            for w in pref:
                credit(w.term, w.weight, other.namespace, other.labels, None, node_labels)
            for w in pref_anti:
                credit(w.term, -w.weight, other.namespace, other.labels, None, node_labels)
            if hard > 0:
                for term in other.required_affinity_terms:
                    credit(term, hard, pod.namespace, pod.labels, ns_labels, node_labels)
            for w in other.preferred_affinity_terms:
                credit(w.term, w.weight, pod.namespace, pod.labels, ns_labels, node_labels)
            for w in other.preferred_anti_affinity_terms:
                credit(w.term, -w.weight, pod.namespace, pod.labels, ns_labels, node_labels)
        if not scores:
            return Status.skip()
        state.write(_PRESCORE_KEY, _PreScoreState(scores))
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> I64:
        pre = state.get(_PRESCORE_KEY)
        out = zeros(len(slots), np.int64)
        if not isinstance(pre, _PreScoreState):
            return out
        nvalues = snap.value_count()
        for key, values in pre.topology_score.items():
            lut = zeros(nvalues + 1, np.int64)
            for value, score in values.items():
                vid = snap.value_id(value)
                if vid >= 0:
                    lut[vid] = score
            col = snap.label_column(key)[slots]
            out += np.where(col >= 0, lut[np.where(col >= 0, col, nvalues)], 0)
        return out

    def normalize(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots,
                  scores: I64) -> I64:
        pre = state.get(_PRESCORE_KEY)
        if not isinstance(pre, _PreScoreState) or not pre.topology_score or len(scores) == 0:
            return scores
        lo, hi = int(scores.min()), int(scores.max())
        diff = hi - lo
        if diff <= 0:
            return zeros(len(scores), np.int64)
        return (float(100) * ((scores - lo).astype(np.float64) / float(diff))).astype(np.int64)
