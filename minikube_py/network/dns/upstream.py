"""The host's resolvers, and forwarding to them (CoreDNS's ``forward . /etc/resolv.conf``).

:func:`read_resolv_conf` reads a resolv.conf the way glibc's resolver does:
``nameserver`` lines in order (IPv4 or IPv6, port 53; a line's first word only,
addresses that do not parse skipped, duplicates dropped), the last
``search``/``domain`` line wins, ``options`` accumulate; lines starting with
``#`` or ``;`` are comments, and so is the rest of a line after one. A
missing file raises :class:`FileNotFoundError`: forwarding to nowhere would
turn every name outside the cluster into SERVFAIL with nothing to say why,
and CoreDNS refuses to start in that case too; the caller decides whether an
empty :class:`Forwarder` is acceptable. A file without nameserver lines gives
an empty list (glibc would fall back to 127.0.0.1; a DNS server that may
itself listen there must not guess).

:class:`Forwarder` sends a query to the upstreams in order, each tried once,
with ``timeout`` per try (2 s, CoreDNS forward's per-try read timeout) and
``deadline`` for the whole query (5 s, CoreDNS forward's overall timeout).
Unlike CoreDNS there is no health checking and no random upstream order: the
first upstream that answers wins, the next ones are tried only when it does
not. Over UDP a truncated answer is retried over TCP at the same upstream;
a client that asked over TCP is forwarded over TCP. Each upstream query gets
a fresh random ID and only a matching reply from the address queried is
accepted (dnspython's ``is_response``: ID, opcode and question); the reply
goes back carrying the client's ID. When no upstream answers the result is
None, which the server turns into SERVFAIL. An upstream's own error rcodes
(SERVFAIL, REFUSED, NXDOMAIN) are answers and are passed on.

Loop guard: :meth:`Forwarder.exclude` removes the DNS server's own listen
addresses from the upstreams, including, for a wildcard listen address, any
local address on the same port; a resolv.conf that points at ourselves would
otherwise bounce each query between our sockets until it times out.

Thread safety: a Forwarder may be used from any number of threads at once;
each call uses its own sockets.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import select
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

import dns.entropy
import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.query
import dns.rdatatype

from .cancel import Cancel

__all__ = ["Address", "Forwarder", "ResolvConf", "parse_resolv_conf", "read_resolv_conf"]

log = logging.getLogger(__name__)

Address = tuple[str, int]
DNS_PORT = 53


# ------------------------------------------------------------- resolv.conf


@dataclass(frozen=True)
class ResolvConf:
    """What a resolv.conf says: upstreams (host, 53) in order, the search
    list and the options (``ndots:5`` style words)."""

    nameservers: tuple[Address, ...] = ()
    search: tuple[str, ...] = ()
    options: tuple[str, ...] = ()


def read_resolv_conf(path: str = "/etc/resolv.conf") -> ResolvConf:
    """Parse the resolv.conf at ``path``; :class:`FileNotFoundError` if absent."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_resolv_conf(f.read())


def parse_resolv_conf(text: str) -> ResolvConf:
    """Parse resolv.conf text (see the module docstring for the rules)."""
    servers: list[Address] = []
    search: tuple[str, ...] = ()
    options: list[str] = []
    for raw in text.splitlines():
        line = raw
        for mark in ("#", ";"):
            line = line.split(mark, 1)[0]
        words = line.split()
        if len(words) < 2:
            continue
        keyword, args = words[0], words[1:]
        if keyword == "nameserver":
            host = _nameserver(args[0])
            if host is not None and (host, DNS_PORT) not in servers:
                servers.append((host, DNS_PORT))
        elif keyword == "search":
            search = tuple(args)
        elif keyword == "domain":
            search = (args[0],)
        elif keyword == "options":
            options.extend(args)
    return ResolvConf(nameservers=tuple(servers), search=search, options=tuple(options))


def _nameserver(text: str) -> str | None:
    """A nameserver address in canonical form (a zone index kept), or None."""
    address, _, scope = text.partition("%")
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if scope and ip.version == 6:
        return f"{ip}%{scope}"
    return None if scope else str(ip)


# ---------------------------------------------------------------- forwarding


class Forwarder:
    """Forwards queries to upstream resolvers (see the module docstring)."""

    def __init__(self, upstreams: Iterable[Address], *, timeout: float = 2.0,
                 deadline: float = 5.0) -> None:
        self._configured = tuple((_canonical_host(h), int(p)) for h, p in upstreams)
        self._active = self._configured
        self._excluded: set[Address] = set()
        # wildcard listens, as (address family, port): local addresses of that family
        self._excluded_ports: set[tuple[socket.AddressFamily, int]] = set()
        self._lock = threading.Lock()
        self.timeout = timeout
        self.deadline = deadline

    @classmethod
    def from_resolv_conf(cls, path: str = "/etc/resolv.conf", *, timeout: float = 2.0,
                         deadline: float = 5.0) -> Forwarder:
        """A Forwarder to the nameservers of ``path`` (:func:`read_resolv_conf`)."""
        return cls(read_resolv_conf(path).nameservers, timeout=timeout, deadline=deadline)

    @property
    def upstreams(self) -> tuple[Address, ...]:
        """The upstreams queries go to, in order, exclusions applied."""
        return self._active

    def exclude(self, addresses: Iterable[Address]) -> None:
        """Never forward to these addresses (our own listen addresses). A
        wildcard host (``0.0.0.0``, ``::``) excludes every local address of
        its family on that port."""
        with self._lock:
            for host, port in addresses:
                canonical = _canonical_host(host)
                if canonical in ("0.0.0.0", "::"):
                    self._excluded_ports.add((_family(canonical), int(port)))
                else:
                    self._excluded.add((canonical, int(port)))
            self._active = tuple(u for u in self._configured if not self._is_self(u))
        for upstream in self._configured:
            if upstream not in self._active:
                log.warning("not forwarding to %s:%d: it is this DNS server", *upstream)

    def _is_self(self, upstream: Address) -> bool:
        if upstream in self._excluded:
            return True
        host, port = upstream
        return (_family(host), port) in self._excluded_ports and _is_local(host)

    def forward(self, query: dns.message.Message, *, tcp: bool = False,
                cancel: Cancel | None = None) -> dns.message.Message | None:
        """The first upstream reply to ``query``, carrying ``query``'s ID, or
        None when no upstream answered in time.

        ``query`` is not modified. ``tcp`` forwards over TCP (the client asked
        over TCP). Raises :class:`~.cancel.Cancelled` if ``cancel`` is set
        while waiting.
        """
        upstream_query = dns.message.from_wire(query.to_wire(), keyring=False)
        upstream_query.id = dns.entropy.random_16()
        give_up = time.monotonic() + self.deadline
        for address in self._active:
            try:
                reply = self._exchange(upstream_query, address, tcp, give_up, cancel)
            except (OSError, dns.exception.DNSException) as e:
                log.debug("upstream %s:%d failed: %s", *address, e)
                continue
            if reply is None:
                break  # the deadline passed
            reply.id = query.id
            return reply
        return None

    def resolve(self, qname: dns.name.Name, qtype: dns.rdatatype.RdataType, *,
                like: dns.message.Message | None = None, tcp: bool = False,
                cancel: Cancel | None = None) -> dns.message.Message | None:
        """Ask the upstreams ``qname``/``qtype`` (recursion desired), with the
        EDNS settings (payload, DO bit) of the client query ``like``."""
        query = self.make_query(qname, qtype, like=like)
        return self.forward(query, tcp=tcp, cancel=cancel)

    @staticmethod
    def make_query(qname: dns.name.Name, qtype: dns.rdatatype.RdataType, *,
                   like: dns.message.Message | None = None) -> dns.message.Message:
        """A recursive query for ``qname``/``qtype`` with ``like``'s EDNS settings."""
        if like is not None and like.edns >= 0:
            return dns.message.make_query(
                qname, qtype, use_edns=0, payload=max(512, like.payload),
                want_dnssec=bool(like.ednsflags & dns.flags.DO))
        return dns.message.make_query(qname, qtype, use_edns=False)

    def _exchange(self, query: dns.message.Message, address: Address, tcp: bool,
                  give_up: float, cancel: Cancel | None) -> dns.message.Message | None:
        budget = min(self.timeout, give_up - time.monotonic())
        if budget <= 0:
            return None
        if not tcp:
            reply = _udp(query, address, budget, cancel)
            if not reply.flags & dns.flags.TC:
                return reply
            budget = min(self.timeout, give_up - time.monotonic())
            if budget <= 0:
                return reply  # out of time: the truncated answer is an answer
        return _tcp(query, address, budget, cancel)


# ----------------------------------------------------------------- transport


def _udp(query: dns.message.Message, address: Address, budget: float,
         cancel: Cancel | None) -> dns.message.Message:
    """One UDP exchange on a connected socket (only the upstream's datagrams
    reach it, and an ICMP "port unreachable" fails it at once)."""
    until = time.monotonic() + budget
    with socket.socket(_family(address[0]), socket.SOCK_DGRAM) as sock:
        sock.setblocking(False)
        sock.connect(address)
        sock.send(query.to_wire())
        while True:
            if not _wait(sock, until - time.monotonic(), cancel, write=False):
                raise TimeoutError(f"no answer from {address[0]}:{address[1]}")
            try:
                wire = sock.recv(65535)
            except BlockingIOError:
                continue
            try:
                reply = dns.message.from_wire(wire, ignore_trailing=True)
            except dns.exception.DNSException:
                continue  # garbage: keep waiting for the real reply
            if query.is_response(reply):
                return reply


def _tcp(query: dns.message.Message, address: Address, budget: float,
         cancel: Cancel | None) -> dns.message.Message:
    until = time.monotonic() + budget
    with socket.socket(_family(address[0]), socket.SOCK_STREAM) as sock:
        sock.setblocking(False)
        err = sock.connect_ex(address)
        if err not in (0, errno.EINPROGRESS):
            raise OSError(err, errno.errorcode.get(err, "connect failed"))
        if not _wait(sock, until - time.monotonic(), cancel, write=True):
            raise TimeoutError(f"no TCP connection to {address[0]}:{address[1]}")
        err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            raise OSError(err, errno.errorcode.get(err, "connect failed"))
        sock.settimeout(max(0.001, until - time.monotonic()))
        sock.sendall(query.to_wire(prepend_length=True))
        if not _wait(sock, until - time.monotonic(), cancel, write=False):
            raise TimeoutError(f"no answer from {address[0]}:{address[1]}")
        # The reply has started to arrive; the rest is read within the budget.
        sock.settimeout(max(0.001, until - time.monotonic()))
        reply, _ = dns.query.receive_tcp(sock, time.time() + (until - time.monotonic()),
                                         ignore_trailing=True)
        if not query.is_response(reply):
            raise ConnectionError("TCP reply does not match the query")
        return reply


def _wait(sock: socket.socket, timeout: float, cancel: Cancel | None, *, write: bool) -> bool:
    if cancel is not None:
        return cancel.wait(sock, timeout, write=write)
    if timeout <= 0:
        return False
    poller = select.poll()
    poller.register(sock, select.POLLOUT if write else select.POLLIN)
    return bool(poller.poll(timeout * 1000))


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _canonical_host(host: str) -> str:
    address, sep, scope = host.partition("%")
    try:
        return str(ipaddress.ip_address(address)) + sep + scope
    except ValueError:
        return host


def _is_local(host: str) -> bool:
    """Whether ``host`` is an address of this machine: only those can be bound."""
    try:
        with socket.socket(_family(host), socket.SOCK_DGRAM) as probe:
            probe.bind((host, 0))
        return True
    except OSError:
        return False
