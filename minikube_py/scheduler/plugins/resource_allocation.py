"""Resource scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Vectorised versions of kube-scheduler's ``resourceAllocationScorer`` and its
scorers, with Go's integer arithmetic:

* ``LeastAllocated``: per resource ``(alloc - req) * 100 / alloc`` (0 when
  over), weighted average with integer division.
* ``MostAllocated``: per resource ``min(req, alloc) * 100 / alloc``, weighted
  average with integer division.
* ``RequestedToCapacityRatio``: utilisation ``req * 100 / alloc`` (100 when
  over) through the broken-linear shape (shape scores 0..10 scaled by 10);
  only positive resource scores count; ``math.Round`` of the weighted mean.
* Balanced: fractions ``req/alloc`` capped at 1; ``std = |f1-f2|/2`` for two
  resources, the population standard deviation for more, 0 for fewer;
  ``int64((1 - std) * 100)``.

A resource a node does not have (allocatable 0) is left out for that node,
and an extended resource the pod does not request is left out everywhere.
``useRequested`` picks the node's real requests (BalancedAllocation) or the
non-zero ones with the 100m / 200Mi defaults (NodeResourcesFit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from ...api.podrequests import CPU, EPHEMERAL_STORAGE, MEMORY, is_scalar_resource_name
from ..framework import MAX_NODE_SCORE
from ..gil import first_two_present, zeros
from ..podinfo import PodInfo
from ..snapshot import COL_CPU, COL_EPHEMERAL, COL_MEMORY, Snapshot
from .helpers import F64, I64, BoolArr, Slots, round_half_away, trunc_div

MAX_UTILIZATION: Final = 100
#: Shape scores are given on 0..10 (``MaxCustomPriorityScore``).
MAX_CUSTOM_PRIORITY_SCORE: Final = 10


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    weight: int


DEFAULT_RESOURCES: Final = (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))

Scorer = Callable[[I64, I64], I64]


def pod_request_list(pod: PodInfo, resources: Sequence[ResourceSpec], *,
                     use_requested: bool) -> list[int]:
    """``calculatePodResourceRequestList``: cpu/memory with the non-zero
    defaults unless ``use_requested``; everything else as requested."""
    out = []
    for spec in resources:
        if not use_requested and spec.name == CPU:
            out.append(pod.nonzero_cpu)
        elif not use_requested and spec.name == MEMORY:
            out.append(pod.nonzero_memory)
        else:
            out.append(pod.requests.get(spec.name, 0))
    return out


def allocatable_requested(snap: Snapshot, slots: Slots, resources: Sequence[ResourceSpec],
                          pod_requests: Sequence[int], *,
                          use_requested: bool) -> tuple[I64, I64]:
    """``[m, k]`` allocatable and requested-with-the-pod, zeros where skipped."""
    m, k = len(slots), len(resources)
    alloc = zeros((m, k), np.int64)
    req = zeros((m, k), np.int64)
    base = snap.requested
    for i, spec in enumerate(resources):
        name, pod_req = spec.name, pod_requests[i]
        if pod_req == 0 and is_scalar_resource_name(name):
            continue
        if name in (CPU, MEMORY):
            col = COL_CPU if name == CPU else COL_MEMORY
            # Column first, then a 1-D gather: the 2-D form ``base[slots, col]``
            # hands the interpreter lock away at any size (see snapshot.Slots).
            used = (base[:, col][slots] if use_requested
                    else snap.nonzero_requested[:, 0 if name == CPU else 1][slots])
        elif name == EPHEMERAL_STORAGE:
            col = COL_EPHEMERAL
            used = base[:, col][slots]
        else:
            col = snap.resource_column(name)
            if col < 0 or not is_scalar_resource_name(name):
                continue
            used = base[:, col][slots]
        a = snap.allocatable[:, col][slots]
        present = a != 0
        alloc[:, i] = a
        req[:, i] = np.where(present, used + pod_req, 0)
    return alloc, req


def _every_node_has_all(alloc: I64) -> bool:
    """No allocatable of 0 in ``alloc``, column by column: ``all()`` over the
    whole ``[m, k]`` array (1,000 elements at 5,000 nodes) would hand the
    interpreter lock away (see ..gil)."""
    return all(alloc[:, i].all() for i in range(alloc.shape[1]))


def least_allocated(weights: Sequence[int]) -> Scorer:
    wsum_all = sum(weights)

    def scorer(req: I64, alloc: I64) -> I64:
        if wsum_all > 0 and _every_node_has_all(alloc):
            # Every node has every resource (the usual case): the same integer
            # arithmetic without the masks, a third of the NumPy calls.
            total: I64 | None = None
            for i, w in enumerate(weights):
                a, r = alloc[:, i], req[:, i]
                s = np.where(r > a, 0, (a - r) * MAX_NODE_SCORE // a) * w
                total = s if total is None else total + s
            assert total is not None
            return total // wsum_all
        node = zeros(len(req), np.int64)
        wsum = zeros(len(req), np.int64)
        for i, w in enumerate(weights):
            a, r = alloc[:, i], req[:, i]
            valid = a != 0
            safe = np.where(valid, a, 1)
            s = np.where(r > a, 0, (a - r) * MAX_NODE_SCORE // safe)
            node += np.where(valid, s * w, 0)
            wsum += np.where(valid, w, 0)
        return np.where(wsum > 0, node // np.maximum(wsum, 1), 0)
    return scorer


def most_allocated(weights: Sequence[int]) -> Scorer:
    def scorer(req: I64, alloc: I64) -> I64:
        node = zeros(len(req), np.int64)
        wsum = zeros(len(req), np.int64)
        for i, w in enumerate(weights):
            a, r = alloc[:, i], req[:, i]
            valid = a != 0
            safe = np.where(valid, a, 1)
            # Pods without requests get the non-zero minimum, so req may exceed alloc.
            s = np.minimum(r, a) * MAX_NODE_SCORE // safe
            node += np.where(valid, s * w, 0)
            wsum += np.where(valid, w, 0)
        return np.where(wsum > 0, node // np.maximum(wsum, 1), 0)
    return scorer


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[I64], I64]:
    """``helper.BuildBrokenLinearFunction`` over (utilization, score) points."""
    def fn(p: I64) -> I64:
        out = np.full(len(p), shape[-1][1], np.int64)
        done = zeros(len(p), np.bool_)
        for i, (u, s) in enumerate(shape):
            hit = ~done & (p <= u)
            if i == 0:
                val = np.full(len(p), s, np.int64)
            else:
                u0, s0 = shape[i - 1]
                val = s0 + trunc_div((s - s0) * (p - u0), u - u0)
            out = np.where(hit, val, out)
            done |= hit
        return out
    return fn


def requested_to_capacity_ratio(weights: Sequence[int],
                                shape: Sequence[tuple[int, int]]) -> Scorer:
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    raw = broken_linear([(u, s * scale) for u, s in shape])

    def scorer(req: I64, alloc: I64) -> I64:
        node = zeros(len(req), np.int64)
        wsum = zeros(len(req), np.int64)
        for i, w in enumerate(weights):
            a, r = alloc[:, i], req[:, i]
            valid = a != 0
            util = np.where(r > a, MAX_UTILIZATION, r * MAX_UTILIZATION // np.where(valid, a, 1))
            s = raw(util)
            counted = valid & (s > 0)
            node += np.where(counted, s * w, 0)
            wsum += np.where(counted, w, 0)
        mean: F64 = node / np.maximum(wsum, 1)
        return np.where(wsum > 0, round_half_away(mean), 0)
    return scorer


def balanced(req: I64, alloc: I64) -> I64:
    m, k = req.shape
    if k == 2 and _every_node_has_all(alloc):
        # Two resources every node has (cpu and memory, the default): the
        # formula below without its masks, the same floating-point operations
        # in the same order, so the same scores.
        f0 = np.minimum(req[:, 0] / alloc[:, 0], 1.0)
        f1 = np.minimum(req[:, 1] / alloc[:, 1], 1.0)
        return ((1 - np.abs((f0 - f1) / 2)) * float(MAX_NODE_SCORE)).astype(np.int64)
    # Column by column: every pass is one column long (m, at most the 500
    # nodes scored at 5,000), never the m * k elements past which NumPy hands
    # the interpreter lock away (see ..gil).
    fracs: list[F64] = []
    valids: list[BoolArr] = []
    count = zeros(m, np.int64)
    for i in range(k):
        a = alloc[:, i]
        valid = a != 0
        frac = np.where(valid, req[:, i] / np.where(valid, a, 1), 0.0)
        fracs.append(np.minimum(frac, 1.0))
        valids.append(valid)
        count += valid
    std = zeros(m, np.float64)
    two = count == 2
    if two.any():
        # The two present fractions, in resource order (no argsort: see ..gil).
        f0, f1 = first_two_present(fracs, valids)
        std = np.where(two, np.abs((f0 - f1) / 2), std)
    more = count > 2
    if more.any():
        total = zeros(m, np.float64)
        for frac, valid in zip(fracs, valids, strict=True):
            total = np.where(valid, total + frac, total)
        mean = total / np.maximum(count, 1)
        sq = zeros(m, np.float64)
        for frac, valid in zip(fracs, valids, strict=True):
            d = frac - mean
            sq = np.where(valid, sq + d * d, sq)
        std = np.where(more, np.sqrt(sq / np.maximum(count, 1)), std)
    return ((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
