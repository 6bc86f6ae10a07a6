"""The container runtime seam: a CRI-shaped protocol the kubelet drives.

The kubelet owns every piece of pod logic (ordering of init containers,
restart policy, image pull policy, status, events); a runtime is a dumb
executor of small, idempotent verbs, exactly like Kubernetes' CRI
(``RunPodSandbox``, ``CreateContainer``, ``StartContainer``, ...). Two
implementations honour it: :class:`~.fake.FakeRuntime` (in memory, for tests
and hollow nodes) and the Podman runtime (real containers).

Contract every implementation keeps:

* **Thread safety.** Every method may be called from any thread.
* **Idempotent teardown.** ``stop_*`` and ``remove_*`` of something already
  stopped or gone succeed silently (as CRI requires), so a kubelet that crashed
  half-way through a teardown can simply run it again.
* **Failures are** :class:`ContainerRuntimeError` **subclasses** with a message
  a user can act on: :class:`ImageNotFound` (pull failed, or an image that is
  not present was needed), :class:`SandboxNotFound`, :class:`ContainerNotFound`,
  :class:`InvalidState` (e.g. starting a container twice).
* **Labels are opaque.** The runtime stores the labels it is given on
  sandboxes and containers and returns them unchanged; the kubelet uses them
  (see the ``LABEL_*`` constants) to find a pod's sandbox and containers again
  after a restart. A runtime never interprets them.
* **Containers are never restarted by the runtime.** A restart is a new
  container (a new id) created by the kubelet; the previous instance stays,
  exited, until the kubelet removes it, so its logs remain readable
  (``kubectl logs --previous``).
* **Times** are seconds since the epoch (floats), from the runtime's clock.
* :meth:`ContainerRuntime.events` streams lifecycle changes (CRI's
  ``GetContainerEvents``, Kubernetes' "evented PLEG"), so the kubelet learns
  of a container exit at once instead of polling the runtime.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .streaming import ExecOptions, StreamSession

__all__ = [
    "CONTAINER_CREATED",
    "CONTAINER_EXITED",
    "CONTAINER_RUNNING",
    "CONTAINER_UNKNOWN",
    "EVENT_CONTAINER_CREATED",
    "EVENT_CONTAINER_DELETED",
    "EVENT_CONTAINER_STARTED",
    "EVENT_CONTAINER_STOPPED",
    "EVENT_SANDBOX_DELETED",
    "EVENT_SANDBOX_READY",
    "EVENT_SANDBOX_STOPPED",
    "EVENT_STREAM_INTERRUPTED",
    "EVENT_STREAM_RESUMED",
    "LABEL_CONTAINER_NAME",
    "LABEL_NAME",
    "LABEL_NAMESPACE",
    "LABEL_CLUSTER",
    "LABEL_NODE",
    "LABEL_POD_UID",
    "LABEL_RESTART_COUNT",
    "SANDBOX_NOTREADY",
    "SANDBOX_READY",
    "ContainerConfig",
    "ContainerNotFound",
    "ContainerRuntime",
    "ContainerRuntimeError",
    "ContainerStatus",
    "DNSConfig",
    "Image",
    "ImageNotFound",
    "InvalidState",
    "Mount",
    "PROPAGATION_BIDIRECTIONAL",
    "PROPAGATION_HOST_TO_CONTAINER",
    "PROPAGATION_PRIVATE",
    "PortMapping",
    "RuntimeEvent",
    "RuntimeEventStream",
    "Sandbox",
    "SandboxConfig",
    "SandboxNotFound",
    "SecurityConfig",
]

# ------------------------------------------------------------------ labels

#: Labels the kubelet puts on sandboxes (and, with the container ones, on
#: containers). Defined here so every runtime and tool agrees on the names.
LABEL_POD_UID = "minikube-py.io/pod-uid"
LABEL_NAMESPACE = "minikube-py.io/namespace"
LABEL_NAME = "minikube-py.io/name"
LABEL_NODE = "minikube-py.io/node"
#: Which control plane (state directory) made it: two minikube-py daemons on one
#: host share Podman's storage and must never adopt or remove each other's pods.
LABEL_CLUSTER = "minikube-py.io/cluster"
LABEL_CONTAINER_NAME = "minikube-py.io/container-name"
#: The container's attempt number, which is the pod's ``restartCount`` for it.
LABEL_RESTART_COUNT = "minikube-py.io/restart-count"

# ------------------------------------------------------------------ states

SANDBOX_READY = "ready"
SANDBOX_NOTREADY = "notready"

CONTAINER_CREATED = "created"
CONTAINER_RUNNING = "running"
CONTAINER_EXITED = "exited"
CONTAINER_UNKNOWN = "unknown"

EVENT_CONTAINER_CREATED = "container-created"
EVENT_CONTAINER_STARTED = "container-started"
EVENT_CONTAINER_STOPPED = "container-stopped"
EVENT_CONTAINER_DELETED = "container-deleted"
EVENT_SANDBOX_READY = "sandbox-ready"
EVENT_SANDBOX_STOPPED = "sandbox-stopped"
EVENT_SANDBOX_DELETED = "sandbox-deleted"
#: Markers about the subscription itself, not about any object (empty ids and
#: labels): the stream lost its connection to the runtime and is reconnecting
#: (events may be late until it is back), and it is connected again. A stream
#: that reconnects by itself sends one ``interrupted`` per gap, then ``resumed``.
EVENT_STREAM_INTERRUPTED = "stream-interrupted"
EVENT_STREAM_RESUMED = "stream-resumed"


# ------------------------------------------------------------------ errors


class ContainerRuntimeError(RuntimeError):
    """Base of every runtime failure; the message is meant for the user."""


class RuntimeClosing(ContainerRuntimeError):
    """An operation was abandoned because the runtime is shutting down; the
    next start finds the container as it is and carries on."""


class ImageNotFound(ContainerRuntimeError):
    """The image could not be pulled, or it is needed and not present."""

    def __init__(self, image: str, detail: str = "") -> None:
        self.image = image
        super().__init__(f'image "{image}" not found' + (f": {detail}" if detail else ""))


class SandboxNotFound(ContainerRuntimeError):
    def __init__(self, sandbox_id: str) -> None:
        self.sandbox_id = sandbox_id
        super().__init__(f'pod sandbox "{sandbox_id}" not found')


class ContainerNotFound(ContainerRuntimeError):
    def __init__(self, container_id: str) -> None:
        self.container_id = container_id
        super().__init__(f'container "{container_id}" not found')


class InvalidState(ContainerRuntimeError):
    """The verb does not apply in the current state (start a running container,
    create a container in a stopped sandbox, ...)."""


# ------------------------------------------------------------------ values


@dataclass(frozen=True, slots=True)
class PortMapping:
    """One published port (``containerPort``/``hostPort`` of a pod spec)."""

    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(frozen=True, slots=True)
class DNSConfig:
    """The pod's resolv.conf, as the kubelet works it out from ``dnsPolicy``
    and ``dnsConfig`` (CRI's ``DNSConfig``). Empty ``searches`` means none."""

    servers: tuple[str, ...] = ()
    searches: tuple[str, ...] = ()
    options: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """What a pod sandbox (network namespace + infra) is made from."""

    uid: str
    namespace: str
    name: str
    node: str
    labels: Mapping[str, str] = field(default_factory=dict)
    hostname: str = ""
    port_mappings: tuple[PortMapping, ...] = ()
    #: The node's cgroup (e.g. ``/minikube-py/<cluster>/node-1``) the pod's cgroups go under,
    #: so the kernel enforces the virtual node's size; empty: the runtime's default.
    cgroup_parent: str = ""
    #: The pod's resolv.conf; ``None``: the runtime's default (the host's resolvers).
    dns: DNSConfig | None = None


@dataclass(frozen=True, slots=True)
class Sandbox:
    """A sandbox as the runtime sees it; ``state`` is ``ready`` or ``notready``."""

    id: str
    ip: str
    state: str
    labels: Mapping[str, str]
    created_at: float


#: Mount propagation (CRI's ``MountPropagation``): ``private`` sees no mount
#: made on either side after the bind (Kubernetes' ``None``); ``rslave`` sees
#: the host's later mounts below the path (``HostToContainer``); ``rshared``
#: also shows the container's own to the host (``Bidirectional``).
PROPAGATION_PRIVATE = "private"
PROPAGATION_HOST_TO_CONTAINER = "rslave"
PROPAGATION_BIDIRECTIONAL = "rshared"


@dataclass(frozen=True, slots=True)
class Mount:
    """A host path bind-mounted into a container (volumes resolve to these);
    ``propagation`` is one of the ``PROPAGATION_*`` values."""

    host_path: str
    container_path: str
    read_only: bool = False
    propagation: str = PROPAGATION_PRIVATE


@dataclass(frozen=True, slots=True)
class SecurityConfig:
    """The subset of a container's securityContext a runtime applies."""

    run_as_user: int | None = None
    run_as_group: int | None = None
    read_only_root_fs: bool = False
    cap_add: tuple[str, ...] = ()
    cap_drop: tuple[str, ...] = ()
    privileged: bool = False


@dataclass(frozen=True, slots=True)
class ContainerConfig:
    """One container to create in a sandbox.

    ``command``/``args`` follow Kubernetes: an empty ``command`` keeps the
    image's entrypoint, an empty ``args`` its cmd. ``env`` is ordered
    (name, value) pairs, already expanded by the kubelet. Resources are plain
    numbers (0 = unset). ``init`` marks an init container (runtimes may log it
    differently; semantics are the kubelet's).
    """

    name: str
    image: str
    command: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    working_dir: str = ""
    ports: tuple[PortMapping, ...] = ()
    cpu_millis_request: int = 0
    cpu_millis_limit: int = 0
    memory_limit_bytes: int = 0
    mounts: tuple[Mount, ...] = ()
    security: SecurityConfig = field(default_factory=SecurityConfig)
    labels: Mapping[str, str] = field(default_factory=dict)
    init: bool = False
    #: Keep stdin open for ``attach`` (``stdin``), close it after the first
    #: attach ends (``stdinOnce``), give the process a terminal (``tty``).
    stdin: bool = False
    stdin_once: bool = False
    tty: bool = False
    #: Join the process namespace of this (running) container of the same
    #: sandbox: an ephemeral container targeting it sees its processes.
    pid_namespace_of: str = ""


@dataclass(frozen=True, slots=True)
class ContainerStatus:
    """A container as the runtime sees it.

    ``state`` is ``created``, ``running``, ``exited`` or ``unknown``.
    ``exit_code`` and ``reason`` are set once exited; ``reason`` uses
    Kubernetes' words: ``Completed`` (exit 0), ``Error``, ``OOMKilled``,
    ``ContainerCannotRun``.
    """

    id: str
    sandbox_id: str
    name: str
    image: str
    image_id: str
    state: str
    exit_code: int | None = None
    reason: str = ""
    message: str = ""
    created_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ExecResult:
    """The outcome of :meth:`ContainerRuntime.exec_sync` (exec probes)."""

    exit_code: int
    output: bytes
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class ContainerStats:
    """Real usage of one running container (for node status and the dashboard)."""

    container_id: str
    cpu_nanos: int          # cumulative CPU time used
    memory_bytes: int       # current working set
    at: float               # when it was read


@dataclass(frozen=True, slots=True)
class Image:
    """A local image: its id (``sha256:...``), the references naming it, its size."""

    id: str
    names: tuple[str, ...]
    size_bytes: int


@dataclass(frozen=True, slots=True)
class RuntimeEvent:
    """A lifecycle change (``EVENT_*``). ``container_id`` is empty for sandbox
    events; ``labels`` are the container's (or sandbox's) labels, so a
    consumer can tell which pod it concerns without another call."""

    type: str
    sandbox_id: str
    container_id: str
    labels: Mapping[str, str]
    at: float


class RuntimeEventStream(Protocol):
    """An open event subscription; events after it was opened, in order."""

    def next(self, timeout: float | None = None) -> RuntimeEvent | None:
        """The next event; ``None`` on timeout or once stopped."""
        ...

    def stop(self) -> None:
        """End the stream; a blocked :meth:`next` returns ``None`` promptly."""
        ...


# ------------------------------------------------------------------ protocol


class ContainerRuntime(Protocol):
    """CRI-shaped verbs (see the module contract)."""

    @property
    def name(self) -> str:
        """Short runtime name, used in ``<name>://<id>`` container ids."""
        ...

    @property
    def version(self) -> str: ...

    # sandboxes
    def run_sandbox(self, config: SandboxConfig) -> Sandbox: ...

    def stop_sandbox(self, sandbox_id: str, timeout: float = 0) -> None:
        """Stop every container of the sandbox (SIGTERM, SIGKILL after
        ``timeout`` seconds) and its network; it stays listed, ``notready``."""
        ...

    def remove_sandbox(self, sandbox_id: str) -> None:
        """Remove the sandbox and all its containers (forcibly)."""
        ...

    def list_sandboxes(self, labels: Mapping[str, str] | None = None) -> list[Sandbox]:
        """Sandboxes whose labels include all of ``labels``."""
        ...

    # images
    def pull_image(self, image: str) -> str:
        """Pull (or find) ``image``; returns its id. Raises :class:`ImageNotFound`."""
        ...

    def image_status(self, image: str) -> Image | None:
        """The local image ``image`` names, or ``None`` if not present."""
        ...

    def list_images(self) -> list[Image]: ...

    # containers
    def create_container(self, sandbox_id: str, config: ContainerConfig) -> str:
        """Create (not start) a container; the image must be present."""
        ...

    def start_container(self, container_id: str) -> None: ...

    def stop_container(self, container_id: str, timeout_seconds: float = 0) -> None:
        """SIGTERM, then SIGKILL after ``timeout_seconds``; no-op if not running."""
        ...

    def remove_container(self, container_id: str) -> None:
        """Remove (forcibly, if running); no-op if already gone."""
        ...

    def list_containers(self, sandbox_id: str | None = None) -> list[ContainerStatus]: ...

    def container_logs(self, container_id: str, *, follow: bool = False,
                       tail_lines: int | None = None, timestamps: bool = False,
                       since_seconds: float | None = None, limit_bytes: int | None = None,
                       alive: Callable[[], bool] | None = None) -> Iterator[bytes]:
        """The container's output, one line (ending in ``\\n``) per item.

        ``timestamps`` prefixes each line with its RFC 3339 (nanosecond)
        time and a space, as ``kubectl logs --timestamps``. With ``follow``
        the iterator waits for more output and ends when the container stops
        or ``alive()`` returns False (checked at least every second).
        ``limit_bytes`` ends the stream after that many bytes (the last line
        may be cut). Raises :class:`ContainerNotFound`.
        """
        ...

    # events
    def exec_sync(self, container_id: str, command: Sequence[str], *,
                  timeout: float) -> ExecResult:
        """Run ``command`` in the running container and wait at most ``timeout``
        seconds (then ``timed_out`` is True and the command is killed)."""
        ...

    # streams (see :mod:`.streaming`)
    def exec_stream(self, container_id: str, command: Sequence[str],
                    options: ExecOptions) -> StreamSession:
        """Start ``command`` in the running container and hand over its
        streams (``kubectl exec``). Raises :class:`InvalidState` when the
        container is not running."""
        ...

    def attach(self, container_id: str, options: ExecOptions) -> StreamSession:
        """The running container's own streams (``kubectl attach``)."""
        ...

    def port_forward(self, sandbox_id: str, port: int) -> socket.socket:
        """A TCP connection to ``localhost:port`` in the sandbox's network
        namespace (``kubectl port-forward``); the caller closes it. Raises
        :class:`ContainerRuntimeError` in the kubelet's words when nothing
        listens there."""
        ...

    def stats(self) -> list[ContainerStats]:
        """Usage of every running container this runtime manages."""
        ...

    def events(self) -> RuntimeEventStream:
        """Subscribe to lifecycle events from now on."""
        ...
