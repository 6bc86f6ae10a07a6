"""Typed, precomputed views of Services and EndpointSlices for the data plane.

:func:`from_objects` turns the Kubernetes-shaped JSON dicts the API serves
(core/v1 ``Service``, discovery.k8s.io/v1 ``EndpointSlice``) into one
:class:`ServicePort` per service port, each carrying the endpoints traffic to it
may reach. The rule builder (:mod:`.rules`) then only reads these frozen values.

What is kept, and how (kube-proxy's ``pkg/proxy`` change trackers and
``CategorizeEndpoints``, reduced to one IPv4 host):

* Services of type ExternalName, headless Services (``clusterIP: None``) and
  Services without an IPv4 ClusterIP yet produce nothing.
* A port is identified by its ``name`` and ``protocol`` (TCP, UDP, SCTP). A slice
  port belongs to a service port when both match; its ``port`` number is the
  target port, already resolved by the EndpointSlice controller (so a named
  ``targetPort`` is honoured through the slice, as in Kubernetes; the Service's own
  ``targetPort`` is never read).
* A slice belongs to the Service named by its ``kubernetes.io/service-name``
  label in the same namespace; slices without the label, with an addressType other
  than IPv4, or whose ports are unspecified are ignored. Several slices of one
  Service are merged; an address seen twice counts once.
* Endpoint choice for cluster traffic: the ready endpoints; if none is ready, the
  endpoints that are serving and terminating (so connections keep working while
  the last pods drain). ``ready``/``serving`` absent count as true,
  ``terminating`` absent as false, as the discovery API documents.
* ``externalTrafficPolicy: Local`` and ``internalTrafficPolicy: Local`` are treated
  as ``Cluster``: every pod runs on this one host, so every endpoint is local and
  the two policies select the same endpoints. (The client source address is not
  preserved for external traffic; nothing here reaches the host from outside.)
* NodePorts count for types NodePort and LoadBalancer; LoadBalancer ingress IPs
  (``status.loadBalancer.ingress[].ip``, unless ``ipMode: Proxy``) only for type
  LoadBalancer; ``spec.externalIPs`` for every type but ExternalName.
* ``sessionAffinity: ClientIP`` gives :attr:`ServicePort.affinity_timeout`, from
  ``sessionAffinityConfig.clientIP.timeoutSeconds`` (default 10800 s).

Malformed fields (a port that is not an integer, an address that is not IPv4) are
skipped, never raised: the API validated the objects, and one odd object must not
stop the data plane of every other Service.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: The label tying an EndpointSlice to its Service.
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
#: Kubernetes' default ClientIP affinity timeout (3 hours).
DEFAULT_AFFINITY_TIMEOUT = 10800
PROTOCOLS = ("TCP", "UDP", "SCTP")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One backend of a service port: where a connection is DNATed to."""

    ip: str
    port: int


@dataclass(frozen=True, slots=True)
class ServicePort:
    """One port of one Service, with everything the rules need about it.

    ``protocol`` is lower case (``tcp``, ``udp``, ``sctp``), as nftables spells it.
    ``node_port`` is 0 when there is none, ``affinity_timeout`` 0 without ClientIP
    affinity. ``endpoints`` are the usable ones only, sorted by address; empty
    means connections to this port are refused.
    """

    namespace: str
    name: str
    port_name: str
    protocol: str
    cluster_ip: str
    port: int
    node_port: int = 0
    load_balancer_ips: tuple[str, ...] = ()
    external_ips: tuple[str, ...] = ()
    affinity_timeout: int = 0
    endpoints: tuple[Endpoint, ...] = ()

    @property
    def key(self) -> str:
        """``namespace/name:port`` (kube-proxy's ServicePortName), for comments."""
        return f"{self.namespace}/{self.name}:{self.port_name}"


def from_objects(services: Iterable[Mapping[str, Any]],
                 slices: Iterable[Mapping[str, Any]]) -> tuple[ServicePort, ...]:
    """The service ports of ``services`` with their endpoints from ``slices``.

    Objects are API dicts (as listed or watched). The result is sorted by
    (namespace, name, port name, protocol), so equal inputs give equal outputs
    whatever the order of the lists.
    """
    # (namespace, service) -> (port name, PROTOCOL) -> {(ip, port): usable-kind}
    index = _index_slices(slices)
    out: list[ServicePort] = []
    for svc in services:
        out.extend(_service_ports(svc, index))
    out.sort(key=lambda sp: (sp.namespace, sp.name, sp.port_name, sp.protocol))
    return tuple(out)


# -- EndpointSlices ---------------------------------------------------------------

#: Per (ip, port): (ready, serving-and-terminating).
_EndpointFlags = dict[tuple[str, int], tuple[bool, bool]]
_SliceIndex = dict[tuple[str, str], dict[tuple[str, str], _EndpointFlags]]


def _index_slices(slices: Iterable[Mapping[str, Any]]) -> _SliceIndex:
    index: _SliceIndex = {}
    for sl in slices:
        meta = sl.get("metadata") or {}
        service = (meta.get("labels") or {}).get(SERVICE_NAME_LABEL)
        if not service or sl.get("addressType", "IPv4") != "IPv4":
            continue
        ports = [(str(p.get("name") or ""), str(p.get("protocol") or "TCP").upper(),
                  _port(p.get("port")))
                 for p in (sl.get("ports") or []) if isinstance(p, Mapping)]
        ports = [p for p in ports if p[2]]
        if not ports:
            continue
        endpoints = [_endpoint_flags(ep) for ep in (sl.get("endpoints") or [])
                     if isinstance(ep, Mapping)]
        by_port = index.setdefault((str(meta.get("namespace") or "default"), service), {})
        for port_name, protocol, number in ports:
            merged = by_port.setdefault((port_name, protocol), {})
            for flags in endpoints:
                if flags is None:
                    continue
                ip, ready, serving_terminating = flags
                old = merged.get((ip, number))
                if old is not None:
                    # The same address in two slices (a pod moving between slices
                    # during a controller's rewrite): the best condition wins.
                    ready, serving_terminating = old[0] or ready, old[1] or serving_terminating
                merged[(ip, number)] = (ready, serving_terminating)
    return index


def _endpoint_flags(ep: Mapping[str, Any]) -> tuple[str, bool, bool] | None:
    addresses = ep.get("addresses") or []
    # kube-proxy uses the first address only: the others are, by the API's own
    # rules, the same endpoint.
    if not addresses or not _is_ipv4(addresses[0]):
        return None
    cond = ep.get("conditions") or {}
    ready = cond.get("ready") is not False
    serving = cond.get("serving") is not False
    terminating = cond.get("terminating") is True
    return str(addresses[0]), ready, serving and terminating


def _usable(flags: _EndpointFlags) -> tuple[Endpoint, ...]:
    """kube-proxy's CategorizeEndpoints for cluster traffic."""
    chosen = [key for key, (ready, _) in flags.items() if ready]
    if not chosen:
        chosen = [key for key, (_, serving_terminating) in flags.items() if serving_terminating]
    chosen.sort(key=lambda k: (ipaddress.IPv4Address(k[0]), k[1]))
    return tuple(Endpoint(ip, port) for ip, port in chosen)


# -- Services --------------------------------------------------------------------

def _service_ports(svc: Mapping[str, Any], index: _SliceIndex) -> list[ServicePort]:
    meta = svc.get("metadata") or {}
    spec = svc.get("spec") or {}
    svc_type = spec.get("type") or "ClusterIP"
    if svc_type == "ExternalName":
        return []
    cluster_ip = _cluster_ipv4(spec)
    if cluster_ip is None:
        return []
    namespace, name = str(meta.get("namespace") or "default"), str(meta.get("name") or "")
    external_ips = _ipv4s(spec.get("externalIPs") or [])
    lb_ips: tuple[str, ...] = ()
    if svc_type == "LoadBalancer":
        ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        lb_ips = _ipv4s(i.get("ip") for i in ingress
                        if isinstance(i, Mapping) and i.get("ipMode", "VIP") == "VIP")
    timeout = 0
    if spec.get("sessionAffinity") == "ClientIP":
        cfg = (spec.get("sessionAffinityConfig") or {}).get("clientIP") or {}
        raw = cfg.get("timeoutSeconds")
        timeout = raw if isinstance(raw, int) and raw > 0 else DEFAULT_AFFINITY_TIMEOUT
    by_port = index.get((namespace, name), {})
    out = []
    for p in spec.get("ports") or []:
        if not isinstance(p, Mapping) or not _port(p.get("port")):
            continue
        protocol = str(p.get("protocol") or "TCP").upper()
        if protocol not in PROTOCOLS:
            continue
        port_name = str(p.get("name") or "")
        node_port = _port(p.get("nodePort")) if svc_type in ("NodePort", "LoadBalancer") else 0
        out.append(ServicePort(
            namespace=namespace, name=name, port_name=port_name, protocol=protocol.lower(),
            cluster_ip=cluster_ip, port=p["port"],
            node_port=node_port,
            load_balancer_ips=lb_ips, external_ips=external_ips, affinity_timeout=timeout,
            endpoints=_usable(by_port.get((port_name, protocol), {}))))
    return out


def _cluster_ipv4(spec: Mapping[str, Any]) -> str | None:
    """The Service's IPv4 ClusterIP, or None (headless, unallocated, IPv6 only)."""
    candidates = [spec.get("clusterIP"), *(spec.get("clusterIPs") or [])]
    if candidates[0] == "None":
        return None
    for ip in candidates:
        if _is_ipv4(ip):
            return str(ip)
    return None


def _ipv4s(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(v) for v in values if _is_ipv4(v)))


def _is_ipv4(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def _port(value: Any) -> int:
    """``value`` if it is a port number, else 0."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536:
        return value
    return 0
