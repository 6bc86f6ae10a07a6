"""TaintToleration: the filter message and kube-scheduler's score table."""

from __future__ import annotations

import pytest

from minikube_py.scheduler.plugins.tainttoleration import TaintToleration

from .builders import filter_codes, node, pod, run_filter, run_score, snapshot


def taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def tol(key: str, value: str = "", effect: str = "", op: str = "Equal") -> dict[str, str]:
    return {"key": key, "operator": op, "value": value, "effect": effect}


FILTER = [
    ("a pod having no tolerations can't be scheduled onto a node with nonempty taints",
     [], [taint("dedicated", "user1", "NoSchedule")],
     ("node(s) had untolerated taint {dedicated: user1}",)),
    ("a pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
     [tol("dedicated", "user1", "NoSchedule")], [taint("dedicated", "user1", "NoSchedule")],
     None),
    ("a pod which can't be scheduled on a dedicated node assigned to user2",
     [tol("dedicated", "user2", "NoSchedule")], [taint("dedicated", "user1", "NoSchedule")],
     ("node(s) had untolerated taint {dedicated: user1}",)),
    ("a pod can be scheduled onto the node, with a toleration uses operator Exists",
     [tol("foo", op="Exists", effect="NoSchedule")], [taint("foo", "bar", "NoSchedule")], None),
    ("empty key with Exists tolerates every taint",
     [{"operator": "Exists"}], [taint("a", "1", "NoSchedule"), taint("b", "2", "NoExecute")],
     None),
    ("a pod has multiple tolerations, node has multiple taints, all the taints are tolerated",
     [tol("dedicated", "user2", "NoSchedule"), tol("foo", op="Exists", effect="NoSchedule")],
     [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")], None),
    ("toleration and taint have the same key and value but different effects",
     [tol("foo", "bar", "PreferNoSchedule")], [taint("foo", "bar", "NoSchedule")],
     ("node(s) had untolerated taint {foo: bar}",)),
    ("the effect of toleration is empty: it matches all effects",
     [tol("foo", "bar")], [taint("foo", "bar", "NoSchedule")], None),
    ("the effect of taint is PreferNoSchedule: the filter ignores it",
     [], [taint("dedicated", "user1", "PreferNoSchedule")], None),
    ("NoExecute is checked too", [], [taint("node.kubernetes.io/not-ready", "", "NoExecute")],
     ("node(s) had untolerated taint {node.kubernetes.io/not-ready: }",)),
    ("the first untolerated taint is reported",
     [tol("a", "1", "NoSchedule")],
     [taint("a", "1", "NoSchedule"), taint("b", "2", "NoSchedule"), taint("c", "3", "NoSchedule")],
     ("node(s) had untolerated taint {b: 2}",)),
]


@pytest.mark.parametrize(("name", "tolerations", "taints", "want"), FILTER,
                         ids=[c[0] for c in FILTER])
def test_filter(name: str, tolerations: list[dict], taints: list[dict],
                want: tuple[str, ...] | None) -> None:
    snap = snapshot([node("n", taints=taints)])
    p = pod(tolerations=tolerations)
    assert run_filter(TaintToleration(), p, snap, ["n"]) == [want]
    if want:
        assert filter_codes(TaintToleration(), p, snap, ["n"]) == [
            "UnschedulableAndUnresolvable"]


SCORE = [
    ("node with taints tolerated by the pod, gets a higher score than those node with "
     "intolerable taints",
     [tol("foo", "bar", "PreferNoSchedule")],
     [[taint("foo", "bar", "PreferNoSchedule")], [taint("foo", "blah", "PreferNoSchedule")]],
     [100, 0]),
    ("the nodes that all of their taints are tolerated by the pod, get the same score",
     [tol("cpu-type", "arm64", "PreferNoSchedule"), tol("disk-type", "ssd", "PreferNoSchedule")],
     [[], [taint("cpu-type", "arm64", "PreferNoSchedule")],
      [taint("cpu-type", "arm64", "PreferNoSchedule"),
       taint("disk-type", "ssd", "PreferNoSchedule")]],
     [100, 100, 100]),
    ("the more intolerable taints a node has, the lower score it gets",
     [tol("foo", "bar", "PreferNoSchedule")],
     [[], [taint("cpu-type", "arm64", "PreferNoSchedule")],
      [taint("cpu-type", "arm64", "PreferNoSchedule"),
       taint("disk-type", "ssd", "PreferNoSchedule")]],
     [100, 50, 0]),
    ("only taints and tolerations that have effect PreferNoSchedule are checked",
     [tol("cpu-type", "arm64", "NoSchedule"), tol("disk-type", "ssd", "NoSchedule")],
     [[], [taint("cpu-type", "arm64", "NoSchedule")],
      [taint("cpu-type", "arm64", "PreferNoSchedule")]],
     [100, 100, 0]),
    ("Default behaviour No taints and tolerations, lands on node with no taints",
     [], [[], [taint("cpu-type", "arm64", "PreferNoSchedule")]], [100, 0]),
]


@pytest.mark.parametrize(("name", "tolerations", "node_taints", "want"), SCORE,
                         ids=[c[0] for c in SCORE])
def test_score(name: str, tolerations: list[dict], node_taints: list[list[dict]],
               want: list[int]) -> None:
    nodes = [node(f"node{i}", taints=t) for i, t in enumerate(node_taints)]
    snap = snapshot(nodes)
    got = run_score(TaintToleration(), pod(tolerations=tolerations), snap,
                    [n["metadata"]["name"] for n in nodes])
    assert got == want


def test_raw_score_counts_intolerable_prefer_no_schedule_taints() -> None:
    nodes = [node("a"), node("b", taints=[taint("x", "1", "PreferNoSchedule"),
                                          taint("y", "1", "PreferNoSchedule")])]
    got = run_score(TaintToleration(), pod(), snapshot(nodes), ["a", "b"], normalize=False)
    assert got == [0, 2]
