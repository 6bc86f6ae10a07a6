"""When a Job succeeds, fails, or waits, as ``pkg/controller/job`` decides it:
the pod failure back-off (``backoffRecord``, 10 s doubling per consecutive
failure up to 10 min, counted from the last failure), the failure policy
(``backoffLimit``, container restarts under ``restartPolicy: OnFailure``,
``activeDeadlineSeconds``), the success criteria (``completions``, or one
success when unset) and how many pods should be active.

Pure functions over Kubernetes-shaped dicts: no API calls and no clock (``now``
is passed in); nothing here mutates its arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..api.access import mapping as _m
from ..api.timefmt import parse_time as _parse_time
from .job_util import as_int, get_condition, is_suspended, new_condition, phase_of

#: ``DefaultJobPodFailureBackOff`` and ``MaxJobPodFailureBackOff``. The Job docs
#: still say "capped at six minutes"; the controller's constant is 10 minutes.
DEFAULT_POD_FAILURE_BACKOFF: Final = 10.0
MAX_POD_FAILURE_BACKOFF: Final = 600.0


# ------------------------------------------------------------------ back-off


@dataclass(slots=True)
class Backoff:
    """``backoffRecord``: failures since the last success, and when the last was."""

    failures: int = 0
    last_failure: float | None = None


def finished_time(pod: Mapping[str, Any]) -> float:
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
        return deleted - as_int(meta.get("deletionGracePeriodSeconds"))
    return _parse_time(meta.get("creationTimestamp")) or 0.0


def next_backoff(record: Backoff, succeeded: Sequence[Mapping[str, Any]],
                 failed: Sequence[Mapping[str, Any]]) -> Backoff:
    """``newBackoffRecord``: consecutive failures since the last success."""
    fail_times = sorted(finished_time(p) for p in failed)
    if not succeeded:
        if not fail_times:
            return Backoff(record.failures, record.last_failure)
        return Backoff(record.failures + len(fail_times), fail_times[-1])
    last_success = max(finished_time(p) for p in succeeded)
    later = [t for t in fail_times if t > last_success]
    return Backoff(len(later), later[-1] if later else None)


def backoff_remaining(record: Backoff, now: float, base: float, cap: float) -> float:
    """``getRemainingTime``: ``base`` doubling per failure, at most ``cap``, from
    the last one."""
    if record.failures == 0 or record.last_failure is None:
        return 0.0
    delay = base
    for _ in range(1, record.failures):
        delay *= 2
        if delay >= cap:
            delay = cap
            break
    elapsed = now - record.last_failure
    return 0.0 if delay < elapsed else delay - elapsed


# ------------------------------------------------------------------ failure


def past_backoff_limit_on_failure(job: Mapping[str, Any],
                                  pods: Sequence[Mapping[str, Any]]) -> bool:
    """``pastBackoffLimitOnFailure``: container restarts of live pods (OnFailure)."""
    spec = _m(job.get("spec"))
    if _m(_m(spec.get("template")).get("spec")).get("restartPolicy") != "OnFailure":
        return False
    restarts = 0
    for pod in pods:
        if phase_of(pod) in ("Running", "Pending"):
            status = _m(pod.get("status"))
            for key in ("initContainerStatuses", "containerStatuses"):
                restarts += sum(as_int(_m(cs).get("restartCount"))
                                for cs in status.get(key) or [])
    limit = as_int(spec.get("backoffLimit"), 6)
    return restarts > 0 if limit == 0 else restarts >= limit


def past_deadline(job: Mapping[str, Any], now: float) -> bool:
    deadline = _m(job.get("spec")).get("activeDeadlineSeconds")
    started = _parse_time(_m(job.get("status")).get("startTime"))
    if not isinstance(deadline, int) or started is None or is_suspended(job):
        return False
    return now - started >= deadline


def terminal_condition(job: Mapping[str, Any], pods: Sequence[Mapping[str, Any]], failed: int,
                       now: float) -> dict[str, Any] | None:
    """The condition a sync works towards, given ``failed`` pods in all: a True
    ``SuccessCriteriaMet`` as recorded, a True ``FailureTarget`` turned into
    ``Failed``, or a new ``FailureTarget`` for ``BackoffLimitExceeded`` or
    ``DeadlineExceeded``; None while the job is still running."""
    criteria = get_condition(job, "SuccessCriteriaMet")
    if criteria is not None and criteria.get("status") == "True":
        return dict(criteria)
    target = get_condition(job, "FailureTarget")
    if target is not None and target.get("status") == "True":
        return new_condition("Failed", str(target.get("reason", "")),
                             str(target.get("message", "")), now)
    if failed > as_int(_m(job.get("spec")).get("backoffLimit"), 6) or \
            past_backoff_limit_on_failure(job, pods):
        return new_condition("FailureTarget", "BackoffLimitExceeded",
                             "Job has reached the specified backoff limit", now)
    if past_deadline(job, now):
        return new_condition("FailureTarget", "DeadlineExceeded",
                             "Job was active longer than specified deadline", now)
    return None


def deadline_remaining(job: Mapping[str, Any], now: float) -> float | None:
    """Seconds until ``activeDeadlineSeconds`` passes (from ``startTime``, else
    from ``now``); None without a deadline or while suspended."""
    deadline = _m(job.get("spec")).get("activeDeadlineSeconds")
    if not isinstance(deadline, int) or is_suspended(job):
        return None
    started = _parse_time(_m(job.get("status")).get("startTime")) or now
    return started + deadline - now


# ------------------------------------------------------------------ success


def success_criteria_met(job: Mapping[str, Any], succeeded: int, active: int) -> bool:
    """Enough pods succeeded (one, when ``completions`` is unset) and none is active."""
    completions = _m(job.get("spec")).get("completions")
    if completions is None:
        return succeeded > 0 and active == 0
    return succeeded >= as_int(completions) and active == 0


def wanted_active(job: Mapping[str, Any], succeeded: int, active: int) -> int:
    """How many pods should be active: ``min(parallelism, completions -
    succeeded)``; with ``completions`` unset, ``parallelism`` until one succeeds,
    then no new ones (``active`` stays)."""
    spec = _m(job.get("spec"))
    parallelism = as_int(spec.get("parallelism"), 1)
    completions = spec.get("completions")
    if completions is None:
        return active if succeeded > 0 else parallelism
    return max(0, min(as_int(completions) - succeeded, parallelism))
