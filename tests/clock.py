"""The one fake clock of the test suite.

Product code takes time as a ``clock: Callable[[], float]`` (wall time, as
``time.time``, or monotonic, as ``time.monotonic``: only differences matter to
the latter) and sleeps on real ``threading`` waits, never through the clock. So
a fake clock is a callable a test moves by hand:

* ``FakeClock(start)`` stands still at ``start`` until the test calls
  :meth:`FakeClock.advance` or :meth:`FakeClock.set`: for code driven step by
  step (``reconcile(key)``, a queue, a backoff table).
* ``FakeClock.real_time()`` is ``time.time()`` plus whatever
  :meth:`FakeClock.advance` added: for code running its own threads (a
  kubelet's heartbeats, probes and restarts) that must still see time pass,
  while the test jumps it ahead ("an hour later").
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: 2023-11-14T22:13:20Z: a plausible wall time, whole seconds, far from 0.
EPOCH = 1_700_000_000.0


class FakeClock:
    """A clock for ``clock=`` parameters: ``clock()`` and :attr:`now` are the
    current time in seconds.

    Read from any thread; moved only by the test (one thread), so no lock.
    Moving it wakes nothing: code asleep on a real timeout sees the new time
    when it next reads the clock.
    """

    def __init__(self, start: float = EPOCH) -> None:
        # The time is source() + offset; standing still, the source is 0, so
        # the time is exactly the float the test set (no rounding on the way).
        self._source: Callable[[], float] = _zero
        self._offset = start

    @classmethod
    def real_time(cls) -> FakeClock:
        """A clock reading ``time.time()`` until the test moves it ahead."""
        clock = cls(0.0)
        clock._source = time.time
        return clock

    def __call__(self) -> float:
        return self._source() + self._offset

    @property
    def now(self) -> float:
        """The current time (the same as calling the clock)."""
        return self()

    def advance(self, seconds: float) -> float:
        """Move the clock ``seconds`` forward; the new time."""
        self._offset += seconds
        return self()

    def set(self, now: float) -> None:
        """Jump the clock to ``now`` (backwards too, as a wall clock may)."""
        self._offset = now - self._source()


def _zero() -> float:
    return 0.0
