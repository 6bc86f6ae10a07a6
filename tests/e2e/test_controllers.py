"""The controllers through the real kubectl, against a daemon on hollow nodes:
Deployment rollouts (status, history, undo, pause, Recreate, progress deadline),
ReplicaSets, garbage collection modes, Jobs (completion, failure, TTL) and
namespace deletion. Every wait is a bounded poll of the API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.waiting import wait_for

from .conftest import Daemon, start_daemon, stop_daemon

IMAGE = "localhost/minikube-py/busybox:1.35"


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    daemon = start_daemon(tmp_path_factory.mktemp("controllers") / "state", "--nodes", "3")
    try:
        yield daemon
    finally:
        assert stop_daemon(daemon) == 0



def apply(d: Daemon, obj: dict[str, Any]) -> None:
    d.kubectl("apply", "-f", "-", input=yaml.safe_dump(obj))


def deployment(name: str, *, replicas: int = 3, image: str = IMAGE,
               strategy: dict[str, Any] | None = None, env: list[dict[str, str]] | None = None,
               **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "app", "image": image,
                                 "imagePullPolicy": "IfNotPresent"}
    if env:
        container["env"] = env
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "strategy": strategy or {"type": "RollingUpdate"},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"terminationGracePeriodSeconds": 0,
                                           "containers": [container]}},
                     **spec}}


def pods(d: Daemon, selector: str, namespace: str = "default") -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = d.get_json("pods", "-n", namespace, "-l", selector)["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def events(d: Daemon, name: str) -> list[tuple[str, str]]:
    items = d.get_json("events", "--field-selector", f"involvedObject.name={name}")["items"]
    return [(e["reason"], e["message"]) for e in items]


def test_deployment_rollout_status_history_undo(d: Daemon):
    apply(d, deployment("web"))
    out = d.kubectl("rollout", "status", "deployment/web", "--timeout=60s").stdout
    assert 'deployment "web" successfully rolled out' in out
    [rs1] = d.get_json("rs", "-l", "app=web")["items"]
    assert rs1["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert rs1["metadata"]["ownerReferences"][0]["kind"] == "Deployment"
    assert rs1["metadata"]["name"] == f"web-{rs1['metadata']['labels']['pod-template-hash']}"
    assert len(pods(d, "app=web")) == 3
    assert ("ScalingReplicaSet", f"Scaled up replica set {rs1['metadata']['name']} from 0 to 3"
            ) in events(d, "web")
    assert any(reason == "SuccessfulCreate" for reason, _ in events(d, rs1["metadata"]["name"]))

    d.kubectl("set", "image", "deployment/web", "app=localhost/minikube-py/busybox:latest")
    d.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
    wait_for(lambda: {p["spec"]["containers"][0]["image"] for p in pods(d, "app=web")}
             == {"localhost/minikube-py/busybox:latest"} and len(pods(d, "app=web")) == 3,
             "the new image on every pod")
    history = d.kubectl("rollout", "history", "deployment/web").stdout
    assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ["1", "2"]

    assert d.kubectl("rollout", "undo", "deployment/web", "--to-revision=1").stdout.strip() \
        == "deployment.apps/web rolled back"
    d.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
    wait_for(lambda: {p["spec"]["containers"][0]["image"] for p in pods(d, "app=web")}
             == {IMAGE} and len(pods(d, "app=web")) == 3, "the first image back")
    # Undo re-uses revision 1's ReplicaSet, which becomes revision 3.
    rss = {r["metadata"]["name"]: r for r in d.get_json("rs", "-l", "app=web")["items"]}
    assert rss[rs1["metadata"]["name"]]["metadata"]["annotations"][
        "deployment.kubernetes.io/revision"] == "3"
    dep = d.get_json("deployment", "web")
    assert dep["status"]["observedGeneration"] == dep["metadata"]["generation"]
    assert {c["type"]: c["reason"] for c in dep["status"]["conditions"]} == {
        "Available": "MinimumReplicasAvailable", "Progressing": "NewReplicaSetAvailable"}

    d.kubectl("delete", "deployment", "web")
    wait_for(lambda: not d.get_json("rs", "-l", "app=web")["items"]
             and not d.get_json("pods", "-l", "app=web")["items"], "cascade to pods")


def test_scale_pause_and_resume(d: Daemon):
    apply(d, deployment("paused", replicas=2))
    d.kubectl("rollout", "status", "deployment/paused", "--timeout=60s")
    d.kubectl("scale", "deployment/paused", "--replicas=5")
    wait_for(lambda: len(pods(d, "app=paused")) == 5, "5 pods")
    d.kubectl("rollout", "pause", "deployment/paused")
    d.kubectl("set", "image", "deployment/paused", "app=localhost/minikube-py/busybox:latest")

    def observed() -> dict[str, Any] | None:
        dep: dict[str, Any] = d.get_json("deployment", "paused")
        done = dep.get("status", {}).get("observedGeneration") == dep["metadata"]["generation"]
        return dep if done else None

    # A paused rollout must not start. The controller has seen the new image when
    # it reports the generation that has it as observed, and its sync creates any
    # ReplicaSet before it writes that status.
    dep = wait_for(observed, "the controller to observe the new image", timeout=30)
    assert len(d.get_json("rs", "-l", "app=paused")["items"]) == 1
    assert {c["type"]: c["reason"] for c in dep["status"]["conditions"]}["Progressing"] \
        == "DeploymentPaused"
    d.kubectl("rollout", "resume", "deployment/paused")
    d.kubectl("rollout", "status", "deployment/paused", "--timeout=60s")
    assert len(d.get_json("rs", "-l", "app=paused")["items"]) == 2
    d.kubectl("scale", "deployment/paused", "--replicas=1")
    wait_for(lambda: len(pods(d, "app=paused")) == 1, "scaled down to 1")
    d.kubectl("delete", "deployment", "paused")


def test_recreate_never_overlaps(d: Daemon):
    apply(d, deployment("recreate", replicas=2, strategy={"type": "Recreate"}))
    d.kubectl("rollout", "status", "deployment/recreate", "--timeout=60s")
    old = {p["metadata"]["name"] for p in pods(d, "app=recreate")}
    d.kubectl("set", "image", "deployment/recreate", "app=localhost/minikube-py/busybox:latest")
    d.kubectl("rollout", "status", "deployment/recreate", "--timeout=60s")
    new = {p["metadata"]["name"] for p in pods(d, "app=recreate")}
    assert len(new) == 2 and not new & old
    reasons = [m for r, m in events(d, "recreate") if r == "ScalingReplicaSet"]
    down = next(i for i, m in enumerate(reasons) if m.startswith("Scaled down"))
    up_new = max(i for i, m in enumerate(reasons) if m.startswith("Scaled up"))
    assert down < up_new, reasons  # old pods went before new ones came
    d.kubectl("delete", "deployment", "recreate")


def test_progress_deadline_exceeded_fails_rollout_status(d: Daemon):
    # The readiness probe never passes (the fake runtime's exec exits 1).
    dep = deployment("stuck", replicas=1, progressDeadlineSeconds=2,
                     env=[{"name": "FAKE_EXEC_EXIT_CODE", "value": "1"}])
    dep["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = {
        "exec": {"command": ["false"]}, "periodSeconds": 1}
    apply(d, dep)
    result = d.kubectl("rollout", "status", "deployment/stuck", "--timeout=60s", check=False)
    assert result.returncode == 1
    assert 'error: deployment "stuck" exceeded its progress deadline' in result.stderr
    conditions = {c["type"]: c for c in d.get_json("deployment", "stuck")["status"]["conditions"]}
    assert conditions["Progressing"]["status"] == "False"
    assert conditions["Progressing"]["reason"] == "ProgressDeadlineExceeded"
    d.kubectl("delete", "deployment", "stuck")


def replicaset(name: str, replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"rs": name}},
                     "template": {"metadata": {"labels": {"rs": name}}, "spec": {
                         "terminationGracePeriodSeconds": 0,
                         "containers": [{"name": "c", "image": IMAGE}]}}}}


@pytest.mark.parametrize(("cascade", "pods_left"), [
    ("background", 0), ("foreground", 0), ("orphan", 2)])
def test_cascading_deletion(d: Daemon, cascade: str, pods_left: int):
    name = f"gc-{cascade}"
    apply(d, replicaset(name, 2))
    wait_for(lambda: len(pods(d, f"rs={name}")) == 2, "two pods")
    d.kubectl("delete", "rs", name, f"--cascade={cascade}", "--wait=true")
    # kubectl waited until the ReplicaSet was gone. With --cascade=orphan its pods
    # lost their ownerReferences before that (the orphan finalizer), so the garbage
    # collector has no owner to follow from them: none can go later.
    wait_for(lambda: len(pods(d, f"rs={name}")) == pods_left, f"{pods_left} pods left")
    left = pods(d, f"rs={name}")
    assert len(left) == pods_left
    assert all(not p["metadata"].get("ownerReferences") for p in left)  # orphaned
    # A new ReplicaSet with the same selector adopts the orphans instead of creating.
    if pods_left:
        apply(d, replicaset(name, 2))
        rs = d.get_json("rs", name)

        def synced() -> bool:
            # Its controller adopts (claims) first, then counts and creates what is
            # missing, then writes the status it observed: all done once it has.
            got = d.get_json("rs", name)
            return bool(got.get("status", {}).get("observedGeneration")
                        == got["metadata"]["generation"])

        wait_for(synced, "the new ReplicaSet's first sync", timeout=30)
        adopted = pods(d, f"rs={name}")
        assert {p["metadata"]["name"] for p in adopted} == {p["metadata"]["name"] for p in left}
        assert all(p["metadata"]["ownerReferences"][0]["controller"]
                   and p["metadata"]["ownerReferences"][0]["uid"] == rs["metadata"]["uid"]
                   for p in adopted)
        d.kubectl("delete", "rs", name)


def job(name: str, *, exit_code: int = 0, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {**spec, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "work", "image": IMAGE, "env": [
                    {"name": "FAKE_EXIT_CODE", "value": str(exit_code)}]}]}}}}


def test_job_completes_with_parallelism(d: Daemon):
    apply(d, job("batch", completions=4, parallelism=2))
    d.kubectl("wait", "--for=condition=complete", "job/batch", "--timeout=60s")
    got = d.get_json("job", "batch")
    assert got["status"]["succeeded"] == 4 and "completionTime" in got["status"]
    table = d.kubectl("get", "job", "batch").stdout.splitlines()
    assert table[0].split() == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert table[1].split()[:3] == ["batch", "Complete", "4/4"]
    assert ("Completed", "Job completed") in events(d, "batch")
    done = d.get_json("pods", "-l", "batch.kubernetes.io/job-name=batch")["items"]
    assert len(done) == 4 and {p["status"]["phase"] for p in done} == {"Succeeded"}
    assert all(not p["metadata"].get("finalizers") for p in done)  # counted, released
    d.kubectl("delete", "job", "batch")
    wait_for(lambda: not d.get_json("pods", "-l", "batch.kubernetes.io/job-name=batch")["items"],
             "the job's pods collected")


def test_job_fails_past_backoff_limit(d: Daemon):
    apply(d, job("doomed", exit_code=3, backoffLimit=0))
    d.kubectl("wait", "--for=condition=failed", "job/doomed", "--timeout=60s")
    conditions = {c["type"]: c for c in d.get_json("job", "doomed")["status"]["conditions"]}
    assert conditions["Failed"]["reason"] == "BackoffLimitExceeded"
    assert conditions["Failed"]["message"] == "Job has reached the specified backoff limit"
    assert d.kubectl("get", "job", "doomed").stdout.splitlines()[1].split()[1] == "Failed"
    d.kubectl("delete", "job", "doomed")


def test_finished_job_is_deleted_after_its_ttl(d: Daemon):
    apply(d, job("shortlived", ttlSecondsAfterFinished=2))
    d.kubectl("wait", "--for=condition=complete", "job/shortlived", "--timeout=60s")
    wait_for(lambda: d.kubectl("get", "job", "shortlived", check=False).returncode == 1,
             "the job gone after its TTL")
    assert not d.get_json("pods", "-l", "batch.kubernetes.io/job-name=shortlived")["items"]


def test_deleting_a_namespace_removes_its_content(d: Daemon):
    d.kubectl("create", "namespace", "team")
    dep = deployment("api", replicas=2)
    dep["metadata"]["namespace"] = "team"
    apply(d, dep)
    wait_for(lambda: len(pods(d, "app=api", "team")) == 2, "pods in team")
    d.kubectl("delete", "namespace", "team", "--wait=true", timeout=90)
    assert d.kubectl("get", "namespace", "team", check=False).returncode == 1
    assert not d.get_json("pods", "-n", "team")["items"]
    assert not d.get_json("deployments", "-n", "team")["items"]
