"""Hostile input against a real daemon (issue 8, "Hostile input").

One daemon process on the fake runtime, driven over HTTPS with the token and
CA from its kubeconfig. Every hostile request must be refused cleanly:

* the answer is a ``Status`` (kind Status, ``code`` equal to the HTTP status)
  with a 4xx code, never a 500, an HTML page, a traceback or a hang;
* the store is exactly as it was (every object's uid and resourceVersion);
* the control plane keeps serving (``/readyz`` after every test).

Covered: oversized and lying bodies, deep nesting (JSON, YAML, patches),
"billion laughs" YAML, non-finite numbers, huge label values and names,
names and namespaces with path separators, log requests with traversal
attempts, malformed HTTP and unknown methods, writes to read-only paths,
wrongly typed delete options, bindings and scales, patches that break an
object's shape, and refused delete-collections (which must delete nothing).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Daemon, start_daemon, stop_daemon
from .rawapi import RawApi, Reply, check_status, diff, global_rv, parse_http, snapshot

pytestmark = pytest.mark.e2e

PODS = "/api/v1/namespaces/default/pods"
JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
LIMIT = 3 * 1024 * 1024  # the API's body limit (handlers.MAX_BODY)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    d = start_daemon(tmp_path_factory.mktemp("hostile") / "state", "--nodes", "2")
    try:
        yield d
    finally:
        assert stop_daemon(d) == 0


@pytest.fixture(scope="module")
def api(daemon: Daemon) -> Iterator[RawApi]:
    client = RawApi(daemon.kubeconfig)
    yield client
    client.close()


@pytest.fixture(autouse=True)
def still_serving(api: RawApi, daemon: Daemon) -> Iterator[None]:
    """After every test: the daemon is alive, ready, and logged no traceback
    while the test ran (an unexpected exception is logged even when answered)."""
    first = len(daemon.log)
    yield
    assert daemon.proc.poll() is None, "the daemon died"
    assert api.ready(), "the daemon stopped answering /readyz"
    log = "".join(daemon.log[first:])
    assert "Traceback" not in log, log[-3000:]


def pod(name: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}


def settle(api: RawApi, quiet: float = 0.5, limit: float = 15.0) -> None:
    """Wait until nothing has written to the store for ``quiet`` seconds, so what
    a test compares is not moving because of the scheduler or a kubelet."""
    deadline = time.monotonic() + limit
    last, since = global_rv(api), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        rv = global_rv(api)
        if rv != last:
            last, since = rv, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return


def running(api: RawApi, name: str) -> str:
    """Pod ``name`` (created if missing), Running, with the store settled."""
    reply = api.request("POST", PODS, json.dumps(pod(name)).encode(), headers=JSON)
    assert reply.status in (201, 409), reply.body
    deadline = time.monotonic() + 30
    while api.get_json(f"{PODS}/{name}").get("status", {}).get("phase") != "Running":
        assert time.monotonic() < deadline, f"pod {name} did not start"
        time.sleep(0.1)
    settle(api)
    return name


def refused(api: RawApi, method: str, path: str, body: bytes | None = None, *,
            headers: dict[str, str] | None = None, codes: tuple[int, ...] = (400,),
            within: float = 5.0) -> dict[str, Any]:
    """Send a hostile request: it must be refused with a Status whose code is in
    ``codes``, within ``within`` seconds, leaving the store unchanged."""
    before = snapshot(api)
    started = time.monotonic()
    reply = api.request(method, path, body, headers=headers)
    took = time.monotonic() - started
    status = check_status(reply, codes)
    assert took < within, f"{method} {path} took {took:.1f} s to be refused"
    changes = diff(before, snapshot(api))
    assert not changes, f"a refused request changed the store: {changes}"
    return status


# ------------------------------------------------------------------ bodies


def test_oversized_body_is_refused_with_413(api: RawApi) -> None:
    status = refused(api, "POST", PODS, b"x" * (LIMIT + 1), headers=JSON, codes=(413,))
    assert status["reason"] == "RequestEntityTooLarge"


def test_huge_declared_body_is_refused_before_it_is_read(api: RawApi) -> None:
    # 1 GiB announced, nothing sent: the answer must come at once, not after
    # the server waited for (or buffered) a gigabyte.
    started = time.monotonic()
    raw = api.raw(f"POST {PODS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {api.token}\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {1 << 30}\r\n\r\n"
                  .encode())
    assert time.monotonic() - started < 3
    status = check_status(parse_http(raw), (413,))
    assert "limit is 3145728" in status["message"]


@pytest.mark.parametrize("length, code", [("-5", 400), ("lots", 400)])
def test_lying_content_length_is_refused(api: RawApi, length: str, code: int) -> None:
    raw = api.raw(f"POST {PODS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {api.token}\r\n"
                  f"Content-Length: {length}\r\n\r\n{{}}".encode())
    check_status(parse_http(raw), (code,))


def test_chunked_body_is_refused(api: RawApi) -> None:
    raw = api.raw(f"POST {PODS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {api.token}\r\n"
                  "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n".encode())
    check_status(parse_http(raw), (413,))


@pytest.mark.parametrize("depth", [101, 900, 100_000])
def test_deeply_nested_json_body_is_refused(api: RawApi, depth: int) -> None:
    body = ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep","labels":'
            + '{"a":' * depth + "1" + "}" * depth + "}}").encode()
    status = refused(api, "POST", PODS, body, headers=JSON)
    assert "nested deeper than 100 levels" in status["message"]


def test_deeply_nested_yaml_body_is_refused(api: RawApi) -> None:
    body = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: deep\n  labels: " + \
        b"[" * 100_000 + b"]" * 100_000
    status = refused(api, "POST", PODS, body, headers=YAML)
    assert "nesting deeper than 100 levels" in status["message"]


@pytest.mark.parametrize("content_type, body", [
    ("application/merge-patch+json",
     '{"metadata":{"labels":' + '{"a":' * 900 + "1" + "}" * 900 + "}}"),
    ("application/strategic-merge-patch+json",
     '{"metadata":{"labels":' + '{"a":' * 900 + "1" + "}" * 900 + "}}"),
    ("application/json-patch+json",
     '[{"op":"add","path":"/metadata/labels","value":' + "[" * 5000 + "]" * 5000 + "}]"),
    ("application/apply-patch+yaml",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: target, labels: " + "[" * 5000 + "]" * 5000
     + "}"),
])
def test_deeply_nested_patch_is_refused(api: RawApi, content_type: str, body: str) -> None:
    running(api, "target")
    refused(api, "PATCH", f"{PODS}/target?fieldManager=t", body.encode(),
            headers={"Content-Type": content_type})


def billion_laughs(levels: int = 9) -> str:
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("method, path, content_type", [
    ("POST", f"{PODS}?fieldValidation=Ignore", "application/yaml"),
    ("PATCH", f"{PODS}/lol?fieldManager=lol&fieldValidation=Ignore",
     "application/apply-patch+yaml"),
])
def test_billion_laughs_yaml_is_refused_quickly(api: RawApi, method: str, path: str,
                                                content_type: str) -> None:
    # managedFields.fieldsV1 is free-form JSON: before the fix, a 1 KiB body
    # whose aliases expand there was stored as tens of megabytes (or OOMed).
    body = billion_laughs() + (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lol\n  managedFields:\n"
        "  - {manager: lol, operation: Update, apiVersion: v1, fieldsType: FieldsV1,\n"
        "     fieldsV1: {f: *l8}}\nspec:\n  containers: [{name: c, image: busybox:1.36}]\n")
    status = refused(api, method, path, body.encode(), headers={"Content-Type": content_type},
                     within=2.0)
    assert "billion laughs" in status["message"]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_numbers_are_refused(api: RawApi, literal: str) -> None:
    body = ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"nan"},"spec":{"containers":'
            '[{"name":"c","image":"busybox:1.36"}],"terminationGracePeriodSeconds":'
            + literal + "}}").encode()
    status = refused(api, "POST", f"{PODS}?fieldValidation=Ignore", body, headers=JSON)
    assert f"{literal.lstrip('-')} is not valid JSON" in status["message"]


# ------------------------------------------------------------------ names and labels


@pytest.mark.parametrize("labels, field", [
    ({"app": "v" * 64}, "metadata.labels"),
    ({"app": "v" * (1 << 20)}, "metadata.labels"),
    ({"k" * 10_000: "v"}, "metadata.labels"),
    ({"a/b/c": "v"}, "metadata.labels"),
])
def test_huge_or_malformed_labels_are_refused(api: RawApi, labels: dict[str, str],
                                              field: str) -> None:
    body = json.dumps(pod("labels", labels=labels)).encode()
    status = refused(api, "POST", PODS, body, headers=JSON, codes=(422,))
    assert status["reason"] == "Invalid"
    assert any(c["field"].startswith(field) for c in status["details"]["causes"]), status


def test_huge_annotations_are_refused(api: RawApi) -> None:
    body = json.dumps(pod("notes", annotations={"a": "x" * (300 * 1024)})).encode()
    status = refused(api, "POST", PODS, body, headers=JSON, codes=(422,))
    assert "metadata.annotations" in status["message"]


@pytest.mark.parametrize("name", ["a/b", "..", ".", "../etc", "a\\b", "x" * 300, "a%2Fb",
                                  "a\x00b", "/etc/passwd"])
def test_names_with_path_separators_are_refused(api: RawApi, name: str) -> None:
    status = refused(api, "POST", PODS, json.dumps(pod(name)).encode(), headers=JSON,
                     codes=(422,))
    assert any(c["field"] == "metadata.name" for c in status["details"]["causes"]), status
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    refused(api, "POST", "/api/v1/namespaces", json.dumps(ns).encode(), headers=JSON,
            codes=(422,))


@pytest.mark.parametrize("path", [
    f"{PODS}/a%2Fb",
    f"{PODS}/..%2F..%2F..%2Fetc%2Fpasswd",
    "/api/v1/namespaces/..%2Fkube-system/pods",
    "/api/v1/namespaces/default/../kube-system/pods/x",
    "/api/v1/namespaces/a%2Fb/pods/x",
    "/api/../../../etc/passwd",
    "/openapi/v3/..%2F..%2F..%2Fetc%2Fpasswd",
    "/apis/apps/v1/namespaces/default/deployments/%00",
])
def test_paths_with_separators_do_not_escape(api: RawApi, path: str) -> None:
    for method in ("GET", "DELETE"):
        refused(api, method, path, codes=(404,))


# ------------------------------------------------------------------ logs


@pytest.fixture(scope="module")
def running_pod(api: RawApi) -> str:
    """A pod whose container runs (so log requests reach the node)."""
    return running(api, "logger")


def test_a_plain_log_request_works(api: RawApi, running_pod: str) -> None:
    # The control for the traversal tests below: the log path itself answers.
    reply = api.request("GET", f"{PODS}/{running_pod}/log?container=c")
    assert reply.status == 200 and b"started busybox:1.36" in reply.body


@pytest.mark.parametrize("query, code", [
    ("container=../../../../etc/passwd", 400),
    ("container=..%2F..%2F..%2Fetc%2Fpasswd", 400),
    ("container=%2Fetc%2Fpasswd", 400),
    ("container=c%2F..%2F..%2Fetc%2Fshadow", 400),
    ("container=c%00", 400),
    ("container=c&tailLines=x", 400),
    ("container=c&limitBytes=1e9", 400),
    ("container=c&sinceSeconds=..%2F", 400),
])
def test_log_requests_with_traversal_are_refused(api: RawApi, running_pod: str, query: str,
                                                 code: int) -> None:
    status = refused(api, "GET", f"{PODS}/{running_pod}/log?{query}", codes=(code,))
    assert "root:" not in status["message"]


@pytest.mark.parametrize("path", [
    "/api/v1/namespaces/default/pods/..%2F..%2F..%2Fetc%2Fpasswd/log",
    "/api/v1/namespaces/..%2F..%2Fetc/pods/logger/log",
    "/api/v1/namespaces/default/pods/logger/log/..%2F..%2Fetc%2Fpasswd",
    "/api/v1/namespaces/default/pods/%2E%2E/log",
])
def test_log_paths_with_traversal_are_not_found(api: RawApi, running_pod: str,
                                                path: str) -> None:
    refused(api, "GET", path, codes=(404,))


# ------------------------------------------------------------------ HTTP itself


def raw_status(api: RawApi, request: bytes, codes: tuple[int, ...]) -> dict[str, Any]:
    reply: Reply = parse_http(api.raw(request))
    return check_status(reply, codes)


@pytest.mark.parametrize("request_bytes, codes", [
    (b"GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n", (400,)),
    (b"\x16\x03\x01garbage\r\n\r\n", (400,)),
    (b"GET /api HTTP/2.0\r\nHost: x\r\n\r\n", (505,)),
    # The stdlib reads a header line without a colon leniently: then the
    # request is simply unauthorized (no token), and says so.
    (b"GET /api HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n", (400, 401)),
    (b"BREW /api HTTP/1.1\r\nHost: x\r\n\r\n", (405,)),
    (b"OPTIONS /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n\r\n", (405,)),
    (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", (414,)),
    (b"GET /api HTTP/1.1\r\n" + b"X-Many: 1\r\n" * 200 + b"\r\n", (431,)),
    (b"GET /api HTTP/1.1\r\nX-Long: " + b"a" * 70_000 + b"\r\n\r\n", (431,)),
])
def test_malformed_http_is_answered_with_a_status(api: RawApi, request_bytes: bytes,
                                                  codes: tuple[int, ...]) -> None:
    raw_status(api, request_bytes, codes)


def test_unknown_methods_get_405_status(api: RawApi) -> None:
    for method in ("OPTIONS", "TRACE", "CONNECT", "PROPFIND"):
        status = refused(api, method, PODS, codes=(405,))
        assert status["reason"] == "MethodNotAllowed"
    head = api.request("HEAD", PODS)
    assert head.status == 405 and head.body == b""  # HEAD answers carry no body


@pytest.mark.parametrize("path", ["/api", "/apis", "/api/v1", "/apis/apps/v1", "/openapi/v3",
                                  "/openapi/v3/api/v1", "/version", "/livez", "/readyz",
                                  "/debug/scheduler/queue"])
def test_read_only_paths_refuse_writes(api: RawApi, path: str) -> None:
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        status = refused(api, method, path, b"{}", headers=JSON, codes=(405,))
        assert "read-only" in status["message"]
    refused(api, "POST", "/no/such/path", b"{}", headers=JSON, codes=(404,))


def test_a_body_sent_with_a_refused_method_does_not_lose_the_answer(api: RawApi) -> None:
    # The server answers 405 before reading the body; closing with it unread
    # used to reset the connection, and the client lost the answer now and then.
    body = b'{"a":"' + b"x" * 200_000 + b'"}'
    for _ in range(20):
        check_status(api.request("BREW", PODS, body, headers=JSON), (405,))


# ------------------------------------------------------------------ typed options


@pytest.mark.parametrize("options", [
    {"dryRun": 5}, {"dryRun": "All"}, {"dryRun": [5]}, {"gracePeriodSeconds": "0"},
    {"gracePeriodSeconds": True}, {"propagationPolicy": "Sideways"},
    {"preconditions": 5}, {"preconditions": {"uid": 5}}, {"orphanDependents": "yes"},
])
def test_wrongly_typed_delete_options_delete_nothing(api: RawApi,
                                                     options: dict[str, Any]) -> None:
    # Before the fix {"dryRun": 5} was ignored, so the pod was deleted for real.
    running(api, "keep")
    refused(api, "DELETE", f"{PODS}/keep", json.dumps(options).encode(), headers=JSON)


def test_refused_delete_collection_deletes_nothing(api: RawApi) -> None:
    # "aaa" sorts before the system priority classes, which may not be deleted:
    # before the fix it was gone although the request was refused.
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
          "metadata": {"name": "aaa-hostile"}, "value": 5}
    path = "/apis/scheduling.k8s.io/v1/priorityclasses"
    assert api.request("POST", path, json.dumps(pc).encode(), headers=JSON).status == 201
    status = refused(api, "DELETE", path, codes=(403,))
    assert "system priority class" in status["message"]
    refused(api, "DELETE", "/api/v1/namespaces", codes=(403,))
    refused(api, "DELETE", "/api/v1/namespaces/default?dryRun=All", codes=(403,))


@pytest.mark.parametrize("path, body", [
    (f"{PODS}/logger/binding", {"target": 5}),
    (f"{PODS}/logger/binding", {"metadata": "x", "target": {"name": "n"}}),
    (f"{PODS}/logger/binding", {"target": {"name": ["node-1"]}}),
])
def test_wrongly_typed_bindings_are_refused(api: RawApi, running_pod: str, path: str,
                                            body: dict[str, Any]) -> None:
    refused(api, "POST", path, json.dumps(body).encode(), headers=JSON)


def test_wrongly_typed_scale_is_refused(api: RawApi) -> None:
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "sc"},
              "spec": {"replicas": 0, "selector": {"matchLabels": {"a": "b"}},
                       "template": {"metadata": {"labels": {"a": "b"}},
                                    "spec": {"containers": [{"name": "c",
                                                             "image": "busybox:1.36"}]}}}}
    path = "/apis/apps/v1/namespaces/default/deployments"
    assert api.request("POST", path, json.dumps(deploy).encode(), headers=JSON).status == 201
    settle(api)
    for body in ({"spec": 5}, {"metadata": 5, "spec": {"replicas": 1}}, {"spec": {"replicas":
                                                                                   "1"}}):
        refused(api, "PUT", f"{path}/sc/scale", json.dumps(body).encode(), headers=JSON)
    refused(api, "PATCH", f"{path}/sc/scale", b'[{"op":"replace","path":"/spec","value":5}]',
            headers={"Content-Type": "application/json-patch+json"})
    refused(api, "PATCH", f"{path}/sc/scale", b'{"metadata": 5}',
            headers={"Content-Type": "application/merge-patch+json"})


@pytest.mark.parametrize("content_type, patch", [
    ("application/merge-patch+json", '{"metadata": 5}'),
    ("application/strategic-merge-patch+json", '{"metadata": [1]}'),
    ("application/strategic-merge-patch+json",
     '{"apiVersion": "v1", "kind": "Namespace", "metadata": 11390592182616162304}'),
    ("application/json-patch+json", '[{"op": "replace", "path": "/metadata", "value": 5}]'),
])
def test_patches_that_break_metadata_are_refused(api: RawApi, content_type: str,
                                                 patch: str) -> None:
    # Found by the fuzz: a 500 (AttributeError) before the fix.
    refused(api, "PATCH", "/api/v1/namespaces/default", patch.encode(),
            headers={"Content-Type": content_type})


@pytest.mark.parametrize("validation", ["Ignore", "Warn", "Strict"])
def test_apply_with_undeclared_fields_is_a_bad_request(api: RawApi, validation: str) -> None:
    # Found by the fuzz: "failed to create typed patch object" was a 500, as in
    # Kubernetes; the fault is the request's.
    body = b"apiVersion: v1\nkind: Namespace\nmetadata: {name: applied}\nbogus: [1]\n"
    status = refused(api, "PATCH", f"/api/v1/namespaces/applied?fieldManager=t&"
                     f"fieldValidation={validation}", body,
                     headers={"Content-Type": "application/apply-patch+yaml"})
    assert "bogus" in status["message"]


def test_the_request_body_file_is_never_a_path(api: RawApi, tmp_path: Path) -> None:
    # A body that names a file is just a (bad) string: nothing reads it.
    secret = tmp_path / "secret"
    secret.write_text("root:x:0:0")
    status = refused(api, "POST", PODS, json.dumps(str(secret)).encode(), headers=JSON)
    assert "root:x" not in status["message"]
