"""NodeResourcesFit: the node must have room for the pod's requests; score by a strategy.

Filter (kube-scheduler v1.32 ``fitsRequest``): ``Too many pods`` when the node
already runs its ``pods`` allocatable; then, unless the pod requests nothing,
``Insufficient <resource>`` for every requested (non-zero) resource among
cpu, memory, ephemeral-storage and scalar resources where
``request > allocatable - requested``. All reasons are kept, in that order
(scalar resources sorted by name), and the status is Unschedulable.
``ignoredResources`` / ``ignoredResourceGroups`` skip extended resources.
Nominated pods of higher or equal priority count as already running.

Score: ``LeastAllocated`` (default; cpu and memory weight 1),
``MostAllocated`` or ``RequestedToCapacityRatio`` with a shape, over the
node's *non-zero* requests plus the pod's (see :mod:`.resource_allocation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from minikube_py.api.names import is_qualified_name

from ...api.access import mapping as _map
from ...api.podrequests import CPU, EPHEMERAL_STORAGE, MEMORY, is_scalar_resource_name
from ..framework import CycleState, Handle, PluginArgsError, PreFilterResult
from ..gil import distinct, zeros
from ..podinfo import PodInfo
from ..snapshot import COL_CPU, COL_EPHEMERAL, COL_MEMORY, COL_PODS, Snapshot
from ..status import REASONS, Code, Status
from .helpers import I64, U16, Slots
from .resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceSpec,
    Scorer,
    allocatable_requested,
    least_allocated,
    most_allocated,
    pod_request_list,
    requested_to_capacity_ratio,
)

NAME: Final = "NodeResourcesFit"
LEAST_ALLOCATED: Final = "LeastAllocated"
MOST_ALLOCATED: Final = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO: Final = "RequestedToCapacityRatio"
STRATEGIES: Final = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
_PREFILTER_KEY: Final = "PreFilter" + NAME
_PRESCORE_KEY: Final = "PreScore" + NAME




def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_resources(raw: object, path: str,
                    errors: list[tuple[str, str]]) -> tuple[ResourceSpec, ...]:
    """``resources: [{name, weight}]``; each weight must be in (0, 100]."""
    if raw is None:
        return DEFAULT_RESOURCES
    if not isinstance(raw, list):
        errors.append((path, "must be a list"))
        return DEFAULT_RESOURCES
    if not raw:
        return DEFAULT_RESOURCES
    out = []
    for i, item in enumerate(raw):
        item = _map(item)
        name = str(item.get("name") or "")
        weight = _int(item.get("weight"))
        if weight is None or weight <= 0 or weight > 100:
            errors.append((f"{path}[{i}].weight",
                           f"Invalid value: {item.get('weight')!r}: resource weight of {name} "
                           "not in valid range (0, 100]"))
            continue
        out.append(ResourceSpec(name, weight))
    return tuple(out)


@dataclass(frozen=True)
class FitArgs:
    strategy: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES
    shape: tuple[tuple[int, int], ...] = ()
    ignored_resources: frozenset[str] = frozenset()
    ignored_resource_groups: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, args: Mapping[str, Any]) -> FitArgs:
        """Defaults and validation as ``ValidateNodeResourcesFitArgs``."""
        errors: list[tuple[str, str]] = []
        ignored = [str(r) for r in args.get("ignoredResources") or []]
        for i, res in enumerate(ignored):
            errors.extend((f"ignoredResources[{i}]", f"Invalid value: {res!r}: {msg}")
                          for msg in is_qualified_name(res))
        groups = [str(g) for g in args.get("ignoredResourceGroups") or []]
        for i, group in enumerate(groups):
            if "/" in group:
                errors.append((f"ignoredResourceGroups[{i}]",
                               f"Invalid value: {group!r}: resource group name can't contain '/'"))
        strategy = _map(args.get("scoringStrategy"))
        kind = str(strategy.get("type") or LEAST_ALLOCATED)
        if kind not in STRATEGIES:
            errors.append(("scoringStrategy.type",
                           f'Unsupported value: "{kind}": supported values: '
                           + ", ".join(f'"{s}"' for s in STRATEGIES)))
        resources = parse_resources(strategy.get("resources"), "scoringStrategy.resources",
                                    errors)
        shape: list[tuple[int, int]] = []
        rtcr = strategy.get("requestedToCapacityRatio")
        if rtcr is not None or kind == REQUESTED_TO_CAPACITY_RATIO:
            raw_shape = _map(rtcr).get("shape")
            path = "scoringStrategy.requestedToCapacityRatio.shape"
            if not isinstance(raw_shape, list) or not raw_shape:
                errors.append((path, "Required value: at least one point must be specified"))
            else:
                for i, point in enumerate(raw_shape):
                    point = _map(point)
                    u, s = _int(point.get("utilization")), _int(point.get("score"))
                    if u is None or not 0 <= u <= 100:
                        errors.append((f"{path}[{i}].utilization",
                                       f"Invalid value: {point.get('utilization')!r}: "
                                       "not in valid range [0, 100]"))
                    if s is None or not 0 <= s <= 10:
                        errors.append((f"{path}[{i}].score",
                                       f"Invalid value: {point.get('score')!r}: "
                                       "not in valid range [0, 10]"))
                    shape.append((u or 0, s or 0))
                for i in range(1, len(shape)):
                    if shape[i - 1][0] >= shape[i][0]:
                        errors.append((f"{path}[{i}].utilization",
                                       f"Invalid value: {shape[i][0]}: utilization values must "
                                       "be sorted in increasing order"))
                        break
        if errors:
            raise PluginArgsError(errors)
        return cls(kind, resources, tuple(shape), frozenset(ignored), frozenset(groups))

    def scorer(self) -> Scorer:
        weights = [r.weight for r in self.resources]
        if self.strategy == MOST_ALLOCATED:
            return most_allocated(weights)
        if self.strategy == REQUESTED_TO_CAPACITY_RATIO:
            return requested_to_capacity_ratio(weights, self.shape)
        return least_allocated(weights)


class Fit:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        self.args = FitArgs.parse(args or {})
        self._scorer = self.args.scorer()
        self._too_many = "Too many pods"

    def _checks(self, pod: PodInfo, snap: Snapshot) -> list[tuple[int, int, str]]:
        """(column, amount, reason) for every resource the filter compares."""
        req = pod.requests
        checks: list[tuple[int, int, str]] = []
        for name, col in ((CPU, COL_CPU), (MEMORY, COL_MEMORY),
                          (EPHEMERAL_STORAGE, COL_EPHEMERAL)):
            amount = req.get(name, 0)
            if amount > 0:
                checks.append((col, amount, f"Insufficient {name}"))
        for name in sorted(req):
            amount = req[name]
            if amount <= 0 or name in (CPU, MEMORY, EPHEMERAL_STORAGE) or \
                    not is_scalar_resource_name(name):
                continue
            if name in self.args.ignored_resources or \
                    name.split("/", 1)[0] in self.args.ignored_resource_groups:
                continue
            checks.append((snap.resource_column(name), amount, f"Insufficient {name}"))
        return checks

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   snap: Snapshot) -> tuple[PreFilterResult | None, Status]:
        state.write(_PREFILTER_KEY, self._checks(pod, snap))
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> U16 | None:
        checks = state.get(_PREFILTER_KEY)
        if not isinstance(checks, list):
            checks = self._checks(pod, snap)
        alloc, used = snap.allocatable, snap.requested
        nominated = snap.nominated_charges(pod.priority, pod.uid)
        extra: dict[int, I64] = {}
        for slot, pods in nominated:
            row = zeros(used.shape[1], np.int64)
            for info in pods:
                row += snap.charge_vector(info)[: used.shape[1]]
            extra[slot] = row
        reasons = [self._too_many]
        # Column first, then a 1-D gather: the 2-D form ``used[slots, col]``
        # hands the interpreter lock away at any size (see snapshot.Slots).
        pods_used = used[:, COL_PODS][slots]
        if extra:
            pods_used = pods_used.copy()
        bits = zeros(len(slots), np.int64)
        extra_pos = {slot: np.flatnonzero(slots == slot) for slot in extra}
        if extra:
            for slot, pos in extra_pos.items():
                pods_used[pos] += extra[slot][COL_PODS]
        bits |= (pods_used + 1 > alloc[:, COL_PODS][slots]).astype(np.int64)
        for j, (col, amount, reason) in enumerate(checks, start=1):
            reasons.append(reason)
            if col < 0:
                bits |= np.int64(1 << j)
                continue
            free = alloc[:, col][slots] - used[:, col][slots]
            if extra:
                for slot, pos in extra_pos.items():
                    if col < len(extra[slot]):
                        free[pos] -= extra[slot][col]
            bits |= (amount > free).astype(np.int64) << j
        if not bits.any():
            return None
        out = zeros(len(slots), np.uint16)
        for combo in distinct(bits[bits != 0]):
            picked = [reasons[j] for j in range(len(reasons)) if combo >> j & 1]
            out[bits == combo] = REASONS.intern(NAME, Code.UNSCHEDULABLE, *picked)
        return out

    def pre_score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> Status:
        state.write(_PRESCORE_KEY, pod_request_list(pod, self.args.resources,
                                                    use_requested=False))
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> I64:
        requests = state.get(_PRESCORE_KEY)
        if not isinstance(requests, list):
            requests = pod_request_list(pod, self.args.resources, use_requested=False)
        alloc, req = allocatable_requested(snap, slots, self.args.resources, requests,
                                           use_requested=False)
        return self._scorer(req, alloc)

    def normalize(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots,
                  scores: I64) -> I64:
        return scores
