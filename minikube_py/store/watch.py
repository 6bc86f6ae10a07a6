"""Watch: a bounded per-resource event history, and watchers reached by index.

Design (why it is shaped like this):

* One ring buffer of events per resource. It serves only the start of a
  watch from a resourceVersion (the catch-up); memory is bounded by the ring
  size. A watch from a version older than the ring gets
  :class:`~minikube_py.api.errors.Expired` and must relist, as with
  Kubernetes' "too old resource version".
* **Dispatch by index**, as kube-apiserver's watch cache does with its
  trigger functions: a watcher is filed under one (field, value) key its
  selector requires — ``metadata.name``, else another field selector
  equality such as ``spec.nodeName`` (the kubelets' watches), else its
  namespace — or with the unindexed watchers when its selector requires
  none. A write looks up only the buckets of its object's old and new
  values, so it reaches the watchers that can match it and no others: its
  cost no longer grows with the number of watchers that cannot.
* Each watcher has its own queue and condition variable. A write appends to
  the queues of the watchers it reaches and wakes only them; no polling, so
  an idle control plane sleeps. A watcher that lets more than the ring size
  of events pile up unread gets ``Expired`` and must relist (Kubernetes
  closes a watcher whose buffer is full for the same reason).
* **The control plane's own readers linger.** A watch opened with a
  ``linger`` (the in-process clients' watches, which feed the informers and
  the hollow kubelets, use :data:`LINGER`, 5 ms, the interpreter's switch
  interval) has its woken reader wait that long before it takes what is
  queued, unless a batch is waiting already: the writes of those
  milliseconds reach it in one batch, one wake-up instead of one per write.
  Under load, a wake-up per write was most of the daemon's thread switches
  (each reader woken, then waiting its turn for the interpreter lock: about
  42 switches a pod along the chain, 21-27 lingering 3-6 ms), and the
  difference between about 350 and 400-450 pods a second at 500 hollow
  nodes (bench/RESULTS.md, issue 18's twenty-third session). Those readers
  are then at most 5 ms later with an event; an idle one is never woken.
  The API server's watches (kubectl's, the official client's) do not
  linger: each event goes out as soon as it is written.
* Events carry the object's JSON text; ``WatchEvent.object`` decodes it lazily
  (a fresh dict each time, so consumers can never alter the store), and the API
  server can stream ``raw`` without re-encoding.
* **One decoded copy for the caches of a process.** Informers (and the hollow
  kubelets' pod cache) keep every object of their resource; the scheduler's,
  the controllers' and the kubelets' caches decoding each object for
  themselves would hold it three times. ``WatchEvent.shared_object`` and
  :meth:`Entry.shared` hand out one decoded dict per stored version instead,
  kept only while that version is the current one (a replaced or deleted
  version lets it go, so the history ring never pins dicts). Whoever takes a
  shared object must never change it — the same promise an informer cache
  already makes; :meth:`Entry.verify_shared` lets tests check it was kept.
  Shared copies are held by the hundred thousand, so their keys and short
  string values are interned and their repeated parts (tolerations, resources,
  volume sources, conditions) kept once (:func:`decode_shared`): with both, a
  decoded pod takes about a quarter of what ``json.loads`` makes of it.

Selector transitions follow Kubernetes' watch cache: an update that makes an
object start matching is delivered as ADDED, one that makes it stop matching as
DELETED (carrying the previous state with the new resourceVersion). The index
keeps this exact: a change is offered under its old value as well as its new
one, so a watcher keyed on the value an object leaves still sees it go.
"""

from __future__ import annotations

import bisect
import collections
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..api import jsontext
from ..api.errors import Expired
from .shared_json import SharedDecoder

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"

#: How long a woken reader of the control plane's own watches waits for more
#: writes before it takes the queued changes (see the module docstring): long
#: enough for several writes of a busy control plane, short beside anything a
#: user or a controller could see.
LINGER = 0.005
#: Changes already queued that make a woken reader take them at once.
LINGER_BATCH = 32

#: The one decoder of shared copies in a process, so equal parts of different
#: objects (and kinds) are one object (see :mod:`.shared_json`).
_SHARED_DECODER = SharedDecoder()


def decode_shared(raw: str) -> dict[str, Any]:
    """``raw`` decoded as ``json.loads`` does, with its short strings interned,
    its keys one object per spelling and its repeated parts kept once
    (:class:`.shared_json.SharedDecoder`)."""
    obj = _SHARED_DECODER.decode(raw)
    if not isinstance(obj, dict):
        raise ValueError("a stored object is a JSON object")
    return obj


def decode_shared_update(raw: str, previous: dict[str, Any]) -> dict[str, Any]:
    """:func:`decode_shared` for a new version of the object whose previous
    version's shared copy is ``previous``: its unchanged parts are taken from
    there, not walked again (:meth:`.shared_json.SharedDecoder.decode_update`)."""
    obj = _SHARED_DECODER.decode_update(raw, previous)
    if not isinstance(obj, dict):
        raise ValueError("a stored object is a JSON object")
    return obj


@dataclass(frozen=True, slots=True)
class Entry:
    """One immutable stored version of an object, with what selectors need."""

    raw: str
    rv: int
    namespace: str
    name: str
    labels: Mapping[str, str]
    fields: Mapping[str, str]
    # The shared decoded object (see the module notes) and whether this is the
    # current version; set through object.__setattr__ (the entry is frozen).
    _obj: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    _live: bool = field(default=False, compare=False, repr=False)

    def shared(self) -> dict[str, Any]:
        """The decoded object, one dict for every caller while this version is
        current (a fresh one otherwise). Read-only: never change it."""
        obj = self._obj
        if obj is not None:
            return obj
        return self._pin(decode_shared(self.raw))

    def decoded(self) -> dict[str, Any] | None:
        """The shared copy if one was decoded (and this version is current)."""
        return self._obj

    def shared_from(self, previous: dict[str, Any] | None) -> dict[str, Any]:
        """:meth:`shared`, decoded from ``previous``, the shared copy of the
        version this one replaced (taken with :meth:`decoded` before that one
        was retired), when there was one: the parts both versions have are
        decoded once (an update's writer that answers with the shared copy,
        e.g. a bind)."""
        if previous is None or self._obj is not None:
            return self.shared()
        return self._pin(decode_shared_update(self.raw, previous))

    def _pin(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Keep ``obj`` as this version's shared copy while it is current."""
        if self._live:
            object.__setattr__(self, "_obj", obj)
            if not self.is_live():  # retired meanwhile: do not pin it
                object.__setattr__(self, "_obj", None)
        return obj

    def is_live(self) -> bool:
        return self._live

    def go_live(self) -> None:
        """This version is now the stored one (called by the store)."""
        object.__setattr__(self, "_live", True)

    def retire(self) -> None:
        """This version was replaced or deleted: let its decoded object go."""
        object.__setattr__(self, "_live", False)
        object.__setattr__(self, "_obj", None)

    def verify_shared(self) -> bool:
        """Whether the shared object (if any) still equals the stored text."""
        obj = self._obj
        return obj is None or obj == jsontext.loads(self.raw)


class WatchEvent:
    """A delivered watch event. ``object`` is a fresh dict on each access."""

    __slots__ = ("entry", "raw", "resource_version", "type")

    def __init__(self, type: str, raw: str, resource_version: int,
                 entry: Entry | None = None) -> None:
        self.type = type
        self.raw = raw
        self.resource_version = resource_version
        self.entry = entry  # the stored version ``raw`` is, when it is one

    @property
    def object(self) -> dict[str, Any]:
        obj: dict[str, Any] = jsontext.loads(self.raw)
        return obj

    @property
    def shared_object(self) -> dict[str, Any]:
        """The decoded object shared by every cache (read-only; see the module
        notes); a fresh dict when the event is not a stored version."""
        if self.entry is not None:
            return self.entry.shared()
        return self.object

    def to_json(self) -> str:
        """The ``{"type":..., "object":...}`` line Kubernetes streams."""
        return f'{{"type":"{self.type}","object":{self.raw}}}'

    def __repr__(self) -> str:
        return f"WatchEvent({self.type}, rv={self.resource_version})"


@dataclass(frozen=True, slots=True)
class _Change:
    seq: int
    type: str
    new: Entry
    old: Entry | None


Matcher = Callable[[Entry], bool]
#: (field label, value) a watcher is filed under; ``None``: it may match anything.
IndexKey = tuple[str, str] | None


def _rv_of(change: _Change | None) -> int:
    assert change is not None  # every retained slot of the ring holds a change
    return change.new.rv


class History:
    """The ring of recent changes of one resource, and its watchers by index.

    Appended under the store's write lock.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("history capacity must be >= 1")
        self.capacity = capacity
        self._ring: list[_Change | None] = [None] * capacity
        self.head = 0  # next sequence number
        self.dropped_rv = 0  # rv of the newest event that fell off the ring
        self._lock = threading.Lock()
        self._unindexed: set[Watch] = set()
        # field label -> value -> watchers filed under it
        self._index: dict[str, dict[str, set[Watch]]] = {}
        self.closed = False

    @property
    def base(self) -> int:
        """Oldest sequence number still retained."""
        return max(0, self.head - self.capacity)

    def append(self, type: str, new: Entry, old: Entry | None,
               wake: set[Watch] | None = None) -> None:
        """Record a change and queue it for the watchers it can reach.

        ``wake``: collect those watchers here instead of waking each at once
        (a batch of writes wakes them once at its end, :meth:`Watch.wake`)."""
        with self._lock:
            seq = self.head
            slot = seq % self.capacity
            evicted = self._ring[slot]
            if evicted is not None:
                self.dropped_rv = evicted.new.rv
            change = _Change(seq, type, new, old)
            self._ring[slot] = change
            self.head = seq + 1
            for watch in self._unindexed:
                watch._offer(change, wake)
            for field, buckets in self._index.items():
                value = new.fields.get(field, "")
                for watch in buckets.get(value, ()):
                    watch._offer(change, wake)
                if old is not None:
                    before = old.fields.get(field, "")
                    if before != value:
                        for watch in buckets.get(before, ()):
                            watch._offer(change, wake)

    def start_after(self, rv: int) -> int:
        """The first sequence number whose event is newer than ``rv``.

        Raises Expired when events newer than ``rv`` have already been dropped.
        """
        with self._lock:
            if rv < self.dropped_rv:
                # Kubernetes' wording: the oldest version a watch could still start from.
                raise Expired(f"too old resource version: {rv} ({self.dropped_rv})")
            # Bisect the ring itself (its versions rise with the sequence): a
            # list of them beside it cost every write a shift of the whole list
            # once the ring was full.
            ring, capacity, base = self._ring, self.capacity, self.base
            return base + bisect.bisect_right(range(base, self.head), rv,
                                              key=lambda seq: _rv_of(ring[seq % capacity]))

    def subscribe(self, watch: Watch, start_seq: int) -> None:
        """File ``watch`` under its key and queue the retained changes from
        ``start_seq`` on (atomically: no change falls in between)."""
        with self._lock:
            if start_seq < self.base:
                raise Expired(f"too old resource version: the last {self.capacity} "
                              "events were overwritten; relist and watch again")
            if self.closed:
                watch._close()
                return
            for s in range(start_seq, self.head):
                change = self._ring[s % self.capacity]
                assert change is not None and change.seq == s
                if watch.could_match(change):
                    watch._offer(change)
            key = watch.key
            if key is None:
                self._unindexed.add(watch)
            else:
                field, value = key
                self._index.setdefault(field, {}).setdefault(value, set()).add(watch)

    def unsubscribe(self, watch: Watch) -> None:
        with self._lock:
            key = watch.key
            if key is None:
                self._unindexed.discard(watch)
                return
            field, value = key
            buckets = self._index.get(field)
            if buckets is None or watch not in buckets.get(value, ()):
                return
            buckets[value].discard(watch)
            if not buckets[value]:
                del buckets[value]
                if not buckets:
                    del self._index[field]

    def watcher_count(self) -> int:
        """Watchers currently subscribed (for tests and metrics)."""
        with self._lock:
            return len(self._unindexed) + sum(
                len(ws) for buckets in self._index.values() for ws in buckets.values())

    def close(self) -> None:
        with self._lock:
            self.closed = True
            watchers = list(self._unindexed) + [
                w for buckets in self._index.values() for ws in buckets.values() for w in ws]
            self._unindexed.clear()
            self._index.clear()
        for watch in watchers:
            watch._close()


_CONSUMERS_MADE = threading.Lock()


def _with_rv(raw: str, rv: int) -> str:
    obj = jsontext.loads(raw)
    obj.setdefault("metadata", {})["resourceVersion"] = str(rv)
    return jsontext.dumps(obj)


class Watch:
    """An open watch. Iterate it, or call :meth:`next` with a timeout.

    Iteration ends when :meth:`stop` is called or the store closes. Raises
    :class:`Expired` if more than ``limit`` events piled up unread.
    """

    def __init__(self, history: History, matches: Matcher, initial: list[WatchEvent], *,
                 key: IndexKey = None, limit: int | None = None,
                 linger: float = 0.0) -> None:
        self._history = history
        self._linger = linger
        self._matches = matches
        self.key = key
        self._limit = limit if limit is not None else history.capacity
        self._pending: list[WatchEvent] = list(reversed(initial))
        self._cond = threading.Condition(threading.Lock())
        self._changes: collections.deque[_Change] = collections.deque()
        self._overflow = False
        self._stopped = False
        self._closed = False
        #: resourceVersion of the newest change queued for this watcher.
        self.offered_rv = 0
        #: resourceVersion up to which every queued change has been handed out
        #: by :meth:`next` (or found not to match) and the reader has come back
        #: for more: a reader that handles each event before asking for the
        #: next has handled them all (see :meth:`wait_consumed`).
        self.consumed_rv = 0
        self._returned_rv = 0
        self._batch_rv = 0
        # Made on the first wait_consumed: most watches are never waited on.
        self._consumers: threading.Condition | None = None
        self._consumer_waits = 0

    def could_match(self, change: _Change) -> bool:
        """Whether ``change`` is filed under this watcher's key (old or new value)."""
        if self.key is None:
            return True
        field, value = self.key
        return change.new.fields.get(field, "") == value or (
            change.old is not None and change.old.fields.get(field, "") == value)

    def _offer(self, change: _Change, wake: set[Watch] | None = None) -> None:
        """Queue a change (called by the history, under its lock); wake the
        reader now, or add this watch to ``wake`` for the caller to wake later."""
        with self._cond:
            if self._overflow:
                return
            if len(self._changes) >= self._limit:
                self._overflow = True
                self._changes.clear()
            else:
                self._changes.append(change)
            self.offered_rv = change.new.rv
            if wake is None:
                self._cond.notify()
        if wake is not None:
            wake.add(self)

    def wake(self) -> None:
        """Wake a reader waiting for the changes queued meanwhile (the end of a
        batch of writes; see :meth:`History.append`)."""
        with self._cond:
            self._cond.notify()

    def wait_consumed(self, timeout: float) -> bool:
        """Wait until the reader has consumed (see :attr:`consumed_rv`) every
        change queued for it when called. True once so or once the watch has
        ended; False when ``timeout`` seconds ran out first. Never call it
        from the reader's own thread."""
        target = self.offered_rv
        if self.consumed_rv >= target:
            return True
        with _CONSUMERS_MADE:
            if self._consumers is None:
                self._consumers = threading.Condition(threading.Lock())
        consumers = self._consumers
        with consumers:
            self._consumer_waits += 1
            try:
                return consumers.wait_for(
                    lambda: self.consumed_rv >= target or self.stopped, timeout)
            finally:
                self._consumer_waits -= 1

    def _consumed(self, rv: int) -> None:
        if rv > self.consumed_rv:
            self.consumed_rv = rv
            self._wake_consumers()

    def _wake_consumers(self) -> None:
        consumers = self._consumers
        if consumers is not None and self._consumer_waits:
            with consumers:
                consumers.notify_all()

    @property
    def queued(self) -> int:
        """Changes the history handed to this watcher and it has not read yet."""
        with self._cond:
            return len(self._changes)

    def _close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._wake_consumers()

    def stop(self) -> None:
        """End the watch; a blocked :meth:`next` returns promptly."""
        self._stopped = True
        self._history.unsubscribe(self)
        with self._cond:
            self._cond.notify_all()
        self._wake_consumers()

    @property
    def stopped(self) -> bool:
        return self._stopped or self._closed

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __iter__(self) -> Iterator[WatchEvent]:
        while True:
            event = self.next(None)
            if event is None:
                return
            yield event

    def next(self, timeout: float | None = None) -> WatchEvent | None:
        """The next matching event; ``None`` on timeout or once stopped."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._consumed(self._returned_rv)  # the reader is back: it has handled those
        while True:
            if self._pending:
                event = self._pending.pop()
                self._returned_rv = event.resource_version if self._pending else max(
                    event.resource_version, self._batch_rv)
                return event
            with self._cond:
                while not self._changes and not self._overflow and not self.stopped:
                    if deadline is None:
                        self._cond.wait()
                    else:
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            return None
                        self._cond.wait(remaining)
                linger = self._linger if (len(self._changes) < LINGER_BATCH and
                                          not self._overflow and not self.stopped) else 0.0
            if linger > 0:
                # Outside the lock: the writes meanwhile queue without waking us.
                if deadline is not None:
                    linger = min(linger, max(0.0, deadline - time.monotonic()))
                time.sleep(linger)
            with self._cond:
                # Stopped: at once. Store closed: after what was already queued.
                if self._stopped or (self._closed and not self._changes):
                    return None
                if self._overflow:
                    raise Expired(f"watcher fell behind: more than {self._limit} events "
                                  "waited unread; relist and watch again")
                changes = list(self._changes)
                self._changes.clear()
            self._batch_rv = changes[-1].new.rv
            self._pending = self._convert(changes)
            if not self._pending:  # none matched: the reader is still here, waiting
                self._returned_rv = self._batch_rv
                self._consumed(self._batch_rv)

    def _convert(self, changes: list[_Change]) -> list[WatchEvent]:
        out: list[WatchEvent] = []
        matches = self._matches
        for ch in changes:
            new_ok = matches(ch.new)
            if ch.type == MODIFIED and ch.old is not None:
                old_ok = matches(ch.old)
                if new_ok and old_ok:
                    out.append(WatchEvent(MODIFIED, ch.new.raw, ch.new.rv, ch.new))
                elif new_ok:
                    out.append(WatchEvent(ADDED, ch.new.raw, ch.new.rv, ch.new))
                elif old_ok:
                    out.append(WatchEvent(DELETED, _with_rv(ch.old.raw, ch.new.rv), ch.new.rv))
            elif new_ok:
                out.append(WatchEvent(ch.type, ch.new.raw, ch.new.rv, ch.new))
        out.reverse()  # popped from the end
        return out
