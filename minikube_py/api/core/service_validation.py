"""Service validation: ``ValidateService``, ``ValidateServiceUpdate`` and
``ValidateServiceStatusUpdate`` of ``pkg/apis/core/validation`` (v1.32), with
Kubernetes' paths, messages and quirks (``spec.LoadBalancerSourceRanges`` with
a capital L; a LoadBalancer without ``allocateLoadBalancerNodePorts`` is
reported at ``allocateLoadBalancerNodePorts``, without ``spec.``).

Validation runs after allocation (:mod:`minikube_py.admission.services`, as
kube-apiserver's ``beginCreate``), so ``clusterIP`` has been copied into
``clusterIPs`` and, for anything but ExternalName, ``ipFamilies`` and
``ipFamilyPolicy`` are set; the checks still hold without that. What the
allocator refuses on its own (families this IPv4 single-stack cluster does
not have, ``RequireDualStack``, an address already taken or out of range)
never reaches these functions.

Feature gates are those of a default 1.32 API server: ``LoadBalancerIPMode``
is on (GA), ``AllowServiceLBStatusOnNonLB`` off, ``ServiceTrafficDistribution``
on. Bad values Go prints with ``%#v`` (a ``[]string``, a ``ServicePort``) are
rendered as Go renders them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..errors import FieldError, FieldPath, duplicate, forbidden, invalid, not_supported, required
from ..labels import validate_labels
from ..names import is_dns1123_subdomain, is_valid_port_num
from ..validation_meta import (
    Errs,
    GoValue,
    as_int,
    as_list,
    as_map,
    as_str,
    enum_value,
    go_quote,
    go_string_slice,
    parse_ip_sloppy,
    qualified_name,
    valid_ip,
    validate_object_meta,
    validate_object_meta_update,
)
from ..validation_network import (
    app_protocol,
    go_ipv4,
    non_special_ip,
    port_num_or_name,
    service_port_basics,
    valid_cidr,
)
from .service_facts import (
    CLUSTER_IP,
    CLUSTER_IP_NONE,
    EXTERNAL_NAME,
    LOAD_BALANCER,
    NODE_PORT,
    cluster_ips,
    externally_accessible,
    is_headless,
    needs_health_check_node_port,
    service_type,
)

__all__ = ["validate_cluster_ips_related_fields", "validate_load_balancer_status",
           "validate_service", "validate_service_status_update", "validate_service_update"]

SERVICE_TYPES: Final = (CLUSTER_IP, EXTERNAL_NAME, LOAD_BALANCER, NODE_PORT)
SESSION_AFFINITIES: Final = ("ClientIP", "None")
TRAFFIC_POLICIES: Final = ("Cluster", "Local")
IP_FAMILIES: Final = ("IPv4", "IPv6")
IP_FAMILY_POLICIES: Final = ("PreferDualStack", "RequireDualStack", "SingleStack")
IP_MODES: Final = ("Proxy", "VIP")
#: ``core.MaxClientIPServiceAffinitySeconds``.
MAX_AFFINITY_SECONDS: Final = 86400
TOPOLOGY_MODE: Final = "service.kubernetes.io/topology-mode"
TOPOLOGY_HINTS: Final = "service.kubernetes.io/topology-aware-hints"
SOURCE_RANGES_ANNOTATION: Final = "service.beta.kubernetes.io/load-balancer-source-ranges"
ONLY_LB: Final = "may only be used when `type` is 'LoadBalancer'"
CHANGED: Final = "may not change once set"

_SPEC: Final = FieldPath.root("spec")


def _go_service_port(protocol: str, port: int) -> GoValue:
    """``%#v`` of the internal ``core.ServicePort{Protocol, Port}`` that
    Kubernetes reports a duplicate port as."""
    return GoValue(
        f"core.ServicePort{{Name:\"\", Protocol:{go_quote(protocol)}, AppProtocol:(*string)(nil), "
        f"Port:{port}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, "
        "NodePort:0}")


# ------------------------------------------------------------------ pieces


def _service_port(port: Mapping[str, Any], require_name: bool, names: set[str],
                  path: FieldPath) -> Errs:
    """``validateServicePort``."""
    errs = service_port_basics(port, require_name, path, names)
    errs.extend(port_num_or_name(port.get("targetPort"), path.child("targetPort")))
    errs.extend(app_protocol(port, path))
    return errs


def _client_ip_affinity(config: Any, path: FieldPath) -> Errs:
    """``validateClientIPAffinityConfig``."""
    why = "when session affinity type is ClientIP"
    if not isinstance(config, Mapping):
        return [required(path, why)]
    client_ip = config.get("clientIP")
    if not isinstance(client_ip, Mapping):
        return [required(path.child("clientIP"), why)]
    timeout = as_int(client_ip.get("timeoutSeconds"))
    timeout_path = path.child("clientIP", "timeoutSeconds")
    if timeout is None:
        return [required(timeout_path, why)]
    if not 0 < timeout <= MAX_AFFINITY_SECONDS:
        return [invalid(timeout_path, timeout,
                        f"must be greater than 0 and less than {MAX_AFFINITY_SECONDS}")]
    return []


def _is_ipv6(ip: str) -> bool:
    """``netutils.IsIPv6String``."""
    addr = parse_ip_sloppy(ip)
    return addr is not None and go_ipv4(addr) is None


def validate_cluster_ips_related_fields(svc: Mapping[str, Any]) -> Errs:
    """``ValidateServiceClusterIPsRelatedFields``: ``clusterIP`` and
    ``clusterIPs`` agree, families and policy are known values, addresses
    are valid (``None`` only alone), at most one per family and of the family
    ``ipFamilies`` names. ExternalName Services are checked elsewhere."""
    if service_type(svc) == EXTERNAL_NAME:
        return []
    spec = as_map(svc.get("spec"))
    ips_path = _SPEC.child("clusterIPs")
    families_path = _SPEC.child("ipFamilies")
    errs: Errs = []
    ips = cluster_ips(svc)
    shown = go_string_slice(ips)
    cluster_ip = as_str(spec.get("clusterIP"))
    if cluster_ip:
        if not ips:
            errs.append(required(ips_path, ""))
        elif ips[0] != cluster_ip:
            errs.append(invalid(ips_path, shown, "first value must match `clusterIP`"))
    elif ips:
        errs.append(invalid(ips_path, shown, "must be empty when `clusterIP` is not specified"))
    families = [as_str(f) for f in as_list(spec.get("ipFamilies"))]
    seen: set[str] = set()
    for i, family in enumerate(families):
        if family not in IP_FAMILIES:
            errs.append(not_supported(families_path.index(i), family, IP_FAMILIES))
        if family in seen:
            errs.append(duplicate(families_path.index(i), family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in IP_FAMILY_POLICIES:
        errs.append(not_supported(_SPEC.child("ipFamilyPolicy"), as_str(policy),
                                  IP_FAMILY_POLICIES))
    bad_ips = False
    for i, ip in enumerate(ips):
        if i == 0 and ip == CLUSTER_IP_NONE:
            if len(ips) > 1:
                bad_ips = True
                errs.append(invalid(ips_path, shown, "'None' must be the first and only value"))
            continue
        found = valid_ip(ip, ips_path.index(i))
        bad_ips = bad_ips or bool(found)
        errs.extend(found)
    if len(ips) > 2:
        errs.append(invalid(ips_path, shown, "may only hold up to 2 values"))
    if bad_ips:
        return errs  # families of bad addresses would only add noise
    # netutils.IsDualStackIPStrings: both families present (a third address
    # was reported above).
    if len(ips) > 1 and len({_is_ipv6(ip) for ip in ips}) != 2:
        errs.append(invalid(ips_path, shown, "may specify no more than one IP for each IP family"))
    if not is_headless(svc) and ips and families:
        for i, ip in enumerate(ips[:len(families)]):
            if families[i] == "IPv4" and _is_ipv6(ip):
                errs.append(invalid(ips_path.index(i), ip, "expected an IPv4 value as "
                                    f"indicated by `ipFamilies[{i}]`"))
            if families[i] == "IPv6" and not _is_ipv6(ip):
                errs.append(invalid(ips_path.index(i), ip, "expected an IPv6 value as "
                                    f"indicated by `ipFamilies[{i}]`"))
    return errs


def _source_ranges(svc: Mapping[str, Any]) -> Errs:
    """``loadBalancerSourceRanges`` or, failing that, its annotation: only for
    LoadBalancers, and CIDRs (space-padded values allowed, for history)."""
    spec = as_map(svc.get("spec"))
    ranges = as_list(spec.get("loadBalancerSourceRanges"))
    annotations = as_map(as_map(svc.get("metadata")).get("annotations"))
    errs: Errs = []
    if ranges:
        path = _SPEC.child("LoadBalancerSourceRanges")  # sic: Kubernetes' capital L
        if service_type(svc) != LOAD_BALANCER:
            errs.append(forbidden(path, ONLY_LB))
        for i, value in enumerate(ranges):
            errs.extend(valid_cidr(as_str(value).strip(), path.index(i)))
    elif SOURCE_RANGES_ANNOTATION in annotations:
        path = FieldPath.root("metadata", "annotations").key(SOURCE_RANGES_ANNOTATION)
        if service_type(svc) != LOAD_BALANCER:
            errs.append(forbidden(path, ONLY_LB))
        value = as_str(annotations[SOURCE_RANGES_ANNOTATION]).strip()
        if value:
            for cidr in value.split(","):
                errs.extend(valid_cidr(cidr.strip(), path))
    return errs


def _load_balancer_class(svc: Mapping[str, Any], old: Mapping[str, Any] | None) -> Errs:
    """``validateLoadBalancerClassField``: a qualified name, LoadBalancers only,
    fixed while the Service stays a LoadBalancer."""
    path = _SPEC.child("loadBalancerClass")
    value = as_map(svc.get("spec")).get("loadBalancerClass")
    errs: Errs = []
    if old is not None and service_type(old) == LOAD_BALANCER == service_type(svc) and \
            as_map(old.get("spec")).get("loadBalancerClass") != value:
        errs.append(invalid(path, value, CHANGED))
    if value is not None:
        if service_type(svc) == LOAD_BALANCER:
            errs.extend(qualified_name(as_str(value), path))
        else:
            errs.append(forbidden(path, ONLY_LB))
    return errs


def _traffic_policies(svc: Mapping[str, Any]) -> Errs:
    """``validateServiceExternalTrafficPolicy``,
    ``validateServiceInternalTrafficFieldsValue`` and
    ``validateServiceTrafficDistribution``."""
    spec = as_map(svc.get("spec"))
    errs: Errs = []
    external = as_str(spec.get("externalTrafficPolicy"))
    if not externally_accessible(svc):
        if external:
            errs.append(invalid(_SPEC.child("externalTrafficPolicy"), external,
                                "may only be set for externally-accessible services"))
    else:
        errs.extend(enum_value(external, _SPEC.child("externalTrafficPolicy"), TRAFFIC_POLICIES))
    health = as_int(spec.get("healthCheckNodePort")) or 0
    health_path = _SPEC.child("healthCheckNodePort")
    if not needs_health_check_node_port(svc):
        if health:
            errs.append(invalid(health_path, health, "may only be set when `type` is "
                                "'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
    elif not health:
        errs.append(required(health_path, ""))
    else:
        errs.extend(invalid(health_path, health, msg) for msg in is_valid_port_num(health))
    internal = spec.get("internalTrafficPolicy")
    internal_path = _SPEC.child("internalTrafficPolicy")
    if internal is None:
        # Not required of ExternalName: it was not checked before it went beta.
        if service_type(svc) in (NODE_PORT, LOAD_BALANCER, CLUSTER_IP):
            errs.append(required(internal_path, ""))
    elif internal not in TRAFFIC_POLICIES:
        errs.append(not_supported(internal_path, as_str(internal), TRAFFIC_POLICIES))
    distribution = spec.get("trafficDistribution")
    if distribution is not None and distribution != "PreferClose":
        errs.append(not_supported(_SPEC.child("trafficDistribution"), as_str(distribution),
                                  ("PreferClose",)))
    return errs


def _by_type(svc: Mapping[str, Any]) -> Errs:
    """What the type demands of ``clusterIPs``, families and ``externalName``."""
    spec = as_map(svc.get("spec"))
    kind = service_type(svc)
    errs: Errs = []
    if kind in (LOAD_BALANCER, NODE_PORT) and is_headless(svc):
        errs.append(invalid(_SPEC.child("clusterIPs").index(0), CLUSTER_IP_NONE,
                            f"may not be set to 'None' for {kind} services"))
    elif kind == EXTERNAL_NAME:
        never = "may not be set for ExternalName services"
        if cluster_ips(svc):
            errs.append(forbidden(_SPEC.child("clusterIPs"), never))
        if as_list(spec.get("ipFamilies")):
            errs.append(forbidden(_SPEC.child("ipFamilies"), never))
        if spec.get("ipFamilyPolicy") is not None:
            errs.append(forbidden(_SPEC.child("ipFamilyPolicy"), never))
        # A CNAME may end in a dot (fully qualified).
        cname = as_str(spec.get("externalName")).removesuffix(".")
        if cname:
            errs.extend(invalid(_SPEC.child("externalName"), cname, msg)
                        for msg in is_dns1123_subdomain(cname))
        else:
            errs.append(required(_SPEC.child("externalName"), ""))
    return errs


def _port_uniqueness(svc: Mapping[str, Any]) -> Errs:
    """No node port on a ClusterIP Service; (protocol, node port) and
    (protocol, port) pairs unique."""
    ports = [as_map(p) for p in as_list(as_map(svc.get("spec")).get("ports"))]
    ports_path = _SPEC.child("ports")
    errs: Errs = []
    if service_type(svc) == CLUSTER_IP:
        errs.extend(forbidden(ports_path.index(i).child("nodePort"),
                              "may not be used when `type` is 'ClusterIP'")
                    for i, p in enumerate(ports) if as_int(p.get("nodePort")))
    node_ports: set[tuple[str, int]] = set()
    for i, p in enumerate(ports):
        node_port = as_int(p.get("nodePort")) or 0
        if not node_port:
            continue
        key = (as_str(p.get("protocol")), node_port)
        if key in node_ports:
            errs.append(duplicate(ports_path.index(i).child("nodePort"), node_port))
        node_ports.add(key)
    seen: set[tuple[str, int]] = set()
    for i, p in enumerate(ports):
        key = (as_str(p.get("protocol")), as_int(p.get("port")) or 0)
        if key in seen:
            errs.append(duplicate(ports_path.index(i), _go_service_port(*key)))
        seen.add(key)
    return errs


# ------------------------------------------------------------------ Service


def validate_service(svc: Mapping[str, Any]) -> Errs:
    """``ValidateService`` (``ValidateServiceCreate`` is the same)."""
    meta = as_map(svc.get("metadata"))
    errs: list[FieldError] = validate_object_meta(meta, namespaced=True,
                                                  name_rule="dns1035-label")
    annotations = as_map(meta.get("annotations"))
    if TOPOLOGY_MODE in annotations and TOPOLOGY_HINTS in annotations and \
            annotations[TOPOLOGY_MODE] != annotations[TOPOLOGY_HINTS]:
        errs.append(invalid(FieldPath.root("metadata", "annotations").key(TOPOLOGY_MODE),
                            as_str(annotations[TOPOLOGY_MODE]),
                            f"must match annotations[{TOPOLOGY_HINTS}] when both are specified"))
    spec = as_map(svc.get("spec"))
    ports = [as_map(p) for p in as_list(spec.get("ports"))]
    if not ports and not is_headless(svc) and service_type(svc) != EXTERNAL_NAME:
        errs.append(required(_SPEC.child("ports"), ""))
    errs.extend(_by_type(svc))
    names: set[str] = set()
    for i, port in enumerate(ports):
        errs.extend(_service_port(port, len(ports) > 1, names, _SPEC.child("ports").index(i)))
    if spec.get("selector") is not None:
        errs.extend(validate_labels(spec.get("selector"), _SPEC.child("selector")))
    affinity = as_str(spec.get("sessionAffinity"))
    errs.extend(enum_value(affinity, _SPEC.child("sessionAffinity"), SESSION_AFFINITIES))
    if affinity == "ClientIP":
        errs.extend(_client_ip_affinity(spec.get("sessionAffinityConfig"),
                                        _SPEC.child("sessionAffinityConfig")))
    elif affinity == "None" and spec.get("sessionAffinityConfig") is not None:
        errs.append(forbidden(_SPEC.child("sessionAffinityConfig"),
                              "must not be set when session affinity is None"))
    errs.extend(validate_cluster_ips_related_fields(svc))
    for i, ip in enumerate(as_list(spec.get("externalIPs"))):
        path = _SPEC.child("externalIPs").index(i)
        errs.extend(valid_ip(as_str(ip), path) or non_special_ip(as_str(ip), path))
    errs.extend(enum_value(service_type(svc), _SPEC.child("type"), SERVICE_TYPES))
    errs.extend(_port_uniqueness(svc))
    errs.extend(_source_ranges(svc))
    allocate = spec.get("allocateLoadBalancerNodePorts")
    if allocate is not None and service_type(svc) != LOAD_BALANCER:
        errs.append(forbidden(_SPEC.child("allocateLoadBalancerNodePorts"), ONLY_LB))
    if service_type(svc) == LOAD_BALANCER and allocate is None:
        errs.append(required("allocateLoadBalancerNodePorts", ""))  # sic: no "spec."
    errs.extend(_load_balancer_class(svc, None))
    errs.extend(_traffic_policies(svc))
    return errs


def _upgrade_downgrade(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``validateUpgradeDowngradeClusterIPs`` and
    ``validateUpgradeDowngradeIPFamilies``: the primary address and family
    never change (unless the Service is or was ExternalName); releasing the
    secondary needs ``ipFamilyPolicy: SingleStack``."""
    if EXTERNAL_NAME in (service_type(new), service_type(old)):
        return []
    errs: Errs = []
    ips_path, families_path = _SPEC.child("clusterIPs"), _SPEC.child("ipFamilies")
    new_ips, old_ips = cluster_ips(new), cluster_ips(old)
    policy = as_map(new.get("spec")).get("ipFamilyPolicy")
    single = policy == "SingleStack"
    if not (is_headless(new) and is_headless(old)):
        shown = go_string_slice(new_ips)
        if len(old_ips) == len(new_ips):
            errs.extend(invalid(ips_path.index(i), shown, CHANGED)
                        for i, ip in enumerate(old_ips) if ip != new_ips[i])
        elif len(old_ips) > len(new_ips):
            if not new_ips:
                errs.append(invalid(ips_path.index(0), shown, "primary clusterIP can not be unset"))
            elif new_ips[0] != old_ips[0]:
                errs.append(invalid(ips_path.index(0), shown, CHANGED))
            if len(new_ips) == 1 and not single:
                errs.append(invalid(_SPEC.child("ipFamilyPolicy"), policy, "must be set to "
                                    "'SingleStack' when releasing the secondary clusterIP"))
        elif old_ips and new_ips[0] != old_ips[0]:
            errs.append(invalid(ips_path.index(0), shown, CHANGED))
    if is_headless(new) or is_headless(old):
        return errs  # headless Services may change families, and so may a switch to/from it
    new_families = [as_str(f) for f in as_list(as_map(new.get("spec")).get("ipFamilies"))]
    old_families = [as_str(f) for f in as_list(as_map(old.get("spec")).get("ipFamilies"))]
    # %#v of a []core.IPFamily; Kubernetes reports every change at index 0.
    families = GoValue("[]core.IPFamily{" + ", ".join(go_quote(f) for f in new_families) + "}")
    if len(old_families) == len(new_families):
        errs.extend(invalid(families_path.index(0), families, CHANGED)
                    for i, f in enumerate(old_families) if f != new_families[i])
    elif len(old_families) > len(new_families):
        if not new_ips:  # sic: Kubernetes tests clusterIPs here
            errs.append(invalid(families_path.index(0), families,
                                "primary ipFamily can not be unset"))
        if new_families and new_families[0] != old_families[0]:
            errs.append(invalid(families_path.index(0), go_string_slice(new_ips), CHANGED))
        if len(new_families) == 1 and not single:
            errs.append(invalid(_SPEC.child("ipFamilyPolicy"), policy, "must be set to "
                                "'SingleStack' when releasing the secondary ipFamily"))
    elif old_families and new_families[0] != old_families[0]:
        errs.append(invalid(families_path.index(0), go_string_slice(new_ips), CHANGED))
    return errs


def validate_load_balancer_status(svc: Mapping[str, Any]) -> Errs:
    """``ValidateLoadBalancerStatus`` of ``status.loadBalancer``: ingress only
    on LoadBalancers; valid IPs with an ``ipMode`` (VIP or Proxy), DNS names
    that are not IPs."""
    path = FieldPath.root("status", "loadBalancer", "ingress")
    ingress = [as_map(i) for i in as_list(as_map(as_map(svc.get("status"))
                                                 .get("loadBalancer")).get("ingress"))]
    if ingress and service_type(svc) != LOAD_BALANCER:
        return [forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")]
    errs: Errs = []
    for i, point in enumerate(ingress):
        ip, hostname, mode = as_str(point.get("ip")), as_str(point.get("hostname")), \
            point.get("ipMode")
        if ip:
            errs.extend(valid_ip(ip, path.index(i).child("ip")))
        if mode is None:
            if ip:
                errs.append(required(path.index(i).child("ipMode"),
                                     "must be specified when `ip` is set"))
        elif not ip:
            errs.append(forbidden(path.index(i).child("ipMode"),
                                  "may not be specified when `ip` is not set"))
        elif mode not in IP_MODES:
            errs.append(not_supported(path.index(i).child("ipMode"), as_str(mode), IP_MODES))
        if hostname:
            errs.extend(invalid(path.index(i).child("hostname"), hostname, msg)
                        for msg in is_dns1123_subdomain(hostname))
            if parse_ip_sloppy(hostname) is not None:
                errs.append(invalid(path.index(i).child("hostname"), hostname,
                                    "must be a DNS name, not an IP address"))
    return errs


def validate_service_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateServiceUpdate``, then the status rules: the registry validates
    a ``services/status`` write with this same function, and on a main-resource
    write the status is the stored one (or cleared with the type), so checking
    it again changes nothing there."""
    errs: list[FieldError] = validate_object_meta_update(new.get("metadata"),
                                                         old.get("metadata"))
    errs.extend(_upgrade_downgrade(new, old))
    errs.extend(_load_balancer_class(new, old))
    if needs_health_check_node_port(old) and needs_health_check_node_port(new) and \
            as_map(new.get("spec")).get("healthCheckNodePort") != \
            as_map(old.get("spec")).get("healthCheckNodePort"):
        errs.append(forbidden(_SPEC.child("healthCheckNodePort"), "field is immutable"))
    errs.extend(validate_service(new))
    errs.extend(validate_load_balancer_status(new))
    return errs


def validate_service_status_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateServiceStatusUpdate``: metadata rules and the load balancer
    status."""
    errs: list[FieldError] = validate_object_meta_update(new.get("metadata"),
                                                         old.get("metadata"))
    errs.extend(validate_load_balancer_status(new))
    return errs
