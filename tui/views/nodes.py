"""Nodes: how full each node is, how busy it really is, and whether it takes pods.

One row per node: kubectl's STATUS (``Ready``, ``NotReady``,
``,SchedulingDisabled`` when cordoned) plus any pressure condition that is
True; what the bound, non-terminated pods *request* against the node's
allocatable CPU, memory and pod slots as bars (what the scheduler's fit
filter compares); the *real* usage the kubelet reports each heartbeat as
sparklines scaled to allocatable; and the taints. The panel below details
the node under the cursor: conditions with reasons, taints, absolute
numbers and its pods. Keys: ``c`` cordon, ``C`` uncordon, ``D`` drain.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from minikube_py.api.printers import age, table

from ..model import NodeAllocation
from ..widgets.bars import bar, bytes_text, cpu_text, sparkline
from ..widgets.table import ResourceTable, Row
from .base import Selection, View

COLUMNS: Final = ("NAME", "STATUS", "CPU REQ", "MEM REQ", "PODS", "CPU USE", "MEM USE",
                  "TAINTS")
#: Cells of bars and sparklines: narrow, so the row fits 120 columns.
_BAR: Final = 5
_SPARK: Final = 5
_PRESSURES: Final = ("MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable")


def taint_text(taint: dict[str, Any]) -> str:
    """``key=value:Effect`` (``key:Effect`` without a value), as kubectl describes taints."""
    key, value = taint.get("key", ""), taint.get("value")
    return f"{key}={value}:{taint.get('effect', '')}" if value else \
        f"{key}:{taint.get('effect', '')}"


def _status(node: dict[str, Any], printed: str) -> Text:
    text = Text(printed, style="green" if printed == "Ready" else
                "yellow" if printed.startswith("Ready,") else "red")
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") in _PRESSURES and condition.get("status") == "True":
            text.append(f" {condition['type']}", style="red")
    return text


class NodesView(View):
    """The Nodes tab (see the module docstring)."""

    WATCHES = frozenset({"nodes", "pods"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "app.cordon", "Cordon"),
        Binding("C", "app.uncordon", "Uncordon"),
        Binding("D", "app.drain", "Drain"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="nodes-summary", classes="summary")
        yield ResourceTable(COLUMNS, id="nodes-table")
        yield Static(id="node-detail", classes="detail")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#nodes-table", ResourceTable)

    def focus_main(self) -> None:
        self.take_focus(self.table)

    def rows(self) -> list[Row]:
        nodes = sorted(self.model.objects("nodes"), key=lambda n: str(n["metadata"]["name"]))
        printed = table("Node", nodes, now=self.clock(), include_object="None")["rows"]
        allocations = self.model.allocations()
        out: list[Row] = []
        for node, row in zip(nodes, printed, strict=True):
            name = str(node["metadata"]["name"])
            cells = row["cells"]
            alloc = allocations.get(name, NodeAllocation())
            history = self.model.usage_history(name)
            cpu_use: Text = sparkline([s.cpu_millis for s in history], alloc.cpu_allocatable,
                                      width=_SPARK)
            mem_use: Text = sparkline([s.memory_bytes for s in history],
                                      alloc.memory_allocatable, width=_SPARK)
            if history:
                cpu_use.append(f" {cpu_text(history[-1].cpu_millis)}", style="default")
                mem_use.append(f" {bytes_text(history[-1].memory_bytes)}", style="default")
            taints = ", ".join(taint_text(t) for t in
                               (node.get("spec") or {}).get("taints") or []) or "<none>"
            shown: tuple[str | Text, ...] = (
                name, _status(node, cells[1]),
                bar(alloc.cpu_requested, alloc.cpu_allocatable, width=_BAR),
                bar(alloc.memory_requested, alloc.memory_allocatable, width=_BAR),
                bar(alloc.pods, alloc.pods_allocatable, width=_BAR),
                cpu_use, mem_use, taints)
            if self.filter.matches(node, shown):
                out.append((name, shown))
        return out

    def render_view(self) -> None:
        rows = self.rows()
        self.table.sync(rows)
        nodes = self.model.objects("nodes")
        ready = sum(1 for _, cells in rows
                    if isinstance(cells[1], Text) and cells[1].plain.startswith("Ready"))
        cordoned = sum(1 for n in nodes if (n.get("spec") or {}).get("unschedulable"))
        self.query_one("#nodes-summary", Static).update(
            f"[b]Nodes[/b] {len(nodes)} ({ready} Ready"
            + (f", {cordoned} cordoned" if cordoned else "") + ")  "
            "[dim]requests vs allocatable as bars; real usage per heartbeat as sparklines[/dim]"
            + (f"  filter: {self.filter.text}" if self.filter.active else ""))
        self._detail()
        self.stale = False

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._detail()

    def _detail(self) -> None:
        panel = self.query_one("#node-detail", Static)
        key = self.table.current_key
        node = self.model.get("nodes", key) if key else None
        if node is None:
            panel.update("")
            return
        alloc = self.model.allocations().get(key or "", NodeAllocation())
        spec, status = node.get("spec") or {}, node.get("status") or {}
        lines = [
            f"[b]{key}[/b]  " + ("[yellow]cordoned (unschedulable)[/yellow]"
                                 if spec.get("unschedulable") else "schedulable")
            + f"  requests: cpu {cpu_text(alloc.cpu_requested)}/"
              f"{cpu_text(alloc.cpu_allocatable)}, memory "
              f"{bytes_text(alloc.memory_requested)}/{bytes_text(alloc.memory_allocatable)}, "
              f"pods {alloc.pods}/{alloc.pods_allocatable}; "
              f"age {age(node['metadata'].get('creationTimestamp'), now=self.clock())}"]
        conditions = []
        for c in status.get("conditions") or []:
            good = (c.get("status") == "True") == (c.get("type") == "Ready")
            colour = "green" if good else "red"
            reason = f" ({escape(str(c.get('reason')))})" if c.get("reason") else ""
            conditions.append(f"[{colour}]{escape(str(c.get('type')))}="
                              f"{escape(str(c.get('status')))}[/{colour}]{reason}")
        lines.append("Conditions: " + (", ".join(conditions) or "<none>"))
        taints = [taint_text(t) for t in spec.get("taints") or []]
        lines.append("Taints: " + (escape(", ".join(taints)) or "<none>"))
        pods = sorted(alloc.pod_keys)
        lines.append(f"Pods ({len(pods)}): " + (escape(", ".join(pods[:8])) or "<none>")
                     + (f", ... {len(pods) - 8} more" if len(pods) > 8 else ""))
        panel.update(Text.from_markup("\n".join(lines)))

    def selection(self) -> Selection | None:
        key = self.table.current_key
        return None if key is None else Selection("nodes", None, key)
