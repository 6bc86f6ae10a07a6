"""Atomic projection of a set of files into a volume directory: the
kubelet's ``AtomicWriter`` (pkg/volume/util/atomic_writer.go).

A volume written here looks like::

    <target>/..2025_01_31_10_00_00.123456789/   the real files (0755 dir)
    <target>/..data -> ..2025_01_31_10_00_00.123456789
    <target>/app.properties -> ..data/app.properties
    <target>/conf -> ..data/conf                (first component of conf/x.yaml)

:meth:`AtomicWriter.write` promises:

* **No partial state.** Each change is written into a new timestamped
  directory; then a ``..data_tmp`` symlink to it is renamed over ``..data``
  (``rename(2)`` is atomic). A reader going through the user-visible paths
  sees either the whole old version or the whole new one, never a mix.
* **Nothing rewritten when unchanged.** The payload is compared with what
  ``..data`` holds (bytes and mode of every file, and no file to remove); if
  equal, nothing is written (the user-visible links are still ensured, as
  Kubernetes does since #121472). It returns whether it wrote.
* **Exact modes.** Every file gets its ``mode`` with ``chmod`` (whatever the
  umask), directories 0755.
* **Cleanup.** User-visible links that the new payload no longer has are
  removed, then the previous timestamped directory (and any stale one an
  interrupted write left).
* **Reserved names.** Paths are relative, without ``..`` components, and
  may not start with ``..``; an invalid payload raises ``ValueError`` and
  writes nothing.

One writer per directory at a time (the caller serialises, as in Kubernetes).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Final

__all__ = ["DATA_DIR", "AtomicWriter", "FileProjection"]

DATA_DIR: Final = "..data"
_NEW_DATA_DIR: Final = "..data_tmp"
_MAX_FILE_NAME: Final = 255
_MAX_PATH: Final = 4096


@dataclass(frozen=True)
class FileProjection:
    """One file of a volume: its bytes and its permission bits."""

    data: bytes
    mode: int = 0o644


def _clean(path: str) -> str:
    """``validatePath`` + ``filepath.Clean``; raises ValueError."""
    if not path:
        raise ValueError("invalid path: must not be empty")
    if path.startswith("/"):
        raise ValueError(f"invalid path: must be relative path: {path}")
    if len(path) > _MAX_PATH:
        raise ValueError(f"invalid path: must be less than or equal to {_MAX_PATH} characters")
    items = path.split("/")
    for item in items:
        if item == "..":
            raise ValueError(f"invalid path: must not contain '..': {path}")
        if len(item) > _MAX_FILE_NAME:
            raise ValueError(f"invalid path: filenames must be less than or equal to "
                             f"{_MAX_FILE_NAME} characters")
    if items[0].startswith("..") and len(items[0]) > 2:
        raise ValueError(f"invalid path: must not start with '..': {path}")
    clean = str(PurePosixPath(path))
    if clean in ("", "."):
        raise ValueError(f"invalid path: {path}")
    return clean


class AtomicWriter:
    """Writes payloads into ``target`` (see the module contract)."""

    def __init__(self, target: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.target = Path(target)
        self.clock = clock

    def current(self) -> Path | None:
        """The timestamped directory ``..data`` points at, if any."""
        try:
            return self.target / os.readlink(self.target / DATA_DIR)
        except OSError:
            return None

    def write(self, payload: Mapping[str, FileProjection]) -> bool:
        """Project ``payload`` (relative path -> file); True if anything was written."""
        clean = {_clean(path): proj for path, proj in payload.items()}
        self.target.mkdir(parents=True, exist_ok=True)
        old = self.current()
        if old is not None and self._same(clean, old):
            self._link_visible(clean)
            return False
        new = self._new_dir()
        try:
            self._write_files(clean, new)
            tmp_link = self.target / _NEW_DATA_DIR
            if tmp_link.is_symlink():
                tmp_link.unlink()
            os.symlink(new.name, tmp_link)
            os.rename(tmp_link, self.target / DATA_DIR)
        except BaseException:
            shutil.rmtree(new, ignore_errors=True)
            raise
        self._link_visible(clean)
        self._remove_stale(clean, keep=new.name)
        return True

    # ------------------------------------------------------------------ steps

    @staticmethod
    def _files(root: Path) -> dict[str, Path]:
        """Regular files under ``root`` by relative path."""
        out: dict[str, Path] = {}
        for dirpath, _, names in os.walk(root):
            for name in names:
                full = Path(dirpath) / name
                out[str(full.relative_to(root))] = full
        return out

    def _same(self, payload: Mapping[str, FileProjection], old: Path) -> bool:
        existing = self._files(old)
        if set(existing) != set(payload):
            return False
        for path, proj in payload.items():
            try:
                st = existing[path].lstat()
                if (st.st_mode & 0o7777) != proj.mode or existing[path].read_bytes() != proj.data:
                    return False
            except OSError:
                return False
        return True

    def _new_dir(self) -> Path:
        stamp = datetime.fromtimestamp(self.clock(), UTC).strftime("..%Y_%m_%d_%H_%M_%S.")
        new = Path(tempfile.mkdtemp(prefix=stamp, dir=self.target))
        # Group and others must be able to walk it, whatever the umask.
        new.chmod(0o755)
        return new

    @staticmethod
    def _write_files(payload: Mapping[str, FileProjection], root: Path) -> None:
        for path, proj in payload.items():
            full = root / path
            parent = full.parent
            if parent != root:
                parent.mkdir(parents=True, exist_ok=True)
                for d in [parent, *parent.relative_to(root).parents]:
                    (root / d).chmod(0o755)
            fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(proj.data)
            # Exactly the asked mode, which the umask would have masked at creation.
            os.chmod(full, proj.mode)

    def _link_visible(self, payload: Mapping[str, FileProjection]) -> None:
        for top in {path.split("/", 1)[0] for path in payload}:
            link = self.target / top
            if not link.is_symlink():
                if link.exists():  # a directory made by a subPath mount: leave it
                    continue
                os.symlink(f"{DATA_DIR}/{top}", link)

    def _remove_stale(self, payload: Mapping[str, FileProjection], *, keep: str) -> None:
        tops = {path.split("/", 1)[0] for path in payload}
        for entry in os.scandir(self.target):
            if entry.name in (DATA_DIR, keep):
                continue
            if entry.name.startswith(".."):
                # Old timestamped directories, and a ..data_tmp left by a crash.
                if entry.is_symlink():
                    os.unlink(entry.path)
                else:
                    shutil.rmtree(entry.path, ignore_errors=True)
            elif entry.is_symlink() and entry.name not in tops and \
                    os.readlink(entry.path).startswith(DATA_DIR + "/"):
                os.unlink(entry.path)
