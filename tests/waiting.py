"""Bounded waiting for tests: poll a condition until it holds or time runs out.

A wait is never an assertion by itself: it returns the predicate's truthy value
(so the test can assert on it) or raises AssertionError naming what did not
happen within ``timeout`` seconds. :func:`wait_for` blocks the calling thread;
:func:`until` is the same wait inside a Textual Pilot test, where blocking would
stop the app it waits on. :func:`wait_for_quietly` is for what must *not*
happen: it returns None when the time is up.

:func:`blocked_in` is a condition for the tests of blocking calls: that a thread
is asleep inside the call, so what wakes it is what the test then does.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # a type only: tests that never drive the dashboard skip Textual
    from textual.pilot import Pilot

T = TypeVar("T")


def wait_for(predicate: Callable[[], T | None], what: str, timeout: float = 30.0,
             interval: float = 0.1) -> T:
    """Poll ``predicate`` every ``interval`` seconds; its first truthy value."""
    value = wait_for_quietly(predicate, timeout, interval)
    if not value:
        raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
    return value


def wait_for_quietly(predicate: Callable[[], T | None], seconds: float,
                     interval: float = 0.1) -> T | None:
    """Poll ``predicate`` for ``seconds``: its first truthy value, or None if it
    never had one. For "this does not happen": ``assert not wait_for_quietly(...)``.
    """
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(interval)


async def until(pilot: Pilot[Any], predicate: Callable[[], T | None], what: str,
                timeout: float = 15.0, interval: float = 0.05) -> T:
    """:func:`wait_for` in a Pilot test: between polls the app runs
    (``pilot.pause``) instead of the thread sleeping under it."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await pilot.pause(interval)


def blocked_in(thread: threading.Thread, function: Callable[..., object]) -> bool:
    """Whether ``thread`` is asleep in a :mod:`threading` wait (a Condition's,
    an Event's) somewhere inside ``function``.

    Code waits on a Condition after checking, under its lock, that it has to; a
    notify from then on wakes it. So a test can wait until "the getter is
    blocked" instead of sleeping and hoping it is.
    """
    frame = sys._current_frames().get(thread.ident or -1)
    # The innermost frame is Condition.wait's (an Event's wait is one too); a
    # thread still acquiring the condition's lock is in its __enter__ instead.
    if frame is None or frame.f_code.co_filename != threading.__file__ or \
            frame.f_code.co_name != "wait":
        return False
    code = getattr(function, "__code__", None)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False
