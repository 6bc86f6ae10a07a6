"""What cluster DNS knows of the cluster: small frozen views of Services,
EndpointSlices and Namespaces, and the maps that find them by name and by IP.

A view is built from the Kubernetes-shaped JSON dict the API serves the moment
it arrives and keeps only what DNS answers from (as CoreDNS's
``object.ToService`` / ``EndpointSliceToEndpoints`` do), so the caller's dict
is never held and never mutated. :class:`Index` is a plain container: it does
no locking (``records.ClusterRecords`` serialises access) and every mutator
reports whether anything changed, which moves the zone's SOA serial.

Defaults the API server would have filled in are assumed when a field is
absent: a port's protocol is TCP, a Service's type is ClusterIP. An endpoint
with ``conditions.ready`` absent is ready (the API's "unknown, treat as ready").
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import dns.exception
import dns.name

__all__ = ["NO_PORT", "EndpointView", "Index", "PortView", "ServiceView", "SliceView",
           "canonical_ip", "meta_key", "service_view", "slice_view"]

#: CoreDNS's port sentinel for a Service or slice that declares no port: such
#: entries answer address questions but never produce an SRV record.
NO_PORT = -1

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
# An endpoint hostname is one DNS label (the API validates it as RFC 1123).
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")

Key = tuple[str, str]  # (namespace, name)


@dataclass(frozen=True)
class PortView:
    name: str
    port: int
    protocol: str


_PORTLESS = (PortView("", NO_PORT, ""),)


@dataclass(frozen=True)
class ServiceView:
    namespace: str
    name: str
    type: str
    cluster_ips: tuple[str, ...]  # canonical, valid only; empty if headless
    headless: bool
    external_name: str  # absolute name text, or "" (none, or not a name)
    ports: tuple[PortView, ...]  # never empty: a portless service has NO_PORT
    publish_not_ready: bool


@dataclass(frozen=True)
class EndpointView:
    ip: str  # canonical text form
    hostname: str  # a valid DNS label, or ""
    ready: bool


@dataclass(frozen=True)
class SliceView:
    namespace: str
    name: str
    service: str
    ports: tuple[PortView, ...]  # never empty, as ServiceView.ports
    endpoints: tuple[EndpointView, ...]


@dataclass
class Index:
    """Namespaces, services and slices by key, plus the reverse maps PTR and
    NS answers need. Not thread-safe on its own."""

    namespaces: set[str] = field(default_factory=set)
    services: dict[Key, ServiceView] = field(default_factory=dict)
    slices: dict[Key, SliceView] = field(default_factory=dict)
    # (namespace, service name) -> keys of its slices: a service has several
    slices_of: dict[Key, set[Key]] = field(default_factory=dict)
    by_cluster_ip: dict[str, set[Key]] = field(default_factory=dict)
    by_endpoint_ip: dict[str, set[Key]] = field(default_factory=dict)

    # ------------------------------------------------------------ mutators

    def put_namespace(self, name: str) -> bool:
        if name in self.namespaces:
            return False
        self.namespaces.add(name)
        return True

    def remove_namespace(self, name: str) -> bool:
        if name not in self.namespaces:
            return False
        self.namespaces.discard(name)
        return True

    def put_service(self, view: ServiceView) -> bool:
        key = (view.namespace, view.name)
        old = self.services.get(key)
        if old == view:
            return False
        if old is not None:
            self.remove_service(key)
        self.services[key] = view
        for ip in view.cluster_ips:
            self.by_cluster_ip.setdefault(ip, set()).add(key)
        return True

    def remove_service(self, key: Key) -> bool:
        old = self.services.pop(key, None)
        if old is None:
            return False
        for ip in old.cluster_ips:
            _discard(self.by_cluster_ip, ip, key)
        return True

    def put_slice(self, key: Key, view: SliceView | None) -> bool:
        """Store the slice at ``key``; None (no service label) removes it."""
        old = self.slices.get(key)
        if old == view:
            return False
        self.remove_slice(key)
        if view is not None:
            self.slices[key] = view
            self.slices_of.setdefault((view.namespace, view.service), set()).add(key)
            for ep in view.endpoints:
                self.by_endpoint_ip.setdefault(ep.ip, set()).add(key)
        return True

    def remove_slice(self, key: Key) -> bool:
        old = self.slices.pop(key, None)
        if old is None:
            return False
        _discard(self.slices_of, (old.namespace, old.service), key)
        for ep in old.endpoints:
            _discard(self.by_endpoint_ip, ep.ip, key)
        return True

    # -------------------------------------------------------------- queries

    def slices_for(self, svc: ServiceView) -> list[SliceView]:
        """The service's slices, in a stable order (by slice name)."""
        keys = self.slices_of.get((svc.namespace, svc.name), ())
        return [self.slices[k] for k in sorted(keys)]

    def services_at(self, ip: str) -> list[ServiceView]:
        """Services whose ClusterIPs include ``ip`` (canonical form)."""
        return [self.services[k] for k in sorted(self.by_cluster_ip.get(ip, ()))]

    def slices_at(self, ip: str) -> list[SliceView]:
        """Slices with an endpoint at ``ip`` (canonical form), ready or not."""
        return [self.slices[k] for k in sorted(self.by_endpoint_ip.get(ip, ()))]


# ------------------------------------------------------------------ views


def meta_key(obj: Mapping[str, Any]) -> Key:
    """``(metadata.namespace, metadata.name)``; "" for what is missing."""
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def service_view(svc: Mapping[str, Any]) -> ServiceView:
    """The DNS view of a core/v1 Service dict."""
    namespace, name = meta_key(svc)
    spec = svc.get("spec") or {}
    raw_ips = list(spec.get("clusterIPs") or []) or [spec.get("clusterIP") or ""]
    headless = raw_ips[0] == "None"
    ips = tuple(ip for ip in (canonical_ip(str(x)) for x in raw_ips) if ip is not None)
    ports = tuple(
        PortView(str(p.get("name") or ""), int(p.get("port") or 0),
                 str(p.get("protocol") or "TCP"))
        for p in spec.get("ports") or ())
    return ServiceView(
        namespace=namespace, name=name, type=str(spec.get("type") or "ClusterIP"),
        cluster_ips=() if headless else ips, headless=headless,
        external_name=_absolute_name(str(spec.get("externalName") or "")),
        ports=ports or _PORTLESS,
        publish_not_ready=bool(spec.get("publishNotReadyAddresses")))


def slice_view(slice_: Mapping[str, Any]) -> SliceView | None:
    """The DNS view of a discovery.k8s.io/v1 EndpointSlice dict; None when it
    has no ``kubernetes.io/service-name`` label (it then names nothing)."""
    namespace, name = meta_key(slice_)
    labels = (slice_.get("metadata") or {}).get("labels") or {}
    service = labels.get(SERVICE_NAME_LABEL)
    if not service:
        return None
    ports = tuple(
        # A port without a number is NO_PORT (no SRV record), as in CoreDNS.
        PortView(str(p.get("name") or ""),
                 int(p["port"]) if p.get("port") is not None else NO_PORT,
                 str(p.get("protocol") or "TCP"))
        for p in slice_.get("ports") or ())
    endpoints: list[EndpointView] = []
    for ep in slice_.get("endpoints") or ():
        ready = (ep.get("conditions") or {}).get("ready")
        hostname = str(ep.get("hostname") or "")
        for address in ep.get("addresses") or ():
            ip = canonical_ip(str(address))
            if ip is None:
                continue  # an FQDN slice serves no address record
            endpoints.append(EndpointView(
                ip=ip, hostname=hostname if _DNS_LABEL.fullmatch(hostname) else "",
                ready=ready is None or bool(ready)))
    return SliceView(namespace=namespace, name=name, service=str(service),
                     ports=ports or _PORTLESS, endpoints=tuple(endpoints))


def canonical_ip(text: str) -> str | None:
    """``text`` as a canonical IPv4/IPv6 address, or None if it is not one."""
    if "%" in text:
        return None  # a scoped (link-local) address is no cluster address
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def _absolute_name(text: str) -> str:
    """An ExternalName as absolute name text; an IP stays as it is (CoreDNS
    then serves nothing for it); "" if it is no name at all (the API validates
    it, this keeps a bad one from failing every lookup)."""
    if not text or canonical_ip(text) is not None:
        return text
    try:
        return dns.name.from_text(text).to_text()
    except dns.exception.DNSException:
        return ""


def _discard(index: dict[Any, set[Key]], key: Any, value: Key) -> None:
    members = index.get(key)
    if members is not None:
        members.discard(value)
        if not members:
            del index[key]
