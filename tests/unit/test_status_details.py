"""Status ``details`` exactly where kube-apiserver puts them.

The expected objects are what ``k8s.io/apimachinery/pkg/api/errors`` builds
(``NewNotFound``, ``NewForbidden``, ``NewInvalid``, ``NewGenericServerResponse``
...) after Go's JSON encoding: ``details`` is present for every error about a
resource, empty when no resource is named, absent for the others; every
``StatusDetails`` / ``StatusCause`` field is omitted when empty. kubectl reads
``details.name`` of a 404 without a nil check (``kubectl debug`` panicked on
our old answers), so the presence of ``details`` is part of the wire contract.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api import errors
from minikube_py.apiserver.negotiation import NotAcceptable
from minikube_py.apiserver.server import APIServer
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store


def _status(message: str, reason: str, code: int, details: dict[str, Any] | None = None
            ) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                           "status": "Failure", "message": message, "reason": reason}
    if details is not None:
        out["details"] = details
    out["code"] = code
    return out


CONSTRUCTORS = [
    (errors.NotFound.of("pods", "web"),
     _status('pods "web" not found', "NotFound", 404, {"name": "web", "kind": "pods"})),
    (errors.NotFound.of("deployments", "web", group="apps"),
     _status('deployments.apps "web" not found', "NotFound", 404,
             {"name": "web", "group": "apps", "kind": "deployments"})),
    (errors.NotFound("the server could not find the requested resource"),
     _status("the server could not find the requested resource", "NotFound", 404, {})),
    (errors.AlreadyExists.of("pods", "web"),
     _status('pods "web" already exists', "AlreadyExists", 409,
             {"name": "web", "kind": "pods"})),
    (errors.Conflict.of("pods", "web", "the object has been modified"),
     _status('Operation cannot be fulfilled on pods "web": the object has been modified',
             "Conflict", 409, {"name": "web", "kind": "pods"})),
    (errors.Forbidden.of("namespaces", "default", "this namespace may not be deleted"),
     _status('namespaces "default" is forbidden: this namespace may not be deleted',
             "Forbidden", 403, {"name": "default", "kind": "namespaces"})),
    (errors.Forbidden.of("pods", "", "no"),
     _status("pods is forbidden: no", "Forbidden", 403, {"kind": "pods"})),
    (errors.Invalid.of("Pod", "web", [errors.required("spec.containers")]),
     _status('Pod "web" is invalid: spec.containers: Required value', "Invalid", 422,
             {"name": "web", "kind": "Pod", "causes": [
                 {"reason": "FieldValueRequired", "message": "Required value",
                  "field": "spec.containers"}]})),
    (errors.MethodNotAllowed("PUT is not supported on a collection"),
     _status("PUT is not supported on a collection", "MethodNotAllowed", 405, {})),
    (errors.InternalError.of("boom"),
     _status("Internal error occurred: boom", "InternalError", 500,
             {"causes": [{"message": "boom"}]})),
    (errors.TooManyRequests.retry_after("slow down", 3),
     _status("slow down", "TooManyRequests", 429, {"retryAfterSeconds": 3})),
    (errors.BadRequest("nope"), _status("nope", "BadRequest", 400)),
    (errors.Unauthorized("Unauthorized"), _status("Unauthorized", "Unauthorized", 401)),
    (errors.Expired("too old"), _status("too old", "Expired", 410)),
    (errors.Gone("gone"), _status("gone", "Gone", 410)),
    (errors.RequestEntityTooLarge("big"), _status("big", "RequestEntityTooLarge", 413)),
    (errors.UnsupportedMediaType("text"), _status("text", "UnsupportedMediaType", 415)),
    (errors.ServiceUnavailable("later"), _status("later", "ServiceUnavailable", 503)),
    (NotAcceptable("json only"), _status("json only", "NotAcceptable", 406)),
]


@pytest.mark.parametrize("error, expected", CONSTRUCTORS,
                         ids=lambda v: type(v).__name__ if isinstance(v, Exception) else "")
def test_each_error_renders_as_kube_apiserver_does(error: errors.StatusError,
                                                  expected: dict[str, Any]):
    status = error.to_status()
    assert status == expected
    # Go encodes the fields in this order; clients do not care, readers do.
    assert list(status) == list(expected)


def test_empty_fields_are_omitted_as_go_omits_them():
    err = errors.Invalid("x", details={"name": "", "kind": "Pod", "causes": [
        {"reason": "FieldValueRequired", "message": "Required value", "field": ""}]})
    assert err.to_status()["details"] == {
        "kind": "Pod", "causes": [{"reason": "FieldValueRequired", "message": "Required value"}]}


# -------------------------------------------------------------- through the server

TOKEN = "t"
PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    store = Store(Path(tmp_path_factory.mktemp("details")) / "s")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    registry.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                     "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    server = APIServer(registry, token=TOKEN, port=0)
    server.start()
    yield server.address
    server.stop()
    store.close()


def _call(address: tuple[str, int], method: str, path: str, body: Any = None,
          content_type: str = "application/json", token: str = TOKEN) -> dict[str, Any]:
    conn = http.client.HTTPConnection(*address, timeout=10)
    conn.request(method, path, body=None if body is None else json.dumps(body).encode(),
                 headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
    resp = conn.getresponse()
    status = json.loads(resp.read())
    conn.close()
    assert status["kind"] == "Status" and status["code"] == resp.status
    return status


NO_DETAILS = object()


@pytest.mark.parametrize("method, path, body, content_type, details", [
    # A subresource that is not served -> a 404 with empty details.
    ("PATCH", f"{PODS}/web/nosuchsubresource", {}, "application/strategic-merge-patch+json",
     {}),
    ("GET", "/api/v1/widgets", None, "application/json", {}),
    ("GET", "/apis/nope/v1/things", None, "application/json", {}),
    ("GET", f"{PODS}/ghost", None, "application/json", {"name": "ghost", "kind": "pods"}),
    ("GET", "/apis/apps/v1/namespaces/default/deployments/ghost", None, "application/json",
     {"name": "ghost", "group": "apps", "kind": "deployments"}),
    ("POST", PODS, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
     "application/json", {"name": "web", "kind": "pods"}),
    ("DELETE", "/api/v1/namespaces/default", None, "application/json",
     {"name": "default", "kind": "namespaces"}),
    ("PUT", PODS, {}, "application/json", {}),
    ("POST", PODS, [1], "application/json", NO_DETAILS),
    ("GET", f"{PODS}?limit=x", None, "application/json", NO_DETAILS),
    ("PATCH", f"{PODS}/web", [{"op": "test", "path": "/metadata/name", "value": "x"}],
     "application/json-patch+json", {}),
])
def test_errors_from_the_server_carry_details_as_kubernetes_does(
        api: tuple[str, int], method: str, path: str, body: Any, content_type: str,
        details: Any):
    status = _call(api, method, path, body, content_type)
    if details is NO_DETAILS:
        assert "details" not in status, status
    else:
        assert status.get("details") == details, status


def test_an_invalid_object_names_its_fields_in_causes(api: tuple[str, int]):
    status = _call(api, "POST", PODS, {"apiVersion": "v1", "kind": "Pod",
                                       "metadata": {"name": "bad"}, "spec": {}})
    assert status["reason"] == "Invalid"
    assert status["details"]["name"] == "bad" and status["details"]["kind"] == "Pod"
    assert {"reason": "FieldValueRequired", "message": "Required value",
            "field": "spec.containers"} in status["details"]["causes"]


def test_unauthorized_has_no_details(api: tuple[str, int]):
    status = _call(api, "GET", PODS, token="wrong")
    assert status["reason"] == "Unauthorized" and "details" not in status
