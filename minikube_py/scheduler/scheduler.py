"""The scheduling loop: informers in, one pod at a time through the framework,
binding out through the API.

The chain (as kube-scheduler's scheduleOne):

1. Informers keep the snapshot current (nodes, pods bound to nodes, owners'
   selectors) and feed pending pods whose ``schedulerName`` is ours into the
   :class:`~.queue.SchedulingQueue`. Cluster events that may help (node added or
   updated, a bound pod deleted or finished) move unschedulable pods back.
2. The loop pops the highest-priority pod, runs
   :meth:`Framework.schedule` on the snapshot and, on success, *assumes* the pod
   on the chosen node at once (so the next cycle already sees the node's
   resources taken) and hands the binding to a small worker pool.
3. A binding that fails *forgets* the assumption and requeues the pod with
   backoff; one that succeeds is confirmed when the informer sees the pod bound.
   An assumption not confirmed within ``assume_ttl`` after its binding finished
   expires (it is forgotten), so a lost event cannot leak capacity.
4. No fit: a ``FailedScheduling`` Warning event and ``PodScheduled=False``
   (``Unschedulable``) with Kubernetes' exact message; when preemption finds
   room, ``status.nominatedNodeName`` is set and the victims are deleted
   gracefully (``Preempted`` events).

Every attempt's :class:`~.decision.Decision` is kept in a bounded log and served
(through the API server) to ``minikube-py explain pod`` and the dashboard.
Given a ``decision_file``, the log is written there before the pod's binding
is sent, loaded again on start (pods deleted meanwhile dropped), and a pod's
decisions are removed with the pod.
The loop talks to the rest of the system only through the :class:`Client`.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..api.errors import Conflict, NotFound, StatusError
from ..api.labels import Selector, selector_from_label_selector
from ..client.base import Client
from ..client.events import EventRecorder
from ..client.informer import Handlers, Informer, key_of
from .decision import DecisionLog
from .decision_file import DecisionFile
from .framework import Framework, ScheduleResult
from .podinfo import PodInfo
from .queue import QueuedPod, SchedulingQueue, pod_key
from .snapshot import Snapshot

log = logging.getLogger(__name__)

Pod = dict[str, Any]
DEFAULT_SCHEDULER = "default-scheduler"
#: Seconds a cycle waits, at most, for the node informer to apply the node
#: changes written before it (see :meth:`Scheduler.schedule_one`).
NODE_CATCH_UP = 2.0


def _assigned(pod: Mapping[str, Any]) -> bool:
    return bool((pod.get("spec") or {}).get("nodeName"))


def _terminal(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _terminating(pod: Mapping[str, Any]) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def _node_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """A change that can make a pod fit (heartbeats alone do not)."""
    def view(n: Mapping[str, Any]) -> Any:
        meta, spec, status = n.get("metadata") or {}, n.get("spec") or {}, n.get("status") or {}
        return (meta.get("labels"), spec.get("taints"), spec.get("unschedulable"),
                status.get("allocatable"))
    return bool(view(old) != view(new))


class Scheduler:
    """One scheduler profile's loop (see the module contract)."""

    def __init__(self, client: Client, *, framework: Framework | None = None,
                 name: str = DEFAULT_SCHEDULER, clock: Callable[[], float] = time.time,
                 seed: int | None = None, bind_workers: int = 4,
                 decision_capacity: int = 1000, decisions_per_pod: int = 8,
                 decision_file: Path | None = None, assume_ttl: float = 30.0,
                 queue: SchedulingQueue | None = None, record_events: bool = True,
                 pods: Informer | None = None) -> None:
        """``pods``: a pod informer this scheduler shares with the rest of its
        process (the controller manager's: one watch and one cache of the pods
        for both, as client-go's shared informer factory gives the components
        of one process); its owner starts it before :meth:`start` and stops
        it. None: the scheduler keeps its own. Its node and ReplicaSet
        informers are always its own (a cycle waits for the node informer to
        catch up, which a shared one's other handlers would delay)."""
        self.client = client
        self.name = name
        self.framework = framework or Framework()
        self.snapshot = Snapshot()
        self.queue = queue or SchedulingQueue()
        self.decision_log = DecisionLog(
            decision_capacity, per_pod=decisions_per_pod,
            file=DecisionFile(decision_file) if decision_file is not None else None)
        self._clock = clock
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self._assume_ttl = assume_ttl
        self._assumed: dict[str, tuple[Pod, float | None]] = {}  # uid -> (pod, bind done at)
        self._recorder = EventRecorder(client, component=name) if record_events else None
        self._bind_pool = ThreadPoolExecutor(max_workers=bind_workers,
                                             thread_name_prefix="scheduler-bind")
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pods = pods if pods is not None else Informer(client, "pods",
                                                           name="scheduler-pods")
        self.nodes = Informer(client, "nodes", name="scheduler-nodes")
        self.replicasets = Informer(client, "replicasets", name="scheduler-replicasets")
        self._own = [self.nodes, self.replicasets] + ([self.pods] if pods is None else [])
        self.pods.add_handlers(Handlers(on_add=self._pod_added,
                                        on_update=self._pod_updated,
                                        on_delete=self._pod_deleted))
        self.nodes.add_handlers(Handlers(on_add=self._node_added,
                                         on_update=self._node_updated,
                                         on_delete=self._node_deleted))
        #: Bound pods scheduled so far (for benchmarks and tests).
        self.bound = 0

    # ------------------------------------------------------------------ lifecycle

    def start(self, *, wait: float = 10.0) -> None:
        for informer in self._own:
            informer.start()
        for informer in (self.nodes, self.replicasets, self.pods):
            informer.wait_synced(wait)
        loaded = self.decision_log.load()
        if loaded:
            gone = self.decision_log.retain({str(p["metadata"].get("uid"))
                                             for p in self.pods.list()})
            log.info("scheduler %s: %d earlier decision(s) loaded%s", self.name, loaded,
                     f", those of {gone} pod(s) deleted meanwhile dropped" if gone else "")
        self._thread = threading.Thread(target=self._run, name="scheduler", daemon=True)
        self._thread.start()
        log.info("scheduler %s started: %d nodes, %d pods pending", self.name,
                 self.snapshot.num_nodes, len(self.queue))

    def stop(self) -> None:
        self._stop.set()
        self.queue.close()
        for informer in self._own:
            informer.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._bind_pool.shutdown(wait=True, cancel_futures=True)
        self.decision_log.close()

    # ------------------------------------------------------------------ SchedulerInfo

    def decisions(self, namespace: str, name: str) -> list[dict[str, Any]]:
        """The pod's remembered attempts, oldest first (the last is the latest)."""
        return [{**d.to_dict(), "text": d.render()}
                for d in reversed(self.decision_log.for_pod(f"{namespace}/{name}"))]

    def queue_info(self) -> dict[str, Any]:
        return self.queue.pending()

    # ------------------------------------------------------------------ informer handlers

    def controller_selector(self, pod: Mapping[str, Any]) -> Selector | None:
        """The selector of the pod's controlling ReplicaSet (for default spreading)."""
        for ref in (pod.get("metadata") or {}).get("ownerReferences") or []:
            if ref.get("controller") and ref.get("kind") == "ReplicaSet":
                rs = self.replicasets.get(f"{pod['metadata'].get('namespace')}/{ref['name']}")
                if rs is not None:
                    return selector_from_label_selector((rs.get("spec") or {}).get("selector"))
        return None

    def _ours(self, pod: Mapping[str, Any]) -> bool:
        name = (pod.get("spec") or {}).get("schedulerName") or DEFAULT_SCHEDULER
        return bool(name == self.name)

    def _pod_added(self, pod: Pod) -> None:
        if _assigned(pod):
            self._account(pod)
        elif self._ours(pod) and not _terminating(pod):
            self.queue.add(pod)

    def _pod_updated(self, old: Pod, new: Pod) -> None:
        if _assigned(new):
            self.queue.delete(new)
            self._account(new, was_assigned=_assigned(old))
        elif self._ours(new) and not _terminating(new):
            self.queue.update(new)
        else:
            self.queue.delete(new)

    def _pod_deleted(self, pod: Pod) -> None:
        self.queue.delete(pod)
        self.decision_log.forget(str(pod["metadata"].get("uid")))
        if _assigned(pod):
            with self._lock:
                self.snapshot.remove_pod(pod)
                self._assumed.pop(str(pod["metadata"].get("uid")), None)
            self.queue.move_all("AssignedPodDelete")

    def _account(self, pod: Pod, was_assigned: bool = False) -> None:
        uid = str(pod["metadata"].get("uid"))
        with self._lock:
            self._assumed.pop(uid, None)  # confirmed by the API
            if _terminal(pod):
                self.snapshot.remove_pod(pod)
            elif was_assigned:
                self.snapshot.update_pod(pod)
            else:
                self.snapshot.add_pod(pod)
        if _terminal(pod):
            self.queue.move_all("PodFinished")

    def _node_added(self, node: Pod) -> None:
        with self._lock:
            self.snapshot.add_node(node)
        self.queue.move_all("NodeAdd")

    def _node_updated(self, old: Pod, new: Pod) -> None:
        with self._lock:
            self.snapshot.update_node(new)
        if _node_changed(old, new):
            self.queue.move_all("NodeUpdate")

    def _node_deleted(self, node: Pod) -> None:
        with self._lock:
            self.snapshot.remove_node(node["metadata"]["name"])

    # ------------------------------------------------------------------ the loop

    def _run(self) -> None:
        while not self._stop.is_set():
            qp = self.queue.pop(timeout=1.0)
            if qp is None:
                self._expire_assumed()
                continue
            try:
                self.schedule_one(qp)
            except Exception:  # one bad pod must not stop scheduling
                log.exception("scheduling %s failed", qp.key)
                self.queue.add_backoff(qp, "internal error while scheduling; see the log")

    def schedule_one(self, qp: QueuedPod) -> ScheduleResult | None:
        """One scheduling cycle for ``qp`` (public for tests).

        The snapshot holds every node change written before the cycle began
        (the node informer is waited for, up to :data:`NODE_CATCH_UP`), so a
        pod created after a cordon never lands on the cordoned node: a drain's
        replacement pods would otherwise race the cordon through two informer
        threads."""
        if not self.nodes.wait_current(NODE_CATCH_UP):
            log.warning("scheduler %s: the node informer is more than %.0f s behind; "
                        "scheduling on what it has", self.name, NODE_CATCH_UP)
        current = self.pods.get(qp.key)
        if current is None or _assigned(current) or _terminating(current):
            self.queue.done(qp)
            return None
        pod = current
        info = PodInfo(pod)  # once for the cycle: the framework and the assumption share it
        with self._lock:
            result = self.framework.schedule(info, self.snapshot, rng=self._rng,
                                             controller_selector=self.controller_selector)
            if result.node is not None:
                self.snapshot.assume(info, result.node)
                self._assumed[str(pod["metadata"].get("uid"))] = (pod, None)
        self.decision_log.add(result.decision)
        if self.pods.get(qp.key) is None:  # deleted meanwhile: its records go with it
            self.decision_log.forget(str(pod["metadata"].get("uid")))
        if result.node is not None:
            self.queue.done(qp)
            self._bind_pool.submit(self._bind, qp, pod, result.node)
        else:
            self._unschedulable(qp, pod, result)
        return result

    def _bind(self, qp: QueuedPod, pod: Pod, node: str) -> None:
        meta = pod["metadata"]
        uid = str(meta.get("uid"))
        try:
            self.client.bind(meta["namespace"], meta["name"], node)
        except StatusError as exc:
            with self._lock:
                self.snapshot.forget(pod)
                self._assumed.pop(uid, None)
            if isinstance(exc, NotFound):
                self.queue.delete(qp.key)
                return
            log.info("binding %s to %s failed: %s", qp.key, node, exc)
            if not isinstance(exc, Conflict) or "already assigned" not in exc.message:
                self.queue.add_backoff(qp, f"Binding rejected: {exc.message}")
                self._event(pod, "Warning", "FailedScheduling",
                            f"Binding rejected: {exc.message}")
            return
        except Exception as exc:
            with self._lock:
                self.snapshot.forget(pod)
                self._assumed.pop(uid, None)
            self.queue.add_backoff(qp, f"binding failed: {exc}")
            return
        with self._lock:
            if uid in self._assumed:
                self._assumed[uid] = (pod, self._clock())
        self.bound += 1
        self._event(pod, "Normal", "Scheduled",
                    f"Successfully assigned {meta['namespace']}/{meta['name']} to {node}")

    def _expire_assumed(self) -> None:
        now = self._clock()
        with self._lock:
            expired = [(uid, pod) for uid, (pod, done) in self._assumed.items()
                       if done is not None and now - done > self._assume_ttl]
            for uid, pod in expired:
                log.warning("assumed pod %s was never confirmed bound; forgetting it",
                            key_of(pod))
                self.snapshot.forget(pod)
                del self._assumed[uid]

    # ------------------------------------------------------------------ failures

    def _unschedulable(self, qp: QueuedPod, pod: Pod, result: ScheduleResult) -> None:
        meta = pod["metadata"]
        if result.preemption is not None:
            self._preempt(pod, result)
        self.queue.add_unschedulable(qp, result.message, frozenset(result.unschedulable_plugins))
        self._event(pod, "Warning", "FailedScheduling", result.message)
        condition = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                     "message": result.message}
        current = next((c for c in (pod.get("status") or {}).get("conditions") or []
                        if c.get("type") == "PodScheduled"), None)
        if current and all(current.get(k) == v for k, v in condition.items()):
            return  # already says so: no write
        condition["lastTransitionTime"] = _now_rfc3339(self._clock())
        try:
            self.client.patch("pods", meta["namespace"], meta["name"], "strategic",
                              {"status": {"conditions": [condition]}}, subresource="status")
        except StatusError as exc:
            log.debug("could not record PodScheduled=False on %s: %s", qp.key, exc)

    def _preempt(self, pod: Pod, result: ScheduleResult) -> None:
        preemption = result.preemption
        assert preemption is not None
        meta = pod["metadata"]
        with self._lock:
            self.snapshot.nominate(pod, preemption.node)
        try:
            self.client.patch("pods", meta["namespace"], meta["name"], "strategic",
                              {"status": {"nominatedNodeName": preemption.node}},
                              subresource="status")
        except StatusError as exc:
            log.info("could not nominate %s: %s", pod_key(pod), exc)
        for victim in preemption.victims:
            vmeta = victim["metadata"]
            try:
                self.client.delete("pods", vmeta["namespace"], vmeta["name"],
                                   preconditions={"uid": str(vmeta.get("uid"))})
            except NotFound:
                continue
            except StatusError as exc:
                log.info("could not preempt %s: %s", key_of(victim), exc)
                continue
            self._event(victim, "Normal", "Preempted",
                        f"Preempted by pod {meta.get('uid')} on node {preemption.node}")

    def _event(self, pod: Pod, type_: str, reason: str, message: str) -> None:
        if self._recorder is not None:
            self._recorder.record(pod, type_, reason, message)


def _now_rfc3339(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))
