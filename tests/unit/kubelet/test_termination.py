"""Pod deletion (kubelet/sync.py + kubelet/terminator.py): grace periods on their own
threads, SIGKILL after the grace, force deletion, preStop hooks."""

from __future__ import annotations

import threading
import time
from typing import Any

from minikube_py.kubelet.terminator import Terminator, parallel
from tests.waiting import wait_for

from .conftest import (
    container_status,
    create_pod,
    event_messages,
    events_for,
    pod_in_phase,
)

STUBBORN = [{"name": "c", "image": "busybox",
             "env": [{"name": "FAKE_IGNORE_SIGTERM", "value": "1"}]}]


def gone(client, name: str) -> bool:
    return name not in {p["metadata"]["name"]
                        for p in client.list("pods", namespace="default").items}


def test_terminator_runs_one_job_per_key_and_stops():
    t = Terminator("test")
    release = threading.Event()
    ran: list[str] = []

    def job() -> None:
        ran.append("a")
        release.wait(5)

    assert t.submit("a", job) is True
    assert t.submit("a", job) is False  # still running
    assert t.busy("a")
    release.set()
    wait_for(lambda: not t.busy("a"), "job done")
    assert t.submit("a", lambda: ran.append("again")) is True
    t.stop(2)
    assert t.submit("b", lambda: None) is False
    assert ran[0] == "a"


def test_parallel_runs_jobs_concurrently():
    barrier = threading.Barrier(3, timeout=2)
    parallel([barrier.wait, barrier.wait, barrier.wait])  # would deadlock if sequential


def test_graceful_delete_kills_after_the_grace_without_blocking_other_pods(client, kubelet,
                                                                           runtime):
    create_pod(client, "slow", containers=STUBBORN, terminationGracePeriodSeconds=2)
    pod_in_phase(client, "slow", "Running")
    started = time.monotonic()
    client.delete("pods", "default", "slow")
    wait_for(lambda: event_messages(client, "slow", "Killing"), "Killing event")
    # Meanwhile other pods are synced at once (no worker waits for the grace period).
    for i in range(6):  # more pods than workers
        create_pod(client, f"other-{i}")
    for i in range(6):
        pod_in_phase(client, f"other-{i}", "Running", timeout=1.5)
    assert not gone(client, "slow")  # still within its grace period
    wait_for(lambda: gone(client, "slow"), "slow pod deleted")
    took = time.monotonic() - started
    assert 1.0 <= took < 6, took
    assert event_messages(client, "slow", "Killing") == ["Stopping container c"]
    assert not any(sb.labels["minikube-py.io/name"] == "slow"
                   for sb in runtime.list_sandboxes())


def test_final_status_shows_sigkill_after_the_grace(client, kubelet, runtime):
    create_pod(client, "slow", containers=STUBBORN, terminationGracePeriodSeconds=1)
    running = pod_in_phase(client, "slow", "Running")
    watch = client.watch("pods", namespace="default",
                         resource_version=running["metadata"]["resourceVersion"])
    client.delete("pods", "default", "slow")
    seen = []
    while (ev := watch.next(timeout=10)) is not None:
        seen.append(ev)
        if ev.type == "DELETED":
            break
    watch.stop()
    final = seen[-2].object["status"]
    assert final["phase"] == "Failed"
    assert final["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 137


def test_force_delete_kills_immediately(client, kubelet, runtime):
    create_pod(client, "slow", containers=STUBBORN, terminationGracePeriodSeconds=30)
    pod_in_phase(client, "slow", "Running")
    client.delete("pods", "default", "slow")  # graceful: 30 s
    wait_for(lambda: event_messages(client, "slow", "Killing"), "Killing")
    started = time.monotonic()
    client.delete("pods", "default", "slow", grace_period_seconds=0)  # --force
    wait_for(lambda: runtime.list_sandboxes() == [], "sandbox removed")
    assert time.monotonic() - started < 3
    wait_for(lambda: kubelet.syncer.terminating() == [], "termination finished")


def test_a_second_delete_shortens_the_grace_period(client, kubelet, runtime):
    create_pod(client, "slow", containers=STUBBORN, terminationGracePeriodSeconds=30)
    pod_in_phase(client, "slow", "Running")
    client.delete("pods", "default", "slow")
    wait_for(lambda: event_messages(client, "slow", "Killing"), "Killing")
    started = time.monotonic()
    client.delete("pods", "default", "slow", grace_period_seconds=1)
    wait_for(lambda: gone(client, "slow"), "pod deleted")
    assert time.monotonic() - started < 5


def test_force_deleting_a_running_pod_cleans_up(client, kubelet, runtime):
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    client.delete("pods", "default", "web", grace_period_seconds=0)
    wait_for(lambda: runtime.list_sandboxes() == [], "sandbox removed")
    assert runtime.list_containers() == []


def test_pre_stop_exec_hook_runs_before_the_stop(client, kubelet, runtime):
    containers: list[dict[str, Any]] = [{
        "name": "c", "image": "busybox",
        "lifecycle": {"preStop": {"exec": {"command": ["nginx", "-s", "quit"]}}}}]
    create_pod(client, "p", containers=containers)
    pod_in_phase(client, "p", "Running")
    client.delete("pods", "default", "p")
    wait_for(lambda: gone(client, "p"), "pod deleted")
    assert ("c", ("nginx", "-s", "quit")) in [(h[1], h[2]) for h in runtime.exec_history]


def test_failing_pre_stop_hook_is_reported_and_the_stop_goes_on(client, kubelet):
    containers: list[dict[str, Any]] = [{
        "name": "c", "image": "busybox",
        "env": [{"name": "FAKE_EXEC_EXIT_CODE", "value": "2"}],
        "lifecycle": {"preStop": {"exec": {"command": ["drain"]}}}}]
    create_pod(client, "p", containers=containers)
    pod_in_phase(client, "p", "Running")
    client.delete("pods", "default", "p")
    wait_for(lambda: gone(client, "p"), "pod deleted")
    assert event_messages(client, "p", "FailedPreStopHook") == [
        "PreStopHook failed: fake exec: drain"]


def test_deleting_a_pod_stuck_pending_is_quick(client, kubelet):
    create_pod(client, "ghost", containers=[{"name": "c", "image": "ghost:1"}])
    wait_for(lambda: container_status(client, "ghost", "c")
             .get("state", {}).get("waiting", {}).get("reason") in ("ErrImagePull",
                                                                    "ImagePullBackOff"),
             "ErrImagePull")
    client.delete("pods", "default", "ghost")
    wait_for(lambda: gone(client, "ghost"), "pod deleted")
    assert "Killing" not in [e["reason"] for e in events_for(client, "ghost")]


def test_terminating_pod_is_not_restarted(client, make_kubelet, runtime):
    make_kubelet(restart_backoff=(0.05, 0.1))
    create_pod(client, "p", terminationGracePeriodSeconds=1, containers=[
        {"name": "c", "image": "busybox", "env": [{"name": "FAKE_IGNORE_SIGTERM",
                                                   "value": "1"}]},
        {"name": "crashy", "image": "busybox", "env": [{"name": "FAKE_EXIT_CODE",
                                                        "value": "1"}]}])
    wait_for(lambda: container_status(client, "p", "crashy")
             .get("restartCount", 0) >= 1, "crash looping")
    client.delete("pods", "default", "p")
    wait_for(lambda: event_messages(client, "p", "Killing"), "Killing")
    stream = runtime.events()
    wait_for(lambda: gone(client, "p"), "pod deleted")  # a whole grace period later
    created = []
    while (ev := stream.next(timeout=0)) is not None:
        if ev.type == "container-created":
            created.append(ev.labels["minikube-py.io/container-name"])
    stream.stop()
    assert created == []  # nothing was (re)started while terminating
