"""Encryption at rest: what the store writes for an encrypted resource, what it
reads back, the key file, migration of older plaintext, and the errors for a
lost, wrong or unusable key.

Every test that writes checks the raw bytes of every file in the state
directory (the TinyDB file and each journal segment) for a marker that lives
only in encrypted objects, in plain and in base64 form.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from tinydb import TinyDB

from minikube_py.api import kinds
from minikube_py.api.fields import parse_field_selector
from minikube_py.api.labels import parse_selector
from minikube_py.store.encryption import (
    KEY_FILE,
    Cipher,
    DecryptError,
    EncryptionError,
    KeyFileError,
    is_sealed,
)
from minikube_py.store.journal import list_segments
from minikube_py.store.store import Store
from tests.unit.test_store_crash import assert_recovered, run_and_kill

MARKER = "zq-secret-marker-7f3a9c1e-never-in-clear"  # also a valid label value
SERVED = {k.plural for k in kinds.KINDS}
#: Namespaced, cluster-scoped, and Secret itself once it is served.
RESOURCES = ["configmaps", "priorityclasses"] + (["secrets"] if "secrets" in SERVED else [])
ENC = {"encrypted": {"configmaps"}}


def b64_forms(data: bytes) -> list[bytes]:
    """Substrings every standard or URL-safe base64 text containing ``data`` contains,
    whatever the alignment of ``data`` in the encoded bytes."""
    forms = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data)
        core = encoded[4 if offset else 0:-4]  # drop the groups mixing in other bytes
        forms += [core, core.replace(b"+", b"-").replace(b"/", b"_")]
    return forms


LEAKS = [MARKER.encode(), *b64_forms(MARKER.encode()),
         *b64_forms(base64.b64encode(MARKER.encode()))]


def assert_no_plaintext(directory: Path) -> None:
    """No file of the state directory holds the marker, in clear or in base64."""
    files = [f for f in directory.iterdir() if f.is_file()]
    assert any(f.name == "state.json" for f in files) or list_segments(directory)
    for f in files:
        data = f.read_bytes()
        for leak in LEAKS:
            assert leak not in data, f"{f.name} holds {leak!r}"


def secret_like(name: str, ns: str = "default", *, labels: dict[str, str] | None = None,
                resource: str = "configmaps") -> dict[str, Any]:
    """An object carrying the marker in data, a base64 value, a label and an annotation
    (as kubectl's last-applied-configuration would)."""
    meta: dict[str, Any] = {"name": name, "labels": {"app": "db", "m": MARKER,
                                                     **(labels or {})},
                            "annotations": {"last-applied": json.dumps({"data": MARKER})}}
    if resource != "priorityclasses":
        meta["namespace"] = ns
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
            "data": {"password": MARKER,
                     "b64": base64.b64encode(MARKER.encode()).decode()}}


def names(page: Any) -> list[str]:
    return [o["metadata"]["name"] for o in page.items]


def crash_copy(src: Path, dst: Path) -> None:
    """What a crash at this instant leaves behind (the live store's files, no lock)."""
    dst.mkdir()
    for f in src.iterdir():
        if f.name != "lock":
            (dst / f.name).write_bytes(f.read_bytes())
            os.chmod(dst / f.name, stat.S_IMODE(f.stat().st_mode))


# ------------------------------------------------------------------ reads and writes


@pytest.mark.parametrize("resource", RESOURCES)
def test_crud_reads_plaintext_and_writes_none(tmp_path: Path, resource: str):
    d = tmp_path / "s"
    ns = None if resource == "priorityclasses" else "default"
    with Store(d, encrypted={resource}) as s:
        assert resource in s.encrypted_resources
        created = s.create(resource, secret_like("a", resource=resource))
        assert created["data"]["password"] == MARKER
        s.create(resource, secret_like("b", resource=resource))
        updated = s.update(resource, {**created, "data": {"password": MARKER + "-2"}})
        assert s.get(resource, ns, "a") == updated
        assert json.loads(s.get_raw(resource, ns, "a"))["data"]["password"] == MARKER + "-2"
        s.delete(resource, ns, "b")
        assert names(s.list(resource)) == ["a"]
        assert_no_plaintext(d)  # the journal, before any compaction
        live = s.get(resource, ns, "a")
    assert_no_plaintext(d)  # after the compaction at close
    with Store(d, encrypted={resource}) as s:
        assert s.get(resource, ns, "a") == live
        assert names(s.list(resource)) == ["a"]


def test_lists_with_label_and_field_selectors_and_paging(tmp_path: Path):
    d = tmp_path / "s"
    with Store(d, encrypted={"configmaps", "pods"}) as s:
        for name, ns, tier in [("a", "default", "fe"), ("b", "default", "be"),
                               ("c", "other", "fe")]:
            s.create("configmaps", secret_like(name, ns, labels={"tier": tier}))
            pod = secret_like(name, ns, labels={"tier": tier})
            pod["spec"] = {"nodeName": f"n-{tier}", "containers": [{"name": "c"}]}
            s.create("pods", pod)
        assert names(s.list("configmaps", label_selector=parse_selector("tier=fe"))) == ["a", "c"]
        assert names(s.list("configmaps", namespace="default",
                            label_selector=parse_selector(f"m={MARKER}"))) == ["a", "b"]
        assert names(s.list("configmaps", field_selector=parse_field_selector(
            "metadata.namespace=other"))) == ["c"]
        assert names(s.list("pods", field_selector=parse_field_selector(
            "spec.nodeName=n-be"))) == ["b"]
        first = s.list("configmaps", limit=2)
        assert names(first) == ["a", "b"] and first.remaining == 1
        assert names(s.list("configmaps", limit=2, continue_token=first.continue_token)) == ["c"]
        raw = s.list_raw("pods", label_selector=parse_selector("tier=be"))
        assert [json.loads(r)["data"]["password"] for r in raw.items] == [MARKER]
    with Store(d, encrypted={"configmaps", "pods"}) as s:  # indexes rebuilt from sealed data
        assert names(s.list("configmaps", label_selector=parse_selector("tier=fe"))) == ["a", "c"]
        assert names(s.list("pods", field_selector=parse_field_selector(
            "spec.nodeName=n-fe"))) == ["a", "c"]
    assert_no_plaintext(d)


def test_watch_delivers_plaintext_with_selector_transitions(tmp_path: Path):
    d = tmp_path / "s"
    with Store(d, **ENC) as s:
        obj = s.create("configmaps", secret_like("a", labels={"tier": "be"}))
        w = s.watch("configmaps", label_selector=parse_selector("tier=fe"),
                    resource_version=obj["metadata"]["resourceVersion"])
        try:
            obj["metadata"]["labels"]["tier"] = "fe"
            s.update("configmaps", obj)
            s.delete("configmaps", "default", "a")
            events = [w.next(timeout=5) for _ in range(2)]
        finally:
            w.stop()
        assert [(e.type, e.object["data"]["password"]) for e in events if e] == [
            ("ADDED", MARKER), ("DELETED", MARKER)]
        initial = s.watch("configmaps")  # "0": the current state first
        s.create("configmaps", secret_like("b"))
        try:
            event = initial.next(timeout=5)
            assert event is not None and event.object["data"]["password"] == MARKER
        finally:
            initial.stop()
    assert_no_plaintext(d)


def test_restart_replays_a_sealed_journal_after_a_crash(tmp_path: Path):
    live = Store(tmp_path / "live", **ENC)
    try:
        live.create("configmaps", secret_like("before"))
        live.compact()
        live.create("configmaps", secret_like("after"))
        live.delete("configmaps", "default", "before")
        crash_copy(tmp_path / "live", tmp_path / "crashed")
    finally:
        live.close()
    assert_no_plaintext(tmp_path / "crashed")
    with Store(tmp_path / "crashed", **ENC) as s:
        assert names(s.list("configmaps")) == ["after"]
        assert s.get("configmaps", "default", "after")["data"]["password"] == MARKER
    assert_no_plaintext(tmp_path / "crashed")


def test_state_file_stays_tinydb_with_only_identity_in_clear(tmp_path: Path):
    d = tmp_path / "s"
    with Store(d, **ENC) as s:
        s.create("configmaps", secret_like("a"))
        s.create("pods", {"metadata": {"name": "p", "namespace": "default"}, "spec": {}})
    db = TinyDB(d / "state.json", access_mode="r")
    try:
        (doc,) = db.table("configmaps").all()
        (pod,) = db.table("pods").all()
    finally:
        db.close()
    assert doc["metadata"] == {"namespace": "default", "name": "a", "resourceVersion": "1"}
    assert set(doc) == {"metadata", "encrypted"} and is_sealed(doc)
    assert doc["encrypted"].startswith("k8s:enc:secretbox:v1:")
    assert not is_sealed(pod) and pod["spec"] == {}  # other resources as before


def test_unknown_resources_are_ignored_and_the_default_is_secrets(tmp_path: Path):
    with Store(tmp_path / "a", encrypted={"no-such-things"}) as s:
        assert s.encrypted_resources == frozenset()
        s.create("configmaps", secret_like("a"))
    assert not (tmp_path / "a" / KEY_FILE).exists()  # no key until something is encrypted
    with Store(tmp_path / "b") as s:
        assert s.encrypted_resources == ({"secrets"} & SERVED)
    assert (tmp_path / "b" / KEY_FILE).exists() == ("secrets" in SERVED)


# ------------------------------------------------------------------ the key


def test_key_file_is_0600_32_bytes_and_kept(tmp_path: Path):
    d = tmp_path / "s"
    (d).mkdir()
    (d / (KEY_FILE + ".tmp")).write_bytes(b"left by a crash")  # overwritten, not trusted
    os.chmod(d / (KEY_FILE + ".tmp"), 0o644)
    with Store(d, **ENC) as s:
        s.create("configmaps", secret_like("a"))
    key = (d / KEY_FILE).read_bytes()
    assert len(key) == 32 and stat.S_IMODE((d / KEY_FILE).stat().st_mode) == 0o600
    assert not (d / (KEY_FILE + ".tmp")).exists()
    with Store(d, **ENC) as s:
        s.create("configmaps", secret_like("b"))
    assert (d / KEY_FILE).read_bytes() == key


def test_key_is_never_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG)
    d = tmp_path / "s"
    with Store(d, **ENC) as s:
        s.create("configmaps", secret_like("a"))
        text = repr(s._cipher)
    with Store(d, **ENC):
        pass
    key = (d / KEY_FILE).read_bytes()
    shown = caplog.text + text
    for form in (key.hex(), base64.b64encode(key).decode(), repr(key)[2:-1], MARKER):
        assert form not in shown


def _sealed_store(d: Path) -> None:
    with Store(d, **ENC) as s:
        s.create("configmaps", secret_like("a"))
        s.create("configmaps", secret_like("b"))
        s.compact()
        s.create("configmaps", secret_like("c"))
        crash_copy(d, d.with_name("crashed"))  # journal and state file both sealed


def _disk(d: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in d.iterdir() if f.name != "lock"}


def test_a_wrong_key_refuses_to_start_and_loses_nothing(tmp_path: Path):
    _sealed_store(tmp_path / "s")
    d = tmp_path / "crashed"
    key = (d / KEY_FILE).read_bytes()
    (d / KEY_FILE).write_bytes(os.urandom(32))
    before = _disk(d)
    with pytest.raises(DecryptError, match=r"^cannot decrypt configmaps in .*/crashed: the "
                       r"encryption key .*encryption\.key \(key id \w+\) does not match"):
        Store(d, **ENC)
    assert _disk(d) == before  # nothing rewritten, nothing removed
    (d / KEY_FILE).write_bytes(key)
    with Store(d, **ENC) as s:  # the lock was released; the right key reads everything
        assert names(s.list("configmaps")) == ["a", "b", "c"]


def test_a_missing_key_refuses_to_start_and_creates_none(tmp_path: Path):
    _sealed_store(tmp_path / "s")
    crashed = tmp_path / "crashed"
    (crashed / KEY_FILE).unlink()
    with pytest.raises(DecryptError, match=r"^cannot decrypt configmaps in .*crashed: the "
                       r"encryption key .*encryption\.key is missing"):
        Store(crashed, **ENC)
    assert not (crashed / KEY_FILE).exists()
    # Also when the store is not configured to encrypt them any more.
    with pytest.raises(DecryptError, match="is missing"):
        Store(crashed, encrypted=())
    assert issubclass(DecryptError, ValueError)  # the daemon reports it in one line


@pytest.mark.parametrize("content, mode, fragment", [
    (b"k" * 32, 0o644, r"readable by others \(mode 0644\); it must be 0600: chmod 600"),
    (b"k" * 32, 0o640, r"mode 0640"),
    (b"k" * 31, 0o600, r"holds 31 bytes, not 32"),
    (b"k" * 44, 0o600, r"holds 44 bytes, not 32"),
])
def test_an_unusable_key_file_is_refused_naming_it(tmp_path: Path, content: bytes, mode: int,
                                                   fragment: str):
    d = tmp_path / "s"
    d.mkdir()
    (d / KEY_FILE).write_bytes(content)
    os.chmod(d / KEY_FILE, mode)
    with pytest.raises(KeyFileError, match=f"encryption key {re.escape(str(d / KEY_FILE))} "
                                          f".*{fragment}"):
        Store(d, **ENC)
    assert (d / KEY_FILE).read_bytes() == content  # never replaced
    (d / KEY_FILE).unlink()
    (d / KEY_FILE).mkdir()
    with pytest.raises(KeyFileError, match="is not a regular file"):
        Store(d, **ENC)


# ------------------------------------------------------------------ damage and tampering


def _edit_state(d: Path, edit: Any) -> None:
    data = json.loads((d / "state.json").read_text())
    edit(data["configmaps"]["1"])
    (d / "state.json").write_text(json.dumps(data))


@pytest.mark.parametrize("edit, fragment", [
    (lambda doc: doc["metadata"].update(name="b"), "disagree with its encrypted copy"),
    (lambda doc: doc["metadata"].update(resourceVersion="7"), "disagree"),
    (lambda doc: doc.update(encrypted=doc["encrypted"][:-8] + "AAAAAAAA"), "is damaged"),
    (lambda doc: doc.update(encrypted=doc["encrypted"] + "!"), "is damaged"),
    (lambda doc: doc.update(encrypted="k8s:enc:aescbc:v1:key1:AAAA"), "'aescbc:v1'"),
])
def test_tampering_or_damage_is_refused(tmp_path: Path, edit: Any, fragment: str):
    d = tmp_path / "s"
    with Store(d, **ENC) as s:
        s.create("configmaps", secret_like("a"))
        s.create("configmaps", secret_like("b"))
    _edit_state(d, edit)
    with pytest.raises(DecryptError, match=f"^cannot decrypt configmaps in .*state.json: .*"
                                           f"{fragment}"):
        Store(d, **ENC)


def test_a_ciphertext_moved_to_another_object_is_refused(tmp_path: Path):
    d = tmp_path / "s"
    with Store(d, **ENC) as s:
        s.create("configmaps", secret_like("a"))
        s.create("configmaps", secret_like("b"))
    data = json.loads((d / "state.json").read_text())
    table = data["configmaps"]
    table["1"]["encrypted"], table["2"]["encrypted"] = (table["2"]["encrypted"],
                                                        table["1"]["encrypted"])
    (d / "state.json").write_text(json.dumps(data))
    with pytest.raises(DecryptError, match="disagree"):
        Store(d, **ENC)


# ------------------------------------------------------------------ migration


def test_plaintext_from_before_is_read_and_rewritten_encrypted(tmp_path: Path):
    old = tmp_path / "old"
    with Store(old, encrypted=()) as s:  # an older version: nothing encrypted
        s.create("configmaps", secret_like("snap"))
        s.compact()
        s.create("configmaps", secret_like("journal"))
        crash_copy(old, tmp_path / "crashed")  # plaintext in the state file and the journal
    for d in (old, tmp_path / "crashed"):  # a clean shutdown (no journal) and a crash
        assert MARKER.encode() in b"".join(_disk(d).values())
        with Store(d, **ENC) as s:
            assert names(s.list("configmaps")) == ["journal", "snap"]
            assert s.get("configmaps", "default", "snap")["data"]["password"] == MARKER
            assert_no_plaintext(d)  # rewritten when the store opened, before any write
        with Store(d, **ENC) as s:
            assert names(s.list("configmaps")) == ["journal", "snap"]


def test_sealed_objects_are_read_when_no_longer_configured(tmp_path: Path):
    d = tmp_path / "s"
    with Store(d, **ENC) as s:
        s.create("configmaps", secret_like("a"))
    with Store(d, encrypted=()) as s:  # the key is still there: read, rewritten as configured
        assert s.get("configmaps", "default", "a")["data"]["password"] == MARKER
    assert MARKER.encode() in (d / "state.json").read_bytes()


# ------------------------------------------------------------------ crashes


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 105))
def test_acknowledged_encrypted_writes_survive_sigkill(tmp_path: Path, seed: int):
    directory = tmp_path / "state"
    acks = run_and_kill(directory, seed, "encrypt")
    for f in directory.iterdir():  # the writer's pods carry "busybox" and a long "x" run
        if f.name != "lock":
            assert b"busybox" not in f.read_bytes() and b"x" * 50 not in f.read_bytes()
    assert_recovered(directory, acks, encrypted={"pods"})


def test_cipher_round_trip_and_key_id(tmp_path: Path):
    c = Cipher(tmp_path)
    assert not c.has_key
    c.ensure_key()
    doc = json.loads(c.seal('{"metadata":{"name":"n","resourceVersion":"3"}}', "", "n", 3))
    assert doc["encrypted"].startswith(f"k8s:enc:secretbox:v1:{c.key_id}:")
    assert c.unseal(doc, resource="nodes", namespaced=False, source=tmp_path) == {
        "metadata": {"name": "n", "resourceVersion": "3"}}
    assert Cipher(tmp_path).key_id == c.key_id  # the same file, the same key
    assert issubclass(KeyFileError, EncryptionError)
