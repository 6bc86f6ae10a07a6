"""Pod garbage collection, as Kubernetes' ``pkg/controller/podgc``.

Four kinds of pods nobody else will ever remove:

* **Orphaned**: bound to a node that no longer exists. A node missing from
  the cache is first quarantined for ``orphan_quarantine`` seconds (40 in
  Kubernetes, so a node being re-created or an informer lagging behind is not
  mistaken for a deleted one), then confirmed absent by a live read. Its pods
  are then marked ``Failed`` with a ``DisruptionTarget`` condition (reason
  ``DeletionByPodGC``, "PodGC: node no longer exists"), unless already
  terminal, and force-deleted (grace period 0).
* **Terminated beyond a threshold**: when more than
  ``terminated_pod_threshold`` pods (12500 by default; 0 or less disables
  this) are Succeeded or Failed, the excess is force-deleted, evicted pods
  first, then oldest first (by creation time, then name).
* **Unscheduled and terminating**: a pod with ``deletionTimestamp`` and no
  node (no kubelet will finish it) is marked Failed and force-deleted.
* **Terminating on an out-of-service node**: a pod being deleted on a node
  that is not Ready and carries the ``node.kubernetes.io/out-of-service``
  taint is marked Failed and force-deleted.

Unlike Kubernetes, which re-scans every pod each 20 seconds, this loop is
driven by the pod and node informers: handlers enqueue ``terminated`` when the
number of terminal pods crosses the threshold, ``node:<name>`` when a pod is
bound to a node the cache does not know or a node goes (or turns
out-of-service), and ``pod:<namespace>/<name>`` for an unscheduled pod being
deleted. The quarantine is a delayed requeue, not a sleep.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..api.access import meta as _meta
from ..api.errors import Conflict, NotFound
from ..api.timefmt import format_time as _format_time
from ..client.base import Client, Object
from ..client.events import EventRecorder
from ..client.informer import Handlers, key_of
from ..client.shared import SharedInformers
from .base import Controller

__all__ = ["OUT_OF_SERVICE_TAINT", "PodGC"]

log = logging.getLogger(__name__)

#: Kubernetes' default ``--terminated-pod-gc-threshold``.
TERMINATED_POD_THRESHOLD = 12500
#: Seconds a missing node is given before its pods are deleted (``quarantineTime``).
ORPHAN_QUARANTINE = 40.0
OUT_OF_SERVICE_TAINT = "node.kubernetes.io/out-of-service"
FIELD_MANAGER = "PodGC"
TERMINATED = "terminated"




def _phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _is_terminated(pod: Mapping[str, Any]) -> bool:
    return _phase(pod) in ("Succeeded", "Failed")


def _node_name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def _is_evicted(pod: Mapping[str, Any]) -> bool:
    return _phase(pod) == "Failed" and (pod.get("status") or {}).get("reason") == "Evicted"


def _out_of_service(node: Mapping[str, Any]) -> bool:
    """Not Ready, and tainted ``node.kubernetes.io/out-of-service``."""
    ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                for c in (node.get("status") or {}).get("conditions") or [])
    tainted = any(t.get("key") == OUT_OF_SERVICE_TAINT
                  for t in (node.get("spec") or {}).get("taints") or [])
    return tainted and not ready


class PodGC(Controller):
    """Deletes pods nobody else will (see the module contract)."""

    name = "pod-garbage-collector"

    def __init__(self, client: Client, informers: SharedInformers, *,
                 terminated_pod_threshold: int = TERMINATED_POD_THRESHOLD,
                 orphan_quarantine: float = ORPHAN_QUARANTINE, workers: int = 1,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None) -> None:
        super().__init__(client, informers, workers=workers, clock=clock, recorder=recorder)
        self.terminated_pod_threshold = terminated_pod_threshold
        self.orphan_quarantine = orphan_quarantine
        self._lock = threading.Lock()
        self._terminated: set[str] = set()
        self._missing_since: dict[str, float] = {}
        self.pods = informers.get("pods")
        self.nodes = informers.get("nodes")
        self.pods.add_handlers(Handlers(on_add=self._pod_changed,
                                        on_update=lambda _old, new: self._pod_changed(new),
                                        on_delete=self._pod_deleted))
        self.nodes.add_handlers(Handlers(on_update=lambda _old, new: self._node_changed(new),
                                         on_delete=self._node_deleted))
        self.synced_before_start = (self.nodes, self.pods)

    # ------------------------------------------------------------------ handlers

    def _pod_changed(self, pod: Object) -> None:
        key = key_of(pod)
        with self._lock:
            if _is_terminated(pod):
                self._terminated.add(key)
            else:
                self._terminated.discard(key)
            over = 0 < self.terminated_pod_threshold < len(self._terminated)
        if over:
            self.enqueue(TERMINATED)
        node_name = _node_name(pod)
        terminating = bool(_meta(pod).get("deletionTimestamp"))
        if not node_name:
            if terminating:
                self.enqueue(f"pod:{key}")
            return
        node = self.nodes.get(node_name)
        if node is None or (terminating and _out_of_service(node)):
            self.enqueue(f"node:{node_name}")

    def _pod_deleted(self, pod: Object) -> None:
        with self._lock:
            self._terminated.discard(key_of(pod))

    def _node_changed(self, node: Object) -> None:
        if _out_of_service(node):
            self.enqueue(f"node:{_meta(node).get('name')}")

    def _node_deleted(self, node: Object) -> None:
        self.enqueue(f"node:{_meta(node).get('name')}")

    # ------------------------------------------------------------------ reconcile

    def reconcile(self, key: str) -> float | None:
        if key == TERMINATED:
            self._gc_terminated()
            return None
        kind, _, rest = key.partition(":")
        if kind == "node":
            return self._gc_node(rest)
        if kind == "pod":
            pod = self.pods.get(rest)
            if pod is not None and _meta(pod).get("deletionTimestamp") and \
                    not _node_name(pod):
                self._fail_and_delete(pod)
        return None

    def _gc_terminated(self) -> None:
        if self.terminated_pod_threshold <= 0:
            return
        terminated = [p for p in self.pods.list() if _is_terminated(p)]
        excess = len(terminated) - self.terminated_pod_threshold
        if excess <= 0:
            return
        terminated.sort(key=lambda p: (not _is_evicted(p),
                                       str(_meta(p).get("creationTimestamp") or ""),
                                       str(_meta(p).get("name") or "")))
        log.info("%s: %d terminated pods over the threshold of %d; deleting the oldest",
                 self.name, excess, self.terminated_pod_threshold)
        for pod in terminated[:excess]:
            self._fail_and_delete(pod)

    def _gc_node(self, name: str) -> float | None:
        pods = [p for p in self.pods.list() if _node_name(p) == name]
        node = self.nodes.get(name)
        if node is None:
            if not pods:
                with self._lock:
                    self._missing_since.pop(name, None)
                return None
            now = self.clock()
            with self._lock:
                since = self._missing_since.setdefault(name, now)
            wait = since + self.orphan_quarantine - now
            if wait > 0:
                return wait
            try:
                node = self.client.get("nodes", None, name)
            except NotFound:
                with self._lock:
                    self._missing_since.pop(name, None)
                log.info("%s: node %s is gone; deleting its %d pods", self.name, name,
                         len(pods))
                for pod in pods:
                    self._fail_and_delete(pod, condition={
                        "type": "DisruptionTarget", "status": "True",
                        "reason": "DeletionByPodGC",
                        "message": "PodGC: node no longer exists",
                        "lastTransitionTime": _format_time(now)})
                return None
        with self._lock:
            self._missing_since.pop(name, None)
        if _out_of_service(node):
            for pod in pods:
                if _meta(pod).get("deletionTimestamp"):
                    self._fail_and_delete(pod)
        return None

    def _fail_and_delete(self, pod: Mapping[str, Any],
                         condition: Mapping[str, Any] | None = None) -> None:
        """``markFailedAndDeletePodWithCondition``: Failed first (no kubelet will
        say so), then deleted with grace period 0."""
        meta = _meta(pod)
        namespace, name = str(meta.get("namespace")), str(meta.get("name"))
        try:
            if not _is_terminated(pod):
                status: dict[str, Any] = {"phase": "Failed"}
                if condition is not None:
                    status["conditions"] = [dict(condition)]
                self.client.patch("pods", namespace, name, "strategic",
                                  {"status": status},
                                  subresource="status", field_manager=FIELD_MANAGER)
            self.client.delete("pods", namespace, name, grace_period_seconds=0,
                               preconditions={"uid": str(meta.get("uid"))})
        except (NotFound, Conflict):
            pass  # gone already, or replaced by a pod of the same name
