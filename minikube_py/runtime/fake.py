"""FakeRuntime: an in-memory, instant :class:`~.base.ContainerRuntime`.

For unit tests and hollow nodes in scale benchmarks (like Kubernetes'
kubemark). Nothing runs; state changes happen at once, under one lock.

Behaviour tests can rely on:

* **Images** pull instantly; the id is ``sha256:`` + the SHA-256 of the
  reference. A reference in ``missing_images`` fails to pull with
  :class:`~.base.ImageNotFound`; ``preloaded_images`` are present from the
  start (for ``imagePullPolicy: Never``). Creating a container needs its image
  present, as in CRI.
* **Containers**: an init container exits 0 right after it starts, so pods
  progress. An app container runs until stopped, unless its environment sets
  ``FAKE_EXIT_CODE=<n>``: then it exits with ``n`` right after starting
  (reason ``Completed`` for 0, ``Error`` otherwise). Stopping a running
  container is a SIGTERM the fake honours at once: exit code 143, reason
  ``Error`` (what a shell-less process killed by SIGTERM reports). A
  container whose environment sets ``FAKE_IGNORE_SIGTERM=1`` ignores it:
  :meth:`~FakeRuntime.stop_container` then waits (real time) for its
  ``timeout_seconds`` and kills it (exit 137), unless another stop with a
  shorter timeout kills it first -- for grace-period tests.
  :meth:`~FakeRuntime.kill_container` kills a running container behind the
  kubelet's back (an OOM kill, a crash, ``kill -9`` on the host): it exits at
  once with the given code (default 137), reason ``Error`` (or the ``reason``
  given, e.g. ``OOMKilled``), and the same ``container-stopped`` event a
  normal exit emits -- for chaos and soak tests.
* **Exec** (:meth:`~FakeRuntime.exec_sync`, exec probes and hooks): runs
  nothing; exits with ``FAKE_EXEC_EXIT_CODE`` (default 0) from the
  container's environment after ``FAKE_EXEC_DELAY`` seconds (default 0, real
  time); a delay beyond the timeout gives ``timed_out``. The output is
  ``fake exec: <command joined by spaces>``. Tests may override the exit code
  of a container name at any time through :attr:`FakeRuntime.exec_exit_codes`;
  :attr:`FakeRuntime.exec_history` records the latest execs.
* **Stats** are synthetic but plausible: each running container uses
  ``FAKE_CPU_MILLIS`` millicores (default: 5% of its CPU request or limit,
  at least 1m) and ``FAKE_MEMORY_BYTES`` bytes (default: a stable 4-36 MiB,
  capped at 90% of its memory limit); CPU time accumulates from the start.
* **Sandbox configs** are kept as given (``cgroup_parent`` included) and can
  be read back with :meth:`~FakeRuntime.sandbox_config`;
  :meth:`~FakeRuntime.container_config` does the same for containers.
* **Restarts**: :meth:`~FakeRuntime.simulate_restart` ends every event
  stream (as a restarted runtime drops its subscribers) and, with
  ``kill=True``, exits every running container and un-readies every sandbox.
* **Sandboxes** get IPs unique among this instance's sandboxes, counting up
  from ``<network>.0.2`` (default network ``10.88.0.0/16``: 10.88.0.2,
  10.88.0.3, ... 10.88.1.1, ...; ``.0`` and ``.255`` are skipped). A removed
  sandbox frees its IP; at the end of the range the count wraps around to the
  first free address (as CNI's host-local IPAM does), so a node that churns
  through pods never runs out. Only when every address is held by a sandbox
  does :meth:`~FakeRuntime.run_sandbox` fail (:class:`~.base.InvalidState`).
* **Logs**: each start writes a few lines, the first being
  ``<RFC3339> started <image> as <namespace>/<pod>/<container>``; an exit adds
  one more. ``follow`` waits on a condition variable (no polling) and ends when
  the container stops or ``alive()`` turns False.
* **Time** comes from the injected ``clock``.
* **Lookups** by pod (:meth:`~FakeRuntime.list_sandboxes` with the pod-UID
  or pod-name label, :meth:`~FakeRuntime.list_containers` of one sandbox) go
  through small indexes, not over every sandbox or container: a hollow pod's
  periodic resync asks them several times, 100,000 pods about 150 times a
  second. Results come in creation order, as without the index.
* **Events** (:meth:`FakeRuntime.events`) are delivered for every change,
  to every stream and to every listener (:meth:`FakeRuntime.add_listener`).
"""

from __future__ import annotations

import collections
import hashlib
import ipaddress
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ..api.timefmt import format_time
from .base import (
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    EVENT_CONTAINER_CREATED,
    EVENT_CONTAINER_DELETED,
    EVENT_CONTAINER_STARTED,
    EVENT_CONTAINER_STOPPED,
    EVENT_SANDBOX_DELETED,
    EVENT_SANDBOX_READY,
    EVENT_SANDBOX_STOPPED,
    EVENT_STREAM_INTERRUPTED,
    EVENT_STREAM_RESUMED,
    LABEL_NAME,
    LABEL_POD_UID,
    SANDBOX_NOTREADY,
    SANDBOX_READY,
    ContainerConfig,
    ContainerNotFound,
    ContainerStats,
    ContainerStatus,
    ExecResult,
    Image,
    ImageNotFound,
    InvalidState,
    RuntimeEvent,
    Sandbox,
    SandboxConfig,
    SandboxNotFound,
)
from .fake_stream import FakeStream, echo_connection
from .logformat import format_log_lines, rfc3339_nano
from .streaming import ExecOptions

__all__ = ["FAKE_CPU_MILLIS", "FAKE_EXEC_DELAY", "FAKE_EXEC_EXIT_CODE", "FAKE_EXIT_CODE",
           "FAKE_IGNORE_SIGTERM", "FAKE_MEMORY_BYTES", "FakeRuntime", "rfc3339_nano"]

#: Environment variable that makes an app container exit right after start.
FAKE_EXIT_CODE = "FAKE_EXIT_CODE"
#: Environment variables shaping :meth:`FakeRuntime.exec_sync`.
FAKE_EXEC_EXIT_CODE = "FAKE_EXEC_EXIT_CODE"
FAKE_EXEC_DELAY = "FAKE_EXEC_DELAY"
#: ``1``: the container ignores SIGTERM (stop waits for its timeout, then kills).
FAKE_IGNORE_SIGTERM = "FAKE_IGNORE_SIGTERM"
#: Environment variables fixing :meth:`FakeRuntime.stats` for a container.
FAKE_CPU_MILLIS = "FAKE_CPU_MILLIS"
FAKE_MEMORY_BYTES = "FAKE_MEMORY_BYTES"
_SIGTERM_EXIT = 143
_SIGKILL_EXIT = 137
_MIB = 1024 * 1024
#: How often a following log reader re-checks ``alive()`` while idle.
_ALIVE_CHECK_SECONDS = 0.5


def _env(cfg: ContainerConfig, name: str) -> str | None:
    """The value of ``name`` in the container's environment (the last definition wins)."""
    for key, value in reversed(cfg.env):
        if key == name:
            return value
    return None


def _env_number(cfg: ContainerConfig, name: str, default: float) -> float:
    raw = _env(cfg, name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        return default


_T = TypeVar("_T")

#: Equal config parts (a container's env and mounts) of every fake runtime in
#: the process, kept once: each pod of a Deployment gets the same service-link
#: variables, about 1.4 KB a container, and a daemon with hollow nodes holds
#: 100,000 of them. Bounded: when full it starts over.
_PARTS: dict[Any, Any] = {}
_PARTS_LIMIT = 4096


def _shared(value: _T) -> _T:
    """``value`` or an equal one seen before (``value`` must be immutable)."""
    found = _PARTS.get(value)
    if found is None:
        if len(_PARTS) >= _PARTS_LIMIT:
            _PARTS.clear()
        _PARTS[value] = found = value
    return found


def _index_add(index: dict[str, tuple[str, ...]], key: str | None, item: str) -> None:
    """File ``item`` under ``key`` (after the items already there); no key, no entry."""
    if key is not None:
        index[key] = (*index.get(key, ()), item)


def _index_remove(index: dict[str, tuple[str, ...]], key: str | None, item: str) -> None:
    if key is None:
        return
    rest = tuple(i for i in index.get(key, ()) if i != item)
    if rest:
        index[key] = rest
    else:
        index.pop(key, None)


def _image_id(image: str) -> str:
    return "sha256:" + hashlib.sha256(image.encode()).hexdigest()


@dataclass
class _Sandbox:
    sandbox: Sandbox
    config: SandboxConfig


@dataclass
class _Container:
    status: ContainerStatus
    config: ContainerConfig
    logs: list[tuple[float, bytes]] = field(default_factory=list)
    #: (cpu millicores, memory bytes) :meth:`FakeRuntime.stats` reports, worked
    #: out once from the config: stats run at every heartbeat of every node.
    usage: tuple[float, int] | None = None

    def fake_usage(self) -> tuple[float, int]:
        if self.usage is None:
            cfg = self.config
            base = cfg.cpu_millis_request or cfg.cpu_millis_limit or 100
            millis = _env_number(cfg, FAKE_CPU_MILLIS, max(1.0, base * 0.05))
            digest = hashlib.sha256(self.status.id.encode()).digest()
            memory = int(_env_number(cfg, FAKE_MEMORY_BYTES, (4 + digest[0] % 33) * _MIB))
            if cfg.memory_limit_bytes and _env(cfg, FAKE_MEMORY_BYTES) is None:
                memory = min(memory, int(cfg.memory_limit_bytes * 0.9))
            self.usage = (millis, memory)
        return self.usage


class _EventStream:
    """One subscriber's queue of :class:`RuntimeEvent`."""

    def __init__(self, owner: FakeRuntime) -> None:
        self._owner = owner
        self._cond = threading.Condition()
        self._events: collections.deque[RuntimeEvent] = collections.deque()
        self._stopped = False

    def push(self, event: RuntimeEvent) -> None:
        with self._cond:
            self._events.append(event)
            self._cond.notify_all()

    def next(self, timeout: float | None = None) -> RuntimeEvent | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._events and not self._stopped:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            if self._stopped:
                return None
            return self._events.popleft()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._owner._unsubscribe(self)


class FakeRuntime:
    """See the module docstring."""

    name = "fake"
    version = "0.1.0"

    def __init__(self, *, clock: Callable[[], float] = time.time,
                 missing_images: Iterable[str] = (), preloaded_images: Iterable[str] = (),
                 network: str = "10.88.0.0/16") -> None:
        self._clock = clock
        self.missing_images = set(missing_images)
        self._cond = threading.Condition()
        self._images: dict[str, Image] = {}
        self._sandboxes: dict[str, _Sandbox] = {}
        self._containers: dict[str, _Container] = {}
        # Sandbox ids by their pod-UID and pod-name labels, container ids by
        # sandbox, each in creation order (tuples: a pod has one or two).
        self._by_uid: dict[str, tuple[str, ...]] = {}
        self._by_name: dict[str, tuple[str, ...]] = {}
        self._by_sandbox: dict[str, tuple[str, ...]] = {}
        self._ids = itertools.count(1)
        self._network = ipaddress.IPv4Network(network)
        self._next_host = 2  # .0 is the network, .1 the gateway (as podman's bridge)
        #: Host offsets (in the network) held by a sandbox not yet removed.
        self._hosts_in_use: set[int] = set()
        self._subscribers: list[_EventStream] = []
        self._listeners: list[Callable[[RuntimeEvent], None]] = []
        #: Container name -> exit code of :meth:`exec_sync`, overriding the
        #: container's ``FAKE_EXEC_EXIT_CODE`` (tests flip probes with it).
        self.exec_exit_codes: dict[str, int] = {}
        #: The latest execs, oldest first: (container id, container name, command).
        self.exec_history: collections.deque[tuple[str, str, tuple[str, ...]]] = \
            collections.deque(maxlen=1000)
        for image in preloaded_images:
            self._images[image] = self._make_image(image)

    # ------------------------------------------------------------------ helpers

    def _new_id(self) -> str:
        return hashlib.sha256(f"{id(self)}/{next(self._ids)}".encode()).hexdigest()

    @staticmethod
    def _make_image(image: str) -> Image:
        digest = hashlib.sha256(image.encode()).digest()
        # A stable, plausible size between 1 MiB and ~65 MiB.
        size = (1 + int.from_bytes(digest[:2], "big") // 1024) * 1024 * 1024
        return Image(_image_id(image), (image,), size)

    def _emit(self, type_: str, sandbox_id: str, container_id: str,
              labels: Mapping[str, str]) -> None:
        event = RuntimeEvent(type_, sandbox_id, container_id, dict(labels), self._clock())
        for stream in list(self._subscribers):
            stream.push(event)
        for listener in self._listeners:
            listener(event)

    def _unsubscribe(self, stream: _EventStream) -> None:
        with self._cond:
            if stream in self._subscribers:
                self._subscribers.remove(stream)

    def _container(self, container_id: str) -> _Container:
        try:
            return self._containers[container_id]
        except KeyError:
            raise ContainerNotFound(container_id) from None

    def _log(self, c: _Container, text: str) -> None:
        now = self._clock()
        c.logs.append((now, f"{format_time(now)} {text}\n".encode()))

    def _exit(self, c: _Container, code: int, why: str, reason: str | None = None) -> None:
        now = self._clock()
        if reason is None:
            reason = "Completed" if code == 0 else "Error"
        self._log(c, f"{why}; exiting with code {code}")
        c.status = replace(c.status, state=CONTAINER_EXITED, exit_code=code, reason=reason,
                           finished_at=now)
        self._emit(EVENT_CONTAINER_STOPPED, c.status.sandbox_id, c.status.id, c.status.labels)

    # ------------------------------------------------------------------ sandboxes

    def run_sandbox(self, config: SandboxConfig) -> Sandbox:
        with self._cond:
            host = self._allocate_host_locked()
            ip = str(self._network.network_address + host)
            labels = dict(config.labels)  # one copy for the sandbox and its config
            config = replace(config, labels=labels)
            sandbox = Sandbox(self._new_id(), ip, SANDBOX_READY, labels, self._clock())
            self._sandboxes[sandbox.id] = _Sandbox(sandbox, config)
            _index_add(self._by_uid, labels.get(LABEL_POD_UID), sandbox.id)
            _index_add(self._by_name, labels.get(LABEL_NAME), sandbox.id)
            self._emit(EVENT_SANDBOX_READY, sandbox.id, "", sandbox.labels)
            self._cond.notify_all()
            return sandbox

    def _allocate_host_locked(self) -> int:
        """The next free host offset from ``_next_host`` on, wrapping around once."""
        last = self._network.num_addresses - 2  # the broadcast address is never handed out
        host = self._next_host
        for _ in range(self._network.num_addresses):
            if host > last:
                host = 2
            # Skip .0 and .255 so every address looks ordinary.
            if (host & 0xFF) not in (0, 0xFF) and host not in self._hosts_in_use:
                self._next_host = host + 1
                self._hosts_in_use.add(host)
                return host
            host += 1
        raise InvalidState(f"no free pod IP left in {self._network}")

    def stop_sandbox(self, sandbox_id: str, timeout: float = 0) -> None:
        with self._cond:
            entry = self._sandboxes.get(sandbox_id)
            if entry is None:
                return
            running = [c for c in self._sandbox_containers(sandbox_id)
                       if c.status.state == CONTAINER_RUNNING]
            self._terminate_locked(running, timeout)
            if entry.sandbox.state != SANDBOX_NOTREADY:
                entry.sandbox = replace(entry.sandbox, state=SANDBOX_NOTREADY)
                self._emit(EVENT_SANDBOX_STOPPED, sandbox_id, "", entry.sandbox.labels)
            self._cond.notify_all()

    def remove_sandbox(self, sandbox_id: str) -> None:
        with self._cond:
            entry = self._sandboxes.pop(sandbox_id, None)
            if entry is None:
                return
            self._hosts_in_use.discard(int(ipaddress.IPv4Address(entry.sandbox.ip))
                                       - int(self._network.network_address))
            for cid in self._by_sandbox.get(sandbox_id, ()):
                self._remove_locked(cid)
            labels = entry.sandbox.labels
            _index_remove(self._by_uid, labels.get(LABEL_POD_UID), sandbox_id)
            _index_remove(self._by_name, labels.get(LABEL_NAME), sandbox_id)
            self._emit(EVENT_SANDBOX_DELETED, sandbox_id, "", entry.sandbox.labels)
            self._cond.notify_all()

    def list_sandboxes(self, labels: Mapping[str, str] | None = None) -> list[Sandbox]:
        wanted = dict(labels or {})
        with self._cond:
            entries: Iterable[_Sandbox]
            if LABEL_POD_UID in wanted:
                entries = self._indexed(self._by_uid, wanted[LABEL_POD_UID])
            elif LABEL_NAME in wanted:
                entries = self._indexed(self._by_name, wanted[LABEL_NAME])
            else:
                entries = self._sandboxes.values()
            return [e.sandbox for e in entries
                    if all(e.sandbox.labels.get(k) == v for k, v in wanted.items())]

    def _indexed(self, index: dict[str, tuple[str, ...]], value: str) -> list[_Sandbox]:
        sandboxes = self._sandboxes
        return [sandboxes[i] for i in index.get(value, ())]

    def _sandbox_containers(self, sandbox_id: str) -> list[_Container]:
        containers = self._containers
        return [containers[i] for i in self._by_sandbox.get(sandbox_id, ())]

    # ------------------------------------------------------------------ images

    def pull_image(self, image: str) -> str:
        with self._cond:
            if image in self.missing_images:
                raise ImageNotFound(image, "manifest unknown (FakeRuntime.missing_images)")
            found = self._images.get(image)
            if found is None:
                found = self._images[image] = self._make_image(image)
            return found.id

    def image_status(self, image: str) -> Image | None:
        with self._cond:
            return self._images.get(image)

    def list_images(self) -> list[Image]:
        with self._cond:
            return list(self._images.values())

    # ------------------------------------------------------------------ containers

    def create_container(self, sandbox_id: str, config: ContainerConfig) -> str:
        with self._cond:
            entry = self._sandboxes.get(sandbox_id)
            if entry is None:
                raise SandboxNotFound(sandbox_id)
            if entry.sandbox.state != SANDBOX_READY:
                raise InvalidState(f'pod sandbox "{sandbox_id}" is not ready')
            image = self._images.get(config.image)
            if image is None:
                raise ImageNotFound(config.image, "not present locally; pull it first")
            labels = dict(config.labels)  # one copy for the status and the config
            config = replace(config, labels=labels, env=_shared(config.env),
                             mounts=_shared(config.mounts))
            status = ContainerStatus(
                id=self._new_id(), sandbox_id=sandbox_id, name=config.name,
                image=config.image, image_id=image.id, state=CONTAINER_CREATED,
                created_at=self._clock(), labels=labels)
            self._containers[status.id] = _Container(status, config)
            _index_add(self._by_sandbox, sandbox_id, status.id)
            self._emit(EVENT_CONTAINER_CREATED, sandbox_id, status.id, status.labels)
            return status.id

    def start_container(self, container_id: str) -> None:
        with self._cond:
            c = self._container(container_id)
            if c.status.state != CONTAINER_CREATED:
                raise InvalidState(f'container "{container_id}" is {c.status.state}, '
                                   "not created: it cannot be started")
            sb = self._sandboxes[c.status.sandbox_id].config
            c.status = replace(c.status, state=CONTAINER_RUNNING, started_at=self._clock())
            cfg = c.config
            self._log(c, f"started {cfg.image} as {sb.namespace}/{sb.name}/{cfg.name}")
            argv = " ".join((*cfg.command, *cfg.args)) or "<image entrypoint>"
            self._log(c, f"running {argv}")
            self._emit(EVENT_CONTAINER_STARTED, c.status.sandbox_id, c.status.id,
                       c.status.labels)
            exit_code = self._planned_exit(cfg)
            if exit_code is not None:
                self._exit(c, exit_code, "done" if exit_code == 0 else "failed")
            else:
                self._log(c, "ready")
            self._cond.notify_all()

    @staticmethod
    def _planned_exit(cfg: ContainerConfig) -> int | None:
        for name, value in reversed(cfg.env):  # the last definition wins, as in a shell
            if name == FAKE_EXIT_CODE:
                try:
                    return int(value)
                except ValueError:
                    return 1
        return 0 if cfg.init else None

    def _terminate_locked(self, containers: list[_Container], timeout: float) -> None:
        """SIGTERM the running ``containers``; those ignoring it are killed after
        ``timeout`` seconds (real time: the lock is released while waiting)."""
        stubborn: list[_Container] = []
        for c in containers:
            if c.status.state != CONTAINER_RUNNING:
                continue
            if _env(c.config, FAKE_IGNORE_SIGTERM) == "1":
                self._log(c, "received SIGTERM; ignoring it")
                stubborn.append(c)
            else:
                self._exit(c, _SIGTERM_EXIT, "received SIGTERM")
        deadline = time.monotonic() + max(0.0, timeout)
        while any(c.status.state == CONTAINER_RUNNING and c.status.id in self._containers
                  for c in stubborn):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._cond.wait(remaining)
        for c in stubborn:
            if c.status.state == CONTAINER_RUNNING and c.status.id in self._containers:
                self._exit(c, _SIGKILL_EXIT, "killed by SIGKILL")

    def stop_container(self, container_id: str, timeout_seconds: float = 0) -> None:
        with self._cond:
            c = self._containers.get(container_id)
            if c is None or c.status.state == CONTAINER_EXITED:
                return
            if c.status.state == CONTAINER_RUNNING:
                self._terminate_locked([c], timeout_seconds)
            else:  # created, never started: nothing ran
                c.status = replace(c.status, state=CONTAINER_EXITED, exit_code=0,
                                   reason="Completed", finished_at=self._clock())
                self._emit(EVENT_CONTAINER_STOPPED, c.status.sandbox_id, c.status.id,
                           c.status.labels)
            self._cond.notify_all()

    def kill_container(self, container_id: str, exit_code: int = _SIGKILL_EXIT, *,
                       reason: str | None = None) -> None:
        """Kill a running container behind the kubelet's back (see the module docstring).

        It exits at once with ``exit_code``; its reason is ``reason`` when given
        (``OOMKilled``), else ``Error`` (``Completed`` for exit code 0). Emits
        ``container-stopped`` as any exit does. Raises :class:`ContainerNotFound`
        for an unknown id and :class:`InvalidState` when it is not running (it
        exited, or never started), so a caller racing the kubelet knows the kill
        did nothing.
        """
        with self._cond:
            c = self._container(container_id)
            if c.status.state != CONTAINER_RUNNING:
                raise InvalidState(f'container "{container_id}" is {c.status.state}, '
                                   "not running: it cannot be killed")
            why = "killed (OOM)" if reason == "OOMKilled" else "killed"
            self._exit(c, exit_code, why, reason)
            # A stop waiting out a grace period for this container wakes up now.
            self._cond.notify_all()

    def _remove_locked(self, container_id: str) -> None:
        c = self._containers.pop(container_id, None)
        if c is not None:
            _index_remove(self._by_sandbox, c.status.sandbox_id, container_id)
            self._emit(EVENT_CONTAINER_DELETED, c.status.sandbox_id, container_id,
                       c.status.labels)

    def remove_container(self, container_id: str) -> None:
        with self._cond:
            self._remove_locked(container_id)
            self._cond.notify_all()

    def list_containers(self, sandbox_id: str | None = None) -> list[ContainerStatus]:
        with self._cond:
            if sandbox_id is None:
                return [c.status for c in self._containers.values()]
            return [c.status for c in self._sandbox_containers(sandbox_id)]

    # ------------------------------------------------------------------ logs

    def container_logs(self, container_id: str, *, follow: bool = False,
                       tail_lines: int | None = None, timestamps: bool = False,
                       since_seconds: float | None = None, limit_bytes: int | None = None,
                       alive: Callable[[], bool] | None = None) -> Iterator[bytes]:
        with self._cond:
            c = self._container(container_id)
            lines = list(c.logs)
        offset = len(lines)
        since = None if since_seconds is None else self._clock() - since_seconds
        if since is not None:
            lines = [(ts, line) for ts, line in lines if ts >= since]
        if tail_lines is not None:
            lines = lines[-tail_lines:] if tail_lines > 0 else []
        source = self._stream(c, lines, offset=offset, follow=follow, alive=alive)
        return format_log_lines(source, timestamps=timestamps, limit_bytes=limit_bytes)

    def _stream(self, c: _Container, lines: list[tuple[float, bytes]], *, offset: int,
                follow: bool, alive: Callable[[], bool] | None
                ) -> Iterator[tuple[float, bytes]]:
        """``lines`` (already filtered), then, with ``follow``, every line
        written from index ``offset`` on until the container stops."""
        yield from lines
        if not follow:
            return

        def stopped() -> bool:
            return (c.status.state == CONTAINER_EXITED or c.status.id not in self._containers
                    or (alive is not None and not alive()))

        while True:
            with self._cond:
                while len(c.logs) <= offset and not stopped():
                    # alive() cannot notify us, so wake now and then to ask it.
                    self._cond.wait(_ALIVE_CHECK_SECONDS if alive is not None else None)
                fresh = c.logs[offset:]
                offset = len(c.logs)
                done = stopped()
            yield from fresh
            if done:
                return

    # ------------------------------------------------------------------ exec + stats

    def exec_sync(self, container_id: str, command: Sequence[str], *,
                  timeout: float) -> ExecResult:
        with self._cond:
            c = self._container(container_id)
            if c.status.state != CONTAINER_RUNNING:
                raise InvalidState(f'container "{container_id}" is {c.status.state}, '
                                   "not running: cannot exec in it")
            self.exec_history.append((container_id, c.config.name, tuple(command)))
            delay = _env_number(c.config, FAKE_EXEC_DELAY, 0.0)
            output = f"fake exec: {' '.join(command)}".encode()
            if delay > 0:
                # Wait in real time with the lock released, so the runtime stays usable.
                deadline = time.monotonic() + min(delay, max(0.0, timeout))
                while (remaining := deadline - time.monotonic()) > 0:
                    self._cond.wait(remaining)
                if delay > timeout:
                    return ExecResult(exit_code=-1, output=b"", timed_out=True)
            override = self.exec_exit_codes.get(c.config.name)
            code = override if override is not None else \
                int(_env_number(c.config, FAKE_EXEC_EXIT_CODE, 0))
            return ExecResult(exit_code=code, output=output)

    def _running_container(self, container_id: str, verb: str) -> _Container:
        c = self._container(container_id)
        if c.status.state != CONTAINER_RUNNING:
            raise InvalidState(f'container "{container_id}" is {c.status.state}, '
                               f"not running: cannot {verb} it")
        return c

    def exec_stream(self, container_id: str, command: Sequence[str],
                    options: ExecOptions) -> FakeStream:
        """A ``cat``-like session (see :mod:`.fake_stream`)."""
        with self._cond:
            c = self._running_container(container_id, "exec in")
            self.exec_history.append((container_id, c.config.name, tuple(command)))
            override = self.exec_exit_codes.get(c.config.name)
            code = override if override is not None else \
                int(_env_number(c.config, FAKE_EXEC_EXIT_CODE, 0))
        return FakeStream(f"fake exec: {' '.join(command)}\n".encode(), tty=options.tty,
                          stdin=options.stdin, exit_code=code)

    def attach(self, container_id: str, options: ExecOptions) -> FakeStream:
        with self._cond:
            c = self._running_container(container_id, "attach to")
        return FakeStream(f"fake attach: {c.config.name}\n".encode(), tty=options.tty,
                          stdin=options.stdin, exit_code=None)

    def port_forward(self, sandbox_id: str, port: int) -> socket.socket:
        """An echo connection for a port a container of the sandbox declares."""
        with self._cond:
            if sandbox_id not in self._sandboxes:
                raise SandboxNotFound(sandbox_id)
            declared = {p.container_port for c in self._containers.values()
                        if c.status.sandbox_id == sandbox_id for p in c.config.ports}
        return echo_connection(port, declared)

    def stats(self) -> list[ContainerStats]:
        now = self._clock()
        out: list[ContainerStats] = []
        with self._cond:
            for c in self._containers.values():
                if c.status.state != CONTAINER_RUNNING:
                    continue
                millis, memory = c.fake_usage()
                ran = max(0.0, now - (c.status.started_at or now))
                out.append(ContainerStats(container_id=c.status.id,
                                          cpu_nanos=int(millis * 1e6 * ran),
                                          memory_bytes=memory, at=now))
        return out

    # ------------------------------------------------------------------ test helpers

    def sandbox_config(self, sandbox_id: str) -> SandboxConfig:
        """The config a sandbox was created from (raises :class:`SandboxNotFound`)."""
        with self._cond:
            entry = self._sandboxes.get(sandbox_id)
            if entry is None:
                raise SandboxNotFound(sandbox_id)
            return entry.config

    def container_config(self, container_id: str) -> ContainerConfig:
        """The config a container was created from (raises :class:`ContainerNotFound`)."""
        with self._cond:
            return self._container(container_id).config

    def simulate_restart(self, *, kill: bool = False) -> None:
        """Behave as a restarted runtime: every event stream ends; with ``kill``
        every running container exits (SIGKILL) and every sandbox is notready."""
        with self._cond:
            streams = list(self._subscribers)
            if kill:
                for c in self._containers.values():
                    if c.status.state == CONTAINER_RUNNING:
                        self._exit(c, _SIGKILL_EXIT, "killed: runtime restarted")
                for entry in self._sandboxes.values():
                    if entry.sandbox.state != SANDBOX_NOTREADY:
                        entry.sandbox = replace(entry.sandbox, state=SANDBOX_NOTREADY)
            self._cond.notify_all()
        for stream in streams:
            stream.stop()

    # ------------------------------------------------------------------ events

    def events(self) -> _EventStream:
        stream = _EventStream(self)
        with self._cond:
            self._subscribers.append(stream)
        return stream

    def add_listener(self, listener: Callable[[RuntimeEvent], None]) -> None:
        """Call ``listener`` with every event, as the change happens (under the
        runtime's lock: it must only hand the event on, never call back). A
        pool of hollow kubelets listens this way instead of a thread per stream."""
        with self._cond:
            self._listeners.append(listener)

    def interrupt_events(self, *, resume: bool = False) -> None:
        """Tell every subscriber its stream lost (or, ``resume``, regained) the
        runtime, as a reconnecting real stream does; events keep flowing."""
        type_ = EVENT_STREAM_RESUMED if resume else EVENT_STREAM_INTERRUPTED
        with self._cond:
            streams = list(self._subscribers)
        for stream in streams:
            stream.push(RuntimeEvent(type_, "", "", {}, self._clock()))
