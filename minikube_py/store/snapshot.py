"""The TinyDB state file: written atomically at compaction, read with TinyDB.

The file is a plain TinyDB JSON database, one table per resource (``pods``,
``deployments``, ...) plus a ``_meta`` table holding the resourceVersion the
snapshot is complete up to. Users can open it with ``tinydb.TinyDB(path)``.

Writing goes around TinyDB on purpose: the objects are already held as JSON
text, so the file is assembled by string joining (about a millisecond for
10,000 objects) and written in pieces of about a megabyte, instead of
re-encoding every document inside one long ``json.dumps`` call that would
hold the GIL and stall every other loop. The
output is exactly TinyDB's format (``{"table": {"<doc_id>": {...}}}``), and the
tests read it back through TinyDB. The file is ASCII, as :mod:`json` writes by
default: the store's texts carry characters beyond ASCII as UTF-8
(:mod:`..api.jsontext`), and such a text is escaped here, so the file reads
the same whatever the reader's locale encoding.

Contract: :func:`write_snapshot` replaces the file atomically (temp file,
fsync, rename, fsync of the directory); a crash at any point leaves either the
old or the new file, never a mix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from tinydb import TinyDB

from .atomicfile import write_atomically

META_TABLE = "_meta"
FORMAT_VERSION = 1


class SnapshotError(Exception):
    """The state file exists but cannot be read as a minikube-py TinyDB file."""


def write_snapshot(path: Path, rv: int, tables: Mapping[str, Iterable[str]]) -> int:
    """Atomically write ``tables`` (resource -> raw JSON objects) at ``rv``;
    returns the file's size in bytes."""
    return write_atomically(path, _chunks(rv, tables))


#: Text gathered before it is encoded and written: the file goes out in pieces
#: of about this size, so a state of a gigabyte never sits in memory twice more
#: (joined text, then its bytes) while it is written.
CHUNK_CHARS = 1 << 20


def _chunks(rv: int, tables: Mapping[str, Iterable[str]]) -> Iterator[bytes]:
    parts: list[str] = ["{", json.dumps(META_TABLE), ':{"1":',
                        json.dumps({"resourceVersion": rv, "format": FORMAT_VERSION}), "}"]
    pending = 0
    for name, raws in tables.items():
        parts.append(f",{json.dumps(name)}:{{")
        first = True
        for doc_id, raw in enumerate(raws, start=1):
            if not raw.isascii():
                raw = json.dumps(json.loads(raw), separators=(",", ":"))
            parts.append(f'"{doc_id}":{raw}' if first else f',"{doc_id}":{raw}')
            first = False
            pending += len(raw)
            if pending >= CHUNK_CHARS:
                yield "".join(parts).encode()
                parts, pending = [], 0
        parts.append("}")
    parts.append("}")
    yield "".join(parts).encode()


def read_snapshot(path: Path) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    """Load a state file through TinyDB: (resourceVersion, resource -> objects).

    A missing file is an empty store at resourceVersion 0.
    """
    if not path.exists():
        return 0, {}
    db = TinyDB(path, access_mode="r", encoding="utf-8")
    try:
        # One parse through TinyDB's own storage: ``db.tables()`` followed by each
        # table's ``all()`` would re-read and re-parse the whole file per table.
        data = db.storage.read() or {}
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SnapshotError(
            f"{path} is not a valid TinyDB JSON file ({exc}); it was not written by a clean "
            "compaction. Restore it from a backup or move it aside to start empty."
        ) from exc
    finally:
        db.close()
    rv = 0
    tables: dict[str, list[dict[str, Any]]] = {}
    for name in sorted(data):
        docs = list(data[name].values())
        if name == META_TABLE:
            if docs:
                rv = int(docs[0].get("resourceVersion", 0))
            continue
        tables[name] = docs
    return rv, tables
