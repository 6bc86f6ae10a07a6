"""Pilot tests: the dashboard driven by keys against a real control plane on
hollow (fake-runtime) nodes, over HTTP, asserting on what the widgets show
after real API changes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from textual.command import CommandPalette
from textual.pilot import Pilot

from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load
from minikube_py.controlplane import ControlPlane, Options
from tests.waiting import until, wait_for
from tui.app import VIEWS, DashboardApp
from tui.help import HelpScreen
from tui.screens import (
    ApplyDialog,
    ConfirmDialog,
    DescribeScreen,
    LogsScreen,
    ScaleDialog,
)
from tui.views.nodes import NodesView
from tui.views.pods import PodsView
from tui.views.queue import QueueView
from tui.views.scores import ScoresView
from tui.views.workloads import WorkloadsView

from .cluster import client, deployment, plane, pod, run_app, type_filter

__all__ = ["client", "plane"]  # fixtures used by name

pytestmark = pytest.mark.timeout(120)


def pods_view(app: DashboardApp) -> PodsView:
    view = app.view("pods")
    assert isinstance(view, PodsView)
    return view


def running(app: DashboardApp, prefix: str, count: int) -> bool:
    rows = [r for r in pods_view(app).table.plain_rows() if r[1].startswith(prefix)]
    return len(rows) == count and all(r[3] == "Running" and r[2] == "1/1" for r in rows)


# ------------------------------------------------------------------ pods


def test_deployment_pods_appear_running(client: HTTPClient) -> None:
    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        assert app.active_view.id == "pods"
        client.create(deployment("web", 3))
        await until(pilot, lambda: running(app, "web-", 3), "3 web pods Running")
        rows = pods_view(app).table.plain_rows()
        assert {r[0] for r in rows} == {"default"}
        assert all(r[5].startswith("node-") for r in rows)
        assert all(r[4] == "0" for r in rows)  # RESTARTS
        bar = str(app.query_one("#cluster-bar").render())
        assert "3 Running" in bar

    run_app(client, scenario)


def test_filter_by_text_and_by_label(client: HTTPClient) -> None:
    client.create(deployment("web", 2))
    client.create(deployment("api", 2))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        view = pods_view(app)
        await until(pilot, lambda: running(app, "web-", 2) and running(app, "api-", 2),
                    "4 pods Running")
        await type_filter(pilot, "api")
        await until(pilot, lambda: len(view.table.keys) == 2, "the text filter")
        assert all("api-" in k for k in view.table.keys)
        await pilot.press("enter")
        assert view.filter.text == "api"
        await type_filter(pilot, "-l app=web")
        await pilot.press("enter")
        await until(pilot, lambda: len(view.table.keys) == 2 and
                    all("web-" in k for k in view.table.keys), "the label filter")
        # A malformed selector is a notification, and the filter stays as it was.
        await type_filter(pilot, "-l app in (")
        await pilot.press("enter")
        assert any(sev == "error" and "label filter" in msg for sev, msg in app.notices)
        await pilot.press("escape")
        await until(pilot, lambda: len(view.table.keys) == 4, "the filter to clear")
        assert not view.filter.active

    run_app(client, scenario)


def test_sort_by_name_node_and_reverse(client: HTTPClient) -> None:
    for name, node in (("b", "node-2"), ("a", "node-3"), ("c", "node-1")):
        client.create(pod(name, node_selector={"kubernetes.io/hostname": node}))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        view = pods_view(app)
        await until(pilot, lambda: all(r[3] == "Running" for r in view.table.plain_rows())
                    and len(view.table.keys) == 3, "3 pods Running")
        assert view.table.plain_column("NAME") == ["a", "b", "c"]
        await pilot.press("N")  # same column again: reversed
        assert view.table.plain_column("NAME") == ["c", "b", "a"]
        await pilot.press("O")
        assert view.table.plain_column("NODE") == ["node-1", "node-2", "node-3"]
        assert view.table.plain_column("NAME") == ["c", "b", "a"]
        await pilot.press("O")
        assert view.table.plain_column("NODE") == ["node-3", "node-2", "node-1"]

    run_app(client, scenario)


# ------------------------------------------------------------------ views and keys


def test_number_keys_switch_views_and_help_and_quit(client: HTTPClient) -> None:
    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        for number, (vid, _, _) in enumerate(VIEWS, start=1):
            await pilot.press(str(number))
            assert app.active_view.id == vid
            assert app.active_view.visible_now
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app._exit  # q quits

    run_app(client, scenario)


def test_command_palette_switches_views(client: HTTPClient) -> None:
    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("colon")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"nodes")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: app.active_view.id == "nodes", "the nodes view")

    run_app(client, scenario)


# ------------------------------------------------------------------ nodes


def test_nodes_show_requests_usage_taints_and_cordon(client: HTTPClient) -> None:
    client.create(pod("x", cpu="200m", node_selector={"kubernetes.io/hostname": "node-1"}))
    client.patch("nodes", None, "node-2", "merge",
                 {"spec": {"taints": [{"key": "dedicated", "value": "gpu",
                                       "effect": "NoSchedule"}]}})

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("2")
        view = app.view("nodes")
        assert isinstance(view, NodesView)

        def row(name: str) -> list[str]:
            return next(r for r in view.table.plain_rows() if r[0] == name)

        await until(pilot, lambda: len(view.table.keys) == 3, "3 nodes")
        await until(pilot, lambda: not row("node-1")[2].endswith(" 0%"), "node-1's cpu bar")
        assert row("node-3")[2].strip().endswith("0%")  # nothing requested there
        assert row("node-2")[7] == "dedicated=gpu:NoSchedule"
        assert row("node-1")[7] == "<none>"
        # Usage arrives with heartbeats (every 0.5 s here) as a sparkline + value.
        await until(pilot, lambda: row("node-1")[5].strip().endswith("m"), "cpu usage")
        detail = str(app.query_one("#node-detail").render())
        assert "Conditions:" in detail and "Ready=True" in detail
        # Cordon / uncordon the node under the cursor.
        view.table.select_key("node-3")
        await pilot.press("c")
        await until(pilot, lambda: row("node-3")[1] == "Ready,SchedulingDisabled", "cordon")
        assert client.get("nodes", None, "node-3")["spec"]["unschedulable"] is True
        await pilot.press("C")
        await until(pilot, lambda: row("node-3")[1] == "Ready", "uncordon")
        assert any("node/node-3 uncordoned" in msg for _, msg in app.notices)

    run_app(client, scenario)


def test_drain_asks_then_empties_the_node(client: HTTPClient) -> None:
    client.create(deployment("web", 3))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await until(pilot, lambda: running(app, "web-", 3), "3 pods Running")
        await pilot.press("2")
        view = app.view("nodes")
        assert isinstance(view, NodesView)
        view.table.select_key("node-1")
        await pilot.press("D")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")  # no: nothing happens
        await pilot.pause(0.2)
        assert not client.get("nodes", None, "node-1")["spec"].get("unschedulable")
        await pilot.press("D")
        await pilot.press("y")
        await until(pilot, lambda: any("node/node-1 drained" in m for _, m in app.notices),
                    "the drain", timeout=30)
        pods = client.list("pods", namespace="default").items
        assert all(p["spec"].get("nodeName") != "node-1" for p in pods
                   if not p["metadata"].get("deletionTimestamp"))

    run_app(client, scenario)


# ------------------------------------------------------------------ scheduling


def test_scores_show_every_nodes_filter_verdict_for_a_pending_pod(client: HTTPClient) -> None:
    client.create(pod("huge", cpu="64"))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        view = pods_view(app)
        await until(pilot, lambda: "default/huge" in view.table.keys, "the pod")
        view.table.select_key("default/huge")
        await pilot.press("enter")
        assert app.active_view.id == "scores"
        scores = app.view("scores")
        assert isinstance(scores, ScoresView)
        await until(pilot, lambda: len(scores.rejected_table.keys) == 3, "3 rejected nodes")
        assert scores.rejected_table.plain_rows() == [
            [n, "NodeResourcesFit", "Insufficient cpu"] for n in ("node-1", "node-2", "node-3")]
        assert scores.feasible_table.keys == []
        header = str(app.query_one("#scores-header").render())
        assert "Unschedulable" in header
        message = str(app.query_one("#scores-message").render())
        assert "0/3 nodes are available: 3 Insufficient cpu." in message

    run_app(client, scenario)


def test_scores_follow_a_pod_live_until_it_is_scheduled(client: HTTPClient) -> None:
    client.create(pod("picky", node_selector={"disk": "ssd"}))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("4")
        scores = app.view("scores")
        assert isinstance(scores, ScoresView)
        await until(pilot, lambda: "default/picky" in scores.pods_table.keys, "the pod")
        scores.select_pod("default/picky")
        await until(pilot, lambda: len(scores.rejected_table.keys) == 3, "3 rejected nodes")
        assert {r[1] for r in scores.rejected_table.plain_rows()} == {"NodeAffinity"}
        # Give node-2 the label: the scheduler retries, the view follows by itself.
        client.patch("nodes", None, "node-2", "merge", {"metadata": {"labels": {"disk": "ssd"}}})
        await until(pilot, lambda: scores.feasible_table.keys == ["node-2"], "the new decision")
        # One feasible node: chosen without scoring (as kube-scheduler does).
        assert scores.feasible_table.plain_rows() == [["> node-2", "-"]]
        assert "only feasible node" in str(app.query_one("#feasible-title").render())
        header = str(app.query_one("#scores-header").render())
        assert "Scheduled -> node-2" in header
        assert scores.records and len(scores.records) >= 2
        # Past decisions: [ goes back to the first (failed) attempt.
        scores.focus_main()
        await pilot.press("left_square_bracket")
        for _ in range(len(scores.records)):
            await pilot.press("left_square_bracket")
        assert "attempt 1 of" in str(app.query_one("#scores-header").render())
        assert len(scores.rejected_table.keys) == 3
        await pilot.press("right_square_bracket")
        assert "attempt 2 of" in str(app.query_one("#scores-header").render())

    run_app(client, scenario)


def test_scores_of_a_scheduled_pod_show_each_plugins_weighted_score(
        client: HTTPClient) -> None:
    client.create(pod("placed"))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await until(pilot, lambda: running(app, "placed", 1), "the pod Running")
        pods_view(app).table.select_key("default/placed")
        await pilot.press("enter")
        scores = app.view("scores")
        assert isinstance(scores, ScoresView)
        await until(pilot, lambda: len(scores.feasible_table.keys) == 3, "3 feasible nodes")
        node = client.get("pods", "default", "placed")["spec"]["nodeName"]
        rows = scores.feasible_table.plain_rows()
        assert rows[0][0] == f"> {node}"  # the chosen node first, marked
        assert all(r[0].startswith("  ") for r in rows[1:])
        labels = [str(c.label) for c in scores.feasible_table.columns.values()]
        assert labels[:2] == ["NODE", "TOTAL"]
        assert "Fit x1" in labels and "Taints x3" in labels
        record = scores.record()
        assert record is not None
        for row in rows:
            entry = next(n for n in record["nodes"] if n["name"] == row[0][2:])
            weighted = [str(s["weighted"]) for s in entry["scores"].values()]
            assert row[1] == str(entry["total"]) == str(sum(int(w) for w in weighted))
            assert sorted(row[2:]) == sorted(weighted)
        assert scores.rejected_table.keys == []
        # The breakdown of the node under the cursor: raw, normalized, weight.
        message = str(app.query_one("#scores-message").render())
        assert f"{node}: " in message and "(raw " in message

    run_app(client, scenario)


def test_scores_answer_after_the_control_plane_restarts(tmp_path: Path) -> None:
    """The decision is kept on disk: a restarted control plane (same state dir)
    still shows why the pod is where it is, instead of "no decision"."""
    options = Options(state_dir=tmp_path / "state", runtime="fake", nodes=3, port=0,
                      heartbeat_interval=0.5)
    first = ControlPlane(options)
    first.start()
    try:
        client = HTTPClient(load(first.kubeconfig_path))
        client.create(pod("kept"))
        wait_for(lambda: client.get("pods", "default", "kept")["spec"].get("nodeName"),
                 "the pod scheduled")
        node = client.get("pods", "default", "kept")["spec"]["nodeName"]
    finally:
        first.stop()
    second = ControlPlane(options)
    second.start()
    try:
        async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
            await until(pilot, lambda: running(app, "kept", 1), "the pod Running")
            pods_view(app).table.select_key("default/kept")
            await pilot.press("enter")
            scores = app.view("scores")
            assert isinstance(scores, ScoresView)
            await until(pilot, lambda: scores.record() is not None, "the kept decision")
            header = str(app.query_one("#scores-header").render())
            assert f"-> {node}" in header and "no decision" not in header
            assert scores.feasible_table.plain_rows()[0][0] == f"> {node}"

        run_app(HTTPClient(load(second.kubeconfig_path)), scenario)
    finally:
        second.stop()


def test_queue_shows_unschedulable_pods_with_attempts_and_failure(client: HTTPClient) -> None:
    client.create(pod("huge", cpu="64"))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("3")
        view = app.view("queue")
        assert isinstance(view, QueueView)

        def rows() -> list[list[str]]:
            return [r for r in view.table.plain_rows() if r[1] == "default/huge"]

        await until(pilot, lambda: rows() and rows()[0][0] == "unschedulable",
                    "the pod parked as unschedulable")
        _, _, priority, attempts, retry, failure = rows()[0]
        assert int(attempts) >= 1 and priority == "0" and retry == "-"
        assert "Insufficient cpu" in failure
        # Deleting it empties the queue, seen through the pod watch.
        client.delete("pods", "default", "huge", grace_period_seconds=0)
        await until(pilot, lambda: not rows(), "the queue to empty")
        assert "every pod is placed" in str(app.query_one("#queue-summary").render())
        # enter on a queued pod opens its decision
        client.create(pod("huge2", cpu="64"))
        await until(pilot, lambda: view.table.keys, "the new pod in the queue")
        await pilot.press("enter")
        assert app.active_view.id == "scores"

    run_app(client, scenario)


# ------------------------------------------------------------------ workloads


def test_workloads_scale_restart_and_undo(client: HTTPClient) -> None:
    client.create(deployment("web", 2))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("5")
        view = app.view("workloads")
        assert isinstance(view, WorkloadsView)

        def dep() -> list[str]:
            rows = view.deployments.plain_rows()
            return rows[0] if rows else []

        await until(pilot, lambda: dep() and dep()[2] == "2/2", "web 2/2 ready")
        assert "NewReplicaSetAvailable" in dep()[5]
        await pilot.press("s")
        assert isinstance(app.screen, ScaleDialog)
        box = app.screen.query_one("#replicas")
        box.value = ""  # type: ignore[attr-defined]
        await pilot.press("4", "enter")
        await until(pilot, lambda: dep()[2] == "4/4", "web scaled to 4")
        await pilot.press("r")
        await until(pilot, lambda: [r[2] for r in view.replicasets.plain_rows()] == ["2", "1"],
                    "revision 2 next to revision 1")
        await until(pilot, lambda: dep()[2] == "4/4" and dep()[3] == "4", "the restart done",
                    timeout=30)
        await pilot.press("u")
        await until(pilot, lambda: view.replicasets.plain_rows()[0][2] == "3", "the undo")
        assert any("rolled back" in msg for _, msg in app.notices)

    run_app(client, scenario)


# ------------------------------------------------------------------ events


def test_events_stream_newest_first_and_filter(client: HTTPClient) -> None:
    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("6")
        view = app.view("events")
        client.create(pod("huge", cpu="64"))
        client.create(pod("ok"))

        def rows() -> list[list[str]]:
            return view.table.plain_rows()  # type: ignore[attr-defined, no-any-return]

        await until(pilot, lambda: any(r[3] == "Started" for r in rows()), "Started event")
        assert any(r[3] == "FailedScheduling" and r[2] == "Warning" and r[4] == "pod/huge"
                   for r in rows())
        await type_filter(pilot, "FailedScheduling")
        await pilot.press("enter")
        assert rows() and all(r[3] == "FailedScheduling" for r in rows())

    run_app(client, scenario)


# ------------------------------------------------------------------ actions


def test_delete_asks_first(client: HTTPClient) -> None:
    client.create(pod("victim"))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        view = pods_view(app)
        await until(pilot, lambda: running(app, "victim", 1), "the pod Running")
        view.table.select_key("default/victim")
        await pilot.press("ctrl+d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause(0.2)
        assert client.get("pods", "default", "victim")
        await pilot.press("ctrl+d")
        await pilot.press("y")
        await until(pilot, lambda: "default/victim" not in view.table.keys, "the pod to go")
        assert any('pod "victim" deleted' in msg for _, msg in app.notices)

    run_app(client, scenario)


def test_describe_yaml_and_logs_open_their_screens(client: HTTPClient) -> None:
    client.create(pod("hello"))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        view = pods_view(app)
        await until(pilot, lambda: running(app, "hello", 1), "the pod Running")
        view.table.select_key("default/hello")
        await pilot.press("d")
        screen = app.screen
        assert isinstance(screen, DescribeScreen) and not screen.yaml
        await until(pilot, lambda: "Name:" in screen.text and "hello" in screen.text,
                    "the description")
        await pilot.press("escape")
        await pilot.press("y")
        screen = app.screen
        assert isinstance(screen, DescribeScreen) and screen.yaml
        await until(pilot, lambda: "kind: Pod" in screen.text, "the YAML")
        await pilot.press("escape")
        await pilot.press("l")
        logs = app.screen
        assert isinstance(logs, LogsScreen)
        assert (logs.namespace, logs.pod) == ("default", "hello")
        await until(pilot, lambda: logs.lines, "log lines")
        await pilot.press("escape")
        assert app.screen.__class__.__name__ != "LogsScreen"

    run_app(client, scenario)


def test_changes_while_a_screen_is_open_neither_crash_nor_reach_the_views(
        client: HTTPClient) -> None:
    client.create(pod("one"))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        view = pods_view(app)
        await until(pilot, lambda: running(app, "one", 1), "the pod Running")
        view.table.select_key("default/one")
        await pilot.press("d")
        assert isinstance(app.screen, DescribeScreen)
        client.create(pod("two"))  # changes keep arriving while the screen is open
        await until(pilot, lambda: "default/two" in view.table.keys, "the pod behind")
        await pilot.press("2", "slash", "ctrl+d")  # view keys do nothing here
        assert app.active_view.id == "pods"
        assert isinstance(app.screen, DescribeScreen)
        assert not app.query_one("#filter").display
        await pilot.press("escape")
        assert not isinstance(app.screen, DescribeScreen | ConfirmDialog)
        assert "pods 2" in str(app.query_one("#cluster-bar").render())

    run_app(client, scenario)


def test_apply_from_the_file_picker(client: HTTPClient, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = tmp_path / "web.yaml"
    manifest.write_text(yaml.safe_dump(deployment("applied", 2)))
    monkeypatch.chdir(tmp_path)

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await pilot.press("a")
        dialog = app.screen
        assert isinstance(dialog, ApplyDialog)
        assert dialog.start_dir == tmp_path
        dialog.dismiss([manifest])  # what choosing the file in the tree answers
        await until(pilot, lambda: running(app, "applied-", 2), "the applied pods Running")
        assert any("deployment.apps/applied created" in msg for _, msg in app.notices)

    run_app(client, scenario)


def test_failures_are_notifications_not_crashes(client: HTTPClient) -> None:
    client.create(pod("lonely"))
    client.create(deployment("fresh", 1))

    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        view = pods_view(app)
        await until(pilot, lambda: running(app, "lonely", 1), "the pod Running")
        view.table.select_key("default/lonely")
        app.action_scale()  # as the palette's "scale" does: it needs a workload
        assert ("warning", "scale works on deployments and replicasets, not pods") \
            in app.notices
        await pilot.press("c")  # cordon is a nodes key: nothing happens on pods
        assert not client.get("nodes", None, "node-1")["spec"].get("unschedulable")
        # The pod goes away behind the dashboard's back while it asks whether to
        # delete it (the question is about the pod selected when it was asked, so
        # no watch event racing the key presses can change what "y" deletes).
        await pilot.press("ctrl+d")
        client.delete("pods", "default", "lonely", grace_period_seconds=0)
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await until(pilot, lambda: any(sev == "error" and "NotFound" in msg
                                       for sev, msg in app.notices), "the error notice")
        # rollout undo of a deployment without history: a ValueError, shown.
        await pilot.press("5")
        workloads = app.view("workloads")
        assert isinstance(workloads, WorkloadsView)
        await until(pilot, lambda: workloads.deployments.keys == ["default/fresh"], "fresh")
        await pilot.press("u")
        await until(pilot, lambda: any(sev == "error" and "rollout undo" in msg
                                       for sev, msg in app.notices), "the undo error")
        assert app.is_running

    run_app(client, scenario)


def test_bursts_are_coalesced_into_few_repaints(client: HTTPClient) -> None:
    async def scenario(pilot: Pilot[None], app: DashboardApp) -> None:
        await until(pilot, lambda: app.model.wait_synced(0), "the first list")
        await pilot.pause(0.5)
        before = app.renders
        for i in range(100):
            client.create(pod(f"burst-{i:03d}", cpu="1m"))
        await until(pilot, lambda: len(pods_view(app).table.keys) == 100, "100 pods")
        await until(pilot, lambda: sum(r[3] == "Running" for r in
                                       pods_view(app).table.plain_rows()) == 100,
                    "100 pods Running", timeout=60)
        # Hundreds of watch events (create, bind, status x several), few repaints.
        events = app.model.generation("pods")
        assert events >= 300
        assert app.renders - before < events / 5

    run_app(client, scenario)
