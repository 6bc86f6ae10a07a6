"""Scores: why a pod is where it is (or why it is nowhere yet), node by node.

Left, the pods (unscheduled ones first). Right, the selected pod's decision
record from ``/debug/scheduler/decisions/NS/NAME``, the same record
``minikube-py explain pod`` prints:

* a header with the attempt shown (``[`` older, ``]`` newer), its outcome,
  the chosen node and how many nodes were evaluated and feasible;
* the feasible nodes with each score plugin's *weighted* score (normalized
  score x weight) and the total, the chosen node first and highlighted;
* the rejected nodes with the filter plugin that rejected each and why;
* Kubernetes' message, the preemption outcome, and the raw / normalized /
  weight breakdown of the feasible node under the cursor.

Live: the decision is refetched when another pod is selected, and when pods
or nodes change while the selected pod is still unscheduled (every retry
adds a record) or the pod itself changed (it got bound). A bound pod's past
decision is fetched once.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

from minikube_py.api.core.pod_table import pod_status
from minikube_py.api.printers import age

from ..scheduling import fetch_decisions
from ..widgets.table import ResourceTable, Row
from .base import Selection, View
from .pods import status_text

#: Short column titles for the default score plugins (the legend gives full names).
SHORT: Final = {
    "NodeResourcesFit": "Fit",
    "NodeResourcesBalancedAllocation": "Balanced",
    "ImageLocality": "Image",
    "TaintToleration": "Taints",
    "NodeAffinity": "Affinity",
    "InterPodAffinity": "PodAffinity",
    "PodTopologySpread": "Spread",
}
POD_COLUMNS: Final = ("POD", "STATUS")
REJECTED_COLUMNS: Final = ("NODE", "FILTERED BY", "REASON")
_OUTCOME_STYLE: Final = {"Scheduled": "green", "Unschedulable": "red", "Nominated": "yellow",
                         "Error": "red"}


def short(plugin: str) -> str:
    return SHORT.get(plugin, plugin)


class ScoresView(View):
    """The Scores tab (see the module docstring)."""

    WATCHES = frozenset({"pods", "nodes"})
    SHOWS_AGES = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left_square_bracket", "attempt(-1)", "Older attempt"),
        Binding("right_square_bracket", "attempt(1)", "Newer attempt"),
        Binding("l", "app.logs", "Logs", show=False),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pod_key: str | None = None
        self.records: list[dict[str, Any]] = []
        #: Index into records of the attempt shown (-1: the latest).
        self.attempt = -1
        self.error = ""
        self._fetched_rv: str | None = None
        self._fetching = False
        self._again = False
        self._statuses: dict[str, tuple[str, tuple[str | Text, ...]]] = {}

    def compose(self) -> ComposeResult:
        with Horizontal():
            with Vertical(id="scores-left"):
                yield Static("[b]Pods[/b] [dim](pending first)[/dim]", classes="summary")
                yield ResourceTable(POD_COLUMNS, id="scores-pods")
            with Vertical(id="scores-right"):
                yield Static(id="scores-header", classes="summary")
                yield Static(id="feasible-title", classes="title")
                yield ResourceTable(("NODE", "TOTAL"), id="scores-feasible")
                yield Static(id="rejected-title", classes="title")
                yield ResourceTable(REJECTED_COLUMNS, id="scores-rejected")
                yield Static(id="scores-message", classes="detail")

    @property
    def pods_table(self) -> ResourceTable:
        return self.query_one("#scores-pods", ResourceTable)

    @property
    def feasible_table(self) -> ResourceTable:
        return self.query_one("#scores-feasible", ResourceTable)

    @property
    def rejected_table(self) -> ResourceTable:
        return self.query_one("#scores-rejected", ResourceTable)

    def focus_main(self) -> None:
        self.take_focus(self.pods_table)

    # ------------------------------------------------------------------ selection

    def select_pod(self, key: str) -> None:
        """Show ``namespace/name``'s decisions (fetched now)."""
        self.render_pods()
        self.pods_table.select_key(key)
        self._choose(key)

    def _choose(self, key: str | None) -> None:
        if key == self.pod_key:
            return
        self.pod_key = key
        self.records, self.attempt, self.error = [], -1, ""
        self._fetched_rv = None
        self.render_decision()
        if key is not None:
            self.fetch()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "scores-pods":
            self._choose(self.pods_table.current_key)
        elif event.data_table.id == "scores-feasible":
            self._render_message()

    def action_attempt(self, step: int) -> None:
        """Show an older (-1) or newer (+1) remembered attempt."""
        if not self.records:
            return
        current = self.attempt if self.attempt >= 0 else len(self.records) - 1
        target = min(max(current + step, 0), len(self.records) - 1)
        self.attempt = -1 if target == len(self.records) - 1 else target
        self.render_decision()

    def selection(self) -> Selection | None:
        if self.pod_key is None:
            return None
        namespace, _, name = self.pod_key.partition("/")
        return Selection("pods", namespace, name)

    # ------------------------------------------------------------------ fetching

    def shown(self) -> None:
        self.render_view()
        if self.pod_key is None:
            self._choose(self.pods_table.current_key)
        else:
            self._refetch_if_live()

    def cluster_changed(self, changed: frozenset[str]) -> None:
        if changed & self.WATCHES:
            self.render_pods()
            self._refetch_if_live()

    def _refetch_if_live(self) -> None:
        if self.pod_key is None:
            return
        pod = self.model.get("pods", self.pod_key)
        if pod is None:
            return
        rv = str(pod["metadata"].get("resourceVersion"))
        pending = not (pod.get("spec") or {}).get("nodeName")
        if pending or rv != self._fetched_rv:
            self.fetch()

    def fetch(self) -> None:
        """Fetch the selected pod's decisions in a thread (one request in flight;
        a change meanwhile causes exactly one more)."""
        if self._fetching:
            self._again = True
            return
        if self.pod_key is None:
            return
        self._fetching = True
        key = self.pod_key
        pod = self.model.get("pods", key)
        rv = None if pod is None else str(pod["metadata"].get("resourceVersion"))
        self.run_worker(lambda: self._fetch(key, rv), thread=True, group="scores",
                        exit_on_error=False)

    def _fetch(self, key: str, rv: str | None) -> None:
        namespace, _, name = key.partition("/")
        try:
            records: list[dict[str, Any]] | None = fetch_decisions(
                self.model.client, namespace, name)
            error = ""
        except Exception as exc:  # shown in the view
            records, error = None, str(exc) or type(exc).__name__
        self.app.call_from_thread(self._fetched, key, rv, records, error)

    def _fetched(self, key: str, rv: str | None, records: list[dict[str, Any]] | None,
                 error: str) -> None:
        self._fetching = False
        if key == self.pod_key:
            self.error = error
            if records is not None:
                self.records = records
                self._fetched_rv = rv
                if self.attempt >= len(records):
                    self.attempt = -1
            self.render_decision()
        if self._again:
            self._again = False
            self.fetch()

    # ------------------------------------------------------------------ rendering

    def render_view(self) -> None:
        self.render_pods()
        self.render_decision()
        self.stale = False

    def render_pods(self) -> None:
        now = self.clock()
        rows: list[tuple[tuple[int, str], Row]] = []
        statuses: dict[str, tuple[str, tuple[str | Text, ...]]] = {}
        for pod in self.model.objects("pods"):
            meta = pod["metadata"]
            key = f"{meta.get('namespace')}/{meta.get('name')}"
            node = str((pod.get("spec") or {}).get("nodeName") or "")
            rv = str(meta.get("resourceVersion", ""))
            hit = self._statuses.get(key)
            if hit is None or hit[0] != rv:  # printed again only when the pod changed
                hit = (rv, (key, status_text(pod_status(pod, now=now))))
            statuses[key] = hit
            cells = hit[1]
            if self.filter.matches(pod, cells):
                rows.append(((0 if not node else 1, key), (key, cells)))
        self._statuses = statuses
        rows.sort(key=lambda r: r[0])
        self.pods_table.sync([row for _, row in rows])

    def record(self) -> dict[str, Any] | None:
        """The decision record shown (None when there is none)."""
        if not self.records:
            return None
        return self.records[self.attempt]

    def render_decision(self) -> None:
        header = self.query_one("#scores-header", Static)
        rec = self.record()
        if self.pod_key is None:
            header.update("[b]Scheduling decision[/b]  select a pod on the left")
            self._clear_tables()
            return
        if rec is None:
            pod = self.model.get("pods", self.pod_key)
            node = (pod or {}).get("spec", {}).get("nodeName")
            why = (self.error if self.error else
                   f"on {node} without a recorded decision (placed by spec.nodeName, or "
                   "its record is no longer kept)" if node else
                   "not tried yet")
            header.update(f"[b]{escape(self.pod_key)}[/b]  no decision: {escape(why)}")
            self._clear_tables()
            return
        index = self.attempt if self.attempt >= 0 else len(self.records) - 1
        outcome = str(rec.get("outcome", ""))
        style = _OUTCOME_STYLE.get(outcome, "")
        chosen = f" -> [b]{escape(str(rec['node']))}[/b]" if rec.get("node") else ""
        latest = ", latest" if index == len(self.records) - 1 else ""
        when = str(rec.get("time", ""))
        header.update(
            f"[b]{escape(self.pod_key)}[/b]  [{style}]{outcome}[/{style}]{chosen}\n"
            f"attempt {index + 1} of {len(self.records)}{latest}, at {when[11:19]} "
            f"({age(when, now=self.clock())} ago); "
            f"nodes: {rec.get('nodesTotal', 0)} total, {rec.get('nodesEvaluated', 0)} evaluated,"
            f" {rec.get('feasibleNodes', 0)} feasible")
        plugins = [p for p in rec.get("plugins") or [] if not p.get("skipped")]
        columns = ["NODE", "TOTAL",
                   *[f"{short(str(p['name']))} x{p['weight']}" for p in plugins]]
        feasible: list[Row] = []
        rejected: list[Row] = []
        for node in rec.get("nodes") or []:
            name = str(node.get("name"))
            if node.get("feasible"):
                is_chosen = bool(node.get("chosen"))
                row_style = "bold green" if is_chosen else ""
                scores = node.get("scores") or {}
                cells: list[str | Text] = [
                    Text(("> " if is_chosen else "  ") + name, style=row_style),
                    Text(str(node.get("total", "-")), style=row_style)]
                for p in plugins:
                    entry = scores.get(p["name"])
                    cells.append(Text("-" if entry is None else str(entry["weighted"]),
                                      style=row_style))
                feasible.append((name, tuple(cells)))
            else:
                reasons = "; ".join(str(r) for r in node.get("reasons") or [])
                rejected.append((name, (name, Text(str(node.get("plugin") or "-"), style="red"),
                                        reasons)))
        self.feasible_table.reset_columns(columns)
        self.feasible_table.sync(feasible)
        self.rejected_table.sync(rejected)
        if len(feasible) == 1 and not plugins:
            title = "[b]Feasible[/b] 1: the only feasible node, chosen without scoring"
        else:
            title = (f"[b]Feasible[/b] {len(feasible)}: score per plugin = normalized x "
                     "weight; chosen first")
        self.query_one("#feasible-title", Static).update(title)
        self.query_one("#rejected-title", Static).update(
            f"[b]Rejected[/b] {len(rejected)}: the filter plugin that said no, and why")
        self._render_message()

    def _render_message(self) -> None:
        panel = self.query_one("#scores-message", Static)
        rec = self.record()
        if rec is None:
            panel.update("")
            return
        lines = [f"[b]Message:[/b] {escape(str(rec.get('message', '')))}"]
        other = rec.get("otherNodes")
        if isinstance(other, dict):
            lines.append(f"{other.get('count')} other node(s): "
                         f"{escape('; '.join(other.get('reasons') or []))}")
        post = str(rec.get("postFilterMessage") or "")
        if post and post not in str(rec.get("message", "")):
            lines.append(f"Preemption: {escape(post)}")
        preemption = rec.get("preemption")
        if isinstance(preemption, dict):
            victims = ", ".join(f"{v.get('namespace')}/{v.get('name')}"
                                for v in preemption.get("victims") or [])
            lines.append(f"Preemption: nominated {preemption.get('node')}; victims: "
                         f"{victims or 'none'}")
        key = self.feasible_table.current_key
        for node in rec.get("nodes") or []:
            if node.get("name") == key and node.get("scores"):
                parts = [f"{name} {s['normalized']} (raw {s['raw']}) x"
                         f"{self._weight(rec, name)} = {s['weighted']}"
                         for name, s in node["scores"].items()]
                lines.append(f"[b]{escape(str(key))}[/b]: " + escape(", ".join(parts)))
        panel.update(Text.from_markup("\n".join(lines)))

    @staticmethod
    def _weight(rec: dict[str, Any], plugin: str) -> Any:
        for p in rec.get("plugins") or []:
            if p.get("name") == plugin:
                return p.get("weight")
        return "?"

    def _clear_tables(self) -> None:
        self.feasible_table.sync([])
        self.rejected_table.sync([])
        self.query_one("#feasible-title", Static).update("")
        self.query_one("#rejected-title", Static).update("")
        self.query_one("#scores-message", Static).update("")
