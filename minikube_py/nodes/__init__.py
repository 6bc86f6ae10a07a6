"""Virtual nodes carved out of the host's real resources.

Contract
--------
* :class:`HostInfo` is what the host has (CPU, memory, PID budget, identity,
  primary IPv4, state-disk size); :class:`HostReadings` is how it is doing
  (free memory, free disk ratio, free PIDs). Both are frozen dataclasses built
  by hand in tests; only their ``read`` classmethods touch the machine, and
  they honour cgroup limits and CPU affinity.
* :func:`system_reserved` keeps a share of the host for the OS and the control
  plane: CPU ``100m`` + GKE's tiered CPU share; memory ``max(256Mi, 10% of the
  first 8Gi + 6% of the next 120Gi + 2% above)`` + the kubelet's 100Mi hard
  eviction threshold; never more than the host (table in :mod:`.sizing`).
* :func:`carve` (``--nodes N``) splits host minus reservation evenly into
  ``node-1..node-N`` (memory rounded down to whole Mi, so the nodes never sum
  to more than the allocatable), labelled ``minikube-py.io/node-index`` and
  ``minikube-py.io/primary``. ``N < 1`` or a share below 100m CPU / 128Mi
  raises :class:`NodeConfigError` saying how many nodes would fit.
* :func:`load_config` (``--nodes-config FILE``) reads nodes from YAML/JSON;
  every mistake is reported as ``FILE:LINE: nodes[I] (NAME): FIELD: PROBLEM``
  in one :class:`NodeConfigError`. With runtime ``podman`` the nodes must fit
  in the host's allocatable unless ``overcommit``; ``fake`` takes any size.
* :func:`node_object` builds the ``v1 Node`` (well-known labels, taints,
  canonical capacity = allocatable, addresses, kubelet port 10250, nodeInfo)
  and it passes :func:`minikube_py.api.validation.validate`. Allocatable
  equals capacity because the reservation is taken once, at the host level.
* :func:`node_conditions` gives MemoryPressure, DiskPressure, PIDPressure and
  Ready with the kubelet's reasons and messages, using the kubelet's default
  hard eviction thresholds (``memory.available<100Mi``, ``nodefs.available<10%``,
  ``imagefs.available<15%``; the state disk is both, so 15% decides) and
  ``PIDS_AVAILABLE_MIN`` (1000) free PIDs; ``lastTransitionTime`` survives
  while a status is unchanged.

This package imports only :mod:`minikube_py.api`, psutil and PyYAML.
"""

from __future__ import annotations

from .config import MANAGED_LABELS, RUNTIMES, load_config
from .host import PIDS_PER_POD, HostInfo, HostReadings, SharedReadings, go_arch, primary_ipv4
from .objects import (
    IMAGEFS_AVAILABLE_MIN,
    INSTANCE_TYPE,
    KUBELET_PORT,
    MEMORY_AVAILABLE_MIN,
    NODEFS_AVAILABLE_MIN,
    PIDS_AVAILABLE_MIN,
    node_conditions,
    node_object,
    pressures,
)
from .sizing import (
    DEFAULT_MAX_PODS,
    LABEL_NODE_INDEX,
    LABEL_PRIMARY,
    MIN_NODE_CPU_MILLIS,
    MIN_NODE_MEMORY_BYTES,
    NodeConfigError,
    NodeSpec,
    allocatable,
    carve,
    format_cpu,
    format_memory,
    system_reserved,
)

__all__ = [
    "DEFAULT_MAX_PODS",
    "IMAGEFS_AVAILABLE_MIN",
    "INSTANCE_TYPE",
    "KUBELET_PORT",
    "LABEL_NODE_INDEX",
    "LABEL_PRIMARY",
    "MANAGED_LABELS",
    "MEMORY_AVAILABLE_MIN",
    "MIN_NODE_CPU_MILLIS",
    "MIN_NODE_MEMORY_BYTES",
    "NODEFS_AVAILABLE_MIN",
    "PIDS_AVAILABLE_MIN",
    "PIDS_PER_POD",
    "RUNTIMES",
    "HostInfo",
    "HostReadings", "SharedReadings",
    "NodeConfigError",
    "NodeSpec",
    "allocatable",
    "carve",
    "format_cpu",
    "format_memory",
    "go_arch",
    "load_config",
    "node_conditions",
    "node_object",
    "pressures",
    "primary_ipv4",
    "system_reserved",
]
