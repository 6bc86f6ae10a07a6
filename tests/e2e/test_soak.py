"""Soak: random scaling, image changes, container kills, pod deletions, pauses
and rollbacks against an in-process control plane on hollow nodes (fake
runtime); afterwards the store and the nodes must agree exactly.

Contract:

* Duration: ``MINIKUBE_PY_SOAK_SECONDS`` (default 30, what CI runs; the long
  run is ``MINIKUBE_PY_SOAK_SECONDS=1800``). Randomness: one
  ``random.Random(seed)``, the seed printed and settable with
  ``MINIKUBE_PY_SOAK_SEED``. Operation *choices* replay from the seed; the
  interleaving with the controllers' threads does not, so a seed makes a
  failure likely to recur rather than certain.
* Mutations go through a :class:`~minikube_py.client.local.LocalClient`, as
  every loop's do; container kills go to the node's
  :class:`~minikube_py.runtime.fake.FakeRuntime` (behind the kubelet's back).
* After the mutations stop (and paused Deployments are resumed), the API and
  the runtimes are polled every 0.5 s, for at most
  ``MINIKUBE_PY_SOAK_CONVERGE_SECONDS`` (default 180), until
  :func:`disagreements` finds nothing on two polls in a row; otherwise the
  test fails listing every disagreement of the last poll.
* Every loop is bounded: the test stops itself.

Run the 30-minute variant::

    MINIKUBE_PY_SOAK_SECONDS=1800 .venv/bin/pytest -s tests/e2e/test_soak.py
"""

from __future__ import annotations

import collections
import os
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import Conflict, NotFound
from minikube_py.client.local import LocalClient
from minikube_py.controllers.deployment_util import (
    REVISION_ANNOTATION,
    equal_ignore_hash,
)
from minikube_py.controlplane import ControlPlane, Options
from minikube_py.ops.errors import OpError
from minikube_py.ops.rollout import undo
from minikube_py.runtime.base import (
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    LABEL_CONTAINER_NAME,
    LABEL_NODE,
    LABEL_POD_UID,
    LABEL_RESTART_COUNT,
    SANDBOX_READY,
    ContainerNotFound,
    InvalidState,
)
from minikube_py.runtime.fake import FakeRuntime

SOAK_SECONDS = float(os.environ.get("MINIKUBE_PY_SOAK_SECONDS", "30"))
CONVERGE_SECONDS = float(os.environ.get("MINIKUBE_PY_SOAK_CONVERGE_SECONDS", "180"))
SEED = int(os.environ.get("MINIKUBE_PY_SOAK_SEED") or random.SystemRandom().randrange(2**32))
NS = "soak"
POLL = 0.5
MAX_REPLICAS = 8
TAGS = ("v1", "v2", "v3", "v4")

pytestmark = [pytest.mark.e2e, pytest.mark.slow,
              # The run, the convergence and start/stop, with room to spare.
              pytest.mark.timeout(int(SOAK_SECONDS + CONVERGE_SECONDS + 120))]


# ------------------------------------------------------------------ objects


def image(name: str, tag: str) -> str:
    return f"localhost/soak/{name}:{tag}"


def deployment(name: str, replicas: int, strategy: Mapping[str, Any], *,
               min_ready: int = 0, sidecar: bool = False, init: bool = False) -> dict[str, Any]:
    containers: list[dict[str, Any]] = [
        {"name": "app", "image": image(name, TAGS[0]), "imagePullPolicy": "IfNotPresent"}]
    if sidecar:
        containers.append({"name": "sidecar", "image": image("sidecar", TAGS[0]),
                           "imagePullPolicy": "IfNotPresent"})
    pod_spec: dict[str, Any] = {"containers": containers}
    if init:
        pod_spec["initContainers"] = [{"name": "setup", "image": image("setup", TAGS[0]),
                                       "imagePullPolicy": "IfNotPresent"}]
    spec: dict[str, Any] = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": name}},
        "strategy": dict(strategy),
        "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec}}
    if min_ready:
        spec["minReadySeconds"] = min_ready
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": NS}, "spec": spec}


def rolling(surge: int | str, unavailable: int | str) -> dict[str, Any]:
    return {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}


#: The seeded Deployments: every rolling-update shape (numbers, percents, surge
#: only, unavailable only), Recreate, minReadySeconds, a sidecar, an init container.
SEEDED = [
    deployment("roll-default", 3, rolling("25%", "25%")),
    deployment("roll-surge", 2, rolling(2, 0), sidecar=True),
    deployment("roll-unavail", 2, rolling(0, 1)),
    deployment("roll-percent", 4, rolling("50%", "30%"), init=True),
    deployment("recreate", 2, {"type": "Recreate"}),
    deployment("min-ready", 2, rolling(1, 0), min_ready=1),
]
NAMES = [d["metadata"]["name"] for d in SEEDED]


# ------------------------------------------------------------------ the run


@dataclass
class Soak:
    """What the operations did, for the summary and the restart-count check."""

    plane: ControlPlane
    client: LocalClient
    rng: random.Random
    ops: collections.Counter[str] = field(default_factory=collections.Counter)
    #: (pod uid, container name) -> successful kills: each is one restart to come.
    kills: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)

    def runtimes(self) -> dict[str, FakeRuntime]:
        out: dict[str, FakeRuntime] = {}
        for node, kubelet in self.plane.kubelets.items():
            assert isinstance(kubelet.runtime, FakeRuntime)
            out[node] = kubelet.runtime
        return out

    # -------------------------------------------------------------- operations

    def scale(self, name: str) -> None:
        replicas = self.rng.randint(0, MAX_REPLICAS)
        self.client.patch("deployments", NS, name, "merge", {"spec": {"replicas": replicas}})
        self.ops["scale"] += 1

    def change_image(self, name: str) -> None:
        dep = self.client.get("deployments", NS, name)
        containers = dep["spec"]["template"]["spec"]["containers"]
        index = self.rng.randrange(len(containers))
        tag = self.rng.choice(TAGS)
        base = "sidecar" if containers[index]["name"] == "sidecar" else name
        self.client.patch("deployments", NS, name, "json", [
            {"op": "replace", "path": f"/spec/template/spec/containers/{index}/image",
             "value": image(base, tag)}])
        self.ops["image"] += 1

    def kill(self) -> None:
        running = [(rt, c) for rt in self.runtimes().values()
                   for c in rt.list_containers() if c.state == CONTAINER_RUNNING]
        if not running:
            self.ops["kill-none-running"] += 1
            return
        rt, c = self.rng.choice(running)
        oom = self.rng.random() < 0.3
        try:
            rt.kill_container(c.id, 137, reason="OOMKilled" if oom else None)
        except (InvalidState, ContainerNotFound):
            self.ops["kill-raced"] += 1  # the kubelet stopped or removed it first
            return
        self.kills[(c.labels[LABEL_POD_UID], c.labels[LABEL_CONTAINER_NAME])] += 1
        self.ops["kill-oom" if oom else "kill"] += 1

    def delete_pod(self) -> None:
        pods = [p for p in self.client.list("pods", namespace=NS).items
                if not p["metadata"].get("deletionTimestamp")]
        if not pods:
            self.ops["delete-none"] += 1
            return
        pod = self.rng.choice(pods)
        try:
            self.client.delete("pods", NS, pod["metadata"]["name"])
        except NotFound:
            self.ops["delete-raced"] += 1
            return
        self.ops["delete-pod"] += 1

    def toggle_pause(self, name: str) -> None:
        paused = bool(self.client.get("deployments", NS, name)["spec"].get("paused"))
        self.client.patch("deployments", NS, name, "merge", {"spec": {"paused": not paused}})
        self.ops["resume" if paused else "pause"] += 1

    def rollback(self, name: str) -> None:
        try:
            result = undo(self.client, NS, name)
        except OpError:  # paused, or no previous revision yet: kubectl refuses too
            self.ops["undo-refused"] += 1
            return
        self.ops["undo" if result == "rolled back" else "undo-skipped"] += 1

    def step(self) -> None:
        """One random operation, chosen by weight."""
        name = self.rng.choice(NAMES)
        kind = self.rng.choices(
            ["scale", "image", "kill", "delete", "pause", "undo"],
            weights=[25, 20, 25, 15, 7, 8])[0]
        try:
            if kind == "scale":
                self.scale(name)
            elif kind == "image":
                self.change_image(name)
            elif kind == "kill":
                self.kill()
            elif kind == "delete":
                self.delete_pod()
            elif kind == "pause":
                self.toggle_pause(name)
            else:
                self.rollback(name)
        except Conflict:  # undo's patch raced a controller write: a user would retry
            self.ops[f"{kind}-conflict"] += 1

    def resume_all(self) -> None:
        for name in NAMES:
            if self.client.get("deployments", NS, name)["spec"].get("paused"):
                self.client.patch("deployments", NS, name, "merge",
                                  {"spec": {"paused": False}})
                self.ops["final-resume"] += 1


# ------------------------------------------------------------------ agreement


def _controller_uid(obj: Mapping[str, Any]) -> str | None:
    for ref in obj["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return str(ref.get("uid"))
    return None


def _condition(obj: Mapping[str, Any], type_: str) -> Mapping[str, Any]:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond.get("type") == type_:
            return cond  # type: ignore[no-any-return]
    return {}


def _deployment_problems(dep: Mapping[str, Any], rss: Sequence[Mapping[str, Any]],
                         pods: Sequence[Mapping[str, Any]]) -> list[str]:
    name = dep["metadata"]["name"]
    spec, status = dep["spec"], dep.get("status") or {}
    want = int(spec.get("replicas", 1))
    out: list[str] = []
    where = f"deployment {name}"
    if spec.get("paused"):
        out.append(f"{where}: still paused")
    if status.get("observedGeneration") != dep["metadata"].get("generation"):
        out.append(f"{where}: observedGeneration {status.get('observedGeneration')} != "
                   f"generation {dep['metadata'].get('generation')}")
    counts = {k: int(status.get(k) or 0) for k in
              ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas")}
    if any(v != want for v in counts.values()):
        out.append(f"{where}: spec.replicas {want} but status {counts}")
    reason = _condition(dep, "Progressing").get("reason")
    if want and reason != "NewReplicaSetAvailable":
        out.append(f"{where}: Progressing reason {reason!r}, not NewReplicaSetAvailable")
    owned = [rs for rs in rss if _controller_uid(rs) == dep["metadata"]["uid"]]
    if not owned:
        return [*out, f"{where}: no ReplicaSet"]
    newest = max(owned, key=lambda rs: int(rs["metadata"].get("annotations", {})
                                           .get(REVISION_ANNOTATION, "0")))
    rs_name = newest["metadata"]["name"]
    if not equal_ignore_hash(newest["spec"]["template"], spec["template"]):
        out.append(f"{where}: newest ReplicaSet {rs_name} does not carry the current template")
    rs_status = newest.get("status") or {}
    rs_counts = {"spec": int(newest["spec"].get("replicas", 0)),
                 **{k: int(rs_status.get(k) or 0)
                    for k in ("replicas", "readyReplicas", "availableReplicas")}}
    if any(v != want for v in rs_counts.values()):
        out.append(f"{where}: newest ReplicaSet {rs_name} has {rs_counts}, want {want}")
    for rs in owned:
        if rs is newest:
            continue
        old = (int(rs["spec"].get("replicas", 0)), int((rs.get("status") or {})
                                                         .get("replicas") or 0))
        if old != (0, 0):
            out.append(f"{where}: old ReplicaSet {rs['metadata']['name']} has "
                       f"(spec, status) replicas {old}")
    mine = [p for p in pods if p["metadata"].get("labels", {}).get("app") == name]
    current = [p for p in mine if _controller_uid(p) == newest["metadata"]["uid"]
               and not p["metadata"].get("deletionTimestamp")]
    if len(current) != want:
        out.append(f"{where}: {len(current)} live pods of {rs_name}, want {want}")
    for p in mine:
        if p not in current:
            out.append(f"{where}: pod {p['metadata']['name']} is not a live pod of "
                       f"{rs_name} (owner {_controller_uid(p)}, deletionTimestamp "
                       f"{p['metadata'].get('deletionTimestamp')})")
    return out


def _pod_problems(pod: Mapping[str, Any]) -> list[str]:
    meta, status = pod["metadata"], pod.get("status") or {}
    where = f"pod {meta['namespace']}/{meta['name']}"
    out: list[str] = []
    if meta.get("deletionTimestamp"):
        out.append(f"{where}: still terminating (since {meta['deletionTimestamp']})")
    if not pod["spec"].get("nodeName"):
        out.append(f"{where}: bound to no node")
    if status.get("phase") != "Running":
        out.append(f"{where}: phase {status.get('phase')}")
    if _condition(pod, "Ready").get("status") != "True":
        out.append(f"{where}: not Ready ({_condition(pod, 'Ready').get('reason')})")
    return out


def _node_problems(node: str, rt: FakeRuntime, bound: Mapping[str, Mapping[str, Any]],
                   kills: Mapping[tuple[str, str], int]) -> list[str]:
    """The runtime of ``node`` against the pods bound to it (``bound``: uid -> pod)."""
    out: list[str] = []
    where = f"node {node}"
    sandboxes = rt.list_sandboxes()
    by_uid: dict[str, list[Any]] = collections.defaultdict(list)
    for sb in sandboxes:
        by_uid[sb.labels.get(LABEL_POD_UID, "")].append(sb)
        if sb.labels.get(LABEL_NODE) != node:
            out.append(f"{where}: sandbox {sb.id[:12]} labelled for node "
                       f"{sb.labels.get(LABEL_NODE)}")
    ready = {uid for uid, sbs in by_uid.items() if any(s.state == SANDBOX_READY for s in sbs)}
    for uid in sorted(ready - set(bound)):
        out.append(f"{where}: ready sandbox for pod uid {uid} that the store does not bind "
                   f"here ({by_uid[uid][0].labels})")
    for uid in sorted(set(by_uid) - ready - set(bound)):
        out.append(f"{where}: leftover stopped sandbox for pod uid {uid} not in the store")
    for uid in sorted(set(bound) - ready):
        out.append(f"{where}: pod {bound[uid]['metadata']['name']} ({uid}) is bound here "
                   "but has no ready sandbox")
    sandbox_ids = {sb.id for sb in sandboxes}
    containers = rt.list_containers()
    for c in containers:
        if c.sandbox_id not in sandbox_ids:
            out.append(f"{where}: container {c.id[:12]} ({c.labels.get(LABEL_CONTAINER_NAME)}) "
                       "outlived its sandbox")
        elif c.state == CONTAINER_RUNNING and c.labels.get(LABEL_POD_UID) not in bound:
            out.append(f"{where}: running container {c.labels.get(LABEL_CONTAINER_NAME)} of "
                       f"pod uid {c.labels.get(LABEL_POD_UID)}, which is not bound here")
    for uid, pod in bound.items():
        out.extend(_pod_runtime_problems(where, pod, by_uid.get(uid, []),
                                         [c for c in containers
                                          if c.labels.get(LABEL_POD_UID) == uid], kills))
    return out


def _pod_runtime_problems(where: str, pod: Mapping[str, Any], sandboxes: list[Any],
                          containers: list[Any],
                          kills: Mapping[tuple[str, str], int]) -> list[str]:
    """One pod's runtime state against its spec and status."""
    meta = pod["metadata"]
    uid = str(meta["uid"])
    who = f"{where}: pod {meta['name']}"
    out: list[str] = []
    if len(sandboxes) != 1:
        out.append(f"{who}: {len(sandboxes)} sandboxes ({[s.state for s in sandboxes]}), want 1")
    statuses = {s["name"]: s for s in (pod.get("status") or {}).get("containerStatuses") or []}
    spec_containers = {c["name"]: c for c in pod["spec"]["containers"]}
    running = [c for c in containers if c.state == CONTAINER_RUNNING]
    running_names = collections.Counter(c.labels.get(LABEL_CONTAINER_NAME) for c in running)
    if running_names != collections.Counter(list(spec_containers)):
        out.append(f"{who}: running containers {dict(running_names)}, spec has "
                   f"{sorted(spec_containers)}")
    for c in running:
        name = str(c.labels.get(LABEL_CONTAINER_NAME))
        spec = spec_containers.get(name)
        if spec is None:
            continue
        if c.image != spec["image"]:
            out.append(f"{who}: container {name} runs {c.image}, spec says {spec['image']}")
        st = statuses.get(name)
        if st is None:
            out.append(f"{who}: container {name} runs but has no status")
            continue
        attempt = int(c.labels.get(LABEL_RESTART_COUNT, "0"))
        if st.get("containerID") != f"fake://{c.id}":
            out.append(f"{who}: container {name} status shows {st.get('containerID')}, "
                       f"the runtime runs {c.id[:12]}")
        if not st.get("ready"):
            out.append(f"{who}: container {name} is running but not ready")
        if st.get("restartCount") != attempt:
            out.append(f"{who}: container {name} restartCount {st.get('restartCount')}, "
                       f"the runtime's attempt {attempt}")
        if kills.get((uid, name), 0) != attempt:
            out.append(f"{who}: container {name} was killed {kills.get((uid, name), 0)} "
                       f"times but is at attempt {attempt}")
        if attempt:
            previous = [p for p in containers if p.state == CONTAINER_EXITED
                        and p.labels.get(LABEL_CONTAINER_NAME) == name
                        and int(p.labels.get(LABEL_RESTART_COUNT, "0")) == attempt - 1]
            last = (st.get("lastState") or {}).get("terminated") or {}
            if not previous:
                out.append(f"{who}: container {name} at attempt {attempt} but the runtime "
                           "kept no previous instance")
            elif (last.get("exitCode"), last.get("reason")) != (previous[0].exit_code,
                                                                 previous[0].reason):
                out.append(f"{who}: container {name} lastState {last.get('exitCode')}/"
                           f"{last.get('reason')} but the runtime's previous instance ended "
                           f"{previous[0].exit_code}/{previous[0].reason}")
    return out


def disagreements(soak: Soak) -> list[str]:
    """Everything on which the API's objects and the nodes' runtimes disagree
    with each other or with the desired state (empty: converged)."""
    client = soak.client
    deps = client.list("deployments", namespace=NS).items
    rss = client.list("replicasets", namespace=NS).items
    pods = client.list("pods").items
    out: list[str] = []
    for dep in sorted(deps, key=lambda d: d["metadata"]["name"]):
        out.extend(_deployment_problems(dep, rss, pods))
    for pod in pods:
        out.extend(_pod_problems(pod))
    runtimes = soak.runtimes()
    nodes_of_pods = {p["spec"].get("nodeName") for p in pods} - {None, ""}
    for node in sorted(nodes_of_pods - set(runtimes)):
        out.append(f"pods are bound to {node}, which has no kubelet")
    for node, rt in sorted(runtimes.items()):
        bound = {p["metadata"]["uid"]: p for p in pods if p["spec"].get("nodeName") == node}
        out.extend(_node_problems(node, rt, bound, soak.kills))
    return out


def _abridged(problems: list[str], per_kind: int = 40) -> list[str]:
    """At most ``per_kind`` lines each of deployment, pod and node problems (so
    the runtime's side is never crowded out), with a count of those left out."""
    out: list[str] = []
    for prefix in ("deployment ", "pod ", "node ", ""):
        lines = [p for p in problems if p.startswith(prefix)
                 and (prefix or not p.startswith(("deployment ", "pod ", "node ")))]
        out.extend(lines[:per_kind])
        if len(lines) > per_kind:
            out.append(f"... and {len(lines) - per_kind} more {prefix.strip() or 'other'} "
                       "problems")
    return out


def recent_warnings(client: LocalClient, limit: int = 25) -> list[str]:
    """The latest Warning events of the soak namespace, newest last: on failure
    they usually name the cause (FailedCreatePodSandBox, FailedCreate...)."""
    events = [e for e in client.list("events", namespace=NS).items
              if e.get("type") == "Warning"]
    events.sort(key=lambda e: str(e.get("lastTimestamp") or ""))
    return [f"{e.get('lastTimestamp')} {e.get('reason')} "
            f"{(e.get('involvedObject') or {}).get('kind')}/"
            f"{(e.get('involvedObject') or {}).get('name')} x{e.get('count', 1)}: "
            f"{e.get('message')}" for e in events[-limit:]]


def wait_for_agreement(soak: Soak, timeout: float) -> tuple[float, list[str]]:
    """Poll until :func:`disagreements` is empty twice in a row (stable, not a
    passing moment); returns (seconds taken, the last disagreements)."""
    started = time.monotonic()
    deadline = started + timeout
    clean = 0
    problems: list[str] = []
    while time.monotonic() < deadline:
        problems = disagreements(soak)
        clean = clean + 1 if not problems else 0
        if clean == 2:
            return time.monotonic() - started, []
        time.sleep(POLL)
    return time.monotonic() - started, problems


# ------------------------------------------------------------------ the test


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[ControlPlane]:
    cp = ControlPlane(Options(state_dir=tmp_path / "state", runtime="fake", nodes=3, port=0,
                              restart_backoff=(0.2, 1.0)))
    (tmp_path / "state").mkdir()
    cp.start()
    try:
        yield cp
    finally:
        cp.stop()


def test_soak_store_and_nodes_agree(plane: ControlPlane) -> None:
    rng = random.Random(SEED)
    print(f"\nsoak: seed {SEED} (MINIKUBE_PY_SOAK_SEED={SEED} replays the choices), "
          f"{SOAK_SECONDS:.0f} s of operations, {len(plane.kubelets)} hollow nodes", flush=True)
    client = LocalClient(plane.registry, field_manager="soak")
    soak = Soak(plane, client, rng)
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    for obj in SEEDED:
        client.create(obj)

    started = time.monotonic()
    end = started + SOAK_SECONDS
    next_report = started + 60
    while (now := time.monotonic()) < end:
        soak.step()
        if now >= next_report:  # a sign of life on long runs
            print(f"soak: {now - started:.0f} s, {sum(soak.ops.values())} operations",
                  flush=True)
            next_report += 60
        time.sleep(rng.uniform(0.0, 0.25))
    ran = time.monotonic() - started
    soak.resume_all()

    took, problems = wait_for_agreement(soak, CONVERGE_SECONDS)
    ops = ", ".join(f"{k} {v}" for k, v in sorted(soak.ops.items()))
    print(f"soak: seed {SEED}, {ran:.0f} s, {sum(soak.ops.values())} operations ({ops}); "
          f"{sum(soak.kills.values())} kills on {len(soak.kills)} containers",
          flush=True)
    final = {d["metadata"]["name"]: d["spec"].get("replicas")
             for d in client.list("deployments", namespace=NS).items}
    if problems:
        shown = "\n  ".join(_abridged(problems))
        warnings = "\n  ".join(recent_warnings(client)) or "(none)"
        pytest.fail(f"soak (seed {SEED}): no agreement {took:.0f} s after the operations "
                    f"stopped (replicas {final}); {len(problems)} disagreements:\n  "
                    f"{shown}\nlatest Warning events:\n  {warnings}", pytrace=False)
    pods = client.list("pods", namespace=NS).items
    restarts = sum(int(st.get("restartCount") or 0) for p in pods
                   for st in (p.get("status") or {}).get("containerStatuses") or [])
    print(f"soak: converged {took:.1f} s after the operations stopped; replicas {final}; "
          f"{len(pods)} pods checked against the runtimes, {restarts} restarts among them",
          flush=True)
