"""Append-only write-ahead journal: one JSON line per change.

Why: TinyDB's JSONStorage rewrites the whole file on every write (tens of ms at
a few thousand documents). The store instead appends one line per change here
and acknowledges the write only once the line has reached the kernel
(``durability="flush"``: survives the process being killed at any moment) or
the disk (``durability="fsync"``: survives power loss too). The TinyDB file is
rewritten from memory only at compaction (see :mod:`.snapshot`).

Layout: ``journal.<seq>.jsonl`` segment files in the state directory, replayed
in sequence order. Compaction rotates to a new segment, writes a snapshot and
then deletes the older segments.

Record format (one line, no embedded newlines since JSON escapes them)::

    {"rv": 42, "op": "put", "r": "pods", "k": "default/web", "o": {...}}
    {"rv": 43, "op": "del", "r": "pods", "k": "default/web"}

Contracts:

* :meth:`Journal.append` either writes the whole line or leaves the segment as
  it was (a failed or short write is truncated away), so a full disk never
  leaves a torn line in the middle of the journal.
* :func:`replay` drops a torn *last* line (a crash mid-write) with a warning and
  truncates it away; a bad line followed by good ones is real corruption and
  raises :class:`JournalCorrupt` naming file and line, so nothing is silently lost.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

log = logging.getLogger(__name__)

Durability = Literal["flush", "fsync"]

_SEGMENT_RE = re.compile(r"^journal\.(\d{6,})\.jsonl$")


class JournalCorrupt(Exception):
    """A journal line that is not the torn tail could not be read."""


class JournalWriteError(OSError):
    """The journal could not be written (disk full, read-only, ...)."""


@dataclass(frozen=True, slots=True)
class Record:
    """One replayed change."""

    rv: int
    op: str  # "put" or "del"
    resource: str
    key: str
    obj: dict[str, Any] | None


def segment_path(directory: Path, seq: int) -> Path:
    return directory / f"journal.{seq:06d}.jsonl"


def list_segments(directory: Path) -> list[tuple[int, Path]]:
    """Existing segments as (seq, path), oldest first."""
    found = []
    for entry in directory.iterdir():
        m = _SEGMENT_RE.match(entry.name)
        if m:
            found.append((int(m.group(1)), entry))
    found.sort()
    return found


def encode_put(rv: int, resource: str, key: str, raw: str) -> bytes:
    """The journal line for a create/update; ``raw`` is the object's JSON text."""
    # String assembly instead of json.dumps(dict): the object is already encoded.
    return (
        f'{{"rv":{rv},"op":"put","r":{json.dumps(resource)},"k":{json.dumps(key)},"o":{raw}}}\n'
    ).encode()


def encode_delete(rv: int, resource: str, key: str) -> bytes:
    return f'{{"rv":{rv},"op":"del","r":{json.dumps(resource)},"k":{json.dumps(key)}}}\n'.encode()


class Journal:
    """The open, current segment. Not thread-safe: the store serialises writers."""

    def __init__(self, directory: Path, seq: int, *, durability: Durability = "flush") -> None:
        self.directory = directory
        self.durability: Durability = durability
        self.seq = seq
        self.path = segment_path(directory, seq)
        # O_APPEND + one os.write per record: no user-space buffer to lose on a crash.
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        self._offset = os.fstat(self._fd).st_size
        self.records = 0
        if durability == "fsync":
            _fsync_dir(directory)

    def append(self, line: bytes) -> None:
        """Durably append one record (see the module contract).

        Raises :class:`JournalWriteError`; the segment is then unchanged.
        """
        try:
            written = os.write(self._fd, line)
            while written < len(line):  # short writes are legal; finish the record
                written += os.write(self._fd, line[written:])
            if self.durability == "fsync":
                os.fdatasync(self._fd)
        except OSError as exc:
            self._rollback()
            raise JournalWriteError(
                exc.errno, f"cannot write journal {self.path}: {exc.strerror}") from exc
        self._offset += len(line)
        self.records += 1

    @property
    def size(self) -> int:
        """The segment's length in bytes (every record written to it)."""
        return self._offset

    def _rollback(self) -> None:
        # Cut any partial record so the next append starts on a clean line.
        try:
            os.ftruncate(self._fd, self._offset)
        except OSError:  # pragma: no cover - nothing more we can do; replay drops a torn tail
            log.exception("could not truncate %s after a failed write", self.path)

    def sync(self) -> None:
        os.fsync(self._fd)

    def close(self) -> None:
        """Close the segment. Never raises for the disk: in ``fsync`` mode every
        acknowledged record was already synced, so a failing final fsync (a
        read-only or broken disk) loses nothing and must not abort a shutdown."""
        if self._fd >= 0:
            try:
                if self.durability == "fsync":
                    os.fsync(self._fd)
            except OSError as exc:
                log.error("cannot sync journal %s on close: %s", self.path, exc.strerror)
            finally:
                os.close(self._fd)
                self._fd = -1


def _fsync_dir(directory: Path) -> None:
    """Make a rename/creation in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replay(path: Path, *, is_last: bool) -> Iterator[Record]:
    """Yield the records of one segment.

    A torn final line (no newline, or not valid JSON, with nothing valid after
    it) is dropped with a warning, and truncated away when ``is_last`` so new
    records start on a clean line. Anything else unreadable raises
    :class:`JournalCorrupt`.
    """
    data = path.read_bytes()
    offset = 0
    lineno = 0
    end = len(data)
    while offset < end:
        lineno += 1
        nl = data.find(b"\n", offset)
        line_end = end if nl < 0 else nl
        chunk = data[offset:line_end]
        try:
            if nl < 0:
                raise ValueError("no newline: record was not completely written")
            rec = json.loads(chunk)
            record = Record(int(rec["rv"]), rec["op"], rec["r"], rec["k"], rec.get("o"))
            bad_put = record.op == "put" and not isinstance(record.obj, dict)
            if record.op not in ("put", "del") or bad_put:
                raise ValueError(f"bad record op {record.op!r}")
        except (ValueError, KeyError, TypeError) as exc:
            rest = data[line_end + 1:] if nl >= 0 else b""
            if rest.strip(b"\0\n\r\t ") == b"":
                log.warning(
                    "%s:%d: dropping a torn last journal record (%s); the write it held was "
                    "never acknowledged", path, lineno, exc,
                )
                if is_last:
                    with path.open("r+b") as f:
                        f.truncate(offset)
                return
            raise JournalCorrupt(
                f"{path}:{lineno}: unreadable journal record ({exc}) followed by more records; "
                "refusing to start rather than lose data. Move the file aside to start from "
                "the last snapshot."
            ) from exc
        yield record
        offset = line_end + 1
