"""One pod's reconcile: the kubelet's ``SyncPod`` / ``SyncTerminatingPod``.

:meth:`PodSyncer.sync` is called by one worker at a time per pod (the work
queue guarantees it) with the pod as last seen by the watch, or ``None`` when
it is gone. It is idempotent and level-triggered: it looks at what the runtime
has, takes the next step, and writes the resulting status. It never waits for
a grace period: slow teardown runs on the :class:`~.terminator.Terminator`.

* **Gone** from the API (deleted, force-deleted, or never known: sandboxes
  left from before a restart): every sandbox labelled with the pod's
  namespace/name on this node is killed at once (no grace: the object is
  already gone) and removed, on a terminator thread.
* **Being deleted** (``deletionTimestamp``): one terminator job per pod runs
  each running container's ``preStop`` hook, then stops it with what is left
  of the grace period (``deletionGracePeriodSeconds``, counted from when the
  kubelet saw it; all containers at once, a ``Killing`` event each), writes
  the final status, removes the sandbox and deletes the pod object with grace
  0 and a uid precondition (so a new pod of the same name is never hit). A
  later delete with a shorter grace period shortens the wait.
* **Otherwise**: sandboxes of an older pod of the same name are removed; the
  pod is **admitted** (:mod:`.admission`; a rejected pod is written as
  Failed with the reason and ``Pod was rejected: ...``, and never started);
  the sandbox is ensured (in the node's cgroup); images are pulled per
  ``imagePullPolicy`` (``Never`` and absent -> ``ErrImageNeverPull``; a
  failed pull -> ``ErrImagePull``); init containers run one at a time, in
  order, each only after the previous exited 0; then every app container is
  created and started. Containers are found again by their labels (pod uid,
  container name, restart count), so a pod adopted after a restart is never
  started twice.
* **Restarts** follow ``restartPolicy`` (``Always``; ``OnFailure`` for a
  non-zero exit; never with ``Never``): a new runtime container with the
  attempt (``restartCount``) + 1, after the CrashLoopBackOff delay of
  :mod:`.backoff` (state ``waiting: CrashLoopBackOff`` with ``back-off 20s
  restarting failed container=c pod=p_ns(uid)`` and a ``BackOff`` event
  meanwhile). The previous instance is kept (``logs --previous``) until the
  next restart.
* **Probes** (:mod:`.probes`): every sync hands the current instances to the
  probe workers; a container whose liveness (or startup) probe failed is
  killed on a terminator thread (``Killing``: ``Container c failed liveness
  probe, will be restarted``) and restarted per policy. Readiness and
  startup results make ``ready``/``started`` and the Ready condition.
* A pod in a terminal phase gets its sandbox stopped and its admission
  released; its containers are kept for ``logs``.
* **Volumes** (:mod:`.volumes`): at every sync of a pod that is not
  terminal, its configMap, secret, downwardAPI and projected volumes are
  written or refreshed. One that cannot be set up yet (a missing object or
  key, no token) is a ``FailedMount`` event (once per message) and holds the
  pod's containers back, retried with back-off; one set up before keeps its
  content when a refresh fails and the pod goes on. A container whose
  environment cannot be made waits in ``CreateContainerConfigError`` with
  Kubernetes' message, retried every couple of seconds.

Status is computed by :func:`.status.pod_status` and written through the
``status`` subresource only when it changed, retrying a Conflict on a fresh
copy. Runtime failures become waiting reasons and Warning events, never
exceptions out of :meth:`PodSyncer.sync`; API failures other than NotFound
and Conflict propagate (the caller retries with back-off).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import shutil
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..api.errors import Conflict, NotFound
from ..api.qos import qos_class
from ..api.timefmt import parse_time
from ..client.base import Client, Object, for_caches
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
from .admission import Admitter, Rejection
from .backoff import RestartBackoff
from .containers import container_config, pod_dir, sandbox_config
from .dns import PodNetworking, pod_dns
from .envvars import service_env
from .pleg import Fingerprint, pod_fingerprint
from .probes import ProbeManager, ProbeSpec, Result, run_handler
from .pull import ImagePuller, go_duration
from .sources import ConfigError, ObjectSource
from .status import (
    TERMINAL_PHASES,
    container_name,
    group_instances,
    pod_status,
    restart_count,
    rfc3339,
)
from .terminator import Terminator, parallel
from .volumes import VolumeManager

__all__ = ["PodSyncer", "go_duration"]

log = logging.getLogger(__name__)

#: ``terminationGracePeriodSeconds`` when a pod does not say.
DEFAULT_GRACE_SECONDS = 30.0
#: Retry delays of a pod whose volumes cannot be set up yet: doubling from
#: the first to the cap (the kubelet's volume manager backs off likewise).
MOUNT_RETRY_FIRST, MOUNT_RETRY_CAP = 1.0, 8.0
#: A container whose configuration cannot be made yet.
CONFIG_ERROR = "CreateContainerConfigError"
CONFIG_RETRY = 2.0


def _latest(instances: Mapping[str, list[ContainerStatus]], name: str) -> ContainerStatus | None:
    found = instances.get(name)
    return found[-1] if found else None


def _field_path(name: str, init: bool, ephemeral: bool = False) -> str:
    group = "ephemeralContainers" if ephemeral else "initContainers" if init else "containers"
    return f"spec.{group}{{{name}}}"


def _format_pod(meta: Mapping[str, Any]) -> str:
    """Kubernetes' ``format.Pod``: ``name_namespace(uid)``."""
    return f"{meta.get('name')}_{meta.get('namespace')}({meta.get('uid')})"


def _container_spec(pod: Mapping[str, Any], name: str) -> tuple[Mapping[str, Any], bool] | None:
    spec = pod.get("spec") or {}
    for c in spec.get("containers") or []:
        if c.get("name") == name:
            return c, False
    for c in spec.get("initContainers") or []:
        if c.get("name") == name:
            return c, True
    return None


class PodSyncer:
    """Reconciles pods of one node against its runtime (see the module contract)."""

    def __init__(self, client: Client, runtime: ContainerRuntime, recorder: EventRecorder, *,
                 node: str, host_ip: str, state_dir: Path, clock: Callable[[], float],
                 admitter: Admitter, backoff: RestartBackoff, probes: ProbeManager,
                 terminator: Terminator, allocatable: tuple[int, int] = (0, 0),
                 cgroup_parent: Callable[[], str] = lambda: "",
                 on_written: Callable[[Object, bool], None] | None = None,
                 on_observed: Callable[[str, Fingerprint], None] | None = None,
                 networking: PodNetworking | None = None,
                 sources: ObjectSource | None = None,
                 volumes: VolumeManager | None = None) -> None:
        """``on_written(stored, acted_on)``: called after each status write
        with the pod as stored and whether the write was made on the very
        version this sync acted on (so ``stored`` differs from it by the status
        only); False when a conflict made it re-read a newer version, whose
        other changes no sync has seen yet. ``on_observed(key, fingerprint)``:
        called after a sync of a running pod that wrote (or found current) its
        status, with the runtime's state it reported (:func:`.pleg.pod_fingerprint`
        of the pod's only sandbox and its containers, as listed by the sync);
        not called when the sync saw anything else on the node under that
        namespace/name (a sandbox of an older pod, a second sandbox)."""
        self.client = client
        # Status writes and their conflict re-reads only read what they get back
        # (the kubelet caches it, read-only): an in-process client hands out the
        # store's shared copy, the one the pod informers decode anyway, instead
        # of decoding a fresh one for the kubelet alone (one per status write).
        self._status_client: Client = for_caches(client)
        self.runtime = runtime
        self.recorder = recorder
        self.node = node
        self.host_ip = host_ip
        self.state_dir = state_dir
        self.clock = clock
        self.admitter = admitter
        self.backoff = backoff
        self.probes = probes
        self.terminator = terminator
        self.allocatable = allocatable
        self.cgroup_parent = cgroup_parent
        self._on_written = on_written
        self._on_observed = on_observed
        self.networking = networking or PodNetworking()
        self.sources = sources
        self.volumes = volumes
        #: pod uid -> (failed set-ups in a row, last FailedMount messages).
        self._mount_failures: dict[str, tuple[int, tuple[tuple[str, str], ...]]] = {}
        self.images = ImagePuller(runtime, recorder, clock=clock)
        self._lock = threading.Lock()
        #: (pod uid, container name) -> (waiting reason, message): what the
        #: runtime cannot tell (pull errors, back-off), like the kubelet's reasonCache.
        self._reasons: dict[tuple[str, str], tuple[str, str]] = {}
        #: pod uid -> deadline (kubelet clock) of its graceful termination in progress.
        self._terminating: dict[str, float] = {}
        #: namespace/name -> uid last synced under that key.
        self._uids: dict[str, str] = {}
        self._rejections_reported: set[str] = set()

    # ------------------------------------------------------------------ entry point

    def sync(self, key: str, pod: Object | None) -> float | None:
        """Reconcile ``key``; returns seconds until it wants another sync, if soon."""
        namespace, _, name = key.partition("/")
        if pod is None:
            with self._lock:
                uid = self._uids.pop(key, None)
            if not self._remove_orphans(namespace, name, keep_uid=None)[1] and uid:
                self._forget_pod(uid)
            return None
        meta = pod.get("metadata") or {}
        with self._lock:
            self._uids[key] = str(meta.get("uid", ""))
        if meta.get("deletionTimestamp"):
            return self._begin_termination(key, pod)
        return self._sync_pod(pod)

    # ------------------------------------------------------------------ helpers

    def _sandboxes(self, labels: Mapping[str, str]) -> list[Sandbox]:
        return sorted(self.runtime.list_sandboxes({LABEL_NODE: self.node, **labels}),
                      key=lambda s: s.created_at)

    def _reason(self, uid: str, name: str) -> tuple[str, str] | None:
        with self._lock:
            return self._reasons.get((uid, name))

    def waiting_reason(self, uid: str, name: str) -> tuple[str, str] | None:
        """The reason the kubelet keeps ``name`` waiting (CrashLoopBackOff...), if any."""
        return self._reason(uid, name)

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
            self._rejections_reported.discard(uid)
        self.backoff.forget(uid)
        self.images.forget(uid)
        self.probes.remove_pod(uid)
        self.admitter.forget(uid)
        with self._lock:
            self._mount_failures.pop(uid, None)
        if self.volumes is not None:
            self.volumes.forget(uid)
        shutil.rmtree(pod_dir(self.state_dir, uid), ignore_errors=True)

    def _waiting(self, pod: Object) -> dict[str, tuple[str, str]]:
        uid = str(pod["metadata"].get("uid", ""))
        with self._lock:
            return {name: v for (u, name), v in self._reasons.items() if u == uid}

    def _kill_sandbox(self, sb: Sandbox) -> None:
        """Kill every container of ``sb`` at once (no grace) and stop it."""
        jobs: list[Callable[[], None]] = [
            functools.partial(self.runtime.stop_container, c.id, 0)
            for c in self.runtime.list_containers(sb.id) if c.state == CONTAINER_RUNNING]
        if jobs:
            parallel(jobs, name=f"kill-{sb.id[:12]}")
        self.runtime.stop_sandbox(sb.id, 0)

    def _remove_orphans(self, namespace: str, name: str,
                        keep_uid: str | None) -> tuple[list[Sandbox], bool]:
        """Kill and remove (on a terminator thread) every sandbox of ``namespace/name``
        but ``keep_uid``'s; returns ``keep_uid``'s sandboxes, oldest first, and
        whether there were others.

        One listing by name serves both: a sandbox carries the namespace and
        name of the pod it was made for, and a pod's name never changes, so
        the pod's own sandboxes are among them (a second listing by uid at
        every sync was about a twentieth of a hollow pod's resync)."""
        found = False
        kept: list[Sandbox] = []
        for sb in self._sandboxes({LABEL_NAMESPACE: namespace, LABEL_NAME: name}):
            uid = sb.labels.get(LABEL_POD_UID, "")
            if keep_uid is not None and uid == keep_uid:
                kept.append(sb)
                continue
            found = True

            def remove(sb: Sandbox = sb, uid: str = uid) -> None:
                self._kill_sandbox(sb)
                self.runtime.remove_sandbox(sb.id)
                if not self._sandboxes({LABEL_POD_UID: uid}):
                    self._forget_pod(uid)

            self.terminator.submit(f"orphan/{sb.id}", remove)
        return kept, found

    # ------------------------------------------------------------------ status

    def _probe_views(self, pod: Object,
                     containers: list[ContainerStatus]) -> tuple[dict[str, bool],
                                                                 dict[str, bool]]:
        uid = str(pod["metadata"].get("uid", ""))
        ready: dict[str, bool] = {}
        started: dict[str, bool] = {}
        for name, instances in group_instances(containers).items():
            latest = instances[-1]
            if latest.state == CONTAINER_RUNNING:
                ready[name] = self.probes.ready(uid, name, latest.id)
                started[name] = self.probes.started(uid, name, latest.id)
        return ready, started

    def write_status(self, pod: Object, sandbox: Sandbox | None,
                     containers: list[ContainerStatus], *,
                     terminating: bool = False) -> Object | None:
        """Write the computed status if it changed; returns the pod as stored (it
        may be the store's shared copy: read it, never change it)."""
        waiting = self._waiting(pod)
        ready, started = self._probe_views(pod, containers)

        def compute(current: Object) -> dict[str, Any]:
            return pod_status(current, sandbox=sandbox, containers=containers,
                              waiting=waiting, runtime=self.runtime.name,
                              host_ip=self.host_ip, now=self.clock(),
                              terminating=terminating, ready=ready, started=started)

        return self._update_status(pod, compute)

    def _update_status(self, pod: Object,
                       compute: Callable[[Object], dict[str, Any]]) -> Object | None:
        meta = pod["metadata"]
        current = pod
        for _ in range(5):
            status = compute(current)
            if status == current.get("status"):
                return current
            try:
                stored = self._status_client.update({**current, "status": status},
                                                    subresource="status")
            except NotFound:
                return None
            except Conflict:
                try:
                    current = self._status_client.get("pods", meta["namespace"],
                                                      meta["name"])
                except NotFound:
                    return None
                if current["metadata"].get("uid") != meta.get("uid"):
                    return None
                continue
            if self._on_written is not None:
                self._on_written(stored, current is pod)
            return stored
        log.warning("pod %s/%s: status update kept conflicting; will retry on next sync",
                    meta.get("namespace"), meta.get("name"))
        return None

    def _reject(self, pod: Object, rejection: Rejection) -> None:
        """Phase Failed with the admission failure, as ``kl.rejectPod`` writes it."""
        uid = str(pod["metadata"].get("uid", ""))
        with self._lock:
            first = uid not in self._rejections_reported
            self._rejections_reported.add(uid)
        if first:
            self.recorder.record(pod, EVENT_WARNING, rejection.reason, rejection.message)

        def compute(current: Object) -> dict[str, Any]:
            old = current.get("status") or {}
            status = {k: v for k, v in old.items() if k in ("conditions", "startTime",
                                                             "nominatedNodeName")}
            status.update({"phase": "Failed", "reason": rejection.reason,
                           "message": f"Pod was rejected: {rejection.message}",
                           "qosClass": old.get("qosClass") or qos_class(current)})
            status.setdefault("startTime", rfc3339(self.clock()))
            return status

        self._update_status(pod, compute)

    # ------------------------------------------------------------------ deletion

    def _deadline(self, pod: Object) -> float:
        """When the grace period of a deleted pod ends (kubelet clock)."""
        meta = pod["metadata"]
        now = self.clock()
        grace = float(meta.get("deletionGracePeriodSeconds") or 0)
        deleted_at = parse_time(meta.get("deletionTimestamp"))
        # The timestamp has whole seconds (rounded down): allow that second.
        left = grace if deleted_at is None else deleted_at + 1.0 - now
        return now + min(grace, max(0.0, left))

    def _begin_termination(self, key: str, pod: Object) -> float | None:
        uid = str(pod["metadata"].get("uid", ""))
        deadline = self._deadline(pod)
        with self._lock:
            current = self._terminating.get(uid)
            if current is None:
                self._terminating[uid] = deadline
            elif deadline < current - 0.5:
                self._terminating[uid] = deadline  # a second delete shortened the grace
        self.probes.terminating(uid)
        if current is None:
            if not self.terminator.submit(f"pod/{uid}", lambda: self._terminate(pod)):
                with self._lock:
                    self._terminating.pop(uid, None)
                return 0.5  # the previous job is just ending, or we are stopping
        elif deadline < current - 0.5:
            self.terminator.submit(f"shorten/{uid}/{deadline:.3f}",
                                   lambda: self._stop_running(pod, uid, prestop=False))
        return None

    def _time_left(self, uid: str) -> float:
        with self._lock:
            deadline = self._terminating.get(uid)
        return 0.0 if deadline is None else max(0.0, deadline - self.clock())

    def _stop_running(self, pod: Object, uid: str, *, prestop: bool) -> None:
        """Stop every running container of the pod at once, within what is left."""
        sandboxes = self._sandboxes({LABEL_POD_UID: uid})
        ip = next((sb.ip for sb in reversed(sandboxes) if sb.ip), "")
        jobs: list[Callable[[], None]] = []
        for sb in sandboxes:
            for c in self.runtime.list_containers(sb.id):
                if c.state != CONTAINER_RUNNING:
                    continue
                name = container_name(c)
                found = _container_spec(pod, name)
                spec, init = found if found is not None else ({}, False)
                if prestop:
                    self.recorder.record(pod, EVENT_NORMAL, "Killing",
                                         f"Stopping container {name}",
                                         field_path=_field_path(name, init))

                def stop(cid: str = c.id, spec: Mapping[str, Any] = spec,
                         name: str = name, init: bool = init) -> None:
                    if prestop:
                        self._pre_stop(pod, spec, name, init, cid, ip, self._time_left(uid))
                    self.runtime.stop_container(cid, self._time_left(uid))

                jobs.append(stop)
        if jobs:
            parallel(jobs, name=f"stop-{uid[:8]}")

    def _pre_stop(self, pod: Object, spec: Mapping[str, Any], name: str, init: bool,
                  cid: str, pod_ip: str, budget: float) -> None:
        hook = (spec.get("lifecycle") or {}).get("preStop")
        if not isinstance(hook, Mapping) or budget <= 0:
            return
        handler = ProbeSpec.parse(hook)
        if handler.handler == "sleep":
            threading.Event().wait(min(handler.seconds, budget))
            return
        try:
            result, output = run_handler(handler, runtime=self.runtime, container_id=cid,
                                         container=spec, pod_ip=pod_ip, timeout=budget)
            if result != Result.SUCCESS:
                raise ContainerRuntimeError(output or "hook failed")
        except (ContainerRuntimeError, ValueError, OSError) as exc:
            self.recorder.record(pod, EVENT_WARNING, "FailedPreStopHook",
                                 f"PreStopHook failed: {exc}",
                                 field_path=_field_path(name, init))

    def _terminate(self, pod: Object) -> None:
        meta = pod["metadata"]
        uid = str(meta.get("uid", ""))
        try:
            sandboxes = self._sandboxes({LABEL_POD_UID: uid})
            self._stop_running(pod, uid, prestop=True)
            for sb in sandboxes:
                self.runtime.stop_sandbox(sb.id, 0)
            if sandboxes:  # a retry after the sandboxes went has nothing new to report
                containers = [c for sb in sandboxes for c in self.runtime.list_containers(sb.id)]
                after = self._sandboxes({LABEL_POD_UID: uid})
                self.write_status(pod, after[-1] if after else None, containers,
                                  terminating=True)
            for sb in sandboxes:
                self.runtime.remove_sandbox(sb.id)
            self._forget_pod(uid)
            # NotFound: already gone; Conflict: the name now belongs to a new pod.
            with contextlib.suppress(NotFound, Conflict):
                self.client.delete("pods", meta["namespace"], meta["name"],
                                   grace_period_seconds=0, preconditions={"uid": uid})
        finally:
            with self._lock:
                self._terminating.pop(uid, None)

    def terminating(self) -> list[str]:
        """Uids whose graceful termination is in progress."""
        with self._lock:
            return sorted(self._terminating)

    # ------------------------------------------------------------------ running

    def _sync_pod(self, pod: Object) -> float | None:
        meta, spec = pod["metadata"], pod["spec"]
        uid = str(meta.get("uid", ""))
        sandboxes, orphans = self._remove_orphans(meta["namespace"], meta["name"],
                                                  keep_uid=uid)
        if (pod.get("status") or {}).get("phase") in TERMINAL_PHASES:
            self.admitter.release(uid)
            self.probes.remove_pod(uid)
            if not sandboxes:
                return None  # nothing ran here (or already cleaned): nothing to report
            for sb in sandboxes:
                if sb.state == SANDBOX_READY:
                    self.runtime.stop_sandbox(sb.id, 0)
            sandboxes = self._sandboxes({LABEL_POD_UID: uid})
            containers = [c for sb in sandboxes for c in self.runtime.list_containers(sb.id)]
            self.write_status(pod, sandboxes[-1] if sandboxes else None, containers)
            return None
        rejection = self.admitter.admit(pod, adopted=bool(sandboxes))
        if rejection is not None:
            self._reject(pod, rejection)
            return None
        retry, blocked = self._set_up_volumes(pod)
        if blocked:
            # WaitForAttachAndMount failed: nothing is started or restarted, what
            # runs keeps running, and the pod is tried again.
            ready = [sb for sb in sandboxes if sb.state == SANDBOX_READY]
            self.write_status(pod, ready[-1] if ready else None,
                              self.runtime.list_containers(ready[-1].id) if ready else [])
            return retry
        sandbox = self._ensure_sandbox(pod, sandboxes)
        if sandbox is None:
            self.write_status(pod, None, [])
            return None
        listed = self.runtime.list_containers(sandbox.id)
        instances = group_instances(listed)
        # Whether this sync created, started or restarted anything: only then is
        # the runtime listed again for the status (a resync of a pod that runs
        # as it should reports what it found).
        acted = False
        policy = spec.get("restartPolicy", "Always")
        self._kill_unhealthy(pod, instances, policy, sandbox.ip)
        requeue: list[float] = [] if retry is None else [retry]
        initialized = True
        for c in spec.get("initContainers") or []:
            latest = _latest(instances, c["name"])
            if latest is not None and latest.state == CONTAINER_EXITED and latest.exit_code == 0:
                continue
            initialized = False
            if latest is None or latest.state == CONTAINER_CREATED:
                acted = True
                self._start(pod, sandbox, c, init=True, latest=latest)
            elif latest.state == CONTAINER_EXITED and policy != "Never":
                acted = True
                requeue.extend(self._restart(pod, sandbox, c, latest, init=True))
            break  # one init container at a time, in order
        if initialized:
            for c in spec.get("containers") or []:
                latest = _latest(instances, c["name"])
                if latest is None or latest.state == CONTAINER_CREATED:
                    acted = True
                    self._start(pod, sandbox, c, init=False, latest=latest)
                elif latest.state == CONTAINER_EXITED and (
                        policy == "Always" or (policy == "OnFailure" and latest.exit_code != 0)):
                    acted = True
                    requeue.extend(self._restart(pod, sandbox, c, latest, init=False))
        # Ephemeral containers (kubectl debug) start once, whether or not the pod
        # is initialized, and are never restarted.
        for c in spec.get("ephemeralContainers") or []:
            latest = _latest(instances, c["name"])
            if latest is None or latest.state == CONTAINER_CREATED:
                target = _latest(instances, str(c.get("targetContainerName") or ""))
                acted = True
                self._start(pod, sandbox, c, init=False, latest=latest, ephemeral=True,
                            share_pid_with=target.id if target is not None and
                            target.state == CONTAINER_RUNNING else "")
        if any(reason == CONFIG_ERROR for reason, _ in self._waiting(pod).values()):
            # A missing ConfigMap or Secret may appear any moment: look again soon.
            requeue.append(CONFIG_RETRY)
        if acted:
            listed = self.runtime.list_containers(sandbox.id)
            instances = group_instances(listed)
        self.probes.update(pod, sandbox.ip, instances)
        stored = self.write_status(pod, sandbox, listed)
        if (self._on_observed is not None and stored is not None and not orphans
                and len(sandboxes) == 1 and sandboxes[0] is sandbox):
            # What was reported is exactly what the relist would find now,
            # unless something changed since (then it finds that): see
            # Kubelet.relist_runtime.
            self._on_observed(f"{meta['namespace']}/{meta['name']}",
                              pod_fingerprint(sandboxes, listed))
        return min(requeue) if requeue else None

    def _kill_unhealthy(self, pod: Object, instances: Mapping[str, list[ContainerStatus]],
                        policy: str, pod_ip: str) -> None:
        """Kill (off the worker) running containers whose liveness/startup probe failed."""
        meta, spec = pod["metadata"], pod["spec"]
        uid = str(meta.get("uid", ""))
        for c in spec.get("containers") or []:
            name = str(c.get("name", ""))
            latest = _latest(instances, name)
            if latest is None or latest.state != CONTAINER_RUNNING:
                continue
            failed = self.probes.failed(uid, name, latest.id)
            if failed is None or self.terminator.busy(f"kill/{latest.id}"):
                continue
            message = f"Container {name} failed {failed} probe"
            if policy != "Never":
                message += ", will be restarted"
            probe = c.get(f"{failed}Probe") or {}
            grace = probe.get("terminationGracePeriodSeconds")
            if grace is None:
                grace = spec.get("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS)
            deadline = self.clock() + max(0.0, float(grace))
            self.recorder.record(pod, EVENT_NORMAL, "Killing", message,
                                 field_path=_field_path(name, False))

            def kill(cid: str = latest.id, c: Mapping[str, Any] = c, name: str = name,
                     deadline: float = deadline) -> None:
                self._pre_stop(pod, c, name, False, cid, pod_ip, deadline - self.clock())
                self.runtime.stop_container(cid, max(0.0, deadline - self.clock()))

            self.terminator.submit(f"kill/{latest.id}", kill)

    def _set_up_volumes(self, pod: Object) -> tuple[float | None, bool]:
        """Write (or refresh) the pod's API-data volumes: ``(None, False)``
        when all are ready, else the delay before the next try (after a
        ``FailedMount`` event for each volume whose message is new) and
        whether a volume never set up holds the containers back."""
        if self.volumes is None:
            return None, False
        uid = str(pod["metadata"].get("uid", ""))
        failures = tuple(self.volumes.set_up(pod, lambda: pod_dir(self.state_dir, uid)))
        with self._lock:
            if not failures:
                self._mount_failures.pop(uid, None)
                return None, False
            count, reported = self._mount_failures.get(uid, (0, ()))
            self._mount_failures[uid] = (count + 1, tuple((v, m) for v, m, _ in failures))
        for volume, message, _ in failures:
            if (volume, message) not in reported:
                self.recorder.record(pod, EVENT_WARNING, "FailedMount",
                                     f'MountVolume.SetUp failed for volume "{volume}" : '
                                     f"{message}")
        delay = float(min(MOUNT_RETRY_CAP, MOUNT_RETRY_FIRST * 2 ** count))
        return delay, any(not mounted for _, _, mounted in failures)

    def _ensure_sandbox(self, pod: Object, sandboxes: list[Sandbox]) -> Sandbox | None:
        ready = [sb for sb in sandboxes if sb.state == SANDBOX_READY]
        if ready:
            for extra in ready[:-1]:  # only ever one per pod
                self._kill_sandbox(extra)
                self.runtime.remove_sandbox(extra.id)
            return ready[-1]
        if sandboxes:
            self.recorder.record(pod, EVENT_NORMAL, "SandboxChanged",
                                 "Pod sandbox changed, it will be killed and re-created.")
            for sb in sandboxes:
                self.runtime.remove_sandbox(sb.id)
        dns = None
        if self.networking.dns is not None:
            dns, warnings = pod_dns(pod, self.networking.dns)
            for warning in warnings:
                self.recorder.record(pod, EVENT_WARNING, "DNSConfigForming", warning)
        try:
            return self.runtime.run_sandbox(sandbox_config(
                pod, self.node, cgroup_parent=self.cgroup_parent(), dns=dns))
        except ContainerRuntimeError as exc:
            self.recorder.record(pod, EVENT_WARNING, "FailedCreatePodSandBox",
                                 f"Failed to create pod sandbox: {exc}")
            return None

    # ------------------------------------------------------------------ containers

    def _restart(self, pod: Object, sandbox: Sandbox, c: Mapping[str, Any],
                 latest: ContainerStatus, *, init: bool) -> list[float]:
        """Restart an exited container once its back-off passed; else the wait left."""
        meta = pod["metadata"]
        name = str(c["name"])
        key = (str(meta["uid"]), name)
        wait = self.backoff.remaining(key, latest.finished_at or self.clock(), latest.started_at)
        if wait > 0:
            message = (f"back-off {go_duration(self.backoff.delay(key))} restarting failed "
                       f"container={name} pod={_format_pod(meta)}")
            if self._reason(meta["uid"], name) != ("CrashLoopBackOff", message):
                self._set_reason(meta["uid"], name, "CrashLoopBackOff", message)
                self.recorder.record(pod, EVENT_WARNING, "BackOff",
                                     f"Back-off restarting failed container {name} in pod "
                                     f"{_format_pod(meta)}",
                                     field_path=_field_path(name, init))
            return [wait]
        if self._start(pod, sandbox, c, init=init, latest=latest):
            # Keep the instance just replaced (for logs --previous); drop older ones.
            for old in group_instances(self.runtime.list_containers(sandbox.id)).get(name, [])[:-2]:
                self.runtime.remove_container(old.id)
        return []

    def _start(self, pod: Object, sandbox: Sandbox, c: Mapping[str, Any], *, init: bool,
               latest: ContainerStatus | None, ephemeral: bool = False,
               share_pid_with: str = "") -> bool:
        """Create (unless ``latest`` is a created one) and start a container;
        an ephemeral one may join the process namespace of ``share_pid_with``
        (``kubectl debug --target``)."""
        uid = str(pod["metadata"]["uid"])
        name = str(c["name"])
        field_path = _field_path(name, init, ephemeral)
        if latest is not None and latest.state == CONTAINER_CREATED:
            cid = latest.id
        else:
            failure = self.images.ensure(pod, c, field_path)
            if failure is not None:
                self._set_reason(uid, name, *failure)
                return False
            attempt = restart_count(latest) + 1 if latest is not None else \
                self._attempt_from_status(pod, name, init)
            links = (pod.get("spec") or {}).get("enableServiceLinks") is not False

            def warn(reason: str, message: str) -> None:
                self.recorder.record(pod, EVENT_WARNING, reason, message)

            try:
                config = container_config(pod, c, node=self.node, init=init,
                                          restart_count=attempt, host_ip=self.host_ip,
                                          pod_ip=sandbox.ip, state_dir=self.state_dir,
                                          allocatable=self.allocatable,
                                          service_env=service_env(
                                              self.networking.services(),
                                              str(pod["metadata"].get("namespace") or ""),
                                              enable_service_links=links),
                                          sources=self.sources, warn=warn)
            except ConfigError as exc:
                self._fail(pod, uid, name, field_path, CONFIG_ERROR, str(exc))
                return False
            if share_pid_with:
                config = dataclasses.replace(config, pid_namespace_of=share_pid_with)
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
