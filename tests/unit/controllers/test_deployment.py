"""The Deployment controller against a real Store / Registry / LocalClient.

Most tests drive ``reconcile`` by hand, after waiting until the shared
informers' caches hold exactly what the store holds, and play the ReplicaSet
controller's part by writing ReplicaSet status (so every step is
deterministic). The end-to-end tests run the controller's workers and wait on
conditions, with bounded timeouts.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import AlreadyExists, StatusError
from minikube_py.api.timefmt import format_time
from minikube_py.client.informer import Informer, key_of
from minikube_py.client.local import LocalClient
from minikube_py.client.shared import SharedInformers
from minikube_py.controllers import deployment_progress as dp
from minikube_py.controllers import deployment_util as du
from minikube_py.controllers.deployment import DeploymentController
from minikube_py.ops.rollout import RolloutFailed, status_message
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.clock import FakeClock
from tests.waiting import wait_for

KEY = "default/web"
RESOURCES = ("deployments", "replicasets", "pods")


@dataclass
class Env:
    client: LocalClient
    informers: SharedInformers
    ctl: DeploymentController
    clock: FakeClock

    # ------------------------------------------------------------- plumbing

    def settle(self, timeout: float = 5.0) -> None:
        """Wait until every cache holds exactly the store's objects."""
        for resource in RESOURCES:
            want = versions(self.client.list(resource).items)
            # Before every reconcile: poll often, a cache lags the store by little.
            wait_for(partial(cache_holds, self.informers.get(resource), want),
                     f"the {resource} cache to catch up", timeout=timeout, interval=0.002)

    def reconcile(self) -> float | None:
        self.settle()
        return self.ctl.reconcile(KEY)

    # ------------------------------------------------------------- objects

    def deployment(self) -> dict[str, Any]:
        return self.client.get("deployments", "default", "web")

    def edit(self, change: Callable[[dict[str, Any]], None]) -> None:
        d = self.deployment()
        change(d)
        self.client.update(d)

    def set_image(self, image: str) -> None:
        def change(d: dict[str, Any]) -> None:
            d["spec"]["template"]["spec"]["containers"][0]["image"] = image
        self.edit(change)

    def replica_sets(self) -> list[dict[str, Any]]:
        # By revision: creation times have second precision, too coarse here.
        return du.by_revision(self.client.list("replicasets", namespace="default").items)

    def sizes(self) -> list[int]:
        return [du.replicas(r) for r in self.replica_sets()]

    def rs_ready(self, name: str, available: int | None = None) -> None:
        """What the ReplicaSet controller and kubelets would report: all
        replicas exist, ``available`` of them ready and available."""
        rs = self.client.get("replicasets", "default", name)
        n = du.replicas(rs) if available is None else available
        rs["status"] = {"replicas": du.replicas(rs), "fullyLabeledReplicas": du.replicas(rs),
                        "readyReplicas": n, "availableReplicas": n,
                        "observedGeneration": rs["metadata"]["generation"]}
        self.client.update(rs, subresource="status")

    def all_ready(self) -> None:
        for rs in self.replica_sets():
            self.rs_ready(du.name_of(rs))

    def events(self) -> list[str]:
        items = self.client.list("events", namespace="default").items
        items.sort(key=lambda e: e["metadata"]["name"])
        return [e["message"] for e in items if e["involvedObject"]["name"] == "web"]


def versions(objects: Iterable[dict[str, Any]]) -> dict[str, str]:
    return {key_of(o): o["metadata"]["resourceVersion"] for o in objects}


def cache_holds(informer: Informer, want: dict[str, str]) -> bool:
    return versions(informer.list()) == want


def deployment(replicas: int = 3, image: str = "nginx:1.25", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
                     "spec": {"containers": [{"name": "web", "image": image}]}},
    }
    body.update(spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"}, "spec": body}


def rolling(surge: Any, unavailable: Any) -> dict[str, Any]:
    return {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}


def condition(d: dict[str, Any], type_: str) -> tuple[str, str, str]:
    cond = dp.get_condition(d.get("status") or {}, type_)
    assert cond is not None, d.get("status")
    return cond["status"], cond["reason"], cond["message"]


@contextlib.contextmanager
def make_env(tmp_path: Path) -> Iterator[Env]:
    """A store, registry, in-process client, started informers and a
    deployment controller (workers not started) on a fake clock."""
    store = Store(tmp_path / "store")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    client = LocalClient(registry)
    informers = SharedInformers(client)
    clock = FakeClock(time.time())
    ctl = DeploymentController(client, informers, clock=clock, workers=1)
    informers.start()
    assert informers.wait_synced(5)
    try:
        yield Env(client, informers, ctl, clock)
    finally:
        ctl.stop()
        informers.stop()
        store.close()


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    with make_env(tmp_path) as e:
        yield e


# ====================================================================== creation


def test_new_deployment_creates_its_replica_set(env: Env):
    obj = deployment(3, strategy=rolling(1, 0))
    obj["metadata"]["annotations"] = {"kubernetes.io/change-cause": "first"}
    env.client.create(obj)
    env.reconcile()

    d = env.deployment()
    (rs,) = env.replica_sets()
    pod_hash = du.compute_hash(d["spec"]["template"], None)
    assert du.name_of(rs) == f"web-{pod_hash}"
    assert rs["metadata"]["labels"] == {"app": "web", "pod-template-hash": pod_hash}
    assert rs["spec"]["selector"] == {"matchLabels": {"app": "web",
                                                      "pod-template-hash": pod_hash}}
    assert rs["spec"]["template"]["metadata"]["labels"] == rs["metadata"]["labels"]
    assert rs["spec"]["replicas"] == 3
    assert rs["metadata"]["ownerReferences"] == [{
        "apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
        "uid": d["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
    assert rs["metadata"]["annotations"] == {
        "deployment.kubernetes.io/revision": "1",
        "deployment.kubernetes.io/desired-replicas": "3",
        "deployment.kubernetes.io/max-replicas": "4",
        "kubernetes.io/change-cause": "first"}
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert condition(d, "Progressing") == (
        "True", "NewReplicaSetCreated", f'Created new replica set "web-{pod_hash}"')
    assert env.events() == [f"Scaled up replica set web-{pod_hash} from 0 to 3"]


def test_status_follows_the_replica_set(env: Env):
    env.client.create(deployment(3, strategy=rolling(1, 0)))
    env.reconcile()
    (rs,) = env.replica_sets()
    env.rs_ready(du.name_of(rs), available=1)
    env.reconcile()
    d = env.deployment()
    status = {k: v for k, v in d["status"].items() if k != "conditions"}
    assert status == {"observedGeneration": 1, "replicas": 3, "updatedReplicas": 3,
                      "readyReplicas": 1, "availableReplicas": 1, "unavailableReplicas": 2}
    assert condition(d, "Available") == (
        "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
    assert condition(d, "Progressing") == (
        "True", "ReplicaSetUpdated", f'ReplicaSet "{du.name_of(rs)}" is progressing.')
    assert status_message(d) == (
        'Waiting for deployment "web" rollout to finish: 1 of 3 updated replicas are '
        "available...", False)

    env.rs_ready(du.name_of(rs))
    env.reconcile()
    d = env.deployment()
    assert condition(d, "Available") == (
        "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
    assert condition(d, "Progressing") == (
        "True", "NewReplicaSetAvailable", f'ReplicaSet "{du.name_of(rs)}" has successfully '
        "progressed.")
    assert status_message(d) == ('deployment "web" successfully rolled out', True)


def test_status_is_written_only_when_it_changes(env: Env):
    env.client.create(deployment(2))
    env.reconcile()
    env.all_ready()
    env.reconcile()
    rv = env.deployment()["metadata"]["resourceVersion"]
    assert env.reconcile() is None
    assert env.reconcile() is None
    assert env.deployment()["metadata"]["resourceVersion"] == rv


# ====================================================================== rolling update


def roll(env: Env, *, replicas: int, surge: int, unavailable: int,
         limit: int = 20) -> list[tuple[int, int]]:
    """Drive a rollout to its end, pods becoming ready as soon as they exist;
    check the fenceposts after every step; return (old, new) sizes per step."""
    steps: list[tuple[int, int]] = []
    for _ in range(limit):
        env.reconcile()
        rss = env.replica_sets()
        old, new = rss[0], rss[-1]
        # Never more than replicas + maxSurge pods asked for ...
        assert sum(du.replicas(r) for r in rss) <= replicas + surge
        # ... and never fewer than replicas - maxUnavailable available pods left.
        assert sum(min(du.replicas(r), du.status_int(r, "availableReplicas"))
                   for r in rss) >= replicas - unavailable
        sizes = (du.replicas(old), du.replicas(new))
        if not steps or steps[-1] != sizes:
            steps.append(sizes)
        env.all_ready()
        if status_message(env.deployment())[1] and sizes == (0, replicas):
            return steps
    raise AssertionError(f"rollout did not finish: {steps}")


def test_rolling_update_respects_max_surge(env: Env):
    env.client.create(deployment(3, strategy=rolling(1, 0)))
    env.reconcile()
    env.all_ready()
    env.reconcile()
    first = du.name_of(env.replica_sets()[0])

    env.set_image("nginx:1.26")
    steps = roll(env, replicas=3, surge=1, unavailable=0)
    assert steps == [(3, 1), (2, 1), (2, 2), (1, 2), (1, 3), (0, 3)]

    old, new = env.replica_sets()
    assert du.name_of(old) == first
    assert du.annotations_of(new)["deployment.kubernetes.io/revision"] == "2"
    assert env.deployment()["metadata"]["annotations"][
        "deployment.kubernetes.io/revision"] == "2"
    second = du.name_of(new)
    assert env.events() == [
        f"Scaled up replica set {first} from 0 to 3",
        f"Scaled up replica set {second} from 0 to 1",
        f"Scaled down replica set {first} from 3 to 2",
        f"Scaled up replica set {second} from 1 to 2",
        f"Scaled down replica set {first} from 2 to 1",
        f"Scaled up replica set {second} from 2 to 3",
        f"Scaled down replica set {first} from 1 to 0",
    ]


def test_rolling_update_with_percentages(env: Env):
    # 25% of 4: maxSurge rounds up to 1, maxUnavailable rounds down to 1.
    env.client.create(deployment(4, strategy=rolling("25%", "25%")))
    env.reconcile()
    env.all_ready()
    env.set_image("nginx:1.26")
    steps = roll(env, replicas=4, surge=1, unavailable=1)
    # Creating the new ReplicaSet is no scale-up, so the same pass may already
    # scale down: one old pod, the budget being 5 - 3 - 1 unavailable new pod.
    assert steps == [(3, 1), (3, 2), (1, 2), (1, 4), (0, 4)]


def test_rolling_update_waits_for_new_pods(env: Env):
    env.client.create(deployment(3, strategy=rolling(1, 0)))
    env.reconcile()
    env.all_ready()
    env.set_image("nginx:broken")
    for _ in range(3):
        env.reconcile()
    old, new = env.replica_sets()
    env.rs_ready(du.name_of(old))
    env.rs_ready(du.name_of(new), available=0)  # the new pod never gets ready
    for _ in range(3):
        env.reconcile()
    assert env.sizes() == [3, 1]
    d = env.deployment()
    assert status_message(d) == (
        'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been '
        "updated...", False)
    status = {k: v for k, v in d["status"].items() if k != "conditions"}
    assert status == {"observedGeneration": 2, "replicas": 4, "updatedReplicas": 1,
                      "readyReplicas": 3, "availableReplicas": 3, "unavailableReplicas": 1}


def test_unhealthy_old_replicas_are_scaled_down_first(env: Env):
    env.client.create(deployment(4, strategy=rolling(0, 1)))
    env.reconcile()
    (old,) = env.replica_sets()
    env.rs_ready(du.name_of(old), available=2)  # two old pods are broken
    env.set_image("nginx:1.26")
    # The new ReplicaSet starts with 0 replicas (no surge); the budget is
    # 4 pods - (4 - 1) min available - 0 = 1, and a broken pod goes first
    # (available ones could not go: only 2 are available, fewer than 3).
    env.reconcile()
    assert env.sizes() == [3, 0]
    assert env.events()[-1] == f"Scaled down replica set {du.name_of(old)} from 4 to 3"
    env.reconcile()
    assert env.sizes() == [3, 1]


def test_template_back_to_an_old_revision_reuses_its_replica_set(env: Env):
    env.client.create(deployment(1, strategy=rolling(1, 0)))
    env.reconcile()
    env.all_ready()
    env.set_image("nginx:1.26")
    roll(env, replicas=1, surge=1, unavailable=0)
    first, _ = env.replica_sets()
    env.set_image("nginx:1.25")
    env.reconcile()
    assert len(env.replica_sets()) == 2
    first = env.client.get("replicasets", "default", du.name_of(first))
    assert du.annotations_of(first)["deployment.kubernetes.io/revision"] == "3"
    assert du.annotations_of(first)["deployment.kubernetes.io/revision-history"] == "1"


# ====================================================================== scaling & pausing


def test_scaling_event_mid_rollout_is_proportional(env: Env):
    env.client.create(deployment(4, strategy=rolling(1, 0)))
    env.reconcile()
    env.all_ready()
    env.set_image("nginx:1.26")
    env.reconcile()
    assert env.sizes() == [4, 1]
    env.all_ready()

    def scale(d: dict[str, Any]) -> None:
        d["spec"]["replicas"] = 8
    env.edit(scale)
    env.reconcile()
    # 9 allowed (8 + 1 surge), 5 now: 4 more, spread 4:1 -> +3 / +1
    assert env.sizes() == [7, 2]
    old, new = env.replica_sets()
    for rs in (old, new):
        assert du.annotations_of(rs)["deployment.kubernetes.io/desired-replicas"] == "8"
        assert du.annotations_of(rs)["deployment.kubernetes.io/max-replicas"] == "9"
    assert env.events()[-2:] == [
        f"Scaled up replica set {du.name_of(old)} from 4 to 7",
        f"Scaled up replica set {du.name_of(new)} from 1 to 2"]


def test_paused_deployment_does_not_roll_out_but_scales(env: Env):
    env.client.create(deployment(2, strategy=rolling(1, 0), paused=True))
    env.reconcile()
    d = env.deployment()
    assert env.replica_sets() == []
    assert condition(d, "Progressing") == ("Unknown", "DeploymentPaused", "Deployment is paused")

    def resume(d: dict[str, Any]) -> None:
        d["spec"]["paused"] = False
    env.edit(resume)
    env.reconcile()
    assert env.sizes() == [2]
    env.all_ready()
    env.reconcile()

    def pause_and_change(d: dict[str, Any]) -> None:
        d["spec"]["paused"] = True
        d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.26"
        d["spec"]["replicas"] = 5
    env.edit(pause_and_change)
    env.reconcile()
    # No new ReplicaSet while paused, but the scaling is applied.
    assert env.sizes() == [5]
    d = env.deployment()
    assert condition(d, "Progressing")[1] == "DeploymentPaused"
    assert d["status"]["observedGeneration"] == d["metadata"]["generation"]

    first = env.replica_sets()[0]
    assert env.events()[-1] == f"Scaled up replica set {du.name_of(first)} from 2 to 5"

    env.edit(resume)
    env.reconcile()
    assert len(env.replica_sets()) == 2
    assert condition(env.deployment(), "Progressing")[:2] == ("True", "NewReplicaSetCreated")


# ====================================================================== Recreate


def test_recreate_scales_down_waits_for_pods_then_scales_up(env: Env):
    env.ctl.start()
    env.client.create(deployment(2, strategy={"type": "Recreate"}))
    wait_for(lambda: env.sizes() == [2], "one ReplicaSet of 2")
    (old,) = env.replica_sets()
    pods = []
    for i in range(2):
        pods.append(env.client.create({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"web-old-{i}", "namespace": "default",
                         "labels": dict(old["spec"]["template"]["metadata"]["labels"]),
                         "ownerReferences": [{
                             "apiVersion": "apps/v1", "kind": "ReplicaSet",
                             "name": du.name_of(old), "uid": old["metadata"]["uid"],
                             "controller": True, "blockOwnerDeletion": True}]},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}))
    env.rs_ready(du.name_of(old))
    wait_for(lambda: status_message(env.deployment())[1], "the rollout to finish")

    env.set_image("nginx:1.26")
    wait_for(lambda: env.sizes() == [0], "the old ReplicaSet scaled to 0")
    # The ReplicaSet controller's part: no replicas left, pods still terminating.
    env.rs_ready(du.name_of(old))
    wait_for(lambda: env.deployment()["status"].get("replicas", 0) == 0
             and env.deployment()["status"]["observedGeneration"] == 2,
             "status of generation 2 with no replicas")
    assert env.sizes() == [0], "the new ReplicaSet must wait for the old pods"

    # The last old pod going away is what wakes the deployment.
    env.client.delete("pods", "default", "web-old-0")
    env.client.delete("pods", "default", "web-old-1")
    wait_for(lambda: env.sizes() == [0, 2], "the new ReplicaSet scaled to 2")
    new = env.replica_sets()[1]
    assert env.events() == [
        f"Scaled up replica set {du.name_of(old)} from 0 to 2",
        f"Scaled down replica set {du.name_of(old)} from 2 to 0",
        f"Scaled up replica set {du.name_of(new)} from 0 to 2"]


# ====================================================================== history


def test_revision_history_limit_deletes_the_oldest(env: Env):
    env.client.create(deployment(1, strategy=rolling(1, 0), revisionHistoryLimit=1))
    env.reconcile()
    env.all_ready()
    names = [du.name_of(env.replica_sets()[0])]
    for image in ("nginx:1.26", "nginx:1.27", "nginx:1.28"):
        env.set_image(image)
        roll_to_end(env)
        names.append(du.name_of(env.replica_sets()[-1]))
        env.reconcile()  # complete: cleanup
    left = [du.name_of(r) for r in env.replica_sets()]
    assert left == names[-2:]
    revisions = [du.annotations_of(r)["deployment.kubernetes.io/revision"]
                 for r in env.replica_sets()]
    assert revisions == ["3", "4"]


def roll_to_end(env: Env, limit: int = 20) -> None:
    for _ in range(limit):
        env.reconcile()
        env.all_ready()
        rss = env.replica_sets()
        if status_message(env.deployment())[1] and all(
                du.replicas(r) == 0 for r in rss[:-1]):
            env.reconcile()
            return
    raise AssertionError(f"rollout did not finish: {env.sizes()} {env.deployment()['status']}")


# ====================================================================== deadline


def test_progress_deadline_exceeded(env: Env):
    env.client.create(deployment(2, strategy=rolling(1, 0), progressDeadlineSeconds=30))
    env.reconcile()
    (rs,) = env.replica_sets()
    env.rs_ready(du.name_of(rs), available=0)
    env.reconcile()
    env.clock.advance(10)
    again = env.reconcile()
    # No progress: look again when the deadline passes (30 s after the last
    # progress, plus a second for the timestamps' precision).
    assert again is not None and 20 <= again <= 22
    assert condition(env.deployment(), "Progressing")[1] == "ReplicaSetUpdated"

    env.clock.advance(30)
    env.reconcile()
    d = env.deployment()
    assert condition(d, "Progressing") == (
        "False", "ProgressDeadlineExceeded",
        f'ReplicaSet "{du.name_of(rs)}" has timed out progressing.')
    with pytest.raises(RolloutFailed, match='deployment "web" exceeded its progress deadline'):
        status_message(d)
    assert env.reconcile() is None  # timed out: nothing more to wait for

    # Progress afterwards turns it back to True.
    env.rs_ready(du.name_of(rs), available=1)
    env.reconcile()
    assert condition(env.deployment(), "Progressing")[:2] == ("True", "ReplicaSetUpdated")


def test_min_ready_seconds_requeues_when_pods_become_available(env: Env):
    env.client.create(deployment(1, minReadySeconds=30))
    env.reconcile()
    (rs,) = env.replica_sets()
    assert rs["spec"]["minReadySeconds"] == 30
    env.client.create({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "default",
                     "labels": dict(rs["spec"]["template"]["metadata"]["labels"]),
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": du.name_of(rs), "uid": rs["metadata"]["uid"],
                                          "controller": True}]},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}})
    pod = env.client.get("pods", "default", "web-1")
    pod["status"]["conditions"] = [{"type": "Ready", "status": "True",
                                    "lastTransitionTime": format_time(env.clock.now - 10)}]
    env.client.update(pod, subresource="status")
    again = env.reconcile()
    assert again is not None and 20 <= again <= 22


# ====================================================================== ownership


def test_hash_collision_bumps_collision_count(env: Env):
    obj = deployment(1)
    env.client.create(obj)
    d = env.deployment()
    pod_hash = du.compute_hash(d["spec"]["template"], None)
    env.client.create({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": f"web-{pod_hash}", "namespace": "default",
                     "labels": {"app": "other"}},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "other"}},
                 "template": {"metadata": {"labels": {"app": "other"}},
                              "spec": {"containers": [{"name": "x", "image": "busybox"}]}}}})
    with pytest.raises(AlreadyExists):
        env.reconcile()
    assert env.deployment()["status"]["collisionCount"] == 1
    env.reconcile()
    names = sorted(du.name_of(r) for r in env.replica_sets())
    new_hash = du.compute_hash(d["spec"]["template"], 1)
    assert names == sorted([f"web-{pod_hash}", f"web-{new_hash}"])
    assert env.deployment()["status"]["collisionCount"] == 1


def test_orphaned_replica_set_is_adopted(env: Env):
    env.client.create(deployment(2))
    d = env.deployment()
    pod_hash = du.compute_hash(d["spec"]["template"], None)
    template = {"metadata": {"labels": {"app": "web", "pod-template-hash": pod_hash}},
                "spec": d["spec"]["template"]["spec"]}
    env.client.create({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-orphan", "namespace": "default",
                     "labels": {"app": "web", "pod-template-hash": pod_hash}},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web",
                                                            "pod-template-hash": pod_hash}},
                 "template": template}})
    env.reconcile()
    (rs,) = env.replica_sets()
    assert du.name_of(rs) == "web-orphan"
    assert du.controller_of(rs)["uid"] == d["metadata"]["uid"]
    assert condition(env.deployment(), "Progressing") == (
        "True", "FoundNewReplicaSet", 'Found new replica set "web-orphan"')


def test_replica_set_events_map_to_the_owner(env: Env):
    env.client.create(deployment(1))
    env.reconcile()
    (rs,) = env.replica_sets()
    assert env.ctl._keys_for_replica_set(rs) == [KEY]
    stranger = {**rs, "metadata": {**rs["metadata"], "ownerReferences": [
        {**rs["metadata"]["ownerReferences"][0], "uid": "someone-else"}]}}
    assert env.ctl._keys_for_replica_set(stranger) == []
    orphan = {**rs, "metadata": {k: v for k, v in rs["metadata"].items()
                                 if k != "ownerReferences"}}
    assert env.ctl._keys_for_replica_set(orphan) == [KEY]


# ====================================================================== end to end


class ReadyReplicaSets:
    """Plays the ReplicaSet controller and kubelets: whenever a ReplicaSet's
    size changes, report all its replicas ready and available."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.watch = env.client.watch("replicasets", namespace="default")
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        for ev in self.watch:
            rs = ev.object
            if ev.type == "DELETED":
                continue
            st = rs.get("status") or {}
            if st.get("availableReplicas", 0) != du.replicas(rs) or \
                    st.get("replicas", 0) != du.replicas(rs):
                with contextlib.suppress(StatusError):
                    self.env.rs_ready(du.name_of(rs))

    def __enter__(self) -> ReadyReplicaSets:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.watch.stop()
        self.thread.join(5)


def test_workers_roll_out_a_deployment(env: Env):
    env.ctl.start()
    with ReadyReplicaSets(env):
        env.client.create(deployment(2, strategy=rolling(1, 0)))
        wait_for(lambda: status_message(env.deployment())[1], "the first rollout to finish")
        env.set_image("nginx:1.26")
        wait_for(lambda: env.sizes() == [0, 2] and status_message(env.deployment())[1],
                 "the second rollout to finish")
    d = env.deployment()
    assert condition(d, "Progressing")[1] == "NewReplicaSetAvailable"
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert len(env.events()) == 5
