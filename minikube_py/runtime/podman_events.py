"""Podman's event stream as :class:`~.base.RuntimeEvent` values.

One background thread per subscription reads ``GET /events?stream=true``
(container and pod events), keeps those of minikube-py's objects, translates
them and queues them for :meth:`PodmanEventStream.next`.

Translation (Podman action -> runtime event):

* a container of ours (it carries the runtime's config label):
  ``create`` -> container-created, ``start`` -> container-started,
  ``died`` -> container-stopped (an OOM kill is a ``died`` too),
  ``remove`` -> container-deleted;
* a pod's infra container (it carries the pod's labels but not the config
  label): ``start`` -> sandbox-ready, ``died`` -> sandbox-stopped;
* a pod of ours: ``remove`` -> sandbox-deleted.

Pod events carry no labels, so the stream asks its owner (the runtime) for
the labels of a pod id (``resolve_pod``), which remembers them from when it
saw the pod.

Podman's event log is shared by every Podman client on the host, so other
minikube-py clusters' objects appear in it too: given a ``cluster``, events of
containers not labelled ``minikube-py.io/cluster=<cluster>`` are dropped
before translation, and the runtime's ``resolve_pod`` answers ``None`` for
other clusters' pods.

The first connection asks for events *since the moment of subscription*, so
nothing between :meth:`~.podman.PodmanRuntime.events` returning and the
connection being established is lost. If the stream drops (the service
restarted, say) the thread reconnects with backoff, asking again from the time
of the last event it saw, and drops the duplicates. The consumer hears of the
gap: a drop queues one stream-interrupted marker, the next successful
connection a stream-resumed one (see :data:`~.base.EVENT_STREAM_INTERRUPTED`),
so it can watch the runtime by other means meanwhile. :meth:`PodmanEventStream.stop`
shuts the connection down, so the thread and any blocked ``next`` end at once.
"""

from __future__ import annotations

import collections
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from .base import (
    EVENT_CONTAINER_CREATED,
    EVENT_CONTAINER_DELETED,
    EVENT_CONTAINER_STARTED,
    EVENT_CONTAINER_STOPPED,
    EVENT_SANDBOX_DELETED,
    EVENT_SANDBOX_READY,
    EVENT_SANDBOX_STOPPED,
    EVENT_STREAM_INTERRUPTED,
    EVENT_STREAM_RESUMED,
    LABEL_CLUSTER,
    LABEL_POD_UID,
    RuntimeEvent,
)
from .podman_api import PodmanAPI, close_client, iter_json_lines, shutdown_response

__all__ = ["CONFIG_LABEL", "PodmanEventStream", "decode_config_label", "translate"]

log = logging.getLogger(__name__)

#: The label holding, as JSON, what the runtime needs back exactly: the
#: container's name, its requested image and the labels it was given (Podman
#: merges the image's labels into a container's, so they cannot be read back
#: from Podman's labels alone).
CONFIG_LABEL = "minikube-py.io/runtime-config"

_CONTAINER_ACTIONS = {"create": EVENT_CONTAINER_CREATED, "start": EVENT_CONTAINER_STARTED,
                      "died": EVENT_CONTAINER_STOPPED, "remove": EVENT_CONTAINER_DELETED}
_INFRA_ACTIONS = {"start": EVENT_SANDBOX_READY, "died": EVENT_SANDBOX_STOPPED}
_BACKOFF_MAX = 5.0
_REPLAY_MARGIN = 2.0
_SEEN_MAX = 4096

PodResolver = Callable[[str, str], "tuple[str, Mapping[str, str]] | None"]


def decode_config_label(labels: Mapping[str, Any]) -> dict[str, Any] | None:
    raw = labels.get(CONFIG_LABEL)
    if not isinstance(raw, str):
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def translate(event: Mapping[str, Any], resolve_pod: PodResolver,
              pods_of: dict[str, str] | None = None) -> RuntimeEvent | None:
    """The runtime event for one Podman event, or ``None`` if it is not ours.

    ``resolve_pod(pod_id, container_id)`` returns ``(pod_id, labels)`` of the
    pod a sandbox event concerns (``pod_id`` may be empty: then it is found
    from the infra container id), or ``None`` if that pod is not ours.
    ``pods_of`` (container id -> pod id) is filled and used across calls:
    Podman leaves the pod out of some events (a ``died`` may come without it).
    """
    pods_of = {} if pods_of is None else pods_of
    kind = event.get("Type")
    action = str(event.get("Action") or event.get("status") or "")
    actor = event.get("Actor") or {}
    attrs: Mapping[str, Any] = actor.get("Attributes") or {}
    object_id = str(actor.get("ID") or event.get("id") or "")
    nano = event.get("timeNano")
    at = int(nano) / 1e9 if isinstance(nano, int) else float(event.get("time") or 0)
    if kind == "container":
        config = decode_config_label(attrs)
        if config is not None:
            type_ = _CONTAINER_ACTIONS.get(action)
            if type_ is None:
                return None
            pod_id = str(attrs.get("podId") or "") or pods_of.get(object_id, "")
            if not pod_id:
                found = resolve_pod("", object_id)
                pod_id = found[0] if found else ""
            if action == "remove":
                pods_of.pop(object_id, None)
            elif pod_id:
                pods_of[object_id] = pod_id
            labels = config.get("labels")
            return RuntimeEvent(type_, pod_id, object_id,
                                dict(labels) if isinstance(labels, Mapping) else {}, at)
        if LABEL_POD_UID in attrs and action == "remove":
            pods_of.pop(object_id, None)
            return None
        if LABEL_POD_UID in attrs and action in _INFRA_ACTIONS:
            pod_id = str(attrs.get("podId") or "") or pods_of.get(object_id, "")
            if pod_id:
                pods_of[object_id] = pod_id
            found = resolve_pod(pod_id, object_id)
            if found is None:
                return None
            return RuntimeEvent(_INFRA_ACTIONS[action], found[0], "", dict(found[1]), at)
        return None
    if kind == "pod" and action == "remove":
        found = resolve_pod(object_id, "")
        if found is None:
            return None
        return RuntimeEvent(EVENT_SANDBOX_DELETED, object_id, "", dict(found[1]), at)
    return None


class PodmanEventStream:
    """One subscription (see the module docstring); thread-safe."""

    def __init__(self, api: PodmanAPI, resolve_pod: PodResolver, *,
                 on_event: Callable[[RuntimeEvent], None] | None = None,
                 cluster: str = "") -> None:
        self._api = api
        self._resolve_pod = resolve_pod
        self._cluster = cluster
        self._on_event = on_event
        self._queue: queue.Queue[RuntimeEvent | None] = queue.Queue()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._response: Any = None
        self._since = time.time()
        self._last_nano = 0
        # Recently seen events, to drop what a reconnect replays.
        self._recent: collections.deque[tuple[int, str, str]] = collections.deque()
        self._seen: set[tuple[int, str, str]] = set()
        self._pods_of: dict[str, str] = {}  # container id -> pod id, from earlier events
        # Optimistic until the first attempt says otherwise: the consumer counts a
        # fresh subscription as live, so only a failure is news.
        self._connected = True
        self._thread = threading.Thread(target=self._run, name="podman-events", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ consumer side

    def next(self, timeout: float | None = None) -> RuntimeEvent | None:
        if self._stopped.is_set():
            return None
        try:
            event = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if event is None or self._stopped.is_set():
            self._queue.put(None)  # let other blocked readers see the end too
            return None
        return event

    def inject(self, event: RuntimeEvent) -> None:
        """Queue an event that did not come from Podman (the runtime synthesizes
        a container-stopped for a start that failed, which Podman does not report)."""
        if not self._stopped.is_set():
            self._queue.put(event)

    def stop(self) -> None:
        self._stopped.set()
        with self._lock:
            response = self._response
        if response is not None:
            shutdown_response(response)
        self._queue.put(None)

    # ------------------------------------------------------------------ reader thread

    def _run(self) -> None:
        backoff = 0.2
        while not self._stopped.is_set():
            client = self._api.stream_client()
            try:
                # Events from different Podman processes reach the log slightly out
                # of order: replay a little before the last one seen.
                since = (self._last_nano / 1e9 - _REPLAY_MARGIN if self._last_nano
                         else self._since)
                params = {"stream": "true", "since": f"{since:.9f}",
                          "filters": json.dumps({"type": ["container", "pod"]})}
                response = self._api.call("GET", "/events", params=params, stream=True,
                                          client=client)
                self._api.check(response, "Podman event stream")
                with self._lock:
                    self._response = response
                if self._stopped.is_set():
                    break
                backoff = 0.2
                log.debug("Podman event stream connected")
                self._mark(connected=True)
                for item in iter_json_lines(response):
                    if self._stopped.is_set():
                        break
                    self._handle(item)
            except Exception as exc:
                if not self._stopped.is_set():
                    log.warning("Podman event stream failed (%s); reconnecting", exc)
            finally:
                with self._lock:
                    response, self._response = self._response, None
                if response is not None:
                    shutdown_response(response)
                close_client(client)
            if not self._stopped.is_set():  # dropped (or never made): say so once per gap
                self._mark(connected=False)
            if self._stopped.wait(backoff):
                break
            backoff = min(backoff * 2, _BACKOFF_MAX)

    def _mark(self, *, connected: bool) -> None:
        """Queue the interrupted / resumed marker when the connection state changes."""
        if connected == self._connected:
            return
        self._connected = connected
        type_ = EVENT_STREAM_RESUMED if connected else EVENT_STREAM_INTERRUPTED
        self._queue.put(RuntimeEvent(type_, "", "", {}, time.time()))

    def _handle(self, item: Mapping[str, Any]) -> None:
        nano = item.get("timeNano")
        key = (int(nano) if isinstance(nano, int) else 0,
               str(item.get("id") or ""), str(item.get("Action") or item.get("status") or ""))
        if key in self._seen:
            return  # replayed after a reconnect
        self._seen.add(key)
        self._recent.append(key)
        if len(self._recent) > _SEEN_MAX:
            self._seen.discard(self._recent.popleft())
        self._last_nano = max(self._last_nano, key[0])
        attrs = (item.get("Actor") or {}).get("Attributes") or {}
        if self._cluster and item.get("Type") == "container" and \
                attrs.get(LABEL_CLUSTER) != self._cluster:
            # Not this cluster's container (Podman's event log is host-wide; ours, infra
            # ones included, all carry the label): passing it on would cost every
            # kubelet of this daemon a sync of a pod it never had. Pod events carry no
            # labels: resolve_pod decides for them.
            return
        try:
            event = translate(item, self._resolve_pod, self._pods_of)
        except Exception:
            log.exception("cannot translate Podman event %r", item)
            return
        if event is None:
            return
        if self._on_event is not None:
            self._on_event(event)
        self._queue.put(event)
