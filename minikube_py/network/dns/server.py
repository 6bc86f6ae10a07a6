"""The cluster DNS server: UDP and TCP on every listen address, the cluster's
names from :class:`~.records.ClusterRecords`, everything else forwarded.

The pipeline per query, CoreDNS's order for kubeadm's Corefile:

1. Messages shorter than a DNS header, and responses (QR set), are dropped
   without a word, as miekg/dns does (any reply could be used to reflect
   traffic). An opcode other than QUERY is NOTIMP; a message that does not
   parse, or whose header counts are not those of a query (one question, at
   most one answer and one authority record, at most two additional ones)
   is FORMERR; an EDNS version other than 0 is BADVERS.
2. :meth:`~.records.ClusterRecords.answer` answers names in the cluster zone
   and reverse names of cluster addresses (authoritative, AA set, RA not
   set, as CoreDNS's kubernetes plugin). An ExternalName CNAME to a name
   outside the zone is completed by asking the upstreams for the target and
   appending their answer records (CoreDNS's upstream lookup); if they do not
   answer, the CNAME stands alone.
3. Anything else goes to the :class:`~.upstream.Forwarder` (through a
   bounded :class:`~.cache.AnswerCache`, CoreDNS's ``cache 30``); SERVFAIL
   when no upstream answers.
4. EDNS: a query with an OPT record gets one back with the client's payload
   size echoed and its DO bit, as CoreDNS does; a query without gets none.
   A reply that does not fit (512 bytes over UDP without EDNS, the
   advertised size with it, 65535 over TCP) keeps as many records as fit,
   in order, and has TC set whenever anything was left out, as miekg's
   ``Truncate`` does.

Threads, all bounded: one dispatcher thread polls every socket (and a
cancel signal). Questions answered from memory are answered on it directly:
they take microseconds and need no hand-off. A UDP query that needs an
upstream goes to a pool of ``workers`` threads; at most ``max_pending``
such queries wait or run at once, and one more is answered REFUSED at once
(CoreDNS forward's ``max_concurrent`` answer) instead of queueing without
limit. Each TCP connection is served by one of ``max_tcp`` connection
threads (more connections are closed on accept); it reads queries one after
another, 2 s for the first and 8 s idle between them (miekg's read and idle
timeouts), and answers each in turn.

Sockets set ``IP_FREEBIND`` before binding, so the server can listen on an
address no interface has yet (a bridge's gateway that appears with the
first container). TCP sockets set ``SO_REUSEADDR`` so a restart rebinds at
once; UDP sockets do not, so two servers never share a port by accident.
With port 0 the UDP socket picks a free port and TCP binds the same one.

:meth:`DnsServer.stop` sets the cancel signal (which cuts short every
socket wait: client reads, upstream exchanges), joins every thread and
closes every socket; it returns within a moment whatever upstreams do.
"""

from __future__ import annotations

import errno
import logging
import select
import socket
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import TracebackType

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdatatype
import dns.rrset

from .cache import AnswerCache
from .cancel import Cancel, Cancelled
from .lookup import Answer
from .records import ClusterRecords
from .upstream import Address, Forwarder

__all__ = ["DnsServer"]

log = logging.getLogger(__name__)

# Linux's IP_FREEBIND (not exported by every Python build's socket module).
IP_FREEBIND = getattr(socket, "IP_FREEBIND", 15)
_MAX_UDP_PER_WAKEUP = 64  # so one busy socket cannot starve the others
_TCP_BACKLOG = 128


@dataclass(frozen=True)
class _Pending:
    """A query that needs the upstreams: all of it (``answer`` None) or the
    target of an ExternalName CNAME (``answer.chase``)."""

    query: dns.message.Message
    answer: Answer | None


class DnsServer:
    """The cluster DNS server (see the module docstring).

    ``records`` answers the cluster zone (``zone``, if given, must be its
    zone); ``listen`` lists the (host, port) pairs to serve on, UDP and TCP
    each; ``forwarder`` reaches the upstream resolvers, and is told to
    exclude our own addresses. ``cache_capacity`` 0 disables the cache.
    """

    def __init__(self, records: ClusterRecords, *, listen: Sequence[Address],
                 forwarder: Forwarder, zone: str | None = None, workers: int = 16,
                 max_pending: int = 256, max_tcp: int = 32, cache_capacity: int = 9984,
                 tcp_read_timeout: float = 2.0, tcp_idle_timeout: float = 8.0) -> None:
        if zone is not None and dns.name.from_text(zone).canonicalize() != records.zone:
            raise ValueError(f"zone {zone!r} is not the records' zone {records.zone}")
        if not listen:
            raise ValueError("DnsServer needs at least one listen address")
        self.records = records
        self.forwarder = forwarder
        self._listen = tuple((h, int(p)) for h, p in listen)
        self._workers = workers
        self._max_tcp = max_tcp
        self._pending_slots = threading.BoundedSemaphore(max_pending)
        self._tcp_slots = threading.BoundedSemaphore(max_tcp)
        self._cache = AnswerCache(capacity=cache_capacity)
        self._tcp_read_timeout = tcp_read_timeout
        self._tcp_idle_timeout = tcp_idle_timeout
        self._state = threading.Lock()
        self._started = False
        self._stopped = False
        self._udp: list[socket.socket] = []
        self._tcp: list[socket.socket] = []
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        self._cancel: Cancel  # made by start(): a server never started holds no socket
        self._dispatcher: threading.Thread | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._tcp_pool: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------- lifecycle

    @property
    def addresses(self) -> tuple[Address, ...]:
        """The (host, port) pairs actually bound, ports chosen for port 0
        filled in; empty before :meth:`start` and after :meth:`stop`."""
        return tuple((str(s.getsockname()[0]), int(s.getsockname()[1])) for s in self._udp)

    def start(self) -> None:
        """Bind every address and start serving. Idempotent; raises OSError if
        an address cannot be bound (nothing stays bound then), RuntimeError
        after :meth:`stop`."""
        with self._state:
            if self._stopped:
                raise RuntimeError("a stopped DnsServer cannot be started again")
            if self._started:
                return
            try:
                for host, port in self._listen:
                    udp, tcp = _bind_pair(host, port)
                    self._udp.append(udp)
                    self._tcp.append(tcp)
            except BaseException:
                self._close_sockets()
                raise
            self.forwarder.exclude(self.addresses)
            self._cancel = Cancel()
            self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="dns-upstream")
            self._tcp_pool = ThreadPoolExecutor(self._max_tcp, thread_name_prefix="dns-tcp")
            self._dispatcher = threading.Thread(target=self._dispatch, name="dns-dispatch",
                                                daemon=True)
            self._dispatcher.start()
            self._started = True
            log.info("cluster DNS serving %s on %s", self.records.zone,
                     ", ".join(f"{h}:{p}" for h, p in self.addresses))

    def stop(self) -> None:
        """Stop serving: wake and join every thread, close every socket.
        Idempotent; a server never started just stays unstarted."""
        with self._state:
            if not self._started or self._stopped:
                return
            self._stopped = True
        self._cancel.set()
        assert self._dispatcher is not None and self._pool is not None
        assert self._tcp_pool is not None
        self._dispatcher.join()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._tcp_pool.shutdown(wait=True, cancel_futures=True)
        with self._conns_lock:
            for conn in self._conns:  # accepted, but their turn never came
                conn.close()
            self._conns.clear()
        self._close_sockets()
        self._cancel.close()

    def __enter__(self) -> DnsServer:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def _close_sockets(self) -> None:
        for sock in (*self._udp, *self._tcp):
            sock.close()
        self._udp.clear()
        self._tcp.clear()

    # ------------------------------------------------------------ dispatching

    def _dispatch(self) -> None:
        poller = select.poll()
        sockets: dict[int, tuple[socket.socket, bool]] = {}
        for sock, is_udp in [*((s, True) for s in self._udp), *((s, False) for s in self._tcp)]:
            poller.register(sock, select.POLLIN)
            sockets[sock.fileno()] = (sock, is_udp)
        poller.register(self._cancel.fileno(), select.POLLIN)
        while True:
            for fd, _ in poller.poll():
                if fd == self._cancel.fileno():
                    return
                sock, is_udp = sockets[fd]
                if is_udp:
                    self._drain_udp(sock)
                else:
                    self._accept(sock)

    def _drain_udp(self, sock: socket.socket) -> None:
        for _ in range(_MAX_UDP_PER_WAKEUP):
            try:
                wire, client = sock.recvfrom(65535)
            except BlockingIOError:
                return
            except OSError as e:
                log.debug("UDP receive failed: %s", e)
                return
            try:
                self._on_datagram(sock, wire, client)
            except Exception:
                log.exception("DNS query from %s failed", client)

    def _on_datagram(self, sock: socket.socket, wire: bytes, client: Address) -> None:
        reply, pending = self._triage(wire, tcp=False)
        if pending is None:
            if reply is not None:
                _sendto(sock, reply, client)
            return
        if not self._pending_slots.acquire(blocking=False):
            refused = _rcode_reply(pending.query, dns.rcode.REFUSED)
            _sendto(sock, _render(refused, pending.query, tcp=False), client)
            return
        assert self._pool is not None
        self._pool.submit(self._upstream_udp, sock, client, pending)

    def _upstream_udp(self, sock: socket.socket, client: Address, pending: _Pending) -> None:
        try:
            reply = self._finish(pending, tcp=False)
            _sendto(sock, reply, client)
        except Cancelled:
            pass
        except Exception:
            log.exception("DNS query from %s failed", client)
        finally:
            self._pending_slots.release()

    def _accept(self, listener: socket.socket) -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return  # the client gave up already, or the descriptor table is full
        if not self._tcp_slots.acquire(blocking=False):
            conn.close()
            return
        with self._conns_lock:
            self._conns.add(conn)
        assert self._tcp_pool is not None
        self._tcp_pool.submit(self._serve_tcp, conn)

    def _serve_tcp(self, conn: socket.socket) -> None:
        try:
            conn.setblocking(False)
            timeout = self._tcp_read_timeout
            while (wire := self._read_message(conn, timeout)) is not None:
                reply, pending = self._triage(wire, tcp=True)
                if pending is not None:
                    reply = self._finish(pending, tcp=True)
                if reply is not None:
                    self._send_all(conn, len(reply).to_bytes(2, "big") + reply)
                timeout = self._tcp_idle_timeout
        except (Cancelled, OSError):
            pass
        except Exception:
            log.exception("DNS over TCP failed")
        finally:
            with self._conns_lock:
                self._conns.discard(conn)
            conn.close()
            self._tcp_slots.release()

    def _read_message(self, conn: socket.socket, timeout: float) -> bytes | None:
        """One length-prefixed message, or None at EOF or when the client is
        silent for ``timeout``; the body then gets the read timeout."""
        prefix = self._read_exact(conn, 2, time.monotonic() + timeout)
        if prefix is None:
            return None
        size = int.from_bytes(prefix, "big")
        return self._read_exact(conn, size, time.monotonic() + self._tcp_read_timeout)

    def _read_exact(self, conn: socket.socket, size: int, until: float) -> bytes | None:
        data = bytearray()
        while len(data) < size:
            if not self._cancel.wait(conn, until - time.monotonic()):
                return None
            try:
                chunk = conn.recv(size - len(data))
            except BlockingIOError:
                continue
            if not chunk:
                return None
            data += chunk
        return bytes(data)

    def _send_all(self, conn: socket.socket, data: bytes) -> None:
        view = memoryview(data)
        until = time.monotonic() + self._tcp_read_timeout
        while view:
            try:
                view = view[conn.send(view):]
            except BlockingIOError:
                if not self._cancel.wait(conn, until - time.monotonic(), write=True):
                    raise TimeoutError("client does not read its answer") from None

    # -------------------------------------------------------------- answering

    def _triage(self, wire: bytes, *, tcp: bool) -> tuple[bytes | None, _Pending | None]:
        """Answer ``wire`` from memory, or say what needs the upstreams.

        Returns (reply, None) for a reply ready now (None: drop the query),
        or (None, pending) for a query :meth:`_finish` completes.
        """
        try:
            query = dns.message.from_wire(wire, keyring=False, one_rr_per_rrset=True,
                                          ignore_trailing=True, continue_on_error=True)
        except dns.exception.DNSException:
            return None, None  # shorter than a header: nothing to reply to
        if query.flags & dns.flags.QR:
            return None, None
        if query.opcode() != dns.opcode.QUERY:
            return _render(_header_reply(query, dns.rcode.NOTIMP), query, tcp), None
        if query.errors or not _query_shaped(query):
            return _render(_header_reply(query, dns.rcode.FORMERR), query, tcp), None
        if query.edns > 0:
            return _render(_rcode_reply(query, dns.rcode.BADVERS), query, tcp), None
        question = query.question[0]
        try:
            answer = self.records.answer(question.name, question.rdtype)
        except Exception:  # a bug must cost one SERVFAIL, not the client's timeout
            log.exception("answering %s %s failed", question.name,
                          dns.rdatatype.to_text(question.rdtype))
            return _render(_rcode_reply(query, dns.rcode.SERVFAIL), query, tcp), None
        if not answer.in_zone:
            return None, _Pending(query, None)
        if answer.chase is not None:
            return None, _Pending(query, answer)
        return _render(_local_reply(query, answer), query, tcp), None

    def _finish(self, pending: _Pending, *, tcp: bool) -> bytes:
        """Complete a query through the upstreams (blocking)."""
        query = pending.query
        if pending.answer is None:
            reply = self._ask_upstream(query, tcp)
            if reply is None:
                return _render(_rcode_reply(query, dns.rcode.SERVFAIL), query, tcp)
            _set_edns(reply, query)
            return _render(reply, query, tcp)
        assert pending.answer.chase is not None
        target, qtype = pending.answer.chase
        found = self._ask_upstream(Forwarder.make_query(target, qtype, like=query), tcp)
        appended = list(found.answer) if found is not None else []
        truncated = found is not None and bool(found.flags & dns.flags.TC)
        return _render(_local_reply(query, pending.answer, appended, truncated), query, tcp)

    def _ask_upstream(self, query: dns.message.Message, tcp: bool) -> dns.message.Message | None:
        cached = self._cache.get(query)
        if cached is not None:
            return cached
        reply = self.forwarder.forward(query, tcp=tcp, cancel=self._cancel)
        if reply is not None:
            self._cache.put(query, reply)
        return reply


# ------------------------------------------------------------------ messages


def _query_shaped(query: dns.message.Message) -> bool:
    """miekg's default accept rules on the header counts of a query."""
    additional = len(query.additional) + (query.opt is not None) + (query.tsig is not None)
    return (len(query.question) == 1 and sum(len(r) for r in query.answer) <= 1
            and sum(len(r) for r in query.authority) <= 1 and additional <= 2)


def _header_reply(query: dns.message.Message, rcode: dns.rcode.Rcode) -> dns.message.Message:
    """A bare error reply (ID, opcode, RD, rcode) for a query we will not read."""
    reply = dns.message.Message(id=query.id)
    reply.flags = dns.flags.QR | (query.flags & dns.flags.RD)
    reply.set_opcode(query.opcode())
    reply.set_rcode(rcode)
    return reply


def _rcode_reply(query: dns.message.Message, rcode: dns.rcode.Rcode) -> dns.message.Message:
    """An empty reply with ``rcode`` and the question (CoreDNS's error replies)."""
    reply = dns.message.make_response(query)
    reply.flags |= query.flags & dns.flags.CD
    _set_edns(reply, query)
    reply.set_rcode(rcode)
    return reply


def _local_reply(query: dns.message.Message, answer: Answer,
                 appended: Sequence[dns.rrset.RRset] = (),
                 truncated: bool = False) -> dns.message.Message:
    reply = dns.message.make_response(query)  # RA clear: CoreDNS's own answers
    reply.flags |= query.flags & dns.flags.CD
    if answer.authoritative:
        reply.flags |= dns.flags.AA
    if truncated:
        reply.flags |= dns.flags.TC
    reply.answer = [*answer.answer, *appended]
    reply.authority = list(answer.authority)
    reply.additional = list(answer.additional)
    _set_edns(reply, query)
    reply.set_rcode(answer.rcode)
    return reply


def _set_edns(reply: dns.message.Message, query: dns.message.Message) -> None:
    """CoreDNS's ``SizeAndDo``: OPT only if the client sent one, then with its
    payload size and DO bit (an upstream's options kept)."""
    rcode = reply.rcode()
    if query.edns < 0:
        reply.use_edns(False)
    else:
        options = list(reply.options) if reply.edns >= 0 else []
        reply.use_edns(0, ednsflags=query.ednsflags & dns.flags.DO,
                       payload=max(512, query.payload), options=options)
    reply.set_rcode(rcode)


def _render(reply: dns.message.Message, query: dns.message.Message, tcp: bool) -> bytes:
    """The reply's wire form within the client's size, truncated as miekg
    does: as many records as fit, in order, TC set if any was left out."""
    if tcp:
        limit = 65535
    else:
        limit = max(512, query.payload) if query.edns >= 0 else 512
    try:
        return reply.to_wire(max_size=limit)
    except dns.exception.TooBig:
        pass
    reply.flags |= dns.flags.TC
    # One record per RRset, so the renderer can stop between records.
    reply.answer = _one_per_rrset(reply.answer)
    reply.authority = _one_per_rrset(reply.authority)
    reply.additional = _one_per_rrset(reply.additional)
    return reply.to_wire(max_size=limit, prefer_truncation=True)


def _one_per_rrset(section: list[dns.rrset.RRset]) -> list[dns.rrset.RRset]:
    out: list[dns.rrset.RRset] = []
    for rrset in section:
        if len(rrset) <= 1:
            out.append(rrset)
            continue
        for rdata in rrset:
            single = dns.rrset.RRset(rrset.name, rrset.rdclass, rrset.rdtype, rrset.covers)
            single.add(rdata, rrset.ttl)
            out.append(single)
    return out


# ------------------------------------------------------------------- sockets


def _sendto(sock: socket.socket, data: bytes, client: Address) -> None:
    try:
        sock.sendto(data, client)
    except OSError as e:  # a full buffer or a vanished client: UDP may drop
        log.debug("DNS reply to %s lost: %s", client, e)


def _bind_pair(host: str, port: int) -> tuple[socket.socket, socket.socket]:
    """A UDP and a TCP socket on ``host``:``port`` (the same free port for 0)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for _ in range(10 if port == 0 else 1):
        udp = _bound(family, socket.SOCK_DGRAM, host, port)
        try:
            tcp = _bound(family, socket.SOCK_STREAM, host, udp.getsockname()[1])
        except OSError as e:
            udp.close()
            if port == 0 and e.errno == errno.EADDRINUSE:
                continue  # TCP has that port taken: try another
            raise
        tcp.listen(_TCP_BACKLOG)
        return udp, tcp
    raise OSError(errno.EADDRINUSE, f"no port free for both UDP and TCP on {host}")


def _bound(family: socket.AddressFamily, kind: socket.SocketKind, host: str,
           port: int) -> socket.socket:
    sock = socket.socket(family, kind)
    try:
        if kind == socket.SOCK_STREAM:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        # Bind an address no interface has yet (the bridge gateway appears
        # with the first container); Linux applies it to IPv6 sockets too.
        sock.setsockopt(socket.SOL_IP, IP_FREEBIND, 1)
        sock.bind((host, port))
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock
