"""ControllerExpectations: what a controller waits to observe before acting again."""

from __future__ import annotations

import threading

from minikube_py.client.expectations import EXPECTATIONS_TIMEOUT, ControllerExpectations
from tests.clock import FakeClock


def test_never_set_is_satisfied():
    assert ControllerExpectations().satisfied("default/web")


def test_creations_are_satisfied_once_all_are_observed():
    exp = ControllerExpectations()
    exp.expect_creations("default/web", 2)
    assert not exp.satisfied("default/web")
    exp.creation_observed("default/web")
    assert not exp.satisfied("default/web")
    exp.creation_observed("default/web")
    assert exp.satisfied("default/web")
    exp.creation_observed("default/web")  # below zero is harmless
    assert exp.satisfied("default/web")


def test_deletions_are_tracked_by_uid_and_counted_once():
    exp = ControllerExpectations()
    exp.expect_deletions("default/web", ["u1", "u2"])
    exp.deletion_observed("default/web", "someone-else")
    assert exp.get("default/web") == (0, frozenset({"u1", "u2"}))
    exp.deletion_observed("default/web", "u1")
    exp.deletion_observed("default/web", "u1")  # terminating, then gone: once
    assert not exp.satisfied("default/web")
    exp.deletion_observed("default/web", "u2")
    assert exp.satisfied("default/web")


def test_expectations_expire_after_five_minutes():
    clock = FakeClock(100.0)
    exp = ControllerExpectations(clock=clock)
    exp.expect_creations("default/web", 3)
    clock.advance(EXPECTATIONS_TIMEOUT)
    assert not exp.satisfied("default/web")
    clock.advance(0.001)
    assert exp.satisfied("default/web")


def test_setting_again_replaces_and_restarts_the_clock():
    clock = FakeClock(0.0)
    exp = ControllerExpectations(clock=clock)
    exp.expect_creations("k", 1)
    clock.advance(200)
    exp.expect_deletions("k", ["a"])
    assert exp.get("k") == (0, frozenset({"a"}))
    clock.advance(200)
    assert not exp.satisfied("k")  # 200 s since the last set, not 400


def test_delete_expectations_forgets_the_key():
    exp = ControllerExpectations()
    exp.expect_creations("k", 5)
    exp.delete_expectations("k")
    assert exp.satisfied("k") and exp.get("k") is None
    exp.creation_observed("k")  # observations of unknown keys are ignored
    assert exp.get("k") is None


def test_thread_safe_observations():
    exp = ControllerExpectations()
    exp.expect_creations("k", 800)
    threads = [threading.Thread(target=lambda: [exp.creation_observed("k") for _ in range(100)])
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert exp.get("k") == (0, frozenset()) and exp.satisfied("k")
