"""Scheduling decisions on disk, so ``explain`` and the dashboard answer after a
restart, and after ``kill -9``.

The scheduler's own file in the state directory (a component's local
checkpoint, like the kubelet's, not cluster state: nothing else reads it and
no API object depends on it). One JSON line per record, appended with a
single ``write`` before :meth:`DecisionFile.append` returns, so a decision is
in the kernel before its pod's binding is even sent: a process killed at any
moment loses none that took effect.

Records (keys short: a busy scheduler writes one per attempt)::

    {"t": "r", "i": 7, "p": "TaintToleration", "c": 2, "m": ["..."]}   a verdict
    {"t": "n", "i": 3, "names": [...], "order": "<base64 int32>"}       a node table
    {"t": "d", "k": "ns/name", "u": uid, ...}                            a decision
    {"t": "x", "u": uid}                                                 pod gone

Verdict ids are per-process (:data:`~.status.REASONS` interns them as it
meets them), so each file carries the verdicts its decisions use and loading
maps them to this process's ids. Node tables are shared by many decisions,
as in memory, and written once each.

Contracts:

* Loading never stops the scheduler: a torn last line (a crash mid-write) and
  any unreadable line are skipped with one warning naming how many; a file
  that cannot be read or written at all is reported once and the log keeps
  working in memory.
* :meth:`DecisionFile.rewrite` (compaction) replaces the file atomically
  (write aside, then rename) with exactly the records given.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..api import jsontext
from .decision import Decision, Preemption, ScorerColumn, Victim
from .gil import write_held
from .status import PASS, REASONS, Code

log = logging.getLogger(__name__)

__all__ = ["DecisionFile"]

_DTYPES = {"h": np.int16, "i": np.int32, "b": np.int8}


def _b64(array: np.ndarray[Any, Any]) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()


def _array(text: str, dtype: Any) -> np.ndarray[Any, Any]:
    return np.frombuffer(base64.b64decode(text), dtype=dtype).copy()


class DecisionFile:
    """The append-only decision file at ``path`` (see the module contract)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._broken = False
        #: Verdict ids and node tables already in the file (written once each).
        self._reasons: set[int] = set()
        self._tables: dict[tuple[int, int], int] = {}
        self._table_refs: list[tuple[tuple[str, ...], Any]] = []  # keeps ids stable
        #: Lines in the file, for the compaction decision.
        self.lines = 0

    # ------------------------------------------------------------------ writing

    def _open(self) -> int | None:
        if self._fd is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            except OSError as exc:
                self._fail(exc)
        return self._fd

    def _fail(self, exc: OSError) -> None:
        if not self._broken:
            log.warning("scheduling decisions are kept in memory only: cannot write %s: %s",
                        self.path, exc)
        self._broken = True
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self, lines: list[bytes]) -> None:
        fd = self._open()
        if fd is None:
            return
        data = b"".join(lines)
        try:
            # Keeping the interpreter lock (see gil.write_held): a releasing
            # write in the scheduling loop waited for the lock to come back.
            written = write_held(fd, data)
            if written != len(data):
                raise OSError(f"short write ({written} of {len(data)} bytes)")
        except OSError as exc:
            self._fail(exc)
            return
        self.lines += len(lines)

    def append(self, decision: Decision) -> None:
        """Write ``decision`` (and any verdict or node table it needs first)."""
        self._write(self._lines(decision))

    def forget(self, uid: str) -> None:
        """Record that pod ``uid`` is gone: its decisions are not loaded again."""
        self._write([_line({"t": "x", "u": uid})])

    def rewrite(self, decisions: Iterable[Decision]) -> None:
        """Replace the file with exactly ``decisions`` (atomically)."""
        if self._broken:
            return
        self._reasons.clear()
        self._tables.clear()
        self._table_refs.clear()
        lines: list[bytes] = []
        for decision in decisions:
            lines.extend(self._lines(decision))
        aside = self.path.with_name(self.path.name + ".new")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(b"".join(lines))
            os.replace(aside, self.path)
        except OSError as exc:
            self._fail(exc)
            return
        if self._fd is not None:
            os.close(self._fd)  # the old file is gone: append to the new one
            self._fd = None
        self.lines = len(lines)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _lines(self, d: Decision) -> list[bytes]:
        out: list[bytes] = []
        rids = set(d.status.tolist()) | {d.absent}  # np.unique would release the lock
        for rid in sorted(rids - self._reasons - {PASS}):
            st = REASONS.get(rid)
            out.append(_line({"t": "r", "i": rid, "p": st.plugin, "c": int(st.code),
                              "m": list(st.reasons)}))
            self._reasons.add(rid)
        # Decisions without nodes each carry their own empty order: one table will do.
        key = (id(d.names), id(d.order) if len(d.order) else -1)
        table = self._tables.get(key)
        if table is None:
            table = len(self._table_refs)
            self._tables[key] = table
            self._table_refs.append((d.names, d.order))
            out.append(_line({"t": "n", "i": table, "names": list(d.names),
                              "order": _b64(d.order.astype(np.int32))}))
        # No nulls (a skipped scorer is [name, weight]; no node, no "n"): the
        # JSON writer looks through a record for a NaN only when its text has
        # a null, and that look cost 8 of the 10 us a decision's line took.
        record: dict[str, Any] = {
            "t": "d", "k": d.pod_key, "u": d.pod_uid, "ts": d.time, "o": d.outcome,
            "m": d.message, "tab": table, "nn": d.num_nodes, "s": d.start,
            "c": d.count, "st": _b64(d.status.astype(np.uint16)), "a": d.absent,
            "sc": [[c.name, c.weight] if c.raw is None else
                   [c.name, c.weight, c.raw.dtype.char, _b64(c.raw),
                    None if c.normalized is None else _b64(c.normalized)]
                   for c in d.scorers],
        }
        if d.node is not None:
            record["n"] = d.node
        if d.preemption is not None:
            record["pre"] = {"node": d.preemption.node,
                             "v": [v.to_dict() for v in d.preemption.victims]}
        if d.postfilter_message:
            record["pf"] = d.postfilter_message
        if d.unschedulable_plugins:
            record["up"] = sorted(d.unschedulable_plugins)
        out.append(_line(record))
        return out

    # ------------------------------------------------------------------ reading

    def load(self) -> tuple[list[Decision], set[str]]:
        """(decisions in the order written, uids recorded as gone). Unreadable
        lines are skipped (see the module contract)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return [], set()
        except OSError as exc:
            log.warning("cannot read the scheduling decisions in %s: %s", self.path, exc)
            return [], set()
        reasons: dict[int, int] = {PASS: PASS}
        tables: dict[int, tuple[tuple[str, ...], Any]] = {}
        decisions: list[Decision] = []
        gone: set[str] = set()
        bad = 0
        lines = data.split(b"\n")
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
                kind = record["t"]
                if kind == "r":
                    reasons[int(record["i"])] = REASONS.intern(
                        str(record["p"]), Code(int(record["c"])), *map(str, record["m"]))
                elif kind == "n":
                    order = _array(record["order"], np.int32).astype(np.intp)
                    tables[int(record["i"])] = (tuple(map(str, record["names"])), order)
                elif kind == "d":
                    decisions.append(_decision(record, reasons, tables))
                elif kind == "x":
                    gone.add(str(record["u"]))
                else:
                    raise ValueError(f"unknown record type {kind!r}")
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                bad += 1
                if number != len(lines):
                    log.debug("%s:%d: skipped: %s", self.path, number, exc)
        if bad:
            log.warning("skipped %d unreadable line(s) of %s (a crash mid-write leaves one)",
                        bad, self.path)
        self.lines = len([ln for ln in lines if ln.strip()])
        return [d for d in decisions if d.pod_uid not in gone], gone


def _line(record: dict[str, Any]) -> bytes:
    return jsontext.dumps_bytes(record) + b"\n"


def _decision(r: dict[str, Any], reasons: dict[int, int],
              tables: dict[int, tuple[tuple[str, ...], Any]]) -> Decision:
    names, order = tables[int(r["tab"])]
    status = _array(r["st"], np.uint16)
    if status.size:
        # This process's ids for the file's verdicts (a missing one is a KeyError).
        status = np.array([reasons[int(x)] for x in status.tolist()], np.uint16)
    # A skipped scorer: [name, weight] (older files: three nulls after them).
    scorers = tuple(
        ScorerColumn(str(name), int(weight),
                     None if raw is None else _array(raw, _DTYPES[dtype]),
                     None if norm is None else _array(norm, np.int8))
        for name, weight, dtype, raw, norm in (
            (*c, None, None, None) if len(c) == 2 else c for c in r["sc"]))
    preemption = None
    if "pre" in r:
        victims = tuple(Victim({"metadata": {"namespace": v["namespace"], "name": v["name"],
                                             "uid": v["uid"]},
                                "spec": {"priority": v["priority"]}})
                        for v in r["pre"]["v"])
        preemption = Preemption(str(r["pre"]["node"]), victims)
    return Decision(
        str(r["k"]), str(r["u"]), float(r["ts"]), str(r["o"]), r.get("n"), str(r["m"]), names,
        int(r["nn"]), order, int(r["s"]), int(r["c"]), status, reasons[int(r["a"])], scorers,
        preemption, str(r.get("pf", "")), frozenset(map(str, r.get("up", ()))))


def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every readable record of the file at ``path`` (for tests and tools)."""
    for raw in path.read_bytes().split(b"\n"):
        if raw.strip():
            try:
                yield json.loads(raw)
            except ValueError:
                continue
