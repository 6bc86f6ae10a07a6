"""Containers killed, OOM-killed and paused behind the kubelet's back, for each
restartPolicy: the pod's status and restarts must follow the policy.

The table these tests hold the kubelet to (Kubernetes' behaviour):

=============  ==========================================  ===================================
fault          Always / OnFailure                          Never
=============  ==========================================  ===================================
podman kill    restarted: restartCount 1, lastState        not restarted: state.terminated
(SIGKILL)      .terminated exitCode 137 reason Error,      exitCode 137 reason Error, phase
               Running and Ready again                     Failed
OOM kill       restarted: restartCount 1, lastState        not restarted: state.terminated
(16Mi limit)   .terminated exitCode 137 reason OOMKilled   exitCode 137 reason OOMKilled,
                                                           phase Failed
podman pause   unchanged: Running, Ready, restartCount 0,  the same
               the same container
=============  ==========================================  ===================================

Why pause changes nothing: CRI has no "paused" state (a frozen container is
``CONTAINER_RUNNING`` to the kubelet, and Podman's ``paused`` maps to running
here too), so Kubernetes shows such a pod Running until a probe says otherwise.
These pods have no probes. A paused pod must still be deletable.

The OOM kill is triggered when the test asks (``touch /tmp/oom``, then the
container execs ``tail /dev/zero``), so a restarted container waits again
instead of crash-looping, and its status settles.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from tests.waiting import wait_for

from .conftest import (
    IMAGE,
    LABEL_CONTAINER_NAME,
    LABEL_NAME,
    POLL,
    PodmanCluster,
    conditions,
    container_status,
    get_json,
    settle,
)

pytestmark = pytest.mark.integration

POLICIES = ("Always", "OnFailure", "Never")
OOM_TRIGGER = "while [ ! -e /tmp/oom ]; do sleep 1; done; exec tail /dev/zero"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PodmanCluster]:
    c = PodmanCluster(tmp_path_factory.mktemp("behind") / "state")
    try:
        c.start()
        yield c
        c.stop()
    finally:
        left = c.cleanup()
        assert not left, f"containers left behind: {left}"


def pod(name: str, policy: str, *, oom: bool = False) -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": {"cpu": "10m", "memory": "8Mi"}}
    if oom:
        resources["limits"] = {"memory": "16Mi"}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"chaos": "behind"}},
            "spec": {"restartPolicy": policy, "terminationGracePeriodSeconds": 1,
                     "containers": [{
                         "name": "main", "image": IMAGE, "imagePullPolicy": "IfNotPresent",
                         "command": ["sh", "-c", OOM_TRIGGER if oom else "sleep 3600"],
                         "resources": resources}]}}


@dataclass(frozen=True)
class Expect:
    """One row of the table: what a pod's status must show after the fault."""

    phase: str
    restarts: int
    reason: str = ""  # the terminated reason (lastState when restarted, else state)
    exit_code: int | None = None
    same_container: bool = False


def _row_problems(p: dict[str, Any], want: Expect, old_id: str) -> list[str]:
    name = p["metadata"]["name"]
    status = p.get("status") or {}
    st = container_status(p, "main")
    out: list[str] = []
    if status.get("phase") != want.phase:
        out.append(f"{name}: phase {status.get('phase')}, want {want.phase}")
    if st.get("restartCount") != want.restarts:
        out.append(f"{name}: restartCount {st.get('restartCount')}, want {want.restarts}")
    if want.reason:
        where = "lastState" if want.restarts else "state"
        term = (st.get(where) or {}).get("terminated") or {}
        if (term.get("reason"), term.get("exitCode")) != (want.reason, want.exit_code):
            out.append(f"{name}: {where}.terminated {term.get('reason')} "
                       f"{term.get('exitCode')}, want {want.reason} {want.exit_code}")
    if want.phase == "Running":
        if "running" not in (st.get("state") or {}):
            out.append(f"{name}: state {list(st.get('state') or {})}, want running")
        if conditions(p).get("Ready") != "True":
            out.append(f"{name}: not Ready")
    cid = str(st.get("containerID", "")).rpartition("://")[2]
    if want.same_container and cid != old_id:
        out.append(f"{name}: container {cid[:12]} replaced {old_id[:12]}")
    return out


def _main_containers(cluster: PodmanCluster) -> dict[str, list[dict[str, Any]]]:
    """Pod name -> its app containers in Podman (any state)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for c in cluster.app_containers():
        if c["Labels"].get(LABEL_CONTAINER_NAME) == "main":
            out.setdefault(c["Labels"][LABEL_NAME], []).append(c)
    return out


def _apply_pods(cluster: PodmanCluster, pods: list[dict[str, Any]]) -> dict[str, str]:
    """Create the pods, wait until each runs; pod name -> its container id."""
    manifest = "---\n".join(yaml.safe_dump(p) for p in pods)
    cluster.d.kubectl("apply", "-f", "-", input=manifest)
    names = [p["metadata"]["name"] for p in pods]

    def running() -> dict[str, str] | None:
        got = {p["metadata"]["name"]: p for p in get_json(cluster, "pods", "-l",
                                                           "chaos=behind")["items"]}
        ids: dict[str, str] = {}
        for name in names:
            p = got.get(name)
            st = container_status(p, "main") if p else {}
            if not p or "running" not in (st.get("state") or {}) or \
                    conditions(p).get("Ready") != "True":
                return None
            ids[name] = str(st["containerID"]).rpartition("://")[2]
        return ids
    return wait_for(running, f"pods {names} to run", 120, interval=POLL)


def _check_table(cluster: PodmanCluster, expected: dict[str, Expect], old: dict[str, str],
                 timeout: float) -> dict[str, dict[str, Any]]:
    """Wait until every pod shows its row; on timeout the error lists every mismatch."""
    seen: dict[str, dict[str, Any]] = {}

    def problems() -> list[str]:
        seen.clear()
        seen.update({p["metadata"]["name"]: p for p in get_json(
            cluster, "pods", "-l", "chaos=behind")["items"]})
        out: list[str] = []
        for name, want in expected.items():
            if name not in seen:
                out.append(f"{name}: gone")
                continue
            out += _row_problems(seen[name], want, old[name])
        return out
    settle(problems, "pod statuses follow the restart policies", timeout)
    return seen


def _delete_all(cluster: PodmanCluster) -> None:
    cluster.d.kubectl("delete", "pods", "-l", "chaos=behind", "--wait=false")
    settle(lambda: [f"{len(pods)} pods left"] if (pods := get_json(
        cluster, "pods", "-l", "chaos=behind")["items"]) else
        [f"container {c[0]['Names'][0]} left" for c in _main_containers(cluster).values()],
        "the pods and their containers are gone", 90)


@pytest.mark.timeout(300)
def test_podman_kill_follows_restart_policy(cluster: PodmanCluster) -> None:
    names = {policy: f"kill-{policy.lower()}" for policy in POLICIES}
    old = _apply_pods(cluster, [pod(n, p) for p, n in names.items()])
    for name in names.values():
        cluster.podman("kill", old[name])  # SIGKILL: exit code 137
    restarted = Expect("Running", 1, "Error", 137)
    expected = {names["Always"]: restarted, names["OnFailure"]: restarted,
                names["Never"]: Expect("Failed", 0, "Error", 137)}
    _check_table(cluster, expected, old, 90)
    containers = _main_containers(cluster)

    def state(c: dict[str, Any]) -> str:
        # Podman shows a dead container "stopped" until its cleanup (run by conmon,
        # late on a busy host) makes it "exited": both are the same end for us.
        return "exited" if c["State"] in ("stopped", "exited") else str(c["State"])

    for policy in ("Always", "OnFailure"):  # the new one runs; the killed one is kept
        states = sorted(state(c) for c in containers[names[policy]])
        assert states == ["exited", "running"], (policy, states)
    assert [state(c) for c in containers[names["Never"]]] == ["exited"]
    _delete_all(cluster)


@pytest.mark.timeout(300)
def test_oom_kill_follows_restart_policy(cluster: PodmanCluster) -> None:
    names = {policy: f"oom-{policy.lower()}" for policy in POLICIES}
    old = _apply_pods(cluster, [pod(n, p, oom=True) for p, n in names.items()])
    for name in names.values():
        cluster.podman("exec", old[name], "touch", "/tmp/oom")
    restarted = Expect("Running", 1, "OOMKilled", 137)
    expected = {names["Always"]: restarted, names["OnFailure"]: restarted,
                names["Never"]: Expect("Failed", 0, "OOMKilled", 137)}
    _check_table(cluster, expected, old, 90)
    _delete_all(cluster)


@pytest.mark.timeout(300)
def test_paused_container_stays_running_and_can_be_deleted(cluster: PodmanCluster) -> None:
    names = {policy: f"pause-{policy.lower()}" for policy in POLICIES}
    old = _apply_pods(cluster, [pod(n, p) for p, n in names.items()])
    for name in names.values():
        cluster.podman("pause", old[name])
    unchanged = Expect("Running", 0, same_container=True)
    expected = dict.fromkeys(names.values(), unchanged)
    # Nothing would make the kubelet look at these pods soon: pausing makes no runtime
    # event it acts on, a paused container keeps its relist fingerprint (running),
    # and the pod resync is a minute away. A pod change does: its watch enqueues it.
    cluster.d.kubectl("annotate", "pod", *names.values(), "chaos/poke=1")
    # A deliberate observation window, not synchronization (a sync that changes
    # nothing writes nothing): the status never moves.
    deadline = time.monotonic() + 12
    while time.monotonic() < deadline:
        _check_table(cluster, expected, old, 0)
        states = {c["Labels"][LABEL_NAME]: c["State"] for cs in _main_containers(
            cluster).values() for c in cs}
        assert all(states[n] == "paused" for n in names.values()), states
        time.sleep(1)
    inspect = json.loads(cluster.podman("inspect", old[names["Always"]]).stdout)
    assert inspect[0]["State"]["Status"] == "paused"
    # Deleting a pod whose container is frozen still removes it, from the store and
    # from Podman.
    _delete_all(cluster)
