"""The headless daemon as a user runs it: start, refuse a second one, stop cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tinydb import TinyDB

from minikube_py.store.store import Store

pytestmark = pytest.mark.e2e


def start(state_dir: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(state_dir), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_running(proc: subprocess.Popen[str], timeout: float = 20) -> list[str]:
    """Read stderr until the daemon says it runs; returns the lines seen."""
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if "daemon running" in line:
            return lines
    proc.kill()
    raise AssertionError("daemon did not start:\n" + "".join(lines))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_daemon_starts_refuses_a_second_and_stops_cleanly(tmp_path: Path, sig: signal.Signals):
    state = tmp_path / "state"
    proc = start(state)
    try:
        lines = wait_running(proc)
        assert any("created namespaces default, kube-system" in ln for ln in lines)
        assert (state / "daemon.log").read_text().count("daemon running") == 1

        second = subprocess.run(
            [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(state)],
            capture_output=True, text=True, timeout=30)
        assert second.returncode == 1
        assert f"is in use by another minikube-py process (pid {proc.pid})" in second.stderr
        assert proc.poll() is None  # the first one is untouched

        began = time.monotonic()
        proc.send_signal(sig)
        assert proc.wait(timeout=5) == 0
        assert time.monotonic() - began < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    # Shut down compacted: the state is a TinyDB file and the journal is empty.
    db = TinyDB(state / "state.json", access_mode="r")
    try:
        names = sorted(d["metadata"]["name"] for d in db.table("namespaces").all())
    finally:
        db.close()
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]
    assert all(p.stat().st_size == 0 for p in state.glob("journal.*.jsonl"))


def test_daemon_restart_keeps_state_and_survives_sigkill(tmp_path: Path):
    state = tmp_path / "state"
    proc = start(state)
    wait_running(proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # A killed daemon leaves no stale lock: the store opens and holds the namespaces.
    with Store(state) as store:
        assert store.count("namespaces") == 4
        rv = store.resource_version
    proc = start(state)
    try:
        lines = wait_running(proc)
        assert not any("created namespaces" in ln for ln in lines)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    with Store(state) as store:
        assert store.resource_version == rv  # a restart writes nothing new


def test_unreadable_state_is_refused_with_a_clear_error(tmp_path: Path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "state.json").write_text('{"pods": {"1": ')
    proc = start(state)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert "is not a valid TinyDB JSON file" in err
    assert (state / "state.json").read_text() == '{"pods": {"1": '  # left as it was


def test_state_dir_that_cannot_be_created(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = start(blocker / "state")
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert "cannot create state directory" in err


def test_console_script_and_module_agree():
    out = subprocess.run([sys.executable, "-m", "minikube_py", "version"], capture_output=True,
                         text=True, check=True).stdout
    script = Path(sys.executable).with_name("minikube-py")
    assert os.access(script, os.X_OK)
    assert subprocess.run([str(script), "version"], capture_output=True, text=True,
                          check=True).stdout == out
    assert out.startswith("minikube-py 0.")
