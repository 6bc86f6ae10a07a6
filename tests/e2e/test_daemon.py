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
        [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(state_dir),
         "--listen", "127.0.0.1:0", "--nodes", "1", "--runtime", "fake", *extra],
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
        # The file handler writes right after the stderr one: allow it a moment.
        deadline = time.monotonic() + 5
        while "daemon running" not in (state / "daemon.log").read_text() and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        assert (state / "daemon.log").read_text().count("daemon running") == 1

        second = subprocess.run(
            [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(state),
             "--listen", "127.0.0.1:0"],
            capture_output=True, text=True, timeout=30)
        assert second.returncode == 1
        assert f"is in use by another minikube-py process (pid {proc.pid})" in second.stderr
        # Refused before it touched anything: no Podman service, no pod network.
        assert not (state / "network.json").exists()
        assert not (state / "podman").exists()
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
        assert store.count("nodes") == 1
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
        assert store.count("namespaces") == 4 and store.count("nodes") == 1


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


def _https(state: Path, path: str, token: str | None) -> tuple[int, bytes]:
    import http.client
    import ssl
    from urllib.parse import urlsplit

    from minikube_py.client.kubeconfig import load
    endpoint = load(state / "kubeconfig")
    url = urlsplit(endpoint.server)
    ctx = ssl.create_default_context(cadata=(endpoint.ca_data or b"").decode())
    conn = http.client.HTTPSConnection(url.hostname, url.port, context=ctx, timeout=10)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    conn.request("GET", path, headers=headers)
    resp = conn.getresponse()
    return resp.status, resp.read()


def test_health_needs_no_token_everything_else_does(tmp_path: Path):
    state = tmp_path / "state"
    proc = start(state)
    try:
        wait_running(proc)
        assert _https(state, "/readyz", None) == (200, b"ok")
        assert _https(state, "/livez", None) == (200, b"ok")
        status, body = _https(state, "/api/v1/pods", None)
        assert status == 401 and b'"reason":"Unauthorized"' in body
        status, _ = _https(state, "/api/v1/pods", "wrong-token")
        assert status == 401
        token = (state / "token").read_text().strip()
        assert _https(state, "/api/v1/pods", token)[0] == 200
        # Credentials are readable by their owner only.
        for name in ("kubeconfig", "token", "pki/ca.key", "pki/apiserver.key"):
            assert (state / name).stat().st_mode & 0o077 == 0, name
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0


def test_shutdown_within_five_seconds_with_an_open_watch(tmp_path: Path):
    from minikube_py.client.http import HTTPClient
    from minikube_py.client.kubeconfig import load
    state = tmp_path / "state"
    proc = start(state)
    try:
        wait_running(proc)
        client = HTTPClient(load(state / "kubeconfig"))
        watch = client.watch("pods")
        began = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
        assert time.monotonic() - began < 5
        watch.stop()
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("args, message", [
    (("--listen", "127.0.0.1:notaport"), "the port must be a number"),
    (("--nodes", "0"), "there must be at least one node"),
    (("--config", "/no/such/nodes.yaml"), "nodes.yaml"),
])
def test_bad_flags_are_refused_with_a_clear_message(tmp_path: Path, args: tuple[str, ...],
                                                   message: str):
    result = subprocess.run(
        [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(tmp_path / "s"),
         *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert message in result.stderr


def test_port_in_use_is_refused_clearly(tmp_path: Path):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(tmp_path / "s"),
             "--listen", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in result.stderr
