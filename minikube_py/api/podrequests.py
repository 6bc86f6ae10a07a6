"""Pod resource requests, computed the way Kubernetes computes them: the one
place the scheduler, the kubelet's admission, ``describe`` and the dashboard
ask.

This is ``k8s.io/component-helpers/resource.PodRequests`` as kube-scheduler
v1.32 calls it (pod-level resources and in-place resize are alpha there, so
off):

* App containers run together, so their requests are **summed**.
* Init containers run one at a time, so each one only needs to fit **while it
  runs**: ``InitContainerUse(i) = sum(restartable init containers before i) +
  requests of init container i``. A restartable init container (a *sidecar*,
  ``restartPolicy: Always``) keeps running, so it is also added to the sum of
  the app containers.
* The pod needs ``max(sum(app) + sum(sidecars), max_i InitContainerUse(i))``
  per resource, plus ``spec.overhead``.

Quantities are added exactly (in nano-units) and rounded only at the end, as
Go adds ``resource.Quantity`` values and calls ``MilliValue()`` for cpu and
``Value()`` for everything else (both round up).

The *non-zero* variant is what scoring uses: a container that does not
mention cpu (memory) counts as requesting 100m (200Mi). Only a *missing* key
gets the default; an explicit ``"0"`` stays zero, exactly like Kubernetes'
``NonMissingContainerRequests``.

Unparsable quantities are skipped: validation rejects them before a pod
reaches the scheduler, and the scheduler must not crash on a stray object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol, TypeVar

from .access import items as _list
from .quantity import Quantity, QuantityError

__all__ = [
    "CPU",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "EPHEMERAL_STORAGE",
    "MEMORY",
    "PODS",
    "is_scalar_resource_name",
    "is_sidecar",
    "combine_containers",
    "pod_nonzero_requests",
    "pod_requests",
    "resource_list_values",
    "to_units",
]

CPU: Final = "cpu"
MEMORY: Final = "memory"
EPHEMERAL_STORAGE: Final = "ephemeral-storage"
PODS: Final = "pods"

#: ``schedutil.DefaultMilliCPURequest``: 0.1 core for a container without a cpu request.
DEFAULT_MILLI_CPU_REQUEST: Final = 100
#: ``schedutil.DefaultMemoryRequest``: 200 MiB for a container without a memory request.
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024

_NANO: Final = 10**9
_MILLI_NANOS: Final = 10**6
_NONZERO_NANOS: Final[dict[str, int]] = {
    CPU: DEFAULT_MILLI_CPU_REQUEST * _MILLI_NANOS,
    MEMORY: DEFAULT_MEMORY_REQUEST * _NANO,
}


def is_scalar_resource_name(name: str) -> bool:
    """``schedutil.IsScalarResourceName``: extended, hugepages, prefixed-native
    or attachable-volume resources; the scheduler accounts these per name.

    Extended resources are domain-qualified names outside ``kubernetes.io/``
    (``nvidia.com/gpu``); names without a slash that are not ``hugepages-*``
    or ``attachable-volumes-*`` (e.g. a typo like ``gpu``) are ignored, as in
    Kubernetes.
    """
    if name.startswith(("hugepages-", "attachable-volumes-")):
        return True
    if "/" not in name:
        return False
    # Native prefixed ("kubernetes.io/...") and extended names both count;
    # only the quota-style "requests.*" names are excluded.
    return not name.startswith("requests.")


def is_sidecar(container: Mapping[str, Any]) -> bool:
    """A restartable init container (``restartPolicy: Always``)."""
    return container.get("restartPolicy") == "Always"


def _list_nanos(resources: object) -> dict[str, int]:
    out: dict[str, int] = {}
    if not isinstance(resources, Mapping):
        return out
    for name, raw in resources.items():
        if not isinstance(name, str):
            continue
        try:
            out[name] = Quantity.parse(raw).nanos
        except (QuantityError, TypeError):
            continue
    return out


def _container_nanos(container: object, non_missing: bool) -> dict[str, int]:
    if not isinstance(container, Mapping):
        return {}
    res = container.get("resources")
    reqs = _list_nanos(res.get("requests") if isinstance(res, Mapping) else None)
    if non_missing:
        for name, default in _NONZERO_NANOS.items():
            if name not in reqs:
                reqs[name] = default
    return reqs


class _Summable(Protocol):
    def __add__(self, other: Any, /) -> Any: ...
    def __gt__(self, other: Any, /) -> bool: ...


V = TypeVar("V", bound=_Summable)


def _add(into: dict[str, V], other: Mapping[str, V]) -> None:
    for name, value in other.items():
        into[name] = into[name] + value if name in into else value


def _max(into: dict[str, V], other: Mapping[str, V]) -> None:
    for name, value in other.items():
        if name not in into or value > into[name]:
            into[name] = value




def combine_containers(spec: Mapping[str, Any],
                       of: Callable[[Mapping[str, Any]], dict[str, V]]) -> dict[str, V]:
    """What the pod's containers need together (overhead not included), from
    ``of(container)`` per container: the app containers and sidecars summed,
    or the peak of any init container's run if that is more (module
    contract). Works for any values that add and compare (nano-units, or
    :class:`Quantity`, which keeps its format for display)."""
    total: dict[str, V] = {}
    for container in _list(spec.get("containers")):
        if isinstance(container, Mapping):
            _add(total, of(container))
    sidecars: dict[str, V] = {}
    init_peak: dict[str, V] = {}
    for container in _list(spec.get("initContainers")):
        if not isinstance(container, Mapping):
            continue
        own = of(container)
        if is_sidecar(container):
            # A sidecar runs for the pod's whole life: it joins the app sum,
            # and while it starts, every earlier sidecar is running too.
            _add(total, own)
            _add(sidecars, own)
            use = dict(sidecars)
        else:
            use = dict(own)
            _add(use, sidecars)
        _max(init_peak, use)
    _max(total, init_peak)
    return total


def _pod_nanos(pod: Mapping[str, Any], non_missing: bool) -> dict[str, int]:
    spec = pod.get("spec")
    if not isinstance(spec, Mapping):
        return {}
    reqs = combine_containers(spec, lambda c: _container_nanos(c, non_missing))
    _add(reqs, _list_nanos(spec.get("overhead")))
    return reqs


def to_units(name: str, nanos: int) -> int:
    """Round like Go: ``MilliValue()`` for cpu, ``Value()`` otherwise (up, away from 0)."""
    unit = _MILLI_NANOS if name == CPU else _NANO
    q, r = divmod(abs(nanos), unit)
    if r:
        q += 1
    return q if nanos >= 0 else -q


def pod_requests(pod: Mapping[str, Any]) -> dict[str, int]:
    """The pod's effective requests: cpu in millicores, the rest in base units.

    Every resource any container (or the overhead) names appears, even with
    value 0, as in Kubernetes' ``ResourceList``.
    """
    return {name: to_units(name, v) for name, v in _pod_nanos(pod, False).items()}


def pod_nonzero_requests(pod: Mapping[str, Any]) -> tuple[int, int]:
    """``(milli_cpu, memory_bytes)`` with the 100m / 200Mi per-container defaults.

    A pod with no containers at all requests nothing (the defaults are per
    container), which is what Kubernetes' own test tables rely on.
    """
    nanos = _pod_nanos(pod, True)
    return to_units(CPU, nanos.get(CPU, 0)), to_units(MEMORY, nanos.get(MEMORY, 0))


def resource_list_values(resources: object) -> dict[str, int]:
    """A node's ``allocatable`` (or any ResourceList) rounded per resource."""
    return {name: to_units(name, v) for name, v in _list_nanos(resources).items()}

