"""LoadBalancer Services on one host: addresses from a local pool, as
``minikube tunnel`` and k3s' ServiceLB give a laptop.

A Service of type LoadBalancer (without a ``loadBalancerClass``, which would
name another implementation) gets ``status.loadBalancer.ingress`` =
``[{ip, ipMode: VIP}]`` with an address of the pool (``127.0.0.1`` by
default, ``--load-balancer-ips`` to change it). The data plane then serves
every service port on that address, so ``curl <ip>:<port>`` from this host
reaches the Service.

* One address serves a given port and protocol for one Service only: the
  Service gets the first address of the pool where all its ports are free
  (``spec.loadBalancerIP`` is honoured when it is in the pool and free; an
  address it already has is kept while its ports stay free).
* When no address has its ports free, the Service stays pending (kubectl
  prints ``<pending>``) with a ``LoadBalancerPending`` warning event saying
  why; it is looked at again whenever another Service changes.
* A Service that stops being a LoadBalancer loses its ingress.

One worker, so that two Services never take the same address and port at once.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..api.access import meta, spec_of, status_of
from ..api.jsoncopy import deep_copy
from ..client.base import Client
from ..client.events import EVENT_WARNING
from ..client.informer import Handlers, key_of
from ..client.shared import SharedInformers
from .base import Controller

__all__ = ["DEFAULT_POOL", "ServiceLBController"]

log = logging.getLogger(__name__)

DEFAULT_POOL: Final = ("127.0.0.1",)

PortKey = tuple[int, str]


def _is_ours(svc: Mapping[str, Any]) -> bool:
    spec = spec_of(svc)
    return spec.get("type") == "LoadBalancer" and not spec.get("loadBalancerClass")


def _ports(svc: Mapping[str, Any]) -> set[PortKey]:
    return {(int(p.get("port") or 0), str(p.get("protocol") or "TCP"))
            for p in spec_of(svc).get("ports") or [] if isinstance(p, Mapping)}


def _ingress_ips(svc: Mapping[str, Any]) -> list[str]:
    lb = status_of(svc).get("loadBalancer") or {}
    return [str(i.get("ip")) for i in lb.get("ingress") or [] if i.get("ip")]


class ServiceLBController(Controller):
    """See the module docstring."""

    name = "service-lb-controller"

    def __init__(self, client: Client, informers: SharedInformers, *,
                 pool: Sequence[str] = DEFAULT_POOL, **kwargs: Any) -> None:
        kwargs["workers"] = 1
        super().__init__(client, informers, **kwargs)
        self.pool = list(pool)
        self.services = informers.get("services")
        self.services.add_handlers(Handlers(on_add=self._changed,
                                            on_update=lambda old, new: self._changed(new),
                                            on_delete=self._changed))
        self.synced_before_start = (self.services,)

    def _changed(self, svc: Mapping[str, Any]) -> None:
        self.enqueue(key_of(svc))
        # A change may free an address some pending Service waits for.
        for other in self.services.list():
            if _is_ours(other) and not _ingress_ips(other):
                self.enqueue(key_of(other))

    def _taken(self, key: str) -> dict[str, set[PortKey]]:
        used: dict[str, set[PortKey]] = {}
        for other in self.services.list():
            if key_of(other) == key or not _is_ours(other):
                continue
            for ip in _ingress_ips(other):
                used.setdefault(ip, set()).update(_ports(other))
        return used

    def choose(self, svc: Mapping[str, Any]) -> str | None:
        """The pool address for ``svc`` (module docstring), ``None`` if none is free."""
        taken = self._taken(key_of(svc))
        wanted = _ports(svc)

        def free(ip: str) -> bool:
            return ip in self.pool and not (taken.get(ip, set()) & wanted)

        current = _ingress_ips(svc)
        if current and free(current[0]):
            return current[0]
        requested = str(spec_of(svc).get("loadBalancerIP") or "")
        if requested:
            return requested if free(requested) else None
        return next((ip for ip in self.pool if free(ip)), None)

    def reconcile(self, key: str) -> float | None:
        svc = self.services.get(key)
        if svc is None:
            return None
        if not _is_ours(svc):
            if spec_of(svc).get("type") != "LoadBalancer" and _ingress_ips(svc):
                self._write(svc, [])
            return None
        ip = self.choose(svc)
        if ip is None:
            if _ingress_ips(svc):
                self._write(svc, [])
            ports = ", ".join(f"{p}/{proto}" for p, proto in sorted(_ports(svc)))
            requested = spec_of(svc).get("loadBalancerIP")
            why = (f"the requested address {requested} is not in the pool or its ports are "
                   "taken" if requested else f"no address of the pool ({', '.join(self.pool)}) "
                   f"has {ports} free")
            self.event(svc, EVENT_WARNING, "LoadBalancerPending",
                       f"Service stays pending: {why}")
            return None
        if _ingress_ips(svc) != [ip]:
            self._write(svc, [{"ip": ip, "ipMode": "VIP"}])
        return None

    def _write(self, svc: Mapping[str, Any], ingress: list[dict[str, str]]) -> None:
        updated = deep_copy(dict(svc))
        status = updated.setdefault("status", {})
        status["loadBalancer"] = {"ingress": ingress} if ingress else {}
        self.client.update(updated, subresource="status")
        log.info("service %s/%s: load balancer %s", meta(svc).get("namespace"),
                 meta(svc).get("name"), ingress[0]["ip"] if ingress else "removed")
