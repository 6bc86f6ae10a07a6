"""The in-process client: the control plane's own loops talk to the registry
through it, with the same contract as the HTTP client and no serialisation
beyond what isolation needs (objects are still fresh copies)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any

from ..api import kinds
from ..api.errors import MethodNotAllowed
from ..api.fields import parse_field_selector
from ..api.labels import parse_selector
from ..store import watch as watch_module
from ..store.registry import Registry
from ..store.watch import Watch
from .base import Event, Object, ObjectList


class LocalWatch:
    """A :class:`~.base.WatchStream` over a store watch (``shared``: events
    carry the store's shared, read-only decoded objects)."""

    def __init__(self, watch: Watch, *, shared: bool = False) -> None:
        self._watch = watch
        self._shared = shared

    def next(self, timeout: float | None = None) -> Event | None:
        ev = self._watch.next(timeout)
        if ev is None:
            return None
        return Event(ev.type, ev.shared_object if self._shared else ev.object)

    def stop(self) -> None:
        self._watch.stop()

    @property
    def stopped(self) -> bool:
        return self._watch.stopped

    def wait_consumed(self, timeout: float) -> bool:
        """See :meth:`Watch.wait_consumed <minikube_py.store.watch.Watch.wait_consumed>`."""
        return self._watch.wait_consumed(timeout)

    def __iter__(self) -> Iterator[Event]:
        for ev in self._watch:
            yield Event(ev.type, ev.shared_object if self._shared else ev.object)


class LocalClient:
    """:class:`~.base.Client` over a :class:`Registry` in the same process."""

    def __init__(self, registry: Registry, *, field_manager: str = "minikube-py",
                 shared_reads: bool = False) -> None:
        """``shared_reads``: :meth:`get`, :meth:`list`, :meth:`watch` and what
        :meth:`update` returns are the store's shared decoded objects (one copy
        per process for every cache) instead of fresh ones; only for callers
        that never change what they get (see :meth:`for_caches`)."""
        self.registry = registry
        self.store = registry.store
        self.field_manager = field_manager
        self.shared_reads = shared_reads

    def for_caches(self) -> LocalClient:
        """This client with shared reads, for informers and other read-only
        caches (see :mod:`minikube_py.store.watch`)."""
        return LocalClient(self.registry, field_manager=self.field_manager, shared_reads=True)

    def write_batch(self) -> AbstractContextManager[None]:
        """The store's write lock held for a block of this thread's writes
        (:meth:`Store.exclusive`; see :func:`.base.write_batch`)."""
        return self.store.exclusive()

    def get(self, resource: str, namespace: str | None, name: str) -> Object:
        return self.registry.get(resource, namespace, name, shared=self.shared_reads)

    def list(self, resource: str, *, namespace: str | None = None,
             label_selector: str | None = None, field_selector: str | None = None,
             limit: int | None = None, continue_token: str | None = None) -> ObjectList:
        page = (self.store.list_shared if self.shared_reads else self.store.list)(
            resource, namespace=namespace,
            label_selector=parse_selector(label_selector) if label_selector else None,
            field_selector=parse_field_selector(field_selector) if field_selector else None,
            limit=limit, continue_token=continue_token)
        return ObjectList(page.items, str(page.resource_version), page.continue_token)

    def watch(self, resource: str, *, namespace: str | None = None,
              label_selector: str | None = None, field_selector: str | None = None,
              resource_version: str | None = None) -> LocalWatch:
        # In-process readers (informers, the hollow kubelets) take their events
        # in batches (see store.watch: LINGER); the API server's watches do not.
        return LocalWatch(self.store.watch(
            resource, namespace=namespace,
            label_selector=parse_selector(label_selector) if label_selector else None,
            field_selector=parse_field_selector(field_selector) if field_selector else None,
            resource_version=resource_version, linger=watch_module.LINGER),
            shared=self.shared_reads)

    def create(self, obj: Mapping[str, Any], *, namespace: str | None = None) -> Object:
        return self.registry.create(obj, namespace=namespace)

    def create_unread(self, obj: Mapping[str, Any], *, namespace: str | None = None) -> None:
        """:meth:`create` for a caller that never reads the answer: the stored
        object is not decoded for it (see :func:`.base.create_unread`)."""
        self.registry.create_raw(obj, namespace=namespace)

    def update(self, obj: Mapping[str, Any], *, subresource: str | None = None) -> Object:
        return self.registry.update(obj, subresource=subresource, shared=self.shared_reads)

    def patch(self, resource: str, namespace: str | None, name: str, patch_type: str,
              body: Any, *, subresource: str | None = None,
              field_manager: str | None = None, force: bool = False,
              dry_run: bool = False) -> Object:
        obj, _ = self.registry.patch(resource, namespace, name, patch_type, body,
                                     subresource=subresource,
                                     field_manager=field_manager or self.field_manager,
                                     force=force, dry_run=dry_run)
        return obj

    def delete(self, resource: str, namespace: str | None, name: str, *,
               grace_period_seconds: int | None = None,
               propagation_policy: str | None = None,
               preconditions: Mapping[str, str] | None = None) -> Object:
        return self.registry.delete(resource, namespace, name,
                                    grace_period_seconds=grace_period_seconds,
                                    propagation_policy=propagation_policy,
                                    preconditions=preconditions).object

    def bind(self, namespace: str, name: str, node: str) -> None:
        self.registry.bind(namespace, name, node)

    def create_subresource(self, resource: str, namespace: str | None, name: str,
                           subresource: str, body: Mapping[str, Any]) -> Object:
        """``pods/<name>/binding`` through the registry; the other
        create-subresources (``serviceaccounts/token``) are served by the API
        server only, which holds what they need (the token issuer): this
        raises :class:`~minikube_py.api.errors.MethodNotAllowed` for them."""
        if resource == "pods" and subresource == "binding":
            target = body.get("target") or {}
            self.registry.bind(str(namespace or ""), name, str(target.get("name") or ""))
            return {"kind": "Status", "apiVersion": "v1", "metadata": {},
                    "status": "Success", "code": 201}
        raise MethodNotAllowed(f"the in-process client cannot create {resource}/{subresource}; "
                               "it is served by the API server")

    @staticmethod
    def info(resource: str) -> kinds.KindInfo:
        return kinds.by_plural(resource)
