"""Explainable scheduling decisions: what happened to a pod, node by node.

A :class:`Decision` is the record of one scheduling attempt: which nodes were
evaluated and in what order, which plugin rejected each rejected node and
why, every scorer's raw, normalised and weighted score for every feasible
node, the chosen node (or Kubernetes' FitError text) and the preemption
outcome. ``minikube-py explain pod NAME`` prints :meth:`Decision.render`; the
API serves :meth:`Decision.to_dict`.

Storage is compact so a few hundred decisions of a 5,000-node cluster cost a
few MB: the node-name table and the evaluation order are *shared* with the
snapshot (they change only when nodes come or go), a filter verdict is a
2-byte id into :data:`~.status.REASONS`, raw scores are int32 and normalised
scores int8 (they are 0..100). Nothing is rendered until asked for.

:class:`DecisionLog` keeps the latest decisions per pod, bounded per pod and
in all, is safe to share between the scheduling loop and API threads, and
with a :class:`~.decision_file.DecisionFile` survives restarts.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from ..api.timefmt import format_micro_time
from .snapshot import Slots
from .status import PASS, REASONS

if TYPE_CHECKING:
    from .decision_file import DecisionFile

__all__ = ["Decision", "DecisionLog", "Preemption", "ScorerColumn", "Victim"]

U16 = npt.NDArray[np.uint16]

SCHEDULED: Final = "Scheduled"
UNSCHEDULABLE: Final = "Unschedulable"
NOMINATED: Final = "Nominated"
ERROR: Final = "Error"


class Victim(dict[str, Any]):
    """A pod preemption would evict: the pod object as the snapshot saw it.

    It *is* the pod dict (so ``victim["metadata"]`` works for deleting it and
    recording its ``Preempted`` event), with accessors for the fields a
    decision shows.
    """

    @property
    def _meta(self) -> dict[str, Any]:
        meta = self.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def namespace(self) -> str:
        return str(self._meta.get("namespace") or "default")

    @property
    def name(self) -> str:
        return str(self._meta.get("name") or "")

    @property
    def uid(self) -> str:
        return str(self._meta.get("uid") or self.key)

    @property
    def priority(self) -> int:
        spec = self.get("spec")
        value = spec.get("priority") if isinstance(spec, dict) else None
        return value if isinstance(value, int) else 0

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def to_dict(self) -> dict[str, Any]:
        """The summary the API shows (not the whole pod)."""
        return {"namespace": self.namespace, "name": self.name, "uid": self.uid,
                "priority": self.priority}


@dataclass(frozen=True, slots=True)
class Preemption:
    """DefaultPreemption's choice: nominate ``node`` once ``victims`` are gone."""

    node: str
    victims: tuple[Victim, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node, "victims": [v.to_dict() for v in self.victims]}


@dataclass(frozen=True, slots=True)
class ScorerColumn:
    """One score plugin's results over the feasible nodes (None when skipped)."""

    name: str
    weight: int
    raw: npt.NDArray[np.int16] | npt.NDArray[np.int32] | None
    normalized: npt.NDArray[np.int8] | None

    @property
    def skipped(self) -> bool:
        return self.raw is None


_iso = format_micro_time


@dataclass(eq=False)
class Decision:
    """One scheduling attempt; see the module docstring for the layout.

    ``order``/``start``/``count``: the nodes were evaluated in the order
    ``order[start:] + order[:start]`` and the first ``count`` of those were
    processed; ``status[i]`` is the verdict of the i-th processed node
    (:data:`~.status.PASS` for feasible). Nodes outside the processed range
    take ``absent`` (0 when they simply were not needed). The feasible nodes
    (``status == PASS``) are the ones scored, aligned with every
    :class:`ScorerColumn`. Raw scores are int16 when they fit, else int32.
    """

    pod_key: str
    pod_uid: str
    time: float
    outcome: str
    node: str | None
    message: str
    names: tuple[str, ...]
    num_nodes: int
    order: Slots = field(default_factory=lambda: np.zeros(0, np.intp))
    start: int = 0
    count: int = 0
    status: U16 = field(default_factory=lambda: np.zeros(0, np.uint16))
    absent: int = PASS
    scorers: tuple[ScorerColumn, ...] = ()
    preemption: Preemption | None = None
    postfilter_message: str = ""
    unschedulable_plugins: frozenset[str] = frozenset()

    # -------------------------------------------------------------- derived

    @property
    def feasible(self) -> Slots:
        """Slots of the nodes that passed every filter, in evaluation order
        (aligned with every :class:`ScorerColumn`)."""
        passed: Slots = self.evaluated[self.status == PASS]
        return passed

    def nbytes(self) -> int:
        """Bytes this decision holds on its own (shared tables excluded)."""
        total = self.status.nbytes
        for col in self.scorers:
            total += 0 if col.raw is None else col.raw.nbytes
            total += 0 if col.normalized is None else col.normalized.nbytes
        return total

    @property
    def evaluated(self) -> Slots:
        """Slots of the processed nodes, in evaluation order."""
        n = len(self.order)
        if n == 0 or self.count == 0:
            return np.zeros(0, np.intp)
        idx = (np.arange(self.count) + self.start) % n
        return self.order[idx]

    @property
    def totals(self) -> npt.NDArray[np.int64]:
        total = np.zeros(len(self.feasible), np.int64)
        for col in self.scorers:
            if col.normalized is not None:
                total += col.normalized.astype(np.int64) * col.weight
        return total

    def _rows(self) -> tuple[list[tuple[str, int | None, list[Any]]], list[tuple[str, int]]]:
        """(feasible rows sorted chosen-first then by total, rejected (name, reason id))."""
        totals = self.totals
        scored = bool(self.scorers) and any(not c.skipped for c in self.scorers)
        rows: list[tuple[str, int | None, list[Any]]] = []
        for i, slot in enumerate(self.feasible):
            cells: list[Any] = []
            for col in self.scorers:
                if col.raw is None or col.normalized is None:
                    cells.append(None)
                else:
                    cells.append((int(col.raw[i]), int(col.normalized[i]),
                                  int(col.normalized[i]) * col.weight))
            rows.append((self.names[slot], int(totals[i]) if scored else None, cells))
        rows.sort(key=lambda r: (r[0] != self.node, -(r[1] or 0)))
        rejected: list[tuple[str, int]] = []
        evaluated = self.evaluated
        for slot, rid in zip(evaluated.tolist(), self.status.tolist(), strict=True):
            if rid != PASS:
                rejected.append((self.names[slot], rid))
        return rows, rejected

    # ----------------------------------------------------------- rendering

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON rendering for the API."""
        rows, rejected = self._rows()
        nodes: list[dict[str, Any]] = []
        for name, total, cells in rows:
            entry: dict[str, Any] = {"name": name, "feasible": True,
                                     "chosen": name == self.node}
            if total is not None:
                entry["total"] = total
                entry["scores"] = {
                    col.name: {"raw": c[0], "normalized": c[1], "weighted": c[2]}
                    for col, c in zip(self.scorers, cells, strict=True) if c is not None}
            nodes.append(entry)
        for name, rid in rejected:
            st = REASONS.get(rid)
            nodes.append({"name": name, "feasible": False, "plugin": st.plugin,
                          "code": st.code.label, "reasons": list(st.reasons)})
        out: dict[str, Any] = {
            "pod": self.pod_key,
            "uid": self.pod_uid,
            "time": _iso(self.time),
            "outcome": self.outcome,
            "node": self.node,
            "message": self.message,
            "nodesTotal": self.num_nodes,
            "nodesEvaluated": self.count,
            "feasibleNodes": len(self.feasible),
            "unschedulablePlugins": sorted(self.unschedulable_plugins),
            "plugins": [{"name": c.name, "weight": c.weight, "skipped": c.skipped}
                        for c in self.scorers],
            "nodes": nodes,
            "preemption": self.preemption.to_dict() if self.preemption else None,
        }
        if self.absent != PASS:
            st = REASONS.get(self.absent)
            out["otherNodes"] = {"count": self.num_nodes - self.count, "plugin": st.plugin,
                                 "code": st.code.label, "reasons": list(st.reasons)}
        if self.postfilter_message:
            out["postFilterMessage"] = self.postfilter_message
        return out

    def render(self, max_nodes: int | None = None) -> str:
        """A readable report: the chosen node first, then feasible nodes by
        total (with every scorer's normalised score, raw in parentheses when it
        differs), then the rejected nodes with plugin and reason; it ends with
        Kubernetes' message. ``max_nodes`` limits the rows of each table."""
        rows, rejected = self._rows()
        limit = max_nodes if max_nodes is not None else max(len(rows), len(rejected))
        head = f"Pod {self.pod_key} (uid {self.pod_uid}) at {_iso(self.time)}: {self.outcome}"
        lines = [head + (f" -> {self.node}" if self.node else "")]
        lines.append(f"Nodes: {self.num_nodes} total, {self.count} evaluated, "
                     f"{len(self.feasible)} feasible, {len(rejected)} rejected")
        active = [c for c in self.scorers if not c.skipped]
        if rows:
            table = [["NODE", "RESULT", "TOTAL", *[f"{c.name}(x{c.weight})" for c in active]]]
            for name, total, cells in rows[:limit]:
                row = [name, "chosen" if name == self.node else "feasible",
                       "-" if total is None else str(total)]
                for col, cell in zip(self.scorers, cells, strict=True):
                    if col.skipped or cell is None:
                        continue
                    raw, norm, _ = cell
                    row.append(f"{norm}" if raw == norm else f"{norm} ({raw})")
                table.append(row)
            lines.append("")
            lines.extend(_format_table(table))
            if len(rows) > limit:
                lines.append(f"... {len(rows) - limit} more feasible node(s)")
        skipped = [c.name for c in self.scorers if c.skipped]
        if skipped:
            lines.append("Skipped scorers: " + ", ".join(skipped))
        if rejected:
            table = [["NODE", "FILTERED BY", "REASON"]]
            for name, rid in rejected[:limit]:
                st = REASONS.get(rid)
                table.append([name, st.plugin or "-", st.message])
            lines.append("")
            lines.extend(_format_table(table))
            if len(rejected) > limit:
                lines.append(f"... {len(rejected) - limit} more rejected node(s)")
        if self.absent != PASS and self.num_nodes > self.count:
            st = REASONS.get(self.absent)
            lines.append(f"{self.num_nodes - self.count} other node(s): {st.message}")
        elif self.num_nodes > self.count:
            lines.append(f"{self.num_nodes - self.count} node(s) not evaluated "
                         "(enough feasible nodes were found)")
        if self.preemption is not None:
            lines.append("")
            lines.append(f"Preemption: nominated node {self.preemption.node}; victims:")
            lines.extend(f"  {v.key} (priority {v.priority}): Preempted by pod {self.pod_uid} "
                         f"on node {self.preemption.node}" for v in self.preemption.victims)
        lines.append("")
        lines.append(self.message)
        return "\n".join(lines)


def _format_table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths: list[int] = []
    for row in rows:
        for i, cell in enumerate(row):
            if i >= len(widths):
                widths.append(0)
            widths[i] = max(widths[i], len(cell))
    out = []
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        out.append("  ".join(cells).rstrip())
    return out


class DecisionLog:
    """Bounded, thread-safe record of decisions, optionally kept on disk.

    Bounds: at most ``per_pod`` decisions for one pod (its oldest go first)
    and ``capacity`` in all. Over the total, what goes first is the oldest
    decision that is not some pod's latest, so ``explain`` keeps answering
    for as many pods as it can; only when every kept decision is a latest
    one does the pod scheduled longest ago lose its record.

    With ``file`` (a :class:`~.decision_file.DecisionFile`), every decision
    is written before :meth:`record` returns and :meth:`forget` is written
    too, so a restarted scheduler (after ``kill -9`` as well) loads what it
    had (:meth:`load`) and drops the pods deleted meanwhile
    (:meth:`retain`). The file is compacted when it holds twice what is
    kept.
    """

    def __init__(self, capacity: int = 1000, *, per_pod: int = 8,
                 file: DecisionFile | None = None) -> None:
        if capacity < 1 or per_pod < 1:
            raise ValueError("capacity and per_pod must be at least 1")
        self.capacity = capacity
        self.per_pod = per_pod
        self._file = file
        self._lock = threading.Lock()
        #: pod key -> its decisions, oldest first; pods least recently recorded first.
        self._by_pod: OrderedDict[str, list[Decision]] = OrderedDict()
        #: Decisions that stopped being their pod's latest, oldest first (lazily
        #: cleaned: an entry whose decision was already dropped is passed over
        #: when it comes up for eviction).
        self._older: deque[Decision] = deque()
        self._seq: dict[int, int] = {}  # id(decision) -> order recorded
        #: pod uid -> (its pod key, how many of its decisions are kept): forgetting
        #: a pod touches only its own list.
        self._uids: dict[str, tuple[str, int]] = {}
        self._next = 0
        self._total = 0

    # ------------------------------------------------------------------ writing

    def record(self, decision: Decision) -> None:
        """Keep ``decision`` (also available as :meth:`add`)."""
        with self._lock:
            self._keep(decision)
            if self._file is not None:
                self._file.append(decision)
                if self._file.lines > 2 * self._total + 256:
                    self._file.rewrite(self._in_order())

    add = record

    def _keep(self, decision: Decision) -> None:
        key = decision.pod_key
        kept = self._by_pod.pop(key, [])
        if kept:
            self._older.append(kept[-1])
            if len(self._older) > 2 * self.capacity:
                self._older = deque(d for d in self._older if id(d) in self._seq
                                    and self._by_pod.get(d.pod_key, [d])[-1] is not d)
        kept.append(decision)
        self._by_pod[key] = kept
        self._seq[id(decision)] = self._next
        self._next += 1
        self._total += 1
        _, count = self._uids.get(decision.pod_uid, (key, 0))
        self._uids[decision.pod_uid] = (key, count + 1)
        if len(kept) > self.per_pod:
            self._drop(kept.pop(0))
        while self._total > self.capacity:
            self._evict()

    def _drop(self, decision: Decision) -> None:
        self._seq.pop(id(decision), None)
        self._total -= 1
        key, count = self._uids.get(decision.pod_uid, ("", 1))
        if count <= 1:
            self._uids.pop(decision.pod_uid, None)
        else:
            self._uids[decision.pod_uid] = (key, count - 1)

    def _evict(self) -> None:
        while self._older:
            old = self._older.popleft()
            kept = self._by_pod.get(old.pod_key)
            if kept and any(d is old for d in kept[:-1]):
                kept.remove(old)
                self._drop(old)
                return
        key, kept = next(iter(self._by_pod.items()))
        self._drop(kept.pop(0))
        if not kept:
            del self._by_pod[key]

    def forget(self, pod_uid: str) -> None:
        """Drop every decision about pod ``pod_uid`` (it is gone)."""
        with self._lock:
            if self._forget({pod_uid}) and self._file is not None:
                self._file.forget(pod_uid)

    def _forget(self, uids: set[str]) -> bool:
        found = False
        for key in {self._uids[uid][0] for uid in uids if uid in self._uids}:
            kept = self._by_pod.get(key, [])
            stay = [d for d in kept if d.pod_uid not in uids]
            if len(stay) != len(kept):
                found = True
                for d in kept:
                    if d.pod_uid in uids:
                        self._drop(d)
                if stay:
                    self._by_pod[key] = stay
                else:
                    del self._by_pod[key]
        return found

    def retain(self, pod_uids: set[str]) -> int:
        """Drop the decisions of every pod not in ``pod_uids`` (the pods that
        exist); returns how many pods were dropped. For a restart: pods
        deleted while the scheduler was down."""
        with self._lock:
            gone = set(self._uids) - pod_uids
            if gone and self._forget(gone) and self._file is not None:
                self._file.rewrite(self._in_order())
            return len(gone)

    def load(self) -> int:
        """Take in what the file holds (after a restart); returns how many."""
        if self._file is None:
            return 0
        decisions, _ = self._file.load()
        with self._lock:
            for decision in decisions:
                self._keep(decision)
            return self._total

    def close(self) -> None:
        if self._file is not None:
            with self._lock:
                self._file.close()

    # ------------------------------------------------------------------ reading

    def _in_order(self) -> list[Decision]:
        everything = [d for kept in self._by_pod.values() for d in kept]
        everything.sort(key=lambda d: self._seq.get(id(d), -1))
        return everything

    def for_pod(self, pod_key: str) -> list[Decision]:
        """This pod's kept decisions, newest first."""
        with self._lock:
            return list(reversed(self._by_pod.get(pod_key, ())))

    def latest(self, pod_key: str) -> Decision | None:
        """The newest decision for ``namespace/name`` (or None)."""
        with self._lock:
            kept = self._by_pod.get(pod_key)
            return kept[-1] if kept else None

    def recent(self, limit: int | None = None) -> list[Decision]:
        """Every kept decision, newest first."""
        with self._lock:
            items = self._in_order()
        items.reverse()
        return items if limit is None else items[:limit]

    def __len__(self) -> int:
        with self._lock:
            return self._total
