"""Helpers for the fault-injection tests: clusters on real Podman that may be SIGKILLed
and restarted, what Podman holds for them, and cleanup that runs even on failure.

Contracts:

* :func:`trials` reads ``MINIKUBE_PY_CHAOS_TRIALS`` (a positive integer) and falls
  back to the small CI default the test passes; :func:`chaos_seed` reads
  ``MINIKUBE_PY_CHAOS_SEED`` (else a fresh seed), and every test prints the seed so
  a failing random schedule can be replayed.
* :class:`PodmanCluster` is one state directory served by successive daemons
  (``--runtime podman``). :meth:`PodmanCluster.kill` is SIGKILL: the daemon's own
  Podman service (a child in its own session) and every container outlive it, as
  after a real crash. The next :meth:`~PodmanCluster.start` takes them over.
* The ``clusters`` fixture makes clusters and, at teardown, whatever happened:
  stops (or kills) their daemons, ends a Podman service a killed daemon left
  behind, and removes every Podman pod and container carrying the cluster's label
  with the local ``podman`` CLI (the daemon's service may be gone by then). A
  cluster that still has containers afterwards fails the test's teardown.
* Waits poll with a deadline (:func:`tests.waiting.wait_for`, every :data:`POLL`
  seconds; :func:`settle`): every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from minikube_py.runtime.podman_service import PodmanService
from tests.e2e.conftest import Daemon, start_daemon, stop_daemon
from tests.hostclean import release_cluster_id

TRIALS_ENV = "MINIKUBE_PY_CHAOS_TRIALS"
SEED_ENV = "MINIKUBE_PY_CHAOS_SEED"

IMAGE = "localhost/minikube-py/busybox:1.35"
LABEL_CLUSTER = "minikube-py.io/cluster"
LABEL_POD_UID = "minikube-py.io/pod-uid"
LABEL_NAME = "minikube-py.io/name"
LABEL_CONTAINER_NAME = "minikube-py.io/container-name"

#: Seconds between polls of a cluster under fault: each check may run ``podman``
#: or ``kubectl`` against a daemon that is struggling, so poll gently.
POLL = 0.3


def trials(default: int) -> int:
    """How many trials a repeated fault test runs: ``$MINIKUBE_PY_CHAOS_TRIALS`` or
    ``default`` (the CI budget)."""
    raw = os.environ.get(TRIALS_ENV, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise pytest.UsageError(f"{TRIALS_ENV}={raw!r}: expected a positive integer") from None
    if value < 1:
        raise pytest.UsageError(f"{TRIALS_ENV}={raw!r}: expected a positive integer")
    return value


def chaos_seed() -> int:
    """The seed of this run's random fault schedule (``$MINIKUBE_PY_CHAOS_SEED``
    replays one)."""
    raw = os.environ.get(SEED_ENV, "").strip()
    return int(raw) if raw else random.SystemRandom().randrange(1 << 32)


def settle(problems: Callable[[], list[str]], what: str, timeout: float,
           interval: float = 0.5, detail: Callable[[], list[str]] | None = None) -> float:
    """Wait until ``problems()`` is empty; returns the seconds it took. On timeout
    the AssertionError lists the last problems seen (what did not agree), or
    those ``detail()`` finds when given (a fuller check than the one polled)."""
    started = time.monotonic()
    deadline = started + timeout
    while True:
        found = problems()
        if not found:
            return time.monotonic() - started
        if time.monotonic() > deadline:
            if detail is not None:
                found = detail() or found
            shown = "\n  ".join(found[:20])
            more = f"\n  ... and {len(found) - 20} more" if len(found) > 20 else ""
            raise AssertionError(f"{what}: still not true after {timeout:g} s:\n  "
                                 f"{shown}{more}")
        time.sleep(interval)


def sleeper(name: str, *, replicas: int, rev: str = "1", labels: dict[str, str] | None = None,
            ) -> str:
    """A Deployment of ``replicas`` busybox sleepers, small enough that 30+ fit on the
    3 nodes of a 2-core host. ``rev`` goes into an env var: changing it rolls the
    Deployment (a new template, hence a new ReplicaSet)."""
    app = {"app": name, **(labels or {})}
    return yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "strategy": {"type": "RollingUpdate",
                         "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {"metadata": {"labels": app}, "spec": {
                # busybox sleep as PID 1 ignores SIGTERM: do not wait 30 s for it.
                "terminationGracePeriodSeconds": 1,
                "containers": [{"name": "main", "image": IMAGE,
                                "imagePullPolicy": "IfNotPresent",
                                "command": ["sh", "-c", "sleep 3600"],
                                "env": [{"name": "REV", "value": rev}],
                                "resources": {"requests": {"cpu": "10m",
                                                           "memory": "8Mi"}}}]}}}})


def pod_rev(pod: dict[str, Any]) -> str:
    """The ``REV`` env var of a pod's (or template's) first container."""
    env = pod["spec"]["containers"][0].get("env") or []
    return next((str(e.get("value")) for e in env if e.get("name") == "REV"), "")


def conditions(obj: dict[str, Any]) -> dict[str, str]:
    return {c["type"]: c["status"] for c in (obj.get("status") or {}).get("conditions") or []}


def container_status(pod: dict[str, Any], name: str) -> dict[str, Any]:
    for st in (pod.get("status") or {}).get("containerStatuses") or []:
        if st.get("name") == name:
            return dict(st)
    return {}


# ---------------------------------------------------------------------- clusters


@dataclass
class PodmanCluster:
    """One state directory run by successive podman daemons (see module contract)."""

    state: Path
    extra: tuple[str, ...] = ("--nodes", "3", "--restart-backoff", "1,8")
    daemon: Daemon | None = None
    logs: list[str] = field(default_factory=list)  # every finished daemon's log

    @property
    def cluster_id(self) -> str:
        return (self.state / "cluster-id").read_text().strip()

    @property
    def url(self) -> str:
        """The daemon's own Podman service (a deep state dir gets a short socket path)."""
        return f"unix://{PodmanService(self.state).socket_path}"

    @property
    def d(self) -> Daemon:
        assert self.daemon is not None, "the cluster's daemon is not running"
        return self.daemon

    def start(self, timeout: float = 120) -> Daemon:
        """Start a daemon on the state directory (it adopts what Podman runs)."""
        assert self.daemon is None or self.daemon.proc.poll() is not None, \
            "a daemon is already running on this state directory"
        self._retire()
        self.daemon = start_daemon(self.state, "--runtime", "podman", *self.extra,
                                   timeout=timeout)
        return self.daemon

    def kill(self) -> None:
        """SIGKILL the daemon (a crash): nothing of it runs its shutdown code."""
        d = self.d
        d.proc.kill()
        d.proc.wait(10)
        self._retire()

    def stop(self) -> None:
        """SIGTERM the daemon; it must stop cleanly (exit 0, within 5 s)."""
        d = self.d
        try:
            code = stop_daemon(d)
        finally:
            self._retire()
        assert code == 0, f"daemon exited with {code}"

    def _retire(self) -> None:
        if self.daemon is not None and self.daemon.proc.poll() is not None:
            self.logs.extend(self.daemon.log)
            self.daemon = None

    def log_text(self) -> str:
        """Every log line of this cluster's daemons so far (the running one's too)."""
        return "".join(self.logs + (self.daemon.log if self.daemon else []))

    # ------------------------------------------------------------------ Podman's view

    def podman(self, *args: str, check: bool = True,
               timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """``podman --url <the daemon's service>``: what the kubelets' Podman sees."""
        result = subprocess.run(["podman", "--url", self.url, *args], capture_output=True,
                                text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"podman {' '.join(args)} failed ({result.returncode}): "
                                 f"{result.stderr}")
        return result

    def containers(self) -> list[dict[str, Any]]:
        """Every container of this cluster (running or not), as ``podman ps -a`` has it."""
        out = self.podman("ps", "-a", "--format", "json", "--filter",
                          f"label={LABEL_CLUSTER}={self.cluster_id}").stdout
        return list(json.loads(out or "[]"))

    def app_containers(self) -> list[dict[str, Any]]:
        """:meth:`containers` without the pods' infra containers."""
        return [c for c in self.containers() if not c["Names"][0].endswith("-infra")]

    def service_pid(self) -> int | None:
        """The pid of the daemon's Podman service, if it is alive and really is ours."""
        try:
            pid = int((self.state / "podman" / "service.pid").read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            return None
        return pid if self.url.encode() in cmdline else None

    # ------------------------------------------------------------------ cleanup

    def cleanup(self) -> list[str]:
        """End the daemon and its service, remove every Podman object of the cluster;
        returns the names of containers that could not be removed."""
        if self.daemon is not None and self.daemon.proc.poll() is None:
            with contextlib.suppress(AssertionError):  # stop_daemon has SIGKILLed it then
                stop_daemon(self.daemon)
        self._retire()
        pid = self.service_pid()
        if pid is not None:  # a killed daemon's service (own session: it outlives it)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if not (self.state / "cluster-id").exists():
            return []
        label = f"label={LABEL_CLUSTER}={self.cluster_id}"
        pods = _local_podman("pod", "ps", "-q", "--filter", label).split()
        if pods:
            _local_podman("pod", "kill", *pods)  # see tests/hostclean: rm -t 0 waits 10 s
            _local_podman("pod", "rm", "-f", *pods)
        containers = _local_podman("ps", "-aq", "--filter", label).split()
        if containers:
            _local_podman("rm", "-f", "-t", "0", *containers)
        left = _local_podman("ps", "-a", "--format", "{{.Names}}", "--filter",
                             label).split()
        release_cluster_id(self.cluster_id)  # its network and Service rules too
        return left


def _local_podman(*args: str) -> str:
    """The local podman CLI (same storage as the daemon's service, which may be gone)."""
    result = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=120)
    return result.stdout


@pytest.fixture
def clusters(tmp_path: Path) -> Iterator[Callable[..., PodmanCluster]]:
    """A factory of :class:`PodmanCluster`; all of them are cleaned up at teardown."""
    made: list[PodmanCluster] = []

    def make(name: str = "state", *extra: str) -> PodmanCluster:
        cluster = PodmanCluster(tmp_path / name)
        if extra:
            cluster.extra = tuple(extra)
        made.append(cluster)
        return cluster

    yield make
    left: dict[str, list[str]] = {}
    for cluster in made:
        remaining = cluster.cleanup()
        if remaining:
            left[str(cluster.state)] = remaining
    assert not left, f"containers left behind: {left}"


# ---------------------------------------------------------------------- agreement


def get_json(cluster: PodmanCluster, *args: str) -> Any:
    """``kubectl get ARGS -o json`` against the cluster's running daemon."""
    return json.loads(cluster.d.kubectl("get", *args, "-o", "json").stdout)


def agreement(cluster: PodmanCluster, name: str, *, restarts: bool = False,
              full: bool = False) -> list[str]:
    """Everything on which the store and Podman disagree with Deployment ``name``'s
    desired state (empty: they agree exactly). Only the Deployment's pods are
    expected in its namespace (``default``).

    For the Deployment's current template (its ``REV``): exactly ``spec.replicas``
    pods, none terminating, all Running and Ready, none restarted (unless
    ``restarts``); the Deployment's status and ReplicaSets say the same. In Podman:
    one running sandbox per pod, exactly one container per pod and container name
    (with ``restarts``: exactly one *running*, plus at most restartCount exited
    predecessors), and it is the one the pod's status names; no sandbox or
    container whose pod-uid is not a pod in the store.

    Podman is asked only once the store agrees (or with ``full``): every poll
    of it runs two ``podman`` commands, and polling them while the daemon is
    still converging slows the convergence on a 2-core host. Empty is returned
    only when both sides agree.
    """
    dep = get_json(cluster, "deployment", name)
    desired = int(dep["spec"]["replicas"])
    rev = pod_rev(dep["spec"]["template"])
    problems: list[str] = []
    pods = get_json(cluster, "pods")["items"]
    live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
    terminating = [p["metadata"]["name"] for p in pods if p["metadata"].get("deletionTimestamp")]
    if terminating:
        problems.append(f"{len(terminating)} pod(s) still terminating: {terminating[:5]}")
    if len(live) != desired:
        problems.append(f"{len(live)} pods, desired {desired}")
    for p in live:
        pname = p["metadata"]["name"]
        status = p.get("status") or {}
        if pod_rev(p) != rev:
            problems.append(f"pod {pname} has template REV={pod_rev(p)}, current is {rev}")
        if status.get("phase") != "Running" or conditions(p).get("Ready") != "True":
            problems.append(f"pod {pname} is {status.get('phase')}, "
                            f"Ready={conditions(p).get('Ready')}")
        for st in status.get("containerStatuses") or []:
            if st.get("restartCount") and not restarts:
                problems.append(f"pod {pname}: container {st['name']} restarted "
                                f"{st['restartCount']} time(s)")
    ds = dep.get("status") or {}
    if int(ds.get("observedGeneration") or 0) < int(dep["metadata"]["generation"]):
        problems.append("the Deployment's status is not observed yet")
    for key in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas"):
        if int(ds.get(key) or 0) != desired:
            problems.append(f"deployment status.{key}={ds.get(key)}, desired {desired}")
    for rs in get_json(cluster, "replicasets")["items"]:
        if pod_rev(rs["spec"]["template"]) != rev and int(rs["spec"].get("replicas") or 0):
            problems.append(f"old ReplicaSet {rs['metadata']['name']} still wants "
                            f"{rs['spec']['replicas']} pods")
    if problems and not full:
        return problems
    return problems + podman_agreement(cluster, live, restarts=restarts)


def podman_agreement(cluster: PodmanCluster, live: list[dict[str, Any]], *,
                     restarts: bool = False) -> list[str]:
    """What Podman runs for the cluster that does not match the pods ``live`` (see
    :func:`agreement`)."""
    problems: list[str] = []
    by_uid = {p["metadata"]["uid"]: p for p in live}
    out = cluster.podman("pod", "ps", "--format", "json", "--filter",
                         f"label={LABEL_CLUSTER}={cluster.cluster_id}").stdout
    sandboxes: Counter[str] = Counter()
    for sb in json.loads(out or "[]"):
        uid = (sb.get("Labels") or {}).get(LABEL_POD_UID, "")
        if uid not in by_uid:
            problems.append(f"orphan Podman pod {sb['Name']} ({sb['Status']}): "
                            f"pod-uid {uid} is not a pod in the store")
            continue
        sandboxes[uid] += 1
        # Podman calls a pod Degraded when some of its containers are not running:
        # after a restart, the exited predecessor is kept (for ``logs --previous``).
        if sb.get("Status") != "Running" and not (restarts and sb.get("Status") == "Degraded"):
            problems.append(f"Podman pod {sb['Name']} is {sb.get('Status')}")
    containers: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for c in cluster.app_containers():
        labels = c.get("Labels") or {}
        uid = labels.get(LABEL_POD_UID, "")
        if uid not in by_uid:
            problems.append(f"orphan container {c['Names'][0]} ({c['State']}): "
                            f"pod-uid {uid} is not a pod in the store")
            continue
        containers[(uid, labels.get(LABEL_CONTAINER_NAME, ""))].append(c)
    for uid, pod in by_uid.items():
        pname = pod["metadata"]["name"]
        if sandboxes[uid] != 1:
            problems.append(f"pod {pname} has {sandboxes[uid]} Podman pods")
        for spec in pod["spec"]["containers"]:
            found = containers.get((uid, spec["name"]), [])
            running = [c for c in found if c["State"] == "running"]
            st = container_status(pod, spec["name"])
            allowed = 1 + (int(st.get("restartCount") or 0) if restarts else 0)
            if len(running) != 1 or len(found) > allowed:
                problems.append(f"pod {pname} container {spec['name']}: {len(found)} Podman "
                                f"containers ({[c['State'] for c in found]}), "
                                f"{len(running)} running")
                continue
            if st.get("containerID", "").rpartition("://")[2] != running[0]["Id"]:
                problems.append(f"pod {pname} status names container "
                                f"{st.get('containerID')}, Podman runs "
                                f"{running[0]['Id'][:12]}")
    return problems
