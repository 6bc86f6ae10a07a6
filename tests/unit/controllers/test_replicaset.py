"""ReplicaSet controller: reconcile(key) against a real store and synced caches,
asserting the API writes it makes (client-go sample-controller style)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

import pytest

from minikube_py.api.errors import Forbidden
from minikube_py.client.expectations import ControllerExpectations
from minikube_py.controllers.replicaset import (
    ReplicaSetController,
    rank_for_deletion,
    slow_start_batch,
)
from tests.clock import FakeClock
from tests.waiting import wait_for

from .conftest import Cluster, drain, pod, ref_to, replicaset

KEY = "default/web"


def ts(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def start(cluster: Cluster, **kw: Any) -> ReplicaSetController:
    kw.setdefault("clock", cluster.clock or __import__("time").time)
    ctrl = ReplicaSetController(cluster.recorder, cluster.informers, **kw)
    cluster.start()
    drain(ctrl)
    return ctrl


def owned_pods(cluster: Cluster, rs_name: str = "web") -> list[dict[str, Any]]:
    return [p for p in cluster.client.list("pods", namespace="default").items
            if any(r.get("name") == rs_name and r.get("controller")
                   for r in p["metadata"].get("ownerReferences") or [])]


def set_status(cluster: Cluster, name: str, status: dict[str, Any]) -> None:
    cluster.client.patch("pods", "default", name, "strategic", {"status": status},
                         subresource="status")


def ready(since: float, phase: str = "Running") -> dict[str, Any]:
    return {"phase": phase, "conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": ts(since)}]}


# ---------------------------------------------------------------- scaling up


def test_creates_exactly_the_missing_pods_with_owner_refs(cluster):
    ctrl = start(cluster)
    rs = cluster.client.create(replicaset("web", 3, labels={"app": "web", "tier": "fe"},
                                          selector={"app": "web"}))
    cluster.settle()
    assert ctrl.reconcile(KEY) is None
    creates = cluster.recorder.writes("create", "pods")
    assert len(creates) == 3
    for _, _, namespace, obj in creates:
        assert namespace == "default"
        meta = obj["metadata"]
        assert meta["generateName"] == "web-" and "name" not in meta
        assert meta["labels"] == {"app": "web", "tier": "fe"}
        assert meta["ownerReferences"] == [{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
            "uid": rs["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
        assert obj["spec"]["containers"][0]["image"] == "busybox:1.36"
    names = cluster.names("pods")
    assert len(names) == 3 and all(n.startswith("web-") for n in names)
    assert sorted(e["message"] for e in cluster.events("SuccessfulCreate")) == \
        sorted(f"Created pod: {n}" for n in names)
    # Once the cache shows them, nothing more is created and status counts them.
    cluster.settle()
    assert ctrl.expectations.satisfied(KEY)
    cluster.recorder.clear()
    ctrl.reconcile(KEY)
    assert cluster.recorder.writes("create", "pods") == []
    assert cluster.client.get("replicasets", "default", "web")["status"] == {
        "replicas": 3, "fullyLabeledReplicas": 3, "observedGeneration": 1}


def test_never_double_creates_while_the_cache_catches_up(cluster):
    clock = FakeClock(0.0)
    ctrl = start(cluster, expectations=ControllerExpectations(clock=clock))
    cluster.client.create(replicaset("web", 2))
    cluster.settle()
    cluster.informers.get("pods").stop()  # the cache will never see the new pods
    ctrl.reconcile(KEY)
    assert len(cluster.recorder.writes("create", "pods")) == 2
    assert ctrl.expectations.get(KEY) == (2, frozenset())
    for _ in range(3):
        cluster.settle(only=["replicasets"])
        ctrl.reconcile(KEY)
    assert len(cluster.recorder.writes("create", "pods")) == 2
    # Expectations expire after five minutes (a dropped watch event must not
    # wedge the controller): it then trusts its cache again.
    clock.advance(301)
    cluster.settle(only=["replicasets"])
    ctrl.reconcile(KEY)
    assert len(cluster.recorder.writes("create", "pods")) == 4


def test_slow_start_stops_after_the_first_failing_batch(cluster):
    ctrl = start(cluster)
    cluster.client.create(replicaset("web", 10))
    cluster.settle()
    attempt = itertools.count()
    cluster.recorder.fail["create"] = lambda a: (
        Forbidden("exceeded quota: pods") if a[1] == "pods" and next(attempt) == 3 else None)
    with pytest.raises(Forbidden):
        ctrl.reconcile(KEY)
    # batches 1, 2, 4: the 4th create fails, the rest of its batch runs, then stop
    assert len(cluster.recorder.writes("create", "pods")) == 7
    assert len(cluster.names("pods")) == 6
    # Only the 6 made are expected: once the cache has them, the RS is free again.
    cluster.settle()
    assert ctrl.expectations.get(KEY) == (0, frozenset())
    [failed] = cluster.events("FailedCreate")
    assert failed["type"] == "Warning" and failed["message"] == \
        "Error creating: exceeded quota: pods"
    status = cluster.client.get("replicasets", "default", "web")["status"]
    [cond] = status["conditions"]
    assert (cond["type"], cond["status"], cond["reason"]) == \
        ("ReplicaFailure", "True", "FailedCreate")
    assert cond["message"] == "exceeded quota: pods"
    # Next round: the rest is created and the condition goes away.
    cluster.recorder.fail.clear()
    ctrl.reconcile(KEY)
    assert len(cluster.names("pods")) == 10
    cluster.settle()
    ctrl.reconcile(KEY)
    assert "conditions" not in cluster.client.get("replicasets", "default", "web")["status"]


@pytest.mark.parametrize(("count", "fail_at", "calls", "made"), [
    (10, None, 10, 10),   # 1 + 2 + 4 + 3
    (10, 0, 1, 0),
    (10, 1, 3, 2),
    (10, 2, 3, 2),
    (10, 3, 7, 6),
    (10, 7, 10, 9),
    (0, None, 0, 0),
])
def test_slow_start_batch(count, fail_at, calls, made):
    seen = []

    def fn() -> bool:
        seen.append(len(seen))
        if seen[-1] == fail_at:
            raise RuntimeError("boom")
        return True

    got, error = slow_start_batch(count, 1, fn)
    assert (len(seen), got) == (calls, made)
    assert (error is None) == (fail_at is None)


# ---------------------------------------------------------------- deletion ranking

NOW = 1_700_000_000.0


def mk(name: str, *, node: str | None = "n1", phase: str = "Running",
       ready_since: float | None = None, restarts: int = 0, sidecar_restarts: int = 0,
       created: float | None = NOW - 1000, cost: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "uid": name}
    if created is not None:
        meta["creationTimestamp"] = ts(created)
    if cost is not None:
        meta["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": cost}
    status: dict[str, Any] = {"phase": phase,
                              "containerStatuses": [{"name": "c", "restartCount": restarts}],
                              "initContainerStatuses": [{"name": "side",
                                                         "restartCount": sidecar_restarts}]}
    if ready_since is not None:
        status["conditions"] = [{"type": "Ready", "status": "True",
                                 "lastTransitionTime": ts(ready_since)}]
    spec: dict[str, Any] = {"initContainers": [{"name": "side", "restartPolicy": "Always"}]}
    if node:
        spec["nodeName"] = node
    return {"metadata": meta, "spec": spec, "status": status}


RANKING = [
    # (case, deleted first, deleted later, related pods, logarithmic)
    ("unscheduled before scheduled", mk("a", node=None, phase="Pending"),
     mk("b", phase="Pending"), [], False),
    ("pending before running", mk("a", phase="Pending"), mk("b"), [], False),
    ("pending before unknown", mk("a", phase="Pending"), mk("b", phase="Unknown"), [], False),
    ("unknown before running", mk("a", phase="Unknown"), mk("b"), [], False),
    ("not ready before ready", mk("a"), mk("b", ready_since=NOW - 50), [], False),
    ("lower deletion cost first", mk("a", ready_since=NOW - 50, cost="1"),
     mk("b", ready_since=NOW - 50, cost="5"), [], False),
    ("an invalid deletion cost is 0", mk("a", cost="lots"), mk("b", cost="1"), [], False),
    ("doubled up on a node first", mk("a", node="n1", ready_since=NOW - 50),
     mk("b", node="n2", ready_since=NOW - 50),
     [mk("x", node="n1"), mk("y", node="n1"), mk("z", node="n2")], False),
    ("ready more recently first", mk("a", ready_since=NOW - 10),
     mk("b", ready_since=NOW - 500), [], False),
    ("more restarts first", mk("a", restarts=3), mk("b", restarts=1), [], False),
    ("sidecar restarts break restart ties", mk("a", sidecar_restarts=2), mk("b"), [], False),
    ("newer first", mk("a", created=NOW - 10), mk("b", created=NOW - 20), [], False),
    ("unknown creation time first", mk("a", created=None), mk("b"), [], False),
    ("logarithmic: a power of two younger first", mk("a", created=NOW - 10),
     mk("b", created=NOW - 100), [], True),
    ("logarithmic: same power of two by uid", mk("a", created=NOW - 100),
     mk("b", created=NOW - 70), [], True),
    ("logarithmic ready times: by uid within a bucket", mk("a", ready_since=NOW - 100),
     mk("b", ready_since=NOW - 70), [], True),
]


@pytest.mark.parametrize(("first", "later", "related", "log"),
                         [c[1:] for c in RANKING], ids=[c[0] for c in RANKING])
def test_deletion_ranking(first, later, related, log):
    for order in ([first, later], [later, first]):
        ranked = rank_for_deletion(order, related, now=NOW, logarithmic=log)
        assert [p["metadata"]["name"] for p in ranked] == ["a", "b"]


def test_linear_ranking_prefers_the_newer_where_logarithmic_uses_uid():
    older, newer = mk("a", created=NOW - 100), mk("b", created=NOW - 70)
    assert rank_for_deletion([older, newer], now=NOW, logarithmic=False)[0] is newer
    assert rank_for_deletion([older, newer], now=NOW, logarithmic=True)[0] is older


def test_scale_down_deletes_the_pods_kubernetes_would(clocked):
    ctrl = start(clocked)
    clocked.client.create(replicaset("web", 3))
    clocked.settle()
    ctrl.reconcile(KEY)
    clocked.settle()
    running_ready, running, unscheduled = sorted(p["metadata"]["name"]
                                                 for p in owned_pods(clocked))
    for name in (running_ready, running):
        clocked.client.bind("default", name, "n1")
    set_status(clocked, running_ready, ready(clocked.clock.now - 100))
    set_status(clocked, running, {"phase": "Running"})
    clocked.client.patch("replicasets", "default", "web", "merge", {"spec": {"replicas": 1}})
    clocked.settle()
    clocked.recorder.clear()
    ctrl.reconcile(KEY)
    deleted = [a[3] for a in clocked.recorder.writes("delete", "pods")]
    assert deleted == [unscheduled, running]
    assert sorted(e["message"] for e in clocked.events("SuccessfulDelete")) == \
        sorted(f"Deleted pod: {n}" for n in deleted)
    # The unscheduled pod went at once; the bound one terminates gracefully:
    # both count as observed deletions once the cache shows them.
    clocked.settle()
    assert ctrl.expectations.satisfied(KEY)
    clocked.recorder.clear()
    ctrl.reconcile(KEY)
    assert clocked.recorder.writes("delete", "pods") == []
    assert clocked.client.get("replicasets", "default", "web")["status"]["replicas"] == 1


# ---------------------------------------------------------------- adoption and release


def test_adopts_matching_orphans_only(cluster):
    ctrl = start(cluster)
    other = cluster.client.create(replicaset("other", 0, labels={"app": "other"}))
    cluster.client.create(pod("loose"))
    cluster.client.create(pod("taken", owner=ref_to(other)))
    cluster.client.create(pod("stranger", labels={"app": "db"}))
    rs = cluster.client.create(replicaset("web", 2))
    cluster.settle()
    ctrl.reconcile(KEY)
    patches = cluster.recorder.writes("patch", "pods")
    assert [(p[3], p[4]) for p in patches] == [("loose", "strategic")]
    loose = cluster.client.get("pods", "default", "loose")
    assert loose["metadata"]["ownerReferences"] == [{
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
        "uid": rs["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
    assert patches[0][5]["metadata"]["uid"] == loose["metadata"]["uid"]  # pinned to the pod
    # "taken" belongs to another controller although it matches: one pod is missing.
    assert len(cluster.recorder.writes("create", "pods")) == 1
    assert cluster.client.get("pods", "default", "taken")["metadata"]["ownerReferences"][0][
        "name"] == "other"
    assert "ownerReferences" not in cluster.client.get("pods", "default", "stranger")["metadata"]


def test_releases_owned_pods_that_stop_matching(cluster):
    ctrl = start(cluster)
    cluster.client.create(replicaset("web", 1))
    cluster.settle()
    ctrl.reconcile(KEY)
    cluster.settle()
    [mine] = owned_pods(cluster)
    name = mine["metadata"]["name"]
    cluster.client.patch("pods", "default", name, "merge",
                         {"metadata": {"labels": {"app": "debug"}}})
    cluster.settle()
    cluster.recorder.clear()
    ctrl.reconcile(KEY)
    [release] = cluster.recorder.writes("patch", "pods")
    assert release[3] == name
    assert release[5]["metadata"]["ownerReferences"] == [
        {"$patch": "delete", "uid": cluster.client.get("replicasets", "default", "web")[
            "metadata"]["uid"]}]
    assert not cluster.client.get("pods", "default", name)["metadata"].get("ownerReferences")
    assert len(cluster.recorder.writes("create", "pods")) == 1  # its replacement


def test_a_replicaset_being_deleted_neither_adopts_nor_creates(cluster):
    ctrl = start(cluster)
    cluster.client.create(replicaset("web", 2, finalizers=["example.com/hold"]))
    cluster.client.create(pod("loose"))
    cluster.client.delete("replicasets", "default", "web")
    cluster.settle()
    ctrl.reconcile(KEY)
    assert cluster.recorder.writes("patch", "pods") == []
    assert cluster.recorder.writes("create", "pods") == []


# ---------------------------------------------------------------- status


def test_status_counts_and_requeue_for_availability(clocked):
    ctrl = start(clocked)
    clocked.client.create(replicaset("web", 3, labels={"app": "web", "tier": "fe"},
                                     selector={"app": "web"}, min_ready=10))
    clocked.settle()
    ctrl.reconcile(KEY)
    clocked.settle()
    a, b, c = sorted(p["metadata"]["name"] for p in owned_pods(clocked))
    now = clocked.clock.now
    clocked.client.patch("pods", "default", a, "merge",
                         {"metadata": {"labels": {"tier": None}}})
    set_status(clocked, a, ready(now - 60))   # available
    set_status(clocked, b, ready(now - 4))    # ready, available in 6 s
    set_status(clocked, c, {"phase": "Running"})
    clocked.settle()
    clocked.recorder.clear()
    again = ctrl.reconcile(KEY)
    assert again == pytest.approx(6.01)
    assert clocked.client.get("replicasets", "default", "web")["status"] == {
        "replicas": 3, "fullyLabeledReplicas": 2, "readyReplicas": 2,
        "availableReplicas": 1, "observedGeneration": 1}
    [update] = clocked.recorder.writes("update", "replicasets")
    assert update[2] == "status"
    # Nothing changed: no write.
    clocked.settle()
    clocked.recorder.clear()
    ctrl.reconcile(KEY)
    assert clocked.recorder.writes("update") == []
    # Time passes: b becomes available.
    clocked.clock.advance(6.01)
    assert ctrl.reconcile(KEY) is None
    assert clocked.client.get("replicasets", "default", "web")["status"][
        "availableReplicas"] == 2
    # A spec change is observed through observedGeneration.
    clocked.client.patch("replicasets", "default", "web", "merge",
                         {"spec": {"minReadySeconds": 0}})
    clocked.settle()
    ctrl.reconcile(KEY)
    status = clocked.client.get("replicasets", "default", "web")["status"]
    assert status["observedGeneration"] == 2 and status["availableReplicas"] == 2


# ---------------------------------------------------------------- keys


def test_pods_map_to_their_owner_or_to_every_matching_replicaset(cluster):
    ctrl = start(cluster)
    web = cluster.client.create(replicaset("web", 0))
    cluster.client.create(replicaset("web2", 0))
    cluster.client.create(replicaset("db", 0, labels={"app": "db"}))
    cluster.settle()
    drain(ctrl)
    cluster.client.create(pod("owned", owner=ref_to(web)))
    cluster.settle()
    assert drain(ctrl) == ["default/web"]
    cluster.client.create(pod("orphan"))
    cluster.settle()
    assert sorted(drain(ctrl)) == ["default/web", "default/web2"]
    # An owner reference to a ReplicaSet with another UID resolves to nothing.
    cluster.client.create(pod("stale", owner={**ref_to(web), "uid": "gone"}))
    cluster.settle()
    assert drain(ctrl) == []


# ---------------------------------------------------------------- with threads


def test_behaviour_keeps_replicas_with_running_workers(cluster):
    ctrl = ReplicaSetController(cluster.client, cluster.informers)
    cluster.controllers.append(ctrl)
    cluster.start()
    ctrl.start()
    cluster.client.create(replicaset("web", 3))

    def status_replicas() -> int:
        return int(cluster.client.get("replicasets", "default", "web")["status"]["replicas"])

    wait_for(lambda: len(cluster.names("pods")) == 3 and status_replicas() == 3,
             "3 pods")
    victim = cluster.names("pods")[0]
    cluster.client.delete("pods", "default", victim)
    wait_for(lambda: len(cluster.names("pods")) == 3 and victim not in cluster.names("pods"),
             "replacement")
    cluster.client.patch("replicasets", "default", "web", "merge", {"spec": {"replicas": 1}})
    wait_for(lambda: len(cluster.names("pods")) == 1 and status_replicas() == 1,
             "scaled down")
    assert len(cluster.events("SuccessfulCreate")) == 4
    assert len(cluster.events("SuccessfulDelete")) == 2
