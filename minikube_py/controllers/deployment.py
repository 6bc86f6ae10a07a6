"""The Deployment controller: Deployments rolled out as ReplicaSets.

Kubernetes' ``pkg/controller/deployment``, over the shared informers of
``deployments``, ``replicasets`` and ``pods``. It creates, scales and deletes
ReplicaSets and reads pods; turning a ReplicaSet's replicas into pods is the
ReplicaSet controller's job, and the ReplicaSets' status (ready, available
replicas) is what drives a rollout forward.

One reconcile (``syncDeployment``), in Kubernetes' order of precedence:

1. a selector that selects everything is refused (a ``SelectingAll`` warning);
2. ReplicaSets are *claimed*: those whose controller reference is this
   Deployment and that still match its selector, plus orphans that match
   (adopted by adding the controller reference); owned ones that no longer
   match are released;
3. a Deployment being deleted only gets its status updated;
4. ``DeploymentPaused`` / ``DeploymentResumed`` conditions;
5. paused, or a *scaling event* (an active ReplicaSet's desired-replicas
   annotation differs from ``spec.replicas``): ``sync`` — scale
   proportionally across the ReplicaSets without rolling out, and, when
   paused, clean up old ReplicaSets;
6. otherwise the strategy rolls out: :mod:`.deployment_rolling` or
   :mod:`.deployment_recreate`.

The new ReplicaSet is ``<deployment>-<pod-template-hash>``; its template,
labels and selector carry ``pod-template-hash``; it is owned by the
Deployment (``controller``, ``blockOwnerDeletion``) and annotated with the
revision (max of the old ones + 1), desired-replicas and max-replicas. A name
taken by a ReplicaSet with another template is a hash collision: the
Deployment's ``status.collisionCount`` goes up and the next pass hashes
differently.

Writes: ReplicaSets by ``update`` (compare-and-swap on the cached
resourceVersion: a stale cache is a Conflict, retried with back-off), the
Deployment's status through the ``status`` subresource and only when it
changed, and the Deployment's revision annotation by a merge patch (the
status subresource here keeps metadata, as it does for every kind).
Events (``ScalingReplicaSet`` and friends) are worded as Kubernetes words
them. ``reconcile`` returns when to look again for a progress deadline or a
``minReadySeconds`` still to pass.

Handlers map ReplicaSets to their owning Deployment (orphans to every
Deployment that selects them) and pod deletions to the Deployment of their
ReplicaSet when it uses the Recreate strategy.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..api.access import labels_of as _labels
from ..api.access import namespace_of as _namespace
from ..api.errors import AlreadyExists, Conflict, Forbidden, NotFound, StatusError
from ..api.jsoncopy import deep_copy
from ..api.labels import Selector, selector_from_label_selector
from ..client.base import Client
from ..client.events import EventRecorder
from ..client.informer import Handlers, key_of
from ..client.shared import SharedInformers
from .base import Controller
from .deployment_progress import (
    calculate_status,
    get_condition,
    min_ready_requeue,
    new_condition,
    normalized_status,
    paused_condition,
    progress_requeue,
    rollout_status,
    set_condition,
)
from .deployment_recreate import rollout_recreate
from .deployment_rolling import rollout_rolling
from .deployment_scaling import (
    cleanup_candidates,
    is_saturated,
    new_rs_new_replicas,
    proportional_scale_plan,
)
from .deployment_util import (
    FAILED_RS_CREATE_REASON,
    FOUND_NEW_RS_REASON,
    NEW_REPLICA_SET_REASON,
    POD_TEMPLATE_HASH_LABEL,
    PROGRESSING,
    RECREATE,
    REVISION_ANNOTATION,
    ROLLING_UPDATE,
    Obj,
    compute_hash,
    controller_of,
    controller_ref,
    desired_replicas_annotation,
    equal_ignore_hash,
    filter_active,
    find_active_or_latest,
    find_new_replica_set,
    find_old_replica_sets,
    has_progress_deadline,
    has_revision_history_limit,
    is_rolling_update,
    max_revision,
    max_surge,
    meta,
    name_of,
    replicas,
    replicas_annotations_need_update,
    set_deployment_revision,
    set_new_replica_set_annotations,
    set_replicas_annotations,
    spec,
    status,
    strategy_type,
    uid_of,
)

log = logging.getLogger(__name__)

EVENT_NORMAL = "Normal"
EVENT_WARNING = "Warning"


def _selector(d: Mapping[str, Any]) -> Selector:
    sel = spec(d).get("selector")
    return selector_from_label_selector(sel if isinstance(sel, Mapping) else None)






class DeploymentController(Controller):
    """Reconciles Deployments against their ReplicaSets (see the module docstring)."""

    name = "deployment-controller"

    def __init__(self, client: Client, informers: SharedInformers, *, workers: int = 2,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None) -> None:
        super().__init__(client, informers, workers=workers, clock=clock, recorder=recorder)
        self.deployments = self.watch("deployments")
        self.replicasets = self.watch("replicasets", key=self._keys_for_replica_set)
        self.pods = self.informers.get("pods")
        self.pods.add_handlers(Handlers(on_delete=self._on_pod_deleted))

    # ------------------------------------------------------------------ handlers

    def _deployment_for_ref(self, namespace: str, ref: Mapping[str, Any] | None) -> Obj | None:
        """``resolveControllerRef``: the cached Deployment a controller
        reference points at, if it is still the same object (uid)."""
        if ref is None or ref.get("kind") != "Deployment":
            return None
        d = self.deployments.get(f"{namespace}/{ref.get('name')}")
        if d is None or uid_of(d) != ref.get("uid"):
            return None
        return d

    def _keys_for_replica_set(self, rs: Mapping[str, Any]) -> list[str]:
        ns = _namespace(rs)
        ref = controller_of(rs)
        if ref is not None:
            d = self._deployment_for_ref(ns, ref)
            return [key_of(d)] if d is not None else []
        # An orphan: every Deployment that would adopt it should look.
        labels = _labels(rs)
        keys = []
        for d in self.deployments.list():
            if _namespace(d) != ns:
                continue
            sel = _selector(d)
            if sel.empty() or not sel.matches(labels):
                continue
            keys.append(key_of(d))
        return keys

    def _on_pod_deleted(self, pod: Mapping[str, Any]) -> None:
        """A Recreate rollout waits for old pods to be gone: wake it."""
        ns = _namespace(pod)
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        rs = self.replicasets.get(f"{ns}/{ref.get('name')}")
        if rs is None or uid_of(rs) != ref.get("uid"):
            return
        d = self._deployment_for_ref(ns, controller_of(rs))
        if d is not None and strategy_type(d) == RECREATE:
            self.enqueue(key_of(d))

    # ------------------------------------------------------------------ reconcile

    def reconcile(self, key: str) -> float | None:
        cached = self.deployments.get(key)
        if cached is None:
            return None  # deleted: the garbage collector removes what it owned
        d: Obj = deep_copy(cached)
        d.setdefault("status", {})
        now = self.clock()

        if spec(d).get("selector") == {}:
            self.event(d, EVENT_WARNING, "SelectingAll",
                       "This deployment is selecting all pods. A non-empty selector is required.")
            if status(d).get("observedGeneration", 0) < meta(d).get("generation", 0):
                d["status"]["observedGeneration"] = meta(d).get("generation", 0)
                self._update_status(d)
            return None

        rs_list = self._claim_replica_sets(d)
        pod_map = self._pod_map(d, rs_list)
        again = self._sync(d, rs_list, pod_map, now)
        ready = min_ready_requeue(
            [p for pods in pod_map.values() for p in pods],
            int(spec(d).get("minReadySeconds") or 0), now)
        candidates = [t for t in (again, ready) if t is not None]
        return min(candidates) if candidates else None

    def _sync(self, d: Obj, rs_list: list[Obj], pod_map: Mapping[str, Sequence[Obj]],
              now: float) -> float | None:
        if meta(d).get("deletionTimestamp"):
            new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list,
                                                                          create=False)
            self._sync_deployment_status([*old_rss, new_rs], new_rs, d)
            return None
        if paused_condition(d, now):
            self._update_status(d)
        if spec(d).get("paused") or self._is_scaling_event(d, rs_list):
            self._sync_scaling(d, rs_list)
            return None
        kind = strategy_type(d)
        if kind == RECREATE:
            return rollout_recreate(self, d, rs_list, pod_map)
        if kind == ROLLING_UPDATE:
            return rollout_rolling(self, d, rs_list)
        raise ValueError(f"unexpected deployment strategy type: {kind}")

    # ------------------------------------------------------------------ claiming

    def _claim_replica_sets(self, d: Obj) -> list[Obj]:
        """``ClaimReplicaSets``: ours that match, orphans that match (adopted);
        ours that stopped matching are released."""
        ns = _namespace(d)
        sel = _selector(d)
        deleting = bool(meta(d).get("deletionTimestamp"))
        claimed: list[Obj] = []
        for cached in self.replicasets.list():
            if _namespace(cached) != ns:
                continue
            rs = deep_copy(cached)
            ref = controller_of(rs)
            matches = sel.matches(_labels(rs))
            if ref is not None:
                if ref.get("uid") != uid_of(d):
                    continue
                if matches:
                    claimed.append(rs)
                elif not deleting:
                    self._release(d, rs)
                continue
            if deleting or not matches or meta(rs).get("deletionTimestamp"):
                continue
            adopted = self._adopt(d, rs)
            if adopted is not None:
                claimed.append(adopted)
        return claimed

    def _can_adopt(self, d: Obj) -> None:
        """``RecheckDeletionTimestamp``: adopt only for a live, current Deployment."""
        fresh = self.client.get("deployments", _namespace(d), name_of(d))
        if uid_of(fresh) != uid_of(d):
            raise Conflict(f"original Deployment {_namespace(d)}/{name_of(d)} is gone: got uid "
                           f"{uid_of(fresh)}, wanted {uid_of(d)}")
        if meta(fresh).get("deletionTimestamp"):
            raise Conflict(f"Deployment {_namespace(d)}/{name_of(d)} has just been deleted at "
                           f"{meta(fresh)['deletionTimestamp']}")

    def _adopt(self, d: Obj, rs: Obj) -> Obj | None:
        self._can_adopt(d)
        refs = [r for r in meta(rs).get("ownerReferences") or []
                if not (isinstance(r, dict) and r.get("uid") == uid_of(d))]
        rs["metadata"]["ownerReferences"] = [*refs, controller_ref(d)]
        try:
            return self.client.update(rs)
        except NotFound:
            return None

    def _release(self, d: Obj, rs: Obj) -> None:
        refs = [r for r in meta(rs).get("ownerReferences") or []
                if not (isinstance(r, dict) and r.get("uid") == uid_of(d))]
        if refs:
            rs["metadata"]["ownerReferences"] = refs
        else:
            rs["metadata"].pop("ownerReferences", None)
        with contextlib.suppress(NotFound):
            self.client.update(rs)

    def _pod_map(self, d: Obj, rs_list: Sequence[Obj]) -> dict[str, list[Obj]]:
        """``getPodMapForDeployment``: the deployment's pods by their
        ReplicaSet's uid (terminal pods included: Recreate must see them)."""
        pod_map: dict[str, list[Obj]] = {uid_of(rs): [] for rs in rs_list}
        ns = _namespace(d)
        sel = _selector(d)
        for pod in self.pods.list():
            if _namespace(pod) != ns or not sel.matches(_labels(pod)):
                continue
            ref = controller_of(pod)
            if ref is not None and ref.get("uid") in pod_map:
                pod_map[str(ref["uid"])].append(pod)
        return pod_map

    # ------------------------------------------------------------------ new / old RSs

    def get_all_replica_sets_and_sync_revision(self, d: Obj, rs_list: Sequence[Obj], *,
                                               create: bool) -> tuple[Obj | None, list[Obj]]:
        """(the new ReplicaSet or None, every old one), the new one's revision
        and the deployment's revision annotation brought up to date."""
        _, old_rss = find_old_replica_sets(d, rs_list)
        new_rs = self._get_new_replica_set(d, rs_list, old_rss, create=create)
        return new_rs, old_rss

    def _get_new_replica_set(self, d: Obj, rs_list: Sequence[Obj], old_rss: Sequence[Obj], *,
                             create: bool) -> Obj | None:
        existing = find_new_replica_set(d, rs_list)
        new_revision = str(max_revision(old_rss) + 1)
        if existing is not None:
            synced = self._sync_existing_new_rs(d, existing, new_revision)
            if synced is not existing and isinstance(rs_list, list):
                # Later steps of this pass must write over the stored version.
                rs_list[:] = [synced if r is existing else r for r in rs_list]
            return synced
        if not create:
            return None

        template = deep_copy(spec(d).get("template") or {})
        collision = status(d).get("collisionCount")
        pod_hash = compute_hash(template, collision if isinstance(collision, int) else None)
        template.setdefault("metadata", {})
        template["metadata"]["labels"] = {**(template["metadata"].get("labels") or {}),
                                          POD_TEMPLATE_HASH_LABEL: pod_hash}
        selector = deep_copy(spec(d).get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}),
                                   POD_TEMPLATE_HASH_LABEL: pod_hash}
        rs_name = f"{name_of(d)}-{pod_hash}"
        new_spec: Obj = {"replicas": 0, "selector": selector, "template": template}
        if spec(d).get("minReadySeconds"):
            new_spec["minReadySeconds"] = spec(d)["minReadySeconds"]
        new_rs: Obj = {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs_name, "namespace": _namespace(d),
                         "ownerReferences": [controller_ref(d)],
                         "labels": dict(template["metadata"]["labels"])},
            "spec": new_spec,
        }
        count = new_rs_new_replicas(d, [*old_rss, new_rs], new_rs)
        new_spec["replicas"] = count
        set_new_replica_set_annotations(d, new_rs, new_revision, exists=False)

        already_exists = False
        try:
            created = self.client.create(new_rs)
        except AlreadyExists:
            already_exists = True
            created = self._existing_or_collision(d, rs_name)
        except StatusError as exc:
            if isinstance(exc, Forbidden) and "is being terminated" in exc.message:
                raise  # every create fails in a terminating namespace: nothing to report
            msg = f'Failed to create new replica set "{rs_name}": {exc}'
            if has_progress_deadline(d):
                set_condition(d["status"], new_condition(PROGRESSING, "False",
                                                         FAILED_RS_CREATE_REASON, msg,
                                                         self.clock()))
                # The create failure is the bigger problem to report.
                with contextlib.suppress(StatusError):
                    self._update_status(d)
            self.event(d, EVENT_WARNING, FAILED_RS_CREATE_REASON, msg)
            raise
        if not already_exists and count > 0:
            self.event(d, EVENT_NORMAL, "ScalingReplicaSet",
                       f"Scaled up replica set {rs_name} from 0 to {count}")
        self._set_revision(d, new_revision)
        needs_update = False
        if not already_exists and has_progress_deadline(d):
            set_condition(d["status"], new_condition(
                PROGRESSING, "True", NEW_REPLICA_SET_REASON,
                f'Created new replica set "{rs_name}"', self.clock()))
            needs_update = True
        if needs_update:
            self._update_status(d)
        return created

    def _existing_or_collision(self, d: Obj, rs_name: str) -> Obj:
        """The create found the name taken: ours (a slow cache) or a collision."""
        ns = _namespace(d)
        found = self.replicasets.get(f"{ns}/{rs_name}")
        rs = deep_copy(found) if found is not None else \
            self.client.get("replicasets", ns, rs_name)
        ref = controller_of(rs)
        if ref is not None and ref.get("uid") == uid_of(d) and equal_ignore_hash(
                spec(d).get("template") or {}, spec(rs).get("template") or {}):
            return rs
        before = status(d).get("collisionCount")
        d["status"]["collisionCount"] = (before if isinstance(before, int) else 0) + 1
        self._update_status(d)
        log.info("deployment %s/%s: hash collision on %s; collisionCount %s -> %s", ns,
                 name_of(d), rs_name, before, d["status"]["collisionCount"])
        raise AlreadyExists.of("replicasets", rs_name, group="apps")

    def _sync_existing_new_rs(self, d: Obj, existing: Obj, new_revision: str) -> Obj:
        rs = deep_copy(existing)
        annotations_changed = set_new_replica_set_annotations(d, rs, new_revision, exists=True)
        want_mrs = spec(d).get("minReadySeconds") or 0
        if annotations_changed or (spec(rs).get("minReadySeconds") or 0) != want_mrs:
            if want_mrs:
                rs["spec"]["minReadySeconds"] = want_mrs
            else:
                rs["spec"].pop("minReadySeconds", None)
            return self.client.update(rs)
        # The ReplicaSet's own revision is the reliable one (set when it was made
        # new), not the freshly computed max + 1.
        self._set_revision(d, str(meta(rs).get("annotations", {}).get(REVISION_ANNOTATION, "")))
        needs_update = False
        if has_progress_deadline(d) and get_condition(status(d), PROGRESSING) is None:
            set_condition(d["status"], new_condition(
                PROGRESSING, "True", FOUND_NEW_RS_REASON, f'Found new replica set "{name_of(rs)}"',
                self.clock()))
            needs_update = True
        if needs_update:
            self._update_status(d)
        return rs

    # ------------------------------------------------------------------ scaling

    def _is_scaling_event(self, d: Obj, rs_list: Sequence[Obj]) -> bool:
        """An active ReplicaSet was sized for another ``spec.replicas``."""
        new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list, create=False)
        for rs in filter_active([*old_rss, new_rs]):
            desired = desired_replicas_annotation(rs)
            if desired is not None and desired != replicas(d):
                return True
        return False

    def _sync_scaling(self, d: Obj, rs_list: Sequence[Obj]) -> None:
        """``sync``: scaling events and paused deployments."""
        new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list, create=False)
        self._scale(d, new_rs, old_rss)
        if spec(d).get("paused"):
            self.cleanup_deployment(old_rss, d)
        self._sync_deployment_status([*old_rss, new_rs], new_rs, d)

    def _scale(self, d: Obj, new_rs: Obj | None, old_rss: list[Obj]) -> None:
        """``scale``: one active ReplicaSet takes the full count; a saturated
        new one means the old ones go to 0; otherwise (rolling updates)
        the new size is spread in proportion."""
        only = find_active_or_latest(new_rs, old_rss)
        if only is not None:
            if replicas(only) != replicas(d):
                self.scale_replica_set_and_record_event(only, replicas(d), d)
            return
        if is_saturated(d, new_rs):
            for old in filter_active(old_rss):
                self.scale_replica_set_and_record_event(old, 0, d)
            return
        if is_rolling_update(d):
            plan, operation = proportional_scale_plan(d, filter_active([*old_rss, new_rs]))
            for rs, size in plan:
                self.scale_replica_set(rs, size, d, operation)

    def scale_replica_set_and_record_event(self, rs: Obj, new_scale: int,
                                           d: Obj) -> tuple[bool, Obj]:
        if replicas(rs) == new_scale:
            return False, rs
        operation = "up" if replicas(rs) < new_scale else "down"
        return self.scale_replica_set(rs, new_scale, d, operation)

    def scale_replica_set(self, rs: Obj, new_scale: int, d: Obj,
                          operation: str) -> tuple[bool, Obj]:
        """Set ``spec.replicas`` and the replica annotations; an event when
        the size changed. Returns (scaled, the ReplicaSet as stored)."""
        size_changes = replicas(rs) != new_scale
        wanted_max = replicas(d) + max_surge(d)
        if not size_changes and not replicas_annotations_need_update(rs, replicas(d),
                                                                     wanted_max):
            return False, rs
        old_scale = replicas(rs)
        rs_copy = deep_copy(rs)
        rs_copy["spec"]["replicas"] = new_scale
        set_replicas_annotations(rs_copy, replicas(d), wanted_max)
        stored = self.client.update(rs_copy)
        if size_changes:
            self.event(d, EVENT_NORMAL, "ScalingReplicaSet",
                       f"Scaled {operation} replica set {name_of(stored)} from {old_scale} to "
                       f"{new_scale}")
        return size_changes, stored

    def cleanup_deployment(self, old_rss: Sequence[Obj], d: Obj) -> None:
        """Delete old ReplicaSets beyond ``revisionHistoryLimit`` (only those
        with no replicas left)."""
        if not has_revision_history_limit(d):
            return
        for rs in cleanup_candidates(old_rss, int(spec(d)["revisionHistoryLimit"])):
            with contextlib.suppress(NotFound):
                self.client.delete("replicasets", _namespace(rs), name_of(rs))

    # ------------------------------------------------------------------ status

    def sync_rollout_status(self, all_rss: Sequence[Obj | None], new_rs: Obj | None,
                            d: Obj) -> float | None:
        """``syncRolloutStatus``: write the status if it changed, else say
        when to check the progress deadline again."""
        now = self.clock()
        new_status = rollout_status(d, all_rss, new_rs, now)
        if normalized_status(new_status) == normalized_status(status(d)):
            return progress_requeue(d, new_status, now)
        d["status"] = new_status
        self._update_status(d)
        return None

    def _sync_deployment_status(self, all_rss: Sequence[Obj | None], new_rs: Obj | None,
                                d: Obj) -> None:
        new_status = calculate_status(all_rss, new_rs, d, self.clock())
        if normalized_status(new_status) == normalized_status(status(d)):
            return
        d["status"] = new_status
        self._update_status(d)

    def _update_status(self, d: Obj) -> None:
        """Write ``d``'s status; ``d`` takes the stored resourceVersion so a
        later write of this pass does not conflict with this one."""
        stored = self.client.update(d, subresource="status")
        d["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"]
        d["status"] = stored.get("status") or {}

    def _set_revision(self, d: Obj, new_revision: str) -> None:
        """``SetDeploymentRevision``, written at once by a merge patch of the
        annotation: Kubernetes sends it along with a status update, but the
        status subresource here keeps metadata, as it does for every kind."""
        if not set_deployment_revision(d, new_revision):
            return
        stored = self.client.patch("deployments", _namespace(d), name_of(d), "merge",
                                   {"metadata": {"annotations": {REVISION_ANNOTATION:
                                                                 new_revision}}})
        if meta(stored).get("generation") != meta(d).get("generation"):
            # The spec moved on meanwhile: this pass computed for an old one.
            raise Conflict.of("deployments", name_of(d), "the object has been modified; "
                              "please apply your changes to the latest version and try again",
                              group="apps")
        d["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"]
