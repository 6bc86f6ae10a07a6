"""Recording core/v1 Events, as Kubernetes' ``record.EventRecorder`` does.

``EventRecorder(client, component="kubelet", host="node-1").record(pod,
"Normal", "Started", "Started container web")`` writes what
``kubectl describe`` and ``kubectl get events`` show.

Contract:

* **Shape.** A new event is named ``<object name>.<16 hex digits>`` (a
  nanosecond timestamp, made unique within the recorder) and lives in the
  object's namespace (``default`` for cluster-scoped objects such as Nodes).
  It carries ``involvedObject`` (apiVersion, kind, name, namespace, uid,
  resourceVersion, and ``fieldPath`` when given, e.g.
  ``spec.containers{web}``), ``source {component, host}``,
  ``firstTimestamp``/``lastTimestamp``, ``count`` 1, ``reportingComponent``
  and ``reportingInstance`` (the component and host), and ``type``.
* **Aggregation.** Recording the same (object, fieldPath, type, reason,
  message) again within :data:`AGGREGATION_WINDOW` seconds of its last
  occurrence patches the existing event: ``count`` + 1 and a new
  ``lastTimestamp``. If that event was deleted meanwhile, a new one is made.
* **Best effort.** Events never fail the caller: API errors are logged and
  swallowed, as are unsupported types (only ``Normal`` and ``Warning`` exist).
  Writes are synchronous (the in-process client makes them cheap); Kubernetes'
  asynchronous broadcaster and its per-object spam filter are not reproduced.
* **Thread safety.** One recorder may be shared by many threads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..api.errors import NotFound, StatusError
from ..api.timefmt import format_time
from .base import Client, create_unread

__all__ = ["AGGREGATION_WINDOW", "EVENT_NORMAL", "EVENT_WARNING", "EventRecorder"]

log = logging.getLogger(__name__)

EVENT_NORMAL = "Normal"
EVENT_WARNING = "Warning"
#: Seconds within which a repeat of an event bumps its count instead.
AGGREGATION_WINDOW = 600.0
#: Distinct events remembered for aggregation (client-go keeps an LRU of 4096).
_CACHE_SIZE = 4096


@dataclass(slots=True)
class _Seen:
    namespace: str
    name: str
    count: int
    last: float


class EventRecorder:
    """Writes Events for one component on one host (see the module contract)."""

    def __init__(self, client: Client, *, component: str, host: str = "",
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.component = component
        self.host = host
        self._clock = clock
        self._lock = threading.Lock()
        self._last_ns = 0
        self._seen: OrderedDict[tuple[str, ...], _Seen] = OrderedDict()

    def _unique_ns(self, now: float) -> int:
        with self._lock:
            ns = max(int(now * 1e9), self._last_ns + 1)
            self._last_ns = ns
            return ns

    def record(self, obj: Mapping[str, Any], type: str, reason: str, message: str, *,
               field_path: str | None = None) -> None:
        """Record that ``reason``/``message`` happened to ``obj``; never raises."""
        try:
            self._record(obj, type, reason, message, field_path)
        except Exception:  # best effort: a broken event must never break a loop
            log.exception("%s: could not record event %s for %s", self.component, reason,
                          (obj.get("metadata") or {}).get("name"))

    def _record(self, obj: Mapping[str, Any], type_: str, reason: str, message: str,
                field_path: str | None) -> None:
        if type_ not in (EVENT_NORMAL, EVENT_WARNING):
            log.error("unsupported event type %r (reason %s)", type_, reason)
            return
        meta = obj.get("metadata") or {}
        involved: dict[str, Any] = {
            "apiVersion": obj.get("apiVersion", ""),
            "kind": obj.get("kind", ""),
            "name": meta.get("name", ""),
        }
        if meta.get("namespace"):
            involved["namespace"] = meta["namespace"]
        for src, dst in (("uid", "uid"), ("resourceVersion", "resourceVersion")):
            if meta.get(src):
                involved[dst] = meta[src]
        if field_path:
            involved["fieldPath"] = field_path
        namespace = str(meta.get("namespace") or "default")
        key = (involved["apiVersion"], involved["kind"], namespace, involved["name"],
               str(meta.get("uid") or ""), field_path or "", type_, reason, message)
        now = self._clock()
        bump: tuple[str, str, int] | None = None
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None and now - seen.last <= AGGREGATION_WINDOW:
                seen.count += 1
                seen.last = now
                self._seen.move_to_end(key)
                bump = (seen.namespace, seen.name, seen.count)
        if bump is not None and self._bump(bump, now):
            return
        self._create(key, involved, namespace, type_, reason, message, now)

    def _bump(self, target: tuple[str, str, int], now: float) -> bool:
        """Patch count and lastTimestamp; False if the event is gone."""
        namespace, name, count = target
        try:
            self.client.patch("events", namespace, name, "merge",
                              {"count": count, "lastTimestamp": format_time(now)})
        except NotFound:
            return False
        except StatusError as exc:
            log.warning("%s: could not update event %s/%s: %s", self.component, namespace,
                        name, exc)
        return True

    def _create(self, key: tuple[str, ...], involved: dict[str, Any], namespace: str,
                type_: str, reason: str, message: str, now: float) -> None:
        name = f"{involved['name']}.{self._unique_ns(now):016x}"
        stamp = format_time(now)
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": involved,
            "reason": reason,
            "message": message,
            "source": {"component": self.component, **({"host": self.host}
                                                       if self.host else {})},
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "count": 1,
            "type": type_,
            "reportingComponent": self.component,
            "reportingInstance": self.host,
        }
        try:
            create_unread(self.client, event)
        except StatusError as exc:
            log.warning("%s: could not create event %s/%s (%s): %s", self.component,
                        namespace, name, reason, exc)
            return
        with self._lock:
            self._seen[key] = _Seen(namespace, name, 1, now)
            self._seen.move_to_end(key)
            while len(self._seen) > _CACHE_SIZE:
                self._seen.popitem(last=False)
