"""Bounded waiting for tests: poll a condition until it holds or time runs out.

A wait is never an assertion by itself: it returns the predicate's truthy value
(so the test can assert on it) or raises AssertionError naming what did not
happen within ``timeout`` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], what: str, timeout: float = 30.0,
             interval: float = 0.1) -> T:
    """Poll ``predicate`` every ``interval`` seconds; its first truthy value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)
