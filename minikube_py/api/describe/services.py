"""Services and where their traffic goes: kubectl's ``ServiceDescriber``,
``EndpointsDescriber`` and ``EndpointSliceDescriber`` (v1.32).

A Service's ``Endpoints`` lines come from the EndpointSlices labelled
``kubernetes.io/service-name=<service>`` (the caller lists them, as kubectl
does), formatted by kubectl's ``formatEndpointSlices`` with its quirks: at most
three ``address:port`` entries then `` + N more...``, endpoints that are not
ready skipped (an unknown readiness counts as ready), and an endpoint that is
not ready still marks the list as "more" once three are shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..access import mapping as _m
from ..access import mappings as _maps
from ..labels import format_labels
from ..printers import join_host_port, join_with_more
from .sections import describe_events, print_name_header
from .values import Obj
from .values import int_field as _i
from .values import list_field as _l
from .values import str_field as _s
from .writer import Ctx, Out

__all__ = ["describe_endpoint_slice", "describe_endpoints", "describe_service",
           "format_endpoint_slices"]

UNSET: Final = "<unset>"
NONE: Final = "<none>"
_SHOWN: Final = 3


def _ready(endpoint: Obj) -> bool:
    """``conditions.ready``: unset means ready (an unknown state)."""
    return _m(endpoint.get("conditions")).get("ready") is not False


def format_endpoint_slices(slices: Sequence[Obj], port_name: str) -> str:
    """kubectl's ``formatEndpointSlices`` for the Service port ``port_name``."""
    if not slices:
        return NONE
    shown: list[str] = []
    more = False
    count = 0
    for eps in slices:
        ports = _maps(eps.get("ports"))
        # A headless Service without ports lists bare addresses.
        targets: list[int | None] = [None] if not ports else [
            _i(p.get("port")) for p in ports if _s(p.get("name")) == port_name]
        for port in targets:
            for endpoint in _maps(eps.get("endpoints")):
                if len(shown) == _SHOWN:
                    more = True
                if not _ready(endpoint):
                    continue
                if not more:
                    address = _s((_l(endpoint.get("addresses")) or [""])[0])
                    shown.append(address if port is None else join_host_port(address, port))
                count += 1
    return join_with_more(shown, count, _SHOWN, more)


def _ingress(ingress: list[Obj]) -> str:
    """``buildIngressString``: IP (with its ``ipMode``) or hostname."""
    parts = []
    for point in ingress:
        ip = _s(point.get("ip"))
        if ip:
            mode = point.get("ipMode")
            parts.append(ip if mode is None else f"{ip} ({_s(mode)})")
        else:
            parts.append(_s(point.get("hostname")))
    return ", ".join(parts)


def _joined(values: Any) -> str:
    return ",".join(_s(v) for v in _l(values)) or NONE


def describe_service(svc: Obj, slices: Sequence[Obj], events: list[Obj] | None,
                     ctx: Ctx) -> str:
    """``describeService``: ``slices`` are the Service's EndpointSlices."""
    meta, spec = _m(svc.get("metadata")), _m(svc.get("spec"))
    w = Out()
    print_name_header(w, meta)
    w.write(0, f"Selector:\t{format_labels(spec.get('selector'))}\n")
    w.write(0, f"Type:\t{_s(spec.get('type'))}\n")
    if spec.get("ipFamilyPolicy") is not None:
        w.write(0, f"IP Family Policy:\t{_s(spec.get('ipFamilyPolicy'))}\n")
    w.write(0, f"IP Families:\t{_joined(spec.get('ipFamilies'))}\n")
    w.write(0, f"IP:\t{_s(spec.get('clusterIP'))}\n")
    w.write(0, f"IPs:\t{_joined(spec.get('clusterIPs'))}\n")
    if _l(spec.get("externalIPs")):
        w.write(0, f"External IPs:\t{_joined(spec.get('externalIPs'))}\n")
    if _s(spec.get("loadBalancerIP")):
        w.write(0, f"Desired LoadBalancer IP:\t{_s(spec.get('loadBalancerIP'))}\n")
    if _s(spec.get("externalName")):
        w.write(0, f"External Name:\t{_s(spec.get('externalName'))}\n")
    ingress = _maps(_m(_m(svc.get("status")).get("loadBalancer")).get("ingress"))
    if ingress:
        w.write(0, f"LoadBalancer Ingress:\t{_ingress(ingress)}\n")
    for port in _maps(spec.get("ports")):
        name = _s(port.get("name")) or UNSET
        protocol = _s(port.get("protocol"))
        w.write(0, f"Port:\t{name}\t{_i(port.get('port'))}/{protocol}\n")
        target = port.get("targetPort")
        target_text = target if isinstance(target, str) else str(_i(target))
        w.write(0, f"TargetPort:\t{target_text}/{protocol}\n")
        if _i(port.get("nodePort")):
            w.write(0, f"NodePort:\t{name}\t{_i(port.get('nodePort'))}/{protocol}\n")
        w.write(0, f"Endpoints:\t{format_endpoint_slices(slices, _s(port.get('name')))}\n")
    w.write(0, f"Session Affinity:\t{_s(spec.get('sessionAffinity'))}\n")
    if _s(spec.get("externalTrafficPolicy")):
        w.write(0, f"External Traffic Policy:\t{_s(spec.get('externalTrafficPolicy'))}\n")
    if spec.get("internalTrafficPolicy") is not None:
        w.write(0, f"Internal Traffic Policy:\t{_s(spec.get('internalTrafficPolicy'))}\n")
    if _i(spec.get("healthCheckNodePort")):
        w.write(0, f"HealthCheck NodePort:\t{_i(spec.get('healthCheckNodePort'))}\n")
    if _l(spec.get("loadBalancerSourceRanges")):
        w.write(0, "LoadBalancer Source Ranges:\t"
                   f"{_joined(spec.get('loadBalancerSourceRanges'))}\n")
    describe_events(events, w, ctx)
    return w.render()


def _ports_table(w: Out, level: int, rows: list[tuple[str, str, str]]) -> None:
    """The Name / Port / Protocol table of Endpoints subsets and slices."""
    w.write(level, "Name\tPort\tProtocol\n")
    w.write(level, "----\t----\t--------\n")
    for name, port, protocol in rows:
        w.write(level, f"{name or UNSET}\t{port}\t{protocol}\n")


def describe_endpoints(ep: Obj, events: list[Obj] | None, ctx: Ctx) -> str:
    """``describeEndpoints``: each subset's ready and not-ready addresses and
    its ports."""
    w = Out()
    print_name_header(w, _m(ep.get("metadata")))
    w.write(0, "Subsets:\n")
    for subset in _maps(ep.get("subsets")):
        for title, key in (("Addresses", "addresses"), ("NotReadyAddresses", "notReadyAddresses")):
            ips = ",".join(_s(a.get("ip")) for a in _maps(subset.get(key)))
            w.write(1, f"{title}:\t{ips or NONE}\n")
        ports = _maps(subset.get("ports"))
        if ports:
            w.write(1, "Ports:\n")
            _ports_table(w, 2, [(_s(p.get("name")), str(_i(p.get("port"))),
                                 _s(p.get("protocol"))) for p in ports])
        w.write(0, "\n")
    describe_events(events, w, ctx)
    return w.render()


def _or_unset(value: Any) -> str:
    return UNSET if value is None else _s(value)


def describe_endpoint_slice(eps: Obj, events: list[Obj] | None, ctx: Ctx) -> str:
    """``describeEndpointSliceV1``."""
    w = Out()
    print_name_header(w, _m(eps.get("metadata")))
    w.write(0, f"AddressType:\t{_s(eps.get('addressType'))}\n")
    ports = _maps(eps.get("ports"))
    if not ports:
        w.write(0, "Ports: <unset>\n")
    else:
        w.write(0, "Ports:\n")
        _ports_table(w, 1, [(_s(p.get("name")), _or_unset(p.get("port")),
                             _s(p.get("protocol"))) for p in ports])
    endpoints = _maps(eps.get("endpoints"))
    if not endpoints:
        w.write(0, "Endpoints: <none>\n")
    else:
        w.write(0, "Endpoints:\n")
        for endpoint in endpoints:
            addresses = ", ".join(_s(a) for a in _l(endpoint.get("addresses")))
            w.write(1, f"- Addresses:\t{addresses or NONE}\n")
            w.write(2, "Conditions:\n")
            w.write(3, f"Ready:\t{_or_unset(_m(endpoint.get('conditions')).get('ready'))}\n")
            w.write(2, f"Hostname:\t{_or_unset(endpoint.get('hostname'))}\n")
            ref = endpoint.get("targetRef")
            if isinstance(ref, Mapping):
                w.write(2, f"TargetRef:\t{_s(ref.get('kind'))}/{_s(ref.get('name'))}\n")
            w.write(2, f"NodeName:\t{_or_unset(endpoint.get('nodeName'))}\n")
            w.write(2, f"Zone:\t{_or_unset(endpoint.get('zone'))}\n")
    describe_events(events, w, ctx)
    return w.render()
