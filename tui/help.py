"""The ``?`` help screen: every key of the dashboard, by view.

The key table is data (:data:`KEYS`), so the help screen, the README and the
tests read the same list.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

#: (where, key, what) for every key the dashboard knows.
KEYS: Final = (
    ("everywhere", "1-8", "switch view: Pods, Nodes, Queue, Scores, Workloads, Events, "
                          "Services, Config"),
    ("everywhere", ": or ctrl+p", "command palette (views and actions by name)"),
    ("everywhere", "/", "filter the view: text, or -l SELECTOR for labels; esc clears"),
    ("everywhere", "d / y", "describe / YAML of the selected object"),
    ("everywhere", "ctrl+d", "delete the selected object (asks first)"),
    ("everywhere", "a", "apply a manifest file or directory (file picker)"),
    ("everywhere", "?", "this help"),
    ("everywhere", "q", "quit"),
    ("Pods", "enter", "why is it here? the pod's scheduling decision (Scores)"),
    ("Pods", "l", "logs of the selected pod (follow, previous, container switch)"),
    ("Pods", "s", "shell in the pod (the dashboard hands over the terminal; exit returns)"),
    ("Pods", "shift+f", "port-forward a local port to the pod; lists and stops active ones"),
    ("Pods", "N A S T O", "sort by name, age, status, restarts, node (again: reverse)"),
    ("Nodes", "c / C", "cordon / uncordon the selected node"),
    ("Nodes", "D", "drain the selected node (asks first)"),
    ("Queue", "enter", "why is it pending? the pod's scheduling decision"),
    ("Scores", "[ / ]", "older / newer scheduling attempt of the pod"),
    ("Workloads", "s", "scale the selected Deployment or ReplicaSet"),
    ("Workloads", "r / u", "rollout restart / rollout undo the selected Deployment"),
    ("Services", "enter", "describe the Service; on an endpoint, its pod"),
    ("Config", "v", "show / hide the values of the selected Secret"),
    ("Logs", "f / p / c", "follow on/off, previous container instance, next container"),
    ("Describe", "y / r", "switch describe and YAML, refresh"),
    ("any screen", "esc", "back"),
)


class HelpScreen(ModalScreen[None]):
    """A modal listing :data:`KEYS`; ``esc``, ``q`` or ``?`` closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close"),
    ]

    def compose(self) -> ComposeResult:
        grid = Table(title="minikube-py dashboard keys", expand=True, show_lines=False)
        grid.add_column("view", style="cyan", no_wrap=True)
        grid.add_column("key", style="bold", no_wrap=True)
        grid.add_column("what it does")
        for where, key, what in KEYS:
            grid.add_row(where, key, what)
        with VerticalScroll(id="help-body"):
            yield Static(grid)
            yield Static("[dim]esc closes[/dim]")
