"""Hollow kubelets on shared threads (kubelet/pool.py) against a real store.

The pool must run the same kubelet behaviour as standalone kubelets — pods
reach Running, deletions tear down, exits are noticed from runtime events,
heartbeats are posted, a relist catches what happened while the watch was
away — on ``workers + 2`` threads whatever the number of nodes.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.client.local import LocalClient
from minikube_py.kubelet import Kubelet
from minikube_py.kubelet.kubelet import next_due
from minikube_py.kubelet.pool import WORKERS, KubeletPool
from minikube_py.nodes import NodeSpec
from minikube_py.runtime import LABEL_NAME, LABEL_NODE, FakeRuntime
from tests.unit.test_kubelet import GI, HOST, READINGS, create_pod, pod_in_phase
from tests.waiting import wait_for

NODES = 120


def pooled(client: LocalClient, pool: KubeletPool, name: str, tmp_path: Path,
           runtime: Any = None, heartbeat: float = 0.2,
           lease_every: float | None = None) -> Kubelet:
    return Kubelet(client, NodeSpec(name, 4000, 32 * GI, 110, {}),
                   runtime if runtime is not None else FakeRuntime(), host=HOST,
                   state_dir=tmp_path / "kubelet", heartbeat_interval=heartbeat,
                   lease_renew_interval=heartbeat if lease_every is None else lease_every,
                   cgroup_root=None, readings=lambda _: READINGS,
                   queue=pool.queue_for(name))


@pytest.fixture
def pool(client: LocalClient, tmp_path: Path) -> Iterator[KubeletPool]:
    # The pool reads through shared objects, as the control plane wires it.
    pool = KubeletPool(client.for_caches(), workers=3, heartbeat_interval=0.2,
                       relist_interval=0.5, name="t")
    for i in range(NODES):
        pool.add(pooled(client, pool, f"h{i:03d}", tmp_path))
    before = threading.active_count()
    pool.start()
    pool.threads_started = threading.active_count() - before  # type: ignore[attr-defined]
    yield pool
    pool.stop()
    assert client.store.verify_shared() == ()  # no kubelet changed a cached pod


def runtime_of(pool: KubeletPool, node: str) -> FakeRuntime:
    runtime = pool.kubelets[node].runtime
    assert isinstance(runtime, FakeRuntime)
    return runtime


def test_many_nodes_run_on_a_fixed_number_of_threads(pool: KubeletPool,
                                                      client: LocalClient):
    assert pool.threads_started == 3 + 2  # type: ignore[attr-defined]
    assert sorted(pool.thread_names()) == sorted(
        ["t-kubelets-pods", "t-kubelets-timers"] + [f"t-kubelets-worker-{i}" for i in range(3)])
    assert len(client.list("nodes").items) == NODES


def test_pods_on_pooled_nodes_run_and_are_torn_down(pool: KubeletPool,
                                                    client: LocalClient):
    nodes = ["h000", "h057", "h119"]
    for i, node in enumerate(nodes):
        create_pod(client, f"p{i}", node=node)
    for i, node in enumerate(nodes):
        pod = pod_in_phase(client, f"p{i}", "Running")
        assert pod["spec"]["nodeName"] == node
        assert [sb.labels[LABEL_NODE] for sb in runtime_of(pool, node).list_sandboxes()] == \
            [node]
    # Nothing ran anywhere else.
    assert all(not runtime_of(pool, n).list_sandboxes() for n in pool.kubelets
               if n not in nodes)
    client.delete("pods", "default", "p1")
    wait_for(lambda: not runtime_of(pool, "h057").list_sandboxes(), "p1's sandbox removed")


def test_a_container_exit_is_seen_from_runtime_events(pool: KubeletPool,
                                                      client: LocalClient):
    # relist_interval is 0.5 s here; restart the pool's view with a long one to
    # show the exit arrives by the event listener, not by the relist.
    pool.relist_interval = 3600.0
    create_pod(client, "crashy", node="h010")
    pod_in_phase(client, "crashy", "Running")
    runtime = runtime_of(pool, "h010")
    (container,) = [c for c in runtime.list_containers() if c.state == "running"]
    runtime.kill_container(container.id, 1)

    def restarted() -> bool:
        pod = client.get("pods", "default", "crashy")
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        return bool(statuses) and bool((statuses[0].get("lastState") or {}).get("terminated"))
    wait_for(restarted, "the exit noticed and recorded")


def test_node_leases_are_renewed_for_every_node(pool: KubeletPool, client: LocalClient):
    def renewals() -> dict[str, str]:
        return {lease["metadata"]["name"]: lease["spec"]["renewTime"]
                for lease in client.list("leases", namespace="kube-node-lease").items}
    first = renewals()
    assert len(first) == NODES
    wait_for(lambda: all(renewals()[n] != first[n] for n in ("h000", "h060", "h119")),
             "three nodes' leases renewed", timeout=10)


def test_pool_refuses_what_it_cannot_drive(client: LocalClient, tmp_path: Path):
    pool = KubeletPool(client, name="x")
    own_queue = Kubelet(client, NodeSpec("solo", 1000, GI, 10, {}), FakeRuntime(), host=HOST,
                        state_dir=tmp_path / "k", cgroup_root=None)
    with pytest.raises(ValueError, match=r"queue=pool\.queue_for"):
        pool.add(own_queue)
    other = pooled(client, pool, "real", tmp_path, runtime=object())  # any other runtime
    with pytest.raises(ValueError, match="only fake-runtime"):
        pool.add(other)


def test_stop_ends_the_threads_and_leaves_pods_running(client: LocalClient, tmp_path: Path):
    pool = KubeletPool(client, workers=2, heartbeat_interval=0.2, name="s")
    for i in range(5):
        pool.add(pooled(client, pool, f"s{i}", tmp_path))
    pool.start()
    create_pod(client, "keep", node="s3")
    pod_in_phase(client, "keep", "Running")
    pool.stop(timeout=5)
    assert pool.thread_names() == []
    assert not [t for t in threading.enumerate() if t.name.startswith("s-kubelets-")]
    # As a restarting kubelet: containers stay.
    assert [c.state for c in runtime_of(pool, "s3").list_containers()] == ["running"]


def test_one_worker_by_default_and_a_slow_teardown_holds_up_no_other_pod(
        client: LocalClient, tmp_path: Path):
    # The pool's one worker (WORKERS) is safe only while nothing a sync does
    # waits: a pod taking its whole grace period to stop must not stop the
    # other pods, on its node or another, from starting meanwhile.
    pool = KubeletPool(client.for_caches(), heartbeat_interval=0.2, name="w")
    assert pool.workers == WORKERS == 1
    for i in range(3):
        pool.add(pooled(client, pool, f"w{i}", tmp_path))
    pool.start()
    try:
        assert sorted(pool.thread_names()) == [
            "w-kubelets-pods", "w-kubelets-timers", "w-kubelets-worker-0"]
        create_pod(client, "stubborn", node="w0", terminationGracePeriodSeconds=30,
                   containers=[{"name": "c", "image": "busybox:1.36", "env": [
                       {"name": "FAKE_IGNORE_SIGTERM", "value": "1"}]}])
        pod_in_phase(client, "stubborn", "Running")
        client.delete("pods", "default", "stubborn")
        wait_for(lambda: pool.kubelets["w0"].syncer.terminating(), "its teardown begun")
        started = time.monotonic()
        create_pod(client, "beside", node="w0")
        create_pod(client, "elsewhere", node="w1")
        pod_in_phase(client, "beside", "Running")
        pod_in_phase(client, "elsewhere", "Running")
        assert time.monotonic() - started < 15
        # ... while the stubborn container still waits out its grace period.
        assert pool.kubelets["w0"].syncer.terminating()
        assert [c.state for c in runtime_of(pool, "w0").list_containers()
                if c.labels.get(LABEL_NAME) == "stubborn"] == ["running"]
    finally:
        pool.stop(timeout=5)


def test_one_kubelet_stopped_on_its_own_falls_silent(pool: KubeletPool, client: LocalClient):
    victim = pool.kubelets["h005"]
    create_pod(client, "before", node="h005")
    pod_in_phase(client, "before", "Running")
    victim.stop()
    renewed = client.get("leases", "kube-node-lease", "h005")["spec"]["renewTime"]
    other = client.get("leases", "kube-node-lease", "h006")["spec"]["renewTime"]
    create_pod(client, "after", node="h005")
    # The other nodes go on (h006's lease renews) while h005's does not, and the
    # pod bound to it after it stopped is never started.
    for _ in range(2):  # two renewal periods of the others
        other = wait_for(lambda o=other: (
            r if (r := client.get("leases", "kube-node-lease", "h006")["spec"]["renewTime"])
            != o else None), "h006's lease renewed")
    assert client.get("leases", "kube-node-lease", "h005")["spec"]["renewTime"] == renewed
    assert (client.get("pods", "default", "after").get("status") or {}).get("phase") \
        in (None, "Pending")
    assert len(runtime_of(pool, "h005").list_sandboxes()) == 1


def test_the_control_plane_pools_its_hollow_nodes(tmp_path: Path):
    from minikube_py.controlplane import (
        HOLLOW_RESYNC_FACTOR,
        HOLLOW_USAGE_FACTOR,
        HOLLOW_USAGE_WRITES,
    )
    from tests.planes import hollow_plane
    before = {t.name for t in threading.enumerate()}
    with hollow_plane(tmp_path / "state", nodes=12, pod_resync_interval=30.0) as cp:
        kubelet_threads = [t.name for t in threading.enumerate()
                           if t.name not in before and "kubelet" in t.name]
        # 12 nodes, one pool: its watch, its timer and its one worker; no per-node thread.
        assert sorted(kubelet_threads) == [
            "hollow-kubelets-pods", "hollow-kubelets-timers", "hollow-kubelets-worker-0"]
        kubelets = list(cp.kubelets.values())
        assert len(kubelets) == 12
        assert {k.resync_interval for k in kubelets} == {30.0 * HOLLOW_RESYNC_FACTOR}
        assert {k.resync_jitter for k in kubelets} == {0.5}
        # ... put off to the pool's timer ticks, so those due together run together.
        assert {k.resync_granularity for k in kubelets} == {cp.options.heartbeat_interval / 10}
        # Usage annotations within one budget of writes a second for the daemon.
        budgets = {k.node_status.usage_budget for k in kubelets}
        assert len(budgets) == 1 and None not in budgets
        [budget] = budgets
        assert budget.__self__.qps == HOLLOW_USAGE_WRITES  # type: ignore[union-attr]
        # ... and their (made-up) stats read every few heartbeats, not at each.
        assert {k.node_status.usage_interval for k in kubelets} == {
            cp.options.heartbeat_interval * HOLLOW_USAGE_FACTOR}
        assert {k.syncer.volumes.files for k in kubelets if k.syncer.volumes} == {False}
        client = LocalClient(cp.registry)
        assert len(client.list("leases", namespace="kube-node-lease").items) == 12


def test_a_round_runs_every_due_lease_then_every_status_report_in_store_holds(
        client: LocalClient, tmp_path: Path) -> None:
    """Under load a thread waits a long time for each acquisition of the store's
    contended write lock: the heartbeats of hollow nodes must not each pay that,
    and leases (which keep nodes Ready) must not wait behind status reports. Here
    every node falls due in one round; a writer on another thread starting at the
    first lease, and one at the first status report, get in only after the batch."""
    nodes = 30
    # A tick longer than the period: the first round finds every node due.
    pool = KubeletPool(client.for_caches(), workers=1, heartbeat_interval=0.5,
                       timer_tick=1.5, name="round")
    order: list[tuple[str, str]] = []
    outsiders: dict[str, tuple[threading.Thread, threading.Event]] = {}
    held: dict[str, list[bool]] = {"lease": [], "status": []}

    def watched(kind: str, name: str, real: Any) -> Any:
        def call() -> None:
            if kind not in outsiders:  # the first of its kind: another writer starts
                done = threading.Event()

                def write() -> None:
                    client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": f"outsider-{kind}",
                                                "namespace": "default"}})
                    done.set()
                outsiders[kind] = (threading.Thread(target=write), done)
                outsiders[kind][0].start()
            real()
            held[kind].append(not outsiders[kind][1].wait(0.02))  # it still waits
            order.append((kind, name))
        return call

    for i in range(nodes):
        kubelet = pooled(client, pool, f"r{i:02d}", tmp_path)
        name = kubelet.node.name
        kubelet.renew_lease = watched("lease", name, kubelet.renew_lease)  # type: ignore[method-assign]
        kubelet.report_status = watched("status", name, kubelet.report_status)  # type: ignore[method-assign]
        pool.add(kubelet)
    pool.start()
    try:
        wait_for(lambda: len(order) >= 2 * nodes, "the first round", timeout=15)
    finally:
        pool.stop()
        for thread, _ in outsiders.values():
            thread.join(5)
    first = order[:2 * nodes]
    assert [kind for kind, _ in first] == ["lease"] * nodes + ["status"] * nodes
    assert {n for _, n in first[:nodes]} == {n for _, n in first[nodes:]}
    for kind in ("lease", "status"):
        assert all(held[kind][:nodes]), f"another writer got in between the {kind} batch"
        assert outsiders[kind][1].is_set()  # and got its turn right after it
    assert len(client.list("leases", namespace="kube-node-lease").items) == nodes
    assert len(client.list("nodes").items) == nodes  # registered by the status reports


@pytest.mark.parametrize("tick", [0.25, 0.0])
def test_timer_duties_due_within_a_tick_run_in_one_round(client: LocalClient, tmp_path: Path,
                                                          tick: float):
    """Thousands of nodes must not wake the timer thread once per heartbeat: the
    duties due within a tick run together; each node still beats every period."""
    nodes, interval = 40, 1.0
    pool = KubeletPool(client.for_caches(), workers=1, heartbeat_interval=interval,
                       timer_tick=tick, name="tick")
    beats: dict[str, list[float]] = {}
    for i in range(nodes):
        kubelet = pooled(client, pool, f"t{i:02d}", tmp_path, heartbeat=interval)
        calls = beats.setdefault(kubelet.node.name, [])
        kubelet.renew_lease = lambda calls=calls: calls.append(time.monotonic())  # type: ignore[method-assign]
        kubelet.report_status = lambda: None  # type: ignore[method-assign]
        pool.add(kubelet)
    pool.start()
    try:
        wait_for(lambda: all(len(c) >= 3 for c in beats.values()), "three beats per node",
                 timeout=15)
    finally:
        pool.stop()
    for calls in beats.values():  # every period, late by at most a tick (and some slack)
        assert max(b - a for a, b in itertools.pairwise(calls)) < interval + tick + 0.3
    times = sorted(t for calls in beats.values() for t in calls)
    rounds = 1 + sum(1 for a, b in itertools.pairwise(times) if b - a > 0.01)
    span = times[-1] - times[0]
    if tick:
        assert rounds <= span / tick + 2, (rounds, span)
    else:  # spread over the period: one wake-up per beat, near enough
        assert rounds > len(times) / 2, (rounds, len(times))


@pytest.mark.parametrize(("interval", "tick", "expected"),
                         [(10.0, None, 1.0), (0.2, None, 0.02), (10.0, 0.1, 0.1)])
def test_the_timer_tick_is_a_tenth_of_the_heartbeat_period_unless_given(
        client: LocalClient, interval: float, tick: float | None, expected: float) -> None:
    """At 10 s heartbeats the timer wakes at most once a second: one round of a
    tenth of the nodes costs less per lease than ten rounds of a hundredth."""
    pool = KubeletPool(client, heartbeat_interval=interval, timer_tick=tick)
    assert pool.timer_tick == pytest.approx(expected)


@pytest.mark.parametrize(("lease_every", "status_every"), [(0.2, 4.0), (4.0, 0.2)])
def test_leases_and_status_reports_each_keep_their_own_period(
        client: LocalClient, tmp_path: Path, lease_every: float, status_every: float) -> None:
    """The kubelet renews its lease every quarter of nodeLeaseDurationSeconds and
    works out its status every nodeStatusUpdateFrequency: stretching one (as
    KWOK stretches both for thousands of fake nodes) must not drag the other."""
    nodes = 10
    pool = KubeletPool(client.for_caches(), workers=1, heartbeat_interval=status_every,
                       lease_renew_interval=lease_every, name="periods")
    assert pool.timer_tick == pytest.approx(min(lease_every, status_every) / 10)
    calls: dict[str, list[str]] = {}
    for i in range(nodes):
        kubelet = pooled(client, pool, f"p{i:02d}", tmp_path, heartbeat=status_every,
                         lease_every=lease_every)
        mine = calls.setdefault(kubelet.node.name, [])
        kubelet.renew_lease = lambda mine=mine: mine.append("lease")  # type: ignore[method-assign]
        kubelet.report_status = lambda mine=mine: mine.append("status")  # type: ignore[method-assign]
        pool.add(kubelet)
    fast = "lease" if lease_every < status_every else "status"
    slow = "status" if fast == "lease" else "lease"
    start = time.monotonic()
    pool.start()
    try:
        wait_for(lambda: all(c.count(fast) >= 5 for c in calls.values()),
                 f"five {fast} duties per node", timeout=15)
    finally:
        pool.stop()
    elapsed = time.monotonic() - start
    assert elapsed < max(lease_every, status_every)  # so each slow duty ran at most once
    for mine in calls.values():
        assert mine.count(slow) <= 1, mine


@pytest.mark.parametrize(("due", "period", "now", "expected"), [
    (10.0, 2.0, 10.5, 12.0),   # on time: a period after the due time, no drift
    (10.0, 2.0, 11.9, 12.0),   # late within a period: still the due time's beat
    (10.0, 2.0, 12.5, 14.5),   # more than a period late: a period after it ran
    (10.0, 2.0, 30.0, 32.0),   # beats missed meanwhile are not made up
])
def test_next_due(due: float, period: float, now: float, expected: float) -> None:
    assert next_due(due, period, now) == pytest.approx(expected)


def test_a_late_duty_is_not_repeated_at_once(client: LocalClient, tmp_path: Path) -> None:
    """A lease renewal that ran a period late (a saturated daemon) is followed a
    period later, as the standalone kubelet's (and Kubernetes' wait.Until):
    not in the very next round, which would renew a just-renewed lease."""
    period = 0.3
    pool = KubeletPool(client.for_caches(), workers=1, heartbeat_interval=60.0,
                       lease_renew_interval=period, name="late")
    starts: list[float] = []
    ends: list[float] = []

    def renew() -> None:
        starts.append(time.monotonic())
        if len(starts) == 1:
            time.sleep(2.5 * period)  # the first renewal overruns two periods
        ends.append(time.monotonic())

    kubelet = pooled(client, pool, "late0", tmp_path, heartbeat=60.0, lease_every=period)
    kubelet.renew_lease = renew  # type: ignore[method-assign]
    kubelet.report_status = lambda: None  # type: ignore[method-assign]
    pool.add(kubelet)
    pool.start()
    try:
        wait_for(lambda: len(ends) >= 3, "three lease renewals", timeout=15)
    finally:
        pool.stop()
    # Not a tick after the overrun (the old rule: the due time was past) ...
    assert starts[1] - ends[0] > 0.8 * period, (starts, ends)
    # ... and on time afterwards (with slack for a loaded machine).
    assert starts[2] - starts[1] < period + pool.timer_tick + 0.7


def test_the_control_plane_gives_every_kubelet_its_lease_duration(tmp_path: Path):
    from tests.planes import hollow_plane
    with hollow_plane(tmp_path / "state", lease_duration=1200, heartbeat_interval=600.0) as cp:
        kubelets = list(cp.kubelets.values())
        assert {k.lease_renew_interval for k in kubelets} == {300.0}  # a quarter
        assert {k.heartbeat_interval for k in kubelets} == {600.0}
        assert cp._pool is not None and cp._pool.timer_tick == pytest.approx(30.0)
        leases = LocalClient(cp.registry).list("leases", namespace="kube-node-lease").items
        assert sorted(lease["spec"]["leaseDurationSeconds"] for lease in leases) == [1200] * 3
