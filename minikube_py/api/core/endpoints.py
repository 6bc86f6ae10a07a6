"""Endpoints (core/v1): the addresses and ports behind a Service, in subsets.

As Kubernetes v1.32 has it:

* ``SetDefaults_Endpoints``: a port's protocol defaults to TCP;
* ``ValidateEndpoints`` / ``ValidateEndpointsUpdate``: the name is a DNS
  subdomain; every subset has ready or not-ready addresses; an address is a
  valid IP that is not unspecified, loopback or link-local (unicast or
  multicast), its ``hostname`` a DNS label and its ``nodeName`` a DNS
  subdomain; ports need names when a subset has more than one, valid
  numbers, TCP/UDP/SCTP and a qualified-name ``appProtocol``;
* the strategy: no status, no generation, nothing prepared;
* kubectl's table (``printEndpoints``: ``formatEndpoints``, at most three
  ``ip:port`` then `` + N more...``) and ``EndpointsDescriber``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..access import mappings as _maps
from ..defaults import _default, _dicts
from ..describe.services import describe_endpoints
from ..errors import FieldError, FieldPath, invalid, required
from ..generated import core_v1
from ..names import name_is_dns_subdomain
from ..printers import (
    D_CREATED,
    D_NAME,
    NONE,
    age_of,
    cell_int,
    cell_str,
    epoch,
    join_host_port,
    join_with_more,
)
from ..resource import Column, KindInfo, Resource
from ..validation_meta import (
    Errs,
    as_list,
    as_map,
    as_str,
    dns_label,
    valid_ip,
    validate_object_meta,
    validate_object_meta_update,
)
from ..validation_network import app_protocol, non_special_ip, service_port_basics

INFO = KindInfo("Endpoints", "", "v1", "endpoints", "endpoints", True, ("ep",))

# ------------------------------------------------------------------ defaults


def default_endpoints(ep: dict[str, Any], create: bool) -> None:
    """``SetDefaults_Endpoints``: ports are TCP unless they say otherwise."""
    for subset in _dicts(ep.get("subsets")):
        for port in _dicts(subset.get("ports")):
            _default(port, "protocol", "TCP")


# ------------------------------------------------------------------ validation


def _address(address: Mapping[str, Any], path: FieldPath) -> Errs:
    """``validateEndpointAddress`` (an invalid IP is reported twice, as
    Kubernetes reports it: by ``IsValidIP`` and by ``ValidateNonSpecialIP``)."""
    ip = as_str(address.get("ip"))
    errs = valid_ip(ip, path.child("ip"))
    hostname = as_str(address.get("hostname"))
    if hostname:
        errs.extend(dns_label(hostname, path.child("hostname")))
    node_name = address.get("nodeName")
    if node_name is not None:
        errs.extend(invalid(path.child("nodeName"), as_str(node_name), msg)
                    for msg in name_is_dns_subdomain(as_str(node_name), False))
    errs.extend(non_special_ip(ip, path.child("ip")))
    return errs


def _port(port: Mapping[str, Any], require_name: bool, path: FieldPath) -> Errs:
    """``validateEndpointPort``."""
    return service_port_basics(port, require_name, path) + app_protocol(port, path)


def validate_endpoints(ep: Mapping[str, Any]) -> Errs:
    """``ValidateEndpoints`` (``ValidateEndpointsCreate`` is the same)."""
    errs: list[FieldError] = validate_object_meta(ep.get("metadata"), namespaced=True,
                                                  name_rule="subdomain")
    for i, raw in enumerate(as_list(ep.get("subsets"))):
        subset, path = as_map(raw), FieldPath.root("subsets").index(i)
        ready, not_ready = as_list(subset.get("addresses")), \
            as_list(subset.get("notReadyAddresses"))
        if not ready and not not_ready:
            errs.append(required(path, "must specify `addresses` or `notReadyAddresses`"))
        for j, address in enumerate(ready):
            errs.extend(_address(as_map(address), path.child("addresses").index(j)))
        for j, address in enumerate(not_ready):
            errs.extend(_address(as_map(address), path.child("notReadyAddresses").index(j)))
        ports = as_list(subset.get("ports"))
        for j, port in enumerate(ports):
            errs.extend(_port(as_map(port), len(ports) > 1, path.child("ports").index(j)))
    return errs


def validate_endpoints_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateEndpointsUpdate``: metadata rules, then the create rules
    (a ``nodeName`` may change: node IPs and pod CIDRs get reused)."""
    errs: list[FieldError] = validate_object_meta_update(new.get("metadata"),
                                                         old.get("metadata"))
    errs.extend(validate_endpoints(new))
    return errs


# ------------------------------------------------------------------ table

ENDPOINTS_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Endpoints", "string",
           "The set of all endpoints is the union of all subsets. Addresses are placed into "
           "subsets according to the IPs they share. A single address with multiple ports, "
           "some of which are ready and some of which are not (because they come from "
           "different containers) will result in the address being displayed in different "
           "subsets for the different ports. No address will appear in both Addresses and "
           "NotReadyAddresses in the same subset. Sets of addresses and ports that comprise "
           "a service."),
    Column("Age", "string", D_CREATED),
)

_SHOWN: Final = 3


def format_endpoints(ep: Mapping[str, Any]) -> str:
    """``formatEndpoints`` for all ports: ready ``ip:port`` pairs (bare IPs for
    a subset without ports), three at most, then `` + N more...``."""
    subsets = _maps(ep.get("subsets"))
    if not subsets:
        return NONE
    shown: list[str] = []
    total = 0
    more = False
    for subset in subsets:
        addresses = [cell_str(a.get("ip")) for a in _maps(subset.get("addresses"))]
        # A headless Service may have no ports: its endpoints are bare addresses.
        numbers: list[int | None] = [cell_int(p.get("port"))
                                     for p in _maps(subset.get("ports"))] or [None]
        for number in numbers:
            total += len(addresses)
            for ip in addresses:
                if len(shown) == _SHOWN:
                    more = True
                    break
                shown.append(ip if number is None else join_host_port(ip, number))
    return join_with_more(shown, total, _SHOWN, more)


def print_endpoints(ep: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    """``printEndpoints``: NAME ENDPOINTS AGE."""
    metadata = _m(ep.get("metadata"))
    return [cell_str(metadata.get("name")), format_endpoints(ep),
            age_of(epoch(metadata.get("creationTimestamp")), now)], None


def _describe(ep: Mapping[str, Any], related: Mapping[str, Any], events: Any, ctx: Any) -> str:
    return describe_endpoints(ep, events, ctx)


RESOURCE = Resource(
    INFO, core_v1.Endpoints,
    defaults=default_endpoints,
    validate=validate_endpoints,
    validate_update=validate_endpoints_update,
    columns=ENDPOINTS_COLUMNS,
    row=print_endpoints,
    describe=_describe,
)
