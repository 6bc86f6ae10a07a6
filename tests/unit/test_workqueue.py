"""The work queue: fair, stingy, exclusive, delaying, rate-limited (client-go's)."""

from __future__ import annotations

import threading
import time

import pytest

from minikube_py.client.workqueue import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    WorkQueue,
    default_controller_rate_limiter,
)
from tests.clock import FakeClock
from tests.waiting import blocked_in, wait_for


def drain(q: WorkQueue[str]) -> list[str]:
    out = []
    while (key := q.get(timeout=0)) is not None:
        out.append(key)
        q.done(key)
    return out


# ------------------------------------------------------------------ basic semantics


@pytest.mark.parametrize(("adds", "expected"), [
    (["a", "b", "c"], ["a", "b", "c"]),              # fair: FIFO
    (["a", "b", "a", "a", "c", "b"], ["a", "b", "c"]),  # stingy: first position kept
    ([], []),
])
def test_fifo_and_deduplication(adds, expected):
    q: WorkQueue[str] = WorkQueue()
    for key in adds:
        q.add(key)
    assert len(q) == len(expected)
    assert drain(q) == expected


def test_add_while_processing_is_processed_again_after_done():
    q: WorkQueue[str] = WorkQueue()
    q.add("a")
    assert q.get(timeout=0) == "a"
    q.add("a")
    q.add("a")
    assert q.get(timeout=0) is None  # never handed out twice at once
    q.done("a")
    assert q.get(timeout=0) == "a"   # ... but once more, after done()
    q.done("a")
    assert q.get(timeout=0) is None


def test_get_blocks_until_add_wakes_it():
    q: WorkQueue[str] = WorkQueue()
    got: list[str | None] = []
    t = threading.Thread(target=lambda: got.append(q.get(timeout=5)))
    t.start()
    wait_for(lambda: blocked_in(t, WorkQueue.get), "the getter to block", timeout=5)
    q.add("x")
    t.join(5)
    assert got == ["x"]


def test_get_times_out():
    q: WorkQueue[str] = WorkQueue()
    started = time.monotonic()
    assert q.get(timeout=0.05) is None
    assert time.monotonic() - started >= 0.04


def test_shut_down_releases_blocked_getters_and_ignores_adds():
    q: WorkQueue[str] = WorkQueue()
    results: list[str | None] = []
    threads = [threading.Thread(target=lambda: results.append(q.get())) for _ in range(3)]
    for t in threads:
        t.start()
    wait_for(lambda: all(blocked_in(t, WorkQueue.get) for t in threads),
             "the three getters to block", timeout=5)
    q.shut_down()
    for t in threads:
        t.join(2)
    assert results == [None, None, None]
    q.add("late")
    assert q.get(timeout=0) is None
    assert q.shutting_down


# ------------------------------------------------------------------ delays


def test_add_after_with_fake_clock():
    clock = FakeClock(1000.0)
    q: WorkQueue[str] = WorkQueue(clock=clock)
    q.add_after("a", 10)
    q.add_after("b", 5)
    q.add_after("now", 0)
    assert drain(q) == ["now"]
    assert q.waiting() == 2
    clock.advance(5)
    assert drain(q) == ["b"]
    clock.advance(5)
    assert drain(q) == ["a"]
    assert q.waiting() == 0


def test_add_after_keeps_the_earlier_ready_time():
    clock = FakeClock(1000.0)
    q: WorkQueue[str] = WorkQueue(clock=clock)
    q.add_after("a", 10)
    q.add_after("a", 2)
    q.add_after("a", 30)
    clock.advance(2)
    assert drain(q) == ["a"]
    clock.advance(100)
    assert drain(q) == []  # the later schedules were folded into the earlier one


@pytest.mark.parametrize("steps, due", [
    # (clock advance, verb, delay) in order; then when "a" falls due (clock offsets).
    ([(0, "schedule", 10)], [10]),
    ([(0, "schedule", 10), (0, "schedule", 30)], [30]),          # put off
    ([(0, "schedule", 30), (0, "schedule", 5)], [5]),            # brought forward
    ([(0, "schedule", 10), (8, "schedule", 10)], [18]),          # counts from the latest
    ([(0, "add_after", 10), (0, "schedule", 30)], [30]),         # replaces add_after's
    ([(0, "schedule", 30), (0, "add_after", 10)], [10]),         # add_after: the earlier
    ([(0, "schedule", 10), (0, "schedule", 0)], [0]),            # now
    ([(0, "schedule", 10), (1, "schedule", 30), (1, "schedule", 40), (1, "schedule", 5)],
     [8]),
])
def test_schedule_sets_the_ready_time_earlier_or_later(steps, due):
    clock = FakeClock(1000.0)
    q: WorkQueue[str] = WorkQueue(clock=clock)
    start = clock()
    for advance, verb, delay in steps:
        clock.advance(advance)
        assert drain(q) == []
        getattr(q, verb)("a", delay)
    fired: list[float] = []
    while clock() - start <= 100:
        if drain(q):
            fired.append(clock() - start)
        clock.advance(1)
    assert fired == due
    assert q.waiting() == 0
    assert q._heap == []  # every entry, moved or superseded, was let go


def test_a_key_put_off_many_times_keeps_one_heap_entry():
    clock = FakeClock(1000.0)
    q: WorkQueue[str] = WorkQueue(clock=clock)
    for i in range(1000):
        q.schedule("a", 10 + i)
    assert len(q._heap) == 1
    clock.advance(10)
    assert drain(q) == []  # moved to its latest time, still one entry
    assert len(q._heap) == 1
    clock.advance(999)
    assert drain(q) == ["a"]


def test_delayed_key_already_queued_is_not_duplicated():
    clock = FakeClock(1000.0)
    q: WorkQueue[str] = WorkQueue(clock=clock)
    q.add("a")
    q.add_after("a", 1)
    clock.advance(1)
    assert drain(q) == ["a"]


def test_blocked_get_wakes_when_delay_passes_real_clock():
    q: WorkQueue[str] = WorkQueue()
    q.add_after("a", 0.05)
    started = time.monotonic()
    assert q.get(timeout=5) == "a"
    assert 0.04 <= time.monotonic() - started < 2


def test_shorter_add_after_wakes_a_sleeping_getter():
    q: WorkQueue[str] = WorkQueue()
    q.add_after("slow", 60)
    got: list[str | None] = []
    t = threading.Thread(target=lambda: got.append(q.get(timeout=5)))
    t.start()
    # Asleep until "slow" (or its timeout): only the shorter add can wake it in time.
    wait_for(lambda: blocked_in(t, WorkQueue.get), "the getter to sleep", timeout=5)
    q.add_after("fast", 0.05)
    t.join(5)
    assert got == ["fast"]


def _counting_wakes(q: WorkQueue[str]) -> list[int]:
    """Record every return from a wait on ``q``'s condition (a thread woken)."""
    woken: list[int] = []
    real = q._cond.wait

    def wait(timeout: float | None = None) -> bool:
        got = real(timeout)
        woken.append(threading.get_ident())
        return got
    q._cond.wait = wait  # type: ignore[method-assign]
    return woken


def _workers(q: WorkQueue[str], n: int, seen: list[tuple[str, float]]) -> list[threading.Thread]:
    def work() -> None:
        while (key := q.get()) is not None:
            seen.append((key, time.monotonic()))
            q.done(key)
    threads = [threading.Thread(target=work, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    wait_for(lambda: q._sleepers == n, "every worker asleep", timeout=5)
    return threads


def test_delayed_keys_falling_due_wake_about_two_workers_each_not_all():
    """Idle workers must not all wake for each delayed key (100,000 hollow pods
    resync every 10-15 minutes): one keeps time, the one that takes the key
    hands the time-keeping on. Each key still comes out once, not before its time."""
    q: WorkQueue[str] = WorkQueue()
    woken = _counting_wakes(q)
    seen: list[tuple[str, float]] = []
    threads = _workers(q, 4, seen)
    start = time.monotonic()
    keys = {f"k{i}": 0.05 * (i + 1) for i in range(12)}
    for key, delay in keys.items():
        q.add_after(key, delay)
    wait_for(lambda: len(seen) == len(keys), "every key processed", timeout=10)
    q.shut_down()
    for t in threads:
        t.join(5)
    assert sorted(k for k, _ in seen) == sorted(keys)
    for key, at in seen:
        assert at - start >= keys[key] - 0.01, key
    before_shutdown = len(woken) - 4  # shut_down wakes each worker once more
    assert before_shutdown <= 3 * len(keys), before_shutdown  # about 2 a key; 4 without


def test_a_delayed_add_due_after_the_time_kept_wakes_nobody():
    q: WorkQueue[str] = WorkQueue()
    woken = _counting_wakes(q)
    seen: list[tuple[str, float]] = []
    threads = _workers(q, 3, seen)
    q.add_after("first", 30)  # one sleeper starts keeping time for it
    wait_for(lambda: q._keeper, "a time-keeper", timeout=5)
    settled = len(woken)
    for i in range(20):
        q.add_after(f"later-{i}", 60 + i)
    q.add("now")  # a queued key still wakes a worker at once
    wait_for(lambda: [k for k, _ in seen] == ["now"], "the queued key", timeout=5)
    assert len(woken) - settled <= 2, woken[settled:]
    q.add_after("sooner", 0.05)  # due before the time kept: the keeper wakes for it
    wait_for(lambda: [k for k, _ in seen] == ["now", "sooner"], "the sooner key", timeout=5)
    q.shut_down()
    for t in threads:
        t.join(5)


# ------------------------------------------------------------------ rate limiting


def test_item_exponential_backoff_table():
    limiter = ItemExponentialFailureRateLimiter(0.005, 1000.0)
    delays = [limiter.when("k") for _ in range(6)]
    assert delays == pytest.approx([0.005, 0.01, 0.02, 0.04, 0.08, 0.16])
    assert limiter.num_requeues("k") == 6
    assert limiter.when("other") == pytest.approx(0.005)  # per item
    for _ in range(40):
        last = limiter.when("k")
    assert last == 1000.0  # capped
    limiter.forget("k")
    assert limiter.num_requeues("k") == 0
    assert limiter.when("k") == pytest.approx(0.005)


def test_bucket_rate_limiter_burst_then_qps():
    clock = FakeClock(1000.0)
    bucket = BucketRateLimiter(10.0, 100, clock=clock)
    assert [bucket.when(i) for i in range(100)] == [0.0] * 100
    assert bucket.when("101") == pytest.approx(0.1)
    assert bucket.when("102") == pytest.approx(0.2)
    clock.advance(0.2)  # the debt is repaid, not refilled beyond it
    assert bucket.when("103") == pytest.approx(0.1)
    clock.advance(100)
    assert bucket.when("104") == 0.0


def test_default_controller_rate_limiter_is_max_of_both():
    clock = FakeClock(1000.0)
    limiter = default_controller_rate_limiter(clock=clock)
    assert isinstance(limiter, MaxOfRateLimiter)
    assert limiter.when("a") == pytest.approx(0.005)
    assert limiter.when("a") == pytest.approx(0.01)
    for i in range(98):
        limiter.when(f"x{i}")
    # Bucket exhausted: the overall 10 qps dominates the 5 ms item backoff.
    assert limiter.when("b") == pytest.approx(0.1)
    assert limiter.num_requeues("a") == 2
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0


def test_add_rate_limited_forget_and_num_requeues():
    clock = FakeClock(1000.0)
    q: WorkQueue[str] = WorkQueue(ItemExponentialFailureRateLimiter(1.0, 60.0), clock=clock)
    q.add_rate_limited("a")
    assert q.num_requeues("a") == 1
    assert drain(q) == []
    clock.advance(1)
    assert drain(q) == ["a"]
    q.add_rate_limited("a")
    clock.advance(1.5)
    assert drain(q) == []
    clock.advance(0.5)
    assert drain(q) == ["a"]
    q.forget("a")
    assert q.num_requeues("a") == 0


# ------------------------------------------------------------------ concurrency


def test_no_key_is_processed_by_two_workers_at_once():
    q: WorkQueue[str] = WorkQueue()
    keys = [f"k{i}" for i in range(8)]
    in_flight: set[str] = set()
    lock = threading.Lock()
    violations: list[str] = []
    processed: dict[str, int] = dict.fromkeys(keys, 0)
    stop = threading.Event()

    def worker() -> None:
        while (key := q.get()) is not None:
            with lock:
                if key in in_flight:
                    violations.append(key)
                in_flight.add(key)
                processed[key] += 1
            time.sleep(0.0005)  # widen the window in which a second worker could collide
            with lock:
                in_flight.discard(key)
            q.done(key)

    def producer() -> None:
        i = 0
        while not stop.is_set():
            q.add(keys[i % len(keys)])
            i += 1
            if i % 50 == 0:
                time.sleep(0.001)

    workers = [threading.Thread(target=worker) for _ in range(6)]
    producers = [threading.Thread(target=producer) for _ in range(3)]
    for t in workers + producers:
        t.start()

    def least_processed() -> int:
        with lock:
            return min(processed.values())

    # As much contention as it takes (not as much as half a second gives on a busy
    # host): every key handed out hundreds of times, by six workers at once.
    wait_for(lambda: least_processed() >= 300, "every key processed 300 times", timeout=60)
    stop.set()
    for t in producers:
        t.join(5)
    q.shut_down()
    for t in workers:
        t.join(5)
    assert not any(t.is_alive() for t in workers)
    assert violations == []
    assert all(count > 0 for count in processed.values())


def test_every_add_is_eventually_seen_after_its_last_add():
    """Stingy, but never lossy: the last add of a key is followed by a processing."""
    q: WorkQueue[str] = WorkQueue()
    last_add: dict[str, int] = {}
    last_seen_version: dict[str, int] = {}
    versions: dict[str, int] = {}
    lock = threading.Lock()

    def worker() -> None:
        while (key := q.get()) is not None:
            with lock:
                last_seen_version[key] = versions[key]
            q.done(key)

    workers = [threading.Thread(target=worker) for _ in range(4)]
    for t in workers:
        t.start()
    for i in range(2000):
        key = f"k{i % 10}"
        with lock:
            versions[key] = i
            last_add[key] = i
        q.add(key)

    def caught_up() -> bool:
        with lock:
            return last_seen_version == last_add

    try:
        wait_for(caught_up, "the workers to see every key's last version", timeout=5)
    finally:  # the workers block in get() until the queue shuts down
        q.shut_down()
        for t in workers:
            t.join(5)
    assert last_seen_version == last_add
