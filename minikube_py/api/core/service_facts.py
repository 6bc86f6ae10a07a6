"""What a Service is, asked by everything that handles one: pure predicates.

Kubernetes answers these questions in several places (``pkg/api/service``'s
``ExternallyAccessible`` / ``RequestsOnlyLocalTraffic`` / ``NeedsHealthCheck``,
the strategy's ``needsClusterIP`` / ``needsNodePort`` / ``needsHCNodePort``,
validation's ``isHeadlessService``, the allocator's
``shouldAllocateNodePorts``). Here they are written once, for defaulting,
validation, the strategy and the allocator (``minikube_py.admission.services``)
alike.

Every function takes a Service as a JSON dict, never modifies it, and reads a
missing or wrongly-typed field as Go's zero value (so ``type`` is ``""`` when
unset: defaulting has made it ``ClusterIP`` by the time anything else asks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..access import mappings as _maps
from ..validation_meta import as_int, as_list, as_str

__all__ = ["CLUSTER_IP_NONE", "cluster_ips", "externally_accessible", "is_headless",
           "needs_cluster_ip", "needs_health_check_node_port", "needs_node_ports",
           "node_ports", "requests_only_local_traffic", "service_type",
           "should_allocate_node_ports"]

#: ``spec.clusterIP`` of a headless Service.
CLUSTER_IP_NONE: Final = "None"
CLUSTER_IP: Final = "ClusterIP"
NODE_PORT: Final = "NodePort"
LOAD_BALANCER: Final = "LoadBalancer"
EXTERNAL_NAME: Final = "ExternalName"


def _spec(svc: Mapping[str, Any]) -> Mapping[str, Any]:
    return _m(svc.get("spec"))


def service_type(svc: Mapping[str, Any]) -> str:
    """``spec.type`` (``""`` when unset)."""
    return as_str(_spec(svc).get("type"))


def cluster_ips(svc: Mapping[str, Any]) -> list[str]:
    """``spec.clusterIPs`` as strings (non-strings read as ``""``)."""
    return [as_str(ip) for ip in as_list(_spec(svc).get("clusterIPs"))]


def needs_cluster_ip(svc: Mapping[str, Any]) -> bool:
    """Every type but ExternalName holds a ``clusterIP`` (``None`` counts: a
    headless Service needs the field, not an address)."""
    return service_type(svc) != EXTERNAL_NAME


def is_headless(svc: Mapping[str, Any]) -> bool:
    """``isHeadlessService``: ``clusterIPs`` is exactly ``["None"]``. Read after
    ``clusterIP`` was copied into ``clusterIPs`` (the allocator does it)."""
    return cluster_ips(svc) == [CLUSTER_IP_NONE]


def needs_node_ports(svc: Mapping[str, Any]) -> bool:
    """NodePort and LoadBalancer Services may hold node ports."""
    return service_type(svc) in (NODE_PORT, LOAD_BALANCER)


def should_allocate_node_ports(svc: Mapping[str, Any]) -> bool:
    """``shouldAllocateNodePorts``: NodePort always; LoadBalancer unless
    ``allocateLoadBalancerNodePorts`` is false (then only explicit ones)."""
    if service_type(svc) == NODE_PORT:
        return True
    if service_type(svc) == LOAD_BALANCER:
        return _spec(svc).get("allocateLoadBalancerNodePorts") is not False
    return False


def node_ports(svc: Mapping[str, Any]) -> list[int]:
    """The non-zero ``spec.ports[].nodePort`` values, in port order (repeats
    kept: TCP and UDP of one port number may share one)."""
    return [n for p in _maps(_spec(svc).get("ports")) if (n := as_int(p.get("nodePort")) or 0)]


def externally_accessible(svc: Mapping[str, Any]) -> bool:
    """``ExternallyAccessible``: LoadBalancer, NodePort, or ClusterIP with
    ``externalIPs`` (what ``externalTrafficPolicy`` applies to)."""
    kind = service_type(svc)
    return kind in (LOAD_BALANCER, NODE_PORT) or (
        kind == CLUSTER_IP and bool(as_list(_spec(svc).get("externalIPs"))))


def requests_only_local_traffic(svc: Mapping[str, Any]) -> bool:
    """``RequestsOnlyLocalTraffic``: a NodePort or LoadBalancer Service with
    ``externalTrafficPolicy: Local``."""
    return (service_type(svc) in (LOAD_BALANCER, NODE_PORT)
            and _spec(svc).get("externalTrafficPolicy") == "Local")


def needs_health_check_node_port(svc: Mapping[str, Any]) -> bool:
    """``NeedsHealthCheck``: a LoadBalancer with ``externalTrafficPolicy:
    Local`` gets a ``healthCheckNodePort`` (allocated when not given)."""
    return service_type(svc) == LOAD_BALANCER and requests_only_local_traffic(svc)
