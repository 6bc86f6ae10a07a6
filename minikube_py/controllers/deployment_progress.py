"""Conditions and status of a Deployment, and the progress of a rollout.

Kubernetes' ``progress.go``, ``calculateStatus`` and the condition helpers of
``deployment_util.go``, as pure functions over a Deployment dict and its
ReplicaSets (the controller writes the result). ``now`` is always passed in,
so an injected clock drives every deadline.

* :func:`set_condition` is ``SetDeploymentCondition``: no change when status
  and reason are the same; ``lastTransitionTime`` kept while the status holds.
* :func:`calculate_status`: observedGeneration, replicas, updatedReplicas,
  readyReplicas, availableReplicas, unavailableReplicas (zero fields left
  out, all are omitempty), the stored conditions and collisionCount, and
  Available: ``MinimumReplicasAvailable`` when at least
  ``replicas - maxUnavailable`` replicas are available, else
  ``MinimumReplicasUnavailable``.
* :func:`rollout_status` is ``syncRolloutStatus`` without the write: when
  ``progressDeadlineSeconds`` is set and the last rollout is not already
  complete, one of ``NewReplicaSetAvailable`` (complete),
  ``ReplicaSetUpdated`` (progress since the stored status: its
  ``lastUpdateTime`` moves, ``lastTransitionTime`` stays) or
  ``ProgressDeadlineExceeded`` (status False: no progress for the deadline),
  and the ReplicaSets' ReplicaFailure condition.
* :func:`progress_requeue` is ``requeueStuckDeployment``: seconds after which
  a deployment that shows no progress must be looked at again, so that the
  deadline is noticed without any event (``None``: no need).
* :func:`paused_condition` is ``checkPausedConditions``: ``DeploymentPaused``
  / ``DeploymentResumed`` (status Unknown), so time spent paused never counts
  against the deadline.
* :func:`min_ready_requeue`: seconds until a ready pod passes
  ``minReadySeconds`` and becomes available (a safety net: the ReplicaSet
  controller's status update normally wakes the deployment first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..api.timefmt import format_time, parse_time
from .deployment_util import (
    AVAILABLE,
    MINIMUM_REPLICAS_AVAILABLE,
    MINIMUM_REPLICAS_UNAVAILABLE,
    NEW_RS_AVAILABLE_REASON,
    PAUSED_DEPLOY_REASON,
    PROGRESSING,
    REPLICA_FAILURE,
    REPLICA_SET_UPDATED_REASON,
    RESUMED_DEPLOY_REASON,
    TIMED_OUT_REASON,
    Obj,
    actual_replicas,
    available_replicas,
    has_progress_deadline,
    int_value,
    max_unavailable,
    meta,
    name_of,
    ready_replicas,
    replicas,
    spec,
    status,
    total_replicas,
)


def new_condition(type_: str, status_: str, reason: str, message: str, now: float) -> Obj:
    stamp = format_time(now)
    return {"type": type_, "status": status_, "lastUpdateTime": stamp,
            "lastTransitionTime": stamp, "reason": reason, "message": message}


def get_condition(st: Mapping[str, Any], type_: str) -> Obj | None:
    for cond in st.get("conditions") or []:
        if isinstance(cond, dict) and cond.get("type") == type_:
            return cond
    return None


def set_condition(st: Obj, cond: Obj) -> None:
    """``SetDeploymentCondition``: no-op when status and reason are unchanged;
    keeps ``lastTransitionTime`` when only the reason changes."""
    current = get_condition(st, cond["type"])
    if current is not None and current.get("status") == cond["status"] and \
            current.get("reason") == cond["reason"]:
        return
    if current is not None and current.get("status") == cond["status"]:
        cond = {**cond, "lastTransitionTime": current.get("lastTransitionTime")}
    rest = [c for c in st.get("conditions") or [] if c.get("type") != cond["type"]]
    st["conditions"] = [*rest, cond]


def remove_condition(st: Obj, type_: str) -> None:
    rest = [c for c in st.get("conditions") or [] if c.get("type") != type_]
    if rest:
        st["conditions"] = rest
    else:
        st.pop("conditions", None)


def deployment_complete(d: Mapping[str, Any], new_status: Mapping[str, Any]) -> bool:
    """``DeploymentComplete``: every replica updated and available, nothing
    old left, and the latest generation observed."""
    want = replicas(d)
    return (int_value(new_status.get("updatedReplicas")) == want
            and int_value(new_status.get("replicas")) == want
            and int_value(new_status.get("availableReplicas")) == want
            and int_value(new_status.get("observedGeneration"))
            >= int_value(meta(d).get("generation")))


def deployment_progressing(d: Mapping[str, Any], new_status: Mapping[str, Any]) -> bool:
    """``DeploymentProgressing``: more updated, fewer old, more ready or more
    available replicas than the stored status says."""
    old = status(d)

    def grew(field: str) -> bool:
        return int_value(new_status.get(field)) > int_value(old.get(field))

    old_old = int_value(old.get("replicas")) - int_value(old.get("updatedReplicas"))
    new_old = int_value(new_status.get("replicas")) - int_value(new_status.get("updatedReplicas"))
    return (grew("updatedReplicas") or new_old < old_old or grew("readyReplicas")
            or grew("availableReplicas"))


def deployment_timed_out(d: Mapping[str, Any], new_status: Mapping[str, Any],
                         now: float) -> bool:
    """``DeploymentTimedOut``: no progress reported for progressDeadlineSeconds."""
    if not has_progress_deadline(d):
        return False
    cond = get_condition(new_status, PROGRESSING)
    if cond is None:
        return False
    if cond.get("reason") == NEW_RS_AVAILABLE_REASON:
        return False
    if cond.get("reason") == TIMED_OUT_REASON:
        return True
    since = parse_time(cond.get("lastUpdateTime"))
    if since is None:
        return False
    return since + int(spec(d)["progressDeadlineSeconds"]) < now


def calculate_status(all_rss: Sequence[Obj | None], new_rs: Obj | None,
                     d: Mapping[str, Any], now: float) -> Obj:
    """``calculateStatus``: counts from the ReplicaSets, the stored conditions,
    and the Available condition. Zero fields are left out (all omitempty)."""
    available = available_replicas(all_rss)
    total = total_replicas(all_rss)
    fields = {
        "observedGeneration": int_value(meta(d).get("generation")),
        "replicas": actual_replicas(all_rss),
        "updatedReplicas": actual_replicas([new_rs]),
        "readyReplicas": ready_replicas(all_rss),
        "availableReplicas": available,
        "unavailableReplicas": max(0, total - available),
    }
    new_status: Obj = {k: v for k, v in fields.items() if v}
    old = status(d)
    if old.get("conditions"):
        new_status["conditions"] = [dict(c) for c in old["conditions"]]
    if old.get("collisionCount") is not None:
        new_status["collisionCount"] = old["collisionCount"]
    if available >= replicas(d) - max_unavailable(d):
        set_condition(new_status, new_condition(
            AVAILABLE, "True", MINIMUM_REPLICAS_AVAILABLE, "Deployment has minimum availability.",
            now))
    else:
        set_condition(new_status, new_condition(
            AVAILABLE, "False", MINIMUM_REPLICAS_UNAVAILABLE,
            "Deployment does not have minimum availability.", now))
    return new_status


def replica_failure_condition(all_rss: Sequence[Obj | None], new_rs: Obj | None) -> Obj | None:
    """``getReplicaFailures``: a ReplicaFailure of the new ReplicaSet first,
    else of any, as a deployment condition."""
    ordered = ([new_rs] if new_rs is not None else []) + [rs for rs in all_rss if rs is not None]
    for rs in ordered:
        assert rs is not None
        for c in status(rs).get("conditions") or []:
            if isinstance(c, dict) and c.get("type") == REPLICA_FAILURE:
                return {"type": REPLICA_FAILURE, "status": c.get("status"),
                        "lastUpdateTime": c.get("lastTransitionTime"),
                        "lastTransitionTime": c.get("lastTransitionTime"),
                        "reason": c.get("reason"), "message": c.get("message")}
    return None


def normalized_status(st: Mapping[str, Any]) -> Obj:
    """A status without zero-valued omitempty fields, for comparison."""
    return {k: v for k, v in st.items() if v not in (0, None, [], {}, "")}


# ----------------------------------------------------------------- progress


def rollout_status(d: Mapping[str, Any], all_rss: Sequence[Obj | None], new_rs: Obj | None,
                   now: float) -> Obj:
    """The status ``syncRolloutStatus`` would write (see the module docstring)."""
    new_status = calculate_status(all_rss, new_rs, d, now)
    deadline = has_progress_deadline(d)
    if not deadline:
        remove_condition(new_status, PROGRESSING)
    current = get_condition(status(d), PROGRESSING)
    already_complete = (new_status.get("replicas", 0) == new_status.get("updatedReplicas", 0)
                        and current is not None
                        and current.get("reason") == NEW_RS_AVAILABLE_REASON)
    if deadline and not already_complete:
        subject = (f'ReplicaSet "{name_of(new_rs)}"' if new_rs is not None
                   else f'Deployment "{name_of(d)}"')
        if deployment_complete(d, new_status):
            set_condition(new_status, new_condition(
                PROGRESSING, "True", NEW_RS_AVAILABLE_REASON,
                f"{subject} has successfully progressed.", now))
        elif deployment_progressing(d, new_status):
            cond = new_condition(PROGRESSING, "True", REPLICA_SET_UPDATED_REASON,
                                 f"{subject} is progressing.", now)
            # Unlike other conditions, Progressing is rewritten with the same
            # reason so that lastUpdateTime records the latest progress.
            if current is not None:
                if current.get("status") == "True":
                    cond["lastTransitionTime"] = current.get("lastTransitionTime")
                remove_condition(new_status, PROGRESSING)
            set_condition(new_status, cond)
        elif deployment_timed_out(d, new_status, now):
            set_condition(new_status, new_condition(
                PROGRESSING, "False", TIMED_OUT_REASON,
                f"{subject} has timed out progressing.", now))
    failure = replica_failure_condition(all_rss, new_rs)
    if failure is not None:
        set_condition(new_status, failure)
    else:
        remove_condition(new_status, REPLICA_FAILURE)
    return new_status


def progress_requeue(d: Mapping[str, Any], new_status: Mapping[str, Any],
                     now: float) -> float | None:
    """``requeueStuckDeployment``: when to check the deadline again."""
    current = get_condition(status(d), PROGRESSING)
    if not has_progress_deadline(d) or current is None:
        return None
    if deployment_complete(d, new_status) or current.get("reason") == TIMED_OUT_REASON:
        return None
    since = parse_time(current.get("lastUpdateTime"))
    if since is None:
        return None
    after = since + int(spec(d)["progressDeadlineSeconds"]) - now
    if after < 1.0:
        # Nearly due: look again shortly (Kubernetes requeues rate-limited).
        return max(after, 0.0) + 0.1
    # A second more absorbs the timestamps' second precision.
    return after + 1.0


def paused_condition(d: Obj, now: float) -> bool:
    """``checkPausedConditions``: set DeploymentPaused / DeploymentResumed on
    ``d``'s status; True when the status changed and must be written."""
    if not has_progress_deadline(d):
        return False
    st = d.setdefault("status", {})
    cond = get_condition(st, PROGRESSING)
    if cond is not None and cond.get("reason") == TIMED_OUT_REASON:
        return False  # a reported failure is never hidden by pausing
    paused_cond = cond is not None and cond.get("reason") == PAUSED_DEPLOY_REASON
    paused = bool(spec(d).get("paused"))
    if paused and not paused_cond:
        set_condition(st, new_condition(PROGRESSING, "Unknown", PAUSED_DEPLOY_REASON,
                                        "Deployment is paused", now))
        return True
    if not paused and paused_cond:
        set_condition(st, new_condition(PROGRESSING, "Unknown", RESUMED_DEPLOY_REASON,
                                        "Deployment is resumed", now))
        return True
    return False


def min_ready_requeue(pods: Iterable[Mapping[str, Any]], min_ready_seconds: int,
                      now: float) -> float | None:
    """Seconds until the next ready pod becomes available (``IsPodAvailable``:
    ready, and ready for longer than ``minReadySeconds``)."""
    if min_ready_seconds <= 0:
        return None
    soonest: float | None = None
    for pod in pods:
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            continue
        for cond in (pod.get("status") or {}).get("conditions") or []:
            if cond.get("type") != "Ready" or cond.get("status") != "True":
                continue
            since = parse_time(cond.get("lastTransitionTime"))
            if since is None:
                continue
            left = since + min_ready_seconds - now
            if left >= 0:
                # Available once strictly past the mark; timestamps have
                # second precision, so allow for it.
                wait = left + 1.0
                soonest = wait if soonest is None else min(soonest, wait)
    return soonest
