"""``PodInfo.updated``: a newer version of a pod parses to exactly what
``PodInfo`` would, reusing the spec's parts only when they cannot differ."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from minikube_py.scheduler.podinfo import PodInfo

from .builders import pod

Pod = dict[str, Any]


def _base() -> Pod:
    return pod("a", labels={"app": "web"}, requests=[{"cpu": "250m", "memory": "64Mi"}],
               host_ports=[{"containerPort": 80, "hostPort": 8080}],
               tolerations=[{"key": "k", "operator": "Exists"}],
               affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                   {"labelSelector": {"matchLabels": {"app": "web"}},
                    "topologyKey": "kubernetes.io/hostname"}]}})


def _bound(p: Pod) -> None:
    p["spec"]["nodeName"] = "n1"


def _running(p: Pod) -> None:
    _bound(p)
    p["status"] = {"phase": "Running", "startTime": "2026-11-29T08:00:00Z",
                   "conditions": [{"type": "Ready", "status": "True"}]}


def _nominated(p: Pod) -> None:
    p["status"] = {"nominatedNodeName": "n2"}


def _deleting_by_preemption(p: Pod) -> None:
    _running(p)
    p["metadata"]["deletionTimestamp"] = "2026-11-29T08:01:00Z"
    p["status"]["conditions"].append({"type": "DisruptionTarget", "status": "True",
                                      "reason": "PreemptionByScheduler"})


def _relabelled(p: Pod) -> None:
    _bound(p)
    p["metadata"]["labels"] = {"app": "db"}


def _resized(p: Pod) -> None:
    _bound(p)
    p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"


def _other_namespace(p: Pod) -> None:
    p["metadata"]["namespace"] = "other"


def _recreated(p: Pod) -> None:
    p["metadata"]["uid"] = "another-uid"


def _spec_field_added(p: Pod) -> None:
    _bound(p)
    p["spec"]["priority"] = 7


# (change, whether the spec's parsed parts may be reused)
CASES: list[tuple[Callable[[Pod], None], bool]] = [
    (_bound, True),
    (_running, True),
    (_nominated, True),
    (_deleting_by_preemption, True),
    (_relabelled, False),
    (_resized, False),
    (_other_namespace, False),
    (_recreated, False),
    (_spec_field_added, False),
]


@pytest.mark.parametrize(("change", "reused"), CASES, ids=[c.__name__ for c, _ in CASES])
def test_updated_equals_a_fresh_parse(change: Callable[[Pod], None], reused: bool) -> None:
    before = _base()
    after = copy.deepcopy(before)
    change(after)
    old = PodInfo(before)
    got, want = old.updated(after), PodInfo(after)
    assert got.pod is after
    for slot in PodInfo.__slots__:
        assert getattr(got, slot) == getattr(want, slot), slot
    # Reused parts are the old objects themselves; a fresh parse makes new ones.
    assert (got.requests is old.requests) is reused
    assert (got.required_anti_affinity_terms is old.required_anti_affinity_terms) is reused


def test_a_binding_reuses_even_when_other_spec_keys_are_equal_copies() -> None:
    before = _base()
    after = copy.deepcopy(before)
    _bound(after)
    del after["spec"]["tolerations"]
    got = PodInfo(before).updated(after)
    assert got.tolerations == () and got.node_name == "n1"
