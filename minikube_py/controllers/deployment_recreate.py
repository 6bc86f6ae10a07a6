"""The Recreate strategy (Kubernetes' ``recreate.go``).

Old and new pods never run together: every old ReplicaSet is scaled to 0
first; the new ReplicaSet is created (or found) and scaled up only once no
pod of an old ReplicaSet is left that could still be running (terminal
``Failed`` / ``Succeeded`` pods do not count; terminating ones do). Pod
deletions wake the deployment (see the controller's pod handler), so the
scale-up follows the last old pod's disappearance without polling.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .deployment_progress import (
    deployment_complete,
)
from .deployment_util import (
    Obj,
    actual_replicas,
    filter_active,
    replicas,
    status,
    uid_of,
)

if TYPE_CHECKING:
    from .deployment import DeploymentController


def rollout_recreate(ctl: DeploymentController, d: Obj, rs_list: list[Obj],
                     pod_map: Mapping[str, Sequence[Obj]]) -> float | None:
    # Do not create the new ReplicaSet yet: nothing may scale up before the
    # old pods are gone.
    new_rs, old_rss = ctl.get_all_replica_sets_and_sync_revision(d, rs_list, create=False)
    all_rss: list[Obj | None] = [*old_rss, new_rs]

    if scale_down_old_replica_sets(ctl, filter_active(old_rss), d):
        return ctl.sync_rollout_status(all_rss, new_rs, d)
    if old_pods_running(new_rs, old_rss, pod_map):
        return ctl.sync_rollout_status(all_rss, new_rs, d)
    if new_rs is None:
        new_rs, old_rss = ctl.get_all_replica_sets_and_sync_revision(d, rs_list, create=True)
        all_rss = [*old_rss, new_rs]
    assert new_rs is not None
    ctl.scale_replica_set_and_record_event(new_rs, replicas(d), d)
    if deployment_complete(d, status(d)):
        ctl.cleanup_deployment(old_rss, d)
    return ctl.sync_rollout_status(all_rss, new_rs, d)


def scale_down_old_replica_sets(ctl: DeploymentController, old_rss: list[Obj], d: Obj) -> bool:
    scaled = False
    for rs in old_rss:
        if replicas(rs) == 0:
            continue
        moved, _ = ctl.scale_replica_set_and_record_event(rs, 0, d)
        scaled = scaled or moved
    return scaled


def old_pods_running(new_rs: Obj | None, old_rss: Sequence[Obj],
                     pod_map: Mapping[str, Sequence[Obj]]) -> bool:
    """``oldPodsRunning``: an old ReplicaSet still reports pods, or a pod of
    one is not in a terminal phase (Unknown counts as running)."""
    if actual_replicas(old_rss) > 0:
        return True
    new_uid = uid_of(new_rs) if new_rs is not None else None
    for rs_uid, pods in pod_map.items():
        if rs_uid == new_uid:
            continue
        for pod in pods:
            if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
                continue
            return True
    return False
