"""What Jobs and their pods are made of, as the Job controller reads them:
accessors and predicates over pods (phase, readiness, deletion, the tracking
finalizer, completion index), over Jobs (conditions, suspension, completion
mode, replacement policy), the ``0,2-4`` index intervals of
``status.completedIndexes``, and building or updating Job conditions.

Pure functions over Kubernetes-shaped dicts: no API calls, no clock (``now``
is passed in), no mutation of their arguments except
:func:`ensure_condition`, which updates the ``status`` it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from ..api.access import mapping as _m
from ..api.timefmt import format_time as _rfc3339

JOB_TRACKING_FINALIZER: Final = "batch.kubernetes.io/job-tracking"
COMPLETION_INDEX_ANNOTATION: Final = "batch.kubernetes.io/job-completion-index"
JOB_API_VERSION: Final = "batch/v1"


# ------------------------------------------------------------------ objects


def as_int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def controller_ref(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for ref in _m(obj.get("metadata")).get("ownerReferences") or []:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return ref
    return None


def uid_of(obj: Mapping[str, Any]) -> str:
    return str(_m(obj.get("metadata")).get("uid") or "")


def is_deleting(obj: Mapping[str, Any]) -> bool:
    return bool(_m(obj.get("metadata")).get("deletionTimestamp"))


# ------------------------------------------------------------------ pods


def phase_of(pod: Mapping[str, Any]) -> str:
    return str(_m(pod.get("status")).get("phase") or "")


def has_tracking_finalizer(pod: Mapping[str, Any]) -> bool:
    return JOB_TRACKING_FINALIZER in (_m(pod.get("metadata")).get("finalizers") or [])


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    for cond in _m(pod.get("status")).get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return False


def is_active(pod: Mapping[str, Any]) -> bool:
    """``controller.FilterActivePods``."""
    return phase_of(pod) not in ("Succeeded", "Failed") and not is_deleting(pod)


def is_terminating(pod: Mapping[str, Any]) -> bool:
    return is_deleting(pod) and phase_of(pod) not in ("Succeeded", "Failed")


def is_pod_failed(pod: Mapping[str, Any], job: Mapping[str, Any]) -> bool:
    """``isPodFailed``: Failed, or deleted before it succeeded (orphans and
    evicted pods never reach a phase), unless only failed pods are replaced."""
    if phase_of(pod) == "Failed":
        return True
    if only_replace_failed(job):
        return False
    return is_deleting(pod) and phase_of(pod) != "Succeeded"


def completion_index(pod: Mapping[str, Any]) -> int:
    """``getCompletionIndex``: the annotation's index, -1 when missing or invalid."""
    text = _m(_m(pod.get("metadata")).get("annotations")).get(COMPLETION_INDEX_ANNOTATION)
    if not isinstance(text, str) or not text.isdigit():
        return -1
    return int(text)


# ------------------------------------------------------------------ jobs


def get_condition(job: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for cond in _m(job.get("status")).get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == kind:
            return cond
    return None


def condition_true(job: Mapping[str, Any], kind: str) -> bool:
    cond = get_condition(job, kind)
    return cond is not None and cond.get("status") == "True"


def is_finished(job: Mapping[str, Any]) -> bool:
    """``IsJobFinished``."""
    return condition_true(job, "Complete") or condition_true(job, "Failed")


def is_suspended(job: Mapping[str, Any]) -> bool:
    return _m(job.get("spec")).get("suspend") is True


def is_indexed(job: Mapping[str, Any]) -> bool:
    return _m(job.get("spec")).get("completionMode") == "Indexed"


def only_replace_failed(job: Mapping[str, Any]) -> bool:
    spec = _m(job.get("spec"))
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


# ------------------------------------------------------------------ indexes


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
    """The indexes below ``completions`` in ``0,2-4``.

    The text is the controller's own ``status.completedIndexes`` /
    ``failedIndexes``, which validation keeps well-formed on every write; a part
    that is not ``N`` or ``N-M`` anyway is left out, as Kubernetes'
    ``parseIndexesFromString`` reports it and the controller goes on without it.
    """
    out: set[int] = set()
    for part in (text or "").split(","):
        bounds = part.split("-")
        if not part or len(bounds) > 2 or not all(b.isdigit() for b in bounds):
            continue
        first, last = int(bounds[0]), int(bounds[-1])
        out.update(range(first, min(last, completions - 1) + 1))
    return out


# ------------------------------------------------------------------ conditions


def new_condition(kind: str, reason: str, message: str, now: float) -> dict[str, Any]:
    stamp = _rfc3339(now)
    cond: dict[str, Any] = {"type": kind, "status": "True", "lastProbeTime": stamp,
                            "lastTransitionTime": stamp}
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    return cond


def ensure_condition(status: dict[str, Any], kind: str, value: str, reason: str, message: str,
                     now: float) -> bool:
    """``ensureJobConditionStatus``: update or append; a False one is never appended."""
    conditions = list(status.get("conditions") or [])
    for i, cond in enumerate(conditions):
        if _m(cond).get("type") == kind:
            if cond.get("status") == value and cond.get("reason", "") == reason and \
                    cond.get("message", "") == message:
                return False
            conditions[i] = {**new_condition(kind, reason, message, now), "status": value}
            status["conditions"] = conditions
            return True
    if value == "False":
        return False
    conditions.append({**new_condition(kind, reason, message, now), "status": value})
    status["conditions"] = conditions
    return True
