"""A fake upstream DNS server for tests: :class:`FakeUpstream` is a tiny DNS
server on 127.0.0.1 built on dnspython. It answers from a table over UDP and
TCP on one port, records every query it sees, and can be told to stay silent
or to truncate its UDP answers. Used by the DNS unit tests and, as the host's
resolver, by the cluster DNS tests on Podman (``--dns-upstream``).
"""

from __future__ import annotations

import errno
import select
import socket
import threading
from types import TracebackType

import dns.flags
import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset


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
