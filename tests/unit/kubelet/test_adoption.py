"""Adoption after a kubelet (control-plane) restart and after a runtime restart
(kubelet/kubelet.py, kubelet/pleg.py)."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from minikube_py.kubelet import Kubelet
from minikube_py.kubelet.pleg import (
    RuntimeLister,
    changed_keys,
    next_tick,
    pod_fingerprint,
    runtime_snapshot,
)
from minikube_py.runtime import ContainerConfig, FakeRuntime, SandboxConfig
from tests.clock import FakeClock
from tests.waiting import blocked_in, wait_for

from .conftest import container_status, create_pod, get_pod, pod_in_phase

NODE_LABELS = "minikube-py.io/node"
#: A relist interval no test outlives. Relists fall on multiples of their interval
#: on the monotonic clock (pleg.next_tick), not an interval after the kubelet
#: started: with 300 s, one one-second window in 300 held a legitimate slow
#: relist (seen under load: ``assert 23 <= (21 + 1)``). With a million seconds
#: (within threading.TIMEOUT_MAX everywhere), any relist a test sees is a fast one.
NEVER = 1e6


def sandbox_labels(uid: str, name: str, node: str = "node-1") -> dict[str, str]:
    return {"minikube-py.io/pod-uid": uid, "minikube-py.io/namespace": "default",
            "minikube-py.io/name": name, NODE_LABELS: node}


def run_sandbox(runtime: FakeRuntime, uid: str, name: str, node: str = "node-1") -> str:
    sb = runtime.run_sandbox(SandboxConfig(uid=uid, namespace="default", name=name, node=node,
                                           labels=sandbox_labels(uid, name, node)))
    runtime.pull_image("busybox")
    cid = runtime.create_container(sb.id, ContainerConfig(
        name="c", image="busybox",
        labels={**sandbox_labels(uid, name, node), "minikube-py.io/container-name": "c",
                "minikube-py.io/restart-count": "0"}))
    runtime.start_container(cid)
    return sb.id


def test_restarted_kubelet_adopts_running_pods_without_starting_them_twice(
        client, make_kubelet, runtime):
    first = make_kubelet()
    create_pod(client, "p", initContainers=[{"name": "init", "image": "busybox"}])
    pod_in_phase(client, "p", "Running")
    before = {c.id: c.state for c in runtime.list_containers()}
    first.stop()
    stream = runtime.events()
    # One worker takes keys in order: once "marker" runs, "p" was synced before it.
    second = make_kubelet(workers=1)
    create_pod(client, "marker")
    pod_in_phase(client, "marker", "Running")
    wait_for(lambda: second.admitter.admitted(get_pod(client, "p")["metadata"]["uid"]),
             "p adopted")
    created = []
    while (ev := stream.next(timeout=0)) is not None:
        if ev.type == "container-created":
            created.append(ev.labels["minikube-py.io/name"])
    stream.stop()
    assert "p" not in created  # neither the init container nor the app container again
    p_containers = {c.id: c.state for c in runtime.list_containers()
                    if c.labels["minikube-py.io/name"] == "p"}
    assert p_containers == before
    assert container_status(client, "p", "web")["restartCount"] == 0


def test_sandboxes_without_an_owning_pod_are_removed_at_start(client, make_kubelet, runtime):
    run_sandbox(runtime, "no-such-uid", "ghost")
    make_kubelet()
    wait_for(lambda: runtime.list_sandboxes() == [], "orphan removed")
    assert runtime.list_containers() == []


def test_sandbox_of_a_pod_bound_elsewhere_is_removed(client, make_kubelet, runtime):
    elsewhere = create_pod(client, "moved", node="node-2")
    uid = elsewhere["metadata"]["uid"]
    run_sandbox(runtime, uid, "moved")  # labelled for node-1
    kept = run_sandbox(runtime, "other-node-uid", "theirs", node="node-2")
    make_kubelet()
    wait_for(lambda: [sb.id for sb in runtime.list_sandboxes()]
             == [kept], "foreign sandbox removed")
    # node-2's pod is untouched by node-1's kubelet
    assert "containerStatuses" not in get_pod(client, "moved").get("status", {})


def test_sandbox_of_a_previous_pod_with_the_same_name_is_replaced(client, make_kubelet,
                                                                  runtime):
    run_sandbox(runtime, "old-uid", "web")
    new = create_pod(client, "web")
    make_kubelet()
    pod_in_phase(client, "web", "Running")
    wait_for(lambda: [sb.labels["minikube-py.io/pod-uid"]
                      for sb in runtime.list_sandboxes()] == [new["metadata"]["uid"]],
             "old sandbox removed")


def test_event_stream_is_resubscribed_after_a_runtime_restart(client, make_kubelet, runtime):
    # No relist and no resync within the test: only runtime events can wake the kubelet.
    kubelet = make_kubelet(relist_interval=NEVER, resync_interval=300.0)
    create_pod(client, "p")
    pod_in_phase(client, "p", "Running")
    old = kubelet._events
    runtime.simulate_restart()
    wait_for(lambda: kubelet._events is not None and kubelet._events is not old
             and len(runtime._subscribers) == 1, "resubscribed")
    [c] = runtime.list_containers()
    runtime.stop_container(c.id)  # an exit, seen only through the new stream
    wait_for(lambda: container_status(client, "p", "web")
             .get("restartCount") == 1, "restarted")


def test_pods_come_back_after_the_runtime_lost_them(client, make_kubelet, runtime):
    make_kubelet(resync_interval=300.0)
    create_pod(client, "p")
    pod_in_phase(client, "p", "Running")
    runtime.simulate_restart(kill=True)
    wait_for(lambda: "running" in container_status(client, "p", "web")
             .get("state", {}) and container_status(client, "p", "web")["restartCount"] >= 1,
             "running again")
    ready = [sb for sb in runtime.list_sandboxes() if sb.state == "ready"]
    assert len(ready) == 1


def test_relist_enqueues_only_changed_pods():
    rt = FakeRuntime()
    a = run_sandbox(rt, "ua", "a")
    run_sandbox(rt, "ub", "b")
    run_sandbox(rt, "uc", "c", node="node-2")
    before = runtime_snapshot(rt, "node-1")
    assert set(before) == {"default/a", "default/b"}
    assert changed_keys(before, runtime_snapshot(rt, "node-1")) == set()
    [ca] = rt.list_containers(a)
    rt.stop_container(ca.id)
    assert changed_keys(before, runtime_snapshot(rt, "node-1")) == {"default/a"}
    rt.remove_sandbox(a)
    assert changed_keys(before, runtime_snapshot(rt, "node-1")) == {"default/a"}


def test_pod_fingerprint_is_the_relists_fingerprint_of_that_pod():
    rt = FakeRuntime()
    a = run_sandbox(rt, "ua", "a")
    run_sandbox(rt, "ub", "b")

    def of_a() -> tuple[tuple[str, str, str], ...]:
        return pod_fingerprint([sb for sb in rt.list_sandboxes() if sb.id == a],
                               rt.list_containers(a))

    running = of_a()
    assert running == runtime_snapshot(rt, "node-1")["default/a"]
    [ca] = rt.list_containers(a)
    rt.stop_container(ca.id)
    assert of_a() == runtime_snapshot(rt, "node-1")["default/a"] != running


def test_the_relist_skips_what_a_sync_saw_and_queues_what_no_event_brought(
        client, make_kubelet, runtime, monkeypatch):
    """A pod started since the last relist is not synced again for it when its
    latest sync reported that very state (the runtime's events brought it);
    a change no event brought is still queued."""
    # No periodic resync within the test either: only the relist may see the exit.
    kubelet = make_kubelet(relist_interval=NEVER, evented_relist_interval=NEVER,
                           resync_interval=300.0)
    kubelet.relist_runtime()  # the first look: nothing runs yet
    create_pod(client, "p")
    pod_in_phase(client, "p", "Running")
    wait_for(lambda: kubelet._pleg_seen.get("default/p")
             == runtime_snapshot(runtime, "node-1").get("default/p"),
             "a sync to report the running pod")
    queued: list[str] = []
    add = kubelet.queue.add
    monkeypatch.setattr(kubelet.queue, "add", lambda key: (queued.append(key), add(key)))
    kubelet.relist_runtime()
    assert queued == []  # new since the last look, but just what the sync saw
    monkeypatch.setattr(runtime, "_emit", lambda *args, **kw: None)  # events lost
    [c] = runtime.list_containers()
    runtime.stop_container(c.id)
    kubelet.relist_runtime()
    assert queued == ["default/p"]
    wait_for(lambda: container_status(client, "p", "web").get("restartCount") == 1,
             "the exit no event reported handled")


def test_a_sync_that_finds_an_older_pods_sandbox_reports_nothing(client, make_kubelet,
                                                                runtime, monkeypatch):
    kubelet = make_kubelet(relist_interval=NEVER, evented_relist_interval=NEVER,
                           resync_interval=300.0)
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    mine = threading.get_ident()
    reports: list[str] = []
    observed = kubelet.syncer._on_observed
    assert observed is not None

    def collect(key: str, fingerprint: tuple[tuple[str, str, str], ...]) -> None:
        if threading.get_ident() == mine:  # this test's syncs only
            reports.append(key)
        observed(key, fingerprint)

    kubelet.syncer._on_observed = collect
    kubelet.sync("default/web")
    assert reports == ["default/web"]
    with monkeypatch.context() as m:
        # No event: the kubelet's own worker must not remove it before this sync.
        m.setattr(runtime, "_emit", lambda *args, **kw: None)
        run_sandbox(runtime, "old-uid", "web")
    kubelet.sync("default/web")
    assert reports == ["default/web"]  # the relist sees the old sandbox too: no report


class CountingRuntime(FakeRuntime):
    """A fake runtime that counts the listings made of it."""

    def __init__(self) -> None:
        super().__init__()
        self.sandbox_lists = 0

    def list_sandboxes(self, labels=None):
        self.sandbox_lists += 1
        return super().list_sandboxes(labels)


def test_shared_lister_lists_once_per_max_age_and_answers_each_node():
    rt = CountingRuntime()
    run_sandbox(rt, "ua", "a")
    run_sandbox(rt, "ub", "b", node="node-2")
    clock = FakeClock(100.0)
    lister = RuntimeLister(rt, max_age=0.5, clock=clock)
    # One listing answers every node, each with only its own pods, as runtime_snapshot does.
    assert lister.snapshot("node-1") == runtime_snapshot(rt, "node-1")
    assert lister.snapshot("node-2") == runtime_snapshot(rt, "node-2")
    assert set(lister.snapshot("node-1")) == {"default/a"}
    assert lister.listings == 1
    # A change inside max_age is not seen yet; past it, the next caller lists again.
    [ca] = rt.list_containers(next(sb.id for sb in rt.list_sandboxes()
                                   if sb.labels["minikube-py.io/name"] == "a"))
    rt.stop_container(ca.id)
    before = lister.snapshot("node-1")
    clock.advance(0.6)
    assert changed_keys(before, lister.snapshot("node-1")) == {"default/a"}
    assert lister.listings == 2


def test_a_failed_listing_raises_to_its_caller_and_is_not_kept():
    rt = CountingRuntime()
    run_sandbox(rt, "ua", "a")
    clock = FakeClock(0.0)
    lister = RuntimeLister(rt, max_age=1.0, clock=clock)
    first = lister.snapshot("node-1")
    clock.advance(2)  # the listing is stale: the next caller lists
    broken = {"on": True}
    original = rt.list_containers

    def list_containers(sandbox_id=None):
        if broken["on"]:
            raise ConnectionError("runtime down")
        return original(sandbox_id)

    rt.list_containers = list_containers  # type: ignore[method-assign]
    try:
        lister.snapshot("node-1")
    except ConnectionError:
        pass
    else:
        raise AssertionError("the listing error was swallowed")
    broken["on"] = False
    # Listed again at once (the stale listing is not served, the failure not cached).
    assert lister.snapshot("node-1") == first
    assert lister.listings == 2


@pytest.mark.parametrize("interval, now, expected", [
    (1.0, 10.25, 0.75),
    (1.0, 10.0, 1.0),   # exactly on a tick: the next one, never 0 (no busy loop)
    (0.5, 3.1, 0.4),
    (0.0, 5.0, 0.0),
])
def test_next_tick_aligns_relists_on_multiples_of_the_interval(interval, now, expected):
    assert next_tick(interval, now) == pytest.approx(expected)


def test_relist_is_a_slow_safety_net_while_runtime_events_flow(make_kubelet, runtime):
    """While the kubelet is subscribed to runtime events, the relist does not run
    at the fast interval; once the stream ends it does, and it slows down again
    when the kubelet has subscribed anew."""
    lister = RuntimeLister(runtime)
    kubelet = make_kubelet(relist_interval=0.05, evented_relist_interval=NEVER, lister=lister)
    assert kubelet.current_relist_interval() == NEVER
    loop = next(t for t in kubelet._threads if t.name.endswith("-relist"))
    wait_for(lambda: blocked_in(loop, Kubelet._relist_loop), "the relist loop to wait")
    # A deliberate observation window, not synchronization: a waiting relist loop
    # shows nothing, so only time can show it does not relist. At 0.05 s it would
    # have listed about twenty times.
    time.sleep(1.0)
    assert lister.listings == 0  # subscribed: no 0.05 s relists
    # The stream ends (runtime restarted): the relist runs at once and then often,
    # until the kubelet subscribes again (after about a second).
    runtime.simulate_restart()
    wait_for(lambda: lister.listings >= 3, "fast relists without events", timeout=5.0)
    wait_for(lambda: kubelet.current_relist_interval() == NEVER, "subscribed again",
             timeout=5.0)
    settled = lister.listings
    # Observation window again (about twenty fast relists' worth): the loop may
    # finish the one relist it was waiting for or running when it resubscribed,
    # then waits for a tick that no test reaches (NEVER).
    time.sleep(1.0)
    assert lister.listings <= settled + 1


def test_an_interrupted_stream_brings_back_fast_relists_until_it_resumes(
        make_kubelet, runtime, caplog):
    # A reconnecting stream (Podman's) never ends: it says it lost the runtime,
    # then that it is back. Meanwhile the relist must watch the runtime often.
    lister = RuntimeLister(runtime)
    kubelet = make_kubelet(relist_interval=0.05, evented_relist_interval=NEVER, lister=lister)
    with caplog.at_level(logging.INFO, logger="minikube_py.kubelet.kubelet"):
        runtime.interrupt_events()
        wait_for(lambda: lister.listings >= 3, "fast relists while interrupted", timeout=5.0)
        assert kubelet.current_relist_interval() == 0.05
        assert "runtime event stream interrupted" in caplog.text
        runtime.interrupt_events(resume=True)
        wait_for(lambda: kubelet.current_relist_interval() == NEVER,
                 "slow relists once resumed", timeout=5.0)
        settled = lister.listings
        # A deliberate observation window (ten fast relists' worth), not
        # synchronization: nothing shows the relist loop waiting instead of listing.
        time.sleep(0.5)
        assert lister.listings <= settled + 1  # at most the relist already in flight
        assert "runtime event stream back" in caplog.text


def test_evented_relist_interval_is_never_shorter_than_the_generic_one(make_kubelet):
    kubelet = make_kubelet(relist_interval=2.0, evented_relist_interval=0.5)
    assert kubelet.current_relist_interval() == 2.0
