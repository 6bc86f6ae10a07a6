"""Exec and attach sessions relayed over a WebSocket (``kubectl exec``/``attach``).

One session, two threads: the connection's own thread reads the client
(stdin, terminal resizes, v5's close of stdin) and feeds the process; a
second thread copies the process's output to the client and, when the
output ends, finishes the session as kube-apiserver does
(``util/proxy/websocket.go``): the exit status on the error channel, then
the WebSocket close frame, then waiting for the client to close its side.

The error channel carries, for v4 and v5, a ``Status``: ``Success``, or for
an exit code ``n`` a ``Failure`` with reason ``NonZeroExitCode`` and a
cause ``{"reason": "ExitCode", "message": "n"}`` (client-go turns that into
its exit code, so ``kubectl exec -- sh -c 'exit 3'`` exits 3); for the
unversioned protocols, only the message text of a failure.

A session ends, and the process is let go, when the output ends, when the
client goes away (an exec'd process still running is then killed: see
:mod:`minikube_py.runtime.streaming`), or when the API server stops (close
code 1001). Nothing of it outlives the connection.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ...runtime.streaming import ExecOptions, StreamSession
from .channels import CLOSE, ERROR, RESIZE, STDERR, STDIN, STDOUT, ChannelProtocol
from .websocket import TIMEOUT, WebSocket

__all__ = ["exit_status", "internal_error", "serve_session", "write_status"]

log = logging.getLogger(__name__)

#: How long a finished session waits for the client to close its side.
FINISH_TIMEOUT = 60.0
#: How often the reading side looks at whether the API server is stopping.
_TICK = 1.0


def exit_status(code: int | None, command: Sequence[str] | None) -> dict[str, Any]:
    """The ``Status`` for a process that ended with ``code`` (kubelet's words)."""
    if not code:
        return {"metadata": {}, "status": "Success"}
    shown = "[" + " ".join(command or ()) + "]"
    return {"metadata": {}, "status": "Failure",
            "message": f"command terminated with non-zero exit code: error executing "
                       f"command {shown}, exit code {code}",
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}


def internal_error(message: str) -> dict[str, Any]:
    """kube-apiserver's ``NewInternalError(err)`` as a ``Status``."""
    return {"metadata": {}, "status": "Failure",
            "message": f"Internal error occurred: {message}", "reason": "InternalError",
            "details": {"causes": [{"message": message}]}, "code": 500}


def write_status(ws: WebSocket, proto: ChannelProtocol, status: dict[str, Any]) -> None:
    """The error channel's last word, in the protocol's form."""
    if proto.status_json:
        ws.send(proto.encode(ERROR, json.dumps(status, separators=(",", ":")).encode()))
    elif status.get("status") != "Success":
        ws.send(proto.encode(ERROR, str(status.get("message", "")).encode()))


def _resizes(buffer: bytearray) -> list[tuple[int, int]]:
    """Complete ``{"Width":w,"Height":h}`` objects at the front of ``buffer``
    (client-go writes them back to back); consumed ones are removed."""
    out: list[tuple[int, int]] = []
    decoder = json.JSONDecoder()
    text = buffer.decode("utf-8", "replace")
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        try:
            obj, end = decoder.raw_decode(text, pos)
        except ValueError:
            break
        pos = end
        if isinstance(obj, dict):
            width, height = obj.get("Width") or obj.get("width"), obj.get("Height") or \
                obj.get("height")
            if isinstance(width, int) and isinstance(height, int):
                out.append((width, height))
    del buffer[:len(text[:pos].encode("utf-8"))]
    return out


def serve_session(ws: WebSocket, proto: ChannelProtocol, session: StreamSession,
                  options: ExecOptions, *, command: Sequence[str] | None,
                  stopping: Callable[[], bool]) -> None:
    """Relay ``session`` until it ends (see the module docstring). Always
    closes the session."""
    finished = threading.Event()

    def pump_output() -> None:
        try:
            while (item := session.recv()) is not None:
                channel, data = item
                if channel == STDERR and not options.stderr:
                    continue
                if channel == STDOUT and not options.stdout:
                    continue
                ws.send(proto.encode(channel, data))
            code = session.exit_code() if command is not None else None
            write_status(ws, proto, exit_status(code, command))
            ws.close(1000)
        except ConnectionError as exc:
            log.debug("exec/attach output: the client went away: %s", exc)
        finally:
            finished.set()

    # Kubernetes' wsstream announces the session with an empty message on the
    # lowest channel the client reads.
    first = STDOUT if options.stdout else STDERR if options.stderr else ERROR
    try:
        ws.send(proto.encode(first, b""))
    except ConnectionError:
        session.close()
        return
    output = threading.Thread(target=pump_output, name="exec-output", daemon=True)
    output.start()
    resize = bytearray()
    finished_at: float | None = None
    try:
        while True:
            message = ws.receive(timeout=_TICK)
            if message is None:
                break
            if message is TIMEOUT:
                if finished.is_set():
                    finished_at = finished_at or time.monotonic()
                    if time.monotonic() - finished_at > FINISH_TIMEOUT:
                        break
                if stopping():
                    ws.close(1001, "the API server is shutting down")
                    break
                continue
            if not isinstance(message, (bytes, str)):
                continue
            try:
                decoded = proto.decode(message)
            except ValueError as exc:
                log.debug("exec/attach: dropped a bad message: %s", exc)
                continue
            if decoded is None:
                continue
            channel, data = decoded
            if channel == STDIN and options.stdin:
                session.send(data)
            elif channel == RESIZE:
                resize.extend(data)
                for width, height in _resizes(resize):
                    session.resize(width, height)
            elif channel == CLOSE and proto.close_signal and data[:1] == bytes((STDIN,)):
                session.close_stdin()
    except ConnectionError as exc:
        log.debug("exec/attach input: %s", exc)
    except Exception:
        log.exception("exec/attach session failed")
    finally:
        session.close()
        output.join(timeout=5)
