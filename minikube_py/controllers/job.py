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
"""

from __future__ import annotations

import contextlib
import copy
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..api.access import mapping as _m
from ..api.errors import Conflict, NotFound, StatusError
from ..api.labels import SelectorError, selector_from_label_selector
from ..api.timefmt import format_time as _rfc3339
from ..api.timefmt import parse_time as _parse_time
from ..client.base import Client, Object
from ..client.events import EVENT_NORMAL, EVENT_WARNING, EventRecorder
from ..client.expectations import ControllerExpectations
from ..client.informer import Handlers, key_of
from ..client.shared import SharedInformers
from .base import Controller

__all__ = [
    "COMPLETION_INDEX_ANNOTATION",
    "DEFAULT_POD_FAILURE_BACKOFF",
    "JOB_TRACKING_FINALIZER",
    "MAX_POD_FAILURE_BACKOFF",
    "JobController",
]

log = logging.getLogger(__name__)

JOB_TRACKING_FINALIZER: Final = "batch.kubernetes.io/job-tracking"
COMPLETION_INDEX_ANNOTATION: Final = "batch.kubernetes.io/job-completion-index"
#: ``DefaultJobPodFailureBackOff`` and ``MaxJobPodFailureBackOff``. The Job docs
#: still say "capped at six minutes"; the controller's constant is 10 minutes.
DEFAULT_POD_FAILURE_BACKOFF: Final = 10.0
MAX_POD_FAILURE_BACKOFF: Final = 600.0
#: Pods created or deleted in one sync at most (``MaxPodCreateDeletePerSync``).
MAX_POD_CHANGES_PER_SYNC: Final = 500
#: ``MaxUncountedPods``: bounds ``status.uncountedTerminatedPods``.
MAX_UNCOUNTED_PODS: Final = 500
#: Seconds before a job whose cache lags behind our own status write is looked
#: at again, should its update event be lost (``syncJobBatchPeriod``).
STALE_JOB_REQUEUE: Final = 1.0
#: ``names.MaxGeneratedNameLength``: 63 less the 5 random characters.
_MAX_GENERATED_NAME_LENGTH: Final = 58
ORPHAN_PREFIX: Final = "pod:"
_OWN_CONTROLLER: Final = "kubernetes.io/job-controller"
_API_VERSION: Final = "batch/v1"


# ------------------------------------------------------------------ helpers




def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _controller_ref(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for ref in _m(obj.get("metadata")).get("ownerReferences") or []:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return ref
    return None


def _uid(obj: Mapping[str, Any]) -> str:
    return str(_m(obj.get("metadata")).get("uid") or "")


def _phase(pod: Mapping[str, Any]) -> str:
    return str(_m(pod.get("status")).get("phase") or "")


def _deleting(obj: Mapping[str, Any]) -> bool:
    return bool(_m(obj.get("metadata")).get("deletionTimestamp"))


def _has_finalizer(pod: Mapping[str, Any]) -> bool:
    return JOB_TRACKING_FINALIZER in (_m(pod.get("metadata")).get("finalizers") or [])


def _pod_ready(pod: Mapping[str, Any]) -> bool:
    for cond in _m(pod.get("status")).get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return False


def _is_active(pod: Mapping[str, Any]) -> bool:
    """``controller.FilterActivePods``."""
    return _phase(pod) not in ("Succeeded", "Failed") and not _deleting(pod)


def _is_terminating(pod: Mapping[str, Any]) -> bool:
    return _deleting(pod) and _phase(pod) not in ("Succeeded", "Failed")


def _condition(job: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for cond in _m(job.get("status")).get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == kind:
            return cond
    return None


def _condition_true(job: Mapping[str, Any], kind: str) -> bool:
    cond = _condition(job, kind)
    return cond is not None and cond.get("status") == "True"


def is_finished(job: Mapping[str, Any]) -> bool:
    """``IsJobFinished``."""
    return _condition_true(job, "Complete") or _condition_true(job, "Failed")


def _suspended(job: Mapping[str, Any]) -> bool:
    return _m(job.get("spec")).get("suspend") is True


def _indexed(job: Mapping[str, Any]) -> bool:
    return _m(job.get("spec")).get("completionMode") == "Indexed"


def _only_replace_failed(job: Mapping[str, Any]) -> bool:
    spec = _m(job.get("spec"))
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def _is_pod_failed(pod: Mapping[str, Any], job: Mapping[str, Any]) -> bool:
    """``isPodFailed``: Failed, or deleted before it succeeded (orphans and
    evicted pods never reach a phase), unless only failed pods are replaced."""
    if _phase(pod) == "Failed":
        return True
    if _only_replace_failed(job):
        return False
    return _deleting(pod) and _phase(pod) != "Succeeded"


def _completion_index(pod: Mapping[str, Any]) -> int:
    """``getCompletionIndex``: the annotation's index, -1 when missing or invalid."""
    text = _m(_m(pod.get("metadata")).get("annotations")).get(COMPLETION_INDEX_ANNOTATION)
    if not isinstance(text, str) or not text.isdigit():
        return -1
    return int(text)


def _finished_time(pod: Mapping[str, Any]) -> float:
    """``getFinishedTime``: the last container exit, else when Ready turned
    False, else the deletion, else the creation."""
    status = _m(pod.get("status"))
    latest: float | None = None
    statuses = status.get("containerStatuses") or []
    for cs in statuses:
        finished = _parse_time(_m(_m(_m(cs).get("state")).get("terminated")).get("finishedAt"))
        if finished is None:
            latest = None
            break
        latest = finished if latest is None else max(latest, finished)
    if latest is not None and statuses:
        return latest
    for cond in status.get("conditions") or []:
        if _m(cond).get("type") == "Ready" and _m(cond).get("status") == "False":
            when = _parse_time(_m(cond).get("lastTransitionTime"))
            if when is not None:
                return when
    meta = _m(pod.get("metadata"))
    deleted = _parse_time(meta.get("deletionTimestamp"))
    if deleted is not None:
        return deleted - _int(meta.get("deletionGracePeriodSeconds"))
    return _parse_time(meta.get("creationTimestamp")) or 0.0


def _removal_rank(pod: Mapping[str, Any]) -> tuple[Any, ...]:
    """``controller.ActivePods`` order: pods earlier in their life go first."""
    status = _m(pod.get("status"))
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(_phase(pod), 1)
    restarts = sum(_int(_m(cs).get("restartCount")) for cs in status.get("containerStatuses")
                   or [])
    created = _parse_time(_m(pod.get("metadata")).get("creationTimestamp")) or 0.0
    return (bool(_m(pod.get("spec")).get("nodeName")), phase_rank, _pod_ready(pod), -restarts,
            -created)


def format_indexes(indexes: Iterable[int]) -> str:
    """``orderedIntervals.String()``: ``0,2-4``."""
    out: list[str] = []
    ordered = sorted(set(indexes))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


def parse_indexes(text: str, completions: int) -> set[int]:
    """The indexes below ``completions`` in ``0,2-4``; malformed parts are skipped."""
    out: set[int] = set()
    for part in (text or "").split(","):
        bounds = part.split("-")
        if not part or len(bounds) > 2 or not all(b.isdigit() for b in bounds):
            continue
        first, last = int(bounds[0]), int(bounds[-1])
        out.update(range(first, min(last, completions - 1) + 1))
    return out


def _generate_name_with_index(job_name: str, index: int) -> str:
    """``podGenerateNameWithIndex``: ``<job>-<index>-``, the job name cut so the
    whole prefix fits a generated name (the index must survive in the name)."""
    suffix = f"-{index}-"
    prefix = job_name + suffix
    if len(prefix) > _MAX_GENERATED_NAME_LENGTH:
        prefix = job_name[:_MAX_GENERATED_NAME_LENGTH - len(suffix)] + suffix
    return prefix


def _new_condition(kind: str, reason: str, message: str, now: float) -> dict[str, Any]:
    stamp = _rfc3339(now)
    cond: dict[str, Any] = {"type": kind, "status": "True", "lastProbeTime": stamp,
                            "lastTransitionTime": stamp}
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    return cond


def _ensure_condition(status: dict[str, Any], kind: str, value: str, reason: str, message: str,
                      now: float) -> bool:
    """``ensureJobConditionStatus``: update or append; a False one is never appended."""
    conditions = list(status.get("conditions") or [])
    for i, cond in enumerate(conditions):
        if _m(cond).get("type") == kind:
            if cond.get("status") == value and cond.get("reason", "") == reason and \
                    cond.get("message", "") == message:
                return False
            conditions[i] = {**_new_condition(kind, reason, message, now), "status": value}
            status["conditions"] = conditions
            return True
    if value == "False":
        return False
    conditions.append({**_new_condition(kind, reason, message, now), "status": value})
    status["conditions"] = conditions
    return True


# ------------------------------------------------------------------ memory


@dataclass(slots=True)
class _Backoff:
    """``backoffRecord``: failures since the last success, and when the last was."""

    failures: int = 0
    last_failure: float | None = None


@dataclass(slots=True)
class _Sync:
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
    backoff: _Backoff = field(default_factory=_Backoff)
    prev_succeeded_indexes: set[int] = field(default_factory=set)
    succeeded_indexes: set[int] = field(default_factory=set)
    requeue: float | None = None

    def wake_in(self, seconds: float) -> None:
        seconds = max(0.0, seconds)
        self.requeue = seconds if self.requeue is None else min(self.requeue, seconds)


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
        self._finalizers: dict[str, set[str]] = {}  # job key -> pod uids awaiting removal
        self._backoff: dict[str, _Backoff] = {}
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
        if job is None or _uid(job) != ref.get("uid"):
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
        if _has_finalizer(pod):
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
        uid = _uid(job)
        namespace = _m(job.get("metadata")).get("namespace")
        for pod in self.pods.list():
            ref = _controller_ref(pod)
            if ref is not None and ref.get("uid") == uid and \
                    _m(pod.get("metadata")).get("namespace") == namespace:
                self._orphan(pod)

    def _pod_added(self, pod: Object) -> None:
        if _deleting(pod):
            # A pod already being deleted is no creation to wait for.
            self._pod_gone(pod, final=False)
            return
        namespace = str(_m(pod.get("metadata")).get("namespace"))
        ref = _controller_ref(pod)
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
        if _deleting(new):
            self._pod_gone(new, final=False)
            return
        namespace = str(_m(new.get("metadata")).get("namespace"))
        old_ref, new_ref = _controller_ref(old), _controller_ref(new)
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
        job = self._resolve(namespace, _controller_ref(pod))
        if job is None or is_finished(job):
            self._orphan(pod)
            if job is None:
                return
        key = key_of(job)
        uid = _uid(pod)
        self.expectations.deletion_observed(key, uid)
        with self._lock:
            if final or not _has_finalizer(pod):
                self._finalizers.get(key, set()).discard(uid)
        self.enqueue(key)

    def _finalizer_observed(self, key: str, pod: Mapping[str, Any]) -> None:
        if not _has_finalizer(pod):
            with self._lock:
                self._finalizers.get(key, set()).discard(_uid(pod))

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
        return self._sync(key, copy.deepcopy(shared))

    def _sync(self, key: str, job: Object) -> float | None:
        now = self.clock()
        spec = job.setdefault("spec", {})
        status = job.setdefault("status", {})
        uncounted = _m(status.get("uncountedTerminatedPods"))
        satisfied = self.expectations.satisfied(key)
        pods = self._pods_for_job(job)
        active = [p for p in pods if _is_active(p)]
        with self._lock:
            expected_rm = set(self._finalizers.get(key, set()))
            record = self._backoff.get(key, _Backoff())
        ctx = _Sync(job=job, pods=pods, active=active,
                    uncounted_succeeded={str(u) for u in uncounted.get("succeeded") or []},
                    uncounted_failed={str(u) for u in uncounted.get("failed") or []},
                    expected_rm=expected_rm, ready=sum(1 for p in active if _pod_ready(p)),
                    terminating=sum(1 for p in pods if _is_terminating(p)))
        new_succeeded, new_failed = self._new_finished_pods(ctx)
        ctx.succeeded = _int(status.get("succeeded")) + len(new_succeeded) + len(
            ctx.uncounted_succeeded)
        ctx.failed = _int(status.get("failed")) + len(new_failed) + len(ctx.uncounted_failed)
        if status.get("startTime") is None and not _suspended(job):
            status["startTime"] = _rfc3339(now)
        ctx.backoff = self._next_backoff(record, new_succeeded, new_failed)

        deadline = spec.get("activeDeadlineSeconds")
        criteria = _condition(job, "SuccessCriteriaMet")
        if criteria is not None and criteria.get("status") == "True":
            ctx.finished = dict(criteria)
        else:
            target = _condition(job, "FailureTarget")
            if target is not None and target.get("status") == "True":
                ctx.finished = _new_condition("Failed", str(target.get("reason", "")),
                                              str(target.get("message", "")), now)
            elif ctx.failed > _int(spec.get("backoffLimit"), 6) or \
                    self._past_backoff_limit_on_failure(job, pods):
                ctx.finished = _new_condition("FailureTarget", "BackoffLimitExceeded",
                                              "Job has reached the specified backoff limit",
                                              now)
            elif self._past_deadline(job, now):
                ctx.finished = _new_condition("FailureTarget", "DeadlineExceeded",
                                              "Job was active longer than specified deadline",
                                              now)
            elif isinstance(deadline, int) and not _suspended(job):
                started = _parse_time(status.get("startTime")) or now
                ctx.wake_in(started + deadline - now)
        if _indexed(job):
            completions = _int(spec.get("completions"))
            ctx.prev_succeeded_indexes = parse_indexes(str(status.get("completedIndexes") or ""),
                                                       completions)
            ctx.succeeded_indexes = ctx.prev_succeeded_indexes | {
                _completion_index(p) for p in pods
                if _phase(p) == "Succeeded" and 0 <= _completion_index(p) < completions}
            ctx.succeeded = len(ctx.succeeded_indexes)

        errors: list[StatusError] = []
        active_count = len(active)
        suspend_changed = False
        if ctx.finished is not None:
            deleted_ready, deleted = self._delete_active_pods(job, active, errors)
            if deleted != len(active) or not satisfied:
                # Pods still to go or to be seen: the job is not finished yet.
                ctx.finished = None
            active_count -= deleted
            ctx.terminating += deleted
            ctx.ready -= deleted_ready
        else:
            managed = False
            if satisfied and not _deleting(job):
                active_count = self._manage(key, ctx, errors)
                managed = True
            completions = spec.get("completions")
            if completions is None:
                complete = ctx.succeeded > 0 and active_count == 0
            else:
                complete = ctx.succeeded >= _int(completions) and active_count == 0
            if complete:
                ctx.finished = _new_condition("SuccessCriteriaMet", "CompletionsReached",
                                              "Reached expected number of succeeded pods", now)
            elif managed:
                suspend_changed = self._suspension(job, now)

        needs_flush = suspend_changed or active_count != _int(status.get("active")) or \
            ctx.ready != status.get("ready") or ctx.terminating != status.get("terminating")
        status["active"] = active_count
        status["ready"] = ctx.ready
        status["terminating"] = ctx.terminating
        self._track_status(key, ctx, needs_flush, now)
        if errors:
            raise errors[0]
        return ctx.requeue

    # ------------------------------------------------------------------ pieces

    def _new_finished_pods(self, ctx: _Sync) -> tuple[list[Object], list[Object]]:
        """``getNewFinishedPods``: finished pods not yet counted anywhere."""
        completions = _int(_m(ctx.job.get("spec")).get("completions"))
        succeeded, failed = [], []
        for pod in ctx.pods:
            uid = _uid(pod)
            if not _has_finalizer(pod) or uid in ctx.expected_rm:
                continue
            if _indexed(ctx.job) and not 0 <= _completion_index(pod) < completions:
                continue
            if _phase(pod) == "Succeeded" and uid not in ctx.uncounted_succeeded:
                succeeded.append(pod)
            elif _is_pod_failed(pod, ctx.job) and uid not in ctx.uncounted_failed:
                failed.append(pod)
        return succeeded, failed

    @staticmethod
    def _next_backoff(record: _Backoff, succeeded: list[Object],
                      failed: list[Object]) -> _Backoff:
        """``newBackoffRecord``: consecutive failures since the last success."""
        fail_times = sorted(_finished_time(p) for p in failed)
        if not succeeded:
            if not fail_times:
                return _Backoff(record.failures, record.last_failure)
            return _Backoff(record.failures + len(fail_times), fail_times[-1])
        last_success = max(_finished_time(p) for p in succeeded)
        later = [t for t in fail_times if t > last_success]
        return _Backoff(len(later), later[-1] if later else None)

    def _backoff_remaining(self, record: _Backoff, now: float) -> float:
        """``getRemainingTime``: 10 s doubling per failure, capped, from the last one."""
        if record.failures == 0 or record.last_failure is None:
            return 0.0
        delay = self.pod_failure_backoff
        for _ in range(1, record.failures):
            delay *= 2
            if delay >= self.max_pod_failure_backoff:
                delay = self.max_pod_failure_backoff
                break
        elapsed = now - record.last_failure
        return 0.0 if delay < elapsed else delay - elapsed

    @staticmethod
    def _past_backoff_limit_on_failure(job: Mapping[str, Any], pods: list[Object]) -> bool:
        """``pastBackoffLimitOnFailure``: container restarts of live pods (OnFailure)."""
        spec = _m(job.get("spec"))
        if _m(_m(spec.get("template")).get("spec")).get("restartPolicy") != "OnFailure":
            return False
        restarts = 0
        for pod in pods:
            if _phase(pod) in ("Running", "Pending"):
                status = _m(pod.get("status"))
                for key in ("initContainerStatuses", "containerStatuses"):
                    restarts += sum(_int(_m(cs).get("restartCount"))
                                    for cs in status.get(key) or [])
        limit = _int(spec.get("backoffLimit"), 6)
        return restarts > 0 if limit == 0 else restarts >= limit

    @staticmethod
    def _past_deadline(job: Mapping[str, Any], now: float) -> bool:
        deadline = _m(job.get("spec")).get("activeDeadlineSeconds")
        started = _parse_time(_m(job.get("status")).get("startTime"))
        if not isinstance(deadline, int) or started is None or _suspended(job):
            return False
        return now - started >= deadline

    def _suspension(self, job: Object, now: float) -> bool:
        """The Suspended condition, its events, and the clock it stops."""
        status = job["status"]
        if _suspended(job):
            changed = _ensure_condition(status, "Suspended", "True", "JobSuspended",
                                        "Job suspended", now)
            if changed:
                self.event(job, EVENT_NORMAL, "Suspended", "Job suspended")
            if status.get("startTime") is not None:
                # Lets scheduling directives change and resets activeDeadlineSeconds.
                status.pop("startTime")
                changed = True
            return changed
        changed = _ensure_condition(status, "Suspended", "False", "JobResumed", "Job resumed",
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
            ref = _controller_ref(pod)
            labels = _m(pod_meta.get("labels"))
            if ref is None:
                if not _deleting(pod) and not _deleting(job) and labels and \
                        selector.matches(labels):
                    orphans.append(pod)
                continue
            if ref.get("uid") != uid:
                continue
            if not selector.matches(labels):
                # ClaimObject: owned but no longer selected is not ours; it is
                # released unless the job itself is going away.
                if not _deleting(job):
                    self._release(job, pod)
                continue
            out.append(pod)
        if orphans and self._can_adopt(job):
            for pod in orphans:
                adopted = self._adopt(job, pod)
                if adopted is not None:
                    out.append(adopted)
        return out

    def _can_adopt(self, job: Object) -> bool:
        """``RecheckDeletionTimestamp``: a fresh read, never the cache, decides."""
        meta = job["metadata"]
        try:
            fresh = self.client.get("jobs", meta.get("namespace"), str(meta.get("name")))
        except NotFound:
            return False
        return _uid(fresh) == meta.get("uid") and not _deleting(fresh)

    def _owner_ref(self, job: Mapping[str, Any]) -> dict[str, Any]:
        meta = _m(job.get("metadata"))
        return {"apiVersion": _API_VERSION, "kind": "Job", "name": meta.get("name"),
                "uid": meta.get("uid"), "controller": True, "blockOwnerDeletion": True}

    def _adopt(self, job: Object, pod: Object) -> Object | None:
        meta = _m(pod.get("metadata"))
        finalizers = list(meta.get("finalizers") or [])
        if JOB_TRACKING_FINALIZER not in finalizers:
            finalizers.append(JOB_TRACKING_FINALIZER)
        body = {"metadata": {"uid": meta.get("uid"), "finalizers": finalizers,
                             "ownerReferences": [self._owner_ref(job)]}}
        try:
            return self.client.patch("pods", str(meta.get("namespace")), str(meta.get("name")),
                                     "strategic", body)
        except (NotFound, Conflict):
            return None

    def _release(self, job: Object, pod: Object) -> None:
        meta = _m(pod.get("metadata"))
        body: dict[str, Any] = {"metadata": {
            "uid": meta.get("uid"),
            "ownerReferences": [{"$patch": "delete", "uid": _uid(job)}]}}
        if _has_finalizer(pod):
            body["metadata"]["$deleteFromPrimitiveList/finalizers"] = [JOB_TRACKING_FINALIZER]
        with contextlib.suppress(NotFound, Conflict):
            self.client.patch("pods", str(meta.get("namespace")), str(meta.get("name")),
                              "strategic", body)

    def _manage(self, key: str, ctx: _Sync, errors: list[StatusError]) -> int:
        """``manageJob``: delete excess pods, or create missing ones (never both)."""
        job = ctx.job
        spec = job["spec"]
        active = len(ctx.active)
        if _suspended(job):
            doomed = sorted(ctx.active, key=_removal_rank)
            removed_ready, removed = self._delete_job_pods(key, job, doomed, errors)
            ctx.terminating += removed
            ctx.ready -= removed_ready
            return active - removed
        parallelism = _int(spec.get("parallelism"), 1)
        completions = spec.get("completions")
        if completions is None:
            want = active if ctx.succeeded > 0 else parallelism
        else:
            want = max(0, min(_int(completions) - ctx.succeeded, parallelism))
        doomed = self._pods_for_removal(job, ctx.active, max(0, active - want))
        if doomed:
            removed_ready, removed = self._delete_job_pods(
                key, job, doomed[:MAX_POD_CHANGES_PER_SYNC], errors)
            ctx.terminating += removed
            ctx.ready -= removed_ready
            return active - removed
        waiting = ctx.terminating if _only_replace_failed(job) else 0
        diff = want - waiting - active
        if diff <= 0:
            return active
        remaining = self._backoff_remaining(ctx.backoff, self.clock())
        if remaining > 0:
            ctx.wake_in(remaining)
            return active
        indexes: list[int | None] = [None] * min(diff, MAX_POD_CHANGES_PER_SYNC)
        if _indexed(job):
            indexes = list(self._pending_indexes(ctx, len(indexes)))
        return active + self._create_pods(key, job, indexes, errors)

    def _pods_for_removal(self, job: Object, active: list[Object], at_least: int) -> list[Object]:
        """``activePodsForRemoval``: duplicated or out-of-range indexes, then the
        least advanced pods."""
        doomed: list[Object] = []
        left = active
        if _indexed(job):
            completions = _int(_m(job.get("spec")).get("completions"))
            seen: set[int] = set()
            left = []
            for pod in sorted(active, key=_completion_index):
                index = _completion_index(pod)
                if not 0 <= index < completions or index in seen:
                    doomed.append(pod)
                else:
                    seen.add(index)
                    left.append(pod)
        if len(doomed) < at_least:
            doomed += sorted(left, key=_removal_rank)[:at_least - len(doomed)]
        return doomed

    @staticmethod
    def _pending_indexes(ctx: _Sync, count: int) -> Iterable[int]:
        """``firstPendingIndexes``: the lowest indexes neither succeeded nor running."""
        completions = _int(_m(ctx.job.get("spec")).get("completions"))
        busy = ctx.succeeded_indexes | {_completion_index(p) for p in ctx.active}
        out = 0
        for index in range(completions):
            if out >= count:
                return
            if index not in busy:
                out += 1
                yield index

    def _pod_from_template(self, job: Object, index: int | None) -> Object:
        """``GetPodFromTemplate`` plus the tracking finalizer and the index bits."""
        template = copy.deepcopy(_m(_m(job.get("spec")).get("template")))
        t_meta = _m(template.get("metadata"))
        job_name = str(job["metadata"].get("name"))
        labels = dict(_m(t_meta.get("labels")))
        annotations = dict(_m(t_meta.get("annotations")))
        finalizers = list(t_meta.get("finalizers") or [])
        if JOB_TRACKING_FINALIZER not in finalizers:
            finalizers.append(JOB_TRACKING_FINALIZER)
        pod_spec = dict(_m(template.get("spec")))
        generate_name = f"{job_name}-"
        if index is not None:
            annotations[COMPLETION_INDEX_ANNOTATION] = str(index)
            labels[COMPLETION_INDEX_ANNOTATION] = str(index)
            pod_spec["hostname"] = f"{job_name}-{index}"
            generate_name = _generate_name_with_index(job_name, index)
            for kind in ("containers", "initContainers"):
                containers = []
                for container in pod_spec.get(kind) or []:
                    c = dict(container)
                    env = list(c.get("env") or [])
                    if not any(_m(e).get("name") == "JOB_COMPLETION_INDEX" for e in env):
                        env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                            "fieldPath": f"metadata.annotations['{COMPLETION_INDEX_ANNOTATION}']"
                        }}})
                    c["env"] = env
                    containers.append(c)
                if containers:
                    pod_spec[kind] = containers
        metadata: dict[str, Any] = {"generateName": generate_name,
                                    "namespace": job["metadata"].get("namespace"),
                                    "ownerReferences": [self._owner_ref(job)],
                                    "finalizers": finalizers}
        if labels:
            metadata["labels"] = labels
        if annotations:
            metadata["annotations"] = annotations
        return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod_spec}

    def _create_pods(self, key: str, job: Object, indexes: list[int | None],
                     errors: list[StatusError]) -> int:
        """Create pods in slow-start batches (1, 2, 4, ...); stop after a failing batch."""
        self.expectations.expect_creations(key, len(indexes))
        created = 0
        batch = 1
        pending = list(indexes)
        while pending:
            failed = False
            for index in pending[:batch]:
                try:
                    pod = self.client.create(self._pod_from_template(job, index))
                except StatusError as exc:
                    self.expectations.creation_observed(key)
                    failed = True
                    if "is being terminated" in str(exc):
                        continue  # the namespace is going: nothing to report
                    self.event(job, EVENT_WARNING, "FailedCreate", f"Error creating: {exc}")
                    errors.append(exc)
                else:
                    created += 1
                    self.event(job, EVENT_NORMAL, "SuccessfulCreate",
                               f"Created pod: {pod['metadata']['name']}")
            pending = pending[batch:]
            if failed and pending:
                self.expectations.creation_observed(key, len(pending))  # never attempted
                break
            batch *= 2
        return created

    def _delete_pod(self, job: Object, pod: Object, errors: list[StatusError]) -> bool:
        meta = _m(pod.get("metadata"))
        try:
            self.client.delete("pods", str(meta.get("namespace")), str(meta.get("name")))
        except NotFound:
            return True
        except StatusError as exc:
            self.event(job, EVENT_WARNING, "FailedDelete", f"Error deleting: {exc}")
            errors.append(exc)
            return False
        self.event(job, EVENT_NORMAL, "SuccessfulDelete", f"Deleted pod: {meta.get('name')}")
        return True

    def _delete_job_pods(self, key: str, job: Object, pods: list[Object],
                         errors: list[StatusError]) -> tuple[int, int]:
        """``deleteJobPods``: finalizer off first, so the pod is not counted at all."""
        self.expectations.expect_deletions(key, [_uid(p) for p in pods])
        removed = removed_ready = 0
        for pod in pods:
            if self._remove_finalizer(pod, errors) and self._delete_pod(job, pod, errors):
                removed += 1
                removed_ready += _pod_ready(pod)
            else:
                self.expectations.deletion_observed(key, _uid(pod))
        return removed_ready, removed

    def _delete_active_pods(self, job: Object, pods: list[Object],
                            errors: list[StatusError]) -> tuple[int, int]:
        """``deleteActivePods``: the job failed; finalizers stay so the pods count."""
        removed = removed_ready = 0
        for pod in pods:
            if self._delete_pod(job, pod, errors):
                removed += 1
                removed_ready += _pod_ready(pod)
        return removed_ready, removed

    def _remove_finalizer(self, pod: Mapping[str, Any], errors: list[StatusError]) -> bool:
        if not _has_finalizer(pod):
            return True
        meta = _m(pod.get("metadata"))
        body = {"metadata": {"$deleteFromPrimitiveList/finalizers": [JOB_TRACKING_FINALIZER]}}
        try:
            self.client.patch("pods", str(meta.get("namespace")), str(meta.get("name")),
                              "strategic", body)
        except NotFound:
            return True
        except StatusError as exc:
            errors.append(exc)
            return False
        return True

    def _sync_orphan_pod(self, key: str) -> None:
        """``syncOrphanPod``: a pod whose job is gone or done loses the finalizer."""
        pod = self.pods.get(key)
        if pod is None or not _has_finalizer(pod):
            return
        ref = _controller_ref(pod)
        if ref is not None:
            if ref.get("kind") != "Job" or ref.get("apiVersion") != _API_VERSION:
                return
            job = self._resolve(str(_m(pod.get("metadata")).get("namespace")), ref)
            if job is not None:
                if _m(job.get("spec")).get("managedBy") not in (None, _OWN_CONTROLLER):
                    return
                if not is_finished(job):
                    return
        errors: list[StatusError] = []
        if not self._remove_finalizer(pod, errors) and errors:
            raise errors[0]

    # ------------------------------------------------------------------ status

    def _track_status(self, key: str, ctx: _Sync, needs_flush: bool, now: float) -> None:
        """``trackJobStatusAndRemoveFinalizers``."""
        job = ctx.job
        status = job["status"]
        uncounted: dict[str, list[str]] = {
            "succeeded": [str(u) for u in _m(status.get("uncountedTerminatedPods")).get(
                "succeeded") or []],
            "failed": [str(u) for u in _m(status.get("uncountedTerminatedPods")).get(
                "failed") or []]}
        with_finalizer = {_uid(p) for p in ctx.pods
                          if _has_finalizer(p) and _uid(p) not in ctx.expected_rm}
        if self._clean_uncounted(status, uncounted, with_finalizer):
            needs_flush = True
        indexed = _indexed(job)
        completions = _int(_m(job.get("spec")).get("completions"))
        new_indexes: list[int] = []
        to_remove: list[Object] = []
        reached_max = False
        failing = ctx.finished is not None and ctx.finished["type"] != "SuccessCriteriaMet"
        for pod in ctx.pods:
            uid = _uid(pod)
            if not _has_finalizer(pod) or uid in ctx.expected_rm:
                continue  # counted in an earlier sync
            failed = _is_pod_failed(pod, job)
            if not (_deleting(job) or ctx.finished is not None or _phase(pod) == "Succeeded"
                    or failed):
                continue
            to_remove.append(pod)
            index = _completion_index(pod)
            if _phase(pod) == "Succeeded" and uid not in ctx.uncounted_failed:
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
        self._set_uncounted(status, uncounted)
        finished = ctx.finished
        if finished is not None and finished["type"] == "FailureTarget":
            status["conditions"] = [*(status.get("conditions") or []), finished]
            needs_flush = True
            finished = _new_condition("Failed", finished.get("reason", ""),
                                      finished.get("message", ""), now)
        elif finished is not None and finished["type"] == "SuccessCriteriaMet":
            if not _condition_true(job, "SuccessCriteriaMet"):
                status["conditions"] = [*(status.get("conditions") or []), finished]
                needs_flush = True
            finished = _new_condition("Complete", finished.get("reason", ""),
                                      finished.get("message", ""), now)
        ctx.finished = finished

        errors: list[StatusError] = []
        if needs_flush:
            job = ctx.job = self._write_status(job)
            with self._lock:
                self._backoff[key] = ctx.backoff
            needs_flush = False
        status = job["status"]
        uncounted = {k: [str(u) for u in _m(status.get("uncountedTerminatedPods")).get(k) or []]
                     for k in ("succeeded", "failed")}
        if to_remove:
            with self._lock:
                self._finalizers.setdefault(key, set()).update(_uid(p) for p in to_remove)
            for pod in to_remove:
                if self._remove_finalizer(pod, errors):
                    with_finalizer.discard(_uid(pod))
                else:
                    with self._lock:
                        self._finalizers.get(key, set()).discard(_uid(pod))
        if self._clean_uncounted(status, uncounted, with_finalizer):
            needs_flush = True
        self._set_uncounted(status, uncounted)
        if errors:
            if needs_flush:
                self._write_status(job)
            raise errors[0]
        done = not reached_max and self._enact_finished(ctx, status, now)
        if done or needs_flush:
            ctx.job = self._write_status(job)
        if done and finished is not None:
            self._record_finished(ctx.job, finished)

    @staticmethod
    def _clean_uncounted(status: dict[str, Any], uncounted: dict[str, list[str]],
                         with_finalizer: set[str]) -> bool:
        """``cleanUncountedPodsWithoutFinalizers``: finalizer gone means counted."""
        changed = False
        for kind in ("succeeded", "failed"):
            keep = [u for u in uncounted[kind] if u in with_finalizer]
            if len(keep) != len(uncounted[kind]):
                status[kind] = _int(status.get(kind)) + len(uncounted[kind]) - len(keep)
                uncounted[kind] = keep
                changed = True
        return changed

    @staticmethod
    def _set_uncounted(status: dict[str, Any], uncounted: dict[str, list[str]]) -> None:
        status["uncountedTerminatedPods"] = {k: v for k, v in uncounted.items() if v}

    def _enact_finished(self, ctx: _Sync, status: dict[str, Any], now: float) -> bool:
        """``enactJobFinished``: the terminal condition, once nothing is left to count
        and no pod is still terminating."""
        finished = ctx.finished
        if finished is None:
            return False
        uncounted = _m(status.get("uncountedTerminatedPods"))
        if uncounted.get("succeeded") or uncounted.get("failed") or ctx.terminating > 0:
            return False
        _ensure_condition(status, finished["type"], "True", finished.get("reason", ""),
                          finished.get("message", ""), now)
        if finished["type"] == "Complete":
            status["completionTime"] = finished["lastTransitionTime"]
        return True

    def _record_finished(self, job: Object, finished: Mapping[str, Any]) -> None:
        spec, status = _m(job.get("spec")), _m(job.get("status"))
        if finished.get("type") == "Complete":
            completions = spec.get("completions")
            if isinstance(completions, int) and _int(status.get("succeeded")) > completions:
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
