"""The dashboard over real Podman: apply ``manifests/`` from the file picker, see
the pods Running, open a pod's logs.

The control plane runs in this process, exactly as ``minikube-py tui`` starts
it (Podman runtime, our own Podman service, 3 nodes), and the dashboard
attaches over HTTPS through its kubeconfig.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load
from minikube_py.controlplane import ControlPlane, Options
from tests.hostclean import release_cluster_id
from tests.waiting import until
from tui.app import DashboardApp
from tui.screens import ApplyDialog, LogsScreen, ManifestTree, PortForwardScreen
from tui.views.pods import PodsView

# Generous: Podman on a shared CI host can take a minute to start a handful of pods.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
#: Seconds to wait for what real containers do: images pulled, pods started.
SLOW = 180.0


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[ControlPlane]:
    cp = ControlPlane(Options(state_dir=tmp_path / "state", runtime="podman", nodes=3,
                              port=0, restart_backoff=(1.0, 8.0)))
    cp.start()
    client = HTTPClient(load(cp.kubeconfig_path))
    try:
        yield cp
    finally:
        # Leave no container behind on the host: the controllers first (so no
        # replacement pods), then every pod, each given a second to stop; the
        # API object goes only once its kubelet has torn the Podman pod down.
        for resource, namespace, name in (("deployments", "default", "web"),
                                          ("namespaces", None, "batch")):
            with contextlib.suppress(Exception):  # not created, or already gone
                client.delete(resource, namespace, name, grace_period_seconds=1)
        for p in client.list("pods").items:
            with contextlib.suppress(Exception):
                client.delete("pods", p["metadata"]["namespace"], p["metadata"]["name"],
                              grace_period_seconds=1)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and client.list("pods").items:
            time.sleep(0.5)
        cluster = (cp.state_dir / "cluster-id").read_text().strip()
        cp.stop()
        # Whatever this cluster (and only this cluster) left behind is removed,
        # and fails the test.
        left = subprocess.run(["podman", "pod", "ps", "-q", "--filter",
                               f"label=minikube-py.io/cluster={cluster}"],
                              capture_output=True, text=True, check=False).stdout.split()
        release_cluster_id(cluster)  # its pods, network and Service rules
        assert not left, f"Podman pods left behind by cluster {cluster}: {left}"


def test_apply_manifests_see_them_run_and_read_logs(plane: ControlPlane,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    client = HTTPClient(load(plane.kubeconfig_path))
    app = DashboardApp(client)

    def status(view: PodsView, name: str) -> str | None:
        for row in view.table.plain_rows():
            if row[1] == name or (name.endswith("-") and row[1].startswith(name)):
                return row[3]
        return None

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            view = app.view("pods")
            assert isinstance(view, PodsView)
            # a: the file picker, rooted at the working directory.
            await pilot.press("a")
            dialog = app.screen
            assert isinstance(dialog, ApplyDialog)
            tree = dialog.query_one(ManifestTree)

            def manifests_line() -> int | None:
                for line in range(tree.last_line + 1):
                    node = tree.get_node_at_line(line)
                    if node is not None and node.data is not None and \
                            Path(node.data.path).name == "manifests":
                        return line
                return None

            line = await until(pilot, lambda: manifests_line() is not None and
                               manifests_line(), "manifests/ in the tree", timeout=10)
            tree.cursor_line = line
            await pilot.press("a")  # apply the highlighted directory
            await until(pilot, lambda: any("deployment.apps/web" in m for _, m in app.notices),
                        "the apply result", timeout=SLOW)
            assert not any(sev == "error" for sev, _ in app.notices), app.notices
            await until(pilot, lambda: status(view, "hello") == "Running", "hello Running",
                        timeout=SLOW)
            await until(pilot, lambda: sum(1 for r in view.table.plain_rows()
                                           if r[1].startswith("web-") and r[3] == "Running"
                                           and r[2] == "1/1") == 3, "3 web pods ready",
                        timeout=SLOW)
            await until(pilot, lambda: status(view, "countdown") in ("Running", "Completed"),
                        "batch/countdown", timeout=SLOW)
            # l: the logs of hello, from its real container.
            view.table.select_key("default/hello")
            await pilot.press("l")
            logs = app.screen
            assert isinstance(logs, LogsScreen)
            await until(pilot, lambda: any("hello from minikube-py" in line
                                           for line in logs.lines), "hello's log line",
                        timeout=SLOW)
            await pilot.press("escape")
            # shift+f on a web pod: a port-forward, listed, used, stopped.
            web = next(r[1] for r in view.table.plain_rows() if r[1].startswith("web-"))
            view.table.select_key(f"default/{web}")
            await pilot.press("F")
            screen = app.screen
            assert isinstance(screen, PortForwardScreen)
            assert screen.query_one("#pf-ports", Input).value == "8080:8080"  # its port
            screen.query_one("#pf-ports", Input).value = "0:8080"
            await pilot.press("enter")
            assert screen.error is None and len(app.forwards) == 1
            label, forward = app.forwards[0]
            assert label.endswith(f"default/{web}:8080")
            body = await asyncio.to_thread(_fetch, forward.local_port, "/hostname")
            assert body.strip() == web.encode()
            await until(pilot, lambda: screen.query_one("#pf-table", DataTable).row_count == 1,
                        "the forward listed", timeout=10)
            screen.query_one("#pf-table", DataTable).focus()
            await pilot.press("ctrl+d")
            assert app.forwards == []
            with pytest.raises(OSError):
                _fetch(forward.local_port, "/hostname")
            await pilot.press("escape")
            # s on hello: a shell in it (headless: pipes instead of the terminal).
            stdin_r, stdin_w = os.pipe()
            out_r, out_w = os.pipe()
            os.write(stdin_w, b"cat /proc/1/cmdline | tr '\\0' ' '; exit 4\n")
            os.close(stdin_w)
            app.hand_over = contextlib.nullcontext
            app.shell_fds = (stdin_r, out_w)
            view.table.select_key("default/hello")
            await pilot.press("s")
            await until(pilot, lambda: any("exited with code 4" in m for _, m in app.notices),
                        "the shell's exit", timeout=30)
            os.close(out_w)
            assert os.read(out_r, 65536).startswith(b"sleep 3600")  # hello's process 1
            os.close(stdin_r)
            os.close(out_r)

    asyncio.run(main())


def _fetch(port: int, path: str) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
        return bytes(reply.read())
