"""The control plane's networking plan and loops (controlplane/networking.py):
the addresses a cluster's Services, API and DNS get, with and without a pod
network, and the repair of the Service allocators."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from minikube_py.admission.services import ServiceNetwork
from minikube_py.controlplane.networking import Networking, NetworkPlan
from minikube_py.runtime.podman_network import ClusterNetwork
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.waiting import wait_for

NETWORK = ClusterNetwork("minikube-py-abc", "10.244.16.0/20", "10.244.16.1", "mkabc")


def test_plan_with_a_pod_network():
    plan = NetworkPlan(ServiceNetwork("10.100.0.0/16"), "corp.local", NETWORK)
    assert (plan.kubernetes_ip, plan.dns_ip) == ("10.100.0.1", "10.100.0.10")
    assert plan.api_listen() == [("10.244.16.1", 6443)]
    assert plan.tls_names() == ["kubernetes", "kubernetes.default", "kubernetes.default.svc",
                                "kubernetes.default.svc.corp.local", "10.100.0.1",
                                "10.244.16.1"]
    kubernetes, dns = plan.cluster_services()
    assert (kubernetes.name, kubernetes.cluster_ip, kubernetes.endpoint_ip) == \
        ("kubernetes", "10.100.0.1", "10.244.16.1")
    assert kubernetes.ports == [("https", 443, "TCP", 6443)]
    assert (dns.namespace, dns.name, dns.cluster_ip, dns.endpoint_ip) == \
        ("kube-system", "kube-dns", "10.100.0.10", "10.244.16.1")


def test_plan_on_hollow_nodes_has_no_endpoints_no_dns_and_no_extra_listener():
    plan = NetworkPlan(ServiceNetwork(), "cluster.local", None)
    assert plan.api_listen() == []
    assert "10.96.0.1" in plan.tls_names()
    [kubernetes] = plan.cluster_services()
    assert kubernetes.endpoint_ip == ""


def test_hollow_networking_starts_no_dns_or_rules_and_repairs_allocations(
        tmp_path: Path, caplog: pytest.LogCaptureFixture):
    store = Store(tmp_path / "state")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    # A Service holding an address outside the range, as a restore might leave.
    store.create("services", {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "odd", "namespace": "default", "uid": "u1",
                     "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"type": "ClusterIP", "clusterIP": "10.0.0.5", "clusterIPs": ["10.0.0.5"],
                 "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}]}})
    networking = Networking(registry, NetworkPlan(ServiceNetwork(), "cluster.local"),
                            state_dir=tmp_path / "state", cluster="abc",
                            repair_interval=0.05)
    assert networking.dns is None and networking.proxier is None
    assert networking.pod_networking().dns is None
    with caplog.at_level(logging.WARNING, logger="minikube_py.controlplane.networking"):
        networking.start()
        try:
            wait_for(lambda: any("10.0.0.5 of default/odd is not within the service CIDR"
                                 in r.getMessage() for r in caplog.records),
                     "the repair pass to report the stray address")
            assert [s["metadata"]["name"] for s in networking.pod_networking().services()] \
                == ["odd"]
        finally:
            networking.stop()
            store.close()


class UnavailableNft:
    """An nft that cannot be used here (as on a host without the package)."""

    def available(self) -> str:
        return "nft not found (install the nftables package)"


def test_without_nftables_services_stay_api_only_and_it_says_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture):
    store = Store(tmp_path / "state")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    # An address on no interface (bound with IP_FREEBIND), so no real cluster's
    # DNS can be in the way.
    network = ClusterNetwork("minikube-py-t", "10.254.77.0/24", "10.254.77.1", "mkt")
    networking = Networking(registry, NetworkPlan(ServiceNetwork(), "cluster.local", network),
                            state_dir=tmp_path / "state", cluster="t",
                            nft=UnavailableNft(),  # type: ignore[arg-type]
                            dns_upstreams=[("127.0.0.1", 9)])
    assert networking.proxier is None and networking.dns is not None
    with caplog.at_level(logging.WARNING, logger="minikube_py.controlplane.networking"):
        networking.start()
        try:
            assert any(r.getMessage() == "Services stay API-only (no traffic is forwarded to "
                       "them): nft not found (install the nftables package)"
                       for r in caplog.records)
            assert networking.pod_networking().dns is not None  # DNS still serves pods
        finally:
            networking.stop()
            store.close()
