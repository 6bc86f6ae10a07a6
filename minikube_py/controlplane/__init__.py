"""Wiring: builds the control plane's parts and starts and stops them in order.

Start: store (its lock first) -> the runtime and its pod network -> registry (+ system
namespaces) -> bearer token -> networking (Service rules, cluster DNS:
:mod:`.networking`) -> virtual nodes -> one runtime and kubelet per node ->
scheduler -> controller manager -> API server (also where pods reach it) ->
kubeconfig. Stop runs
in reverse, so the API stops taking writes before the loops stop, and the store
is compacted last. Every loop talks to the others only through the API
(a :class:`~minikube_py.client.local.LocalClient`), never directly.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..admission.podsecurity import SecurityPolicy
from ..admission.services import ServiceNetwork
from ..api.errors import BadRequest, NotFound
from ..apiserver import tls
from ..apiserver.server import APIServer
from ..apiserver.streaming.connect import StreamUnavailable
from ..apiserver.tokens import TokenIssuer, issuer_for
from ..auth.bootstrap import ensure_bootstrap_policy
from ..client import kubeconfig
from ..client.local import LocalClient
from ..client.workqueue import BucketRateLimiter
from ..controllers.manager import ControllerManager, ManagerOptions
from ..kubelet.kubelet import Kubelet
from ..kubelet.node_lease import DEFAULT_LEASE_DURATION, renew_interval
from ..kubelet.pleg import RuntimeLister
from ..kubelet.pool import KubeletPool
from ..kubelet.streaming import StreamError
from ..nodes import HostInfo, NodeSpec, SharedReadings, carve, load_config
from ..runtime.base import ContainerRuntime
from ..runtime.fake import FakeRuntime
from ..runtime.podman import PodmanRuntime
from ..runtime.podman_service import PodmanService
from ..runtime.streaming import ExecOptions, StreamSession
from ..scheduler.config import load_profile
from ..scheduler.framework import Framework
from ..scheduler.scheduler import Scheduler
from ..store.journal import Durability
from ..store.registry import DEFAULT_TOLERATION_SECONDS, Registry
from ..store.store import Store
from .networking import Networking, NetworkPlan
from .tokensource import LocalTokenSource

log = logging.getLogger(__name__)

DEFAULT_PORT = 7443
#: The scheduler's decision records, under the state directory.
DECISION_FILE = Path("scheduler") / "decisions.jsonl"
RUNTIMES = ("podman", "fake")
#: Seconds ``stop`` gives all kubelets together (the daemon promises to stop in 5 s).
KUBELET_STOP_BUDGET = 2.5
#: Whether pods get their service account's token volume (``kube-api-access-*``)
#: mounted, Kubernetes' default; off only while a kubelet cannot serve that
#: projected volume yet.
AUTOMOUNT_SERVICE_ACCOUNT_TOKEN = True


@dataclass(frozen=True)
class Options:
    """Everything ``daemon`` (and later ``tui``) can set."""

    state_dir: Path
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    nodes: int | None = None
    config: Path | None = None
    runtime: str = "podman"
    overcommit: bool = False
    podman_socket: str | None = None
    allow_privileged: bool = False
    allow_host_paths: bool = False
    #: CrashLoopBackOff (base, cap) seconds; Kubernetes' 10 s doubling to 300 s.
    restart_backoff: tuple[float, float] = (10.0, 300.0)
    durability: Durability = "flush"
    #: How often each kubelet works out its node's status (posted when changed
    #: or every 5 minutes): the kubelet's ``nodeStatusUpdateFrequency``.
    heartbeat_interval: float = 10.0
    #: The kubelet's ``nodeLeaseDurationSeconds``: written in each node's Lease,
    #: which is renewed every quarter of it (10 s for 40).
    lease_duration: int = DEFAULT_LEASE_DURATION
    #: Seconds between two renewals (None: a quarter of ``lease_duration``; tests
    #: shorten it with ``heartbeat_interval``).
    lease_renew_interval: float | None = None
    #: Seconds after which a kubelet looks at a pod again although nothing told it
    #: to: Kubernetes' ``syncFrequency`` (1 min). A safety net only; watches,
    #: runtime events, probes and back-off timers drive the real work. At 10 s,
    #: ten idle pods on Podman cost the daemon about 0.4 % of a core.
    pod_resync_interval: float = 60.0
    scheduler_config: Path | None = None
    #: Seconds without a node heartbeat before it is Unknown and tainted unreachable.
    node_grace_period: float = ManagerOptions.node_grace_period
    #: How often the node lifecycle controller looks at the nodes' heartbeats.
    node_monitor_period: float = ManagerOptions.node_monitor_period
    #: DefaultTolerationSeconds admission: how long pods stay on a not-ready or
    #: unreachable node before eviction (None: the admission is off).
    default_toleration_seconds: int | None = DEFAULT_TOLERATION_SECONDS
    #: ``--service-cidr`` and ``--service-node-port-range``.
    service_network: ServiceNetwork = field(default_factory=ServiceNetwork)
    #: ``--pod-network-cidr`` (None: chosen once, see runtime/podman_network).
    pod_network_cidr: str | None = None
    #: ``--load-balancer-ips``: what LoadBalancer Services get.
    load_balancer_ips: tuple[str, ...] = ("127.0.0.1",)
    #: ``--dns-upstream``: where cluster DNS forwards (empty: /etc/resolv.conf's).
    dns_upstreams: tuple[tuple[str, int], ...] = ()
    cluster_domain: str = "cluster.local"


def parse_listen(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``:PORT``, or ``PORT``) -> (host, port); errors name the problem."""
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"--listen {value!r}: the port must be a number") from None
    if not 0 <= number <= 65535:
        raise ValueError(f"--listen {value!r}: the port must be between 0 and 65535")
    return host.strip("[]") or "127.0.0.1", number


def _cluster_id(state_dir: Path) -> str:
    """This state directory's cluster id, created once and kept (it labels every
    Podman object, so adoption after a restart finds exactly this cluster's pods)."""
    path = state_dir / "cluster-id"
    try:
        value = path.read_text().strip()
        if value:
            return value
    except FileNotFoundError:
        pass
    value = secrets.token_hex(6)
    path.write_text(value + "\n")
    return value


def _load_token(path: Path) -> str:
    """The API token, created once (0600) and kept, so kubeconfigs stay valid."""
    try:
        token = path.read_text().strip()
        if token:
            return token
    except FileNotFoundError:
        pass
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token


class _KubeletLogs:
    """The API server's log source: the kubelet of the pod's node answers."""

    def __init__(self, kubelets: Mapping[str, Kubelet]) -> None:
        self._kubelets = kubelets

    def logs(self, pod: Mapping[str, Any], container: str, **options: Any) -> Iterator[bytes]:
        node = (pod.get("spec") or {}).get("nodeName", "")
        kubelet = self._kubelets.get(node)
        if kubelet is None:
            raise BadRequest(f'pod "{pod["metadata"]["name"]}" is on node "{node}", which this '
                             "control plane does not run")
        return kubelet.logs(pod, container, **options)


class _KubeletStreams:
    """The API server's stream source: the kubelet of the pod's node opens
    exec, attach and port-forward sessions."""

    def __init__(self, kubelets: Mapping[str, Kubelet]) -> None:
        self._kubelets = kubelets

    def _kubelet(self, pod: Mapping[str, Any]) -> Kubelet:
        node = (pod.get("spec") or {}).get("nodeName", "")
        kubelet = self._kubelets.get(node)
        if kubelet is None:
            raise StreamUnavailable(f'pod "{pod["metadata"]["name"]}" is on node "{node}", '
                                    "which this control plane does not run")
        return kubelet

    def exec(self, pod: Mapping[str, Any], container: str, command: Sequence[str],
             options: ExecOptions) -> StreamSession:
        try:
            return self._kubelet(pod).exec(pod, container, command, options)
        except StreamError as exc:
            raise StreamUnavailable(str(exc)) from exc

    def attach(self, pod: Mapping[str, Any], container: str,
               options: ExecOptions) -> StreamSession:
        try:
            return self._kubelet(pod).attach(pod, container, options)
        except StreamError as exc:
            raise StreamUnavailable(str(exc)) from exc

    def port_forward(self, pod: Mapping[str, Any], port: int) -> socket.socket:
        try:
            return self._kubelet(pod).port_forward(pod, port)
        except StreamError as exc:
            raise StreamUnavailable(str(exc)) from exc


class _SchedulerView:
    """What the API server may show of the scheduler (decisions and queue)."""

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler

    def decisions(self, namespace: str, name: str) -> list[dict[str, Any]]:
        return self._scheduler.decisions(namespace, name)

    def queue(self) -> dict[str, Any]:
        return self._scheduler.queue_info()


#: Hollow nodes resync each pod this many times less often than ``--sync-frequency``.
HOLLOW_RESYNC_FACTOR = 10
#: Usage-annotation writes a second the hollow nodes of a daemon share between
#: them (a burst of as many): a handful of nodes post at every heartbeat, as
#: Podman nodes do; 5,000 nodes post each about every 8 minutes while all change.
HOLLOW_USAGE_WRITES = 10
#: Hollow nodes read their containers' (made-up) stats for the usage annotations
#: once every this many heartbeats (Podman nodes: every heartbeat).
HOLLOW_USAGE_FACTOR = 6


class ControlPlane:
    """One process's control plane, rooted at a state directory."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.state_dir = options.state_dir
        self._store: Store | None = None
        self._registry: Registry | None = None
        self.kubelets: dict[str, Kubelet] = {}
        self.apiserver: APIServer | None = None
        self.scheduler: Scheduler | None = None
        self.controllers: ControllerManager | None = None
        self.node_specs: list[NodeSpec] = []
        self._podman_service: PodmanService | None = None
        self._podman: PodmanRuntime | None = None
        self.networking: Networking | None = None
        self._pool: KubeletPool | None = None
        self._running = False

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the control plane is not started")
        return self._store

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            raise RuntimeError("the control plane is not started")
        return self._registry

    @property
    def kubeconfig_path(self) -> Path:
        return self.state_dir / "kubeconfig"

    def ready(self) -> bool:
        return self._running

    def _plan_nodes(self, host: HostInfo) -> list[NodeSpec]:
        opts = self.options
        if opts.runtime not in RUNTIMES:
            raise ValueError(f"--runtime {opts.runtime!r} is not available in this version; "
                             f"choose one of: {', '.join(RUNTIMES)}")
        if opts.config is not None:
            return load_config(opts.config, host, runtime=opts.runtime,
                               overcommit=opts.overcommit)
        return carve(opts.nodes or 3, host)

    def _start_podman(self) -> None:
        """Reach (or start) Podman and adapt to this host; raises PodmanUnavailable
        with one message naming everything that is missing."""
        self._podman_service = PodmanService(self.state_dir, socket=self.options.podman_socket)
        check = self._podman_service.check()
        for line in check.message.splitlines():
            log.info("%s", line)
        self._podman = PodmanRuntime(check.base_url, state_dir=self.state_dir,
                                     ulimits=check.ulimits, oci_runtime=check.oci_runtime,
                                     cluster=_cluster_id(self.state_dir))
        self._podman.collect_dead_networks()
        self._podman.attach_network(self.options.pod_network_cidr)

    def _runtime(self, index: int) -> ContainerRuntime:
        if self._podman is not None:
            return self._podman  # one client for every node; kubelets filter by label
        # Hollow nodes: one fake runtime each, on their own /24 pod range: from
        # 10.88.0.0 up to 10.95.255.0 (2,048 nodes), then from 10.128.0.0, so the
        # ranges never reach the default Service network (10.96.0.0/12).
        block = 88 + index // 256 if index < 2048 else 128 + (index - 2048) // 256
        return FakeRuntime(network=f"10.{block}.{index % 256}.0/24")

    def start(self) -> None:
        """Start every part. On failure, what was started is stopped again and the
        error propagates (StateDirLocked, NodeConfigError, OSError for the port...)."""
        started = time.monotonic()
        opts = self.options
        host = HostInfo.read(self.state_dir)
        specs = self._plan_nodes(host)  # config errors before touching any state
        profile = load_profile(opts.scheduler_config)
        try:
            # The store's lock first: a second daemon on this state directory must
            # touch nothing (not even Podman) before it is refused.
            self._store = Store(self.state_dir, durability=opts.durability)
            if opts.runtime == "podman":
                self._start_podman()
            self._registry = Registry(
                self._store, security=SecurityPolicy(allow_privileged=opts.allow_privileged,
                                                     allow_host_paths=opts.allow_host_paths),
                default_toleration_seconds=opts.default_toleration_seconds,
                service_network=opts.service_network, service_accounts=True,
                mount_service_account_token=AUTOMOUNT_SERVICE_ACCOUNT_TOKEN)
            plan = NetworkPlan(opts.service_network, opts.cluster_domain,
                               self._podman.network if self._podman is not None else None)
            self.networking = Networking(
                self._registry, plan, state_dir=self.state_dir,
                cluster=_cluster_id(self.state_dir), dns_upstreams=opts.dns_upstreams,
                remove_network=self._podman.remove_network_of if self._podman else None)
            pod_networking = self.networking.pod_networking()
            created = self._registry.ensure_system_namespaces()
            self._registry.ensure_system_priority_classes()
            ensure_bootstrap_policy(self._registry.create, self._cluster_object,
                                    self._registry.update)
            token = _load_token(self.state_dir / "token")
            issuer = TokenIssuer.load(self.state_dir, issuer=issuer_for(opts.cluster_domain))
            client = LocalClient(self._registry, field_manager="minikube-py")
            self._forget_unconfigured_nodes({s.name for s in specs})
            real = opts.runtime == "podman"
            # One Podman serves every node: its kubelets share one relist of it
            # (younger than half their shortest, 1 s, relist interval), instead of
            # each asking Podman the same two questions.
            shared = (RuntimeLister(self._podman, max_age=0.5)
                      if self._podman is not None else None)
            lease_every = (renew_interval(opts.lease_duration)
                           if opts.lease_renew_interval is None else opts.lease_renew_interval)
            # Hollow nodes share a few threads (kubelet/pool.py); Podman nodes run
            # their own loops.
            pool = (None if real else
                    KubeletPool(client.for_caches(),
                                heartbeat_interval=opts.heartbeat_interval,
                                lease_renew_interval=lease_every))
            usage_budget = (None if real else
                            BucketRateLimiter(qps=HOLLOW_USAGE_WRITES, burst=HOLLOW_USAGE_WRITES))
            # Every node is carved from this host: one reading of it serves all.
            readings = SharedReadings(max_age=1.0)
            for index, spec in enumerate(specs):
                self.kubelets[spec.name] = Kubelet(
                    client, spec, self._runtime(index), host=host, state_dir=self.state_dir,
                    heartbeat_interval=opts.heartbeat_interval,
                    lease_duration=opts.lease_duration, lease_renew_interval=lease_every,
                    # Hollow nodes resync 10x less often, each pod on its own slot of
                    # Kubernetes' jitter (kubelet/resync.py: every 1.25 intervals): their
                    # runtime never loses an event, and 100,000 pods resynced every
                    # minute would take more than the daemon's whole core.
                    resync_interval=opts.pod_resync_interval * (
                        1 if pool is None else HOLLOW_RESYNC_FACTOR),
                    resync_jitter=0.0 if pool is None else 0.5, lister=shared,
                    # ... on the pool's timer ticks: the resyncs due within a tick
                    # run back to back, each a third as costly as one on its own.
                    resync_granularity=0.0 if pool is None else pool.timer_tick,
                    restart_backoff=opts.restart_backoff,
                    # Hollow nodes get no kernel cgroups; real ones enforce their size.
                    cgroup_root=Path("/sys/fs/cgroup") if real else None,
                    cluster=_cluster_id(self.state_dir) if real else "",
                    networking=pod_networking,
                    token_source=LocalTokenSource(self._store, issuer),
                    queue=pool.queue_for(spec.name) if pool is not None else None,
                    readings=readings, volume_files=real,
                    usage_budget=None if usage_budget is None else usage_budget.allow,
                    usage_interval=0.0 if real else (
                        opts.heartbeat_interval * HOLLOW_USAGE_FACTOR))
                if pool is not None:
                    pool.add(self.kubelets[spec.name])
            self.node_specs = specs
            self.networking.start()
            if pool is not None:
                self._pool = pool
                pool.start()
            else:
                for kubelet in self.kubelets.values():
                    kubelet.start()
            # The CA first: the root-ca-cert-publisher hands it to every namespace.
            ca, cert, key = tls.ensure(self.state_dir, opts.host, plan.tls_names())
            self.controllers = ControllerManager(
                LocalClient(self._registry, field_manager="kube-controller-manager"),
                options=ManagerOptions(node_grace_period=opts.node_grace_period,
                                       node_monitor_period=opts.node_monitor_period,
                                       load_balancer_ips=opts.load_balancer_ips,
                                       cluster_services=plan.cluster_services(),
                                       root_ca=ca.read_text()))
            # One pod watch and cache for the scheduler and the controllers (each
            # pod event was read and cached twice: a pod's three events cost the
            # scheduler's own informer about 0.15 ms of CPU).
            self.scheduler = Scheduler(LocalClient(self._registry, field_manager="scheduler"),
                                       framework=Framework(profile),
                                       decision_file=self.state_dir / DECISION_FILE,
                                       pods=self.controllers.informers.get("pods"))
            # Starting also creates, synchronously, the default ServiceAccounts and
            # kube-root-ca.crt of the namespaces that exist: before the API is ready.
            self.controllers.start()
            self.scheduler.start()
            self.apiserver = APIServer(self._registry, token=token, host=opts.host,
                                       port=opts.port, log_source=_KubeletLogs(self.kubelets),
                                       streams=_KubeletStreams(self.kubelets),
                                       ready=self.ready, tls=tls.server_context(cert, key),
                                       scheduler=_SchedulerView(self.scheduler),
                                       also_listen=plan.api_listen(), issuer=issuer)
            self.apiserver.start()
            kubeconfig.write(self.kubeconfig_path, self.apiserver.url, token,
                             ca_pem=ca.read_bytes())
        except BaseException:
            self.stop()
            raise
        self._running = True
        log.info("control plane started in %.0f ms: %d node(s) (%s runtime), API %s, "
                 "kubeconfig %s%s", (time.monotonic() - started) * 1000, len(specs),
                 opts.runtime, self.apiserver.url, self.kubeconfig_path,
                 f", created namespaces {', '.join(created)}" if created else "")

    def _cluster_object(self, resource: str, name: str) -> dict[str, Any] | None:
        """A cluster-scoped object of the store, None if there is none."""
        assert self._store is not None
        try:
            return self._store.get(resource, None, name)
        except NotFound:
            return None

    def _forget_unconfigured_nodes(self, wanted: set[str]) -> None:
        for node in self.registry.store.list("nodes").items:
            name = node["metadata"]["name"]
            if name not in wanted:
                try:
                    self.registry.delete("nodes", None, name)
                    log.info("node %s is no longer configured: removed", name)
                except NotFound:
                    pass

    def stop(self) -> None:
        """Stop every part in reverse order; the store is compacted. Idempotent."""
        self._running = False
        started = time.monotonic()
        if self.apiserver is not None:
            self.apiserver.stop()
            self.apiserver = None
            log.debug("stop: API server stopped at %.2f s", time.monotonic() - started)
        # The scheduler first: it reads the controllers' pod informer.
        if self.scheduler is not None:
            self.scheduler.stop()
            self.scheduler = None
            log.debug("stop: scheduler stopped at %.2f s", time.monotonic() - started)
        if self.controllers is not None:
            self.controllers.stop()
            self.controllers = None
            log.debug("stop: controllers stopped at %.2f s", time.monotonic() - started)
        if self.networking is not None:
            self.networking.stop()
            self.networking = None
            log.debug("stop: DNS and Service rules loop stopped at %.2f s",
                      time.monotonic() - started)
        # One budget for every kubelet, not one each: teardown still in progress
        # (a container inside its grace period) is left to the next start, which
        # adopts the pod and finishes it, so the daemon stops promptly however
        # many nodes it runs.
        deadline = time.monotonic() + KUBELET_STOP_BUDGET
        if self._podman is not None:
            self._podman.abandon_stops()
        if self._pool is not None:
            try:
                self._pool.stop(max(0.1, deadline - time.monotonic()))
            except Exception:  # the store must still be closed
                log.exception("stopping the hollow kubelets failed")
            self._pool = None
            self.kubelets = {}
        for kubelet in self.kubelets.values():
            try:
                kubelet.stop(max(0.1, deadline - time.monotonic()))
            except Exception:  # one stuck kubelet must not keep the store open
                log.exception("stopping the kubelet failed")
        self.kubelets = {}
        log.debug("stop: kubelets stopped at %.2f s", time.monotonic() - started)
        if self._podman is not None:
            self._podman.close()
            self._podman = None
        if self._podman_service is not None:
            self._podman_service.stop()
            self._podman_service = None
            log.debug("stop: Podman service stopped at %.2f s", time.monotonic() - started)
        if self._store is not None:
            self._store.close()
            log.info("control plane stopped in %.2f s; state compacted in %s",
                     time.monotonic() - started, self.state_dir)
        self._store = None
        self._registry = None
