"""Shared helpers for the Job controller tests (``test_job*.py``): Job
builders, starting the controller on a :class:`Cluster`, one synced reconcile,
and reading back the job, its pods and its conditions.

The kubelet is simulated by writing pod status through the ``status``
subresource (phase, and container states whose ``finishedAt`` is what the
failure back-off counts from).
"""

from __future__ import annotations

import copy
import time
from datetime import UTC, datetime
from typing import Any

from minikube_py.controllers.job import JOB_TRACKING_FINALIZER, JobController

from .conftest import Cluster, drain

KEY = "default/pi"
NS = "default"
IMAGE = "busybox:1.36"
UNSET: Any = object()  # "leave the field out" (None is a meaningful completions value)


def ts(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def job(name: str = "pi", *, completions: Any = 1, parallelism: Any = 1,
        backoff_limit: int | None = None, deadline: int | None = None,
        suspend: bool | None = None, mode: str | None = None, restart: str = "Never",
        replacement: str | None = None, manual_labels: dict[str, str] | None = None
        ) -> dict[str, Any]:
    """A batch/v1 Job; ``manual_labels`` switches to ``manualSelector`` with
    those labels as both selector and template labels."""
    spec: dict[str, Any] = {"template": {"spec": {
        "restartPolicy": restart, "containers": [{"name": "c", "image": IMAGE}]}}}
    for key, value in (("completions", completions), ("parallelism", parallelism),
                       ("backoffLimit", backoff_limit), ("activeDeadlineSeconds", deadline),
                       ("suspend", suspend), ("completionMode", mode),
                       ("podReplacementPolicy", replacement)):
        if value is not UNSET and value is not None:
            spec[key] = value
    if manual_labels is not None:
        spec["manualSelector"] = True
        spec["selector"] = {"matchLabels": dict(manual_labels)}
        spec["template"]["metadata"] = {"labels": dict(manual_labels)}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": NS}, "spec": spec}


def start(cluster: Cluster, **kw: Any) -> JobController:
    kw.setdefault("clock", cluster.clock or time.time)
    ctrl = JobController(cluster.recorder, cluster.informers, **kw)
    cluster.start(("pods", "jobs"))
    drain(ctrl)
    return ctrl


def create(cluster: Cluster, obj: dict[str, Any]) -> dict[str, Any]:
    created = cluster.client.create(obj)
    cluster.settle()
    return created


def sync(cluster: Cluster, ctrl: JobController, key: str = KEY) -> float | None:
    """One reconcile against a cache that has caught up with the store."""
    cluster.settle()
    return ctrl.reconcile(key)


def get_job(cluster: Cluster, name: str = "pi") -> dict[str, Any]:
    return cluster.client.get("jobs", NS, name)


def job_pods(cluster: Cluster, name: str = "pi") -> list[dict[str, Any]]:
    """Pods controlled by the job, oldest name first."""
    out = [p for p in cluster.client.list("pods", namespace=NS).items
           if any(r.get("controller") and r.get("name") == name and r.get("kind") == "Job"
                  for r in p["metadata"].get("ownerReferences") or [])]
    return sorted(out, key=lambda p: p["metadata"]["name"])


def conditions(cluster: Cluster, name: str = "pi") -> list[tuple[str, str, str, str]]:
    return [(c["type"], c["status"], c.get("reason", ""), c.get("message", ""))
            for c in get_job(cluster, name)["status"].get("conditions") or []]


def kubelet(cluster: Cluster, name: str, phase: str, *, at: float | None = None,
            restarts: int = 0, ready: bool = False) -> None:
    """Write what a kubelet reports: ``phase`` and one container's state."""
    current = cluster.client.get("pods", NS, name)
    now = cluster.clock.now if cluster.clock else time.time()
    status = copy.deepcopy(current["status"])
    status["phase"] = phase
    state: dict[str, Any]
    if phase in ("Succeeded", "Failed"):
        state = {"terminated": {"exitCode": 0 if phase == "Succeeded" else 1,
                                "reason": "Completed" if phase == "Succeeded" else "Error",
                                "startedAt": ts(now - 1),
                                "finishedAt": ts(now if at is None else at)}}
    else:
        state = {"running": {"startedAt": ts(now)}}
    status["containerStatuses"] = [{"name": "c", "image": IMAGE, "imageID": "",
                                    "ready": ready, "restartCount": restarts,
                                    "state": state}]
    status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False",
                             "lastTransitionTime": ts(now)}]
    cluster.client.update({**current, "status": status}, subresource="status")


def finalizer_removals(cluster: Cluster) -> list[str]:
    return [a[3] for a in cluster.recorder.writes("patch", "pods")
            if a[5] == {"metadata": {
                "$deleteFromPrimitiveList/finalizers": [JOB_TRACKING_FINALIZER]}}]
