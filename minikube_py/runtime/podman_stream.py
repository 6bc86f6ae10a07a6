"""Interactive exec and attach through Podman's hijacked HTTP connections.

Podman's ``POST /exec/{id}/start`` and ``POST /containers/{id}/attach``
answer ``101 UPGRADED`` when asked to (``Connection: Upgrade``,
``Upgrade: tcp``) and then carry the process's streams on the raw
connection both ways: what we write is its stdin, half-closing our side
(``shutdown(SHUT_WR)``) is end-of-file on it, and what comes back is its
output, in Docker's multiplexed frames without a TTY or raw bytes with one.
``requests`` cannot hand over a connection like this, so the request head is
written and the answer parsed with h11 (the HTTP/1.1 state machine under
httpx and wsproto) on a socket of our own; after the 101 the socket is ours.

The terminal size is set with ``POST /exec/{id}/resize`` (or
``/containers/{id}/resize``); the exit code is read from
``GET /exec/{id}/json`` once the output has ended. Podman removes an exec
session ``exit_command_delay`` after it exits (our own service sets that
short; see :mod:`.podman_service`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit

import h11

from .base import ContainerRuntimeError
from .podman_api import FrameDecoder, PodmanAPI, error_message
from .podman_exec import exit_code as session_exit_code
from .podman_exec import kill_tree
from .streaming import STDOUT, ExecOptions

__all__ = ["PodmanStream", "attach", "exec_stream", "hijack"]

log = logging.getLogger(__name__)

#: The libpod API prefix our raw requests use (every Podman 4+ serves it).
_PREFIX = "/v4.0.0/libpod"
#: Seconds to wait for Podman to answer the request that starts a stream.
_HANDSHAKE_TIMEOUT = 30.0


def _connect(base_url: str) -> socket.socket:
    """A new connection to the Podman service at ``base_url``."""
    url = urlsplit(base_url)
    try:
        if url.scheme in ("unix", "http+unix"):
            path = url.path if url.scheme == "unix" else \
                url.netloc.replace("%2F", "/").replace("%2f", "/")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(_HANDSHAKE_TIMEOUT)
            sock.connect(path)
            return sock
        if url.scheme in ("tcp", "http"):
            return socket.create_connection((url.hostname or "127.0.0.1", url.port or 80),
                                            timeout=_HANDSHAKE_TIMEOUT)
    except OSError as exc:
        raise ContainerRuntimeError(f"cannot reach the Podman service at {base_url}: "
                                    f"{exc}") from exc
    raise ContainerRuntimeError(f"cannot stream over a Podman URL of scheme {url.scheme!r}")


def hijack(base_url: str, path: str, body: Any, *, what: str) -> tuple[socket.socket, bytes]:
    """``POST path`` asking for the connection; returns it after Podman's 101
    with the bytes that came after the answer's head. A refusal raises
    :class:`ContainerRuntimeError` with Podman's message."""
    sock = _connect(base_url)
    try:
        conn = h11.Connection(h11.CLIENT)
        data = json.dumps(body).encode() if body is not None else b""
        head = h11.Request(method="POST", target=_PREFIX + path, headers=[
            ("Host", "podman"), ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))), ("Connection", "Upgrade"),
            ("Upgrade", "tcp")])
        sock.sendall(conn.send(head) + conn.send(h11.Data(data=data)) +
                     conn.send(h11.EndOfMessage()))
        response: h11.Response | h11.InformationalResponse | None = None
        payload = b""
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                chunk = sock.recv(65536)
                conn.receive_data(chunk)
                if not chunk and conn.their_state is not h11.SWITCHED_PROTOCOL:
                    if response is not None:
                        break
                    raise ContainerRuntimeError(f"{what}: Podman closed the connection")
                continue
            if event is h11.PAUSED:
                break  # switched protocols: the rest is the stream
            if isinstance(event, h11.InformationalResponse):
                response = event
                if event.status_code == 101:
                    continue
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                payload += event.data
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                break
        if response is None or response.status_code != 101:
            status = response.status_code if response is not None else 0
            message = error_message(_Answer(status, payload))
            sock.close()
            raise ContainerRuntimeError(f"{what}: {message}")
        leftover, _ = conn.trailing_data
        sock.settimeout(None)
        return sock, bytes(leftover)
    except h11.ProtocolError as exc:
        sock.close()
        raise ContainerRuntimeError(f"{what}: Podman's answer was not HTTP: {exc}") from exc
    except OSError as exc:
        sock.close()
        raise ContainerRuntimeError(f"{what}: {exc}") from exc


class _Answer:
    """Just enough of a response for :func:`~.podman_api.error_message`."""

    def __init__(self, status: int, body: bytes) -> None:
        self.status_code = status
        self.text = body.decode(errors="replace")


class PodmanStream:
    """A :class:`~.streaming.StreamSession` over a hijacked Podman connection."""

    def __init__(self, sock: socket.socket, leftover: bytes, *, tty: bool, stdin: bool,
                 resize: Callable[[int, int], None],
                 exit_code: Callable[[float], int | None] | None = None,
                 kill: Callable[[], None] | None = None) -> None:
        self._sock = sock
        self._tty = tty
        self._stdin = stdin
        self._resize = resize
        self._exit_code = exit_code
        self._kill = kill
        self._decoder = FrameDecoder()
        self._pending: list[tuple[int, bytes]] = []
        self._ended = False
        self._closed = False
        self._stdin_closed = not stdin
        self._lock = threading.Lock()
        if leftover:
            self._pending.extend(self._decode(leftover))

    @property
    def tty(self) -> bool:
        return self._tty

    def _decode(self, chunk: bytes) -> list[tuple[int, bytes]]:
        if self._tty:
            return [(STDOUT, chunk)]
        return [(1 if fd in (0, 1) else fd, data) for fd, data in self._decoder.feed(chunk)]

    def recv(self) -> tuple[int, bytes] | None:
        while not self._pending:
            if self._ended or self._closed:
                return None
            try:
                chunk = self._sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                self._ended = True
                if not self._tty:
                    self._pending.extend((1 if fd in (0, 1) else fd, data)
                                         for fd, data in self._decoder.flush())
                continue
            self._pending.extend(self._decode(chunk))
        return self._pending.pop(0)

    def send(self, data: bytes) -> None:
        if self._stdin_closed or not data:
            return
        try:
            self._sock.sendall(data)
        except OSError as exc:
            raise ContainerRuntimeError(f"writing to the process's stdin failed: {exc}") \
                from exc

    def close_stdin(self) -> None:
        with self._lock:
            if self._stdin_closed:
                return
            self._stdin_closed = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_WR)

    def resize(self, width: int, height: int) -> None:
        if self._tty and width > 0 and height > 0 and not self._closed:
            try:
                self._resize(width, height)
            except ContainerRuntimeError as exc:
                log.debug("resize to %dx%d failed: %s", width, height, exc)

    def exit_code(self, timeout: float = 2.0) -> int | None:
        return self._exit_code(timeout) if self._exit_code is not None else None

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if not self._ended and self._kill is not None:
            # The client went away while the process runs: nobody can read its
            # output any more, so it goes (an exec'd shell would get SIGHUP).
            with contextlib.suppress(Exception):
                self._kill()
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()


def exec_stream(api: PodmanAPI, container_id: str, command: list[str],
                options: ExecOptions) -> PodmanStream:
    """Start ``command`` in the running container and return its streams."""
    created = api.json("POST", f"/containers/{container_id}/exec", body={
        "AttachStdin": options.stdin, "AttachStdout": options.stdout,
        "AttachStderr": options.stderr, "Tty": options.tty, "Cmd": command},
        what=f"exec in container {container_id[:12]}") or {}
    exec_id = str(created.get("Id") or "")
    if not exec_id:
        raise ContainerRuntimeError(f"Podman created no exec session in {container_id[:12]}")
    sock, leftover = hijack(api.base_url, f"/exec/{exec_id}/start",
                            {"Detach": False, "Tty": options.tty},
                            what=f"exec {command} in container {container_id[:12]}")

    def resize(width: int, height: int) -> None:
        api.json("POST", f"/exec/{exec_id}/resize", params={"h": height, "w": width},
                 what=f"resizing exec session {exec_id[:12]}")

    def exit_code(timeout: float) -> int | None:
        return session_exit_code(api, exec_id, wait=timeout)

    def kill() -> None:
        info = api.json("GET", f"/exec/{exec_id}/json", what=f"exec session {exec_id}") or {}
        if info.get("Running"):
            kill_tree(int(info.get("Pid") or 0), container_id)

    return PodmanStream(sock, leftover, tty=options.tty, stdin=options.stdin, resize=resize,
                        exit_code=exit_code, kill=kill)


def attach(api: PodmanAPI, container_id: str, options: ExecOptions) -> PodmanStream:
    """Attach to the running container's own streams (its main process)."""
    query = "&".join(f"{k}={'true' if v else 'false'}" for k, v in (
        ("stream", True), ("logs", False), ("stdin", options.stdin),
        ("stdout", options.stdout), ("stderr", options.stderr)))
    sock, leftover = hijack(api.base_url, f"/containers/{quote(container_id)}/attach?{query}"
                            "&detachKeys=", None,
                            what=f"attach to container {container_id[:12]}")

    def resize(width: int, height: int) -> None:
        api.json("POST", f"/containers/{container_id}/resize",
                 params={"h": height, "w": width},
                 what=f"resizing container {container_id[:12]}")

    return PodmanStream(sock, leftover, tty=options.tty, stdin=options.stdin, resize=resize)
