"""The REST API's contract, request by request: codes, Status reasons, tables,
paging, watch semantics, subresources. An in-process server over a real store."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from minikube_py.api import kinds
from minikube_py.apiserver.server import APIServer
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

TOKEN = "test-token"


class Api:
    def __init__(self, server: APIServer) -> None:
        self.host, self.port = server.address

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = TOKEN,
             content_type: str = "application/json", accept: str = "application/json",
             raw: bytes | None = None) -> tuple[int, Any, http.client.HTTPResponse]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        headers = {"Accept": accept, "Content-Type": content_type}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None
                                            else None)
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        payload = resp.read()
        conn.close()
        try:
            parsed = json.loads(payload) if payload else None
        except ValueError:
            parsed = payload.decode(errors="surrogateescape")
        return resp.status, parsed, resp

    def stream(self, path: str, lines: int) -> list[dict[str, Any]]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        conn.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
        resp = conn.getresponse()
        out = []
        for _ in range(lines):
            line = resp.readline()
            if not line:
                break
            out.append(json.loads(line))
        conn.close()
        return out


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    store = Store(tmp_path / "s", history_size=20)
    registry = Registry(store)
    registry.ensure_system_namespaces()
    server = APIServer(registry, token=TOKEN, port=0)
    server.start()
    yield Api(server)
    server.stop()
    store.close()


def pod(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}


PODS = "/api/v1/namespaces/default/pods"


# ------------------------------------------------------------------------ errors


@pytest.mark.parametrize("method, path, kwargs, code, reason", [
    ("GET", PODS, {"token": None}, 401, "Unauthorized"),
    ("GET", PODS, {"token": "nope"}, 401, "Unauthorized"),
    ("GET", "/api/v1/widgets", {}, 404, "NotFound"),
    ("GET", "/apis/apps/v1/namespaces/default/pods", {}, 404, "NotFound"),
    ("GET", "/api/v1/nodes/x/scale", {}, 404, "NotFound"),
    ("GET", f"{PODS}/ghost", {}, 404, "NotFound"),
    ("POST", PODS, {"raw": b"{not json"}, 400, "BadRequest"),
    ("POST", PODS, {"raw": b"[1, 2]"}, 400, "BadRequest"),
    ("POST", PODS, {"raw": b"{}", "content_type": "text/plain"}, 415, "UnsupportedMediaType"),
    ("POST", PODS, {"raw": b"x" * (3 * 1024 * 1024 + 1)}, 413, "RequestEntityTooLarge"),
    ("PATCH", f"{PODS}/ghost", {"raw": b"{}", "content_type": "application/json"}, 415,
     "UnsupportedMediaType"),
    ("POST", PODS, {"body": {"apiVersion": "apps/v1", "kind": "Deployment",
                             "metadata": {"name": "d"}}}, 400, "BadRequest"),
    ("PUT", f"{PODS}/a", {"body": pod("b")}, 400, "BadRequest"),
    ("GET", PODS, {"accept": "application/vnd.kubernetes.protobuf"}, 406, "NotAcceptable"),
    ("GET", f"{PODS}?labelSelector=a%20in%20(", {}, 400, "BadRequest"),
    ("GET", f"{PODS}?fieldSelector=spec.bogus%3D1", {}, 400, "BadRequest"),
    ("GET", f"{PODS}?limit=x", {}, 400, "BadRequest"),
    ("POST", PODS, {"body": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                             "spec": {}}}, 422, "Invalid"),
])
def test_errors_are_status_objects(api: Api, method: str, path: str, kwargs: dict[str, Any],
                                   code: int, reason: str):
    status, body, _ = api.call(method, path, kwargs.pop("body", None), **kwargs)
    assert status == code
    assert body["kind"] == "Status" and body["status"] == "Failure"
    assert body["reason"] == reason and body["code"] == code
    assert body["message"]


def test_health_endpoints_need_no_token(api: Api):
    for path in ("/livez", "/readyz", "/healthz"):
        status, body, _ = api.call("GET", path, token=None)
        assert (status, body) == (200, "ok")
    status, body, _ = api.call("GET", "/version", token=None)
    assert status == 200 and body["major"] == "1"


# ------------------------------------------------------------------------ discovery


def test_discovery_documents(api: Api):
    _, versions, _ = api.call("GET", "/api")
    assert versions["kind"] == "APIVersions" and versions["versions"] == ["v1"]
    _, groups, _ = api.call("GET", "/apis")
    assert [g["name"] for g in groups["groups"]] == [
        "apps", "authentication.k8s.io", "authorization.k8s.io", "batch", "coordination.k8s.io",
        "discovery.k8s.io", "rbac.authorization.k8s.io", "scheduling.k8s.io"]
    _, core, _ = api.call("GET", "/api/v1")
    names = {r["name"] for r in core["resources"]}
    assert {"pods", "pods/status", "pods/binding", "pods/log", "nodes", "namespaces",
            "events"} <= names
    _, apps, _ = api.call("GET", "/apis/apps/v1")
    scale = next(r for r in apps["resources"] if r["name"] == "deployments/scale")
    assert (scale["group"], scale["version"], scale["kind"]) == ("autoscaling", "v1", "Scale")
    # Aggregated discovery is asked for first by kubectl; plain JSON is the fallback.
    status, fallback, _resp = api.call(
        "GET", "/apis", accept="application/json;g=apidiscovery.k8s.io;v=v2;"
        "as=APIGroupDiscoveryList,application/json")
    assert status == 200 and fallback["kind"] == "APIGroupList"


def test_openapi_v3_advertises_server_side_field_validation(api: Api):
    _, index, _ = api.call("GET", "/openapi/v3")
    url = index["paths"]["api/v1"]["serverRelativeURL"]
    status, doc, _ = api.call("GET", url)
    assert status == 200
    patch = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "", "version": "v1",
                                                        "kind": "Pod"}
    assert any(p["name"] == "fieldValidation" and p["in"] == "query"
               for p in patch["parameters"])
    assert "io.k8s.api.core.v1.Pod" in doc["components"]["schemas"]


def test_openapi_v2_serves_definitions_in_json_and_gnostic_protobuf(api: Api):
    """kubectl falls back to v2 for kinds v3 does not have (``kind: List``, an
    unserved kind) and asks for gnostic protobuf; it needs definitions with
    their group-version-kind, and no paths (see apiserver/openapi_v2.py)."""
    from minikube_py.apiserver import openapi_v2

    status, doc, resp = api.call("GET", "/openapi/v2")
    assert status == 200 and resp.getheader("Content-Type") == "application/json"
    assert doc["swagger"] == "2.0" and doc["paths"] == {}
    pod = doc["definitions"]["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod",
                                                       "version": "v1"}]
    assert pod["properties"]["spec"]["$ref"] == "#/definitions/io.k8s.api.core.v1.PodSpec"
    served = {f"{i.group}/{i.kind}" for i in kinds.KINDS}
    found = {f"{g['group']}/{g['kind']}" for d in doc["definitions"].values()
             for g in d.get("x-kubernetes-group-version-kind", [])}
    assert served <= found
    status, raw, resp = api.call("GET", "/openapi/v2", accept=openapi_v2.PROTOBUF)
    assert status == 200
    assert resp.getheader("Content-Type") == \
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    message = openapi_v2._classes()["Document"]()
    message.ParseFromString(raw.encode("utf-8", "surrogateescape") if isinstance(raw, str)
                            else raw)
    assert message.swagger == "2.0"
    names = [d.name for d in message.definitions.additional_properties]
    assert sorted(names) == sorted(doc["definitions"])
    spec = next(d.value for d in message.definitions.additional_properties
                if d.name == "io.k8s.api.core.v1.Pod")
    assert [e.name for e in spec.vendor_extension] == ["x-kubernetes-group-version-kind"]
    assert "kind: Pod" in spec.vendor_extension[0].value.yaml


# ------------------------------------------------------------------------ CRUD


def test_create_get_list_tables_and_metadata(api: Api):
    status, created, _ = api.call("POST", PODS, pod("a", app="web"))
    assert status == 201 and created["metadata"]["namespace"] == "default"
    status, listed, _ = api.call("GET", PODS)
    assert listed["kind"] == "PodList" and listed["apiVersion"] == "v1"
    assert [p["metadata"]["name"] for p in listed["items"]] == ["a"]
    assert listed["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    _, table, _ = api.call("GET", PODS, accept="application/json;as=Table;v=v1;g=meta.k8s.io")
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"]][:5] == [
        "Name", "Ready", "Status", "Restarts", "Age"]
    assert table["rows"][0]["cells"][:3] == ["a", "0/1", "Pending"]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    _, meta, _ = api.call("GET", PODS, accept="application/json;as=PartialObjectMetadataList;"
                                               "v=v1;g=meta.k8s.io")
    assert meta["kind"] == "PartialObjectMetadataList"
    assert meta["items"][0]["metadata"]["name"] == "a"
    _, one, _ = api.call("GET", f"{PODS}/a", accept="application/yaml")
    assert "kind: Pod" in one


def test_list_all_namespaces_selectors_and_paging(api: Api):
    api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                            "metadata": {"name": "other"}})
    for i in range(5):
        api.call("POST", PODS, pod(f"p{i}", tier="a" if i % 2 else "b"))
    api.call("POST", "/api/v1/namespaces/other/pods", pod("q", tier="a"))
    _, every, _ = api.call("GET", "/api/v1/pods")
    assert len(every["items"]) == 6
    _, tier_a, _ = api.call("GET", "/api/v1/pods?labelSelector=tier%3Da")
    assert sorted(p["metadata"]["name"] for p in tier_a["items"]) == ["p1", "p3", "q"]
    _, by_ns, _ = api.call("GET", "/api/v1/pods?fieldSelector=metadata.namespace%3Dother")
    assert [p["metadata"]["name"] for p in by_ns["items"]] == ["q"]
    names, token = [], ""
    while True:
        _, page, _ = api.call("GET", f"{PODS}?limit=2" + (f"&continue={token}" if token else ""))
        names += [p["metadata"]["name"] for p in page["items"]]
        token = page["metadata"].get("continue")
        if not token:
            break
        assert page["metadata"]["remainingItemCount"] == 5 - len(names)
    assert names == ["p0", "p1", "p2", "p3", "p4"]


@pytest.mark.parametrize("accept,check", [
    ("application/json", lambda body, got: body == got),
    ("application/yaml", lambda body, got: yaml.safe_load(body) == got),
    ("application/json;as=Table;v=v1;g=meta.k8s.io",
     lambda body, got: body["kind"] == "Table" and body["rows"][0]["cells"][0] == "a"
     and body["rows"][0]["object"]["metadata"] == got["metadata"]),
    ("application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
     lambda body, got: body["kind"] == "PartialObjectMetadata"
     and body["metadata"] == got["metadata"]),
])
def test_a_create_answers_the_stored_object_in_the_shape_asked_for(
        api: Api, accept: str, check: Any) -> None:
    status, body, _ = api.call("POST", PODS, pod("a", app="web"), accept=accept)
    assert status == 201, body
    _, stored, _ = api.call("GET", f"{PODS}/a")
    assert stored["metadata"]["resourceVersion"]
    assert check(body, stored)


def test_update_status_subresource_and_dry_run(api: Api):
    _, created, _ = api.call("POST", PODS, pod("a"))
    created["status"] = {"phase": "Running"}
    status, updated, _ = api.call("PUT", f"{PODS}/a/status", created)
    assert status == 200 and updated["status"]["phase"] == "Running"
    status, dry, _ = api.call("POST", f"{PODS}?dryRun=All", pod("dry"))
    assert status == 201 and dry["metadata"]["name"] == "dry"
    assert api.call("GET", f"{PODS}/dry")[0] == 404
    status, _body, _ = api.call("POST", f"{PODS}?dryRun=Some", pod("dry"))
    assert status == 400


def test_field_validation_warn_sends_warning_headers(api: Api):
    obj = pod("w")
    obj["spec"]["bogus"] = True
    status, _, resp = api.call("POST", f"{PODS}?fieldValidation=Warn", obj)
    assert status == 201
    assert resp.getheader("Warning") == '299 - "unknown field "spec.bogus""'


def test_a_warning_naming_a_field_beyond_latin1_is_sent_as_utf8(api: Api):
    """The response still comes (it was dropped after the write, the store
    changed with no answer: found by the API fuzz), the header's bytes UTF-8
    as kube-apiserver sends them (http.client reads them as Latin-1)."""
    obj = pod("w8")
    obj["spec"]["b\u00e9\U000f904b"] = None
    status, _, resp = api.call("POST", f"{PODS}?fieldValidation=Warn", obj)
    assert status == 201
    wire = resp.getheader("Warning").encode("latin-1").decode("utf-8")
    assert wire == '299 - "unknown field "spec.b\u00e9\U000f904b""'


def test_delete_codes_and_collection(api: Api):
    api.call("POST", "/apis/apps/v1/namespaces/default/deployments", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
            "metadata": {"labels": {"a": "b"}},
            "spec": {"containers": [{"name": "c", "image": "i:1"}]}}}})
    status, body, _ = api.call("DELETE", "/apis/apps/v1/namespaces/default/deployments/d")
    assert status == 200 and body["kind"] == "Status" and body["status"] == "Success"
    assert body["details"] == {"name": "d", "kind": "deployments", "group": "apps",
                               "uid": body["details"]["uid"]}
    api.call("POST", PODS, {**pod("f"), "metadata": {"name": "f", "finalizers": ["x.io/y"]}})
    status, held, _ = api.call("DELETE", f"{PODS}/f")
    assert status == 202 and held["metadata"]["deletionTimestamp"]
    for i in range(3):
        api.call("POST", PODS, pod(f"c{i}", group="gone"))
    status, deleted, _ = api.call("DELETE", f"{PODS}?labelSelector=group%3Dgone")
    assert status == 200 and len(deleted["items"]) == 3
    _, left, _ = api.call("GET", f"{PODS}?labelSelector=group%3Dgone")
    assert left["items"] == []


def test_binding_assigns_once(api: Api):
    api.call("POST", PODS, pod("b"))
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "b"},
               "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}}
    status, _, _ = api.call("POST", f"{PODS}/b/binding", binding)
    assert status == 201
    _, bound, _ = api.call("GET", f"{PODS}/b")
    assert bound["spec"]["nodeName"] == "node-1"
    scheduled = next(c for c in bound["status"]["conditions"] if c["type"] == "PodScheduled")
    assert scheduled["status"] == "True"
    status, body, _ = api.call("POST", f"{PODS}/b/binding",
                               {**binding, "target": {"name": "node-2"}})
    assert status == 409 and "already assigned" in body["message"]


def test_scale_subresource(api: Api):
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "s"},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "s"}}, "template": {
               "metadata": {"labels": {"app": "s"}},
               "spec": {"containers": [{"name": "c", "image": "i:1"}]}}}}
    api.call("POST", "/apis/apps/v1/namespaces/default/deployments", dep)
    path = "/apis/apps/v1/namespaces/default/deployments/s/scale"
    _, scale, _ = api.call("GET", path)
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"]["replicas"] == 2 and scale["status"]["selector"] == "app=s"
    status, after, _ = api.call("PATCH", path, {"spec": {"replicas": 6}},
                                content_type="application/merge-patch+json")
    assert status == 200 and after["spec"]["replicas"] == 6
    scale["spec"]["replicas"] = 1  # stale resourceVersion
    assert api.call("PUT", path, scale)[0] == 409
    scale["spec"]["replicas"] = -1
    del scale["metadata"]["resourceVersion"]
    status, body, _ = api.call("PUT", path, scale)
    assert status == 422 and "must be greater than or equal to 0" in body["message"]


# ------------------------------------------------------------------------ watch


def test_watch_stream_from_version_and_expired(api: Api):
    _, created, _ = api.call("POST", PODS, pod("w0"))
    rv = created["metadata"]["resourceVersion"]
    api.call("POST", PODS, pod("w1"))
    api.call("DELETE", f"{PODS}/w0")
    events = api.stream(f"{PODS}?watch=true&resourceVersion={rv}&timeoutSeconds=2", 2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "w1"), ("DELETED", "w0")]
    for i in range(30):  # history holds 20
        api.call("POST", PODS, pod(f"x{i}"))
    expired = api.stream(f"{PODS}?watch=true&resourceVersion={rv}", 1)
    assert expired[0]["type"] == "ERROR"
    assert expired[0]["object"]["code"] == 410 and expired[0]["object"]["reason"] == "Expired"


def test_watch_single_object_and_timeout(api: Api):
    api.call("POST", PODS, pod("one"))
    api.call("POST", PODS, pod("two"))
    events = api.stream(f"{PODS}/one?watch=true&timeoutSeconds=1", 5)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "one")]


def test_node_proxy_is_404_for_a_missing_node_and_503_for_an_existing_one(api: Api):
    """kube-apiserver looks the node up before it tries its kubelet; ours have
    no HTTP endpoint, which is said plainly (503), but only for a real node."""
    for path in ("/api/v1/nodes/ghost/proxy/", "/api/v1/nodes/https:ghost:10250/proxy/x"):
        status, body, _ = api.call("GET", path)
        assert (status, body["reason"]) == (404, "NotFound"), path
        assert 'nodes "ghost" not found' in body["message"]
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    assert api.call("POST", "/api/v1/nodes", node)[0] == 201
    status, body, _ = api.call("GET", "/api/v1/nodes/n1/proxy/")
    assert (status, body["reason"]) == (503, "ServiceUnavailable")
    assert "kubelets run in-process" in body["message"]


# ------------------------------------------------------------------------ the wire


def test_a_response_leaves_in_one_send(api: Api, monkeypatch: pytest.MonkeyPatch):
    """Head and body go out together (over TLS: one record, one system call),
    not the head first and the body after it."""
    sends: list[tuple[str, int]] = []
    send = socket.socket.send

    def counted(self: socket.socket, data: Any, *args: Any) -> int:
        sends.append((threading.current_thread().name, len(data)))
        return send(self, data, *args)

    status, created, _ = api.call("POST", PODS, pod("one-send"))
    assert status == 201
    monkeypatch.setattr(socket.socket, "send", counted)
    status, got, resp = api.call("GET", f"{PODS}/one-send")
    monkeypatch.undo()
    assert status == 200 and got["metadata"]["uid"] == created["metadata"]["uid"]
    served = [n for name, n in sends if name != threading.current_thread().name]
    assert len(served) == 1, served
    assert served[0] > int(resp.headers["Content-Length"])  # the head came with the body


def test_expect_100_continue_is_answered_before_the_body(api: Api):
    """A client that waits for ``100 Continue`` before sending its body gets it
    at once (the buffered writer must not hold it back until the response)."""
    body = json.dumps(pod("patient")).encode()
    with socket.create_connection((api.host, api.port), timeout=10) as sock:
        sock.sendall((f"POST {PODS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                      f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                      "Expect: 100-continue\r\n\r\n").encode())
        head = _read_head(sock)  # times out (10 s) if the 100 never comes
        assert head.startswith(b"HTTP/1.1 100 Continue\r\n")
        sock.sendall(body)
        assert _read_head(sock).startswith(b"HTTP/1.1 201 ")


def _read_head(sock: socket.socket) -> bytes:
    """One response head, read byte by byte (so nothing after it is taken)."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        assert byte, f"connection closed after {head!r}"
        head += byte
    return head
