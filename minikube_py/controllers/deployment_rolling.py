"""The RollingUpdate strategy (Kubernetes' ``rolling.go``).

One pass of :func:`rollout_rolling` does at most one kind of step and lets
the next event (a ReplicaSet's status moving) drive the next one:

1. find or create the new ReplicaSet;
2. scale it up as far as ``maxSurge`` allows (``NewRSNewReplicas``: never
   more than ``replicas + maxSurge`` pods in all ReplicaSets), or down to
   ``replicas`` if it is larger;
3. otherwise scale old ReplicaSets down, within a budget of
   ``all pods - (replicas - maxUnavailable) - unavailable new pods``: first
   the replicas that are not available anyway ("cleanupUnhealthyReplicas",
   oldest ReplicaSet first), then available ones as long as at least
   ``replicas - maxUnavailable`` pods stay available;
4. when nothing moved and the rollout is complete, delete old ReplicaSets
   beyond ``revisionHistoryLimit``;

and always ends by writing the rollout status (Progressing / Available).
Errors of the scale-down steps are logged and swallowed, as Kubernetes does:
the status is still written and the next ReplicaSet event retries.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..api.errors import StatusError
from .deployment_progress import (
    deployment_complete,
)
from .deployment_scaling import (
    max_scaled_down,
    new_rs_target,
    rolling_scale_down_plan,
    unhealthy_cleanup_plan,
)
from .deployment_util import (
    Obj,
    filter_active,
    replicas,
    status,
    total_replicas,
)

if TYPE_CHECKING:
    from .deployment import DeploymentController

log = logging.getLogger(__name__)


def rollout_rolling(ctl: DeploymentController, d: Obj, rs_list: list[Obj]) -> float | None:
    new_rs, old_rss = ctl.get_all_replica_sets_and_sync_revision(d, rs_list, create=True)
    assert new_rs is not None  # created above, or an error was raised
    all_rss: list[Obj] = [*old_rss, new_rs]

    if reconcile_new_replica_set(ctl, all_rss, new_rs, d):
        return ctl.sync_rollout_status(all_rss, new_rs, d)
    if reconcile_old_replica_sets(ctl, all_rss, filter_active(old_rss), new_rs, d):
        return ctl.sync_rollout_status(all_rss, new_rs, d)
    if deployment_complete(d, status(d)):
        ctl.cleanup_deployment(old_rss, d)
    return ctl.sync_rollout_status(all_rss, new_rs, d)


def reconcile_new_replica_set(ctl: DeploymentController, all_rss: list[Obj], new_rs: Obj,
                              d: Obj) -> bool:
    """Scale the new ReplicaSet up within maxSurge (or down to replicas)."""
    if replicas(new_rs) == replicas(d):
        return False
    scaled, _ = ctl.scale_replica_set_and_record_event(new_rs, new_rs_target(d, all_rss, new_rs),
                                                       d)
    return scaled


def reconcile_old_replica_sets(ctl: DeploymentController, all_rss: list[Obj],
                               old_rss: list[Obj], new_rs: Obj, d: Obj) -> bool:
    """Scale old ReplicaSets down within maxUnavailable; True if any moved."""
    if total_replicas(old_rss) == 0:
        return False
    budget = max_scaled_down(d, all_rss, new_rs)
    if budget <= 0:
        return False
    try:
        old_rss, cleaned = cleanup_unhealthy_replicas(ctl, old_rss, d, budget)
    except (StatusError, ValueError) as exc:
        log.debug("deployment %s: cleaning up unhealthy replicas: %s", d["metadata"]["name"], exc)
        return False
    try:
        scaled = scale_down_old_replica_sets(ctl, [*old_rss, new_rs], old_rss, d)
    except StatusError as exc:
        log.debug("deployment %s: scaling down old replica sets: %s", d["metadata"]["name"], exc)
        return False
    return cleaned + scaled > 0


def cleanup_unhealthy_replicas(ctl: DeploymentController, old_rss: list[Obj], d: Obj,
                               max_cleanup: int) -> tuple[list[Obj], int]:
    """Remove replicas of old ReplicaSets that are not available (the
    ReplicaSet controller deletes not-ready pods first), so broken old pods
    never block the rollout."""
    updated = {id(rs): rs for rs in old_rss}
    done = 0
    for rs, size in unhealthy_cleanup_plan(old_rss, max_cleanup):
        _, after = ctl.scale_replica_set_and_record_event(rs, size, d)
        done += replicas(rs) - size
        updated[id(rs)] = after
    return [updated[id(rs)] for rs in old_rss], done


def scale_down_old_replica_sets(ctl: DeploymentController, all_rss: list[Obj],
                                old_rss: list[Obj], d: Obj) -> int:
    """Scale old ReplicaSets down, oldest first, keeping minimum availability."""
    done = 0
    for rs, size in rolling_scale_down_plan(d, all_rss, old_rss):
        ctl.scale_replica_set_and_record_event(rs, size, d)
        done += replicas(rs) - size
    return done
