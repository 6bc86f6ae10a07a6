"""Hollow kubelets on shared threads: many fake-runtime nodes, few threads.

A standalone :class:`~.kubelet.Kubelet` runs about eight threads of its own
(pod watch, runtime events, relist, heartbeat, workers). For Podman nodes
that is right: there are a handful. Hollow nodes (the fake runtime, for scale
work, as Kubernetes' kubemark and KWOK) come by the thousand, and a thread
set each would be tens of thousands of threads. :class:`KubeletPool` runs
the same kubelets — the same admission, sync, status and eviction code — on
a fixed set of shared threads:

* **one pod watch** for every pooled node (through ``client``, which may
  hand out the store's shared read-only objects: a kubelet never changes the
  pods it caches): bound pods (``spec.nodeName!=``),
  each event handed to the kubelet of its node (:meth:`Kubelet.observe`);
  a (re)list hands each kubelet its pods (:meth:`Kubelet.adopt_listing`), an
  empty list to a node without any, so pods deleted meanwhile are noticed;
* **one shared work queue** of ``(node, pod key)`` pairs
  (:class:`~.nodequeue.NodeQueue` is each kubelet's view of it) and
  ``workers`` worker threads calling :meth:`Kubelet.sync` (:data:`WORKERS`,
  one, by default: a hollow pod's sync never waits for anything but the
  interpreter, see there); the control plane
  gives pooled kubelets a ``resync_granularity`` of :attr:`timer_tick`, so
  the pods' periodic resyncs due within a tick reach the workers together
  (with KWOK's 300 s renewals the tick is 30 s, a round of about 4,000
  resyncs at 100,000 pods; resyncs every 1 s instead cost more each and
  raised the idle daemon's mean, bench/RESULTS.md, issue 18's sixteenth
  session);
* **runtime events without a thread**: the fake runtime calls a listener on
  each change, which queues the pod's key (the evented PLEG);
* **one timer thread** for every periodic duty, kept in a heap of due times,
  spread over each period so thousands of nodes never fire at once, and
  woken at most once a tick (a tenth of the shorter heartbeat period) so
  the duties due meanwhile run as one round: the node lease's renewal
  (:meth:`Kubelet.renew_lease`) every kubelet's ``lease_renew_interval``,
  its status report (:meth:`Kubelet.report_status`) every kubelet's
  ``heartbeat_interval``, and the generic PLEG relist
  (:meth:`Kubelet.relist_runtime`) every ``relist_interval`` (a safety net
  only: the fake runtime never loses an
  event, as Kubernetes' evented PLEG relists every 300 s). The duties due
  together run as one round: the node leases first, then the status reports
  (each many nodes per hold of the store's write lock,
  :func:`~..client.base.write_batch`), then the relists: a saturated daemon
  delays status reports, not the leases that keep its nodes Ready.

The thread count is therefore ``workers + 2`` whatever the number of nodes
(teardown and probe threads of the pods aside: those run only while a pod
is being stopped or has probes). Podman nodes never join a pool.

:meth:`start` registers every node (in order) and starts the threads;
:meth:`stop` ends them within its timeout, then stops each kubelet (which
leaves the fake runtime's pods as they are, as a restarting kubelet does).
One pooled kubelet stopped on its own (:meth:`Kubelet.stop`, a node failure
in a test) falls silent as a standalone one does: no heartbeat, lease, sync
or watch event reaches it any more.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable

from ..api.errors import Expired
from ..client.base import Client, Object, WatchStream, write_batch
from ..client.workqueue import WorkQueue
from ..runtime.base import LABEL_NAME, LABEL_NAMESPACE, LABEL_NODE, RuntimeEvent
from ..runtime.fake import FakeRuntime
from .kubelet import Kubelet, next_due
from .nodequeue import NodeQueue

__all__ = ["BOUND_PODS", "WORKERS", "KubeletPool", "default_timer_tick"]

log = logging.getLogger(__name__)

#: Field selector of the pool's pod watch: every pod bound to some node.
BOUND_PODS = "spec.nodeName!="
#: Pause before relisting after an API failure.
_RELIST_BACKOFF = 1.0
#: Heartbeat duties (lease renewals, then status reports) run per hold of the
#: store's write lock. While the daemon is saturated (thousands of pods being
#: created), every acquisition of that contended lock costs the timer thread a
#: turn of the interpreter lock, tens of milliseconds: one acquisition per
#: lease let 5,000 nodes' leases go a minute stale and the node lifecycle
#: controller mark hundreds NotReady. A batch holds the lock for about 20 ms
#: of leases, or a few ms of status reports (mostly reads; a write when the
#: status or the usage changed).
HEARTBEAT_BATCH = 100
#: The timer's duties, in the order a round runs them (see :meth:`KubeletPool._round`).
_DUTIES = ("lease", "status", "relist")
#: Worker threads syncing the hollow pods. One: a hollow pod's sync does
#: in-process work only (the fake runtime answers at once, API calls go to the
#: store in this process; graceful stops and probes run on their own threads,
#: see :mod:`.terminator`), so a second worker can only take turns at the
#: interpreter lock with the first, never run beside it. Taking turns is not
#: free: two or four workers cost about twice the CPU of one per resync of
#: a burst of hollow pods (in process, 500 nodes, 6,000 pods queued at once:
#: 134-193 us against 72-120 us; the workers each switched ~280 times a second
#: at 5,000 nodes and 100,000 pods), with no gain in pods Running per second
#: (bench/RESULTS.md, issue 18's fifteenth session).
WORKERS = 1


def default_timer_tick(heartbeat_interval: float,
                       lease_renew_interval: float | None = None) -> float:
    """The pool's timer tick unless one is given: a tenth of the shorter of the
    two heartbeat periods (1 s at Kubernetes' 10 s, 30 s at KWOK's 300 s
    renewals). The timer's rounds, and the pods' resyncs, come a tick apart."""
    return min(heartbeat_interval, lease_renew_interval or heartbeat_interval) / 10


class KubeletPool:
    """Fake-runtime kubelets driven by shared threads (see the module contract)."""

    def __init__(self, client: Client, *, workers: int = WORKERS,
                 heartbeat_interval: float = 10.0,
                 lease_renew_interval: float | None = None,
                 relist_interval: float = 300.0, timer_tick: float | None = None,
                 name: str = "hollow") -> None:
        """``heartbeat_interval`` and ``lease_renew_interval`` (default: the
        same) are the pooled kubelets' periods, which set the tick: each
        duty's own period is its kubelet's. ``timer_tick``: the timer thread
        sleeps at least this long between rounds (default: a tenth of the
        shorter period, 1 s for the 10 s heartbeat), so each beat comes at
        most a tick after its due time."""
        self.client = client
        self.name = name
        self.workers = max(1, workers)
        self.heartbeat_interval = heartbeat_interval
        self.relist_interval = relist_interval
        # A tenth of the period: 1 s at 10 s, within the 40 s lease by far. Fewer,
        # larger rounds: at 5,000 nodes a round of 500 renewals a second cost
        # about 100 us each where ten rounds of 50 cost 115-200 (each round
        # starts with the interpreter's caches cold), and the watchers it
        # reaches wake once a round (Store.exclusive) instead of ten times.
        self.timer_tick = (default_timer_tick(heartbeat_interval, lease_renew_interval)
                           if timer_tick is None else timer_tick)
        self.queue: WorkQueue[tuple[str, str]] = WorkQueue(name=f"{name}-kubelets")
        self.kubelets: dict[str, Kubelet] = {}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._watch: WatchStream | None = None
        self._watch_lock = threading.Lock()
        self._timer_wake = threading.Condition()
        self._started = False

    # ------------------------------------------------------------------ membership

    def queue_for(self, node: str) -> NodeQueue:
        """The queue a pooled node's kubelet is built with."""
        return NodeQueue(self.queue, node)

    def add(self, kubelet: Kubelet) -> None:
        """Pool ``kubelet`` (built with :meth:`queue_for` its node, on a FakeRuntime)."""
        if self._started:
            raise RuntimeError("kubelets join a pool before it starts")
        if not isinstance(kubelet.runtime, FakeRuntime):
            raise ValueError(f"node {kubelet.node.name}: only fake-runtime (hollow) nodes "
                             "can share a kubelet pool")
        queue = kubelet.queue
        if not isinstance(queue, NodeQueue) or queue.shared is not self.queue:
            raise ValueError(f"node {kubelet.node.name}: build its kubelet with "
                             "queue=pool.queue_for(node)")
        self.kubelets[kubelet.node.name] = kubelet

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Register every node, then start the shared threads; returns when all
        nodes are registered."""
        if self._started:
            raise RuntimeError(f"kubelet pool {self.name} already started")
        self._started = True
        for kubelet in self.kubelets.values():
            kubelet.start(loops=False)
            runtime = kubelet.runtime
            assert isinstance(runtime, FakeRuntime)
            runtime.add_listener(self._on_runtime_event)
        loops: list[tuple[str, Callable[[], None]]] = [
            ("pods", self._watch_loop), ("timers", self._timer_loop)]
        loops += [(f"worker-{i}", self._worker_loop) for i in range(self.workers)]
        for label, target in loops:
            t = threading.Thread(target=target, name=f"{self.name}-kubelets-{label}",
                                 daemon=True)
            self._threads.append(t)
            t.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the shared threads and every kubelet within ``timeout`` seconds."""
        self._stop.set()
        self.queue.shut_down()
        with self._watch_lock:
            if self._watch is not None:
                self._watch.stop()
        with self._timer_wake:
            self._timer_wake.notify_all()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in self._threads if t.is_alive()]
        if alive:
            log.warning("kubelet pool %s: threads still running after stop: %s", self.name,
                        ", ".join(alive))
        for kubelet in self.kubelets.values():
            try:
                kubelet.stop(max(0.1, deadline - time.monotonic()))
            except Exception:  # one stuck kubelet must not keep the others running
                log.exception("stopping the kubelet of node %s failed", kubelet.node.name)

    def thread_names(self) -> list[str]:
        """The pool's own threads (for tests and the footprint benchmark)."""
        return [t.name for t in self._threads if t.is_alive()]

    # ------------------------------------------------------------------ pods

    def _adopt(self, pods: Iterable[Object]) -> None:
        by_node: dict[str, list[Object]] = defaultdict(list)
        for pod in pods:
            by_node[str((pod.get("spec") or {}).get("nodeName") or "")].append(pod)
        for name, kubelet in self.kubelets.items():
            if not kubelet.stopped:
                kubelet.adopt_listing(by_node.get(name, []))

    def _watch_loop(self) -> None:
        while not self._stop.is_set():
            try:
                listing = self.client.list("pods", field_selector=BOUND_PODS)
                self._adopt(listing.items)
                rv = listing.resource_version
                while not self._stop.is_set():
                    rv = self._watch_from(rv)
            except Expired:
                continue  # fell behind the history: relist
            except Exception:  # API down or broken stream: relist after a pause
                log.exception("kubelet pool %s: pod watch failed; relisting", self.name)
                self._stop.wait(_RELIST_BACKOFF)

    def _watch_from(self, rv: str) -> str:
        stream = self.client.watch("pods", field_selector=BOUND_PODS, resource_version=rv)
        with self._watch_lock:
            self._watch = stream
        if self._stop.is_set():
            stream.stop()
        try:
            for event in stream:
                if event.resource_version:
                    rv = event.resource_version
                if event.type == "BOOKMARK":
                    continue
                pod = event.object
                kubelet = self.kubelets.get(str((pod.get("spec") or {}).get("nodeName") or ""))
                if kubelet is not None and not kubelet.stopped:
                    kubelet.observe(event.type, pod)
        finally:
            stream.stop()
        return rv

    def _on_runtime_event(self, event: RuntimeEvent) -> None:
        """The fake runtime's listener (called under its lock: only queue here)."""
        node = event.labels.get(LABEL_NODE, "")
        namespace, name = event.labels.get(LABEL_NAMESPACE), event.labels.get(LABEL_NAME)
        if node in self.kubelets and namespace and name:
            self.queue.add((node, f"{namespace}/{name}"))

    def _worker_loop(self) -> None:
        while (item := self.queue.get()) is not None:
            node, key = item
            try:
                kubelet = self.kubelets.get(node)
                if kubelet is not None and not kubelet.stopped:
                    kubelet.sync(key)
            finally:
                self.queue.done(item)

    # ------------------------------------------------------------------ timers

    def _timer_loop(self) -> None:
        now = time.monotonic()
        seq = itertools.count()
        heap: list[tuple[float, int, str, str]] = []
        count = max(1, len(self.kubelets))
        for i, (name, kubelet) in enumerate(self.kubelets.items()):
            # Spread each duty over its first period: node i fires at (i+1)/count
            # of it, so no lease renewed at registration ages past a period.
            for duty in _DUTIES:
                heapq.heappush(heap, (now + self._period(kubelet, duty) * (i + 1) / count,
                                      next(seq), duty, name))
        while not self._stop.is_set():
            if not heap:
                return
            wait = heap[0][0] - time.monotonic()
            if wait > 0:
                # Sleep at least a tick: the duties due meanwhile then run in one
                # round (a thread wake-up per heartbeat costs more than the
                # heartbeat's own work at thousands of nodes).
                with self._timer_wake:
                    self._timer_wake.wait(max(wait, self.timer_tick))
                continue
            now = time.monotonic()
            due: list[tuple[float, int, str, str]] = []
            while heap and heap[0][0] <= now:
                due.append(heapq.heappop(heap))
            # A kubelet stopped on its own (a node failure) falls silent for good.
            due = [d for d in due if not self.kubelets[d[3]].stopped]
            self._round(*([self.kubelets[d[3]] for d in due if d[2] == duty]
                          for duty in _DUTIES))
            now = time.monotonic()
            for at, _, duty, name in due:
                # From the due time, not from now: a slow round does not drift later;
                # a duty more than a period late waits a period (see next_due).
                period = self._period(self.kubelets[name], duty)
                heapq.heappush(heap, (next_due(at, period, now), next(seq), duty, name))

    def _period(self, kubelet: Kubelet, duty: str) -> float:
        if duty == "lease":
            return kubelet.lease_renew_interval
        if duty == "status":
            return kubelet.heartbeat_interval
        return self.relist_interval

    def _round(self, leases: list[Kubelet], reports: list[Kubelet],
               relists: list[Kubelet]) -> None:
        """Run one round of due duties: the node leases first, then the status
        reports, each in batches of :data:`HEARTBEAT_BATCH` nodes per hold of the
        store's write lock, then the relists."""
        self._in_batches(leases, lambda kubelet: kubelet.renew_lease())
        self._in_batches(reports, lambda kubelet: kubelet.report_status())
        for kubelet in relists:
            if self._stop.is_set():
                return
            try:
                kubelet.relist_runtime()
            except Exception:  # the next relist tries again
                log.exception("node %s: runtime relist failed", kubelet.node.name)

    def _in_batches(self, kubelets: list[Kubelet], duty: Callable[[Kubelet], None]) -> None:
        for i in range(0, len(kubelets), HEARTBEAT_BATCH):
            if self._stop.is_set():
                return
            with write_batch(self.client):
                for kubelet in kubelets[i:i + HEARTBEAT_BATCH]:
                    duty(kubelet)
