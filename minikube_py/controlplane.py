"""Wiring: builds the control plane's parts and starts and stops them in order.

Today the control plane is the durable store and the registry in front of it
(admission: decoding, defaulting, validation). The API server, scheduler,
controllers and kubelets join here as they are built; each is a thread started
by :meth:`ControlPlane.start` and stopped, in reverse order, by
:meth:`ControlPlane.stop`.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from .store.journal import Durability
from .store.registry import Registry
from .store.store import Store

log = logging.getLogger(__name__)


class ControlPlane:
    """One process's control plane, rooted at a state directory."""

    def __init__(self, state_dir: Path, *, durability: Durability = "flush") -> None:
        self.state_dir = state_dir
        self._durability: Durability = durability
        self._store: Store | None = None
        self._registry: Registry | None = None

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the control plane is not started")
        return self._store

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            raise RuntimeError("the control plane is not started")
        return self._registry

    def start(self) -> None:
        """Open the store (taking the state directory's lock) and seed it.

        Raises :class:`~minikube_py.store.lockfile.StateDirLocked` when another
        process owns the directory; nothing is written in that case.
        """
        started = time.monotonic()
        self._store = Store(self.state_dir, durability=self._durability)
        self._registry = Registry(self._store)
        created = self._registry.ensure_system_namespaces()
        log.info("control plane started in %.0f ms: state %s, resourceVersion %d%s",
                 (time.monotonic() - started) * 1000, self.state_dir,
                 self._store.resource_version,
                 f", created namespaces {', '.join(created)}" if created else "")

    def stop(self) -> None:
        """Stop every part; the store is compacted and its lock released. Idempotent."""
        if self._store is not None:
            self._store.close()
            log.info("control plane stopped; state compacted in %s", self.state_dir)
        self._store = None
        self._registry = None
