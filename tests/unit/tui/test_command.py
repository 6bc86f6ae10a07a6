"""``minikube-py tui``: the entry point, both modes, and its failures.

The dashboard's ``run`` is replaced by a stub that checks it was given a
working client (a real terminal is not available in tests); everything
around it (flags, starting and stopping the control plane, attaching) is real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minikube_py.cli.main import main
from minikube_py.client.kubeconfig import load
from minikube_py.controlplane import ControlPlane, Options
from tui.app import DashboardApp

FLAGS = ["--runtime", "fake", "--listen", "127.0.0.1:0", "--nodes", "2"]


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    def run(self: DashboardApp, *args: Any, **kwargs: Any) -> None:
        nodes = self.client.list("nodes").items
        seen.append({"server": self.server, "nodes": sorted(n["metadata"]["name"]
                                                           for n in nodes)})

    monkeypatch.setattr(DashboardApp, "run", run)
    return seen


def test_tui_starts_a_control_plane_and_stops_it_on_quit(
        tmp_path: Path, runs: list[dict[str, Any]]) -> None:
    state = tmp_path / "state"
    assert main(["tui", "--state-dir", str(state), *FLAGS]) == 0
    assert runs and runs[0]["nodes"] == ["node-1", "node-2"]
    assert runs[0]["server"].startswith("https://127.0.0.1:")
    assert (state / "kubeconfig").exists()
    # Stopped: the state directory is free for the next control plane.
    plane = ControlPlane(Options(state_dir=state, runtime="fake", nodes=2, port=0))
    plane.start()
    plane.stop()


def test_tui_attaches_with_kubeconfig_and_leaves_the_daemon_running(
        tmp_path: Path, runs: list[dict[str, Any]]) -> None:
    plane = ControlPlane(Options(state_dir=tmp_path, runtime="fake", nodes=1, port=0))
    plane.start()
    try:
        assert main(["tui", "--kubeconfig", str(plane.kubeconfig_path)]) == 0
        assert runs[0]["nodes"] == ["node-1"]
        assert plane.ready()
        from minikube_py.client.http import HTTPClient

        HTTPClient(load(plane.kubeconfig_path)).request("GET", "/readyz")
    finally:
        plane.stop()


def test_tui_reports_what_is_wrong(tmp_path: Path, runs: list[dict[str, Any]],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tui", "--kubeconfig", str(tmp_path / "nope")]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert main(["tui", "--state-dir", str(tmp_path), "--nodes", "0",
                 "--runtime", "fake"]) == 1
    assert "at least one node" in capsys.readouterr().err
    # A second control plane on a state directory in use: refused, nothing run.
    plane = ControlPlane(Options(state_dir=tmp_path / "busy", runtime="fake", nodes=1, port=0))
    plane.start()
    try:
        assert main(["tui", "--state-dir", str(tmp_path / "busy"), *FLAGS]) == 1
        assert "error:" in capsys.readouterr().err
    finally:
        plane.stop()
    assert runs == []


def test_other_commands_do_not_load_the_dashboard():
    """Every command registers ``tui``; only ``tui`` itself may import Textual (the
    daemon would carry its memory for nothing). Rich is not checked: the ``podman``
    package imports it when it is installed."""
    import subprocess
    import sys

    code = ("import sys\nfrom minikube_py.cli.main import build_parser\nbuild_parser()\n"
            "print(sorted(m for m in ('textual', 'tui.app') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
