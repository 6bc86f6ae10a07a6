"""Scheduling queue: which pods wait, where in the queue, and why.

Rows come from ``/debug/scheduler/queue``: the *active* queue (about to be
tried), *backoff* (failed recently; NEXT RETRY counts down to the time they
may be tried again), *unschedulable* (parked until a cluster event may help
them) and *in flight* (being scheduled right now), with each pod's
attempts and last failure message.

The queue is fetched when the view is shown and again when pods or nodes
change while it is visible (coalesced by the model, one request in flight
at a time). While a pod backs off, a one-second timer redraws the
countdown and refetches once a retry time has passed; with an empty queue
nothing runs. ``enter`` opens the pod's decision in the Scores view.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Static

from ..scheduling import QueueSnapshot, fetch_queue
from ..widgets.table import ResourceTable, Row
from .base import Selection, View

COLUMNS: Final = ("QUEUE", "POD", "PRIORITY", "ATTEMPTS", "NEXT RETRY", "LAST FAILURE")
_LABELS: Final = {"active": "active", "backoff": "backoff", "unschedulable": "unschedulable",
                  "inFlight": "in flight"}
_STYLES: Final = {"active": "cyan", "backoff": "yellow", "unschedulable": "red",
                  "inFlight": "green"}


class QueueView(View):
    """The Queue tab (see the module docstring)."""

    WATCHES = frozenset({"pods", "nodes"})
    SHOWS_AGES = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "app.scores", "Why pending?"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.snapshot: QueueSnapshot | None = None
        self.error = ""
        self._fetching = False
        self._again = False
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="queue-summary", classes="summary")
        yield ResourceTable(COLUMNS, id="queue-table")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#queue-table", ResourceTable)

    def focus_main(self) -> None:
        self.take_focus(self.table)

    # ------------------------------------------------------------------ fetching

    def shown(self) -> None:
        self.render_view()
        self.fetch()

    def cluster_changed(self, changed: frozenset[str]) -> None:
        if changed & self.WATCHES:
            self.fetch()

    def fetch(self) -> None:
        """Fetch the queue in a thread; a request already in flight is followed
        by exactly one more (so the last change is always seen)."""
        if self._fetching:
            self._again = True
            return
        self._fetching = True
        self.run_worker(self._fetch, thread=True, group="queue", exit_on_error=False)

    def _fetch(self) -> None:
        try:
            snapshot: QueueSnapshot | None = fetch_queue(self.model.client, now=self.clock())
            error = ""
        except Exception as exc:  # shown in the view; the next change retries
            snapshot, error = None, str(exc) or type(exc).__name__
        self.app.call_from_thread(self._fetched, snapshot, error)

    def _fetched(self, snapshot: QueueSnapshot | None, error: str) -> None:
        self._fetching = False
        if error and error != self.error:
            self.app.notify(f"scheduling queue: {error}", severity="error")
        self.error = error
        if snapshot is not None:
            self.snapshot = snapshot
        self.render_view()
        if self._again:
            self._again = False
            self.fetch()

    def _tick(self) -> None:
        """Redraw countdowns; refetch once a backing-off pod's retry time passed."""
        if not self.visible_now or self.snapshot is None:
            return
        now = self.clock()
        if any(p.section == "backoff" and p.retry_at <= now for p in self.snapshot.pods):
            self.fetch()
        else:
            self.render_view()

    # ------------------------------------------------------------------ rendering

    def rows(self) -> list[Row]:
        if self.snapshot is None:
            return []
        now = self.clock()
        out: list[Row] = []
        for p in self.snapshot.pods:
            if p.section == "backoff":
                left = p.retry_at - now
                retry = f"in {left:.1f}s" if left > 0 else "now"
            else:
                retry = "-"
            cells: tuple[str | Text, ...] = (
                Text(_LABELS.get(p.section, p.section), style=_STYLES.get(p.section, "")),
                p.pod, str(p.priority), str(p.attempts), retry, p.last_failure or "-")
            pod = self.model.get("pods", p.pod) or {}
            if self.filter.matches(pod, cells):
                out.append((f"{p.section}:{p.pod}", cells))
        return out

    def render_view(self) -> None:
        self.table.sync(self.rows())
        snap = self.snapshot
        if snap is None:
            text = "[b]Scheduling queue[/b] " + (f"[red]{self.error}[/red]" if self.error
                                                 else "loading...")
        else:
            counts = "  ".join(f"{_LABELS[s]} [b]{snap.count(s)}[/b]" for s in _LABELS)
            text = f"[b]Scheduling queue[/b]  {counts}" + \
                ("  [dim](empty: every pod is placed)[/dim]" if snap.empty else "")
            if self.error:
                text += f"  [red]{self.error}[/red]"
        if self.filter.active:
            text += f"  filter: {self.filter.text}"
        self.query_one("#queue-summary", Static).update(text)
        self._schedule_tick()
        self.stale = False

    def _schedule_tick(self) -> None:
        backing_off = self.snapshot is not None and self.snapshot.count("backoff") > 0
        if backing_off and self._timer is None:
            self._timer = self.set_interval(1.0, self._tick)
        elif not backing_off and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def selection(self) -> Selection | None:
        key = self.table.current_key
        if key is None:
            return None
        _, _, pod = key.partition(":")
        namespace, _, name = pod.partition("/")
        return Selection("pods", namespace, name)
