"""Take the README's dashboard screenshots (SVG) from a real run.

Run: ``.venv/bin/python scripts/tui_screenshots.py [--runtime podman|fake]``

Starts a control plane (3 nodes; Podman by default, so the pods are real
containers), applies ``manifests/`` plus a pod too big for any node, taints
one node, waits for the pods, then drives the dashboard headless at 120x40
and saves one SVG per view in ``docs/``. Everything it created is deleted
before the control plane stops.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual.pilot import Pilot

from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load
from minikube_py.controlplane import ControlPlane, Options
from tui import actions
from tui.app import DashboardApp
from tui.views.scores import ScoresView

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BIG = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
       "spec": {"containers": [{"name": "main", "image": "localhost/minikube-py/busybox:1.35",
                                "command": ["sleep", "3600"],
                                "resources": {"requests": {"cpu": "64"}}}]}}


async def until(pilot: Pilot[Any], predicate: Callable[[], Any], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the dashboard")
        await pilot.pause(0.1)


async def shoot(client: HTTPClient) -> list[Path]:
    app = DashboardApp(client, server=client.endpoint.server)
    saved: list[Path] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.model.wait_synced(0))
        await pilot.pause(3.0)  # a few heartbeats for the sparklines

        async def save(name: str) -> None:
            await pilot.pause(1.0)
            saved.append(DOCS / f"tui-{name}.svg")
            app.save_screenshot(f"tui-{name}.svg", path=str(DOCS))

        for key, name in (("1", "pods"), ("2", "nodes"), ("3", "queue"),
                          ("5", "workloads"), ("6", "events")):
            await pilot.press(key)
            await save(name)
        await pilot.press("4")
        scores = app.view("scores")
        assert isinstance(scores, ScoresView)
        web = next(k for k in scores.pods_table.keys if k.startswith("default/web-"))
        scores.select_pod(web)
        await until(pilot, lambda: bool(scores.records))
        await save("scores")
        scores.select_pod("default/big")
        await until(pilot, lambda: bool(scores.records))
        await save("scores-unschedulable")
        await pilot.press("question_mark")
        await save("help")
    return saved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runtime", default="podman", choices=["podman", "fake"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # The control plane logs to a file, as under `minikube-py tui`.
        logging.basicConfig(filename=Path(tmp) / "daemon.log", level=logging.INFO)
        plane = ControlPlane(Options(state_dir=Path(tmp), runtime=args.runtime, nodes=3,
                                     port=0, heartbeat_interval=1.0))
        plane.start()
        client = HTTPClient(load(plane.kubeconfig_path))
        try:
            print("\n".join(actions.apply_paths(client, [ROOT / "manifests"])))
            client.create(BIG)
            client.patch("nodes", None, "node-3", "merge", {"spec": {"taints": [
                {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}})
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                pods = client.list("pods", namespace="default").items
                if sum(1 for p in pods if p["status"].get("phase") == "Running") >= 4:
                    break
                time.sleep(0.5)
            for path in asyncio.run(shoot(client)):
                print(f"saved {path.relative_to(ROOT)}")
        finally:
            # Each pod gets a second to stop, and its API object goes only once
            # its kubelet has torn the Podman pod down: nothing is left running.
            for resource, namespace, name in (("deployments", "default", "web"),
                                              ("namespaces", None, "batch")):
                with contextlib.suppress(Exception):
                    client.delete(resource, namespace, name, grace_period_seconds=1)
            for pod in client.list("pods").items:
                with contextlib.suppress(Exception):
                    client.delete("pods", pod["metadata"]["namespace"],
                                  pod["metadata"]["name"], grace_period_seconds=1)
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and client.list("pods").items:
                time.sleep(0.5)
            plane.stop()


if __name__ == "__main__":
    main()
