"""The port-forward screen (``shift+f`` on a pod): start one, see and stop the active ones.

Contract
--------
* ``PortForwardScreen(pod_ref, suggested, forwards, start)``: an input
  pre-filled with ``LOCAL:REMOTE`` (the pod's first declared port on both
  sides, as k9s suggests), and a table of the dashboard's active forwards.
* ``enter`` in the input calls ``start(local, remote)`` (it raises
  ValueError or the API's error, shown inline; the screen stays open);
  :func:`parse_ports` refuses anything but ``PORT`` or ``LOCAL:REMOTE`` with
  ports 1-65535 (``0`` as LOCAL: any free port).
* ``ctrl+d`` on a row stops that forward; ``escape`` closes the screen (the
  forwards go on until stopped or the dashboard quits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

__all__ = ["Forward", "PortForwardScreen", "parse_ports"]


class Forward(Protocol):
    """What the screen shows of a running forward (an ops PortForward)."""

    local_port: int
    connections: int
    last_error: str

    @property
    def active(self) -> int: ...

    def stop(self) -> None: ...


def parse_ports(text: str) -> tuple[int, int]:
    """``PORT`` or ``LOCAL:REMOTE`` as kubectl port-forward takes them."""
    value = text.strip()
    local_text, _, remote_text = value.partition(":") if ":" in value else (value, "", value)
    try:
        local, remote = int(local_text), int(remote_text)
    except ValueError:
        raise ValueError(f'"{value}" is not PORT or LOCAL:REMOTE') from None
    if not 0 <= local <= 65535:
        raise ValueError(f"local port {local} is not between 0 and 65535")
    if not 1 <= remote <= 65535:
        raise ValueError(f"pod port {remote} is not between 1 and 65535")
    return local, remote


class PortForwardScreen(ModalScreen[None]):
    """See the module contract."""

    DEFAULT_CSS = """
    PortForwardScreen { align: center middle; }
    PortForwardScreen > Vertical {
        width: 90; max-width: 95%; height: auto; max-height: 90%;
        padding: 1 2; border: thick $primary; background: $surface;
    }
    PortForwardScreen DataTable { height: auto; max-height: 12; margin-top: 1; }
    PortForwardScreen .error { color: $error; height: auto; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+d", "stop", "Stop forward"),
    ]

    def __init__(self, pod_ref: str, suggested: str, forwards: list[tuple[str, Forward]],
                 start: Callable[[int, int], tuple[str, Forward]]) -> None:
        super().__init__()
        self.pod_ref = pod_ref
        self.suggested = suggested
        self.forwards = forwards
        self._start = start
        #: The error shown, if any (tests read it).
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(f"Forward a local port to {self.pod_ref} (LOCAL:POD, enter "
                             "starts it):"))
            yield Input(value=self.suggested, id="pf-ports")
            yield Static(id="pf-error", classes="error")
            yield Label("Active port-forwards (ctrl+d stops the highlighted one):")
            yield DataTable(id="pf-table", cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one("#pf-table", DataTable)
        table.add_columns("FORWARD", "CONNECTIONS", "OPEN", "LAST ERROR")
        self._refresh()
        self.query_one("#pf-ports", Input).focus()
        self.set_interval(1.0, self._refresh)

    def _refresh(self) -> None:
        table = self.query_one("#pf-table", DataTable)
        table.clear()
        for i, (label, fwd) in enumerate(self.forwards):
            table.add_row(label, str(fwd.connections), str(fwd.active),
                          Text(fwd.last_error[:60]), key=str(i))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            local, remote = parse_ports(event.value)
            self.forwards.append(self._start(local, remote))
        except Exception as exc:  # shown inline; the screen stays open
            self.error = str(exc)
            self.query_one("#pf-error", Static).update(Text(self.error))
            return
        self.error = None
        self.query_one("#pf-error", Static).update("")
        self._refresh()

    def action_stop(self) -> None:
        table = self.query_one("#pf-table", DataTable)
        if not self.forwards or table.cursor_row < 0:
            return
        index = min(table.cursor_row, len(self.forwards) - 1)
        _, fwd = self.forwards.pop(index)
        fwd.stop()
        self._refresh()

    def action_close(self) -> None:
        self.dismiss(None)
