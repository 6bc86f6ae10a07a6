"""The TTL-after-finished controller: delete finished Jobs once their TTL expires,
as Kubernetes' ``pkg/controller/ttlafterfinished`` (v1.32) does.

What it promises, per Job (``reconcile(namespace/name)``):

* Only Jobs with ``spec.ttlSecondsAfterFinished`` set and a ``Complete`` or
  ``Failed`` condition that is True are considered; Jobs already being deleted
  are left alone.
* The job finished at that condition's ``lastTransitionTime``; it expires
  ``ttlSecondsAfterFinished`` seconds later. Before that the key is requeued
  for exactly the time left (level-triggered: a restart recomputes it from the
  object). A finished condition without a transition time is an error, retried
  with back-off, as Kubernetes reports ``unable to find the time when the Job
  finished``.
* At expiry the Job is read again from the API, never the cache, so a TTL
  changed in the meantime is honoured; if it is still expired it is deleted
  with ``propagationPolicy: Foreground`` (as Kubernetes: the Job stays, with
  the ``foregroundDeletion`` finalizer, until the garbage collector has
  removed its pods) and the resourceVersion just read as a precondition, so a
  concurrent change (or a Job re-created under the same name) wins and is
  looked at again. Kubernetes' precondition is the UID only; the
  resourceVersion implies it and also closes the TTL-changed-after-the-read
  window.
* Time comes from the injected ``clock`` (seconds since the epoch).

Kubernetes records no event for this deletion, and neither does this controller.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..api.access import mapping as _m
from ..api.errors import NotFound
from ..api.timefmt import parse_time as _parse_time
from ..client.base import Client
from ..client.events import EventRecorder
from ..client.shared import SharedInformers
from .base import Controller

__all__ = ["TTLAfterFinishedController", "expire_at", "finished_at"]

log = logging.getLogger(__name__)




def _ttl(job: Mapping[str, Any]) -> int | None:
    ttl = _m(job.get("spec")).get("ttlSecondsAfterFinished")
    return ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None


def _finished_condition(job: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for cond in _m(job.get("status")).get("conditions") or []:
        cond = _m(cond)
        if cond.get("type") in ("Complete", "Failed") and cond.get("status") == "True":
            return cond
    return None


def needs_cleanup(job: Mapping[str, Any]) -> bool:
    """``needsCleanup``: a TTL is set and the job is finished."""
    return _ttl(job) is not None and _finished_condition(job) is not None


def finished_at(job: Mapping[str, Any]) -> float:
    """``jobFinishTime``; raises ``ValueError`` when the condition has no time."""
    cond = _finished_condition(job)
    when = None if cond is None else _parse_time(cond.get("lastTransitionTime"))
    if when is None:
        meta = _m(job.get("metadata"))
        raise ValueError(f"unable to find the time when the Job {meta.get('namespace')}/"
                         f"{meta.get('name')} finished")
    return when


def expire_at(job: Mapping[str, Any]) -> float:
    """When a finished job with a TTL may be deleted."""
    ttl = _ttl(job)
    assert ttl is not None
    return finished_at(job) + ttl


class TTLAfterFinishedController(Controller):
    """Deletes finished Jobs after ``ttlSecondsAfterFinished`` (see the module contract)."""

    name = "ttl-after-finished-controller"

    def __init__(self, client: Client, informers: SharedInformers, *, workers: int = 2,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None) -> None:
        super().__init__(client, informers, workers=workers, clock=clock, recorder=recorder)
        self.jobs = self.watch("jobs", key=self._keys)

    @staticmethod
    def _keys(job: Mapping[str, Any]) -> list[str] | None:
        if not needs_cleanup(job) or _m(job.get("metadata")).get("deletionTimestamp"):
            return None
        meta = _m(job.get("metadata"))
        return [f"{meta.get('namespace')}/{meta.get('name')}"]

    def _left(self, job: Mapping[str, Any]) -> float | None:
        """Seconds until ``job`` expires (<= 0: expired); ``None``: nothing to do."""
        if not needs_cleanup(job) or _m(job.get("metadata")).get("deletionTimestamp"):
            return None
        return expire_at(job) - self.clock()

    def reconcile(self, key: str) -> float | None:
        cached = self.jobs.get(key)
        if cached is None:
            return None
        left = self._left(cached)
        if left is None:
            return None
        if left > 0:
            return left
        namespace, _, name = key.partition("/")
        try:
            fresh = self.client.get("jobs", namespace, name)
        except NotFound:
            return None
        # The TTL may have changed since the cache saw the job.
        left = self._left(fresh)
        if left is None:
            return None
        if left > 0:
            return left
        meta = fresh["metadata"]
        log.info("%s: cleaning up Job %s", self.name, key)
        # Foreground, as Kubernetes: the Job is the last to go, so while its pods are
        # being removed it still shows why. A Conflict (changed since read) is
        # retried: the next look sees the new version.
        self.client.delete("jobs", namespace, name, propagation_policy="Foreground",
                           preconditions={"resourceVersion": str(meta["resourceVersion"])})
        return None
