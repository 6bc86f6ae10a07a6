"""The ReplicaSet controller: keep ``spec.replicas`` pods running for each ReplicaSet.

Kubernetes' ``pkg/controller/replicaset``, reconcile by reconcile:

* **Which pods count.** Active pods (not Succeeded/Failed, no
  ``deletionTimestamp``) in the ReplicaSet's namespace that it *owns*: its
  controller reference (``ownerReferences`` entry with ``controller: true``
  and its UID) is on them. Claiming runs every reconcile, as the
  ``ControllerRefManager`` does: an orphan whose labels match the selector is
  adopted (a strategic-merge patch adding the controller reference, pinned to
  the pod's UID) unless the ReplicaSet is being deleted (checked once per
  reconcile against a live read, so a ReplicaSet deleted a moment ago never
  adopts); an owned pod whose labels no longer match is released (a patch
  deleting the reference). Pods owned by another controller are left alone.
* **Too few.** Pods are made from the template (its labels, annotations and
  finalizers, ``generateName`` ``<rs>-``, the controller reference) in
  slow-start batches of 1, 2, 4, ... that stop after the first batch with a
  failure, at most :data:`BURST_REPLICAS` per reconcile. Creations are
  *expected* before they are made (:mod:`~minikube_py.client.expectations`):
  until the informer has shown them, or five minutes pass, the controller
  creates and deletes nothing more for that ReplicaSet, so a lagging cache
  never makes it double-create.
* **Too many.** The pods deleted are the ones Kubernetes deletes first
  (:func:`rank_for_deletion`): unscheduled before scheduled, Pending before
  Unknown before Running, not ready before ready, lower
  ``controller.kubernetes.io/pod-deletion-cost`` first, pods doubled up on a
  node with pods of the same Deployment first, then the most recently ready,
  the most restarted, the newest. With ``logarithmic_scale_down`` (Kubernetes'
  default, the ``LogarithmicScaleDown`` feature) ready and creation times
  compare by powers of two of their age, ties broken by UID. Deletions are
  expected by UID, so a pod seen first terminating and then gone counts once.
* **Status** through the ``status`` subresource, only when something changed:
  ``replicas`` (owned active pods), ``fullyLabeledReplicas`` (also carrying
  the template's labels), ``readyReplicas``, ``availableReplicas`` (ready for
  ``minReadySeconds``), ``observedGeneration``, and the ``ReplicaFailure``
  condition while creating or deleting fails. Zero counts are omitted, as the
  API serialises them. When a ready pod will become available later, the key
  is requeued for that moment.
* **Events**: ``SuccessfulCreate`` "Created pod: x", ``FailedCreate`` "Error
  creating: ...", ``SuccessfulDelete`` "Deleted pod: x", ``FailedDelete``.
* **Keys.** A pod maps to the ReplicaSet its controller reference names (when
  that ReplicaSet is in the cache with that UID); an orphan maps to every
  ReplicaSet in its namespace whose non-empty selector matches it.

Workers start only once the pod and ReplicaSet caches have synced: with an
empty pod cache every ReplicaSet would look short of pods.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..api.access import labels_of as _labels
from ..api.access import meta as _meta
from ..api.errors import Conflict, Invalid, NotFound, StatusError
from ..api.jsoncopy import deep_copy
from ..api.labels import Selector, SelectorError, selector_from_label_selector
from ..api.timefmt import format_time, parse_time
from ..client.base import Client, Object
from ..client.events import EVENT_NORMAL, EVENT_WARNING, EventRecorder
from ..client.expectations import ControllerExpectations
from ..client.informer import Handlers, key_of
from ..client.shared import SharedInformers
from .base import Controller

__all__ = [
    "BURST_REPLICAS",
    "POD_DELETION_COST",
    "ReplicaSetController",
    "calculate_status",
    "controller_ref",
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "pod_from_template",
    "pods_to_delete",
    "rank_for_deletion",
    "slow_start_batch",
]

log = logging.getLogger(__name__)

RS_API_VERSION = "apps/v1"
RS_KIND = "ReplicaSet"
#: Most pods created or deleted by one reconcile (Kubernetes' ``BurstReplicas``).
BURST_REPLICAS = 500
#: First slow-start batch (``SlowStartInitialBatchSize``).
SLOW_START_INITIAL_BATCH = 1
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}
_TERMINATING_NAMESPACE = "because it is being terminated"


# --------------------------------------------------------------- pod helpers






def controller_ref(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``ownerReferences`` entry with ``controller: true``, if any."""
    for ref in _meta(obj).get("ownerReferences") or []:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return ref
    return None


def is_pod_active(pod: Mapping[str, Any]) -> bool:
    """``FilterActivePods``: not terminal and not being deleted."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not _meta(pod).get("deletionTimestamp")


def _ready_condition(pod: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == "Ready":
            return cond
    return None


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    cond = _ready_condition(pod)
    return cond is not None and cond.get("status") == "True"


def pod_ready_time(pod: Mapping[str, Any]) -> float | None:
    """When the pod last became ready (``None`` if not ready or unknown)."""
    cond = _ready_condition(pod)
    if cond is None or cond.get("status") != "True":
        return None
    return parse_time(cond.get("lastTransitionTime"))


def is_pod_available(pod: Mapping[str, Any], min_ready_seconds: int, now: float) -> bool:
    """``podutil.IsPodAvailable``: ready, and for longer than ``min_ready_seconds``."""
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds <= 0:
        return True
    since = pod_ready_time(pod)
    return since is not None and since + min_ready_seconds < now


def _deletion_cost(pod: Mapping[str, Any]) -> int:
    value = (_meta(pod).get("annotations") or {}).get(POD_DELETION_COST)
    try:
        cost = int(str(value).strip()) if value is not None else 0
    except ValueError:
        return 0
    return cost if -(2 ** 31) <= cost < 2 ** 31 else 0


def _restarts(pod: Mapping[str, Any]) -> tuple[int, int]:
    """(max restarts of regular containers, of sidecars: restartable init containers)."""
    status = pod.get("status") or {}
    regular = max((int(c.get("restartCount") or 0)
                    for c in status.get("containerStatuses") or []), default=0)
    sidecar_names = {c.get("name") for c in (pod.get("spec") or {}).get("initContainers") or []
                     if c.get("restartPolicy") == "Always"}
    sidecar = max((int(c.get("restartCount") or 0)
                   for c in status.get("initContainerStatuses") or []
                   if c.get("name") in sidecar_names), default=0)
    return regular, sidecar


# --------------------------------------------------------------- deletion ranking


@dataclass(frozen=True, slots=True)
class _Ranked:
    pod: Object
    doubled_up: int


def _age_rank(ts: float, now: float) -> int:
    """``logarithmicRankDiff``'s rank: floor(log2(age in nanoseconds)), -1 if not past."""
    age_ns = (now - ts) * 1e9
    return int(math.log2(age_ns)) if age_ns >= 1 else -1


def _newer_first(t1: float | None, t2: float | None, uid1: str, uid2: str,
                 now: float | None, logarithmic: bool) -> int:
    """Order two different times: the more recent first, an unknown one first of all."""
    if t1 is None or t2 is None:
        return -1 if t1 is None else 1  # afterOrZero: the zero time sorts first
    if not logarithmic or now is None:
        return -1 if t1 > t2 else 1
    diff = _age_rank(t1, now) - _age_rank(t2, now)
    if diff == 0:
        return (uid1 > uid2) - (uid1 < uid2)
    return -1 if diff < 0 else 1


def _compare(a: _Ranked, b: _Ranked, now: float | None, logarithmic: bool) -> int:
    """``ActivePodsWithRanks.Less`` as a three-way comparison: negative when
    ``a`` should be deleted before ``b``."""
    pa, pb = a.pod, b.pod
    node_a = (pa.get("spec") or {}).get("nodeName") or ""
    node_b = (pb.get("spec") or {}).get("nodeName") or ""
    if node_a != node_b and (not node_a or not node_b):
        return -1 if not node_a else 1
    phase_a = _PHASE_ORDINAL.get((pa.get("status") or {}).get("phase") or "", 0)
    phase_b = _PHASE_ORDINAL.get((pb.get("status") or {}).get("phase") or "", 0)
    if phase_a != phase_b:
        return -1 if phase_a < phase_b else 1
    ready_a, ready_b = is_pod_ready(pa), is_pod_ready(pb)
    if ready_a != ready_b:
        return -1 if not ready_a else 1
    cost_a, cost_b = _deletion_cost(pa), _deletion_cost(pb)
    if cost_a != cost_b:
        return -1 if cost_a < cost_b else 1
    if a.doubled_up != b.doubled_up:
        return -1 if a.doubled_up > b.doubled_up else 1
    uid_a, uid_b = str(_meta(pa).get("uid") or ""), str(_meta(pb).get("uid") or "")
    if ready_a and ready_b:
        since_a, since_b = pod_ready_time(pa), pod_ready_time(pb)
        if since_a != since_b:
            return _newer_first(since_a, since_b, uid_a, uid_b, now, logarithmic)
    restarts_a, restarts_b = _restarts(pa), _restarts(pb)
    for ra, rb in zip(restarts_a, restarts_b, strict=True):
        if ra != rb:
            return -1 if ra > rb else 1
    created_a = parse_time(_meta(pa).get("creationTimestamp"))
    created_b = parse_time(_meta(pb).get("creationTimestamp"))
    if created_a != created_b:
        return _newer_first(created_a, created_b, uid_a, uid_b, now, logarithmic)
    return 0


def rank_for_deletion(pods: Sequence[Object], related: Iterable[Object] = (), *,
                      now: float | None = None, logarithmic: bool = True) -> list[Object]:
    """``pods`` in the order Kubernetes deletes them (first = deleted first).

    ``related`` are the pods of every ReplicaSet sharing this one's controller
    (its Deployment); a pod on a node with more of them ranks as doubled up.
    """
    on_node: dict[str, int] = {}
    for pod in related:
        if is_pod_active(pod):
            node = (pod.get("spec") or {}).get("nodeName") or ""
            on_node[node] = on_node.get(node, 0) + 1
    ranked = [_Ranked(p, on_node.get((p.get("spec") or {}).get("nodeName") or "", 0))
              for p in pods]
    ranked.sort(key=functools.cmp_to_key(
        lambda a, b: _compare(a, b, now, logarithmic)))
    return [r.pod for r in ranked]


def pods_to_delete(pods: Sequence[Object], related: Iterable[Object], n: int, *,
                   now: float | None = None, logarithmic: bool = True) -> list[Object]:
    """The ``n`` pods to delete first (``getPodsToDelete``)."""
    if n >= len(pods):
        return list(pods)
    return rank_for_deletion(pods, related, now=now, logarithmic=logarithmic)[:n]


# --------------------------------------------------------------- creation helpers


def slow_start_batch(count: int, initial_batch: int,
                     fn: Callable[[], bool]) -> tuple[int, Exception | None]:
    """Call ``fn`` ``count`` times in batches of ``initial_batch``, doubling;
    stop after a batch in which a call raised.

    ``fn`` returns True when it made something, False when it skipped without
    error. Returns (things made, the first error or None).
    """
    remaining = count
    made = 0
    batch = min(remaining, initial_batch)
    while batch > 0:
        error: Exception | None = None
        for _ in range(batch):
            try:
                if fn():
                    made += 1
            except Exception as exc:  # reported to the caller, who retries
                error = error or exc
        if error is not None:
            return made, error
        remaining -= batch
        batch = min(2 * batch, remaining)
    return made, None


def owner_reference(rs: Mapping[str, Any]) -> dict[str, Any]:
    """The controller reference a ReplicaSet puts on its pods."""
    meta = _meta(rs)
    return {"apiVersion": RS_API_VERSION, "kind": RS_KIND, "name": meta.get("name"),
            "uid": meta.get("uid"), "controller": True, "blockOwnerDeletion": True}


def pod_from_template(rs: Mapping[str, Any]) -> Object:
    """``GetPodFromTemplate``: a pod to create for ``rs``."""
    meta = _meta(rs)
    template = (rs.get("spec") or {}).get("template") or {}
    template_meta = template.get("metadata") or {}
    name = str(meta.get("name"))
    pod_meta: dict[str, Any] = {
        "generateName": f"{name}-" if len(name) < 253 else name,
        "namespace": meta.get("namespace"),
        "ownerReferences": [owner_reference(rs)],
    }
    for field in ("labels", "annotations"):
        if template_meta.get(field):
            pod_meta[field] = dict(template_meta[field])
    if template_meta.get("finalizers"):
        pod_meta["finalizers"] = list(template_meta["finalizers"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta,
            "spec": deep_copy(template.get("spec") or {})}


def _replicas(rs: Mapping[str, Any]) -> int:
    value = (rs.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


def _min_ready(rs: Mapping[str, Any]) -> int:
    return int((rs.get("spec") or {}).get("minReadySeconds") or 0)


def calculate_status(rs: Mapping[str, Any], pods: Sequence[Mapping[str, Any]],
                     manage_error: Exception | None, now: float) -> dict[str, Any]:
    """The status ``rs`` should have given its owned active ``pods``
    (``calculateStatus``), with ``observedGeneration`` set."""
    status: dict[str, Any] = deep_copy(dict(rs.get("status") or {}))
    template_labels = ((rs.get("spec") or {}).get("template") or {}).get(
        "metadata", {}).get("labels") or {}
    min_ready = _min_ready(rs)
    fully = ready = available = 0
    for pod in pods:
        labels = _labels(pod)
        if all(labels.get(k) == v for k, v in template_labels.items()):
            fully += 1
        if is_pod_ready(pod):
            ready += 1
            if is_pod_available(pod, min_ready, now):
                available += 1
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, Mapping)]
    failure = next((c for c in conditions if c.get("type") == "ReplicaFailure"), None)
    if manage_error is not None and failure is None:
        diff = len(pods) - _replicas(rs)
        cond: dict[str, Any] = {"type": "ReplicaFailure", "status": "True",
                                "lastTransitionTime": format_time(now),
                                "message": str(manage_error)}
        if diff:
            cond["reason"] = "FailedCreate" if diff < 0 else "FailedDelete"
        conditions.append(cond)
    elif manage_error is None and failure is not None:
        conditions = [c for c in conditions if c.get("type") != "ReplicaFailure"]
    status["replicas"] = len(pods)
    for field, value in (("fullyLabeledReplicas", fully), ("readyReplicas", ready),
                         ("availableReplicas", available),
                         ("observedGeneration", int(_meta(rs).get("generation") or 0))):
        if value:
            status[field] = value
        else:
            status.pop(field, None)  # omitempty, as the API serialises zero counts
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)
    return status


def _is_namespace_terminating(exc: StatusError) -> bool:
    return _TERMINATING_NAMESPACE in str(exc)


# --------------------------------------------------------------- the controller


class ReplicaSetController(Controller):
    """Keeps ReplicaSets' pods (see the module contract)."""

    name = "replicaset-controller"

    def __init__(self, client: Client, informers: SharedInformers, *, workers: int = 2,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None,
                 expectations: ControllerExpectations | None = None,
                 burst_replicas: int = BURST_REPLICAS,
                 logarithmic_scale_down: bool = True) -> None:
        super().__init__(client, informers, workers=workers, clock=clock, recorder=recorder)
        self.expectations = expectations or ControllerExpectations()
        self.burst_replicas = burst_replicas
        self.logarithmic_scale_down = logarithmic_scale_down
        self._selectors: dict[str, tuple[Any, Selector | None]] = {}
        self._selectors_lock = threading.Lock()
        self.replicasets = informers.get("replicasets")
        self.pods = informers.get("pods")
        self.replicasets.add_handlers(Handlers(on_add=self._rs_added,
                                               on_update=self._rs_updated,
                                               on_delete=self._rs_deleted))
        self.pods.add_handlers(Handlers(on_add=self._pod_added, on_update=self._pod_updated,
                                        on_delete=self._pod_deleted))
        self.synced_before_start = (self.replicasets, self.pods)

    # ------------------------------------------------------------------ selectors

    def _selector(self, rs: Mapping[str, Any]) -> Selector | None:
        """The ReplicaSet's selector (None when invalid), cached by UID."""
        uid = str(_meta(rs).get("uid") or "")
        raw = (rs.get("spec") or {}).get("selector")
        with self._selectors_lock:
            cached = self._selectors.get(uid)
            if cached is not None and cached[0] == raw:
                return cached[1]
        try:
            selector: Selector | None = selector_from_label_selector(raw)
        except SelectorError as exc:
            log.warning("%s: invalid selector of %s: %s", self.name, key_of(rs), exc)
            selector = None
        with self._selectors_lock:
            self._selectors[uid] = (deep_copy(raw), selector)
        return selector

    # ------------------------------------------------------------------ handlers

    def _rs_added(self, rs: Object) -> None:
        self.enqueue(key_of(rs))

    def _rs_updated(self, old: Object, new: Object) -> None:
        if _meta(old).get("uid") != _meta(new).get("uid"):
            self._rs_deleted(old)  # replaced under the same name meanwhile
        self.enqueue(key_of(new))

    def _rs_deleted(self, rs: Object) -> None:
        key = key_of(rs)
        self.expectations.delete_expectations(key)
        with self._selectors_lock:
            self._selectors.pop(str(_meta(rs).get("uid") or ""), None)
        self.enqueue(key)

    def _resolve(self, pod: Mapping[str, Any], ref: Mapping[str, Any] | None) -> str | None:
        """The key of the cached ReplicaSet ``ref`` names, if it is that one."""
        if ref is None or ref.get("kind") != RS_KIND or \
                str(ref.get("apiVersion", "")).split("/")[0] != "apps":
            return None
        key = f"{_meta(pod).get('namespace')}/{ref.get('name')}"
        rs = self.replicasets.get(key)
        if rs is None or _meta(rs).get("uid") != ref.get("uid"):
            return None
        return key

    def _matching_keys(self, pod: Mapping[str, Any]) -> list[str]:
        """Every ReplicaSet in the pod's namespace whose selector matches it."""
        namespace = _meta(pod).get("namespace")
        labels = _labels(pod)
        keys = []
        for rs in self.replicasets.list():
            if _meta(rs).get("namespace") != namespace:
                continue
            selector = self._selector(rs)
            if selector is None or selector.empty() or not selector.matches(labels):
                continue
            keys.append(key_of(rs))
        return keys

    def _pod_added(self, pod: Object) -> None:
        if _meta(pod).get("deletionTimestamp"):
            # Seen for the first time already terminating (e.g. after a restart):
            # count it as deleted so no expectation waits for it.
            self._pod_deleted(pod)
            return
        ref = controller_ref(pod)
        if ref is not None:
            key = self._resolve(pod, ref)
            if key is not None:
                self.expectations.creation_observed(key)
                self.enqueue(key)
            return
        for key in self._matching_keys(pod):
            self.enqueue(key)

    def _pod_updated(self, old: Object, cur: Object) -> None:
        if _meta(old).get("resourceVersion") == _meta(cur).get("resourceVersion"):
            return  # a resync: nothing changed
        labels_changed = _labels(old) != _labels(cur)
        if _meta(cur).get("deletionTimestamp"):
            # Graceful deletion started: as good as deleted for the ReplicaSet.
            self._pod_deleted(cur)
            if labels_changed:
                self._pod_deleted(old)
            return
        cur_ref, old_ref = controller_ref(cur), controller_ref(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            key = self._resolve(old, old_ref)
            if key is not None:
                self.enqueue(key)
        if cur_ref is not None:
            key = self._resolve(cur, cur_ref)
            if key is not None:
                self.enqueue(key)
            return
        if labels_changed or ref_changed:
            for key in self._matching_keys(cur):
                self.enqueue(key)

    def _pod_deleted(self, pod: Object) -> None:
        key = self._resolve(pod, controller_ref(pod))
        if key is None:
            return  # an orphan going away changes no ReplicaSet's count
        self.expectations.deletion_observed(key, str(_meta(pod).get("uid") or ""))
        self.enqueue(key)

    # ------------------------------------------------------------------ reconcile

    def reconcile(self, key: str) -> float | None:
        rs = self.replicasets.get(key)
        if rs is None:
            self.expectations.delete_expectations(key)
            return None
        needs_sync = self.expectations.satisfied(key)
        selector = self._selector(rs)
        if selector is None:
            return None  # invalid selector: nothing sensible to do until it is fixed
        namespace = _meta(rs).get("namespace")
        active = [p for p in self.pods.list()
                  if _meta(p).get("namespace") == namespace and is_pod_active(p)]
        owned = self._claim_pods(rs, selector, active)
        manage_error: Exception | None = None
        if needs_sync and not _meta(rs).get("deletionTimestamp"):
            manage_error = self._manage_replicas(rs, key, owned)
        now = self.clock()
        status = calculate_status(rs, owned, manage_error, now)
        if status != (rs.get("status") or {}):
            updated = deep_copy(rs)
            updated["status"] = status
            # A Conflict (the cache is behind) raises and is retried with backoff.
            self.client.update(updated, subresource="status")
        if manage_error is not None:
            raise manage_error
        return self._next_availability(rs, owned, now)

    def _next_availability(self, rs: Mapping[str, Any], pods: Sequence[Mapping[str, Any]],
                           now: float) -> float | None:
        """Seconds until the next ready pod becomes available, if one will."""
        min_ready = _min_ready(rs)
        if min_ready <= 0:
            return None
        waits = []
        for pod in pods:
            if is_pod_ready(pod) and not is_pod_available(pod, min_ready, now):
                since = pod_ready_time(pod)
                remaining = min_ready if since is None else since + min_ready - now
                waits.append(min(max(remaining, 0.0), float(min_ready)))
        # A hair past the moment: availability needs "ready for longer than".
        return min(waits) + 0.01 if waits else None

    # ------------------------------------------------------------------ claiming

    def _claim_pods(self, rs: Object, selector: Selector, pods: Sequence[Object]
                    ) -> list[Object]:
        """Adopt matching orphans and release non-matching owned pods; returns
        the pods ``rs`` owns. Raises the first error after trying every pod."""
        uid = _meta(rs).get("uid")
        deleting = bool(_meta(rs).get("deletionTimestamp"))
        can_adopt: list[Exception | None] = []  # computed at most once
        owned: list[Object] = []
        errors: list[Exception] = []
        for pod in pods:
            ref = controller_ref(pod)
            matches = selector.matches(_labels(pod))
            if ref is not None:
                if ref.get("uid") != uid:
                    continue  # another controller's
                if matches:
                    owned.append(pod)
                elif not deleting:
                    try:
                        self._release(rs, pod)
                    except (NotFound, Invalid):
                        pass  # gone, or the reference already went
                    except StatusError as exc:
                        errors.append(exc)
                continue
            if deleting or not matches or _meta(pod).get("deletionTimestamp"):
                continue
            if not can_adopt:
                can_adopt.append(self._check_can_adopt(rs))
            if can_adopt[0] is not None:
                errors.append(can_adopt[0])
                continue
            try:
                owned.append(self._adopt(rs, pod))
            except NotFound:
                pass
            except StatusError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]
        return owned

    def _check_can_adopt(self, rs: Mapping[str, Any]) -> Exception | None:
        """``RecheckDeletionTimestamp``: a live read, so a ReplicaSet deleted a
        moment ago (its cache entry not yet updated) adopts nothing."""
        meta = _meta(rs)
        try:
            fresh = self.client.get("replicasets", meta.get("namespace"), str(meta.get("name")))
        except StatusError as exc:
            return exc
        if _meta(fresh).get("uid") != meta.get("uid"):
            return Conflict(f"original ReplicaSet {key_of(rs)} is gone: got uid "
                            f"{_meta(fresh).get('uid')}, wanted {meta.get('uid')}")
        if _meta(fresh).get("deletionTimestamp"):
            return Conflict(f"ReplicaSet {key_of(rs)} has just been deleted at "
                            f"{_meta(fresh).get('deletionTimestamp')}")
        return None

    def _adopt(self, rs: Mapping[str, Any], pod: Mapping[str, Any]) -> Object:
        meta = _meta(pod)
        body = {"metadata": {"ownerReferences": [owner_reference(rs)], "uid": meta.get("uid")}}
        return self.client.patch("pods", meta.get("namespace"), str(meta.get("name")),
                                 "strategic", body)

    def _release(self, rs: Mapping[str, Any], pod: Mapping[str, Any]) -> None:
        meta = _meta(pod)
        body = {"metadata": {"ownerReferences": [{"$patch": "delete",
                                                  "uid": _meta(rs).get("uid")}],
                             "uid": meta.get("uid")}}
        self.client.patch("pods", meta.get("namespace"), str(meta.get("name")),
                          "strategic", body)

    # ------------------------------------------------------------------ scaling

    def _manage_replicas(self, rs: Object, key: str, pods: Sequence[Object]
                         ) -> Exception | None:
        diff = len(pods) - _replicas(rs)
        if diff < 0:
            return self._create_pods(rs, key, min(-diff, self.burst_replicas))
        if diff > 0:
            return self._delete_pods(rs, key, pods, min(diff, self.burst_replicas))
        return None

    def _create_pods(self, rs: Object, key: str, n: int) -> Exception | None:
        # Expect before creating: the informer may deliver a pod before create returns.
        self.expectations.expect_creations(key, n)
        namespace = _meta(rs).get("namespace")

        def create_one() -> bool:
            try:
                pod = self.client.create(pod_from_template(rs), namespace=namespace)
            except StatusError as exc:
                if _is_namespace_terminating(exc):
                    return False  # every creation will fail; the namespace is going
                self.event(rs, EVENT_WARNING, "FailedCreate", f"Error creating: {exc}")
                raise
            self.event(rs, EVENT_NORMAL, "SuccessfulCreate",
                       f"Created pod: {_meta(pod).get('name')}")
            return True

        made, error = slow_start_batch(n, SLOW_START_INITIAL_BATCH, create_one)
        # Pods never made will never be observed: stop expecting them.
        for _ in range(n - made):
            self.expectations.creation_observed(key)
        return error

    def _related_pods(self, rs: Mapping[str, Any]) -> list[Object]:
        """Pods of every ReplicaSet with the same controller (its Deployment)."""
        ref = controller_ref(rs)
        if ref is None:
            return []
        namespace = _meta(rs).get("namespace")
        selectors = [s for r in self.replicasets.list()
                     if _meta(r).get("namespace") == namespace
                     and (controller_ref(r) or {}).get("uid") == ref.get("uid")
                     and (s := self._selector(r)) is not None]
        return [p for p in self.pods.list() if _meta(p).get("namespace") == namespace
                and any(s.matches(_labels(p)) for s in selectors)]

    def _delete_pods(self, rs: Object, key: str, pods: Sequence[Object], n: int
                     ) -> Exception | None:
        victims = pods_to_delete(pods, self._related_pods(rs), n, now=self.clock(),
                                 logarithmic=self.logarithmic_scale_down)
        self.expectations.expect_deletions(key, [str(_meta(p).get("uid")) for p in victims])
        first_error: Exception | None = None
        for pod in victims:
            meta = _meta(pod)
            uid = str(meta.get("uid"))
            try:
                self.client.delete("pods", meta.get("namespace"), str(meta.get("name")),
                                   preconditions={"uid": uid})
            except (NotFound, Conflict):
                # Already gone (or replaced): its deletion will never be observed.
                self.expectations.deletion_observed(key, uid)
            except Exception as exc:
                self.expectations.deletion_observed(key, uid)
                self.event(rs, EVENT_WARNING, "FailedDelete", f"Error deleting: {exc}")
                first_error = first_error or exc
            else:
                self.event(rs, EVENT_NORMAL, "SuccessfulDelete",
                           f"Deleted pod: {meta.get('name')}")
        return first_error
