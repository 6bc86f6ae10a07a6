"""Shared informers: one list+watch per resource for a whole process.

Every controller that needs pods gets the *same* pod informer, as client-go's
SharedInformerFactory gives them: one watch and one cache per resource instead
of one per controller. Handlers are added per controller before ``start``;
objects in the caches are shared and must not be mutated.
"""

from __future__ import annotations

import threading

from .base import Client
from .informer import Informer


class SharedInformers:
    """A registry of informers by resource (see the module contract)."""

    def __init__(self, client: Client, *, resync_period: float = 0.0) -> None:
        self._client = client
        self._resync = resync_period
        self._informers: dict[str, Informer] = {}
        self._lock = threading.Lock()
        self._started = False

    def get(self, resource: str) -> Informer:
        """The informer of ``resource`` (created on first use; add handlers before
        :meth:`start`)."""
        with self._lock:
            informer = self._informers.get(resource)
            if informer is None:
                informer = Informer(self._client, resource, resync_period=self._resync,
                                    name=f"informer-{resource}")
                self._informers[resource] = informer
                if self._started:
                    informer.start()
            return informer

    def start(self) -> None:
        with self._lock:
            self._started = True
            informers = list(self._informers.values())
        for informer in informers:
            informer.start()

    def wait_synced(self, timeout: float | None = None) -> bool:
        with self._lock:
            informers = list(self._informers.values())
        return all(i.wait_synced(timeout) for i in informers)

    def stop(self) -> None:
        with self._lock:
            informers = list(self._informers.values())
        for informer in informers:
            informer.stop()
