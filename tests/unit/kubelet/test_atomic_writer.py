"""The kubelet's atomic writer (kubelet/atomic_writer.py): the symlink layout,
exact modes, nothing rewritten when unchanged, an update swapped through
``..data`` with the old directory and stale links removed, and invalid paths."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from minikube_py.kubelet.atomic_writer import DATA_DIR, AtomicWriter, FileProjection
from tests.clock import FakeClock

#: 2026-11-26T18:00:00.123Z
WHEN = 1_795_716_000.123
STAMP = re.compile(r"^\.\.2026_11_26_18_00_00\.\w+$")


def writer(tmp_path: Path, clock: FakeClock | None = None) -> AtomicWriter:
    return AtomicWriter(tmp_path / "vol", clock=clock or FakeClock(WHEN))


def entries(target: Path) -> set[str]:
    return set(os.listdir(target))


def test_layout_timestamped_dir_data_link_and_per_entry_links(tmp_path: Path):
    w = writer(tmp_path)
    assert w.write({"app.properties": FileProjection(b"a=1", 0o644),
                    "conf/x.yaml": FileProjection(b"x: 1", 0o600)}) is True
    target = w.target
    stamped = [e for e in entries(target) if STAMP.match(e)]
    assert len(stamped) == 1
    assert entries(target) == {stamped[0], DATA_DIR, "app.properties", "conf"}
    assert os.readlink(target / DATA_DIR) == stamped[0]
    assert os.readlink(target / "app.properties") == f"{DATA_DIR}/app.properties"
    assert os.readlink(target / "conf") == f"{DATA_DIR}/conf"
    assert (target / "app.properties").read_bytes() == b"a=1"
    assert (target / "conf" / "x.yaml").read_bytes() == b"x: 1"
    real = target / stamped[0]
    assert stat.S_IMODE(real.stat().st_mode) == 0o755
    assert stat.S_IMODE((real / "conf").stat().st_mode) == 0o755
    assert stat.S_IMODE((real / "app.properties").stat().st_mode) == 0o644
    assert stat.S_IMODE((real / "conf" / "x.yaml").stat().st_mode) == 0o600


def test_modes_are_exact_whatever_the_umask(tmp_path: Path):
    old = os.umask(0o077)
    try:
        w = writer(tmp_path)
        w.write({"a": FileProjection(b"1", 0o444), "b": FileProjection(b"2", 0o755)})
    finally:
        os.umask(old)
    assert stat.S_IMODE((w.target / "a").stat().st_mode) == 0o444
    assert stat.S_IMODE((w.target / "b").stat().st_mode) == 0o755


def test_unchanged_payload_writes_nothing(tmp_path: Path):
    w = writer(tmp_path)
    payload = {"a": FileProjection(b"1"), "d/b": FileProjection(b"2", 0o400)}
    w.write(payload)
    first = w.current()
    assert w.write(dict(payload)) is False
    assert w.current() == first
    # A mode change alone is a change.
    assert w.write({**payload, "a": FileProjection(b"1", 0o600)}) is True


def test_an_update_swaps_data_and_removes_the_old_dir_and_stale_links(tmp_path: Path):
    clock = FakeClock(WHEN)
    w = writer(tmp_path, clock)
    w.write({"mode": FileProjection(b"fast"), "old/x": FileProjection(b"x"),
             "level": FileProjection(b"3")})
    before = w.current()
    assert before is not None
    held = (w.target / "mode").resolve()  # what a subPath mount binds to
    clock.advance(61)
    assert w.write({"mode": FileProjection(b"slow"), "level": FileProjection(b"3"),
                    "new": FileProjection(b"n")}) is True
    after = w.current()
    assert after is not None and after != before
    assert after.name.startswith("..2026_11_26_18_01_01.")
    assert not before.exists()  # the previous version is gone
    assert entries(w.target) == {after.name, DATA_DIR, "mode", "level", "new"}
    assert (w.target / "mode").read_bytes() == b"slow"
    assert (w.target / "new").read_bytes() == b"n"
    assert not held.exists()  # a bind mount keeps its inode; the path is gone


def test_stale_timestamped_dirs_and_tmp_link_of_an_interrupted_write_go(tmp_path: Path):
    w = writer(tmp_path)
    w.write({"a": FileProjection(b"1")})
    (w.target / "..2020_01_01_00_00_00.123").mkdir()
    os.symlink("..2020_01_01_00_00_00.123", w.target / "..data_tmp")
    w.write({"a": FileProjection(b"2")})
    current = w.current()
    assert current is not None
    assert entries(w.target) == {current.name, DATA_DIR, "a"}


def test_a_directory_made_by_a_user_is_left_alone(tmp_path: Path):
    w = writer(tmp_path)
    (w.target / "keep").mkdir(parents=True)
    w.write({"keep": FileProjection(b"k"), "a": FileProjection(b"1")})
    assert (w.target / "keep").is_dir() and not (w.target / "keep").is_symlink()
    assert os.readlink(w.target / "a") == f"{DATA_DIR}/a"


def test_empty_payload_is_an_empty_volume(tmp_path: Path):
    w = writer(tmp_path)
    w.write({"a": FileProjection(b"1")})
    assert w.write({}) is True
    current = w.current()
    assert current is not None and list(current.iterdir()) == []
    assert entries(w.target) == {current.name, DATA_DIR}


@pytest.mark.parametrize(("path", "message"), [
    ("", "must not be empty"),
    ("/etc/passwd", "must be relative path"),
    ("a/../b", "must not contain '..'"),
    ("..hidden", "must not start with '..'"),
    ("x" * 256, "filenames must be less than or equal to 255 characters"),
])
def test_invalid_paths_write_nothing(tmp_path: Path, path: str, message: str):
    w = writer(tmp_path)
    with pytest.raises(ValueError, match=re.escape(message)):
        w.write({"ok": FileProjection(b"1"), path: FileProjection(b"2")})
    assert not w.target.exists() or entries(w.target) == set()
