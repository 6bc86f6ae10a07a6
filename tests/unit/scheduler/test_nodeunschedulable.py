"""NodeUnschedulable and NodeName."""

from __future__ import annotations

import pytest

from minikube_py.scheduler.plugins.nodename import NodeName
from minikube_py.scheduler.plugins.nodeunschedulable import NodeUnschedulable

from .builders import filter_codes, node, pod, run_filter, snapshot

UNSCHED = ("node(s) were unschedulable",)


@pytest.mark.parametrize(("name", "unschedulable", "tolerations", "want"), [
    ("does not schedule pod to unschedulable node", True, [], UNSCHED),
    ("schedules pod to a schedulable node", False, [], None),
    ("schedules pod that tolerates the unschedulable taint", True,
     [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}],
     None),
    ("a toleration for another effect does not help", True,
     [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoExecute"}],
     UNSCHED),
    ("tolerate everything", True, [{"operator": "Exists"}], None),
])
def test_node_unschedulable(name: str, unschedulable: bool, tolerations: list[dict],
                            want: tuple[str, ...] | None) -> None:
    snap = snapshot([node("n", unschedulable=unschedulable)])
    p = pod(tolerations=tolerations)
    assert run_filter(NodeUnschedulable(), p, snap, ["n"]) == [want]
    if want:
        assert filter_codes(NodeUnschedulable(), p, snap, ["n"]) == [
            "UnschedulableAndUnresolvable"]


@pytest.mark.parametrize(("name", "node_name", "want"), [
    ("no host specified", None, [None, None]),
    ("host matches", "n1", [None, ("node(s) didn't match the requested node name",)]),
    ("host doesn't match", "other", [("node(s) didn't match the requested node name",)] * 2),
])
def test_node_name(name: str, node_name: str | None, want: list) -> None:
    snap = snapshot([node("n1"), node("n2")])
    p = pod(node_name=node_name)
    assert run_filter(NodeName(), p, snap, ["n1", "n2"]) == want
