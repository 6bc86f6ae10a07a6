"""A real store, registry and in-process client in a temporary directory, with
shared informers, for controller tests that call ``reconcile(key)`` directly.

``Cluster.settle()`` waits (bounded) until every tracked informer's handlers
have seen the store's current state: the cluster's own handlers are added
after the controllers' (at ``start``), and handlers run in order, so once they
have seen a change the controllers' handlers have too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import NotFound
from minikube_py.client.base import Object
from minikube_py.client.informer import Handlers, key_of
from minikube_py.client.local import LocalClient
from minikube_py.client.shared import SharedInformers
from minikube_py.controllers.base import Controller
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.clock import FakeClock

TIMEOUT = 10.0


class RecordingClient:
    """Delegates to a client and records every write, as client-go's fake
    clientset records actions; ``fail`` makes chosen writes raise."""

    def __init__(self, inner: LocalClient) -> None:
        self.inner = inner
        self.actions: list[tuple[Any, ...]] = []
        self.fail: dict[str, Any] = {}  # verb -> callable(args) -> Exception | None
        self._lock = threading.Lock()

    def _record(self, action: tuple[Any, ...]) -> None:
        with self._lock:
            self.actions.append(action)
        check = self.fail.get(action[0])
        if check is not None:
            exc = check(action)
            if exc is not None:
                raise exc

    def writes(self, verb: str | None = None, resource: str | None = None
               ) -> list[tuple[Any, ...]]:
        with self._lock:
            return [a for a in self.actions
                    if (verb is None or a[0] == verb) and (resource is None or a[1] == resource)]

    def clear(self) -> None:
        with self._lock:
            self.actions.clear()

    # reads go straight through
    def get(self, resource: str, namespace: str | None, name: str) -> Object:
        return self.inner.get(resource, namespace, name)

    def list(self, resource: str, **kw: Any) -> Any:
        return self.inner.list(resource, **kw)

    def watch(self, resource: str, **kw: Any) -> Any:
        return self.inner.watch(resource, **kw)

    def create(self, obj: Mapping[str, Any], *, namespace: str | None = None) -> Object:
        kind = str(obj.get("kind", "")).lower() + "s"
        self._record(("create", kind, namespace, obj))
        return self.inner.create(obj, namespace=namespace)

    def update(self, obj: Mapping[str, Any], *, subresource: str | None = None) -> Object:
        kind = str(obj.get("kind", "")).lower() + "s"
        self._record(("update", kind, subresource, obj))
        return self.inner.update(obj, subresource=subresource)

    def patch(self, resource: str, namespace: str | None, name: str, patch_type: str,
              body: Any, *, subresource: str | None = None, field_manager: str | None = None,
              force: bool = False, dry_run: bool = False) -> Object:
        self._record(("patch", resource, namespace, name, patch_type, body, subresource))
        return self.inner.patch(resource, namespace, name, patch_type, body,
                                subresource=subresource, field_manager=field_manager,
                                force=force, dry_run=dry_run)

    def delete(self, resource: str, namespace: str | None, name: str, *,
               grace_period_seconds: int | None = None, propagation_policy: str | None = None,
               preconditions: Mapping[str, str] | None = None) -> Object:
        self._record(("delete", resource, namespace, name,
                      {"grace": grace_period_seconds, "policy": propagation_policy}))
        return self.inner.delete(resource, namespace, name,
                                 grace_period_seconds=grace_period_seconds,
                                 propagation_policy=propagation_policy,
                                 preconditions=preconditions)

    def bind(self, namespace: str, name: str, node: str) -> None:
        self._record(("bind", "pods", namespace, name, node))
        self.inner.bind(namespace, name, node)


class Cluster:
    def __init__(self, root: Path, *, clock: FakeClock | None = None) -> None:
        self.clock = clock
        self.store = Store(root / "state", clock=clock or time.time)
        self.registry = Registry(self.store, clock=clock or time.time)
        self.registry.ensure_system_namespaces()
        self.client = LocalClient(self.registry)
        self.recorder = RecordingClient(self.client)
        self.informers = SharedInformers(self.client)
        self._tracked: list[str] = []
        self._seen: dict[str, dict[str, str]] = {}
        self._cond = threading.Condition()
        self.controllers: list[Controller] = []

    def start(self, resources: Iterable[str] = ("pods", "replicasets")) -> None:
        for resource in resources:
            self._tracked.append(resource)
            self._seen[resource] = {}
            self.informers.get(resource).add_handlers(self._handlers(resource))
        self.informers.start()
        assert self.informers.wait_synced(TIMEOUT)
        self.settle()

    def _handlers(self, resource: str) -> Handlers:
        def put(obj: Object) -> None:
            with self._cond:
                self._seen[resource][key_of(obj)] = obj["metadata"]["resourceVersion"]
                self._cond.notify_all()

        def drop(obj: Object) -> None:
            with self._cond:
                self._seen[resource].pop(key_of(obj), None)
                self._cond.notify_all()

        return Handlers(on_add=put, on_update=lambda _o, n: put(n), on_delete=drop)

    def _caught_up(self, only: Iterable[str] | None = None) -> bool:
        for resource in only or self._tracked:
            stored = {key_of(o): o["metadata"]["resourceVersion"]
                      for o in self.client.list(resource).items}
            if stored != self._seen[resource]:
                return False
        return True

    def settle(self, timeout: float = TIMEOUT, *, only: Iterable[str] | None = None) -> None:
        with self._cond:
            assert self._cond.wait_for(lambda: self._caught_up(only), timeout), \
                "informers did not catch up"

    def stop(self) -> None:
        for c in self.controllers:
            c.stop()
        self.informers.stop()
        # The informers' shared objects were never changed by a controller.
        broken = self.store.verify_shared()
        self.store.close()
        assert broken == (), f"shared cache objects changed: {broken}"

    # ------------------------------------------------------------- helpers

    def get(self, resource: str, namespace: str | None, name: str) -> Object | None:
        """The object, or None if it does not exist; any other error is the test's."""
        try:
            return self.client.get(resource, namespace, name)
        except NotFound:
            return None

    def names(self, resource: str, namespace: str | None = "default") -> list[str]:
        return sorted(o["metadata"]["name"]
                      for o in self.client.list(resource, namespace=namespace).items)

    def events(self, reason: str | None = None) -> list[Object]:
        return [e for e in self.client.list("events").items
                if reason is None or e["reason"] == reason]


def drain(controller: Controller) -> list[str]:
    """The keys waiting in a controller's queue (taken out)."""
    keys = []
    while (key := controller.queue.get(timeout=0)) is not None:
        controller.queue.done(key)
        keys.append(key)
    return keys


def drive(cluster: Cluster, controller: Controller, *, max_steps: int = 200) -> list[str]:
    """Run ``controller`` synchronously: reconcile queued keys until none is left."""
    done = []
    for _ in range(max_steps):
        cluster.settle()
        key = controller.queue.get(timeout=0)
        if key is None:
            return done
        try:
            controller.reconcile(key)
        finally:
            controller.queue.done(key)
        done.append(key)
    raise AssertionError(f"did not converge: {done[-10:]}")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    yield c
    c.stop()


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path, clock=FakeClock())
    yield c
    c.stop()


def pod(name: str, *, labels: Mapping[str, str] | None = None,
        owner: Mapping[str, Any] | None = None, namespace: str = "default",
        finalizers: list[str] | None = None, **extra_meta: Any) -> Object:
    meta: dict[str, Any] = {"name": name, "namespace": namespace,
                            "labels": dict(labels or {"app": "web"}), **extra_meta}
    if owner is not None:
        meta["ownerReferences"] = [dict(owner)]
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}


def replicaset(name: str, replicas: int = 1, *, labels: Mapping[str, str] | None = None,
               selector: Mapping[str, str] | None = None, namespace: str = "default",
               min_ready: int = 0, owner: Mapping[str, Any] | None = None,
               finalizers: list[str] | None = None) -> Object:
    labels = dict(labels or {"app": "web"})
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if owner is not None:
        meta["ownerReferences"] = [dict(owner)]
    if finalizers:
        meta["finalizers"] = finalizers
    spec: dict[str, Any] = {
        "replicas": replicas, "selector": {"matchLabels": dict(selector or labels)},
        "template": {"metadata": {"labels": labels},
                     "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}
    if min_ready:
        spec["minReadySeconds"] = min_ready
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta, "spec": spec}


def ref_to(obj: Mapping[str, Any], *, controller: bool = True, block: bool = True
           ) -> dict[str, Any]:
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"],
            "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"],
            "controller": controller, "blockOwnerDeletion": block}
