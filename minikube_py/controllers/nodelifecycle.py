"""The node lifecycle controller: notice nodes that stopped heart-beating, taint
them, and evict the pods that do not tolerate it, as Kubernetes'
``pkg/controller/nodelifecycle`` and its taint-eviction controller (v1.32) do.

What it promises, per Node (``reconcile(name)``):

* **Health.** The Ready condition's ``lastHeartbeatTime`` and the node's
  Lease in ``kube-node-lease`` (its ``spec.renewTime``) are watched: the
  controller notes (on its own clock) when it last saw either change, as
  ``tryUpdateNodeHealth`` does (kubelets renew the lease every 10 s and post
  an unchanged status only every 5 minutes). A
  node whose heartbeat has not changed for ``grace_period`` seconds
  (``--node-monitor-grace-period``, 50 s in 1.32) gets Ready, MemoryPressure,
  DiskPressure and PIDPressure set to ``Unknown`` with reason
  ``NodeStatusUnknown`` and message ``Kubelet stopped posting node status.``
  (``lastHeartbeatTime`` kept, ``lastTransitionTime`` now). A node that never
  posted a Ready condition gets them, reason ``NodeStatusNeverUpdated``,
  ``startup_grace_period`` (60 s) after its creation. Measuring from the
  moment of observation, as Kubernetes does, means a restarted controller
  gives every node a full grace period before judging it. When it turns a
  node's Ready from True it records ``NodeNotReady`` (``Node <n> status is
  now: NodeNotReady``) on the node and, while the node stays Unknown, marks the
  node's Ready pods not ready (Warning ``NodeNotReady``, ``Node is not
  ready``).
* **Taints.** Ready ``False`` gives ``node.kubernetes.io/not-ready`` and
  Ready ``Unknown`` gives ``node.kubernetes.io/unreachable``, each with effects
  ``NoSchedule`` and ``NoExecute`` (``timeAdded`` set); the other one's taints
  and both when Ready is True are removed. Other taints are never touched.
  As Kubernetes does when every node of the cluster is not Ready (it assumes
  the control plane, not the nodes, is cut off), no ``NoExecute`` taint is
  added then and those already there are removed; ``NoSchedule`` ones stay.
* **Eviction** (the taint manager) for the pods bound to a node with any
  ``NoExecute`` taints: a pod that does not tolerate all of them is deleted at
  once; one that does, with the tolerations matched (the first matching one
  per taint) bounded by ``tolerationSeconds``, is deleted that many seconds
  (the smallest) after the node became tainted (or the pod arrived, if later);
  one whose matched tolerations have no ``tolerationSeconds`` stays. Deleting
  means adding the ``DisruptionTarget`` condition (``DeletionByTaintManager``)
  then a graceful delete, with the Normal event ``TaintManagerEviction``
  ``Marking for deletion Pod <ns>/<name>``; a pending eviction that no longer
  applies records ``Cancelling deletion of Pod <ns>/<name>``. Pods already
  being deleted are left alone.
* **Timing.** ``reconcile`` returns the time until the node would turn stale
  or the next eviction is due, so the key comes back exactly then. A lease
  renewal is noted (on the controller's clock) as the lease informer sees it,
  without a reconcile: a healthy node costs one reconcile per grace period,
  not one per renewal. Every ``monitor_period`` seconds
  (``--node-monitor-period``) a timer thread re-enqueues, level-triggered,
  every node that is not Ready, carries one of our taints, was never looked
  at, or is past its deadline; for a healthy node that check is one lookup,
  so thousands of hollow nodes do not cost thousands of reconciles each
  period. Nothing polls in between: the thread sleeps on the stop event.
  Time comes from the injected ``clock``.
* The node's eviction time comes from the taints' ``timeAdded`` (the earliest
  ``NoExecute`` one), so a restarted controller keeps the schedule; while it
  runs, the start of a continuous tainted period is remembered so swapping
  not-ready for unreachable does not restart the clock.

Not reproduced: zone
rate limiting and partial-disruption modes (only the all-nodes-down rule),
``NoSchedule`` taints for pressure conditions and ``spec.unschedulable``, and
the ``RegisteredNode`` / ``RemovingNode`` events.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..api.access import mapping as _m
from ..api.errors import NotFound
from ..api.jsoncopy import deep_copy
from ..api.names import NAMESPACE_NODE_LEASE as NODE_LEASE_NAMESPACE
from ..api.timefmt import format_time as _rfc3339
from ..api.timefmt import parse_time as _parse_time
from ..client.base import Client, Object
from ..client.events import EVENT_NORMAL, EVENT_WARNING, EventRecorder
from ..client.informer import Handlers, key_of
from ..client.shared import SharedInformers
from .base import Controller

__all__ = [
    "DEFAULT_GRACE_PERIOD",
    "DEFAULT_MONITOR_PERIOD",
    "DEFAULT_STARTUP_GRACE_PERIOD",
    "NOT_READY_TAINT",
    "UNREACHABLE_TAINT",
    "NodeLifecycleController",
    "matching_tolerations",
    "min_toleration_seconds",
    "tolerates",
]

log = logging.getLogger(__name__)

NOT_READY_TAINT: Final = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT: Final = "node.kubernetes.io/unreachable"
NO_SCHEDULE: Final = "NoSchedule"
NO_EXECUTE: Final = "NoExecute"
#: ``--node-monitor-grace-period`` (50 s since 1.32), ``--node-startup-grace-period``
#: and ``--node-monitor-period``.
DEFAULT_GRACE_PERIOD: Final = 50.0
DEFAULT_STARTUP_GRACE_PERIOD: Final = 60.0
DEFAULT_MONITOR_PERIOD: Final = 5.0
#: The conditions the controller turns Unknown for a silent node.
_WATCHED_CONDITIONS: Final = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
_OUR_REASONS: Final = ("NodeStatusUnknown", "NodeStatusNeverUpdated")
_FOREVER: Final = -1.0


# ------------------------------------------------------------------ helpers




def _node_condition(node: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for cond in _m(node.get("status")).get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == kind:
            return cond
    return None


def _ready_status(node: Mapping[str, Any]) -> str | None:
    cond = _node_condition(node, "Ready")
    return None if cond is None else str(cond.get("status"))


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """``Toleration.ToleratesTaint``: empty effect and key match any; operator
    ``Exists`` ignores the value, ``Equal`` (or empty) compares it."""
    effect, key = toleration.get("effect") or "", toleration.get("key") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    if key and key != (taint.get("key") or ""):
        return False
    operator = toleration.get("operator") or ""
    if operator in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"


def matching_tolerations(taints: Sequence[Mapping[str, Any]],
                         tolerations: Sequence[Mapping[str, Any]]
                         ) -> tuple[bool, list[Mapping[str, Any]]]:
    """``GetMatchingTolerations``: whether every taint is tolerated, and for each
    taint the first toleration that tolerates it."""
    if not taints:
        return True, []
    used: list[Mapping[str, Any]] = []
    for taint in taints:
        match = next((t for t in tolerations if tolerates(t, taint)), None)
        if match is None:
            return False, []
        used.append(match)
    return True, used


def min_toleration_seconds(tolerations: Sequence[Mapping[str, Any]]) -> float:
    """``getMinTolerationTime``: the smallest ``tolerationSeconds`` (0 for none or a
    non-positive one), or -1 when none of them is bounded (tolerated forever)."""
    if not tolerations:
        return 0.0
    smallest: int | None = None
    for toleration in tolerations:
        seconds = toleration.get("tolerationSeconds")
        if isinstance(seconds, int) and not isinstance(seconds, bool):
            if seconds <= 0:
                return 0.0
            smallest = seconds if smallest is None else min(smallest, seconds)
    return _FOREVER if smallest is None else float(smallest)


@dataclass(slots=True)
class _Health:
    """``nodeHealthData``: the last heartbeat seen, and when (controller clock)."""

    heartbeat: str | None
    probe: float
    had_ready: bool
    lease: str | None = None  # the node lease's renewTime last seen
    #: The last reconcile found the node Ready and without our taints (so the
    #: monitor pass only has to watch its deadline).
    quiet: bool = False


# ------------------------------------------------------------------ controller


class NodeLifecycleController(Controller):
    """Node health, condition taints and taint-based eviction (see the module contract)."""

    name = "node-controller"

    def __init__(self, client: Client, informers: SharedInformers, *, workers: int = 1,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None,
                 eviction_recorder: EventRecorder | None = None,
                 grace_period: float = DEFAULT_GRACE_PERIOD,
                 startup_grace_period: float = DEFAULT_STARTUP_GRACE_PERIOD,
                 monitor_period: float = DEFAULT_MONITOR_PERIOD) -> None:
        super().__init__(client, informers, workers=workers, clock=clock, recorder=recorder)
        self.eviction_recorder = eviction_recorder or EventRecorder(
            client, component="taint-eviction-controller")
        self.grace_period = grace_period
        self.startup_grace_period = startup_grace_period
        self.monitor_period = monitor_period
        self._lock = threading.Lock()
        self._health: dict[str, _Health] = {}
        self._tainted_since: dict[str, float] = {}
        self._pending: dict[str, tuple[str, str]] = {}  # pod uid -> (pod key, node)
        self._on_node: dict[str, dict[str, str]] = {}  # node -> pod key -> pod uid
        self._timer: threading.Thread | None = None
        self.nodes = self.watch("nodes")
        self.pods = informers.get("pods")
        self.leases = informers.get("leases")
        self.leases.add_handlers(Handlers(on_add=self._lease_changed,
                                          on_update=lambda _old, new: self._lease_changed(new)))
        self.pods.add_handlers(Handlers(on_add=self._pod_changed,
                                        on_update=lambda old, new: self._pod_changed(new, old),
                                        on_delete=self._pod_deleted))

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        super().start()
        self._timer = threading.Thread(target=self._tick, name=f"{self.name}-monitor",
                                       daemon=True)
        self._timer.start()

    def stop(self, timeout: float = 5.0) -> None:
        super().stop(timeout)
        if self._timer is not None:
            self._timer.join(timeout)

    def _tick(self) -> None:
        """``--node-monitor-period``: the nodes that need a look get one."""
        while not self._stop.wait(self.monitor_period):
            for name in self._needing_look(self.clock()):
                self.enqueue(name)

    def _needing_look(self, now: float) -> list[str]:
        """The nodes the periodic pass must reconcile: all but those the last
        reconcile found Ready and untainted and that are still inside their
        grace period (one lookup each: no node object is read)."""
        names = [key_of(node) for node in self.nodes.list()]
        with self._lock:
            return [name for name in names if not self._quiet(self._health.get(name), now)]

    def _quiet(self, health: _Health | None, now: float) -> bool:
        if health is None or not health.quiet:
            return False
        grace = self.grace_period if health.had_ready else self.startup_grace_period
        return now < health.probe + grace

    def _lease_changed(self, lease: Object) -> None:
        """A node lease seen renewed is a heartbeat observed now (``tryUpdateNodeHealth``
        compares the lease it saw last); the node's deadline moves without a reconcile."""
        meta = _m(lease.get("metadata"))
        if meta.get("namespace") != NODE_LEASE_NAMESPACE:
            return
        renewed = str(_m(lease.get("spec")).get("renewTime") or "") or None
        with self._lock:
            health = self._health.get(str(meta.get("name") or ""))
            if health is not None and renewed is not None and renewed != health.lease:
                health.lease = renewed
                health.probe = self.clock()

    # ------------------------------------------------------------------ pod index

    def _pod_changed(self, pod: Object, old: Object | None = None) -> None:
        meta = _m(pod.get("metadata"))
        key, uid = key_of(pod), str(meta.get("uid") or "")
        node = str(_m(pod.get("spec")).get("nodeName") or "")
        with self._lock:
            if old is not None:
                previous = str(_m(old.get("spec")).get("nodeName") or "")
                if previous and previous != node:
                    self._on_node.get(previous, {}).pop(key, None)
            if node:
                self._on_node.setdefault(node, {})[key] = uid
            pending = uid in self._pending
        if not node:
            return
        cached = self.nodes.get(node)
        noexec = cached is not None and any(
            _m(t).get("effect") == NO_EXECUTE for t in _m(cached.get("spec")).get("taints") or [])
        if noexec or pending:
            self.enqueue(node)

    def _pod_deleted(self, pod: Object) -> None:
        node = str(_m(pod.get("spec")).get("nodeName") or "")
        with self._lock:
            self._pending.pop(str(_m(pod.get("metadata")).get("uid") or ""), None)
            if node:
                self._on_node.get(node, {}).pop(key_of(pod), None)

    def _pods_on(self, node: str) -> list[Object]:
        with self._lock:
            keys = list(self._on_node.get(node, {}))
        pods = []
        for key in keys:
            pod = self.pods.get(key)
            if pod is not None and _m(pod.get("spec")).get("nodeName") == node:
                pods.append(pod)
        return pods

    # ------------------------------------------------------------------ reconcile

    def reconcile(self, key: str) -> float | None:
        cached = self.nodes.get(key)
        if cached is None:
            with self._lock:
                self._health.pop(key, None)
                self._tainted_since.pop(key, None)
                for uid in [u for u, (_, n) in self._pending.items() if n == key]:
                    del self._pending[uid]
            return None
        now = self.clock()
        # The cached node is only read; the two writers below copy it first. Every
        # node comes back every monitor period, so a healthy one must cost little.
        node = cached
        waits: list[float] = []
        stale_in = self._check_health(key, node, now)
        if stale_in > 0:
            waits.append(stale_in)
        else:
            node = self._mark_unknown(deep_copy(node), now)
        ready = _ready_status(node)
        ready_cond = _node_condition(node, "Ready")
        if ready == "Unknown" and ready_cond is not None and \
                ready_cond.get("reason") in _OUR_REASONS:
            self._mark_pods_not_ready(key, now)
        node = self._taint(node, ready, now)
        quiet = ready == "True" and not any(
            _m(t).get("key") in (NOT_READY_TAINT, UNREACHABLE_TAINT)
            for t in _m(node.get("spec")).get("taints") or [])
        with self._lock:
            health = self._health.get(key)
            if health is not None:
                health.quiet = quiet
        wait = self._evict(key, node, now)
        if wait is not None:
            waits.append(wait)
        return min(waits) if waits else None

    # ------------------------------------------------------------------ health

    def _check_health(self, name: str, node: Mapping[str, Any], now: float) -> float:
        """``tryUpdateNodeHealth``'s bookkeeping: seconds until ``node`` is stale
        (<= 0: it is)."""
        ready = _node_condition(node, "Ready")
        with self._lock:
            health = self._health.get(name)
            if ready is None:
                if health is None:
                    created = _parse_time(_m(node.get("metadata")).get("creationTimestamp"))
                    health = _Health(None, now if created is None else created, False)
                elif health.had_ready:
                    health = _Health(None, now, False)
                grace = self.startup_grace_period
            else:
                beat = str(ready.get("lastHeartbeatTime") or "")
                if health is None or not health.had_ready or health.heartbeat != beat:
                    health = _Health(beat, now, True, health.lease if health else None)
                grace = self.grace_period
            renewed = self._lease_renewal(name)
            if renewed is not None and renewed != health.lease:
                # A renewed lease is always a heartbeat; as in Kubernetes, a kubelet
                # that renews but never posted a status is taken as healthy.
                health.lease = renewed
                health.probe = now
            self._health[name] = health
        return health.probe + grace - now

    def _lease_renewal(self, name: str) -> str | None:
        lease = self.leases.get(f"{NODE_LEASE_NAMESPACE}/{name}")
        if lease is None:
            return None
        return str(_m(lease.get("spec")).get("renewTime") or "") or None

    def _stale(self, name: str, now: float) -> bool:
        with self._lock:
            health = self._health.get(name)
        if health is None:
            return False
        grace = self.grace_period if health.had_ready else self.startup_grace_period
        # The same boundary as _check_health (stale once the grace period has run
        # out), so a node judged stale by its own reconcile is stale for the others'
        # full-disruption check at that very instant too.
        return now >= health.probe + grace

    def _mark_unknown(self, node: Object, now: float) -> Object:
        """Conditions Unknown for a silent node; written only when Ready changes."""
        status = node.setdefault("status", {})
        conditions = [dict(c) for c in status.get("conditions") or [] if isinstance(c, Mapping)]
        before = _node_condition(node, "Ready")
        stamp = _rfc3339(now)
        created = str(_m(node.get("metadata")).get("creationTimestamp") or stamp)
        by_type = {c.get("type"): c for c in conditions}
        for kind in _WATCHED_CONDITIONS:
            cond = by_type.get(kind)
            if cond is None:
                conditions.append({"type": kind, "status": "Unknown",
                                   "lastHeartbeatTime": created, "lastTransitionTime": stamp,
                                   "reason": "NodeStatusNeverUpdated",
                                   "message": "Kubelet never posted node status."})
            elif cond.get("status") != "Unknown":
                cond.update(status="Unknown", reason="NodeStatusUnknown",
                            message="Kubelet stopped posting node status.",
                            lastTransitionTime=stamp)
        status["conditions"] = conditions
        after = _node_condition(node, "Ready")
        if before is not None and after is not None and dict(before) == dict(after):
            return node
        updated = self.client.update(node, subresource="status")
        if before is not None and before.get("status") == "True":
            name = str(node["metadata"].get("name"))
            self.event(updated, EVENT_NORMAL, "NodeNotReady",
                       f"Node {name} status is now: NodeNotReady")
        return updated

    def _mark_pods_not_ready(self, name: str, now: float) -> None:
        """``MarkPodsNotReady`` for the pods of a node this controller declared Unknown."""
        for pod in self._pods_on(name):
            ready = next((c for c in _m(pod.get("status")).get("conditions") or []
                          if _m(c).get("type") == "Ready"), None)
            if ready is None or _m(ready).get("status") == "False":
                continue
            meta = pod["metadata"]
            body = {"status": {"conditions": [{"type": "Ready", "status": "False",
                                               "lastTransitionTime": _rfc3339(now)}]}}
            try:
                self.client.patch("pods", meta["namespace"], meta["name"], "strategic", body,
                                  subresource="status")
            except NotFound:
                continue
            self.event(pod, EVENT_WARNING, "NodeNotReady", "Node is not ready")

    # ------------------------------------------------------------------ taints

    def _all_disrupted(self, name: str, ready: str | None, now: float) -> bool:
        """No node of the cluster is Ready (this one as just computed)."""
        if ready == "True":
            return False
        for other in self.nodes.list():
            other_name = str(_m(other.get("metadata")).get("name"))
            if other_name == name:
                continue
            if _ready_status(other) == "True" and not self._stale(other_name, now):
                return False
        return True

    def _taint(self, node: Object, ready: str | None, now: float) -> Object:
        """The not-ready / unreachable taints the Ready condition calls for."""
        name = str(node["metadata"].get("name"))
        wanted_key = {"False": NOT_READY_TAINT, "Unknown": UNREACHABLE_TAINT}.get(ready or "")
        wanted: set[tuple[str, str]] = set()
        if wanted_key is not None:
            wanted.add((wanted_key, NO_SCHEDULE))
            if not self._all_disrupted(name, ready, now):
                wanted.add((wanted_key, NO_EXECUTE))
        ours = {NOT_READY_TAINT, UNREACHABLE_TAINT}
        taints = [dict(t) for t in _m(node.get("spec")).get("taints") or []
                  if isinstance(t, Mapping)]
        have = {(t.get("key"), t.get("effect")) for t in taints if t.get("key") in ours}
        if have == wanted:
            return node
        node = deep_copy(node)
        spec = node.setdefault("spec", {})
        kept = [t for t in taints
                if t.get("key") not in ours or (t.get("key"), t.get("effect")) in wanted]
        stamp = _rfc3339(now)
        for key, effect in sorted(wanted - have, key=lambda ke: ke[1] == NO_EXECUTE):
            kept.append({"key": key, "effect": effect, "timeAdded": stamp})
        if kept:
            spec["taints"] = kept
        else:
            spec.pop("taints", None)
        return self.client.update(node)

    # ------------------------------------------------------------------ eviction

    def _evict(self, name: str, node: Object, now: float) -> float | None:
        """The taint manager's pass over the node's pods; seconds to the next due
        eviction, if any."""
        noexec = [t for t in _m(node.get("spec")).get("taints") or []
                  if isinstance(t, Mapping) and t.get("effect") == NO_EXECUTE]
        if not noexec:
            # Untainted: only evictions still pending here are cancelled (looking
            # at those, not at every pod of the node, keeps a healthy node cheap).
            with self._lock:
                self._tainted_since.pop(name, None)
                keys = [k for k, n in self._pending.values() if n == name]
            for key in keys:
                pod = self.pods.get(key)
                if pod is not None:
                    self._cancel(pod)
            return None
        pods = self._pods_on(name)
        added = [t for t in (_parse_time(t.get("timeAdded")) for t in noexec) if t is not None]
        with self._lock:
            since = self._tainted_since.setdefault(name, min(added) if added else now)
        start_node = min([since, *added])
        wait: float | None = None
        for pod in pods:
            if _m(pod.get("metadata")).get("deletionTimestamp"):
                self._cancel(pod, quiet=True)
                continue
            tolerations = [t for t in _m(pod.get("spec")).get("tolerations") or []
                           if isinstance(t, Mapping)]
            tolerated, used = matching_tolerations(noexec, tolerations)
            if not tolerated:
                self._delete(pod, now)
                continue
            seconds = min_toleration_seconds(used)
            if seconds < 0:
                self._cancel(pod)
                continue
            due = max(start_node, self._arrived(pod)) + seconds
            if now >= due:
                self._delete(pod, now)
                continue
            with self._lock:
                self._pending[str(pod["metadata"].get("uid"))] = (key_of(pod), name)
            wait = due - now if wait is None else min(wait, due - now)
        return wait

    @staticmethod
    def _arrived(pod: Mapping[str, Any]) -> float:
        """When the pod was bound to its node (creation when unknown)."""
        for cond in _m(pod.get("status")).get("conditions") or []:
            if _m(cond).get("type") == "PodScheduled" and _m(cond).get("status") == "True":
                when = _parse_time(_m(cond).get("lastTransitionTime"))
                if when is not None:
                    return when
        return _parse_time(_m(pod.get("metadata")).get("creationTimestamp")) or 0.0

    def _cancel(self, pod: Mapping[str, Any], *, quiet: bool = False) -> None:
        with self._lock:
            had = self._pending.pop(str(_m(pod.get("metadata")).get("uid") or ""), None)
        if had is not None and not quiet:
            self.eviction_recorder.record(pod, EVENT_NORMAL, "TaintManagerEviction",
                                          f"Cancelling deletion of Pod {key_of(pod)}")

    def _delete(self, pod: Object, now: float) -> None:
        """``addConditionAndDeletePod``: DisruptionTarget first, then a graceful delete."""
        meta = pod["metadata"]
        with self._lock:
            self._pending.pop(str(meta.get("uid") or ""), None)
        self.eviction_recorder.record(pod, EVENT_NORMAL, "TaintManagerEviction",
                                      f"Marking for deletion Pod {key_of(pod)}")
        condition = {"type": "DisruptionTarget", "status": "True",
                     "lastTransitionTime": _rfc3339(now), "reason": "DeletionByTaintManager",
                     "message": "Taint manager: deleting due to NoExecute taint"}
        existing = next((c for c in _m(pod.get("status")).get("conditions") or []
                         if _m(c).get("type") == "DisruptionTarget"), None)
        try:
            if existing is None or _m(existing).get("status") != "True":
                self.client.patch("pods", meta["namespace"], meta["name"], "strategic",
                                  {"status": {"conditions": [condition]}}, subresource="status")
            self.client.delete("pods", meta["namespace"], meta["name"],
                               preconditions={"uid": str(meta.get("uid"))})
        except NotFound:
            pass
