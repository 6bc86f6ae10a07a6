"""The dashboard's data layer and small parts: coalescing, the model's caches,
allocations and usage history, the queue parser, bars, filters, the table sync."""

from __future__ import annotations

import asyncio
import itertools
import random
import threading
import time

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from tests.waiting import wait_for
from tui.model import RESOURCES, ClusterModel, Coalescer, UsageSample
from tui.scheduling import parse_queue
from tui.views.base import Filter
from tui.widgets.bars import bar, bytes_text, cpu_text, sparkline
from tui.widgets.table import ResourceTable

from .canned import CannedClient


def test_a_burst_of_marks_is_one_delivery_with_everything_marked() -> None:
    got: list[frozenset[str]] = []
    done = threading.Event()

    def deliver(changed: frozenset[str]) -> None:
        got.append(changed)
        done.set()

    # The burst (about a millisecond) must fit in one interval even on a busy host.
    c = Coalescer(deliver, interval=0.3)
    c.start()
    try:
        for i in range(1000):
            c.mark("pods" if i % 2 else "nodes")
        assert done.wait(5)
        # Idle: nothing more is delivered. A deliberate observation window, not
        # synchronization: an idle coalescer shows nothing but the absence of
        # deliveries. Longer than its interval.
        time.sleep(0.4)
        done.clear()
        c.mark("events")
        assert done.wait(5)
        # The later mark is delivered on its own: nothing of the burst was left over
        # for it, and nothing came in between.
        assert got == [frozenset({"pods", "nodes"}), frozenset({"events"})]
    finally:
        c.stop()


def test_deliveries_are_at_least_an_interval_apart() -> None:
    stamps: list[float] = []
    last: list[frozenset[str]] = []

    def deliver(changed: frozenset[str]) -> None:
        stamps.append(time.monotonic())
        last[:] = [changed]

    c = Coalescer(deliver, interval=0.1)
    c.start()
    try:
        end = time.monotonic() + 1.0
        while time.monotonic() < end:  # a steady stream of changes
            c.mark("pods")
            time.sleep(0.002)
        c.mark("end")  # the stream's last mark: its delivery is the last one
        wait_for(lambda: last and "end" in last[0], "the last delivery", timeout=5)
    finally:
        c.stop()
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert 5 <= len(stamps) <= 11
    assert min(gaps) >= 0.095


def test_acknowledged_deliveries_wait_for_the_receiver() -> None:
    got: list[frozenset[str]] = []
    c = Coalescer(got.append, interval=0.02, acknowledged=True)
    c.start()
    try:
        c.mark("pods")
        wait_for(lambda: got, "the first delivery", timeout=5)
        c.mark("nodes")
        c.mark("events")
        # A deliberate observation window, not synchronization: a coalescer holding
        # a delivery back shows nothing but its absence (fifteen intervals here).
        time.sleep(0.3)
        assert got == [frozenset({"pods"})]  # the receiver is still busy: nothing more
        c.ack()
        wait_for(lambda: len(got) >= 2, "the delivery after the ack", timeout=5)
        assert got[1] == frozenset({"nodes", "events"})  # everything marked meanwhile
    finally:
        c.stop()


def test_slow_renders_stretch_the_interval() -> None:
    model = ClusterModel(CannedClient(), interval=0.15, acknowledged=True)
    model.handled(0.01)
    assert model.interval == 0.15  # cheap renders: the configured interval
    model.handled(0.2)
    assert model.interval == pytest.approx(0.6)  # a render may take a quarter of the time
    model.handled(5.0)
    assert model.interval == 2.0  # but the view is never older than 2 s


def test_model_caches_allocations_and_usage_history() -> None:
    changes: list[frozenset[str]] = []
    model = ClusterModel(CannedClient(), notify=changes.append, interval=0.05)
    model.start()
    try:
        assert model.wait_synced(5)
        wait_for(lambda: changes, "a change notification", timeout=5)
        assert changes[0] <= set(RESOURCES)
        assert len(model.objects("pods")) == 8
        assert model.get("pods", "default/big") is not None
        alloc = model.allocations()
        # node-1: web (250m) + api (500m) + init-demo (max(100m, 50m) = 100m);
        # the Succeeded countdown pod does not count.
        assert alloc["node-1"].cpu_requested == 850
        assert alloc["node-1"].pods == 3
        assert alloc["node-1"].cpu_allocatable == 2000
        assert alloc["node-1"].pods_allocatable == 110
        assert alloc["node-2"].pods == 0
        assert model.allocations() is alloc  # cached until pods or nodes change
        # One usage sample per heartbeat: the annotation patch after the status
        # write of the same heartbeat replaces the sample instead of adding one.
        node = {"metadata": {"name": "n", "annotations": {
            "minikube-py.io/cpu-usage": "10", "minikube-py.io/memory-usage": "100"}},
            "status": {"conditions": [{"type": "Ready", "lastHeartbeatTime": "t1"}]}}
        model._changed("nodes", node)
        node["metadata"]["annotations"]["minikube-py.io/cpu-usage"] = "20"
        model._changed("nodes", node)
        assert model.usage_history("n") == [UsageSample(20, 100)]
        node["status"]["conditions"][0]["lastHeartbeatTime"] = "t2"
        model._changed("nodes", node)
        assert model.usage_history("n") == [UsageSample(20, 100), UsageSample(20, 100)]
        assert model.allocations() is not alloc  # a node changed
    finally:
        model.stop()


def test_queue_parsing_makes_retry_times_absolute() -> None:
    snap = parse_queue({"backoff": [{"pod": "default/a", "attempts": 2, "priority": 5,
                                     "lastFailure": "nope", "retryInSeconds": 1.5}],
                        "unschedulable": [{"pod": "default/b"}], "bogus": [1]}, now=100.0)
    assert [(p.section, p.pod) for p in snap.pods] == [("backoff", "default/a"),
                                                       ("unschedulable", "default/b")]
    assert snap.pods[0].retry_at == 101.5 and snap.pods[0].priority == 5
    assert snap.count("backoff") == 1 and not snap.empty
    assert parse_queue(None, now=0).empty


def test_bars_and_sparklines() -> None:
    assert bar(1, 2, width=4).plain == "██░░  50%"
    assert bar(0, 2, width=4).plain == "░░░░   0%"
    assert bar(1, 1000, width=4).plain == "█░░░   0%"  # anything requested shows
    assert bar(3, 2, width=4).plain == "████ 150%"  # overcommitted
    assert bar(1, 0, width=4).plain == "░░░░  n/a"
    assert bar(95, 100).spans[0].style == "red"
    assert sparkline([0, 50, 100], 100, width=5).plain == "   ▄█"
    assert sparkline([], 100, width=3).plain == "   "
    assert sparkline([200], 100, width=1).plain == "█"  # above the ceiling: scaled to it
    assert cpu_text(2000) == "2" and cpu_text(250) == "250m"
    assert bytes_text(512 << 20) == "512Mi" and bytes_text(3 << 29) == "1.5Gi"
    assert bytes_text(100) == "100B"


def test_filters_match_text_or_labels() -> None:
    pod = {"metadata": {"labels": {"app": "web", "tier": "front"}}}
    assert Filter("WEB").matches(pod, ["default", Text("web-1")])
    assert not Filter("api").matches(pod, ["default", "web-1"])
    assert Filter("-l app=web,tier in (front)").matches(pod, [])
    assert not Filter("-l app!=web").matches(pod, ["web"])
    assert not Filter("").active and Filter("").matches(pod, [])
    with pytest.raises(ValueError, match="label filter"):
        Filter("-l app in (")


def test_table_sync_updates_cells_in_place_and_keeps_the_cursor_on_its_row() -> None:
    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield ResourceTable(("A", "B"))

    async def main() -> None:
        app = Host()
        async with app.run_test() as pilot:
            table = app.query_one(ResourceTable)
            table.sync([("x", ("1", "a")), ("y", ("2", "b")), ("z", ("3", "c"))])
            assert table.rebuilds == 0 and table.keys == ["x", "y", "z"]
            table.select_key("y")
            await pilot.pause()
            table.sync([("x", ("1", "a")), ("y", ("2", "B!")), ("z", ("3", "c"))])
            assert table.rebuilds == 0  # same rows: cells updated in place
            assert table.get_cell("y", "B") == "B!"
            # One row goes, one comes, the order changes: edited in place.
            table.sync([("w", ("0", "-")), ("z", ("3", "c")), ("y", ("2", "B!"))])
            assert table.rebuilds == 0
            assert table.keys == ["w", "z", "y"]
            assert [table.get_row_at(i)[0] for i in range(3)] == ["0", "3", "2"]
            assert table.current_key == "y" and table.cursor_row == 2  # followed its row
            # Most rows replaced at once: rebuilt.
            table.sync([(f"n{i}", (str(i), "")) for i in range(40)])
            assert table.rebuilds == 1 and table.row_count == 40
            table.sync([])
            assert table.current_key is None and table.plain_rows() == []

    asyncio.run(main())


def test_a_frame_drawn_before_new_rows_are_measured_is_not_served_after() -> None:
    """On a busy machine a frame can be drawn between ``sync`` adding rows and
    Textual measuring them when idle: the columns must still widen to fit."""

    class Host(App[None]):
        # A fixed size, as in the views: a resize would redraw everything anyway.
        CSS = "ResourceTable { height: 1fr; }"

        def compose(self) -> ComposeResult:
            yield ResourceTable(("QUEUE", "POD"))

    async def main() -> None:
        app = Host()
        async with app.run_test(size=(80, 10)) as pilot:
            table = app.query_one(ResourceTable)
            await pilot.pause()
            table.sync([("k", ("unschedulable", "default/picky"))])
            early = table.render_line(1).text  # the frame drawn before measuring
            assert "default/picky" not in early  # label widths: the case at hand
            await pilot.pause()
            assert "unschedulable" in table.render_line(1).text
            assert "default/picky" in table.render_line(1).text

    asyncio.run(main())


def test_table_sync_survives_random_churn() -> None:
    """Rows come, go and move at random (as pods do): the table always shows
    exactly the rows asked for, in order, and the cursor stays on its row."""

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield ResourceTable(("A", "B"))

    async def main() -> None:
        app = Host()
        async with app.run_test() as pilot:
            table = app.query_one(ResourceTable)
            rnd = random.Random(7)
            keys = [f"k{i}" for i in range(60)]
            serial = len(keys)
            for step in range(400):
                for _ in range(rnd.randint(0, 3)):
                    keys.pop(rnd.randrange(len(keys)))
                for _ in range(rnd.randint(0, 3)):
                    keys.insert(rnd.randrange(len(keys) + 1), f"k{serial}")
                    serial += 1
                if rnd.random() < 0.2:
                    rnd.shuffle(keys)
                if rnd.random() < 0.3:
                    table.move_cursor(row=rnd.randrange(len(keys)))
                followed = table.current_key
                table.sync([(k, (k, str(rnd.randint(0, 2)))) for k in keys])
                if step % 5 == 0:
                    await pilot.pause()  # let the table lay itself out
                assert [r.key.value for r in table.ordered_rows] == keys, step
                assert table.keys == keys
                if followed in keys:
                    assert table.current_key == followed, step
            assert table.rebuilds <= 1  # all of it in place (the first fill aside)

    asyncio.run(main())
