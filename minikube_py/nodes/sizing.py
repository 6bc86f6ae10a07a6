"""Node sizes: the system reservation, even carving, and how sizes are printed.

The reservation rule (:func:`system_reserved`) follows the shape of GKE's and
AKS's kube-reserved tables -- a regressive share of each resource -- plus a
fixed amount for our own control plane, which runs on the same host:

CPU
    100m for the control plane (API server, scheduler, controllers, store)
    plus 6% of the first core, 1% of the second, 0.5% of cores 3-4 and 0.25%
    of every core above 4 (GKE's CPU table). 1 core -> 160m, 2 -> 170m,
    4 -> 180m, 8 -> 190m, 64 -> 330m.
Memory
    10% of the first 8Gi, 6% of the next 120Gi and 2% above 128Gi, at least
    256Mi, rounded up to a whole Mi; plus 100Mi, the kubelet's hard eviction
    threshold (``memory.available<100Mi``), which Kubernetes also subtracts
    from allocatable. 1Gi -> 356Mi, 4Gi -> 510Mi, 16Gi -> 1411Mi,
    64Gi -> 4360Mi.

Neither part is ever more than the host has.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from minikube_py.api.quantity import Quantity

from .host import HostInfo

__all__ = [
    "CONTROL_PLANE_CPU_MILLIS",
    "DEFAULT_MAX_PODS",
    "EVICTION_MEMORY_BYTES",
    "GI",
    "KI",
    "LABEL_NODE_INDEX",
    "LABEL_PRIMARY",
    "MIN_NODE_CPU_MILLIS",
    "MIN_NODE_MEMORY_BYTES",
    "MI",
    "NodeConfigError",
    "NodeSpec",
    "carve",
    "format_cpu",
    "format_memory",
    "system_labels",
    "system_reserved",
]

KI = 1024
MI = 1024 * KI
GI = 1024 * MI

#: kubelet's default ``--max-pods``.
DEFAULT_MAX_PODS = 110
#: Smallest node :func:`carve` makes (and a podman config file may ask for).
MIN_NODE_CPU_MILLIS = 100
MIN_NODE_MEMORY_BYTES = 128 * MI
#: CPU kept for the control plane on top of the tiered share.
CONTROL_PLANE_CPU_MILLIS = 100
#: kubelet's default hard eviction threshold ``memory.available<100Mi``.
EVICTION_MEMORY_BYTES = 100 * MI
#: Memory reservation floor (before the eviction threshold is added).
MEMORY_RESERVED_FLOOR = 256 * MI

#: Labels every node gets (node-index is 1-based; node 1 is the primary).
LABEL_NODE_INDEX = "minikube-py.io/node-index"
LABEL_PRIMARY = "minikube-py.io/primary"

_CPU_TIERS: tuple[tuple[int | None, Fraction], ...] = (
    (1000, Fraction(6, 100)),
    (1000, Fraction(1, 100)),
    (2000, Fraction(5, 1000)),
    (None, Fraction(25, 10000)),
)
_MEMORY_TIERS: tuple[tuple[int | None, Fraction], ...] = (
    (8 * GI, Fraction(10, 100)),
    (120 * GI, Fraction(6, 100)),
    (None, Fraction(2, 100)),
)


class NodeConfigError(ValueError):
    """Nodes cannot be made as asked; ``str(err)`` is the full message.

    ``errors`` holds one line per problem (a config file may have several).
    """

    def __init__(self, message: str, errors: tuple[str, ...] | None = None) -> None:
        super().__init__(message)
        self.errors: tuple[str, ...] = errors if errors is not None else (message,)


@dataclass(frozen=True)
class NodeSpec:
    """One virtual node: its name and its share of the host.

    ``labels`` and ``taints`` (``{"key", "value", "effect"}`` mappings) are the
    node's own; :func:`~minikube_py.nodes.node_object` adds the well-known
    ``kubernetes.io`` labels. They take no part in hashing.
    """

    name: str
    cpu_millis: int
    memory_bytes: int
    pods: int = DEFAULT_MAX_PODS
    labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    taints: tuple[Mapping[str, str], ...] = field(default=(), hash=False)


# --------------------------------------------------------------- formatting


def format_cpu(millis: int) -> str:
    """CPU as a canonical quantity: ``1500m``, ``2``."""
    return str(Quantity.from_milli(millis))


def format_memory(n: int) -> str:
    """Memory for people: exact when whole Gi or Mi (``4Gi``, ``3918Mi``),
    else one decimal (``7.6Gi``), bytes below 1Mi."""
    sign, n = ("-" if n < 0 else ""), abs(n)
    if n >= GI and n % GI == 0:
        return f"{sign}{n // GI}Gi"
    if n >= GI:
        return f"{sign}{n / GI:.1f}Gi"
    if n >= MI and n % MI == 0:
        return f"{sign}{n // MI}Mi"
    if n >= MI:
        return f"{sign}{n / MI:.1f}Mi"
    return f"{sign}{n} bytes"


# -------------------------------------------------------------- reservation


def _tiered(total: int, tiers: tuple[tuple[int | None, Fraction], ...]) -> Fraction:
    reserved, left = Fraction(0), total
    for size, rate in tiers:
        part = left if size is None else min(left, size)
        reserved += part * rate
        left -= part
        if left <= 0:
            break
    return reserved


def system_reserved(host: HostInfo) -> tuple[int, int]:
    """(CPU millis, memory bytes) kept for the host OS and the control plane.

    See the module docstring for the rule; never more than the host has.
    """
    cpu = CONTROL_PLANE_CPU_MILLIS + math.ceil(_tiered(max(0, host.cpu_millis), _CPU_TIERS))
    tiered = math.ceil(_tiered(max(0, host.memory_bytes), _MEMORY_TIERS) / MI) * MI
    memory = max(MEMORY_RESERVED_FLOOR, tiered) + EVICTION_MEMORY_BYTES
    return min(cpu, max(0, host.cpu_millis)), min(memory, max(0, host.memory_bytes))


def allocatable(host: HostInfo) -> tuple[int, int]:
    """(CPU millis, memory bytes) left for nodes: the host minus the reservation."""
    cpu, memory = system_reserved(host)
    return host.cpu_millis - cpu, host.memory_bytes - memory


def describe_allocatable(host: HostInfo) -> str:
    """``3820m CPU and 7.5Gi memory (host 4 CPU / 8Gi minus 180m / 510Mi reserved)``."""
    res_cpu, res_mem = system_reserved(host)
    alloc_cpu, alloc_mem = allocatable(host)
    return (f"{format_cpu(alloc_cpu)} CPU and {format_memory(alloc_mem)} memory "
            f"(host {format_cpu(host.cpu_millis)} CPU / {format_memory(host.memory_bytes)} "
            f"minus {format_cpu(res_cpu)} / {format_memory(res_mem)} reserved for the system "
            f"and control plane)")


# ------------------------------------------------------------------ carving


def system_labels(index: int) -> dict[str, str]:
    """The labels every node gets; ``index`` is 1-based."""
    return {LABEL_NODE_INDEX: str(index), LABEL_PRIMARY: "true" if index == 1 else "false"}


def carve(count: int, host: HostInfo) -> list[NodeSpec]:
    """``--nodes N``: split the host's allocatable evenly into ``node-1..node-N``.

    Each node gets ``allocatable_cpu // N`` millicores and
    ``allocatable_memory // N`` rounded down to a whole Mi, so the nodes never
    add up to more than the allocatable; the few left-over millicores and
    bytes stay with the host. Pods per node: ``min(110, host.pods_max // N)`` (``pods_max`` is the
    host's PID budget over ``PIDS_PER_POD``).
    Nodes are labelled :data:`LABEL_NODE_INDEX` and :data:`LABEL_PRIMARY`.
    Raises :class:`NodeConfigError` when ``count < 1`` or a share falls below
    100m CPU / 128Mi memory.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise NodeConfigError(f"--nodes must be at least 1, got {count!r}")
    alloc_cpu, alloc_mem = allocatable(host)
    cpu_each = alloc_cpu // count
    mem_each = alloc_mem // count // MI * MI
    if cpu_each < MIN_NODE_CPU_MILLIS or mem_each < MIN_NODE_MEMORY_BYTES:
        fits = min(alloc_cpu // MIN_NODE_CPU_MILLIS, alloc_mem // MIN_NODE_MEMORY_BYTES)
        advice = (f"use --nodes {fits} or fewer" if fits >= 1
                  else "this host is too small for even one node")
        raise NodeConfigError(
            f"--nodes {count}: each node would get {format_cpu(cpu_each)} CPU and "
            f"{format_memory(mem_each)} memory, below the minimum of "
            f"{format_cpu(MIN_NODE_CPU_MILLIS)} CPU and {format_memory(MIN_NODE_MEMORY_BYTES)} "
            f"per node; the host has {describe_allocatable(host)}; {advice}"
        )
    pods = max(1, min(DEFAULT_MAX_PODS, host.pods_max // count))
    return [
        NodeSpec(name=f"node-{i}", cpu_millis=cpu_each, memory_bytes=mem_each, pods=pods,
                 labels=system_labels(i))
        for i in range(1, count + 1)
    ]
