"""Helpers for the dashboard's Pilot tests: a real control plane on hollow nodes,
the dashboard attached to it over HTTP. Waiting for what the screen shows is
:func:`tests.waiting.until`.

Tests are plain functions that run one coroutine with ``asyncio.run`` (no
pytest-asyncio): ``run_app(client, scenario)`` starts the app headless at a
fixed 120x40 terminal and awaits ``scenario(pilot, app)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load
from minikube_py.controlplane import ControlPlane, Options
from tests.waiting import until
from tui.app import DashboardApp

SIZE = (120, 40)
IMAGE = "localhost/minikube-py/busybox:1.35"


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[ControlPlane]:
    """A fresh control plane per test (hollow nodes, fast heartbeats for sparklines)."""
    cp = ControlPlane(Options(state_dir=tmp_path / "state", runtime="fake", nodes=3, port=0,
                              heartbeat_interval=0.5, restart_backoff=(0.5, 2.0)))
    cp.start()
    try:
        yield cp
    finally:
        cp.stop()


@pytest.fixture
def client(plane: ControlPlane) -> HTTPClient:
    return HTTPClient(load(plane.kubeconfig_path))


Scenario = Callable[[Pilot[None], DashboardApp], Awaitable[None]]


def run_app(client: HTTPClient, scenario: Scenario, **kwargs: Any) -> DashboardApp:
    """Run the dashboard headless against ``client`` and play ``scenario``."""
    app = DashboardApp(client, **kwargs)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await scenario(pilot, app)

    asyncio.run(main())
    return app


async def type_filter(pilot: Pilot[None], text: str) -> None:
    """Open the ``/`` filter line, empty it and type ``text`` (not submitted)."""
    await pilot.press("slash")
    box = pilot.app.query_one("#filter")
    # Focus moves on the next turn of the event loop; keys typed before would
    # reach the view's bindings instead.
    await until(pilot, lambda: pilot.app.focused is box, "the filter line to take focus")
    box.value = ""  # type: ignore[attr-defined]
    await pilot.press(*text)


def deployment(name: str, replicas: int, *, cpu: str = "100m",
               labels: dict[str, str] | None = None) -> dict[str, Any]:
    labels = labels or {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {
                         "terminationGracePeriodSeconds": 0,
                         "containers": [{"name": "main", "image": IMAGE, "resources": {
                             "requests": {"cpu": cpu, "memory": "16Mi"}}}]}}}}


def pod(name: str, *, cpu: str = "50m", node_selector: dict[str, str] | None = None,
        labels: dict[str, str] | None = None, container: str = "main",
        readiness_probe: dict[str, Any] | None = None) -> dict[str, Any]:
    main: dict[str, Any] = {"name": container, "image": IMAGE,
                            "resources": {"requests": {"cpu": cpu}}}
    if readiness_probe:
        main["readinessProbe"] = readiness_probe
    spec: dict[str, Any] = {"terminationGracePeriodSeconds": 0, "containers": [main]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": spec}
