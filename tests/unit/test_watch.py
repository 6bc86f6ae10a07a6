"""Watch semantics: start points, order, selector transitions, expiry, fan-out."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import BadRequest, Expired
from minikube_py.api.fields import parse_field_selector
from minikube_py.api.labels import parse_selector
from minikube_py.client.local import LocalClient
from minikube_py.store import watch as watch_module
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from minikube_py.store.watch import Watch, decode_shared
from tests.waiting import blocked_in, wait_for


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


def test_a_watch_from_any_version_the_full_history_holds_starts_right_after_it(store: Store):
    """The history is a ring of 50 that has wrapped; versions of other kinds fall
    between the pods' ones. Each start point gets exactly the later pod changes."""
    pod_rvs: list[tuple[int, str]] = []
    for i in range(130):
        created = store.create("pods", pod(f"p{i}"))
        pod_rvs.append((int(created["metadata"]["resourceVersion"]), f"p{i}"))
        if i % 3 == 0:  # a version the pods' history does not hold
            store.create("configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                                        "metadata": {"name": f"c{i}", "namespace": "default"}})
    retained = pod_rvs[-50:]
    oldest = retained[0][0]
    for start in range(oldest - 1, store.resource_version + 1):
        w = store.watch("pods", resource_version=str(start))
        later = [name for rv, name in retained if rv > start]
        assert drain(w, len(later)) == [("ADDED", name) for name in later], start
        assert w.next(timeout=0) is None
        w.stop()
    with pytest.raises(Expired):
        store.watch("pods", resource_version=str(oldest - 2))


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


# ---------------------------------------------------------------- dispatch by index

def bound(name: str, node: str, ns: str = "default") -> dict[str, Any]:
    p = pod(name, ns=ns)
    p["spec"] = {"nodeName": node}
    return p


def test_a_write_reaches_only_the_watchers_whose_key_it_matches(store: Store):
    rv = store.resource_version
    per_node = [store.watch("pods", field_selector=parse_field_selector(f"spec.nodeName=n{i}"),
                            resource_version=rv) for i in range(50)]
    other_ns = store.watch("pods", namespace="team", resource_version=rv)
    by_name = store.watch("pods", field_selector=parse_field_selector("metadata.name=zzz"),
                          resource_version=rv)
    everything = store.watch("pods", resource_version=rv)
    store.create("pods", bound("p", "n7"))
    assert [w.queued for w in per_node] == [1 if i == 7 else 0 for i in range(50)]
    assert (other_ns.queued, by_name.queued, everything.queued) == (0, 0, 1)
    assert drain(per_node[7], 1) == [("ADDED", "p")]
    assert drain(everything, 1) == [("ADDED", "p")]
    store.create("pods", bound("q", "n7", ns="team"))
    assert (other_ns.queued, per_node[7].queued, per_node[8].queued) == (1, 1, 0)
    assert drain(other_ns, 1) == [("ADDED", "q")]


def test_a_change_of_the_indexed_value_reaches_the_old_and_the_new_key(store: Store):
    # status.phase is an indexed pod field that changes: the watcher of the value
    # the pod leaves sees it go (DELETED), the watcher of the new value sees it come.
    store.create("pods", {**pod("p"), "status": {"phase": "Pending"}})
    rv = store.resource_version
    pending = store.watch("pods", field_selector=parse_field_selector("status.phase=Pending"),
                          resource_version=rv)
    running = store.watch("pods", field_selector=parse_field_selector("status.phase=Running"),
                          resource_version=rv)
    failed = store.watch("pods", field_selector=parse_field_selector("status.phase=Failed"),
                         resource_version=rv)
    obj = store.get("pods", "default", "p")
    obj["status"] = {"phase": "Running"}
    store.update("pods", obj)
    assert drain(pending, 1) == [("DELETED", "p")]
    assert drain(running, 1) == [("ADDED", "p")]
    assert failed.queued == 0 and failed.next(timeout=0.05) is None


def test_a_keyed_watch_from_a_version_catches_up_with_its_own_changes_only(store: Store):
    rv = store.resource_version
    store.create("pods", bound("a", "n1"))
    store.create("pods", bound("b", "n2"))
    store.create("pods", bound("c", "n1"))
    w = store.watch("pods", field_selector=parse_field_selector("spec.nodeName=n1"),
                    resource_version=rv)
    assert drain(w, 2) == [("ADDED", "a"), ("ADDED", "c")]
    assert w.next(timeout=0.05) is None


def test_stopped_watchers_are_unsubscribed(store: Store):
    history = store._tables["pods"].history
    before = history.watcher_count()
    watches = [store.watch("pods", field_selector=parse_field_selector(f"spec.nodeName=n{i}"))
               for i in range(10)] + [store.watch("pods"), store.watch("pods", namespace="x")]
    assert history.watcher_count() == before + 12
    for w in watches:
        w.stop()
    assert history.watcher_count() == before
    assert history._index == {}


@pytest.mark.parametrize("namespace, selector, key", [
    (None, "", None),
    ("team", "", ("metadata.namespace", "team")),
    ("team", "spec.nodeName=n1", ("spec.nodeName", "n1")),
    (None, "spec.nodeName=n1,metadata.name=p", ("metadata.name", "p")),
    (None, "spec.nodeName!=n1", None),
    (None, "spec.nodeName=", ("spec.nodeName", "")),
    (None, "metadata.namespace=kube-system", ("metadata.namespace", "kube-system")),
])
def test_index_key_is_the_most_selective_equality(store: Store, namespace: str | None,
                                                  selector: str, key: Any):
    w = store.watch("pods", namespace=namespace,
                    field_selector=parse_field_selector(selector) if selector else None)
    assert w.key == key


# ---------------------------------------------------------------- shared decoded objects

def test_caches_share_one_decoded_object_per_current_version(store: Store):
    store.create("pods", bound("p", "n1"))
    rv = store.resource_version - 1
    a = store.watch("pods", resource_version=rv)
    b = store.watch("pods", field_selector=parse_field_selector("spec.nodeName=n1"),
                    resource_version=rv)
    ea, eb = a.next(timeout=1), b.next(timeout=1)
    assert ea is not None and eb is not None
    shared = ea.shared_object
    assert eb.shared_object is shared
    assert store.list_shared("pods").items[0] is shared
    # The ordinary paths still hand out fresh copies.
    assert ea.object is not shared and ea.object == shared
    assert store.list("pods").items[0] is not shared


def test_a_replaced_version_lets_its_shared_object_go(store: Store):
    store.create("pods", bound("p", "n1"))
    table = store._tables["pods"]
    first = table.entries["default/p"]
    before = first.shared()
    obj = store.get("pods", "default", "p")
    obj["metadata"]["labels"] = {"v": "2"}
    store.update("pods", obj)
    current = table.entries["default/p"]
    assert first._obj is None and current is not first
    # The old version, still in the history ring, decodes again and pins nothing.
    again = first.shared()
    assert again == before and first._obj is None
    assert current.shared() is current.shared()
    store.delete("pods", "default", "p")
    assert current._obj is None


def test_verify_shared_finds_a_changed_shared_object(store: Store):
    store.create("pods", bound("p", "n1"))
    assert store.verify_shared() == ()
    store.list_shared("pods").items[0]["spec"]["nodeName"] = "elsewhere"  # a broken promise
    assert store.verify_shared() == ("pods/default/p",)


# ------------------------------------------------------------ shared copies, interned


@pytest.mark.parametrize("raw", [
    '{}',
    '{"a":1,"b":[1,"x",{"c":null}],"d":{"e":true,"f":1.5,"g":"' + "y" * 65 + '"}}',
    '{"dup":1,"dup":2}',  # the last one wins, as with json.loads
    # The integers at the ends of what the store writes (api/jsontext.py).
    '{"s":"caf\\u00e9 \\ud83d\\ude00","n":-0.0,"big":18446744073709551615,'
    '"low":-9223372036854775808}',
    '{"pad":"' + "p" * 1100 + '","big":18446744073709551615,"low":-9223372036854775808}',
])
def test_decode_shared_is_json_loads(raw: str) -> None:
    assert decode_shared(raw) == json.loads(raw)
    assert repr(decode_shared(raw)) == repr(json.loads(raw))


def test_shared_copies_of_two_objects_share_their_keys_and_short_values(store: Store) -> None:
    long = "z" * 65
    # A pod of a few kilobytes (small texts are decoded plainly: see shared_json).
    spec = {"containers": [{"name": f"c{i}", "image": "busybox"} for i in range(40)]}
    for name, phase in (("a", "Running"), ("b", "Pending")):
        store.create("pods", {**pod(name, {"app": "web"}), "spec": spec,
                              "status": {"phase": phase, "message": long}})
    a = store.get_shared("pods", "default", "a")
    b = store.get_shared("pods", "default", "b")
    key = lambda d, k: next(x for x in d if x == k)  # noqa: E731 - the dict's own key object
    assert key(a["status"], "phase") is key(b["status"], "phase")
    assert key(a["metadata"]["labels"], "app") is key(b["metadata"]["labels"], "app")
    assert a["metadata"]["labels"]["app"] is b["metadata"]["labels"]["app"]
    # Equal parts are one object; long values are not interned (they rarely
    # repeat); fresh copies share nothing.
    assert a["metadata"]["labels"] is b["metadata"]["labels"]
    assert a["status"] is not b["status"]
    assert a["status"]["message"] is not b["status"]["message"]
    assert a["spec"] is b["spec"]
    fresh = store.get("pods", "default", "b")
    assert fresh["status"]["phase"] == "Pending"
    assert fresh["metadata"]["labels"] is not b["metadata"]["labels"]


def _reader(watch: Any, got: list[str], first: threading.Event, n: int) -> threading.Thread:
    def read() -> None:
        for _ in range(n):
            ev = watch.next(timeout=30)  # far longer than the waits below
            if ev is None:
                return
            got.append(ev.object["metadata"]["name"])
            first.set()
    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


def test_writes_in_an_exclusive_block_wake_a_waiting_watcher_once_at_its_end(store: Store):
    """500 lease renewals a second must not each wake the watchers (and take the
    interpreter lock from the writer): a block's events are queued at once and
    its watchers woken when it ends, nested blocks at the outermost end."""
    w = store.watch("pods", resource_version=str(store.resource_version))
    got: list[str] = []
    first = threading.Event()
    reader = _reader(w, got, first, 4)
    with store.exclusive():
        store.create("pods", pod("a"))
        with store.exclusive():
            store.create("pods", pod("b"))
        store.create("pods", pod("c"))
        assert w.queued == 3  # queued at once, in order
        # A reader woken per write would have its first event by now.
        assert not first.wait(0.3), f"woken inside the block: {got}"
    assert first.wait(3)
    store.create("pods", pod("d"))  # outside a block: woken at once, as before
    reader.join(5)
    assert got == ["a", "b", "c", "d"]
    w.stop()


def test_a_block_that_fails_still_wakes_the_watchers_of_its_writes(store: Store):
    w = store.watch("pods", resource_version=str(store.resource_version))
    got: list[str] = []
    first = threading.Event()
    reader = _reader(w, got, first, 1)
    with pytest.raises(RuntimeError), store.exclusive():
        store.create("pods", pod("a"))
        raise RuntimeError("the caller's own failure")
    assert first.wait(3)
    reader.join(5)
    assert got == ["a"]
    assert w.next(timeout=0) is None
    w.stop()


def test_a_reader_that_is_awake_sees_a_blocks_events_before_it_ends(store: Store):
    w = store.watch("pods", resource_version=str(store.resource_version))
    with store.exclusive():
        store.create("pods", pod("a"))
        event = w.next(timeout=0.5)
        assert event is not None and event.object["metadata"]["name"] == "a"
    w.stop()


# ------------------------------------------------------------------ wait_consumed


def test_wait_consumed_holds_until_the_reader_comes_back_for_more(store: Store):
    w = store.watch("pods", resource_version=store.resource_version)
    assert w.wait_consumed(0)  # nothing queued
    store.create("pods", pod("a"))
    assert not w.wait_consumed(0.05)  # queued, unread
    event = w.next(timeout=1)
    assert event is not None and event.object["metadata"]["name"] == "a"
    assert not w.wait_consumed(0.05)  # handed out: the reader may still be handling it
    assert w.next(timeout=0) is None  # back for more: it has handled "a"
    assert w.wait_consumed(0)


def _blocked_waiter(w: Watch) -> tuple[threading.Thread, list[bool]]:
    """A thread in ``w.wait_consumed(10)``, once it is asleep there, and the
    list its answer goes to."""
    got: list[bool] = []
    waiter = threading.Thread(target=lambda: got.append(w.wait_consumed(10)))
    waiter.start()
    wait_for(lambda: blocked_in(waiter, Watch.wait_consumed), "the waiter to block")
    return waiter, got


def test_wait_consumed_wakes_a_waiter_when_the_reader_comes_back(store: Store):
    w = store.watch("pods", resource_version=store.resource_version)
    store.create("pods", pod("a"))
    waiter, got = _blocked_waiter(w)
    assert w.next(timeout=1) is not None
    assert got == []  # still handling the event
    assert w.next(timeout=0) is None
    waiter.join(5)
    assert got == [True]


def test_changes_the_reader_does_not_match_do_not_hold_up_a_waiter(store: Store):
    # An unindexed watcher is offered every change and filters for itself.
    w = store.watch("pods", label_selector=parse_selector("app=yes"),
                    resource_version=store.resource_version)
    got: list[Any] = []
    reader = threading.Thread(target=lambda: got.append(w.next()))
    reader.start()
    wait_for(lambda: blocked_in(reader, Watch.next), "the reader to block")
    store.create("pods", pod("other", {"app": "no"}))
    assert w.wait_consumed(5)  # the reader never returned, and needs not
    assert got == []
    w.stop()
    reader.join(2)
    assert got == [None]


def test_a_waiter_is_released_when_the_watch_ends(store: Store):
    w = store.watch("pods", resource_version=store.resource_version)
    store.create("pods", pod("a"))
    waiter, got = _blocked_waiter(w)
    w.stop()
    waiter.join(5)
    assert got == [True]


# ---------------------------------------------------------------- lingering


def timed_reader(watch: Any, n: int) -> tuple[threading.Thread, list[tuple[float, str]]]:
    """A thread reading ``n`` events, noting when each came back."""
    got: list[tuple[float, str]] = []

    def read() -> None:
        for _ in range(n):
            ev = watch.next(timeout=5)
            assert ev is not None
            got.append((time.monotonic(), ev.object["metadata"]["name"]))

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t, got


def spaced_writes(store: Store, reader: threading.Thread) -> float:
    """Write "a" once ``reader`` waits, then "b", "c", "d" a tenth of a second
    later; returns when "a" was written."""
    wait_for(lambda: blocked_in(reader, Watch.next), "the reader waiting")
    first = time.monotonic()
    store.create("pods", pod("a"))
    # The scenario itself, not a wait for a condition: the next writes come a
    # tenth of a second later, while a lingering reader lingers (or long after
    # one that does not took "a").
    time.sleep(0.1)
    for name in ("b", "c", "d"):
        store.create("pods", pod(name))
    return first


def check_batched(got: list[tuple[float, str]], first: float, batched: bool) -> None:
    assert [name for _, name in got] == ["a", "b", "c", "d"]
    spread = got[-1][0] - got[0][0]
    if batched:
        assert got[0][0] - first >= 0.25  # "a" waited out the linger...
        assert spread < 0.05              # ...and brought the later writes along
    else:
        assert got[0][0] - first < 0.09   # "a" at once, the rest a tenth later
        assert spread >= 0.09


@pytest.mark.parametrize("linger, batched", [(0.3, True), (0.0, False)])
def test_a_woken_reader_lingers_so_later_writes_come_in_the_same_batch(
        store: Store, linger: float, batched: bool):
    w = store.watch("pods", resource_version=str(store.resource_version), linger=linger)
    reader, got = timed_reader(w, 4)
    first = spaced_writes(store, reader)
    reader.join(5)
    check_batched(got, first, batched)


def test_in_process_clients_linger_and_the_api_servers_watches_do_not(
        store: Store, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(watch_module, "LINGER", 0.3)
    client = LocalClient(Registry(store))
    rv = str(store.resource_version)
    local = client.watch("pods", resource_version=rv)
    served = store.watch("pods", resource_version=rv)  # as the API server opens it
    local_reader, local_got = timed_reader(local, 4)
    served_reader, served_got = timed_reader(served, 4)
    wait_for(lambda: blocked_in(served_reader, Watch.next), "the served watch waiting")
    first = spaced_writes(store, local_reader)
    local_reader.join(5)
    served_reader.join(5)
    check_batched(local_got, first, batched=True)
    check_batched(served_got, first, batched=False)


def test_a_reader_with_a_batch_waiting_does_not_linger(store: Store):
    w = store.watch("pods", resource_version=str(store.resource_version), linger=5.0)
    for i in range(watch_module.LINGER_BATCH):
        store.create("pods", pod(f"p{i}"))
    started = time.monotonic()
    assert w.next(timeout=10) is not None
    assert time.monotonic() - started < 2.5


def test_lingering_never_outlasts_the_readers_timeout(store: Store):
    w = store.watch("pods", resource_version=str(store.resource_version), linger=5.0)
    store.create("pods", pod("a"))
    started = time.monotonic()
    ev = w.next(timeout=0.2)
    assert ev is not None and ev.object["metadata"]["name"] == "a"  # not a timeout
    assert time.monotonic() - started < 2.5
