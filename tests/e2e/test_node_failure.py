"""A node whose kubelet stops: the whole control plane in-process on hollow nodes,
with a short node grace period and default toleration, so the chain runs in
seconds: heartbeat stops -> node Ready Unknown -> unreachable taints -> pods
evicted after their toleration -> the ReplicaSet replaces them elsewhere."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.client.local import LocalClient
from minikube_py.controlplane import ControlPlane, Options
from tests.waiting import wait_for

GRACE = 3.0
TOLERATION = 2


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[ControlPlane]:
    cp = ControlPlane(Options(state_dir=tmp_path / "state", runtime="fake", nodes=3, port=0,
                              heartbeat_interval=0.5, lease_renew_interval=0.5,
                              node_grace_period=GRACE,
                              default_toleration_seconds=TOLERATION))
    cp.start()
    try:
        yield cp
    finally:
        cp.stop()



def deployment(replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                         "containers": [{"name": "c", "image": "busybox:1.36"}]}}}}


def running(client: LocalClient) -> list[dict[str, Any]]:
    out = []
    for p in client.list("pods", namespace="default", label_selector="app=web").items:
        ready = {c["type"]: c["status"] for c in (p.get("status") or {}).get("conditions", [])}
        if not p["metadata"].get("deletionTimestamp") and ready.get("Ready") == "True":
            out.append(p)
    return out


def test_pods_of_a_silent_node_are_evicted_and_replaced(plane: ControlPlane):
    client = LocalClient(plane.registry)
    client.create(deployment(6))
    wait_for(lambda: len(running(client)) == 6, "six running pods")
    victim = next(iter(plane.kubelets))
    doomed = {p["metadata"]["name"] for p in running(client)
              if p["spec"]["nodeName"] == victim}
    assert doomed, "the spread put no pod on the first node"
    # Every pod tolerates the node taints for TOLERATION seconds (admission).
    tolerations = running(client)[0]["spec"]["tolerations"]
    assert {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
            "effect": "NoExecute", "tolerationSeconds": TOLERATION} in tolerations

    stopped_at = time.monotonic()
    plane.kubelets[victim].stop()

    def unknown() -> dict[str, Any] | None:
        node = client.get("nodes", None, victim)
        ready = {c["type"]: c for c in node["status"]["conditions"]}["Ready"]
        return node if ready["status"] == "Unknown" else None

    node = wait_for(unknown, "the node to turn Unknown")
    assert time.monotonic() - stopped_at >= GRACE - 1  # not before its grace period
    ready = {c["type"]: c for c in node["status"]["conditions"]}["Ready"]
    assert (ready["reason"], ready["message"]) == ("NodeStatusUnknown",
                                                   "Kubelet stopped posting node status.")
    taints = wait_for(lambda: {(t["key"], t["effect"]) for t in
                               client.get("nodes", None, victim)["spec"].get("taints", [])
                               if t["key"].startswith("node.kubernetes.io/")} or None,
                      "the unreachable taints")
    assert taints == {("node.kubernetes.io/unreachable", "NoSchedule"),
                      ("node.kubernetes.io/unreachable", "NoExecute")}

    # After the toleration, the pods are marked for deletion and replaced elsewhere.
    wait_for(lambda: len(running(client)) == 6 and not doomed & {
        p["metadata"]["name"] for p in running(client)}, "six running pods again")
    assert all(p["spec"]["nodeName"] != victim for p in running(client))
    evicted = [client.get("pods", "default", name) for name in doomed]
    for pod in evicted:  # their kubelet is gone, so they stay Terminating, as in Kubernetes
        assert pod["metadata"]["deletionTimestamp"]
        conditions = {c["type"]: c for c in pod["status"]["conditions"]}
        assert conditions["DisruptionTarget"]["reason"] == "DeletionByTaintManager"
    reasons = {(e["reason"], e["involvedObject"]["name"])
               for e in client.list("events", namespace="default").items}
    assert all(("TaintManagerEviction", name) in reasons for name in doomed)
