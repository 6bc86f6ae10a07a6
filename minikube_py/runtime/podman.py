"""PodmanRuntime: the :class:`~.base.ContainerRuntime` that runs real containers.

A sandbox is a Podman *pod* (its infra container holds the network, IPC and
UTS namespaces; hostPorts are published on it; its cgroup goes under
``SandboxConfig.cgroup_parent`` when given); a container is a Podman
container in that pod. Everything goes through the Podman REST API with the
``podman`` package (see :mod:`.podman_api`); the service is found or started
by :mod:`.podman_service`, which also tells us which ulimits and OCI runtime
work on this host.

How the contract of :mod:`.base` is kept:

* **Labels** are stored on pods and containers. Podman merges an image's
  labels into its containers', so a container also carries its exact labels,
  name and requested image as JSON (:data:`~.podman_events.CONFIG_LABEL`);
  that is what comes back. Only objects with our labels are listed.
* **Never restarted**: :meth:`PodmanRuntime.start_container` refuses anything
  that is not freshly created (Podman would happily restart an exited one).
* **States Podman does not keep** are kept here, in ``STATE_DIR/podman-runtime``
  so that they survive a restart: a container whose start failed stays
  "created" in Podman but is reported exited with reason
  ``ContainerCannotRun`` (exit code 128, Podman's message); a container
  stopped before it ever started is reported exited 0, ``Completed``.
* **OOMKilled**: Podman's ``State.OOMKilled``, or, where conmon does not report
  OOM kills (cgroup v1 with Podman 4.3), the kernel log (:mod:`.podman_oom`).
* **Stop**: Podman's stop with a timeout sends the container's stop signal
  (SIGTERM, set at creation) and SIGKILL after the timeout, rounded up to
  whole seconds. A timeout of 0 is an immediate SIGKILL, as in Podman (for
  a sandbox too, where Podman itself would read 0 as its 10 s default).
  Removal is forcible: running containers are killed, not asked to stop.
* **Thread safety**: HTTP sessions are per thread; the small caches here
  (pod labels and IPs, final container states) are guarded by one lock.

Images: :meth:`pull_image` pulls through Podman (``policy=always``), except a
``localhost/...`` reference that is already present: that is Podman's name for
a locally built image, which no registry can serve (see :mod:`.images`). A
failed pull raises :class:`~.base.ImageNotFound` with Podman's message.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import re
import signal
import socket
import threading
import time
import urllib.parse
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import (
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    EVENT_CONTAINER_STOPPED,
    LABEL_CLUSTER,
    LABEL_POD_UID,
    LABEL_RESTART_COUNT,
    SANDBOX_NOTREADY,
    SANDBOX_READY,
    ContainerConfig,
    ContainerNotFound,
    ContainerRuntime,
    ContainerRuntimeError,
    ContainerStats,
    ContainerStatus,
    ExecResult,
    Image,
    ImageNotFound,
    InvalidState,
    RuntimeClosing,
    RuntimeEvent,
    Sandbox,
    SandboxConfig,
    SandboxNotFound,
)
from .netns import connect_in_netns
from .podman_api import (
    DEFAULT_TIMEOUT,
    PodmanAPI,
    PodmanNotFound,
    error_message,
    iter_json_lines,
    parse_time,
)
from .podman_events import CONFIG_LABEL, PodmanEventStream, decode_config_label
from .podman_exec import exec_sync
from .podman_logs import read_logs
from .podman_network import (
    ClusterNetwork,
    collect_dead_networks,
    ensure_network,
    remove_network,
)
from .podman_oom import KernelOomLog
from .podman_overrides import Overrides
from .podman_spec import (
    container_name,
    container_spec,
    container_state,
    pod_name,
    pod_spec,
)
from .podman_stream import PodmanStream, attach, exec_stream
from .streaming import ExecOptions

__all__ = ["PodmanRuntime"]

log = logging.getLogger(__name__)

#: Extra seconds an HTTP call may take beyond the grace period it waits for.
_STOP_SLACK = 60.0
#: Seconds to wait for a SIGKILLed container to be reaped.
_KILL_WAIT = 10.0
_CACHE_MAX = 4096
_CANNOT_RUN_EXIT = 128
#: Podman's answer when a container's process ended while it was inspected.
_VANISHED = re.compile(r"read /proc/\d+/(cgroup|stat)\S*: no such process")
_VANISHED_RETRIES = 5
_VANISHED_DELAY = 0.05
#: Podman 4.3 force-removing a pod whose container exits meanwhile: the SIGKILL
#: finds it stopped ("container state improper") and the removal fails; asked
#: again, it finds the container stopped and removes it.
_STOPPED_MEANWHILE = re.compile(r"container state improper")


def _asked_again(call: Callable[[], Any], transient: re.Pattern[str]) -> Any:
    """``call()``, asked again (up to :data:`_VANISHED_RETRIES` times, a little
    later each time) while it fails with an error ``transient`` matches: Podman
    4.3 races with processes that end under it. NotFound and any other error
    pass at once."""
    for attempt in range(_VANISHED_RETRIES + 1):
        try:
            return call()
        except PodmanNotFound:
            raise
        except ContainerRuntimeError as exc:
            if attempt == _VANISHED_RETRIES or not transient.search(str(exc)):
                raise
            time.sleep(_VANISHED_DELAY * (attempt + 1))
    raise AssertionError("unreachable")


def _image_id(raw: Any) -> str:
    text = str(raw or "")
    return text if not text or text.startswith("sha256:") else f"sha256:{text}"


def _infra_ip(inspect: Mapping[str, Any]) -> str:
    net = inspect.get("NetworkSettings") or {}
    ip = str(net.get("IPAddress") or "")
    if ip:
        return ip
    for attached in (net.get("Networks") or {}).values():
        ip = str((attached or {}).get("IPAddress") or "")
        if ip:
            return ip
    return ""


class _PodInfo:
    __slots__ = ("infra_id", "ip", "labels")

    def __init__(self, labels: Mapping[str, str], infra_id: str, ip: str) -> None:
        self.labels = dict(labels)
        self.infra_id = infra_id
        self.ip = ip


class PodmanRuntime:
    """See the module docstring."""

    name = "podman"

    def __init__(self, base_url: str, *, state_dir: Path,
                 ulimits: Mapping[str, tuple[int, int]] | None = None,
                 oci_runtime: str | None = None, clock: Callable[[], float] = time.time,
                 kernel_log: KernelOomLog | None = None,
                 request_timeout: float = DEFAULT_TIMEOUT, cluster: str = "") -> None:
        self.base_url = base_url
        #: Only pods with this ``minikube-py.io/cluster`` label are this runtime's.
        self.cluster = cluster
        self.ulimits = dict(ulimits or {})
        self.oci_runtime = oci_runtime
        self._clock = clock
        self._api = PodmanAPI(base_url, timeout=request_timeout)
        self._overrides = Overrides(Path(state_dir) / "podman-runtime" / "overrides")
        self._oom = kernel_log if kernel_log is not None else KernelOomLog()
        self._lock = threading.Lock()
        self._pods: dict[str, _PodInfo] = {}
        self._infra: dict[str, str] = {}  # infra container id -> pod id
        self._final: dict[str, ContainerStatus] = {}  # exited containers never change
        self._started: dict[str, float] = {}
        self._streams: weakref.WeakSet[PodmanEventStream] = weakref.WeakSet()
        self._version = ""
        self._cgroup_manager: str | None = None
        self._closing = threading.Event()
        self._state_dir = Path(state_dir)
        #: The cluster's pod network, once :meth:`attach_network` made sure of it.
        self.network: ClusterNetwork | None = None

    def attach_network(self, subnet: str | None = None) -> ClusterNetwork:
        """Make sure the cluster's own Podman network exists (see
        :mod:`.podman_network`); sandboxes made from now on join it."""
        if not self.cluster:
            raise ContainerRuntimeError("a pod network needs a cluster id")
        self.network = ensure_network(self._api, self.cluster, self._state_dir, subnet)
        return self.network

    def detach_network(self) -> bool:
        """Delete the cluster's network (its pods must be gone); True if it existed."""
        self.network = None
        return remove_network(self._api, self.cluster, self._state_dir)

    def collect_dead_networks(self) -> list[str]:
        """Remove the pod networks of clusters whose state directory is gone."""
        return collect_dead_networks(self._api)

    def remove_network_of(self, cluster: str) -> bool:
        """Delete another (removed) cluster's network; fails while pods use it."""
        return remove_network(self._api, cluster)

    # ------------------------------------------------------------------ plumbing

    @property
    def version(self) -> str:
        if not self._version:
            data = self._api.json("GET", "/version", what="Podman version") or {}
            self._version = str(data.get("Version") or "unknown")
        return self._version

    def abandon_stops(self) -> None:
        """Make container stops in progress (and later ones) give up at once with
        :class:`RuntimeClosing`, so a shutdown need not wait for grace periods."""
        self._closing.set()

    def close(self) -> None:
        """End every event stream, abandon stops in progress, close the HTTP sessions."""
        self._closing.set()
        for stream in list(self._streams):
            stream.stop()
        self._api.close()
        self._oom.close()

    def _remember_pod(self, pod_id: str, info: _PodInfo) -> None:
        with self._lock:
            self._pods[pod_id] = info
            if info.infra_id:
                self._infra[info.infra_id] = pod_id
            while len(self._pods) > _CACHE_MAX:
                old = next(iter(self._pods))
                self._infra.pop(self._pods.pop(old).infra_id, None)

    def _inject(self, event: RuntimeEvent) -> None:
        """Deliver an event Podman does not emit (see the module docstring)."""
        for stream in list(self._streams):
            stream.inject(event)

    def _get_json(self, path: str, what: str) -> Any:
        """GET ``path``; retried while Podman trips over a process that exited
        as it inspected it (4.3 answers 500 "read /proc/<pid>/cgroup: no such
        process" for a container that just ended; a moment later it reports
        the container exited)."""
        return _asked_again(lambda: self._api.json("GET", path, what=what), _VANISHED)

    def _inspect_pod(self, pod_id: str) -> dict[str, Any]:
        try:
            data = self._get_json(f"/pods/{pod_id}/json", f"pod {pod_id}")
        except PodmanNotFound:
            raise SandboxNotFound(pod_id) from None
        return dict(data or {})

    def _inspect(self, container_id: str) -> dict[str, Any]:
        try:
            data = self._get_json(f"/containers/{container_id}/json",
                                  f"container {container_id}")
        except PodmanNotFound:
            raise ContainerNotFound(container_id) from None
        return dict(data or {})

    def _pod_info(self, pod_id: str, inspect: Mapping[str, Any] | None = None) -> _PodInfo:
        with self._lock:
            known = self._pods.get(pod_id)
        if known is not None and known.ip and inspect is None:
            return known  # labels and infra never change; the IP only once it is known
        data = inspect if inspect is not None else self._inspect_pod(pod_id)
        infra_id = str(data.get("InfraContainerID") or "")
        ip = ""
        if infra_id:
            with contextlib.suppress(ContainerNotFound):
                ip = _infra_ip(self._inspect(infra_id))
        info = _PodInfo(data.get("Labels") or {}, infra_id, ip)
        self._remember_pod(pod_id, info)
        return info

    def _resolve_pod(self, pod_id: str, infra_id: str) -> tuple[str, Mapping[str, str]] | None:
        """For the event stream: the pod a sandbox event concerns, if it is ours."""
        with self._lock:
            if not pod_id and infra_id:
                pod_id = self._infra.get(infra_id, "")
            known = self._pods.get(pod_id) if pod_id else None
        if known is not None:
            return (pod_id, known.labels) if self._in_cluster(known.labels) else None
        try:
            if not pod_id and infra_id:
                pod_id = str(self._inspect(infra_id).get("Pod") or "")
            if not pod_id:
                return None
            info = self._pod_info(pod_id)
        except ContainerRuntimeError:
            return None
        return ((pod_id, info.labels)
                if LABEL_POD_UID in info.labels and self._in_cluster(info.labels) else None)

    def _in_cluster(self, labels: Mapping[str, str]) -> bool:
        """Whether a pod with these labels is this cluster's (Podman's event log is
        host-wide: other minikube-py daemons' pods show up in it too)."""
        return not self.cluster or labels.get(LABEL_CLUSTER) == self.cluster

    # ------------------------------------------------------------------ sandboxes

    def _cgroup_parent_usable(self) -> bool:
        """Node cgroups are plain cgroupfs paths: usable with Podman's cgroupfs
        manager only (the systemd manager wants ``.slice`` units)."""
        if self._cgroup_manager is None:
            info = self._api.json("GET", "/info", what="Podman info") or {}
            self._cgroup_manager = str((info.get("host") or {}).get("cgroupManager") or "")
            if self._cgroup_manager != "cgroupfs":
                log.warning("Podman uses the %s cgroup manager: pods run without their "
                            "node's cgroup, so node sizes are held by scheduling only",
                            self._cgroup_manager or "unknown")
        return self._cgroup_manager == "cgroupfs"

    def run_sandbox(self, config: SandboxConfig) -> Sandbox:
        name = pod_name(config)
        if self.cluster:
            config = dataclasses.replace(config, labels={**config.labels,
                                                         LABEL_CLUSTER: self.cluster})
        if config.cgroup_parent and not self._cgroup_parent_usable():
            config = dataclasses.replace(config, cgroup_parent="")
        spec = pod_spec(config, name=name,
                        network=self.network.name if self.network is not None else "")
        created = self._api.json("POST", "/pods/create", body=spec,
                                 what=f"creating pod sandbox for {config.namespace}/{config.name}")
        pod_id = str((created or {}).get("Id") or "")
        if not pod_id:
            raise ContainerRuntimeError(
                f"Podman created no pod for {config.namespace}/{config.name}")
        try:
            self._api.json("POST", f"/pods/{pod_id}/start",
                           what=f"starting pod sandbox for {config.namespace}/{config.name}")
            data = self._inspect_pod(pod_id)
        except ContainerRuntimeError:
            self._delete_pod(pod_id)
            raise
        info = self._pod_info(pod_id, data)
        return Sandbox(pod_id, info.ip, SANDBOX_READY, dict(info.labels),
                       parse_time(data.get("Created")) or self._clock())

    def _delete_pod(self, pod_id: str) -> None:
        """Force-remove a pod; asked again while a member stops under the kill
        (see :data:`_STOPPED_MEANWHILE`); gone already is done."""
        with contextlib.suppress(PodmanNotFound):
            _asked_again(lambda: self._api.json(
                "DELETE", f"/pods/{pod_id}", params={"force": "true", "timeout": "0"},
                timeout=DEFAULT_TIMEOUT + _STOP_SLACK, what=f"removing pod {pod_id}"),
                _STOPPED_MEANWHILE)

    def stop_sandbox(self, sandbox_id: str, timeout: float = 0) -> None:
        seconds = math.ceil(max(0.0, timeout))
        if seconds == 0:
            # Podman reads t=0 as "the default" (10 s): kill at once instead.
            response = self._api.call("POST", f"/pods/{sandbox_id}/kill",
                                      params={"signal": "SIGKILL"})
            if response.status_code == 404:
                return
            seconds = 1  # only the clean-up is left (409: nothing was running)
        try:
            self._api.json("POST", f"/pods/{sandbox_id}/stop", params={"t": str(seconds)},
                           timeout=seconds + _STOP_SLACK, what=f"stopping pod {sandbox_id}")
        except PodmanNotFound:
            return

    def remove_sandbox(self, sandbox_id: str) -> None:
        try:
            members = [c["id"] for c in self._list_raw(sandbox_id)]
        except ContainerRuntimeError:
            members = []
        self._delete_pod(sandbox_id)
        for cid in members:
            self._forget_container(cid)

    def list_sandboxes(self, labels: Mapping[str, str] | None = None) -> list[Sandbox]:
        wanted = dict(labels or {})
        if self.cluster:
            wanted[LABEL_CLUSTER] = self.cluster
        keys = sorted({LABEL_POD_UID, *wanted} - {LABEL_CLUSTER})  # existence; values here
        if self.cluster:
            # The cluster's value goes to Podman: it works out the state of every pod
            # the filter lets through (pod and container locks, the OCI runtime)
            # before we could drop one, and every other minikube-py cluster on the
            # host has the same label keys. With ~250 foreign pods a list took
            # seconds, a minute under load, and kubelets timed out.
            keys.append(f"{LABEL_CLUSTER}={self.cluster}")
        pods = self._api.json("GET", "/pods/json",
                              params={"filters": json.dumps({"label": keys})},
                              what="listing pods") or []
        out: list[Sandbox] = []
        for pod in pods:
            plabels = dict(pod.get("Labels") or {})
            if LABEL_POD_UID not in plabels or any(plabels.get(k) != v
                                                   for k, v in wanted.items()):
                continue
            pod_id = str(pod.get("Id") or "")
            infra_id = str(pod.get("InfraId") or "")
            infra_state = next((str(c.get("Status") or "") for c in pod.get("Containers") or []
                                if c.get("Id") == infra_id), "")
            ready = infra_state == "running"
            with self._lock:
                known = self._pods.get(pod_id)
            if known is None or (ready and not known.ip):
                try:
                    known = self._pod_info(pod_id)
                except SandboxNotFound:
                    continue  # removed meanwhile
            out.append(Sandbox(pod_id, known.ip, SANDBOX_READY if ready else SANDBOX_NOTREADY,
                               plabels, parse_time(pod.get("Created")) or 0.0))
        return out

    # ------------------------------------------------------------------ images

    def pull_image(self, image: str) -> str:
        if image.startswith("localhost/"):
            present = self.image_status(image)
            if present is not None:
                return present.id
        response = self._api.call("POST", "/images/pull",
                                  params={"reference": image, "policy": "always"},
                                  stream=True, timeout=600.0)
        if response.status_code >= 400:
            raise ImageNotFound(image, error_message(response))
        error, pulled = "", ""
        try:
            for item in iter_json_lines(response):
                if item.get("error"):
                    error = str(item["error"]).strip()
                if item.get("id"):
                    pulled = str(item["id"])
        except OSError as exc:
            error = error or f"pull interrupted: {exc}"
        finally:
            response.close()
        if error or not pulled:
            raise ImageNotFound(image, error or "Podman pulled nothing")
        return _image_id(pulled)

    def image_status(self, image: str) -> Image | None:
        if not image:
            return None
        path = "/images/" + urllib.parse.quote(image, safe="/:@") + "/json"
        try:
            data = self._api.json("GET", path, what=f"image {image}")
        except PodmanNotFound:
            return None
        data = data or {}
        names = tuple(data.get("RepoTags") or data.get("RepoDigests") or ())
        return Image(_image_id(data.get("Id")), names, int(data.get("Size") or 0))

    def list_images(self) -> list[Image]:
        images = self._api.json("GET", "/images/json", what="listing images") or []
        return [Image(_image_id(i.get("Id")), tuple(i.get("RepoTags") or i.get("Names") or ()),
                      int(i.get("Size") or 0)) for i in images]

    # ------------------------------------------------------------------ containers

    def create_container(self, sandbox_id: str, config: ContainerConfig) -> str:
        pod = self._inspect_pod(sandbox_id)
        infra_id = str(pod.get("InfraContainerID") or "")
        infra_state = next((str(c.get("State") or "") for c in pod.get("Containers") or []
                            if c.get("Id") == infra_id), "")
        if infra_state != "running":
            raise InvalidState(f'pod sandbox "{sandbox_id}" is not ready')
        if self.image_status(config.image) is None:
            raise ImageNotFound(config.image, "not present locally; pull it first")
        restart = str(config.labels.get(LABEL_RESTART_COUNT, "0"))
        spec = container_spec(sandbox_id, config,
                              name=container_name(str(pod.get("Name") or sandbox_id[:12]),
                                                  config, restart),
                              pod_labels=pod.get("Labels") or {}, ulimits=self.ulimits,
                              oci_runtime=self.oci_runtime)
        try:
            created = self._api.json("POST", "/containers/create", body=spec,
                                     what=f"creating container {config.name}")
        except PodmanNotFound as exc:
            raise ImageNotFound(config.image, str(exc)) from None
        cid = str((created or {}).get("Id") or "")
        if not cid:
            raise ContainerRuntimeError(f"Podman created no container for {config.name}")
        return cid

    def start_container(self, container_id: str) -> None:
        data = self._inspect(container_id)
        status = self._status_from_inspect(data)
        if status is None:
            raise ContainerNotFound(container_id)
        if status.state != CONTAINER_CREATED:
            raise InvalidState(f'container "{container_id}" is {status.state}, '
                               "not created: it cannot be started")
        response = self._api.call("POST", f"/containers/{container_id}/start")
        code = int(response.status_code)
        if code in (200, 204):
            return
        if code == 304:
            raise InvalidState(f'container "{container_id}" is already running')
        if code == 404:
            raise ContainerNotFound(container_id)
        message = error_message(response)
        self._overrides.set(container_id, {
            "exit_code": _CANNOT_RUN_EXIT, "reason": "ContainerCannotRun",
            "message": message, "finished_at": self._clock()})
        self._inject(RuntimeEvent(EVENT_CONTAINER_STOPPED, status.sandbox_id, container_id,
                                  dict(status.labels), self._clock()))
        raise ContainerRuntimeError(f"failed to start container {status.name}: {message}")

    def stop_container(self, container_id: str, timeout_seconds: float = 0) -> None:
        try:
            status = self._status_from_inspect(self._inspect(container_id))
        except ContainerNotFound:
            return
        if status is None or status.state == CONTAINER_EXITED:
            return
        if status.state == CONTAINER_CREATED:  # never started: nothing ran
            self._overrides.set(container_id, {"exit_code": 0, "reason": "Completed",
                                               "message": "", "finished_at": self._clock()})
            self._inject(RuntimeEvent(EVENT_CONTAINER_STOPPED, status.sandbox_id, container_id,
                                      dict(status.labels), self._clock()))
            return
        # Kubernetes' StopContainer done here rather than by Podman's own stop: the
        # stop signal, up to ``timeout_seconds`` for the container to exit, then
        # SIGKILL. Podman's stop would hold one request open for the whole grace
        # period, and its service will not exit while a request is open, so
        # shutting down during a 30 s grace period would take 30 s (and killing
        # the service then leaves the container "Stopping" for good).
        try:
            config = self._inspect(container_id).get("Config") or {}
            signal_ = int(config.get("StopSignal") or signal.SIGTERM)
            if not self._kill_and_wait(container_id, signal_, max(0.0, timeout_seconds)):
                self._kill_and_wait(container_id, int(signal.SIGKILL), _KILL_WAIT)
        except (PodmanNotFound, ContainerNotFound):
            return  # removed meanwhile: stopped for good

    def _kill_and_wait(self, container_id: str, signal_: int, seconds: float) -> bool:
        """Send ``signal_``; True once the container has exited within ``seconds``.

        Waits by short inspections (a few a second, only while a stop is in
        progress) that :meth:`close` interrupts: an abandoned stop raises, and
        the kubelet's next start finds the container and stops it again.
        """
        response = self._api.call("POST", f"/containers/{container_id}/kill",
                                  params={"signal": str(signal_)})
        if response.status_code != 409:  # 409: not running (any more): nothing to signal
            self._api.check(response, f"stopping container {container_id}")
        deadline = time.monotonic() + seconds
        delay = 0.05
        while True:
            state = (self._inspect(container_id).get("State") or {})
            if not state.get("Running") and state.get("Status") not in ("stopping",):
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if self._closing.wait(min(delay, left)):
                raise RuntimeClosing(
                    f"stopping container {container_id} abandoned: the runtime is closing")
            delay = min(delay * 2, 0.25)

    def remove_container(self, container_id: str) -> None:
        with contextlib.suppress(PodmanNotFound):
            self._api.json("DELETE", f"/containers/{container_id}",
                           params={"force": "true", "v": "true", "timeout": "0"},
                           timeout=DEFAULT_TIMEOUT + _STOP_SLACK,
                           what=f"removing container {container_id}")
        self._forget_container(container_id)

    def _forget_container(self, container_id: str) -> None:
        self._overrides.drop(container_id)
        with self._lock:
            self._final.pop(container_id, None)
            self._started.pop(container_id, None)

    def _list_raw(self, sandbox_id: str | None, *, running: bool = False) -> list[dict[str, Any]]:
        """Podman's list entries of our containers (no infra), each with ``id``."""
        filters: dict[str, list[str]] = {"label": [CONFIG_LABEL]}
        if self.cluster:
            filters["label"].append(f"{LABEL_CLUSTER}={self.cluster}")
        if sandbox_id is not None:
            filters["pod"] = [sandbox_id]
        if running:
            filters["status"] = ["running"]
        params = {"all": "true", "filters": json.dumps(filters)}
        try:
            entries = self._api.json("GET", "/containers/json", params=params,
                                     what="listing containers") or []
        except ContainerRuntimeError:
            if sandbox_id is None:
                raise
            try:
                self._inspect_pod(sandbox_id)
            except SandboxNotFound:
                return []  # Podman refuses a filter on an unknown pod
            raise
        return [dict(e, id=str(e.get("Id"))) for e in entries
                if not e.get("IsInfra") and decode_config_label(e.get("Labels") or {})]

    def list_containers(self, sandbox_id: str | None = None) -> list[ContainerStatus]:
        out: list[ContainerStatus] = []
        seen: set[str] = set()
        for entry in self._list_raw(sandbox_id):
            seen.add(entry["id"])
            status = self._status_from_list(entry)
            if status is not None:
                out.append(status)
        if sandbox_id is not None:  # forget what vanished from this sandbox
            with self._lock:
                gone = [cid for cid, st in self._final.items()
                        if st.sandbox_id == sandbox_id and cid not in seen]
                for cid in gone:
                    del self._final[cid]
        return out

    def container_status(self, container_id: str) -> ContainerStatus:
        """One container's status (not part of the protocol; tools and tests use it)."""
        status = self._status_from_inspect(self._inspect(container_id))
        if status is None:
            raise ContainerNotFound(container_id)
        return status

    def _status_from_list(self, entry: Mapping[str, Any]) -> ContainerStatus | None:
        cid = str(entry.get("Id"))
        with self._lock:
            final = self._final.get(cid)
            started = self._started.get(cid)
        if final is not None:
            return final
        state = container_state(entry.get("State"))
        if state == CONTAINER_EXITED or self._overrides.get(cid) is not None or (
                state == CONTAINER_RUNNING and started is None):
            try:
                return self._status_from_inspect(self._inspect(cid))
            except ContainerNotFound:
                return None
        config = decode_config_label(entry.get("Labels") or {}) or {}
        labels = config.get("labels")
        return ContainerStatus(
            id=cid, sandbox_id=str(entry.get("Pod") or ""), name=str(config.get("name", "")),
            image=str(config.get("image", "")), image_id=_image_id(entry.get("ImageID")),
            state=state, created_at=parse_time(entry.get("Created")) or 0.0,
            started_at=started, labels=dict(labels) if isinstance(labels, Mapping) else {})

    def _status_from_inspect(self, data: Mapping[str, Any]) -> ContainerStatus | None:
        config_labels = (data.get("Config") or {}).get("Labels") or {}
        config = decode_config_label(config_labels)
        if config is None:
            return None  # not one of ours (an infra container, or someone else's)
        cid = str(data.get("Id"))
        st = data.get("State") or {}
        labels = config.get("labels")
        status = ContainerStatus(
            id=cid, sandbox_id=str(data.get("Pod") or ""), name=str(config.get("name", "")),
            image=str(config.get("image", "")), image_id=_image_id(data.get("Image")),
            state=container_state(st.get("Status")),
            created_at=parse_time(data.get("Created")) or 0.0,
            started_at=parse_time(st.get("StartedAt")),
            labels=dict(labels) if isinstance(labels, Mapping) else {})
        override = self._overrides.get(cid)
        if override is not None and status.state == CONTAINER_CREATED:
            status = replace(status, state=CONTAINER_EXITED,
                             exit_code=int(override.get("exit_code", 0)),
                             reason=str(override.get("reason", "")),
                             message=str(override.get("message", "")),
                             finished_at=float(override.get("finished_at") or 0.0) or None)
        elif status.state == CONTAINER_EXITED:
            code = int(st.get("ExitCode") or 0)
            oom = bool(st.get("OOMKilled")) or (code != 0 and self._oom.oom_killed(cid))
            finished = parse_time(st.get("FinishedAt"))
            if finished is not None and status.started_at is not None:
                # Podman stamps StartedAt after the start call returns, so a quick
                # container can finish "before" it started: keep the order sane.
                finished = max(finished, status.started_at)
            status = replace(status, exit_code=code,
                             reason="OOMKilled" if oom else "Completed" if code == 0 else "Error",
                             message=str(st.get("Error") or ""), finished_at=finished)
        with self._lock:
            if status.state == CONTAINER_EXITED:
                self._final[cid] = status
                self._started.pop(cid, None)
                while len(self._final) > _CACHE_MAX:
                    del self._final[next(iter(self._final))]
            elif status.state == CONTAINER_RUNNING and status.started_at is not None:
                self._started[cid] = status.started_at
        return status

    def wait_container(self, container_id: str, timeout: float) -> ContainerStatus | None:
        """Wait until the container has exited (``None`` if it has not within
        ``timeout`` seconds). Not part of the protocol: for the host check and tests."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.container_status(container_id)
            if status.state == CONTAINER_EXITED:
                return status
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            with contextlib.suppress(ContainerRuntimeError):  # timed out: look again
                self._api.call("POST", f"/containers/{container_id}/wait",
                               params={"condition": "exited"}, timeout=min(remaining, 5.0))

    # ------------------------------------------------------------------ logs, exec, stats

    def container_logs(self, container_id: str, *, follow: bool = False,
                       tail_lines: int | None = None, timestamps: bool = False,
                       since_seconds: float | None = None, limit_bytes: int | None = None,
                       alive: Callable[[], bool] | None = None) -> Iterator[bytes]:
        status = self.container_status(container_id)  # ContainerNotFound now, not later
        if status.state == CONTAINER_EXITED:
            follow = False  # nothing more will come (Podman may wait on a never-started one)
        since = None if since_seconds is None else self._clock() - since_seconds
        return read_logs(self._api, container_id, follow=follow, tail_lines=tail_lines,
                         timestamps=timestamps, since=since, limit_bytes=limit_bytes,
                         alive=alive)

    def exec_sync(self, container_id: str, command: Sequence[str], *,
                  timeout: float) -> ExecResult:
        status = self.container_status(container_id)
        if status.state != CONTAINER_RUNNING:
            raise InvalidState(f'container "{container_id}" is {status.state}, '
                               "not running: cannot exec in it")
        return exec_sync(self._api, container_id, command, timeout=timeout)

    def _running(self, container_id: str, verb: str) -> None:
        status = self.container_status(container_id)
        if status.state != CONTAINER_RUNNING:
            raise InvalidState(f'container "{container_id}" is {status.state}, '
                               f"not running: cannot {verb} it")

    def exec_stream(self, container_id: str, command: Sequence[str],
                    options: ExecOptions) -> PodmanStream:
        """Start ``command`` in the running container; its streams (see
        :mod:`.streaming`)."""
        self._running(container_id, "exec in")
        return exec_stream(self._api, container_id, list(command), options)

    def attach(self, container_id: str, options: ExecOptions) -> PodmanStream:
        """The running container's own stdin/stdout/stderr."""
        self._running(container_id, "attach to")
        return attach(self._api, container_id, options)

    def port_forward(self, sandbox_id: str, port: int) -> socket.socket:
        """A connection to ``localhost:port`` inside the sandbox's network
        namespace (where the pod's containers listen)."""
        info = self._pod_info(sandbox_id)
        if not info.infra_id:
            raise ContainerRuntimeError(f"pod {sandbox_id[:12]} has no infra container")
        state = self._inspect(info.infra_id).get("State") or {}
        pid = int(state.get("Pid") or 0)
        if pid <= 0:
            raise InvalidState(f"pod {sandbox_id[:12]} is not running: its network "
                               "namespace is gone")
        return connect_in_netns(pid, port)

    def stats(self) -> list[ContainerStats]:
        ids = [e["id"] for e in self._list_raw(None, running=True)]
        if not ids:
            return []
        now = self._clock()
        found = self._stats(ids)
        if found is None:  # one of them stopped meanwhile: ask one by one
            found = []
            for cid in ids:
                found.extend(self._stats([cid]) or [])
        return [ContainerStats(str(s.get("ContainerID")), int(s.get("CPUNano") or 0),
                               int(s.get("MemUsage") or 0), now) for s in found]

    def _stats(self, ids: list[str]) -> list[dict[str, Any]] | None:
        try:
            response = self._api.call("GET", "/containers/stats",
                                      params={"stream": "false", "containers": ids})
        except ContainerRuntimeError:
            return None
        if response.status_code >= 400:
            return None
        try:
            body = response.json()
        except ValueError:
            return None
        if not isinstance(body, dict) or body.get("Error"):
            return None
        return [s for s in body.get("Stats") or [] if isinstance(s, dict)]

    # ------------------------------------------------------------------ events

    def events(self) -> PodmanEventStream:
        stream = PodmanEventStream(self._api, self._resolve_pod, cluster=self.cluster)
        self._streams.add(stream)
        return stream


if TYPE_CHECKING:  # mypy proves PodmanRuntime honours the protocol
    def _conforms(runtime: PodmanRuntime) -> ContainerRuntime:
        return runtime
