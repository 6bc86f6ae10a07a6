"""Pod quality-of-service class, as Kubernetes computes ``status.qosClass``.

* **BestEffort**: no container (init or app) requests or limits cpu or memory.
* **Guaranteed**: every container has cpu and memory limits, and the pod's summed
  requests equal its summed limits for each of them (requests default to limits).
* **Burstable**: anything else.

Only cpu and memory count, and zero quantities count as unset, as in Kubernetes'
``GetPodQOS``. The kubelet uses the class for OOM scores and eviction order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .quantity import Quantity, QuantityError

_COMPUTE = ("cpu", "memory")


def _quantities(resources: Any) -> dict[str, Quantity]:
    out: dict[str, Quantity] = {}
    if not isinstance(resources, Mapping):
        return out
    for name in _COMPUTE:
        raw = resources.get(name)
        if raw is None:
            continue
        try:
            q = Quantity.parse(raw)
        except QuantityError:
            continue  # validation reports it; QoS just ignores what it cannot read
        if q.sign() > 0:
            out[name] = q
    return out


def qos_class(pod: Mapping[str, Any]) -> str:
    """``Guaranteed``, ``Burstable`` or ``BestEffort`` for a pod object."""
    spec = pod.get("spec") or {}
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    guaranteed = True
    containers = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
    for container in containers:
        res = (container or {}).get("resources") or {}
        for name, q in _quantities(res.get("requests")).items():
            requests[name] = requests[name] + q if name in requests else q
        container_limits = _quantities(res.get("limits"))
        for name, q in container_limits.items():
            limits[name] = limits[name] + q if name in limits else q
        if not all(name in container_limits for name in _COMPUTE):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and len(requests) == len(limits) and all(
            limits.get(name) == q for name, q in requests.items()):
        return "Guaranteed"
    return "Burstable"
