"""When the store folds its journal into the state file, and how it writes the
file (store/store.py compaction_due, store/snapshot.py, store/atomicfile.py)."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from tinydb import TinyDB

from minikube_py.api import jsontext
from minikube_py.store import snapshot
from minikube_py.store.atomicfile import write_atomically
from minikube_py.store.snapshot import read_snapshot, write_snapshot
from minikube_py.store.store import Store
from tests.unit.test_store import pod
from tests.waiting import wait_for, wait_for_quietly


def _fill(directory: Path, count: int) -> int:
    """A store of ``count`` pods, closed (so compacted); the state file's size."""
    with Store(directory) as s:
        for i in range(count):
            s.create("pods", pod(f"p{i}"))
    return (directory / "state.json").stat().st_size


def test_a_journal_is_due_at_a_quarter_of_the_state_files_size(tmp_path: Path) -> None:
    size = _fill(tmp_path / "s", 200)
    # No timer and no record count in the way: only the size rule can fire.
    with Store(tmp_path / "s", compact_interval=3600, compact_records=10**9) as s:
        assert not s.compaction_due(), "an empty journal is never due"
        writes = 0
        while True:
            before = s._journal.size
            current = s.get("pods", "default", f"p{writes % 200}")
            current["metadata"].setdefault("annotations", {})["n"] = str(writes)
            s.update("pods", current)
            writes += 1
            if s.compaction_due():
                break
            assert s._journal.size < size / 4
        assert before < size / 4 <= s._journal.size, (before, size, s._journal.size)
        assert writes > 20  # a few hundred bytes each against a state of 200 pods


def test_a_journal_is_due_at_as_many_records_as_the_state_has_objects(tmp_path: Path) -> None:
    _fill(tmp_path / "s", 300)
    with Store(tmp_path / "s", compact_interval=3600, compact_records=100,
               compact_ratio=10**6) as s:
        objects = s.count("pods") + s.count("namespaces")
        assert objects >= 300
        for i in range(objects - 1):
            s.delete("pods", "default", f"p{i}") if i < 300 else s.create("pods", pod(f"q{i}"))
            assert not s.compaction_due(), f"due after {i + 1} records of {objects}"
        s.create("pods", pod("last"))
        assert s.compaction_due()


def test_a_small_state_is_due_with_its_first_records(tmp_path: Path) -> None:
    # A fresh store (no state file yet) folds whatever its journal holds: what
    # the background compactor did every interval before sizes mattered.
    with Store(tmp_path / "s", compact_interval=3600) as s:
        s.create("pods", pod("a"))
        assert s.compaction_due()


def test_the_background_compactor_folds_only_a_due_journal(tmp_path: Path) -> None:
    _fill(tmp_path / "s", 200)
    with Store(tmp_path / "s", compact_interval=0.02, compact_records=10**9) as s:
        s.create("pods", pod("one"))  # one record: far from a quarter of the state
        first = s._journal.seq
        assert not wait_for_quietly(lambda: s._journal.seq != first, 0.5), \
            "a journal of one record was folded into a state of 200 pods"
        while not s.compaction_due():
            s.create("pods", pod(f"n{s.count('pods')}"))
        wait_for(lambda: s._journal.seq != first, "the due journal to be folded", 20)
        assert not s.compaction_due()
    with Store(tmp_path / "s") as again:
        assert again.count("pods") == s.count("pods")


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(snapshot, "CHUNK_CHARS", 300)
    yield


def test_a_snapshot_written_in_pieces_reads_back_through_tinydb(tmp_path: Path,
                                                                small_chunks: None) -> None:
    docs = {"pods": [json.dumps(pod(f"p{i}")) for i in range(40)],
            "nodes": [json.dumps({"metadata": {"name": f"n{i}"}}) for i in range(3)]}
    path = tmp_path / "state.json"
    size = write_snapshot(path, 77, docs)
    assert size == path.stat().st_size
    rv, tables = read_snapshot(path)
    assert rv == 77
    assert tables["pods"] == [json.loads(d) for d in docs["pods"]]
    assert tables["nodes"] == [json.loads(d) for d in docs["nodes"]]
    with TinyDB(path, access_mode="r") as db:
        assert len(db.table("pods")) == 40


def test_the_state_file_is_ascii_whatever_the_texts_hold(tmp_path: Path) -> None:
    # The store's texts carry characters beyond ASCII as UTF-8 (api/jsontext);
    # the state file escapes them, so any reader's locale reads it alike.
    obj = pod("café", annotations={"note": "\U0001F600 \u2028 ß"})
    path = tmp_path / "state.json"
    write_snapshot(path, 5, {"pods": [jsontext.dumps(obj), json.dumps(pod("plain"))]})
    assert path.read_bytes().isascii()
    assert read_snapshot(path)[1]["pods"] == [obj, pod("plain")]
    with TinyDB(path, access_mode="r", encoding="ascii") as db:
        assert db.table("pods").get(doc_id=1) == obj


def test_a_failing_piece_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    write_atomically(path, b"old")

    def pieces() -> Iterator[bytes]:
        yield b"new, "
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_atomically(path, pieces())
    assert path.read_bytes() == b"old"


def test_writing_a_large_snapshot_never_holds_it_whole(tmp_path: Path) -> None:
    raw = json.dumps(pod("x", annotations={"pad": "y" * 2000}))
    docs = {"pods": [raw] * 10_000}  # about 20 MB of state
    tracemalloc.start()
    try:
        write_snapshot(tmp_path / "state.json", 1, docs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    total = (tmp_path / "state.json").stat().st_size
    assert total > 20_000_000
    assert peak < total / 5, f"peak {peak:,} B while writing {total:,} B"
