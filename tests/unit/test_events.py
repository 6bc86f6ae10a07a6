"""EventRecorder: core/v1 Events as Kubernetes' recorder writes them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import InternalError
from minikube_py.client.events import AGGREGATION_WINDOW, EventRecorder
from minikube_py.client.local import LocalClient
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.clock import FakeClock

NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z


@pytest.fixture
def client(tmp_path: Path):
    store = Store(tmp_path / "s")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    yield LocalClient(registry)
    store.close()


@pytest.fixture
def pod(client: LocalClient) -> dict[str, Any]:
    return client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                          "spec": {"containers": [{"name": "c", "image": "busybox"}]}})


def events(client: LocalClient, namespace: str = "default") -> list[dict[str, Any]]:
    return client.list("events", namespace=namespace).items


def test_record_creates_a_kubernetes_shaped_event(client, pod):
    clock = FakeClock(NOW)
    rec = EventRecorder(client, component="kubelet", host="node-1", clock=clock)
    rec.record(pod, "Normal", "Started", "Started container c",
               field_path="spec.containers{c}")
    [ev] = events(client)
    assert re.fullmatch(r"web\.[0-9a-f]{16}", ev["metadata"]["name"])
    assert ev["metadata"]["namespace"] == "default"
    assert ev["involvedObject"] == {
        "apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "default",
        "uid": pod["metadata"]["uid"], "resourceVersion": pod["metadata"]["resourceVersion"],
        "fieldPath": "spec.containers{c}"}
    assert ev["source"] == {"component": "kubelet", "host": "node-1"}
    assert ev["reason"] == "Started"
    assert ev["message"] == "Started container c"
    assert ev["type"] == "Normal"
    assert ev["count"] == 1
    assert ev["firstTimestamp"] == ev["lastTimestamp"] == "2027-01-15T08:00:00Z"
    assert ev["reportingComponent"] == "kubelet"
    assert ev["reportingInstance"] == "node-1"
    # The field selector kubectl describe uses finds it.
    found = client.list("events", namespace="default",
                        field_selector="involvedObject.name=web,involvedObject.kind=Pod")
    assert len(found.items) == 1


def test_names_are_unique_even_within_one_clock_tick(client, pod):
    rec = EventRecorder(client, component="kubelet", host="n", clock=FakeClock(NOW))
    for i in range(5):
        rec.record(pod, "Normal", "Pulled", f"message {i}")
    names = {ev["metadata"]["name"] for ev in events(client)}
    assert len(names) == 5


def test_repeat_within_window_increments_count(client, pod):
    clock = FakeClock(NOW)
    rec = EventRecorder(client, component="kubelet", host="n", clock=clock)
    rec.record(pod, "Warning", "Failed", "Error: ErrImageNeverPull")
    clock.advance(30)
    rec.record(pod, "Warning", "Failed", "Error: ErrImageNeverPull")
    clock.advance(30)
    rec.record(pod, "Warning", "Failed", "Error: ErrImageNeverPull")
    [ev] = events(client)
    assert ev["count"] == 3
    assert ev["firstTimestamp"] == "2027-01-15T08:00:00Z"
    assert ev["lastTimestamp"] == "2027-01-15T08:01:00Z"


@pytest.mark.parametrize("change", ["type", "reason", "message", "field_path"])
def test_different_events_are_not_aggregated(client, pod, change):
    rec = EventRecorder(client, component="kubelet", host="n", clock=FakeClock(NOW))
    base = {"type": "Normal", "reason": "Pulled", "message": "m", "field_path": "spec.x"}
    other = {**base, change: {"type": "Warning"}.get(change, "other")}
    for args in (base, other):
        rec.record(pod, args["type"], args["reason"], args["message"],
                   field_path=args["field_path"])
    assert sorted(ev["count"] for ev in events(client)) == [1, 1]


def test_repeat_after_window_creates_a_new_event(client, pod):
    clock = FakeClock(NOW)
    rec = EventRecorder(client, component="kubelet", host="n", clock=clock)
    rec.record(pod, "Normal", "Pulled", "m")
    clock.advance(AGGREGATION_WINDOW + 1)
    rec.record(pod, "Normal", "Pulled", "m")
    assert [ev["count"] for ev in events(client)] == [1, 1]


def test_deleted_event_is_recreated_on_repeat(client, pod):
    rec = EventRecorder(client, component="kubelet", host="n", clock=FakeClock(NOW))
    rec.record(pod, "Normal", "Pulled", "m")
    [ev] = events(client)
    client.delete("events", "default", ev["metadata"]["name"])
    rec.record(pod, "Normal", "Pulled", "m")
    [again] = events(client)
    assert again["count"] == 1
    assert again["metadata"]["name"] != ev["metadata"]["name"]


def test_cluster_scoped_objects_get_events_in_default(client):
    node = client.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})
    rec = EventRecorder(client, component="kubelet", host="node-1", clock=FakeClock(NOW))
    rec.record(node, "Normal", "NodeReady", "Node node-1 status is now: NodeReady")
    [ev] = events(client)
    assert ev["involvedObject"]["kind"] == "Node"
    assert "namespace" not in ev["involvedObject"]


def test_events_in_the_objects_namespace(client):
    obj = client.create({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": "p", "namespace": "kube-system"},
                         "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    EventRecorder(client, component="kubelet").record(obj, "Normal", "Created", "x")
    assert len(events(client, "kube-system")) == 1
    assert events(client, "default") == []


def test_a_client_without_create_unread_gets_a_plain_create(client, pod):
    # An HTTP client has no create_unread: the event goes through create.
    class CreateOnly:
        def __init__(self) -> None:
            self.created: list[dict[str, Any]] = []

        def create(self, obj, *, namespace=None):
            self.created.append(obj)
            return client.create(obj, namespace=namespace)

    plain = CreateOnly()
    EventRecorder(plain, component="kubelet", host="n").record(  # type: ignore[arg-type]
        pod, "Normal", "Started", "Started container c")
    [ev] = events(client)
    assert [e["metadata"]["name"] for e in plain.created] == [ev["metadata"]["name"]]
    assert ev["reason"] == "Started"


def test_failures_are_logged_not_raised(client, pod, caplog):
    class Broken:
        def create(self, *a, **kw):
            raise InternalError("store is on fire")

        def patch(self, *a, **kw):
            raise InternalError("store is on fire")

    rec = EventRecorder(Broken(), component="kubelet", host="n")  # type: ignore[arg-type]
    rec.record(pod, "Normal", "Started", "x")   # no exception
    assert "store is on fire" in caplog.text
    rec.record(pod, "Bogus", "Started", "x")    # unsupported type: dropped, logged
    assert "unsupported event type" in caplog.text


def test_event_for_object_in_missing_namespace_is_swallowed(client, caplog):
    ghost = {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "g", "namespace": "nowhere", "uid": "u"}}
    EventRecorder(client, component="kubelet").record(ghost, "Normal", "Started", "x")
    assert "could not create event" in caplog.text
