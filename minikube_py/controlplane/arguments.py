"""The command-line flags that shape a control plane, and where its state lives
by default: shared by every front-end that starts one (``minikube-py daemon``
and ``minikube-py tui``), so both take the same flags with the same checks.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
from pathlib import Path

from ..admission.services import DEFAULT_SERVICE_CIDR, ServiceNetwork
from ..kubelet.node_lease import DEFAULT_LEASE_DURATION, renew_interval
from . import DEFAULT_PORT, Options, parse_listen

__all__ = ["add_control_plane_arguments", "default_state_dir", "options_from_args"]


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/minikube-py``, else ``~/.local/state/minikube-py``."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state")
    return Path(base) / "minikube-py"


def add_control_plane_arguments(p: argparse.ArgumentParser) -> None:
    """The flags that shape a control plane (shared by ``daemon`` and ``tui``)."""
    p.add_argument("--state-dir", type=Path, default=None,
                   help=f"where state lives (default: {default_state_dir()})")
    p.add_argument("--listen", default=f"127.0.0.1:{DEFAULT_PORT}", metavar="HOST:PORT",
                   help=f"where the API listens (default 127.0.0.1:{DEFAULT_PORT}; port 0 picks "
                        "a free one). Anything but loopback exposes the API to the network")
    nodes = p.add_mutually_exclusive_group()
    nodes.add_argument("--nodes", type=int, default=None, metavar="N",
                       help="split the host evenly into N virtual nodes (default 3)")
    nodes.add_argument("--config", type=Path, default=None, metavar="FILE",
                       help="describe the virtual nodes one by one (YAML)")
    p.add_argument("--runtime", default="podman", choices=["podman", "fake"],
                   help="podman: real containers (default); fake: hollow nodes for tests and "
                        "scale experiments")
    p.add_argument("--podman-socket", default=None, metavar="URL",
                   help="use this Podman API socket instead of starting our own service")
    p.add_argument("--allow-privileged", action="store_true",
                   help="allow pods with securityContext.privileged")
    p.add_argument("--allow-host-paths", action="store_true",
                   help="allow hostPath volumes (they expose this machine's files to pods)")
    p.add_argument("--restart-backoff", default="10,300", metavar="BASE,CAP",
                   help="CrashLoopBackOff seconds: first delay and cap (default 10,300)")
    p.add_argument("--scheduler-config", type=Path, default=None, metavar="FILE",
                   help="a KubeSchedulerConfiguration: plugin weights, disabled plugins, "
                        "scoring strategy, percentageOfNodesToScore")
    p.add_argument("--node-monitor-grace-period", type=float, default=50.0, metavar="SECONDS",
                   help="seconds without a node heartbeat before the node is NotReady "
                        "(Unknown) and tainted unreachable (default 50, as Kubernetes)")
    p.add_argument("--node-monitor-period", type=float, default=5.0, metavar="SECONDS",
                   help="how often the node lifecycle controller looks at the nodes' "
                        "heartbeats (default 5, as Kubernetes)")
    p.add_argument("--node-lease-duration-seconds", type=int, default=DEFAULT_LEASE_DURATION,
                   metavar="N",
                   help="the duration each kubelet writes in its node's Lease, which it "
                        "renews every quarter of it (default 40, as the kubelet's "
                        "nodeLeaseDurationSeconds: a renewal every 10 s). Thousands of "
                        "hollow nodes can stretch it, as KWOK's kwokctl does (1200, with "
                        "a --node-monitor-grace-period of 3600)")
    p.add_argument("--node-status-update-frequency", type=float, default=10.0,
                   metavar="SECONDS",
                   help="how often each kubelet works out its node's status, posted when it "
                        "changed or every 5 minutes (default 10, as the kubelet's "
                        "--node-status-update-frequency)")
    p.add_argument("--sync-frequency", type=float, default=60.0, metavar="SECONDS",
                   help="how often each kubelet re-syncs every pod, refreshing its mounted "
                        "ConfigMaps, Secrets and tokens (default 60, as the kubelet's "
                        "--sync-frequency)")
    p.add_argument("--default-toleration-seconds", type=int, default=300, metavar="SECONDS",
                   help="how long pods stay bound to a not-ready or unreachable node before "
                        "they are evicted and replaced (default 300, as Kubernetes; a pod's "
                        "own tolerations take precedence)")
    p.add_argument("--overcommit", action="store_true",
                   help="allow node sizes that add up to more than the host")
    p.add_argument("--service-cidr", default=DEFAULT_SERVICE_CIDR, metavar="CIDR",
                   help=f"where Services' cluster IPs come from (default {DEFAULT_SERVICE_CIDR}; "
                        "IPv4)")
    p.add_argument("--service-node-port-range", default="30000-32767", metavar="FIRST-LAST",
                   help="where NodePorts come from (default 30000-32767)")
    p.add_argument("--pod-network-cidr", default=None, metavar="CIDR",
                   help="the pod network's subnet (default: a free /20 of 10.244.0.0/14, kept "
                        "for the cluster's life)")
    p.add_argument("--load-balancer-ips", default="127.0.0.1", metavar="IP[,IP...]",
                   help="addresses LoadBalancer Services get, reachable from this host "
                        "(default 127.0.0.1)")
    p.add_argument("--dns-upstream", action="append", default=None, metavar="IP[:PORT]",
                   help="where cluster DNS forwards other names (default: the nameservers "
                        "of /etc/resolv.conf); may be repeated")
    p.add_argument("--fsync", action="store_true",
                   help="fsync every write (survives power loss; slower). By default a write "
                        "is acknowledged once the kernel has it, which survives any crash "
                        "of this process")


def options_from_args(args: argparse.Namespace) -> Options:
    """The :class:`Options` the control-plane flags ask for.

    Raises ValueError naming the flag when a value is wrong.
    """
    host, port = parse_listen(args.listen)
    if args.nodes is not None and args.nodes < 1:
        raise ValueError(f"--nodes {args.nodes}: there must be at least one node")
    backoff = _parse_backoff(args.restart_backoff)
    if not args.node_monitor_grace_period > 0:
        raise ValueError(f"--node-monitor-grace-period {args.node_monitor_grace_period:g}: "
                         "must be more than 0 seconds")
    _check_heartbeats(args)
    if not args.sync_frequency > 0:
        raise ValueError(f"--sync-frequency {args.sync_frequency:g}: must be more than 0 "
                         "seconds")
    if args.default_toleration_seconds < 0:
        raise ValueError(f"--default-toleration-seconds {args.default_toleration_seconds}: "
                         "must be 0 or more")
    return Options(
        state_dir=args.state_dir or default_state_dir(), host=host, port=port,
        nodes=args.nodes, config=args.config, runtime=args.runtime,
        overcommit=args.overcommit, scheduler_config=args.scheduler_config,
        podman_socket=args.podman_socket, allow_privileged=args.allow_privileged,
        allow_host_paths=args.allow_host_paths, restart_backoff=backoff,
        node_grace_period=args.node_monitor_grace_period,
        node_monitor_period=args.node_monitor_period,
        lease_duration=args.node_lease_duration_seconds,
        heartbeat_interval=args.node_status_update_frequency,
        pod_resync_interval=args.sync_frequency,
        default_toleration_seconds=args.default_toleration_seconds,
        durability="fsync" if args.fsync else "flush",
        service_network=_service_network(args.service_cidr, args.service_node_port_range),
        pod_network_cidr=_pod_network(args.pod_network_cidr),
        load_balancer_ips=_addresses("--load-balancer-ips", args.load_balancer_ips),
        dns_upstreams=tuple(_upstream(u) for u in args.dns_upstream or ()))


def _check_heartbeats(args: argparse.Namespace) -> None:
    """The node heartbeat flags, each and together: a grace period no longer
    than the lease's renewal interval would take every node NotReady between
    two renewals (Kubernetes leaves that to its operators; one process
    knows both numbers, so it refuses)."""
    for flag, value in (("--node-monitor-period", args.node_monitor_period),
                        ("--node-status-update-frequency", args.node_status_update_frequency)):
        if not value > 0:
            raise ValueError(f"{flag} {value:g}: must be more than 0 seconds")
    if args.node_lease_duration_seconds < 1:
        raise ValueError(f"--node-lease-duration-seconds {args.node_lease_duration_seconds}: "
                         "must be 1 or more")
    every = renew_interval(args.node_lease_duration_seconds)
    if args.node_monitor_grace_period <= every:
        raise ValueError(
            f"--node-monitor-grace-period {args.node_monitor_grace_period:g}: each node renews "
            f"its lease every {every:g} s (a quarter of --node-lease-duration-seconds "
            f"{args.node_lease_duration_seconds}), so every node would turn NotReady between "
            f"two renewals; give a grace period longer than {every:g} s (Kubernetes' "
            "defaults allow five renewals: 50 s for 10 s)")


def _service_network(cidr: str, ports: str) -> ServiceNetwork:
    first, sep, last = ports.partition("-")
    try:
        if not sep:
            raise ValueError
        node_ports = (int(first), int(last))
    except ValueError:
        raise ValueError(f"--service-node-port-range {ports!r}: expected FIRST-LAST, e.g. "
                         "30000-32767") from None
    return ServiceNetwork(cidr, node_ports)


def _pod_network(cidr: str | None) -> str | None:
    if cidr is None:
        return None
    try:
        net = ipaddress.ip_network(cidr, strict=True)
    except ValueError as exc:
        raise ValueError(f"--pod-network-cidr {cidr!r}: {exc}") from None
    if net.version != 4 or net.prefixlen > 28:
        raise ValueError(f"--pod-network-cidr {cidr!r}: an IPv4 subnet of /28 or larger")
    return str(net)


def _addresses(flag: str, value: str) -> tuple[str, ...]:
    out = []
    for part in value.split(","):
        try:
            out.append(str(ipaddress.IPv4Address(part.strip())))
        except ValueError:
            raise ValueError(f"{flag} {value!r}: {part.strip()!r} is not an IPv4 address") \
                from None
    return tuple(out)


def _upstream(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = value, "53"
    try:
        ipaddress.IPv4Address(host)
        number = int(port)
        if not 0 < number < 65536:
            raise ValueError
    except ValueError:
        raise ValueError(f"--dns-upstream {value!r}: expected an IPv4 address with an "
                         "optional :PORT") from None
    return host, number


def _parse_backoff(value: str) -> tuple[float, float]:
    try:
        base, cap = (float(v) for v in value.split(","))
    except ValueError:
        raise ValueError(f"--restart-backoff {value!r}: expected BASE,CAP in seconds, "
                         "e.g. 10,300") from None
    if not 0 < base <= cap:
        raise ValueError(f"--restart-backoff {value!r}: need 0 < BASE <= CAP")
    return base, cap
