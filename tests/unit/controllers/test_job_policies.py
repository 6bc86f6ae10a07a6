"""Job controller policies: backoff limit, active deadline, the failure
back-off, evictions, pod replacement policy and suspension; reconcile(key)
against a real store and synced caches, asserting the API writes it makes.

The kubelet is simulated by writing pod status through the ``status``
subresource (phase, and container states whose ``finishedAt`` is what the
failure back-off counts from).
"""

from __future__ import annotations

import pytest

from minikube_py.controllers.job import MAX_POD_FAILURE_BACKOFF, JobController, _Backoff

from .conftest import Cluster
from .job_helpers import (
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

# ---------------------------------------------------------------- failure


FAILURE_CASES = [
    # (case, restartPolicy, backoffLimit, pods as (phase, restarts), job fails)
    ("limit 0: the first failure", "Never", 0, [("Failed", 0)], True),
    ("limit 1: one failure is allowed", "Never", 1, [("Failed", 0), ("Running", 0)], False),
    ("limit 1: two failures", "Never", 1, [("Failed", 0), ("Failed", 0)], True),
    ("OnFailure: restarts below the limit", "OnFailure", 2, [("Running", 1)], False),
    ("OnFailure: restarts reach the limit", "OnFailure", 2, [("Running", 1), ("Pending", 1)],
     True),
    ("OnFailure, limit 0: any restart", "OnFailure", 0, [("Running", 1)], True),
    ("Never: restarts do not count", "Never", 1, [("Running", 5)], False),
]


@pytest.mark.parametrize(("restart", "limit", "pods", "fails"),
                         [c[1:] for c in FAILURE_CASES], ids=[c[0] for c in FAILURE_CASES])
def test_backoff_limit(clocked, restart, limit, pods, fails):
    ctrl = start(clocked)
    create(clocked, job(completions=len(pods) + 1, parallelism=len(pods),
                        backoff_limit=limit, restart=restart))
    sync(clocked, ctrl)
    for made, (phase, restarts) in zip(job_pods(clocked), pods, strict=True):
        kubelet(clocked, made["metadata"]["name"], phase, restarts=restarts)
    sync(clocked, ctrl)
    target = [c for c in conditions(clocked) if c[0] == "FailureTarget"]
    if fails:
        assert target == [("FailureTarget", "True", "BackoffLimitExceeded",
                           "Job has reached the specified backoff limit")]
    else:
        assert target == []


def test_backoff_limit_exceeded_fails_the_job_after_its_pods_are_gone(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=4, parallelism=2, backoff_limit=0))
    sync(clocked, ctrl)
    broken, running = (p["metadata"]["name"] for p in job_pods(clocked))
    clocked.client.bind(NS, running, "n1")  # bound: its deletion is graceful
    kubelet(clocked, running, "Running", ready=True)
    kubelet(clocked, broken, "Failed")
    clocked.recorder.clear()
    sync(clocked, ctrl)
    # The still-running pod is deleted with its finalizer, so it is counted...
    assert [a[3] for a in clocked.recorder.writes("delete", "pods")] == [running]
    assert sorted(finalizer_removals(clocked)) == sorted([broken, running])
    [deleted] = clocked.events("SuccessfulDelete")
    assert deleted["message"] == f"Deleted pod: {running}"
    # ...FailureTarget is written at once, Failed only when no pod terminates.
    status = get_job(clocked)["status"]
    assert [c[0] for c in conditions(clocked)] == ["FailureTarget"]
    assert status["failed"] == 2 and status["terminating"] == 1
    assert "active" not in status and status["ready"] == 0
    assert clocked.events("BackoffLimitExceeded") == []
    clocked.recorder.clear()
    sync(clocked, ctrl)
    assert clocked.recorder.writes("update", "jobs") == []
    # The kubelet finishes the graceful deletion.
    clocked.client.delete("pods", NS, running, grace_period_seconds=0)
    clocked.clock.advance(5)
    sync(clocked, ctrl)
    status = get_job(clocked)["status"]
    reason = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
    assert conditions(clocked) == [("FailureTarget", "True", *reason),
                                   ("Failed", "True", *reason)]
    assert status["terminating"] == 0 and status["failed"] == 2
    assert "completionTime" not in status
    [warning] = clocked.events("BackoffLimitExceeded")
    assert (warning["type"], warning["message"]) == ("Warning", reason[1])
    assert job_pods(clocked) == [clocked.client.get("pods", NS, broken)]
    # Nothing replaces the failed pods.
    assert len(clocked.recorder.writes("create", "pods")) == 0


def test_active_deadline_exceeded(clocked):
    ctrl = start(clocked)
    create(clocked, job(deadline=30))
    # The controller asks to look again exactly when the deadline passes.
    assert sync(clocked, ctrl) == pytest.approx(30)
    clocked.clock.advance(12)
    assert sync(clocked, ctrl) == pytest.approx(18)
    assert conditions(clocked) == []
    clocked.clock.advance(18)
    [victim] = job_pods(clocked)
    clocked.recorder.clear()
    sync(clocked, ctrl)
    assert [a[3] for a in clocked.recorder.writes("delete", "pods")] == \
        [victim["metadata"]["name"]]
    reason = ("DeadlineExceeded", "Job was active longer than specified deadline")
    # The pod it deleted counts as terminating until the cache shows it gone.
    assert conditions(clocked) == [("FailureTarget", "True", *reason)]
    assert get_job(clocked)["status"]["terminating"] == 1
    assert clocked.events("DeadlineExceeded") == []
    assert clocked.client.list("pods", namespace=NS).items == []  # never scheduled
    sync(clocked, ctrl)
    assert conditions(clocked) == [("FailureTarget", "True", *reason),
                                   ("Failed", "True", *reason)]
    status = get_job(clocked)["status"]
    assert status["failed"] == 1 and status["terminating"] == 0
    [warning] = clocked.events("DeadlineExceeded")
    assert (warning["type"], warning["message"]) == ("Warning", reason[1])


def test_failed_pods_are_replaced_after_a_doubling_back_off(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=1, parallelism=1, backoff_limit=10))
    sync(clocked, ctrl)
    for failures, delay in enumerate((10, 20, 40), start=1):
        [current] = [p for p in job_pods(clocked) if p["status"]["phase"] == "Pending"]
        clocked.clock.advance(3)
        kubelet(clocked, current["metadata"]["name"], "Failed")
        clocked.clock.advance(1)  # seen one second after the container exited
        clocked.recorder.clear()
        assert sync(clocked, ctrl) == pytest.approx(delay - 1)
        assert clocked.recorder.writes("create", "pods") == []
        assert get_job(clocked)["status"]["failed"] == failures
        clocked.clock.advance(delay - 2)
        assert sync(clocked, ctrl) == pytest.approx(1)
        assert clocked.recorder.writes("create", "pods") == []
        clocked.clock.advance(1)
        assert sync(clocked, ctrl) is None
        assert len(clocked.recorder.writes("create", "pods")) == 1


@pytest.mark.parametrize(("failures", "elapsed", "remaining"), [
    (0, 0, 0),
    (1, 0, 10),
    (1, 4, 6),
    (1, 11, 0),
    (2, 0, 20),
    (4, 0, 80),
    (6, 0, 320),
    (7, 0, MAX_POD_FAILURE_BACKOFF),   # 640 s is capped
    (30, 100, MAX_POD_FAILURE_BACKOFF - 100),
])
def test_back_off_delay(clocked, failures, elapsed, remaining):
    """``getRemainingTime``: 10 s doubling per consecutive failure, capped at
    ``MaxJobPodFailureBackOff`` (10 min), counted from the last failure. The
    formula is private; the behaviour above shows it drives the requeues."""
    ctrl = JobController(clocked.recorder, clocked.informers, clock=clocked.clock)
    now = clocked.clock.now
    record = _Backoff(failures, now - elapsed if failures else None)
    assert ctrl._backoff_remaining(record, now) == pytest.approx(remaining)


def test_a_success_resets_the_back_off(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=3, parallelism=2, backoff_limit=10))
    sync(clocked, ctrl)
    lost, won = (p["metadata"]["name"] for p in job_pods(clocked))
    kubelet(clocked, lost, "Failed")
    assert sync(clocked, ctrl) == pytest.approx(10)
    clocked.clock.advance(2)
    kubelet(clocked, won, "Succeeded")  # after the failure: the slate is clean
    clocked.recorder.clear()
    assert sync(clocked, ctrl) is None
    assert len(clocked.recorder.writes("create", "pods")) == 2


def evict(cluster: Cluster, ctrl: JobController) -> str:
    """Start the job's one pod on a node, then delete it (gracefully: it lingers)."""
    sync(cluster, ctrl)
    [victim] = job_pods(cluster)
    name = str(victim["metadata"]["name"])
    cluster.client.bind(NS, name, "n1")
    kubelet(cluster, name, "Running")
    cluster.client.delete("pods", NS, name)
    cluster.recorder.clear()
    return name


def test_an_evicted_pod_counts_as_failed_and_is_replaced_while_it_terminates(clocked):
    ctrl = start(clocked)
    create(clocked, job(backoff_limit=5))  # podReplacementPolicy: TerminatingOrFailed
    name = evict(clocked, ctrl)
    # Deleted before it finished: a failure, so the back-off applies...
    assert sync(clocked, ctrl) == pytest.approx(10)
    status = get_job(clocked)["status"]
    assert (status["failed"], status["terminating"]) == (1, 1)
    assert finalizer_removals(clocked) == [name]
    assert clocked.recorder.writes("create", "pods") == []
    # ...after which the replacement starts although the old pod still terminates.
    clocked.clock.advance(10)
    sync(clocked, ctrl)
    assert len(clocked.recorder.writes("create", "pods")) == 1
    assert clocked.client.get("pods", NS, name)["metadata"]["deletionTimestamp"]


def test_replacement_policy_failed_waits_for_the_pod_to_fail(clocked):
    ctrl = start(clocked)
    create(clocked, job(backoff_limit=5, replacement="Failed"))
    name = evict(clocked, ctrl)
    assert sync(clocked, ctrl) is None
    status = get_job(clocked)["status"]
    assert (status.get("failed", 0), status["terminating"]) == (0, 1)
    assert clocked.recorder.writes("create", "pods") == []
    assert finalizer_removals(clocked) == []  # not finished: nothing to count yet
    # The kubelet kills it: now it is a failure, replaced after the back-off.
    kubelet(clocked, name, "Failed")
    assert sync(clocked, ctrl) == pytest.approx(10)
    assert get_job(clocked)["status"]["failed"] == 1
    clocked.clock.advance(10)
    sync(clocked, ctrl)
    assert len(clocked.recorder.writes("create", "pods")) == 1


# ---------------------------------------------------------------- suspension


def test_suspend_and_resume(clocked):
    ctrl = start(clocked)
    create(clocked, job(completions=2, parallelism=2, suspend=True, deadline=60))
    assert sync(clocked, ctrl) is None  # no deadline ticks while suspended
    assert clocked.recorder.writes("create", "pods") == []
    status = get_job(clocked)["status"]
    assert "startTime" not in status
    assert conditions(clocked) == [("Suspended", "True", "JobSuspended", "Job suspended")]
    [suspended] = clocked.events("Suspended")
    assert (suspended["type"], suspended["message"]) == ("Normal", "Job suspended")

    clocked.clock.advance(100)
    clocked.client.patch("jobs", NS, "pi", "merge", {"spec": {"suspend": False}})
    assert sync(clocked, ctrl) == pytest.approx(60)  # the deadline counts from now
    assert conditions(clocked) == [("Suspended", "False", "JobResumed", "Job resumed")]
    assert get_job(clocked)["status"]["startTime"] == ts(clocked.clock.now)
    assert len(job_pods(clocked)) == 2
    assert [e["message"] for e in clocked.events("Resumed")] == ["Job resumed"]

    # Suspending a running job deletes its pods without counting them.
    clocked.clock.advance(10)
    clocked.client.patch("jobs", NS, "pi", "merge", {"spec": {"suspend": True}})
    names = sorted(p["metadata"]["name"] for p in job_pods(clocked))
    clocked.recorder.clear()
    sync(clocked, ctrl)
    assert sorted(a[3] for a in clocked.recorder.writes("delete", "pods")) == names
    assert sorted(finalizer_removals(clocked)) == names
    # The finalizer goes before the delete, so the pod is never counted.
    for name in names:
        order = [a[0] for a in clocked.recorder.actions if name in a]
        assert order == ["patch", "delete"]
    status = get_job(clocked)["status"]
    assert "failed" not in status and "active" not in status
    assert conditions(clocked)[0][:3] == ("Suspended", "True", "JobSuspended")
    [suspended] = clocked.events("Suspended")
    assert suspended["count"] == 2  # the recorder aggregates the repeat
    assert sorted(e["message"] for e in clocked.events("SuccessfulDelete")) == \
        [f"Deleted pod: {n}" for n in names]
    assert job_pods(clocked) == []
