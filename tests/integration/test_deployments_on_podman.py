"""Desired state kept on real Podman: a Deployment's pods as containers, healing,
scaling, a rolling update checked from a watch, rollout status, undo, deletion."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load
from tests.e2e.conftest import Daemon, start_daemon, stop_daemon
from tests.hostclean import release_cluster, release_cluster_id

# Each test drives many pods through several phases on real Podman: on a shared,
# loaded host one takes minutes, so the budgets are generous (a hang still fails).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

IMAGE_A = "localhost/minikube-py/busybox:1.35"
IMAGE_B = "localhost/minikube-py/busybox:latest"  # same bits, another name: a new template


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    d = start_daemon(tmp_path_factory.mktemp("deploy") / "state", "--runtime", "podman",
                     "--nodes", "3", "--restart-backoff", "1,8")
    cluster_id = (d.state / "cluster-id").read_text().strip()
    try:
        yield d
    finally:
        try:
            assert stop_daemon(d) == 0
        finally:
            # The tests delete what they make; when one fails half-way, its pods
            # (and the cluster's network and rules) must not outlive the module.
            release_cluster_id(cluster_id)


def deployment(image: str, replicas: int = 5) -> str:
    return yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate",
                         "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "terminationGracePeriodSeconds": 1,
                "containers": [{"name": "web", "image": image,
                                "imagePullPolicy": "IfNotPresent",
                                "command": ["sh", "-c", "sleep 3600"],
                                "resources": {"requests": {"cpu": "10m", "memory": "8Mi"}},
                                # A generous exec timeout: on a loaded host a Podman exec
                                # can take over the 1 s default, and this test is about
                                # rollouts, not probe latency.
                                "readinessProbe": {"exec": {"command": ["true"]},
                                                   "periodSeconds": 1,
                                                   "timeoutSeconds": 5}}]}}}})


def podman_ps(d: Daemon) -> list[dict[str, Any]]:
    """Our cluster's running app containers of the web pods, as Podman sees them."""
    cluster_id = (d.state / "cluster-id").read_text().strip()
    out = subprocess.run(
        ["podman", "--url", f"unix://{d.state}/podman/podman.sock", "ps", "--format", "json",
         "--filter", f"label=minikube-py.io/cluster={cluster_id}"],
        capture_output=True, text=True, check=True).stdout
    # Containers carry the pod's identity labels (not its app labels): name them.
    return [c for c in json.loads(out or "[]")
            if not c["Names"][0].endswith("-infra")
            and (c.get("Labels") or {}).get("minikube-py.io/name", "").startswith("web-")]


class Follower(threading.Thread):
    """Mirrors the ``app=web`` objects of ``resource`` in ``default`` from a
    list and then a watch, calling ``check`` with them (name -> object) after
    every change until ``stop`` is set. Started and watching once built."""

    def __init__(self, client: HTTPClient, resource: str, stop: threading.Event,
                 check: Callable[[dict[str, dict[str, Any]]], None]) -> None:
        super().__init__(daemon=True)
        listing = client.list(resource, namespace="default", label_selector="app=web")
        self.current = {o["metadata"]["name"]: o for o in listing.items}
        self.stream = client.watch(resource, namespace="default", label_selector="app=web",
                                   resource_version=listing.resource_version)
        self.stop, self.check = stop, check
        self.start()

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                ev = self.stream.next(timeout=0.5)
                if ev is None:
                    continue
                name = ev.object["metadata"]["name"]
                if ev.type == "DELETED":
                    self.current.pop(name, None)
                else:
                    self.current[name] = ev.object
                self.check(self.current)
        finally:
            self.stream.stop()


def web_pods(d: Daemon) -> list[dict[str, Any]]:
    return json.loads(d.kubectl("get", "pods", "-l", "app=web", "-o", "json").stdout)["items"]


def running_ready(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for p in pods:
        if p["metadata"].get("deletionTimestamp"):
            continue
        cond = {c["type"]: c["status"] for c in p.get("status", {}).get("conditions", [])}
        if cond.get("Ready") == "True":
            out.append(p)
    return out


def converge(d: Daemon, replicas: int, image: str, timeout: float = 240) -> None:
    """Until the store has exactly ``replicas`` ready pods of ``image`` and nothing else,
    and Podman runs exactly those containers."""
    deadline = time.monotonic() + timeout
    while True:
        pods = web_pods(d)
        ready = running_ready(pods)
        containers = podman_ps(d)
        if (len(pods) == replicas and len(ready) == replicas
                and all(p["spec"]["containers"][0]["image"] == image for p in pods)
                and len(containers) == replicas):
            uids = {p["metadata"]["uid"] for p in pods}
            assert {c["Labels"]["minikube-py.io/pod-uid"] for c in containers} == uids
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"did not converge to {replicas} x {image}: "
                                 f"{len(pods)} pods, {len(ready)} ready, "
                                 f"{len(containers)} containers")
        time.sleep(0.3)


def test_deployment_lifecycle(cluster: Daemon):
    d = cluster
    assert d.kubectl("apply", "-f", "-", input=deployment(IMAGE_A)).stdout.strip() == \
        "deployment.apps/web created"
    converge(d, 5, IMAGE_A)
    out = d.kubectl("rollout", "status", "deployment/web", "--timeout=240s",
                    timeout=260).stdout
    assert 'deployment "web" successfully rolled out' in out

    # A container killed behind the kubelet's back is restarted.
    victim = podman_ps(d)[0]
    subprocess.run(["podman", "--url", f"unix://{d.state}/podman/podman.sock", "kill",
                    victim["Id"]], check=True, capture_output=True)
    pod_name = victim["Labels"]["minikube-py.io/name"]
    deadline = time.monotonic() + 60
    while True:
        p = json.loads(d.kubectl("get", "pod", pod_name, "-o", "json").stdout)
        if p["status"]["containerStatuses"][0]["restartCount"] >= 1:
            break
        assert time.monotonic() < deadline, "killed container was not restarted"
        time.sleep(0.3)
    converge(d, 5, IMAGE_A)

    # A deleted pod is replaced.
    gone = web_pods(d)[0]["metadata"]["name"]
    d.kubectl("delete", "pod", gone)
    converge(d, 5, IMAGE_A)
    assert gone not in {p["metadata"]["name"] for p in web_pods(d)}

    # Scale 5 -> 10 -> 2: the store and Podman agree exactly.
    d.kubectl("scale", "deployment", "web", "--replicas=10")
    converge(d, 10, IMAGE_A)
    d.kubectl("scale", "deployment", "web", "--replicas=2")
    converge(d, 2, IMAGE_A)
    d.kubectl("scale", "deployment", "web", "--replicas=5")
    converge(d, 5, IMAGE_A)

    # Rolling update, checked from watches. maxSurge bounds what the deployment
    # controller asks for: the ReplicaSets' spec.replicas never add up to more
    # than 5+1 (Kubernetes' guarantee; the pods themselves may briefly number
    # more while an old ReplicaSet's controller has yet to delete the pod its
    # scale-down asked it to, in Kubernetes as here). maxUnavailable bounds the
    # pods: never fewer than 5-1 ready.
    client = HTTPClient(load(d.kubeconfig))
    violations: list[str] = []
    stop = threading.Event()

    def replica_sets(current: dict[str, dict[str, Any]]) -> None:
        wanted = {name: int(rs["spec"].get("replicas", 1)) for name, rs in current.items()}
        if sum(wanted.values()) > 6:
            violations.append(f"{sum(wanted.values())} replicas asked for at once "
                              f"(maxSurge 1): {wanted}")

    def pods(current: dict[str, dict[str, Any]]) -> None:
        ready = running_ready(list(current.values()))
        if len(ready) < 4:
            violations.append(f"only {len(ready)} ready (maxUnavailable 1)")

    rs_watcher = Follower(client, "replicasets", stop, replica_sets)
    watcher = Follower(client, "pods", stop, pods)
    d.kubectl("apply", "-f", "-", input=deployment(IMAGE_B))
    out = d.kubectl("rollout", "status", "deployment/web", "--timeout=240s",
                    timeout=260).stdout
    assert 'deployment "web" successfully rolled out' in out
    converge(d, 5, IMAGE_B)
    stop.set()
    watcher.join(5)
    rs_watcher.join(5)
    assert not violations, violations[:5]

    # Undo returns to the previous image.
    assert d.kubectl("rollout", "undo", "deployment/web").stdout.strip() == \
        "deployment.apps/web rolled back"
    d.kubectl("rollout", "status", "deployment/web", "--timeout=240s", timeout=260)
    converge(d, 5, IMAGE_A)
    history = d.kubectl("rollout", "history", "deployment/web").stdout
    assert "REVISION" in history

    # Deleting the Deployment leaves no pods, no ReplicaSets, no containers.
    d.kubectl("delete", "deployment", "web")
    deadline = time.monotonic() + 60
    while web_pods(d) or podman_ps(d) or json.loads(
            d.kubectl("get", "rs", "-o", "json").stdout)["items"]:
        assert time.monotonic() < deadline, "the deployment's pods or containers remain"
        time.sleep(0.3)


def test_minikube_py_rollout_undo_and_history(cluster: Daemon, tmp_path: Path):
    d = cluster
    d.cli("apply", "-f", "-", input=deployment(IMAGE_A, replicas=2))
    converge(d, 2, IMAGE_A)
    d.cli("apply", "-f", "-", input=deployment(IMAGE_B, replicas=2))
    assert 'successfully rolled out' in d.cli("rollout", "status", "deployment", "web",
                                              "--timeout", "240", timeout=260).stdout
    converge(d, 2, IMAGE_B)
    assert d.cli("rollout", "undo", "deployment", "web").stdout == \
        "deployment.apps/web rolled back\n"
    converge(d, 2, IMAGE_A)
    d.kubectl("delete", "deployment", "web")


def test_shutdown_during_grace_period_is_prompt_and_the_next_start_finishes(tmp_path: Path):
    """Pods terminating with a 15 s grace period (``sleep`` ignores SIGTERM as
    PID 1) must not hold up the daemon's stop (promised within 5 s); the next
    start finishes them."""
    state = tmp_path / "state"
    d = start_daemon(state, "--runtime", "podman", "--nodes", "2")
    try:
        spec = yaml.safe_load(deployment(IMAGE_A, replicas=2))
        spec["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 15
        d.kubectl("apply", "-f", "-", input=yaml.safe_dump(spec))
        converge(d, 2, IMAGE_A)
        d.kubectl("delete", "deployment", "web", "--wait=false")
        deadline = time.monotonic() + 30
        while not all(p["metadata"].get("deletionTimestamp") for p in web_pods(d)) \
                or not web_pods(d):
            assert time.monotonic() < deadline, "pods never started terminating"
            time.sleep(0.2)
        assert len(podman_ps(d)) == 2  # still inside their grace period
    finally:
        started = time.monotonic()
        assert stop_daemon(d) == 0
    assert time.monotonic() - started < 5
    d = start_daemon(state, "--runtime", "podman", "--nodes", "2")
    try:
        deadline = time.monotonic() + 60
        while web_pods(d) or podman_ps(d):
            assert time.monotonic() < deadline, "the restarted daemon did not finish them"
            time.sleep(0.5)
    finally:
        try:
            assert stop_daemon(d) == 0
        finally:
            release_cluster(state)
