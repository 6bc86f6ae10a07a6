"""Job controller: reconcile(key) against a real store and synced caches,
asserting the API writes it makes (client-go sample-controller style): creating
pods, counting and success, indexed jobs, ownership and status writes, plus one
behaviour test with running workers. Failure handling and suspension are in
test_job_policies.py.

The kubelet is simulated by writing pod status through the ``status``
subresource (phase, and container states whose ``finishedAt`` is what the
failure back-off counts from).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from minikube_py.api.errors import Conflict, Forbidden
from minikube_py.controllers.job import (
    COMPLETION_INDEX_ANNOTATION,
    JOB_TRACKING_FINALIZER,
    JobController,
    format_indexes,
    parse_indexes,
)
from tests.waiting import wait_for

from .conftest import Cluster, drain, pod, ref_to
from .job_helpers import (
    IMAGE,
    KEY,
    NS,
    conditions,
    create,
    finalizer_removals,
    get_job,
    job,
    job_pods,
    kubelet,
    start,
    sync,
    ts,
)


def status_writes(cluster: Cluster) -> list[dict[str, Any]]:
    """Job writes, checked to be status-subresource updates; their statuses."""
    writes = cluster.recorder.writes(resource="jobs")
    assert all(w[0] == "update" and w[2] == "status" for w in writes), writes
    return [copy.deepcopy(w[3]["status"]) for w in writes]


# ---------------------------------------------------------------- creating pods


@pytest.mark.parametrize(("completions", "parallelism", "succeeded", "created"), [
    (1, 1, 0, 1),
    (5, 2, 0, 2),      # parallelism caps
    (3, 5, 0, 3),      # remaining completions cap
    (5, 3, 4, 1),      # completions - succeeded
    (4, 0, 0, 0),      # parallelism 0 pauses the job
    (None, 3, 0, 3),   # work queue: parallelism until one succeeds
])
def test_creates_min_of_parallelism_and_remaining_completions(clocked, completions,
                                                             parallelism, succeeded,
                                                             created):
    ctrl = start(clocked)
    made = create(clocked, job(completions=completions, parallelism=parallelism))
    if succeeded:
        # An earlier incarnation of the controller already counted these.
        made["status"] = {"succeeded": succeeded, "startTime": ts(clocked.clock.now)}
        clocked.client.update(made, subresource="status")
    sync(clocked, ctrl)
    creates = clocked.recorder.writes("create", "pods")
    assert len(creates) == created
    assert len(job_pods(clocked)) == created
    assert get_job(clocked)["status"].get("active", 0) == created


def test_pods_are_made_from_the_template_with_owner_finalizer_and_events(clocked):
    ctrl = start(clocked)
    made = create(clocked, job(completions=2, parallelism=2))
    uid = made["metadata"]["uid"]
    sync(clocked, ctrl)
    creates = clocked.recorder.writes("create", "pods")
    assert len(creates) == 2
    for _, _, _, obj in creates:
        meta = obj["metadata"]
        assert meta["generateName"] == "pi-" and "name" not in meta
        assert meta["ownerReferences"] == [{
            "apiVersion": "batch/v1", "kind": "Job", "name": "pi", "uid": uid,
            "controller": True, "blockOwnerDeletion": True}]
        assert meta["finalizers"] == [JOB_TRACKING_FINALIZER]
        # The generated selector's labels come from the template.
        assert meta["labels"] == {"batch.kubernetes.io/controller-uid": uid,
                                  "batch.kubernetes.io/job-name": "pi",
                                  "controller-uid": uid, "job-name": "pi"}
        assert obj["spec"]["containers"][0]["image"] == IMAGE
        assert obj["spec"]["restartPolicy"] == "Never"
    names = [p["metadata"]["name"] for p in job_pods(clocked)]
    assert all(n.startswith("pi-") and len(n) == len("pi-") + 5 for n in names)
    assert sorted(e["message"] for e in clocked.events("SuccessfulCreate")) == \
        sorted(f"Created pod: {n}" for n in names)
    assert {e["involvedObject"]["kind"] for e in clocked.events("SuccessfulCreate")} == {"Job"}
    status = get_job(clocked)["status"]
    assert status == {"startTime": ts(clocked.clock.now), "active": 2, "ready": 0,
                      "terminating": 0, "uncountedTerminatedPods": {}}


def test_never_double_creates_while_the_cache_lags(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=3, parallelism=2))
    clocked.informers.get("pods").stop()  # the cache will never see the new pods
    ctrl.reconcile(KEY)
    assert len(clocked.recorder.writes("create", "pods")) == 2
    for _ in range(3):
        clocked.settle(only=["jobs"])
        ctrl.reconcile(KEY)
    assert len(clocked.recorder.writes("create", "pods")) == 2
    # Expectations expire after five minutes, so a lost watch event cannot
    # wedge the job: it then trusts its (empty) cache again.
    clocked.clock.advance(301)
    clocked.settle(only=["jobs"])
    ctrl.reconcile(KEY)
    assert len(clocked.recorder.writes("create", "pods")) == 4


def test_a_failed_create_stops_the_slow_start_and_is_reported(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=6, parallelism=6))
    attempts: list[int] = []

    def quota(action: tuple[Any, ...]) -> Exception | None:
        if action[1] != "pods":
            return None
        attempts.append(1)
        return Forbidden("exceeded quota: pods") if len(attempts) == 2 else None

    clocked.recorder.fail["create"] = quota
    with pytest.raises(Forbidden):
        sync(clocked, ctrl)
    # Batches of 1 and 2: the second batch's first create fails, its sibling
    # still runs, and the batch of 3 that would follow is never attempted.
    assert len(attempts) == 3
    assert len(job_pods(clocked)) == 2
    [failed] = clocked.events("FailedCreate")
    assert (failed["type"], failed["message"]) == ("Warning",
                                                   "Error creating: exceeded quota: pods")
    # Only the pods that exist were expected: the next sync creates the rest.
    clocked.recorder.fail.clear()
    sync(clocked, ctrl)
    assert len(job_pods(clocked)) == 6


# ---------------------------------------------------------------- counting


def test_succeeded_pods_are_counted_through_uncounted_then_finalizer_removed(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=3, parallelism=2))
    sync(clocked, ctrl)
    first, _ = job_pods(clocked)
    kubelet(clocked, first["metadata"]["name"], "Succeeded")
    clocked.recorder.clear()
    sync(clocked, ctrl)
    # 1. the pod's uid is recorded as uncounted (nothing lost if we crash now),
    # 2. its finalizer is removed, 3. it moves to the succeeded counter.
    recorded, counted = status_writes(clocked)
    assert recorded["uncountedTerminatedPods"] == {"succeeded": [first["metadata"]["uid"]]}
    assert "succeeded" not in recorded
    assert finalizer_removals(clocked) == [first["metadata"]["name"]]
    # (The third completion's pod is created before the status is tracked.)
    assert [a[:2] for a in clocked.recorder.actions if a[1] in ("jobs", "pods")] == [
        ("create", "pods"), ("update", "jobs"), ("patch", "pods"), ("update", "jobs")]
    assert counted["uncountedTerminatedPods"] == {}
    assert counted["succeeded"] == 1
    # The third completion gets a pod of its own.
    assert len(clocked.recorder.writes("create", "pods")) == 1
    assert counted["active"] == 2
    stored = clocked.client.get("pods", NS, first["metadata"]["name"])
    assert JOB_TRACKING_FINALIZER not in (stored["metadata"].get("finalizers") or [])
    # A pod already counted is never counted again.
    clocked.recorder.clear()
    sync(clocked, ctrl)
    assert get_job(clocked)["status"]["succeeded"] == 1
    assert finalizer_removals(clocked) == []


def test_a_crash_between_recording_and_counting_loses_nothing(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=2, parallelism=2))
    sync(clocked, ctrl)
    first, _ = job_pods(clocked)
    kubelet(clocked, first["metadata"]["name"], "Succeeded")
    # The finalizer patch fails as a crash would leave it: recorded, not counted.
    clocked.recorder.fail["patch"] = lambda a: Conflict("the object has been modified")
    with pytest.raises(Conflict):
        sync(clocked, ctrl)
    status = get_job(clocked)["status"]
    assert status["uncountedTerminatedPods"] == {"succeeded": [first["metadata"]["uid"]]}
    assert "succeeded" not in status
    # A fresh controller (no memory) finishes the job from the store alone.
    clocked.recorder.fail.clear()
    fresh = JobController(clocked.recorder, clocked.informers, clock=clocked.clock)
    sync(clocked, fresh)
    status = get_job(clocked)["status"]
    assert status["succeeded"] == 1 and status["uncountedTerminatedPods"] == {}


# ---------------------------------------------------------------- success


def test_complete_condition_completion_time_and_one_event(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=2, parallelism=2))
    started = clocked.clock.now
    sync(clocked, ctrl)
    clocked.clock.advance(42)
    for p in job_pods(clocked):
        kubelet(clocked, p["metadata"]["name"], "Succeeded")
    clocked.recorder.clear()
    assert sync(clocked, ctrl) is None
    # SuccessCriteriaMet is written before the finalizers go, Complete after.
    first, last = status_writes(clocked)
    assert [c["type"] for c in first["conditions"]] == ["SuccessCriteriaMet"]
    assert "completionTime" not in first
    status = get_job(clocked)["status"]
    reason = ("CompletionsReached", "Reached expected number of succeeded pods")
    assert conditions(clocked) == [("SuccessCriteriaMet", "True", *reason),
                                   ("Complete", "True", *reason)]
    assert status["completionTime"] == ts(started + 42)
    assert status["startTime"] == ts(started)
    assert status["succeeded"] == 2 and "active" not in status
    assert status["uncountedTerminatedPods"] == {} and status["terminating"] == 0
    assert last == status
    [done] = clocked.events("Completed")
    assert (done["type"], done["message"]) == ("Normal", "Job completed")
    # A finished job is left alone: no writes, no second event.
    clocked.recorder.clear()
    for _ in range(2):
        sync(clocked, ctrl)
    assert clocked.recorder.actions == []
    assert len(clocked.events("Completed")) == 1


def test_work_queue_job_completes_when_one_succeeds_and_the_rest_finish(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=None, parallelism=2))
    sync(clocked, ctrl)
    winner, other = (p["metadata"]["name"] for p in job_pods(clocked))
    kubelet(clocked, winner, "Succeeded")
    sync(clocked, ctrl)
    # After a success nothing new starts, and the job waits for the other pod.
    assert len(clocked.recorder.writes("create", "pods")) == 2
    assert not any(c[0] == "Complete" for c in conditions(clocked))
    kubelet(clocked, other, "Succeeded")
    sync(clocked, ctrl)
    assert ("Complete", "True") in [c[:2] for c in conditions(clocked)]
    assert get_job(clocked)["status"]["succeeded"] == 2


# ---------------------------------------------------------------- indexed


def test_indexed_job(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=3, parallelism=2, mode="Indexed"))
    sync(clocked, ctrl)
    creates = [a[3] for a in clocked.recorder.writes("create", "pods")]
    assert [c["metadata"]["generateName"] for c in creates] == ["pi-0-", "pi-1-"]
    for index, obj in enumerate(creates):
        meta = obj["metadata"]
        assert meta["annotations"] == {COMPLETION_INDEX_ANNOTATION: str(index)}
        assert meta["labels"][COMPLETION_INDEX_ANNOTATION] == str(index)
        assert obj["spec"]["hostname"] == f"pi-{index}"
        assert obj["spec"]["containers"][0]["env"] == [{
            "name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                "fieldPath": f"metadata.annotations['{COMPLETION_INDEX_ANNOTATION}']"}}}]

    def by_index() -> dict[int, str]:
        return {int(p["metadata"]["annotations"][COMPLETION_INDEX_ANNOTATION]):
                p["metadata"]["name"] for p in job_pods(clocked)
                if p["status"]["phase"] == "Pending"}

    kubelet(clocked, by_index()[1], "Succeeded")
    clocked.recorder.clear()
    sync(clocked, ctrl)
    status = get_job(clocked)["status"]
    assert (status["completedIndexes"], status["succeeded"]) == ("1", 1)
    # Indexes are counted by index, not by uid: nothing goes to uncounted.
    assert all(not s["uncountedTerminatedPods"] for s in status_writes(clocked))
    [(_, _, _, third)] = clocked.recorder.writes("create", "pods")
    assert third["metadata"]["generateName"] == "pi-2-"  # the lowest free index

    pending = by_index()
    kubelet(clocked, pending[0], "Succeeded")
    kubelet(clocked, pending[2], "Succeeded")
    sync(clocked, ctrl)
    status = get_job(clocked)["status"]
    assert (status["completedIndexes"], status["succeeded"]) == ("0-2", 3)
    assert ("Complete", "True") in [c[:2] for c in conditions(clocked)]


def test_indexed_generate_name_keeps_the_index_of_a_long_job_name(clocked):
    ctrl = start(clocked)
    name = "a" * 60  # "<name>-0" is still a valid hostname
    create(clocked, job(name, mode="Indexed"))
    sync(clocked, ctrl, f"{NS}/{name}")
    [(_, _, _, made)] = clocked.recorder.writes("create", "pods")
    assert made["metadata"]["generateName"] == "a" * 55 + "-0-"
    assert made["spec"]["hostname"] == name + "-0"
    assert len(job_pods(clocked, name)) == 1


@pytest.mark.parametrize(("indexes", "text"), [
    ([], ""),
    ([3], "3"),
    ([2, 0, 1], "0-2"),
    ([0, 2, 3, 4, 7, 7], "0,2-4,7"),
])
def test_format_indexes(indexes, text):
    assert format_indexes(indexes) == text


@pytest.mark.parametrize(("text", "completions", "indexes"), [
    ("", 3, set()),
    ("0,2-4,7", 10, {0, 2, 3, 4, 7}),
    ("0,2-4,7", 4, {0, 2, 3}),  # beyond completions: dropped (elastic scale-down)
    ("1,x,3-", 5, {1}),         # malformed parts are skipped
])
def test_parse_indexes(text, completions, indexes):
    assert parse_indexes(text, completions) == indexes


# ---------------------------------------------------------------- ownership


def test_adopts_matching_orphans_and_releases_pods_it_stops_selecting(clocked):
    ctrl = start(clocked)
    labels = {"app": "pi"}
    made = create(clocked, job(completions=3, parallelism=2, manual_labels=labels))
    clocked.client.create(pod("loose", labels=labels))
    clocked.client.create(pod("stranger", labels={"app": "db"}))
    clocked.recorder.clear()
    sync(clocked, ctrl)
    adoptions = [a for a in clocked.recorder.writes("patch", "pods") if a[3] == "loose"]
    assert [a[4] for a in adoptions] == ["strategic"]
    loose = clocked.client.get("pods", NS, "loose")
    assert adoptions[0][5]["metadata"]["uid"] == loose["metadata"]["uid"]  # pinned
    assert loose["metadata"]["ownerReferences"] == [ref_to(made)]
    assert loose["metadata"]["finalizers"] == [JOB_TRACKING_FINALIZER]
    # The adopted pod counts: one more is needed, not two.
    assert len(clocked.recorder.writes("create", "pods")) == 1
    assert "ownerReferences" not in clocked.client.get("pods", NS, "stranger")["metadata"]

    clocked.client.patch("pods", NS, "loose", "merge",
                         {"metadata": {"labels": {"app": "debug"}}})
    clocked.recorder.clear()
    sync(clocked, ctrl)
    [release] = [a for a in clocked.recorder.writes("patch", "pods") if a[3] == "loose"]
    assert release[5]["metadata"]["ownerReferences"] == [
        {"$patch": "delete", "uid": made["metadata"]["uid"]}]
    loose = clocked.client.get("pods", NS, "loose")
    assert not loose["metadata"].get("ownerReferences")
    assert not loose["metadata"].get("finalizers")
    assert len(clocked.recorder.writes("create", "pods")) == 1  # its replacement


def test_a_job_being_deleted_neither_adopts_releases_nor_creates(clocked):
    ctrl = start(clocked)
    labels = {"app": "pi"}
    held = job(completions=3, parallelism=1, manual_labels=labels)
    held["metadata"]["finalizers"] = ["example.com/hold"]
    create(clocked, held)
    sync(clocked, ctrl)
    [mine] = job_pods(clocked)
    name = mine["metadata"]["name"]
    clocked.client.patch("pods", NS, name, "merge", {"metadata": {"labels": {"app": "x"}}})
    clocked.client.create(pod("loose", labels=labels))
    clocked.client.delete("jobs", NS, "pi")
    clocked.recorder.clear()
    sync(clocked, ctrl)
    owner_patches = [a for a in clocked.recorder.writes("patch", "pods")
                     if "ownerReferences" in a[5]["metadata"]]
    assert owner_patches == []
    assert clocked.recorder.writes("create", "pods") == []
    assert clocked.client.get("pods", NS, name)["metadata"]["ownerReferences"][0]["name"] == "pi"
    assert "ownerReferences" not in clocked.client.get("pods", NS, "loose")["metadata"]


def test_pods_of_a_deleted_job_lose_the_tracking_finalizer(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=2, parallelism=2))
    sync(clocked, ctrl)
    names = sorted(p["metadata"]["name"] for p in job_pods(clocked))
    # No garbage collector runs here: the pods outlive their job.
    clocked.client.delete("jobs", NS, "pi")
    clocked.settle()
    keys = drain(ctrl)
    assert sorted(k for k in keys if k.startswith("pod:")) == [f"pod:{NS}/{n}" for n in names]
    clocked.recorder.clear()
    for key in keys:
        ctrl.reconcile(key)
    assert sorted(finalizer_removals(clocked)) == names
    for name in names:
        assert not clocked.client.get("pods", NS, name)["metadata"].get("finalizers")


def test_pods_map_to_their_job(clocked):
    ctrl = start(clocked)
    made = create(clocked, job(completions=1, parallelism=0))
    drain(ctrl)
    clocked.client.create(pod("owned", owner=ref_to(made), labels={"x": "y"}))
    clocked.settle()
    assert drain(ctrl) == [KEY]
    # A reference to a job with another uid resolves to nothing.
    clocked.client.create(pod("stale", owner={**ref_to(made), "uid": "gone"}))
    clocked.settle()
    assert drain(ctrl) == []


# ---------------------------------------------------------------- status writes


def test_status_goes_through_the_subresource_with_compare_and_swap(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=2, parallelism=1))
    sync(clocked, ctrl)
    cached = ctrl.jobs.get(KEY)
    assert cached is not None
    [(_, _, subresource, written)] = clocked.recorder.writes("update", "jobs")
    assert subresource == "status"
    assert written["metadata"]["resourceVersion"] == cached["metadata"]["resourceVersion"]
    # Someone else writes status after our cache was filled: our view is stale.
    clocked.settle()
    clocked.informers.get("jobs").stop()
    fresh = get_job(clocked)
    fresh["status"]["succeeded"] = 1
    clocked.client.update(fresh, subresource="status")
    [only] = job_pods(clocked)
    kubelet(clocked, only["metadata"]["name"], "Succeeded")
    clocked.settle(only=["pods"])
    with pytest.raises(Conflict):
        ctrl.reconcile(KEY)
    # The newer status survives; nothing was overwritten with stale counts.
    assert get_job(clocked)["status"]["succeeded"] == 1
    assert get_job(clocked)["status"].get("uncountedTerminatedPods") == {}


def test_a_job_cache_behind_our_own_status_write_is_not_synced(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=2, parallelism=2))
    sync(clocked, ctrl)
    done, _ = (p["metadata"]["name"] for p in job_pods(clocked))
    kubelet(clocked, done, "Succeeded")
    clocked.settle()
    clocked.informers.get("jobs").stop()  # the job cache keeps the old status
    ctrl.reconcile(KEY)
    assert get_job(clocked)["status"]["succeeded"] == 1
    clocked.settle(only=["pods"])  # ...while the pod cache shows the finalizer gone
    clocked.recorder.clear()
    # Synced, that view would count no success and start a third pod.
    assert ctrl.reconcile(KEY) == pytest.approx(1.0)
    assert clocked.recorder.actions == []
    assert len(job_pods(clocked)) == 2


def test_a_job_managed_by_another_controller_is_left_alone(clocked):
    ctrl = start(clocked)
    managed = job()
    managed["spec"]["managedBy"] = "example.com/queue"
    create(clocked, managed)
    clocked.recorder.clear()
    sync(clocked, ctrl)
    assert clocked.recorder.actions == []


# ---------------------------------------------------------------- with threads


def test_behaviour_runs_a_job_to_completion_with_running_workers(cluster):
    ctrl = JobController(cluster.client, cluster.informers)
    cluster.controllers.append(ctrl)
    cluster.start(("pods", "jobs"))
    ctrl.start()
    cluster.client.create(job(completions=3, parallelism=2))

    def finish_pending() -> bool:
        for p in job_pods(cluster):
            if p["status"]["phase"] == "Pending" and not p["metadata"].get(
                    "deletionTimestamp"):
                kubelet(cluster, p["metadata"]["name"], "Succeeded")
        return any(c[:2] == ("Complete", "True") for c in conditions(cluster))

    wait_for(finish_pending, "job complete")
    status = get_job(cluster)["status"]
    assert status["succeeded"] == 3 and status["uncountedTerminatedPods"] == {}
    assert len(job_pods(cluster)) == 3
    assert len(cluster.events("SuccessfulCreate")) == 3
    assert len(cluster.events("Completed")) == 1
    wait_for(lambda: all(not p["metadata"].get("finalizers") for p in job_pods(cluster)),
             "finalizers removed")
