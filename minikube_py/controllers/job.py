"""The Job controller: run a Job's pods until enough of them succeed, as Kubernetes'
``pkg/controller/job`` (v1.32, default feature gates) does.

What it promises, per Job (``reconcile(namespace/name)``):

* **Pods.** It claims the pods of the job's namespace whose controller
  reference is the job (and adopts orphans its selector matches, releasing
  owned pods it no longer matches), then keeps ``min(parallelism,
  completions - succeeded)`` active (``parallelism``, until one succeeds, when
  ``completions`` is unset). Pods come from the template with the job as
  controller owner, ``generateName: <job>-`` and the
  ``batch.kubernetes.io/job-tracking`` finalizer; excess pods are deleted
  (least advanced first) after their finalizer is removed, so they are not
  counted. ``Indexed`` jobs give each pod a completion index (annotation,
  label, ``<job>-<index>`` hostname, ``JOB_COMPLETION_INDEX``) and count
  succeeded *indexes* in ``status.completedIndexes``. Events:
  ``SuccessfulCreate`` / ``FailedCreate`` / ``SuccessfulDelete``.
* **Counting** is Kubernetes' finalizer tracking: a finished pod still
  carrying the finalizer is first recorded in
  ``status.uncountedTerminatedPods``, then its finalizer is removed, then it
  moves to ``succeeded`` / ``failed``; a crash between the steps never loses
  or double-counts a pod. A pod counts as failed when its phase is
  ``Failed`` or, unless ``podReplacementPolicy`` is ``Failed``, when it is
  deleted before succeeding (e.g. evicted) - except pods this controller
  deletes itself for scale-down or suspension, whose finalizer it removes
  first. When the job fails, its still-running pods are deleted and counted
  as failed, as Kubernetes does.
* **Failure.** More failed pods than ``backoffLimit`` (or, for
  ``restartPolicy: OnFailure``, as many container restarts) fails the job with
  reason ``BackoffLimitExceeded``; ``activeDeadlineSeconds`` after
  ``startTime`` with ``DeadlineExceeded``. The ``FailureTarget`` condition is
  written first, active pods are deleted, and ``Failed`` follows once no pod
  is terminating; a Warning event carries the reason.
* **Success.** ``SuccessCriteriaMet`` then ``Complete`` (reason
  ``CompletionsReached``) with ``completionTime``, once enough pods succeeded
  and none is active or terminating; event ``Completed``.
* **Back-off.** After failures, new pods wait 10 s doubling per consecutive
  failure up to 10 min (``pod_failure_backoff`` / ``max_pod_failure_backoff``)
  counted from the last failure; the key is requeued for then.
* **Suspension.** ``spec.suspend`` deletes active pods, sets the
  ``Suspended`` condition (event ``Suspended``) and clears ``startTime``;
  resuming sets it False (event ``Resumed``) and restarts the clock.
* **Status** goes through the ``status`` subresource with compare-and-swap,
  so a stale cache can never overwrite newer counts: ``startTime``,
  ``active``, ``ready``, ``terminating``, ``succeeded``, ``failed``,
  conditions, ``completionTime``.
* Jobs whose ``spec.managedBy`` names another controller are left alone;
  finished jobs are not touched again. Orphaned pods (their job gone or
  finished) lose the tracking finalizer (keys ``pod:<namespace>/<name>``).

Creations and deletions are remembered until the informer has seen them (the
"expectations" of client-go controllers), so a stale cache never makes it
create a pod twice. So are its own status writes: a job whose cached
``resourceVersion`` is one this controller has already replaced is not synced
(the informer's update event brings the key back), because the pod cache may
already show finalizers removed for pods that only the newer status counts.

Not implemented: ``podFailurePolicy`` rules (the failure count ignores them),
``backoffLimitPerIndex`` / ``maxFailedIndexes``, ``successPolicy``, and
Kubernetes' job metrics.

This module holds the controller (informer handlers, the sync loop, status
writes); the rest lives beside it: :mod:`.job_util` (reading Jobs and pods,
conditions, index intervals), :mod:`.job_policy` (back-off, failure and
success rules), :mod:`.job_pods` (pod template, pending indexes, removal
order), :mod:`.job_podcontrol` (pod writes) and :mod:`.job_tracking`
(counting finished pods through ``uncountedTerminatedPods``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..api.access import mapping as _m
from ..api.errors import StatusError
from ..api.jsoncopy import deep_copy
from ..api.labels import SelectorError, selector_from_label_selector
from ..api.timefmt import format_time as _rfc3339
from ..client.base import Client, Object
from ..client.events import EVENT_NORMAL, EVENT_WARNING, EventRecorder
from ..client.expectations import ControllerExpectations
from ..client.informer import Handlers, key_of
from ..client.shared import SharedInformers
from .base import Controller
from .job_podcontrol import JobPodControl
from .job_pods import pending_indexes, pods_for_removal, removal_rank
from .job_policy import (
    DEFAULT_POD_FAILURE_BACKOFF,
    MAX_POD_FAILURE_BACKOFF,
    Backoff,
    backoff_remaining,
    deadline_remaining,
    next_backoff,
    success_criteria_met,
    terminal_condition,
    wanted_active,
)
from .job_tracking import MAX_UNCOUNTED_PODS as MAX_UNCOUNTED_PODS  # re-exported
from .job_tracking import (
    SyncContext,
    clean_uncounted,
    count_finished_pods,
    enact_finished,
    new_finished_pods,
    set_uncounted,
    uncounted_of,
)
from .job_util import (
    COMPLETION_INDEX_ANNOTATION,
    JOB_API_VERSION,
    JOB_TRACKING_FINALIZER,
    as_int,
    completion_index,
    controller_ref,
    ensure_condition,
    has_tracking_finalizer,
    is_active,
    is_deleting,
    is_finished,
    is_indexed,
    is_pod_ready,
    is_suspended,
    is_terminating,
    new_condition,
    only_replace_failed,
    parse_indexes,
    phase_of,
    uid_of,
)
from .job_util import format_indexes as format_indexes  # re-exported

__all__ = [
    "COMPLETION_INDEX_ANNOTATION",
    "DEFAULT_POD_FAILURE_BACKOFF",
    "JOB_TRACKING_FINALIZER",
    "MAX_POD_FAILURE_BACKOFF",
    "JobController",
]

log = logging.getLogger(__name__)

#: :class:`.job_policy.Backoff` under its former name here (tests import it).
_Backoff = Backoff
#: Pods created or deleted in one sync at most (``MaxPodCreateDeletePerSync``).
MAX_POD_CHANGES_PER_SYNC: Final = 500
#: Seconds before a job whose cache lags behind our own status write is looked
#: at again, should its update event be lost (``syncJobBatchPeriod``).
STALE_JOB_REQUEUE: Final = 1.0
ORPHAN_PREFIX: Final = "pod:"
_OWN_CONTROLLER: Final = "kubernetes.io/job-controller"


# ------------------------------------------------------------------ controller


class JobController(Controller):
    """Reconciles ``batch/v1`` Jobs (see the module contract)."""

    name = "job-controller"

    def __init__(self, client: Client, informers: SharedInformers, *, workers: int = 2,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None,
                 pod_failure_backoff: float = DEFAULT_POD_FAILURE_BACKOFF,
                 max_pod_failure_backoff: float = MAX_POD_FAILURE_BACKOFF) -> None:
        super().__init__(client, informers, workers=workers, clock=clock, recorder=recorder)
        self.pod_failure_backoff = pod_failure_backoff
        self.max_pod_failure_backoff = max_pod_failure_backoff
        self._lock = threading.Lock()
        # What this controller did that the pod informer has not shown yet (the
        # job controller's clock, so tests move both together).
        self.expectations = ControllerExpectations(clock=self.clock)
        self.pod_control = JobPodControl(client, self.expectations, self.event)
        self._finalizers: dict[str, set[str]] = {}  # job key -> pod uids awaiting removal
        self._backoff: dict[str, Backoff] = {}
        # job key -> resourceVersions our status writes replaced (stale views)
        self._superseded: dict[str, set[str]] = {}
        self.jobs = informers.get("jobs")
        self.pods = informers.get("pods")
        self.jobs.add_handlers(Handlers(on_add=self._job_added, on_update=self._job_updated,
                                        on_delete=self._job_deleted))
        self.pods.add_handlers(Handlers(on_add=self._pod_added, on_update=self._pod_updated,
                                        on_delete=self._pod_deleted))

    # ------------------------------------------------------------------ events

    def _resolve(self, namespace: str, ref: Mapping[str, Any] | None) -> Object | None:
        """The cached job a controller reference points at (same uid), if any."""
        if ref is None or ref.get("kind") != "Job":
            return None
        job = self.jobs.get(f"{namespace}/{ref.get('name')}")
        if job is None or uid_of(job) != ref.get("uid"):
            return None
        return job

    def _matching_jobs(self, pod: Mapping[str, Any]) -> list[Object]:
        meta = _m(pod.get("metadata"))
        labels = _m(meta.get("labels"))
        out = []
        for job in self.jobs.list():
            if _m(job.get("metadata")).get("namespace") != meta.get("namespace"):
                continue
            try:
                selector = selector_from_label_selector(_m(job.get("spec")).get("selector"))
            except SelectorError:
                continue
            if labels and selector.matches(labels):
                out.append(job)
        return out

    def _orphan(self, pod: Mapping[str, Any]) -> None:
        if has_tracking_finalizer(pod):
            self.enqueue(ORPHAN_PREFIX + key_of(pod))

    def _job_added(self, job: Object) -> None:
        self.enqueue(key_of(job))

    def _job_updated(self, old: Object, new: Object) -> None:
        self.enqueue(key_of(new))
        if is_finished(new):
            self._cleanup_finalizers(new)

    def _job_deleted(self, job: Object) -> None:
        self.enqueue(key_of(job))
        self._cleanup_finalizers(job)

    def _cleanup_finalizers(self, job: Mapping[str, Any]) -> None:
        uid = uid_of(job)
        namespace = _m(job.get("metadata")).get("namespace")
        for pod in self.pods.list():
            ref = controller_ref(pod)
            if ref is not None and ref.get("uid") == uid and \
                    _m(pod.get("metadata")).get("namespace") == namespace:
                self._orphan(pod)

    def _pod_added(self, pod: Object) -> None:
        if is_deleting(pod):
            # A pod already being deleted is no creation to wait for.
            self._pod_gone(pod, final=False)
            return
        namespace = str(_m(pod.get("metadata")).get("namespace"))
        ref = controller_ref(pod)
        if ref is not None:
            job = self._resolve(namespace, ref)
            if job is None:
                self._orphan(pod)
                return
            key = key_of(job)
            self.expectations.creation_observed(key)
            self.enqueue(key)
            return
        self._orphan(pod)
        for job in self._matching_jobs(pod):
            self.enqueue(key_of(job))

    def _pod_updated(self, old: Object, new: Object) -> None:
        if _m(old.get("metadata")).get("resourceVersion") == \
                _m(new.get("metadata")).get("resourceVersion"):
            return
        if is_deleting(new):
            self._pod_gone(new, final=False)
            return
        namespace = str(_m(new.get("metadata")).get("namespace"))
        old_ref, new_ref = controller_ref(old), controller_ref(new)
        if old_ref is not None and (new_ref is None or old_ref.get("uid") != new_ref.get("uid")):
            job = self._resolve(namespace, old_ref)
            if job is not None:
                self._finalizer_observed(key_of(job), new)
                self.enqueue(key_of(job))
        if new_ref is not None:
            job = self._resolve(namespace, new_ref)
            if job is None:
                self._orphan(new)
                return
            self._finalizer_observed(key_of(job), new)
            self.enqueue(key_of(job))
            return
        self._orphan(new)
        if _m(old.get("metadata")).get("labels") != _m(new.get("metadata")).get("labels") or \
                old_ref is not None:
            for job in self._matching_jobs(new):
                self.enqueue(key_of(job))

    def _pod_deleted(self, pod: Object) -> None:
        self._pod_gone(pod, final=True)

    def _pod_gone(self, pod: Object, *, final: bool) -> None:
        namespace = str(_m(pod.get("metadata")).get("namespace"))
        job = self._resolve(namespace, controller_ref(pod))
        if job is None or is_finished(job):
            self._orphan(pod)
            if job is None:
                return
        key = key_of(job)
        uid = uid_of(pod)
        self.expectations.deletion_observed(key, uid)
        with self._lock:
            if final or not has_tracking_finalizer(pod):
                self._finalizers.get(key, set()).discard(uid)
        self.enqueue(key)

    def _finalizer_observed(self, key: str, pod: Mapping[str, Any]) -> None:
        if not has_tracking_finalizer(pod):
            with self._lock:
                self._finalizers.get(key, set()).discard(uid_of(pod))

    # ------------------------------------------------------------------ expectations

    # ------------------------------------------------------------------ reconcile

    def reconcile(self, key: str) -> float | None:
        if key.startswith(ORPHAN_PREFIX):
            self._sync_orphan_pod(key[len(ORPHAN_PREFIX):])
            return None
        shared = self.jobs.get(key)
        if shared is None:
            self.expectations.delete_expectations(key)
            with self._lock:
                self._finalizers.pop(key, None)
                self._backoff.pop(key, None)
                self._superseded.pop(key, None)
            return None
        if self._stale(key, shared):
            return STALE_JOB_REQUEUE
        managed_by = _m(shared.get("spec")).get("managedBy")
        if managed_by not in (None, _OWN_CONTROLLER):
            return None
        if is_finished(shared):
            with self._lock:
                self._backoff.pop(key, None)
            return None
        mode = _m(shared.get("spec")).get("completionMode")
        if mode not in (None, "NonIndexed", "Indexed"):
            self.event(shared, EVENT_WARNING, "UnknownCompletionMode",
                       "Skipped Job sync because completion mode is unknown")
            return None
        return self._sync(key, deep_copy(shared))

    def _sync(self, key: str, job: Object) -> float | None:
        now = self.clock()
        spec = job.setdefault("spec", {})
        status = job.setdefault("status", {})
        uncounted = _m(status.get("uncountedTerminatedPods"))
        satisfied = self.expectations.satisfied(key)
        pods = self._pods_for_job(job)
        active = [p for p in pods if is_active(p)]
        with self._lock:
            expected_rm = set(self._finalizers.get(key, set()))
            record = self._backoff.get(key, Backoff())
        ctx = SyncContext(
            job=job, pods=pods, active=active,
            uncounted_succeeded={str(u) for u in uncounted.get("succeeded") or []},
            uncounted_failed={str(u) for u in uncounted.get("failed") or []},
            expected_rm=expected_rm, ready=sum(1 for p in active if is_pod_ready(p)),
            terminating=sum(1 for p in pods if is_terminating(p)))
        new_succeeded, new_failed = new_finished_pods(ctx)
        ctx.succeeded = as_int(status.get("succeeded")) + len(new_succeeded) + len(
            ctx.uncounted_succeeded)
        ctx.failed = as_int(status.get("failed")) + len(new_failed) + len(ctx.uncounted_failed)
        if status.get("startTime") is None and not is_suspended(job):
            status["startTime"] = _rfc3339(now)
        ctx.backoff = next_backoff(record, new_succeeded, new_failed)

        ctx.finished = terminal_condition(job, pods, ctx.failed, now)
        if ctx.finished is None:
            remaining = deadline_remaining(job, now)
            if remaining is not None:
                ctx.wake_in(remaining)
        if is_indexed(job):
            completions = as_int(spec.get("completions"))
            ctx.prev_succeeded_indexes = parse_indexes(str(status.get("completedIndexes") or ""),
                                                       completions)
            ctx.succeeded_indexes = ctx.prev_succeeded_indexes | {
                completion_index(p) for p in pods
                if phase_of(p) == "Succeeded" and 0 <= completion_index(p) < completions}
            ctx.succeeded = len(ctx.succeeded_indexes)

        errors: list[StatusError] = []
        active_count = len(active)
        suspend_changed = False
        if ctx.finished is not None:
            deleted_ready, deleted = self.pod_control.delete_active_pods(job, active, errors)
            if deleted != len(active) or not satisfied:
                # Pods still to go or to be seen: the job is not finished yet.
                ctx.finished = None
            active_count -= deleted
            ctx.terminating += deleted
            ctx.ready -= deleted_ready
        else:
            managed = False
            if satisfied and not is_deleting(job):
                active_count = self._manage(key, ctx, errors)
                managed = True
            if success_criteria_met(job, ctx.succeeded, active_count):
                ctx.finished = new_condition("SuccessCriteriaMet", "CompletionsReached",
                                             "Reached expected number of succeeded pods", now)
            elif managed:
                suspend_changed = self._suspension(job, now)

        needs_flush = suspend_changed or active_count != as_int(status.get("active")) or \
            ctx.ready != status.get("ready") or ctx.terminating != status.get("terminating")
        status["active"] = active_count
        status["ready"] = ctx.ready
        status["terminating"] = ctx.terminating
        self._track_status(key, ctx, needs_flush, now)
        if errors:
            raise errors[0]
        return ctx.requeue

    # ------------------------------------------------------------------ pieces

    def _backoff_remaining(self, record: Backoff, now: float) -> float:
        """How long new pods still wait after ``record``'s failures (``getRemainingTime``)."""
        return backoff_remaining(record, now, self.pod_failure_backoff,
                                 self.max_pod_failure_backoff)

    def _suspension(self, job: Object, now: float) -> bool:
        """The Suspended condition, its events, and the clock it stops."""
        status = job["status"]
        if is_suspended(job):
            changed = ensure_condition(status, "Suspended", "True", "JobSuspended",
                                       "Job suspended", now)
            if changed:
                self.event(job, EVENT_NORMAL, "Suspended", "Job suspended")
            if status.get("startTime") is not None:
                # Lets scheduling directives change and resets activeDeadlineSeconds.
                status.pop("startTime")
                changed = True
            return changed
        changed = ensure_condition(status, "Suspended", "False", "JobResumed", "Job resumed",
                                   now)
        if changed:
            self.event(job, EVENT_NORMAL, "Resumed", "Job resumed")
            status["startTime"] = _rfc3339(now)
        return changed

    # ------------------------------------------------------------------ pods

    def _pods_for_job(self, job: Object) -> list[Object]:
        """``getPodsForJob``: owned pods, orphans adopted, non-matching ones released."""
        meta = job["metadata"]
        namespace, uid = meta.get("namespace"), meta.get("uid")
        try:
            selector = selector_from_label_selector(_m(job.get("spec")).get("selector"))
        except SelectorError:
            return []
        out: list[Object] = []
        orphans: list[Object] = []
        for pod in self.pods.list():
            pod_meta = _m(pod.get("metadata"))
            if pod_meta.get("namespace") != namespace:
                continue
            ref = controller_ref(pod)
            labels = _m(pod_meta.get("labels"))
            if ref is None:
                if not is_deleting(pod) and not is_deleting(job) and labels and \
                        selector.matches(labels):
                    orphans.append(pod)
                continue
            if ref.get("uid") != uid:
                continue
            if not selector.matches(labels):
                # ClaimObject: owned but no longer selected is not ours; it is
                # released unless the job itself is going away.
                if not is_deleting(job):
                    self.pod_control.release(job, pod)
                continue
            out.append(pod)
        if orphans and self.pod_control.can_adopt(job):
            for pod in orphans:
                adopted = self.pod_control.adopt(job, pod)
                if adopted is not None:
                    out.append(adopted)
        return out

    def _manage(self, key: str, ctx: SyncContext, errors: list[StatusError]) -> int:
        """``manageJob``: delete excess pods, or create missing ones (never both)."""
        job = ctx.job
        active = len(ctx.active)
        if is_suspended(job):
            doomed = sorted(ctx.active, key=removal_rank)
            removed_ready, removed = self.pod_control.delete_job_pods(key, job, doomed, errors)
            ctx.terminating += removed
            ctx.ready -= removed_ready
            return active - removed
        want = wanted_active(job, ctx.succeeded, active)
        doomed = pods_for_removal(job, ctx.active, max(0, active - want))
        if doomed:
            removed_ready, removed = self.pod_control.delete_job_pods(
                key, job, doomed[:MAX_POD_CHANGES_PER_SYNC], errors)
            ctx.terminating += removed
            ctx.ready -= removed_ready
            return active - removed
        waiting = ctx.terminating if only_replace_failed(job) else 0
        diff = want - waiting - active
        if diff <= 0:
            return active
        remaining = self._backoff_remaining(ctx.backoff, self.clock())
        if remaining > 0:
            ctx.wake_in(remaining)
            return active
        indexes: list[int | None] = [None] * min(diff, MAX_POD_CHANGES_PER_SYNC)
        if is_indexed(job):
            indexes = list(pending_indexes(job, ctx.succeeded_indexes, ctx.active, len(indexes)))
        return active + self.pod_control.create_pods(key, job, indexes, errors)

    def _sync_orphan_pod(self, key: str) -> None:
        """``syncOrphanPod``: a pod whose job is gone or done loses the finalizer."""
        pod = self.pods.get(key)
        if pod is None or not has_tracking_finalizer(pod):
            return
        ref = controller_ref(pod)
        if ref is not None:
            if ref.get("kind") != "Job" or ref.get("apiVersion") != JOB_API_VERSION:
                return
            job = self._resolve(str(_m(pod.get("metadata")).get("namespace")), ref)
            if job is not None:
                if _m(job.get("spec")).get("managedBy") not in (None, _OWN_CONTROLLER):
                    return
                if not is_finished(job):
                    return
        errors: list[StatusError] = []
        if not self.pod_control.remove_finalizer(pod, errors) and errors:
            raise errors[0]

    # ------------------------------------------------------------------ status

    def _track_status(self, key: str, ctx: SyncContext, needs_flush: bool, now: float) -> None:
        """``trackJobStatusAndRemoveFinalizers``: count finished pods as uncounted
        and write that, then remove their finalizers and count them, then write
        the terminal condition once nothing is left to count."""
        counted = count_finished_pods(ctx, needs_flush, now)
        job, finished = ctx.job, ctx.finished
        needs_flush, with_finalizer = counted.needs_flush, counted.with_finalizer
        errors: list[StatusError] = []
        if needs_flush:
            job = ctx.job = self._write_status(job)
            with self._lock:
                self._backoff[key] = ctx.backoff
            needs_flush = False
        status = job["status"]
        uncounted = uncounted_of(status)
        if counted.to_remove:
            with self._lock:
                self._finalizers.setdefault(key, set()).update(
                    uid_of(p) for p in counted.to_remove)
            for pod in counted.to_remove:
                if self.pod_control.remove_finalizer(pod, errors):
                    with_finalizer.discard(uid_of(pod))
                else:
                    with self._lock:
                        self._finalizers.get(key, set()).discard(uid_of(pod))
        if clean_uncounted(status, uncounted, with_finalizer):
            needs_flush = True
        set_uncounted(status, uncounted)
        if errors:
            if needs_flush:
                self._write_status(job)
            raise errors[0]
        done = not counted.reached_max and enact_finished(ctx, status, now)
        if done or needs_flush:
            ctx.job = self._write_status(job)
        if done and finished is not None:
            self._record_finished(ctx.job, finished)

    def _record_finished(self, job: Object, finished: Mapping[str, Any]) -> None:
        spec, status = _m(job.get("spec")), _m(job.get("status"))
        if finished.get("type") == "Complete":
            completions = spec.get("completions")
            if isinstance(completions, int) and as_int(status.get("succeeded")) > completions:
                self.event(job, EVENT_WARNING, "TooManySucceededPods",
                           "Too many succeeded pods running after completion count reached")
            self.event(job, EVENT_NORMAL, "Completed", "Job completed")
        else:
            self.event(job, EVENT_WARNING, str(finished.get("reason", "")),
                       str(finished.get("message", "")))

    def _stale(self, key: str, job: Mapping[str, Any]) -> bool:
        """Whether the cached ``job`` is a version our own status write replaced.

        The pod and job informers are independent: the pod cache can show a
        tracking finalizer gone while the job cache still shows the status from
        before that pod was recorded as uncounted, and syncing that view would
        miss the pod and create a replacement. Once the cache shows anything
        newer the record is dropped (an informer never goes back in time)."""
        rv = str(_m(job.get("metadata")).get("resourceVersion") or "")
        with self._lock:
            superseded = self._superseded.get(key)
            if superseded is None:
                return False
            if rv in superseded:
                return True
            del self._superseded[key]
            return False

    def _write_status(self, job: Object) -> Object:
        """``UpdateStatus`` with the cached resourceVersion: a stale view is a Conflict
        (retried with back-off), never an overwrite. Zero counters are omitted as
        ``omitempty`` does; ``ready`` and ``terminating`` are pointers and stay."""
        status = job["status"]
        for key in ("active", "succeeded", "failed"):
            if not status.get(key):
                status.pop(key, None)
        replaced = str(job["metadata"].get("resourceVersion") or "")
        written = self.client.update(job, subresource="status")
        with self._lock:
            self._superseded.setdefault(key_of(job), set()).add(replaced)
        return written
