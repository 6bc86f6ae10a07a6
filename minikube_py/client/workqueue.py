"""client-go's rate-limited work queue, for reconcile loops.

Event handlers only :meth:`~WorkQueue.add` keys (``namespace/name``); worker
threads :meth:`~WorkQueue.get` a key, reconcile it, and call
:meth:`~WorkQueue.done`. The queue promises, as client-go's does:

* **Fair**: keys come out in the order they were first added (FIFO).
* **Stingy**: a key added many times before a worker takes it is processed
  once.
* **Exclusive**: a key is never handed to two workers at once. A key added
  while it is being processed is queued again when :meth:`~WorkQueue.done`
  is called, so the change that caused the add is never lost.
* **Delayed adds**: :meth:`~WorkQueue.add_after` makes a key ready after a
  delay; a key already waiting keeps the earlier of its two ready times.
  :meth:`~WorkQueue.schedule` sets the key's ready time whether earlier or
  later than the one it had (the kubelet's pod work queue, whose ``Enqueue``
  overwrites: a pod's next resync counts from its latest sync).
* **Rate-limited retries**: :meth:`~WorkQueue.add_rate_limited` delays a key
  by its :class:`RateLimiter`; :func:`default_controller_rate_limiter` is
  client-go's ``DefaultControllerRateLimiter``: the maximum of a per-item
  exponential backoff (5 ms doubling up to 1000 s) and an overall token
  bucket (10 per second, burst 100). :meth:`~WorkQueue.forget` ends a key's
  backoff once it reconciled; :meth:`~WorkQueue.num_requeues` tells how often
  it was retried.
* **Shut down**: after :meth:`~WorkQueue.shut_down`, :meth:`~WorkQueue.get`
  returns ``None`` at once (queued keys are dropped, unlike client-go, which
  drains them: a stopping component should not start new work) and adds are
  ignored.

Waiting is on a condition variable, never a sleep-poll: a worker blocked in
:meth:`~WorkQueue.get` wakes when a key is added or when the earliest delayed
key falls due. Only one waiting worker keeps time for the delayed keys (as
client-go's delaying queue has one waiting loop); the others sleep until a key
is queued, and a worker that takes a key passes the time-keeping (or the next
queued key) on to a sleeper. So a key falling due wakes about two threads,
not every idle worker, and a delayed add wakes a sleeper only when it is due
before the time kept (100,000 hollow pods resync every 10-15 minutes: about
150 keys a second fall due and are added again). The clock is injectable
(``clock``, monotonic seconds); with a fake clock, advance it and call
:meth:`~WorkQueue.get` with a timeout (or :meth:`~WorkQueue.wake`) to let due
keys through.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar

__all__ = [
    "BucketRateLimiter",
    "ItemExponentialFailureRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "WorkQueue",
    "default_controller_rate_limiter",
]

K = TypeVar("K", bound=Hashable)
Clock = Callable[[], float]


# --------------------------------------------------------------- rate limiters


class RateLimiter(Protocol):
    """How long a key waits before its next retry (client-go's ``RateLimiter``)."""

    def when(self, key: Hashable) -> float:
        """Seconds to wait before retrying ``key``; counts as one retry."""
        ...

    def forget(self, key: Hashable) -> None:
        """Stop tracking ``key`` (it succeeded)."""
        ...

    def num_requeues(self, key: Hashable) -> int: ...


class ItemExponentialFailureRateLimiter:
    """``base * 2**failures`` per key, capped at ``cap`` seconds."""

    def __init__(self, base: float = 0.005, cap: float = 1000.0) -> None:
        self.base = base
        self.cap = cap
        self._lock = threading.Lock()
        self._failures: dict[Hashable, int] = {}

    def when(self, key: Hashable) -> float:
        with self._lock:
            exp = self._failures.get(key, 0)
            self._failures[key] = exp + 1
        if exp >= 64:  # 2**64 * base overflows any sensible cap; skip the float maths
            return self.cap
        return min(self.base * float(2 ** exp), self.cap)

    def forget(self, key: Hashable) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def num_requeues(self, key: Hashable) -> int:
        with self._lock:
            return self._failures.get(key, 0)


class BucketRateLimiter:
    """An overall token bucket (``golang.org/x/time/rate`` reservations).

    The bucket starts full with ``burst`` tokens and refills at ``qps``; each
    :meth:`when` takes a token, possibly going into debt, and the debt divided
    by ``qps`` is the wait. It tracks no keys, so :meth:`forget` does nothing.
    """

    def __init__(self, qps: float = 10.0, burst: int = 100, *,
                 clock: Clock = time.monotonic) -> None:
        self.qps = qps
        self.burst = burst
        self._clock = clock
        self._lock = threading.Lock()
        self._tokens = float(burst)
        self._last = clock()

    def _refill(self) -> None:
        now = self._clock()
        elapsed = max(0.0, now - self._last)
        self._tokens = min(float(self.burst), self._tokens + elapsed * self.qps)
        self._last = now

    def when(self, key: Hashable) -> float:
        with self._lock:
            self._refill()
            self._tokens -= 1
            return 0.0 if self._tokens >= 0 else -self._tokens / self.qps

    def allow(self) -> bool:
        """Take a token if one is there now (``rate.Limiter.Allow``): never
        goes into debt; False means try again later."""
        with self._lock:
            self._refill()
            if self._tokens < 1:
                return False
            self._tokens -= 1
            return True

    def forget(self, key: Hashable) -> None:
        return None

    def num_requeues(self, key: Hashable) -> int:
        return 0


class MaxOfRateLimiter:
    """The longest wait of several limiters (every limiter sees every call)."""

    def __init__(self, *limiters: RateLimiter) -> None:
        if not limiters:
            raise ValueError("MaxOfRateLimiter needs at least one limiter")
        self.limiters = limiters

    def when(self, key: Hashable) -> float:
        return max([limiter.when(key) for limiter in self.limiters])

    def forget(self, key: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(key)

    def num_requeues(self, key: Hashable) -> int:
        return max(limiter.num_requeues(key) for limiter in self.limiters)


def default_controller_rate_limiter(*, clock: Clock = time.monotonic) -> MaxOfRateLimiter:
    """client-go's ``DefaultControllerRateLimiter``: per-item 5 ms..1000 s
    exponential backoff, and 10 qps / burst 100 overall."""
    return MaxOfRateLimiter(ItemExponentialFailureRateLimiter(0.005, 1000.0),
                            BucketRateLimiter(10.0, 100, clock=clock))


# --------------------------------------------------------------- the queue


class WorkQueue(Generic[K]):
    """A fair, stingy, exclusive, delaying, rate-limited queue of keys."""

    def __init__(self, rate_limiter: RateLimiter | None = None, *,
                 clock: Clock = time.monotonic, name: str = "") -> None:
        self.name = name
        self._clock = clock
        self._rate_limiter: RateLimiter = (rate_limiter if rate_limiter is not None
                                           else default_controller_rate_limiter(clock=clock))
        self._cond = threading.Condition()
        self._queue: collections.deque[K] = collections.deque()
        self._dirty: set[K] = set()
        self._processing: set[K] = set()
        # Delayed keys: a heap of (ready_at, seq, key); ``_waiting`` holds the
        # live ready time per key, so superseded heap entries are skipped.
        self._heap: list[tuple[float, int, K]] = []
        self._waiting: dict[K, float] = {}
        self._seq = itertools.count()
        self._shutting_down = False
        # Threads waiting in get(), and whether one of them waits for the
        # earliest delayed key (until ``_keeper_until``, on the queue's clock).
        self._sleepers = 0
        self._keeper = False
        self._keeper_until = 0.0

    # ------------------------------------------------------------------ adds

    def add(self, key: K) -> None:
        """Queue ``key`` unless it is already queued; see the module contract."""
        with self._cond:
            self._add_locked(key)

    def _add_locked(self, key: K) -> None:
        if self._enqueue_locked(key):
            self._cond.notify()

    def _enqueue_locked(self, key: K) -> bool:
        """Queue ``key`` (see :meth:`add`); whether it joined the queue."""
        if self._shutting_down or key in self._dirty:
            return False
        self._dirty.add(key)
        if key in self._processing:
            return False  # re-queued by done()
        self._queue.append(key)
        return True

    def add_after(self, key: K, delay: float) -> None:
        """Queue ``key`` once ``delay`` seconds have passed."""
        with self._cond:
            if self._shutting_down:
                return
            if delay <= 0:
                self._add_locked(key)
                return
            ready_at = self._clock() + delay
            current = self._waiting.get(key)
            if current is not None and current <= ready_at:
                return
            self._waiting[key] = ready_at
            heapq.heappush(self._heap, (ready_at, next(self._seq), key))
            if self._keeper:
                if ready_at < self._keeper_until:
                    # Due before the time kept: the keeper must wait less (and
                    # only a broadcast is sure to reach it).
                    self._cond.notify_all()
            elif self._sleepers:
                self._cond.notify()  # a sleeper takes up the time-keeping

    def schedule(self, key: K, delay: float) -> None:
        """Queue ``key`` once ``delay`` seconds have passed, in place of any
        ready time it already waits for, earlier or later. A key queued now
        stays queued."""
        with self._cond:
            if self._shutting_down:
                return
            if delay <= 0:
                self._waiting.pop(key, None)
                self._add_locked(key)
                return
            current = self._waiting.get(key)
            ready_at = self._clock() + delay
            if current is not None and current <= ready_at:
                # Later: its heap entry stays where it is and, when it comes
                # up, is moved to the new time (one entry per key, however
                # often the key is put off).
                self._waiting[key] = ready_at
                return
            self.add_after(key, delay)  # earlier, or not waiting (the lock is reentrant)

    def add_rate_limited(self, key: K) -> None:
        """Queue ``key`` after the rate limiter's delay (a retry)."""
        self.add_after(key, self._rate_limiter.when(key))

    def forget(self, key: K) -> None:
        """Reset ``key``'s retry backoff (call after a successful reconcile)."""
        self._rate_limiter.forget(key)

    def num_requeues(self, key: K) -> int:
        return self._rate_limiter.num_requeues(key)

    # ------------------------------------------------------------------ take

    def _promote_due_locked(self) -> float | None:
        """Move due delayed keys into the queue (the caller wakes whoever is
        needed for them); seconds until the next one."""
        now = self._clock()
        while self._heap:
            ready_at, _, key = self._heap[0]
            due = self._waiting.get(key)
            if due != ready_at:
                heapq.heappop(self._heap)
                if due is not None and due > ready_at:  # put off by schedule()
                    heapq.heappush(self._heap, (due, next(self._seq), key))
                continue  # else superseded by an earlier ready time, or fired
            if ready_at > now:
                return ready_at - now
            heapq.heappop(self._heap)
            del self._waiting[key]
            self._enqueue_locked(key)
        return None

    def _pass_on_locked(self, next_due: float | None) -> None:
        """A worker leaves get(): wake one sleeper if a key is still queued or
        nobody keeps time for the delayed keys."""
        if self._sleepers and (self._queue or (next_due is not None and not self._keeper)):
            self._cond.notify()

    def get(self, timeout: float | None = None) -> K | None:
        """The next key, blocking until one is ready.

        Returns ``None`` once shut down, or when ``timeout`` seconds pass
        without a key. The caller must call :meth:`done` with the key.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                if self._shutting_down:
                    return None
                next_due = self._promote_due_locked()
                if self._queue:
                    key = self._queue.popleft()
                    self._processing.add(key)
                    self._dirty.discard(key)
                    self._pass_on_locked(next_due)
                    return key
                keeper = next_due is not None and not self._keeper
                wait = next_due if keeper else None
                if deadline is not None:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        self._pass_on_locked(next_due)
                        return None
                    wait = remaining if wait is None else min(wait, remaining)
                if keeper:
                    assert wait is not None
                    self._keeper = True
                    self._keeper_until = self._clock() + wait
                self._sleepers += 1
                try:
                    self._cond.wait(wait)
                finally:
                    self._sleepers -= 1
                    if keeper:
                        self._keeper = False

    def done(self, key: K) -> None:
        """Mark ``key`` processed; re-queue it if it was added meanwhile."""
        with self._cond:
            self._processing.discard(key)
            if key in self._dirty and not self._shutting_down:
                self._queue.append(key)
                self._cond.notify()

    # ------------------------------------------------------------------ lifecycle

    def wake(self) -> None:
        """Wake waiting workers so they re-check delayed keys (for fake clocks)."""
        with self._cond:
            self._cond.notify_all()

    def shut_down(self) -> None:
        """Stop handing out keys: every :meth:`get` returns ``None`` from now on."""
        with self._cond:
            self._shutting_down = True
            self._queue.clear()
            self._dirty.clear()
            self._heap.clear()
            self._waiting.clear()
            self._cond.notify_all()

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    def __len__(self) -> int:
        """Keys ready to be taken (not counting delayed or in-process ones)."""
        with self._cond:
            return len(self._queue)

    def waiting(self) -> int:
        """Keys waiting for their delay to pass."""
        with self._cond:
            return len(self._waiting)

    def processing(self) -> int:
        with self._cond:
            return len(self._processing)
