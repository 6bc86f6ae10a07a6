"""LoadBalancer addresses from the local pool (servicelb) and the cluster's own
Services, kubernetes and kube-dns (clusterservices)."""

from __future__ import annotations

from typing import Any

from minikube_py.controllers.clusterservices import (
    ClusterServicesController,
    cluster_services,
)
from minikube_py.controllers.servicelb import ServiceLBController

from .conftest import Cluster, drive


def lb(name: str, *ports: int, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"type": "LoadBalancer", "selector": {"app": name},
                     "ports": [{"name": f"p{p}", "port": p, "protocol": "TCP"}
                               for p in ports], **spec}}


def ingress(cluster: Cluster, name: str) -> list[dict[str, Any]]:
    svc = cluster.client.get("services", "default", name)
    return list(((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or [])


def lb_controller(cluster: Cluster, pool: tuple[str, ...]) -> ServiceLBController:
    controller = ServiceLBController(cluster.recorder, cluster.informers, pool=pool)
    cluster.start(["services"])
    return controller


def test_one_address_serves_a_port_once_and_pending_services_get_freed_addresses(cluster):
    lbc = lb_controller(cluster, ("127.0.0.1",))
    cluster.client.create(lb("a", 80))
    drive(cluster, lbc)
    assert ingress(cluster, "a") == [{"ip": "127.0.0.1", "ipMode": "VIP"}]
    cluster.client.create(lb("b", 80, 443))
    cluster.client.create(lb("c", 8080))
    drive(cluster, lbc)
    assert ingress(cluster, "b") == []  # port 80 is taken on the only address
    assert ingress(cluster, "c") == [{"ip": "127.0.0.1", "ipMode": "VIP"}]
    [event] = cluster.events("LoadBalancerPending")
    assert event["involvedObject"]["name"] == "b"
    assert event["message"] == ("Service stays pending: no address of the pool (127.0.0.1) "
                                "has 80/TCP, 443/TCP free")
    cluster.client.delete("services", "default", "a")
    drive(cluster, lbc)
    assert ingress(cluster, "b") == [{"ip": "127.0.0.1", "ipMode": "VIP"}]


def test_a_larger_pool_the_requested_address_and_leaving_the_type(cluster):
    lbc = lb_controller(cluster, ("127.0.0.1", "127.0.0.2"))
    cluster.client.create(lb("a", 80))
    cluster.client.create(lb("b", 80))
    cluster.client.create(lb("c", 81, loadBalancerIP="127.0.0.2"))
    drive(cluster, lbc)
    assert {ingress(cluster, n)[0]["ip"] for n in ("a", "b")} == {"127.0.0.1", "127.0.0.2"}
    assert ingress(cluster, "c")[0]["ip"] == "127.0.0.2"
    cluster.client.patch("services", "default", "a", "merge",
                         {"spec": {"type": "ClusterIP"}})
    drive(cluster, lbc)
    assert ingress(cluster, "a") == []
    # A load balancer class names another implementation: not ours to serve.
    cluster.client.create(lb("d", 90, loadBalancerClass="example.com/lb"))
    drive(cluster, lbc)
    assert ingress(cluster, "d") == []


def test_cluster_services_are_made_and_put_back(cluster):
    wanted = cluster_services(kubernetes_ip="10.96.0.1", api_port=6443, gateway="10.244.0.1",
                              dns_ip="10.96.0.10")
    controller = ClusterServicesController(cluster.recorder, cluster.informers,
                                           services=wanted)
    cluster.start(["services", "endpoints", "endpointslices"])
    drive(cluster, controller)
    svc = cluster.client.get("services", "default", "kubernetes")
    assert svc["spec"]["clusterIP"] == "10.96.0.1"
    assert svc["spec"]["ports"][0] | {"targetPort": 6443} == \
        {"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}
    assert svc["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    ep = cluster.client.get("endpoints", "default", "kubernetes")
    assert ep["subsets"] == [{"addresses": [{"ip": "10.244.0.1"}],
                              "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]
    dns = cluster.client.get("services", "kube-system", "kube-dns")
    assert dns["spec"]["clusterIP"] == "10.96.0.10"
    assert dns["metadata"]["labels"]["kubernetes.io/cluster-service"] == "true"
    eps = cluster.client.get("endpointslices", "kube-system", "kube-dns")
    assert eps["endpoints"][0]["addresses"] == ["10.244.0.1"]
    assert [p["port"] for p in eps["ports"]] == [53, 53]
    # Whatever a user changes or deletes is put back.
    cluster.client.delete("endpoints", "default", "kubernetes")
    cluster.client.patch("services", "kube-system", "kube-dns", "merge",
                         {"metadata": {"labels": {"kubernetes.io/cluster-service": "false"}}})
    drive(cluster, controller)
    assert cluster.client.get("endpoints", "default", "kubernetes")["subsets"] == ep["subsets"]
    labels = cluster.client.get("services", "kube-system", "kube-dns")["metadata"]["labels"]
    assert labels["kubernetes.io/cluster-service"] == "true"


def test_hollow_nodes_get_the_kubernetes_service_without_endpoints_and_no_dns(cluster):
    wanted = cluster_services(kubernetes_ip="10.96.0.1", api_port=6443, gateway="",
                              dns_ip=None)
    controller = ClusterServicesController(cluster.recorder, cluster.informers,
                                           services=wanted)
    cluster.start(["services", "endpoints", "endpointslices"])
    drive(cluster, controller)
    assert cluster.names("services") == ["kubernetes"]
    assert cluster.names("services", "kube-system") == []
    assert "subsets" not in cluster.client.get("endpoints", "default", "kubernetes")
    assert not cluster.client.get("endpointslices", "default", "kubernetes").get("endpoints")
