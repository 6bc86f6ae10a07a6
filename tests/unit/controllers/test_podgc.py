"""PodGC: orphaned pods, terminated pods over the threshold, unscheduled or
out-of-service terminating pods are force-deleted."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.controllers.podgc import PodGC
from tests.waiting import wait_for

from .conftest import Cluster, drain, pod


def node(name: str, *, ready: bool = True, taints: list[dict[str, str]] | None = None
         ) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                           "status": {"conditions": [
                               {"type": "Ready", "status": "True" if ready else "False"}]}}
    if taints:
        obj["spec"] = {"taints": taints}
    return obj


def gc_for(cluster: Cluster, **kw: Any) -> PodGC:
    kw.setdefault("clock", cluster.clock or __import__("time").time)
    gc = PodGC(cluster.recorder, cluster.informers, **kw)
    cluster.start(["pods", "nodes"])
    return gc


def phase(cluster: Cluster, name: str, value: str, **extra: Any) -> None:
    cluster.client.patch("pods", "default", name, "strategic",
                         {"status": {"phase": value, **extra}}, subresource="status")


def test_pods_of_a_deleted_node_are_failed_and_force_deleted(clocked):
    gc = gc_for(clocked, orphan_quarantine=40)
    clocked.client.create(node("n1"))
    clocked.client.create(node("n2"))
    for name, host in (("a", "n1"), ("b", "n1"), ("c", "n2")):
        clocked.client.create(pod(name))
        clocked.client.bind("default", name, host)
    phase(clocked, "b", "Succeeded")
    clocked.settle()
    drain(gc)
    clocked.client.delete("nodes", None, "n1")
    clocked.settle()
    assert drain(gc) == ["node:n1"]
    # Quarantined first: a missing node may be an informer lagging behind.
    assert gc.reconcile("node:n1") == pytest.approx(40)
    assert clocked.recorder.writes() == []
    clocked.clock.advance(40)
    assert gc.reconcile("node:n1") is None
    assert clocked.names("pods") == ["c"]
    # The running pod was marked Failed (DisruptionTarget) first; the finished one was not.
    [status] = clocked.recorder.writes("patch", "pods")
    assert status[3] == "a" and status[6] == "status"
    assert status[5]["status"]["phase"] == "Failed"
    [cond] = status[5]["status"]["conditions"]
    assert (cond["type"], cond["reason"], cond["message"]) == \
        ("DisruptionTarget", "DeletionByPodGC", "PodGC: node no longer exists")
    assert sorted((d[3], d[4]["grace"]) for d in clocked.recorder.writes("delete")) == \
        [("a", 0), ("b", 0)]


def test_a_node_back_before_the_quarantine_ends_keeps_its_pods(clocked):
    gc = gc_for(clocked, orphan_quarantine=40)
    clocked.client.create(pod("a"))
    clocked.client.bind("default", "a", "late")
    clocked.settle()
    assert drain(gc) == ["node:late"]
    assert gc.reconcile("node:late") == pytest.approx(40)
    clocked.client.create(node("late"))
    clocked.clock.advance(41)
    clocked.settle()
    assert gc.reconcile("node:late") is None
    assert clocked.names("pods") == ["a"]


def test_unknown_node_is_confirmed_with_a_live_read(cluster):
    gc = gc_for(cluster, orphan_quarantine=0)
    cluster.informers.get("nodes").stop()  # a cache that never hears of the node
    cluster.client.create(node("n1"))
    cluster.client.create(pod("a"))
    cluster.client.bind("default", "a", "n1")
    cluster.settle(only=["pods"])
    assert gc.reconcile("node:n1") is None
    assert cluster.names("pods") == ["a"]


TERMINATED = [
    # (threshold, pods as (name, phase, evicted), expected survivors)
    (2, [("p1", "Succeeded", False), ("p2", "Failed", False), ("p3", "Succeeded", False),
         ("p4", "Running", False)], ["p2", "p3", "p4"]),
    (2, [("p1", "Succeeded", False), ("p2", "Failed", False), ("p3", "Failed", True)],
     ["p1", "p2"]),
    (5, [("p1", "Succeeded", False), ("p2", "Failed", False)], ["p1", "p2"]),
    (0, [("p1", "Succeeded", False), ("p2", "Failed", False)], ["p1", "p2"]),
]


@pytest.mark.parametrize(("threshold", "pods", "survivors"), TERMINATED)
def test_terminated_pods_over_the_threshold_go_evicted_then_oldest_first(
        clocked, threshold, pods, survivors):
    gc = gc_for(clocked, terminated_pod_threshold=threshold)
    for name, value, evicted in pods:
        clocked.client.create(pod(name))
        clocked.clock.advance(10)  # creation order = age order
        phase(clocked, name, value, **({"reason": "Evicted"} if evicted else {}))
    clocked.settle()
    queued = drain(gc)
    assert ("terminated" in queued) == (0 < threshold < sum(
        p[1] in ("Succeeded", "Failed") for p in pods))
    gc.reconcile("terminated")
    assert clocked.names("pods") == survivors
    assert all(d[4]["grace"] == 0 for d in clocked.recorder.writes("delete"))


def test_unscheduled_terminating_pods_are_force_deleted(cluster):
    gc = gc_for(cluster)
    cluster.client.create(pod("held", finalizers=["example.com/hold"]))
    cluster.client.delete("pods", "default", "held")
    cluster.settle()
    assert drain(gc) == ["pod:default/held"]
    gc.reconcile("pod:default/held")
    [status] = cluster.recorder.writes("patch", "pods")
    assert status[5] == {"status": {"phase": "Failed"}}
    [delete] = cluster.recorder.writes("delete", "pods")
    assert delete[3] == "held" and delete[4]["grace"] == 0


def test_terminating_pods_on_an_out_of_service_node_are_force_deleted(cluster):
    gc = gc_for(cluster)
    taint = {"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown",
             "effect": "NoExecute"}
    cluster.client.create(node("n1", ready=False, taints=[taint]))
    cluster.client.create(node("n2", ready=True, taints=[taint]))
    cluster.settle()
    drain(gc)
    for name, host in (("a", "n1"), ("b", "n1"), ("c", "n2")):
        cluster.client.create(pod(name))
        cluster.client.bind("default", name, host)
    cluster.client.delete("pods", "default", "a")  # graceful: waits for a kubelet
    cluster.client.delete("pods", "default", "c")
    cluster.settle()
    assert set(drain(gc)) == {"node:n1"}  # n2 is Ready: not out of service
    gc.reconcile("node:n1")
    gc.reconcile("node:n2")
    assert cluster.names("pods") == ["b", "c"]  # n2 is Ready: its kubelet will finish c


def test_behaviour_orphaned_pods_collected_with_running_workers(cluster):
    gc = PodGC(cluster.client, cluster.informers, orphan_quarantine=0.2)
    cluster.controllers.append(gc)
    cluster.start(["pods", "nodes"])
    gc.start()
    cluster.client.create(node("n1"))
    for name in ("a", "b"):
        cluster.client.create(pod(name))
        cluster.client.bind("default", name, "n1")
    cluster.client.create(pod("unbound"))
    cluster.client.delete("nodes", None, "n1")
    wait_for(lambda: cluster.names("pods") == ["unbound"], "orphans collected")
