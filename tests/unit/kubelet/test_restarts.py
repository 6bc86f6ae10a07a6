"""Restart policy and CrashLoopBackOff (kubelet/backoff.py, kubelet/sync.py), and
``logs --previous``."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.errors import BadRequest
from minikube_py.kubelet.backoff import RestartBackoff
from minikube_py.kubelet.sync import go_duration
from tests.clock import FakeClock
from tests.waiting import wait_for

from .conftest import (
    container_status,
    create_pod,
    event_messages,
    get_pod,
    pod_in_phase,
)

KEY = ("uid", "c")


def test_backoff_first_exit_restarts_at_once_then_doubles_to_the_cap():
    clock = FakeClock(1000.0)
    b = RestartBackoff(base=10, cap=40, reset=600, clock=clock)
    delays = []
    for _ in range(6):
        finished = clock.now  # the container exits right after each start
        wait = b.remaining(KEY, finished, finished - 1)
        delays.append(wait)
        if wait:
            assert b.remaining(KEY, finished, finished - 1) == wait  # asking is free
            clock.advance(wait)  # wait it out
            assert b.remaining(KEY, finished, finished - 1) == 0.0  # restarts now
    # 1st exit: at once (the entry opens at 10); then 10, 20, 40, 40 (cap), ...
    assert delays == [0.0, 10.0, 20.0, 40.0, 40.0, 40.0]


@pytest.mark.parametrize(("ran", "gap", "want"), [
    (700.0, 0.0, 0.0),      # ran 10+ minutes: back to the base (first exit: at once)
    (5.0, 700.0, 0.0),      # the previous exit was long ago: reset
    (5.0, 15.0, 20.0),      # crashing again soon: doubled
])
def test_backoff_reset(ran, gap, want):
    clock = FakeClock(1000.0)
    b = RestartBackoff(base=10, cap=300, reset=600, clock=clock)
    assert b.remaining(KEY, clock.now, clock.now - 1) == 0.0   # first exit
    clock.advance(10)
    assert b.remaining(KEY, clock.now - 10, None) == 0.0        # second, after its 10 s
    clock.advance(gap)
    finished = clock.now
    if want == 0.0:
        assert b.remaining(KEY, finished, finished - ran) == 0.0
        assert b.delay(KEY) == 10.0
    else:
        assert b.remaining(KEY, finished, finished - ran) == want


def test_backoff_forget_drops_a_pods_entries():
    clock = FakeClock(1000.0)
    b = RestartBackoff(base=10, cap=300, clock=clock)
    b.remaining(KEY, clock.now)
    assert b.remaining(KEY, clock.now) == 10.0
    b.forget("uid")
    assert b.remaining(KEY, clock.now) == 0.0


@pytest.mark.parametrize(("seconds", "text"), [(10, "10s"), (20, "20s"), (300, "5m0s"),
                                               (0.2, "200ms"), (90.5, "1m30.5s")])
def test_go_duration(seconds, text):
    assert go_duration(seconds) == text


# ------------------------------------------------------------------ behaviour


def crashing(name: str = "c", code: str = "1") -> list[dict[str, Any]]:
    return [{"name": name, "image": "busybox", "env": [{"name": "FAKE_EXIT_CODE",
                                                        "value": code}]}]


def test_crash_loop_back_off_status_event_and_rising_count(client, make_kubelet):
    make_kubelet(restart_backoff=(0.3, 0.6))
    pod = create_pod(client, "p", containers=crashing())
    uid = pod["metadata"]["uid"]

    def backing_off() -> dict[str, Any] | None:
        st = container_status(client, "p", "c")
        waiting = st.get("state", {}).get("waiting", {})
        return st if waiting.get("reason") == "CrashLoopBackOff" else None

    # The first back-off lasts 300 ms: poll often enough to see it, not the next.
    st = wait_for(backing_off, "CrashLoopBackOff", interval=0.02)
    assert st["state"]["waiting"]["message"] == (
        f"back-off 300ms restarting failed container=c pod=p_default({uid})")
    assert st["lastState"]["terminated"]["exitCode"] == 1
    assert st["lastState"]["terminated"]["reason"] == "Error"
    assert st["ready"] is False
    assert get_pod(client, "p")["status"]["phase"] == "Running"
    wait_for(lambda: event_messages(client, "p", "BackOff"), "BackOff event")
    assert event_messages(client, "p", "BackOff")[0] == (
        f"Back-off restarting failed container c in pod p_default({uid})")
    # The delay doubles (to the 600ms cap) while the count keeps rising.
    wait_for(lambda: "back-off 600ms" in (
        container_status(client, "p", "c").get("state", {}).get("waiting", {})
        .get("message", "")), "doubled back-off")
    wait_for(lambda: container_status(client, "p", "c")
             .get("restartCount", 0) >= 3, "restartCount >= 3")


@pytest.mark.parametrize(("policy", "code", "restarts", "phase"), [
    ("Always", "0", True, "Running"),
    ("Always", "1", True, "Running"),
    ("OnFailure", "1", True, "Running"),
    ("OnFailure", "0", False, "Succeeded"),
    ("Never", "1", False, "Failed"),
    ("Never", "0", False, "Succeeded"),
])
def test_restart_policy(client, make_kubelet, runtime, policy, code, restarts, phase):
    make_kubelet(restart_backoff=(0.05, 0.1))
    create_pod(client, "p", restartPolicy=policy, containers=crashing(code=code))
    if restarts:
        wait_for(lambda: container_status(client, "p", "c")
                 .get("restartCount", 0) >= 2, "restarts")
        assert get_pod(client, "p")["status"]["phase"] == phase
    else:
        pod_in_phase(client, "p", phase)
        assert container_status(client, "p", "c")["restartCount"] == 0
        assert len(runtime.list_containers()) == 1


def test_failed_init_container_is_restarted_with_back_off(client, make_kubelet):
    make_kubelet(restart_backoff=(0.05, 0.1))
    create_pod(client, "p", initContainers=crashing("setup"))

    def init_restarts() -> int:
        statuses = get_pod(client, "p").get("status", {}).get("initContainerStatuses") or [{}]
        return int(statuses[0].get("restartCount", 0))

    wait_for(lambda: init_restarts() >= 2, "init restarts")
    assert get_pod(client, "p")["status"]["phase"] == "Pending"


def test_only_the_last_exited_instance_is_kept(client, make_kubelet, runtime):
    make_kubelet(restart_backoff=(0.05, 0.05))
    create_pod(client, "p", containers=crashing())
    wait_for(lambda: container_status(client, "p", "c")
             .get("restartCount", 0) >= 4, "restarts")
    # The current instance and the one before it: nothing older piles up.
    assert len(runtime.list_containers()) <= 2


def test_logs_previous_returns_the_last_terminated_instance(client, make_kubelet, runtime):
    kubelet = make_kubelet(restart_backoff=(30.0, 60.0))
    create_pod(client, "p", containers=crashing())
    # Exit 1 restarts at once; exit 2 waits 30 s in CrashLoopBackOff.
    st = wait_for(lambda: (s := container_status(client, "p", "c"))
                  .get("state", {}).get("waiting", {}).get("reason") == "CrashLoopBackOff"
                  and s, "back-off")
    assert st["restartCount"] == 1
    pod = get_pod(client, "p")
    previous = b"".join(kubelet.logs(pod, "c", previous=True))
    current = b"".join(kubelet.logs(pod, "c"))
    # Waiting to restart: both name lastState.terminated, the instance that just exited.
    assert previous == current
    assert b"exiting with code 1" in previous
    attempt_1 = next(c for c in runtime.list_containers()
                     if c.labels["minikube-py.io/restart-count"] == "1")
    assert previous == b"".join(runtime.container_logs(attempt_1.id))


def test_logs_previous_of_a_running_restarted_container(client, make_kubelet, runtime):
    kubelet = make_kubelet()
    create_pod(client, "p", containers=[{"name": "c", "image": "busybox"}])
    pod_in_phase(client, "p", "Running")
    pod = get_pod(client, "p")
    with pytest.raises(BadRequest, match='previous terminated container "c" in pod "p" '
                                         "not found"):
        kubelet.logs(pod, "c", previous=True)
    [first] = runtime.list_containers()
    runtime.stop_container(first.id)  # it "crashes": restarted at once (first exit)
    wait_for(lambda: container_status(client, "p", "c").get("restartCount") == 1
             and "running" in container_status(client, "p", "c")["state"], "restarted")
    previous = b"".join(kubelet.logs(get_pod(client, "p"), "c", previous=True))
    assert b"received SIGTERM" in previous
    assert previous == b"".join(runtime.container_logs(first.id))
    assert b"received SIGTERM" not in b"".join(kubelet.logs(get_pod(client, "p"), "c"))
