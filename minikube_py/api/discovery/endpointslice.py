"""EndpointSlice (discovery.k8s.io/v1): a slice of the endpoints behind a
Service, all of one address type.

As Kubernetes v1.32 has it:

* ``SetDefaults_EndpointPort``: a port's ``name`` defaults to ``""`` and its
  ``protocol`` to TCP;
* ``ValidateEndpointSlice`` / ``ValidateEndpointSliceUpdate``: the name is a
  DNS subdomain; ``addressType`` is IPv4, IPv6 or FQDN and never changes; at
  most 1000 endpoints, each with 1 to 100 addresses of that type (IPs that
  are not unspecified, loopback or link-local; FQDNs of two labels or more),
  a DNS-label ``hostname``, a DNS-subdomain ``nodeName``, at most 16
  ``deprecatedTopology`` labels and at most 8 zone hints; at most 20000 ports
  (the API documentation still says 100; validation allows 20000) with unique
  names that are empty or DNS labels, TCP/UDP/SCTP and a qualified-name
  ``appProtocol``. Nothing checks the ``kubernetes.io/service-name`` label;
* the strategy (``pkg/registry/discovery/endpointslice``): ``generation`` is 1
  on create and goes up when anything but the metadata changes, or the labels
  do; ``deprecatedTopology`` is cleared on a v1 write (on update only when the
  endpoints changed);
* kubectl's table (``printEndpointSlice``) and ``EndpointSliceDescriber``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..access import mappings as _maps
from ..defaults import _default_missing, _dicts
from ..describe.services import describe_endpoint_slice
from ..errors import FieldError, FieldPath, duplicate, invalid, required, too_many
from ..generated import discovery_v1
from ..labels import validate_labels
from ..names import is_valid_label_value, name_is_dns_subdomain
from ..printers import D_CREATED, D_NAME, age_of, cell_str, epoch, join_with_more
from ..resource import Column, KindInfo, Resource
from ..validation_meta import (
    Errs,
    as_list,
    as_map,
    as_str,
    dns_label,
    enum_value,
    immutable,
    semantic_equal,
    validate_object_meta,
    validate_object_meta_update,
)
from ..validation_network import (
    PROTOCOLS,
    app_protocol,
    fully_qualified_domain_name,
    non_special_ip,
    valid_ipv4,
    valid_ipv6,
)

INFO = KindInfo("EndpointSlice", "discovery.k8s.io", "v1", "endpointslices", "endpointslice",
                True)

ADDRESS_TYPES: Final = ("FQDN", "IPv4", "IPv6")
MAX_ENDPOINTS: Final = 1000
MAX_ADDRESSES: Final = 100
MAX_PORTS: Final = 20000
MAX_TOPOLOGY_LABELS: Final = 16
MAX_ZONE_HINTS: Final = 8
#: ``corev1.LabelTopologyZone``, which v1beta1 kept in ``topology`` and v1 in ``zone``.
ZONE_LABEL: Final = "topology.kubernetes.io/zone"

# ------------------------------------------------------------------ defaults


def default_endpoint_slice(eps: dict[str, Any], create: bool) -> None:
    """``SetDefaults_EndpointPort`` for every port (pointer fields: only an
    absent value is defaulted)."""
    for port in _dicts(eps.get("ports")):
        _default_missing(port, "name", "")
        _default_missing(port, "protocol", "TCP")


# ------------------------------------------------------------------ validation


def _addresses(addresses: list[Any], address_type: str, path: FieldPath) -> Errs:
    if not addresses:
        return [required(path, "must contain at least 1 address")]
    errs: Errs = []
    if len(addresses) > MAX_ADDRESSES:
        errs.append(too_many(path, len(addresses), MAX_ADDRESSES))
    for i, raw in enumerate(addresses):
        address, where = as_str(raw), path.index(i)
        # Unknown address types fall through unchecked, as in Kubernetes.
        if address_type == "IPv4":
            errs.extend(valid_ipv4(address, where) + non_special_ip(address, where))
        elif address_type == "IPv6":
            errs.extend(valid_ipv6(address, where) + non_special_ip(address, where))
        elif address_type == "FQDN":
            errs.extend(fully_qualified_domain_name(address, where))
    return errs


def _hints(hints: Mapping[str, Any], path: FieldPath) -> Errs:
    """``validateHints``: at most 8 zones, unique, each a label value."""
    zones = as_list(hints.get("forZones"))
    zones_path = path.child("forZones")
    if len(zones) > MAX_ZONE_HINTS:
        return [too_many(zones_path, len(zones), MAX_ZONE_HINTS)]
    errs: Errs = []
    seen: set[str] = set()
    for i, zone in enumerate(zones):
        name, where = as_str(as_map(zone).get("name")), zones_path.index(i).child("name")
        if name in seen:
            errs.append(duplicate(where, name))
        seen.add(name)
        errs.extend(invalid(where, name, msg) for msg in is_valid_label_value(name))
    return errs


def _endpoints(endpoints: list[Any], address_type: str) -> Errs:
    """``validateEndpoints``."""
    path = FieldPath.root("endpoints")
    if len(endpoints) > MAX_ENDPOINTS:
        return [too_many(path, len(endpoints), MAX_ENDPOINTS)]
    errs: Errs = []
    for i, raw in enumerate(endpoints):
        endpoint, where = as_map(raw), path.index(i)
        errs.extend(_addresses(as_list(endpoint.get("addresses")), address_type,
                               where.child("addresses")))
        node_name = endpoint.get("nodeName")
        if node_name is not None:
            errs.extend(invalid(where.child("nodeName"), as_str(node_name), msg)
                        for msg in name_is_dns_subdomain(as_str(node_name), False))
        topology = as_map(endpoint.get("deprecatedTopology"))
        topology_path = where.child("deprecatedTopology")
        if len(topology) > MAX_TOPOLOGY_LABELS:
            errs.append(too_many(topology_path, len(topology), MAX_TOPOLOGY_LABELS))
        errs.extend(validate_labels(endpoint.get("deprecatedTopology"), topology_path))
        if ZONE_LABEL in topology:
            errs.append(FieldError("Internal", str(topology_path.key(ZONE_LABEL)),
                                   detail="reserved key was not removed in conversion"))
        if endpoint.get("hostname") is not None:
            errs.extend(dns_label(as_str(endpoint.get("hostname")), where.child("hostname")))
        if isinstance(endpoint.get("hints"), Mapping):
            errs.extend(_hints(endpoint["hints"], where.child("hints")))
    return errs


def _ports(ports: list[Any]) -> Errs:
    """``validatePorts``: names unique (``""`` counts once), protocols known."""
    path = FieldPath.root("ports")
    if len(ports) > MAX_PORTS:
        return [too_many(path, len(ports), MAX_PORTS)]
    errs: Errs = []
    names: set[str] = set()
    for i, raw in enumerate(ports):
        port, where = as_map(raw), path.index(i)
        name = as_str(port.get("name"))
        if name:
            errs.extend(dns_label(name, where.child("name")))
        if name in names:
            errs.append(duplicate(where.child("name"), name))
        names.add(name)
        if port.get("protocol") is None:
            errs.append(required(where.child("protocol"), ""))
        else:
            errs.extend(enum_value(as_str(port.get("protocol")), where.child("protocol"),
                                   PROTOCOLS, required_when_empty=False))
        errs.extend(app_protocol(port, where))
    return errs


def validate_endpoint_slice(eps: Mapping[str, Any]) -> Errs:
    """``ValidateEndpointSlice`` (``ValidateEndpointSliceCreate`` is the same)."""
    errs: list[FieldError] = validate_object_meta(eps.get("metadata"), namespaced=True,
                                                  name_rule="subdomain")
    address_type = as_str(eps.get("addressType"))
    errs.extend(enum_value(address_type, FieldPath.root("addressType"), ADDRESS_TYPES))
    errs.extend(_endpoints(as_list(eps.get("endpoints")), address_type))
    errs.extend(_ports(as_list(eps.get("ports"))))
    return errs


def validate_endpoint_slice_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateEndpointSliceUpdate``: metadata rules, the create rules, and
    ``addressType`` is immutable."""
    errs: list[FieldError] = validate_object_meta_update(new.get("metadata"),
                                                         old.get("metadata"))
    errs.extend(validate_endpoint_slice(new))
    errs.extend(immutable(as_str(new.get("addressType")), as_str(old.get("addressType")),
                          FieldPath.root("addressType")))
    return errs


# ------------------------------------------------------------------ strategy


def _drop_topology(eps: dict[str, Any]) -> None:
    """``dropTopologyOnV1``: v1 has ``zone`` and ``nodeName`` instead."""
    for endpoint in _dicts(eps.get("endpoints")):
        endpoint.pop("deprecatedTopology", None)


def _body(eps: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in eps.items() if k not in ("metadata", "apiVersion", "kind")}


def prepare_for_update(new: dict[str, Any], old: Mapping[str, Any]) -> None:
    """``PrepareForUpdate``: a new generation when anything but the metadata
    changed, or the labels did; topology cleared when the endpoints changed."""
    meta, old_meta = _m(new.get("metadata")), _m(old.get("metadata"))
    if not semantic_equal(_body(new), _body(old)) or \
            not semantic_equal(meta.get("labels"), old_meta.get("labels")):
        new["metadata"]["generation"] = int(old_meta.get("generation") or 0) + 1
    if not semantic_equal(new.get("endpoints"), old.get("endpoints")):
        _drop_topology(new)


# ------------------------------------------------------------------ table

ENDPOINT_SLICE_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("AddressType", "string",
           "addressType specifies the type of address carried by this EndpointSlice. All "
           "addresses in this slice must be the same type. This field is immutable after "
           "creation. The following address types are currently supported: * IPv4: "
           "Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: "
           "Represents a Fully Qualified Domain Name."),
    Column("Ports", "string",
           "ports specifies the list of network ports exposed by each endpoint in this slice. "
           "Each port must have a unique name. When ports is empty, it indicates that there "
           "are no defined ports. When a port is defined with a nil port value, it indicates "
           "\"all ports\". Each slice may include a maximum of 100 ports."),
    Column("Endpoints", "string",
           "endpoints is a list of unique endpoints in this slice. Each slice may include a "
           "maximum of 1000 endpoints."),
    Column("Age", "string", D_CREATED),
)

_SHOWN: Final = 3


def _list_with_more(values: list[str]) -> str:
    """``listWithMoreString``: three values, `` + N more...``; ``<unset>``
    when there are none."""
    return join_with_more(values[:_SHOWN], len(values), _SHOWN,
                          len(values) > _SHOWN) or "<unset>"


def format_ports(eps: Mapping[str, Any]) -> str:
    """``formatDiscoveryPorts``: the number, else the name, else ``*``."""
    values = []
    for port in _maps(eps.get("ports")):
        number, name = port.get("port"), port.get("name")
        values.append(str(number) if number is not None else
                      "*" if name is None else cell_str(name))
    return _list_with_more(values)


def format_endpoints(eps: Mapping[str, Any]) -> str:
    """``formatDiscoveryEndpoints``: every address of every endpoint."""
    return _list_with_more([cell_str(a) for e in _maps(eps.get("endpoints"))
                            for a in as_list(e.get("addresses"))])


def print_endpoint_slice(eps: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    """``printEndpointSlice``: NAME ADDRESSTYPE PORTS ENDPOINTS AGE."""
    metadata = _m(eps.get("metadata"))
    return [cell_str(metadata.get("name")), cell_str(eps.get("addressType")),
            format_ports(eps), format_endpoints(eps),
            age_of(epoch(metadata.get("creationTimestamp")), now)], None


def _describe(eps: Mapping[str, Any], related: Mapping[str, Any], events: Any,
              ctx: Any) -> str:
    return describe_endpoint_slice(eps, events, ctx)


RESOURCE = Resource(
    INFO, discovery_v1.EndpointSlice,
    defaults=default_endpoint_slice,
    validate=validate_endpoint_slice,
    validate_update=validate_endpoint_slice_update,
    generation="create",
    prepare_for_create=_drop_topology,
    prepare_for_update=prepare_for_update,
    columns=ENDPOINT_SLICE_COLUMNS,
    row=print_endpoint_slice,
    describe=_describe,
)
