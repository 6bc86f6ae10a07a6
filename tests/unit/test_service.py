"""Service (v1): defaults, what the allocator asks, the strategy through a
``Registry`` (so through the allocator too, with explicit cluster IPs),
selectors, table and describe, against Kubernetes v1.32 and kubectl's output.
Validation rule by rule is in ``test_service_validation.py``."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api import kinds
from minikube_py.api.core import service
from minikube_py.api.defaults import apply_defaults
from minikube_py.api.describe import describe
from minikube_py.api.describe.services import format_endpoint_slices
from minikube_py.api.errors import Invalid
from minikube_py.api.fields import parse_field_selector
from minikube_py.api.labels import parse_selector
from minikube_py.api.printers import table
from minikube_py.store.registry import Registry

from .network_helpers import (
    DNS1035,
    NOW,
    STAMP,
    external_name,
    load_balancer,
    node_port,
    registry_in,
    svc,
    with_ingress,
)

# ------------------------------------------------------------------ defaults


def bare(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "namespace": "default"}, "spec": spec}


@pytest.mark.parametrize(("spec", "expected"), [
    ({"ports": [{"port": 80}]},
     {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}], "sessionAffinity": "None",
      "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}),
    ({"ports": [{"port": 53, "protocol": "UDP", "targetPort": "dns"}, {"port": 80,
                                                                       "targetPort": ""}]},
     {"ports": [{"port": 53, "protocol": "UDP", "targetPort": "dns"},
                {"port": 80, "protocol": "TCP", "targetPort": 80}],
      "sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}),
    ({"type": "NodePort"},
     {"type": "NodePort", "sessionAffinity": "None", "externalTrafficPolicy": "Cluster",
      "internalTrafficPolicy": "Cluster"}),
    ({"type": "LoadBalancer", "externalTrafficPolicy": "Local"},
     {"type": "LoadBalancer", "sessionAffinity": "None", "externalTrafficPolicy": "Local",
      "internalTrafficPolicy": "Cluster", "allocateLoadBalancerNodePorts": True}),
    ({"type": "ExternalName", "externalName": "db.example.com"},
     {"type": "ExternalName", "externalName": "db.example.com", "sessionAffinity": "None"}),
    ({"externalIPs": ["203.0.113.7"]},
     {"externalIPs": ["203.0.113.7"], "sessionAffinity": "None", "type": "ClusterIP",
      "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster"}),
    ({"sessionAffinity": "ClientIP"},
     {"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {
         "timeoutSeconds": 10800}}, "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}),
    ({"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {
        "timeoutSeconds": 60}}, "internalTrafficPolicy": "Local"},
     {"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {
         "timeoutSeconds": 60}}, "type": "ClusterIP", "internalTrafficPolicy": "Local"}),
    ({"sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}},
     {"sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}),
])
def test_defaults(spec: dict[str, Any], expected: dict[str, Any]):
    out = apply_defaults(bare(**spec))
    assert out["spec"] == expected
    assert out["status"] == {"loadBalancer": {}}  # Go always writes the struct


def test_defaults_give_load_balancer_ingress_ips_their_mode():
    obj = bare(type="LoadBalancer")
    obj["status"] = {"loadBalancer": {"ingress": [{"ip": "203.0.113.7"}, {"hostname": "h.io"},
                                                  {"ip": "203.0.113.8", "ipMode": "Proxy"}]}}
    assert apply_defaults(obj)["status"]["loadBalancer"]["ingress"] == [
        {"ip": "203.0.113.7", "ipMode": "VIP"}, {"hostname": "h.io"},
        {"ip": "203.0.113.8", "ipMode": "Proxy"}]
    obj["spec"]["type"] = "NodePort"  # only LoadBalancers get a mode
    assert apply_defaults(obj)["status"]["loadBalancer"]["ingress"][0] == {"ip": "203.0.113.7"}


# ------------------------------------------------------------------ facts


@pytest.mark.parametrize(("obj", "facts"), [
    (svc(), (True, False, False, False, False)),
    (svc(clusterIP="None", clusterIPs=["None"]), (True, True, False, False, False)),
    (node_port(), (True, False, True, True, False)),
    (load_balancer(allocateLoadBalancerNodePorts=False), (True, False, True, False, False)),
    (load_balancer(externalTrafficPolicy="Local"), (True, False, True, True, True)),
    (node_port(externalTrafficPolicy="Local"), (True, False, True, True, False)),
    (external_name(), (False, False, False, False, False)),
])
def test_what_the_allocator_asks(obj: dict[str, Any], facts: tuple[bool, ...]):
    assert (service.needs_cluster_ip(obj), service.is_headless(obj),
            service.needs_node_ports(obj), service.should_allocate_node_ports(obj),
            service.needs_health_check_node_port(obj)) == facts


def test_externally_accessible_and_node_ports():
    assert service.externally_accessible(svc(externalIPs=["203.0.113.7"]))
    assert not service.externally_accessible(svc())
    assert service.externally_accessible(node_port())
    assert service.requests_only_local_traffic(node_port(externalTrafficPolicy="Local"))
    ports = [{"port": 80, "nodePort": 30080}, {"port": 81}, {"port": 80, "protocol": "UDP",
                                                             "nodePort": 30080}]
    assert service.node_ports(node_port(ports=ports)) == [30080, 30080]


# ------------------------------------------------------------------ strategy


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    yield from registry_in(tmp_path)


def request(name: str = "web", **spec: Any) -> dict[str, Any]:
    body = {"selector": {"app": name}, "ports": [{"port": 80}], **spec}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": body}


def test_create_starts_with_an_empty_load_balancer_status_and_no_generation(registry: Registry):
    sent = request(clusterIP="10.96.0.10")
    sent["status"] = {"loadBalancer": {"ingress": [{"ip": "203.0.113.7"}]}}
    made = registry.create(sent, namespace="default")
    assert made["status"] == {"loadBalancer": {}}
    assert "generation" not in made["metadata"]
    assert made["spec"] == {
        "selector": {"app": "web"}, "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
        "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"], "type": "ClusterIP",
        "sessionAffinity": "None", "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
        "internalTrafficPolicy": "Cluster"}


def test_status_only_through_the_subresource(registry: Registry):
    made = registry.create(request(type="LoadBalancer", clusterIP="10.96.0.20"),
                           namespace="default")
    with_status = copy.deepcopy(made)
    with_status["status"] = {"loadBalancer": {"ingress": [{"ip": "203.0.113.7"}]}}
    with_status["spec"]["selector"] = {"app": "other"}
    kept = registry.update(with_status, namespace="default")
    assert kept["status"] == {"loadBalancer": {}} and kept["spec"]["selector"] == {"app": "other"}
    with_status["metadata"]["resourceVersion"] = kept["metadata"]["resourceVersion"]
    written = registry.update(with_status, namespace="default", subresource="status")
    assert written["status"] == {"loadBalancer": {"ingress": [{"ip": "203.0.113.7",
                                                              "ipMode": "VIP"}]}}
    assert written["spec"]["selector"] == {"app": "other"}  # spec kept as stored
    bad = copy.deepcopy(written)
    bad["status"]["loadBalancer"]["ingress"] = [{"hostname": "203.0.113.9"}]
    with pytest.raises(Invalid, match="must be a DNS name, not an IP address"):
        registry.update(bad, namespace="default", subresource="status")


def test_a_type_change_wipes_what_the_new_type_has_no_use_for(registry: Registry):
    made = registry.create(request(type="LoadBalancer", clusterIP="10.96.0.30",
                                   loadBalancerClass="example.com/lb",
                                   ports=[{"port": 80, "nodePort": 30080}]),
                           namespace="default")
    made["metadata"].pop("resourceVersion")
    status = copy.deepcopy(made)
    status["status"] = {"loadBalancer": {"ingress": [{"ip": "203.0.113.7"}]}}
    registry.update(status, namespace="default", subresource="status")
    to_cluster_ip = copy.deepcopy(made)
    to_cluster_ip["spec"]["type"] = "ClusterIP"
    now = registry.update(to_cluster_ip, namespace="default")
    spec = now["spec"]
    assert "nodePort" not in spec["ports"][0]
    for gone in ("allocateLoadBalancerNodePorts", "loadBalancerClass", "externalTrafficPolicy"):
        assert gone not in spec, gone
    assert spec["clusterIP"] == "10.96.0.30" and now["status"] == {"loadBalancer": {}}
    to_external = copy.deepcopy(now)
    to_external["metadata"].pop("resourceVersion")
    to_external["spec"].update(type="ExternalName", externalName="db.example.com")
    external = registry.update(to_external, namespace="default")
    for gone in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
        assert gone not in external["spec"], gone


def test_a_changed_node_port_is_left_for_validation(registry: Registry):
    made = registry.create(request(type="NodePort", clusterIP="10.96.0.40",
                                   ports=[{"port": 80, "nodePort": 30081}]),
                           namespace="default")
    made["metadata"].pop("resourceVersion")
    made["spec"]["type"] = "ClusterIP"
    made["spec"]["ports"][0]["nodePort"] = 30082
    with pytest.raises(Invalid) as err:
        registry.update(made, namespace="default")
    assert "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'" in \
        str(err.value)


def test_this_cluster_refuses_ipv6_and_dual_stack(registry: Registry):
    for spec, message in (
            ({"ipFamilies": ["IPv6"]},
             'Service "web" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not '
             "configured on this cluster"),
            ({"ipFamilyPolicy": "RequireDualStack"},
             'Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": '
             "this cluster is not configured for dual-stack services")):
        with pytest.raises(Invalid) as err:
            registry.create(request(**spec), namespace="default")
        assert str(err.value) == message
    assert registry.store.list("services").items == []


def test_refusals_name_the_service(registry: Registry):
    with pytest.raises(Invalid) as err:
        registry.create(request("Web"), namespace="default")
    assert str(err.value) == f'Service "Web" is invalid: metadata.name: Invalid value: "Web": ' \
        f"{DNS1035}"


def test_selectors(registry: Registry):
    registry.create(request("a", clusterIP="10.96.0.51"), namespace="default")
    registry.create(request("b", clusterIP="None"), namespace="default")
    registry.create(request("c", type="NodePort", clusterIP="10.96.0.52"), namespace="default")
    store = registry.store

    def names(field: str = "", label: str = "") -> list[str]:
        return [o["metadata"]["name"] for o in store.list(
            "services", field_selector=parse_field_selector(field) if field else None,
            label_selector=parse_selector(label) if label else None).items]

    assert names("spec.type=NodePort") == ["c"]
    assert names("spec.clusterIP=None") == ["b"]
    assert names("spec.clusterIP!=None,spec.type=ClusterIP") == ["a"]
    assert names("metadata.name=a") == ["a"]
    info = kinds.resolve("svc")
    assert (info.kind, info.plural, info.short_names, info.subresources, info.categories,
            info.field_labels, info.returns_deleted_object) == (
        "Service", "services", ("svc",), ("status", "proxy"), ("all",),
        ("spec.clusterIP", "spec.type"), True)


# ------------------------------------------------------------------ table


def rows(*objs: dict[str, Any]) -> list[list[Any]]:
    for obj in objs:
        obj["metadata"]["creationTimestamp"] = STAMP
    return [r["cells"] for r in table("Service", list(objs), now=NOW)["rows"]]


def test_columns():
    cols = table("Service", [], now=NOW)["columnDefinitions"]
    assert [(c["name"], c["priority"]) for c in cols] == [
        ("Name", 0), ("Type", 0), ("Cluster-IP", 0), ("External-IP", 0), ("Port(s)", 0),
        ("Age", 0), ("Selector", 1)]
    assert cols[3]["description"].startswith("externalIPs is a list of IP addresses")


@pytest.mark.parametrize(("obj", "cells"), [
    (svc(), ["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "3m20s", "app=web"]),
    (svc(externalIPs=["203.0.113.7", "203.0.113.8"], selector={"tier": "a", "app": "b"}),
     ["web", "ClusterIP", "10.96.0.10", "203.0.113.7,203.0.113.8", "80/TCP", "3m20s",
      "app=b,tier=a"]),
    (svc(clusterIP="None", clusterIPs=["None"], ports=[], selector=None),
     ["web", "ClusterIP", "None", "<none>", "<none>", "3m20s", "<none>"]),
    (node_port(ports=[{"port": 80, "protocol": "TCP", "nodePort": 30080},
                      {"port": 53, "protocol": "UDP"}]),
     ["web", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP", "3m20s", "app=web"]),
    (node_port(externalIPs=["203.0.113.7"]),
     ["web", "NodePort", "10.96.0.10", "203.0.113.7", "80:30080/TCP", "3m20s", "app=web"]),
    (load_balancer(), ["web", "LoadBalancer", "10.96.0.10", "<pending>", "80:30080/TCP",
                       "3m20s", "app=web"]),
    (with_ingress(load_balancer(), {"ip": "203.0.113.9"}, {"hostname": "lb.example.com"},
                  {"ip": "203.0.113.7", "hostname": "ignored.example.com"},
                  {"ip": "203.0.113.9"}),
     ["web", "LoadBalancer", "10.96.0.10", "203.0.113.7,203.0.113.9,lb.example.com",
      "80:30080/TCP", "3m20s", "app=web"]),
    (with_ingress(load_balancer(externalIPs=["198.51.100.1"]), {"ip": "203.0.113.7"}),
     ["web", "LoadBalancer", "10.96.0.10", "203.0.113.7,198.51.100.1", "80:30080/TCP",
      "3m20s", "app=web"]),
    (load_balancer(externalIPs=["198.51.100.1"]),
     ["web", "LoadBalancer", "10.96.0.10", "198.51.100.1", "80:30080/TCP", "3m20s",
      "app=web"]),
    (external_name(), ["web", "ExternalName", "<none>", "db.example.com", "80/TCP", "3m20s",
                       "<none>"]),
    (svc(type="Magic"), ["web", "Magic", "10.96.0.10", "<unknown>", "80/TCP", "3m20s",
                         "app=web"]),
])
def test_rows(obj: dict[str, Any], cells: list[Any]):
    assert rows(obj) == [cells]


# ------------------------------------------------------------------ describe


def eps(name: str, *endpoints: dict[str, Any], ports: list[dict[str, Any]] | None = None,
        ) -> dict[str, Any]:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name, "namespace": "default",
                         "labels": {"kubernetes.io/service-name": "web"}},
            "addressType": "IPv4", "endpoints": list(endpoints),
            "ports": [{"name": "", "port": 8080, "protocol": "TCP"}] if ports is None else ports}


def ep(ip: str, ready: bool | None = None) -> dict[str, Any]:
    return {"addresses": [ip], "conditions": {} if ready is None else {"ready": ready}}


@pytest.mark.parametrize(("slices", "port", "text"), [
    ([], "", "<none>"),
    ([eps("a")], "", ""),
    ([eps("a", ep("10.0.0.1"), ep("10.0.0.2", ready=False), ep("10.0.0.3", ready=True))], "",
     "10.0.0.1:8080,10.0.0.3:8080"),
    ([eps("a", ep("10.0.0.1")), eps("b", ep("10.0.0.2"), ep("10.0.0.3"), ep("10.0.0.4"),
                                    ep("10.0.0.5"))], "",
     "10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:8080 + 2 more..."),
    # a fourth endpoint that is not ready still makes the list "more" (kubectl's quirk)
    ([eps("a", ep("10.0.0.1"), ep("10.0.0.2"), ep("10.0.0.3"), ep("10.0.0.4", ready=False))],
     "", "10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:8080 + 0 more..."),
    ([eps("a", ep("10.0.0.1"), ports=[{"name": "http", "port": 80, "protocol": "TCP"},
                                      {"name": "dns", "port": 53, "protocol": "UDP"}])],
     "dns", "10.0.0.1:53"),
    ([eps("a", ep("10.0.0.1"), ep("10.0.0.2"), ports=[])], "", "10.0.0.1,10.0.0.2"),
    ([{**eps("a", ep("fd00::1")), "addressType": "IPv6"}], "", "[fd00::1]:8080"),
])
def test_format_endpoint_slices(slices: list[dict[str, Any]], port: str, text: str):
    assert format_endpoint_slices(slices, port) == text


def test_describe_is_kubectls():
    obj = with_ingress(
        load_balancer(externalTrafficPolicy="Local", healthCheckNodePort=31000,
                      externalIPs=["198.51.100.1"], loadBalancerIP="203.0.113.50",
                      loadBalancerSourceRanges=["10.0.0.0/8", "192.168.0.0/16"],
                      ports=[{"name": "http", "port": 80, "protocol": "TCP",
                              "targetPort": "web", "nodePort": 30080},
                             {"port": 53, "protocol": "UDP", "targetPort": 5353}]),
        {"ip": "203.0.113.7", "ipMode": "VIP"}, {"hostname": "lb.example.com"})
    obj["metadata"]["labels"] = {"tier": "front", "app": "web"}
    slices = [eps("web-x", ep("10.244.0.5"), ep("10.244.0.6", ready=False),
                  ports=[{"name": "http", "port": 8080, "protocol": "TCP"}])]
    text = describe("svc", obj, related={"endpointslices": slices}, now=NOW, tz=UTC)
    assert text == (
        "Name:                        web\n"
        "Namespace:                   default\n"
        "Labels:                      app=web\n"
        "                             tier=front\n"
        "Annotations:                 <none>\n"
        "Selector:                    app=web\n"
        "Type:                        LoadBalancer\n"
        "IP Family Policy:            SingleStack\n"
        "IP Families:                 IPv4\n"
        "IP:                          10.96.0.10\n"
        "IPs:                         10.96.0.10\n"
        "External IPs:                198.51.100.1\n"
        "Desired LoadBalancer IP:     203.0.113.50\n"
        "LoadBalancer Ingress:        203.0.113.7 (VIP), lb.example.com\n"
        "Port:                        http  80/TCP\n"
        "TargetPort:                  web/TCP\n"
        "NodePort:                    http  30080/TCP\n"
        "Endpoints:                   10.244.0.5:8080\n"
        "Port:                        <unset>  53/UDP\n"
        "TargetPort:                  5353/UDP\n"
        "Endpoints:                   \n"
        "Session Affinity:            None\n"
        "External Traffic Policy:     Local\n"
        "Internal Traffic Policy:     Cluster\n"
        "HealthCheck NodePort:        31000\n"
        "LoadBalancer Source Ranges:  10.0.0.0/8,192.168.0.0/16\n"
        "Events:                      <none>\n")


def test_describe_headless_and_external_name():
    headless = svc(clusterIP="None", clusterIPs=["None"], ports=[], ipFamilies=[])
    headless["spec"].pop("ipFamilyPolicy")
    assert describe("service", headless, now=NOW, tz=UTC) == (
        "Name:                     web\n"
        "Namespace:                default\n"
        "Labels:                   <none>\n"
        "Annotations:              <none>\n"
        "Selector:                 app=web\n"
        "Type:                     ClusterIP\n"
        "IP Families:              <none>\n"
        "IP:                       None\n"
        "IPs:                      None\n"
        "Session Affinity:         None\n"
        "Internal Traffic Policy:  Cluster\n"
        "Events:                   <none>\n")
    text = describe("service", external_name(ports=[]), now=NOW, tz=UTC)
    assert "IP:                       \nIPs:                      <none>\n" in text
    assert "External Name:            db.example.com\n" in text
    assert "Selector:                 <none>\n" in text
