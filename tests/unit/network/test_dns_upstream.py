"""resolv.conf parsing, forwarding to upstream resolvers, and the answer cache.

:class:`FakeUpstream` (also used by the server tests) is a tiny DNS server on
127.0.0.1 built on dnspython: it answers from a table over UDP and TCP on one
port, records every query it sees, and can be told to stay silent or to
truncate its UDP answers.
"""

from __future__ import annotations

import errno
import select
import socket
import threading
import time
from types import TracebackType
from typing import Any

import dns.flags
import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import pytest

from minikube_py.network.dns import (
    AnswerCache,
    Cancel,
    Cancelled,
    Forwarder,
    ResolvConf,
    parse_resolv_conf,
    read_resolv_conf,
)
from tests.clock import FakeClock
from tests.waiting import wait_for

# ------------------------------------------------------------ the fake upstream


class FakeUpstream:
    """A dnspython DNS server on 127.0.0.1 (UDP and TCP, one port)."""

    def __init__(self, table: dict[tuple[str, str], list[str]] | None = None, *,
                 silent: bool = False, truncate_udp: bool = False, ttl: int = 300) -> None:
        self.table = {(dns.name.from_text(n), dns.rdatatype.from_text(t)): v
                      for (n, t), v in (table or {}).items()}
        self.silent = silent
        self.truncate_udp = truncate_udp
        self.ttl = ttl
        self.seen: list[tuple[str, dns.message.Message]] = []  # (udp|tcp, query)
        self._held: list[socket.socket] = []
        self.udp, self.tcp = _pair_on_free_port()
        self._wake_r, self._wake_w = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, name="fake-upstream")

    @property
    def address(self) -> tuple[str, int]:
        return "127.0.0.1", self.udp.getsockname()[1]

    def protocols(self) -> list[str]:
        return [proto for proto, _ in self.seen]

    def __enter__(self) -> FakeUpstream:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._wake_w.send(b"x")
        self._thread.join()
        for sock in (self.udp, self.tcp, self._wake_r, self._wake_w, *self._held):
            sock.close()

    def _serve(self) -> None:
        while True:
            ready, _, _ = select.select([self.udp, self.tcp, self._wake_r], [], [])
            if self._wake_r in ready:
                return
            if self.udp in ready:
                wire, client = self.udp.recvfrom(65535)
                query = dns.message.from_wire(wire)
                self.seen.append(("udp", query))
                if not self.silent:
                    self.udp.sendto(self.reply(query, udp=True).to_wire(), client)
            if self.tcp in ready:
                conn, _ = self.tcp.accept()
                conn.settimeout(5)
                query, _ = dns.query.receive_tcp(conn)
                self.seen.append(("tcp", query))
                if self.silent:
                    self._held.append(conn)  # open and mute, until the test ends
                    continue
                dns.query.send_tcp(conn, self.reply(query, udp=False))
                conn.close()

    def reply(self, query: dns.message.Message, *, udp: bool) -> dns.message.Message:
        reply = dns.message.make_response(query, recursion_available=True)
        if udp and self.truncate_udp:
            reply.flags |= dns.flags.TC
            return reply
        question = query.question[0]
        values = self.table.get((question.name, question.rdtype))
        if values is None:
            reply.set_rcode(dns.rcode.NXDOMAIN)
            reply.authority.append(dns.rrset.from_text(
                "example.", self.ttl, "IN", "SOA", "ns.example. host.example. 1 2 3 4 60"))
        else:
            reply.answer.append(dns.rrset.from_text_list(
                question.name, self.ttl, dns.rdataclass.IN, question.rdtype, values))
        return reply


def _pair_on_free_port() -> tuple[socket.socket, socket.socket]:
    for _ in range(20):
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            tcp.bind(("127.0.0.1", udp.getsockname()[1]))
        except OSError:
            udp.close()
            tcp.close()
            continue
        tcp.listen(16)
        return udp, tcp
    raise OSError(errno.EADDRINUSE, "no free port pair")


def closed_port() -> tuple[str, int]:
    """An address where nothing listens (UDP to it is refused at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return "127.0.0.1", probe.getsockname()[1]


def addresses(reply: dns.message.Message | None) -> list[str]:
    assert reply is not None
    return sorted(rd.to_text() for rrset in reply.answer for rd in rrset)


def query(name: str, rdtype: str = "A", **kwargs: Any) -> dns.message.Message:
    return dns.message.make_query(name, rdtype, **kwargs)


# ---------------------------------------------------------------- resolv.conf


def test_resolv_conf_nameservers_search_options_and_comments():
    text = """
# generated by NetworkManager
; another comment
search corp.example home.example
nameserver 192.168.1.1   # the router
nameserver 2001:db8::53
nameserver fe80::1%eth0
nameserver not-an-address
nameserver 192.168.1.1
nameserver
options ndots:2 timeout:1
options rotate
   nameserver 10.0.0.53
#nameserver 10.9.9.9
"""
    conf = parse_resolv_conf(text)
    assert conf == ResolvConf(
        nameservers=(("192.168.1.1", 53), ("2001:db8::53", 53), ("fe80::1%eth0", 53),
                     ("10.0.0.53", 53)),
        search=("corp.example", "home.example"),
        options=("ndots:2", "timeout:1", "rotate"))


def test_resolv_conf_last_search_or_domain_line_wins():
    assert parse_resolv_conf("search a.example\ndomain b.example\n").search == ("b.example",)
    assert parse_resolv_conf("domain b.example\nsearch a.example c\n").search == ("a.example", "c")


def test_resolv_conf_without_nameservers_is_an_empty_list():
    assert parse_resolv_conf("search example.com\n").nameservers == ()


def test_reading_a_file_and_a_missing_file(tmp_path):
    path = tmp_path / "resolv.conf"
    path.write_text("nameserver 127.0.0.53\noptions edns0 trust-ad\n")
    assert read_resolv_conf(str(path)).nameservers == (("127.0.0.53", 53),)
    assert Forwarder.from_resolv_conf(str(path)).upstreams == (("127.0.0.53", 53),)
    with pytest.raises(FileNotFoundError):
        read_resolv_conf(str(tmp_path / "missing"))


# ---------------------------------------------------------------- forwarding


def test_forward_returns_the_upstream_reply_with_the_clients_id():
    with FakeUpstream({("example.com.", "A"): ["93.184.216.34"]}) as up:
        q = query("example.com.")
        reply = Forwarder([up.address], timeout=2).forward(q)
        assert reply is not None and reply.id == q.id
        assert addresses(reply) == ["93.184.216.34"]
        assert up.protocols() == ["udp"]
        assert up.seen[0][1].question == q.question
        assert reply.flags & dns.flags.RA


def test_upstream_errors_are_answers():
    with FakeUpstream() as up:
        reply = Forwarder([up.address]).forward(query("nope.example."))
        assert reply is not None and reply.rcode() == dns.rcode.NXDOMAIN


def test_upstreams_are_tried_in_order_until_one_answers():
    with FakeUpstream(silent=True) as mute, \
            FakeUpstream({("example.com.", "A"): ["192.0.2.7"]}) as good:
        forwarder = Forwarder([closed_port(), mute.address, good.address], timeout=0.3)
        started = time.monotonic()
        assert addresses(forwarder.forward(query("example.com."))) == ["192.0.2.7"]
        assert 0.3 <= time.monotonic() - started < 2.0  # one timeout, one refusal
        assert len(mute.seen) == 1


def test_no_upstream_answering_is_none():
    with FakeUpstream(silent=True) as mute:
        assert Forwarder([mute.address, closed_port()], timeout=0.2).forward(query("a.")) is None
    assert Forwarder([]).forward(query("a.")) is None


def test_the_deadline_bounds_the_whole_query():
    with FakeUpstream(silent=True) as a, FakeUpstream(silent=True) as b:
        forwarder = Forwarder([a.address, b.address], timeout=0.4, deadline=0.5)
        started = time.monotonic()
        assert forwarder.forward(query("a.")) is None
        assert time.monotonic() - started < 0.9
        assert len(b.seen) <= 1 and len(a.seen) == 1


def test_a_truncated_udp_answer_is_retried_over_tcp():
    with FakeUpstream({("big.example.", "A"): ["192.0.2.1"]}, truncate_udp=True) as up:
        reply = Forwarder([up.address]).forward(query("big.example."))
        assert addresses(reply) == ["192.0.2.1"]
        assert reply is not None and not reply.flags & dns.flags.TC
        assert up.protocols() == ["udp", "tcp"]


def test_a_tcp_client_is_forwarded_over_tcp():
    with FakeUpstream({("example.com.", "A"): ["192.0.2.1"]}) as up:
        reply = Forwarder([up.address]).forward(query("example.com."), tcp=True)
        assert addresses(reply) == ["192.0.2.1"]
        assert up.protocols() == ["tcp"]


def test_the_query_goes_upstream_with_a_fresh_id_and_is_not_modified():
    with FakeUpstream({("example.com.", "A"): ["192.0.2.1"]}) as up:
        q = query("example.com.", use_edns=0, payload=1232, want_dnssec=True)
        q.id = 4242
        before = q.to_wire()
        Forwarder([up.address]).forward(q)
        assert q.to_wire() == before
        sent = up.seen[0][1]
        assert (sent.payload, bool(sent.ednsflags & dns.flags.DO)) == (1232, True)
        # The fresh ID is random: the chance it equals 4242 is 1 in 65536.
        assert sent.id != 4242


def test_resolve_asks_a_recursive_question_with_the_clients_edns():
    with FakeUpstream({("www.example.", "AAAA"): ["2001:db8::1"]}) as up:
        like = query("x.", use_edns=0, payload=4096)
        reply = Forwarder([up.address]).resolve(dns.name.from_text("www.example."),
                                               dns.rdatatype.AAAA, like=like)
        assert addresses(reply) == ["2001:db8::1"]
        sent = up.seen[0][1]
        assert sent.flags & dns.flags.RD and sent.payload == 4096


def test_cancel_cuts_a_forward_short():
    cancel = Cancel()
    with FakeUpstream(silent=True) as mute:
        forwarder = Forwarder([mute.address], timeout=10, deadline=10)
        outcome: list[object] = []

        def ask() -> None:
            try:
                outcome.append(forwarder.forward(query("a."), cancel=cancel))
            except Cancelled as e:
                outcome.append(e)

        thread = threading.Thread(target=ask)
        thread.start()
        wait_for(lambda: mute.seen, "the upstream to receive the query", timeout=5)
        started = time.monotonic()
        cancel.set()
        thread.join(timeout=5)
        assert time.monotonic() - started < 1.0
        assert len(outcome) == 1 and isinstance(outcome[0], Cancelled)
    cancel.close()


def test_loop_guard_excludes_our_own_addresses():
    forwarder = Forwarder([("127.0.0.1", 5353), ("192.0.2.1", 53), ("127.0.0.53", 53),
                           ("::1", 53)])
    forwarder.exclude([("127.0.0.1", 5353)])
    assert forwarder.upstreams == (("192.0.2.1", 53), ("127.0.0.53", 53), ("::1", 53))
    # A wildcard listen address is every local address on that port.
    forwarder.exclude([("0.0.0.0", 53)])
    assert forwarder.upstreams == (("192.0.2.1", 53), ("::1", 53))


# -------------------------------------------------------------------- cache


def answer_reply(q: dns.message.Message, ttl: int, *values: str) -> dns.message.Message:
    reply = dns.message.make_response(q)
    name = q.question[0].name
    reply.answer.append(dns.rrset.from_text_list(name, ttl, "IN", "A", list(values)))
    return reply


def denial(q: dns.message.Message, soa_ttl: int, minimum: int) -> dns.message.Message:
    """An NXDOMAIN whose negative TTL is min(soa_ttl, minimum) (RFC 2308)."""
    reply = dns.message.make_response(q)
    reply.set_rcode(dns.rcode.NXDOMAIN)
    reply.authority.append(dns.rrset.from_text(
        "example.", soa_ttl, "IN", "SOA", f"ns.example. host.example. 1 2 3 4 {minimum}"))
    return reply


def test_cache_hits_age_their_ttls_and_take_the_askers_id():
    clock = FakeClock(1000.0)
    cache = AnswerCache(clock=clock)
    q = query("example.com.")
    cache.put(q, answer_reply(q, 20, "192.0.2.1"))
    clock.advance(7.5)
    again = query("EXAMPLE.com.")
    hit = cache.get(again)
    assert hit is not None and hit.id == again.id
    assert [rrset.ttl for rrset in hit.answer] == [13]
    assert cache.get(query("other.example.")) is None
    clock.advance(12.5)
    assert cache.get(q) is None and len(cache) == 0


def test_cache_caps_ttls_at_thirty_seconds_and_times_denials_by_the_soa():
    clock = FakeClock(1000.0)
    cache = AnswerCache(clock=clock)
    long_q, denied_q = query("long.example."), query("gone.example.")
    long_reply, denied_reply = answer_reply(long_q, 3600, "192.0.2.1"), denial(denied_q, 300, 10)
    cache.put(long_q, long_reply)
    cache.put(denied_q, denied_reply)
    # the replies themselves now say how long they will be kept
    assert (long_reply.answer[0].ttl, denied_reply.authority[0].ttl) == (30, 10)
    clock.advance(10)
    assert cache.get(long_q) is not None and cache.get(denied_q) is None
    clock.advance(20)
    assert cache.get(long_q) is None


def with_rcode(q: dns.message.Message, rcode: dns.rcode.Rcode) -> dns.message.Message:
    reply = dns.message.make_response(q)
    reply.set_rcode(rcode)
    return reply


def truncated(q: dns.message.Message) -> dns.message.Message:
    reply = answer_reply(q, 60, "192.0.2.1")
    reply.flags |= dns.flags.TC
    return reply


@pytest.mark.parametrize("make", [
    lambda q: answer_reply(q, 0, "192.0.2.1"),       # TTL 0
    lambda q: dns.message.make_response(q),          # NODATA without an SOA to time it
    lambda q: with_rcode(q, dns.rcode.SERVFAIL),
    lambda q: with_rcode(q, dns.rcode.REFUSED),
    truncated,
], ids=["ttl-0", "nodata-without-soa", "servfail", "refused", "truncated"])
def test_cache_skips_what_must_not_be_cached(make):
    cache = AnswerCache()
    q = query("example.com.")
    cache.put(q, make(q))
    assert cache.get(q) is None


def test_cache_keys_on_the_do_bit_and_evicts_the_least_recently_used():
    cache = AnswerCache(capacity=2)
    plain, dnssec = query("a.example."), query("a.example.", want_dnssec=True)
    cache.put(plain, answer_reply(plain, 60, "192.0.2.1"))
    assert cache.get(dnssec) is None
    b, c = query("b.example."), query("c.example.")
    cache.put(b, answer_reply(b, 60, "192.0.2.2"))
    assert cache.get(plain) is not None  # a is now the most recently used
    cache.put(c, answer_reply(c, 60, "192.0.2.3"))
    assert cache.get(b) is None
    assert cache.get(plain) is not None and cache.get(c) is not None
