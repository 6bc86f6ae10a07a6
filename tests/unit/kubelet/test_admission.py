"""Kubelet admission (kubelet/admission.py): the table, then the kubelet's behaviour."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.kubelet.admission import Admitter, Rejection, pod_host_ports, pod_requests
from minikube_py.nodes import NodeSpec
from tests.waiting import wait_for

from .conftest import GI, MI, create_pod, event_messages, get_pod, pod_in_phase

NODE = NodeSpec("node-1", 2000, 4 * GI, 3)


def pod(uid: str, *, cpu: str | None = None, memory: str | None = None,
        ports: list[dict[str, Any]] | None = None, init: list[dict[str, Any]] | None = None,
        overhead: dict[str, str] | None = None) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    c: dict[str, Any] = {"name": "c", "image": "x", "resources": {"requests": requests}}
    if ports:
        c["ports"] = ports
    spec: dict[str, Any] = {"containers": [c]}
    if init:
        spec["initContainers"] = init
    if overhead:
        spec["overhead"] = overhead
    return {"metadata": {"uid": uid, "name": uid, "namespace": "default"}, "spec": spec}


@pytest.mark.parametrize(("existing", "new", "want"), [
    ([], pod("a", cpu="1"), None),
    ([pod("a", cpu="500m")], pod("b", cpu="3"),
     Rejection("OutOfcpu", "Node didn't have enough resource: cpu, requested: 3000, "
                           "used: 500, capacity: 2000")),
    ([pod("a", cpu="1500m")], pod("b", cpu="500m"), None),  # exactly fills the node
    ([pod("a", memory="3Gi")], pod("b", memory="2Gi"),
     Rejection("OutOfmemory", f"Node didn't have enough resource: memory, requested: "
                              f"{2 * GI}, used: {3 * GI}, capacity: {4 * GI}")),
    ([pod("a"), pod("b"), pod("c")], pod("d"),
     Rejection("OutOfpods", "Node didn't have enough resource: pods, requested: 1, "
                            "used: 3, capacity: 3")),
    # pods are checked first, then cpu, then memory: the first failure is reported
    ([pod("a", cpu="2"), pod("b"), pod("c")], pod("d", cpu="1", memory="5Gi"),
     Rejection("OutOfpods", "Node didn't have enough resource: pods, requested: 1, "
                            "used: 3, capacity: 3")),
    ([pod("a", cpu="2")], pod("b", cpu="1", memory="5Gi"),
     Rejection("OutOfcpu", "Node didn't have enough resource: cpu, requested: 1000, "
                           "used: 2000, capacity: 2000")),
    # a pod requesting nothing fits even a full node
    ([pod("a", cpu="2", memory="4Gi")], pod("b"), None),
    ([pod("a", ports=[{"containerPort": 80, "hostPort": 8080}])],
     pod("b", ports=[{"containerPort": 81, "hostPort": 8080}]),
     Rejection("NodePorts", "Predicate NodePorts failed: node(s) didn't have free ports for "
                            "the requested pod ports")),
    ([pod("a", ports=[{"containerPort": 80, "hostPort": 8080, "protocol": "UDP"}])],
     pod("b", ports=[{"containerPort": 81, "hostPort": 8080}]), None),
    ([pod("a", ports=[{"containerPort": 80, "hostPort": 8080, "hostIP": "127.0.0.1"}])],
     pod("b", ports=[{"containerPort": 81, "hostPort": 8080, "hostIP": "127.0.0.2"}]), None),
    ([pod("a", ports=[{"containerPort": 80, "hostPort": 8080, "hostIP": "127.0.0.1"}])],
     pod("b", ports=[{"containerPort": 81, "hostPort": 8080}]),
     Rejection("NodePorts", "Predicate NodePorts failed: node(s) didn't have free ports for "
                            "the requested pod ports")),
])
def test_admission_table(existing, new, want):
    admitter = Admitter(NODE)
    for p in existing:
        assert admitter.admit(p) is None
    assert admitter.admit(new) == want


def test_a_decision_is_made_once_and_release_gives_back():
    admitter = Admitter(NODE)
    big = pod("a", cpu="2")
    assert admitter.admit(big) is None
    rejected = pod("b", cpu="1")
    assert admitter.admit(rejected) is not None
    admitter.release("a")
    assert admitter.used() == (0, 0, 0)
    # still rejected (decided once), still admitted-but-released (never counted twice)
    assert admitter.admit(rejected) is not None
    assert admitter.admit(big) is None and admitter.used() == (0, 0, 0)
    admitter.forget("b")
    assert admitter.admit(rejected) is None


def test_adopted_pods_are_admitted_without_a_check():
    admitter = Admitter(NODE)
    assert admitter.admit(pod("a", cpu="3"), adopted=True) is None
    assert admitter.used()[0] == 3000


@pytest.mark.parametrize(("spec", "want"), [
    (pod("a", cpu="250m", memory="64Mi"), (250, 64 * MI)),
    # init containers run alone: the largest one counts if above the app sum
    (pod("a", cpu="100m", init=[{"name": "i", "resources": {"requests": {"cpu": "1"}}}]),
     (1000, 0)),
    # a sidecar (restartable init container) adds to the app containers
    (pod("a", cpu="100m", init=[{"name": "s", "restartPolicy": "Always",
                                 "resources": {"requests": {"cpu": "200m"}}}]), (300, 0)),
    (pod("a", cpu="100m", overhead={"cpu": "50m", "memory": "1Mi"}), (150, MI)),
    (pod("a", cpu="0.0001"), (1, 0)),  # rounded up, like MilliValue()
])
def test_pod_requests(spec, want):
    assert pod_requests(spec) == want


def test_host_ports():
    p = pod("a", ports=[{"containerPort": 80, "hostPort": 8080}, {"containerPort": 9090}])
    assert pod_host_ports(p) == {("", "TCP", 8080)}


# ------------------------------------------------------------------ behaviour


def test_pod_that_does_not_fit_is_rejected_and_never_started(client, make_kubelet, runtime):
    make_kubelet(cpu=2000)
    create_pod(client, "small", containers=[
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "500m"}}}])
    pod_in_phase(client, "small", "Running")
    create_pod(client, "big", containers=[
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "3"}}}])
    rejected = pod_in_phase(client, "big", "Failed")
    status = rejected["status"]
    assert status["reason"] == "OutOfcpu"
    assert status["message"] == ("Pod was rejected: Node didn't have enough resource: cpu, "
                                 "requested: 3000, used: 500, capacity: 2000")
    assert "containerStatuses" not in status
    wait_for(lambda: event_messages(client, "big", "OutOfcpu"), "OutOfcpu event")
    assert [sb.labels["minikube-py.io/name"] for sb in runtime.list_sandboxes()] == ["small"]


def test_host_port_conflict_is_rejected(client, kubelet):
    ports = [{"containerPort": 80, "hostPort": 8080}]
    create_pod(client, "first", containers=[{"name": "c", "image": "nginx", "ports": ports}])
    pod_in_phase(client, "first", "Running")
    create_pod(client, "second", containers=[{"name": "c", "image": "nginx", "ports": ports}])
    status = pod_in_phase(client, "second", "Failed")["status"]
    assert status["reason"] == "NodePorts"
    assert status["message"].startswith("Pod was rejected: Predicate NodePorts failed")


def test_pods_count_limit(client, make_kubelet):
    make_kubelet(pods=1)
    create_pod(client, "one")
    pod_in_phase(client, "one", "Running")
    create_pod(client, "two")
    assert pod_in_phase(client, "two", "Failed")["status"]["reason"] == "OutOfpods"


def test_finished_pods_give_their_share_back(client, make_kubelet):
    make_kubelet(cpu=1000)
    create_pod(client, "job", restartPolicy="Never", containers=[
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}},
         "env": [{"name": "FAKE_EXIT_CODE", "value": "0"}]}])
    pod_in_phase(client, "job", "Succeeded")
    create_pod(client, "next", containers=[
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}])
    pod_in_phase(client, "next", "Running")


def test_restarted_kubelet_admits_in_creation_order_and_adopts_running(client, make_kubelet,
                                                                       runtime):
    first = make_kubelet(cpu=1000)
    create_pod(client, "old", containers=[
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "800m"}}}])
    pod_in_phase(client, "old", "Running")
    first.stop()
    # Bound while the kubelet was down: it must lose against the running pod.
    create_pod(client, "late", containers=[
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "800m"}}}])
    make_kubelet(cpu=1000)
    assert pod_in_phase(client, "late", "Failed")["status"]["reason"] == "OutOfcpu"
    assert get_pod(client, "old")["status"]["phase"] == "Running"
