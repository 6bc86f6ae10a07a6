"""Container probes: liveness, readiness and startup, as the kubelet's
``pkg/kubelet/prober`` runs them -- one worker thread per probe of a container.

:class:`ProbeManager` promises:

* **Workers.** :meth:`~ProbeManager.update` (called by every pod sync with
  the current container instances) starts one worker per probe of an app
  container and tells the workers which instance is current. A worker waits
  on its own ``threading.Event`` between probes (no busy loop) and ends with
  :meth:`~ProbeManager.remove_pod`, :meth:`~ProbeManager.stop`, or when its
  container exited and will not be restarted (``restartPolicy: Never``).
* **Timing** (``prober/worker.go``): a probe runs every ``periodSeconds``
  (default 10) with ``timeoutSeconds`` (1); none runs before
  ``initialDelaySeconds`` (0) have passed since the container started. All
  three are multiplied by ``time_scale`` (Kubernetes takes whole seconds;
  tests run at e.g. 0.05).
* **Results.** ``successThreshold`` (1) consecutive successes or
  ``failureThreshold`` (3) failures change a result. A new container
  instance starts from readiness Failure, liveness Success, startup Unknown.
  The startup probe gates the others: until it succeeds, liveness and
  readiness do not run and the container is neither started nor ready; once
  it has succeeded it stops probing (for this instance). A liveness or
  startup probe that reaches Failure puts its worker on hold until the next
  instance; the pod syncer asks :meth:`~ProbeManager.failed` and kills the
  container. While the pod is being deleted, liveness and startup count as
  Success and do not run; readiness goes on.
* **Handlers** (:func:`run_handler`, also used for ``preStop`` hooks):
  ``exec`` through :meth:`ContainerRuntime.exec_sync` (exit 0 succeeds; a
  timeout fails with ``command "..." timed out``); ``httpGet`` to ``host``
  (default: the pod IP), ``port`` by number or by the container's port name,
  ``path``, ``httpHeaders``, scheme HTTP only, success on 200-399;
  ``tcpSocket`` succeeds when a connection opens. Others (gRPC) are
  reported as errored.
* **Events**: a failing probe records Warning ``Unhealthy`` ``<Kind> probe
  failed: <output>`` (``errored: <error>`` when it could not run), as the
  kubelet does on every failed attempt.
* Every change of a result calls ``on_change(namespace/name)`` so the pod
  is synced (its Ready condition rewritten, or the container killed).
"""

from __future__ import annotations

import enum
import http.client
import logging
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..client.events import EVENT_WARNING, EventRecorder
from ..runtime.base import (
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    ContainerRuntime,
    ContainerRuntimeError,
    ContainerStatus,
)

__all__ = [
    "LIVENESS",
    "PROBE_KINDS",
    "READINESS",
    "STARTUP",
    "ProbeManager",
    "ProbeSpec",
    "Result",
    "run_handler",
]

log = logging.getLogger(__name__)

LIVENESS, READINESS, STARTUP = "liveness", "readiness", "startup"
PROBE_KINDS = (STARTUP, LIVENESS, READINESS)
_FIELDS = {LIVENESS: "livenessProbe", READINESS: "readinessProbe", STARTUP: "startupProbe"}
_USER_AGENT = "kube-probe/1.32"
#: Most of a response body kept as probe output (Kubernetes reads 10 KiB).
_MAX_BODY = 10 * 1024


class Result(enum.Enum):
    SUCCESS = "success"
    FAILURE = "failure"
    UNKNOWN = "unknown"


_INITIAL = {READINESS: Result.FAILURE, LIVENESS: Result.SUCCESS, STARTUP: Result.UNKNOWN}


def _number(value: Any, default: float) -> float:
    try:
        return float(value) if value is not None else default
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True, slots=True)
class ProbeSpec:
    """One probe or hook handler, with Kubernetes' defaults applied."""

    handler: str = ""  # exec | httpGet | tcpSocket | sleep | grpc | ""
    command: tuple[str, ...] = ()
    host: str = ""
    port: int | str = 0
    path: str = "/"
    scheme: str = "HTTP"
    headers: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0  # sleep (hooks only)
    initial_delay: float = 0.0
    period: float = 10.0
    timeout: float = 1.0
    success_threshold: int = 1
    failure_threshold: int = 3
    termination_grace: float | None = None

    @classmethod
    def parse(cls, probe: Mapping[str, Any]) -> ProbeSpec:
        handler, body = "", {}
        for name in ("exec", "httpGet", "tcpSocket", "sleep", "grpc"):
            if isinstance(probe.get(name), Mapping):
                handler, body = name, dict(probe[name])
                break
        port = body.get("port", 0)
        if isinstance(port, str) and port.isdigit():
            port = int(port)
        grace = probe.get("terminationGracePeriodSeconds")
        return cls(
            handler=handler,
            command=tuple(str(x) for x in body.get("command") or []),
            host=str(body.get("host") or ""),
            port=port if isinstance(port, int | str) else 0,
            path=str(body.get("path") or "/"),
            scheme=str(body.get("scheme") or "HTTP").upper(),
            headers=tuple((str(h.get("name", "")), str(h.get("value", "")))
                          for h in body.get("httpHeaders") or [] if isinstance(h, Mapping)),
            seconds=_number(body.get("seconds"), 0.0),
            initial_delay=max(0.0, _number(probe.get("initialDelaySeconds"), 0.0)),
            period=max(1.0, _number(probe.get("periodSeconds"), 10.0)),
            timeout=max(1.0, _number(probe.get("timeoutSeconds"), 1.0)),
            success_threshold=max(1, int(_number(probe.get("successThreshold"), 1))),
            failure_threshold=max(1, int(_number(probe.get("failureThreshold"), 3))),
            termination_grace=_number(grace, 0.0) if grace is not None else None)


# --------------------------------------------------------------- handlers


def _resolve_port(port: int | str, container: Mapping[str, Any]) -> int:
    if isinstance(port, int):
        return port
    for p in container.get("ports") or []:
        if p.get("name") == port:
            return int(p.get("containerPort", 0))
    raise ValueError(f"couldn't find port: {port} in {container.get('name', '')}")


def _http_get(spec: ProbeSpec, host: str, port: int, timeout: float) -> tuple[Result, str]:
    path = spec.path if spec.path.startswith("/") else "/" + spec.path
    url = f"http://{host}:{port}{path}"
    headers = {"User-Agent": _USER_AGENT, "Accept": "*/*"}
    headers.update(dict(spec.headers))
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        body = response.read(_MAX_BODY).decode(errors="replace")
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        return Result.FAILURE, f'Get "{url}": {_dial_error(host, port, exc)}'
    finally:
        conn.close()
    if 200 <= status < 400:
        return Result.SUCCESS, body
    return Result.FAILURE, f"HTTP probe failed with statuscode: {status}"


def _dial_error(host: str, port: int, exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return f"dial tcp {host}:{port}: connect: connection refused"
    if isinstance(exc, TimeoutError | socket.timeout):
        return f"dial tcp {host}:{port}: i/o timeout"
    return f"dial tcp {host}:{port}: {exc}"


def _tcp(host: str, port: int, timeout: float) -> tuple[Result, str]:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return Result.SUCCESS, ""
    except OSError as exc:
        return Result.FAILURE, _dial_error(host, port, exc)


def run_handler(spec: ProbeSpec, *, runtime: ContainerRuntime, container_id: str,
                container: Mapping[str, Any], pod_ip: str,
                timeout: float) -> tuple[Result, str]:
    """Run one probe/hook handler; ``(result, output)``. Raises for an
    *errored* attempt (the handler could not run at all)."""
    if spec.handler == "exec":
        res = runtime.exec_sync(container_id, spec.command, timeout=timeout)
        if res.timed_out:
            return Result.FAILURE, f'command "{" ".join(spec.command)}" timed out'
        output = res.output.decode(errors="replace")
        return (Result.SUCCESS if res.exit_code == 0 else Result.FAILURE), output
    if spec.handler in ("httpGet", "tcpSocket"):
        host = spec.host or pod_ip
        port = _resolve_port(spec.port, container)
        if spec.handler == "tcpSocket":
            return _tcp(host, port, timeout)
        if spec.scheme != "HTTP":
            raise ValueError(f"scheme {spec.scheme} is not supported (HTTP only)")
        return _http_get(spec, host, port, timeout)
    raise ValueError(f"probe handler {spec.handler or '(none)'} is not supported")


# --------------------------------------------------------------- targets + workers


@dataclass(slots=True)
class _Target:
    """The current instance of one container, as the last pod sync saw it."""

    pod: Mapping[str, Any]
    container: Mapping[str, Any]
    container_id: str = ""
    running: bool = False
    exited: bool = False
    started_at: float | None = None
    pod_ip: str = ""
    terminating: bool = False


@dataclass(slots=True)
class _State:
    container_id: str = ""
    result: Result = Result.UNKNOWN


@dataclass(eq=False)
class _Worker:
    manager: ProbeManager
    uid: str
    name: str
    kind: str
    spec: ProbeSpec
    stop_event: threading.Event = field(default_factory=threading.Event)
    container_id: str = ""
    on_hold: bool = False
    last: Result = Result.UNKNOWN
    run: int = 0
    thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._loop, daemon=True,
                                       name=f"probe-{self.kind}-{self.uid[:8]}-{self.name}")
        self.thread.start()

    def _loop(self) -> None:
        period = self.spec.period * self.manager.time_scale
        while not self.stop_event.is_set():
            try:
                keep = self._probe_once()
            except Exception:  # a broken probe must not kill the worker silently
                log.exception("probe worker %s/%s/%s failed", self.uid, self.name, self.kind)
                keep = True
            if not keep or self.stop_event.wait(period):
                break

    def _probe_once(self) -> bool:
        m = self.manager
        target = m._target(self.uid, self.name)
        if target is None or not target.container_id:
            return True  # not created yet
        if target.container_id != self.container_id:
            # A new instance: start over from the initial result.
            self.container_id = target.container_id
            self.on_hold = False
            self.last, self.run = Result.UNKNOWN, 0
            m._set(self, _INITIAL[self.kind], notify=False)
        if not target.running:
            if self.kind == READINESS:
                m._set(self, Result.FAILURE)
            policy = (target.pod.get("spec") or {}).get("restartPolicy", "Always")
            return not (target.exited and policy == "Never")
        if self.on_hold:
            return True
        if target.terminating and self.kind in (LIVENESS, STARTUP):
            m._set(self, Result.SUCCESS)
            return True
        started_at = target.started_at or 0.0
        if m.clock() - started_at < self.spec.initial_delay * m.time_scale:
            return True
        started = m.started(self.uid, self.name, self.container_id)
        if self.kind == STARTUP and started:
            return True  # done for this instance
        if self.kind != STARTUP and not started:
            return True  # gated by the startup probe
        result = m._attempt(self, target)
        if result == self.last:
            self.run += 1
        else:
            self.last, self.run = result, 1
        if (result == Result.FAILURE and self.run < self.spec.failure_threshold) or (
                result == Result.SUCCESS and self.run < self.spec.success_threshold):
            return True
        m._set(self, result)
        if self.kind in (LIVENESS, STARTUP) and result == Result.FAILURE:
            # The container will be restarted: stop probing until the next instance.
            self.on_hold = True
            self.run = 0
        return True


class ProbeManager:
    """Runs the probes of one node's pods (see the module contract)."""

    def __init__(self, runtime: ContainerRuntime, recorder: EventRecorder, *,
                 clock: Callable[[], float], time_scale: float = 1.0,
                 on_change: Callable[[str], None] = lambda key: None) -> None:
        self.runtime = runtime
        self.recorder = recorder
        self.clock = clock
        self.time_scale = time_scale
        self.on_change = on_change
        self._lock = threading.Lock()
        self._targets: dict[tuple[str, str], _Target] = {}
        self._workers: dict[tuple[str, str, str], _Worker] = {}
        self._results: dict[tuple[str, str, str], _State] = {}
        self._stopped = False

    # ------------------------------------------------------------------ from the syncer

    def update(self, pod: Mapping[str, Any], pod_ip: str,
               instances: Mapping[str, Sequence[ContainerStatus]]) -> None:
        """Record the current instance of each probed container; start workers."""
        meta = pod.get("metadata") or {}
        uid = str(meta.get("uid", ""))
        terminating = bool(meta.get("deletionTimestamp"))
        new: list[_Worker] = []
        with self._lock:
            if self._stopped:
                return
            for c in (pod.get("spec") or {}).get("containers") or []:
                name = str(c.get("name", ""))
                kinds = [k for k in PROBE_KINDS if isinstance(c.get(_FIELDS[k]), Mapping)]
                if not kinds:
                    continue
                found = instances.get(name) or []
                latest = found[-1] if found else None
                self._targets[(uid, name)] = _Target(
                    pod=pod, container=c,
                    container_id=latest.id if latest is not None else "",
                    running=latest is not None and latest.state == CONTAINER_RUNNING,
                    exited=latest is not None and latest.state == CONTAINER_EXITED,
                    started_at=latest.started_at if latest is not None else None,
                    pod_ip=pod_ip, terminating=terminating)
                for kind in kinds:
                    key = (uid, name, kind)
                    worker = self._workers.get(key)
                    if worker is None:  # one per probe for the pod's life
                        worker = _Worker(self, uid, name, kind,
                                         ProbeSpec.parse(c[_FIELDS[kind]]))
                        self._workers[key] = worker
                        new.append(worker)
        for worker in new:
            worker.start()

    def terminating(self, uid: str) -> None:
        """The pod is being deleted: liveness and startup stop counting."""
        with self._lock:
            for (u, _), target in self._targets.items():
                if u == uid:
                    target.terminating = True

    def remove_pod(self, uid: str) -> None:
        """Stop the pod's workers and forget its results."""
        with self._lock:
            workers = [w for k, w in self._workers.items() if k[0] == uid]
            for k in [k for k in self._workers if k[0] == uid]:
                del self._workers[k]
            for rk in [k for k in self._results if k[0] == uid]:
                del self._results[rk]
            for tk in [k for k in self._targets if k[0] == uid]:
                del self._targets[tk]
        for w in workers:
            w.stop_event.set()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop every worker (joined within ``timeout`` seconds overall)."""
        with self._lock:
            self._stopped = True
            workers = list(self._workers.values())
            self._workers.clear()
        for w in workers:
            w.stop_event.set()
        for w in workers:
            if w.thread is not None:
                w.thread.join(timeout)

    def has_probe(self, uid: str, name: str, kind: str) -> bool:
        with self._lock:
            return (uid, name, kind) in self._workers

    def _result(self, uid: str, name: str, kind: str, container_id: str) -> Result | None:
        """The result for this instance; None when the container has no such probe."""
        with self._lock:
            if (uid, name, kind) not in self._workers:
                return None
            state = self._results.get((uid, name, kind))
            if state is None or state.container_id != container_id:
                return _INITIAL[kind]
            return state.result

    def started(self, uid: str, name: str, container_id: str) -> bool:
        """The startup probe passed for this instance (True without one)."""
        result = self._result(uid, name, STARTUP, container_id)
        return result is None or result == Result.SUCCESS

    def ready(self, uid: str, name: str, container_id: str) -> bool:
        """The readiness probe passed for this instance (True without one)."""
        result = self._result(uid, name, READINESS, container_id)
        return result is None or result == Result.SUCCESS

    def failed(self, uid: str, name: str, container_id: str) -> str | None:
        """``liveness`` or ``startup`` when that probe failed this instance."""
        for kind in (STARTUP, LIVENESS):
            if self._result(uid, name, kind, container_id) == Result.FAILURE:
                return kind
        return None

    # ------------------------------------------------------------------ from workers

    def _target(self, uid: str, name: str) -> _Target | None:
        with self._lock:
            return self._targets.get((uid, name))

    def _set(self, worker: _Worker, result: Result, *, notify: bool = True) -> None:
        key = (worker.uid, worker.name, worker.kind)
        with self._lock:
            if self._workers.get(key) is not worker:
                return  # removed meanwhile
            state = self._results.setdefault(key, _State())
            changed = state.container_id != worker.container_id or state.result != result
            state.container_id, state.result = worker.container_id, result
            target = self._targets.get((worker.uid, worker.name))
        if changed and notify and target is not None:
            meta = target.pod.get("metadata") or {}
            self.on_change(f"{meta.get('namespace', '')}/{meta.get('name', '')}")

    def _attempt(self, worker: _Worker, target: _Target) -> Result:
        title = worker.kind.capitalize()
        timeout = worker.spec.timeout * self.time_scale
        try:
            result, output = run_handler(worker.spec, runtime=self.runtime,
                                         container_id=worker.container_id,
                                         container=target.container, pod_ip=target.pod_ip,
                                         timeout=timeout)
        except (ContainerRuntimeError, ValueError, OSError) as exc:
            self._event(target, worker.name, f"{title} probe errored: {exc}")
            return Result.FAILURE
        if result != Result.SUCCESS:
            self._event(target, worker.name, f"{title} probe failed: {output}")
        return result

    def _event(self, target: _Target, name: str, message: str) -> None:
        self.recorder.record(target.pod, EVENT_WARNING, "Unhealthy", message,
                             field_path=f"spec.containers{{{name}}}")

    def worker_count(self) -> int:
        """Live workers (for tests and diagnostics)."""
        with self._lock:
            return sum(1 for w in self._workers.values()
                       if w.thread is not None and w.thread.is_alive())
