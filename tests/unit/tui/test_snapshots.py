"""Snapshot tests (pytest-textual-snapshot): every view at 120x40 over the canned
cluster of :mod:`.canned`, with the clock frozen at :data:`.canned.NOW`.

The data, the clock, the queue countdown and the node usage history are all
pinned, so the SVGs are stable; update them with ``--snapshot-update`` after
a deliberate change and review the diff.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from tui.app import DashboardApp
from tui.model import UsageSample
from tui.screens.describe import DescribeScreen
from tui.screens.logs import LogsScreen
from tui.views.config import ConfigView
from tui.views.queue import QueueView
from tui.views.scores import ScoresView
from tui.views.services import ServicesView

from .canned import CONFIGMAPS, NOW, SECRETS, SERVICES, CannedClient

SIZE = (120, 40)
USAGE = {
    "node-1": [UsageSample(c, m << 20) for c, m in
               ((120, 300), (180, 320), (420, 340), (900, 360), (1300, 380), (1250, 390),
                (800, 400), (650, 410), (700, 420), (1500, 430), (1700, 440), (1100, 450))],
    "node-2": [UsageSample(c, m << 20) for c, m in
               ((5, 40), (6, 40), (5, 41), (7, 41), (5, 41), (6, 42))],
    "node-3": [UsageSample(c, m << 20) for c, m in
               ((300, 900), (320, 1200), (250, 1800), (280, 2600), (300, 3300), (310, 3600))],
}


def app(initial: str) -> DashboardApp:
    return DashboardApp(CannedClient(), clock=lambda: NOW, age_tick=0, initial=initial,
                        server="https://127.0.0.1:7443")


async def settle(pilot: Pilot[Any], ready: Callable[[], bool] | None = None) -> None:
    """Wait until the informers listed, the changes were delivered and (optionally)
    ``ready()`` holds; then seed the usage history and re-render."""
    dashboard = pilot.app
    assert isinstance(dashboard, DashboardApp)
    for _ in range(200):
        if dashboard.model.wait_synced(0) and dashboard.model.deliveries and \
                (ready is None or ready()):
            break
        await pilot.pause(0.02)
    else:
        raise AssertionError("the canned cluster never settled")
    for node, samples in USAGE.items():
        dashboard.model.seed_usage(node, samples)
    await pilot.pause(0.2)
    dashboard.active_view.render_view()
    await pilot.pause()


def test_nodes_view(snap_compare: Any) -> None:
    assert snap_compare(app("nodes"), terminal_size=SIZE, run_before=settle)


def test_pods_view(snap_compare: Any) -> None:
    assert snap_compare(app("pods"), terminal_size=SIZE, run_before=settle)


def test_pods_view_filtered_and_sorted(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("S")  # sort by status
        await pilot.press("slash", *"web", "enter")

    assert snap_compare(app("pods"), terminal_size=SIZE, run_before=before)


def test_queue_view(snap_compare: Any) -> None:
    dashboard = app("queue")

    def fetched() -> bool:
        view = dashboard.view("queue")
        return isinstance(view, QueueView) and view.snapshot is not None

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot, fetched)

    assert snap_compare(dashboard, terminal_size=SIZE, run_before=before)


def test_scores_view_scheduled_pod(snap_compare: Any) -> None:
    dashboard = app("scores")

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        view = dashboard.view("scores")
        assert isinstance(view, ScoresView)
        view.select_pod("default/web-7d9c5b-abcde")
        await settle(pilot, lambda: bool(view.records))

    assert snap_compare(dashboard, terminal_size=SIZE, run_before=before)


def test_scores_view_unschedulable_pod(snap_compare: Any) -> None:
    dashboard = app("scores")

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        view = dashboard.view("scores")
        assert isinstance(view, ScoresView)
        view.select_pod("default/big")
        await settle(pilot, lambda: bool(view.records))

    assert snap_compare(dashboard, terminal_size=SIZE, run_before=before)


def test_workloads_view(snap_compare: Any) -> None:
    assert snap_compare(app("workloads"), terminal_size=SIZE, run_before=settle)


def test_events_view(snap_compare: Any) -> None:
    assert snap_compare(app("events"), terminal_size=SIZE, run_before=settle)


def test_services_view(snap_compare: Any) -> None:
    """The web Service selected: 2/3 endpoints ready, the terminating pod last."""
    dashboard = app("services")

    async def before(pilot: Pilot[Any]) -> None:
        view = dashboard.view("services")
        assert isinstance(view, ServicesView)
        await settle(pilot, lambda: len(view.upper.keys) == len(SERVICES))
        assert view.upper.select_key("default/web")
        await settle(pilot, lambda: len(view.lower.keys) == 3)

    assert snap_compare(dashboard, terminal_size=SIZE, run_before=before)


def test_config_view(snap_compare: Any) -> None:
    """The db-credentials Secret selected: used by two pods, its values hidden."""
    dashboard = app("config")

    async def before(pilot: Pilot[Any]) -> None:
        view = dashboard.view("config")
        assert isinstance(view, ConfigView)
        await settle(pilot, lambda: len(view.upper.keys) == len(CONFIGMAPS) + len(SECRETS))
        assert view.upper.select_key("secrets/default/db-credentials")
        await settle(pilot, lambda: len(view.lower.keys) == 2)

    assert snap_compare(dashboard, terminal_size=SIZE, run_before=before)


def test_help_screen(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("question_mark")

    assert snap_compare(app("pods"), terminal_size=SIZE, run_before=before)


def test_canned_cluster_is_what_the_snapshots_show() -> None:
    """Guards the snapshots' meaning: the canned pods print kubectl's statuses."""
    dashboard = app("pods")

    async def main() -> None:
        async with dashboard.run_test(size=SIZE) as pilot:
            await settle(pilot)
            view = dashboard.view("pods")
            statuses = dict(zip(view.table.plain_column("NAME"),  # type: ignore[attr-defined]
                                view.table.plain_column("STATUS"), strict=True))
            assert statuses == {
                "api-5f6b8c-klmno": "CrashLoopBackOff", "big": "Pending",
                "countdown": "Completed", "init-demo": "Init:1/2",
                "old-web-1a2b3c": "Terminating", "picky": "Pending",
                "web-7d9c5b-abcde": "Running", "web-7d9c5b-fghij": "Running"}

    asyncio.run(main())


pytestmark = pytest.mark.timeout(120)


def _screen_snapshot(key: str, ready: Callable[[Any], bool]) -> Callable[[Pilot[Any]], Any]:
    """Select the running web pod, press ``key`` and wait until ``ready(screen)``."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        dashboard = pilot.app
        assert isinstance(dashboard, DashboardApp)
        dashboard.view("pods").table.select_key(  # type: ignore[attr-defined]
            "default/web-7d9c5b-abcde")
        await pilot.press(key)
        for _ in range(200):
            if ready(dashboard.screen):
                break
            await pilot.pause(0.02)
        else:
            raise AssertionError(f"the screen opened by {key!r} never showed its content")
        await pilot.pause(0.1)

    return before


def test_describe_screen(snap_compare: Any) -> None:
    ready = _screen_snapshot("d", lambda s: isinstance(s, DescribeScreen) and "Name:" in s.text)
    assert snap_compare(app("pods"), terminal_size=SIZE, run_before=ready)


def test_yaml_screen(snap_compare: Any) -> None:
    ready = _screen_snapshot("y", lambda s: isinstance(s, DescribeScreen)
                             and "kind: Pod" in s.text)
    assert snap_compare(app("pods"), terminal_size=SIZE, run_before=ready)


def test_logs_screen(snap_compare: Any) -> None:
    ready = _screen_snapshot("l", lambda s: isinstance(s, LogsScreen) and s.lines
                             and s.thread is not None and not s.thread.is_alive())
    assert snap_compare(app("pods"), terminal_size=SIZE, run_before=ready)
