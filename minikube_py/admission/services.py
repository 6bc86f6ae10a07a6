"""Service allocation: cluster IPs, IP families and node ports.

Kubernetes does this in the service REST storage (``pkg/registry/core/service/
storage``: ``beginCreate``/``beginUpdate``/``afterDelete`` and ``alloc.go``),
not in a strategy, because it needs state beyond the object. Here it is an
admission step the registry runs *before* the strategy's preparation and
validation, exactly where kube-apiserver runs it:

* **Create**: ``normalizeClusterIPs`` (``clusterIP`` alone fills ``clusterIPs``),
  ``initIPFamilyFields`` (``ipFamilyPolicy`` defaults to SingleStack; headless
  without selector to RequireDualStack with ``[IPv4, IPv6]``; asking for
  dual-stack or IPv6 gets Kubernetes' refusals: this cluster is IPv4
  single-stack), then a cluster IP (given ones must be free and in range),
  then node ports for NodePort and LoadBalancer services (one per distinct
  service port number; ``allocateLoadBalancerNodePorts: false`` only honours
  explicit ones) and a health-check node port for LoadBalancer services with
  ``externalTrafficPolicy: Local``.
* **Update**: values the client left out but we allocated are patched back in
  (``patchAllocatedValues``, so re-applying the same YAML works), type changes
  allocate or release, and releases happen only once the write succeeded.
* **Delete**: everything is released after the object is gone.

Every call returns a :class:`Txn`; the registry commits it after the store
accepted the write and reverts it otherwise (a dry run always reverts).

The allocators live in memory. On first use, and on every :meth:`repair`, they
are rebuilt from the stored Services plus the allocations of writes still in
flight, so they survive restarts, and a Service that went away without passing
through :meth:`after_delete` (removed by its last finalizer, say) frees its
values at the next repair, as Kubernetes' repair controllers do.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..api.core.service_facts import (
    cluster_ips,
    needs_cluster_ip,
    needs_health_check_node_port,
    needs_node_ports,
    node_ports,
    service_type,
    should_allocate_node_ports,
)
from ..api.errors import (
    FieldError,
    FieldPath,
    InternalError,
    Invalid,
    go_string_slice,
    invalid,
)
from ..api.jsoncopy import deep_copy
from .allocators import AllocationError, IPRange, PortRange
from .storage import Object, Storage

__all__ = ["DEFAULT_NODE_PORT_RANGE", "DEFAULT_SERVICE_CIDR", "ServiceAllocation",
           "ServiceNetwork", "Txn"]

log = logging.getLogger(__name__)

SERVICES: Final = "services"
DEFAULT_SERVICE_CIDR: Final = "10.96.0.0/12"
DEFAULT_NODE_PORT_RANGE: Final = (30000, 32767)

_NONE = "None"
_EXTERNAL_NAME = "ExternalName"


@dataclass(frozen=True)
class ServiceNetwork:
    """``--service-cluster-ip-range`` and ``--service-node-port-range``."""

    cidr: str = DEFAULT_SERVICE_CIDR
    node_ports: tuple[int, int] = DEFAULT_NODE_PORT_RANGE

    def __post_init__(self) -> None:
        try:
            net = ipaddress.ip_network(self.cidr, strict=True)
        except ValueError as exc:
            raise ValueError(f"--service-cidr {self.cidr!r}: {exc}") from None
        if net.version != 4:
            raise ValueError(f"--service-cidr {self.cidr!r}: only IPv4 is supported")
        if net.num_addresses < 8:
            raise ValueError(f"--service-cidr {self.cidr!r}: the range is too small")
        first, last = self.node_ports
        if not 0 < first <= last <= 65535:
            raise ValueError(f"--service-node-port-range {first}-{last}: not a port range")

    def ip(self, index: int) -> str:
        """The ``index``-th address of the range (1: the ``kubernetes`` Service,
        10: cluster DNS, as kubeadm picks them)."""
        net = ipaddress.IPv4Network(self.cidr)
        return str(net.network_address + index)


# --------------------------------------------------------------------------- transactions


@dataclass
class Txn:
    """What one write allocated (kept on commit, given back on revert) and what
    it frees (given back only on commit)."""

    owner: ServiceAllocation | None = None
    ips: list[str] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    release_ips: list[str] = field(default_factory=list)
    release_ports: list[int] = field(default_factory=list)
    done: bool = False

    def commit(self) -> None:
        if self.done or self.owner is None:
            return
        self.done = True
        self.owner._finish(self, keep=True)

    def revert(self) -> None:
        if self.done or self.owner is None:
            return
        self.done = True
        self.owner._finish(self, keep=False)


NOTHING = Txn()

# --------------------------------------------------------------------------- service facts


def _spec(svc: Mapping[str, Any]) -> dict[str, Any]:
    spec = svc.get("spec")
    return spec if isinstance(spec, dict) else {}


def _ports(svc: Mapping[str, Any]) -> list[dict[str, Any]]:
    ports = _spec(svc).get("ports")
    return [p for p in ports if isinstance(p, dict)] if isinstance(ports, list) else []


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _node_ports(svc: Mapping[str, Any]) -> list[int]:
    """``collectServiceNodePorts``: each distinct node port (TCP and UDP of one
    port number share theirs)."""
    return list(dict.fromkeys(node_ports(svc)))


def _is_ipv4(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def _family_of(text: str) -> str | None:
    try:
        return "IPv4" if ipaddress.ip_address(text).version == 4 else "IPv6"
    except ValueError:
        return None


def _name(svc: Mapping[str, Any]) -> str:
    meta = svc.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, Mapping) else ""


def _refuse(svc: Mapping[str, Any], errors: list[FieldError]) -> Invalid:
    return Invalid.of("Service", _name(svc), errors)


# --------------------------------------------------------------------------- the allocator


class ServiceAllocation:
    """Cluster IPs and node ports of one cluster's Services (module docstring)."""

    def __init__(self, storage: Storage, network: ServiceNetwork | None = None) -> None:
        self.storage = storage
        self.network = network or ServiceNetwork()
        self.ips = IPRange(self.network.cidr)
        self.ports = PortRange(*self.network.node_ports)
        self._lock = threading.Lock()
        self._loaded = False
        self._pending: list[Txn] = []

    # ------------------------------------------------------------------ state

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.repair()

    def repair(self) -> list[str]:
        """Rebuild what is allocated from the stored Services and the writes in
        flight; returns what it found wrong (duplicates, values out of range),
        each as a sentence (Kubernetes' repair controllers report the same)."""
        services = self.storage.list(SERVICES).items
        problems: list[str] = []
        ips: dict[int, str] = {}
        ports: dict[int, str] = {}
        for svc in services:
            meta = svc.get("metadata") or {}
            who = f"{meta.get('namespace')}/{meta.get('name')}"
            if needs_cluster_ip(svc):
                for ip in cluster_ips(svc)[:1]:
                    if ip in ("", _NONE):
                        continue
                    offset = self.ips.offset_of(ip)
                    if offset is None:
                        problems.append(f"Cluster IP {ip} of {who} is not within the "
                                        f"service CIDR {self.ips.cidr}")
                    elif offset in ips:
                        problems.append(f"Cluster IP {ip} of {who} was assigned to "
                                        f"multiple services ({ips[offset]})")
                    else:
                        ips[offset] = who
            numbers = _node_ports(svc)
            if needs_health_check_node_port(svc) and _int(_spec(svc).get("healthCheckNodePort")):
                numbers.append(_int(_spec(svc).get("healthCheckNodePort")))
            for number in numbers:
                if not self.ports.contains(number):
                    problems.append(f"Port {number} of {who} is not within the port "
                                    f"range {self.ports}")
                elif number - self.ports.first in ports:
                    problems.append(f"Port {number} of {who} was assigned to multiple "
                                    f"services ({ports[number - self.ports.first]})")
                else:
                    ports[number - self.ports.first] = who
        with self._lock:
            pending_ips = [o for t in self._pending for ip in t.ips
                           if (o := self.ips.offset_of(ip)) is not None]
            pending_ports = [p - self.ports.first for t in self._pending for p in t.ports]
            self.ips.bitmap.reset([*ips, *pending_ips])
            self.ports.bitmap.reset([*ports, *pending_ports])
            self._loaded = True
        return problems

    def _finish(self, txn: Txn, *, keep: bool) -> None:
        with self._lock:
            if txn in self._pending:
                self._pending.remove(txn)
        if keep:
            for ip in txn.release_ips:
                self.ips.release(ip)
            for port in txn.release_ports:
                self.ports.release(port)
        else:
            for ip in txn.ips:
                self.ips.release(ip)
            for port in txn.ports:
                self.ports.release(port)

    def _begin(self) -> Txn:
        txn = Txn(owner=self)
        with self._lock:
            self._pending.append(txn)
        return txn

    # ------------------------------------------------------------------ create

    def begin_create(self, svc: Object) -> Txn:
        """Allocate for a new Service (in place); raises Invalid/InternalError."""
        self._ensure_loaded()
        spec = svc.setdefault("spec", {})
        if not isinstance(spec, dict):
            return NOTHING
        # normalizeClusterIPs: an old client sends the singular field only.
        if spec.get("clusterIP") and not spec.get("clusterIPs"):
            spec["clusterIPs"] = [spec["clusterIP"]]
        self._init_ip_families(svc, None)
        txn = self._begin()
        try:
            self._alloc_cluster_ip(svc, txn)
            if needs_node_ports(svc):
                self._init_node_ports(svc, txn)
            if needs_health_check_node_port(svc):
                self._alloc_health_check(svc, txn)
        except BaseException:
            txn.revert()
            raise
        return txn

    def _init_ip_families(self, svc: Object, old: Mapping[str, Any] | None) -> None:
        """``initIPFamilyFields`` for a cluster configured IPv4 single-stack."""
        if not needs_cluster_ip(svc):
            return
        spec = svc["spec"]
        headless_selectorless = spec.get("clusterIP") == _NONE and not spec.get("selector")
        if spec.get("ipFamilyPolicy") is None:
            old_policy = _spec(old).get("ipFamilyPolicy") if old is not None else None
            if old_policy is not None:
                spec["ipFamilyPolicy"] = old_policy
            elif headless_selectorless:
                spec["ipFamilyPolicy"] = "RequireDualStack"
            else:
                spec["ipFamilyPolicy"] = "SingleStack"
        policy = spec["ipFamilyPolicy"]
        ips = cluster_ips(svc)
        families = spec.get("ipFamilies") if isinstance(spec.get("ipFamilies"), list) else []
        if any(_family_of(ip) is None for ip in ips if ip != _NONE) or \
                policy not in ("SingleStack", "PreferDualStack", "RequireDualStack"):
            return  # malformed: validation names it (ValidateServiceClusterIPsRelatedFields)
        errs: list[FieldError] = []
        if old is not None and policy == "SingleStack":
            if ips == cluster_ips(old) and len(ips) > 1:
                spec["clusterIPs"] = ips = ips[:1]
            if families == _spec(old).get("ipFamilies") and len(families) > 1:
                spec["ipFamilies"] = families = families[:1]
        if policy == "SingleStack":
            if len(ips) == 2:
                errs.append(invalid(FieldPath.root("spec", "ipFamilyPolicy"), policy,
                                    "must be 'RequireDualStack' or 'PreferDualStack' when "
                                    "multiple cluster IPs are specified"))
            if len(families) == 2:
                errs.append(invalid(FieldPath.root("spec", "ipFamilyPolicy"), policy,
                                    "must be 'RequireDualStack' or 'PreferDualStack' when "
                                    "multiple IP families are specified"))
        families = list(families)
        for i, ip in enumerate(ips):
            if ip == _NONE:
                break
            if i >= len(families):
                family = _family_of(ip)
                if family != "IPv4":
                    errs.append(invalid(FieldPath.root("spec", "clusterIPs").index(i),
                                        go_string_slice(ips),
                                        f"{family} is not configured on this cluster"))
                else:
                    families.append(family)
        if errs:
            raise _refuse(svc, errs)
        if headless_selectorless:
            if not families:
                families = ["IPv4"]
            if len(families) < 2 and policy != "SingleStack":
                families.append("IPv6" if families[0] == "IPv4" else "IPv4")
            spec["ipFamilies"] = families
            return
        if policy == "RequireDualStack":
            errs.append(invalid(FieldPath.root("spec", "ipFamilyPolicy"), policy,
                                "this cluster is not configured for dual-stack services"))
        for i, family in enumerate(families):
            if family != "IPv4":
                errs.append(invalid(FieldPath.root("spec", "ipFamilies").index(i), family,
                                    "not configured on this cluster"))
        if errs:
            raise _refuse(svc, errs)
        spec["ipFamilies"] = families or ["IPv4"]

    def _alloc_cluster_ip(self, svc: Object, txn: Txn) -> None:
        """``allocClusterIPs``: the first family's address (the only one here)."""
        if not needs_cluster_ip(svc):
            return
        spec = svc["spec"]
        ips = cluster_ips(svc)
        if ips and ips[0] == _NONE:
            return
        families = spec.get("ipFamilies")
        if not isinstance(families, list) or not families or families[0] != "IPv4":
            return  # refused above or by validation
        wanted = ips[0] if ips else ""
        if wanted and not _is_ipv4(wanted):
            return  # validation names it
        try:
            if wanted:
                self.ips.allocate(wanted)
                got = wanted
            else:
                got = self.ips.allocate_next()
        except AllocationError as exc:
            if not wanted:
                raise InternalError.of(f"failed to allocate a serviceIP: {exc}") from None
            raise _refuse(svc, [invalid(FieldPath.root("spec", "clusterIPs"), go_string_slice(ips),
                                        f"failed to allocate IP {wanted}: {exc}")]) from None
        txn.ips.append(got)
        spec["clusterIPs"] = [got, *ips[1:]]
        spec["clusterIP"] = got

    def _init_node_ports(self, svc: Object, txn: Txn) -> None:
        """``initNodePorts``: one node port per distinct service port number."""
        by_port: dict[int, int] = {}
        ports = _ports(svc)
        for i, port in enumerate(ports):
            number = _int(port.get("nodePort"))
            if number == 0 and not should_allocate_node_ports(svc):
                continue  # no new ports, but explicit requests are honoured
            service_port = _int(port.get("port"))
            known = by_port.get(service_port, 0)
            path = FieldPath.root("spec", "ports").index(i).child("nodePort")
            if known == 0:
                requested = next((_int(p.get("nodePort")) for p in ports
                                  if _int(p.get("port")) == service_port
                                  and _int(p.get("nodePort"))), 0)
                if requested:
                    self._take_port(svc, requested, path, txn)
                    port["nodePort"] = by_port[service_port] = requested
                else:
                    port["nodePort"] = by_port[service_port] = self._next_port(txn)
            elif number != known:
                if number == 0:
                    port["nodePort"] = known
                else:
                    self._take_port(svc, number, path, txn)

    def _take_port(self, svc: Object, number: int, path: FieldPath, txn: Txn) -> None:
        try:
            self.ports.allocate(number)
        except AllocationError as exc:
            raise _refuse(svc, [invalid(path, number, str(exc))]) from None
        txn.ports.append(number)

    def _next_port(self, txn: Txn) -> int:
        try:
            number = self.ports.allocate_next()
        except AllocationError as exc:
            raise InternalError.of(f"failed to allocate a nodePort: {exc}") from None
        txn.ports.append(number)
        return number

    def _alloc_health_check(self, svc: Object, txn: Txn) -> None:
        spec = svc["spec"]
        wanted = _int(spec.get("healthCheckNodePort"))
        if wanted:
            try:
                self.ports.allocate(wanted)
            except AllocationError as exc:
                raise InternalError.of(f"failed to allocate requested HealthCheck NodePort "
                                       f"{wanted}: {exc}") from None
            txn.ports.append(wanted)
        else:
            try:
                spec["healthCheckNodePort"] = self.ports.allocate_next()
            except AllocationError as exc:
                raise InternalError.of(f"failed to allocate a HealthCheck NodePort 0: "
                                       f"{exc}") from None
            txn.ports.append(spec["healthCheckNodePort"])

    # ------------------------------------------------------------------ update

    def begin_update(self, new: Object, old: Mapping[str, Any]) -> Txn:
        """Patch allocated values back in, then allocate/release for the change."""
        self._ensure_loaded()
        spec = new.setdefault("spec", {})
        if not isinstance(spec, dict):
            return NOTHING
        old = deep_copy(dict(old))
        _patch_allocated_values(new, old)
        _normalize_cluster_ips_on_update(new, old)
        self._init_ip_families(new, old)
        txn = self._begin()
        try:
            self._updatecluster_ips(new, old, txn)
            self._update_node_ports(new, old, txn)
            self._update_health_check(new, old, txn)
        except BaseException:
            txn.revert()
            raise
        return txn

    def _updatecluster_ips(self, new: Object, old: Mapping[str, Any], txn: Txn) -> None:
        if service_type(old) == _EXTERNAL_NAME and service_type(new) != _EXTERNAL_NAME:
            self._alloc_cluster_ip(new, txn)
            return
        old_ips = cluster_ips(old)
        if old_ips and old_ips[0] == _NONE:
            return
        if service_type(old) != _EXTERNAL_NAME and service_type(new) == _EXTERNAL_NAME:
            txn.release_ips.extend(ip for ip in old_ips[:1] if ip)

    def _update_node_ports(self, new: Object, old: Mapping[str, Any], txn: Txn) -> None:
        if needs_node_ports(old) and not needs_node_ports(new):
            txn.release_ports.extend(_node_ports(old))
        if not needs_node_ports(new):
            return
        old_numbers = _node_ports(old)
        taken: set[int] = set()
        seen: set[tuple[str, int]] = set()
        for i, port in enumerate(_ports(new)):
            number = _int(port.get("nodePort"))
            if number == 0 and not should_allocate_node_ports(new):
                continue
            if number:
                if number not in old_numbers and number not in taken:
                    self._take_port(new, number, FieldPath.root("spec", "ports").index(i)
                                    .child("nodePort"), txn)
                    taken.add(number)
            else:
                number = port["nodePort"] = self._next_port(txn)
            key = (str(port.get("protocol") or "TCP"), number)
            if key in seen:
                raise InternalError.of(f"duplicate nodePort: {{{key[0]} {number}}}")
            seen.add(key)
        new_numbers = _node_ports(new)
        txn.release_ports.extend(n for n in old_numbers if n not in new_numbers)

    def _update_health_check(self, new: Object, old: Mapping[str, Any], txn: Txn) -> None:
        needed, needs = needs_health_check_node_port(old), needs_health_check_node_port(new)
        if not needed and needs:
            self._alloc_health_check(new, txn)
        elif needed and not needs:
            old_port = _int(_spec(old).get("healthCheckNodePort"))
            if old_port:
                txn.release_ports.append(old_port)

    # ------------------------------------------------------------------ delete

    def after_delete(self, svc: Mapping[str, Any]) -> None:
        """``releaseAllocatedResources`` once the Service is gone."""
        if not self._loaded:
            return  # the next load reads the store, which no longer has it
        if needs_cluster_ip(svc):
            for ip in cluster_ips(svc)[:1]:
                if ip and ip != _NONE:
                    self.ips.release(ip)
        for number in _node_ports(svc):
            self.ports.release(number)
        if needs_health_check_node_port(svc):
            hc = _int(_spec(svc).get("healthCheckNodePort"))
            if hc:
                self.ports.release(hc)

    def allocated(self) -> tuple[list[str], list[int]]:
        """What is taken now (for tests and ``describe``-style reports)."""
        base = int(self.ips.network.network_address) + 1
        ips = sorted(str(ipaddress.IPv4Address(base + o)) for o in self.ips.bitmap.taken())
        ports = sorted(self.ports.first + o for o in self.ports.bitmap.taken())
        return ips, ports


def _patch_allocated_values(new: Object, old: Mapping[str, Any]) -> None:
    """``patchAllocatedValues``: keep what we allocated when the client left it out."""
    spec, old_spec = new["spec"], _spec(old)
    if needs_cluster_ip(old) and needs_cluster_ip(new):
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
        if not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
            spec["clusterIPs"] = list(old_spec["clusterIPs"])
    if needs_node_ports(old) and needs_node_ports(new):
        used = set(_node_ports(old)) & set(_node_ports(new))
        by_name = {str(p.get("name") or ""): _int(p.get("nodePort")) for p in _ports(old)}
        for port in _ports(new):
            if not _int(port.get("nodePort")):
                previous = by_name.get(str(port.get("name") or ""), 0)
                if previous and previous not in used:
                    port["nodePort"] = previous
    if needs_health_check_node_port(old) and needs_health_check_node_port(new) and \
            not _int(spec.get("healthCheckNodePort")) and old_spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]


def _normalize_cluster_ips_on_update(new: Object, old: Mapping[str, Any]) -> None:
    """``normalizeClusterIPs`` for an update (old clients send only ``clusterIP``)."""
    spec, old_spec = new["spec"], _spec(old)
    old_ips, new_ips = cluster_ips(old), cluster_ips(new)
    old_ip, new_ip = str(old_spec.get("clusterIP") or ""), str(spec.get("clusterIP") or "")
    if old_ips and not new_ips and old_ip == new_ip:
        spec["clusterIPs"] = list(old_ips)
        new_ips = list(old_ips)
    if old_ip != new_ip:
        same = old_ips == new_ips
        if old_ip and not new_ip:
            if same:
                spec.pop("clusterIPs", None)
        elif same:
            spec["clusterIPs"] = [new_ip]

