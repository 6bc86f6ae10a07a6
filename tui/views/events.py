"""Events: what the controllers, scheduler and kubelets said, newest first.

kubectl's event columns (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE) from
:mod:`minikube_py.api.printers`, with the namespace, Warnings in yellow. At
most :data:`LIMIT` rows are shown (the newest, after filtering), so a large
cluster's thousands of events never make the table slow; the summary says
how many there are.
"""

from __future__ import annotations

from typing import Any, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from minikube_py.api.printers import table

from ..widgets.table import ResourceTable, Row
from .base import Selection, View

COLUMNS: Final = ("LAST SEEN", "NAMESPACE", "TYPE", "REASON", "OBJECT", "MESSAGE")
#: Rows shown at most.
LIMIT: Final = 500


def _last_seen(event: dict[str, Any]) -> str:
    """The event's latest time as an RFC 3339 string (sorts as a time)."""
    series = event.get("series")
    if isinstance(series, dict) and series.get("lastObservedTime"):
        return str(series["lastObservedTime"])
    return str(event.get("lastTimestamp") or event.get("eventTime")
               or event.get("firstTimestamp") or "")


class EventsView(View):
    """The Events tab (see the module docstring)."""

    WATCHES = frozenset({"events"})

    def compose(self) -> ComposeResult:
        yield Static(id="events-summary", classes="summary")
        yield ResourceTable(COLUMNS, id="events-table")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#events-table", ResourceTable)

    def focus_main(self) -> None:
        self.take_focus(self.table)

    def render_view(self) -> None:
        # Newest first; only as many are printed as can be shown, so thousands
        # of events cost a sort, not thousands of printed rows.
        events = sorted(self.model.objects("events"), key=_last_seen, reverse=True)
        now = self.clock()
        rows: list[Row] = []
        for event in events:
            c = table("Event", [event], now=now, include_object="None")["rows"][0]["cells"]
            ns = str(event["metadata"].get("namespace", ""))
            kind = str(c[1])
            cells: tuple[str | Text, ...] = (
                c[0], ns, Text(kind, style="yellow" if kind == "Warning" else ""), c[2], c[3],
                c[6])
            if self.filter.matches(event, cells):
                rows.append((f"{ns}/{event['metadata']['name']}", cells))
                if len(rows) == LIMIT:
                    break
        self.table.sync(rows)
        if self.filter.active:
            what = f"{len(rows)}{'+' if len(rows) == LIMIT else ''} of {len(events)} match"
        else:
            what = f"{len(events)}" + (f", showing the newest {LIMIT}"
                                       if len(events) > LIMIT else "")
        self.query_one("#events-summary", Static).update(
            f"[b]Events[/b] {what}"
            + (f"  filter: {self.filter.text}" if self.filter.active else ""))
        self.stale = False

    def selection(self) -> Selection | None:
        key = self.table.current_key
        return None if key is None else Selection.of_key("events", key)
