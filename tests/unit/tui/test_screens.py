"""Pilot tests of the screens and dialogs, each pushed by a tiny host App.

Logs and describe run against a real in-process control plane on hollow
nodes: the fake runtime writes ``<time> started <image> as <ns>/<pod>/<c>``,
``... running <argv>`` and ``... ready`` when a container starts (an init
container ends with ``done; exiting with code 0``), and ``received SIGTERM;
exiting with code 143`` when it is stopped. Tests are plain functions running
their scenario with ``asyncio.run``, so no async pytest plugin is needed.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from minikube_py.api.errors import NotFound
from minikube_py.client import kubeconfig
from minikube_py.client.http import HTTPClient
from minikube_py.controlplane import ControlPlane
from tests.planes import hollow_plane
from tests.waiting import until, wait_for
from tui.screens import (
    ApplyDialog,
    ConfirmDialog,
    DescribeScreen,
    LogsScreen,
    ManifestTree,
    ScaleDialog,
    default_container,
    parse_replicas,
    pod_containers,
)

SIZE = (100, 30)


# ------------------------------------------------------------------ harness


class Host(App[None]):
    """Pushes one screen at start and records what it is dismissed with."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.under_test = screen
        self.results: list[Any] = []

    def on_mount(self) -> None:
        self.push_screen(self.under_test, callback=self.results.append)


Scenario = Callable[[Pilot[None], Any], Coroutine[Any, Any, None]]


def run(screen: Screen[Any], scenario: Scenario) -> Host:
    """Run ``scenario(pilot, screen)`` with ``screen`` pushed; returns the host."""
    host = Host(screen)

    async def main() -> None:
        async with host.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await scenario(pilot, screen)

    asyncio.run(main())
    return host


# ------------------------------------------------------------------ cluster


@pytest.fixture(scope="module")
def plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    with hollow_plane(tmp_path_factory.mktemp("plane")) as cp:
        yield cp


@pytest.fixture(scope="module")
def client(plane: ControlPlane) -> HTTPClient:
    return HTTPClient(kubeconfig.load(plane.kubeconfig_path))


def make_pod(client: HTTPClient, name: str, annotations: dict[str, str] | None = None
             ) -> dict[str, Any]:
    # Server-side apply, so the pod has managedFields (which YAML views leave out).
    client.patch("pods", "default", name, "apply", {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}},
        "spec": {"initContainers": [{"name": "init", "image": "busybox:1.36"}],
                 "containers": [{"name": "a", "image": "busybox:1.36"},
                                {"name": "b", "image": "busybox:1.36"}]}},
        field_manager="tests")
    return wait_for(lambda: (lambda p: p if (p.get("status") or {}).get("phase") == "Running"
                             else None)(client.get("pods", "default", name)), f"{name} running")


@pytest.fixture(scope="module")
def pod(client: HTTPClient) -> str:
    make_pod(client, "p1")
    return "p1"


def has_line(screen: LogsScreen, text: str) -> bool:
    return any(text in line for line in screen.lines)


# ------------------------------------------------------------------ logs: pure helpers


@pytest.mark.parametrize(("pod_obj", "names", "default"), [
    ({"spec": {"containers": [{"name": "a"}, {"name": "b"}],
               "initContainers": [{"name": "i"}]}}, ["a", "b", "i"], "a"),
    ({"metadata": {"annotations": {"kubectl.kubernetes.io/default-container": "b"}},
      "spec": {"containers": [{"name": "a"}, {"name": "b"}]}}, ["a", "b"], "b"),
    ({"metadata": {"annotations": {"kubectl.kubernetes.io/default-container": "zz"}},
      "spec": {"containers": [{"name": "a"}]}}, ["a"], "a"),
    ({"spec": {"initContainers": [{"name": "i"}]}}, ["i"], "i"),
    ({"spec": {}}, [], None),
], ids=["first-app", "annotation", "annotation-unknown", "only-init", "none"])
def test_containers_and_the_default_one(pod_obj: dict[str, Any], names: list[str],
                                        default: str | None):
    assert pod_containers(pod_obj) == names
    assert default_container(pod_obj) == default


# ------------------------------------------------------------------ logs: real cluster


def test_logs_show_the_default_container(client: HTTPClient, pod: str):
    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: screen.ended, "the stream to end")
        assert screen.containers == ["a", "b", "init"]
        assert screen.container == "a"
        assert has_line(screen, "started busybox:1.36 as default/p1/a")
        assert has_line(screen, "ready")
        assert not has_line(screen, "default/p1/b")
        assert screen.error is None
        title = str(screen.query_one("#logs-title", Static).render())
        assert "Logs default/p1" in title
        assert "container a" in title

    run(LogsScreen(client, "default", pod, follow=False), scenario)


def test_c_cycles_through_app_and_init_containers(client: HTTPClient, pod: str):
    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: has_line(screen, "default/p1/a"), "a's logs")
        for container, marker in [("b", "ready"), ("init", "done; exiting with code 0"),
                                  ("a", "ready")]:
            await pilot.press("c")
            await until(pilot, lambda c=container: has_line(screen, f"default/p1/{c}"),
                        f"{container}'s logs")
            assert screen.container == container
            await until(pilot, lambda m=marker: has_line(screen, m), marker)
            # Only this container's lines: the log was cleared on the switch.
            others = {"a", "b", "init"} - {container}
            assert not any(has_line(screen, f"default/p1/{o}") for o in others)

    run(LogsScreen(client, "default", pod, follow=False), scenario)


def test_the_default_container_annotation_is_honoured(client: HTTPClient):
    make_pod(client, "annotated", {"kubectl.kubernetes.io/default-container": "b"})

    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: has_line(screen, "default/annotated/b"), "b's logs")
        assert screen.container == "b"

    run(LogsScreen(client, "default", "annotated", follow=False), scenario)


def test_a_missing_previous_instance_is_shown_not_raised(client: HTTPClient, pod: str):
    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: screen.ended, "the logs")
        await pilot.press("p")
        await until(pilot, lambda: screen.error, "the error")
        assert screen.error == ('Error from server (BadRequest): previous terminated '
                                'container "a" in pod "p1" not found')
        assert screen.previous
        assert screen.lines == []
        shown = str(screen.query_one("#logs-error", Static).render())
        assert 'previous terminated container "a"' in shown
        await pilot.press("p")
        await until(pilot, lambda: has_line(screen, "default/p1/a"), "the current logs")
        assert screen.error is None

    run(LogsScreen(client, "default", pod, follow=False), scenario)


def test_a_missing_pod_is_shown_and_keys_still_work(client: HTTPClient):
    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: screen.error, "the error")
        assert screen.error == 'Error from server (NotFound): pods "ghost" not found'
        await pilot.press("c", "f", "p")  # nothing to cycle; restarts fail the same way
        await until(pilot, lambda: screen.error and screen.previous, "the error again")
        await pilot.press("escape")

    host = run(LogsScreen(client, "default", "ghost"), scenario)
    assert host.results == [None]


def test_follow_streams_what_the_container_writes_next(client: HTTPClient):
    make_pod(client, "followed")

    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: has_line(screen, "ready"), "the first lines")
        assert not screen.ended  # still following
        # Stopping the pod makes its container log once more, then the stream ends.
        await asyncio.to_thread(client.delete, "pods", "default", "followed")
        await until(pilot, lambda: has_line(screen, "received SIGTERM; exiting with code 143"),
                    "the line written after the stream began")
        await until(pilot, lambda: screen.ended, "the stream to end")
        assert "stream ended" in str(screen.query_one("#logs-title", Static).render())

    run(LogsScreen(client, "default", "followed", follow=True), scenario)


def test_superseded_and_closed_streams_are_cut_off_at_once(client: HTTPClient, pod: str):
    threads: list[threading.Thread] = []

    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: has_line(screen, "ready"), "the first lines")
        # Following a container that writes nothing more: the reader blocks.
        first = screen.thread
        assert first is not None and first.is_alive()
        threads.append(first)
        await pilot.press("c")  # another container, also followed
        await until(pilot, lambda: has_line(screen, "default/p1/b"), "b's logs")
        second = screen.thread
        assert second is not None and second is not first
        threads.append(second)
        await until(pilot, lambda: not first.is_alive(), "the first reader to end", 3)
        assert second.is_alive()
        await pilot.press("escape")

    host = run(LogsScreen(client, "default", pod, follow=True), scenario)
    assert host.results == [None]
    threads[1].join(3)
    assert not threads[1].is_alive()


def test_quitting_the_app_while_following_ends_the_reader(client: HTTPClient, pod: str):
    readers: list[threading.Thread] = []

    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: has_line(screen, "ready"), "the first lines")
        assert screen.thread is not None and screen.thread.is_alive()
        readers.append(screen.thread)
        # Leaving the scenario quits the app with the screen still showing.

    run(LogsScreen(client, "default", pod, follow=True), scenario)
    readers[0].join(3)
    assert not readers[0].is_alive()


# ------------------------------------------------------------------ logs: fake source


class FakeSource:
    """A LogSource with scripted output, for what the fake runtime cannot produce."""

    def __init__(self, chunks: list[bytes] | None = None,
                 error: BaseException | None = None) -> None:
        self.chunks = chunks or []
        self.error = error
        self.calls: list[dict[str, Any]] = []

    def get(self, resource: str, namespace: str | None, name: str) -> dict[str, Any]:
        return {"metadata": {"name": name}, "spec": {"containers": [{"name": "main"}]}}

    def logs(self, namespace: str, name: str, **options: Any) -> Iterator[bytes]:
        self.calls.append(options)
        if self.error is not None:
            raise self.error
        yield from self.chunks


def test_only_the_last_max_lines_are_kept_and_split_lines_are_joined():
    text = b"".join(b"line %d\n" % i for i in range(12_000)) + b"no newline at the end"
    # Chunks cut lines anywhere; the screen must join them back.
    chunks = [text[i:i + 1000] for i in range(0, len(text), 1000)]
    source = FakeSource(chunks)

    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: screen.ended, "the stream to end")
        lines = screen.lines
        assert len(lines) == 5000
        assert lines[0] == "line 7001"
        assert lines[-2:] == ["line 11999", "no newline at the end"]

    run(LogsScreen(source, "default", "big", follow=False), scenario)
    # The server is asked for no more than the screen keeps.
    assert source.calls == [{"container": "main", "follow": False, "previous": False,
                             "tail_lines": 5000}]


@pytest.mark.parametrize(("error", "shown"), [
    (ConnectionRefusedError("connection refused"), "connection refused"),
    (NotFound('pods "big" not found'), 'Error from server (NotFound): pods "big" not found'),
    (RuntimeError(), "RuntimeError"),
    # kubectl's messages hold brackets: shown as text, never read as markup.
    (ValueError("choose one of: [a b] or [bold]x[/bold] [/]"),
     "choose one of: [a b] or [bold]x[/bold] [/]"),
])
def test_any_stream_failure_is_shown(error: BaseException, shown: str):
    async def scenario(pilot: Pilot[None], screen: LogsScreen) -> None:
        await until(pilot, lambda: screen.error, "the error")
        assert screen.error == shown
        assert str(screen.query_one("#logs-error", Static).render()) == shown

    run(LogsScreen(FakeSource(error=error), "default", "big"), scenario)


def test_logs_screen_rejects_a_useless_buffer():
    with pytest.raises(ValueError, match="max_lines must be at least 1"):
        LogsScreen(FakeSource(), "default", "p", max_lines=0)


# ------------------------------------------------------------------ describe


def test_describe_shows_kubectls_text_and_y_toggles_yaml(client: HTTPClient, pod: str):
    async def scenario(pilot: Pilot[None], screen: DescribeScreen) -> None:
        await until(pilot, lambda: screen.texts, "the object")
        text = screen.text
        # kubectl's alignment: the widest label is "Service Account:" (pods get one).
        assert text.startswith("Name:             p1\nNamespace:        default\n")
        for section in ("Init Containers:\n  init:", "Containers:\n  a:", "Events:"):
            assert section in text
        assert client.get("pods", "default", pod)["metadata"]["managedFields"]
        await pilot.press("y")
        shown = yaml.safe_load(screen.text)
        assert screen.text.startswith("apiVersion: v1\nkind: Pod\nmetadata:\n")
        assert shown["metadata"]["name"] == "p1"
        assert "managedFields" not in shown["metadata"]
        assert shown["spec"]["containers"][0]["name"] == "a"
        await pilot.press("y")
        assert screen.text == text
        await pilot.press("escape")

    host = run(DescribeScreen(client, "pods", "default", pod), scenario)
    assert host.results == [None]


def test_describe_can_start_with_yaml_of_a_cluster_scoped_object(client: HTTPClient):
    async def scenario(pilot: Pilot[None], screen: DescribeScreen) -> None:
        await until(pilot, lambda: screen.texts, "the node")
        assert screen.text.startswith("apiVersion: v1\nkind: Node\n")
        await pilot.press("y")
        assert screen.text.startswith("Name:               node-1\n")
        assert "Non-terminated Pods:" in screen.text

    # The namespace is ignored for nodes.
    run(DescribeScreen(client, "no", "default", "node-1", yaml=True), scenario)


def test_describe_a_deployment_lists_its_replica_sets(client: HTTPClient):
    client.create({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "namespace": "default"},
                   "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                                "containers": [{"name": "c", "image": "busybox:1.36"}]}}}})
    wait_for(lambda: client.list("replicasets", namespace="default",
                                 label_selector="app=web").items, "the replica set")

    async def scenario(pilot: Pilot[None], screen: DescribeScreen) -> None:
        await until(pilot, lambda: screen.texts, "the deployment")
        assert "NewReplicaSet:   web-" in screen.text

    run(DescribeScreen(client, "deploy", "default", "web"), scenario)


@pytest.mark.parametrize(("resource", "name", "error"), [
    ("pods", "ghost", 'Error from server (NotFound): pods "ghost" not found'),
    ("widgets", "w", "error: the server doesn't have a resource type \"widgets\""),
    ("[bold]", "w", "error: the server doesn't have a resource type \"[bold]\""),
])
def test_describe_shows_failures(client: HTTPClient, resource: str, name: str, error: str):
    async def scenario(pilot: Pilot[None], screen: DescribeScreen) -> None:
        await until(pilot, lambda: screen.error, "the error")
        assert screen.error == error
        assert screen.text == ""
        assert str(screen.query_one("#describe-error", Static).render()) == error
        await pilot.press("y")  # still alive
        assert screen.yaml

    run(DescribeScreen(client, resource, "default", name), scenario)


def test_describe_refresh_reads_the_object_again(client: HTTPClient):
    make_pod(client, "changing")

    async def scenario(pilot: Pilot[None], screen: DescribeScreen) -> None:
        await until(pilot, lambda: screen.texts, "the pod")
        assert "tier=gold" not in screen.text
        await asyncio.to_thread(client.patch, "pods", "default", "changing", "merge",
                                {"metadata": {"labels": {"tier": "gold"}}})
        await pilot.press("r")
        await until(pilot, lambda: "tier=gold" in screen.text, "the new label")

    run(DescribeScreen(client, "pods", "default", "changing"), scenario)


# ------------------------------------------------------------------ ConfirmDialog


@pytest.mark.parametrize(("keys", "answer"), [
    (["y"], True),
    (["n"], False),
    (["escape"], False),
    (["enter"], False),          # No has the focus
    (["tab", "enter"], True),    # Yes
])
def test_confirm_dialog_answers(keys: list[str], answer: bool):
    async def scenario(pilot: Pilot[None], screen: ConfirmDialog) -> None:
        assert str(screen.query_one("#confirm-message").render()) == 'Delete pod "[x]"?'
        await pilot.press(*keys)
        await pilot.pause()

    # Brackets in the message are text, not markup.
    host = run(ConfirmDialog('Delete pod "[x]"?'), scenario)
    assert host.results == [answer]


@pytest.mark.parametrize(("button", "answer"), [("#yes", True), ("#no", False)])
def test_confirm_dialog_buttons(button: str, answer: bool):
    async def scenario(pilot: Pilot[None], screen: ConfirmDialog) -> None:
        await pilot.click(button)
        await pilot.pause()

    assert run(ConfirmDialog("Sure?"), scenario).results == [answer]


# ------------------------------------------------------------------ ScaleDialog


@pytest.mark.parametrize(("text", "expected"), [
    ("3", 3), (" 0 ", 0), ("120", 120),
    ("", "enter a number of replicas"),
    ("  ", "enter a number of replicas"),
    ("abc", '"abc" is not a whole number'),
    ("1.5", '"1.5" is not a whole number'),
    ("1_000", '"1_000" is not a whole number'),
    ("+3", '"+3" is not a whole number'),
    ("-2", "replicas must be greater than or equal to 0, not -2"),
])
def test_parse_replicas(text: str, expected: int | str):
    if isinstance(expected, int):
        assert parse_replicas(text) == expected
    else:
        with pytest.raises(ValueError) as err:
            parse_replicas(text)
        assert str(err.value) == expected


def test_scale_dialog_submits_the_current_count_unchanged():
    async def scenario(pilot: Pilot[None], screen: ScaleDialog) -> None:
        assert screen.query_one("#replicas", Input).value == "3"
        await pilot.press("enter")
        await pilot.pause()

    assert run(ScaleDialog("deployment.apps/web", 3), scenario).results == [3]


@pytest.mark.parametrize(("typed", "error"), [
    ("abc", '"abc" is not a whole number'),
    ("-2", "replicas must be greater than or equal to 0, not -2"),
    ("", "enter a number of replicas"),
])
def test_scale_dialog_rejects_bad_input_inline_and_stays_open(typed: str, error: str):
    async def scenario(pilot: Pilot[None], screen: ScaleDialog) -> None:
        await pilot.press("backspace", *typed, "enter")
        await pilot.pause()
        assert screen.error == error
        assert str(screen.query_one("#scale-error", Static).render()) == error
        assert screen.is_current  # still open
        await pilot.click("#ok")  # the button refuses it too
        await pilot.pause()
        assert screen.is_current
        # A fix is accepted, and the error goes as soon as the text changes.
        await pilot.click("#replicas")
        await pilot.press("end", *["backspace"] * len(typed), "7")
        await pilot.pause()
        assert screen.error is None
        await pilot.press("enter")
        await pilot.pause()

    host = run(ScaleDialog("deployment.apps/web", 3), scenario)
    assert host.results == [7]


@pytest.mark.parametrize("how", ["escape", "#cancel"])
def test_scale_dialog_cancel(how: str):
    async def scenario(pilot: Pilot[None], screen: ScaleDialog) -> None:
        await pilot.press("backspace", "9")
        if how == "escape":
            await pilot.press("escape")
        else:
            await pilot.click(how)
        await pilot.pause()

    assert run(ScaleDialog("web", 3), scenario).results == [None]


# ------------------------------------------------------------------ ApplyDialog


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.yml").write_text("kind: Pod\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".secret.yaml").write_text("kind: Pod\n")
    (tmp_path / "a.yaml").write_text("kind: Pod\n")
    (tmp_path / "b.json").write_text("{}\n")
    (tmp_path / "notes.txt").write_text("not a manifest\n")
    return tmp_path


async def loaded_tree(pilot: Pilot[None], screen: ApplyDialog) -> ManifestTree:
    tree = screen.query_one(ManifestTree)
    await until(pilot, lambda: len(tree.root.children) > 0, "the tree to load")
    return tree


async def move_to(pilot: Pilot[None], tree: ManifestTree, name: str) -> None:
    """Move the cursor to ``name`` with the arrow keys, as a user would."""
    await pilot.press(*["up"] * (tree.last_line + 1))
    for _ in range(tree.last_line + 1):
        node = tree.cursor_node
        if node is not None and node.data is not None and node.data.path.name == name:
            return
        await pilot.press("down")
    raise AssertionError(f"{name} is not in the tree")


def test_apply_dialog_shows_only_directories_and_manifests(manifests: Path):
    async def scenario(pilot: Pilot[None], screen: ApplyDialog) -> None:
        tree = await loaded_tree(pilot, screen)
        names = [str(child.label) for child in tree.root.children]
        assert names == ["sub", "a.yaml", "b.json"]
        await pilot.press("escape")

    assert run(ApplyDialog(manifests), scenario).results == [None]


def test_apply_dialog_enter_on_a_file_returns_it(manifests: Path):
    async def scenario(pilot: Pilot[None], screen: ApplyDialog) -> None:
        tree = await loaded_tree(pilot, screen)
        await move_to(pilot, tree, "b.json")
        await pilot.press("enter")
        await pilot.pause()

    assert run(ApplyDialog(manifests), scenario).results == [[manifests / "b.json"]]


def test_apply_dialog_a_returns_the_highlighted_directory(manifests: Path):
    async def scenario(pilot: Pilot[None], screen: ApplyDialog) -> None:
        tree = await loaded_tree(pilot, screen)
        await move_to(pilot, tree, "sub")
        await pilot.press("a")
        await pilot.pause()

    assert run(ApplyDialog(manifests), scenario).results == [[manifests / "sub"]]


def test_apply_dialog_returns_marked_paths_in_marking_order(manifests: Path):
    async def scenario(pilot: Pilot[None], screen: ApplyDialog) -> None:
        tree = await loaded_tree(pilot, screen)
        await move_to(pilot, tree, "b.json")
        await pilot.press("space")
        await move_to(pilot, tree, "sub")
        await pilot.press("space")
        await move_to(pilot, tree, "a.yaml")
        await pilot.press("space", "space")  # marked, then unmarked again
        assert screen.marked == [manifests / "b.json", manifests / "sub"]
        shown = str(screen.query_one("#apply-marked", Static).render())
        assert shown == "Marked: b.json, sub"
        await pilot.press("a")
        await pilot.pause()

    assert run(ApplyDialog(manifests), scenario).results == [
        [manifests / "b.json", manifests / "sub"]]


def test_apply_dialog_enter_on_a_file_adds_it_to_the_marked_ones(manifests: Path):
    async def scenario(pilot: Pilot[None], screen: ApplyDialog) -> None:
        tree = await loaded_tree(pilot, screen)
        await move_to(pilot, tree, "sub")
        await pilot.press("space")
        await move_to(pilot, tree, "a.yaml")
        await pilot.press("enter")
        await pilot.pause()

    assert run(ApplyDialog(manifests), scenario).results == [
        [manifests / "sub", manifests / "a.yaml"]]


def test_apply_dialog_cancel_button(manifests: Path):
    async def scenario(pilot: Pilot[None], screen: ApplyDialog) -> None:
        await loaded_tree(pilot, screen)
        await pilot.click("#cancel")
        await pilot.pause()

    assert run(ApplyDialog(manifests), scenario).results == [None]
