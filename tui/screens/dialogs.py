"""Modal dialogs; each answers through ``dismiss`` (``push_screen``'s callback).

Contract
--------
* ``ConfirmDialog(message)`` -> ``bool``: ``True`` for Yes (``y``, or the Yes
  button), ``False`` for No (``n``, ``escape``, the No button). No has the
  focus at first, so an absent-minded ``enter`` never confirms a deletion.
* ``ScaleDialog(name, current)`` -> ``int | None``: the replica count typed
  (pre-filled with ``current``), or ``None`` when cancelled (``escape``,
  Cancel). ``enter`` or OK submits; anything but a whole number >= 0 is
  refused with an inline error (:func:`parse_replicas`'s message) and the
  dialog stays open.
* ``ApplyDialog(start_dir)`` -> ``list[Path] | None``: manifests picked in a
  directory tree showing only directories and ``.yaml``/``.yml``/``.json``
  files (hidden entries left out). ``space`` marks or unmarks the highlighted
  file or directory; ``enter`` on a file returns the marked paths plus that
  file; ``a`` (or Apply) returns the marked paths, or the highlighted file or
  directory when nothing is marked; ``escape`` (or Cancel) returns ``None``.
  Paths come back in the order they were marked, without duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DirectoryTree, Input, Label, Static

from minikube_py.api.manifest import EXTENSIONS

__all__ = ["ApplyDialog", "ConfirmDialog", "ManifestTree", "ScaleDialog", "parse_replicas"]

_DIALOG_CSS = """
    align: center middle;
    & > Vertical {
        width: 70;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    & .buttons {
        height: auto;
        margin-top: 1;
        align-horizontal: right;
    }
    & .buttons Button {
        margin-left: 2;
    }
    & .error {
        color: $error;
        height: auto;
    }
"""


class ConfirmDialog(ModalScreen[bool]):
    """Yes or no (see the module contract)."""

    DEFAULT_CSS = "ConfirmDialog {" + _DIALOG_CSS + "}"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No"),
    ]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self.message), id="confirm-message")
            with Horizontal(classes="buttons"):
                yield Button("Yes", variant="error", id="yes")
                yield Button("No", variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")


def parse_replicas(text: str) -> int:
    """The replica count in ``text``; ValueError saying what is wrong otherwise."""
    value = text.strip()
    if not value:
        raise ValueError("enter a number of replicas")
    # Plain ASCII digits only: int() would also take "1_000" or "+3".
    if not re.fullmatch(r"-?[0-9]+", value):
        raise ValueError(f'"{value}" is not a whole number')
    replicas = int(value)
    if replicas < 0:
        raise ValueError(f"replicas must be greater than or equal to 0, not {replicas}")
    return replicas


class ScaleDialog(ModalScreen[int | None]):
    """Ask for a replica count (see the module contract)."""

    DEFAULT_CSS = "ScaleDialog {" + _DIALOG_CSS + "}"

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, name: str, current: int) -> None:
        super().__init__()
        self.target = name
        self.current = current
        #: The error shown, if any.
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(f"Scale {self.target} (now {self.current} replicas) to:"))
            yield Input(value=str(self.current), id="replicas")
            yield Static(id="scale-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("OK", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#replicas", Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_input_changed(self, event: Input.Changed) -> None:
        # A fresh edit clears the complaint about the previous value.
        self._show_error(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self._submit()
        else:
            self.dismiss(None)

    def _submit(self) -> None:
        try:
            replicas = parse_replicas(self.query_one("#replicas", Input).value)
        except ValueError as exc:
            self._show_error(str(exc))
            return
        self.dismiss(replicas)

    def _show_error(self, message: str | None) -> None:
        self.error = message
        self.query_one("#scale-error", Static).update(Text(message or ""))


class ManifestTree(DirectoryTree):
    """A DirectoryTree of directories and manifest files; hidden entries left out."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        # Runs in the tree's loader thread, so the stat calls do not block the UI.
        return [p for p in paths if not p.name.startswith(".")
                and (p.is_dir() or p.name.endswith(EXTENSIONS))]


class ApplyDialog(ModalScreen[list[Path] | None]):
    """Pick manifests to apply (see the module contract)."""

    DEFAULT_CSS = "ApplyDialog {" + _DIALOG_CSS + """
        & > Vertical { width: 90; height: 90%; }
        & ManifestTree { height: 1fr; }
        & #apply-marked { height: auto; max-height: 5; color: $text-muted; }
    }"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        # Priority: the tree binds space to expand/collapse, enter does that too.
        Binding("space", "mark", "Mark", priority=True),
        Binding("a", "apply", "Apply"),
    ]

    def __init__(self, start_dir: Path) -> None:
        super().__init__()
        self.start_dir = Path(start_dir)
        #: The marked paths, in marking order.
        self.marked: list[Path] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text("Apply manifests: space marks, enter on a file or a applies"))
            yield ManifestTree(self.start_dir, id="apply-tree")
            yield Static(id="apply-marked")
            with Horizontal(classes="buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one(ManifestTree).focus()

    def _highlighted(self) -> Path | None:
        node = self.query_one(ManifestTree).cursor_node
        if node is None or node.data is None:
            return None
        return Path(node.data.path)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_mark(self) -> None:
        path = self._highlighted()
        if path is None:
            return
        if path in self.marked:
            self.marked.remove(path)
        else:
            self.marked.append(path)
        shown = ", ".join(str(p.relative_to(self.start_dir)) if p.is_relative_to(self.start_dir)
                          else str(p) for p in self.marked)
        self.query_one("#apply-marked", Static).update(
            Text(f"Marked: {shown}" if shown else ""))

    def action_apply(self) -> None:
        if self.marked:
            self.dismiss(list(self.marked))
            return
        path = self._highlighted()
        if path is not None:
            self.dismiss([path])

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        chosen = list(self.marked)
        if event.path not in chosen:
            chosen.append(Path(event.path))
        self.dismiss(chosen)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "apply":
            self.action_apply()
        else:
            self.dismiss(None)
