"""Watch semantics: start points, order, selector transitions, expiry, fan-out."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import BadRequest, Expired
from minikube_py.api.labels import parse_selector
from minikube_py.store.store import Store


def pod(name: str, labels: dict[str, str] | None = None, ns: str = "default") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": {}, "status": {}}


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "s", history_size=50)
    yield s
    s.close()


def drain(watch: Any, n: int) -> list[tuple[str, str]]:
    out = []
    for _ in range(n):
        ev = watch.next(timeout=2)
        assert ev is not None, f"expected {n} events, got {out}"
        out.append((ev.type, ev.object["metadata"]["name"]))
    return out


def test_watch_without_version_lists_then_follows(store: Store):
    store.create("pods", pod("a"))
    store.create("pods", pod("b"))
    w = store.watch("pods")
    store.create("pods", pod("c"))
    store.delete("pods", "default", "a")
    assert drain(w, 4) == [("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c"), ("DELETED", "a")]
    assert w.next(timeout=0.05) is None


def test_watch_from_version_sends_only_later_changes_in_order(store: Store):
    store.create("pods", pod("a"))
    rv = store.resource_version
    obj = store.get("pods", "default", "a")
    obj["metadata"]["labels"] = {"x": "1"}
    store.update("pods", obj)
    store.create("pods", pod("b"))
    w = store.watch("pods", resource_version=str(rv))
    events = [w.next(timeout=1) for _ in range(2)]
    assert [(e.type, e.object["metadata"]["name"]) for e in events if e] == [
        ("MODIFIED", "a"), ("ADDED", "b")]
    versions = [e.resource_version for e in events if e]
    assert versions == sorted(versions) and versions[0] > rv
    assert events[0] is not None
    assert events[0].object["metadata"]["resourceVersion"] == str(versions[0])


def test_watch_only_sees_its_resource_and_namespace(store: Store):
    w = store.watch("pods", namespace="team", resource_version=store.resource_version)
    store.create("pods", pod("other-ns"))
    store.create("nodes", {"metadata": {"name": "n1"}})
    store.create("pods", pod("mine", ns="team"))
    assert drain(w, 1) == [("ADDED", "mine")]
    assert w.next(timeout=0.05) is None


def test_label_transitions_become_added_and_deleted(store: Store):
    w = store.watch("pods", label_selector=parse_selector("app=web"),
                    resource_version=store.resource_version)
    store.create("pods", pod("p", {"app": "db"}))          # not matching: nothing
    obj = store.get("pods", "default", "p")
    obj["metadata"]["labels"] = {"app": "web"}
    store.update("pods", obj)                              # starts matching: ADDED
    obj = store.get("pods", "default", "p")
    obj["metadata"]["annotations"] = {"n": "1"}
    store.update("pods", obj)                              # still matching: MODIFIED
    obj = store.get("pods", "default", "p")
    obj["metadata"]["labels"] = {"app": "db"}
    rv_before = store.resource_version
    store.update("pods", obj)                              # stops matching: DELETED
    events = [w.next(timeout=1) for _ in range(3)]
    assert [e.type for e in events if e] == ["ADDED", "MODIFIED", "DELETED"]
    last = events[2]
    assert last is not None
    # DELETED carries the last matching state at the new version, as Kubernetes does.
    assert last.object["metadata"]["labels"] == {"app": "web"}
    assert last.resource_version == rv_before + 1
    assert last.object["metadata"]["resourceVersion"] == str(rv_before + 1)


def test_too_old_version_is_expired(store: Store):
    store.create("pods", pod("a"))
    first = store.resource_version
    for i in range(60):  # history holds 50
        store.create("pods", pod(f"p{i}"))
    with pytest.raises(Expired, match="too old resource version") as err:
        store.watch("pods", resource_version=first)
    assert err.value.to_status()["code"] == 410
    # A version still inside the history works.
    w = store.watch("pods", resource_version=store.resource_version - 5)
    assert len(drain(w, 5)) == 5


def test_slow_watcher_that_falls_behind_gets_expired(store: Store):
    w = store.watch("pods", resource_version=store.resource_version)
    for i in range(60):
        store.create("pods", pod(f"p{i}"))
    with pytest.raises(Expired):
        w.next(timeout=1)


def test_invalid_resource_version_is_bad_request(store: Store):
    with pytest.raises(BadRequest, match="invalid resourceVersion"):
        store.watch("pods", resource_version="abc")


def test_stop_unblocks_a_waiting_watcher(store: Store):
    w = store.watch("pods", resource_version=store.resource_version)
    got: list[Any] = []
    t = threading.Thread(target=lambda: got.append(w.next()))
    t.start()
    w.stop()
    t.join(timeout=2)
    assert not t.is_alive() and got == [None]


def test_close_ends_iteration(tmp_path: Path):
    s = Store(tmp_path / "s")
    w = s.watch("pods")
    collected: list[Any] = []
    t = threading.Thread(target=lambda: collected.extend(w))
    t.start()
    s.create("pods", pod("a"))
    s.close()
    t.join(timeout=2)
    assert not t.is_alive()
    assert [e.object["metadata"]["name"] for e in collected] == ["a"]


def test_every_watcher_gets_every_event_in_order_under_concurrent_writers(store: Store):
    big = Store(store.directory.parent / "big", history_size=100_000)
    try:
        watchers = [big.watch("pods", resource_version=big.resource_version) for _ in range(5)]
        per_writer = 200

        def writer(w: int) -> None:
            for i in range(per_writer):
                big.create("pods", pod(f"w{w}-{i}"))

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        total = 4 * per_writer
        for w in watchers:
            versions = []
            for _ in range(total):
                ev = w.next(timeout=2)
                assert ev is not None
                versions.append(ev.resource_version)
            assert versions == sorted(versions) and len(set(versions)) == total
            assert w.next(timeout=0.01) is None
    finally:
        big.close()


def test_watch_event_json_line(store: Store):
    w = store.watch("pods", resource_version=store.resource_version)
    store.create("pods", pod("a"))
    ev = w.next(timeout=1)
    assert ev is not None
    import json
    line = json.loads(ev.to_json())
    assert line["type"] == "ADDED" and line["object"]["metadata"]["name"] == "a"
