"""What every view shares: its data source, its selection, filtering and staleness.

Contract
--------
A :class:`View` renders from the :class:`~tui.model.ClusterModel` on the UI
thread and never blocks on the network; anything fetched (the scheduler's
queue and decisions) is fetched in a thread worker and shown through
``call_from_thread``. The app tells the *visible* view about changes
(:meth:`View.cluster_changed`) and marks the others stale, so a hidden view
costs nothing until it is shown again (:meth:`View.shown`).

``selection()`` names the object under the cursor (resource, namespace,
name) for the app's generic actions (describe, YAML, delete); ``None`` when
nothing is selected. Rows of namespaced objects are keyed ``namespace/name``
(in :func:`namespace_name` order), which :meth:`Selection.of_key` turns back
into a selection;
:func:`printed` gives objects with kubectl's cells from the server-side
table printer. ``set_filter`` takes the ``/`` filter: text matches
any cell (case-insensitive); ``-l SELECTOR`` matches labels with a
Kubernetes label selector and raises ``ValueError`` for a malformed one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual.containers import Vertical
from textual.widget import Widget

from minikube_py.api.labels import SelectorError, parse_selector
from minikube_py.api.printers import table

from ..model import ClusterModel

Clock = Callable[[], float]
Obj = TypeVar("Obj", bound=Mapping[str, Any])


@dataclass(frozen=True, slots=True)
class Selection:
    """The object under the cursor."""

    resource: str
    namespace: str | None
    name: str

    @property
    def ref(self) -> str:
        """``namespace/name`` (or ``name`` when cluster-scoped)."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @classmethod
    def of_key(cls, resource: str, key: str) -> Selection:
        """The namespaced object of ``resource`` whose row key is ``namespace/name``."""
        namespace, _, name = key.partition("/")
        return cls(resource, namespace, name)


def namespace_name(obj: Mapping[str, Any]) -> tuple[str, str]:
    """``(namespace, name)`` of an object: the order tables of namespaced objects
    are shown in (``namespace/name`` is their row key)."""
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace", "")), str(meta.get("name", ""))


def printed(kind: str, objects: Sequence[Obj], *, now: float) -> list[tuple[Obj, list[Any]]]:
    """Each object with the cells kubectl shows for it (the server-side table
    printer of ``kind``, default columns), in the order given."""
    rows = table(kind, objects, now=now, include_object="None")["rows"]
    return [(obj, row["cells"]) for obj, row in zip(objects, rows, strict=True)]


class Filter:
    """A compiled ``/`` filter (see the module contract)."""

    def __init__(self, text: str) -> None:
        self.text = text.strip()
        self._selector = None
        self._needle = ""
        if self.text.startswith("-l"):
            expr = self.text[2:].strip()
            try:
                self._selector = parse_selector(expr)
            except SelectorError as exc:
                raise ValueError(f"label filter {expr!r}: {exc}") from None
        else:
            self._needle = self.text.lower()

    @property
    def active(self) -> bool:
        return bool(self.text)

    def matches(self, obj: Mapping[str, Any], cells: Iterable[str | Text]) -> bool:
        if self._selector is not None:
            labels = (obj.get("metadata") or {}).get("labels") or {}
            return bool(self._selector.matches(labels))
        if not self._needle:
            return True
        return any(self._needle in (c.plain if isinstance(c, Text) else c).lower()
                   for c in cells)


class View(Vertical):
    """One tab of the dashboard (see the module contract)."""

    #: Resources whose changes re-render this view.
    WATCHES: ClassVar[frozenset[str]] = frozenset()
    #: Whether the view shows ages (the app re-renders it on its slow tick).
    SHOWS_AGES: ClassVar[bool] = True

    def __init__(self, model: ClusterModel, clock: Clock, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self.clock = clock
        self.filter = Filter("")
        self.stale = True
        #: True while this view is the visible tab (set by the app).
        self.visible_now = False

    # ------------------------------------------------------------------ app hooks

    def render_view(self) -> None:
        """Re-render from the model (UI thread; must not block)."""

    def cluster_changed(self, changed: frozenset[str]) -> None:
        """Resources changed while the view is visible."""
        if changed & self.WATCHES:
            self.render_view()

    def shown(self) -> None:
        """The view became visible."""
        self.render_view()

    def selection(self) -> Selection | None:
        return None

    def set_filter(self, text: str) -> None:
        """Apply the ``/`` filter (ValueError for a malformed label selector)."""
        self.filter = Filter(text)
        self.render_view()

    def focus_main(self) -> None:
        """Give the keyboard to the view's main table."""

    def take_focus(self, widget: Widget) -> None:
        """Focus ``widget`` now, not on the next turn of the event loop (as
        ``Widget.focus`` does), so a key pressed right after lands on it."""
        widget.screen.set_focus(widget)
