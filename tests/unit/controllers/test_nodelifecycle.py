"""Node lifecycle controller: heartbeat staleness turns a node's conditions Unknown,
Ready False/Unknown taints it not-ready/unreachable (NoSchedule + NoExecute), and the
taint manager evicts the pods that do not tolerate the NoExecute taints, on time.

``reconcile(node)`` is called directly against synced caches with a fake clock and
its API writes asserted (sample-controller style); one test runs the workers."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from minikube_py.api.errors import NotFound
from minikube_py.client.base import Object
from minikube_py.controllers.nodelifecycle import (
    NOT_READY_TAINT,
    UNREACHABLE_TAINT,
    NodeLifecycleController,
    matching_tolerations,
    min_toleration_seconds,
    tolerates,
)
from tests.clock import FakeClock
from tests.waiting import wait_for

from .conftest import Cluster, drain, pod

GRACE = 50.0
STARTUP = 60.0
PRESSURES = ("MemoryPressure", "DiskPressure", "PIDPressure")


def ts(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def clock_of(cluster: Cluster) -> FakeClock:
    assert cluster.clock is not None
    return cluster.clock


def node(name: str, at: float, *, ready: str | None = "True",
         taints: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A Node as a kubelet posts it at ``at``; ``ready=None``: no conditions at all."""
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    if ready is not None:
        conditions = [{"type": kind, "status": "False", "lastHeartbeatTime": ts(at),
                       "lastTransitionTime": ts(at), "reason": f"KubeletHasNo{kind}",
                       "message": "fine"} for kind in PRESSURES]
        conditions.append({"type": "Ready", "status": ready, "lastHeartbeatTime": ts(at),
                           "lastTransitionTime": ts(at), "reason": "KubeletReady",
                           "message": "kubelet is posting ready status"})
        obj["status"] = {"conditions": conditions}
    if taints:
        obj["spec"] = {"taints": taints}
    return obj


def heartbeat(cluster: Cluster, name: str, *, ready: str = "True") -> None:
    """The kubelet posting status now (fake clock)."""
    current = cluster.client.get("nodes", None, name)
    now = ts(clock_of(cluster).now)
    for cond in current["status"]["conditions"]:
        cond["lastHeartbeatTime"] = now
        if cond["type"] == "Ready" and cond["status"] != ready:
            cond.update(status=ready, lastTransitionTime=now, reason="KubeletReady",
                        message="kubelet posted")
    cluster.client.update(current, subresource="status")


def start(cluster: Cluster, **kw: Any) -> NodeLifecycleController:
    ctrl = NodeLifecycleController(cluster.recorder, cluster.informers,
                                   clock=clock_of(cluster), **kw)
    cluster.start(["pods", "nodes"])
    return ctrl


def running_pod(cluster: Cluster, name: str, on: str, *,
                tolerations: list[dict[str, Any]] | None = None, ready: bool = True,
                defaults: bool = True) -> None:
    """A pod bound to ``on`` and (when ``ready``) Running with Ready True.

    ``tolerations`` given replace nothing: DefaultTolerationSeconds admission still
    adds 300 s for not-ready/unreachable unless they are covered or ``defaults`` is
    off (then the pod tolerates nothing it was not given)."""
    obj = pod(name)
    if tolerations is not None:
        obj["spec"]["tolerations"] = tolerations
    saved = cluster.registry.default_toleration_seconds
    if not defaults:
        cluster.registry.default_toleration_seconds = None
    try:
        cluster.client.create(obj)
    finally:
        cluster.registry.default_toleration_seconds = saved
    cluster.client.bind("default", name, on)
    if ready:
        cluster.client.patch("pods", "default", name, "strategic",
                             {"status": {"phase": "Running", "conditions": [
                                 {"type": "Ready", "status": "True"}]}},
                             subresource="status")


def condition(obj: Object, kind: str) -> dict[str, Any]:
    [cond] = [c for c in obj["status"]["conditions"] if c["type"] == kind]
    return dict(cond)


def our_taints(cluster: Cluster, name: str) -> list[tuple[str, str]]:
    stored = cluster.client.get("nodes", None, name)
    return [(t["key"], t["effect"]) for t in stored.get("spec", {}).get("taints") or []]


def events(cluster: Cluster, reason: str) -> list[tuple[str, str, str, str]]:
    """(kind, name, type, message) of the events with ``reason``, in the store's order."""
    return [(e["involvedObject"]["kind"], e["involvedObject"]["name"], e["type"],
             e["message"]) for e in cluster.events(reason)]


def exists(key: str, effect: str = "NoExecute", seconds: int | None = None
           ) -> dict[str, Any]:
    tol: dict[str, Any] = {"key": key, "operator": "Exists", "effect": effect}
    if seconds is not None:
        tol["tolerationSeconds"] = seconds
    return tol


def deleting(cluster: Cluster, name: str) -> bool:
    obj = cluster.get("pods", "default", name)
    return obj is not None and bool(obj["metadata"].get("deletionTimestamp"))


def stale_two_nodes(cluster: Cluster) -> tuple[NodeLifecycleController, float]:
    """n1 silent past the grace period while n2 keeps posting (so the cluster is not
    fully disrupted); both seen once at t0 by the controller. Returns (ctrl, t0)."""
    clock = clock_of(cluster)
    t0 = clock.now
    ctrl = start(cluster)
    cluster.client.create(node("n1", t0))
    cluster.client.create(node("n2", t0))
    cluster.settle()
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)
    assert ctrl.reconcile("n2") == pytest.approx(GRACE)
    return ctrl, t0


def go_stale(cluster: Cluster, ctrl: NodeLifecycleController, seconds: float = GRACE
             ) -> None:
    """Advance the clock while only n2 heartbeats, then look at n2 first."""
    clock_of(cluster).advance(seconds)
    heartbeat(cluster, "n2")
    cluster.settle()
    ctrl.reconcile("n2")
    cluster.settle()


# ------------------------------------------------------------------ tolerations


TOLERATES = [
    # (toleration, taint, tolerated)
    ({"key": "k", "operator": "Exists", "effect": "NoExecute"},
     {"key": "k", "effect": "NoExecute"}, True),
    ({"key": "k", "operator": "Exists"}, {"key": "k", "effect": "NoSchedule"}, True),
    ({"operator": "Exists"}, {"key": "any", "value": "v", "effect": "NoExecute"}, True),
    ({"key": "k", "operator": "Exists", "effect": "NoSchedule"},
     {"key": "k", "effect": "NoExecute"}, False),
    ({"key": "other", "operator": "Exists"}, {"key": "k", "effect": "NoExecute"}, False),
    ({"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute"},
     {"key": "k", "value": "v", "effect": "NoExecute"}, True),
    ({"key": "k", "value": "v"}, {"key": "k", "value": "w", "effect": "NoExecute"}, False),
    ({"key": "k"}, {"key": "k", "effect": "NoExecute"}, True),  # "" == ""
    ({"key": "k", "operator": "Lt", "value": "1"},
     {"key": "k", "value": "0", "effect": "NoExecute"}, False),
]


@pytest.mark.parametrize(("toleration", "taint", "expected"), TOLERATES)
def test_tolerates(toleration: dict[str, Any], taint: dict[str, Any],
                   expected: bool) -> None:
    assert tolerates(toleration, taint) is expected


def test_matching_tolerations_takes_the_first_match_per_taint() -> None:
    taints = [{"key": "a", "effect": "NoExecute"}, {"key": "b", "effect": "NoExecute"}]
    first_a = exists("a", seconds=10)
    wildcard = {"operator": "Exists"}
    assert matching_tolerations(taints, [first_a, exists("a", seconds=99), wildcard]) == \
        (True, [first_a, wildcard])
    assert matching_tolerations(taints, [first_a]) == (False, [])
    assert matching_tolerations([], []) == (True, [])


MIN_SECONDS = [
    ([], 0.0),
    ([exists("a")], -1.0),  # none bounded: tolerated forever
    ([exists("a", seconds=30), exists("b")], 30.0),
    ([exists("a", seconds=30), exists("b", seconds=10)], 10.0),
    ([exists("a", seconds=30), exists("b", seconds=0)], 0.0),
    ([exists("a", seconds=-5)], 0.0),
]


@pytest.mark.parametrize(("tolerations", "expected"), MIN_SECONDS)
def test_min_toleration_seconds(tolerations: list[dict[str, Any]], expected: float) -> None:
    assert min_toleration_seconds(tolerations) == expected


# ------------------------------------------------------------------ health


def test_a_posting_node_is_requeued_for_when_it_would_turn_stale(clocked: Cluster) -> None:
    clock = clock_of(clocked)
    ctrl = start(clocked)
    clocked.client.create(node("n1", clock.now))
    clocked.settle()
    assert drain(ctrl) == ["n1"]
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)
    clock.advance(30)
    heartbeat(clocked, "n1")
    clocked.settle()
    clock.advance(10)
    # The grace period counts from when the controller saw the heartbeat change.
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)
    clock.advance(GRACE - 1)
    assert ctrl.reconcile("n1") == pytest.approx(1)
    assert clocked.recorder.writes() == []


def test_a_silent_node_turns_unknown_and_tainted_unreachable(clocked: Cluster) -> None:
    ctrl, t0 = stale_two_nodes(clocked)
    running_pod(clocked, "a", "n1")
    running_pod(clocked, "pending", "n1", ready=False)  # no Ready condition yet
    running_pod(clocked, "elsewhere", "n2")
    go_stale(clocked, ctrl)
    clocked.recorder.clear()
    now = clock_of(clocked).now

    ctrl.reconcile("n1")
    clocked.settle()
    stored = clocked.client.get("nodes", None, "n1")
    for kind in ("Ready", *PRESSURES):
        cond = condition(stored, kind)
        assert (cond["status"], cond["reason"], cond["message"]) == \
            ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
        assert cond["lastHeartbeatTime"] == ts(t0)  # kept: the last one the kubelet sent
        assert cond["lastTransitionTime"] == ts(now)
    assert [(t["key"], t["effect"], t["timeAdded"]) for t in stored["spec"]["taints"]] == \
        [(UNREACHABLE_TAINT, "NoSchedule", ts(now)), (UNREACHABLE_TAINT, "NoExecute", ts(now))]
    assert sorted(events(clocked, "NodeNotReady")) == [
        ("Node", "n1", "Normal", "Node n1 status is now: NodeNotReady"),
        ("Pod", "a", "Warning", "Node is not ready")]
    # Only the pods of n1 that were Ready are marked.
    [patch] = clocked.recorder.writes("patch", "pods")
    assert (patch[3], patch[6]) == ("a", "status")
    ready = condition(clocked.client.get("pods", "default", "a"), "Ready")
    assert (ready["status"], ready["lastTransitionTime"]) == ("False", ts(now))
    assert condition(clocked.client.get("pods", "default", "a"), "PodScheduled")["status"] \
        == "True"  # merged by type, not replaced
    assert condition(clocked.client.get("pods", "default", "elsewhere"),
                     "Ready")["status"] == "True"
    # One status write, one spec write.
    assert [(w[0], w[2]) for w in clocked.recorder.writes(resource="nodes")] == \
        [("update", "status"), ("update", None)]


def test_stale_exactly_at_the_grace_period_and_idempotent_after(clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    go_stale(clocked, ctrl, GRACE - 1)
    clocked.recorder.clear()
    assert ctrl.reconcile("n1") == pytest.approx(1)
    assert clocked.recorder.writes() == []
    clock_of(clocked).advance(1)
    ctrl.reconcile("n1")
    clocked.settle()
    assert condition(clocked.client.get("nodes", None, "n1"), "Ready")["status"] == "Unknown"
    clocked.recorder.clear()
    ctrl.reconcile("n1")
    ctrl.reconcile("n1")
    assert clocked.recorder.writes() == []  # nothing left to change, no event again
    assert len(events(clocked, "NodeNotReady")) == 1


def test_a_node_that_never_posted_gets_the_startup_grace_period(clocked: Cluster) -> None:
    clock = clock_of(clocked)
    t0 = clock.now
    ctrl = start(clocked)
    clocked.client.create(node("n1", t0, ready=None))
    clocked.client.create(node("n2", t0))
    clocked.settle()
    clock.advance(STARTUP - 1)
    # Measured from the node's creation, not from the first look.
    assert ctrl.reconcile("n1") == pytest.approx(1)
    clock.advance(1)
    heartbeat(clocked, "n2")
    clocked.settle()
    ctrl.reconcile("n1")
    clocked.settle()
    stored = clocked.client.get("nodes", None, "n1")
    created = stored["metadata"]["creationTimestamp"]
    for kind in ("Ready", *PRESSURES):
        cond = condition(stored, kind)
        assert (cond["status"], cond["reason"], cond["message"]) == \
            ("Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status.")
        assert (cond["lastHeartbeatTime"], cond["lastTransitionTime"]) == \
            (created, ts(clock.now))
    # It was never Ready: no NodeNotReady transition to report.
    assert events(clocked, "NodeNotReady") == []
    assert our_taints(clocked, "n1") == [(UNREACHABLE_TAINT, "NoSchedule"),
                                         (UNREACHABLE_TAINT, "NoExecute")]


def test_a_restarted_controller_gives_every_node_a_full_grace_period(
        clocked: Cluster) -> None:
    clock = clock_of(clocked)
    clocked.client.create(node("n1", clock.now - 3600))  # last heartbeat an hour ago
    ctrl = start(clocked)
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)
    assert clocked.recorder.writes() == []


def test_ready_false_from_the_kubelet_taints_not_ready_without_marking_pods(
        clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    running_pod(clocked, "a", "n1")
    clock_of(clocked).advance(5)
    heartbeat(clocked, "n1", ready="False")
    clocked.settle()
    clocked.recorder.clear()
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)  # still posting: not stale
    clocked.settle()
    assert our_taints(clocked, "n1") == [(NOT_READY_TAINT, "NoSchedule"),
                                         (NOT_READY_TAINT, "NoExecute")]
    assert condition(clocked.client.get("nodes", None, "n1"), "Ready")["reason"] == \
        "KubeletReady"  # the kubelet's condition is not touched
    assert clocked.recorder.writes("patch", "pods") == []
    assert events(clocked, "NodeNotReady") == []


def test_other_taints_are_never_touched(clocked: Cluster) -> None:
    clock = clock_of(clocked)
    mine = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    ctrl = start(clocked)
    clocked.client.create(node("n1", clock.now, taints=[mine]))
    clocked.client.create(node("n2", clock.now))
    clocked.settle()
    ctrl.reconcile("n1")
    ctrl.reconcile("n2")
    go_stale(clocked, ctrl)
    ctrl.reconcile("n1")
    clocked.settle()
    assert our_taints(clocked, "n1") == [("dedicated", "NoSchedule"),
                                         (UNREACHABLE_TAINT, "NoSchedule"),
                                         (UNREACHABLE_TAINT, "NoExecute")]
    heartbeat(clocked, "n1")
    clocked.settle()
    ctrl.reconcile("n1")
    clocked.settle()
    stored = clocked.client.get("nodes", None, "n1")
    assert stored["spec"]["taints"] == [mine]


# ------------------------------------------------------------------ full disruption


def test_a_single_silent_node_is_full_disruption_no_noexecute(clocked: Cluster) -> None:
    """Every node down: the control plane is more likely cut off than the nodes, so
    nothing is evicted; NoSchedule still keeps new pods off."""
    clock = clock_of(clocked)
    ctrl = start(clocked)
    clocked.client.create(node("n1", clock.now))
    clocked.settle()
    ctrl.reconcile("n1")
    running_pod(clocked, "a", "n1", defaults=False)  # would go at once if tainted
    clock.advance(GRACE)
    clocked.settle()
    assert ctrl.reconcile("n1") is None
    clocked.settle()
    assert our_taints(clocked, "n1") == [(UNREACHABLE_TAINT, "NoSchedule")]
    assert not deleting(clocked, "a")
    assert condition(clocked.client.get("pods", "default", "a"), "Ready")["status"] == \
        "False"


def test_the_other_nodes_are_judged_stale_on_the_same_boundary(clocked: Cluster) -> None:
    """n2 (Ready True in the cache) silent for exactly the grace period is stale for
    n1's full-disruption check, as its own reconcile would find it."""
    ctrl, _ = stale_two_nodes(clocked)
    clock_of(clocked).advance(GRACE)
    clocked.settle()
    ctrl.reconcile("n1")  # n2 not looked at since t0
    clocked.settle()
    assert our_taints(clocked, "n1") == [(UNREACHABLE_TAINT, "NoSchedule")]


def test_noexecute_taints_go_when_the_last_ready_node_goes_silent(clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    running_pod(clocked, "a", "n1", tolerations=[exists(UNREACHABLE_TAINT, seconds=100),
                                                 exists(NOT_READY_TAINT, seconds=100)])
    go_stale(clocked, ctrl)
    assert ctrl.reconcile("n1") == pytest.approx(100)
    clocked.settle()
    assert (UNREACHABLE_TAINT, "NoExecute") in our_taints(clocked, "n1")
    clock_of(clocked).advance(GRACE)  # n2 silent too now
    clocked.settle()
    assert ctrl.reconcile("n1") is None  # no eviction pending any more
    clocked.settle()
    assert our_taints(clocked, "n1") == [(UNREACHABLE_TAINT, "NoSchedule")]
    assert events(clocked, "TaintManagerEviction") == [
        ("Pod", "a", "Normal", "Cancelling deletion of Pod default/a")]
    ctrl.reconcile("n2")
    clocked.settle()
    assert our_taints(clocked, "n2") == [(UNREACHABLE_TAINT, "NoSchedule")]


# ------------------------------------------------------------------ eviction


def test_default_tolerations_evict_300_seconds_after_the_taint(clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    running_pod(clocked, "a", "n1")  # admission gave it 300 s for unreachable
    go_stale(clocked, ctrl)
    tainted_at = clock_of(clocked).now
    assert ctrl.reconcile("n1") == pytest.approx(300)
    clocked.settle()
    # Requeues keep counting from the taint, not from each look.
    go_stale(clocked, ctrl, 299)
    assert ctrl.reconcile("n1") == pytest.approx(1)
    assert not deleting(clocked, "a")
    go_stale(clocked, ctrl, 1)
    clocked.recorder.clear()
    ctrl.reconcile("n1")
    clocked.settle()

    # DisruptionTarget first, then a graceful delete (the pod's 30 s grace period).
    [patch] = [w for w in clocked.recorder.writes("patch", "pods") if w[3] == "a"]
    [cond] = patch[5]["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == \
        ("DisruptionTarget", "True", "DeletionByTaintManager",
         "Taint manager: deleting due to NoExecute taint")
    [delete] = clocked.recorder.writes("delete", "pods")
    assert (delete[3], delete[4]["grace"]) == ("a", None)
    kinds = [w[0] for w in clocked.recorder.actions if w[1] == "pods"]
    assert kinds.index("patch") < kinds.index("delete")
    stored = clocked.client.get("pods", "default", "a")
    assert stored["metadata"]["deletionGracePeriodSeconds"] == 30
    assert condition(stored, "DisruptionTarget")["reason"] == "DeletionByTaintManager"
    assert events(clocked, "TaintManagerEviction") == [
        ("Pod", "a", "Normal", "Marking for deletion Pod default/a")]
    [event] = clocked.events("TaintManagerEviction")
    assert event["source"]["component"] == "taint-eviction-controller"
    assert clock_of(clocked).now == tainted_at + 300

    # Already being deleted: left alone.
    clocked.recorder.clear()
    ctrl.reconcile("n1")
    assert clocked.recorder.writes(resource="pods") == []


EVICTIONS = [
    # (case, tolerations, default tolerations added, expected requeue or "now" / None)
    ("tolerates nothing: at once", [], False, "now"),
    ("tolerationSeconds 0: at once", [exists(UNREACHABLE_TAINT, seconds=0)], True, "now"),
    ("unbounded toleration: stays", [exists(UNREACHABLE_TAINT)], True, None),
    ("tolerates everything forever: stays", [{"operator": "Exists"}], True, None),
    ("only NoSchedule tolerated: at once",
     [exists(UNREACHABLE_TAINT, "NoSchedule")], False, "now"),
    ("first match wins: bounded before unbounded",
     [exists(UNREACHABLE_TAINT, seconds=20), {"operator": "Exists"}], True, 20.0),
    ("first match wins: unbounded before bounded",
     [{"operator": "Exists"}, exists(UNREACHABLE_TAINT, seconds=20)], True, None),
]


@pytest.mark.parametrize(("tolerations", "defaults", "expected"),
                         [c[1:] for c in EVICTIONS], ids=[c[0] for c in EVICTIONS])
def test_eviction_follows_the_matched_tolerations(
        clocked: Cluster, tolerations: list[dict[str, Any]], defaults: bool,
        expected: float | str | None) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    running_pod(clocked, "a", "n1", tolerations=tolerations, defaults=defaults)
    go_stale(clocked, ctrl)
    wait = ctrl.reconcile("n1")
    clocked.settle()
    if expected == "now":
        assert wait is None
        assert deleting(clocked, "a")
        assert events(clocked, "TaintManagerEviction") == [
            ("Pod", "a", "Normal", "Marking for deletion Pod default/a")]
    else:
        assert wait == (None if expected is None else pytest.approx(expected))
        assert not deleting(clocked, "a")
        assert events(clocked, "TaintManagerEviction") == []


def test_the_smallest_bound_over_all_noexecute_taints_applies(clocked: Cluster) -> None:
    clock = clock_of(clocked)
    ctrl = start(clocked)
    maintenance = {"key": "maintenance", "effect": "NoExecute", "timeAdded": ts(clock.now)}
    clocked.client.create(node("n1", clock.now, taints=[maintenance]))
    clocked.client.create(node("n2", clock.now))
    clocked.settle()
    ctrl.reconcile("n2")
    running_pod(clocked, "a", "n1", tolerations=[
        exists(UNREACHABLE_TAINT, seconds=100), exists(NOT_READY_TAINT, seconds=100),
        exists("maintenance", seconds=400)])
    clocked.settle()
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)  # healthy: staleness is sooner
    go_stale(clocked, ctrl)
    # Both taints' bounds count from the node's first NoExecute taint (t0): 100 s.
    assert ctrl.reconcile("n1") == pytest.approx(100 - GRACE)


def test_a_pod_arriving_on_a_tainted_node_gets_its_full_toleration(
        clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    go_stale(clocked, ctrl)
    ctrl.reconcile("n1")
    clocked.settle()
    drain(ctrl)
    go_stale(clocked, ctrl, 40)
    drain(ctrl)
    running_pod(clocked, "late", "n1", tolerations=[exists(UNREACHABLE_TAINT, seconds=30)])
    clocked.settle()
    # The pod handler brings the tainted node back.
    assert "n1" in drain(ctrl)
    assert ctrl.reconcile("n1") == pytest.approx(30)


def test_a_pod_on_an_untainted_node_does_not_wake_the_controller(clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    drain(ctrl)
    running_pod(clocked, "a", "n2")
    clocked.settle()
    assert drain(ctrl) == []


def test_swapping_not_ready_for_unreachable_keeps_the_eviction_clock(
        clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    running_pod(clocked, "a", "n1", tolerations=[exists(UNREACHABLE_TAINT, seconds=100),
                                                 exists(NOT_READY_TAINT, seconds=100)])
    clock_of(clocked).advance(10)
    heartbeat(clocked, "n1", ready="False")
    clocked.settle()
    ctrl.reconcile("n1")  # not-ready from t0+10
    clocked.settle()
    assert our_taints(clocked, "n1") == [(NOT_READY_TAINT, "NoSchedule"),
                                         (NOT_READY_TAINT, "NoExecute")]
    go_stale(clocked, ctrl)  # t0+60: n1 silent for 50 s
    assert ctrl.reconcile("n1") == pytest.approx(50)  # still counting from t0+10
    clocked.settle()
    assert our_taints(clocked, "n1") == [(UNREACHABLE_TAINT, "NoSchedule"),
                                         (UNREACHABLE_TAINT, "NoExecute")]


def test_a_restarted_controller_keeps_the_schedule_from_time_added(
        clocked: Cluster) -> None:
    """No memory survives a restart: the taints' timeAdded and the pods' binding
    times alone give the schedule back."""
    clock = clock_of(clocked)
    t0 = clock.now
    taints = [{"key": UNREACHABLE_TAINT, "effect": "NoSchedule", "timeAdded": ts(t0)},
              {"key": UNREACHABLE_TAINT, "effect": "NoExecute", "timeAdded": ts(t0)}]
    clocked.client.create(node("n1", t0 - 60, ready="Unknown", taints=taints))
    clocked.client.create(node("n2", t0))
    tolerations = [exists(UNREACHABLE_TAINT, seconds=300), exists(NOT_READY_TAINT, seconds=300)]
    running_pod(clocked, "before", "n1", tolerations=tolerations)  # bound at t0
    clock.advance(120)
    running_pod(clocked, "after", "n1", tolerations=tolerations)  # bound at t0+120
    heartbeat(clocked, "n2")
    # A long grace period so that the node's own staleness is not the next due time.
    ctrl = start(clocked, grace_period=1000)
    assert ctrl.reconcile("n1") == pytest.approx(180)  # "before": t0 + 300
    clock.advance(180)
    heartbeat(clocked, "n2")
    clocked.settle()
    assert ctrl.reconcile("n1") == pytest.approx(120)  # "after": t0 + 120 + 300
    clocked.settle()
    assert deleting(clocked, "before")
    assert not deleting(clocked, "after")


def test_recovery_removes_the_taints_and_cancels_pending_evictions(
        clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    running_pod(clocked, "a", "n1")
    go_stale(clocked, ctrl)
    assert ctrl.reconcile("n1") == pytest.approx(300)
    clocked.settle()
    clock_of(clocked).advance(5)
    heartbeat(clocked, "n1")
    clocked.settle()
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)
    clocked.settle()
    assert our_taints(clocked, "n1") == []
    assert "taints" not in clocked.client.get("nodes", None, "n1").get("spec", {})
    assert events(clocked, "TaintManagerEviction") == [
        ("Pod", "a", "Normal", "Cancelling deletion of Pod default/a")]
    assert not deleting(clocked, "a")


def test_a_deleted_node_is_forgotten(clocked: Cluster) -> None:
    ctrl, _ = stale_two_nodes(clocked)
    clocked.client.delete("nodes", None, "n1")
    clocked.settle()
    clocked.recorder.clear()
    assert ctrl.reconcile("n1") is None
    assert clocked.recorder.writes() == []


# ------------------------------------------------------------------ behaviour


def test_behaviour_kubelet_stops_pods_evicted_kubelet_back_taints_gone(
        clocked: Cluster) -> None:
    """Running workers and the monitor timer; only the fake clock moves time on."""
    clock = clock_of(clocked)
    ctrl = NodeLifecycleController(clocked.client, clocked.informers, clock=clock,
                                   monitor_period=0.02)
    clocked.controllers.append(ctrl)
    clocked.start(["pods", "nodes"])
    clocked.client.create(node("n1", clock.now))
    clocked.client.create(node("n2", clock.now))
    running_pod(clocked, "a", "n1", tolerations=[exists(UNREACHABLE_TAINT, seconds=30),
                                                 exists(NOT_READY_TAINT, seconds=30)])
    running_pod(clocked, "b", "n2")
    clocked.settle()
    ctrl.start()

    def step(seconds: float) -> None:
        """Time passes; n2's kubelet keeps posting, n1's has stopped."""
        clock.advance(seconds)
        heartbeat(clocked, "n2")

    for _ in range(3):  # 60 s in 20 s steps: n2 never silent for long
        step(20)
        clocked.settle()
    wait_for(lambda: (UNREACHABLE_TAINT, "NoExecute") in our_taints(clocked, "n1"),
             "n1 tainted unreachable")
    wait_for(lambda: condition(clocked.client.get("pods", "default", "a"),
                               "Ready")["status"] == "False", "pod a not ready")
    assert not deleting(clocked, "a")
    step(20)
    clocked.settle()
    step(20)  # past the 30 s toleration
    wait_for(lambda: deleting(clocked, "a"), "pod a evicted")
    assert not deleting(clocked, "b")
    assert our_taints(clocked, "n2") == []

    heartbeat(clocked, "n1")  # the kubelet is back
    wait_for(lambda: our_taints(clocked, "n1") == [], "n1 untainted")


# ------------------------------------------------------------------ node leases


def renew_lease(cluster: Cluster, name: str) -> None:
    """The kubelet renewing its node lease now (fake clock, MicroTime)."""
    at = datetime.fromtimestamp(clock_of(cluster).now, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    spec = {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": at}
    try:
        lease = cluster.client.get("leases", "kube-node-lease", name)
    except NotFound:
        cluster.client.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                               "metadata": {"name": name, "namespace": "kube-node-lease"},
                               "spec": spec})
    else:
        cluster.client.update({**lease, "spec": spec})


def lease_seen(ctrl: NodeLifecycleController, name: str, cluster: Cluster) -> None:
    rv = cluster.client.get("leases", "kube-node-lease", name)["metadata"]["resourceVersion"]
    wait_for(lambda: (ctrl.leases.get(f"kube-node-lease/{name}") or {}).get(
        "metadata", {}).get("resourceVersion") == rv, "the lease in the controller's cache")


def test_a_renewed_lease_is_a_heartbeat(clocked: Cluster) -> None:
    clock = clock_of(clocked)
    ctrl = start(clocked)
    clocked.client.create(node("n1", clock.now))
    clocked.settle()
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)
    # Only the lease moves from now on (the kubelet posts an unchanged status
    # every 5 minutes): the node stays Ready as long as it is renewed.
    for _ in range(4):
        clock.advance(30)
        renew_lease(clocked, "n1")
        lease_seen(ctrl, "n1", clocked)
        assert ctrl.reconcile("n1") == pytest.approx(GRACE)
    assert condition(clocked.client.get("nodes", None, "n1"), "Ready")["status"] == "True"
    # A lease that stops being renewed is a silent node.
    clock.advance(GRACE)
    ctrl.reconcile("n1")
    ready = condition(clocked.client.get("nodes", None, "n1"), "Ready")
    assert (ready["status"], ready["reason"]) == ("Unknown", "NodeStatusUnknown")


def test_a_renewing_node_that_never_posted_status_is_taken_as_healthy(
        clocked: Cluster) -> None:
    # tryUpdateNodeHealth: "If kubelet never posted the node status, but continues
    # renewing the heartbeat leases, the node controller will assume the node is
    # healthy and take no action."
    clock = clock_of(clocked)
    ctrl = start(clocked)
    clocked.client.create(node("n1", clock.now, ready=None))
    clocked.settle()
    assert ctrl.reconcile("n1") == pytest.approx(STARTUP)
    clock.advance(STARTUP - 10)
    renew_lease(clocked, "n1")
    lease_seen(ctrl, "n1", clocked)
    assert ctrl.reconcile("n1") == pytest.approx(STARTUP)
    clock.advance(STARTUP - 1)
    ctrl.reconcile("n1")
    assert clocked.client.get("nodes", None, "n1").get("status", {}).get("conditions") \
        is None


def test_a_lease_renewal_moves_the_deadline_without_a_reconcile(clocked: Cluster) -> None:
    """The renewal is observed when the informer sees it (not when the node is
    next reconciled), so the node comes back one grace period after it."""
    clock = clock_of(clocked)
    ctrl = start(clocked)
    clocked.client.create(node("n1", clock.now))
    clocked.settle()
    assert ctrl.reconcile("n1") == pytest.approx(GRACE)
    clock.advance(30)
    renew_lease(clocked, "n1")
    renewed = clocked.client.get("leases", "kube-node-lease", "n1")["spec"]["renewTime"]
    wait_for(lambda: ctrl._health["n1"].lease == renewed, "the renewal observed")
    clock.advance(25)  # past the deadline the node had before the renewal
    assert ctrl.reconcile("n1") == pytest.approx(30 + GRACE - 55)
    assert condition(clocked.client.get("nodes", None, "n1"), "Ready")["status"] == "True"


def test_the_monitor_pass_looks_only_at_nodes_that_need_it(clocked: Cluster) -> None:
    """Every node but a Ready, untainted one inside its grace period: a node
    never reconciled, one not Ready (even while it keeps posting), one whose
    deadline passed without a reconcile since."""
    clock = clock_of(clocked)
    ctrl = start(clocked)
    for obj in [node("healthy", clock.now), node("unseen", clock.now),
                node("notready", clock.now, ready="False"), node("late", clock.now)]:
        clocked.client.create(obj)
    clocked.settle()
    for name in ("healthy", "notready", "late"):
        ctrl.reconcile(name)
    assert set(ctrl._needing_look(clock.now)) == {"unseen", "notready"}
    assert our_taints(clocked, "notready") == [(NOT_READY_TAINT, "NoSchedule"),
                                               (NOT_READY_TAINT, "NoExecute")]
    clock.advance(GRACE - 1)
    for name, ready in (("healthy", "True"), ("notready", "False")):
        heartbeat(clocked, name, ready=ready)  # these two keep posting
    clocked.settle()
    for name in ("healthy", "notready"):
        ctrl.reconcile(name)
    clock.advance(2)  # "late" is past its deadline and has not been looked at since
    assert set(ctrl._needing_look(clock.now)) == {"unseen", "notready", "late"}
    # Recovered: Ready again and its taints gone, it is quiet too.
    heartbeat(clocked, "notready", ready="True")
    clocked.settle()
    ctrl.reconcile("notready")
    assert our_taints(clocked, "notready") == []
    assert set(ctrl._needing_look(clock.now)) == {"unseen", "late"}
