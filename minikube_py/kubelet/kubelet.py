"""The kubelet of one virtual node: threads, watches, work queue, logs.

``Kubelet(client, node_spec, runtime, host=HostInfo.read(), state_dir=...)``;
:meth:`Kubelet.start` creates the node's cgroup (:mod:`.node_cgroup`),
registers the Node and starts:

* a **heartbeat** thread with two duties (waiting on a ``threading.Event``,
  so :meth:`~Kubelet.stop` interrupts it): every ``heartbeat_interval``
  seconds (the kubelet's ``nodeStatusUpdateFrequency``) the Node's
  conditions, ``lastHeartbeatTime``, images and usage annotations are
  worked out and posted when changed or due (:mod:`.node_status`); a failed
  registration is retried there; and every quarter of ``lease_duration``
  (the kubelet's ``nodeLeaseDurationSeconds``, 40: every 10 s) the node's
  Lease is renewed (:mod:`.node_lease`). Due together, the lease goes first;
* a **pod watch** thread: lists the pods with ``spec.nodeName=<node>``, then
  watches from the list's resourceVersion (relisting on ``Expired``) and keeps
  a local cache; every change enqueues ``namespace/name``. A list **admits**
  its pods (:mod:`.admission`): first those the runtime already runs
  (adopted without a check, so a restart never rejects a running pod), then
  the others in creation order. It also enqueues pods that vanished
  meanwhile and sandboxes of this node whose pod (by uid) is not bound here
  any more, so they are removed (a kubelet restarted after a deletion);
* a **runtime events** thread (the evented PLEG): every container or sandbox
  change the runtime reports enqueues its pod, so an exit is acted on at once.
  When the stream ends (the runtime restarted), it subscribes again and
  resyncs every pod;
* a **relist** thread (the generic PLEG): every ``relist_interval`` seconds
  one cheap look at the runtime (:mod:`.pleg`) enqueues only the pods whose
  runtime state changed; after the runtime was unreachable, every pod. While
  the runtime events stream is subscribed, events carry the changes and the
  relist is only the safety net: it runs every ``evented_relist_interval``
  seconds instead (Kubernetes' evented PLEG stretches it to 300 s; ours is
  shorter because a Podman event can be missed while its journal rotates).
  A stream that ends, or says it is interrupted (a reconnecting stream's
  marker, :data:`~minikube_py.runtime.base.EVENT_STREAM_INTERRUPTED`), wakes
  the relist at once and brings back the short interval until events flow
  again, so a runtime going away is noticed within a second. The
  look goes through ``lister``, a :class:`~.pleg.RuntimeLister` that kubelets
  sharing one runtime also share (one listing per interval for all of them);
  the relists fall on multiples of the interval so that they coincide;
* ``workers`` **worker** threads taking keys from a
  :class:`~minikube_py.client.workqueue.WorkQueue` (so one pod is synced by one
  worker at a time) and calling :class:`.sync.PodSyncer`. After each sync the
  pod is re-queued after ``resync_interval`` seconds (sooner when a restart
  back-off ends), in place of any time an earlier sync had set (Kubernetes'
  pod workers): level-triggered, a missed event heals by itself. With
  ``resync_jitter`` each pod resyncs on its own slot (:mod:`.resync`). With
  ``resync_granularity`` the resync falls on the next multiple of it on the
  monotonic clock (the work queue's), so resyncs due within it run back to
  back (hollow nodes: see :mod:`.pool`). A failing
  sync is retried with the queue's rate-limited back-off (never later than
  the resync). Slow teardown (grace periods, preStop hooks) runs on
  :class:`.terminator.Terminator` threads, never on a worker;
* probe workers (:mod:`.probes`), one per probe, started by the syncs.

Knobs for tests: ``restart_backoff=(base, cap)`` and ``backoff_reset`` (the
CrashLoopBackOff of :mod:`.backoff`), ``probe_time_scale`` (probe periods,
delays and timeouts are multiplied by it), ``cgroup_root`` (``None``: no
node cgroup) and ``cluster`` (the cluster id its node cgroup is kept under).

:meth:`~Kubelet.stop` ends every thread (joined within ``timeout`` seconds),
removes the node's cgroup if it is empty, and leaves containers running, as a
restarting kubelet does. :meth:`~Kubelet.logs` is what the API server's
``pods/log`` calls.

This module never imports the store: it talks to the API only through a
:class:`~minikube_py.client.base.Client`.
"""

from __future__ import annotations

import functools
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..api.errors import BadRequest, Expired, NotFound
from ..client.base import Client, Object, WatchStream, for_caches
from ..client.events import EventRecorder
from ..client.workqueue import WorkQueue
from ..nodes import HostInfo, HostReadings, NodeSpec
from ..runtime.base import (
    CONTAINER_EXITED,
    EVENT_STREAM_INTERRUPTED,
    EVENT_STREAM_RESUMED,
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_NODE,
    LABEL_POD_UID,
    ContainerNotFound,
    ContainerRuntime,
    RuntimeEventStream,
)
from ..runtime.streaming import ExecOptions, StreamSession
from . import streaming
from .admission import Admitter
from .backoff import RestartBackoff
from .dns import PodNetworking
from .node_cgroup import DEFAULT_CGROUP_ROOT, NodeCgroup
from .node_lease import DEFAULT_LEASE_DURATION, NodeLease, renew_interval
from .node_status import NodeStatusReporter
from .nodequeue import PodQueue
from .pleg import Fingerprint, RuntimeLister, Snapshot, changed_keys, next_tick
from .probes import ProbeManager
from .resync import resync_delay
from .sources import ClientSources
from .status import TERMINAL_PHASES, container_name, group_instances
from .sync import PodSyncer
from .terminator import Terminator
from .tokens import TokenCache, TokenSource
from .volumes import VolumeManager

__all__ = ["Kubelet", "next_due"]

log = logging.getLogger(__name__)

#: Pause before relisting after an API failure, or resubscribing to runtime events.
_RELIST_BACKOFF = 1.0


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def _rv(obj: Mapping[str, Any] | None) -> int:
    try:
        return int(((obj or {}).get("metadata") or {}).get("resourceVersion") or 0)
    except ValueError:
        return 0


def _go_list(names: list[str]) -> str:
    return "[" + " ".join(names) + "]"


def _sandbox_key(labels: Mapping[str, str]) -> str:
    return f"{labels.get(LABEL_NAMESPACE, '')}/{labels.get(LABEL_NAME, '')}"


class Kubelet:
    """One node's agent (see the module contract)."""

    def __init__(self, client: Client, node: NodeSpec, runtime: ContainerRuntime, *,
                 host: HostInfo, state_dir: Path, clock: Callable[[], float] = time.time,
                 heartbeat_interval: float = 10.0, workers: int = 4,
                 kubelet_version: str = "v1.32.0", resync_interval: float = 10.0,
                 relist_interval: float = 1.0, evented_relist_interval: float = 10.0,
                 lister: RuntimeLister | None = None,
                 restart_backoff: tuple[float, float] = (10.0, 300.0),
                 backoff_reset: float = 600.0, probe_time_scale: float = 1.0,
                 cgroup_root: Path | None = DEFAULT_CGROUP_ROOT, cluster: str = "",
                 readings: Callable[[Path], HostReadings] = HostReadings.read,
                 networking: PodNetworking | None = None,
                 token_source: TokenSource | None = None,
                 queue: PodQueue | None = None, resync_jitter: float = 0.0,
                 resync_granularity: float = 0.0, volume_files: bool = True,
                 usage_budget: Callable[[], bool] | None = None,
                 usage_interval: float = 0.0,
                 lease_duration: int = DEFAULT_LEASE_DURATION,
                 lease_renew_interval: float | None = None) -> None:
        """``token_source`` issues the service-account tokens of projected
        volumes (None: a pod asking for one fails its mount, with that said).
        ``queue``: where pod keys go; a pool of hollow kubelets passes its
        shared queue's view for this node (see :mod:`.pool`). ``resync_jitter``
        (Kubernetes' ``workerResyncIntervalJitterFactor``, 0.5): more than 0,
        each pod resyncs on its own slot, once every ``1 + jitter / 2``
        intervals, so pods created together do not resync together (see
        :mod:`.resync`). ``resync_granularity``:
        each resync is put off to the next multiple of that many seconds on the
        monotonic clock (at most that much later; 0: not at all), so the resyncs
        of many pods due within one such step run one after the other.
        ``volume_files``: write the
        API-data volumes to disk (off for hollow nodes, whose containers read
        nothing: see :mod:`.volumes`). ``usage_budget``: asked before each write of
        the node's usage annotations, False defers it; ``usage_interval``: the
        least time between two readings of the containers' stats for them (see
        :mod:`.node_status`). ``lease_duration``: the seconds written in the
        node's Lease; it is renewed every quarter of them, or every
        ``lease_renew_interval`` seconds when given (for tests)."""
        if not lease_duration > 0:
            raise ValueError(f"node {node.name}: the lease duration must be more than 0 "
                             f"seconds, not {lease_duration}")
        self.client = client
        self.node = node
        self.runtime = runtime
        self.host = host
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.heartbeat_interval = heartbeat_interval
        self.workers = max(1, workers)
        self.resync_interval = resync_interval
        self.resync_jitter = resync_jitter
        self.resync_granularity = resync_granularity
        self.relist_interval = relist_interval
        self.evented_relist_interval = max(relist_interval, evented_relist_interval)
        # Kubelets of nodes that share one runtime share one lister, so they list it
        # once per relist between them; a kubelet on its own lists for itself.
        self.lister = lister if lister is not None else RuntimeLister(runtime)
        self.recorder = EventRecorder(client, component="kubelet", host=node.name, clock=clock)
        self.queue: PodQueue = (queue if queue is not None
                                else WorkQueue(name=f"kubelet-{node.name}"))
        self.node_status = NodeStatusReporter(client, node, runtime, host=host,
                                              state_dir=self.state_dir, clock=clock,
                                              kubelet_version=kubelet_version,
                                              readings=readings,
                                              usage_budget=usage_budget,
                                              usage_interval=usage_interval)
        self.lease = NodeLease(client, node.name, clock=clock, duration=lease_duration)
        #: Seconds between two renewals of the node's Lease.
        self.lease_renew_interval = (renew_interval(lease_duration)
                                     if lease_renew_interval is None else lease_renew_interval)
        self.cgroup = NodeCgroup(node.name, cpu_millis=node.cpu_millis,
                                 memory_bytes=node.memory_bytes, root=cgroup_root,
                                 cluster=cluster)
        self.admitter = Admitter(node)
        self.terminator = Terminator(f"kubelet-{node.name}")
        self.probes = ProbeManager(runtime, self.recorder, clock=clock,
                                   time_scale=probe_time_scale, on_change=self.queue.add)
        base, cap = restart_backoff
        self.backoff = RestartBackoff(base=base, cap=cap, reset=backoff_reset, clock=clock)
        # ConfigMaps and Secrets, read through the API (env and volumes alike);
        # only read (their contents are copied out), so an in-process client may
        # hand out the store's shared copies: every resync reads the pod's
        # projected volume sources again.
        sources = ClientSources(for_caches(client))
        self.syncer = PodSyncer(client, runtime, self.recorder, node=node.name, host_ip=host.ip,
                                state_dir=self.state_dir, clock=clock, admitter=self.admitter,
                                backoff=self.backoff, probes=self.probes,
                                terminator=self.terminator,
                                allocatable=(node.cpu_millis, node.memory_bytes),
                                cgroup_parent=lambda: self.cgroup.parent,
                                on_written=self._remember, on_observed=self._observed,
                                networking=networking,
                                sources=sources,
                                volumes=VolumeManager(
                                    sources, TokenCache(token_source, clock=clock),
                                    allocatable=(node.cpu_millis, node.memory_bytes),
                                    files=volume_files))
        self._pods: dict[str, Object] = {}
        #: key -> resourceVersion of our own status write, made on the version
        #: the sync acted on, not yet seen back on the watch (see observe).
        self._echoes: dict[str, int] = {}
        self._pods_lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._streams_lock = threading.Lock()
        self._watch: WatchStream | None = None
        self._events: RuntimeEventStream | None = None
        # Set while a runtime events stream is subscribed (the relist may slow down).
        self._subscribed = threading.Event()
        # Wakes the relist loop early: the stream ended, or stop() was called.
        self._relist_wake = threading.Event()
        self._started = False
        # The generic PLEG's last look at the runtime, and whether it answered.
        self._pleg_previous: Snapshot | None = None
        #: key -> the runtime's state its latest sync since the last relist
        #: reported (see relist_runtime); replaced, not cleared, by each relist.
        self._pleg_seen: dict[str, Fingerprint] = {}
        self._runtime_down = False

    # ------------------------------------------------------------------ lifecycle

    def start(self, *, loops: bool = True) -> None:
        """Register the node and start every loop; returns at once.

        ``loops=False``: register only; a :class:`~.pool.KubeletPool` drives
        this kubelet's watch, PLEG, heartbeat and syncs on shared threads.
        """
        if self._started:
            raise RuntimeError(f"kubelet for node {self.node.name} already started")
        self._started = True
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.cgroup.setup()
        try:
            self.node_status.register()
        except Exception:  # the heartbeat loop retries; a kubelet starts regardless
            log.exception("node %s: registration failed; will retry", self.node.name)
        try:
            self.lease.renew()
        except Exception:  # the heartbeat renews it again
            log.exception("node %s: creating the node lease failed; will retry", self.node.name)
        if not loops:
            return
        # Subscribe before the first list, so no runtime change falls in between.
        try:
            self._events = self.runtime.events()
            self._subscribed.set()
        except Exception:  # the events loop subscribes again
            log.exception("node %s: subscribing to runtime events failed", self.node.name)
        threads: list[tuple[str, Callable[[], None]]] = [
            ("heartbeat", self._heartbeat_loop), ("pods", self._watch_loop),
            ("pleg", self._runtime_events_loop), ("relist", self._relist_loop)]
        threads += [(f"worker-{i}", self._worker_loop) for i in range(self.workers)]
        for name, target in threads:
            t = threading.Thread(target=target, name=f"kubelet-{self.node.name}-{name}",
                                 daemon=True)
            self._threads.append(t)
            t.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop every loop and join the threads (within ``timeout`` seconds)."""
        self._stop.set()
        self._relist_wake.set()
        self.queue.shut_down()
        with self._streams_lock:
            if self._watch is not None:
                self._watch.stop()
            if self._events is not None:
                self._events.stop()
        deadline = time.monotonic() + timeout
        self.probes.stop(max(0.0, deadline - time.monotonic()))
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        self.terminator.stop(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in self._threads if t.is_alive()]
        if alive:
            log.warning("kubelet %s: threads still running after stop: %s", self.node.name,
                        ", ".join(alive))
        self.cgroup.teardown()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    # ------------------------------------------------------------------ heartbeat

    def _heartbeat_loop(self) -> None:
        # Each duty keeps its own time, from its due time (a slow heartbeat does
        # not drift later), never catching up on beats missed meanwhile.
        lease_due = status_due = time.monotonic()
        lease_due += self.lease_renew_interval
        status_due += self.heartbeat_interval
        while not self._stop.wait(max(0.0, min(lease_due, status_due) - time.monotonic())):
            now = time.monotonic()
            if lease_due <= now:
                self.renew_lease()
                lease_due = next_due(lease_due, self.lease_renew_interval, now)
            if status_due <= now:
                self.report_status()
                status_due = next_due(status_due, self.heartbeat_interval, now)

    def renew_lease(self) -> None:
        """Renew (or create) the node's Lease; a failure is logged, the next
        heartbeat tries again."""
        try:
            self.lease.renew()
        except Exception:  # keep beating: the API may be back next time
            log.exception("node %s: renewing the node lease failed", self.node.name)

    def report_status(self) -> None:
        """Post the node status if it changed or is due (registering first if
        that has not succeeded yet); a failure is logged."""
        try:
            if self.node_status.registered:
                self.node_status.heartbeat()
            else:
                self.node_status.register()
        except Exception:  # keep beating: the API may be back next time
            log.exception("node %s: heartbeat failed", self.node.name)

    # ------------------------------------------------------------------ pod cache + watch

    def _remember(self, pod: Object, acted_on: bool = False) -> None:
        """Keep the newest copy we know (our own status writes included).
        ``acted_on``: the write was made on the version the sync acted on, so
        its coming back on the watch brings nothing to sync (see :meth:`observe`)."""
        key = _key(pod)
        with self._pods_lock:
            if key in self._pods and _rv(self._pods[key]) < _rv(pod):
                self._pods[key] = pod
            if acted_on:
                self._echoes[key] = _rv(pod)
            else:
                self._echoes.pop(key, None)

    def _relist(self) -> str:
        listing = self.client.list("pods", field_selector=f"spec.nodeName={self.node.name}")
        self.adopt_listing(listing.items)
        return listing.resource_version

    def adopt_listing(self, pods: list[Object]) -> None:
        """Take a fresh list of this node's pods: admit, cache and queue them
        (and every pod or sandbox that vanished meanwhile)."""
        fresh = {_key(p): p for p in pods}
        with self._pods_lock:
            vanished = set(self._pods) - set(fresh)
            self._pods = fresh
            self._echoes.clear()  # the watch starts again after the listing
        try:
            sandboxes = self.runtime.list_sandboxes({LABEL_NODE: self.node.name})
        except Exception:  # the relist loop notices when the runtime is back
            log.warning("node %s: cannot list the runtime's sandboxes", self.node.name,
                        exc_info=True)
            sandboxes = []
        running = {sb.labels.get(LABEL_POD_UID, "") for sb in sandboxes}
        bound = {str(p["metadata"].get("uid", "")) for p in fresh.values()}
        # Pods the runtime runs first (never displaced by a restart), then the others
        # in creation order, as the kubelet's HandlePodAdditions does.
        for pod in sorted(fresh.values(), key=lambda p: (
                str(p["metadata"].get("uid", "")) not in running,
                str(p["metadata"].get("creationTimestamp") or ""), _key(p))):
            meta = pod["metadata"]
            if meta.get("deletionTimestamp") or \
                    (pod.get("status") or {}).get("phase") in TERMINAL_PHASES:
                continue
            self.admitter.admit(pod, adopted=str(meta.get("uid", "")) in running)
        # Sandboxes whose pod is gone or bound elsewhere: their key syncs them away.
        orphans = {_sandbox_key(sb.labels) for sb in sandboxes
                   if sb.labels.get(LABEL_POD_UID, "") not in bound}
        # Ours by label but without a pod key (not made by this kubelet): no key can
        # sync it away, so remove it here.
        for sb in sandboxes:
            if not sb.labels.get(LABEL_NAME) and \
                    sb.labels.get(LABEL_POD_UID, "") not in bound:
                self.terminator.submit(f"orphan/{sb.id}",
                                       functools.partial(self.runtime.remove_sandbox, sb.id))
        orphans.discard("/")
        for key in sorted(set(fresh) | vanished | orphans):
            self.queue.add(key)

    def _watch_loop(self) -> None:
        while not self._stop.is_set():
            try:
                rv = self._relist()
                while not self._stop.is_set():
                    rv = self._watch_from(rv)
            except Expired:
                continue  # fell behind the history: relist
            except Exception:  # API down or broken stream: relist after a pause
                log.exception("kubelet %s: pod watch failed; relisting", self.node.name)
                self._stop.wait(_RELIST_BACKOFF)

    def _watch_from(self, rv: str) -> str:
        stream = self.client.watch("pods", field_selector=f"spec.nodeName={self.node.name}",
                                   resource_version=rv)
        with self._streams_lock:
            self._watch = stream
        if self._stop.is_set():  # stop() ran before the stream was visible to it
            stream.stop()
        try:
            for event in stream:
                if event.resource_version:
                    rv = event.resource_version
                if event.type == "BOOKMARK":
                    continue
                self.observe(event.type, event.object)
        finally:
            stream.stop()
        return rv

    def observe(self, type: str, pod: Object) -> None:
        """A watch event about one of this node's pods: cache it, queue its key.

        The one event not queued is this kubelet's own status write coming
        back, when that write was made on the version its sync acted on: it
        differs from what the sync saw by the status the sync wrote, so it
        brings nothing to sync. Kubernetes' kubelet does not sync for it
        either (its pod config sees no change of spec, labels, annotations or
        deletion and only reconciles the status). A write that had to re-read
        a newer version after a conflict carries changes no sync has acted on
        (a deletion, say): its echo is queued, as every other event is.
        """
        key = _key(pod)
        with self._pods_lock:
            if type == "DELETED":
                self._pods.pop(key, None)
                self._echoes.pop(key, None)
            else:
                seen = _rv(pod)
                if _rv(self._pods.get(key)) <= seen:
                    self._pods[key] = pod
                if seen and self._echoes.get(key) == seen:
                    del self._echoes[key]
                    return  # our own write, on what the sync acted on
        self.queue.add(key)

    def cached_pod(self, namespace: str, name: str) -> Object | None:
        with self._pods_lock:
            return self._pods.get(f"{namespace}/{name}")

    def _enqueue_all(self) -> None:
        """Every pod we know, and every pod the runtime runs for this node."""
        with self._pods_lock:
            keys = set(self._pods)
        try:
            keys |= {_sandbox_key(sb.labels)
                     for sb in self.runtime.list_sandboxes({LABEL_NODE: self.node.name})}
        except Exception:  # the runtime is still away; the relist loop tries again
            log.debug("node %s: runtime not answering", self.node.name, exc_info=True)
        for key in sorted(keys):
            self.queue.add(key)

    # ------------------------------------------------------------------ runtime events

    def _subscribe(self) -> RuntimeEventStream | None:
        try:
            stream = self.runtime.events()
        except Exception:  # the runtime is down: try again shortly
            log.debug("node %s: runtime events unavailable", self.node.name, exc_info=True)
            return None
        with self._streams_lock:
            self._events = stream
        if self._stop.is_set():
            stream.stop()
            return None
        self._subscribed.set()
        log.info("node %s: subscribed to runtime events again; resyncing", self.node.name)
        self._enqueue_all()  # changes while we were not subscribed
        return stream

    def _runtime_events_loop(self) -> None:
        stream = self._events
        while not self._stop.is_set():
            if stream is None:
                if self._stop.wait(_RELIST_BACKOFF):
                    return
                stream = self._subscribe()
                continue
            event = stream.next()
            if event is None:  # stopped: by us, or the runtime went away
                if not self._stop.is_set():
                    log.warning("node %s: runtime event stream ended", self.node.name)
                stream = None
                self._events_lost()
                continue
            if event.type == EVENT_STREAM_INTERRUPTED:  # it reconnects by itself
                log.warning("node %s: runtime event stream interrupted; relisting every "
                            "%g s until it is back", self.node.name, self.relist_interval)
                self._events_lost()
                continue
            if event.type == EVENT_STREAM_RESUMED:
                log.info("node %s: runtime event stream back", self.node.name)
                self._subscribed.set()
                continue
            if event.labels.get(LABEL_NODE) != self.node.name:
                continue
            ns, name = event.labels.get(LABEL_NAMESPACE), event.labels.get(LABEL_NAME)
            if ns and name:
                self.queue.add(f"{ns}/{name}")

    def _events_lost(self) -> None:
        # Without events, only the relist sees changes: look now, then often.
        self._subscribed.clear()
        self._relist_wake.set()

    def current_relist_interval(self) -> float:
        """Seconds between relists now: long while runtime events flow, short without."""
        return (self.evented_relist_interval if self._subscribed.is_set()
                else self.relist_interval)

    def _relist_loop(self) -> None:
        while True:
            interval = self.current_relist_interval()
            # Relists fall on the same instants in every kubelet (see pleg.next_tick).
            self._relist_wake.wait(next_tick(interval))
            self._relist_wake.clear()
            if self._stop.is_set():
                return
            self.relist_runtime()

    def _observed(self, key: str, fingerprint: Fingerprint) -> None:
        # Only ever set and looked up (never iterated) across threads: atomic.
        self._pleg_seen[key] = fingerprint

    def relist_runtime(self) -> None:
        """One generic-PLEG look at the runtime: queue the pods whose runtime
        state changed since the last look (every pod after an outage), unless
        a sync since the last look reported exactly that state.

        The runtime's events make the kubelet sync a pod at each change, so
        the relist, a safety net, would otherwise sync again every pod started
        since the last relist (at 100,000 hollow pods, 300 syncs a second for
        the five minutes after creating them). Kubernetes' generic PLEG with the
        evented PLEG on skips such a pod likewise: its ``updateCache`` finds the
        events' newer status in the pod cache and sends no event for it. A
        change no sync saw (an event lost) still differs from what the sync
        reported, and is queued."""
        # A sync that reports after this swap writes to the old map (its report
        # is then not used: the pod is at worst synced once more).
        seen, self._pleg_seen = self._pleg_seen, {}
        try:
            current = self.lister.snapshot(self.node.name)
        except Exception:  # the runtime is restarting: note it, keep looking
            if not self._runtime_down:
                log.warning("node %s: the container runtime does not answer", self.node.name)
            self._runtime_down = True
            return
        if self._runtime_down:
            log.info("node %s: the container runtime is back; resyncing", self.node.name)
            self._runtime_down = False
            self._enqueue_all()
        elif self._pleg_previous is not None:
            for key in sorted(changed_keys(self._pleg_previous, current)):
                found = current.get(key)
                if found is None or seen.get(key) != found:
                    self.queue.add(key)
        self._pleg_previous = current

    # ------------------------------------------------------------------ workers

    def _worker_loop(self) -> None:
        assert isinstance(self.queue, WorkQueue)
        while (key := self.queue.get()) is not None:
            try:
                self.sync(key)
            finally:
                self.queue.done(key)

    def sync(self, key: str) -> None:
        """Sync one pod, then queue its next resync (or its retry, on failure).
        The caller took ``key`` from the queue and marks it done afterwards."""
        try:
            with self._pods_lock:
                pod = self._pods.get(key)
            delay = self.syncer.sync(key, pod)
        except Exception:  # retried with back-off; one bad pod never stops a worker
            log.exception("kubelet %s: syncing pod %s failed", self.node.name, key)
            self.queue.add_rate_limited(key)
            self.queue.add_after(key, self.resync_interval)
        else:
            self.queue.forget(key)
            if pod is not None:
                # On the pod's own slot with jitter, put off to the pool's tick
                # with a granularity (see :mod:`.resync`): resyncs due within one
                # tick run back to back, and a sync in a burst of them costs a
                # third of one woken on its own (its thread's caches warm; 5,000
                # hollow nodes, about 130 resyncs a second: 113-139 against
                # 303-410 us, bench/RESULTS.md).
                resync = resync_delay(key, time.monotonic(), interval=self.resync_interval,
                                      jitter=self.resync_jitter,
                                      granularity=self.resync_granularity)
                # The next sync counts from this one, in place of any due before
                # (Kubernetes' pod workers Enqueue after every sync, overwriting):
                # a pod just synced for an event is not resynced soon after, and
                # pods created in a burst do not keep resyncing in one.
                if delay is not None and delay < resync:
                    self.queue.schedule(key, delay)  # a back-off ends: on time
                    return
                self.queue.schedule(key, resync)

    # ------------------------------------------------------------------ logs

    def exec(self, pod: Mapping[str, Any], container: str, command: Sequence[str],
             options: ExecOptions) -> StreamSession:
        """``kubectl exec``: ``command`` in the pod's running ``container``
        (see :mod:`.streaming`; raises :class:`~.streaming.StreamError`)."""
        return streaming.exec_in(self.runtime, pod, container, command, options)

    def attach(self, pod: Mapping[str, Any], container: str,
               options: ExecOptions) -> StreamSession:
        """``kubectl attach``: the running container's own streams."""
        return streaming.attach(self.runtime, pod, container, options)

    def port_forward(self, pod: Mapping[str, Any], port: int) -> socket.socket:
        """``kubectl port-forward``: a connection to ``localhost:port`` in the pod."""
        return streaming.port_forward(self.runtime, pod, port)

    def logs(self, pod: Mapping[str, Any], container: str | None = None, *,
             follow: bool = False, previous: bool = False, tail_lines: int | None = None,
             timestamps: bool = False, since_seconds: float | None = None,
             limit_bytes: int | None = None,
             alive: Callable[[], bool] | None = None) -> Iterator[bytes]:
        """A container's log lines, with Kubernetes' ``pods/log`` errors.

        ``container`` may be omitted for a single-container pod. ``previous``
        reads the last terminated instance (``lastState.terminated``): the one
        before the running one, or the one that exited and waits to restart.
        """
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        name = str(meta.get("name", ""))
        apps = [str(c.get("name")) for c in spec.get("containers") or []]
        inits = [str(c.get("name")) for c in spec.get("initContainers") or []]
        if container is None:
            if len(apps) != 1:
                extra = f" or one of the init containers: {_go_list(inits)}" if inits else ""
                raise BadRequest(f"a container name must be specified for pod {name}, "
                                 f"choose one of: {_go_list(apps)}{extra}")
            container = apps[0]
        if container not in apps and container not in inits:
            raise BadRequest(f"container {container} is not valid for pod {name}")
        uid = str(meta.get("uid", ""))
        found = [c for sb in self.runtime.list_sandboxes({LABEL_POD_UID: uid})
                 for c in self.runtime.list_containers(sb.id) if container_name(c) == container]
        instances = group_instances(found).get(container, [])
        latest = instances[-1] if instances else None
        # Exited and waiting to be restarted: it is already lastState.terminated.
        restarting = latest is not None and latest.state == CONTAINER_EXITED and \
            self.syncer.waiting_reason(uid, container) is not None
        if previous:
            target = latest if restarting else (instances[-2] if len(instances) > 1 else None)
            if target is None or target.state != CONTAINER_EXITED:
                raise BadRequest(f'previous terminated container "{container}" in pod '
                                 f'"{name}" not found')
        else:
            if latest is None:
                raise BadRequest(f'container "{container}" in pod "{name}" is waiting to '
                                 f"start: {self._waiting_reason(pod, container)}")
            target = latest
        try:
            return self.runtime.container_logs(
                target.id, follow=follow, tail_lines=tail_lines, timestamps=timestamps,
                since_seconds=since_seconds, limit_bytes=limit_bytes,
                alive=self._alive(alive))
        except ContainerNotFound:
            raise NotFound(f'container "{container}" in pod "{name}" not found') from None

    def _alive(self, alive: Callable[[], bool] | None) -> Callable[[], bool]:
        """A follower also ends when the kubelet stops."""
        def check() -> bool:
            return not self._stop.is_set() and (alive is None or alive())
        return check

    @staticmethod
    def _waiting_reason(pod: Mapping[str, Any], container: str) -> str:
        status = pod.get("status") or {}
        for st in [*(status.get("initContainerStatuses") or []),
                   *(status.get("containerStatuses") or [])]:
            if st.get("name") == container:
                reason = ((st.get("state") or {}).get("waiting") or {}).get("reason")
                if reason:
                    return str(reason)
        return "ContainerCreating"


def next_due(due: float, period: float, now: float) -> float:
    """The due time after ``due`` (a duty that ran at ``now``): a period later,
    or a period from ``now`` if that is already past. Beats missed meanwhile
    are not made up, and a late beat is not followed at once by another: as
    Kubernetes' ``wait.Until`` loops (the kubelet's status sync, its lease
    controller), the next comes a period after the late one ran. The standalone
    kubelet's heartbeat thread and the pool's timer both follow this rule."""
    due += period
    return due if due > now else now + period
