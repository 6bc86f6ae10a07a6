"""The scheduling queue: order, backoff, parking and moves (kube-scheduler's rules)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from minikube_py.scheduler.queue import SchedulingQueue
from tests.clock import FakeClock
from tests.waiting import blocked_in, wait_for


def pod(name: str, priority: int = 0) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"priority": priority}}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1000.0)


@pytest.fixture
def q(clock: FakeClock) -> SchedulingQueue:
    return SchedulingQueue(clock=clock)


def names(q: SchedulingQueue, n: int) -> list[str]:
    out = []
    for _ in range(n):
        qp = q.pop(timeout=0)
        assert qp is not None
        out.append(qp.pod["metadata"]["name"])
        q.done(qp)
    return out


def test_priority_first_then_arrival(q: SchedulingQueue, clock: FakeClock):
    for name, prio in [("low-1", 0), ("high", 100), ("low-2", 0), ("mid", 10)]:
        q.add(pod(name, prio))
        clock.advance(1)
    assert names(q, 4) == ["high", "mid", "low-1", "low-2"]
    assert q.pop(timeout=0) is None


def test_adding_twice_queues_once(q: SchedulingQueue):
    q.add(pod("a"))
    q.add(pod("a"))
    assert names(q, 1) == ["a"]
    assert q.pop(timeout=0) is None


@pytest.mark.parametrize("attempts, backoff", [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0),
                                               (5, 10.0), (9, 10.0)])
def test_backoff_doubles_from_one_to_ten_seconds(q: SchedulingQueue, clock: FakeClock,
                                                 attempts: int, backoff: float):
    q.add(pod("a"))
    for _ in range(attempts):
        qp = q.pop(timeout=0)
        assert qp is not None
        q.add_backoff(qp, "bind failed")
        clock.advance(100)  # let it out again
    assert qp.attempts == attempts
    assert qp.backoff_until - (clock.now - 100) == pytest.approx(backoff)


def test_backoff_holds_the_pod_until_it_expires(q: SchedulingQueue, clock: FakeClock):
    q.add(pod("a"))
    qp = q.pop(timeout=0)
    assert qp is not None
    q.add_backoff(qp, "error")
    assert q.pop(timeout=0) is None
    clock.advance(0.99)
    assert q.pop(timeout=0) is None
    clock.advance(0.02)
    assert names(q, 1) == ["a"]


def test_unschedulable_is_parked_until_a_cluster_event(q: SchedulingQueue, clock: FakeClock):
    q.add(pod("a"))
    qp = q.pop(timeout=0)
    assert qp is not None
    q.add_unschedulable(qp, "0/1 nodes are available: 1 Insufficient cpu.")
    clock.advance(60)
    assert q.pop(timeout=0) is None  # backoff long over, still parked
    assert q.pending()["unschedulable"][0]["lastFailure"].startswith("0/1 nodes")
    assert q.move_all("NodeAdd") == 1
    assert names(q, 1) == ["a"]


def test_unschedulable_retried_after_five_minutes_without_events(q: SchedulingQueue,
                                                                 clock: FakeClock):
    q.add(pod("a"))
    qp = q.pop(timeout=0)
    assert qp is not None
    q.add_unschedulable(qp, "no fit")
    clock.advance(299)
    assert q.pop(timeout=0) is None
    clock.advance(2)
    assert names(q, 1) == ["a"]


def test_event_during_the_attempt_sends_it_to_backoff_not_parking(q: SchedulingQueue,
                                                                   clock: FakeClock):
    q.add(pod("a"))
    qp = q.pop(timeout=0)
    assert qp is not None
    q.move_all("NodeAdd")  # a node arrived while "a" was being scheduled
    q.add_unschedulable(qp, "no fit")
    assert q.pending()["backoff"][0]["pod"] == "default/a"
    clock.advance(1.1)
    assert names(q, 1) == ["a"]


def test_moved_pods_still_wait_out_their_backoff(q: SchedulingQueue, clock: FakeClock):
    q.add(pod("a"))
    qp = q.pop(timeout=0)
    assert qp is not None
    q.add_unschedulable(qp, "no fit")
    q.move_all("PodDelete")  # immediately: backoff (1 s) not over yet
    assert q.pop(timeout=0) is None
    clock.advance(1.01)
    assert names(q, 1) == ["a"]


def test_update_of_a_parked_pod_retries_it(q: SchedulingQueue, clock: FakeClock):
    q.add(pod("a"))
    qp = q.pop(timeout=0)
    assert qp is not None
    q.add_unschedulable(qp, "no fit")
    clock.advance(2)
    q.update(pod("a", priority=5))
    qp = q.pop(timeout=0)
    assert qp is not None and qp.priority == 5


def test_delete_forgets_the_pod_everywhere(q: SchedulingQueue):
    q.add(pod("a"))
    q.add(pod("b"))
    q.delete(pod("a"))
    assert names(q, 1) == ["b"]
    assert q.pop(timeout=0) is None
    assert len(q) == 0


def test_deleted_while_in_flight_is_not_requeued(q: SchedulingQueue):
    q.add(pod("a"))
    qp = q.pop(timeout=0)
    assert qp is not None
    q.delete("default/a")
    q.add_unschedulable(qp, "no fit")
    assert q.pending() == {"active": [], "backoff": [], "unschedulable": [], "inFlight": []}


def test_pop_blocks_until_a_pod_arrives_and_close_releases_it():
    q = SchedulingQueue()
    got: list[Any] = []
    t = threading.Thread(target=lambda: got.append(q.pop()))
    t.start()
    wait_for(lambda: blocked_in(t, SchedulingQueue.pop), "pop to block", timeout=5)
    q.add(pod("late"))
    t.join(timeout=2)
    assert got[0].pod["metadata"]["name"] == "late"
    t2 = threading.Thread(target=lambda: got.append(q.pop()))
    t2.start()
    wait_for(lambda: blocked_in(t2, SchedulingQueue.pop), "pop to block again", timeout=5)
    q.close()
    t2.join(timeout=2)
    assert got[1] is None


def test_pop_wakes_itself_when_a_backoff_expires():
    q = SchedulingQueue(initial_backoff=0.1)
    q.add(pod("a"))
    qp = q.pop(timeout=0)
    assert qp is not None
    q.add_backoff(qp, "error")
    started = time.monotonic()
    again = q.pop(timeout=2)
    assert again is not None and 0.08 < time.monotonic() - started < 1.0
