"""Watch: a bounded per-resource event history and the watchers that read it.

Design (why it is shaped like this):

* One ring buffer of events per resource, shared by all its watchers. A write
  costs one append and one ``notify_all`` whatever the number of watchers, and
  memory is bounded by the ring size, not by the slowest watcher.
* Each watcher keeps only a cursor (a sequence number) and filters events
  itself. A watcher that falls more than the ring size behind gets
  :class:`~minikube_py.api.errors.Expired` and must relist, as with
  Kubernetes' "too old resource version".
* Waiting is a condition variable: no polling, so an idle control plane
  sleeps.
* Events carry the object's JSON text; ``WatchEvent.object`` decodes it lazily
  (a fresh dict each time, so consumers can never alter the store), and the API
  server can stream ``raw`` without re-encoding.

Selector transitions follow Kubernetes' watch cache: an update that makes an
object start matching is delivered as ADDED, one that makes it stop matching as
DELETED (carrying the previous state with the new resourceVersion).
"""

from __future__ import annotations

import bisect
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..api.errors import Expired

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"


@dataclass(frozen=True, slots=True)
class Entry:
    """One immutable stored version of an object, with what selectors need."""

    raw: str
    rv: int
    namespace: str
    name: str
    labels: Mapping[str, str]
    fields: Mapping[str, str]


class WatchEvent:
    """A delivered watch event. ``object`` is a fresh dict on each access."""

    __slots__ = ("raw", "resource_version", "type")

    def __init__(self, type: str, raw: str, resource_version: int) -> None:
        self.type = type
        self.raw = raw
        self.resource_version = resource_version

    @property
    def object(self) -> dict[str, Any]:
        obj: dict[str, Any] = json.loads(self.raw)
        return obj

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


class History:
    """The ring of recent changes of one resource. Appended under the store lock."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("history capacity must be >= 1")
        self.capacity = capacity
        self._ring: list[_Change | None] = [None] * capacity
        self._rvs: list[int] = []  # rv per retained seq, for bisecting a start point
        self.head = 0  # next sequence number
        self.dropped_rv = 0  # rv of the newest event that fell off the ring
        self.cond = threading.Condition(threading.Lock())
        self.closed = False

    @property
    def base(self) -> int:
        """Oldest sequence number still retained."""
        return max(0, self.head - self.capacity)

    def append(self, type: str, new: Entry, old: Entry | None) -> None:
        with self.cond:
            seq = self.head
            slot = seq % self.capacity
            evicted = self._ring[slot]
            if evicted is not None:
                self.dropped_rv = evicted.new.rv
                del self._rvs[0]
            self._ring[slot] = _Change(seq, type, new, old)
            self._rvs.append(new.rv)
            self.head = seq + 1
            self.cond.notify_all()

    def start_after(self, rv: int, resource: str) -> int:
        """The first sequence number whose event is newer than ``rv``.

        Raises Expired when events newer than ``rv`` have already been dropped.
        """
        with self.cond:
            if rv < self.dropped_rv:
                # Kubernetes' wording: the oldest version a watch could still start from.
                raise Expired(f"too old resource version: {rv} ({self.dropped_rv})")
            return self.base + bisect.bisect_right(self._rvs, rv)

    def read(self, seq: int, limit: int = 512) -> list[_Change]:
        """Changes from ``seq`` on (caller holds ``cond``)."""
        if seq < self.base:
            raise Expired(f"watcher fell behind: the last {self.capacity} events were "
                          "overwritten before it read them; relist and watch again")
        out: list[_Change] = []
        end = min(self.head, seq + limit)
        for s in range(seq, end):
            change = self._ring[s % self.capacity]
            assert change is not None and change.seq == s
            out.append(change)
        return out

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()


def _with_rv(raw: str, rv: int) -> str:
    obj = json.loads(raw)
    obj.setdefault("metadata", {})["resourceVersion"] = str(rv)
    return json.dumps(obj, separators=(",", ":"))


class Watch:
    """An open watch. Iterate it, or call :meth:`next` with a timeout.

    Iteration ends when :meth:`stop` is called or the store closes. Raises
    :class:`Expired` if the watcher falls behind the retained history.
    """

    def __init__(self, history: History, start_seq: int, matches: Matcher,
                 initial: list[WatchEvent]) -> None:
        self._history = history
        self._seq = start_seq
        self._matches = matches
        self._pending: list[WatchEvent] = list(reversed(initial))
        self._stopped = False

    def stop(self) -> None:
        """End the watch; a blocked :meth:`next` returns promptly."""
        self._stopped = True
        with self._history.cond:
            self._history.cond.notify_all()

    @property
    def stopped(self) -> bool:
        return self._stopped or self._history.closed

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
        while True:
            if self._pending:
                return self._pending.pop()
            if self.stopped:
                return None
            hist = self._history
            with hist.cond:
                while self._seq >= hist.head and not self._stopped and not hist.closed:
                    if deadline is None:
                        hist.cond.wait()
                    else:
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            return None
                        hist.cond.wait(remaining)
                if self._stopped or hist.closed:
                    return None
                changes = hist.read(self._seq)
            self._seq = changes[-1].seq + 1
            self._pending = self._convert(changes)

    def _convert(self, changes: list[_Change]) -> list[WatchEvent]:
        out: list[WatchEvent] = []
        matches = self._matches
        for ch in changes:
            new_ok = matches(ch.new)
            if ch.type == MODIFIED and ch.old is not None:
                old_ok = matches(ch.old)
                if new_ok and old_ok:
                    out.append(WatchEvent(MODIFIED, ch.new.raw, ch.new.rv))
                elif new_ok:
                    out.append(WatchEvent(ADDED, ch.new.raw, ch.new.rv))
                elif old_ok:
                    out.append(WatchEvent(DELETED, _with_rv(ch.old.raw, ch.new.rv), ch.new.rv))
            elif new_ok:
                out.append(WatchEvent(ch.type, ch.new.raw, ch.new.rv))
        out.reverse()  # popped from the end
        return out
