"""The shape every controller shares (client-go's sample-controller).

Contract:

* Event handlers only enqueue ``namespace/name`` keys (:meth:`Controller.enqueue`);
  all work happens in :meth:`Controller.reconcile`, on worker threads.
* The work queue guarantees a key is never reconciled on two workers at once,
  and that a key added many times while waiting is reconciled once.
* ``reconcile(key)`` returns ``None`` when done, or seconds after which the key
  should be looked at again (e.g. a minReadySeconds or deadline to check). If it
  raises, the key is retried with per-item exponential backoff (5 ms doubling
  to 1000 s, capped overall by a 10 qps / 100 burst bucket); a success forgets
  the backoff. A ``NotFound`` from the API is success: the object is gone,
  which is what deletion wanted.
* ``reconcile`` reads from the shared informers' caches, never mutates cached
  objects (copy first), and must be idempotent: it may run again at any time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..api.errors import NotFound
from ..client.base import Client
from ..client.events import EventRecorder
from ..client.informer import Handlers, Informer, key_of
from ..client.shared import SharedInformers
from ..client.workqueue import WorkQueue, default_controller_rate_limiter

log = logging.getLogger(__name__)


class Controller:
    """Base class: subclasses set ``name``, register handlers in ``__init__`` with
    :meth:`watch`, and implement :meth:`reconcile`."""

    name = "controller"

    def __init__(self, client: Client, informers: SharedInformers, *, workers: int = 2,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None) -> None:
        self.client = client
        self.informers = informers
        self.workers = workers
        self.clock = clock
        self.recorder = recorder or EventRecorder(client, component=self.name)
        self.queue: WorkQueue[str] = WorkQueue(default_controller_rate_limiter(),
                                               name=self.name)
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()

    # ------------------------------------------------------------------ wiring

    def watch(self, resource: str, *, key: Callable[[Mapping[str, Any]], list[str] | None]
              | None = None) -> Informer:
        """Enqueue keys for changes of ``resource``: the object's own key, or the
        keys ``key(obj)`` maps it to (e.g. a pod to its owning ReplicaSet)."""
        informer = self.informers.get(resource)
        to_keys = key or (lambda obj: [key_of(obj)])

        def on(obj: Mapping[str, Any]) -> None:
            for k in to_keys(obj) or []:
                self.enqueue(k)

        def on_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
            # Both: a pod whose labels changed may concern its old and new owner.
            on(old)
            on(new)

        informer.add_handlers(Handlers(on_add=on, on_update=on_update, on_delete=on))
        return informer

    def enqueue(self, key: str) -> None:
        self.queue.add(key)

    def enqueue_after(self, key: str, delay: float) -> None:
        self.queue.add_after(key, delay)

    # ------------------------------------------------------------------ running

    #: Caches that must have synced before the workers start (with an empty
    #: cache every object would look as if it had nothing: no pods, no slices).
    synced_before_start: tuple[Informer, ...] = ()

    def start(self) -> None:
        """Start the workers (the shared informers are started by their owner),
        once :attr:`synced_before_start` have synced; returns at once."""
        if self.synced_before_start:
            threading.Thread(target=self._start_when_synced, name=f"{self.name}-sync",
                             daemon=True).start()
        else:
            self._start_workers()

    def _start_when_synced(self) -> None:
        for informer in self.synced_before_start:
            while not informer.wait_synced(0.5):
                if self._stop.is_set():
                    return
        if not self._stop.is_set():
            self._start_workers()

    def _start_workers(self) -> None:
        for i in range(self.workers):
            t = threading.Thread(target=self._work, name=f"{self.name}-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.queue.shut_down()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))

    def _work(self) -> None:
        while not self._stop.is_set():
            key = self.queue.get()
            if key is None:
                return
            try:
                again = self.reconcile(key)
            except NotFound:
                self.queue.forget(key)
            except Exception as exc:
                log.info("%s: reconciling %s failed (%s); will retry", self.name, key, exc,
                         exc_info=log.isEnabledFor(logging.DEBUG))
                self.queue.add_rate_limited(key)
            else:
                self.queue.forget(key)
                if again is not None:
                    self.queue.add_after(key, again)
            finally:
                self.queue.done(key)

    def reconcile(self, key: str) -> float | None:
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers

    def event(self, obj: Mapping[str, Any], type_: str, reason: str, message: str) -> None:
        self.recorder.record(obj, type_, reason, message)
