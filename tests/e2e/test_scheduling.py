"""The scheduler end to end: a daemon with three sized, labelled, tainted nodes
(fake runtime), driven through the API as a user would."""

from __future__ import annotations

import json
import textwrap
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.waiting import wait_for

from .conftest import Daemon, start_daemon, stop_daemon

pytestmark = pytest.mark.e2e

NODES = textwrap.dedent("""\
    nodes:
      - name: node-a
        cpu: "1"
        memory: 2Gi
        labels: {zone: a, disk: ssd}
      - name: node-b
        cpu: "1"
        memory: 2Gi
        labels: {zone: b}
      - name: node-gpu
        cpu: "1"
        memory: 2Gi
        labels: {zone: c}
        taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
    """)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    base = tmp_path_factory.mktemp("sched")
    config = base / "nodes.yaml"
    config.write_text(NODES)
    d = start_daemon(base / "state", "--config", str(config), "--runtime", "fake")
    try:
        yield d
    finally:
        assert stop_daemon(d) == 0


def pod_yaml(name: str, *, cpu: str = "100m", labels: dict[str, str] | None = None,
             **spec: Any) -> str:
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "labels": labels or {"app": name}},
           "spec": {"terminationGracePeriodSeconds": 0, "containers": [{
               "name": "c", "image": "localhost/minikube-py/busybox:1.35",
               "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}], **spec}}
    return yaml.safe_dump(obj)



def node_of(d: Daemon, name: str) -> str | None:
    out = d.kubectl("get", "pod", name, "-o", "jsonpath={.spec.nodeName}", check=False)
    return out.stdout.strip() or None


def cleanup(d: Daemon, *names: str) -> None:
    d.kubectl("delete", "pod", *names, "--ignore-not-found", "--wait=true")


def test_every_pod_gets_a_scheduled_event_and_a_decision(cluster: Daemon):
    cluster.kubectl("apply", "-f", "-", input=pod_yaml("plain"))
    node = wait_for(lambda: node_of(cluster, "plain"), "plain to be bound")
    assert node in ("node-a", "node-b")  # never the tainted node
    events = cluster.kubectl("get", "events", "--field-selector",
                             "involvedObject.name=plain,reason=Scheduled").stdout
    assert f"Successfully assigned default/plain to {node}" in events
    explained = cluster.cli("explain", "pod", "plain").stdout
    assert node in explained and "node-gpu" in explained
    assert "untolerated taint" in explained
    cleanup(cluster, "plain")


def test_taints_and_tolerations(cluster: Daemon):
    tolerant = pod_yaml("tolerant", nodeSelector={"zone": "c"}, tolerations=[
        {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}])
    intolerant = pod_yaml("intolerant", nodeSelector={"zone": "c"})
    cluster.kubectl("apply", "-f", "-", input=tolerant)
    cluster.kubectl("apply", "-f", "-", input=intolerant)
    assert wait_for(lambda: node_of(cluster, "tolerant"), "tolerant pod") == "node-gpu"
    message = wait_for(lambda: _scheduled_condition_message(cluster, "intolerant"),
                       "FailedScheduling on the intolerant pod")
    assert message == ("0/3 nodes are available: 1 node(s) had untolerated taint "
                       "{dedicated: gpu}, 2 node(s) didn't match Pod's node affinity/selector. "
                       "preemption: 0/3 nodes are available: 3 Preemption is not helpful for "
                       "scheduling.")
    assert node_of(cluster, "intolerant") is None
    cleanup(cluster, "tolerant", "intolerant")


def _scheduled_condition_message(d: Daemon, name: str) -> str | None:
    pod = json.loads(d.kubectl("get", "pod", name, "-o", "json").stdout)
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if cond["type"] == "PodScheduled" and cond["status"] == "False":
            return str(cond["message"])
    return None


def test_node_selector_and_required_affinity(cluster: Daemon):
    cluster.kubectl("apply", "-f", "-", input=pod_yaml("on-ssd", nodeSelector={"disk": "ssd"}))
    cluster.kubectl("apply", "-f", "-", input=pod_yaml("not-a", affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]}]}}}))
    assert wait_for(lambda: node_of(cluster, "on-ssd"), "on-ssd") == "node-a"
    assert wait_for(lambda: node_of(cluster, "not-a"), "not-a") == "node-b"
    cleanup(cluster, "on-ssd", "not-a")


def test_six_replicas_of_a_replicaset_spread_two_per_node(cluster: Daemon):
    # The ReplicaSet controller makes the pods; the scheduler's PodTopologySpread
    # default constraints and SelectorSpread spread them over the three nodes.
    pod = yaml.safe_load(pod_yaml("x", labels={"app": "spread"},
                                  tolerations=[{"key": "dedicated", "operator": "Exists",
                                                "effect": "NoSchedule"}]))
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "spread"},
          "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "spread"}},
                   "template": {"metadata": {"labels": {"app": "spread"}},
                                "spec": pod["spec"]}}}
    cluster.kubectl("apply", "-f", "-", input=yaml.safe_dump(rs))

    def bound() -> list[str] | None:
        out = cluster.kubectl("get", "pods", "-l", "app=spread", "-o",
                              "jsonpath={range .items[*]}{.spec.nodeName}{\"\\n\"}{end}").stdout
        nodes = out.split()
        return nodes if len(nodes) == 6 and len(out.splitlines()) == 6 else None

    nodes = wait_for(bound, "all six bound")
    assert Counter(nodes) == {"node-a": 2, "node-b": 2, "node-gpu": 2}
    cluster.kubectl("delete", "rs", "spread", "--wait=true")
    assert wait_for(lambda: not cluster.kubectl("get", "pods", "-l", "app=spread", "-o",
                                                "name").stdout.strip(),
                    "the ReplicaSet's pods collected")


def test_unschedulable_pod_is_placed_as_soon_as_room_frees(cluster: Daemon):
    # Fill both untainted nodes, then ask for more than is left.
    cluster.kubectl("apply", "-f", "-", input=pod_yaml("big-a", cpu="900m",
                                                      nodeSelector={"zone": "a"}))
    cluster.kubectl("apply", "-f", "-", input=pod_yaml("big-b", cpu="900m",
                                                      nodeSelector={"zone": "b"}))
    wait_for(lambda: node_of(cluster, "big-a") and node_of(cluster, "big-b"), "big pods")
    cluster.kubectl("apply", "-f", "-", input=pod_yaml("waiting", cpu="500m"))
    message = wait_for(lambda: _scheduled_condition_message(cluster, "waiting"),
                       "waiting to be unschedulable")
    assert message.startswith("0/3 nodes are available: 1 node(s) had untolerated taint "
                              "{dedicated: gpu}, 2 Insufficient cpu.")
    started = time.monotonic()
    cleanup(cluster, "big-b")
    assert wait_for(lambda: node_of(cluster, "waiting"), "waiting to be bound") == "node-b"
    assert time.monotonic() - started < 10  # an event moved it, not the 5-minute flush
    cleanup(cluster, "big-a", "waiting")


def test_preemption_of_a_lower_priority_pod(cluster: Daemon):
    cluster.kubectl("apply", "-f", "-", input=textwrap.dedent("""\
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: important}
        value: 1000
        """))
    cluster.kubectl("apply", "-f", "-", input=pod_yaml("victim", cpu="900m",
                                                      nodeSelector={"zone": "a"}))
    assert wait_for(lambda: node_of(cluster, "victim"), "victim") == "node-a"
    cluster.kubectl("apply", "-f", "-", input=pod_yaml(
        "vip", cpu="900m", nodeSelector={"zone": "a"}, priorityClassName="important"))
    assert wait_for(lambda: node_of(cluster, "vip"), "vip to preempt", timeout=30) == "node-a"
    gone = cluster.kubectl("get", "pod", "victim", check=False)
    assert gone.returncode == 1
    events = cluster.kubectl("get", "events", "--field-selector",
                             "involvedObject.name=victim,reason=Preempted").stdout
    assert "Preempted by pod" in events and "on node node-a" in events
    cleanup(cluster, "vip")
