"""The Services every cluster has: ``default/kubernetes`` and ``kube-system/kube-dns``.

* ``kubernetes`` is kube-apiserver's own (its ``kubernetesservice`` controller
  and endpoint reconciler): cluster IP the first of the service CIDR, port
  ``https`` 443 to the API server's port on the address pods reach it at (the
  pod network's gateway), labels ``component=apiserver`` and
  ``provider=kubernetes``; the Endpoints and the EndpointSlice named
  ``kubernetes`` point there. On hollow nodes there is no such address: the
  Service exists (pods still get ``KUBERNETES_SERVICE_HOST``) without endpoints.
* ``kube-dns`` is what kubeadm's CoreDNS add-on creates: cluster IP the tenth
  of the range (``10.96.0.10``), ports ``dns`` 53/UDP and ``dns-tcp`` 53/TCP,
  labels ``k8s-app=kube-dns``, ``kubernetes.io/cluster-service=true`` (which
  ``kubectl cluster-info`` lists) and ``kubernetes.io/name=CoreDNS``. Its
  endpoint is the in-process DNS server on the gateway, so the Service has
  no selector and this controller writes its Endpoints and EndpointSlice. It
  exists only where the DNS server runs.

Level-triggered: whatever a user changes or deletes of these objects is put
back (kube-apiserver recreates ``kubernetes`` the same way).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..api.access import meta
from ..api.errors import AlreadyExists, Conflict, Invalid, NotFound
from ..api.jsoncopy import deep_copy
from ..client.base import Client
from ..client.shared import SharedInformers
from .base import Controller
from .endpointslice import SERVICE_NAME
from .endpointslicemirroring import SKIP_MIRROR

__all__ = ["ClusterService", "ClusterServicesController", "cluster_services"]

log = logging.getLogger(__name__)

MANAGED_BY: Final = "endpointslice.kubernetes.io/managed-by"
#: Who writes these objects (kube-apiserver's reconciler does not set managed-by
#: for ``kubernetes``; ours is named so that the EndpointSlice controller leaves
#: them alone).
OWNER: Final = "cluster-services.minikube-py.io"


@dataclass(frozen=True)
class ClusterService:
    """One system Service: where it is and where its endpoint is."""

    namespace: str
    name: str
    cluster_ip: str
    labels: Mapping[str, str]
    #: (name, service port, protocol, endpoint port)
    ports: Sequence[tuple[str, int, str, int]]
    #: The endpoint's address; ``""``: no endpoint (hollow nodes).
    endpoint_ip: str = ""


def cluster_services(*, kubernetes_ip: str, api_port: int, gateway: str,
                     dns_ip: str | None) -> list[ClusterService]:
    """The system Services of a cluster whose API server listens for pods on
    ``gateway:api_port`` (``gateway`` empty: nowhere) and, with ``dns_ip``,
    whose DNS server listens on ``gateway:53``."""
    out = [ClusterService("default", "kubernetes", kubernetes_ip,
                          {"component": "apiserver", "provider": "kubernetes"},
                          [("https", 443, "TCP", api_port)], gateway)]
    if dns_ip is not None:
        out.append(ClusterService("kube-system", "kube-dns", dns_ip,
                                  {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true",
                                   "kubernetes.io/name": "CoreDNS"},
                                  [("dns", 53, "UDP", 53), ("dns-tcp", 53, "TCP", 53)],
                                  gateway))
    return out


def _service(cs: ClusterService) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": cs.name, "namespace": cs.namespace, "labels": dict(cs.labels)},
            "spec": {"type": "ClusterIP", "clusterIP": cs.cluster_ip,
                     "clusterIPs": [cs.cluster_ip], "sessionAffinity": "None",
                     "ports": [{"name": n, "port": p, "protocol": proto, "targetPort": target}
                               for n, p, proto, target in cs.ports]}}


def _endpoints(cs: ClusterService) -> dict[str, Any]:
    # Its EndpointSlice is written here too: not for the mirroring controller.
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "Endpoints",
                            "metadata": {"name": cs.name, "namespace": cs.namespace,
                                         "labels": {**cs.labels, SKIP_MIRROR: "true"}}}
    if cs.endpoint_ip:
        body["subsets"] = [{"addresses": [{"ip": cs.endpoint_ip}],
                            "ports": [{"name": n, "port": target, "protocol": proto}
                                      for n, _, proto, target in cs.ports]}]
    return body


def _slice(cs: ClusterService) -> dict[str, Any]:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": cs.name, "namespace": cs.namespace,
                         "labels": {**cs.labels, SERVICE_NAME: cs.name, MANAGED_BY: OWNER}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": [cs.endpoint_ip],
                           "conditions": {"ready": True, "serving": True,
                                          "terminating": False}}] if cs.endpoint_ip else [],
            "ports": [{"name": n, "port": target, "protocol": proto}
                      for n, _, proto, target in cs.ports]}


def _differs(current: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Whether any field we set differs (the API adds defaults we leave alone)."""
    for field, value in wanted.items():
        if field in ("apiVersion", "kind"):
            continue
        if field == "metadata":
            labels = meta(current).get("labels") or {}
            if any(labels.get(k) != v for k, v in value.get("labels", {}).items()):
                return True
        elif field == "spec":
            spec = current.get("spec") or {}
            for key, want in value.items():
                have = spec.get(key)
                if key == "ports":
                    have = [{k: p.get(k) for k in ("name", "port", "protocol", "targetPort")}
                            for p in have or []]
                if have != want:
                    return True
        elif (current.get(field) or []) != (value or []):
            return True
    return False


def _merge(current: Mapping[str, Any], wanted: Mapping[str, Any]) -> dict[str, Any]:
    out = deep_copy(dict(current))
    for field, value in wanted.items():
        if field == "metadata":
            out["metadata"]["labels"] = {**(out["metadata"].get("labels") or {}),
                                         **value.get("labels", {})}
        elif field == "spec":
            out["spec"] = {**(out.get("spec") or {}), **value}
        else:
            out[field] = value
    return out


class ClusterServicesController(Controller):
    """Keeps :func:`cluster_services` as they should be (module docstring)."""

    name = "cluster-services"

    def __init__(self, client: Client, informers: SharedInformers, *,
                 services: Sequence[ClusterService], **kwargs: Any) -> None:
        kwargs["workers"] = 1
        super().__init__(client, informers, **kwargs)
        self.wanted = {f"{cs.namespace}/{cs.name}": cs for cs in services}
        self.informers_by_resource = {
            resource: self.watch(resource, key=self._mine)
            for resource in ("services", "endpoints", "endpointslices")}
        self.synced_before_start = tuple(self.informers_by_resource.values())
        for key in self.wanted:
            self.enqueue(key)

    def _mine(self, obj: Mapping[str, Any]) -> list[str] | None:
        key = f"{meta(obj).get('namespace')}/{meta(obj).get('name')}"
        return [key] if key in self.wanted else None

    def reconcile(self, key: str) -> float | None:
        cs = self.wanted.get(key)
        if cs is None:
            return None
        for resource, wanted in (("services", _service(cs)), ("endpoints", _endpoints(cs)),
                                 ("endpointslices", _slice(cs))):
            current = self.informers_by_resource[resource].get(key)
            if current is None:
                # Just created and not in the cache yet? (A second create of the
                # Service would fail on its cluster IP before its name.)
                with contextlib.suppress(NotFound):
                    current = self.client.get(resource, cs.namespace, cs.name)
            try:
                if current is None:
                    with contextlib.suppress(AlreadyExists):
                        self.client.create(wanted, namespace=cs.namespace)
                elif _differs(current, wanted):
                    if resource == "services" and \
                            (current.get("spec") or {}).get("clusterIP") != cs.cluster_ip:
                        # The cluster IP cannot change in place: make it anew.
                        with contextlib.suppress(NotFound):
                            self.client.delete(resource, cs.namespace, cs.name)
                        return 0.1
                    self.client.update(_merge(current, wanted))
            except Conflict:
                return 0.1
            except Invalid as exc:
                log.error("cannot keep %s %s as it should be: %s", resource, key, exc)
        return None
