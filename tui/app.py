"""The dashboard application: views in tabs over one :class:`~tui.model.ClusterModel`.

Contract
--------
* :class:`DashboardApp` takes its backend as an argument (a
  :class:`~tui.model.DashboardClient`, the HTTP client in both dashboard
  modes), so tests run it headless with ``App.run_test()`` against a real
  control plane, or against a fake client for deterministic snapshots.
* Updates arrive through the model's watches as :class:`ClusterChanged`
  messages, coalesced to at most one per ``interval`` seconds. The visible
  view re-renders; hidden views are only marked stale and re-render when
  shown. A slow tick (``age_tick`` seconds, 0 to disable) refreshes ages of
  the visible view; nothing else polls.
* ``clock`` gives "now" for ages and countdowns (tests freeze it).
* Every action that talks to the API runs in a thread worker; its result is
  a notification, and so is every error (StatusError with kubectl's wording,
  ValueError, OSError, anything else). The app never crashes on a failed
  action or a failed render.

Keys follow k9s (see :data:`tui.help.KEYS`): ``1``-``7`` views, ``:``
command palette, ``/`` filter, ``?`` help, ``q`` quit, ``d``/``y``
describe/YAML, ``ctrl+d`` delete, ``a`` apply, ``l`` logs; ``c``/``C``/``D``
on nodes; ``s``/``r``/``u`` on workloads; ``enter`` on a Service describes it.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Final

from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static, TabbedContent, TabPane

from minikube_py.api.errors import StatusError
from minikube_py.client.http import HTTPClient
from minikube_py.ops import nodes, objects, rollout
from minikube_py.ops.apply import apply_paths
from minikube_py.ops.errors import PartialFailure
from minikube_py.ops.portforward import PortForward
from minikube_py.ops.shell import exec_interactive
from minikube_py.ops.wording import server_error

from .help import HelpScreen
from .model import DEFAULT_INTERVAL, ClusterModel, DashboardClient
from .screens import (
    ApplyDialog,
    ConfirmDialog,
    DescribeScreen,
    LogsScreen,
    PortForwardScreen,
    ScaleDialog,
    default_container,
)
from .views.base import Selection, View
from .views.config import ConfigView
from .views.events import EventsView
from .views.nodes import NodesView
from .views.pods import PodsView
from .views.queue import QueueView
from .views.scores import ScoresView
from .views.services import ServicesView
from .views.workloads import WorkloadsView

log = logging.getLogger(__name__)

#: (id, tab title, class) of every view, in tab order (the number keys follow it).
VIEWS: Final[tuple[tuple[str, str, type[View]], ...]] = (
    ("pods", "Pods", PodsView),
    ("nodes", "Nodes", NodesView),
    ("queue", "Queue", QueueView),
    ("scores", "Scores", ScoresView),
    ("workloads", "Workloads", WorkloadsView),
    ("events", "Events", EventsView),
    ("services", "Services", ServicesView),
    ("config", "Config", ConfigView),
)
#: Default seconds between age refreshes of the visible view.
AGE_TICK: Final = 2.0


#: Actions that act on the views, so only while the dashboard screen is on top.
_HOME_ACTIONS: Final = frozenset({
    "filter", "clear_filter", "describe", "yaml", "delete", "apply", "show_view", "scores",
    "logs", "scale", "restart", "undo", "cordon", "uncordon", "drain", "shell",
    "port_forward"})


class ClusterChanged(Message):
    """Resources changed in the model (posted from the model's thread)."""

    def __init__(self, changed: frozenset[str]) -> None:
        super().__init__()
        self.changed = changed


class FilterInput(Input):
    """The ``/`` filter line; ``esc`` clears the filter and closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.clear_filter", "Clear")]


def _lines(result: str | Sequence[str] | None) -> str:
    if result is None:
        return "done"
    if isinstance(result, str):
        return result
    return "\n".join(result) or "done"


def error_text(exc: BaseException) -> str:
    """How an action's failure reads: kubectl's wording for API errors."""
    if isinstance(exc, StatusError):
        return server_error(exc)
    if isinstance(exc, PartialFailure) and exc.done:
        return "\n".join([*exc.done, *exc.errors])
    return str(exc) or type(exc).__name__


class DashboardApp(App[None]):
    """The minikube-py dashboard (see the module contract)."""

    CSS_PATH = "app.tcss"
    TITLE = "minikube-py"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("colon", "command_palette", "Command", show=False),
        Binding("slash", "filter", "Filter"),
        Binding("d", "describe", "Describe"),
        Binding("y", "yaml", "YAML"),
        Binding("ctrl+d", "delete", "Delete"),
        Binding("a", "apply", "Apply"),
        *[Binding(str(i), f"show_view('{vid}')", title, show=False)
          for i, (vid, title, _) in enumerate(VIEWS, start=1)],
    ]

    def __init__(self, client: DashboardClient, *, clock: Callable[[], float] = time.time,
                 interval: float = DEFAULT_INTERVAL, age_tick: float = AGE_TICK,
                 server: str = "", initial: str = "pods",
                 model: ClusterModel | None = None) -> None:
        super().__init__()
        self.client = client
        self.clock = clock
        self.model = model or ClusterModel(client, notify=self._post_changed, interval=interval,
                                           acknowledged=True)
        self.server = server
        self._initial = initial
        self._age_tick = age_tick
        #: (severity, message) of every notification, oldest first (tests read it).
        self.notices: list[tuple[str, str]] = []
        #: Repaints requested by cluster changes (the benchmark reads it).
        self.renders = 0
        self._home: Screen[Any]
        #: Port-forwards started from the dashboard (label, forward); stopped on quit.
        self.forwards: list[tuple[str, PortForward]] = []
        #: How ``s`` hands the terminal to a shell (Textual's suspend), and the
        #: (stdin, stdout) descriptors it uses (None: the terminal's); tests
        #: replace both to drive the shell headless.
        self.hand_over: Callable[[], contextlib.AbstractContextManager[Any]] = self.suspend
        self.shell_fds: tuple[int, int] | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="cluster-bar")
        with TabbedContent(id="tabs", initial=f"tab-{self._initial}"):
            for number, (vid, title, cls) in enumerate(VIEWS, start=1):
                with TabPane(f"{number} {title}", id=f"tab-{vid}"):
                    yield cls(self.model, self.clock, id=vid)
        yield FilterInput(id="filter", placeholder="filter: text, or -l app=web (labels); "
                          "enter keeps it, esc clears")
        yield Footer()

    def on_mount(self) -> None:
        # The views live on the default screen; App.query_one searches the
        # *current* screen, which is a dialog or the logs while one is open,
        # and cluster changes keep arriving then.
        self._home = self.screen
        self._home.query_one("#filter", FilterInput).display = False
        self.model.start()
        if self._age_tick > 0:
            self.set_interval(self._age_tick, self._tick)
        # The first view is shown by TabbedContent's initial TabActivated.

    def on_unmount(self) -> None:
        self.model.stop()
        for _, fwd in self.forwards:
            fwd.stop()
        self.forwards.clear()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The dashboard's own keys work on the dashboard screen only: in a dialog,
        the logs or a description, ``d`` or ``1`` must not act on the views behind."""
        on_home = self.screen is getattr(self, "_home", None)
        return on_home or action not in _HOME_ACTIONS

    def _post_changed(self, changed: frozenset[str]) -> None:
        self.post_message(ClusterChanged(changed))

    # ------------------------------------------------------------------ views

    @property
    def active_view(self) -> View:
        active = self._home.query_one("#tabs", TabbedContent).active
        return self._home.query_one(f"#{active.removeprefix('tab-')}", View)

    def view(self, vid: str) -> View:
        return self._home.query_one(f"#{vid}", View)

    def views(self) -> Iterable[View]:
        return self._home.query(View)

    def action_show_view(self, vid: str) -> None:
        """Switch to the view ``vid``."""
        self._home.query_one("#tabs", TabbedContent).active = f"tab-{vid}"

    def on_tabbed_content_tab_activated(self, _event: TabbedContent.TabActivated) -> None:
        self._show_active()

    def _show_active(self) -> None:
        try:
            view = self.active_view
        except NoMatches:
            return
        for other in self.views():
            other.visible_now = other is view
        self._guard(view.shown)
        view.focus_main()
        self._guard(self._update_bar)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # enter on a pod (Pods, Queue): why is it here, or why is it not placed yet?
        if event.data_table.id in ("pods-table", "queue-table"):
            self.action_scores()
        # enter on a Service (or one of its endpoints: the pod): its description.
        elif event.data_table.id in ("services-table", "endpoints-table"):
            self.action_describe()

    def on_cluster_changed(self, message: ClusterChanged) -> None:
        started = time.perf_counter()
        try:
            view = self.active_view
        except NoMatches:  # the views are still being composed, or already torn down
            self.model.handled(0.0)
            return
        try:
            self.renders += 1
            for other in self.views():
                if other is not view and message.changed & other.WATCHES:
                    other.stale = True
            self._guard(partial(view.cluster_changed, message.changed))
            self._guard(self._update_bar)
        finally:
            # The next notification waits for this one, spaced by how long it took.
            self.model.handled(time.perf_counter() - started)

    def _tick(self) -> None:
        try:
            view = self.active_view
        except NoMatches:
            return
        if view.SHOWS_AGES:
            self._guard(view.render_view)

    def _guard(self, fn: Callable[[], None]) -> None:
        """Run a render step; a failure is a notification, not a crash."""
        try:
            fn()
        except Exception as exc:
            log.exception("rendering failed")
            self.notify(f"rendering failed: {error_text(exc)}", severity="error")

    def _update_bar(self) -> None:
        nodes = self.model.objects("nodes")
        pods = self.model.objects("pods")
        ready = 0
        for node in nodes:
            for c in (node.get("status") or {}).get("conditions") or []:
                if c.get("type") == "Ready" and c.get("status") == "True":
                    ready += 1
        phases: dict[str, int] = {}
        for pod in pods:
            phase = str((pod.get("status") or {}).get("phase") or "Pending")
            if (pod.get("metadata") or {}).get("deletionTimestamp"):
                phase = "Terminating"
            phases[phase] = phases.get(phase, 0) + 1
        order = ("Running", "Pending", "Terminating", "Succeeded", "Failed", "Unknown")
        counts = ", ".join(f"{phases[p]} {p}" for p in order if phases.get(p))
        server = f"  [dim]{self.server}[/dim]" if self.server else ""
        self._home.query_one("#cluster-bar", Static).update(
            f"[b]minikube-py[/b]{server}  nodes [b]{ready}/{len(nodes)}[/b] Ready  "
            f"pods [b]{len(pods)}[/b]" + (f" ({counts})" if counts else "")
            + f"  deployments [b]{len(self.model.objects('deployments'))}[/b]"
            + "  [dim]? help[/dim]")

    # ------------------------------------------------------------------ filter

    def action_filter(self) -> None:
        box = self._home.query_one("#filter", FilterInput)
        box.value = self.active_view.filter.text
        box.display = True
        self._home.set_focus(box)  # now: the next key typed must land in the box

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "filter":
            return
        try:
            self.active_view.set_filter(event.value)
            event.input.remove_class("invalid")
        except ValueError:
            event.input.add_class("invalid")  # still typing; enter reports it

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "filter":
            return
        try:
            self.active_view.set_filter(event.value)
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        event.input.display = False
        self.active_view.focus_main()

    def action_clear_filter(self) -> None:
        box = self._home.query_one("#filter", FilterInput)
        box.value = ""
        box.display = False
        self._guard(partial(self.active_view.set_filter, ""))
        self.active_view.focus_main()

    # ------------------------------------------------------------------ notifications

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Textual's notify, remembered in :attr:`notices`; markup is off by
        default because messages quote user data (names, YAML errors)."""
        self.notices.append((str(severity), message))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def _background(self, what: str, fn: Callable[[], str | Sequence[str] | None]) -> None:
        """Run an API action in a thread; its result or error becomes a notification."""

        def work() -> None:
            try:
                result = fn()
            except Exception as exc:  # every failure is shown, none crashes the app
                if not isinstance(exc, StatusError | ValueError | OSError):
                    log.exception("%s failed", what)
                self.call_from_thread(self.notify, f"{what}: {error_text(exc)}",
                                      severity="error")
            else:
                self.call_from_thread(self.notify, _lines(result))

        self.run_worker(work, thread=True, group="actions", exit_on_error=False)

    # ------------------------------------------------------------------ selection helpers

    def _selected(self, *resources: str, verb: str) -> Selection | None:
        """The active view's selection when it is one of ``resources`` (any if
        none given); otherwise a warning saying where the action works."""
        sel = self.active_view.selection()
        if sel is None:
            self.notify(f"{verb}: nothing is selected", severity="warning")
            return None
        if resources and sel.resource not in resources:
            self.notify(f"{verb} works on {' and '.join(resources)}, not {sel.resource}",
                        severity="warning")
            return None
        return sel

    # ------------------------------------------------------------------ actions

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_scores(self) -> None:
        """Open the selected pod's scheduling decision in the Scores view."""
        sel = self._selected("pods", verb="scores")
        if sel is None:
            return
        self.action_show_view("scores")
        scores = self.view("scores")
        assert isinstance(scores, ScoresView)
        scores.select_pod(sel.ref)

    def action_logs(self) -> None:
        sel = self._selected("pods", verb="logs")
        if sel is None or sel.namespace is None:
            return
        self.push_screen(LogsScreen(self.client, sel.namespace, sel.name))

    def _streaming_client(self, verb: str) -> HTTPClient | None:
        if isinstance(self.client, HTTPClient):
            return self.client
        self.notify(f"{verb}: this dashboard's client does not stream", severity="error")
        return None

    def action_shell(self) -> None:
        """A shell in the selected pod's default container; the dashboard hands
        the terminal over until the shell exits (as k9s does)."""
        sel = self._selected("pods", verb="shell")
        client = self._streaming_client("shell")
        if sel is None or sel.namespace is None or client is None:
            return
        pod = self.model.get("pods", sel.ref) or {}
        container = default_container(pod)
        if container is None:
            self.notify(f"shell: pod {sel.ref} has no containers", severity="warning")
            return
        try:
            with self.hand_over():
                fds = self.shell_fds
                if fds is None:
                    print(f"Shell in {sel.ref}, container {container} (exit to return to the "
                          "dashboard)", flush=True)
                code = exec_interactive(client, sel.namespace, sel.name, container,
                                        stdin_fd=fds[0] if fds else None,
                                        stdout_fd=fds[1] if fds else None)
        except Exception as exc:  # every failure is shown, none crashes the app
            self.notify(f"shell in {sel.ref}: {error_text(exc)}", severity="error")
            return
        self.notify(f"shell in {sel.ref}/{container} exited with code {code}",
                    severity="information" if code == 0 else "warning")

    def action_port_forward(self) -> None:
        """Start a port-forward to the selected pod, and list the active ones."""
        sel = self._selected("pods", verb="port-forward")
        client = self._streaming_client("port-forward")
        if sel is None or sel.namespace is None or client is None:
            return
        pod = self.model.get("pods", sel.ref) or {}
        ports = [int(p["containerPort"]) for c in (pod.get("spec") or {}).get("containers") or []
                 for p in c.get("ports") or [] if p.get("containerPort")]
        suggested = f"{ports[0]}:{ports[0]}" if ports else "8080:80"
        namespace, name = sel.namespace, sel.name

        def start(local: int, remote: int) -> tuple[str, PortForward]:
            fwd = PortForward(client, namespace, name, remote, local_port=local).start()
            return str(fwd), fwd

        self.push_screen(PortForwardScreen(sel.ref, suggested, self.forwards,  # type: ignore[arg-type]
                                           start))

    def action_describe(self) -> None:
        self._describe(yaml=False)

    def action_yaml(self) -> None:
        self._describe(yaml=True)

    def _describe(self, *, yaml: bool) -> None:
        sel = self._selected(verb="yaml" if yaml else "describe")
        if sel is None:
            return
        self.push_screen(DescribeScreen(self.client, sel.resource, sel.namespace, sel.name,
                                        yaml=yaml, clock=self.clock))

    def action_delete(self) -> None:
        sel = self._selected(verb="delete")
        if sel is None:
            return
        def confirmed(yes: bool | None) -> None:
            if yes:
                self._background(f"delete {sel.ref}", partial(
                    objects.delete, self.client, sel.resource, sel.namespace, sel.name))

        self.push_screen(ConfirmDialog(f"Delete {sel.resource} {sel.ref}?"), confirmed)

    def action_scale(self) -> None:
        sel = self._selected(*objects.SCALABLE, verb="scale")
        if sel is None or sel.namespace is None:
            return
        obj = self.model.get(sel.resource, sel.ref) or {}
        current = int((obj.get("spec") or {}).get("replicas", 1))
        namespace = sel.namespace

        def chosen(replicas: int | None) -> None:
            if replicas is not None:
                self._background(f"scale {sel.ref}", partial(
                    objects.scale, self.client, sel.resource, namespace, sel.name, replicas))

        self.push_screen(ScaleDialog(sel.name, current), chosen)

    def action_restart(self) -> None:
        sel = self._selected("deployments", verb="rollout restart")
        if sel is not None and sel.namespace is not None:
            self._background(f"rollout restart {sel.ref}", partial(
                rollout.restart, self.client, sel.namespace, sel.name))

    def action_undo(self) -> None:
        sel = self._selected("deployments", verb="rollout undo")
        if sel is not None and sel.namespace is not None:
            self._background(f"rollout undo {sel.ref}", partial(
                rollout.rollback, self.client, sel.namespace, sel.name))

    def action_cordon(self) -> None:
        sel = self._selected("nodes", verb="cordon")
        if sel is not None:
            self._background(f"cordon {sel.name}", partial(nodes.cordon, self.client, sel.name))

    def action_uncordon(self) -> None:
        sel = self._selected("nodes", verb="uncordon")
        if sel is not None:
            self._background(f"uncordon {sel.name}",
                             partial(nodes.uncordon, self.client, sel.name))

    def action_drain(self) -> None:
        sel = self._selected("nodes", verb="drain")
        if sel is None:
            return
        def confirmed(yes: bool | None) -> None:
            if yes:
                self._background(f"drain {sel.name}",
                                 partial(nodes.drain, self.client, sel.name))

        self.push_screen(ConfirmDialog(
            f"Drain node {sel.name}? It is cordoned and its pods are deleted "
            "(controllers recreate them elsewhere)."), confirmed)

    def action_apply(self) -> None:
        def picked(result: Any) -> None:
            paths = _paths(result)
            if paths:
                self._background("apply", partial(apply_paths, self.client, paths))

        self.push_screen(ApplyDialog(Path.cwd()), picked)

    # ------------------------------------------------------------------ command palette

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette (``:``): every view by name, then the actions."""
        for number, (vid, title, _) in enumerate(VIEWS, start=1):
            yield SystemCommand(title.lower(), f"show the {title} view (key {number})",
                                partial(self.action_show_view, vid))
        yield SystemCommand("deployments", "show Deployments and ReplicaSets",
                            partial(self.action_show_view, "workloads"))
        yield SystemCommand("endpoints", "show Services and their endpoints",
                            partial(self.action_show_view, "services"))
        yield SystemCommand("secrets", "show ConfigMaps and Secrets and the pods using them",
                            partial(self.action_show_view, "config"))
        yield SystemCommand("configmaps", "show ConfigMaps and Secrets and the pods using them",
                            partial(self.action_show_view, "config"))
        yield SystemCommand("apply", "apply a manifest file or directory", self.action_apply)
        yield SystemCommand("describe", "describe the selected object", self.action_describe)
        yield SystemCommand("yaml", "YAML of the selected object", self.action_yaml)
        yield SystemCommand("delete", "delete the selected object", self.action_delete)
        yield SystemCommand("logs", "logs of the selected pod", self.action_logs)
        yield SystemCommand("scale", "scale the selected workload", self.action_scale)
        yield SystemCommand("rollout restart", "restart the selected Deployment",
                            self.action_restart)
        yield SystemCommand("rollout undo", "roll the selected Deployment back",
                            self.action_undo)
        yield SystemCommand("cordon", "cordon the selected node", self.action_cordon)
        yield SystemCommand("uncordon", "uncordon the selected node", self.action_uncordon)
        yield SystemCommand("drain", "drain the selected node", self.action_drain)
        yield SystemCommand("help", "every key", self.action_help)
        yield SystemCommand("quit", "leave the dashboard", self.exit)


def _paths(result: Any) -> list[Path]:
    """The file picker's answer as paths (one path, several, or None)."""
    if result is None or result == "":
        return []
    if isinstance(result, str | Path):
        return [Path(result)]
    if isinstance(result, Iterable):
        return [Path(p) for p in result]
    return []
