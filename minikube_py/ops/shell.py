"""An interactive exec in the user's terminal (the dashboard's ``s``).

:func:`exec_interactive` does what ``kubectl exec -it`` does, over the same
``pods/exec`` WebSocket (``v5.channel.k8s.io``): the terminal is put in raw
mode, every key goes to the process's stdin, its output to the terminal,
the window size follows the terminal (``SIGWINCH``), and the exit code of
the process is returned. With stdin not a terminal (tests, pipes) it works
the same without raw mode and without a TTY. The terminal is restored
whatever happens.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import termios
import threading
import tty
from collections.abc import Sequence
from types import FrameType
from typing import Any

from ..apiserver.streaming import channels
from ..client.http import HTTPClient
from ..client.websocket import ClientWebSocket

__all__ = ["SHELL", "exec_interactive", "exit_code_of"]

#: What the dashboard runs: bash where the image has it, else sh (as k9s does).
SHELL = ("sh", "-c", "command -v bash >/dev/null 2>&1 && exec bash || exec sh")
_PROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io")


def exit_code_of(status: Any) -> int:
    """The exit code an error-channel ``Status`` carries (client-go's rule)."""
    if not isinstance(status, dict) or status.get("status") == "Success":
        return 0
    if status.get("reason") == "NonZeroExitCode":
        for cause in (status.get("details") or {}).get("causes") or []:
            if cause.get("reason") == "ExitCode":
                with contextlib.suppress(TypeError, ValueError):
                    return int(cause.get("message"))
    raise RuntimeError(str(status.get("message") or "the command failed"))


def _size(fd: int) -> tuple[int, int] | None:
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return None
    return size.columns, size.lines


def exec_interactive(client: HTTPClient, namespace: str, pod: str, container: str,
                     command: Sequence[str] = SHELL, *, stdin_fd: int | None = None,
                     stdout_fd: int | None = None) -> int:
    """Run ``command`` in the container attached to this terminal; its exit code.
    Raises the API server's error when the session cannot start, and
    RuntimeError with its message when the server reports a failure."""
    in_fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
    out_fd = sys.stdout.fileno() if stdout_fd is None else stdout_fd
    terminal = os.isatty(in_fd)
    query = [("container", container), ("stdin", "true"), ("stdout", "true"),
             ("stderr", "false" if terminal else "true"), ("tty", "true" if terminal else "false"),
             *(("command", word) for word in command)]
    ws = ClientWebSocket.connect(client, f"/api/v1/namespaces/{namespace}/pods/{pod}/exec",
                                 query, _PROTOCOLS)
    proto = channels.by_name(ws.protocol)
    saved = termios.tcgetattr(in_fd) if terminal else None
    done = threading.Event()
    old_handler: Any = None

    def resize() -> None:
        size = _size(out_fd) or _size(in_fd)
        if size is not None:
            with contextlib.suppress(ConnectionError):
                ws.send(proto.encode(channels.RESIZE, json.dumps(
                    {"Width": size[0], "Height": size[1]}).encode()))

    def on_winch(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=resize, daemon=True).start()

    def feed() -> None:
        try:
            while not done.is_set():
                ready, _, _ = select.select([in_fd], [], [], 0.2)
                if not ready:
                    continue
                data = os.read(in_fd, 32768)
                if not data:
                    if proto.close_signal:
                        ws.send(bytes((channels.CLOSE, channels.STDIN)))
                    return
                ws.send(proto.encode(channels.STDIN, data))
        except (ConnectionError, OSError):
            return

    status: Any = None
    error = b""
    try:
        if terminal:
            tty.setraw(in_fd)
            if threading.current_thread() is threading.main_thread():
                old_handler = signal.signal(signal.SIGWINCH, on_winch)
            resize()
        feeder = threading.Thread(target=feed, name="shell-stdin", daemon=True)
        feeder.start()
        for channel, data in channels.incoming(ws, proto):
            if channel in (channels.STDOUT, channels.STDERR) and data:
                os.write(out_fd, data)
            elif channel == channels.ERROR:
                error += data
    finally:
        done.set()
        ws.close()
        if saved is not None:
            termios.tcsetattr(in_fd, termios.TCSADRAIN, saved)
        if old_handler is not None:
            signal.signal(signal.SIGWINCH, old_handler)
    if error:
        try:
            status = json.loads(error)
        except ValueError:
            raise RuntimeError(error.decode(errors="replace")) from None
    return exit_code_of(status)
