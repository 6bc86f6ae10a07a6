"""The Endpoints and EndpointSlice controllers: which pods become endpoints of a
Service, in which shape, and how little they rewrite (Kubernetes v1.32's
endpoint and endpointslice controllers)."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.controllers.endpoints import EndpointsController
from minikube_py.controllers.endpointslice import (
    CONTROLLER_NAME,
    MANAGED_BY,
    SERVICE_NAME,
    EndpointSliceController,
)
from minikube_py.controllers.endpointslicemirroring import (
    MIRROR_CONTROLLER,
    EndpointSliceMirroringController,
)

from .conftest import Cluster, drive, pod

RESOURCES = ("pods", "services", "endpoints", "endpointslices", "nodes")


def service(name: str = "web", *, selector: dict[str, str] | None = None,
            ports: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"ports": ports if ports is not None else
                            [{"name": "http", "port": 80, "targetPort": "http"}], **spec}
    if selector is not False:
        body["selector"] = selector or {"app": "web"}
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default", "labels": {"team": "a"}},
            "spec": body}


def web_pod(cluster: Cluster, name: str, ip: str, *, ready: bool = True, node: str = "n1",
            named_port: bool = True, **spec: Any) -> None:
    obj = pod(name)
    if named_port:
        obj["spec"]["containers"][0]["ports"] = [{"name": "http", "containerPort": 8080}]
    obj["spec"].update(spec)
    cluster.client.create(obj)
    cluster.client.bind("default", name, node)
    cluster.client.patch("pods", "default", name, "strategic", {"status": {
        "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
        "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}},
        subresource="status")


def ready(cluster: Cluster, name: str, value: bool) -> None:
    cluster.client.patch("pods", "default", name, "strategic", {"status": {
        "conditions": [{"type": "Ready", "status": "True" if value else "False"}]}},
        subresource="status")


@pytest.fixture
def eps(cluster: Cluster) -> EndpointsController:
    controller = EndpointsController(cluster.recorder, cluster.informers)
    cluster.start(RESOURCES)
    return controller


@pytest.fixture
def slices(cluster: Cluster) -> EndpointSliceController:
    controller = EndpointSliceController(cluster.recorder, cluster.informers,
                                         max_endpoints_per_slice=3)
    cluster.start(RESOURCES)
    return controller


def owned_slices(cluster: Cluster, name: str = "web") -> list[dict[str, Any]]:
    return sorted((s for s in cluster.client.list("endpointslices", namespace="default").items
                   if s["metadata"]["labels"].get(SERVICE_NAME) == name),
                  key=lambda s: s["metadata"]["name"])


# ----------------------------------------------------------------------- Endpoints


def test_ready_and_not_ready_addresses_with_the_named_target_port(cluster, eps):
    cluster.client.create(service())
    web_pod(cluster, "a", "10.244.0.3")
    web_pod(cluster, "b", "10.244.0.2", node="n2")
    web_pod(cluster, "c", "10.244.0.4", ready=False)
    web_pod(cluster, "d", "10.244.0.5", named_port=False)  # lacks the named port
    web_pod(cluster, "other", "10.244.0.9")
    cluster.client.patch("pods", "default", "other", "strategic",
                         {"metadata": {"labels": {"app": "other"}}})
    drive(cluster, eps)
    ep = cluster.client.get("endpoints", "default", "web")
    assert ep["metadata"]["labels"] == {"team": "a"}
    [subset] = ep["subsets"]
    assert [a["ip"] for a in subset["addresses"]] == ["10.244.0.2", "10.244.0.3"]
    assert subset["addresses"][0]["nodeName"] == "n2"
    assert subset["addresses"][0]["targetRef"]["kind"] == "Pod"
    assert subset["addresses"][0]["targetRef"]["name"] == "b"
    assert [a["ip"] for a in subset["notReadyAddresses"]] == ["10.244.0.4"]
    assert subset["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]


def test_readiness_changes_move_addresses_and_unchanged_state_is_not_rewritten(cluster, eps):
    cluster.client.create(service())
    web_pod(cluster, "a", "10.244.0.3")
    drive(cluster, eps)
    ready(cluster, "a", False)
    drive(cluster, eps)
    [subset] = cluster.client.get("endpoints", "default", "web")["subsets"]
    assert "addresses" not in subset and subset["notReadyAddresses"][0]["ip"] == "10.244.0.3"
    cluster.recorder.clear()
    eps.enqueue("default/web")
    drive(cluster, eps)
    assert cluster.recorder.writes() == []


def test_publish_not_ready_addresses_and_terminating_pods(cluster, eps):
    cluster.client.create(service(publishNotReadyAddresses=True))
    web_pod(cluster, "a", "10.244.0.3", ready=False)
    drive(cluster, eps)
    [subset] = cluster.client.get("endpoints", "default", "web")["subsets"]
    assert [a["ip"] for a in subset["addresses"]] == ["10.244.0.3"]
    cluster.client.patch("services", "default", "web", "merge",
                         {"spec": {"publishNotReadyAddresses": False}})
    cluster.client.delete("pods", "default", "a")  # bound: terminating, graceful
    drive(cluster, eps)
    assert "subsets" not in cluster.client.get("endpoints", "default", "web")


def test_headless_without_ports_hostname_and_labels(cluster, eps):
    cluster.client.create(service("db", ports=[], clusterIP="None"))
    web_pod(cluster, "a", "10.244.0.3", hostname="db-0", subdomain="db")
    drive(cluster, eps)
    ep = cluster.client.get("endpoints", "default", "db")
    assert ep["metadata"]["labels"] == {"team": "a", "service.kubernetes.io/headless": ""}
    assert ep["subsets"] == [{"addresses": [{
        "ip": "10.244.0.3", "hostname": "db-0", "nodeName": "n1",
        "targetRef": {"kind": "Pod", "namespace": "default", "name": "a",
                      "uid": cluster.client.get("pods", "default", "a")["metadata"]["uid"]}}]}]


def test_selectorless_services_are_left_to_their_owner_and_deleted_ones_cleaned(cluster, eps):
    cluster.client.create(service("manual", selector=False))
    cluster.client.create({"apiVersion": "v1", "kind": "Endpoints",
                           "metadata": {"name": "manual", "namespace": "default"},
                           "subsets": [{"addresses": [{"ip": "192.0.2.7"}],
                                        "ports": [{"port": 5432}]}]})
    cluster.client.create(service())
    drive(cluster, eps)
    assert cluster.client.get("endpoints", "default", "manual")["subsets"][0]["addresses"] == \
        [{"ip": "192.0.2.7"}]
    cluster.client.delete("services", "default", "web")
    drive(cluster, eps)
    assert cluster.get("endpoints", "default", "web") is None


# ----------------------------------------------------------------------- EndpointSlices


def test_slices_carry_conditions_ports_labels_and_the_owner(cluster, slices):
    svc = cluster.client.create(service())
    cluster.client.create({"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "n1", "labels": {"topology.kubernetes.io/zone": "z1"}}})
    web_pod(cluster, "a", "10.244.0.3")
    web_pod(cluster, "c", "10.244.0.4", ready=False)
    drive(cluster, slices)
    [s] = owned_slices(cluster)
    assert s["metadata"]["name"].startswith("web-")
    assert s["metadata"]["labels"] == {"team": "a", SERVICE_NAME: "web",
                                       MANAGED_BY: CONTROLLER_NAME}
    [owner] = s["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == \
        ("Service", "web", svc["metadata"]["uid"], True)
    assert s["addressType"] == "IPv4"
    assert s["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    by_ip = {e["addresses"][0]: e for e in s["endpoints"]}
    assert by_ip["10.244.0.3"]["conditions"] == {"ready": True, "serving": True,
                                                 "terminating": False}
    assert by_ip["10.244.0.3"]["zone"] == "z1" and by_ip["10.244.0.3"]["nodeName"] == "n1"
    assert by_ip["10.244.0.4"]["conditions"] == {"ready": False, "serving": False,
                                                 "terminating": False}
    cluster.client.delete("pods", "default", "a")  # terminating: serving, not ready
    drive(cluster, slices)
    [s] = owned_slices(cluster)
    terminating = {e["addresses"][0]: e for e in s["endpoints"]}["10.244.0.3"]
    assert terminating["conditions"] == {"ready": False, "serving": True, "terminating": True}


def test_slices_fill_up_to_the_limit_and_an_added_endpoint_touches_one_slice(cluster, slices):
    cluster.client.create(service())
    for i in range(7):
        web_pod(cluster, f"p{i}", f"10.244.0.{10 + i}")
    drive(cluster, slices)
    sizes = sorted(len(s["endpoints"]) for s in owned_slices(cluster))
    assert sizes == [1, 3, 3]
    cluster.recorder.clear()
    web_pod(cluster, "p7", "10.244.0.1")  # sorts first: must not push the others along
    drive(cluster, slices)
    writes = cluster.recorder.writes()
    assert [(w[0], w[1]) for w in writes] == [("update", "endpointslices")]
    assert sorted(len(s["endpoints"]) for s in owned_slices(cluster)) == [2, 3, 3]
    cluster.recorder.clear()
    slices.enqueue("default/web")
    drive(cluster, slices)
    assert cluster.recorder.writes() == []


def test_placeholder_slice_when_nothing_is_selected_and_removed_slices(cluster, slices):
    cluster.client.create(service())
    drive(cluster, slices)
    [placeholder] = owned_slices(cluster)
    assert not placeholder.get("endpoints") and not placeholder.get("ports")
    web_pod(cluster, "a", "10.244.0.3")
    drive(cluster, slices)
    [s] = owned_slices(cluster)
    assert [e["addresses"] for e in s["endpoints"]] == [["10.244.0.3"]]
    cluster.client.patch("pods", "default", "a", "strategic",
                         {"metadata": {"labels": {"app": "gone"}}})
    drive(cluster, slices)
    [again] = owned_slices(cluster)
    assert not again.get("endpoints")


def test_slices_managed_by_others_are_left_alone(cluster, slices):
    cluster.client.create(service())
    mine = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "web-manual", "namespace": "default",
                         "labels": {SERVICE_NAME: "web", MANAGED_BY: "someone-else"}},
            "addressType": "IPv4", "endpoints": [{"addresses": ["192.0.2.1"]}],
            "ports": [{"name": "http", "port": 80}]}
    cluster.client.create(mine)
    web_pod(cluster, "a", "10.244.0.3")
    drive(cluster, slices)
    assert cluster.client.get("endpointslices", "default", "web-manual")["endpoints"] == \
        [{"addresses": ["192.0.2.1"]}]
    assert len([s for s in owned_slices(cluster)
                if s["metadata"]["labels"][MANAGED_BY] == CONTROLLER_NAME]) == 1


# ----------------------------------------------------------------------- mirroring


@pytest.fixture
def mirror(cluster: Cluster) -> EndpointSliceMirroringController:
    controller = EndpointSliceMirroringController(cluster.recorder, cluster.informers)
    cluster.start(RESOURCES)
    return controller


def manual_endpoints(name: str = "db", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": name, "namespace": "default", "labels": dict(labels)},
            "subsets": [{"addresses": [{"ip": "192.0.2.7"}, {"ip": "192.0.2.8",
                                                             "hostname": "b"}],
                         "notReadyAddresses": [{"ip": "192.0.2.9"}],
                         "ports": [{"name": "pg", "port": 5432}]}]}


def test_endpoints_of_a_selectorless_service_are_mirrored_into_a_slice(cluster, mirror):
    svc = cluster.client.create(service("db", selector=False, ports=[
        {"name": "pg", "port": 5432}]))
    cluster.client.create(manual_endpoints(tier="data"))
    drive(cluster, mirror)
    [s] = owned_slices(cluster, "db")
    assert s["metadata"]["labels"] == {"tier": "data", SERVICE_NAME: "db",
                                       MANAGED_BY: MIRROR_CONTROLLER}
    assert s["metadata"]["ownerReferences"][0]["uid"] == svc["metadata"]["uid"]
    assert s["ports"] == [{"name": "pg", "port": 5432, "protocol": "TCP"}]
    assert [(e["addresses"], e["conditions"]["ready"], e.get("hostname")) for e in
            s["endpoints"]] == [(["192.0.2.7"], True, None), (["192.0.2.8"], True, "b"),
                                (["192.0.2.9"], False, None)]
    ep = cluster.client.get("endpoints", "default", "db")
    ep["subsets"][0]["addresses"] = [{"ip": "192.0.2.7"}]
    cluster.client.update(ep)
    drive(cluster, mirror)
    [s] = owned_slices(cluster, "db")
    assert [e["addresses"][0] for e in s["endpoints"]] == ["192.0.2.7", "192.0.2.9"]
    cluster.client.delete("endpoints", "default", "db")
    drive(cluster, mirror)
    assert owned_slices(cluster, "db") == []


@pytest.mark.parametrize("case", ["selector", "skip-mirror", "no-service"])
def test_what_is_not_mirrored(cluster, mirror, case):
    if case != "no-service":
        cluster.client.create(service("db", selector={"app": "db"} if case == "selector"
                                      else False, ports=[{"name": "pg", "port": 5432}]))
    labels = {"endpointslice.kubernetes.io/skip-mirror": "true"} if case == "skip-mirror" \
        else {}
    cluster.client.create(manual_endpoints(**labels))
    drive(cluster, mirror)
    assert [s for s in owned_slices(cluster, "db")
            if s["metadata"]["labels"][MANAGED_BY] == MIRROR_CONTROLLER] == []
