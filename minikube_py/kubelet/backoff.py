"""Per-container restart back-off: Kubernetes' ``flowcontrol.Backoff`` as the
kubelet's ``doBackOff`` uses it (CrashLoopBackOff).

:class:`RestartBackoff` promises, for one key (pod uid + container name):

* The first exit is restarted at once; it opens an entry with the base
  delay (10 s by default). Each later exit waits for the current delay,
  counted from the instance's ``finishedAt``; the restart that ends a wait
  doubles the delay for the next time, up to the cap (300 s).
* The entry resets to the base delay when the instance that exited ran for at
  least ``reset`` seconds (600 s: "ran 10 minutes"), or when it finished more
  than ``reset`` seconds after the exit that last updated the entry
  (flowcontrol's ``hasExpired`` with Kubernetes' ``2 * MaxContainerBackOff``).
  An entry not updated for ``reset`` seconds no longer holds anything back.
* Times are seconds from the kubelet's clock (compared with the runtime's
  ``finishedAt``); nothing here sleeps. Thread safe.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["RestartBackoff"]


@dataclass(slots=True)
class _Entry:
    delay: float
    last_update: float


class RestartBackoff:
    """See the module contract."""

    def __init__(self, *, base: float = 10.0, cap: float = 300.0, reset: float = 600.0,
                 clock: Callable[[], float]) -> None:
        if base <= 0 or cap < base:
            raise ValueError(f"restart back-off needs 0 < base <= cap, got {base}, {cap}")
        self.base = base
        self.cap = cap
        self.reset = reset
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], _Entry] = {}

    def remaining(self, key: tuple[str, str], finished_at: float,
                  started_at: float | None = None) -> float:
        """Seconds the instance that finished at ``finished_at`` must still wait
        (0: restart now, and the entry has been advanced for the next exit)."""
        now = self.clock()
        with self._lock:
            entry = self._entries.get(key)
            ran_long = started_at is not None and finished_at - started_at >= self.reset
            if entry is not None and not ran_long and now - entry.last_update <= self.reset:
                wait = finished_at + entry.delay - now
                if wait > 0:
                    return wait
            # Not (or no longer) backing off: this restart moves the entry on.
            if entry is None or ran_long or finished_at - entry.last_update > self.reset:
                self._entries[key] = _Entry(self.base, finished_at)
            else:
                entry.delay = min(entry.delay * 2, self.cap)
                entry.last_update = finished_at
            return 0.0

    def delay(self, key: tuple[str, str]) -> float:
        """The current delay of ``key`` (what the CrashLoopBackOff message names)."""
        with self._lock:
            entry = self._entries.get(key)
            return entry.delay if entry is not None else self.base

    def forget(self, uid: str) -> None:
        """Drop every entry of pod ``uid``."""
        with self._lock:
            for key in [k for k in self._entries if k[0] == uid]:
                del self._entries[key]
