"""One pod's reconcile: the kubelet's ``SyncPod`` / ``SyncTerminatingPod``.

:meth:`PodSyncer.sync` is called by one worker at a time per pod (the work
queue guarantees it) with the pod as last seen by the watch, or ``None`` when
it is gone. It is idempotent and level-triggered: it looks at what the runtime
has, takes the next step, and writes the resulting status. Three cases:

* **Gone** from the API: every sandbox labelled with the pod's
  namespace/name on this node is stopped and removed.
* **Being deleted** (``deletionTimestamp``): containers are stopped with what
  is left of the grace period (a ``Killing`` event each), the final status is
  written, the sandbox is removed and the pod object is deleted with grace 0
  and a uid precondition (so a new pod of the same name is never hit).
* **Otherwise**: sandboxes of an older pod of the same name are removed; the
  sandbox is ensured; images are pulled per ``imagePullPolicy`` (``Never``
  and absent -> ``ErrImageNeverPull``; a failed pull -> ``ErrImagePull``);
  init containers run one at a time, in order, each only after the previous
  exited 0; then every app container is created and started. An exited
  container is restarted per ``restartPolicy``, as a new runtime container
  with the attempt (``restartCount``) + 1, once ``restart_delay`` seconds have
  passed since it finished (state ``CrashLoopBackOff`` meanwhile). The delay is
  constant: Kubernetes' doubling back-off (10 s .. 5 min, reset after 10 min
  of running) is TODO, to come with the Podman runtime. A pod in a terminal
  phase gets its sandbox stopped; its containers are kept for ``logs``.

Status is computed by :func:`.status.pod_status` and written through the
``status`` subresource only when it changed, retrying a Conflict on a fresh
copy. Runtime failures become waiting reasons and Warning events, never
exceptions out of :meth:`PodSyncer.sync`; API failures other than NotFound
and Conflict propagate (the caller retries with back-off).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..api.defaults import image_pull_policy
from ..api.errors import Conflict, NotFound
from ..client.base import Client, Object
from ..client.events import EVENT_NORMAL, EVENT_WARNING, EventRecorder
from ..runtime.base import (
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_NODE,
    LABEL_POD_UID,
    SANDBOX_READY,
    ContainerRuntime,
    ContainerRuntimeError,
    ContainerStatus,
    Sandbox,
)
from .containers import container_config, pod_dir, sandbox_config
from .status import TERMINAL_PHASES, group_instances, pod_status, restart_count

__all__ = ["ORPHAN_GRACE_SECONDS", "PodSyncer", "go_duration"]

log = logging.getLogger(__name__)

#: Grace given to containers of a pod that vanished from the API (the
#: kubelet's ``minimumGracePeriodInSeconds``).
ORPHAN_GRACE_SECONDS = 2


def go_duration(seconds: float) -> str:
    """A duration as Go's ``time.Duration.String`` prints it (``1.5s``, ``12ms``)."""
    if seconds >= 60:
        m, s = divmod(seconds, 60)
        return f"{int(m)}m{s:g}s"
    if seconds >= 1:
        return f"{round(seconds, 9):g}s"
    if seconds >= 1e-3:
        return f"{round(seconds * 1e3, 6):g}ms"
    return f"{round(seconds * 1e6, 3):g}µs"


def _parse_time(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()


def _latest(instances: Mapping[str, list[ContainerStatus]], name: str) -> ContainerStatus | None:
    found = instances.get(name)
    return found[-1] if found else None


def _field_path(name: str, init: bool) -> str:
    return f"spec.{'initContainers' if init else 'containers'}{{{name}}}"


class PodSyncer:
    """Reconciles pods of one node against its runtime (see the module contract)."""

    def __init__(self, client: Client, runtime: ContainerRuntime, recorder: EventRecorder, *,
                 node: str, host_ip: str, state_dir: Path, clock: Callable[[], float],
                 restart_delay: float = 10.0,
                 on_written: Callable[[Object], None] | None = None) -> None:
        self.client = client
        self.runtime = runtime
        self.recorder = recorder
        self.node = node
        self.host_ip = host_ip
        self.state_dir = state_dir
        self.clock = clock
        self.restart_delay = restart_delay
        self._on_written = on_written
        self._lock = threading.Lock()
        #: (pod uid, container name) -> (waiting reason, message): what the
        #: runtime cannot tell (pull errors, back-off), like the kubelet's reasonCache.
        self._reasons: dict[tuple[str, str], tuple[str, str]] = {}

    # ------------------------------------------------------------------ entry point

    def sync(self, key: str, pod: Object | None) -> float | None:
        """Reconcile ``key``; returns seconds until it wants another sync, if soon."""
        namespace, _, name = key.partition("/")
        if pod is None:
            self._remove_sandboxes(namespace, name, keep_uid=None)
            return None
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            self._terminate(pod)
            return None
        return self._sync_pod(pod)

    # ------------------------------------------------------------------ helpers

    def _sandboxes(self, labels: Mapping[str, str]) -> list[Sandbox]:
        return sorted(self.runtime.list_sandboxes({LABEL_NODE: self.node, **labels}),
                      key=lambda s: s.created_at)

    def _reason(self, uid: str, name: str) -> tuple[str, str] | None:
        with self._lock:
            return self._reasons.get((uid, name))

    def _set_reason(self, uid: str, name: str, reason: str, message: str) -> None:
        with self._lock:
            self._reasons[(uid, name)] = (reason, message)

    def _clear_reason(self, uid: str, name: str) -> None:
        with self._lock:
            self._reasons.pop((uid, name), None)

    def _forget_pod(self, uid: str) -> None:
        with self._lock:
            for k in [k for k in self._reasons if k[0] == uid]:
                del self._reasons[k]
        shutil.rmtree(pod_dir(self.state_dir, uid), ignore_errors=True)

    def _waiting(self, pod: Object) -> dict[str, tuple[str, str]]:
        uid = str(pod["metadata"].get("uid", ""))
        with self._lock:
            return {name: v for (u, name), v in self._reasons.items() if u == uid}

    def _stop_all(self, sandboxes: list[Sandbox], grace: float, pod: Object | None) -> None:
        """Stop running containers within ``grace`` seconds overall, then the sandboxes."""
        deadline = self.clock() + grace
        for sb in sandboxes:
            for c in self.runtime.list_containers(sb.id):
                if c.state != CONTAINER_RUNNING:
                    continue
                if pod is not None:
                    init = c.name in {x.get("name") for x in
                                      pod["spec"].get("initContainers") or []}
                    self.recorder.record(pod, EVENT_NORMAL, "Killing",
                                         f"Stopping container {c.name}",
                                         field_path=_field_path(c.name, init))
                # One deadline for all, so sequential stops never exceed the grace period.
                self.runtime.stop_container(c.id, max(0.0, deadline - self.clock()))
            self.runtime.stop_sandbox(sb.id, 0)

    def _remove_sandboxes(self, namespace: str, name: str, keep_uid: str | None) -> None:
        for sb in self._sandboxes({LABEL_NAMESPACE: namespace, LABEL_NAME: name}):
            uid = sb.labels.get(LABEL_POD_UID, "")
            if keep_uid is not None and uid == keep_uid:
                continue
            self._stop_all([sb], ORPHAN_GRACE_SECONDS, None)
            self.runtime.remove_sandbox(sb.id)
            self._forget_pod(uid)

    # ------------------------------------------------------------------ status

    def write_status(self, pod: Object, sandbox: Sandbox | None,
                     containers: list[ContainerStatus], *,
                     terminating: bool = False) -> Object | None:
        """Write the computed status if it changed; returns the pod as stored."""
        meta = pod["metadata"]
        current = pod
        waiting = self._waiting(pod)
        for _ in range(5):
            status = pod_status(current, sandbox=sandbox, containers=containers,
                                waiting=waiting, runtime=self.runtime.name,
                                host_ip=self.host_ip, now=self.clock(),
                                terminating=terminating)
            if status == current.get("status"):
                return current
            try:
                stored = self.client.update({**current, "status": status},
                                            subresource="status")
            except NotFound:
                return None
            except Conflict:
                try:
                    current = self.client.get("pods", meta["namespace"], meta["name"])
                except NotFound:
                    return None
                if current["metadata"].get("uid") != meta.get("uid"):
                    return None
                continue
            if self._on_written is not None:
                self._on_written(stored)
            return stored
        log.warning("pod %s/%s: status update kept conflicting; will retry on next sync",
                    meta.get("namespace"), meta.get("name"))
        return None

    # ------------------------------------------------------------------ deletion

    def _terminate(self, pod: Object) -> None:
        meta = pod["metadata"]
        uid = str(meta.get("uid", ""))
        sandboxes = self._sandboxes({LABEL_POD_UID: uid})
        grace = float(meta.get("deletionGracePeriodSeconds") or 0)
        try:
            remaining = _parse_time(str(meta["deletionTimestamp"])) - self.clock()
        except ValueError:
            remaining = grace
        self._stop_all(sandboxes, min(grace, max(0.0, remaining)), pod)
        if sandboxes:  # a retry after the sandboxes went has nothing new to report
            containers = [c for sb in sandboxes for c in self.runtime.list_containers(sb.id)]
            after = self._sandboxes({LABEL_POD_UID: uid})
            self.write_status(pod, after[-1] if after else None, containers, terminating=True)
        for sb in sandboxes:
            self.runtime.remove_sandbox(sb.id)
        self._forget_pod(uid)
        # NotFound: already gone; Conflict: the name now belongs to a new pod.
        with contextlib.suppress(NotFound, Conflict):
            self.client.delete("pods", meta["namespace"], meta["name"], grace_period_seconds=0,
                               preconditions={"uid": uid})

    # ------------------------------------------------------------------ running

    def _sync_pod(self, pod: Object) -> float | None:
        meta, spec = pod["metadata"], pod["spec"]
        uid = str(meta.get("uid", ""))
        self._remove_sandboxes(meta["namespace"], meta["name"], keep_uid=uid)
        sandboxes = self._sandboxes({LABEL_POD_UID: uid})
        if (pod.get("status") or {}).get("phase") in TERMINAL_PHASES:
            for sb in sandboxes:
                if sb.state == SANDBOX_READY:
                    self.runtime.stop_sandbox(sb.id, 0)
            sandboxes = self._sandboxes({LABEL_POD_UID: uid})
            containers = [c for sb in sandboxes for c in self.runtime.list_containers(sb.id)]
            self.write_status(pod, sandboxes[-1] if sandboxes else None, containers)
            return None
        sandbox = self._ensure_sandbox(pod, sandboxes)
        if sandbox is None:
            self.write_status(pod, None, [])
            return None
        instances = group_instances(self.runtime.list_containers(sandbox.id))
        policy = spec.get("restartPolicy", "Always")
        requeue: list[float] = []
        initialized = True
        for c in spec.get("initContainers") or []:
            latest = _latest(instances, c["name"])
            if latest is not None and latest.state == CONTAINER_EXITED and latest.exit_code == 0:
                continue
            initialized = False
            if latest is None or latest.state == CONTAINER_CREATED:
                self._start(pod, sandbox, c, init=True, latest=latest)
            elif latest.state == CONTAINER_EXITED and policy != "Never":
                requeue.extend(self._restart(pod, sandbox, c, latest, init=True))
            break  # one init container at a time, in order
        if initialized:
            for c in spec.get("containers") or []:
                latest = _latest(instances, c["name"])
                if latest is None or latest.state == CONTAINER_CREATED:
                    self._start(pod, sandbox, c, init=False, latest=latest)
                elif latest.state == CONTAINER_EXITED and (
                        policy == "Always" or (policy == "OnFailure" and latest.exit_code != 0)):
                    requeue.extend(self._restart(pod, sandbox, c, latest, init=False))
        self.write_status(pod, sandbox, self.runtime.list_containers(sandbox.id))
        return min(requeue) if requeue else None

    def _ensure_sandbox(self, pod: Object, sandboxes: list[Sandbox]) -> Sandbox | None:
        ready = [sb for sb in sandboxes if sb.state == SANDBOX_READY]
        if ready:
            for extra in ready[:-1]:  # only ever one per pod
                self._stop_all([extra], 0, pod)
                self.runtime.remove_sandbox(extra.id)
            return ready[-1]
        if sandboxes:
            self.recorder.record(pod, EVENT_NORMAL, "SandboxChanged",
                                 "Pod sandbox changed, it will be killed and re-created.")
            for sb in sandboxes:
                self.runtime.remove_sandbox(sb.id)
        try:
            return self.runtime.run_sandbox(sandbox_config(pod, self.node))
        except ContainerRuntimeError as exc:
            self.recorder.record(pod, EVENT_WARNING, "FailedCreatePodSandBox",
                                 f"Failed to create pod sandbox: {exc}")
            return None

    # ------------------------------------------------------------------ containers

    def _restart(self, pod: Object, sandbox: Sandbox, c: Mapping[str, Any],
                 latest: ContainerStatus, *, init: bool) -> list[float]:
        """Restart an exited container once the delay passed; else the wait left."""
        meta = pod["metadata"]
        name = str(c["name"])
        wait = (latest.finished_at or self.clock()) + self.restart_delay - self.clock()
        if wait > 0:
            message = (f"back-off {go_duration(self.restart_delay)} restarting failed "
                       f"container={name} pod={meta['name']}_{meta['namespace']}({meta['uid']})")
            if self._reason(meta["uid"], name) != ("CrashLoopBackOff", message):
                self._set_reason(meta["uid"], name, "CrashLoopBackOff", message)
                self.recorder.record(pod, EVENT_WARNING, "BackOff",
                                     f"Back-off restarting failed container {name} in pod "
                                     f"{meta['name']}_{meta['namespace']}({meta['uid']})",
                                     field_path=_field_path(name, init))
            return [wait]
        if self._start(pod, sandbox, c, init=init, latest=latest):
            # Keep the instance just replaced (for logs --previous); drop older ones.
            for old in group_instances(self.runtime.list_containers(sandbox.id)).get(name, [])[:-2]:
                self.runtime.remove_container(old.id)
        return []

    def _start(self, pod: Object, sandbox: Sandbox, c: Mapping[str, Any], *, init: bool,
               latest: ContainerStatus | None) -> bool:
        """Create (unless ``latest`` is a created one) and start a container."""
        uid = str(pod["metadata"]["uid"])
        name = str(c["name"])
        field_path = _field_path(name, init)
        if latest is not None and latest.state == CONTAINER_CREATED:
            cid = latest.id
        else:
            if not self._ensure_image(pod, c, field_path):
                return False
            attempt = restart_count(latest) + 1 if latest is not None else \
                self._attempt_from_status(pod, name, init)
            config = container_config(pod, c, node=self.node, init=init,
                                      restart_count=attempt, host_ip=self.host_ip,
                                      pod_ip=sandbox.ip, state_dir=self.state_dir)
            try:
                cid = self.runtime.create_container(sandbox.id, config)
            except ContainerRuntimeError as exc:
                self._fail(pod, uid, name, field_path, "CreateContainerError", str(exc))
                return False
            self.recorder.record(pod, EVENT_NORMAL, "Created", f"Created container: {name}",
                                 field_path=field_path)
        try:
            self.runtime.start_container(cid)
        except ContainerRuntimeError as exc:
            self._fail(pod, uid, name, field_path, "RunContainerError", str(exc))
            return False
        self.recorder.record(pod, EVENT_NORMAL, "Started", f"Started container {name}",
                             field_path=field_path)
        self._clear_reason(uid, name)
        return True

    @staticmethod
    def _attempt_from_status(pod: Object, name: str, init: bool) -> int:
        """A container that ran in a sandbox since lost continues its count."""
        key = "initContainerStatuses" if init else "containerStatuses"
        for st in (pod.get("status") or {}).get(key) or []:
            if st.get("name") == name and st.get("containerID"):
                return int(st.get("restartCount") or 0) + 1
        return 0

    def _fail(self, pod: Object, uid: str, name: str, field_path: str, reason: str,
              message: str) -> None:
        self._set_reason(uid, name, reason, message)
        self.recorder.record(pod, EVENT_WARNING, "Failed", f"Error: {message}",
                             field_path=field_path)

    def _ensure_image(self, pod: Object, c: Mapping[str, Any], field_path: str) -> bool:
        uid = str(pod["metadata"]["uid"])
        name, image = str(c["name"]), str(c.get("image", ""))
        policy = c.get("imagePullPolicy") or image_pull_policy(image)
        present = self.runtime.image_status(image)
        if present is not None and policy != "Always":
            self.recorder.record(pod, EVENT_NORMAL, "Pulled",
                                 f'Container image "{image}" already present on machine',
                                 field_path=field_path)
            return True
        if policy == "Never":
            message = f'Container image "{image}" is not present with pull policy of Never'
            self._set_reason(uid, name, "ErrImageNeverPull", message)
            self.recorder.record(pod, EVENT_WARNING, "ErrImageNeverPull", message,
                                 field_path=field_path)
            self.recorder.record(pod, EVENT_WARNING, "Failed", "Error: ErrImageNeverPull",
                                 field_path=field_path)
            return False
        self.recorder.record(pod, EVENT_NORMAL, "Pulling", f'Pulling image "{image}"',
                             field_path=field_path)
        started = time.monotonic()
        try:
            self.runtime.pull_image(image)
        except ContainerRuntimeError as exc:
            self._set_reason(uid, name, "ErrImagePull", str(exc))
            self.recorder.record(pod, EVENT_WARNING, "Failed",
                                 f'Failed to pull image "{image}": {exc}', field_path=field_path)
            self.recorder.record(pod, EVENT_WARNING, "Failed", "Error: ErrImagePull",
                                 field_path=field_path)
            return False
        took = go_duration(time.monotonic() - started)
        pulled = self.runtime.image_status(image)
        size = f" Image size: {pulled.size_bytes} bytes." if pulled is not None else ""
        self.recorder.record(pod, EVENT_NORMAL, "Pulled",
                             f'Successfully pulled image "{image}" in {took} '
                             f"({took} including waiting).{size}", field_path=field_path)
        return True
