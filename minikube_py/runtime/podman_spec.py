"""Pure translations between the runtime's values and Podman's JSON.

* :func:`pod_spec` / :func:`container_spec`: libpod ``PodSpecGenerator`` and
  ``SpecGenerator`` bodies for a :class:`~.base.SandboxConfig` and a
  :class:`~.base.ContainerConfig`.
* :func:`cpu_shares` / :func:`cpu_quota`: the kubelet's formulas
  (``MilliCPUToShares``, ``MilliCPUToQuota``), so a container here gets the
  same cgroup values it would get on a real node.
* :func:`container_state`: Podman's container states in the runtime's four words.

No I/O; unit tests drive these directly.
"""

from __future__ import annotations

import json
import re
import secrets
import signal
from collections.abc import Mapping
from typing import Any

from .base import (
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    CONTAINER_UNKNOWN,
    LABEL_CLUSTER,
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_NODE,
    LABEL_POD_UID,
    PROPAGATION_PRIVATE,
    ContainerConfig,
    Mount,
    SandboxConfig,
)
from .podman_events import CONFIG_LABEL

__all__ = [
    "CPU_PERIOD",
    "container_name",
    "container_spec",
    "container_state",
    "cpu_quota",
    "cpu_shares",
    "pod_labels",
    "pod_name",
    "pod_spec",
]

#: CFS period the kubelet uses (100 ms), in microseconds.
CPU_PERIOD = 100_000
_MIN_SHARES = 2
_MAX_SHARES = 262_144
_MIN_QUOTA = 1_000  # the kernel refuses quotas under 1 ms
_IDENTITY = (LABEL_POD_UID, LABEL_NAMESPACE, LABEL_NAME, LABEL_NODE, LABEL_CLUSTER)
_BAD_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_.-]")

_STATES = {
    "created": CONTAINER_CREATED, "configured": CONTAINER_CREATED,
    "initialized": CONTAINER_CREATED,
    "running": CONTAINER_RUNNING, "paused": CONTAINER_RUNNING, "stopping": CONTAINER_RUNNING,
    "exited": CONTAINER_EXITED, "stopped": CONTAINER_EXITED, "dead": CONTAINER_EXITED,
}


def cpu_shares(milli_cpu_request: int) -> int:
    """``cpu.shares`` for a CPU request: ``millis * 1024 / 1000``, at least 2
    (which is also what a container without a request gets)."""
    shares = milli_cpu_request * 1024 // 1000
    return max(_MIN_SHARES, min(_MAX_SHARES, shares))


def cpu_quota(milli_cpu_limit: int, period: int = CPU_PERIOD) -> int:
    """``cpu.cfs_quota_us`` for a CPU limit (0: no limit), at least 1 ms."""
    if milli_cpu_limit <= 0:
        return 0
    return max(_MIN_QUOTA, milli_cpu_limit * period // 1000)


def container_state(podman_state: Any) -> str:
    return _STATES.get(str(podman_state or "").lower(), CONTAINER_UNKNOWN)


def _clean(text: str) -> str:
    return _BAD_NAME_CHARS.sub("-", text)


def pod_name(config: SandboxConfig) -> str:
    """A readable, unique Podman pod name (a pod may get several sandboxes
    over its life, so a random suffix keeps them apart)."""
    return _clean(f"k8s_{config.name}_{config.namespace}_{config.uid[:8]}_"
                  f"{secrets.token_hex(3)}")


def container_name(podman_pod_name: str, config: ContainerConfig, restart: str) -> str:
    return _clean(f"{podman_pod_name}_{config.name}_{restart or 0}_{secrets.token_hex(3)}")


def pod_labels(config: SandboxConfig) -> dict[str, str]:
    """The sandbox's labels: the ones it was given plus the pod's identity."""
    return {**dict(config.labels), LABEL_POD_UID: config.uid,
            LABEL_NAMESPACE: config.namespace, LABEL_NAME: config.name,
            LABEL_NODE: config.node}


def _hostname(config: SandboxConfig) -> str:
    name = (config.hostname or config.name)[:63].rstrip("-.")
    return re.sub(r"[^a-zA-Z0-9.-]", "-", name) or "pod"


def pod_spec(config: SandboxConfig, *, name: str, network: str = "") -> dict[str, Any]:
    """The ``POST /pods/create`` body for a sandbox; ``network`` is the Podman
    network its infra joins (empty: Podman's default)."""
    spec: dict[str, Any] = {"name": name, "labels": pod_labels(config),
                            "hostname": _hostname(config)}
    if network:
        spec["netns"] = {"nsmode": "bridge"}
        spec["Networks"] = {network: {}}
    if config.dns is not None:
        # Podman fills in what is left empty from the host's resolv.conf; the
        # kubelet decided already, so say everything ("." is "no search list").
        spec["dns_server"] = list(config.dns.servers)
        spec["dns_search"] = list(config.dns.searches) or ["."]
        spec["dns_option"] = list(config.dns.options)
    ports = [{"container_port": p.container_port, "host_port": p.host_port,
              "protocol": (p.protocol or "TCP").lower(), "host_ip": p.host_ip}
             for p in config.port_mappings if p.host_port]
    if ports:
        spec["portmappings"] = ports
    if config.cgroup_parent:
        spec["cgroup_parent"] = config.cgroup_parent
    return spec


def _cap(name: str) -> str:
    name = name.upper()
    return name if name == "ALL" or name.startswith("CAP_") else f"CAP_{name}"


def _user(run_as_user: int | None, run_as_group: int | None) -> str | None:
    if run_as_user is None and run_as_group is None:
        return None
    if run_as_group is None:
        return str(run_as_user)
    # A group alone runs as root in that group (a user must be named with it).
    return f"{run_as_user if run_as_user is not None else 0}:{run_as_group}"


def config_label(config: ContainerConfig) -> str:
    """What :data:`CONFIG_LABEL` holds for ``config`` (see :mod:`.podman_events`)."""
    return json.dumps({"name": config.name, "image": config.image,
                       "labels": dict(config.labels), "init": config.init},
                      sort_keys=True, separators=(",", ":"))


def _mount(m: Mount) -> dict[str, Any]:
    """A bind mount; propagation other than private becomes crun's ``rslave`` /
    ``rshared`` option (applied recursively after the bind)."""
    options = ["rbind", "ro" if m.read_only else "rw"]
    if m.propagation != PROPAGATION_PRIVATE:
        options.append(m.propagation)
    return {"destination": m.container_path, "source": m.host_path, "type": "bind",
            "options": options}


def container_spec(pod_id: str, config: ContainerConfig, *, name: str,
                   pod_labels: Mapping[str, str], ulimits: Mapping[str, tuple[int, int]],
                   oci_runtime: str | None) -> dict[str, Any]:
    """The ``POST /containers/create`` body for ``config`` in pod ``pod_id``.

    ``command`` becomes the entrypoint and ``args`` the command, which gives
    Kubernetes' rules (an empty ``command`` keeps the image's entrypoint; a
    ``command`` without ``args`` drops the image's cmd). Memory+swap is capped
    at the memory limit (no swap), as the kubelet does.
    """
    labels = {k: v for k, v in pod_labels.items() if k in _IDENTITY}
    labels.update(config.labels)
    labels[CONFIG_LABEL] = config_label(config)
    cpu: dict[str, int] = {"shares": cpu_shares(config.cpu_millis_request)}
    if config.cpu_millis_limit > 0:
        cpu["quota"] = cpu_quota(config.cpu_millis_limit)
        cpu["period"] = CPU_PERIOD
    resources: dict[str, Any] = {"cpu": cpu}
    if config.memory_limit_bytes > 0:
        resources["memory"] = {"limit": config.memory_limit_bytes,
                               "swap": config.memory_limit_bytes}
    spec: dict[str, Any] = {
        "name": name,
        "pod": pod_id,
        "image": config.image,
        "labels": labels,
        "env": dict(config.env),
        "stop_signal": int(signal.SIGTERM),
        "resource_limits": resources,
        "r_limits": [{"type": kind, "soft": soft, "hard": hard}
                     for kind, (soft, hard) in sorted(ulimits.items())],
        "mounts": [_mount(m) for m in config.mounts],
    }
    if config.command:
        spec["entrypoint"] = list(config.command)
    if config.args:
        spec["command"] = list(config.args)
    if config.working_dir:
        spec["work_dir"] = config.working_dir
    sec = config.security
    user = _user(sec.run_as_user, sec.run_as_group)
    if user is not None:
        spec["user"] = user
    if sec.read_only_root_fs:
        spec["read_only_filesystem"] = True
    if sec.privileged:
        spec["privileged"] = True
    if sec.cap_add:
        spec["cap_add"] = [_cap(c) for c in sec.cap_add]
    if sec.cap_drop:
        spec["cap_drop"] = [_cap(c) for c in sec.cap_drop]
    if oci_runtime:
        spec["oci_runtime"] = oci_runtime
    if config.stdin:
        spec["stdin"] = True
    if config.tty:
        spec["terminal"] = True
    if config.pid_namespace_of:
        spec["pidns"] = {"nsmode": "container", "value": config.pid_namespace_of}
    return spec
