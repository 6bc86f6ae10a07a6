"""Informer: list then watch, handlers in order, relist after expiry heals the cache."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from minikube_py.client.informer import Handlers, Informer, key_of
from minikube_py.client.local import LocalClient
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.waiting import wait_for


def pod(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}


@pytest.fixture
def env(tmp_path: Path):
    store = Store(tmp_path / "s", history_size=5)
    registry = Registry(store)
    registry.ensure_system_namespaces()
    yield store, registry, LocalClient(registry)
    store.close()


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def handlers(self) -> Handlers:
        return Handlers(on_add=lambda o: self._note("add", o),
                        on_update=lambda old, new: self._note("update", new),
                        on_delete=lambda o: self._note("delete", o))

    def _note(self, what: str, obj: dict[str, Any]) -> None:
        with self.lock:
            self.events.append((what, key_of(obj)))

    def at_least(self, n: int) -> list[tuple[str, str]] | None:
        """The calls so far, once there are ``n`` of them (a ``wait_for`` condition)."""
        with self.lock:
            return list(self.events) if len(self.events) >= n else None


def test_lists_then_follows_changes(env):
    _, registry, client = env
    registry.create(pod("a"))
    rec = Recorder()
    inf = Informer(client, "pods", label_selector=None)
    inf.add_handlers(rec.handlers())
    inf.start()
    try:
        assert inf.wait_synced(5)
        registry.create(pod("b"))
        registry.patch("pods", "default", "a", "merge", {"metadata": {"labels": {"x": "1"}}})
        registry.delete("pods", "default", "b")
        assert wait_for(lambda: rec.at_least(4), "4 handler calls", timeout=5) == [
            ("add", "default/a"), ("add", "default/b"),
            ("update", "default/a"), ("delete", "default/b")]
        assert [key_of(o) for o in inf.list()] == ["default/a"]
        assert inf.get("default/a")["metadata"]["labels"] == {"x": "1"}
    finally:
        inf.stop()


def test_selector_scopes_the_cache(env):
    _, registry, client = env
    registry.create(pod("in", app="yes"))
    registry.create(pod("out", app="no"))
    inf = Informer(client, "pods", label_selector="app=yes")
    inf.start()
    try:
        assert inf.wait_synced(5)
        assert [key_of(o) for o in inf.list()] == ["default/in"]
    finally:
        inf.stop()


def test_relist_after_expiry_reports_what_was_missed(env, monkeypatch):
    _, registry, client = env
    registry.create(pod("keep"))
    registry.create(pod("gone"))
    rec = Recorder()
    inf = Informer(client, "pods")
    inf.add_handlers(rec.handlers())
    # Stall the informer's watch so it falls behind the 5-event history.
    real_watch = client.watch
    gate = threading.Event()

    def slow_watch(*args: Any, **kwargs: Any) -> Any:
        gate.wait(5)
        return real_watch(*args, **kwargs)

    monkeypatch.setattr(client, "watch", slow_watch)
    inf.start()
    try:
        assert inf.wait_synced(5)
        registry.delete("pods", "default", "gone")
        for i in range(8):
            registry.create(pod(f"new{i}"))
        gate.set()
        wait_for(lambda: inf.get("default/new7"), "new7 in the cache", timeout=5)
        keys = sorted(key_of(o) for o in inf.list())
        assert keys == sorted(["default/keep"] + [f"default/new{i}" for i in range(8)])
        assert ("delete", "default/gone") in rec.events
    finally:
        inf.stop()


def test_a_failing_handler_does_not_stop_the_informer(env):
    _, registry, client = env
    rec = Recorder()
    inf = Informer(client, "pods")

    def boom(obj: dict[str, Any]) -> None:
        raise RuntimeError("handler bug")

    inf.add_handlers(Handlers(on_add=boom))
    inf.add_handlers(rec.handlers())
    inf.start()
    try:
        assert inf.wait_synced(5)
        registry.create(pod("a"))
        registry.create(pod("b"))
        assert wait_for(lambda: rec.at_least(2), "2 handler calls", timeout=5) == [
            ("add", "default/a"), ("add", "default/b")]
    finally:
        inf.stop()


def test_resync_redelivers_cached_objects(env):
    _, registry, client = env
    registry.create(pod("a"))
    rec = Recorder()
    inf = Informer(client, "pods", resync_period=0.2)
    inf.add_handlers(rec.handlers())
    inf.start()
    try:
        events = wait_for(lambda: rec.at_least(3), "3 handler calls", timeout=5)
        assert events[0] == ("add", "default/a")
        assert events[1:3] == [("update", "default/a"), ("update", "default/a")]
    finally:
        inf.stop()


def test_wait_current_waits_until_the_handlers_ran(env):
    _, registry, client = env
    gate = threading.Event()
    handled: list[str] = []

    def on_add(obj: dict[str, Any]) -> None:
        if obj["metadata"]["name"] == "slow":
            gate.wait(10)
        handled.append(obj["metadata"]["name"])

    inf = Informer(client, "pods")
    inf.add_handlers(Handlers(on_add=on_add))
    inf.start()
    try:
        assert inf.wait_synced(5)
        assert inf.wait_current(0)
        registry.create(pod("slow"))
        registry.create(pod("next"))
        assert not inf.wait_current(0.1)  # "slow"'s handler is still waiting
        gate.set()
        assert inf.wait_current(5)
        assert handled == ["slow", "next"]
    finally:
        gate.set()
        inf.stop()
