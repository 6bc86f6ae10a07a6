"""DescribeScreen: an object as ``kubectl describe`` prints it, or as YAML.

Contract
--------
``DescribeScreen(client, resource, namespace, name, yaml=False, clock=time.time)``
reads the
object (plus its events and the related objects kubectl's describers list) in
a worker thread and shows, scrollable and read-only:

* the ``kubectl describe`` text, laid out by :mod:`minikube_py.api.describe`
  exactly as ``minikube-py describe`` prints it; or
* with ``yaml`` (``y`` toggles), the object as ``kubectl get -o yaml`` prints
  it by default: :func:`~minikube_py.api.manifest.dump_yaml`, without
  ``metadata.managedFields`` (kubectl hides them unless
  ``--show-managed-fields``).

``r`` reads the object again; ``escape`` closes the screen (dismissed with
``None``). ``resource`` is anything a command line accepts (``pods``,
``deploy``, ``Node``); ``namespace`` is ignored for cluster-scoped kinds. A
failure (no such object, an unknown resource, an unreachable server) is shown
in the screen in kubectl's words, never raised.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea
from textual.worker import Worker, WorkerState

from minikube_py.api import kinds
from minikube_py.api.describe import describe
from minikube_py.api.errors import StatusError
from minikube_py.api.manifest import dump_yaml
from minikube_py.client.base import Client
from minikube_py.ops.describe import events_for, related_objects
from minikube_py.ops.wording import server_error

__all__ = ["DescribeScreen", "describe_texts", "yaml_text"]


def yaml_text(obj: Mapping[str, Any]) -> str:
    """``kubectl get -o yaml`` of ``obj``: managed fields left out, as kubectl does."""
    shown = dict(obj)
    metadata = dict(shown.get("metadata") or {})
    metadata.pop("managedFields", None)
    shown["metadata"] = metadata
    return dump_yaml(shown)


def describe_texts(client: Client, resource: str, namespace: str | None, name: str, *,
                   now: float | None = None) -> tuple[str, str]:
    """``(describe text, YAML text)`` of one object, read through ``client``.

    Fetches what ``minikube-py describe`` fetches: the object, its events
    (matched by kind, name and, except for nodes, uid) and the related objects
    (a node's pods, a deployment's replica sets, a replica set's pods).
    Raises ``NotFound`` and other StatusErrors from the API, ValueError for a
    resource type nobody serves.
    """
    try:
        info = kinds.resolve(resource)
    except StatusError as exc:
        raise ValueError(exc.message) from None
    ns = namespace if info.namespaced else None
    obj = client.get(info.plural, ns, name)
    events = events_for(client, info, obj, ns)
    related = related_objects(client, info, obj, ns)
    text = describe(info.kind, obj, events=events, related=related,
                    now=time.time() if now is None else now)
    return text, yaml_text(obj)


class DescribeScreen(Screen[None]):
    """One object, described or as YAML (see the module contract)."""

    DEFAULT_CSS = """
    DescribeScreen #describe-title {
        height: 1;
        padding: 0 1;
        background: $boost;
        text-style: bold;
    }
    DescribeScreen #describe-error {
        height: auto;
        padding: 0 1;
        color: $error;
        display: none;
    }
    DescribeScreen #describe-error.shown {
        display: block;
    }
    DescribeScreen #describe-text {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("y", "toggle_yaml", "YAML/describe"),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self, client: Client, resource: str, namespace: str | None, name: str,
                 yaml: bool = False, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.client = client
        #: "Now" for the ages in the description (the app's clock, frozen in tests).
        self.clock = clock
        self.resource = resource
        self.namespace = namespace
        self.name_ = name
        self.yaml = yaml
        #: (describe, yaml) once read.
        self.texts: tuple[str, str] | None = None
        #: The error shown, if any.
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="describe-title")
        yield Static(id="describe-error")
        yield TextArea(id="describe-text", read_only=True, soft_wrap=False,
                       show_line_numbers=False, highlight_cursor_line=False)
        yield Footer()

    def on_mount(self) -> None:
        self._show()
        self.query_one("#describe-text", TextArea).focus()
        self.action_refresh()

    @property
    def text(self) -> str:
        """The text shown."""
        return self.query_one("#describe-text", TextArea).text

    # ------------------------------------------------------------------ actions

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_yaml(self) -> None:
        self.yaml = not self.yaml
        self._show()

    def action_refresh(self) -> None:
        # A thread worker: the reads block on the network; exclusive drops an
        # older refresh still under way.
        self.run_worker(self._load, name="describe", group="describe", thread=True,
                        exclusive=True, exit_on_error=False)

    def _load(self) -> tuple[str, str]:
        return describe_texts(self.client, self.resource, self.namespace, self.name_,
                              now=self.clock())

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "describe":
            return
        if event.state == WorkerState.SUCCESS:
            self.texts = cast(tuple[str, str], worker.result)
            self.error = None
            self._show()
        elif event.state == WorkerState.ERROR:
            exc = worker.error
            self.error = server_error(exc) if isinstance(exc, StatusError) else \
                f"error: {exc}"
            self._show()

    # ------------------------------------------------------------------ display

    def _show(self) -> None:
        what = "YAML" if self.yaml else "Describe"
        where = f"{self.namespace}/" if self.namespace else ""
        self.query_one("#describe-title", Static).update(
            Text(f"{what} {self.resource} {where}{self.name_}"))
        error = self.query_one("#describe-error", Static)
        error.update(Text(self.error or ""))
        error.set_class(self.error is not None, "shown")
        area = self.query_one("#describe-text", TextArea)
        if self.texts is not None:
            # Keep the scroll position when only the content is re-read.
            scroll = area.scroll_offset
            area.load_text(self.texts[1] if self.yaml else self.texts[0])
            area.scroll_to(scroll.x, scroll.y, animate=False)
