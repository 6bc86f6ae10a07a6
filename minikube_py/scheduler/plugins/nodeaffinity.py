"""NodeAffinity: ``spec.nodeSelector`` and node affinity, evaluated over label columns.

Filter: a node must match ``spec.nodeSelector`` (every key equal) **and** the
required ``nodeSelectorTerms``: terms are ORed, a term's expressions and
fields are ANDed; operators ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``,
``Gt``, ``Lt`` on labels and ``In``/``NotIn`` on the ``metadata.name`` field.
An empty term matches nothing and a term that does not parse matches nothing
(kube-scheduler ignores parse errors for backward compatibility). Rejection
is UnschedulableAndUnresolvable, ``node(s) didn't match Pod's node
affinity/selector``.

PreFilter narrows the cycle to the node names of ``metadata.name In`` fields
when every term has one (``PreFilterResult``), and rejects the pod with
``pod affinity terms conflict`` when the terms can match no name.

Score: the sum of the weights of the preferred terms a node matches,
normalised to 0..100 by the highest sum.

Matching runs over NumPy label columns (value ids), one vector operation per
requirement, so it costs the same for 10 or 5,000 nodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from minikube_py.api.labels import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_EQUALS,
    NOT_IN,
    Requirement,
    SelectorError,
)

from ...api.access import items as _list
from ...api.access import mapping as _map
from ..framework import CycleState, Handle, PreFilterResult
from ..gil import zeros
from ..podinfo import PodInfo
from ..snapshot import Snapshot
from ..status import REASONS, Code, Status
from .helpers import I64, U16, BoolArr, Slots, default_normalize, verdicts

NAME: Final = "NodeAffinity"
ERR_REASON_POD: Final = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_CONFLICT: Final = "pod affinity terms conflict"
OBJECT_NAME_FIELD: Final = "metadata.name"
_PREFILTER_KEY: Final = "PreFilter" + NAME
_PRESCORE_KEY: Final = "PreScore" + NAME
_REQUIRED: Final = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED: Final = "preferredDuringSchedulingIgnoredDuringExecution"
_OPERATORS: Final = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST,
                     "Gt": GREATER_THAN, "Lt": LESS_THAN}
_EXACT_FLOAT: Final = float(2**53)






def requirement_mask(snap: Snapshot, req: Requirement, slots: Slots) -> BoolArr:
    """``Requirement.Matches`` for the nodes at ``slots``."""
    col = snap.label_column(req.key)[slots]
    op = req.operator
    if op in (IN, EQUALS, DOUBLE_EQUALS, NOT_IN, NOT_EQUALS):
        ids = [snap.value_id(v) for v in req.values]
        hit = (col == ids[0]) if len(ids) == 1 else np.isin(col, ids)
        return hit if op in (IN, EQUALS, DOUBLE_EQUALS) else ~hit
    if op == EXISTS:
        return col >= 0
    if op == DOES_NOT_EXIST:
        return col < 0
    if op in (GREATER_THAN, LESS_THAN):
        present = col >= 0
        bound = int(req.values[0])
        nums = snap.value_ints()[np.where(present, col, 0)] if snap.value_count() else (
            zeros(len(col)))
        if abs(bound) < _EXACT_FLOAT and not (present & (np.abs(nums) >= _EXACT_FLOAT)).any():
            with np.errstate(invalid="ignore"):
                hit = nums > bound if op == GREATER_THAN else nums < bound
            return present & hit
        # Beyond 2**53 floats are inexact: compare the few nodes in Python.
        out = zeros(len(col), np.bool_)
        for i in np.flatnonzero(present).tolist():
            out[i] = req.matches({req.key: snap.value_str(int(col[i]))})
        return out
    return zeros(len(col), np.bool_)


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """A parsed ``NodeSelectorTerm``; ``error`` set when it does not parse."""

    labels: tuple[Requirement, ...] | None
    fields: tuple[tuple[str, bool, str], ...] | None  # (key, equal?, value)
    error: str | None = None

    @classmethod
    def parse(cls, raw: object) -> NodeSelectorTerm | None:
        """None for an empty term (it selects nothing and is skipped)."""
        term = _map(raw)
        exprs = _list(term.get("matchExpressions"))
        fields = _list(term.get("matchFields"))
        if not exprs and not fields:
            return None
        labels: list[Requirement] = []
        parsed_fields: list[tuple[str, bool, str]] = []
        try:
            for expr in exprs:
                expr = _map(expr)
                op = _OPERATORS.get(str(expr.get("operator")))
                if op is None:
                    raise SelectorError(f"{expr.get('operator')!r} is not a valid node "
                                        "selector operator")
                labels.append(Requirement.create(str(expr.get("key") or ""), op,
                                                 [str(v) for v in _list(expr.get("values"))]))
            for expr in fields:
                expr = _map(expr)
                values = _list(expr.get("values"))
                op = expr.get("operator")
                if op not in ("In", "NotIn"):
                    raise SelectorError(f"{op!r} is not a valid node field selector operator")
                if len(values) != 1:
                    raise SelectorError("must have one element")
                parsed_fields.append((str(expr.get("key") or ""), op == "In", str(values[0])))
        except SelectorError as exc:
            return cls(None, None, str(exc))
        return cls(tuple(labels) if exprs else None, tuple(parsed_fields) if fields else None)

    def mask(self, snap: Snapshot, slots: Slots) -> BoolArr:
        if self.error is not None:
            return zeros(len(slots), np.bool_)
        out = np.ones(len(slots), np.bool_)
        for req in self.labels or ():
            out &= requirement_mask(snap, req, slots)
        for key, equal, value in self.fields or ():
            if key == OBJECT_NAME_FIELD:
                hit = slots == snap.slot_of(value)
            else:
                # Only metadata.name is a node field; any other key reads as "".
                hit = np.full(len(slots), value == "", np.bool_)
            out &= hit if equal else ~hit
        return out


class RequiredNodeAffinity:
    """``nodeaffinity.RequiredNodeAffinity``: nodeSelector AND required terms."""

    __slots__ = ("node_selector", "terms")

    def __init__(self, node_selector: Mapping[str, str],
                 terms: Sequence[NodeSelectorTerm | None] | None) -> None:
        self.node_selector = dict(node_selector)
        self.terms = None if terms is None else [t for t in terms if t is not None]

    @classmethod
    def of(cls, pod: PodInfo) -> RequiredNodeAffinity:
        spec = pod.spec
        selector = {str(k): str(v) for k, v in _map(spec.get("nodeSelector")).items()}
        required = _map(_map(spec.get("affinity")).get("nodeAffinity")).get(_REQUIRED)
        terms = None
        if isinstance(required, Mapping):
            terms = [NodeSelectorTerm.parse(t) for t in _list(required.get("nodeSelectorTerms"))]
        return cls(selector, terms)

    @property
    def trivial(self) -> bool:
        return not self.node_selector and self.terms is None

    def match(self, snap: Snapshot, slots: Slots) -> BoolArr:
        out = np.ones(len(slots), np.bool_)
        for key, value in self.node_selector.items():
            out &= snap.label_column(key)[slots] == snap.value_id(value)
        if self.terms is not None:
            any_term = zeros(len(slots), np.bool_)
            for term in self.terms:
                any_term |= term.mask(snap, slots)
            out &= any_term
        return out


def _preferred_terms(pod: PodInfo) -> list[tuple[int, NodeSelectorTerm]] | None:
    raw = _map(_map(pod.spec.get("affinity")).get("nodeAffinity")).get(_PREFERRED)
    if raw is None:
        return None
    out: list[tuple[int, NodeSelectorTerm]] = []
    for item in _list(raw):
        weight = _map(item).get("weight")
        if not isinstance(weight, int) or weight == 0:
            continue
        term = NodeSelectorTerm.parse(_map(item).get("preference"))
        if term is not None and term.error is None:
            out.append((weight, term))
    return out


class NodeAffinity:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        self._rid = REASONS.intern(NAME, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   snap: Snapshot) -> tuple[PreFilterResult | None, Status]:
        required = RequiredNodeAffinity.of(pod)
        if required.trivial:
            return None, Status.skip()
        state.write(_PREFILTER_KEY, required)
        raw = _map(_map(pod.spec.get("affinity")).get("nodeAffinity")).get(_REQUIRED)
        terms = _list(_map(raw).get("nodeSelectorTerms"))
        if not terms:
            return None, Status.success()
        names: set[str] | None = None
        for term in terms:
            term_names: set[str] | None = None
            for expr in _list(_map(term).get("matchFields")):
                expr = _map(expr)
                if expr.get("key") == OBJECT_NAME_FIELD and expr.get("operator") == "In":
                    values = {str(v) for v in _list(expr.get("values"))}
                    term_names = values if term_names is None else term_names & values
            if term_names is None:
                # A term without a name field admits every node (terms are ORed).
                return None, Status.success()
            names = term_names if names is None else names | term_names
        if names is not None and not names:
            return None, Status.unschedulable(ERR_REASON_CONFLICT, unresolvable=True)
        if names:
            return PreFilterResult(frozenset(names)), Status.success()
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> U16 | None:
        required = state.get(_PREFILTER_KEY)
        if not isinstance(required, RequiredNodeAffinity):
            required = RequiredNodeAffinity.of(pod)
        if required.trivial:
            return None
        return verdicts(~required.match(snap, slots), self._rid)

    def pre_score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> Status:
        terms = _preferred_terms(pod)
        if terms is None:
            return Status.skip()
        state.write(_PRESCORE_KEY, terms)
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> I64:
        terms = state.get(_PRESCORE_KEY)
        if not isinstance(terms, list):
            terms = _preferred_terms(pod) or []
        out = zeros(len(slots), np.int64)
        for weight, term in terms:
            out += np.where(term.mask(snap, slots), weight, 0)
        return out

    def normalize(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots,
                  scores: I64) -> I64:
        return default_normalize(scores, reverse=False)
