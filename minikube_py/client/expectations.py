"""Controller expectations: what a controller waits to see before acting again.

client-go's ``ControllerExpectations`` (with the UID tracking of
``UIDTrackingControllerExpectations``), for controllers that create and
delete objects they then observe through an informer.

The problem they solve: a ReplicaSet controller creates two pods and, before
its informer has delivered them, reconciles again. Its cache still shows two
pods missing, and without expectations it would create two more. So before
writing, a controller records what it expects to observe
(:meth:`~ControllerExpectations.expect_creations`,
:meth:`~ControllerExpectations.expect_deletions`); its event handlers count
the observations down (:meth:`~ControllerExpectations.creation_observed`,
:meth:`~ControllerExpectations.deletion_observed`); and it only creates or
deletes again once :meth:`~ControllerExpectations.satisfied` says the cache
has caught up.

Contract (as client-go):

* ``satisfied(key)`` is true when nothing was ever expected for ``key`` (or
  the expectations were deleted), when every expected creation and deletion
  has been observed, or when the expectations are older than
  :data:`EXPECTATIONS_TIMEOUT` (5 minutes): a watch that dropped an event must
  not put a controller to sleep for ever.
* Setting expectations replaces the previous ones for the key and restarts
  their clock. Counts only go down when observed; going below zero is
  harmless.
* Deletions are tracked by UID: a pod that is first marked for deletion
  (``deletionTimestamp``) and later removed is counted once, whichever of the
  two the controller sees, and deletions the controller did not ask for are
  not counted at all.
* Thread safe: handlers (informer threads) and reconcilers (workers) share
  one instance. The clock (monotonic seconds) is injectable for tests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["EXPECTATIONS_TIMEOUT", "ControllerExpectations", "Expectation"]

#: Seconds after which unmet expectations stop holding a controller back
#: (client-go's ``ExpectationsTimeout``).
EXPECTATIONS_TIMEOUT = 300.0


@dataclass(slots=True)
class Expectation:
    """The creations and deletions one controller key still waits for."""

    adds: int
    deletions: set[str] = field(default_factory=set)
    timestamp: float = 0.0

    @property
    def fulfilled(self) -> bool:
        return self.adds <= 0 and not self.deletions


class ControllerExpectations:
    """Expectations by controller key (``namespace/name``); see the module contract."""

    def __init__(self, *, timeout: float = EXPECTATIONS_TIMEOUT,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.timeout = timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._by_key: dict[str, Expectation] = {}

    # ------------------------------------------------------------------ setting

    def expect_creations(self, key: str, n: int) -> None:
        """Expect ``n`` creations for ``key`` (replacing earlier expectations)."""
        with self._lock:
            self._by_key[key] = Expectation(max(0, n), set(), self._clock())

    def expect_deletions(self, key: str, uids: Iterable[str]) -> None:
        """Expect the objects with ``uids`` to be deleted (replacing earlier
        expectations)."""
        with self._lock:
            self._by_key[key] = Expectation(0, set(uids), self._clock())

    def delete_expectations(self, key: str) -> None:
        """Forget ``key`` (its controller object was deleted)."""
        with self._lock:
            self._by_key.pop(key, None)

    # ------------------------------------------------------------------ observing

    def creation_observed(self, key: str, n: int = 1) -> None:
        """``n`` expected creations were seen (or will never happen: they
        failed, or were never attempted: client-go's ``LowerExpectations``)."""
        with self._lock:
            exp = self._by_key.get(key)
            if exp is not None:
                exp.adds -= n

    def deletion_observed(self, key: str, uid: str) -> None:
        """The object ``uid`` was seen deleted (or its deletion failed); only
        deletions that were expected count."""
        with self._lock:
            exp = self._by_key.get(key)
            if exp is not None:
                exp.deletions.discard(uid)

    # ------------------------------------------------------------------ reading

    def satisfied(self, key: str) -> bool:
        """True when ``key`` may create or delete again (module contract)."""
        with self._lock:
            exp = self._by_key.get(key)
            if exp is None or exp.fulfilled:
                return True
            return self._clock() - exp.timestamp > self.timeout

    def get(self, key: str) -> tuple[int, frozenset[str]] | None:
        """(creations still expected, UIDs still expected to go), or None."""
        with self._lock:
            exp = self._by_key.get(key)
            return None if exp is None else (exp.adds, frozenset(exp.deletions))
