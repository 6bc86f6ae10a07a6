"""EndpointSlice mirroring: hand-written Endpoints of selectorless Services become
EndpointSlices (``pkg/controller/endpointslicemirroring``, v1.32).

A Service without a selector is its owner's to fill, and owners write the
classic ``Endpoints`` object (an external database, a host service). The data
plane and cluster DNS read EndpointSlices only, so this controller mirrors:

* for an Endpoints object whose Service exists and has **no selector**, and
  which is not labelled ``endpointslice.kubernetes.io/skip-mirror: "true"``
  (the control plane's own ``kubernetes`` and ``kube-dns`` Endpoints are);
* each subset becomes endpoints of one slice per port set: ``addresses`` ready,
  ``notReadyAddresses`` not ready, with hostname, nodeName and targetRef;
  IPv4 addresses only (this cluster is IPv4 single-stack); at most 1,000
  addresses per Endpoints, as Kubernetes' ``--mirroring-max-endpoints-per-subset``;
* slices are named ``<service>-<random>``, labelled with the Endpoints' labels,
  ``kubernetes.io/service-name`` and ``endpointslice.kubernetes.io/managed-by:
  endpointslicemirroring-controller.k8s.io``, and owned by the Service;
* they are written only when their content changes, and removed when the
  Endpoints or the Service goes, or the Service gets a selector.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Mapping
from typing import Any, Final

from ..api.access import labels_of, meta, spec_of, uid_of
from ..api.errors import NotFound
from ..api.jsoncopy import deep_copy
from ..client.base import Client, Object
from ..client.informer import key_of
from ..client.shared import SharedInformers
from .base import Controller
from .endpointslice import MANAGED_BY, SERVICE_NAME

__all__ = ["MIRROR_CONTROLLER", "SKIP_MIRROR", "EndpointSliceMirroringController"]

MIRROR_CONTROLLER: Final = "endpointslicemirroring-controller.k8s.io"
SKIP_MIRROR: Final = "endpointslice.kubernetes.io/skip-mirror"
MAX_ADDRESSES: Final = 1000

PortSet = tuple[tuple[str, int, str], ...]


def _is_ipv4(value: Any) -> bool:
    try:
        ipaddress.IPv4Address(str(value))
    except ValueError:
        return False
    return True


def _endpoint(address: Mapping[str, Any], ready: bool) -> dict[str, Any]:
    endpoint: dict[str, Any] = {"addresses": [str(address["ip"])],
                                "conditions": {"ready": ready}}
    for field in ("hostname", "nodeName", "targetRef"):
        if address.get(field):
            endpoint[field] = deep_copy(address[field])
    return endpoint


def mirrored(endpoints: Mapping[str, Any]) -> dict[PortSet, tuple[list[dict[str, Any]],
                                                                 list[dict[str, Any]]]]:
    """Port set -> (slice ports, slice endpoints) for an Endpoints object."""
    out: dict[PortSet, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    budget = MAX_ADDRESSES
    for subset in endpoints.get("subsets") or []:
        ports = [{"name": str(p.get("name") or ""), "port": p.get("port"),
                  "protocol": str(p.get("protocol") or "TCP")}
                 for p in subset.get("ports") or []]
        key: PortSet = tuple(sorted((p["name"], int(p["port"] or 0), p["protocol"])
                                    for p in ports))
        slot = out.setdefault(key, (ports, []))
        for field, ready in (("addresses", True), ("notReadyAddresses", False)):
            for address in subset.get(field) or []:
                if budget <= 0 or not _is_ipv4(address.get("ip")):
                    continue
                slot[1].append(_endpoint(address, ready))
                budget -= 1
    return out


class EndpointSliceMirroringController(Controller):
    """See the module docstring."""

    name = "endpointslicemirroring-controller"

    def __init__(self, client: Client, informers: SharedInformers, **kwargs: Any) -> None:
        super().__init__(client, informers, **kwargs)
        self.endpoints = self.watch("endpoints")
        self.services = self.watch("services")
        self.slices = self.watch("endpointslices", key=self._owner_key)
        self.synced_before_start = (self.endpoints, self.services, self.slices)

    @staticmethod
    def _owner_key(obj: Mapping[str, Any]) -> list[str] | None:
        if labels_of(obj).get(MANAGED_BY) != MIRROR_CONTROLLER:
            return None
        return [f"{meta(obj).get('namespace')}/{labels_of(obj).get(SERVICE_NAME)}"]

    def _mine(self, namespace: str, name: str) -> list[Object]:
        return [s for s in self.slices.list()
                if meta(s).get("namespace") == namespace
                and labels_of(s).get(SERVICE_NAME) == name
                and labels_of(s).get(MANAGED_BY) == MIRROR_CONTROLLER]

    def reconcile(self, key: str) -> float | None:
        namespace, _, name = key.partition("/")
        svc = self.services.get(key)
        endpoints = self.endpoints.get(key)
        existing = self._mine(namespace, name)
        wanted: dict[PortSet, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
        if svc is not None and endpoints is not None and not spec_of(svc).get("selector") \
                and labels_of(endpoints).get(SKIP_MIRROR) != "true":
            wanted = {k: v for k, v in mirrored(endpoints).items() if v[1]}
        labels = {k: v for k, v in labels_of(endpoints or {}).items()
                  if k not in (SKIP_MIRROR, SERVICE_NAME, MANAGED_BY)}
        labels.update({SERVICE_NAME: name, MANAGED_BY: MIRROR_CONTROLLER})
        by_ports = {tuple(sorted((str(p.get("name") or ""), int(p.get("port") or 0),
                                  str(p.get("protocol") or "TCP"))
                                 for p in s.get("ports") or [])): s for s in existing}
        for port_set, (ports, eps) in wanted.items():
            current = by_ports.pop(port_set, None)
            assert svc is not None
            owner = {"apiVersion": "v1", "kind": "Service", "name": name, "uid": uid_of(svc),
                     "controller": True, "blockOwnerDeletion": True}
            if current is None:
                self.client.create({
                    "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                    "metadata": {"generateName": f"{name}-", "namespace": namespace,
                                 "labels": labels, "ownerReferences": [owner]},
                    "addressType": "IPv4", "ports": ports, "endpoints": eps},
                    namespace=namespace)
            elif (dict(labels_of(current)), current.get("ports") or [],
                  current.get("endpoints") or []) != (labels, ports, eps):
                updated = deep_copy(current)
                updated["metadata"]["labels"] = labels
                updated["metadata"]["ownerReferences"] = [owner]
                updated["ports"], updated["endpoints"] = ports, eps
                self.client.update(updated)
        for stale in by_ports.values():
            with contextlib.suppress(NotFound):
                self.client.delete("endpointslices", namespace, key_of(stale).partition("/")[2])
        return None
