"""Two tables in one view: objects above, what belongs to the one under the cursor below.

Contract
--------
A :class:`SplitView` composes, top to bottom, a summary line and the
*upper* table, then a summary line and the *lower* table; ids are
``<name>-summary`` / ``<name>-table`` for each :class:`Pane`, and the tables
carry the classes ``upper`` / ``lower`` (their heights live in ``app.tcss``).
Subclasses say what the rows are:

* :meth:`SplitView.upper_rows`: every upper row, already filtered with the
  view's ``/`` filter (the filter applies to the upper table only);
* :meth:`SplitView.lower_rows` / :meth:`SplitView.lower_summary`: the lower
  rows and their summary for the upper row under the cursor (``None`` when
  the upper table is empty).

Moving the cursor in the upper table re-renders the lower one (the
DataTable's ``RowHighlighted`` message); every render of the view does both.
The selection (describe, YAML, delete) is the lower table's row while that
table has focus, else the upper one's; rows are keyed ``namespace/name`` of
their pane's resource unless a subclass overrides :meth:`lower_selection`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from ..widgets.table import ResourceTable, Row
from .base import Selection, View


@dataclass(frozen=True, slots=True)
class Pane:
    """One table of a :class:`SplitView`: its id prefix, title, resource and columns."""

    name: str
    title: str
    resource: str
    columns: tuple[str, ...]


class SplitView(View):
    """An upper table of objects over a lower table of their parts (see the module
    contract). Subclasses set :attr:`UPPER` and :attr:`LOWER`."""

    UPPER: ClassVar[Pane]
    LOWER: ClassVar[Pane]

    def compose(self) -> ComposeResult:
        for pane, where in ((self.UPPER, "upper"), (self.LOWER, "lower")):
            yield Static(id=f"{pane.name}-summary", classes="summary")
            yield ResourceTable(pane.columns, id=f"{pane.name}-table", classes=where)

    @property
    def upper(self) -> ResourceTable:
        return self.query_one(f"#{self.UPPER.name}-table", ResourceTable)

    @property
    def lower(self) -> ResourceTable:
        return self.query_one(f"#{self.LOWER.name}-table", ResourceTable)

    def focus_main(self) -> None:
        self.take_focus(self.upper)

    # ------------------------------------------------------------------ subclass hooks

    def upper_rows(self) -> list[Row]:
        """The upper table's rows, filtered with :attr:`filter`, in display order."""
        raise NotImplementedError

    def lower_rows(self, key: str | None) -> list[Row]:
        """The lower table's rows for the upper row ``key`` (None: nothing above)."""
        raise NotImplementedError

    def lower_summary(self, key: str | None, rows: list[Row]) -> str:
        """The lower summary line (Rich markup) for ``key`` and its ``rows``."""
        return f"[b]{self.LOWER.title}[/b] of {key}: {len(rows)}"

    def lower_selection(self, key: str) -> Selection | None:
        """What the lower row ``key`` names for the app's actions."""
        return Selection.of_key(self.LOWER.resource, key)

    # ------------------------------------------------------------------ rendering

    def render_view(self) -> None:
        rows = self.upper_rows()
        self.upper.sync(rows)
        self.query_one(f"#{self.UPPER.name}-summary", Static).update(
            f"[b]{self.UPPER.title}[/b] {len(rows)}"
            + (f"  filter: {self.filter.text}" if self.filter.active else ""))
        self.render_lower()
        self.stale = False

    def render_lower(self) -> None:
        """Re-render the lower table for the upper row under the cursor."""
        key = self.upper.current_key
        rows = self.lower_rows(key)
        self.lower.sync(rows)
        self.query_one(f"#{self.LOWER.name}-summary", Static).update(
            self.lower_summary(key, rows))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is self.upper:
            self.render_lower()

    def selection(self) -> Selection | None:
        if self.lower.has_focus:
            key = self.lower.current_key
            return None if key is None else self.lower_selection(key)
        key = self.upper.current_key
        return None if key is None else Selection.of_key(self.UPPER.resource, key)
