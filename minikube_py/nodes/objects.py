"""Node objects and their conditions, as a kubelet would post them."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from minikube_py.api.quantity import Quantity

from .host import HostInfo, HostReadings, go_arch
from .sizing import MI, NodeSpec

__all__ = [
    "IMAGEFS_AVAILABLE_MIN",
    "INSTANCE_TYPE",
    "KUBELET_PORT",
    "MEMORY_AVAILABLE_MIN",
    "NODEFS_AVAILABLE_MIN",
    "PIDS_AVAILABLE_MIN",
    "node_conditions",
    "node_object",
]

INSTANCE_TYPE = "minikube-py"
KUBELET_PORT = 10250

#: kubelet's default hard eviction thresholds (``--eviction-hard``).
MEMORY_AVAILABLE_MIN = 100 * MI  # memory.available<100Mi
NODEFS_AVAILABLE_MIN = 0.10  # nodefs.available<10%
IMAGEFS_AVAILABLE_MIN = 0.15  # imagefs.available<15%
#: Not a kubelet default (``pid.available`` has none): below this many free
#: PIDs podman can no longer reliably start conmon and a container, so the
#: node reports PIDPressure while the host still has room to recover.
PIDS_AVAILABLE_MIN = 1000

#: Namespace for the per-node systemUUID (uuid5 of machine-id and node name).
_SYSTEM_UUID_NS = uuid.UUID("6b1f6d7e-8a5c-4f0e-9f57-6d696e696b75")


def _labels(spec: NodeSpec, arch: str) -> dict[str, str]:
    labels = {str(k): str(v) for k, v in spec.labels.items()}
    # The well-known labels win over the spec's, as the kubelet's do.
    labels.update({
        "beta.kubernetes.io/arch": arch,
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": arch,
        "kubernetes.io/hostname": spec.name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": INSTANCE_TYPE,
    })
    return dict(sorted(labels.items()))


def _resources(spec: NodeSpec, host: HostInfo) -> dict[str, str]:
    return {
        "cpu": str(Quantity.from_milli(spec.cpu_millis)),
        "ephemeral-storage": str(Quantity.from_int(max(0, host.disk_bytes), "BinarySI")),
        "hugepages-2Mi": "0",
        "memory": str(Quantity.from_int(spec.memory_bytes, "BinarySI")),
        "pods": str(Quantity.from_int(spec.pods)),
    }


def node_object(spec: NodeSpec, host: HostInfo, *, runtime_version: str, kubelet_version: str,
                now: str, conditions: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``v1 Node`` for ``spec`` on ``host``.

    * capacity is the node's share of the host; **allocatable equals
      capacity**, because the system reservation (and the kubelet's eviction
      threshold) was already taken off the host before the nodes were carved;
      a second cut per node would count it N times.
    * ``ephemeral-storage`` is the whole state disk on every node: the nodes
      share that one filesystem, which is not carved up.
    * ``machineID`` and ``bootID`` are the host's (the nodes are on one
      machine); ``systemUUID`` is derived from the machine-id and the node
      name, so it is stable and distinct per node.
    * ``now`` is accepted for symmetry with :func:`node_conditions`; the
      object carries no timestamp of its own (the registry sets
      ``creationTimestamp``).

    Quantities are in canonical form; the result passes
    :func:`minikube_py.api.validation.validate`.
    """
    del now  # conditions carry the times
    arch = go_arch(host.arch)
    resources = _resources(spec, host)
    node_spec: dict[str, Any] = {}
    if spec.taints:
        node_spec["taints"] = [dict(t) for t in spec.taints]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": spec.name, "labels": _labels(spec, arch)},
        "spec": node_spec,
        "status": {
            "capacity": dict(resources),
            "allocatable": dict(resources),
            "conditions": [dict(c) for c in conditions],
            "addresses": [
                {"type": "InternalIP", "address": host.ip},
                {"type": "Hostname", "address": spec.name},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": KUBELET_PORT}},
            "nodeInfo": {
                "machineID": host.machine_id,
                "systemUUID": str(uuid.uuid5(_SYSTEM_UUID_NS, f"{host.machine_id}/{spec.name}")),
                "bootID": host.boot_id,
                "kernelVersion": host.kernel,
                "osImage": host.os_image,
                "containerRuntimeVersion": runtime_version,
                "kubeletVersion": kubelet_version,
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": arch,
            },
        },
    }


# --------------------------------------------------------------- conditions

#: type -> ((reason, message) when False, (reason, message) when True).
_PRESSURE: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "MemoryPressure": (
        ("KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("KubeletHasInsufficientMemory", "kubelet has insufficient memory available"),
    ),
    "DiskPressure": (
        ("KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("KubeletHasDiskPressure", "kubelet has disk pressure"),
    ),
    "PIDPressure": (
        ("KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("KubeletHasInsufficientPID", "kubelet has insufficient PID available"),
    ),
}


def pressures(readings: HostReadings) -> dict[str, bool]:
    """Which pressure conditions the readings put the node under.

    The state disk is both the kubelet's nodefs and its imagefs (podman keeps
    images next to container layers), so both thresholds watch the same
    ratio and the stricter ``imagefs.available<15%`` decides.
    """
    return {
        "MemoryPressure": readings.memory_available < MEMORY_AVAILABLE_MIN,
        "DiskPressure": (readings.disk_available_ratio < NODEFS_AVAILABLE_MIN
                         or readings.disk_available_ratio < IMAGEFS_AVAILABLE_MIN),
        "PIDPressure": readings.pids_available < PIDS_AVAILABLE_MIN,
    }


def node_conditions(readings: HostReadings, *, now: str, previous: list[dict[str, Any]] | None,
                    ready: bool, ready_message: str) -> list[dict[str, Any]]:
    """MemoryPressure, DiskPressure, PIDPressure and Ready, in the kubelet's order.

    Reasons and messages are the kubelet's. Ready is ``KubeletReady`` with
    ``ready_message`` (default ``kubelet is posting ready status``) or
    ``KubeletNotReady`` with ``ready_message`` (default ``kubelet is not
    ready``); pressure does not make a node NotReady, as in Kubernetes.
    ``lastHeartbeatTime`` is ``now``; ``lastTransitionTime`` is kept from the
    ``previous`` condition of the same type when its status is unchanged, and
    is ``now`` otherwise. The kubelet's 5-minute pressure transition period is
    not applied: a condition clears at the first reading below threshold.
    """
    before: dict[str, Mapping[str, Any]] = {}
    for cond in previous or []:
        if isinstance(cond, Mapping) and isinstance(cond.get("type"), str):
            before[cond["type"]] = cond

    def make(kind: str, status: bool, reason: str, message: str) -> dict[str, Any]:
        text = "True" if status else "False"
        old = before.get(kind)
        since = now
        if old is not None and old.get("status") == text and old.get("lastTransitionTime"):
            since = str(old["lastTransitionTime"])
        return {"type": kind, "status": text, "lastHeartbeatTime": now,
                "lastTransitionTime": since, "reason": reason, "message": message}

    out = []
    for kind, under in pressures(readings).items():
        reason, message = _PRESSURE[kind][1 if under else 0]
        out.append(make(kind, under, reason, message))
    if ready:
        out.append(make("Ready", True, "KubeletReady",
                        ready_message or "kubelet is posting ready status"))
    else:
        out.append(make("Ready", False, "KubeletNotReady", ready_message or "kubelet is not ready"))
    return out
