"""Service allocation (admission/services.py, admission/allocators.py): cluster
IPs, IP families and node ports as kube-apiserver's service storage hands them
out, with its messages; transactions that give values back on failure; rebuilt
from the store (restart) and repaired."""

from __future__ import annotations

import copy
import random
from types import SimpleNamespace
from typing import Any

import pytest

from minikube_py.admission.allocators import AllocationError, Bitmap, IPRange, PortRange
from minikube_py.admission.services import ServiceAllocation, ServiceNetwork
from minikube_py.api.errors import InternalError, Invalid


class FakeStorage:
    """The Storage protocol, holding only services (what the allocator lists)."""

    def __init__(self, services: list[dict[str, Any]] | None = None) -> None:
        self.services = services or []

    def list(self, resource: str, *, namespace: str | None = None,
             limit: int | None = None) -> Any:
        assert resource == "services"
        return SimpleNamespace(items=copy.deepcopy(self.services))

    def get(self, resource: str, namespace: str | None, name: str) -> Any:
        raise NotImplementedError

    def guaranteed_update(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def svc(name: str = "web", *, type_: str = "ClusterIP", ports: list[dict[str, Any]] | None = None,
        **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"type": type_, "selector": {"app": name},
                            "ports": ports if ports is not None else
                            [{"port": 80, "protocol": "TCP", "targetPort": 80}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default"}, "spec": body}


def alloc(*services: dict[str, Any], cidr: str = "10.96.0.0/12",
          ports: tuple[int, int] = (30000, 32767)) -> ServiceAllocation:
    return ServiceAllocation(FakeStorage(list(services)), ServiceNetwork(cidr, ports))


def messages(exc: Invalid) -> list[str]:
    return [str(e) for e in exc.errors]


# ----------------------------------------------------------------------- ranges


def test_ip_range_never_hands_out_network_or_broadcast_and_fills_up():
    r = IPRange("10.0.0.0/29", rng=random.Random(1))  # 6 usable
    got = {r.allocate_next() for _ in range(6)}
    assert got == {f"10.0.0.{i}" for i in range(1, 7)}
    with pytest.raises(AllocationError, match=r"^range is full$"):
        r.allocate_next()
    r.release("10.0.0.3")
    assert r.allocate_next() == "10.0.0.3"


@pytest.mark.parametrize("ip, message", [
    ("10.96.0.0", "the provided IP (10.96.0.0) is not in the valid range. "
                  "The range of valid IPs is 10.96.0.0/12"),
    ("10.111.255.255", "the provided IP (10.111.255.255) is not in the valid range. "
                       "The range of valid IPs is 10.96.0.0/12"),
    ("192.168.0.1", "the provided IP (192.168.0.1) is not in the valid range. "
                    "The range of valid IPs is 10.96.0.0/12"),
])
def test_ip_range_refuses_addresses_outside_with_kubernetes_message(ip, message):
    with pytest.raises(AllocationError) as exc:
        IPRange("10.96.0.0/12").allocate(ip)
    assert str(exc.value) == message


def test_ip_range_static_band_is_left_for_explicit_requests():
    # /12: the band is min(max(16, 2**20/16), 256) = 256 addresses (10.96.0.1-10.96.1.0).
    r = IPRange("10.96.0.0/12", rng=random.Random(7))
    for _ in range(2000):
        assert r.offset_of(r.allocate_next()) >= 256  # type: ignore[operator]
    r.allocate("10.96.0.10")
    with pytest.raises(AllocationError, match=r"^provided IP is already allocated$"):
        r.allocate("10.96.0.10")


def test_bitmap_falls_back_to_the_band_when_the_rest_is_full():
    b = Bitmap(20, 16, rng=random.Random(3))
    upper = {b.take_next() for _ in range(4)}
    assert upper == {16, 17, 18, 19}
    lower = {b.take_next() for _ in range(16)}
    assert lower == set(range(16))
    assert b.take_next() is None


def test_port_range_messages_and_band():
    r = PortRange(30000, 32767, rng=random.Random(5))
    # The band is min(max(16, 2768/32), 128) = 86 ports: 30000-30085.
    assert all(r.allocate_next() >= 30086 for _ in range(500))
    with pytest.raises(AllocationError) as exc:
        r.allocate(80)
    assert str(exc.value) == ("provided port is not in the valid range. "
                              "The range of valid ports is 30000-32767")
    r.allocate(30080)
    with pytest.raises(AllocationError, match=r"^provided port is already allocated$"):
        r.allocate(30080)


# ----------------------------------------------------------------------- create


def test_create_allocates_a_cluster_ip_and_sets_single_stack_ipv4():
    a = alloc()
    s = svc()
    a.begin_create(s).commit()
    spec = s["spec"]
    assert spec["clusterIP"] == spec["clusterIPs"][0]
    assert a.ips.offset_of(spec["clusterIP"]) is not None
    assert spec["ipFamilies"] == ["IPv4"]
    assert spec["ipFamilyPolicy"] == "SingleStack"
    assert "nodePort" not in spec["ports"][0]


def test_singular_cluster_ip_fills_the_plural_and_is_reserved():
    a = alloc()
    s = svc(clusterIP="10.96.0.10")
    a.begin_create(s).commit()
    assert s["spec"]["clusterIPs"] == ["10.96.0.10"]
    other = svc("dns2", clusterIP="10.96.0.10")
    with pytest.raises(Invalid) as exc:
        a.begin_create(other)
    assert messages(exc.value) == [
        'spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP '
        '10.96.0.10: provided IP is already allocated']


def test_out_of_range_cluster_ip_is_invalid():
    with pytest.raises(Invalid) as exc:
        alloc().begin_create(svc(clusterIP="10.0.0.1"))
    assert messages(exc.value) == [
        'spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: '
        'the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is '
        '10.96.0.0/12']


@pytest.mark.parametrize("spec, expected", [
    ({"ipFamilyPolicy": "RequireDualStack"},
     ['spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not '
      'configured for dual-stack services']),
    ({"ipFamilies": ["IPv6"]},
     ['spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster']),
    ({"clusterIP": "fd00::10", "clusterIPs": ["fd00::10"]},
     ['spec.clusterIPs[0]: Invalid value: []string{"fd00::10"}: IPv6 is not configured on '
      'this cluster']),
    ({"ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4", "IPv6"]},
     ['spec.ipFamilyPolicy: Invalid value: "SingleStack": must be \'RequireDualStack\' or '
      '\'PreferDualStack\' when multiple IP families are specified']),
])
def test_dual_stack_and_ipv6_are_refused_as_kubernetes_does_on_a_single_stack_cluster(
        spec, expected):
    with pytest.raises(Invalid) as exc:
        alloc().begin_create(svc(**spec))
    assert messages(exc.value) == expected


def test_prefer_dual_stack_gets_ipv4_only():
    s = svc(ipFamilyPolicy="PreferDualStack")
    alloc().begin_create(s).commit()
    assert s["spec"]["ipFamilies"] == ["IPv4"]
    assert s["spec"]["ipFamilyPolicy"] == "PreferDualStack"


def test_headless_gets_no_ip_and_selectorless_headless_is_require_dual_stack():
    a = alloc()
    headless = svc(clusterIP="None")
    a.begin_create(headless).commit()
    assert headless["spec"]["clusterIPs"] == ["None"]
    assert headless["spec"]["ipFamilies"] == ["IPv4"]
    assert headless["spec"]["ipFamilyPolicy"] == "SingleStack"
    bare = svc("bare", clusterIP="None")
    del bare["spec"]["selector"]
    a.begin_create(bare).commit()
    assert bare["spec"]["ipFamilyPolicy"] == "RequireDualStack"
    assert bare["spec"]["ipFamilies"] == ["IPv4", "IPv6"]
    assert a.allocated() == ([], [])


def test_external_name_gets_nothing():
    s = svc(type_="ExternalName", externalName="db.example.com")
    a = alloc()
    a.begin_create(s).commit()
    assert "clusterIP" not in s["spec"] and "ipFamilies" not in s["spec"]
    assert a.allocated() == ([], [])


def test_node_ports_one_per_service_port_number_shared_by_tcp_and_udp():
    s = svc(type_="NodePort", ports=[
        {"name": "dns", "port": 53, "protocol": "UDP"},
        {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
        {"name": "http", "port": 80, "protocol": "TCP", "nodePort": 30080}])
    a = alloc()
    a.begin_create(s).commit()
    p = s["spec"]["ports"]
    assert p[0]["nodePort"] == p[1]["nodePort"] != 30080
    assert p[2]["nodePort"] == 30080
    assert a.allocated()[1] == sorted([p[0]["nodePort"], 30080])


def test_taken_node_port_is_invalid_with_the_port_path():
    a = alloc()
    a.begin_create(svc("a", type_="NodePort", ports=[
        {"port": 80, "protocol": "TCP", "nodePort": 30080}])).commit()
    with pytest.raises(Invalid) as exc:
        a.begin_create(svc("b", type_="NodePort", ports=[
            {"name": "x", "port": 81, "protocol": "TCP"},
            {"name": "y", "port": 80, "protocol": "TCP", "nodePort": 30080}]))
    assert messages(exc.value) == [
        "spec.ports[1].nodePort: Invalid value: 30080: provided port is already allocated"]
    # The failed create gave back the cluster IP and the port it had taken.
    ips, ports = a.allocated()
    assert len(ips) == 1 and ports == [30080]


def test_load_balancer_without_node_ports_and_health_check_port():
    a = alloc()
    s = svc(type_="LoadBalancer", allocateLoadBalancerNodePorts=False)
    a.begin_create(s).commit()
    assert "nodePort" not in s["spec"]["ports"][0]
    local = svc("local", type_="LoadBalancer", externalTrafficPolicy="Local")
    a.begin_create(local).commit()
    hc = local["spec"]["healthCheckNodePort"]
    assert hc in a.allocated()[1] and local["spec"]["ports"][0]["nodePort"] != hc


def test_full_ranges_are_internal_errors():
    a = alloc(cidr="10.200.0.0/29", ports=(30000, 30000))
    for i in range(6):
        a.begin_create(svc(f"s{i}")).commit()
    with pytest.raises(InternalError) as exc:
        a.begin_create(svc("s7"))
    assert str(exc.value) == \
        "Internal error occurred: failed to allocate a serviceIP: range is full"
    b = alloc(ports=(30000, 30000))
    b.begin_create(svc("n1", type_="NodePort")).commit()
    with pytest.raises(InternalError, match="failed to allocate a nodePort: range is full"):
        b.begin_create(svc("n2", type_="NodePort"))


def test_revert_gives_everything_back_and_commit_keeps_it():
    a = alloc()
    s = svc(type_="NodePort")
    txn = a.begin_create(s)
    assert len(a.allocated()[0]) == 1
    txn.revert()
    txn.commit()  # no effect once reverted
    assert a.allocated() == ([], [])


# ----------------------------------------------------------------------- update


def stored(a: ServiceAllocation, s: dict[str, Any]) -> dict[str, Any]:
    a.begin_create(s).commit()
    return copy.deepcopy(s)


def test_update_keeps_allocated_values_the_client_left_out():
    a = alloc()
    old = stored(a, svc(type_="NodePort", ports=[{"name": "http", "port": 80,
                                                 "protocol": "TCP"}]))
    new = svc(type_="NodePort", ports=[{"name": "http", "port": 80, "protocol": "TCP"}])
    a.begin_update(new, old).commit()
    assert new["spec"]["clusterIP"] == old["spec"]["clusterIP"]
    assert new["spec"]["clusterIPs"] == old["spec"]["clusterIPs"]
    assert new["spec"]["ports"][0]["nodePort"] == old["spec"]["ports"][0]["nodePort"]
    assert a.allocated() == (old["spec"]["clusterIPs"], [old["spec"]["ports"][0]["nodePort"]])


def test_type_changes_allocate_and_release_only_on_commit():
    a = alloc()
    old = stored(a, svc(type_="NodePort"))
    port = old["spec"]["ports"][0]["nodePort"]
    to_cluster_ip = svc(type_="ClusterIP", ports=[{"port": 80, "protocol": "TCP"}])
    txn = a.begin_update(to_cluster_ip, old)
    assert port in a.allocated()[1]  # not yet: the write may still fail
    txn.commit()
    assert port not in a.allocated()[1]
    external = svc(type_="ExternalName", externalName="x.example.com",
                   clusterIP="", clusterIPs=None)
    back = copy.deepcopy(to_cluster_ip)
    a.begin_update(external, back).commit()
    assert a.allocated() == ([], [])
    again = svc(type_="ClusterIP")
    a.begin_update(again, external).commit()
    assert a.allocated()[0] == [again["spec"]["clusterIP"]]


def test_failed_update_releases_nothing_it_would_have_released():
    a = alloc()
    old = stored(a, svc(type_="NodePort"))
    txn = a.begin_update(svc(type_="ClusterIP"), old)
    txn.revert()
    assert old["spec"]["ports"][0]["nodePort"] in a.allocated()[1]


# ----------------------------------------------------------------------- restart, repair


def test_rebuilt_from_the_store_after_a_restart():
    first = alloc()
    a = stored(first, svc("a", type_="NodePort"))
    b = stored(first, svc("b"))
    again = alloc(a, b)  # a new process over the same store
    ips, ports = again.allocated() if again._loaded else ([], [])
    assert (ips, ports) == ([], [])  # lazily loaded
    with pytest.raises(Invalid):
        again.begin_create(svc("c", clusterIP=a["spec"]["clusterIP"]))
    ips, ports = again.allocated()
    assert sorted(ips) == sorted([a["spec"]["clusterIP"], b["spec"]["clusterIP"]])
    assert ports == [a["spec"]["ports"][0]["nodePort"]]


def test_repair_frees_leaks_reports_duplicates_and_keeps_writes_in_flight():
    storage = FakeStorage()
    a = ServiceAllocation(storage)
    kept = svc("kept")
    a.begin_create(kept).commit()
    storage.services.append(copy.deepcopy(kept))
    leaked = svc("leaked")
    a.begin_create(leaked).commit()  # allocated, but the store never got it
    in_flight = svc("flying")
    txn = a.begin_create(in_flight)
    dup = copy.deepcopy(kept)
    dup["metadata"]["name"] = "dup"
    outside = svc("outside", clusterIP="10.0.0.1", clusterIPs=["10.0.0.1"])
    storage.services += [dup, outside]
    problems = a.repair()
    assert sorted(a.allocated()[0]) == sorted([kept["spec"]["clusterIP"],
                                               in_flight["spec"]["clusterIP"]])
    assert problems == [
        f"Cluster IP {kept['spec']['clusterIP']} of default/dup was assigned to multiple "
        "services (default/kept)",
        "Cluster IP 10.0.0.1 of default/outside is not within the service CIDR 10.96.0.0/12"]
    txn.commit()


def test_after_delete_releases():
    a = alloc()
    s = stored(a, svc(type_="LoadBalancer", externalTrafficPolicy="Local"))
    assert len(a.allocated()[1]) == 2
    a.after_delete(s)
    assert a.allocated() == ([], [])


@pytest.mark.parametrize("cidr, message", [
    ("10.96.0.0/33", "--service-cidr '10.96.0.0/33'"),
    ("fd00::/108", "only IPv4 is supported"),
    ("10.96.0.1/12", "has host bits set"),
])
def test_service_network_refuses_bad_flags(cidr, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ServiceNetwork(cidr)
