"""The scheduling loop over a real store: placement, profiles, assume/forget/expire,
events and conditions, decisions. No kubelets: binding is what is observed."""

from __future__ import annotations

import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import Conflict
from minikube_py.client.informer import Handlers
from minikube_py.client.local import LocalClient
from minikube_py.client.shared import SharedInformers
from minikube_py.scheduler.config import load_profile
from minikube_py.scheduler.framework import Framework
from minikube_py.scheduler.queue import SchedulingQueue
from minikube_py.scheduler.scheduler import Scheduler
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from minikube_py.store.watch import Watch
from tests.clock import FakeClock
from tests.waiting import blocked_in, wait_for


def node(name: str, cpu: str = "2", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
            "status": {"capacity": {"cpu": cpu, "memory": "4Gi", "pods": "110"},
                       "allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "110"}}}


def pod(name: str, cpu: str = "500m", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36", "resources": {
                "requests": {"cpu": cpu, "memory": "128Mi"}}}], **spec}}


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    store = Store(tmp_path / "s")
    reg = Registry(store)
    reg.ensure_system_namespaces()
    for n in ("n1", "n2", "n3"):
        reg.create(node(n))
    yield reg
    store.close()


def run(registry: Registry, **kwargs: Any) -> Scheduler:
    sched = Scheduler(LocalClient(registry), seed=7, **kwargs)
    sched.start()
    return sched


def wait_bound(registry: Registry, name: str, timeout: float = 10) -> str:
    """The node ``name`` gets bound to."""
    return str(wait_for(lambda: registry.get("pods", "default", name)["spec"].get("nodeName"),
                        f"{name} to be bound", timeout=timeout))


def test_least_allocated_spreads_and_most_allocated_packs(registry: Registry, tmp_path: Path):
    sched = run(registry)
    try:
        for i in range(3):
            registry.create(pod(f"spread-{i}"))
        assert sorted(wait_bound(registry, f"spread-{i}") for i in range(3)) == ["n1", "n2",
                                                                                 "n3"]
    finally:
        sched.stop()
    config = tmp_path / "sched.yaml"
    config.write_text(textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
          - schedulerName: default-scheduler
            pluginConfig:
              - name: NodeResourcesFit
                args:
                  scoringStrategy:
                    type: MostAllocated
                    resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
            plugins:
              score:
                disabled: [{name: NodeResourcesBalancedAllocation}, {name: PodTopologySpread}]
        """))
    packer = run(registry, framework=Framework(load_profile(config)))
    try:
        for i in range(3):
            registry.create(pod(f"pack-{i}", cpu="300m"))
        placed = {wait_bound(registry, f"pack-{i}") for i in range(3)}
        assert len(placed) == 1  # all on the most allocated node
    finally:
        packer.stop()


def test_unschedulable_records_event_condition_once_and_decision(registry: Registry):
    sched = run(registry)
    try:
        registry.create(pod("huge", cpu="8"))
        cond = wait_for(lambda: next(
            (c for c in registry.get("pods", "default", "huge").get("status", {})
             .get("conditions", []) if c["type"] == "PodScheduled"), None),
            "a PodScheduled condition", timeout=10)
        assert cond["status"] == "False"
        assert cond["reason"] == "Unschedulable"
        assert cond["message"] == ("0/3 nodes are available: 3 Insufficient cpu. preemption: "
                                   "0/3 nodes are available: 3 No preemption victims found "
                                   "for incoming pod.")
        events = registry.store.list("events").items
        failed = [e for e in events if e["reason"] == "FailedScheduling"]
        assert failed and failed[0]["type"] == "Warning" and failed[0]["message"] == \
            cond["message"]
        # A node event retries the pod; the unchanged condition is not written again.
        rv = registry.get("pods", "default", "huge")["metadata"]["resourceVersion"]
        registry.create(node("n4", cpu="1"))
        # Retried once its 1 s backoff is over.
        wait_for(lambda: len(sched.decisions("default", "huge")) >= 2, "a second attempt",
                 timeout=5)
        decisions = sched.decisions("default", "huge")
        assert "4 Insufficient cpu" in decisions[-1]["text"]
        # The decision is recorded before the new condition is written: wait for it.
        wait_for(lambda: "4 Insufficient cpu" in next(
            c["message"] for c in registry.get("pods", "default", "huge")["status"]["conditions"]
            if c["type"] == "PodScheduled"), "the new PodScheduled message", timeout=5)
        assert registry.get("pods", "default", "huge")["metadata"]["resourceVersion"] != rv
        rv = registry.get("pods", "default", "huge")["metadata"]["resourceVersion"]
        tried = len(sched.decisions("default", "huge"))
        sched.queue.move_all("test")  # same outcome again: nothing new is written
        wait_for(lambda: len(sched.decisions("default", "huge")) > tried,
                 "the attempt after the move (once its backoff is over)", timeout=15)
        # The decision is recorded before the condition is (or is not) written, but
        # the loop runs one cycle at a time: once a pod created now has its decision,
        # that attempt is over, whatever it wrote.
        registry.create(pod("after", cpu="100m"))
        wait_for(lambda: sched.decisions("default", "after"), "the next cycle", timeout=10)
        assert registry.get("pods", "default", "huge")["metadata"]["resourceVersion"] == rv
        queue = sched.queue_info()
        assert [p["pod"] for p in queue["unschedulable"] + queue["backoff"]] == ["default/huge"]
        # Room appears: the pod goes where it fits.
        registry.create(node("big", cpu="16"))
        assert wait_bound(registry, "huge") == "big"
    finally:
        sched.stop()


class NodeUpdatesHeld(Scheduler):
    """A scheduler whose node informer holds every node update in its
    handler until ``release`` is set: a node informer running behind."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.release = threading.Event()
        super().__init__(*args, **kwargs)

    def _node_updated(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.release.wait(30)
        super()._node_updated(old, new)


def test_a_pod_created_after_a_cordon_never_lands_on_the_cordoned_node(registry: Registry):
    # A drain cordons, then deletes; the replacement pods must not land on the
    # node even when the scheduler's node informer is behind its pod informer.
    sched = NodeUpdatesHeld(LocalClient(registry), seed=7)
    sched.start()
    try:
        registry.patch("nodes", None, "n1", "merge", {"spec": {"unschedulable": True}})
        registry.create(pod("after", nodeSelector={"kubernetes.io/hostname": "n1"}))
        thread = sched._thread
        assert thread is not None

        def bound_to() -> str:
            return str(registry.get("pods", "default", "after")["spec"].get("nodeName") or "")

        wait_for(lambda: bound_to() or blocked_in(thread, Watch.wait_consumed),
                 "the cycle to wait for the node informer, or the pod to be bound")
        assert bound_to() == ""
        sched.release.set()
        cond = wait_for(lambda: next(
            (c for c in registry.get("pods", "default", "after").get("status", {})
             .get("conditions", []) if c["type"] == "PodScheduled"), None),
            "a PodScheduled condition", timeout=10)
        assert cond["status"] == "False"
        assert "1 node(s) were unschedulable" in cond["message"]
        assert bound_to() == ""
    finally:
        sched.release.set()
        sched.stop()


def test_a_failed_bind_forgets_the_assumption_and_retries(registry: Registry):
    client = LocalClient(registry)
    real_bind = client.bind
    failures = [1]

    def flaky_bind(namespace: str, name: str, node: str) -> None:
        if failures:
            failures.pop()
            raise Conflict.of("pods", name, "simulated bind failure")
        real_bind(namespace, name, node)

    client.bind = flaky_bind  # type: ignore[method-assign]
    sched = Scheduler(client, seed=1, queue=SchedulingQueue(initial_backoff=0.05))
    sched.start()
    try:
        registry.create(pod("retry"))
        assert wait_bound(registry, "retry")
        # Nothing stayed assumed twice: n-requested equals exactly one pod's request.
        total = sum(sched.snapshot.requested_of(n).get("cpu", 0) for n in ("n1", "n2", "n3"))
        assert total == 500
    finally:
        sched.stop()


def test_unconfirmed_assumption_expires(registry: Registry):
    clock = FakeClock(1000.0)
    client = LocalClient(registry)
    sched = Scheduler(client, seed=1, clock=clock, assume_ttl=30)
    for n in registry.store.list("nodes").items:
        sched._node_added(n)
    p = registry.create(pod("ghost"))
    with sched._lock:
        sched.snapshot.assume(p, "n1")
        sched._assumed[p["metadata"]["uid"]] = (p, 1000.0)
    assert sched.snapshot.requested_of("n1")["cpu"] == 500
    clock.advance(29)
    sched._expire_assumed()
    assert sched.snapshot.requested_of("n1")["cpu"] == 500
    clock.advance(2)
    sched._expire_assumed()
    assert sched.snapshot.requested_of("n1").get("cpu", 0) == 0


def test_pods_for_another_scheduler_are_left_alone(registry: Registry):
    sched = run(registry)
    try:
        # One watch delivers both, in order, and one loop schedules in queue order:
        # had "theirs" been queued, it would have had its cycle before "mine".
        registry.create(pod("theirs", schedulerName="other-scheduler"))
        registry.create(pod("mine"))
        wait_bound(registry, "mine")
        assert sched.decisions("default", "theirs") == []
        assert "nodeName" not in registry.get("pods", "default", "theirs")["spec"]
    finally:
        sched.stop()


def test_concurrent_creates_never_overcommit_a_node(registry: Registry):
    sched = run(registry)
    try:
        threads = [threading.Thread(target=lambda i=i: registry.create(pod(f"c{i}", cpu="700m")))
                   for i in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wait_for(lambda: sum(1 for p in registry.store.list("pods").items
                             if p["spec"].get("nodeName")) == 6, "6 pods bound", timeout=10)
        per_node: dict[str, int] = {}
        for p in registry.store.list("pods").items:
            if p["spec"].get("nodeName"):
                per_node[p["spec"]["nodeName"]] = per_node.get(p["spec"]["nodeName"], 0) + 700
        assert per_node and all(v <= 2000 for v in per_node.values())
        assert sum(per_node.values()) == 6 * 700  # 2 per 2-CPU node, the rest wait
    finally:
        sched.stop()


def test_a_shared_pod_informer_feeds_the_scheduler_and_stays_its_owners(registry: Registry):
    """Given the process's shared pod informer (the controller manager's), the
    scheduler reads pods through it, starts and stops none of it, and opens no
    pod watch of its own; another component's handlers on it run too."""
    shared = SharedInformers(LocalClient(registry))
    pods = shared.get("pods")
    others: list[str] = []
    pods.add_handlers(Handlers(on_add=lambda p: others.append(p["metadata"]["name"])))
    sched = Scheduler(LocalClient(registry), seed=7, pods=pods)
    assert sched.pods is pods
    shared.start()
    try:
        sched.start()
        try:
            assert "scheduler-pods" not in {t.name for t in threading.enumerate()}
            registry.create(pod("via-shared"))
            assert wait_bound(registry, "via-shared") in ("n1", "n2", "n3")
            wait_for(lambda: "via-shared" in others, "the other handler run")
        finally:
            sched.stop()
        # Stopping the scheduler left the owner's informer running.
        registry.create(pod("after"))
        wait_for(lambda: "after" in others, "the shared informer still delivering")
        assert registry.get("pods", "default", "after")["spec"].get("nodeName") is None
    finally:
        shared.stop()
