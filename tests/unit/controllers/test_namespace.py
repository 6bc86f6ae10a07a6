"""Namespace controller: a namespace being deleted is emptied, finalized and removed."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.controllers.namespace import NamespaceController, deletion_conditions
from tests.waiting import wait_for

from .conftest import Cluster, drain, pod, ref_to, replicaset


def namespace(name: str, finalizers: list[str] | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    if finalizers is not None:
        obj["spec"] = {"finalizers": finalizers}
    return obj


def event(name: str, ns: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": ns},
            "involvedObject": {"kind": "Pod", "name": "x", "namespace": ns},
            "reason": "Test", "message": "m", "type": "Normal"}


def controller(cluster: Cluster, **kw: Any) -> NamespaceController:
    ctrl = NamespaceController(cluster.recorder, cluster.informers, **kw)
    cluster.start(["namespaces", "pods", "replicasets"])
    return ctrl


def fill(cluster: Cluster, ns: str = "team") -> None:
    cluster.client.create(namespace(ns))
    rs = cluster.client.create(replicaset("web", 1, namespace=ns))
    cluster.client.create(pod("a", namespace=ns, owner=ref_to(rs)))
    cluster.client.create(pod("b", namespace=ns))
    cluster.client.create(event("e", ns))


def test_deleting_a_namespace_empties_and_removes_it(cluster):
    ctrl = controller(cluster)
    fill(cluster)
    cluster.client.delete("namespaces", None, "team")
    held = cluster.client.get("namespaces", None, "team")
    assert held["status"]["phase"] == "Terminating"
    cluster.settle()
    assert drain(ctrl) == ["team"]
    assert ctrl.reconcile("team") is None
    assert cluster.get("namespaces", None, "team") is None
    deleted = sorted((d[1], d[3]) for d in cluster.recorder.writes("delete")
                     if d[1] != "namespaces")
    assert deleted == [("events", "e"), ("pods", "a"), ("pods", "b"), ("replicasets", "web")]
    assert all(d[4]["policy"] == "Background" for d in cluster.recorder.writes("delete")
               if d[1] != "namespaces")
    updates = cluster.recorder.writes("update", "namespaces")
    assert [u[2] for u in updates] == ["status", "finalize"]  # conditions, then finalize
    assert updates[-1][3]["spec"]["finalizers"] == []
    conditions = {c["type"]: c["status"] for c in updates[0][3]["status"]["conditions"]}
    assert set(conditions.values()) == {"False"}, conditions


def test_waits_for_pods_terminating_gracefully(cluster):
    ctrl = controller(cluster, requeue_delay=3.0)
    fill(cluster)
    cluster.client.bind("team", "a", "n1")
    cluster.client.delete("namespaces", None, "team")
    cluster.settle()
    assert ctrl.reconcile("team") == 3.0
    assert cluster.client.get("namespaces", None, "team")["status"]["phase"] == "Terminating"
    assert cluster.names("pods", "team") == ["a"]
    assert [u[2] for u in cluster.recorder.writes("update", "namespaces")] == ["status"]
    drain(ctrl)
    # The kubelet finishes the pod: its deletion wakes the namespace at once.
    cluster.client.delete("pods", "team", "a", grace_period_seconds=0)
    cluster.settle()
    assert drain(ctrl) == ["team"]
    assert ctrl.reconcile("team") is None
    assert cluster.get("namespaces", None, "team") is None


def test_finalize_removes_only_our_token(cluster):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team", ["kubernetes", "example.com/audit"]))
    cluster.client.create(pod("a", namespace="team"))
    cluster.client.delete("namespaces", None, "team")
    cluster.settle()
    assert ctrl.reconcile("team") is None
    *_, finalize = cluster.recorder.writes("update", "namespaces")
    assert finalize[2] == "finalize"
    assert finalize[3]["spec"]["finalizers"] == ["example.com/audit"]
    assert cluster.client.get("namespaces", None, "team")["spec"]["finalizers"] == [
        "example.com/audit"]
    assert cluster.recorder.writes("delete", "namespaces") == []  # not finalized yet
    assert cluster.names("pods", "team") == []


def test_other_finalizers_keep_the_namespace(cluster):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team", ["kubernetes", "example.com/audit"]))
    cluster.client.delete("namespaces", None, "team")
    cluster.settle()
    ctrl.reconcile("team")
    left = cluster.client.get("namespaces", None, "team")
    assert left["spec"]["finalizers"] == ["example.com/audit"]


def test_active_namespaces_are_left_alone(cluster):
    ctrl = controller(cluster)
    fill(cluster)
    cluster.settle()
    assert drain(ctrl) == []
    assert ctrl.reconcile("team") is None
    assert cluster.recorder.writes() == []


def test_empty_namespace_already_finalized_is_deleted(cluster):
    ctrl = controller(cluster)
    assert ctrl.reconcile("nothing-here") is None  # NotFound is done


CONDITIONS = [
    ("all clear", {}, {}, [], {
        "NamespaceDeletionDiscoveryFailure": ("False", "ResourcesDiscovered",
                                              "All resources successfully discovered"),
        "NamespaceDeletionGroupVersionParsingFailure": (
            "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"),
        "NamespaceDeletionContentFailure": (
            "False", "ContentDeleted",
            "All content successfully deleted, may be waiting on finalization"),
        "NamespaceContentRemaining": ("False", "ContentRemoved",
                                      "All content successfully removed"),
        "NamespaceFinalizersRemaining": ("False", "ContentHasNoFinalizers",
                                         "All content-preserving finalizers finished"),
    }),
    ("content and finalizers remain", {"pods.": 2, "replicasets.apps": 1},
     {"example.com/x": 1}, [], {
         "NamespaceContentRemaining": (
             "True", "SomeResourcesRemain",
             "Some resources are remaining: pods. has 2 resource instances, "
             "replicasets.apps has 1 resource instances"),
         "NamespaceFinalizersRemaining": (
             "True", "SomeFinalizersRemain",
             "Some content in the namespace has finalizers remaining: example.com/x in 1 "
             "resource instances"),
     }),
    ("deletion failed", {}, {}, [RuntimeError("boom")], {
        "NamespaceDeletionContentFailure": (
            "True", "ContentDeletionFailed",
            "Failed to delete all resource types, 1 remaining: boom"),
    }),
]


@pytest.mark.parametrize(("remaining", "finalizers", "errors", "expected"),
                         [c[1:] for c in CONDITIONS], ids=[c[0] for c in CONDITIONS])
def test_deletion_conditions(remaining, finalizers, errors, expected):
    conds = deletion_conditions(errors=errors, remaining=remaining, finalizers=finalizers,
                                old=[], now=0)
    assert [c["type"] for c in conds] == [
        "NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure",
        "NamespaceDeletionContentFailure", "NamespaceContentRemaining",
        "NamespaceFinalizersRemaining"]
    by_type = {c["type"]: (c["status"], c["reason"], c["message"]) for c in conds}
    for type_, want in expected.items():
        assert by_type[type_] == want


def test_unchanged_conditions_keep_their_transition_time():
    first = deletion_conditions(errors=[], remaining={"pods.": 1}, finalizers={}, old=[], now=0)
    later = deletion_conditions(errors=[], remaining={}, finalizers={}, old=first, now=100)
    times = {c["type"]: c["lastTransitionTime"] for c in later}
    assert times["NamespaceContentRemaining"] == "1970-01-01T00:01:40Z"  # changed
    assert times["NamespaceDeletionDiscoveryFailure"] == "1970-01-01T00:00:00Z"  # kept


def test_conditions_written_while_content_remains(cluster):
    ctrl = controller(cluster, write_conditions=True)
    fill(cluster)
    cluster.client.bind("team", "a", "n1")
    cluster.client.delete("namespaces", None, "team")
    cluster.settle()
    ctrl.reconcile("team")
    ns = cluster.client.get("namespaces", None, "team")
    assert {c["type"] for c in ns["status"]["conditions"]} >= {"NamespaceContentRemaining"}


def test_behaviour_namespace_deletion_with_running_workers(cluster):
    ctrl = NamespaceController(cluster.client, cluster.informers, requeue_delay=30.0)
    cluster.controllers.append(ctrl)
    cluster.start(["namespaces", "pods", "replicasets"])
    ctrl.start()
    fill(cluster)
    cluster.client.bind("team", "a", "n1")
    cluster.client.delete("namespaces", None, "team")

    def terminating() -> bool:
        got = cluster.get("pods", "team", "a")
        return got is not None and bool(got["metadata"].get("deletionTimestamp"))

    wait_for(terminating, "pod a terminating")
    assert cluster.get("namespaces", None, "team") is not None
    assert cluster.names("pods", "team") == ["a"]
    cluster.client.delete("pods", "team", "a", grace_period_seconds=0)  # the kubelet's part
    # Woken by the pod's deletion, well before the 30 s requeue.
    wait_for(lambda: cluster.get("namespaces", None, "team") is None,
             "namespace removed", timeout=10)
