"""A bounded cache of upstream answers (CoreDNS's ``cache 30``, for forwarded names).

Only answers from the upstream resolvers are cached; the cluster's own
records are computed fresh for every question (they are in memory, and a
cached Service would outlive its deletion).

What is kept, and for how long:

* the key is the question (name case-insensitively, type, class) plus the
  DO and CD bits, as CoreDNS keys its cache;
* a positive answer (NOERROR with records) lives for its smallest TTL, a
  denial (NXDOMAIN, or NOERROR without answers) for its SOA's negative TTL
  (the smaller of the SOA's TTL and MINIMUM, RFC 2308); both capped at
  ``max_ttl`` (30 s);
* truncated answers, other rcodes, and answers with a TTL of 0 or without an
  SOA to time a denial are not cached (CoreDNS would keep them for its 5 s
  minimum TTL; not caching them only costs an upstream query);
* at most ``capacity`` entries; the least recently used one makes room.

A cached reply has every TTL set to its time in the cache (also the reply
that was cached, as CoreDNS's cache rewrites it); a hit is a fresh copy with
every TTL reduced by the time it spent in the cache, and the asking query's
ID. The clock (monotonic seconds) is injectable.

Thread safety: :meth:`AnswerCache.get` and :meth:`AnswerCache.put` may be
called from any thread.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdatatype

__all__ = ["AnswerCache"]

_Key = tuple[dns.name.Name, int, int, bool, bool]


@dataclass(frozen=True)
class _Entry:
    wire: bytes
    stored: float
    ttl: int


class AnswerCache:
    """Upstream answers by question; see the module docstring."""

    def __init__(self, *, capacity: int = 9984, max_ttl: int = 30,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = capacity
        self.max_ttl = max_ttl
        self._clock = clock
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, query: dns.message.Message) -> dns.message.Message | None:
        """A cached answer to ``query`` with aged TTLs and ``query``'s ID, or None."""
        key = _key(query)
        if key is None:
            return None
        now = self._clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            age = int(now - entry.stored)
            if now - entry.stored >= entry.ttl:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
        reply = dns.message.from_wire(entry.wire, keyring=False)
        for section in (reply.answer, reply.authority, reply.additional):
            for rrset in section:
                rrset.ttl = max(0, rrset.ttl - age)
        reply.id = query.id
        return reply

    def put(self, query: dns.message.Message, reply: dns.message.Message) -> None:
        """Keep ``reply`` (the upstream's answer to ``query``) if it may be
        cached, and then set every TTL in it to how long it is kept, as
        CoreDNS does: a client never holds an answer longer than we would."""
        key = _key(query)
        ttl = _cache_ttl(reply)
        if key is None or ttl is None or self.capacity <= 0:
            return
        ttl = min(ttl, self.max_ttl)
        for section in (reply.answer, reply.authority, reply.additional):
            for rrset in section:
                rrset.ttl = ttl
        entry = _Entry(wire=reply.to_wire(), stored=self._clock(), ttl=ttl)
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)


def _key(query: dns.message.Message) -> _Key | None:
    if len(query.question) != 1:
        return None
    q = query.question[0]
    do = query.edns >= 0 and bool(query.ednsflags & dns.flags.DO)
    return (q.name.canonicalize(), int(q.rdtype), int(q.rdclass), do,
            bool(query.flags & dns.flags.CD))


def _cache_ttl(reply: dns.message.Message) -> int | None:
    """How long ``reply`` may be cached, uncapped; None if it may not."""
    if reply.flags & dns.flags.TC:
        return None
    rcode = reply.rcode()
    if rcode not in (dns.rcode.NOERROR, dns.rcode.NXDOMAIN):
        return None
    if rcode == dns.rcode.NOERROR and reply.answer:
        ttl = min(rrset.ttl for section in (reply.answer, reply.authority, reply.additional)
                  for rrset in section)
    else:
        soas = [rrset for rrset in reply.authority if rrset.rdtype == dns.rdatatype.SOA]
        if not soas:
            return None
        ttl = min(soas[0].ttl, soas[0][0].minimum)
    return ttl if ttl > 0 else None
