"""Informer: list + watch one resource into a local cache and tell handlers.

What client-go's informer promises, and this one too:

* The cache converges to the API's state: a list fills it, a watch from the
  list's resourceVersion keeps it current, and on ``Expired`` (or any watch
  error) it relists and reconciles: objects that vanished meanwhile are
  reported deleted, changed ones updated. Nothing depends on having seen an
  event once.
* Handlers run on the informer's own thread, in resourceVersion order, one at
  a time; they must be quick (enqueue a key, update an in-memory index).
* Cached objects are shared: callers must not mutate them (copy first).
* ``resync_period`` re-delivers every cached object as an update periodically
  (level-triggered loops heal even without changes).
* Errors back off (0.2 s doubling to 10 s); a handler raising is logged and
  does not stop the informer.
* :meth:`Informer.wait_current` lets another loop wait until every change
  already written has reached the cache and its handlers (an in-process watch
  knows what the store has queued for it). Kubernetes' components have no
  such wait and act on whatever their caches hold; in one process it costs
  almost nothing and closes races such as the scheduler placing a drained
  node's replacement pod on the node just cordoned, its node informer a few
  events behind its pod informer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..api.access import key_of as key_of  # where every loop imports it from
from ..api.errors import Expired, StatusError
from .base import Client, Object, for_caches

log = logging.getLogger(__name__)

Key = str


@dataclass(frozen=True, slots=True)
class Handlers:
    on_add: Callable[[Object], None] | None = None
    on_update: Callable[[Object, Object], None] | None = None
    on_delete: Callable[[Object], None] | None = None


class Informer:
    """A cache of one resource kept in sync by list + watch (see module contract)."""

    def __init__(self, client: Client, resource: str, *, namespace: str | None = None,
                 label_selector: str | None = None, field_selector: str | None = None,
                 resync_period: float = 0.0, name: str = "") -> None:
        # A cache never changes its objects, so an in-process client may hand it
        # the store's shared copies (one per process, not one per informer).
        self._client: Client = for_caches(client)
        self.resource = resource
        self._namespace = namespace
        self._label_selector = label_selector
        self._field_selector = field_selector
        self._resync_period = resync_period
        self.name = name or f"informer-{resource}"
        self._cache: dict[Key, Object] = {}
        self._lock = threading.Lock()
        self._handlers: list[Handlers] = []
        self._synced = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watch: Any = None

    # ------------------------------------------------------------------ public

    def add_handlers(self, handlers: Handlers) -> None:
        """Register before :meth:`start`; handlers see every object from the start."""
        self._handlers.append(handlers)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        watch = self._watch
        if watch is not None:
            watch.stop()
        if self._thread is not None:
            self._thread.join(timeout)

    def wait_synced(self, timeout: float | None = None) -> bool:
        """True once the first list has been delivered to the handlers."""
        return self._synced.wait(timeout)

    @property
    def has_synced(self) -> bool:
        return self._synced.is_set()

    def wait_current(self, timeout: float) -> bool:
        """Wait until every change the store had queued for this informer's
        watch when called is in the cache and its handlers have run. True once
        so, and at once when the watch cannot tell (a remote one) or the
        informer is between watches (relisting); False when ``timeout``
        seconds ran out first. Not from a handler (the informer's own thread)."""
        wait = getattr(self._watch, "wait_consumed", None)
        return True if wait is None else bool(wait(timeout))

    def get(self, key: Key) -> Object | None:
        with self._lock:
            return self._cache.get(key)

    def list(self) -> list[Object]:
        with self._lock:
            return list(self._cache.values())

    # ------------------------------------------------------------------ loop

    def _run(self) -> None:
        backoff = 0.2
        while not self._stop.is_set():
            try:
                rv = self._relist()
                self._synced.set()
                backoff = 0.2
                self._follow(rv)
            except Expired:
                log.debug("%s: watch expired, relisting", self.name)
            except Exception as exc:  # the API may be briefly unavailable: retry
                if self._stop.is_set():
                    return
                level = logging.DEBUG if isinstance(exc, StatusError) else logging.WARNING
                log.log(level, "%s: %s; retrying in %.1f s", self.name, exc, backoff)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 10.0)

    def _relist(self) -> str:
        listing = self._client.list(self.resource, namespace=self._namespace,
                                    label_selector=self._label_selector,
                                    field_selector=self._field_selector)
        fresh = {key_of(o): o for o in listing.items}
        with self._lock:
            old = self._cache
            self._cache = dict(fresh)
        for key, obj in fresh.items():
            prev = old.get(key)
            if prev is None:
                self._dispatch("add", obj)
            elif prev.get("metadata", {}).get("resourceVersion") != \
                    obj.get("metadata", {}).get("resourceVersion"):
                self._dispatch("update", obj, prev)
        for key, obj in old.items():
            if key not in fresh:
                self._dispatch("delete", obj)
        return listing.resource_version

    def _follow(self, rv: str) -> None:
        self._watch = self._client.watch(self.resource, namespace=self._namespace,
                                         label_selector=self._label_selector,
                                         field_selector=self._field_selector,
                                         resource_version=rv)
        next_resync = time.monotonic() + self._resync_period if self._resync_period else None
        try:
            while not self._stop.is_set():
                wait = 1.0 if next_resync is None else max(0.0, min(
                    1.0, next_resync - time.monotonic()))
                event = self._watch.next(timeout=wait)
                if next_resync is not None and time.monotonic() >= next_resync:
                    self._resync()
                    next_resync = time.monotonic() + self._resync_period
                if event is None:
                    if self._watch.stopped and not self._stop.is_set():
                        return  # the server ended the watch: relist and watch again
                    continue
                self._apply(event.type, event.object)
        finally:
            self._watch.stop()
            self._watch = None

    def _apply(self, type_: str, obj: Object) -> None:
        key = key_of(obj)
        with self._lock:
            prev = self._cache.get(key)
            if type_ == "DELETED":
                self._cache.pop(key, None)
            elif type_ in ("ADDED", "MODIFIED"):
                self._cache[key] = obj
            else:
                return  # BOOKMARK and the like carry no change
        if type_ == "DELETED":
            self._dispatch("delete", obj)
        elif prev is None:
            self._dispatch("add", obj)
        else:
            self._dispatch("update", obj, prev)

    def _resync(self) -> None:
        for obj in self.list():
            self._dispatch("update", obj, obj)

    def _dispatch(self, what: str, obj: Object, prev: Object | None = None) -> None:
        for h in self._handlers:
            try:
                if what == "add" and h.on_add:
                    h.on_add(obj)
                elif what == "update" and h.on_update:
                    h.on_update(prev or obj, obj)
                elif what == "delete" and h.on_delete:
                    h.on_delete(obj)
            except Exception:
                log.exception("%s: %s handler failed for %s", self.name, what, key_of(obj))
