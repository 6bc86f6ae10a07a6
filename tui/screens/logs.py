"""LogsScreen: one container's logs, streamed by a background thread.

Contract
--------
``LogsScreen(client, namespace, pod, container=None, *, follow=True,
max_lines=5000)`` shows the logs of one container of ``pod``:

* The container is ``container``, else the pod's default one (annotation
  ``kubectl.kubernetes.io/default-container`` when it names a container, else
  the first app container), as kubectl picks it.
* ``c`` cycles through the pod's containers: app containers in spec order,
  then init containers. ``p`` toggles the previous (terminated) instance,
  ``f`` toggles follow mode, ``escape`` closes the screen (dismissed with
  ``None``). Each change starts the stream again from the top.
* The stream is read by a daemon thread, never by the UI's event loop: the UI
  stays responsive while following a quiet container. At most ``max_lines``
  lines are kept (older ones are dropped), and only the last ``max_lines`` are
  asked of the server.
* Failures (no such pod, no previous instance, an unreachable server) are
  shown in the screen, in kubectl's words (``Error from server
  (BadRequest): previous terminated container "a" in pod "p" not found``);
  nothing the stream does can crash the app.
* A superseded stream (the user changed container, mode, or closed the
  screen) is cut off at once and its output dropped.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, Protocol

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Log, Static

from minikube_py.api.errors import StatusError
from minikube_py.ops.wording import server_error

__all__ = ["DEFAULT_CONTAINER_ANNOTATION", "MAX_LINES", "LogSource", "LogsScreen",
           "default_container", "pod_containers"]

#: kubectl's annotation naming the container ``kubectl logs`` picks by default.
DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"
#: Lines a LogsScreen keeps by default.
MAX_LINES = 5000


class LogSource(Protocol):
    """What the screen needs of a client (:class:`~minikube_py.client.http.HTTPClient`)."""

    def get(self, resource: str, namespace: str | None, name: str) -> dict[str, Any]: ...

    def logs(self, namespace: str, name: str, *, container: str | None = None,
             follow: bool = False, previous: bool = False, tail_lines: int | None = None,
             timestamps: bool = False) -> Iterator[bytes]: ...


def pod_containers(pod: Mapping[str, Any]) -> list[str]:
    """The pod's container names: app containers in spec order, then init containers."""
    spec = pod.get("spec") or {}
    return [str(c["name"]) for key in ("containers", "initContainers")
            for c in spec.get(key) or [] if c.get("name")]


def default_container(pod: Mapping[str, Any]) -> str | None:
    """The container ``kubectl logs`` shows when none is named (None: no containers)."""
    names = pod_containers(pod)
    wanted = ((pod.get("metadata") or {}).get("annotations") or {}).get(
        DEFAULT_CONTAINER_ANNOTATION)
    if wanted in names:
        return str(wanted)
    # App containers come first: the first app container, else the first init one.
    return names[0] if names else None


def _cut_off(stream: Iterator[bytes]) -> None:
    """Make a thread blocked reading ``stream`` return now.

    ``HTTPClient.logs`` is a generator over its own connection and offers no
    way to close it from another thread (``close()`` on a running generator
    raises). A follow stream of a quiet container would block its reader until
    the container writes again, keeping a thread and a connection per
    superseded stream, so the socket is shut down under it: the read returns,
    and the generator closes its connection. The connection is found among the
    generator's locals (``conn``); when it is not there (another client), the
    reader is still harmless: it is a daemon thread whose output is dropped.
    """
    frame = getattr(stream, "gi_frame", None)
    conn = frame.f_locals.get("conn") if frame is not None else None
    sock = getattr(conn, "sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _decode(line: bytes) -> str:
    return line.decode("utf-8", errors="replace").rstrip("\r")


class LogsScreen(Screen[None]):
    """A pod's logs (see the module contract)."""

    DEFAULT_CSS = """
    LogsScreen #logs-title {
        height: 1;
        padding: 0 1;
        background: $boost;
        text-style: bold;
    }
    LogsScreen #logs-error {
        height: auto;
        padding: 0 1;
        color: $error;
        display: none;
    }
    LogsScreen #logs-error.shown {
        display: block;
    }
    LogsScreen #logs-log {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("f", "toggle_follow", "Follow"),
        Binding("p", "toggle_previous", "Previous"),
        Binding("c", "next_container", "Container"),
    ]

    def __init__(self, client: LogSource, namespace: str, pod: str,
                 container: str | None = None, *, follow: bool = True,
                 max_lines: int = MAX_LINES) -> None:
        super().__init__()
        if max_lines < 1:
            raise ValueError(f"max_lines must be at least 1, not {max_lines}")
        self.client = client
        self.namespace = namespace
        self.pod = pod
        #: The container shown (None until the pod has been read, if not given).
        self.container = container
        self.follow = follow
        self.previous = False
        #: The pod's containers (app, then init), once read.
        self.containers: list[str] = []
        #: True once the current stream has ended (the container stopped, or no follow).
        self.ended = False
        #: The error shown, if any.
        self.error: str | None = None
        self._max_lines = max_lines
        # Bumped on every restart: output and errors of an older stream are dropped.
        self._generation = 0
        self._lock = threading.Lock()
        self._stream: Iterator[bytes] | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="logs-title")
        yield Static(id="logs-error")
        yield Log(max_lines=self._max_lines, id="logs-log")
        yield Footer()

    def on_mount(self) -> None:
        self._restart()

    def on_unmount(self) -> None:
        self._stop()

    @property
    def lines(self) -> list[str]:
        """The lines shown."""
        return list(self.query_one("#logs-log", Log).lines)

    @property
    def thread(self) -> threading.Thread | None:
        """The thread reading the current stream (for tests and shutdown)."""
        return self._thread

    # ------------------------------------------------------------------ actions

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        self._restart()

    def action_toggle_previous(self) -> None:
        self.previous = not self.previous
        self._restart()

    def action_next_container(self) -> None:
        if not self.containers:
            return  # the pod has not been read (yet): nothing to cycle through
        try:
            index = self.containers.index(self.container or "")
        except ValueError:
            index = -1
        self.container = self.containers[(index + 1) % len(self.containers)]
        self._restart()

    # ------------------------------------------------------------------ streaming

    def _stop(self) -> None:
        with self._lock:
            self._generation += 1
            stream, self._stream = self._stream, None
        if stream is not None:
            _cut_off(stream)

    def _restart(self) -> None:
        self._stop()
        generation = self._generation
        self.ended = False
        self.error = None
        self.query_one("#logs-log", Log).clear()
        error = self.query_one("#logs-error", Static)
        error.update("")
        error.remove_class("shown")
        self._show_title()
        # Captured here: the reader thread has no active app of its own.
        app = self.app
        self._thread = threading.Thread(
            target=self._read, args=(app, generation, self.container, self.follow,
                                     self.previous, not self.containers),
            name=f"logs-{self.namespace}-{self.pod}", daemon=True)
        self._thread.start()

    def _read(self, app: App[Any], generation: int, container: str | None, follow: bool,
              previous: bool, read_pod: bool) -> None:
        """The reader thread: everything it learns goes to the UI through ``_post``."""
        stream: Iterator[bytes] | None = None
        try:
            if read_pod or container is None:
                pod = self.client.get("pods", self.namespace, self.pod)
                container = container or default_container(pod)
                self._post(app, generation, self._pod_read, pod_containers(pod), container)
                if container is None:
                    raise ValueError(f'pod "{self.pod}" has no containers')
            stream = self.client.logs(self.namespace, self.pod, container=container,
                                      follow=follow, previous=previous,
                                      tail_lines=self._max_lines)
            with self._lock:
                if generation != self._generation:
                    return
                self._stream = stream
            partial = b""
            for chunk in stream:
                if generation != self._generation:
                    return
                *complete, partial = (partial + chunk).split(b"\n")
                if complete:
                    self._post(app, generation, self._append, [_decode(x) for x in complete])
            if partial:
                self._post(app, generation, self._append, [_decode(partial)])
            self._post(app, generation, self._ended)
        except StatusError as exc:
            self._post(app, generation, self._fail, server_error(exc))
        except Exception as exc:  # whatever breaks, the screen shows it and lives on
            self._post(app, generation, self._fail, str(exc) or type(exc).__name__)
        finally:
            with self._lock:
                if self._stream is stream:
                    self._stream = None
            close = getattr(stream, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    close()

    def _post(self, app: App[Any], generation: int, callback: Callable[..., None],
              *args: Any) -> None:
        """Run ``callback(*args)`` on the UI thread if the stream is still current.

        ``call_from_thread`` waits for the UI to run it, so a fast log
        producer is slowed to what the screen can take instead of queueing
        without bound.
        """
        if generation != self._generation:
            return

        def apply() -> None:
            if generation == self._generation and self.is_mounted:
                callback(*args)

        # The app may be shutting down under us; the thread just ends.
        with contextlib.suppress(Exception):
            app.call_from_thread(apply)

    # UI-thread callbacks

    def _pod_read(self, containers: list[str], container: str | None) -> None:
        self.containers = containers
        self.container = container
        self._show_title()

    def _append(self, lines: list[str]) -> None:
        self.query_one("#logs-log", Log).write_lines(lines)

    def _ended(self) -> None:
        self.ended = True
        self._show_title()

    def _fail(self, message: str) -> None:
        self.error = message
        self.ended = True
        error = self.query_one("#logs-error", Static)
        error.update(Text(message))  # Text: messages may hold "[...]", never markup
        error.add_class("shown")
        self._show_title()

    def _show_title(self) -> None:
        parts = [f"Logs {self.namespace}/{self.pod}",
                 f"container {self.container or '?'}",
                 "previous" if self.previous else "current",
                 "follow on" if self.follow else "follow off"]
        if self.ended and self.follow and self.error is None:
            parts.append("stream ended")
        self.query_one("#logs-title", Static).update(Text("  ·  ".join(parts)))
