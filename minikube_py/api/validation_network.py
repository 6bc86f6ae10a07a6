"""Addresses, ranges, ports and protocols, as Kubernetes v1.32 checks them.

The network-shaped checks that Services, Endpoints and EndpointSlices share
(and that containers share for ports), with the paths and messages of
``k8s.io/apimachinery/pkg/util/validation`` (``IsValidIP``,
``IsValidIPv4Address``, ``IsValidIPv6Address``, ``IsValidCIDR``,
``IsFullyQualifiedDomainName``) and ``pkg/apis/core/validation``
(``ValidateNonSpecialIP``, ``ValidatePortNumOrName``, the supported
protocols).

Addresses are parsed as ``netutils.ParseIPSloppy`` parses them (IPv4 octets
may have leading zeros) and classified with Go's ``net.IP`` predicates, which
treat an IPv4-mapped IPv6 address (``::ffff:127.0.0.1``) as the IPv4 address
it carries.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, Final

from .errors import FieldError, FieldPath, duplicate, invalid, required
from .names import is_dns1123_label, is_dns1123_subdomain, is_valid_port_name, is_valid_port_num
from .validation_meta import (
    Errs,
    as_int,
    as_str,
    dns_label,
    enum_value,
    parse_ip_sloppy,
    qualified_name,
)

__all__ = ["PROTOCOLS", "app_protocol", "fully_qualified_domain_name", "go_ipv4",
           "non_special_ip", "port_num_or_name", "service_port_basics", "valid_cidr",
           "valid_ipv4", "valid_ipv6"]

#: ``supportedPortProtocols``, sorted as Kubernetes lists them.
PROTOCOLS: Final = ("SCTP", "TCP", "UDP")

CIDR_MSG: Final = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def go_ipv4(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """Go's ``ip.To4()``: the IPv4 address, also out of an IPv4-mapped one."""
    if isinstance(addr, ipaddress.IPv4Address):
        return addr
    return addr.ipv4_mapped


def valid_ipv4(value: str, path: FieldPath) -> Errs:
    """``IsValidIPv4Address``."""
    addr = parse_ip_sloppy(value)
    if addr is None or go_ipv4(addr) is None:
        return [invalid(path, value, "must be a valid IPv4 address")]
    return []


def valid_ipv6(value: str, path: FieldPath) -> Errs:
    """``IsValidIPv6Address``."""
    addr = parse_ip_sloppy(value)
    if addr is None or go_ipv4(addr) is not None:
        return [invalid(path, value, "must be a valid IPv6 address")]
    return []


def non_special_ip(value: str, path: FieldPath) -> Errs:
    """``ValidateNonSpecialIP``: not unspecified, loopback, link-local unicast
    or link-local multicast (what Endpoints, EndpointSlices and external IPs
    may not point at)."""
    addr = parse_ip_sloppy(value)
    if addr is None:
        return [invalid(path, value, "must be a valid IP address")]
    v4 = go_ipv4(addr)
    errs: Errs = []
    if addr.is_unspecified or (v4 is not None and v4.is_unspecified):
        errs.append(invalid(path, value, f"may not be unspecified ({value})"))
    if (v4.is_loopback if v4 is not None else addr.is_loopback):
        errs.append(invalid(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if v4 is not None:
        link_local = v4 in _V4_LINK_LOCAL
        link_local_multicast = v4 in _V4_LINK_LOCAL_MULTICAST
    else:
        packed = addr.packed
        link_local = packed[0] == 0xFE and packed[1] & 0xC0 == 0x80
        # Go: ff02::/16 with any flags (ip[1]&0x0f == 0x02).
        link_local_multicast = packed[0] == 0xFF and packed[1] & 0x0F == 0x02
    if link_local:
        errs.append(invalid(path, value,
                            "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if link_local_multicast:
        errs.append(invalid(path, value, "may not be in the link-local multicast range "
                                         "(224.0.0.0/24, ff02::/10)"))
    return errs


_V4_LINK_LOCAL: Final = ipaddress.IPv4Network("169.254.0.0/16")
_V4_LINK_LOCAL_MULTICAST: Final = ipaddress.IPv4Network("224.0.0.0/24")


def _parse_cidr(value: str) -> bool:
    """``netutils.ParseCIDRSloppy``: ``address/prefix`` (host bits may be set;
    no netmask form, no missing prefix)."""
    address, slash, prefix = value.partition("/")
    if not slash or not prefix.isascii() or not prefix.isdigit():
        return False
    addr = parse_ip_sloppy(address)
    if addr is None:
        return False
    # Go decides the width by the text: IPv4 text has 32 bits, anything else 128.
    bits = 32 if isinstance(addr, ipaddress.IPv4Address) else 128
    return int(prefix) <= bits


def valid_cidr(value: str, path: FieldPath) -> Errs:
    """``IsValidCIDR``."""
    return [] if _parse_cidr(value) else [invalid(path, value, CIDR_MSG)]


def fully_qualified_domain_name(name: str, path: FieldPath) -> list[FieldError]:
    """``IsFullyQualifiedDomainName``: a subdomain of at least two labels (one
    trailing dot allowed); the first failing rule is the only error."""
    if not name:
        return [required(path, "")]
    name = name.removesuffix(".")
    msgs = is_dns1123_subdomain(name)
    if msgs:
        return [invalid(path, name, ",".join(msgs))]
    labels = name.split(".")
    if len(labels) < 2:
        return [invalid(path, name, "should be a domain with at least two segments separated "
                                    "by dots")]
    for label in labels:
        msgs = is_dns1123_label(label)
        if msgs:
            return [invalid(path, label, ",".join(msgs))]
    return []


def port_num_or_name(value: Any, path: FieldPath) -> Errs:
    """``ValidatePortNumOrName`` for an IntOrString port."""
    if isinstance(value, str):
        return [invalid(path, value, msg) for msg in is_valid_port_name(value)]
    number = as_int(value) or 0
    return [invalid(path, number, msg) for msg in is_valid_port_num(number)]


def app_protocol(port: Mapping[str, Any], path: FieldPath) -> Errs:
    """A port's ``appProtocol``, when set: a qualified name."""
    value = port.get("appProtocol")
    return [] if value is None else qualified_name(as_str(value), path.child("appProtocol"))


def service_port_basics(port: Mapping[str, Any], require_name: bool, path: FieldPath,
                        names: set[str] | None = None) -> Errs:
    """What ``validateServicePort`` and ``validateEndpointPort`` share: a name
    (required when there are several ports; a DNS label, unique among
    ``names`` when given), a port number and a protocol."""
    errs: Errs = []
    name = as_str(port.get("name"))
    if require_name and not name:
        errs.append(required(path.child("name"), ""))
    elif name:
        errs.extend(dns_label(name, path.child("name")))
        if names is not None:
            if name in names:
                errs.append(duplicate(path.child("name"), name))
            names.add(name)
    number = as_int(port.get("port")) or 0
    errs.extend(invalid(path.child("port"), number, msg) for msg in is_valid_port_num(number))
    errs.extend(enum_value(as_str(port.get("protocol")), path.child("protocol"), PROTOCOLS))
    return errs
