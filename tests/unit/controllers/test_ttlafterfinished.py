"""TTL-after-finished controller: a finished Job with ``ttlSecondsAfterFinished`` is
deleted (foreground cascade) that many seconds after its Complete/Failed condition's
transition time; before that its key is requeued for exactly the time left."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest

from minikube_py.api.errors import Conflict
from minikube_py.client.base import Object
from minikube_py.client.local import LocalClient
from minikube_py.controllers.garbagecollector import GarbageCollector
from minikube_py.controllers.ttlafterfinished import (
    TTLAfterFinishedController,
    expire_at,
    finished_at,
    needs_cleanup,
)
from tests.waiting import wait_for

from .conftest import Cluster, RecordingClient, drain, pod, ref_to

KEY = "default/pi"


def ts(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def job(name: str = "pi", *, ttl: int | None = 100,
        finalizers: list[str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if finalizers:
        meta["finalizers"] = finalizers
    spec: dict[str, Any] = {"template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36"}]}}}
    if ttl is not None:
        spec["ttlSecondsAfterFinished"] = ttl
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


def finished_status(at: float, kind: str = "Complete") -> dict[str, Any]:
    """A status the Job validation accepts for a Job that finished at ``at``."""
    when = ts(at)
    if kind == "Complete":
        return {"startTime": when, "completionTime": when, "succeeded": 1, "conditions": [
            {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": when},
            {"type": "Complete", "status": "True", "lastTransitionTime": when}]}
    return {"startTime": when, "failed": 1, "conditions": [
        {"type": "FailureTarget", "status": "True", "lastTransitionTime": when},
        {"type": "Failed", "status": "True", "lastTransitionTime": when}]}


def finish(cluster: Cluster, name: str, at: float, kind: str = "Complete") -> Object:
    return cluster.client.patch("jobs", "default", name, "merge",
                                {"status": finished_status(at, kind)}, subresource="status")


def start(cluster: Cluster) -> TTLAfterFinishedController:
    assert cluster.clock is not None
    ctrl = TTLAfterFinishedController(cluster.recorder, cluster.informers, clock=cluster.clock)
    cluster.start(["jobs"])
    return ctrl


def deletes(cluster: Cluster) -> list[tuple[str, str | None]]:
    return [(d[3], d[4]["policy"]) for d in cluster.recorder.writes("delete", "jobs")]


# ------------------------------------------------------------------ helpers


FINISH = 1_700_000_000.0

HELPER_CASES: list[tuple[str, dict[str, Any], bool, float | None]] = [
    # (case, job, needs cleanup, expires at)
    ("complete with ttl", {**job(ttl=30), "status": finished_status(FINISH)}, True,
     FINISH + 30),
    ("failed with ttl", {**job(ttl=0), "status": finished_status(FINISH, "Failed")}, True,
     FINISH),
    ("no ttl", {**job(ttl=None), "status": finished_status(FINISH)}, False, None),
    ("running", {**job(ttl=30), "status": {"startTime": ts(FINISH), "active": 1}}, False,
     None),
    ("Complete False is not finished",
     {**job(ttl=30), "status": {"conditions": [
         {"type": "Complete", "status": "False", "lastTransitionTime": ts(FINISH)}]}},
     False, None),
    ("a bool is not a ttl", {**job(ttl=None), "spec": {"ttlSecondsAfterFinished": True},
                             "status": finished_status(FINISH)}, False, None),
]


@pytest.mark.parametrize(("obj", "cleanup", "expires"), [c[1:] for c in HELPER_CASES],
                         ids=[c[0] for c in HELPER_CASES])
def test_needs_cleanup_and_expiry(obj: dict[str, Any], cleanup: bool,
                                  expires: float | None) -> None:
    assert needs_cleanup(obj) is cleanup
    if expires is not None:
        assert finished_at(obj) == FINISH
        assert expire_at(obj) == expires


def test_finished_without_a_transition_time_is_an_error() -> None:
    obj = {**job(), "status": {"conditions": [{"type": "Complete", "status": "True"}]}}
    assert needs_cleanup(obj)
    with pytest.raises(ValueError, match="unable to find the time when the Job "
                                         "default/pi finished"):
        finished_at(obj)


# ------------------------------------------------------------------ reconcile


def test_only_finished_jobs_with_a_ttl_are_queued(clocked: Cluster) -> None:
    ctrl = start(clocked)
    clocked.client.create(job("running"))
    clocked.client.create(job("no-ttl", ttl=None))
    clocked.client.create(job("pi"))
    assert clocked.clock is not None
    finish(clocked, "no-ttl", clocked.clock.now)
    clocked.settle()
    assert drain(ctrl) == []
    finish(clocked, "pi", clocked.clock.now)
    clocked.settle()
    assert drain(ctrl) == [KEY]


@pytest.mark.parametrize("kind", ["Complete", "Failed"])
def test_requeued_for_the_time_left_then_deleted_in_the_foreground(
        clocked: Cluster, kind: str) -> None:
    ctrl = start(clocked)
    assert clocked.clock is not None
    clocked.client.create(job(ttl=100))
    finish(clocked, "pi", clocked.clock.now - 40, kind)  # finished 40 s ago
    clocked.settle()
    assert ctrl.reconcile(KEY) == pytest.approx(60)
    clocked.clock.advance(59.5)
    assert ctrl.reconcile(KEY) == pytest.approx(0.5)
    assert deletes(clocked) == []
    clocked.clock.advance(0.5)
    assert ctrl.reconcile(KEY) is None
    assert deletes(clocked) == [("pi", "Foreground")]
    # Foreground: the Job stays, marked, until the garbage collector has removed its pods.
    stored = clocked.get("jobs", "default", "pi")
    assert stored is not None
    assert stored["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert stored["metadata"].get("deletionTimestamp")


def test_ttl_zero_deletes_at_once(clocked: Cluster) -> None:
    ctrl = start(clocked)
    assert clocked.clock is not None
    clocked.client.create(job(ttl=0))
    finish(clocked, "pi", clocked.clock.now)
    clocked.settle()
    assert ctrl.reconcile(KEY) is None
    assert deletes(clocked) == [("pi", "Foreground")]


def test_finish_time_in_the_future_waits_for_it(clocked: Cluster) -> None:
    """Clock skew: the TTL counts from the recorded finish time, whatever now is."""
    ctrl = start(clocked)
    assert clocked.clock is not None
    clocked.client.create(job(ttl=10))
    finish(clocked, "pi", clocked.clock.now + 20)
    clocked.settle()
    assert ctrl.reconcile(KEY) == pytest.approx(30)
    assert deletes(clocked) == []


def test_jobs_being_deleted_or_gone_are_left_alone(clocked: Cluster) -> None:
    ctrl = start(clocked)
    assert clocked.clock is not None
    clocked.client.create(job(ttl=0, finalizers=["example.com/hold"]))
    finish(clocked, "pi", clocked.clock.now)
    clocked.client.delete("jobs", "default", "pi")
    clocked.settle()
    clocked.recorder.clear()
    assert ctrl.reconcile(KEY) is None
    assert ctrl.reconcile("default/never-was") is None
    assert clocked.recorder.writes() == []


def test_a_ttl_raised_since_the_cache_saw_it_is_honoured(clocked: Cluster) -> None:
    """At expiry the Job is read again from the API, not the cache."""
    ctrl = start(clocked)
    assert clocked.clock is not None
    clocked.client.create(job(ttl=10))
    finish(clocked, "pi", clocked.clock.now)
    clocked.settle()
    clocked.informers.get("jobs").stop()  # a cache that misses the next change
    clocked.client.patch("jobs", "default", "pi", "merge",
                         {"spec": {"ttlSecondsAfterFinished": 1000}})
    clocked.clock.advance(10)
    assert ctrl.reconcile(KEY) == pytest.approx(990)
    assert deletes(clocked) == []


def test_a_job_gone_before_the_final_read_is_done(clocked: Cluster) -> None:
    ctrl = start(clocked)
    assert clocked.clock is not None
    clocked.client.create(job(ttl=0))
    finish(clocked, "pi", clocked.clock.now)
    clocked.settle()
    clocked.informers.get("jobs").stop()
    clocked.client.delete("jobs", "default", "pi")
    assert ctrl.reconcile(KEY) is None
    assert deletes(clocked) == []


class _ChangesAfterGet(RecordingClient):
    """A client through which someone else updates the Job between the controller's
    read and its delete."""

    def __init__(self, inner: LocalClient) -> None:
        super().__init__(inner)
        self.armed = True

    def get(self, resource: str, namespace: str | None, name: str) -> Object:
        obj = self.inner.get(resource, namespace, name)
        if self.armed and resource == "jobs":
            self.armed = False
            self.inner.patch("jobs", namespace, name, "merge",
                             {"metadata": {"labels": {"touched": "yes"}}})
        return obj


def test_a_change_after_the_final_read_wins_and_is_looked_at_again(clocked: Cluster) -> None:
    assert clocked.clock is not None
    client = _ChangesAfterGet(clocked.client)
    ctrl = TTLAfterFinishedController(client, clocked.informers, clock=clocked.clock)
    clocked.start(["jobs"])
    clocked.client.create(job(ttl=0))
    finish(clocked, "pi", clocked.clock.now)
    clocked.settle()
    with pytest.raises(Conflict):  # the worker retries it with back-off
        ctrl.reconcile(KEY)
    stored = clocked.get("jobs", "default", "pi")
    assert stored is not None and not stored["metadata"].get("deletionTimestamp")
    clocked.settle()
    assert ctrl.reconcile(KEY) is None
    stored = clocked.get("jobs", "default", "pi")
    assert stored is not None and stored["metadata"].get("deletionTimestamp")


def test_a_finished_condition_without_time_fails_the_reconcile(clocked: Cluster) -> None:
    """Stored without ``lastTransitionTime`` (another writer's bug): an error, so the
    worker retries with back-off rather than deleting at an unknown time."""
    ctrl = start(clocked)
    clocked.client.create(job(ttl=0))
    status = finished_status(0)
    for cond in status["conditions"]:
        del cond["lastTransitionTime"]
    clocked.client.patch("jobs", "default", "pi", "merge", {"status": status},
                         subresource="status")
    clocked.settle()
    stored = clocked.get("jobs", "default", "pi")
    assert stored is not None
    assert not any("lastTransitionTime" in c for c in stored["status"]["conditions"])
    with pytest.raises(ValueError, match="unable to find the time"):
        ctrl.reconcile(KEY)
    assert deletes(clocked) == []


# ------------------------------------------------------------------ behaviour


def test_behaviour_expired_job_and_its_pods_are_removed_with_running_workers(
        cluster: Cluster) -> None:
    """Real clock, running workers and the garbage collector: the Job waits, marked
    for deletion, while its pod is still terminating (foreground), then goes; the
    requeue at expiry, not a poll, brings the key back."""
    ttl = TTLAfterFinishedController(cluster.client, cluster.informers)
    gc = GarbageCollector(cluster.client, cluster.informers)
    cluster.controllers.extend([ttl, gc])
    cluster.start(sorted({"jobs", *gc.resources}))
    ttl.start()
    gc.start()
    created = cluster.client.create(job(ttl=1))
    # The finalizer holds the pod in Terminating, as a kubelet would while it stops.
    cluster.client.create(pod("pi-abcde", owner=ref_to(created),
                              finalizers=["example.com/hold"]))
    finish(cluster, "pi", time.time())

    def deleting(resource: str, name: str) -> bool:
        obj = cluster.get(resource, "default", name)
        return obj is not None and bool(obj["metadata"].get("deletionTimestamp"))

    wait_for(lambda: deleting("jobs", "pi") and deleting("pods", "pi-abcde"),
             "job expired and its pod being deleted")
    held = cluster.get("jobs", "default", "pi")
    assert held is not None and "foregroundDeletion" in held["metadata"]["finalizers"]
    cluster.client.patch("pods", "default", "pi-abcde", "merge",
                         {"metadata": {"finalizers": None}})
    wait_for(lambda: cluster.get("jobs", "default", "pi") is None
             and cluster.names("pods") == [], "job and its pod removed")
