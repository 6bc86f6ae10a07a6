"""The store's contract: CRUD with compare-and-swap, graceful deletion, selectors,
paging, durability across reopen, the TinyDB file, journal damage, locking."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from tinydb import TinyDB

from minikube_py.api.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Invalid,
    NotFound,
)
from minikube_py.api.fields import parse_field_selector
from minikube_py.api.labels import parse_selector
from minikube_py.store import journal as journal_mod
from minikube_py.store import watch as watch_module
from minikube_py.store.journal import JournalCorrupt, list_segments
from minikube_py.store.lockfile import StateDirLocked
from minikube_py.store.shared_json import SharedDecoder
from minikube_py.store.store import Store, StoreWriteError
from tests.clock import FakeClock


def pod(name: str, ns: str = "default", labels: dict[str, str] | None = None,
        node: str = "", phase: str = "Pending", **meta: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}",
                     "labels": labels or {}, **meta},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        "status": {"phase": phase},
    }
    if node:
        obj["spec"]["nodeName"] = node
    return obj


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_700_000_000.0)


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock):
    s = Store(tmp_path / "state", clock=clock)
    yield s
    s.close()


# ------------------------------------------------------------------------ basic CRUD


def test_create_get_assigns_increasing_resource_versions_across_resources(store: Store):
    a = store.create("pods", pod("a"))
    n = store.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    b = store.create("pods", pod("b"))
    rvs = [int(o["metadata"]["resourceVersion"]) for o in (a, n, b)]
    assert rvs == sorted(rvs) and len(set(rvs)) == 3
    assert store.resource_version == rvs[-1]
    assert store.get("pods", "default", "a") == a
    assert store.get("nodes", None, "n1")["metadata"]["name"] == "n1"


def test_returned_objects_are_isolated_from_the_store(store: Store):
    created = store.create("pods", pod("a", labels={"app": "x"}))
    created["metadata"]["labels"]["app"] = "changed"
    got = store.get("pods", "default", "a")
    got["spec"]["containers"].append({"name": "evil"})
    again = store.get("pods", "default", "a")
    assert again["metadata"]["labels"] == {"app": "x"}
    assert len(again["spec"]["containers"]) == 1


def test_input_objects_are_not_mutated(store: Store):
    src = pod("a")
    before = json.dumps(src, sort_keys=True)
    store.create("pods", src)
    assert json.dumps(src, sort_keys=True) == before


def test_create_existing_is_already_exists(store: Store):
    store.create("pods", pod("a"))
    with pytest.raises(AlreadyExists) as err:
        store.create("pods", pod("a"))
    assert str(err.value) == 'pods "a" already exists'
    assert err.value.to_status()["code"] == 409


def test_same_name_in_two_namespaces_is_two_objects(store: Store):
    store.create("pods", pod("a", ns="one"))
    store.create("pods", pod("a", ns="two"))
    assert store.count("pods") == 2


def test_get_missing_is_not_found_with_group_for_apps(store: Store):
    with pytest.raises(NotFound) as err:
        store.get("pods", "default", "nope")
    assert str(err.value) == 'pods "nope" not found'
    with pytest.raises(NotFound) as err2:
        store.get("deployments", "default", "web")
    assert str(err2.value) == 'deployments.apps "web" not found'
    assert err2.value.to_status()["details"] == {"name": "web", "kind": "deployments",
                                                 "group": "apps"}


def test_unknown_resource_is_not_found(store: Store):
    with pytest.raises(NotFound):
        store.create("widgets", {"metadata": {"name": "x"}})


@pytest.mark.parametrize("obj, fragment", [
    ({"kind": "Pod"}, "metadata is required"),
    ({"metadata": {"namespace": "default"}}, "metadata.name is required"),
    ({"metadata": {"name": "a"}}, "metadata.namespace is required"),
    ({"metadata": {"name": "a", "namespace": "d", "x": float("nan")}}, "not valid JSON"),
    # What the store could not read back exactly (api/jsontext.py).
    ({"metadata": {"name": "a", "namespace": "d"}, "x": [2**64]}, "not valid JSON: .*64-bit"),
    ({"metadata": {"name": "a", "namespace": "d"}, "x": {1: "a"}}, "not valid JSON"),
    ({"metadata": {"name": "a", "namespace": "d"}, "x": "\ud800"}, "not valid JSON"),
])
def test_create_rejects_unkeyable_objects(store: Store, obj: dict[str, Any], fragment: str):
    with pytest.raises(BadRequest, match=fragment):
        store.create("pods", obj)
    assert store.count("pods") == 0


def test_cluster_scoped_objects_ignore_namespace(store: Store):
    store.create("nodes", {"metadata": {"name": "n1", "namespace": "ignored"}})
    assert store.get("nodes", None, "n1")["metadata"]["name"] == "n1"


# ------------------------------------------------------------------------ update / CAS


def test_update_with_current_version_succeeds_and_bumps_version(store: Store):
    created = store.create("pods", pod("a"))
    created["status"]["phase"] = "Running"
    updated = store.update("pods", created)
    assert (int(updated["metadata"]["resourceVersion"])
            > int(created["metadata"]["resourceVersion"]))
    assert store.get("pods", "default", "a")["status"]["phase"] == "Running"


def test_update_with_stale_version_is_conflict_and_changes_nothing(store: Store):
    created = store.create("pods", pod("a"))
    first = dict(created, status={"phase": "Running"})
    store.update("pods", first)
    stale = dict(created, status={"phase": "Failed"})
    with pytest.raises(Conflict) as err:
        store.update("pods", stale)
    assert str(err.value) == (
        'Operation cannot be fulfilled on pods "a": the object has been '
        "modified; please apply your changes to the latest version and try again")
    assert store.get("pods", "default", "a")["status"]["phase"] == "Running"


def test_update_without_version_is_unconditional(store: Store):
    store.create("pods", pod("a"))
    obj = pod("a", phase="Succeeded")
    obj["metadata"].pop("resourceVersion", None)
    assert store.update("pods", obj)["status"]["phase"] == "Succeeded"


def test_update_missing_is_not_found(store: Store):
    with pytest.raises(NotFound):
        store.update("pods", pod("ghost"))


def test_noop_update_writes_nothing_and_sends_no_event(store: Store):
    created = store.create("pods", pod("a"))
    rv = store.resource_version
    watch = store.watch("pods", resource_version=rv)
    same = store.update("pods", json.loads(json.dumps(created)))
    assert same == created
    assert store.resource_version == rv
    assert watch.next(timeout=0.05) is None


@pytest.mark.parametrize("annotations", [
    {},
    # The old version's text elsewhere in the object: only metadata's own changes.
    {"resourceVersion": "OLD"},
    {"note": '"resourceVersion":"OLD"', "resourceVersion": "OLD"},
])
def test_update_stores_exactly_the_new_version_text(store: Store,
                                                     annotations: dict[str, str]) -> None:
    created = store.create("pods", pod("a"))
    old_rv = created["metadata"]["resourceVersion"]
    wanted = {k: v.replace("OLD", old_rv) for k, v in annotations.items()}
    changed = dict(created, metadata={**created["metadata"], "annotations": wanted},
                   status={"phase": "Running"})
    updated = store.update("pods", changed)
    new_rv = updated["metadata"]["resourceVersion"]
    assert new_rv != old_rv
    assert updated["metadata"]["annotations"] == wanted  # never rewritten
    raw = store.get_raw("pods", "default", "a")
    assert raw == json.dumps({**changed, "metadata": {**changed["metadata"],
                                                      "resourceVersion": new_rv}},
                             separators=(",", ":"))
    store.close()
    reopened = Store(store.directory)
    try:
        assert reopened.get_raw("pods", "default", "a") == raw
    finally:
        reopened.close()


def test_shared_reads_and_results_are_the_one_decoded_copy(store: Store) -> None:
    created = store.create("pods", pod("a"))
    shared = store.get_shared("pods", "default", "a")
    assert shared is store.get_shared("pods", "default", "a")
    assert store.get("pods", "default", "a") is not shared
    updated = store.update("pods", dict(created, status={"phase": "Running"}), shared=True)
    assert updated is store.get_shared("pods", "default", "a")
    assert updated["status"]["phase"] == "Running"
    same = store.update("pods", json.loads(json.dumps(updated)), shared=True)
    assert same is updated  # a no-op update hands back the current shared copy
    assert store.verify_shared() == ()


def test_a_shared_update_takes_the_unchanged_parts_from_the_version_before(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # A decoder that remembers one part: what is shared comes from the version
    # before, not from the decoder's memory of equal parts.
    monkeypatch.setattr(watch_module, "_SHARED_DECODER", SharedDecoder(limit=1))
    # Large enough (1 KB) for the sharing decoder; a bind, then a status write.
    big = pod("a", labels={"app": "web"})
    big["spec"]["containers"] = [{"name": f"c{i}", "image": "busybox", "args": ["sleep", "1"]}
                                 for i in range(20)]
    store.create("pods", big)
    before = store.get_shared("pods", "default", "a")
    bound = store.guaranteed_update(
        "pods", "default", "a", lambda p: {**p, "spec": {**p["spec"], "nodeName": "n1"}},
        shared=True)
    assert bound is store.get_shared("pods", "default", "a")
    assert bound["spec"]["nodeName"] == "n1"
    assert bound["spec"]["containers"] is before["spec"]["containers"]
    assert bound["metadata"]["labels"] is before["metadata"]["labels"]
    assert bound["status"] is before["status"]
    running = store.update("pods", dict(json.loads(json.dumps(bound)),
                                        status={"phase": "Running"}), shared=True)
    assert running["status"] == {"phase": "Running"}
    assert running["spec"] is bound["spec"]
    assert before["spec"].get("nodeName") is None  # the old copies are left as they were
    assert store.verify_shared() == ()
    assert running == json.loads(store.get_raw("pods", "default", "a"))


def test_guaranteed_update_retries_until_it_wins(store: Store):
    store.create("pods", pod("counter", **{"annotations": {"n": "0"}}))

    def bump(obj: dict[str, Any]) -> dict[str, Any]:
        obj["metadata"]["annotations"]["n"] = str(int(obj["metadata"]["annotations"]["n"]) + 1)
        return obj

    threads = [threading.Thread(target=lambda: [store.guaranteed_update(
        "pods", "default", "counter", bump) for _ in range(50)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get("pods", "default", "counter")["metadata"]["annotations"]["n"] == "200"


# ------------------------------------------------------------------------ deletion


def test_delete_without_grace_or_finalizers_removes_now(store: Store):
    store.create("pods", pod("a"))
    result = store.delete("pods", "default", "a")
    assert result.finished and result.object["metadata"]["name"] == "a"
    with pytest.raises(NotFound):
        store.get("pods", "default", "a")


def test_graceful_delete_sets_deletion_timestamp_and_keeps_object(store: Store, clock: FakeClock):
    store.create("pods", pod("a", generation=1))
    result = store.delete("pods", "default", "a", grace_period_seconds=30)
    meta = result.object["metadata"]
    assert not result.finished
    assert meta["deletionTimestamp"] == "2023-11-14T22:13:50Z"  # clock + 30 s
    assert meta["deletionGracePeriodSeconds"] == 30
    assert meta["generation"] == 2
    # A second delete may shorten the grace period ...
    shorter = store.delete("pods", "default", "a", grace_period_seconds=5).object["metadata"]
    assert shorter["deletionGracePeriodSeconds"] == 5
    # ... but never lengthen it.
    longer = store.delete("pods", "default", "a", grace_period_seconds=60).object["metadata"]
    assert longer["deletionGracePeriodSeconds"] == 5
    # The kubelet's final delete with grace 0 removes it.
    assert store.delete("pods", "default", "a", grace_period_seconds=0).finished


def test_deletion_fields_cannot_be_changed_by_update(store: Store):
    store.create("pods", pod("a"))
    deleting = store.delete("pods", "default", "a", grace_period_seconds=30).object
    deleting["metadata"].pop("deletionTimestamp")
    deleting["status"]["phase"] = "Running"
    updated = store.update("pods", deleting)
    assert "deletionTimestamp" in updated["metadata"]
    fresh = store.create("pods", pod("b"))
    fresh["metadata"]["deletionTimestamp"] = "2020-01-01T00:00:00Z"
    assert "deletionTimestamp" not in store.update("pods", fresh)["metadata"]


def test_finalizers_hold_deletion_until_removed(store: Store):
    store.create("deployments", {"metadata": {"name": "d", "namespace": "default",
                                              "finalizers": ["example.com/hold"]}})
    held = store.delete("deployments", "default", "d")
    assert not held.finished
    assert held.object["metadata"]["deletionGracePeriodSeconds"] == 0
    watch = store.watch("deployments", resource_version=store.resource_version)
    obj = store.get("deployments", "default", "d")
    obj["metadata"]["finalizers"] = []
    store.update("deployments", obj)
    with pytest.raises(NotFound):
        store.get("deployments", "default", "d")
    event = watch.next(timeout=1)
    assert event is not None and event.type == "DELETED"


def test_no_new_finalizers_while_deleting(store: Store):
    store.create("pods", pod("a", finalizers=["a.io/x"]))
    obj = store.delete("pods", "default", "a").object
    obj["metadata"]["finalizers"].append("b.io/y")
    with pytest.raises(Invalid) as err:
        store.update("pods", obj)
    assert str(err.value) == (
        'Pod "a" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added '
        'if the object is being deleted, found new finalizers ["b.io/y"]')


@pytest.mark.parametrize("policy, finalizer", [
    ("Foreground", "foregroundDeletion"),
    ("Orphan", "orphan"),
])
def test_propagation_policy_adds_gc_finalizer(store: Store, policy: str, finalizer: str):
    store.create("replicasets", {"metadata": {"name": "rs", "namespace": "default"}})
    result = store.delete("replicasets", "default", "rs", propagation_policy=policy)
    assert not result.finished
    assert result.object["metadata"]["finalizers"] == [finalizer]


def test_bad_propagation_policy_is_bad_request(store: Store):
    store.create("pods", pod("a"))
    with pytest.raises(BadRequest, match="propagationPolicy"):
        store.delete("pods", "default", "a", propagation_policy="Sideways")


@pytest.mark.parametrize("precondition, what", [
    ({"uid": "other"}, "UID"),
    ({"resourceVersion": "1"}, "ResourceVersion"),
])
def test_delete_preconditions(store: Store, precondition: dict[str, str], what: str):
    store.create("pods", pod("x"))
    store.create("pods", pod("a"))
    with pytest.raises(Conflict, match=rf"Precondition failed: {what} in precondition"):
        store.delete("pods", "default", "a", preconditions=precondition)
    assert store.get("pods", "default", "a")


# ------------------------------------------------------------------------ list


@pytest.fixture
def populated(store: Store) -> Store:
    store.create("pods", pod("web-1", labels={"app": "web", "tier": "fe"}, node="n1",
                             phase="Running"))
    store.create("pods", pod("web-2", labels={"app": "web", "tier": "fe"}, node="n2"))
    store.create("pods", pod("db-1", labels={"app": "db"}, node="n1", phase="Running"))
    store.create("pods", pod("job-1", ns="batch", labels={"app": "job"}))
    store.create("events", {"metadata": {"name": "e1", "namespace": "default"},
                            "involvedObject": {"kind": "Pod", "name": "web-1"},
                            "reason": "Scheduled", "type": "Normal",
                            "source": {"component": "default-scheduler"}})
    return store


def names(result: Any) -> list[str]:
    return [o["metadata"]["name"] for o in result.items]


@pytest.mark.parametrize("namespace, labels, fields, expected", [
    (None, "", "", ["job-1", "db-1", "web-1", "web-2"]),  # sorted by namespace/name
    ("default", "", "", ["db-1", "web-1", "web-2"]),
    (None, "app=web", "", ["web-1", "web-2"]),
    (None, "app!=web", "", ["job-1", "db-1"]),
    (None, "app in (db,job)", "", ["job-1", "db-1"]),
    (None, "app notin (db,job)", "", ["web-1", "web-2"]),
    (None, "tier", "", ["web-1", "web-2"]),
    (None, "!tier", "", ["job-1", "db-1"]),
    (None, "", "spec.nodeName=n1", ["db-1", "web-1"]),
    (None, "", "spec.nodeName=", ["job-1"]),
    (None, "", "status.phase!=Running", ["job-1", "web-2"]),
    (None, "app=web", "status.phase=Running", ["web-1"]),
    (None, "", "metadata.name=web-2", ["web-2"]),
    (None, "", "metadata.namespace=batch", ["job-1"]),
])
def test_list_filters(populated: Store, namespace: str | None, labels: str, fields: str,
                      expected: list[str]):
    result = populated.list("pods", namespace=namespace,
                            label_selector=parse_selector(labels) if labels else None,
                            field_selector=parse_field_selector(fields) if fields else None)
    assert names(result) == expected
    assert result.resource_version == populated.resource_version


def test_list_event_field_selectors(populated: Store):
    sel = parse_field_selector("involvedObject.name=web-1,source=default-scheduler")
    assert names(populated.list("events", field_selector=sel)) == ["e1"]
    sel = parse_field_selector("involvedObject.name=other")
    assert names(populated.list("events", field_selector=sel)) == []


def test_list_unsupported_field_selector_is_bad_request(populated: Store):
    with pytest.raises(BadRequest, match=r"field label not supported: spec\.bogus"):
        populated.list("pods", field_selector=parse_field_selector("spec.bogus=1"))


def test_paging_returns_every_item_exactly_once(store: Store):
    for i in range(23):
        store.create("pods", pod(f"p{i:02d}"))
    seen: list[str] = []
    token = None
    pages = 0
    while True:
        page = store.list("pods", limit=5, continue_token=token)
        pages += 1
        seen += names(page)
        if page.continue_token is None:
            assert page.remaining is None
            break
        assert page.remaining == 23 - len(seen)
        token = page.continue_token
    assert pages == 5
    assert seen == sorted(f"p{i:02d}" for i in range(23))


@pytest.mark.parametrize("chunk", [3, 2000])  # pages scanned across many chunks, or one
def test_paging_a_namespace_and_a_selector(store: Store, chunk: int,
                                           monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("minikube_py.store.store._LIST_CHUNK", chunk)
    for ns in ("a", "b", "c"):
        for i in range(12):
            store.create("pods", pod(f"p{i:02d}", ns=ns, labels={"odd": str(i % 2)}))

    def walk(**kw: Any) -> tuple[list[str], list[int | None]]:
        seen, remaining, token = [], [], None
        while True:
            page = store.list("pods", limit=4, continue_token=token, **kw)
            seen += [f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in page.items]
            remaining.append(page.remaining)
            if page.continue_token is None:
                return seen, remaining
            token = page.continue_token
    # A namespace's pages stay in it; remainingItemCount counts its objects left.
    seen, remaining = walk(namespace="b")
    assert seen == [f"b/p{i:02d}" for i in range(12)]
    assert remaining == [8, 4, None]
    # With a selector Kubernetes gives no count (it would count non-matches too).
    seen, remaining = walk(label_selector=parse_selector("odd=1"))
    assert seen == [f"{ns}/p{i:02d}" for ns in "abc" for i in range(1, 12, 2)]
    assert remaining == [None] * 5
    seen, remaining = walk()
    assert len(seen) == 36 and remaining[0] == 32


def test_bad_continue_token_is_bad_request(store: Store):
    with pytest.raises(BadRequest, match="invalid continue token"):
        store.list("pods", continue_token="not-a-token!")


def test_list_raw_matches_list(populated: Store):
    raw = populated.list_raw("pods")
    assert [json.loads(r) for r in raw.items] == populated.list("pods").items


# ------------------------------------------------------------------------ durability


def test_reopen_restores_everything_including_deletions_and_version(tmp_path: Path):
    d = tmp_path / "s"
    with Store(d) as s:
        s.create("pods", pod("keep"))
        s.create("pods", pod("gone"))
        s.delete("pods", "default", "gone")
        obj = s.get("pods", "default", "keep")
        obj["status"]["phase"] = "Running"
        s.update("pods", obj)
        rv = s.resource_version
    with Store(d) as s2:
        assert s2.resource_version == rv
        assert names(s2.list("pods")) == ["keep"]
        assert s2.get("pods", "default", "keep")["status"]["phase"] == "Running"
        assert int(s2.create("pods", pod("next"))["metadata"]["resourceVersion"]) == rv + 1


def test_state_file_is_plain_tinydb_with_a_table_per_resource(tmp_path: Path):
    d = tmp_path / "s"
    with Store(d) as s:
        s.create("pods", pod("a"))
        s.create("deployments", {"metadata": {"name": "d", "namespace": "default"}})
        s.create("nodes", {"metadata": {"name": "n1"}})
    db = TinyDB(d / "state.json")
    try:
        assert {"pods", "deployments", "nodes"} <= db.tables()
        assert [doc["metadata"]["name"] for doc in db.table("pods").all()] == ["a"]
        assert db.table("_meta").all()[0]["resourceVersion"] == 3
    finally:
        db.close()


def _crash_copy(src: Path, dst: Path) -> None:
    """Copy a live store's files: what a crash at this instant would leave behind."""
    dst.mkdir()
    for f in src.iterdir():
        if f.name != "lock":
            shutil.copyfile(f, dst / f.name)
            shutil.copymode(f, dst / f.name)  # the key file must stay 0600


def test_journal_replays_on_top_of_snapshot_after_a_crash(tmp_path: Path):
    live = Store(tmp_path / "live")
    try:
        live.create("pods", pod("before"))
        live.compact()
        live.create("pods", pod("after"))
        live.delete("pods", "default", "before")
        _crash_copy(tmp_path / "live", tmp_path / "crashed")
    finally:
        live.close()
    with Store(tmp_path / "crashed") as s:
        assert names(s.list("pods")) == ["after"]
    # Startup folded the journal into the state file.
    assert [doc["metadata"]["name"] for doc in TinyDB(tmp_path / "crashed" / "state.json")
            .table("pods").all()] == ["after"]


def test_objects_an_older_version_wrote_still_load(tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture):
    # The json module wrote integers beyond 64 bits and escaped unpaired
    # surrogates, which the store no longer writes: such objects in the journal
    # neither stop the start-up nor get lost.
    live = Store(tmp_path / "live")
    live.create("pods", pod("a"))
    _crash_copy(tmp_path / "live", tmp_path / "crashed")
    live.close()
    legacy = {**pod("old"), "x": {"big": 2**70, "s": "\ud800"}}
    legacy["metadata"]["resourceVersion"] = "99"
    _, seg = list_segments(tmp_path / "crashed")[-1]
    with seg.open("ab") as f:
        f.write(b'{"rv":99,"op":"put","r":"pods","k":"default/old","o":'
                + json.dumps(legacy).encode() + b"}\n")
    with caplog.at_level(logging.WARNING), Store(tmp_path / "crashed") as s:
        got = s.get("pods", "default", "old")
        assert got["x"]["s"] == "\ud800" and got["x"]["big"] == 2**70
        assert names(s.list("pods")) == ["a", "old"]
        assert s.get_shared("pods", "default", "old")["x"]["s"] == "\ud800"
    assert "holds what the store no longer writes" in caplog.text
    with Store(tmp_path / "crashed") as s:  # and again, from the state file it folded into
        assert s.get("pods", "default", "old")["x"]["s"] == "\ud800"


@pytest.mark.parametrize("tail", [
    b'{"rv":99,"op":"put","r":"pods","k":"default/x","o":{"metadata":{"na',
    b'{"rv":99,"op":"put"}\n',
    b"\0\0\0\0\0\0",
])
def test_torn_last_journal_line_is_dropped_with_a_warning(tmp_path: Path, tail: bytes,
                                                         caplog: pytest.LogCaptureFixture):
    live = Store(tmp_path / "live")
    live.create("pods", pod("a"))
    live.create("pods", pod("b"))
    _crash_copy(tmp_path / "live", tmp_path / "crashed")
    live.close()
    _, seg = list_segments(tmp_path / "crashed")[-1]
    with seg.open("ab") as f:
        f.write(tail)
    with caplog.at_level(logging.WARNING), Store(tmp_path / "crashed") as s:
        assert names(s.list("pods")) == ["a", "b"]
        s.create("pods", pod("c"))
    assert "dropping a torn last journal record" in caplog.text
    with Store(tmp_path / "crashed") as s:  # and no crash loop afterwards
        assert names(s.list("pods")) == ["a", "b", "c"]


def test_corruption_before_good_records_refuses_to_start(tmp_path: Path):
    live = Store(tmp_path / "live")
    live.create("pods", pod("a"))
    live.create("pods", pod("b"))
    _crash_copy(tmp_path / "live", tmp_path / "crashed")
    live.close()
    _, seg = list_segments(tmp_path / "crashed")[-1]
    lines = seg.read_bytes().splitlines(keepends=True)
    seg.write_bytes(b"garbage{\n" + b"".join(lines))
    with pytest.raises(JournalCorrupt, match=r"journal\.\d+\.jsonl:1: unreadable"):
        Store(tmp_path / "crashed")
    assert seg.read_bytes().startswith(b"garbage")  # nothing was thrown away


def test_failed_journal_write_changes_nothing(store: Store, monkeypatch: pytest.MonkeyPatch):
    store.create("pods", pod("a"))
    rv = store.resource_version
    real_write = os.write

    def full_disk(fd: int, data: bytes) -> int:
        real_write(fd, data[:10])  # a partial record reaches the file ...
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal_mod.os, "write", full_disk)
    with pytest.raises(StoreWriteError, match="No space left on device"):
        store.create("pods", pod("b"))
    with pytest.raises(StoreWriteError):
        store.delete("pods", "default", "a")
    monkeypatch.setattr(journal_mod.os, "write", real_write)
    assert store.resource_version == rv
    assert names(store.list("pods")) == ["a"]
    store.create("pods", pod("c"))  # ... and is cut away, so later records stay readable
    directory = store.directory
    store.close()
    with Store(directory) as again:
        assert names(again.list("pods")) == ["a", "c"]


def test_second_store_on_same_directory_is_refused(store: Store):
    pattern = rf"in use by another minikube-py process \(pid {os.getpid()}\)"
    with pytest.raises(StateDirLocked, match=pattern):
        Store(store.directory)


def test_lock_is_released_on_close(tmp_path: Path):
    Store(tmp_path / "s").close()
    Store(tmp_path / "s").close()


def test_background_compaction_bounds_the_journal(tmp_path: Path):
    with Store(tmp_path / "s", compact_records=50, compact_interval=0.05) as s:
        for i in range(400):
            s.create("pods", pod(f"p{i}"))
        deadline = threading.Event()
        total = None
        for _ in range(400):  # bounded (20 s): compaction runs in the background
            try:
                total = sum(1 for seg in list_segments(s.directory) for _ in seg[1].open())
            except FileNotFoundError:  # a segment compacted away between list and open
                total = None
            if total is not None and total < 200:
                break
            deadline.wait(0.05)
        assert total is not None and total < 200
    with Store(tmp_path / "s") as s:
        assert s.count("pods") == 400
