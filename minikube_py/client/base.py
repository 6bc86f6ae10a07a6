"""The client protocol: how every loop and tool talks to the API.

Loops never touch the store directly: they use a :class:`Client`, exactly as
Kubernetes components use client-go. Two implementations honour the same
contract: :class:`~.local.LocalClient` (in-process, over the registry, for the
control plane's own loops) and :class:`~.http.HTTPClient` (over the REST API,
for the CLI, the dashboard attached to a daemon, and tests).

Contract shared by both:

* Objects in and out are Kubernetes JSON dicts; returned objects are fresh
  copies the caller owns.
* Failures raise :class:`~minikube_py.api.errors.StatusError` subclasses with
  Kubernetes' reasons (NotFound, Conflict, Invalid, ...), whichever transport.
* Selectors are Kubernetes selector strings.
* A watch yields :class:`Event` values in resourceVersion order and raises
  :class:`~minikube_py.api.errors.Expired` when it must be restarted from a
  fresh list.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

Object = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ObjectList:
    items: list[Object]
    resource_version: str
    continue_token: str | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """A watch event: ``ADDED``, ``MODIFIED``, ``DELETED`` (or ``BOOKMARK``)."""

    type: str
    object: Object

    @property
    def resource_version(self) -> str:
        return str((self.object.get("metadata") or {}).get("resourceVersion", ""))


class WatchStream(Protocol):
    """An open watch; iterate it, or poll with :meth:`next`; :meth:`stop` ends it."""

    def next(self, timeout: float | None = None) -> Event | None: ...

    def stop(self) -> None: ...

    @property
    def stopped(self) -> bool:
        """True once the watch has ended (stopped, or closed by the server)."""
        ...

    def __iter__(self) -> Iterator[Event]: ...


class Client(Protocol):
    """Kubernetes API operations by resource (``pods``, ``deployments``, ...)."""

    def get(self, resource: str, namespace: str | None, name: str) -> Object: ...

    def list(self, resource: str, *, namespace: str | None = None,
             label_selector: str | None = None, field_selector: str | None = None,
             limit: int | None = None, continue_token: str | None = None) -> ObjectList: ...

    def watch(self, resource: str, *, namespace: str | None = None,
              label_selector: str | None = None, field_selector: str | None = None,
              resource_version: str | None = None) -> WatchStream: ...

    def create(self, obj: Mapping[str, Any], *, namespace: str | None = None) -> Object: ...

    def update(self, obj: Mapping[str, Any], *, subresource: str | None = None) -> Object: ...

    def patch(self, resource: str, namespace: str | None, name: str, patch_type: str,
              body: Any, *, subresource: str | None = None,
              field_manager: str | None = None, force: bool = False,
              dry_run: bool = False) -> Object: ...

    def delete(self, resource: str, namespace: str | None, name: str, *,
               grace_period_seconds: int | None = None,
               propagation_policy: str | None = None,
               preconditions: Mapping[str, str] | None = None) -> Object: ...

    def bind(self, namespace: str, name: str, node: str) -> None: ...

    def create_subresource(self, resource: str, namespace: str | None, name: str,
                           subresource: str, body: Mapping[str, Any]) -> Object:
        """POST ``body`` to a create-subresource (``serviceaccounts/<name>/token``
        with a ``TokenRequest``, ...) and return what the server answers (for
        a TokenRequest, the request with its ``status`` filled in). A
        subresource the transport cannot serve raises
        :class:`~minikube_py.api.errors.MethodNotAllowed`."""
        ...


def for_caches(client: Client) -> Client:
    """``client`` for read-only callers: an in-process client that can hand out
    the store's shared decoded objects does (its ``for_caches()``); any other
    client is returned as it is. What it returns must never be changed."""
    make = getattr(client, "for_caches", None)
    return make() if callable(make) else client


def create_unread(client: Client, obj: Mapping[str, Any], *,
                  namespace: str | None = None) -> None:
    """``client.create(obj)`` for a caller that never reads the answer (an
    event recorder: four Events a pod): an in-process client skips decoding
    the stored object (its ``create_unread()``); any other client creates as
    usual and the answer is dropped. Raises as ``create`` does."""
    make = getattr(client, "create_unread", None)
    if callable(make):
        make(obj, namespace=namespace)
    else:
        client.create(obj, namespace=namespace)


def write_batch(client: Client) -> AbstractContextManager[object]:
    """A block in which ``client``'s writes from this thread may go through one
    hold of the backend's write lock (an in-process client's ``write_batch()``);
    any other client gets a block that changes nothing. Each write still
    succeeds or fails on its own. Keep the block short and never wait in it
    for another thread: other writers wait for its end."""
    make = getattr(client, "write_batch", None)
    return make() if callable(make) else contextlib.nullcontext()
