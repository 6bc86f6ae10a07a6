"""The scheduling queue, shaped like kube-scheduler's PriorityQueue.

Three places a pending pod can be:

* **activeQ**: ready to be tried, ordered by priority (highest first), then by
  when it entered the queue (oldest first).
* **backoffQ**: failed recently; waits ``min(initial * 2**(attempts-1), max)``
  (1 s doubling to 10 s by default) before going back to activeQ.
* **unschedulable**: no node could take it; it stays parked until a cluster
  event that might help (a node added, updated or uncordoned, a pod deleted or
  finished) moves it back, or for at most ``unschedulable_timeout`` (5 min).

A pod that failed while a move event happened during its own scheduling cycle
goes to backoffQ rather than unschedulable, so the event is not lost (what
kube-scheduler tracks with its "moveRequestCycle").

Thread-safe; :meth:`pop` blocks on a condition variable, waking exactly when
the next backoff or the unschedulable timeout expires — no polling.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Pod = dict[str, Any]


def pod_key(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def pod_priority(pod: Mapping[str, Any]) -> int:
    return int((pod.get("spec") or {}).get("priority") or 0)


@dataclass
class QueuedPod:
    """A pod in the queue with its scheduling history."""

    pod: Pod
    key: str
    added_at: float
    attempts: int = 0
    backoff_until: float = 0.0
    unschedulable_since: float = 0.0
    last_failure: str = ""
    unschedulable_plugins: frozenset[str] = frozenset()
    #: The queue's move counter when this attempt started (see module docstring).
    cycle_move_count: int = 0

    @property
    def priority(self) -> int:
        return pod_priority(self.pod)


@dataclass(order=True)
class _Entry:
    sort: tuple[Any, ...]
    key: str = field(compare=False)


class SchedulingQueue:
    """Active, backoff and unschedulable pods (see the module contract)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic,
                 initial_backoff: float = 1.0, max_backoff: float = 10.0,
                 unschedulable_timeout: float = 300.0) -> None:
        self._clock = clock
        self._initial = initial_backoff
        self._max = max_backoff
        self._unschedulable_timeout = unschedulable_timeout
        self._cond = threading.Condition()
        self._pods: dict[str, QueuedPod] = {}      # every pod known to the queue
        self._active: list[_Entry] = []            # heap; stale entries skipped
        self._in_active: set[str] = set()
        self._backoff: list[_Entry] = []           # heap by backoff_until
        self._in_backoff: set[str] = set()
        self._unschedulable: dict[str, QueuedPod] = {}
        self._in_flight: dict[str, QueuedPod] = {}
        self._seq = itertools.count()
        self._moves = 0
        self._closed = False

    # ------------------------------------------------------------------ adding

    def add(self, pod: Pod) -> None:
        """A new pending pod (or one seen again after a relist)."""
        key = pod_key(pod)
        with self._cond:
            existing = self._pods.get(key)
            if existing is not None:
                existing.pod = pod
                return
            qp = QueuedPod(pod, key, self._clock())
            self._pods[key] = qp
            self._push_active(qp)

    def update(self, pod: Pod) -> None:
        """The pod changed; a change may make it schedulable, so it is retried
        (after its backoff) if it was parked as unschedulable."""
        key = pod_key(pod)
        with self._cond:
            qp = self._pods.get(key) or self._in_flight.get(key)
            if qp is None:
                self.add(pod)
                return
            qp.pod = pod
            if key in self._unschedulable:
                del self._unschedulable[key]
                self._requeue(qp)
            elif key in self._in_active:
                self._push_active(qp)  # priority may have changed; stale entry skipped

    def delete(self, pod_or_key: Pod | str) -> None:
        key = pod_or_key if isinstance(pod_or_key, str) else pod_key(pod_or_key)
        with self._cond:
            self._pods.pop(key, None)
            self._in_active.discard(key)
            self._in_backoff.discard(key)
            self._unschedulable.pop(key, None)
            self._in_flight.pop(key, None)

    def __contains__(self, key: str) -> bool:
        with self._cond:
            return key in self._pods or key in self._in_flight

    def _push_active(self, qp: QueuedPod) -> None:
        heapq.heappush(self._active, _Entry((-qp.priority, qp.added_at, next(self._seq)),
                                            qp.key))
        self._in_active.add(qp.key)
        self._cond.notify()

    def _push_backoff(self, qp: QueuedPod) -> None:
        heapq.heappush(self._backoff, _Entry((qp.backoff_until, next(self._seq)), qp.key))
        self._in_backoff.add(qp.key)
        self._cond.notify()

    def _requeue(self, qp: QueuedPod) -> None:
        """Back to activeQ, or backoffQ while its backoff has not expired."""
        if qp.backoff_until > self._clock():
            self._push_backoff(qp)
        else:
            self._push_active(qp)

    # ------------------------------------------------------------------ popping

    def pop(self, timeout: float | None = None) -> QueuedPod | None:
        """The next pod to schedule; blocks until one is ready, ``timeout`` passes
        or the queue closes (then None)."""
        deadline = None if timeout is None else self._clock() + timeout
        with self._cond:
            while not self._closed:
                self._flush()
                while self._active:
                    entry = heapq.heappop(self._active)
                    qp = self._pods.get(entry.key)
                    if qp is None or entry.key not in self._in_active:
                        continue  # deleted or already popped: stale entry
                    if entry.sort[0] != -qp.priority:
                        continue  # re-pushed with a new priority: stale entry
                    self._in_active.discard(entry.key)
                    del self._pods[entry.key]
                    qp.attempts += 1
                    qp.cycle_move_count = self._moves
                    self._in_flight[entry.key] = qp
                    return qp
                wait = self._next_wakeup()
                if deadline is not None:
                    remaining = deadline - self._clock()
                    if remaining <= 0:
                        return None
                    wait = remaining if wait is None else min(wait, remaining)
                self._cond.wait(wait)
            return None

    def _next_wakeup(self) -> float | None:
        now = self._clock()
        times = []
        if self._backoff:
            times.append(self._backoff[0].sort[0] - now)
        if self._unschedulable:
            oldest = min(qp.unschedulable_since for qp in self._unschedulable.values())
            times.append(oldest + self._unschedulable_timeout - now)
        return max(0.0, min(times)) if times else None

    def _flush(self) -> None:
        now = self._clock()
        while self._backoff and self._backoff[0].sort[0] <= now:
            entry = heapq.heappop(self._backoff)
            if entry.key in self._in_backoff:
                self._in_backoff.discard(entry.key)
                qp = self._pods.get(entry.key)
                if qp is not None:
                    self._push_active(qp)
        expired = [qp for qp in self._unschedulable.values()
                   if now - qp.unschedulable_since >= self._unschedulable_timeout]
        for qp in expired:
            del self._unschedulable[qp.key]
            self._requeue(qp)

    # ------------------------------------------------------------------ results

    def _backoff_for(self, attempts: int) -> float:
        return float(min(self._initial * 2.0 ** max(0, attempts - 1), self._max))

    def done(self, qp: QueuedPod) -> None:
        """The attempt ended with the pod assumed on a node: forget it."""
        with self._cond:
            self._in_flight.pop(qp.key, None)

    def add_unschedulable(self, qp: QueuedPod, message: str,
                          plugins: frozenset[str] = frozenset()) -> None:
        """No node fits: park it (or back it off if a move happened meanwhile)."""
        with self._cond:
            if self._in_flight.pop(qp.key, None) is None:
                return  # deleted while being scheduled
            now = self._clock()
            qp.last_failure = message
            qp.unschedulable_plugins = plugins
            qp.backoff_until = now + self._backoff_for(qp.attempts)
            self._pods[qp.key] = qp
            if self._moves != qp.cycle_move_count:
                self._push_backoff(qp)
            else:
                qp.unschedulable_since = now
                self._unschedulable[qp.key] = qp

    def add_backoff(self, qp: QueuedPod, message: str) -> None:
        """An error (e.g. a failed bind): retry after the pod's backoff."""
        with self._cond:
            self._in_flight.pop(qp.key, None)
            qp.last_failure = message
            qp.backoff_until = self._clock() + self._backoff_for(qp.attempts)
            self._pods[qp.key] = qp
            self._push_backoff(qp)

    def move_all(self, event: str) -> int:
        """A cluster event that may help: every unschedulable pod goes back to
        backoffQ or activeQ. Returns how many moved."""
        with self._cond:
            self._moves += 1
            moved = list(self._unschedulable.values())
            self._unschedulable.clear()
            for qp in moved:
                self._requeue(qp)
            return len(moved)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    # ------------------------------------------------------------------ views

    def pending(self) -> dict[str, list[dict[str, Any]]]:
        """What the dashboard shows: each pod's place, attempts, retry time, failure."""
        with self._cond:
            now = self._clock()

            def info(qp: QueuedPod) -> dict[str, Any]:
                return {"pod": qp.key, "priority": qp.priority, "attempts": qp.attempts,
                        "lastFailure": qp.last_failure,
                        "retryInSeconds": round(max(0.0, qp.backoff_until - now), 3)}

            return {
                "active": [info(self._pods[k]) for k in sorted(self._in_active)
                           if k in self._pods],
                "backoff": [info(self._pods[k]) for k in sorted(self._in_backoff)
                            if k in self._pods],
                "unschedulable": [info(qp) for qp in sorted(self._unschedulable.values(),
                                                            key=lambda q: q.key)],
                "inFlight": [info(qp) for qp in self._in_flight.values()],
            }

    def __len__(self) -> int:
        with self._cond:
            return len(self._pods)
