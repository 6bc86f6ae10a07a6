"""Service (core/v1): a stable address and ports in front of a set of pods.

The pieces, each as Kubernetes v1.32 has it:

* facts every handler asks (:mod:`.service_facts`: headless? needs a cluster
  IP, node ports, a health-check node port?), re-exported here for the
  allocator;
* ``SetDefaults_Service`` (:func:`default_service`);
* validation (:mod:`.service_validation`);
* the strategy (``pkg/registry/core/service/strategy.go``): created with
  ``status: {loadBalancer: {}}``, no generation, status only through
  ``services/status``, a delete answers with the Service (the service
  storage's ``ReturnDeletedObject``), and on update the type-dependent fields the user did
  not touch are wiped when the new type has no use for them
  (``dropTypeDependentFields``), the load balancer status with them;
  field selectors ``spec.clusterIP`` and ``spec.type``;
* kubectl's table (``printService``) and describer (with the Service's
  EndpointSlices, :mod:`..describe.services`).

Cluster IPs, IP families and node ports are *not* decided here: the
allocator (:mod:`minikube_py.admission.services`) fills them in before the
strategy and validation run, as kube-apiserver's service storage does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..access import mappings as _maps
from ..defaults import _default, _default_missing, _dict, _dicts
from ..describe.services import describe_service
from ..generated import core_v1
from ..labels import format_labels
from ..printers import D_CREATED, D_NAME, NONE, age_of, cell_int, cell_str, epoch
from ..resource import Column, KindInfo, Related, Resource
from ..validation_meta import as_list, as_str
from .service_facts import (
    CLUSTER_IP,
    CLUSTER_IP_NONE,
    EXTERNAL_NAME,
    LOAD_BALANCER,
    NODE_PORT,
    cluster_ips,
    externally_accessible,
    is_headless,
    needs_cluster_ip,
    needs_health_check_node_port,
    needs_node_ports,
    node_ports,
    requests_only_local_traffic,
    service_type,
    should_allocate_node_ports,
)
from .service_validation import validate_service, validate_service_update

__all__ = ["CLUSTER_IP_NONE", "INFO", "RESOURCE", "SERVICE_NAME_LABEL", "cluster_ips",
           "default_service", "externally_accessible", "is_headless", "needs_cluster_ip",
           "needs_health_check_node_port", "needs_node_ports", "node_ports",
           "requests_only_local_traffic", "service_type", "should_allocate_node_ports"]

INFO = KindInfo("Service", "", "v1", "services", "service", True, ("svc",),
                field_labels=("spec.clusterIP", "spec.type"), subresources=("status", "proxy"),
                categories=("all",), returns_deleted_object=True)

#: ``discoveryv1.LabelServiceName``: the label naming a slice's Service.
SERVICE_NAME_LABEL: Final = "kubernetes.io/service-name"
#: ``v1.DefaultClientIPServiceAffinitySeconds``.
DEFAULT_AFFINITY_SECONDS: Final = 10800

# ------------------------------------------------------------------ defaults


def default_service(svc: dict[str, Any], create: bool) -> None:
    """``SetDefaults_Service`` (v1.32, ``LoadBalancerIPMode`` on)."""
    spec = _dict(svc, "spec")
    _default(spec, "sessionAffinity", "None")
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        client_ip = _m(_m(spec.get("sessionAffinityConfig")).get("clientIP"))
        if client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {
                "clientIP": {"timeoutSeconds": DEFAULT_AFFINITY_SECONDS}}
    _default(spec, "type", CLUSTER_IP)
    for port in _dicts(spec.get("ports")):
        _default(port, "protocol", "TCP")
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port") or 0
    if externally_accessible(svc):
        _default(spec, "externalTrafficPolicy", "Cluster")
    if spec.get("type") in (NODE_PORT, LOAD_BALANCER, CLUSTER_IP):
        _default_missing(spec, "internalTrafficPolicy", "Cluster")
    # ServiceStatus.loadBalancer is a struct, not a pointer: Go always writes it.
    load_balancer = _dict(_dict(svc, "status"), "loadBalancer")
    if spec.get("type") == LOAD_BALANCER:
        _default_missing(spec, "allocateLoadBalancerNodePorts", True)
        for point in _dicts(load_balancer.get("ingress")):
            if point.get("ip") and point.get("ipMode") is None:
                point["ipMode"] = "VIP"


# ------------------------------------------------------------------ strategy


def _same(new: Mapping[str, Any], old: Mapping[str, Any], *keys: str) -> bool:
    return all(new.get(key) == old.get(key) for key in keys)


def drop_type_dependent_fields(new: dict[str, Any], old: Mapping[str, Any]) -> None:
    """``dropTypeDependentFields``: when the new type has no use for a field
    the user left as it was (cluster IPs and families for ExternalName, node
    ports, the health-check node port, ``allocateLoadBalancerNodePorts``,
    ``loadBalancerClass``, ``externalTrafficPolicy``), wipe it; a changed one
    is left for validation to refuse. Anything but a LoadBalancer loses its
    load balancer status."""
    spec, old_spec = _dict(new, "spec"), _m(old.get("spec"))
    if needs_cluster_ip(old) and not needs_cluster_ip(new):
        if _same(spec, old_spec, "clusterIP", "clusterIPs"):
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        if _same(spec, old_spec, "ipFamilies"):
            spec.pop("ipFamilies", None)
        if _same(spec, old_spec, "ipFamilyPolicy"):
            spec.pop("ipFamilyPolicy", None)
    # Ports may be added, removed or changed, as long as no node port is new.
    if needs_node_ports(old) and not needs_node_ports(new) and \
            set(node_ports(new)) <= set(node_ports(old)):
        for port in _dicts(spec.get("ports")):
            port.pop("nodePort", None)
    if needs_health_check_node_port(old) and not needs_health_check_node_port(new) and \
            _same(spec, old_spec, "healthCheckNodePort"):
        spec.pop("healthCheckNodePort", None)
    if service_type(old) == LOAD_BALANCER != service_type(new):
        if spec.get("allocateLoadBalancerNodePorts") is not None and \
                _same(spec, old_spec, "allocateLoadBalancerNodePorts"):
            spec.pop("allocateLoadBalancerNodePorts", None)
        if _same(spec, old_spec, "loadBalancerClass"):
            spec.pop("loadBalancerClass", None)
    if externally_accessible(old) and not externally_accessible(new) and \
            _same(spec, old_spec, "externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)
    if service_type(new) != LOAD_BALANCER:
        _dict(new, "status")["loadBalancer"] = {}


# ------------------------------------------------------------------ table

SERVICE_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Type", "string",
           "type determines how the Service is exposed. Defaults to ClusterIP. Valid options "
           "are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a "
           "cluster-internal IP address for load-balancing to endpoints. Endpoints are "
           "determined by the selector or if that is not specified, by manual construction "
           "of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no "
           "virtual IP is allocated and the endpoints are published as a set of endpoints "
           "rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on "
           "every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" "
           "builds on NodePort and creates an external load-balancer (if supported in the "
           "current cloud) which routes to the same endpoints as the clusterIP. "
           "\"ExternalName\" aliases this service to the specified externalName. Several "
           "other fields do not apply to ExternalName services. More info: https://kubernetes"
           ".io/docs/concepts/services-networking/service/#publishing-services-service-types"),
    Column("Cluster-IP", "string",
           "clusterIP is the IP address of the service and is usually assigned randomly. If "
           "an address is specified manually, is in-range (as per system configuration), and "
           "is not in use, it will be allocated to the service; otherwise creation of the "
           "service will fail. This field may not be changed through updates unless the type "
           "field is also being changed to ExternalName (which requires this field to be "
           "blank) or the type field is being changed from ExternalName (in which case this "
           "field may optionally be specified, as describe above).  Valid values are "
           "\"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" "
           "makes a \"headless service\" (no virtual IP), which is useful when direct "
           "endpoint connections are preferred and proxying is not required.  Only applies "
           "to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when "
           "creating a Service of type ExternalName, creation will fail. This field will be "
           "wiped when updating a Service to type ExternalName. More info: https://kubernetes"
           ".io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"),
    Column("External-IP", "string",
           "externalIPs is a list of IP addresses for which nodes in the cluster will also "
           "accept traffic for this service.  These IPs are not managed by Kubernetes.  The "
           "user is responsible for ensuring that traffic arrives at a node with this IP.  A "
           "common example is external load-balancers that are not part of the Kubernetes "
           "system."),
    Column("Port(s)", "string",
           "The list of ports that are exposed by this service. More info: https://kubernetes"
           ".io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"),
    Column("Age", "string", D_CREATED),
    Column("Selector", "string",
           "Route service traffic to pods with label keys and values matching this selector. "
           "If empty or not present, the service is assumed to have an external process "
           "managing its endpoints, which Kubernetes will not modify. Only applies to types "
           "ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More "
           "info: https://kubernetes.io/docs/concepts/services-networking/service/",
           priority=1),
)


def external_ip(svc: Mapping[str, Any]) -> str:
    """``getServiceExternalIP`` as the server prints it (wide: never clipped)."""
    spec = _m(svc.get("spec"))
    external = [cell_str(ip) for ip in as_list(spec.get("externalIPs"))]
    kind = service_type(svc)
    if kind in (CLUSTER_IP, NODE_PORT):
        return ",".join(external) or NONE
    if kind == LOAD_BALANCER:
        ingress = _maps(_m(_m(svc.get("status")).get("loadBalancer")).get("ingress"))
        # loadBalancerStatusStringer: a sorted set of IPs (hostnames when no IP).
        points = sorted({cell_str(p.get("ip")) or cell_str(p.get("hostname"))
                         for p in ingress} - {""})
        if external or points:
            return ",".join([*points, *external])
        return "<pending>"
    if kind == EXTERNAL_NAME:
        return as_str(spec.get("externalName"))
    return "<unknown>"


def port_string(svc: Mapping[str, Any]) -> str:
    """``makePortString``: ``80/TCP``, ``80:30080/TCP``, comma-separated."""
    pieces = []
    for port in _maps(_m(svc.get("spec")).get("ports")):
        number, node_port = cell_int(port.get("port")), cell_int(port.get("nodePort"))
        protocol = cell_str(port.get("protocol"))
        pieces.append(f"{number}:{node_port}/{protocol}" if node_port > 0
                      else f"{number}/{protocol}")
    return ",".join(pieces)


def print_service(svc: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    """``printService``: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR."""
    metadata, spec = _m(svc.get("metadata")), _m(svc.get("spec"))
    ips = cluster_ips(svc)
    return [
        cell_str(metadata.get("name")),
        service_type(svc),
        ips[0] if ips else NONE,
        external_ip(svc),
        port_string(svc) or NONE,
        age_of(epoch(metadata.get("creationTimestamp")), now),
        format_labels(spec.get("selector")),
    ], None


# ------------------------------------------------------------------ describe


def _slice_selector(svc: Mapping[str, Any]) -> str:
    return f"{SERVICE_NAME_LABEL}={as_str(_m(svc.get('metadata')).get('name'))}"


def _describe(svc: Mapping[str, Any], related: Mapping[str, Any], events: Any,
              ctx: Any) -> str:
    return describe_service(svc, list(related.get("endpointslices", ())), events, ctx)


RESOURCE = Resource(
    INFO, core_v1.Service,
    defaults=default_service,
    validate=validate_service,
    validate_update=validate_service_update,
    initial_status=lambda svc: {"loadBalancer": {}},
    prepare_for_update=drop_type_dependent_fields,
    columns=SERVICE_COLUMNS,
    row=print_service,
    describe=_describe,
    related=(Related("endpointslices", "endpointslices", label_selector=_slice_selector),),
)
