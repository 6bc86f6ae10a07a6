"""DefaultPreemption: candidates, victims, node choice and messages."""

from __future__ import annotations

import pytest

from minikube_py.scheduler.plugins.defaultpreemption import DefaultPreemption

from .builders import framework, node, pod, schedule, snapshot

TAINT = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]


def low(name: str, node_name: str, cpu: str, priority: int,
        start: str | None = "2024-01-01T00:00:00Z") -> dict:
    return pod(name, node_name=node_name, requests=[{"cpu": cpu}], priority=priority,
               start_time=start)


def victims(result: object) -> list[str]:
    pre = result.preemption
    assert pre is not None
    return [v.key for v in pre.victims]


def test_no_lower_priority_pods() -> None:
    snap = snapshot([node("n1", cpu="2"), node("n2", cpu="2")],
                    [low("a", "n1", "2", 0), low("b", "n2", "2", 0)])
    result = schedule(framework(), pod(requests=[{"cpu": "1"}]), snap)
    assert result.preemption is None
    assert result.message == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
        "2 No preemption victims found for incoming pod.")


def test_preemption_policy_never() -> None:
    snap = snapshot([node("n1", cpu="2")], [low("a", "n1", "2", 0)])
    result = schedule(framework(), pod(requests=[{"cpu": "1"}], priority=10,
                                       preemption_policy="Never"), snap)
    assert result.preemption is None
    assert result.message == ("0/1 nodes are available: 1 Insufficient cpu. preemption: "
                              "not eligible due to preemptionPolicy=Never.")


def test_minimal_victims_reprieving_higher_priority_first() -> None:
    snap = snapshot([node("n1", cpu="4")],
                    [low("p1", "n1", "2", 1), low("p2", "n1", "2", 2)])
    before = snap.requested.copy()
    result = schedule(framework(), pod(requests=[{"cpu": "2"}], priority=10), snap)
    assert result.node is None and result.preemption is not None
    assert result.preemption.node == "n1"
    assert victims(result) == ["default/p1"]
    # Success leaves only the filter part of the FitError, as kube-scheduler does.
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert result.decision.outcome == "Nominated"
    assert (snap.requested == before).all()


def test_removing_all_lower_pods_must_help() -> None:
    snap = snapshot([node("n1", cpu="4")], [low("p1", "n1", "1", 1)])
    result = schedule(framework(), pod(requests=[{"cpu": "8"}], priority=10), snap)
    assert result.preemption is None
    assert result.message == ("0/1 nodes are available: 1 Insufficient cpu. preemption: "
                              "0/1 nodes are available: 1 Insufficient cpu.")


def test_unresolvable_nodes_are_not_candidates() -> None:
    snap = snapshot([node("n1", cpu="4", taints=TAINT), node("n2", cpu="4")],
                    [low("a", "n1", "4", 0), low("b", "n2", "4", 0)])
    result = schedule(framework(), pod(requests=[{"cpu": "1"}], priority=5), snap)
    assert result.preemption is not None and result.preemption.node == "n2"
    assert victims(result) == ["default/b"]


@pytest.mark.parametrize(("name", "on_n1", "on_n2", "want"), [
    ("lowest highest-priority victim", [("a", "4", 5)], [("b", "4", 1)], "n2"),
    ("then the smallest sum of priorities", [("a", "2", 3), ("b", "2", 3)],
     [("c", "2", 3), ("d", "2", 1)], "n2"),
    ("only the needed victims count", [("a", "2", 1), ("b", "2", 2)], [("c", "4", 2)], "n1"),
])
def test_pick_one_node(name: str, on_n1: list, on_n2: list, want: str) -> None:
    existing = [low(n, "n1", c, p) for n, c, p in on_n1] + [low(n, "n2", c, p)
                                                            for n, c, p in on_n2]
    snap = snapshot([node("n1", cpu="4"), node("n2", cpu="4")], existing)
    result = schedule(framework(), pod(requests=[{"cpu": "2"}], priority=10), snap)
    assert result.preemption is not None and result.preemption.node == want


def test_full_ties_go_to_the_first_candidate_from_the_random_offset() -> None:
    snap = snapshot([node("n1", cpu="4"), node("n2", cpu="4")],
                    [low("a", "n1", "4", 1), low("b", "n2", "4", 1)])
    fw = framework()
    chosen = set()
    for seed in range(10):
        result = schedule(fw, pod(requests=[{"cpu": "2"}], priority=10), snap, seed)
        assert result.preemption is not None
        chosen.add(result.preemption.node)
    assert chosen == {"n1", "n2"}


def test_latest_start_time_breaks_ties() -> None:
    snap = snapshot([node("n1", cpu="4"), node("n2", cpu="4")],
                    [low("old", "n1", "4", 1, "2024-01-01T00:00:00Z"),
                     low("new", "n2", "4", 1, "2024-06-01T00:00:00Z")])
    result = schedule(framework(), pod(requests=[{"cpu": "2"}], priority=10), snap)
    assert result.preemption is not None and result.preemption.node == "n2"


def test_victims_are_the_pod_objects() -> None:
    snap = snapshot([node("n1", cpu="4")], [low("p1", "n1", "4", 1)])
    result = schedule(framework(), pod(requests=[{"cpu": "2"}], priority=10), snap)
    assert result.preemption is not None
    victim = result.preemption.victims[0]
    assert victim["metadata"]["name"] == "p1"
    assert (victim.namespace, victim.name, victim.priority) == ("default", "p1", 1)
    assert victim.to_dict() == {"namespace": "default", "name": "p1",
                                "uid": "uid-default-p1", "priority": 1}


def test_terminating_victim_on_nominated_node_blocks_more_preemption() -> None:
    terminating = pod("t", node_name="n1", requests=[{"cpu": "4"}], priority=1, deleting=True)
    terminating["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                            "reason": "PreemptionByScheduler"}]
    snap = snapshot([node("n1", cpu="4")], [terminating])
    result = schedule(framework(), pod(requests=[{"cpu": "2"}], priority=10, nominated="n1"),
                      snap)
    assert result.preemption is None
    assert result.message.endswith(
        "preemption: not eligible due to a terminating pod on the nominated node.")


@pytest.mark.parametrize(("nodes", "want"), [(10, 10), (1000, 100), (5000, 500), (50, 50)])
def test_number_of_candidates(nodes: int, want: int) -> None:
    assert DefaultPreemption().num_candidates(nodes) == want


def test_nominated_pod_holds_its_room() -> None:
    snap = snapshot([node("n1", cpu="4")], [low("p1", "n1", "4", 1)])
    fw = framework()
    high = pod("high", requests=[{"cpu": "4"}], priority=10)
    result = schedule(fw, high, snap)
    assert result.preemption is not None
    snap.nominate(high, result.preemption.node)
    snap.remove_pod(low("p1", "n1", "4", 1))  # the victim is gone
    # A lower-priority pod may not take the room freed for the nominated pod.
    other = schedule(fw, pod(requests=[{"cpu": "1"}], priority=5), snap)
    assert other.node is None
    mine = schedule(fw, pod("high", requests=[{"cpu": "4"}], priority=10, nominated="n1"), snap)
    assert mine.node == "n1"
