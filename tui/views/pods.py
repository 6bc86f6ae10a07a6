"""Pods: every pod with kubectl's columns, filterable and sortable.

READY, STATUS and RESTARTS come from :mod:`minikube_py.api.printers` (kubectl's
rules: CrashLoopBackOff, ``Init:1/2``, Terminating, ...), never recomputed
here. Rows are recomputed only when pods changed, the filter or sort changed,
or the app's slow tick asks for fresh ages. Sort keys (k9s's): ``N`` name,
``A`` age, ``S`` status, ``T`` restarts, ``O`` node; the same key again
reverses. ``enter`` opens the pod's scheduling decision (Scores view).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from minikube_py.api.core.pod_table import pod_restarts
from minikube_py.api.printers import age, table

from ..widgets.table import ResourceTable, Row
from .base import Selection, View

COLUMNS: Final = ("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "NODE", "AGE")

_GOOD: Final = frozenset({"Running", "Completed", "Succeeded"})
_WAITING: Final = frozenset({"Pending", "ContainerCreating", "PodInitializing", "Terminating",
                             "SchedulingGated"})


def status_style(status: str) -> str:
    """Green for running/completed, yellow for transitions, red for trouble."""
    if status in _GOOD:
        return "green"
    if status in _WAITING or (status.startswith("Init:") and status[5:6].isdigit()):
        return "yellow"
    return "red"


def _restarts(cell: str) -> int:
    head = cell.split(" ", 1)[0]
    return int(head) if head.isdigit() else 0


class _Desc:
    """Wraps a string so that it sorts in descending order."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __lt__(self, other: _Desc) -> bool:
        return self.value > other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.value == other.value

    __hash__ = None  # type: ignore[assignment]


#: Sort keys: column -> function of (pod, shown cells) -> comparable. The shown
#: cells are (namespace, name, ready, status, restarts, node, age), as strings.
_SORTS: Final[dict[str, Callable[[dict[str, Any], tuple[str, ...]], Any]]] = {
    "name": lambda pod, c: (c[0], c[1]),
    # Youngest first (k9s's age order); RFC 3339 UTC strings sort as times do.
    "age": lambda pod, c: (_Desc(str(pod["metadata"].get("creationTimestamp", ""))), c[1]),
    "status": lambda pod, c: (c[3], c[1]),
    "restarts": lambda pod, c: (-_restarts(c[4]), c[1]),
    "node": lambda pod, c: (c[5], c[1]),
}


@lru_cache(maxsize=256)
def status_text(status: str) -> Text:
    """The STATUS cell, coloured; one shared object per status (cells are never
    mutated), so unchanged rows compare by identity."""
    return Text(status, style=status_style(status))


class _Printed:
    """One pod's kubectl cells as printed at ``rv``, and the last row built from
    them: a render that finds the same strings reuses the same tuple, so the
    table sees an unchanged row at the cost of an identity check."""

    __slots__ = ("_row", "_shown", "node", "ready", "restarts", "rv", "status")

    def __init__(self, rv: str, ready: str, status: str, restarts: str, node: str) -> None:
        self.rv, self.ready, self.status, self.restarts, self.node = (
            rv, ready, status, restarts, node)
        self._shown: tuple[str, ...] = ()
        self._row: tuple[str | Text, ...] = ()

    def shown(self, namespace: str, name: str, restarts: str, age: str) -> tuple[str, ...]:
        """(namespace, name, ready, status, restarts, node, age) as strings."""
        shown = (namespace, name, self.ready, self.status, restarts, self.node, age)
        if shown != self._shown:
            self._shown = shown
            self._row = (namespace, name, self.ready, status_text(self.status), restarts,
                         self.node, age)
        return self._shown

    def row(self, shown: tuple[str, ...]) -> tuple[str | Text, ...]:
        return self._row


class PodsView(View):
    """The Pods tab (see the module docstring)."""

    WATCHES = frozenset({"pods"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("N", "sort('name')", "Sort name", show=False),
        Binding("A", "sort('age')", "Sort age", show=False),
        Binding("S", "sort('status')", "Sort status", show=False),
        Binding("T", "sort('restarts')", "Sort restarts", show=False),
        Binding("O", "sort('node')", "Sort node", show=False),
        Binding("l", "app.logs", "Logs"),
        Binding("s", "app.shell", "Shell"),
        Binding("F", "app.port_forward", "Port-forward"),
        Binding("enter", "app.scores", "Why here?"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sort_by = "name"
        self.reverse = False
        self._pods: dict[str, dict[str, Any]] = {}
        #: key -> the pod's cells as last printed (see :class:`_Printed`).
        self._printed: dict[str, _Printed] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="pods-summary", classes="summary")
        yield ResourceTable(COLUMNS, id="pods-table")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#pods-table", ResourceTable)

    def focus_main(self) -> None:
        self.take_focus(self.table)

    def action_sort(self, column: str) -> None:
        """Sort by ``column``; the same column again reverses the order."""
        if column == self.sort_by:
            self.reverse = not self.reverse
        else:
            self.sort_by, self.reverse = column, False
        self.render_view()

    def rows(self) -> list[Row]:
        """The rows to show now: filtered, sorted, with kubectl's cells.

        kubectl's READY / STATUS / RESTARTS of a pod are printed again only when
        the pod changed (its resourceVersion), so a change to one pod among
        1,000 prints one; AGE (and a RESTARTS cell that says "5m ago") follows
        the clock on every render.
        """
        now = self.clock()
        keyed: list[tuple[Any, Row]] = []
        cache: dict[str, _Printed] = {}
        self._pods = {}
        sort = _SORTS[self.sort_by]
        for pod in self.model.objects("pods"):
            meta = pod["metadata"]
            namespace, name = str(meta.get("namespace", "")), str(meta.get("name", ""))
            key = f"{namespace}/{name}"
            rv = str(meta.get("resourceVersion", ""))
            hit = self._printed.get(key)
            if hit is None or hit.rv != rv:
                cells = table("Pod", [pod], now=now, include_object="None")["rows"][0]["cells"]
                hit = _Printed(rv, cells[1], cells[2], cells[3], cells[6])
            cache[key] = hit
            restarts = hit.restarts
            if restarts.endswith(" ago)"):
                restarts = pod_restarts(pod, now=now)
            shown = hit.shown(namespace, name, restarts,
                              age(meta.get("creationTimestamp"), now=now))
            if not self.filter.matches(pod, shown):
                continue
            self._pods[key] = pod
            keyed.append((sort(pod, shown), (key, hit.row(shown))))
        self._printed = cache
        keyed.sort(key=lambda item: item[0], reverse=self.reverse)
        return [row for _, row in keyed]

    def render_view(self) -> None:
        rows = self.rows()
        self.table.sync(rows)
        total = len(self.model.objects("pods"))
        states: dict[str, int] = {}
        for _, cells in rows:
            status = cells[3]
            label = status.plain if isinstance(status, Text) else status
            states[label] = states.get(label, 0) + 1
        counts = ", ".join(f"{n} {s}" for s, n in sorted(states.items(), key=lambda i: -i[1]))
        shown = f"{len(rows)} of {total}" if self.filter.active else f"{total}"
        arrow = "↓" if self.reverse else "↑"
        filt = f"  filter: {self.filter.text}" if self.filter.active else ""
        self.query_one("#pods-summary", Static).update(
            f"[b]Pods[/b] {shown}" + (f" ({counts})" if counts else "")
            + f"  sort: {self.sort_by}{arrow}{filt}")
        self.stale = False

    def selection(self) -> Selection | None:
        key = self.table.current_key
        return None if key is None else Selection.of_key("pods", key)

    def pod(self, key: str) -> dict[str, Any] | None:
        """The pod object of a shown row."""
        return self._pods.get(key)
