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
from textual.binding import Binding, BindingType

from ..widgets.bars import bar
from ..widgets.table import ResourceTable, Row
from .base import namespace_name, printed
from .split import Pane, SplitView

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


class WorkloadsView(SplitView):
    """The Workloads tab (see the module docstring)."""

    UPPER = Pane("deployments", "Deployments", "deployments", DEPLOYMENT_COLUMNS)
    LOWER = Pane("replicasets", "ReplicaSets", "replicasets", REPLICASET_COLUMNS)
    WATCHES = frozenset({"deployments", "replicasets"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "app.scale", "Scale"),
        Binding("r", "app.restart", "Restart"),
        Binding("u", "app.undo", "Undo"),
    ]

    @property
    def deployments(self) -> ResourceTable:
        return self.upper

    @property
    def replicasets(self) -> ResourceTable:
        return self.lower

    def upper_rows(self) -> list[Row]:
        objects = sorted(self.model.objects("deployments"), key=namespace_name)
        rows: list[Row] = []
        for obj, c in printed("Deployment", objects, now=self.clock()):
            ns = str(obj["metadata"].get("namespace", ""))
            cells: tuple[str | Text, ...] = (ns, c[0], c[1], str(c[2]), str(c[3]),
                                             rollout_text(obj), c[4])
            if self.filter.matches(obj, cells):
                rows.append((f"{ns}/{c[0]}", cells))
        return rows

    def lower_rows(self, key: str | None) -> list[Row]:
        owner = self.model.get("deployments", key) if key else None
        uid = owner["metadata"].get("uid") if owner else None
        objects = [rs for rs in self.model.objects("replicasets")
                   if uid is None or any(ref.get("uid") == uid for ref in
                                         rs["metadata"].get("ownerReferences") or [])]
        objects.sort(key=lambda rs: (-_revision(rs), rs["metadata"]["name"]))
        rows: list[Row] = []
        for obj, c in printed("ReplicaSet", objects, now=self.clock()):
            ns = str(obj["metadata"].get("namespace", ""))
            rows.append((f"{ns}/{c[0]}", (ns, c[0], str(_revision(obj) or "-"), str(c[1]),
                                          str(c[2]), str(c[3]), c[4])))
        return rows

    def lower_summary(self, key: str | None, rows: list[Row]) -> str:
        title = f"of {key}" if key else "(all)"
        return f"[b]ReplicaSets[/b] {title}: {len(rows)}, newest revision first"
