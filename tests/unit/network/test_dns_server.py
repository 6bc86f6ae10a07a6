"""DnsServer over real sockets on 127.0.0.1: cluster answers, forwarding, EDNS,
truncation, malformed queries, concurrency, and a clean stop."""

from __future__ import annotations

import errno
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import dns.edns
import dns.flags
import dns.message
import dns.opcode
import dns.query
import dns.rcode
import dns.rdatatype
import pytest

from minikube_py.network.dns import ClusterRecords, DnsServer, Forwarder
from tests.clock import FakeClock
from tests.dnsfake import FakeUpstream, closed_port
from tests.unit.network.test_dns_records import endpoint, endpoint_slice, namespace, service
from tests.waiting import wait_for

WEB = "web.default.svc.cluster.local."
MANY = "many.default.svc.cluster.local."
TIMEOUT = 5.0


def records() -> ClusterRecords:
    r = ClusterRecords("cluster.local", clock=FakeClock())
    r.upsert_namespace(namespace("default"))
    r.upsert_service(service("web", cluster_ip="10.96.0.20"))
    r.upsert_service(service("many", cluster_ip="None"))
    r.upsert_slice(endpoint_slice("many-1", "many", [
        endpoint(f"10.88.{i // 250}.{i % 250 + 1}") for i in range(100)]))
    r.upsert_service(service("ext", cluster_ip="", ports=[], type="ExternalName",
                             externalName="www.example.org"))
    return r


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream({("www.example.org.", "A"): ["192.0.2.80"],
                       ("example.com.", "A"): ["192.0.2.1"],
                       ("big.example.", "A"): [f"198.51.100.{i}" for i in range(1, 101)],
                       ("8.8.8.8.in-addr.arpa.", "PTR"): ["dns.google."]}) as up:
        yield up


@pytest.fixture
def server(upstream: FakeUpstream) -> Iterator[DnsServer]:
    with DnsServer(records(), listen=[("127.0.0.1", 0)],
                   forwarder=Forwarder([upstream.address], timeout=0.5)) as srv:
        yield srv


def ask(srv: DnsServer, name: str, rdtype: str = "A", *, tcp: bool = False,
        **make: Any) -> dns.message.Message:
    host, port = srv.addresses[0]
    q = dns.message.make_query(name, rdtype, **make)
    if tcp:
        return dns.query.tcp(q, host, port=port, timeout=TIMEOUT)
    return dns.query.udp(q, host, port=port, timeout=TIMEOUT)


def values(reply: dns.message.Message) -> list[str]:
    return [rd.to_text() for rrset in reply.answer for rd in rrset]


def raw_exchange(srv: DnsServer, *datagrams: bytes) -> bytes:
    """Send ``datagrams`` in order from one socket; the first reply that comes back.

    The server reads a socket's datagrams in order on one thread, so when the
    last one is a valid query, its reply arriving first proves the earlier
    ones got none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(TIMEOUT)
        for data in datagrams:
            sock.sendto(data, srv.addresses[0])
        return sock.recv(65535)


# --------------------------------------------------------- cluster answers


@pytest.mark.parametrize("tcp", [False, True], ids=["udp", "tcp"])
def test_cluster_names_are_answered_authoritatively(server, tcp):
    reply = ask(server, WEB, tcp=tcp)
    assert reply.rcode() == dns.rcode.NOERROR
    assert values(reply) == ["10.96.0.20"]
    assert reply.flags & dns.flags.AA and not reply.flags & dns.flags.RA
    assert reply.flags & dns.flags.RD  # copied from the query


def test_nxdomain_and_nodata_carry_the_soa(server):
    missing = ask(server, "nope.default.svc.cluster.local.")
    assert missing.rcode() == dns.rcode.NXDOMAIN and missing.flags & dns.flags.AA
    assert [r.rdtype for r in missing.authority] == [dns.rdatatype.SOA]
    nodata = ask(server, WEB, "AAAA")
    assert (nodata.rcode(), nodata.answer) == (dns.rcode.NOERROR, [])
    assert [r.rdtype for r in nodata.authority] == [dns.rdatatype.SOA]


def test_a_large_answer_is_truncated_over_udp_and_whole_over_tcp(server):
    udp = ask(server, MANY)
    assert udp.flags & dns.flags.TC
    assert 0 < len(values(udp)) < 100
    edns = ask(server, MANY, use_edns=0, payload=1232)
    assert len(values(udp)) < len(values(edns)) < 100 and edns.flags & dns.flags.TC
    assert len(edns.to_wire()) <= 1232
    full = ask(server, MANY, tcp=True)
    assert not full.flags & dns.flags.TC
    assert len(values(full)) == 100
    # dnspython's own fallback does what a stub resolver does
    host, port = server.addresses[0]
    fallback, used_tcp = dns.query.udp_with_fallback(
        dns.message.make_query(MANY, "A"), host, port=port, timeout=TIMEOUT)
    assert used_tcp and len(values(fallback)) == 100


def test_edns_is_echoed_only_to_edns_clients(server):
    plain = ask(server, WEB)
    assert plain.edns == -1
    edns = ask(server, WEB, use_edns=0, payload=1232, want_dnssec=True)
    assert (edns.edns, edns.payload) == (0, 1232)
    assert edns.ednsflags & dns.flags.DO


def test_an_unknown_edns_version_is_badvers(server):
    reply = ask(server, WEB, use_edns=1)
    assert reply.rcode() == dns.rcode.BADVERS and reply.answer == []
    assert reply.edns == 0


# ---------------------------------------------------------------- forwarding


def test_other_names_are_forwarded(server, upstream):
    reply = ask(server, "example.com.")
    assert values(reply) == ["192.0.2.1"]
    assert not reply.flags & dns.flags.AA and reply.flags & dns.flags.RA
    missing = ask(server, "missing.example.")
    assert missing.rcode() == dns.rcode.NXDOMAIN
    assert [proto for proto, q in upstream.seen] == ["udp", "udp"]


def test_a_large_forwarded_answer_is_cut_to_fit_record_by_record(server):
    udp = ask(server, "big.example.")
    assert udp.flags & dns.flags.TC and 0 < len(values(udp)) < 100
    assert len(values(ask(server, "big.example.", tcp=True))) == 100


def test_forwarding_keeps_the_clients_transport(server, upstream):
    assert values(ask(server, "example.com.", tcp=True)) == ["192.0.2.1"]
    assert upstream.protocols() == ["tcp"]


def test_forwarded_answers_are_cached(server, upstream):
    first, second = ask(server, "example.com."), ask(server, "Example.COM.")
    assert values(first) == values(second) == ["192.0.2.1"]
    assert len(upstream.seen) == 1
    # the upstream says 300 s; the cache keeps it 30 s and says so
    assert first.answer[0].ttl == 30 and second.answer[0].ttl <= 30


def test_unknown_reverse_names_fall_through_to_the_upstream(server, upstream):
    assert values(ask(server, "8.8.8.8.in-addr.arpa.", "PTR")) == ["dns.google."]
    cluster_ptr = ask(server, "20.0.96.10.in-addr.arpa.", "PTR")
    assert values(cluster_ptr) == [WEB] and cluster_ptr.flags & dns.flags.AA
    assert len(upstream.seen) == 1


def test_externalname_targets_outside_the_zone_are_resolved_upstream(server, upstream):
    reply = ask(server, "ext.default.svc.cluster.local.")
    assert [rrset.to_text() for rrset in reply.answer] == [
        "ext.default.svc.cluster.local. 30 IN CNAME www.example.org.",
        "www.example.org. 30 IN A 192.0.2.80"]
    assert reply.flags & dns.flags.AA and reply.rcode() == dns.rcode.NOERROR
    assert upstream.seen[0][1].question[0].name.to_text() == "www.example.org."


def test_servfail_when_no_upstream_answers():
    with FakeUpstream(silent=True) as mute, DnsServer(
            records(), listen=[("127.0.0.1", 0)],
            forwarder=Forwarder([mute.address, closed_port()], timeout=0.3)) as srv:
        started = time.monotonic()
        reply = ask(srv, "example.com.")
        assert reply.rcode() == dns.rcode.SERVFAIL
        assert time.monotonic() - started < 2.0
        # An ExternalName whose target cannot be resolved is its CNAME alone.
        ext = ask(srv, "ext.default.svc.cluster.local.")
        assert ext.rcode() == dns.rcode.NOERROR
        assert [r.rdtype for r in ext.answer] == [dns.rdatatype.CNAME]


def _free_port_server(attempts: int = 5) -> tuple[DnsServer, Forwarder]:
    """A started server forwarding to its own address. The port is found free first;
    another test may take it before the server binds (tests run in parallel),
    so a port taken meanwhile is simply tried again with another."""
    for _ in range(attempts):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        forwarder = Forwarder([("127.0.0.1", port)], timeout=5)
        server = DnsServer(records(), listen=[("127.0.0.1", port)], forwarder=forwarder)
        try:
            server.start()  # idempotent: the test's "with" starts it no further
        except OSError:
            continue
        return server, forwarder
    raise AssertionError(f"no free port in {attempts} attempts")


def test_the_server_never_forwards_to_itself():
    server, forwarder = _free_port_server()
    with server as srv:
        assert forwarder.upstreams == ()
        started = time.monotonic()
        assert ask(srv, "example.com.").rcode() == dns.rcode.SERVFAIL
        assert time.monotonic() - started < 1.0


# ------------------------------------------------------------- malformed


def test_malformed_queries(server):
    good = dns.message.make_query(WEB, "A")
    good.id = 7
    # shorter than a header, and a response: dropped without a reply
    reply = dns.message.from_wire(raw_exchange(server, b"\x00\x01garbage",
                                               _as_response(good), good.to_wire()))
    assert reply.id == 7 and values(reply) == ["10.96.0.20"]
    # a header followed by garbage: FORMERR with the query's ID
    formerr = dns.message.from_wire(raw_exchange(server, b"\x12\x34\x01\x00\x00\x01"
                                                 + b"\x00" * 6 + b"\xff\xff\xff"))
    assert (formerr.id, formerr.rcode()) == (0x1234, dns.rcode.FORMERR)
    # two questions: FORMERR
    two = dns.message.make_query(WEB, "A")
    two.question.append(dns.message.make_query("x.", "A").question[0])
    assert dns.message.from_wire(raw_exchange(server, two.to_wire())).rcode() == \
        dns.rcode.FORMERR
    # an opcode we do not serve: NOTIMP
    notify = dns.message.make_query(WEB, "SOA")
    notify.set_opcode(dns.opcode.NOTIFY)
    reply = dns.message.from_wire(raw_exchange(server, notify.to_wire()))
    assert (reply.rcode(), reply.opcode()) == (dns.rcode.NOTIMP, dns.opcode.NOTIFY)


def _as_response(q: dns.message.Message) -> bytes:
    r = dns.message.make_response(q)
    r.id = 99
    return r.to_wire()


# ------------------------------------------------------------- concurrency


def test_concurrent_queries(server):
    names = [(WEB, "10.96.0.20"), ("example.com.", "192.0.2.1"),
             ("1-2-3-4.default.pod.cluster.local.", "1.2.3.4")] * 40

    def one(item: tuple[str, str], tcp: bool) -> bool:
        return values(ask(server, item[0], tcp=tcp)) == [item[1]]

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(one, names, [i % 3 == 0 for i in range(len(names))]))
    assert all(results)


def test_a_slow_upstream_does_not_hold_up_cluster_answers():
    with FakeUpstream(silent=True) as mute, DnsServer(
            records(), listen=[("127.0.0.1", 0)],
            forwarder=Forwarder([mute.address], timeout=5, deadline=5)) as srv:
        host, port = srv.addresses[0]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for _ in range(4):
                sock.sendto(dns.message.make_query("slow.example.", "A").to_wire(), (host, port))
            wait_for(lambda: len(mute.seen) == 4, "the upstream to hold four queries", 5)
            started = time.monotonic()
            assert values(ask(srv, WEB)) == ["10.96.0.20"]
            assert values(ask(srv, WEB, tcp=True)) == ["10.96.0.20"]
            assert time.monotonic() - started < 1.0


def test_too_many_pending_upstream_queries_are_refused():
    with FakeUpstream(silent=True) as mute, DnsServer(
            records(), listen=[("127.0.0.1", 0)], workers=1, max_pending=2,
            forwarder=Forwarder([mute.address], timeout=5, deadline=5)) as srv:
        held = [dns.message.make_query(f"q{i}.example.", "A") for i in range(2)]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for q in held:
                sock.sendto(q.to_wire(), srv.addresses[0])
            wait_for(lambda: len(mute.seen) == 1, "the only worker to ask upstream", 5)
            assert ask(srv, "third.example.").rcode() == dns.rcode.REFUSED


# ------------------------------------------------------------ lifecycle


def dns_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("dns-")]


def test_stop_is_prompt_even_with_queries_in_flight_and_leaves_nothing_running():
    with FakeUpstream(silent=True) as mute:
        srv = DnsServer(records(), listen=[("127.0.0.1", 0)],
                        forwarder=Forwarder([mute.address], timeout=10, deadline=10))
        srv.start()
        srv.start()  # idempotent
        host, port = srv.addresses[0]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, \
                socket.create_connection((host, port), timeout=TIMEOUT) as idle_tcp:
            udp.sendto(dns.message.make_query("slow.example.", "A").to_wire(), (host, port))
            wait_for(lambda: mute.seen, "the upstream to hold a query", 5)
            wait_for(lambda: any(n.startswith("dns-tcp") for n in dns_threads()),
                     "the idle TCP connection to have its thread", 5)
            started = time.monotonic()
            srv.stop()
            assert time.monotonic() - started < 1.0
            srv.stop()  # idempotent
            assert idle_tcp.recv(1) == b""  # the server closed it
        assert dns_threads() == []
        with pytest.raises(RuntimeError):
            srv.start()


def test_stop_releases_the_ports(upstream):
    first = DnsServer(records(), listen=[("127.0.0.1", 0)],
                      forwarder=Forwarder([upstream.address]))
    first.start()
    address = first.addresses[0]
    first.stop()
    with DnsServer(records(), listen=[address],
                   forwarder=Forwarder([upstream.address])) as again:
        assert again.addresses == (address,)
        assert values(ask(again, WEB)) == ["10.96.0.20"]
        assert values(ask(again, WEB, tcp=True)) == ["10.96.0.20"]


def test_a_busy_port_fails_start_and_binds_nothing(upstream):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        srv = DnsServer(records(), listen=[("127.0.0.1", 0), ("127.0.0.1", port)],
                        forwarder=Forwarder([upstream.address]))
        with pytest.raises(OSError):
            srv.start()
    assert srv.addresses == () and dns_threads() == []


def test_an_address_on_no_interface_can_be_bound():
    address = "10.254.254.254"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as plain:
        try:
            plain.bind((address, 0))
        except OSError as e:
            assert e.errno == errno.EADDRNOTAVAIL
        else:
            pytest.skip(f"{address} is configured on this host")
    with DnsServer(records(), listen=[("127.0.0.1", 0), (address, 0)],
                   forwarder=Forwarder([])) as srv:
        assert srv.addresses[1][0] == address
        assert values(ask(srv, WEB)) == ["10.96.0.20"]


def test_an_ipv6_listen_address():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with DnsServer(records(), listen=[("::1", 0)], forwarder=Forwarder([])) as srv:
        host, port = srv.addresses[0]
        q = dns.message.make_query(WEB, "A")
        assert values(dns.query.udp(q, host, port=port, timeout=TIMEOUT)) == ["10.96.0.20"]
        assert values(dns.query.tcp(q, host, port=port, timeout=TIMEOUT)) == ["10.96.0.20"]


def test_a_failing_lookup_is_servfail(server, monkeypatch):
    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(server.records, "answer", broken)
    assert ask(server, WEB).rcode() == dns.rcode.SERVFAIL
    assert ask(server, WEB, tcp=True).rcode() == dns.rcode.SERVFAIL


def test_the_zone_must_be_the_records_zone():
    with pytest.raises(ValueError):
        DnsServer(records(), listen=[("127.0.0.1", 0)], forwarder=Forwarder([]),
                  zone="k8s.test")
    DnsServer(records(), listen=[("127.0.0.1", 0)], forwarder=Forwarder([]),
              zone="cluster.local")


def test_edns_options_survive_a_reply(server):
    # A client cookie does not break the exchange (the option is not echoed).
    cookie = dns.edns.GenericOption(dns.edns.OptionType.COOKIE, b"\x01" * 8)
    reply = ask(server, WEB, use_edns=0, options=[cookie])
    assert values(reply) == ["10.96.0.20"]
