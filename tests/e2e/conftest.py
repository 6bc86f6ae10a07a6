"""A real daemon (fake runtime) in a temp dir, and helpers to drive it with the
real kubectl, the official client and our own CLI."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "manifests"


@dataclass
class Daemon:
    proc: subprocess.Popen[str]
    state: Path
    log: list[str] = field(default_factory=list)

    @property
    def kubeconfig(self) -> Path:
        return self.state / "kubeconfig"

    def env(self) -> dict[str, str]:
        return {**os.environ, "KUBECONFIG": str(self.kubeconfig),
                "MINIKUBE_PY_KUBECONFIG": str(self.kubeconfig)}

    def kubectl(self, *args: str, input: str | None = None, check: bool = True,
                timeout: float = 60) -> subprocess.CompletedProcess[str]:
        kubectl = shutil.which("kubectl")
        assert kubectl, "kubectl is not installed (make test installs kubernetes-client)"
        result = subprocess.run(
            [kubectl, "--cache-dir", str(self.state / "kubectl-cache"), *args],
            input=input, capture_output=True, text=True, env=self.env(), timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({result.returncode}):\n"
                                 f"{result.stdout}{result.stderr}")
        return result

    def cli(self, *args: str, input: str | None = None, check: bool = True,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([sys.executable, "-m", "minikube_py", *args], input=input,
                                capture_output=True, text=True, env=self.env(),
                                timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"minikube-py {' '.join(args)} failed ({result.returncode}):"
                                 f"\n{result.stdout}{result.stderr}")
        return result

    def get_json(self, *args: str) -> Any:
        return json.loads(self.kubectl("get", *args, "-o", "json").stdout)


class Lines:
    """Every line a running process writes to ``stream``, read by a thread as it
    comes, so that a test can wait for a line while the process still runs
    (``wait_for(lambda: lines.starting("NAME"), ...)``) and never blocks it on a
    full pipe."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def starting(self, prefix: str) -> list[str]:
        """The lines read so far that start with ``prefix``."""
        return [line for line in list(self.lines) if line.startswith(prefix)]

    def text(self, timeout: float = 10) -> str:
        """Everything, once the stream has ended (the process exited)."""
        self._thread.join(timeout)
        return "\n".join(self.lines)


def start_daemon(state: Path, *extra: str, timeout: float = 60) -> Daemon:
    """A daemon on a free port; hollow nodes (fake runtime) unless ``extra`` says
    ``--runtime podman``."""
    runtime = [] if "--runtime" in extra else ["--runtime", "fake"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(state),
         "--listen", "127.0.0.1:0", *runtime, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    daemon = Daemon(proc, state)
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        daemon.log.append(line)
        if "daemon running" in line:
            # Keep reading its log: a full pipe would block the daemon's logging
            # (and so the daemon) once it has written 64 KiB.
            threading.Thread(target=_drain, args=(proc, daemon.log), daemon=True).start()
            return daemon
    proc.kill()
    raise AssertionError("daemon did not start:\n" + "".join(daemon.log))


def _drain(proc: subprocess.Popen[str], log: list[str], keep: int = 5000) -> None:
    assert proc.stderr is not None
    for line in proc.stderr:
        log.append(line)
        if len(log) > keep:
            del log[: len(log) - keep]


def stop_daemon(daemon: Daemon) -> int:
    daemon.proc.send_signal(signal.SIGTERM)
    try:
        return daemon.proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        daemon.proc.kill()
        daemon.proc.wait()
        tail = "".join(daemon.log[-15:])
        raise AssertionError(f"daemon did not stop within 5 s of SIGTERM; its last log "
                             f"lines:\n{tail}") from None


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    d = start_daemon(tmp_path_factory.mktemp("daemon") / "state", "--nodes", "2")
    try:
        yield d
    finally:
        assert stop_daemon(d) == 0
