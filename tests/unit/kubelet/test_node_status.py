"""Node status (kubelet/node_status.py): images and the usage annotations."""

from __future__ import annotations

import threading
from typing import Any

from minikube_py.kubelet.node_status import ANNOTATION_CPU_USAGE, ANNOTATION_MEMORY_USAGE
from tests.waiting import wait_for

from .conftest import MI, create_pod, pod_in_phase


def node(client) -> dict[str, Any]:
    return client.get("nodes", None, "node-1")


def busy(name: str, millis: int, memory: int) -> list[dict[str, Any]]:
    return [{"name": name, "image": "busybox",
             "env": [{"name": "FAKE_CPU_MILLIS", "value": str(millis)},
                     {"name": "FAKE_MEMORY_BYTES", "value": str(memory)}]}]


def usage(client) -> tuple[int, int] | None:
    annotations = node(client)["metadata"].get("annotations") or {}
    if ANNOTATION_CPU_USAGE not in annotations:
        return None
    return int(annotations[ANNOTATION_CPU_USAGE]), int(annotations[ANNOTATION_MEMORY_USAGE])


def test_usage_annotations_sum_the_nodes_containers(client, make_kubelet, runtime):
    make_kubelet()
    other = make_kubelet("node-2")  # shares the runtime: its pods must not count here
    create_pod(client, "a", containers=busy("c", 200, 30 * MI))
    create_pod(client, "b", containers=busy("c", 50, 10 * MI))
    create_pod(client, "elsewhere", node="node-2", containers=busy("c", 999, 999 * MI))
    for name in ("a", "b", "elsewhere"):
        pod_in_phase(client, name, "Running")
    got = wait_for(lambda: (u := usage(client)) and u[1] == 40 * MI and u, "usage of a + b")
    assert abs(got[0] - 250) <= 2
    # a container that stops no longer counts
    client.delete("pods", "default", "a", grace_period_seconds=0)
    wait_for(lambda: (u := usage(client)) and u[1] == 10 * MI, "usage of b")
    assert other.node.name == "node-2"


def test_usage_is_zero_on_an_idle_node(client, kubelet):
    assert wait_for(lambda: usage(client), "annotations") == (0, 0)


def test_nothing_a_real_node_would_not_have(client, kubelet):
    create_pod(client, "a", containers=busy("c", 10, MI))
    pod_in_phase(client, "a", "Running")
    wait_for(lambda: usage(client), "annotations")
    n = node(client)
    assert set(n) == {"apiVersion", "kind", "metadata", "spec", "status"}
    assert set(n["status"]) <= {"capacity", "allocatable", "conditions", "addresses",
                                "daemonEndpoints", "nodeInfo", "images", "phase"}
    assert set(n["metadata"]["annotations"]) == {ANNOTATION_CPU_USAGE,
                                                 ANNOTATION_MEMORY_USAGE}


def test_images_are_listed_largest_first(client, kubelet, runtime):
    for i, image in enumerate(("nginx:1.27", "busybox:1.36", "redis:7")):
        create_pod(client, f"p{i}", containers=[{"name": "c", "image": image}])
    images = wait_for(lambda: len(
        imgs := node(client)["status"].get("images") or []) == 3 and imgs, "three images")
    sizes = [i["sizeBytes"] for i in images]
    assert sizes == sorted(sizes, reverse=True)
    by_name = {i["names"][0]: i["sizeBytes"] for i in images}
    for img in runtime.list_images():
        assert by_name[img.names[0]] == img.size_bytes


def test_usage_waits_for_the_budget(client, make_kubelet):
    allowed = threading.Event()
    asked: list[bool] = []

    def budget() -> bool:
        asked.append(allowed.is_set())
        return allowed.is_set()

    make_kubelet(usage_budget=budget)
    # Born with its usage (registration is not a heartbeat's write).
    assert wait_for(lambda: usage(client), "annotations at registration") == (0, 0)
    create_pod(client, "a", containers=busy("c", 200, 30 * MI))
    pod_in_phase(client, "a", "Running")
    # Heartbeats ask (every 0.2 s) and are refused: the usage stays as it was.
    wait_for(lambda: len(asked) >= 3, "three refused writes")
    assert usage(client) == (0, 0)
    allowed.set()
    got = wait_for(lambda: (u := usage(client)) and u[1] == 30 * MI and u, "usage of a")
    assert got[1] == 30 * MI
    assert asked[-1] is True


def test_stats_are_read_at_most_every_usage_interval(client, make_kubelet, runtime, clock,
                                                    monkeypatch):
    reads: list[float] = []
    beats: list[float] = []
    stats, list_images = runtime.stats, runtime.list_images
    monkeypatch.setattr(runtime, "stats", lambda: reads.append(clock()) or stats())
    # Every heartbeat lists the images for the node's status: a beat counter.
    monkeypatch.setattr(runtime, "list_images", lambda: beats.append(clock()) or list_images())
    make_kubelet(usage_interval=3600)
    assert wait_for(lambda: usage(client), "annotations at registration") == (0, 0)
    create_pod(client, "a", containers=busy("c", 200, 30 * MI))
    pod_in_phase(client, "a", "Running")
    seen = len(beats)
    wait_for(lambda: len(beats) >= seen + 5, "five more heartbeats")
    assert len(reads) == 1, f"stats read at {len(reads)} heartbeats within the interval"
    assert usage(client) == (0, 0)
    clock.advance(3600)
    got = wait_for(lambda: (u := usage(client)) and u[1] == 30 * MI and u, "usage of a")
    assert got[1] == 30 * MI
    assert len(reads) == 2


def test_a_heartbeat_with_nothing_new_does_not_build_the_status_again(client, make_kubelet,
                                                                    runtime, monkeypatch):
    from minikube_py.kubelet import node_status
    built: list[str] = []
    beats: list[int] = []
    conditions, list_images = node_status.node_conditions, runtime.list_images
    monkeypatch.setattr(node_status, "node_conditions",
                        lambda *a, **k: built.append("x") or conditions(*a, **k))
    monkeypatch.setattr(runtime, "list_images", lambda: beats.append(1) or list_images())
    make_kubelet()
    wait_for(lambda: len(beats) >= 3, "three heartbeats")
    before = len(built)
    wait_for(lambda: len(beats) >= 8, "five more heartbeats")
    assert len(built) - before <= 1, f"the status was built at {len(built) - before} of 5 beats"

    # Someone else changes the status (the node lifecycle controller's Unknown):
    # the next heartbeat sees a new version, builds the status and puts it right.
    current = node(client)
    current["status"]["conditions"] = [
        {**c, "status": "Unknown", "reason": "NodeStatusUnknown"} if c["type"] == "Ready" else c
        for c in current["status"]["conditions"]]
    client.update(current, subresource="status")
    wait_for(lambda: {c["type"]: c["status"] for c in node(client)["status"]["conditions"]}
             ["Ready"] == "True", "Ready put back to True")
    assert len(built) > before


def test_the_bucket_allows_its_burst_then_its_rate():
    from minikube_py.client.workqueue import BucketRateLimiter
    now = [0.0]
    bucket = BucketRateLimiter(qps=10, burst=3, clock=lambda: now[0])
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.05  # half a token
    assert not bucket.allow()
    now[0] += 0.05
    assert bucket.allow() and not bucket.allow()
    now[0] += 100  # never more than the burst
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]
