"""The resource scorers' arithmetic, node by node, against kube-scheduler's
formulas written out per node in plain Python (Go's int64 division and
float64 operations): on nodes that all have every resource (the scorers'
unmasked path) and on nodes missing some (the masked path)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minikube_py.scheduler.framework import MAX_NODE_SCORE
from minikube_py.scheduler.plugins.resource_allocation import balanced, least_allocated


def _least_allocated_go(req: list[int], alloc: list[int], weights: list[int]) -> int:
    # leastRequestedScore per resource, weighted, a resource the node lacks left out.
    node = wsum = 0
    for r, a, w in zip(req, alloc, weights, strict=True):
        if a == 0:
            continue
        node += (0 if r > a else (a - r) * MAX_NODE_SCORE // a) * w
        wsum += w
    return node // wsum if wsum else 0


def _balanced_go(req: list[int], alloc: list[int]) -> int:
    fracs = [min(r / a, 1.0) for r, a in zip(req, alloc, strict=True) if a != 0]
    if len(fracs) == 2:
        std = abs((fracs[0] - fracs[1]) / 2)
    elif len(fracs) > 2:
        mean = sum(fracs) / len(fracs)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fracs) / len(fracs))
    else:
        std = 0.0
    return int((1 - std) * float(MAX_NODE_SCORE))


def _arrays(seed: int, m: int, k: int, zeros: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    alloc = rng.integers(1, 64, (m, k)) * 1000 * (rng.integers(1, 3, (m, k)))
    if zeros:
        alloc[rng.random((m, k)) < 0.3] = 0
    # Requests below, at and above what a node has, and none.
    req = (alloc * rng.choice([0.0, 0.3, 0.999, 1.0, 1.7], (m, k))).astype(np.int64)
    req[rng.random((m, k)) < 0.1] = rng.integers(0, 10**12)
    return req.astype(np.int64), alloc.astype(np.int64)


@pytest.mark.parametrize("zeros", [False, True], ids=["every-resource", "some-missing"])
@pytest.mark.parametrize(("k", "weights"), [(2, [1, 1]), (2, [3, 1]), (3, [1, 2, 5])])
def test_least_allocated_matches_the_formula_node_by_node(
        zeros: bool, k: int, weights: list[int]) -> None:
    req, alloc = _arrays(3 + k, 400, k, zeros)
    got = least_allocated(weights)(req, alloc)
    want = [_least_allocated_go(req[i].tolist(), alloc[i].tolist(), weights)
            for i in range(len(req))]
    assert got.tolist() == want


@pytest.mark.parametrize("zeros", [False, True], ids=["every-resource", "some-missing"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_balanced_matches_the_formula_node_by_node(zeros: bool, k: int) -> None:
    req, alloc = _arrays(17 + k, 400, k, zeros)
    got = balanced(req, alloc)
    want = [_balanced_go(req[i].tolist(), alloc[i].tolist()) for i in range(len(req))]
    assert got.tolist() == want
