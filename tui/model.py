"""The dashboard's data layer: informer caches of the cluster, coalesced change signals.

Contract
--------
* :class:`ClusterModel` keeps one list+watch cache per resource the views show
  (:data:`RESOURCES`), fed by :class:`~minikube_py.client.shared.SharedInformers`
  on background threads. It reaches the cluster only through a
  :class:`DashboardClient` (the HTTP client in both dashboard modes), so an
  in-process control plane and a remote daemon look the same.
* Watch events never touch the UI directly. Each one marks its resource dirty
  in a :class:`Coalescer`, whose thread calls ``notify(resources)`` at most once
  per ``interval`` seconds with every resource that changed meanwhile. A burst
  of 1,000 pod events therefore costs a handful of repaints, and an idle
  cluster costs no wake-ups at all (the thread blocks on an event). With
  ``acknowledged=True`` the receiver calls :meth:`ClusterModel.handled` after
  each notification; until then no other is sent, and the interval adapts to
  how long handling took.
* ``generation(resource)`` increases on every change of that resource, so a
  view can skip recomputing rows when nothing it reads has changed.
* Node usage history: the kubelet's usage annotations
  (``minikube-py.io/cpu-usage`` / ``memory-usage``) give one sample per node
  heartbeat, kept in a bounded per-node history (the sparklines); their
  spacing is the kubelet's heartbeat interval.
* Cached objects are shared with the informers: callers must not mutate them.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from minikube_py.api.podrequests import pod_requests, resource_list_values
from minikube_py.client.base import Client, Object
from minikube_py.client.informer import Handlers, key_of
from minikube_py.client.shared import SharedInformers
from minikube_py.kubelet.node_status import ANNOTATION_CPU_USAGE, ANNOTATION_MEMORY_USAGE

log = logging.getLogger(__name__)

#: The resources the dashboard watches (one informer each).
RESOURCES: Final = ("nodes", "pods", "deployments", "replicasets", "events", "services",
                    "endpointslices", "configmaps", "secrets")
#: Samples of usage kept per node for the sparklines.
HISTORY: Final = 24
#: Default seconds between two change notifications (the repaint budget).
DEFAULT_INTERVAL: Final = 0.15


class DashboardClient(Client, Protocol):
    """What the dashboard needs of a client: the Client protocol plus raw
    requests (the scheduler's ``/debug`` endpoints) and pod logs."""

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None,
                body: Any = None, content_type: str = "application/json",
                accept: str = "application/json") -> tuple[int, bytes, dict[str, str]]: ...

    def logs(self, namespace: str, name: str, *, container: str | None = None,
             follow: bool = False, previous: bool = False, tail_lines: int | None = None,
             timestamps: bool = False) -> Iterator[bytes]: ...


class Coalescer:
    """Turns many ``mark(what)`` calls into few ``deliver(set)`` calls.

    ``deliver`` runs on the coalescer's own thread, never more often than once
    per ``interval`` seconds, and always eventually after a ``mark`` (nothing
    marked is lost). While nothing is marked the thread sleeps on an event.

    With ``acknowledged=True`` at most one delivery is outstanding: the next
    one waits until the receiver calls :meth:`ack` (the UI has rendered the
    previous one), so a UI slower than the event rate never builds a backlog
    of stale notifications in front of the user's key presses.
    :meth:`set_interval` lets the receiver stretch the interval when its
    renders get expensive.
    """

    def __init__(self, deliver: Callable[[frozenset[str]], None], *,
                 interval: float = DEFAULT_INTERVAL, acknowledged: bool = False) -> None:
        self._deliver = deliver
        self.interval = interval
        self._dirty: set[str] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._acked = threading.Event()
        self._acked.set()
        self._acknowledged = acknowledged
        self._thread: threading.Thread | None = None
        #: Deliveries made (tests and the benchmark read it).
        self.deliveries = 0

    def mark(self, what: str) -> None:
        with self._lock:
            self._dirty.add(what)
        self._wake.set()

    def ack(self) -> None:
        """The previous delivery has been handled (see ``acknowledged``)."""
        self._acked.set()

    def set_interval(self, seconds: float) -> None:
        self.interval = seconds

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="tui-coalescer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        self._acked.set()
        if self._thread is not None:
            self._thread.join(2.0)

    def _run(self) -> None:
        while not self._stopped.is_set():
            self._wake.wait()
            if self._stopped.is_set():
                return
            # Let the burst accumulate: whatever arrives in the next interval
            # (and while the receiver is still busy) joins this delivery.
            self._stopped.wait(self.interval)
            self._acked.wait()
            if self._stopped.is_set():
                return
            with self._lock:
                self._wake.clear()
                dirty, self._dirty = frozenset(self._dirty), set()
            if dirty:
                self.deliveries += 1
                if self._acknowledged:
                    self._acked.clear()
                try:
                    self._deliver(dirty)
                except Exception:  # the UI may be shutting down; keep the thread alive
                    self._acked.set()
                    log.debug("delivering a change notification failed", exc_info=True)


@dataclass(frozen=True, slots=True)
class UsageSample:
    """One heartbeat's view of a node's real usage."""

    cpu_millis: int
    memory_bytes: int


@dataclass(slots=True)
class NodeAllocation:
    """What the pods bound to a node request, against what the node offers.

    ``cpu`` is millicores, ``memory`` bytes; ``pods`` counts non-terminated pods.
    """

    cpu_requested: int = 0
    memory_requested: int = 0
    pods: int = 0
    cpu_allocatable: int = 0
    memory_allocatable: int = 0
    pods_allocatable: int = 0
    pod_keys: list[str] = field(default_factory=list)


def _terminated(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


class ClusterModel:
    """Informer-fed caches of :data:`RESOURCES` (see the module contract)."""

    def __init__(self, client: DashboardClient, *,
                 notify: Callable[[frozenset[str]], None] | None = None,
                 interval: float = DEFAULT_INTERVAL, history: int = HISTORY,
                 acknowledged: bool = False) -> None:
        self.client = client
        self._notify = notify or (lambda _changed: None)
        self._base_interval = interval
        self._coalescer = Coalescer(self._deliver, interval=interval,
                                    acknowledged=acknowledged)
        self._informers = SharedInformers(client)
        self._history_len = history
        self._usage: dict[str, deque[tuple[str, UsageSample]]] = {}
        self._generation: dict[str, int] = dict.fromkeys(RESOURCES, 0)
        self._lock = threading.Lock()
        self._allocation_cache: tuple[tuple[int, int], dict[str, NodeAllocation]] | None = None
        self._requests: dict[str, dict[str, int]] = {}
        for resource in RESOURCES:
            informer = self._informers.get(resource)
            informer.add_handlers(self._handlers(resource))
        self._started = False

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the informers and the coalescer (returns at once)."""
        self._coalescer.start()
        self._informers.start()
        self._started = True

    def stop(self) -> None:
        """Stop every background thread; idempotent."""
        if not self._started:
            return
        self._started = False
        self._informers.stop()
        self._coalescer.stop()

    def wait_synced(self, timeout: float | None = None) -> bool:
        """True once every informer has delivered its first list."""
        return self._informers.wait_synced(timeout)

    def handled(self, seconds: float) -> None:
        """The receiver handled a notification in ``seconds``: the next may come.

        The interval adapts so rendering the changes takes at most about a
        quarter of the UI thread (never below the configured interval, never
        above 2 s): a thousand pods churning keep the dashboard responsive
        to keys, at the price of a lower refresh rate.
        """
        self._coalescer.set_interval(min(2.0, max(self._base_interval, 3 * seconds)))
        self._coalescer.ack()

    @property
    def interval(self) -> float:
        """Seconds between notifications now (see :meth:`handled`)."""
        return self._coalescer.interval

    @property
    def deliveries(self) -> int:
        """How many coalesced change notifications were sent so far."""
        return self._coalescer.deliveries

    # ------------------------------------------------------------------ reading

    def objects(self, resource: str) -> list[Object]:
        """Every cached object of ``resource`` (shared: do not mutate)."""
        return self._informers.get(resource).list()

    def get(self, resource: str, key: str) -> Object | None:
        """The cached object ``namespace/name`` (or ``name``), or None."""
        return self._informers.get(resource).get(key)

    def generation(self, resource: str) -> int:
        with self._lock:
            return self._generation.get(resource, 0)

    def usage_history(self, node: str) -> list[UsageSample]:
        """The node's usage samples, oldest first (empty before the first heartbeat
        that reported usage)."""
        with self._lock:
            return [sample for _, sample in self._usage.get(node, ())]

    def allocations(self) -> dict[str, NodeAllocation]:
        """Requests of the non-terminated pods bound to each node, with the node's
        allocatable; recomputed only when pods or nodes changed."""
        stamp = (self.generation("pods"), self.generation("nodes"))
        cached = self._allocation_cache
        if cached is not None and cached[0] == stamp:
            return cached[1]
        out: dict[str, NodeAllocation] = {}
        for node in self.objects("nodes"):
            alloc = resource_list_values((node.get("status") or {}).get("allocatable"))
            out[str(node["metadata"]["name"])] = NodeAllocation(
                cpu_allocatable=alloc.get("cpu", 0), memory_allocatable=alloc.get("memory", 0),
                pods_allocatable=alloc.get("pods", 0))
        # A pod's requests never change once created (resize is off in v1.32),
        # so they are computed once per pod, not once per pod per change.
        known, self._requests = self._requests, {}
        for pod in self.objects("pods"):
            node_name = (pod.get("spec") or {}).get("nodeName")
            if not node_name or _terminated(pod):
                continue
            entry = out.setdefault(str(node_name), NodeAllocation())
            uid = str(pod["metadata"].get("uid") or key_of(pod))
            requests = known.get(uid)
            if requests is None:
                requests = pod_requests(pod)
            self._requests[uid] = requests
            entry.cpu_requested += requests.get("cpu", 0)
            entry.memory_requested += requests.get("memory", 0)
            entry.pods += 1
            entry.pod_keys.append(key_of(pod))
        self._allocation_cache = (stamp, out)
        return out

    # ------------------------------------------------------------------ feeding

    def _handlers(self, resource: str) -> Handlers:
        def changed(obj: Object, *_: Object) -> None:
            self._changed(resource, obj)

        def updated(_old: Object, new: Object) -> None:
            self._changed(resource, new)

        return Handlers(on_add=changed, on_update=updated, on_delete=changed)

    def _changed(self, resource: str, obj: Object) -> None:
        with self._lock:
            self._generation[resource] += 1
            if resource == "nodes":
                self._sample_usage(obj)
        self._coalescer.mark(resource)

    def _sample_usage(self, node: Object) -> None:
        """One sample per heartbeat: the kubelet writes the status (new heartbeat
        time) and then patches the usage annotations, so an event with the same
        heartbeat time as the newest sample replaces it instead of adding one."""
        meta = node.get("metadata") or {}
        annotations = meta.get("annotations") or {}
        try:
            sample = UsageSample(int(annotations[ANNOTATION_CPU_USAGE]),
                                 int(annotations[ANNOTATION_MEMORY_USAGE]))
        except (KeyError, TypeError, ValueError):
            return
        stamp = ""
        for condition in (node.get("status") or {}).get("conditions") or []:
            if condition.get("type") == "Ready":
                stamp = str(condition.get("lastHeartbeatTime") or "")
        name = str(meta.get("name"))
        history = self._usage.setdefault(name, deque(maxlen=self._history_len))
        if history and history[-1][0] == stamp:
            history[-1] = (stamp, sample)
        else:
            history.append((stamp, sample))

    def _deliver(self, changed: frozenset[str]) -> None:
        self._notify(changed)

    # ------------------------------------------------------------------ tests

    def seed_usage(self, node: str, samples: Iterable[UsageSample]) -> None:
        """Replace a node's usage history (deterministic snapshots and tests)."""
        with self._lock:
            self._usage[node] = deque(((str(i), s) for i, s in enumerate(samples)),
                                      maxlen=self._history_len)
