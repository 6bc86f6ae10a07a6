"""``exec_sync`` through Podman's exec API (exec probes, ``kubectl exec`` without a TTY).

``POST /containers/{id}/exec`` creates a session, ``POST /exec/{id}/start``
runs it and streams its multiplexed stdout/stderr until it ends, and
``GET /exec/{id}/json`` has the exit code. The stream is read in a helper
thread so that the caller's ``timeout`` holds whatever the command does.

On timeout the command is killed. Podman 4 has no API for that, so we kill
the exec'd process (and its children) ourselves by the host PID Podman
reports, after checking in ``/proc`` that the PID really belongs to the
container's cgroup (the service may live in another PID namespace; then we
leave the command running rather than risk killing a stranger).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

import psutil

from .base import ContainerRuntimeError, ExecResult
from .podman_api import FrameDecoder, PodmanAPI, close_client, error_message, shutdown_response

__all__ = ["exec_sync", "exit_code", "kill_tree"]

log = logging.getLogger(__name__)

#: Exit code reported for a command killed at its timeout (as FakeRuntime reports it).
TIMEOUT_EXIT_CODE = -1


def _belongs_to(pid: int, container_id: str) -> bool:
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8") as f:
            return container_id in f.read()
    except OSError:
        return False


def kill_tree(pid: int, container_id: str) -> bool:
    if pid <= 0 or not _belongs_to(pid, container_id):
        return False
    try:
        victims = [*psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        victims = []
    for pid_ in [pid, *(p.pid for p in victims)]:
        if _belongs_to(pid_, container_id):
            with contextlib.suppress(OSError):
                os.kill(pid_, signal.SIGKILL)
    return True


def exit_code(api: PodmanAPI, exec_id: str, wait: float) -> int | None:
    deadline = time.monotonic() + wait
    while True:
        try:
            info = api.json("GET", f"/exec/{exec_id}/json", what=f"exec session {exec_id}") or {}
        except ContainerRuntimeError:
            return None
        if not info.get("Running"):
            code = info.get("ExitCode")
            return int(code) if isinstance(code, int) else None
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.02)


def exec_sync(api: PodmanAPI, container_id: str, command: Sequence[str], *,
              timeout: float) -> ExecResult:
    created = api.json("POST", f"/containers/{container_id}/exec",
                       body={"AttachStdout": True, "AttachStderr": True, "AttachStdin": False,
                             "Tty": False, "Cmd": list(command)},
                       what=f"exec in container {container_id}") or {}
    exec_id = str(created.get("Id") or "")
    if not exec_id:
        raise ContainerRuntimeError(f"Podman created no exec session in {container_id}")
    output = bytearray()
    holder: dict[str, Any] = {}
    done = threading.Event()
    client = api.stream_client()

    def run() -> None:
        try:
            response = api.call("POST", f"/exec/{exec_id}/start",
                                body={"Detach": False, "Tty": False}, stream=True,
                                client=client)
            holder["response"] = response
            if response.status_code >= 400:
                holder["error"] = error_message(response)
                return
            decoder = FrameDecoder()
            for chunk in response.iter_content(chunk_size=None):
                for _, payload in decoder.feed(chunk):
                    output.extend(payload)
            for _, payload in decoder.flush():
                output.extend(payload)
        except Exception as exc:
            holder.setdefault("error", str(exc))
        finally:
            done.set()

    thread = threading.Thread(target=run, name=f"podman-exec-{container_id[:12]}", daemon=True)
    thread.start()
    try:
        if not done.wait(max(0.0, timeout)):
            info: dict[str, Any] = {}
            with contextlib.suppress(ContainerRuntimeError):
                info = api.json("GET", f"/exec/{exec_id}/json",
                                what=f"exec session {exec_id}") or {}
            if not kill_tree(int(info.get("Pid") or 0), container_id):
                log.warning("exec %s in %s timed out and could not be killed from here",
                            list(command), container_id[:12])
            response = holder.get("response")
            if response is not None:
                shutdown_response(response)
            done.wait(2.0)
            return ExecResult(TIMEOUT_EXIT_CODE, bytes(output), timed_out=True)
        if "error" in holder and not output:
            message = str(holder["error"])
            # What a shell would answer: 127 for "not found", 126 for "cannot execute".
            failed = 127 if "not found" in message or "no such file" in message.lower() else 126
            return ExecResult(failed, message.encode() + b"\n")
        code = exit_code(api, exec_id, wait=2.0)
        return ExecResult(code if code is not None else -1, bytes(output))
    finally:
        response = holder.get("response")
        if response is not None:
            shutdown_response(response)
        close_client(client)
