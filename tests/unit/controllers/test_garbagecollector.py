"""Garbage collector: background, foreground and orphan cascades through
ownerReferences, driven synchronously (reconcile the queued UIDs until quiet)."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.controllers.garbagecollector import GarbageCollector, default_resources
from tests.waiting import wait_for

from .conftest import Cluster, drive, pod, ref_to, replicaset


def gc_for(cluster: Cluster) -> GarbageCollector:
    gc = GarbageCollector(cluster.recorder, cluster.informers)
    cluster.start(gc.resources)
    return gc


def deployment(name: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c",
                                                           "image": "busybox:1.36"}]}}}}


def refs(cluster: Cluster, name: str) -> list[str]:
    got = cluster.get("pods", "default", name)
    assert got is not None, name
    return [r["name"] for r in got["metadata"].get("ownerReferences") or []]


def test_tracks_every_served_kind_but_events():
    assert "events" not in default_resources()
    assert {"pods", "replicasets", "deployments", "nodes"} <= set(default_resources())


# (policy, pods left, ReplicaSet deletes issued by the GC)
CASCADES = [
    ("Background", [], 0),
    (None, [], 0),
    ("Foreground", [], 0),
    ("Orphan", ["a", "b"], 0),
]


@pytest.mark.parametrize(("policy", "left", "_"), CASCADES)
def test_cascade_modes(cluster, policy, left, _):
    gc = gc_for(cluster)
    rs = cluster.client.create(replicaset("web", 2))
    for name in ("a", "b"):
        cluster.client.create(pod(name, owner=ref_to(rs)))
    cluster.settle()
    drive(cluster, gc)
    assert cluster.recorder.writes() == []  # nothing dangles: nothing to do
    cluster.client.delete("replicasets", "default", "web", propagation_policy=policy)
    drive(cluster, gc)
    assert cluster.get("replicasets", "default", "web") is None
    assert cluster.names("pods") == left
    for name in left:
        assert refs(cluster, name) == []  # orphaned: the reference is gone
    deletes = cluster.recorder.writes("delete", "pods")
    assert all(d[4]["policy"] == "Background" for d in deletes)
    assert len(deletes) == 2 - len(left)


def test_background_keeps_dependents_with_another_live_owner(cluster):
    gc = gc_for(cluster)
    web = cluster.client.create(replicaset("web", 0))
    keep = cluster.client.create(replicaset("keep", 0, labels={"app": "keep"}))
    shared = pod("shared")
    shared["metadata"]["ownerReferences"] = [ref_to(web), ref_to(keep, controller=False)]
    cluster.client.create(shared)
    cluster.client.delete("replicasets", "default", "web")
    cluster.settle()
    drive(cluster, gc)
    assert refs(cluster, "shared") == ["keep"]
    [patch] = cluster.recorder.writes("patch", "pods")
    assert patch[5]["metadata"]["ownerReferences"] == [
        {"$patch": "delete", "uid": web["metadata"]["uid"]}]


def test_foreground_waits_for_blocking_dependents(cluster):
    gc = gc_for(cluster)
    rs = cluster.client.create(replicaset("web", 2))
    cluster.client.create(pod("bound", owner=ref_to(rs)))
    cluster.client.create(pod("free", owner=ref_to(rs)))
    cluster.client.bind("default", "bound", "n1")  # terminates gracefully: the kubelet's job
    cluster.client.delete("replicasets", "default", "web", propagation_policy="Foreground")
    cluster.settle()
    drive(cluster, gc)
    held = cluster.get("replicasets", "default", "web")
    assert held is not None and held["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert cluster.names("pods") == ["bound"]
    assert cluster.get("pods", "default", "bound")["metadata"].get("deletionTimestamp")
    # The kubelet finishes the pod: the owner is released.
    cluster.client.delete("pods", "default", "bound", grace_period_seconds=0)
    drive(cluster, gc)
    assert cluster.get("replicasets", "default", "web") is None


def test_foreground_does_not_wait_for_non_blocking_dependents(cluster):
    gc = gc_for(cluster)
    rs = cluster.client.create(replicaset("web", 1))
    cluster.client.create(pod("loose", owner=ref_to(rs, block=False)))
    cluster.client.bind("default", "loose", "n1")
    cluster.client.delete("replicasets", "default", "web", propagation_policy="Foreground")
    cluster.settle()
    drive(cluster, gc)
    assert cluster.get("replicasets", "default", "web") is None
    assert cluster.get("pods", "default", "loose")["metadata"].get("deletionTimestamp")


def test_foreground_recurses_through_dependents_with_dependents(cluster):
    gc = gc_for(cluster)
    deploy = cluster.client.create(deployment("web"))
    rs = cluster.client.create(replicaset("web-1", 1, owner=ref_to(deploy)))
    cluster.client.create(pod("p", owner=ref_to(rs)))
    cluster.client.create(pod("q", owner=ref_to(rs)))
    cluster.client.delete("deployments", "default", "web", propagation_policy="Foreground")
    cluster.settle()
    drive(cluster, gc)
    assert cluster.names("deployments") == cluster.names("replicasets") == \
        cluster.names("pods") == []
    policies = {(d[1], d[3]): d[4]["policy"] for d in cluster.recorder.writes("delete")}
    assert policies == {("replicasets", "web-1"): "Foreground",
                        ("pods", "p"): "Background", ("pods", "q"): "Background"}


def test_orphan_removes_only_the_owners_reference(cluster):
    gc = gc_for(cluster)
    web = cluster.client.create(replicaset("web", 0))
    keep = cluster.client.create(replicaset("keep", 0, labels={"app": "keep"}))
    both = pod("both")
    both["metadata"]["ownerReferences"] = [ref_to(web), ref_to(keep, controller=False)]
    cluster.client.create(both)
    cluster.client.delete("replicasets", "default", "web", propagation_policy="Orphan")
    cluster.settle()
    drive(cluster, gc)
    assert cluster.get("replicasets", "default", "web") is None
    assert refs(cluster, "both") == ["keep"]
    assert cluster.recorder.writes("delete") == []


def test_dependents_of_owners_gone_while_stopped_are_collected_on_start(cluster):
    rs = cluster.client.create(replicaset("web", 1))
    cluster.client.create(pod("left-behind", owner=ref_to(rs)))
    cluster.client.create(pod("unrelated"))
    cluster.client.delete("replicasets", "default", "web")  # no GC running
    gc = gc_for(cluster)
    drive(cluster, gc)
    assert cluster.names("pods") == ["unrelated"]


def test_owner_found_by_name_but_with_another_uid_is_dangling(cluster):
    gc = gc_for(cluster)
    cluster.client.create(replicaset("web", 0))
    stale = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
             "uid": "00000000-0000-0000-0000-000000000000", "controller": True}
    cluster.client.create(pod("p", owner=stale))
    cluster.settle()
    drive(cluster, gc)
    assert cluster.names("pods") == []


def test_owners_of_unknown_kinds_are_kept(cluster):
    gc = gc_for(cluster)
    alien = {"apiVersion": "example.com/v1", "kind": "Widget", "name": "w",
             "uid": "11111111-1111-1111-1111-111111111111"}
    cluster.client.create(pod("p", owner=alien))
    cluster.settle()
    drive(cluster, gc)
    assert cluster.names("pods") == ["p"]


def test_cluster_scoped_owner_of_a_namespaced_dependent(cluster):
    gc = gc_for(cluster)
    node = cluster.client.create({"apiVersion": "v1", "kind": "Node",
                                  "metadata": {"name": "n1"}})
    cluster.client.create(pod("p", owner=ref_to(node, controller=False)))
    cluster.settle()
    drive(cluster, gc)
    assert cluster.names("pods") == ["p"]
    cluster.client.delete("nodes", None, "n1")
    drive(cluster, gc)
    assert cluster.names("pods") == []


def test_behaviour_foreground_cascade_with_running_workers(cluster):
    gc = GarbageCollector(cluster.client, cluster.informers)
    cluster.controllers.append(gc)
    cluster.start(gc.resources)
    gc.start()
    deploy = cluster.client.create(deployment("web"))
    rs = cluster.client.create(replicaset("web-1", 3, owner=ref_to(deploy)))
    for i in range(3):
        cluster.client.create(pod(f"p{i}", owner=ref_to(rs)))
    cluster.client.delete("deployments", "default", "web", propagation_policy="Foreground")
    wait_for(lambda: not cluster.names("deployments") and not cluster.names("replicasets")
             and not cluster.names("pods"), "cascade finished")
    rs2 = cluster.client.create(replicaset("web-2", 1))
    cluster.client.create(pod("kept", owner=ref_to(rs2)))
    cluster.client.delete("replicasets", "default", "web-2", propagation_policy="Orphan")
    wait_for(lambda: not cluster.names("replicasets"), "orphaned")
    assert refs(cluster, "kept") == []


def _labelled(p: dict[str, Any], other: dict[str, Any]) -> None:
    p["metadata"]["labels"] = {"tier": "front"}


def _annotated(p: dict[str, Any], other: dict[str, Any]) -> None:
    p["metadata"]["annotations"] = {"note": "x"}


def _respec(p: dict[str, Any], other: dict[str, Any]) -> None:
    p["spec"]["containers"][0]["image"] = "busybox:1.37"


def _second_owner(p: dict[str, Any], other: dict[str, Any]) -> None:
    p["metadata"]["ownerReferences"].append(ref_to(other, controller=False))


def _finalized(p: dict[str, Any], other: dict[str, Any]) -> None:
    p["metadata"]["finalizers"] = ["example.com/keep"]


# (how the pod changes, whether the graph's node for it must be rebuilt)
GRAPH_UPDATES = [(_labelled, False), (_annotated, False), (_respec, False),
                 (_second_owner, True), (_finalized, True)]


@pytest.mark.parametrize(("change", "rebuilt"), GRAPH_UPDATES,
                         ids=[c.__name__.strip("_") for c, _ in GRAPH_UPDATES])
def test_an_update_touches_the_graph_only_when_what_it_holds_changed(cluster, change, rebuilt):
    """A lease renewal or status write (500 a second at 5,000 nodes) leaves the
    graph as it was; a change of owners, finalizers or deletion is taken in."""
    from minikube_py.controllers.garbagecollector import Node

    gc = gc_for(cluster)
    web = cluster.client.create(replicaset("web", 0))
    other = cluster.client.create(replicaset("other", 0, labels={"app": "other"}))
    created = cluster.client.create(pod("a", owner=ref_to(web)))
    cluster.settle()
    uid = created["metadata"]["uid"]
    before = gc._nodes[uid]
    current = cluster.client.get("pods", "default", "a")
    change(current, other)
    cluster.client.update(current)
    cluster.settle()
    after = gc._nodes[uid]
    assert (after is not before) == rebuilt
    # Either way the graph holds what is stored now.
    assert after == Node.of("pods", cluster.client.get("pods", "default", "a"))
    assert sorted(gc._dependents.get(other["metadata"]["uid"], set())) == (
        [uid] if change is _second_owner else [])
