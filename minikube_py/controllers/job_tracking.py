"""Counting a Job's finished pods with finalizer tracking (Kubernetes'
``trackJobStatusAndRemoveFinalizers``), in memory: one reconcile's view of a
job (:class:`SyncContext`, ``syncJobCtx``), which finished pods are new, how
they enter ``status.uncountedTerminatedPods`` (or, for ``Indexed`` jobs,
``status.completedIndexes``) before their finalizer is removed, how they
leave it for ``succeeded`` / ``failed`` once it is gone, and when the
terminal condition may be written.

No API calls and no clock (``now`` is passed in). The functions update the
job status and :class:`SyncContext` they are given; the controller writes the
status and removes the finalizers in between.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ..api.access import mapping as _m
from ..client.base import Object
from .job_policy import Backoff
from .job_util import (
    as_int,
    completion_index,
    condition_true,
    ensure_condition,
    format_indexes,
    has_tracking_finalizer,
    is_deleting,
    is_indexed,
    is_pod_failed,
    new_condition,
    phase_of,
    uid_of,
)

#: ``MaxUncountedPods``: bounds ``status.uncountedTerminatedPods``.
MAX_UNCOUNTED_PODS: Final = 500


@dataclass(slots=True)
class SyncContext:
    """One reconcile's view of a job (``syncJobCtx``)."""

    job: Object
    pods: list[Object]
    active: list[Object]
    uncounted_succeeded: set[str]
    uncounted_failed: set[str]
    expected_rm: set[str]
    ready: int
    terminating: int
    succeeded: int = 0
    failed: int = 0
    finished: dict[str, Any] | None = None
    backoff: Backoff = field(default_factory=Backoff)
    prev_succeeded_indexes: set[int] = field(default_factory=set)
    succeeded_indexes: set[int] = field(default_factory=set)
    requeue: float | None = None

    def wake_in(self, seconds: float) -> None:
        seconds = max(0.0, seconds)
        self.requeue = seconds if self.requeue is None else min(self.requeue, seconds)


@dataclass(slots=True)
class Counted:
    """What :func:`count_finished_pods` leaves for the controller to do."""

    #: Pods whose tracking finalizer is to be removed once the status is written.
    to_remove: list[Object]
    #: Uids of the pods still carrying the finalizer (and not being stripped of it).
    with_finalizer: set[str]
    #: ``MaxUncountedPods`` was reached: the job may not finish in this sync.
    reached_max: bool
    needs_flush: bool


def new_finished_pods(ctx: SyncContext) -> tuple[list[Object], list[Object]]:
    """``getNewFinishedPods``: finished pods not yet counted anywhere."""
    completions = as_int(_m(ctx.job.get("spec")).get("completions"))
    succeeded, failed = [], []
    for pod in ctx.pods:
        uid = uid_of(pod)
        if not has_tracking_finalizer(pod) or uid in ctx.expected_rm:
            continue
        if is_indexed(ctx.job) and not 0 <= completion_index(pod) < completions:
            continue
        if phase_of(pod) == "Succeeded" and uid not in ctx.uncounted_succeeded:
            succeeded.append(pod)
        elif is_pod_failed(pod, ctx.job) and uid not in ctx.uncounted_failed:
            failed.append(pod)
    return succeeded, failed


def uncounted_of(status: dict[str, Any]) -> dict[str, list[str]]:
    """``status.uncountedTerminatedPods`` as lists of uids, both kinds present."""
    return {k: [str(u) for u in _m(status.get("uncountedTerminatedPods")).get(k) or []]
            for k in ("succeeded", "failed")}


def count_finished_pods(ctx: SyncContext, needs_flush: bool, now: float) -> Counted:
    """The counting half of ``trackJobStatusAndRemoveFinalizers``: finished pods
    still carrying the finalizer are recorded as uncounted (succeeded indexes in
    ``completedIndexes``), at most :data:`MAX_UNCOUNTED_PODS`; uncounted pods
    whose finalizer is gone are counted; a ``FailureTarget`` or
    ``SuccessCriteriaMet`` in ``ctx.finished`` is added to the conditions and
    ``ctx.finished`` becomes the ``Failed`` or ``Complete`` that follows it."""
    job = ctx.job
    status = job["status"]
    uncounted = uncounted_of(status)
    with_finalizer = {uid_of(p) for p in ctx.pods
                      if has_tracking_finalizer(p) and uid_of(p) not in ctx.expected_rm}
    if clean_uncounted(status, uncounted, with_finalizer):
        needs_flush = True
    indexed = is_indexed(job)
    completions = as_int(_m(job.get("spec")).get("completions"))
    new_indexes: list[int] = []
    to_remove: list[Object] = []
    reached_max = False
    failing = ctx.finished is not None and ctx.finished["type"] != "SuccessCriteriaMet"
    for pod in ctx.pods:
        uid = uid_of(pod)
        if not has_tracking_finalizer(pod) or uid in ctx.expected_rm:
            continue  # counted in an earlier sync
        failed = is_pod_failed(pod, job)
        if not (is_deleting(job) or ctx.finished is not None or phase_of(pod) == "Succeeded"
                or failed):
            continue
        to_remove.append(pod)
        index = completion_index(pod)
        if phase_of(pod) == "Succeeded" and uid not in ctx.uncounted_failed:
            if indexed:
                if 0 <= index < completions and index not in ctx.prev_succeeded_indexes:
                    new_indexes.append(index)
                    needs_flush = True
            elif uid not in uncounted["succeeded"]:
                uncounted["succeeded"].append(uid)
                needs_flush = True
        elif (failed or failing) and uid not in uncounted["failed"] and \
                (not indexed or 0 <= index < completions):
            uncounted["failed"].append(uid)
            needs_flush = True
        if len(new_indexes) + len(uncounted["succeeded"]) + len(uncounted["failed"]) >= \
                MAX_UNCOUNTED_PODS:
            reached_max = True
            break
    if indexed:
        ctx.succeeded_indexes = ctx.prev_succeeded_indexes | set(new_indexes)
        text = format_indexes(ctx.succeeded_indexes)
        if text != (status.get("completedIndexes") or ""):
            needs_flush = True
        status["succeeded"] = len(ctx.succeeded_indexes)
        if text:
            status["completedIndexes"] = text
        else:
            status.pop("completedIndexes", None)
    set_uncounted(status, uncounted)
    finished = ctx.finished
    if finished is not None and finished["type"] == "FailureTarget":
        status["conditions"] = [*(status.get("conditions") or []), finished]
        needs_flush = True
        finished = new_condition("Failed", finished.get("reason", ""),
                                 finished.get("message", ""), now)
    elif finished is not None and finished["type"] == "SuccessCriteriaMet":
        if not condition_true(job, "SuccessCriteriaMet"):
            status["conditions"] = [*(status.get("conditions") or []), finished]
            needs_flush = True
        finished = new_condition("Complete", finished.get("reason", ""),
                                 finished.get("message", ""), now)
    ctx.finished = finished
    return Counted(to_remove=to_remove, with_finalizer=with_finalizer, reached_max=reached_max,
                   needs_flush=needs_flush)


def clean_uncounted(status: dict[str, Any], uncounted: dict[str, list[str]],
                    with_finalizer: set[str]) -> bool:
    """``cleanUncountedPodsWithoutFinalizers``: finalizer gone means counted."""
    changed = False
    for kind in ("succeeded", "failed"):
        keep = [u for u in uncounted[kind] if u in with_finalizer]
        if len(keep) != len(uncounted[kind]):
            status[kind] = as_int(status.get(kind)) + len(uncounted[kind]) - len(keep)
            uncounted[kind] = keep
            changed = True
    return changed


def set_uncounted(status: dict[str, Any], uncounted: dict[str, list[str]]) -> None:
    status["uncountedTerminatedPods"] = {k: v for k, v in uncounted.items() if v}


def enact_finished(ctx: SyncContext, status: dict[str, Any], now: float) -> bool:
    """``enactJobFinished``: the terminal condition, once nothing is left to count
    and no pod is still terminating."""
    finished = ctx.finished
    if finished is None:
        return False
    uncounted = _m(status.get("uncountedTerminatedPods"))
    if uncounted.get("succeeded") or uncounted.get("failed") or ctx.terminating > 0:
        return False
    ensure_condition(status, finished["type"], "True", finished.get("reason", ""),
                     finished.get("message", ""), now)
    if finished["type"] == "Complete":
        status["completionTime"] = finished["lastTransitionTime"]
    return True
