"""The daemon's own Podman service SIGKILLed underneath a running cluster.

Containers outlive the service (conmon holds them). The daemon must notice (its
kubelets log that the runtime does not answer, nothing crashes), restart the
service on the same socket (:class:`~minikube_py.runtime.podman_service.PodmanService`
supervises it and logs the restart), and the kubelets must reconnect: pods that
were untouched keep their containers (same ids, no restart), a container killed
while the service was down is restarted by its policy (restartCount 1, last
state exit 137), and a pod deleted meanwhile is removed from Podman too.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest

from tests.waiting import wait_for

from .conftest import (
    LABEL_CONTAINER_NAME,
    LABEL_NAME,
    POLL,
    PodmanCluster,
    agreement,
    container_status,
    get_json,
    settle,
    sleeper,
)

pytestmark = pytest.mark.integration

NAME = "svc"


def _app_ids(cluster: PodmanCluster) -> dict[str, str]:
    """Pod name -> its running app container's id, from Podman."""
    return {c["Labels"][LABEL_NAME]: c["Id"] for c in cluster.app_containers()
            if c["State"] == "running" and c["Labels"].get(LABEL_CONTAINER_NAME) == "main"}


def _app_pids(cluster: PodmanCluster) -> dict[str, int]:
    """Pod name -> the host pid of its app container's main process."""
    return {c["Labels"][LABEL_NAME]: int(c["Pid"]) for c in cluster.app_containers()
            if c["State"] == "running" and c["Labels"].get(LABEL_CONTAINER_NAME) == "main"}


def _kill_service(cluster: PodmanCluster) -> int:
    pid = cluster.service_pid()
    assert pid is not None, "the daemon's Podman service is not running"
    os.kill(pid, signal.SIGKILL)
    return pid


def _service_back(cluster: PodmanCluster, old: int) -> int | None:
    pid = cluster.service_pid()
    if pid is None or pid == old:
        return None
    ping = cluster.podman("info", "--format", "{{.Version.Version}}", check=False)
    return pid if ping.returncode == 0 else None


@pytest.mark.timeout(420)
def test_podman_service_killed_kubelets_reconnect_and_pods_keep_or_regain_state(
        clusters: Callable[..., PodmanCluster]) -> None:
    cluster = clusters("svc")
    d = cluster.start()
    d.kubectl("apply", "-f", "-", input=sleeper(NAME, replicas=4))
    settle(lambda: agreement(cluster, NAME), "4 pods up before the fault", 180)
    before = _app_ids(cluster)
    victim, deleted, *kept = sorted(before)
    victim_pid = _app_pids(cluster)[victim]

    # The service and, while it is away, one container's process: Podman learns of
    # that exit only from conmon, after it is back.
    old = _kill_service(cluster)
    os.kill(victim_pid, signal.SIGKILL)
    d.kubectl("delete", "pod", deleted, "--wait=false")  # the API does not need Podman

    new = wait_for(lambda: _service_back(cluster, old), "the Podman service to be back", 60,
                   interval=POLL)
    assert d.proc.poll() is None, "the daemon died with its Podman service:\n" + \
        cluster.log_text()[-3000:]
    log = cluster.log_text()
    assert f"the Podman service (pid {old}) was killed by signal 9; restarting it" in log, \
        log[-3000:]
    wait_for(lambda: "the Podman service is back" in cluster.log_text(),
             "the restart to be logged", 30, interval=POLL)

    took = settle(lambda: agreement(cluster, NAME, restarts=True),
                  "the cluster recovers after the Podman service restarted", 180,
                  detail=lambda: agreement(cluster, NAME, restarts=True, full=True))
    pods = {p["metadata"]["name"]: p for p in get_json(cluster, "pods")["items"]}
    after = _app_ids(cluster)
    for name in kept:  # untouched pods kept their containers: no restart, same ids
        assert after.get(name) == before[name], f"{name}: container replaced"
        assert container_status(pods[name], "main")["restartCount"] == 0
    st = container_status(pods[victim], "main")
    assert st["restartCount"] == 1, st
    assert st["lastState"]["terminated"]["exitCode"] == 137, st
    assert after[victim] != before[victim]
    assert deleted not in pods, "the pod deleted while Podman was down is still there"
    assert deleted not in {c["Labels"][LABEL_NAME] for c in cluster.containers()}, \
        "the deleted pod's containers are still in Podman"
    print(f"Podman service pid {old} killed, back as pid {new}; cluster agreed "
          f"{took:.1f} s later")

    # Supervision goes on: a second kill is survived the same way.
    second = _kill_service(cluster)
    wait_for(lambda: _service_back(cluster, second), "the second restart", 60, interval=POLL)
    settle(lambda: agreement(cluster, NAME, restarts=True), "agreement after a second kill", 120)
    assert _app_ids(cluster) == after
    assert cluster.log_text().count("the Podman service is back") >= 2
    cluster.stop()
    assert cluster.service_pid() is None, "the daemon's stop left its Podman service running"


def _events_connected(cluster: PodmanCluster) -> bool:
    """The kubelet's runtime event stream has Podman's answer (logged at debug
    level as soon as the stream's headers arrive)."""
    return "Podman event stream connected" in cluster.log_text()


def test_daemon_notices_podman_going_away(clusters: Callable[..., PodmanCluster]) -> None:
    """While the service is away the kubelets say so rather than failing silently:
    their event stream reports the gap (and they relist often meanwhile), then
    that it is back."""
    cluster = clusters("notice", "--nodes", "1", "--log-level", "debug")
    cluster.start()
    # The stream subscribed at the kubelet's start connects on its own thread: one
    # that first connects once the service is back has no gap to report.
    wait_for(lambda: _events_connected(cluster), "the kubelet's event stream to connect",
             30, interval=POLL)
    old = _kill_service(cluster)
    wait_for(lambda: _service_back(cluster, old), "the Podman service to be back", 60,
             interval=POLL)
    wait_for(lambda: "runtime event stream interrupted" in cluster.log_text(),
             "the kubelet to log that the runtime went away", 30, interval=POLL)
    wait_for(lambda: "runtime event stream back" in cluster.log_text(),
             "the kubelet to log that runtime events flow again", 30, interval=POLL)
    assert cluster.d.proc.poll() is None
