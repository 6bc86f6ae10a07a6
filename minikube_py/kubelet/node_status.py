"""Node registration and heartbeat: the kubelet's ``Node`` object.

:class:`NodeStatusReporter` promises:

* :meth:`~NodeStatusReporter.register` creates the node from
  :func:`minikube_py.nodes.node_object` (capacity, allocatable, addresses,
  nodeInfo, conditions) or, if a Node of that name exists, updates it in
  place: our labels are merged over the existing ones, capacity, addresses
  and nodeInfo are refreshed, and the spec (taints, ``unschedulable`` set by a
  cordon) is left alone, as the kubelet does on re-registration.
* :meth:`~NodeStatusReporter.heartbeat` writes ``status`` through the
  ``status`` subresource: conditions from :class:`~minikube_py.nodes.HostReadings`
  (``lastHeartbeatTime`` now, ``lastTransitionTime`` kept while unchanged),
  Ready False with ``container runtime is down`` when the runtime does not
  answer, and ``status.images`` from the runtime (largest 50 first, as the
  kubelet reports). A Conflict is retried against a fresh copy.
* Real usage: each heartbeat sums what :meth:`ContainerRuntime.stats`
  reports for this node's running containers (found by the node label) and
  puts it in the annotations ``minikube-py.io/cpu-usage`` (millicores, the
  rate since the previous heartbeat, or since the container started for a
  new one) and ``minikube-py.io/memory-usage`` (bytes, the working sets),
  written with a merge patch only when they changed noticeably (by more
  than 5 %, or 5 millicores / 1 MiB, whichever is larger) or
  ``report_interval`` has passed since they were last written: a busy
  node's figures jitter every heartbeat, and thousands of hollow nodes
  writing that jitter would be most of an idle daemon's work. Never more
  often than ``usage_budget`` allows (none for Podman nodes; hollow nodes,
  whose figures are made up, share one budget of writes a second for the
  whole daemon: a Node patch per heartbeat of every node while pods start
  was a sixth of the daemon's work, and 5,000 nodes' usage falling due
  together starved their lease renewals). A write the budget refuses is
  tried again at a later heartbeat. The containers' stats are read at most
  every ``usage_interval`` seconds (0: at every heartbeat, as Podman nodes
  do; hollow nodes read their made-up figures every minute, as KWOK posts
  its nodes' status minutes apart: at 5,000 nodes with 100,000 pods, reading
  every container's stats every 10 s was a fifth of the idle daemon's work).
  Nothing else a real Node would not carry is added. A runtime without stats
  leaves them alone.
* **Reported on change**, as the kubelet's ``nodeStatusReportFrequency``:
  a heartbeat writes the status only when it differs from the stored one
  (``lastHeartbeatTime`` aside) or ``report_interval`` seconds (5 minutes)
  have passed since the last write; the node's Lease
  (:mod:`.node_lease`) is the frequent heartbeat. A heartbeat whose inputs
  (the Node's resourceVersion, the runtime's answer and images, the host's
  pressures) are those it last found nothing new in returns at once.
* A Node deleted while the kubelet runs is not recreated by the heartbeat
  (as in Kubernetes: it comes back when the kubelet registers again).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..api.errors import AlreadyExists, Conflict, NotFound
from ..api.timefmt import format_time as rfc3339
from ..client.base import Client, Object, for_caches
from ..nodes import HostInfo, HostReadings, NodeSpec, node_conditions, node_object, pressures
from ..runtime.base import CONTAINER_RUNNING, LABEL_NODE, ContainerRuntime, Image

__all__ = ["ANNOTATION_CPU_USAGE", "ANNOTATION_MEMORY_USAGE", "MAX_NODE_IMAGES",
           "NodeStatusReporter"]

log = logging.getLogger(__name__)

#: The kubelet's ``--node-status-max-images`` default.
MAX_NODE_IMAGES = 50
#: The kubelet's ``nodeStatusReportFrequency``: an unchanged status is posted this often.
STATUS_REPORT_INTERVAL = 300.0
#: Node annotations with the summed real usage of the node's containers.
ANNOTATION_CPU_USAGE = "minikube-py.io/cpu-usage"
ANNOTATION_MEMORY_USAGE = "minikube-py.io/memory-usage"


class NodeStatusReporter:
    """Registers one node and keeps its status fresh (see the module contract)."""

    def __init__(self, client: Client, node: NodeSpec, runtime: ContainerRuntime, *,
                 host: HostInfo, state_dir: Path, clock: Callable[[], float],
                 kubelet_version: str,
                 readings: Callable[[Path], HostReadings] = HostReadings.read,
                 report_interval: float = STATUS_REPORT_INTERVAL,
                 usage_budget: Callable[[], bool] | None = None,
                 usage_interval: float = 0.0) -> None:
        self.client = client
        # Heartbeats only read the Node to compare: an in-process client may hand
        # out the store's shared copy (not decoded again every 10 s per node), as
        # the kubelet reads its Node from its informer's cache first.
        self._reader: Client = for_caches(client)
        self.node = node
        self.runtime = runtime
        self.host = host
        self.state_dir = state_dir
        self.clock = clock
        self.kubelet_version = kubelet_version
        self._readings = readings
        self.registered = False
        self.report_interval = report_interval
        self.usage_budget = usage_budget
        self.usage_interval = usage_interval
        self._usage_read = float("-inf")  # when the containers' stats were last read
        self._reported = float("-inf")  # when the status was last written (our clock)
        # What the last heartbeat found nothing new in: (the Node's resourceVersion,
        # ready, message, images, pressures). The same again says the same status.
        self._unchanged_for: tuple[Any, ...] | None = None
        self._usage_written = float("-inf")  # when the usage annotations were
        self._usage_lock = threading.Lock()
        #: container id -> (cumulative cpu nanoseconds, when read): the last sample.
        self._cpu_samples: dict[str, tuple[int, float]] = {}

    # ------------------------------------------------------------------ pieces

    def _runtime_state(self) -> tuple[bool, str, list[Image]]:
        """(ready, message, images); the runtime answering is what Ready means here."""
        try:
            images = self.runtime.list_images()
        except Exception as exc:  # any failure of the runtime makes the node NotReady
            return False, f"container runtime is down: {exc}", []
        return True, "kubelet is posting ready status", images

    @staticmethod
    def _images(images: list[Image]) -> list[dict[str, Any]]:
        ordered = sorted(images, key=lambda i: (-i.size_bytes, i.id))[:MAX_NODE_IMAGES]
        return [{"names": list(i.names) or [i.id], "sizeBytes": i.size_bytes}
                for i in ordered]

    def _conditions(self, previous: list[dict[str, Any]] | None, ready: bool,
                    message: str, readings: HostReadings | None = None) -> list[dict[str, Any]]:
        if readings is None:
            readings = self._readings(self.state_dir)
        return node_conditions(readings, now=rfc3339(self.clock()),
                               previous=previous, ready=ready, ready_message=message)

    def _desired(self, previous: list[dict[str, Any]] | None) -> Object:
        ready, message, images = self._runtime_state()
        obj = node_object(self.node, self.host,
                          runtime_version=f"{self.runtime.name}://{self.runtime.version}",
                          kubelet_version=self.kubelet_version, now=rfc3339(self.clock()),
                          conditions=self._conditions(previous, ready, message))
        if images:
            obj["status"]["images"] = self._images(images)
        return obj

    # ------------------------------------------------------------------ verbs

    def register(self) -> Object:
        """Create or reconcile the Node object; returns it as stored."""
        desired = self._desired(None)
        usage = self.usage()
        self._usage_read = self.clock()
        if usage is not None:
            # Born with its usage: no patch of every node at the first heartbeat.
            desired["metadata"]["annotations"] = {ANNOTATION_CPU_USAGE: str(usage[0]),
                                                  ANNOTATION_MEMORY_USAGE: str(usage[1])}
            self._usage_written = self.clock()
        try:
            created = self.client.create(desired)
        except AlreadyExists:
            pass
        else:
            self.registered = True
            # Creating through the main resource may drop status; write it as well.
            return self._write_status(created, desired["status"])
        for _ in range(10):
            existing = self.client.get("nodes", None, self.node.name)
            meta = existing["metadata"]
            labels = {**(meta.get("labels") or {}), **desired["metadata"]["labels"]}
            if labels != meta.get("labels"):
                existing = self.client.update({**existing, "metadata": {**meta,
                                                                        "labels": labels}})
            status = self._desired((existing.get("status") or {}).get("conditions"))["status"]
            try:
                stored = self._write_status(existing, status)
            except Conflict:
                continue
            self.registered = True
            return stored
        raise Conflict.of("nodes", self.node.name, "too many concurrent updates at registration")

    def _write_status(self, node: Object, status: dict[str, Any]) -> Object:
        stored = self.client.update({**node, "status": status}, subresource="status")
        self._reported = self.clock()
        return stored

    def _unchanged(self, old: dict[str, Any], new: dict[str, Any]) -> bool:
        """Whether ``new`` says nothing ``old`` does not, heartbeat times aside."""
        def strip(status: dict[str, Any]) -> dict[str, Any]:
            conditions = [{k: v for k, v in c.items() if k != "lastHeartbeatTime"}
                          for c in status.get("conditions") or []]
            return {**status, "conditions": conditions}
        return strip(old) == strip(new)

    def usage(self) -> tuple[int, int] | None:
        """``(cpu millicores, memory bytes)`` used by this node's running containers
        (``None`` when the runtime cannot tell)."""
        try:
            mine = {c.id: c for c in self.runtime.list_containers()
                    if c.labels.get(LABEL_NODE) == self.node.name
                    and c.state == CONTAINER_RUNNING}
            stats = [s for s in self.runtime.stats() if s.container_id in mine]
        except Exception:  # stats are best effort: the runtime may be down
            log.debug("node %s: reading container stats failed", self.node.name, exc_info=True)
            return None
        millis = 0.0
        memory = 0
        with self._usage_lock:
            fresh: dict[str, tuple[int, float]] = {}
            for st in stats:
                previous = self._cpu_samples.get(st.container_id)
                if previous is not None and st.at > previous[1]:
                    used, seconds = st.cpu_nanos - previous[0], st.at - previous[1]
                else:
                    started = mine[st.container_id].started_at
                    used = st.cpu_nanos
                    seconds = st.at - started if started is not None else 0.0
                if seconds > 0:
                    millis += max(0, used) / seconds / 1e6
                memory += st.memory_bytes
                fresh[st.container_id] = (st.cpu_nanos, st.at)
            self._cpu_samples = fresh
        return round(millis), memory

    def _post_usage(self, node: Object) -> Object:
        now = self.clock()
        if now - self._usage_read < self.usage_interval:
            return node
        self._usage_read = now
        usage = self.usage()
        if usage is None:
            return node
        wanted = {ANNOTATION_CPU_USAGE: str(usage[0]), ANNOTATION_MEMORY_USAGE: str(usage[1])}
        have = (node.get("metadata") or {}).get("annotations") or {}
        if all(have.get(k) == v for k, v in wanted.items()):
            return node
        due = self.clock() - self._usage_written >= self.report_interval
        if not due and not _moved(have.get(ANNOTATION_CPU_USAGE), usage[0], 5) and \
                not _moved(have.get(ANNOTATION_MEMORY_USAGE), usage[1], 1 << 20):
            return node
        if self.usage_budget is not None and not self.usage_budget():
            return node  # over the daemon's budget: a later heartbeat writes it
        try:
            patched = self.client.patch("nodes", None, self.node.name, "merge",
                                        {"metadata": {"annotations": wanted}})
        except NotFound:
            return node
        self._usage_written = self.clock()
        return patched

    def heartbeat(self) -> Object | None:
        """Post a fresh status (and the usage annotations); ``None`` if the Node
        no longer exists. The Node returned may be shared: read it, never change it."""
        stored = self._heartbeat_status()
        if stored is None:
            return None
        return self._post_usage(stored)

    def _heartbeat_status(self) -> Object | None:
        for _ in range(5):
            try:
                node = self._reader.get("nodes", None, self.node.name)
            except NotFound:
                log.warning("node %s: the Node object was deleted; not recreating it "
                            "until the kubelet restarts", self.node.name)
                return None
            ready, message, images = self._runtime_state()
            readings = self._readings(self.state_dir)
            # Every input of the status, and the version it was compared with: when
            # none moved, building the status again would find it unchanged again
            # (thousands of hollow nodes, every 10 s, almost always unchanged).
            inputs = ((node.get("metadata") or {}).get("resourceVersion"), ready, message,
                      tuple(images), tuple(pressures(readings).items()))
            due = self.clock() - self._reported >= self.report_interval
            if not due and inputs == self._unchanged_for:
                return node
            old = node.get("status") or {}
            status = dict(old)
            status["conditions"] = self._conditions(old.get("conditions"), ready, message,
                                                    readings)
            if images:
                status["images"] = self._images(images)
            else:
                status.pop("images", None)
            if not due and self._unchanged(old, status):
                self._unchanged_for = inputs
                return node  # the lease says we are alive; nothing new to report
            self._unchanged_for = None
            try:
                return self._write_status(node, status)
            except Conflict:
                continue
            except NotFound:
                return None
        raise Conflict.of("nodes", self.node.name, "too many concurrent status updates")


def _moved(written: str | None, now: int, floor: int) -> bool:
    """Whether ``now`` differs noticeably from the ``written`` annotation value."""
    try:
        before = int(written or "")
    except ValueError:
        return True
    return abs(now - before) > max(floor, before * 0.05)
