"""Pods as real Podman containers, through a real daemon and the real kubectl:
logs, cgroup limits, restarts, OOM, probes, hostPort, termination, init order,
and adoption after the daemon is killed."""

from __future__ import annotations

import json
import secrets
import signal
import socket
import subprocess
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import Daemon, start_daemon, stop_daemon
from tests.hostclean import release_cluster
from tests.waiting import wait_for

pytestmark = pytest.mark.integration

IMAGE = "localhost/minikube-py/busybox:1.35"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    d = start_daemon(tmp_path_factory.mktemp("podman") / "state", "--runtime", "podman",
                     "--nodes", "2", "--restart-backoff", "1,8")
    try:
        yield d
    finally:
        d.kubectl("delete", "pods", "--all", "--grace-period=0", "--force", check=False)
        try:
            assert stop_daemon(d) == 0
        finally:
            release_cluster(d.state)


def apply(d: Daemon, name: str, *, restart: str = "Always", grace: int = 2,
          **container: Any) -> None:
    spec: dict[str, Any] = {"restartPolicy": restart, "terminationGracePeriodSeconds": grace,
                            "containers": [{"name": "main", "image": IMAGE,
                                            "imagePullPolicy": "IfNotPresent", **container}]}
    d.kubectl("apply", "-f", "-", input=yaml.safe_dump(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}))


def pod(d: Daemon, name: str) -> dict[str, Any]:
    return json.loads(d.kubectl("get", "pod", name, "-o", "json").stdout)


def wait_pod(d: Daemon, name: str, check: Any, what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = pod(d, name)
        result = check(last)
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError(f"{name}: timed out waiting for {what}; last status: "
                         f"{json.dumps(last.get('status'), indent=1)}")


def container_status(p: dict[str, Any], name: str = "main") -> dict[str, Any]:
    for cs in (p.get("status") or {}).get("containerStatuses") or []:
        if cs["name"] == name:
            return dict(cs)
    return {}


def delete(d: Daemon, *names: str) -> None:
    d.kubectl("delete", "pod", *names, "--ignore-not-found", "--grace-period=0", "--force")


def test_pod_runs_and_logs_come_back(cluster: Daemon):
    apply(cluster, "hello", command=["sh", "-c", "echo hello from podman; sleep 3600"])
    cluster.kubectl("wait", "--for=condition=Ready", "pod/hello", "--timeout=60s")
    p = pod(cluster, "hello")
    cs = container_status(p)
    assert cs["state"]["running"]["startedAt"] and cs["containerID"].startswith("podman://")
    assert cs["imageID"] and p["status"]["podIP"]
    assert cluster.kubectl("logs", "hello").stdout == "hello from podman\n"
    delete(cluster, "hello")


def test_init_containers_run_in_order_before_the_app(cluster: Daemon):
    manifest = textwrap.dedent(f"""\
        apiVersion: v1
        kind: Pod
        metadata: {{name: ordered}}
        spec:
          volumes: [{{name: work, emptyDir: {{}}}}]
          initContainers:
          - {{name: first, image: {IMAGE}, command: [sh, -c, "echo first >> /work/log"],
             volumeMounts: [{{name: work, mountPath: /work}}]}}
          - {{name: second, image: {IMAGE}, command: [sh, -c, "echo second >> /work/log"],
             volumeMounts: [{{name: work, mountPath: /work}}]}}
          containers:
          - {{name: main, image: {IMAGE}, command: [sh, -c, "cat /work/log; sleep 3600"],
             volumeMounts: [{{name: work, mountPath: /work}}]}}
        """)
    cluster.kubectl("apply", "-f", "-", input=manifest)
    cluster.kubectl("wait", "--for=condition=Ready", "pod/ordered", "--timeout=60s")
    assert cluster.kubectl("logs", "ordered").stdout == "first\nsecond\n"
    inits = pod(cluster, "ordered")["status"]["initContainerStatuses"]
    assert [(c["name"], c["state"]["terminated"]["reason"]) for c in inits] == [
        ("first", "Completed"), ("second", "Completed")]
    delete(cluster, "ordered")


def test_limits_are_in_the_containers_cgroup(cluster: Daemon):
    apply(cluster, "limited", resources={"requests": {"cpu": "100m", "memory": "32Mi"},
                                         "limits": {"cpu": "250m", "memory": "64Mi"}},
          command=["sh", "-c", "cat /sys/fs/cgroup/memory/memory.limit_in_bytes "
                   "/sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us "
                   "/sys/fs/cgroup/cpu/cpu.shares; sleep 3600"])
    cluster.kubectl("wait", "--for=condition=Ready", "pod/limited", "--timeout=60s")
    memory, quota, period, shares = cluster.kubectl("logs", "limited").stdout.split()
    assert int(memory) == 64 * 1024 * 1024
    assert int(quota) * 1000 // int(period) == 250  # 250 millicores
    assert int(shares) == 102  # requests: 100m -> 102 shares, as the kubelet computes
    assert pod(cluster, "limited")["status"]["qosClass"] == "Burstable"
    delete(cluster, "limited")


def test_crashing_container_backs_off_with_rising_restarts(cluster: Daemon):
    apply(cluster, "crasher", command=["sh", "-c", "echo crashing; exit 3"])
    seen_backoff: list[str] = []

    def check(p: dict[str, Any]) -> bool:
        cs = container_status(p)
        waiting = (cs.get("state") or {}).get("waiting") or {}
        if waiting.get("reason") == "CrashLoopBackOff":
            seen_backoff.append(waiting.get("message", ""))
        return bool(cs.get("restartCount", 0) >= 3 and seen_backoff)

    wait_pod(cluster, "crasher", check, "3 restarts and CrashLoopBackOff")
    cs = container_status(pod(cluster, "crasher"))
    assert cs["lastState"]["terminated"]["exitCode"] == 3
    assert cs["lastState"]["terminated"]["reason"] == "Error"
    assert "restarting failed container=main pod=crasher_default(" in seen_backoff[0]
    assert cluster.kubectl("logs", "crasher", "--previous").stdout == "crashing\n"
    delete(cluster, "crasher")


def test_over_its_memory_limit_a_container_is_oomkilled(cluster: Daemon):
    apply(cluster, "hungry", restart="Never",
          resources={"limits": {"memory": "16Mi", "cpu": "500m"}},
          command=["sh", "-c", "x=a; while true; do x=$x$x$x$x; done"])
    terminated = wait_pod(cluster, "hungry", lambda p: (container_status(p).get("state") or {})
                          .get("terminated"), "termination")
    assert terminated["reason"] == "OOMKilled"
    assert terminated["exitCode"] == 137
    assert pod(cluster, "hungry")["status"]["phase"] == "Failed"
    delete(cluster, "hungry")


def test_failing_liveness_probe_restarts_the_container(cluster: Daemon):
    apply(cluster, "unhealthy", command=["sh", "-c", "touch /tmp/ok; sleep 2; rm /tmp/ok; "
                                         "sleep 3600"],
          livenessProbe={"exec": {"command": ["cat", "/tmp/ok"]}, "periodSeconds": 1,
                         "failureThreshold": 1})
    wait_pod(cluster, "unhealthy", lambda p: container_status(p).get("restartCount", 0) >= 1,
             "a liveness restart")
    events = cluster.kubectl("get", "events", "--field-selector",
                             "involvedObject.name=unhealthy").stdout
    assert "Liveness probe failed" in events
    assert "failed liveness probe, will be restarted" in events
    delete(cluster, "unhealthy")


def test_readiness_probe_gates_ready(cluster: Daemon):
    apply(cluster, "warming", command=["sh", "-c", "sleep 3; touch /tmp/ready; sleep 3600"],
          readinessProbe={"exec": {"command": ["test", "-f", "/tmp/ready"]},
                          "periodSeconds": 1})
    wait_pod(cluster, "warming", lambda p: (container_status(p).get("state") or {})
             .get("running"), "running")
    early = pod(cluster, "warming")
    assert container_status(early)["ready"] is False
    ready = next(c for c in early["status"]["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "False"
    cluster.kubectl("wait", "--for=condition=Ready", "pod/warming", "--timeout=30s")
    assert container_status(pod(cluster, "warming"))["ready"] is True
    delete(cluster, "warming")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_host_port_serves_http_from_busybox_httpd(cluster: Daemon):
    port = _free_port()
    apply(cluster, "web", command=["sh", "-c", "mkdir -p /www && echo served-by-httpd > "
                                   "/www/index.html && httpd -f -p 8080 -h /www"],
          ports=[{"containerPort": 8080, "hostPort": port}])
    cluster.kubectl("wait", "--for=condition=Ready", "pod/web", "--timeout=60s")
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as resp:
                assert resp.read() == b"served-by-httpd\n"
                break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
    delete(cluster, "web")


@pytest.mark.parametrize("trap, grace, low, high", [
    ("trap 'echo bye; exit 0' TERM", 10, 0.0, 8.0),   # honours SIGTERM: ends early
    ("trap '' TERM", 3, 2.5, 9.0),                      # ignores it: killed at the grace
])
def test_graceful_termination_honours_the_grace_period(cluster: Daemon, trap: str, grace: int,
                                                       low: float, high: float):
    name = "stopper" if grace == 10 else "stubborn"
    apply(cluster, name, grace=grace,
          command=["sh", "-c", f"{trap}; while true; do sleep 0.2; done"])
    cluster.kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=60s")
    started = time.monotonic()
    cluster.kubectl("delete", "pod", name, "--timeout=60s")
    took = time.monotonic() - started
    assert low <= took <= high, f"deletion took {took:.1f}s with grace {grace}s"


def test_kill_9_of_the_daemon_and_restart_adopts_every_pod(tmp_path: Path):
    state = tmp_path / "state"
    d = start_daemon(state, "--runtime", "podman", "--nodes", "2")
    names = ["keep-0", "keep-1", "keep-2"]
    try:
        for n in names:
            apply(d, n, command=["sh", "-c", "sleep 3600"])
        for n in names:
            d.kubectl("wait", "--for=condition=Ready", f"pod/{n}", "--timeout=60s")
        snap = {n: pod(d, n) for n in names}
        missing = {n: p["status"] for n, p in snap.items() if "containerID" not in
                   container_status(p)}
        assert not missing, json.dumps(missing, indent=1)
        before = {n: container_status(p)["containerID"] for n, p in snap.items()}
        sock = f"unix://{state}/podman/podman.sock"
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait()
        # An orphan: a Podman pod with our labels that no stored pod owns.
        # (what a pod deleted while the daemon was down leaves behind)
        subprocess.run(["podman", "--url", sock, "pod", "create", "--name", "orphan-test",
                        "--label", "minikube-py.io/pod-uid=does-not-exist",
                        "--label", "minikube-py.io/namespace=default",
                        "--label", "minikube-py.io/name=gone-while-down",
                        "--label", "minikube-py.io/node=node-1",
                        "--label", "minikube-py.io/cluster="
                        + (state / "cluster-id").read_text().strip()], check=True,
                       capture_output=True)
        d = start_daemon(state, "--runtime", "podman", "--nodes", "2")
        for n in names:
            d.kubectl("wait", "--for=condition=Ready", f"pod/{n}", "--timeout=60s")
        after = {n: container_status(pod(d, n)) for n in names}
        assert {n: cs["containerID"] for n, cs in after.items()} == before  # adopted
        assert all(cs["restartCount"] == 0 for cs in after.values())
        deadline = time.monotonic() + 30
        cluster_id = (state / "cluster-id").read_text().strip()
        while True:
            # This cluster's containers only: the host may run other clusters' pods.
            out = subprocess.run(["podman", "--url", f"unix://{state}/podman/podman.sock",
                                  "ps", "-a", "--filter",
                                  f"label=minikube-py.io/cluster={cluster_id}",
                                  "--format", "{{.Names}}"], capture_output=True, text=True,
                                 check=True).stdout.split()
            infra = [x for x in out if x.endswith("-infra")]
            apps = [x for x in out if not x.endswith("-infra")]
            if len(infra) == 3 and len(apps) == 3:
                break
            assert time.monotonic() < deadline, f"duplicates or orphans remain: {out}"
            time.sleep(0.3)
    finally:
        d.kubectl("delete", "pods", "--all", "--grace-period=0", "--force", check=False)
        stop_daemon(d)
        release_cluster(state)


def test_two_daemons_with_the_same_node_names_leave_each_other_alone(cluster: Daemon,
                                                                    tmp_path: Path):
    # `cluster` runs node-1 and node-2; a second control plane uses the same names.
    apply(cluster, "first-cluster", command=["sh", "-c", "sleep 3600"])
    cluster.kubectl("wait", "--for=condition=Ready", "pod/first-cluster", "--timeout=60s")
    before = container_status(pod(cluster, "first-cluster"))["containerID"]
    # The danger is the second daemon's start: each of its kubelets lists the Podman
    # pods of its node and removes those that no pod of its own owns (later relists
    # only act on pods whose state changed). An orphan of the second cluster on each
    # node (its cluster id chosen here, before the daemon makes one) shows when that
    # has happened: the same pass would have removed the first cluster's pod had it
    # seen it.
    state = tmp_path / "other"
    state.mkdir(mode=0o700)
    cluster_id = secrets.token_hex(6)
    (state / "cluster-id").write_text(cluster_id + "\n")
    orphans = [f"orphan-{cluster_id}-{node}" for node in ("node-1", "node-2")]
    for name, node in zip(orphans, ("node-1", "node-2"), strict=True):
        subprocess.run(["podman", "pod", "create", "--name", name,
                        "--label", f"minikube-py.io/pod-uid=orphan-{node}",
                        "--label", "minikube-py.io/namespace=default",
                        "--label", f"minikube-py.io/name=orphan-{node}",
                        "--label", f"minikube-py.io/node={node}",
                        "--label", f"minikube-py.io/cluster={cluster_id}"],
                       check=True, capture_output=True)

    def orphans_left() -> list[str]:
        return [name for name in orphans if subprocess.run(
            ["podman", "pod", "exists", name], capture_output=True).returncode == 0]

    other = start_daemon(state, "--runtime", "podman", "--nodes", "2")
    try:
        wait_for(lambda: not orphans_left(), "the second daemon to remove its own orphans",
                 timeout=60)
        # Had that pass taken the first cluster's pod too, it would have been stopping
        # it meanwhile, within its 2 s grace period. A deliberate observation window
        # (a pod left alone shows nothing), for that stop to show.
        time.sleep(3)
        inspected = subprocess.run(["podman", "inspect", "--format", "{{.State.Status}}",
                                    before.removeprefix("podman://")],
                                   capture_output=True, text=True)
        assert inspected.stdout.strip() == "running", inspected.stdout + inspected.stderr
        after = container_status(pod(cluster, "first-cluster"))
        assert after["containerID"] == before and after["restartCount"] == 0
        assert "running" in after["state"]
        assert other.kubectl("get", "pods", "-A", "-o", "name").stdout == ""
    finally:
        assert stop_daemon(other) == 0
        if left := orphans_left():
            subprocess.run(["podman", "pod", "rm", "-f", *left], capture_output=True)
        release_cluster(state)
    delete(cluster, "first-cluster")


def test_security_context_is_applied(cluster: Daemon):
    apply(cluster, "secure", command=["sh", "-c", "id -u; id -g; "
                                      "touch /rootfs-write 2>/dev/null && echo writable "
                                      "|| echo read-only; grep CapEff /proc/self/status; "
                                      "sleep 3600"],
          securityContext={"runAsUser": 1000, "runAsGroup": 2000,
                           "readOnlyRootFilesystem": True,
                           "capabilities": {"drop": ["ALL"]}})
    cluster.kubectl("wait", "--for=condition=Ready", "pod/secure", "--timeout=60s")
    uid, gid, rootfs, caps = cluster.kubectl("logs", "secure").stdout.splitlines()
    assert (uid, gid, rootfs) == ("1000", "2000", "read-only")
    assert caps.split()[-1] == "0000000000000000"
    delete(cluster, "secure")


def test_http_readiness_probe_reaches_the_pod_ip(cluster: Daemon):
    apply(cluster, "probed", command=["sh", "-c", "mkdir -p /www && echo ok > /www/index.html "
                                      "&& httpd -f -p 8080 -h /www"],
          readinessProbe={"httpGet": {"path": "/index.html", "port": 8080},
                          "periodSeconds": 1})
    cluster.kubectl("wait", "--for=condition=Ready", "pod/probed", "--timeout=60s")
    delete(cluster, "probed")


def test_pods_run_inside_their_nodes_cgroup(cluster: Daemon):
    apply(cluster, "carved", command=["sh", "-c", "cat /proc/self/cgroup; sleep 3600"])
    cluster.kubectl("wait", "--for=condition=Ready", "pod/carved", "--timeout=60s")
    node = pod(cluster, "carved")["spec"]["nodeName"]
    memory_line = next(line for line in cluster.kubectl("logs", "carved").stdout.splitlines()
                       if ":memory:" in line)
    # Under this cluster's id: another cluster's node-1 is another cgroup.
    cluster_id = (cluster.state / "cluster-id").read_text().strip()
    assert memory_line.split(":", 2)[2].startswith(f"/minikube-py/{cluster_id}/{node}/")
    node_obj = json.loads(cluster.kubectl("get", "node", node, "-o", "json").stdout)
    limit = Path(f"/sys/fs/cgroup/memory/minikube-py/{cluster_id}/{node}/memory.limit_in_bytes")
    if limit.exists():  # cgroup v1 (this host); v2 hosts expose memory.max instead
        from minikube_py.api.quantity import Quantity
        assert int(limit.read_text()) == Quantity.parse(
            node_obj["status"]["allocatable"]["memory"]).value()
    delete(cluster, "carved")
