"""The kubelet of one virtual node: threads, watches, work queue, logs.

``Kubelet(client, node_spec, runtime, host=HostInfo.read(), state_dir=...)``;
:meth:`Kubelet.start` registers the Node and starts:

* a **heartbeat** thread: every ``heartbeat_interval`` seconds (waiting on a
  ``threading.Event``, so :meth:`~Kubelet.stop` interrupts it) the Node's
  conditions, ``lastHeartbeatTime`` and images are posted
  (:mod:`.node_status`); a failed registration is retried there;
* a **pod watch** thread: lists the pods with ``spec.nodeName=<node>``, then
  watches from the list's resourceVersion (relisting on ``Expired``) and keeps
  a local cache; every change enqueues ``namespace/name``. A relist also
  enqueues pods that vanished meanwhile and sandboxes the runtime still has
  for pods the API no longer knows (a kubelet restarted after a deletion);
* a **runtime events** thread (the evented PLEG): every container or sandbox
  change the runtime reports enqueues its pod, so an exit is acted on at once;
* ``workers`` **worker** threads taking keys from a
  :class:`~minikube_py.client.workqueue.WorkQueue` (so one pod is synced by one
  worker at a time) and calling :class:`.sync.PodSyncer`. After each sync the
  pod is re-queued after ``resync_interval`` seconds (sooner when a restart
  back-off ends): level-triggered, a missed event heals by itself. A failing
  sync is retried with the queue's rate-limited back-off (never later than
  the resync).

:meth:`~Kubelet.stop` ends every thread (joined within ``timeout`` seconds)
and leaves containers running, as a restarting kubelet does.
:meth:`~Kubelet.logs` is what the API server's ``pods/log`` calls.

This module never imports the store: it talks to the API only through a
:class:`~minikube_py.client.base.Client`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..api.errors import BadRequest, Expired, NotFound
from ..client.base import Client, Object, WatchStream
from ..client.events import EventRecorder
from ..client.workqueue import WorkQueue
from ..nodes import HostInfo, HostReadings, NodeSpec
from ..runtime.base import (
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_NODE,
    LABEL_POD_UID,
    ContainerNotFound,
    ContainerRuntime,
    RuntimeEventStream,
)
from .node_status import NodeStatusReporter
from .status import group_instances
from .sync import PodSyncer

__all__ = ["Kubelet"]

log = logging.getLogger(__name__)

#: Pause before relisting after an API failure (the watch thread's only wait).
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


class Kubelet:
    """One node's agent (see the module contract)."""

    def __init__(self, client: Client, node: NodeSpec, runtime: ContainerRuntime, *,
                 host: HostInfo, state_dir: Path, clock: Callable[[], float] = time.time,
                 heartbeat_interval: float = 10.0, workers: int = 4,
                 kubelet_version: str = "v1.32.0", resync_interval: float = 10.0,
                 restart_delay: float = 10.0,
                 readings: Callable[[Path], HostReadings] = HostReadings.read) -> None:
        self.client = client
        self.node = node
        self.runtime = runtime
        self.host = host
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.heartbeat_interval = heartbeat_interval
        self.workers = max(1, workers)
        self.resync_interval = resync_interval
        self.recorder = EventRecorder(client, component="kubelet", host=node.name, clock=clock)
        self.queue: WorkQueue[str] = WorkQueue(name=f"kubelet-{node.name}")
        self.node_status = NodeStatusReporter(client, node, runtime, host=host,
                                              state_dir=self.state_dir, clock=clock,
                                              kubelet_version=kubelet_version,
                                              readings=readings)
        self.syncer = PodSyncer(client, runtime, self.recorder, node=node.name, host_ip=host.ip,
                                state_dir=self.state_dir, clock=clock,
                                restart_delay=restart_delay, on_written=self._remember)
        self._pods: dict[str, Object] = {}
        self._pods_lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._streams_lock = threading.Lock()
        self._watch: WatchStream | None = None
        self._events: RuntimeEventStream | None = None
        self._started = False

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Register the node and start every loop; returns at once."""
        if self._started:
            raise RuntimeError(f"kubelet for node {self.node.name} already started")
        self._started = True
        self.state_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.node_status.register()
        except Exception:  # the heartbeat loop retries; a kubelet starts regardless
            log.exception("node %s: registration failed; will retry", self.node.name)
        # Subscribe before the first list, so no runtime change falls in between.
        self._events = self.runtime.events()
        loops: list[tuple[str, Callable[[], None]]] = [
            ("heartbeat", self._heartbeat_loop), ("pods", self._watch_loop),
            ("pleg", self._runtime_events_loop)]
        loops += [(f"worker-{i}", self._worker_loop) for i in range(self.workers)]
        for name, target in loops:
            t = threading.Thread(target=target, name=f"kubelet-{self.node.name}-{name}",
                                 daemon=True)
            self._threads.append(t)
            t.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop every loop and join the threads (within ``timeout`` seconds)."""
        self._stop.set()
        self.queue.shut_down()
        with self._streams_lock:
            if self._watch is not None:
                self._watch.stop()
            if self._events is not None:
                self._events.stop()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in self._threads if t.is_alive()]
        if alive:
            log.warning("kubelet %s: threads still running after stop: %s", self.node.name,
                        ", ".join(alive))

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    # ------------------------------------------------------------------ heartbeat

    def _heartbeat_loop(self) -> None:
        while not self._stop.wait(self.heartbeat_interval):
            try:
                if self.node_status.registered:
                    self.node_status.heartbeat()
                else:
                    self.node_status.register()
            except Exception:  # keep beating: the API may be back next time
                log.exception("node %s: heartbeat failed", self.node.name)

    # ------------------------------------------------------------------ pod cache + watch

    def _remember(self, pod: Object) -> None:
        """Keep the newest copy we know (our own status writes included)."""
        key = _key(pod)
        with self._pods_lock:
            if key in self._pods and _rv(self._pods[key]) < _rv(pod):
                self._pods[key] = pod

    def _relist(self) -> str:
        listing = self.client.list("pods", field_selector=f"spec.nodeName={self.node.name}")
        fresh = {_key(p): p for p in listing.items}
        with self._pods_lock:
            vanished = set(self._pods) - set(fresh)
            self._pods = fresh
        orphans = {f"{sb.labels.get(LABEL_NAMESPACE, '')}/{sb.labels.get(LABEL_NAME, '')}"
                   for sb in self.runtime.list_sandboxes({LABEL_NODE: self.node.name})}
        for key in sorted(set(fresh) | vanished | orphans):
            self.queue.add(key)
        return listing.resource_version

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
                key = _key(event.object)
                with self._pods_lock:
                    if event.type == "DELETED":
                        self._pods.pop(key, None)
                    elif _rv(self._pods.get(key)) <= _rv(event.object):
                        self._pods[key] = event.object
                self.queue.add(key)
        finally:
            stream.stop()
        return rv

    def cached_pod(self, namespace: str, name: str) -> Object | None:
        with self._pods_lock:
            return self._pods.get(f"{namespace}/{name}")

    # ------------------------------------------------------------------ runtime events

    def _runtime_events_loop(self) -> None:
        stream = self._events
        if stream is None:
            return
        while not self._stop.is_set():
            event = stream.next()
            if event is None:
                continue  # stopped (the loop condition ends it)
            if event.labels.get(LABEL_NODE) != self.node.name:
                continue
            ns, name = event.labels.get(LABEL_NAMESPACE), event.labels.get(LABEL_NAME)
            if ns and name:
                self.queue.add(f"{ns}/{name}")

    # ------------------------------------------------------------------ workers

    def _worker_loop(self) -> None:
        while (key := self.queue.get()) is not None:
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
                    self.queue.add_after(key, self.resync_interval if delay is None
                                         else min(delay, self.resync_interval))
            finally:
                self.queue.done(key)

    # ------------------------------------------------------------------ logs

    def logs(self, pod: Mapping[str, Any], container: str | None = None, *,
             follow: bool = False, previous: bool = False, tail_lines: int | None = None,
             timestamps: bool = False, since_seconds: float | None = None,
             limit_bytes: int | None = None,
             alive: Callable[[], bool] | None = None) -> Iterator[bytes]:
        """A container's log lines, with Kubernetes' ``pods/log`` errors.

        ``container`` may be omitted for a single-container pod. ``previous``
        reads the instance before the current one (after a restart).
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
                 for c in self.runtime.list_containers(sb.id) if c.name == container]
        instances = group_instances(found).get(container, [])
        if previous:
            if len(instances) < 2:
                raise BadRequest(f'previous terminated container "{container}" in pod '
                                 f'"{name}" not found')
            target = instances[-2]
        else:
            if not instances:
                raise BadRequest(f'container "{container}" in pod "{name}" is waiting to '
                                 f"start: {self._waiting_reason(pod, container)}")
            target = instances[-1]
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
