"""Deployments and ReplicaSets, with rollout progress.

Top, the Deployments with kubectl's READY / UP-TO-DATE / AVAILABLE and a
ROLLOUT column: a bar of updated replicas against desired and the reason of
the ``Progressing`` condition (``NewReplicaSetAvailable`` when done,
``ReplicaSetUpdated`` while rolling, ``ProgressDeadlineExceeded`` when
stuck). Below, the ReplicaSets of the deployment under the cursor, newest
revision first, so a rolling update shows old and new side by side. Keys:
``s`` scale, ``r`` rollout restart, ``u`` rollout undo (the app's actions
act on the table that has focus).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from minikube_py.api.printers import table

from ..widgets.bars import bar
from ..widgets.table import ResourceTable, Row
from .base import Selection, View

DEPLOYMENT_COLUMNS: Final = ("NAMESPACE", "NAME", "READY", "UP-TO-DATE", "AVAILABLE",
                             "ROLLOUT", "AGE")
REPLICASET_COLUMNS: Final = ("NAMESPACE", "NAME", "REVISION", "DESIRED", "CURRENT", "READY",
                             "AGE")
REVISION: Final = "deployment.kubernetes.io/revision"


def _revision(obj: dict[str, Any]) -> int:
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(REVISION, "0")
    return int(value) if str(value).isdigit() else 0


def rollout_text(deployment: dict[str, Any]) -> Text:
    """A bar of updated/desired replicas and the Progressing condition's reason."""
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    desired = spec.get("replicas", 1)
    updated = status.get("updatedReplicas") or 0
    reason = ""
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Progressing":
            reason = str(condition.get("reason") or "")
    text = bar(updated, desired, width=6) if desired else Text("scaled to 0", style="dim")
    if reason:
        style = "red" if reason == "ProgressDeadlineExceeded" else \
            "green" if reason == "NewReplicaSetAvailable" else "yellow"
        text.append(f" {reason}", style=style)
    return text


class WorkloadsView(View):
    """The Workloads tab (see the module docstring)."""

    WATCHES = frozenset({"deployments", "replicasets"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "app.scale", "Scale"),
        Binding("r", "app.restart", "Restart"),
        Binding("u", "app.undo", "Undo"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="deployments-summary", classes="summary")
        yield ResourceTable(DEPLOYMENT_COLUMNS, id="deployments-table")
        yield Static(id="replicasets-summary", classes="summary")
        yield ResourceTable(REPLICASET_COLUMNS, id="replicasets-table")

    @property
    def deployments(self) -> ResourceTable:
        return self.query_one("#deployments-table", ResourceTable)

    @property
    def replicasets(self) -> ResourceTable:
        return self.query_one("#replicasets-table", ResourceTable)

    def focus_main(self) -> None:
        self.take_focus(self.deployments)

    def render_view(self) -> None:
        now = self.clock()
        objects = sorted(self.model.objects("deployments"),
                         key=lambda d: (d["metadata"].get("namespace", ""),
                                        d["metadata"]["name"]))
        printed = table("Deployment", objects, now=now, include_object="None")["rows"]
        rows: list[Row] = []
        for obj, row in zip(objects, printed, strict=True):
            c = row["cells"]
            ns = str(obj["metadata"].get("namespace", ""))
            cells: tuple[str | Text, ...] = (ns, c[0], c[1], str(c[2]), str(c[3]),
                                             rollout_text(obj), c[4])
            if self.filter.matches(obj, cells):
                rows.append((f"{ns}/{c[0]}", cells))
        self.deployments.sync(rows)
        self.query_one("#deployments-summary", Static).update(
            f"[b]Deployments[/b] {len(rows)}"
            + (f"  filter: {self.filter.text}" if self.filter.active else ""))
        self._render_replicasets()
        self.stale = False

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "deployments-table":
            self._render_replicasets()

    def _render_replicasets(self) -> None:
        key = self.deployments.current_key
        owner = self.model.get("deployments", key) if key else None
        uid = owner["metadata"].get("uid") if owner else None
        objects = [rs for rs in self.model.objects("replicasets")
                   if uid is None or any(ref.get("uid") == uid for ref in
                                         rs["metadata"].get("ownerReferences") or [])]
        objects.sort(key=lambda rs: (-_revision(rs), rs["metadata"]["name"]))
        printed = table("ReplicaSet", objects, now=self.clock(), include_object="None")["rows"]
        rows: list[Row] = []
        for obj, row in zip(objects, printed, strict=True):
            c = row["cells"]
            ns = str(obj["metadata"].get("namespace", ""))
            rows.append((f"{ns}/{c[0]}", (ns, c[0], str(_revision(obj) or "-"), str(c[1]),
                                          str(c[2]), str(c[3]), c[4])))
        self.replicasets.sync(rows)
        title = f"of {key}" if key else "(all)"
        self.query_one("#replicasets-summary", Static).update(
            f"[b]ReplicaSets[/b] {title}: {len(rows)}, newest revision first")

    def selection(self) -> Selection | None:
        if self.replicasets.has_focus:
            key, resource = self.replicasets.current_key, "replicasets"
        else:
            key, resource = self.deployments.current_key, "deployments"
        if key is None:
            return None
        namespace, _, name = key.partition("/")
        return Selection(resource, namespace, name)
