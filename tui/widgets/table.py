"""A DataTable that is kept equal to a list of rows with the least work.

:meth:`ResourceTable.sync` takes the rows a view wants (a string key and a
tuple of cells each) and makes the table show exactly those, in that order:

* rows are kept by key: a row whose cells are unchanged costs nothing, a
  changed cell is updated in place, a few rows coming or going are added or
  removed, and the rows are then put in order without being re-added, so the
  churn of a large table re-measures only what changed;
* when many rows come and go at once the table is rebuilt instead;
* the cursor stays on the row with the same key when it still exists (else
  on the same index, clamped).

It never raises for an empty table; :attr:`current_key` is None then.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.markup import escape
from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.widgets import DataTable
from textual.widgets.data_table import CellKey, RowKey

Cell = str | Text
Row = tuple[str, tuple[Cell, ...]]


def _safe_cell(cell: Cell) -> Cell:
    # DataTable reads str cells as Rich markup: a "[" in a name or an event
    # message would be taken for a tag (or raise MarkupError mid-render).
    return escape(cell) if isinstance(cell, str) and "[" in cell else cell


def _safe(cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
    return tuple(_safe_cell(c) for c in cells)


class ResourceTable(DataTable[Cell]):
    """A row-cursor table with keyed rows (see the module contract)."""

    def __init__(self, columns: Sequence[str], *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self._labels = tuple(columns)
        self._order: list[str] = []
        self._shadow: dict[str, tuple[Cell, ...]] = {}
        #: Full rebuilds so far (tests and the benchmark read it).
        self.rebuilds = 0

    def on_mount(self) -> None:
        for label in self._labels:
            self.add_column(label, key=label)

    def reset_columns(self, columns: Sequence[str]) -> None:
        """Use these columns from now on (rows are dropped when they change)."""
        labels = tuple(columns)
        if labels == self._labels:
            return
        self._labels = labels
        self.clear(columns=True)
        self._order, self._shadow = [], {}
        for label in labels:
            self.add_column(label, key=label)

    @property
    def keys(self) -> list[str]:
        """The row keys in display order."""
        return list(self._order)

    @property
    def current_key(self) -> str | None:
        """The key of the row under the cursor (None when the table is empty)."""
        if not self._order:
            return None
        row = min(max(self.cursor_row, 0), len(self._order) - 1)
        return self._order[row]

    def select_key(self, key: str) -> bool:
        """Move the cursor to ``key``'s row; False when there is no such row."""
        try:
            index = self._order.index(key)
        except ValueError:
            return False
        self.move_cursor(row=index)
        return True

    def cells(self, key: str) -> tuple[Cell, ...] | None:
        """The cells of ``key``'s row as last synced (None if absent)."""
        return self._shadow.get(key)

    def sync(self, rows: Sequence[Row]) -> None:
        """Show exactly ``rows``, in order (see the module contract)."""
        keys = [key for key, _ in rows]
        wanted = dict(rows)
        if len(wanted) != len(keys):
            raise ValueError("row keys must be unique")
        current = self.current_key
        gone = [k for k in self._order if k not in wanted]
        fresh = [k for k in keys if k not in self._shadow]
        if len(gone) + len(fresh) > max(16, len(keys) // 4):
            self._rebuild(rows, current)
            return
        # Few rows come and go (the usual churn): edit in place, so only the new
        # and changed cells are measured, then put the rows in order.
        if gone:
            self._remove(gone)
        columns = list(self.columns.values())
        for key, cells in rows:
            old = self._shadow.get(key)
            if old is None:
                self.add_row(*_safe(cells), key=key)
            elif old != cells:
                for column, new, prev in zip(columns, cells, old, strict=False):
                    if new != prev:
                        # Only a wider cell widens its column. Asking DataTable to
                        # re-fit a narrower one re-measures the whole column, per
                        # cell: with ages ticking in 1,000 rows that is a million
                        # measurements. Columns therefore never shrink until the
                        # next rebuild.
                        width = new.cell_len if isinstance(new, Text) else cell_len(new)
                        self.update_cell(key, column.key, _safe_cell(new),
                                         update_width=width > column.content_width)
            self._shadow[key] = cells
        if fresh:
            self._order = self._order + fresh
        if self._order != keys:
            self._reorder(keys)
        if current is not None and current in wanted:
            index = keys.index(current)
            if index != self.cursor_row:
                self.move_cursor(row=index, animate=False)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Measure new rows (Textual calls this when idle), then invalidate the
        rendered lines.

        Textual keys its line caches by ``_update_count``, which ``add_row`` bumps
        but this measurement does not. A frame drawn between ``add_row`` and the
        idle measurement (a busy machine makes that likely) caches lines laid out
        with the old column widths under the current count, and they are served
        until something else changes: columns truncated to their labels, for
        good. Bumping the count here makes the next frame use the new widths.
        """
        super()._update_dimensions(new_rows)
        self._update_count += 1

    def _remove(self, gone: list[str]) -> None:
        """Drop rows in one go. ``DataTable.remove_row`` re-fires the cursor and
        hover watchers per row, each walking every row (12 ms a row at 1,000
        rows); this does what it does once for all of them (private Textual
        state, as :meth:`_reorder`; falls back to ``remove_row``)."""
        dropped = set(gone)
        self._order = [k for k in self._order if k not in dropped]
        for key in gone:
            del self._shadow[key]
        try:
            for key in gone:
                row_key = RowKey(key)
                for column_key in self._data[row_key]:
                    self._updated_cells.discard(CellKey(row_key, column_key))
                del self.rows[row_key]
                del self._data[row_key]
                self._new_rows.discard(row_key)
            # Renumber the rows left now: add_row and the cursor watchers below
            # walk the rows by position and must not find a hole.
            self._row_locations = TwoWayDict(
                {RowKey(key): i for i, key in enumerate(self._order)})
        except (AttributeError, KeyError, TypeError):
            for key in gone:
                with contextlib.suppress(Exception):
                    self.remove_row(key)
            return
        self._require_update_dimensions = True
        self._update_count += 1
        self.cursor_coordinate = self.cursor_coordinate  # clamp to the rows left
        self.check_idle()
        self.refresh(layout=True)

    def _reorder(self, keys: list[str]) -> None:
        """Put the existing rows in ``keys``' order without re-adding them.

        This is what ``DataTable.sort`` does, by row key instead of by cells:
        it replaces the row -> position map. That map is private to Textual
        (pinned below 9 in pyproject); if it ever changes shape, the table is
        rebuilt instead, which is slower but still correct.
        """
        try:
            locations = TwoWayDict({RowKey(key): i for i, key in enumerate(keys)})
            if set(self._row_locations) != set(locations):
                raise LookupError("rows out of step")
            self._row_locations = locations
        except (AttributeError, LookupError, TypeError):
            self._rebuild([(k, self._shadow[k]) for k in keys], self.current_key)
            return
        self._order = list(keys)
        self._update_count += 1
        self.refresh()

    def _rebuild(self, rows: Sequence[Row], current: str | None) -> None:
        keys = [key for key, _ in rows]
        row = self.cursor_row
        self.clear()
        self.rebuilds += 1
        self._order = keys
        self._shadow = dict(rows)
        for key, cells in rows:
            self.add_row(*_safe(cells), key=key)
        if not keys:
            return
        if current is not None and current in self._shadow:
            self.move_cursor(row=keys.index(current), animate=False)
        else:
            self.move_cursor(row=min(max(row, 0), len(keys) - 1), animate=False)

    def plain_rows(self) -> list[list[str]]:
        """Every row as plain strings, in display order (tests read the table so)."""
        return [[c.plain if isinstance(c, Text) else str(c) for c in self._shadow[k]]
                for k in self._order]

    def plain_column(self, label: str) -> list[str]:
        index = self._labels.index(label)
        return [row[index] for row in self.plain_rows()]
