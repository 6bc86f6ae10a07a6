"""ClusterRecords: CoreDNS's kubernetes-plugin answers from Services and EndpointSlices."""

from __future__ import annotations

import threading
from typing import Any

import dns.name
import dns.rcode
import dns.rdatatype
import pytest

from minikube_py.network.dns import Answer, ClusterRecords
from tests.clock import EPOCH, FakeClock

NOERROR, NXDOMAIN = dns.rcode.NOERROR, dns.rcode.NXDOMAIN
SOA = (f"cluster.local. 30 IN SOA ns.dns.cluster.local. hostmaster.cluster.local. {int(EPOCH)}"
       " 7200 1800 86400 30")


# ------------------------------------------------------------------ objects


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def service(name: str, ns: str = "default", *, cluster_ip: str = "10.96.0.10",
            ports: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"clusterIP": cluster_ip, "clusterIPs": [cluster_ip],
                            "type": "ClusterIP", **spec}
    if ports is None:
        ports = [{"name": "http", "port": 80, "protocol": "TCP"}]
    body["ports"] = ports
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": ns}, "spec": body}


def endpoint(ip: str, *, hostname: str | None = None, ready: bool | None = True) -> dict[str, Any]:
    ep: dict[str, Any] = {"addresses": [ip]}
    if hostname is not None:
        ep["hostname"] = hostname
    if ready is not None:
        ep["conditions"] = {"ready": ready}
    return ep


def endpoint_slice(name: str, svc: str | None, endpoints: list[dict[str, Any]],
                   ns: str = "default", ports: list[dict[str, Any]] | None = None,
                   ) -> dict[str, Any]:
    labels = {"kubernetes.io/service-name": svc} if svc is not None else {}
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "addressType": "IPv4",
            "ports": ports if ports is not None else [{"name": "http", "port": 8080,
                                                       "protocol": "TCP"}],
            "endpoints": endpoints}


def cluster(**kwargs: Any) -> ClusterRecords:
    """The cluster every table case asks about."""
    records = ClusterRecords("cluster.local", clock=FakeClock(), **kwargs)
    for ns in ("default", "kube-system"):
        records.upsert_namespace(namespace(ns))
    records.upsert_service(service("web", cluster_ip="10.96.0.20", ports=[
        {"name": "http", "port": 80, "protocol": "TCP"},
        {"name": "dns", "port": 53, "protocol": "UDP"}]))
    records.upsert_slice(endpoint_slice("web-1", "web", [endpoint("10.88.0.9")]))
    # headless, two slices, hostnames, not-ready endpoints
    records.upsert_service(service("db", cluster_ip="None", ports=[
        {"name": "pg", "port": 5432, "protocol": "TCP"}]))
    pg = [{"name": "pg", "port": 5432, "protocol": "TCP"}]
    records.upsert_slice(endpoint_slice("db-a", "db", [
        endpoint("10.88.0.2", hostname="db-0"),
        endpoint("10.88.0.3", ready=None),          # readiness unknown: ready
        endpoint("10.88.0.4", ready=False),         # not ready: left out
    ], ports=pg))
    records.upsert_slice(endpoint_slice("db-b", "db", [endpoint("10.88.0.5", hostname="db-3")],
                                        ports=pg))
    # headless publishing not-ready addresses
    records.upsert_service(service("peers", cluster_ip="None", publishNotReadyAddresses=True))
    records.upsert_slice(endpoint_slice("peers-1", "peers", [
        endpoint("10.88.0.6", ready=True), endpoint("10.88.0.7", ready=False)]))
    # headless without any endpoint
    records.upsert_service(service("empty", cluster_ip="None"))
    # ExternalName, out of the zone and inside it
    records.upsert_service(service("ext", cluster_ip="", ports=[], type="ExternalName",
                                   externalName="db.example.org"))
    records.upsert_service(service("alias", cluster_ip="", ports=[], type="ExternalName",
                                   externalName="web.default.svc.cluster.local"))
    # a portless headless service
    records.upsert_service(service("bare", cluster_ip="None", ports=[]))
    records.upsert_slice(endpoint_slice("bare-1", "bare", [endpoint("10.88.0.8")], ports=[]))
    # a slice without the service-name label is nobody's
    records.upsert_slice(endpoint_slice("stray", None, [endpoint("10.88.0.99")]))
    records.upsert_service(service("kube-dns", "kube-system", cluster_ip="10.96.0.10", ports=[
        {"name": "dns", "port": 53, "protocol": "UDP"}]))
    return records


def texts(rrsets: tuple[Any, ...]) -> list[str]:
    return [rrset.to_text() for rrset in rrsets]


def rr(owner: str, rtype: str, data: str, ttl: int = 30) -> str:
    return f"{owner} {ttl} IN {rtype} {data}"


# ------------------------------------------------------------- the table

WEB = "web.default.svc.cluster.local."
DB = "db.default.svc.cluster.local."

# (qname, qtype, rcode, answer, additional); authority is the SOA exactly when
# the answer is empty (CoreDNS's NXDOMAIN and NODATA), else empty.
CASES: list[tuple[str, str, dns.rcode.Rcode, list[str], list[str]]] = [
    # ClusterIP service
    (WEB, "A", NOERROR, [rr(WEB, "A", "10.96.0.20")], []),
    (WEB, "AAAA", NOERROR, [], []),                          # IPv4 only: NODATA
    ("nope.default.svc.cluster.local.", "A", NXDOMAIN, [], []),
    ("web.nons.svc.cluster.local.", "A", NXDOMAIN, [], []),  # no such namespace
    ("a.b.web.default.svc.cluster.local.", "A", NXDOMAIN, [], []),  # too long a name
    ("*.default.svc.cluster.local.", "A", NXDOMAIN, [], []),  # no wildcards
    (WEB, "TXT", NOERROR, [], []),
    (WEB, "MX", NOERROR, [], []),
    (WEB, "HTTPS", NOERROR, [], []),
    ("nope.default.svc.cluster.local.", "HTTPS", NXDOMAIN, [], []),
    (WEB, "SOA", NOERROR, [], []),
    (WEB, "CNAME", NOERROR, [], []),
    # headless: ready endpoints of every slice
    (DB, "A", NOERROR, [rr(DB, "A", "10.88.0.2"), rr(DB, "A", "10.88.0.3"),
                        rr(DB, "A", "10.88.0.5")], []),
    ("peers.default.svc.cluster.local.", "A", NOERROR, [
        rr("peers.default.svc.cluster.local.", "A", "10.88.0.6"),
        rr("peers.default.svc.cluster.local.", "A", "10.88.0.7")], []),
    ("empty.default.svc.cluster.local.", "A", NXDOMAIN, [], []),
    ("bare.default.svc.cluster.local.", "A", NOERROR,
     [rr("bare.default.svc.cluster.local.", "A", "10.88.0.8")], []),
    # endpoint names: hostname, else the dashed IP
    ("db-0." + DB, "A", NOERROR, [rr("db-0." + DB, "A", "10.88.0.2")], []),
    ("db-3." + DB, "A", NOERROR, [rr("db-3." + DB, "A", "10.88.0.5")], []),
    ("10-88-0-3." + DB, "A", NOERROR, [rr("10-88-0-3." + DB, "A", "10.88.0.3")], []),
    ("10-88-0-4." + DB, "A", NXDOMAIN, [], []),                 # not ready
    ("10-88-0-2." + DB, "A", NXDOMAIN, [], []),                 # has a hostname instead
    ("10-88-0-9." + WEB, "A", NOERROR, [rr("10-88-0-9." + WEB, "A", "10.88.0.9")], []),
    # SRV: ClusterIP service -> the service name; headless -> each endpoint
    ("_http._tcp." + WEB, "SRV", NOERROR, [rr("_http._tcp." + WEB, "SRV", f"0 100 80 {WEB}")],
     [rr(WEB, "A", "10.96.0.20")]),
    ("_dns._udp." + WEB, "SRV", NOERROR, [rr("_dns._udp." + WEB, "SRV", f"0 100 53 {WEB}")],
     [rr(WEB, "A", "10.96.0.20")]),
    ("_http._udp." + WEB, "SRV", NXDOMAIN, [], []),            # wrong protocol
    ("_nope._tcp." + WEB, "SRV", NXDOMAIN, [], []),
    (WEB, "SRV", NOERROR, [rr(WEB, "SRV", f"0 50 80 {WEB}"), rr(WEB, "SRV", f"0 50 53 {WEB}")],
     [rr(WEB, "A", "10.96.0.20")]),
    ("_pg._tcp." + DB, "SRV", NOERROR, [
        rr("_pg._tcp." + DB, "SRV", f"0 33 5432 db-0.{DB}"),
        rr("_pg._tcp." + DB, "SRV", f"0 33 5432 10-88-0-3.{DB}"),
        rr("_pg._tcp." + DB, "SRV", f"0 33 5432 db-3.{DB}")],
     [rr("db-0." + DB, "A", "10.88.0.2"), rr("10-88-0-3." + DB, "A", "10.88.0.3"),
      rr("db-3." + DB, "A", "10.88.0.5")]),
    ("bare.default.svc.cluster.local.", "SRV", NOERROR, [], []),  # no port: no SRV
    # ExternalName
    ("ext.default.svc.cluster.local.", "CNAME", NOERROR,
     [rr("ext.default.svc.cluster.local.", "CNAME", "db.example.org.")], []),
    ("ext.default.svc.cluster.local.", "SRV", NOERROR, [], []),
    ("_http._tcp.ext.default.svc.cluster.local.", "SRV", NXDOMAIN, [], []),
    ("x.ext.default.svc.cluster.local.", "A", NXDOMAIN, [], []),
    ("alias.default.svc.cluster.local.", "A", NOERROR, [
        rr("alias.default.svc.cluster.local.", "CNAME", WEB), rr(WEB, "A", "10.96.0.20")], []),
    # pods insecure
    ("1-2-3-4.default.pod.cluster.local.", "A", NOERROR,
     [rr("1-2-3-4.default.pod.cluster.local.", "A", "1.2.3.4")], []),
    ("1-2-3-4.nons.pod.cluster.local.", "A", NXDOMAIN, [], []),
    ("1-2-3.default.pod.cluster.local.", "A", NXDOMAIN, [], []),
    ("fd00--1.default.pod.cluster.local.", "A", NOERROR, [], []),   # an IPv6 pod: NODATA for A
    ("default.pod.cluster.local.", "A", NOERROR, [], []),
    # names above services
    ("default.svc.cluster.local.", "A", NOERROR, [], []),
    ("nons.svc.cluster.local.", "A", NXDOMAIN, [], []),
    ("default.svc.cluster.local.", "TXT", NXDOMAIN, [], []),
    ("svc.cluster.local.", "A", NOERROR, [], []),
    ("pod.cluster.local.", "A", NOERROR, [], []),
    ("cluster.local.", "A", NOERROR, [], []),
    ("other.cluster.local.", "A", NXDOMAIN, [], []),
    ("foo.svc.cluster.local.", "NS", NXDOMAIN, [], []),
    ("default.svc.cluster.local.", "NS", NOERROR, [], []),
    # the zone itself
    ("cluster.local.", "SOA", NOERROR, [SOA], []),
    ("dns-version.cluster.local.", "TXT", NOERROR,
     [rr("dns-version.cluster.local.", "TXT", '"1.1.0"', ttl=28800)], []),
    ("cluster.local.", "NS", NOERROR, [rr("cluster.local.", "NS", "ns.dns.cluster.local.")],
     [rr("ns.dns.cluster.local.", "A", "10.88.0.1")]),
    ("ns.dns.cluster.local.", "A", NOERROR, [rr("ns.dns.cluster.local.", "A", "10.88.0.1")], []),
    # reverse: ClusterIPs, then endpoints (ready ones)
    ("20.0.96.10.in-addr.arpa.", "PTR", NOERROR, [rr("20.0.96.10.in-addr.arpa.", "PTR", WEB)], []),
    ("2.0.88.10.in-addr.arpa.", "PTR", NOERROR,
     [rr("2.0.88.10.in-addr.arpa.", "PTR", "db-0." + DB)], []),
    ("3.0.88.10.in-addr.arpa.", "PTR", NOERROR,
     [rr("3.0.88.10.in-addr.arpa.", "PTR", "10-88-0-3." + DB)], []),
    ("7.0.88.10.in-addr.arpa.", "PTR", NOERROR,
     [rr("7.0.88.10.in-addr.arpa.", "PTR", "10-88-0-7.peers.default.svc.cluster.local.")], []),
    ("in-addr.arpa.", "SOA", NOERROR, [
        "in-addr.arpa. 30 IN SOA ns.dns.in-addr.arpa. hostmaster.in-addr.arpa. "
        f"{int(EPOCH)} 7200 1800 86400 30"], []),
    ("in-addr.arpa.", "PTR", NOERROR, [], []),
    (WEB, "PTR", NOERROR, [], []),
    ("nope.default.svc.cluster.local.", "PTR", NXDOMAIN, [], []),
]


@pytest.mark.parametrize(("qname", "qtype", "rcode", "answer", "additional"), CASES,
                         ids=[f"{c[1]} {c[0]}" for c in CASES])
def test_answer(qname, qtype, rcode, answer, additional):
    got = cluster(dns_ips=["10.88.0.1"]).answer(qname, qtype)
    assert got.in_zone and got.authoritative
    assert got.rcode == rcode
    assert texts(got.answer) == answer
    assert texts(got.additional) == additional
    assert texts(got.authority) == ([] if answer else [soa(zone_of(qname))])
    assert got.chase is None


def zone_of(qname: str) -> str:
    return "in-addr.arpa." if qname.endswith("in-addr.arpa.") else "cluster.local."


def soa(zone: str) -> str:
    return (f"{zone} 30 IN SOA ns.dns.{zone} hostmaster.{zone} {int(EPOCH)} "
            "7200 1800 86400 30")


@pytest.mark.parametrize("qname", [
    "9.9.9.9.in-addr.arpa.",      # nobody's address
    "4.0.88.10.in-addr.arpa.",    # a not-ready endpoint
    "99.0.88.10.in-addr.arpa.",   # only in an unlabelled slice
    "0.88.10.in-addr.arpa.",      # not a whole address
    "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.",
])
def test_unknown_reverse_names_fall_through(qname):
    got = cluster().answer(qname, "PTR")
    assert got == Answer(rcode=NOERROR, in_zone=False, authoritative=False)


def test_names_outside_the_zones_are_not_ours():
    records = cluster()
    for qname in ("example.com.", "local.", "cluster.local.example.com.", "."):
        assert not records.answer(qname, "A").in_zone


def test_externalname_out_of_the_zone_asks_the_caller_to_chase_the_target():
    got = cluster().answer("ext.default.svc.cluster.local", "A")
    assert got.rcode == NOERROR
    assert texts(got.answer) == [rr("ext.default.svc.cluster.local.", "CNAME", "db.example.org.")]
    assert got.chase == (dns.name.from_text("db.example.org."), dns.rdatatype.A)


def test_externalname_chains_inside_the_zone_are_followed_and_loops_cut():
    records = cluster()
    records.upsert_service(service("hop", cluster_ip="", ports=[], type="ExternalName",
                                   externalName="ext.default.svc.cluster.local"))
    records.upsert_service(service("loop", cluster_ip="", ports=[], type="ExternalName",
                                   externalName="loop.default.svc.cluster.local"))
    hop = records.answer("hop.default.svc.cluster.local", "AAAA")
    assert texts(hop.answer) == [
        rr("hop.default.svc.cluster.local.", "CNAME", "ext.default.svc.cluster.local."),
        rr("ext.default.svc.cluster.local.", "CNAME", "db.example.org.")]
    assert hop.chase == (dns.name.from_text("db.example.org."), dns.rdatatype.AAAA)
    loop = records.answer("loop.default.svc.cluster.local", "A")
    assert (loop.rcode, loop.answer) == (NOERROR, ())


def test_owner_names_keep_the_case_asked():
    got = cluster().answer("WEB.Default.svc.Cluster.Local.", "A")
    assert texts(got.answer) == [rr("WEB.Default.svc.Cluster.Local.", "A", "10.96.0.20")]
    assert texts(got.authority) == []


def test_zone_transfers_are_refused():
    for qtype in ("AXFR", "IXFR"):
        got = cluster().answer("cluster.local.", qtype)
        assert (got.rcode, got.authoritative) == (dns.rcode.REFUSED, False)


def test_ns_records_name_the_service_that_has_us_as_endpoint():
    records = cluster(dns_ips=["10.88.0.1"])
    records.upsert_slice(endpoint_slice("kube-dns-1", "kube-dns", [endpoint("10.88.0.1")],
                                        ns="kube-system"))
    kube_dns = "kube-dns.kube-system.svc.cluster.local."
    got = records.answer("cluster.local.", "NS")
    assert texts(got.answer) == [rr("cluster.local.", "NS", kube_dns)]
    assert texts(got.additional) == [rr(kube_dns, "A", "10.96.0.10")]
    assert texts(records.answer("ns.dns.cluster.local.", "A").answer) == [
        rr("ns.dns.cluster.local.", "A", "10.96.0.10")]


def test_a_custom_zone():
    records = ClusterRecords("k8s.test", clock=FakeClock())
    records.upsert_namespace(namespace("default"))
    records.upsert_service(service("web", cluster_ip="10.96.0.20"))
    assert texts(records.answer("web.default.svc.k8s.test.", "A").answer) == [
        rr("web.default.svc.k8s.test.", "A", "10.96.0.20")]
    assert not records.answer(WEB, "A").in_zone
    assert texts(records.answer("20.0.96.10.in-addr.arpa.", "PTR").answer) == [
        rr("20.0.96.10.in-addr.arpa.", "PTR", "web.default.svc.k8s.test.")]


# ------------------------------------------------------------ updates


def a_records(records: ClusterRecords, qname: str) -> list[str]:
    got = records.answer(qname, "A")
    return sorted(rrset[0].address for rrset in got.answer)


def test_service_update_moves_its_address_and_reverse_record():
    records = cluster()
    records.upsert_service(service("web", cluster_ip="10.96.0.21"))
    assert a_records(records, WEB) == ["10.96.0.21"]
    assert not records.answer("20.0.96.10.in-addr.arpa.", "PTR").in_zone
    assert texts(records.answer("21.0.96.10.in-addr.arpa.", "PTR").answer) == [
        rr("21.0.96.10.in-addr.arpa.", "PTR", WEB)]


def test_service_delete_is_nxdomain_and_its_slices_stay_indexed_until_deleted():
    records = cluster()
    records.delete_service({"metadata": {"name": "db", "namespace": "default"}})
    assert records.answer(DB, "A").rcode == NXDOMAIN
    # CoreDNS's endpoint index outlives the service: PTR still names the endpoint.
    assert records.answer("2.0.88.10.in-addr.arpa.", "PTR").in_zone
    records.delete_slice(endpoint_slice("db-a", "db", []))
    assert not records.answer("2.0.88.10.in-addr.arpa.", "PTR").in_zone


def test_several_slices_per_service_are_merged_and_deleted_one_by_one():
    records = cluster()
    assert a_records(records, DB) == ["10.88.0.2", "10.88.0.3", "10.88.0.5"]
    records.delete_slice(endpoint_slice("db-a", "db", []))
    assert a_records(records, DB) == ["10.88.0.5"]
    records.upsert_slice(endpoint_slice("db-b", "db", [endpoint("10.88.0.5", ready=False)]))
    assert records.answer(DB, "A").rcode == NXDOMAIN  # headless, nothing ready


def test_endpoint_readiness_changes_are_seen():
    records = cluster()
    records.upsert_slice(endpoint_slice("db-a", "db", [endpoint("10.88.0.4", ready=True)]))
    assert a_records(records, DB) == ["10.88.0.4", "10.88.0.5"]
    assert records.answer("10-88-0-4." + DB, "A").rcode == NOERROR


def test_publish_not_ready_follows_the_service():
    records = cluster()
    records.upsert_service(service("peers", cluster_ip="None"))
    assert a_records(records, "peers.default.svc.cluster.local.") == ["10.88.0.6"]


def test_a_slice_without_the_service_name_label_is_ignored_and_losing_it_removes_it():
    records = cluster()
    records.upsert_service(service("stray", cluster_ip="None"))
    assert records.answer("stray.default.svc.cluster.local.", "A").rcode == NXDOMAIN
    records.upsert_slice(endpoint_slice("db-b", None, [endpoint("10.88.0.5")]))
    assert a_records(records, DB) == ["10.88.0.2", "10.88.0.3"]


def test_namespace_delete_hides_its_names_and_clear_forgets_everything():
    records = cluster()
    records.delete_namespace(namespace("default"))
    assert records.answer(WEB, "A").rcode == NXDOMAIN
    assert records.answer("1-2-3-4.default.pod.cluster.local.", "A").rcode == NXDOMAIN
    records.upsert_namespace(namespace("default"))
    assert a_records(records, WEB) == ["10.96.0.20"]
    records.clear()
    assert records.answer(WEB, "A").rcode == NXDOMAIN
    assert records.answer("default.svc.cluster.local.", "A").rcode == NXDOMAIN


def test_objects_are_copied_on_arrival():
    records = cluster()
    svc = service("mut", cluster_ip="10.96.0.99")
    records.upsert_service(svc)
    svc["spec"]["clusterIP"] = svc["spec"]["clusterIPs"][0] = "10.96.0.98"
    assert a_records(records, "mut.default.svc.cluster.local.") == ["10.96.0.99"]


def test_the_soa_serial_is_the_time_of_the_last_change():
    clock = FakeClock()
    records = ClusterRecords(clock=clock)
    records.upsert_namespace(namespace("default"))
    serial = lambda: records.answer("cluster.local.", "SOA").answer[0][0].serial  # noqa: E731
    assert serial() == int(EPOCH)
    clock.advance(100)
    records.upsert_namespace(namespace("default"))  # no change
    assert serial() == int(EPOCH)
    records.upsert_service(service("web"))
    assert serial() == int(EPOCH) + 100


def test_before_sync_unknown_names_are_servfail_not_nxdomain():
    records = cluster(synced=False)
    unknown = records.answer("later.default.svc.cluster.local.", "A")
    assert unknown.rcode == dns.rcode.SERVFAIL and texts(unknown.authority) == [SOA]
    assert a_records(records, WEB) == ["10.96.0.20"]
    records.mark_synced()
    assert records.answer("later.default.svc.cluster.local.", "A").rcode == NXDOMAIN


def test_an_answer_never_sees_half_an_update():
    """Writers swap a slice between two versions; readers see one or the other."""
    records = cluster()
    versions = [["10.1.0.1", "10.1.0.2"], ["10.2.0.1", "10.2.0.2", "10.2.0.3"]]
    stop = threading.Event()
    seen: list[list[str]] = []

    def writer() -> None:
        i = 0
        while not stop.is_set():
            ips = versions[i % 2]
            records.upsert_slice(endpoint_slice("db-a", "db", [endpoint(ip) for ip in ips]))
            records.upsert_slice(endpoint_slice("db-b", "db", []))
            i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(2000):
            seen.append(a_records(records, DB))
    finally:
        stop.set()
        thread.join()
    # Between the two upserts db-b may still hold its old endpoint; what must
    # never show is part of one db-a version, or no db-a at all.
    allowed = {("10.88.0.2", "10.88.0.3", "10.88.0.5"), *(tuple(v) for v in versions),
               *(tuple(sorted([*v, "10.88.0.5"])) for v in versions)}
    assert {tuple(s) for s in seen} <= allowed
