"""The official Python `kubernetes` client against a running daemon."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from tests.waiting import wait_for

from .conftest import Daemon

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def api(daemon: Daemon) -> Iterator[client.ApiClient]:
    api_client = config.new_client_from_config(config_file=str(daemon.kubeconfig))
    yield api_client
    api_client.close()


def pod(name: str, **labels: str) -> client.V1Pod:
    # A scheduler name nobody runs keeps the pod pending: these tests watch exactly
    # the changes they make, with no scheduler or kubelet writing in between.
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels=labels or None),
        spec=client.V1PodSpec(scheduler_name="unscheduled",
                              containers=[client.V1Container(name="c", image="busybox:1.36")]))


def test_load_kube_config_works_unchanged(daemon: Daemon):
    config.load_kube_config(config_file=str(daemon.kubeconfig))
    names = [n.metadata.name for n in client.CoreV1Api().list_node().items]
    assert names == ["node-1", "node-2"]


def test_create_list_patch_delete(api: client.ApiClient):
    v1 = client.CoreV1Api(api)
    created = v1.create_namespaced_pod("default", pod("oc-crud", app="oc"))
    assert created.status.phase == "Pending" and created.metadata.uid
    listed = v1.list_namespaced_pod("default", label_selector="app=oc")
    assert [p.metadata.name for p in listed.items] == ["oc-crud"]
    patched = v1.patch_namespaced_pod("oc-crud", "default",
                                      {"metadata": {"labels": {"extra": "yes"}}})
    assert patched.metadata.labels == {"app": "oc", "extra": "yes"}
    deleted = v1.delete_namespaced_pod("oc-crud", "default")
    assert deleted.metadata.name == "oc-crud"
    with pytest.raises(client.ApiException) as err:
        v1.read_namespaced_pod("oc-crud", "default")
    assert err.value.status == 404


def test_watch_delivers_events_in_order(api: client.ApiClient):
    v1 = client.CoreV1Api(api)
    start = v1.list_namespaced_pod("default", label_selector="app=ordered")
    seen: list[tuple[str, str, int]] = []
    done = threading.Event()

    def consume() -> None:
        w = watch.Watch()
        for ev in w.stream(v1.list_namespaced_pod, "default", label_selector="app=ordered",
                           resource_version=start.metadata.resource_version,
                           timeout_seconds=20):
            obj = ev["object"]
            seen.append((ev["type"], obj.metadata.name, int(obj.metadata.resource_version)))
            if len(seen) == 7:
                w.stop()
        done.set()

    t = threading.Thread(target=consume)
    t.start()
    # No need to wait for the watch to be open: it starts from the list's
    # resourceVersion, so it gets every change made after the list, however late
    # its request arrives.
    for i in range(3):
        v1.create_namespaced_pod("default", pod(f"ordered-{i}", app="ordered"))
    v1.patch_namespaced_pod("ordered-1", "default", {"metadata": {"annotations": {"a": "b"}}})
    for i in range(3):
        v1.delete_namespaced_pod(f"ordered-{i}", "default")
    assert done.wait(20), seen
    t.join()
    assert [(t, n) for t, n, _ in seen] == [
        ("ADDED", "ordered-0"), ("ADDED", "ordered-1"), ("ADDED", "ordered-2"),
        ("MODIFIED", "ordered-1"),
        ("DELETED", "ordered-0"), ("DELETED", "ordered-1"), ("DELETED", "ordered-2")]
    versions = [rv for _, _, rv in seen]
    assert versions == sorted(versions)


def test_conflicts_are_409(api: client.ApiClient):
    v1 = client.CoreV1Api(api)
    first = v1.create_namespaced_pod("default", pod("oc-conflict"))
    with pytest.raises(client.ApiException) as exists:
        v1.create_namespaced_pod("default", pod("oc-conflict"))
    assert exists.value.status == 409
    assert json.loads(exists.value.body)["reason"] == "AlreadyExists"
    v1.patch_namespaced_pod("oc-conflict", "default", {"metadata": {"labels": {"v": "2"}}})
    first.metadata.labels = {"v": "stale"}
    with pytest.raises(client.ApiException) as conflict:
        v1.replace_namespaced_pod("oc-conflict", "default", first)
    body = json.loads(conflict.value.body)
    assert conflict.value.status == 409 and body["reason"] == "Conflict"
    assert "the object has been modified" in body["message"]
    v1.delete_namespaced_pod("oc-conflict", "default")


def test_invalid_objects_are_422_with_causes(api: client.ApiClient):
    v1 = client.CoreV1Api(api)
    bad = client.V1Pod(metadata=client.V1ObjectMeta(name="Not_A_Name"),
                       spec=client.V1PodSpec(containers=[
                           client.V1Container(name="c", image=""),
                           client.V1Container(name="c", image="x")]))
    with pytest.raises(client.ApiException) as err:
        v1.create_namespaced_pod("default", bad)
    body: dict[str, Any] = json.loads(err.value.body)
    assert err.value.status == 422 and body["reason"] == "Invalid"
    causes = {(c["field"], c["reason"]) for c in body["details"]["causes"]}
    assert ("metadata.name", "FieldValueInvalid") in causes
    assert ("spec.containers[0].image", "FieldValueRequired") in causes
    assert ("spec.containers[1].name", "FieldValueDuplicate") in causes


def test_volume_sources_are_typed_field_by_field(api: client.ApiClient):
    """The generated schema types every volume source. This client checks
    types itself (pydantic), so the wrong body goes through its raw request
    path: a wrong type in a source we never mount (nfs) is a 400 naming the
    field before anything else; the typed model round-trips."""
    body: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nfs-typed"},
        "spec": {"schedulerName": "unscheduled",
                 "containers": [{"name": "c", "image": "x"}],
                 "volumes": [{"name": "v", "nfs": {"server": 5, "path": "/x"}}]}}
    request = api.param_serialize(
        "POST", "/api/v1/namespaces/{namespace}/pods", path_params={"namespace": "default"},
        header_params={"Content-Type": "application/json", "Accept": "application/json"},
        body=body, auth_settings=["BearerToken"])
    response = api.call_api(*request)
    response.read()
    assert response.status == 400
    assert "spec.volumes[0].nfs.server: expected string, got integer 5" in (
        response.data.decode())

    v1 = client.CoreV1Api(api)
    typed = pod("nfs-typed")
    typed.spec.volumes = [client.V1Volume(name="v", nfs=client.V1NFSVolumeSource(
        server="nfs.example", path="/x"))]
    # Well typed, but no kubelet here can mount nfs: refused, never skipped.
    with pytest.raises(ApiException) as refused:
        v1.create_namespaced_pod("default", typed)
    assert refused.value.status == 422
    assert "spec.volumes[0].nfs: Forbidden: nfs volumes are not supported by minikube-py" in \
        json.loads(refused.value.body)["message"]
    typed = pod("cm-typed")
    typed.spec.volumes = [client.V1Volume(name="v", config_map=client.V1ConfigMapVolumeSource(
        name="cfg", default_mode=0o600, optional=True,
        items=[client.V1KeyToPath(key="a", path="sub/a", mode=0o400)]))]
    created = v1.create_namespaced_pod("default", typed)
    source = created.spec.volumes[0].config_map
    assert (source.name, source.default_mode, source.optional) == ("cfg", 0o600, True)
    assert (source.items[0].path, source.items[0].mode) == ("sub/a", 0o400)
    v1.delete_namespaced_pod("cm-typed", "default", grace_period_seconds=0)


def test_deployment_scale_subresource(api: client.ApiClient):
    apps = client.AppsV1Api(api)
    apps.create_namespaced_deployment("default", client.V1Deployment(
        metadata=client.V1ObjectMeta(name="oc-web"),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={"app": "oc-web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "oc-web"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c",
                                                                     image="busybox:1.36")])))))
    scale = apps.read_namespaced_deployment_scale("oc-web", "default")
    assert scale.spec.replicas == 1 and scale.status.selector == "app=oc-web"
    apps.patch_namespaced_deployment_scale("oc-web", "default", {"spec": {"replicas": 4}})
    assert apps.read_namespaced_deployment("oc-web", "default").spec.replicas == 4
    apps.delete_namespaced_deployment("oc-web", "default")


def test_pod_logs(api: client.ApiClient, daemon: Daemon):
    v1 = client.CoreV1Api(api)
    placed = pod("oc-logs")
    placed.spec.node_name = "node-2"
    v1.create_namespaced_pod("default", placed)
    wait_for(lambda: v1.read_namespaced_pod("oc-logs", "default").status.phase == "Running",
             "pod oc-logs to start", timeout=20)
    text = v1.read_namespaced_pod_log("oc-logs", "default")
    assert "as default/oc-logs/c" in text
    v1.delete_namespaced_pod("oc-logs", "default", grace_period_seconds=0)
