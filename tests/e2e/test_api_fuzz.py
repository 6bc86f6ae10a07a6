"""Fuzzing the REST API of a real daemon with hypothesis (issue 8, "Hostile input").

Schemathesis-style, from our own discovery and OpenAPI documents: random
paths (every served resource and subresource, in and out of namespaces,
names with odd characters, wrong groups and versions, non-resource paths),
random methods, random query parameters (``labelSelector``, ``fieldSelector``,
``limit``, ``continue``, ``watch``, ``resourceVersion``, ``propagationPolicy``,
``dryRun``, ``fieldValidation``... with valid values and garbage), random
``Accept`` and ``Content-Type`` headers, and random bodies: random bytes,
random JSON, objects shaped by our OpenAPI schemas and then mutated, valid
objects, JSON patches, YAML, protobuf garbage, nesting and alias bombs.

Every answer must be one of:

* a refusal: a well-formed ``Status`` (kind Status, ``code`` == HTTP status)
  with a code in :data:`REFUSED`, and the store exactly as before (every
  object's uid and resourceVersion; events and node heartbeats aside);
* an acceptance: 2xx with a JSON (or YAML / text) body that parses. An
  accepted write is allowed to change the store; the test then puts the fuzz
  namespace back in order and takes a new baseline. A dry run, accepted or
  not, must change nothing.

Never a 500, a non-Status error, a hang (each request has a deadline) or a
dead control plane (``/readyz`` is checked as it goes). The test prints how
many requests it tried and the status codes they got.

The fuzz node is tainted, so fuzz-created pods stay Pending and the store only
moves when the fuzz moves it. ``MINIKUBE_PY_FUZZ_EXAMPLES`` sets the number of
examples (default :data:`DEFAULT_EXAMPLES`, well under a minute);
``MINIKUBE_PY_FUZZ_TRACE=FILE`` appends every request and its answer to FILE.

Random, and replayable: every run draws a fresh seed, prints it, and names it
again in a failure; ``MINIKUBE_PY_FUZZ_SEED=N`` replays that run's requests
(the draws depend on the seed only, never on the daemon's answers).
``MINIKUBE_PY_FUZZ_STATS=FILE`` writes the run's counts as JSON (the deep run
recorded in ``bench/RESULTS.md`` comes from it: ``bench/api_fuzz_deep.py``).
"""

from __future__ import annotations

import base64
import collections
import json
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import yaml
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from .conftest import Daemon, start_daemon, stop_daemon
from .rawapi import RawApi, Reply, check_status, collection, diff, global_rv, snapshot

pytestmark = pytest.mark.e2e

DEFAULT_EXAMPLES = 500
EXAMPLES = int(os.environ.get("MINIKUBE_PY_FUZZ_EXAMPLES") or DEFAULT_EXAMPLES)
#: When set, every request and its status are appended to this file.
TRACE = os.environ.get("MINIKUBE_PY_FUZZ_TRACE")
#: The run's seed: given (to replay a run) or drawn afresh.
SEED = int(os.environ.get("MINIKUBE_PY_FUZZ_SEED") or random.SystemRandom().randrange(2**32))
#: When set, the run's counts are written here as JSON.
STATS = os.environ.get("MINIKUBE_PY_FUZZ_STATS")

#: Codes a refused request may get. 401: a wrong or missing token; 403:
#: pod security, system objects, terminating namespaces; 405: a verb a path
#: does not serve; 406: an Accept we cannot produce; 410: a resourceVersion
#: too old. Everything else (500 above all) is a bug.
REFUSED = frozenset({400, 401, 403, 404, 405, 406, 409, 410, 413, 415, 422})
MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})

NS = "fuzz"
#: Every fixture object is called this (one per resource), so fuzzed requests
#: often address something that exists.
NAME = "fz"
NODE_CONFIG = """nodes:
  - name: fuzz-node
    cpu: "2"
    memory: 2Gi
    taints: [{key: fuzz, effect: NoSchedule}]
"""


# ------------------------------------------------------------------ the daemon


@dataclass
class World:
    """What the fuzz knows about the daemon: its API and what discovery said."""

    daemon: Daemon
    api: RawApi
    #: plural -> (group/version prefix, namespaced, kind)
    resources: dict[str, tuple[str, bool, str]]
    #: plural -> served subresources
    subresources: dict[str, list[str]]
    #: kind -> its OpenAPI schema; and every schema by name (for $ref)
    schemas: dict[str, dict[str, Any]]
    components: dict[str, dict[str, Any]]
    initial: dict[str, set[str]] = field(default_factory=dict)
    stats: collections.Counter[int] = field(default_factory=collections.Counter)
    examples: int = 0
    resets: int = 0
    reset_seconds: float = 0.0


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


def discover(daemon: Daemon, api: RawApi) -> World:
    """Resources from /api and /apis; schemas from /openapi/v3."""
    resources: dict[str, tuple[str, bool, str]] = {}
    subresources: dict[str, list[str]] = collections.defaultdict(list)
    prefixes = [f"/api/{v}" for v in api.get_json("/api")["versions"]]
    for group in api.get_json("/apis")["groups"]:
        prefixes += [f"/apis/{v['groupVersion']}" for v in group["versions"]]
    for prefix in prefixes:
        for r in api.get_json(prefix)["resources"]:
            plural, _, sub = r["name"].partition("/")
            if sub:
                subresources[plural].append(sub)
            else:
                resources[plural] = (prefix, r["namespaced"], r["kind"])
    schemas: dict[str, dict[str, Any]] = {}
    components: dict[str, dict[str, Any]] = {}
    for entry in api.get_json("/openapi/v3")["paths"].values():
        doc = api.get_json(entry["serverRelativeURL"])
        for name, schema in doc["components"]["schemas"].items():
            components[name] = schema
            for gvk in schema.get("x-kubernetes-group-version-kind", []):
                schemas[gvk["kind"]] = schema
    assert {"pods", "nodes", "namespaces", "deployments", "jobs"} <= set(resources)
    assert {"Pod", "Deployment", "Job", "PriorityClass"} <= set(schemas)
    return World(daemon, api, resources, dict(subresources), schemas, components)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    base = tmp_path_factory.mktemp("fuzz")
    config = base / "nodes.yaml"
    config.write_text(NODE_CONFIG)
    daemon = start_daemon(base / "state", "--config", str(config))
    api = RawApi(daemon.kubeconfig)
    try:
        w = discover(daemon, api)
        ensure_fixtures(w)
        settle(api)
        w.initial = {plural: set(objs) for plural, objs in snapshot(api).items()}
        yield w
    finally:
        api.close()
        assert stop_daemon(daemon) == 0


def settle(api: RawApi, quiet: float = 0.25, limit: float = 10.0) -> None:
    """Wait until nothing wrote to the store for ``quiet`` seconds (bounded)."""
    deadline = time.monotonic() + limit
    last, since = global_rv(api), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.02)
        rv = global_rv(api)
        if rv != last:
            last, since = rv, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return


def post(api: RawApi, path: str, obj: dict[str, Any]) -> Reply:
    return api.request("POST", path, json.dumps(obj).encode(),
                       headers={"Content-Type": "application/json"})


def fixtures() -> dict[str, dict[str, Any]]:
    """One inert object per resource in the fuzz namespace: nothing about them
    makes a controller act (the pod cannot be scheduled, the workloads want no
    pods), so the store stands still until the fuzz changes it."""
    labels = {"fuzz": "fixture"}
    template = {"metadata": {"labels": labels}, "spec": pod("x")["spec"]}
    return {
        "pods": pod(NAME),
        "deployments": {"apiVersion": "apps/v1", "kind": "Deployment",
                        "metadata": {"name": NAME},
                        "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                                 "template": template}},
        "replicasets": {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                        "metadata": {"name": NAME},
                        "spec": {"replicas": 0, "selector": {"matchLabels": {"rs": NAME}},
                                 "template": {**template, "metadata": {"labels": {"rs": NAME}}}}},
        "jobs": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": NAME},
                 "spec": {"suspend": True, "template": {
                     **template, "spec": {**template["spec"], "restartPolicy": "Never"}}}},
        "events": {"apiVersion": "v1", "kind": "Event", "metadata": {"name": NAME},
                   "involvedObject": {"kind": "Pod", "name": NAME, "namespace": NS},
                   "reason": "Fuzz", "message": "fixture", "type": "Normal"},
        "priorityclasses": {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                            "metadata": {"name": NAME}, "value": 7},
    }


def ensure_fixtures(w: World) -> None:
    """The fuzz namespace and the :func:`fixtures` in it (created if missing)."""
    api = w.api
    deadline = time.monotonic() + 30
    while True:  # a deleted namespace must be gone before it can come back
        reply = api.request("GET", f"/api/v1/namespaces/{NS}")
        if reply.status == 404:
            assert post(api, "/api/v1/namespaces", {
                "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}).status == 201
            break
        if not reply.json()["metadata"].get("deletionTimestamp"):
            break
        assert time.monotonic() < deadline, "the fuzz namespace never finished terminating"
        time.sleep(0.1)
    for plural, obj in fixtures().items():
        prefix, namespaced, _ = w.resources[plural]
        path = f"{prefix}/namespaces/{NS}/{plural}" if namespaced else f"{prefix}/{plural}"
        reply = post(api, path, obj)
        assert reply.status in (201, 409), (plural, reply.status, reply.body[:300])


def reset(w: World) -> dict[str, dict[str, tuple[str, str]]]:
    """After an accepted write: remove what the fuzz made, restore the
    fixtures, wait for the controllers to finish, and return the new baseline.

    Workloads go first (their controllers then stop making pods), all with
    grace period 0 so nothing lingers; fixtures have no owners, so the garbage
    collector finishing the old ones' dependents cannot touch them."""
    api = w.api
    w.resets += 1
    started = time.monotonic()
    for ns in (NS, "default"):
        for plural in ("deployments", "jobs", "replicasets", "pods"):
            prefix = w.resources[plural][0]
            api.request("DELETE", f"{prefix}/namespaces/{ns}/{plural}"
                        "?gracePeriodSeconds=0&propagationPolicy=Background")
    current = snapshot(api)
    for plural in ("namespaces", "priorityclasses", "nodes"):
        for key in set(current[plural]) - w.initial[plural]:
            api.request("DELETE", f"{collection(plural)}/{key.split('/')[-1]}"
                        "?gracePeriodSeconds=0")
    ensure_fixtures(w)
    settle(api)
    w.reset_seconds += time.monotonic() - started
    return snapshot(api)


# ------------------------------------------------------------------ strategies

ODD_NAMES = ["nope", "..", ".", "%2E%2E", "a%2Fb", "..%2F..%2Fetc%2Fpasswd", "%00", "%ff%fe",
             "a%20b", "A", "-a", "a" * 254, "x" * 64, "%E2%80%AE", "%F0%9F%98%80", "a:b",
             "a;b", "a%3Fb", "a%23b", "%5C", "~", "*", "a..b", "1"]
ALL_SUBRESOURCES = ["status", "scale", "log", "binding", "finalize", "exec", "proxy",
                    "eviction", "attach", "portforward", "ephemeralcontainers", ""]
NON_RESOURCE = ["/", "/api", "/apis", "/api/v1", "/api/v2", "/apis/apps", "/apis/apps/v1",
                "/apis/apps/v2", "/apis/nope/v1", "/apis/batch/v1", "/openapi/v3",
                "/openapi/v3/api/v1", "/openapi/v3/apis/apps/v1", "/openapi/v3/nope",
                "/openapi/v2", "/version", "/livez", "/readyz", "/healthz", "/metrics",
                "/debug/scheduler/queue", f"/debug/scheduler/decisions/{NS}/{NAME}",
                "/debug/scheduler/decisions/a", "/debug/pprof", "/logs", "/api/v1/",
                "//api//v1//pods", "/api/v1/namespaces", "/apis/", "/%2e%2e/%2e%2e/etc"]

QUERY_VALUES: dict[str, list[str]] = {
    "labelSelector": ["a=b", "a in (b,c)", "!a", "a", "a=b,c!=d", "a in (", "===", "a=" + "x" * 70,
                      "app notin (x)", "a>1", "\x00", "é=é", "a=b,,"],
    "fieldSelector": ["metadata.name=x", "metadata.namespace!=y", "spec.nodeName=",
                      "spec.bogus=1", "a==b", ",", "status.phase=Running", "metadata.name"],
    "limit": ["0", "1", "2", "-1", "x", "99999999999999999999", "1.5", " 1"],
    "continue": ["x", "e30", base64.urlsafe_b64encode(b'{"rv": 1, "start": "a/b"}').decode(),
                 base64.urlsafe_b64encode(b'{"rv": "x"}').decode(),
                 base64.urlsafe_b64encode(b'[1,2]').decode(), "%%%"],
    "watch": ["true", "1", "false", "0", "yes", "x"],
    "resourceVersion": ["0", "1", "-1", "x", "99999999999", "1.0"],
    "resourceVersionMatch": ["Exact", "NotOlderThan", "x"],
    "propagationPolicy": ["Orphan", "Background", "Foreground", "x", "orphan"],
    "dryRun": ["All", "x", "all", "All,All"],
    "fieldValidation": ["Strict", "Warn", "Ignore", "x", "strict"],
    "fieldManager": ["m", "x" * 200, "é", "kubectl"],
    "force": ["true", "false", "x"],
    "gracePeriodSeconds": ["0", "-1", "x", "30", "99999999999999999999"],
    "orphanDependents": ["true", "false", "x"],
    "container": ["c", "../../etc/passwd", "x", "c/../c", "%00"],
    "tailLines": ["1", "-1", "x"],
    "sinceSeconds": ["1", "-1", "x"],
    "limitBytes": ["1", "-1", "x"],
    "previous": ["true", "x"],
    "timestamps": ["true", "x"],
    "includeObject": ["None", "Object", "Metadata", "x"],
    "pretty": ["true", "x"],
    "allowWatchBookmarks": ["true", "x"],
}

ACCEPTS = [None, "application/json", "application/yaml", "*/*",
           "application/json;as=Table;v=v1;g=meta.k8s.io",
           "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
           "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
           "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
           "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
           "application/vnd.kubernetes.protobuf", "text/html", "garbage;;;=", ""]
CONTENT_TYPES = [None, "application/json", "application/yaml",
                 "application/vnd.kubernetes.protobuf", "application/merge-patch+json",
                 "application/strategic-merge-patch+json", "application/json-patch+json",
                 "application/apply-patch+yaml", "application/apply-patch+cbor", "text/plain",
                 "garbage", "application/json; charset=utf-16", "multipart/form-data"]

json_scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=16)
                | st.floats(allow_nan=False, allow_infinity=False))
json_values = st.recursive(
    json_scalars, lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4), max_leaves=20)
texts = st.sampled_from(["", "a", "busybox:1.36", "fuzz", "Always", "Never", "TCP", "1",
                         "100m", "1Gi", "x" * 300, "../etc", "a/b", "é", "\x00",
                         "2024-01-01T00:00:00Z"]) | st.text(max_size=20)


class SchemaValues:
    """Hypothesis strategies for values shaped by our OpenAPI schemas."""

    MAX_DEPTH = 4

    def __init__(self, components: dict[str, dict[str, Any]]) -> None:
        self.components = components
        self.cache: dict[tuple[int, int], st.SearchStrategy[Any]] = {}

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while True:
            if "$ref" in schema:
                schema = self.components[schema["$ref"].rsplit("/", 1)[-1]]
            elif "allOf" in schema and len(schema["allOf"]) == 1:
                schema = {**schema["allOf"][0],
                          **{k: v for k, v in schema.items() if k != "allOf"}}
            else:
                return schema

    def of(self, schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
        key = (id(schema), depth)
        if key not in self.cache:
            self.cache[key] = st.deferred(lambda: self._build(schema, depth))
        return self.cache[key]

    def _build(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        schema = self.resolve(schema)
        if depth > self.MAX_DEPTH:
            return st.just({}) if schema.get("type") == "object" else json_scalars
        if "oneOf" in schema:
            return st.one_of([self.of(s, depth) for s in schema["oneOf"]])
        if schema.get("x-kubernetes-int-or-string"):
            return st.integers(-5, 70000) | texts
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            return json_values
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            props = schema.get("properties") or {}
            if not props and "additionalProperties" in schema:
                extra = schema["additionalProperties"]
                values = self.of(extra, depth + 1) if isinstance(extra, dict) else json_values
                return st.dictionaries(texts, values, max_size=3)
            return st.fixed_dictionaries(
                {}, optional={name: self.of(sub, depth + 1) for name, sub in props.items()})
        if kind == "array":
            return st.lists(self.of(schema.get("items") or {}, depth + 1), max_size=3)
        if kind == "string":
            return texts
        if kind == "integer":
            return st.integers(-3, 3) | st.integers(-(2**64), 2**64)
        if kind == "number":
            return st.floats(allow_nan=False, allow_infinity=False)
        if kind == "boolean":
            return st.booleans()
        return json_values


def mutate(data: st.DataObject, value: Any) -> Any:
    """One random mutation somewhere in ``value``: a deletion, a type change, an
    unknown field, a huge string, a deep nest."""
    path: list[Any] = []
    node = value
    while isinstance(node, dict | list) and node and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(node) if isinstance(node, dict)
                                        else range(len(node))))
        path.append(key)
        node = node[key]
    replacement = data.draw(st.one_of(
        json_values, st.just("x" * 70_000), st.just(None),
        st.integers(2**63, 2**70), st.just({"$patch": "delete"}),
        st.integers(20, 300).map(lambda d: json.loads("[" * d + "]" * d))))
    if not path:
        if isinstance(value, dict) and data.draw(st.booleans()):
            value[data.draw(st.text(max_size=10))] = replacement
            return value
        return replacement
    parent = value
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and data.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return value


@dataclass
class Call:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes | None
    token: str | None = ""

    @property
    def url(self) -> str:
        return self.path + ("?" + urlencode(self.query) if self.query else "")

    @property
    def dry_run(self) -> bool:
        return ("dryRun", "All") in self.query

    def __str__(self) -> str:
        body = "" if self.body is None else f" body={self.body[:300]!r}"
        return f"{self.method} {self.url} headers={self.headers}{body}"


def segment(data: st.DataObject, pool: list[str]) -> str:
    """A path segment: from ``pool`` (already URL-safe) or random, percent-encoded."""
    if data.draw(st.integers(0, 4)):
        return data.draw(st.sampled_from(pool))
    return quote(data.draw(st.text(min_size=1, max_size=12)), safe="")


def draw_path(data: st.DataObject, w: World,
              method: str) -> tuple[str, str | None, str | None]:
    """(path, resource plural or None, object name or None); mostly a path
    ``method`` makes sense on (collections for POST, objects otherwise)."""
    if data.draw(st.integers(0, 9)) == 0:
        return data.draw(st.sampled_from(NON_RESOURCE)), None, None
    plural = data.draw(st.sampled_from(sorted(w.resources)))
    prefix, namespaced, _ = w.resources[plural]
    if data.draw(st.integers(0, 19)) == 0:  # a wrong group or version
        prefix = data.draw(st.sampled_from(["/api/v2", "/apis/apps/v1beta1", "/apis/nope/v1",
                                            "/apis/batch/v1", "/api/v1", "/apis/apps/v1"]))
    names = {"priorityclasses": [NAME, "system-node-critical"],
             "namespaces": [NS, "default", "kube-system", "kube-public"],
             "nodes": ["fuzz-node-not"]}.get(plural, [NAME])
    path = prefix
    if namespaced and data.draw(st.integers(0, 4)):
        path += f"/namespaces/{segment(data, [NS] * 4 + ['nope', 'default'])}"
    path += f"/{plural}"
    name = None
    if data.draw(st.integers(0, 4)) >= (4 if method == "POST" else 1):
        name = segment(data, names * 8 + ODD_NAMES)
        path += f"/{name}"
        if data.draw(st.integers(0, 3)) == 0:
            path += f"/{segment(data, w.subresources.get(plural, []) + ALL_SUBRESOURCES)}"
            if data.draw(st.integers(0, 9)) == 0:
                path += f"/{segment(data, ['x', '..', 'log'])}"
    if data.draw(st.integers(0, 19)) == 0:
        path += "/"
    return path, plural, name


def draw_query(data: st.DataObject) -> list[tuple[str, str]]:
    count = data.draw(st.sampled_from([0, 0, 0, 1, 1, 2, 3, 4]))
    keys = data.draw(st.lists(st.sampled_from(sorted(QUERY_VALUES)), min_size=count,
                              max_size=count, unique=True))
    # Mostly meaningful values (valid or near misses), sometimes any text.
    query = [(k, data.draw(st.sampled_from(QUERY_VALUES[k]) if data.draw(st.integers(0, 5))
                           else st.text(max_size=10))) for k in keys]
    if data.draw(st.integers(0, 9)) == 0:
        query.append((data.draw(st.text(max_size=8)), data.draw(st.text(max_size=8))))
    if any(k == "watch" for k, _ in query):
        # A watch streams until its timeout: keep it short (or invalid).
        query = [(k, v) for k, v in query if k != "timeoutSeconds"]
        query.append(("timeoutSeconds", data.draw(st.sampled_from(["0", "-3", "x", "1"]))))
    return query


def valid_object(data: st.DataObject, kind: str, name: str) -> dict[str, Any]:
    """An object our API accepts (given a valid name and namespace)."""
    labels = {"fuzz": "yes"}
    template = {"metadata": {"labels": labels}, "spec": pod("x")["spec"]}
    if kind == "Pod":
        return pod(name)
    if kind == "Deployment":
        return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name},
                "spec": {"replicas": data.draw(st.integers(0, 2)),
                         "selector": {"matchLabels": labels}, "template": template}}
    if kind == "ReplicaSet":
        return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name},
                "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                         "template": template}}
    if kind == "Job":
        template["spec"] = {**template["spec"], "restartPolicy": "Never"}
        return {"apiVersion": "batch/v1", "kind": kind, "metadata": {"name": name},
                "spec": {"template": template}}
    if kind == "PriorityClass":
        return {"apiVersion": "scheduling.k8s.io/v1", "kind": kind, "metadata": {"name": name},
                "value": data.draw(st.integers(-10, 10))}
    if kind == "Event":
        return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name},
                "involvedObject": {"kind": "Pod", "name": NAME, "namespace": NS},
                "reason": "Fuzz", "message": "fuzz", "type": "Normal"}
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}}


def draw_body(data: st.DataObject, w: World, plural: str | None, name: str | None,
              gen: SchemaValues, method: str) -> tuple[bytes | None, str]:
    """A body and the content type it naturally has."""
    kind = w.resources[plural][2] if plural else data.draw(st.sampled_from(sorted(w.schemas)))
    choice = data.draw(st.sampled_from(
        ["none", "bytes", "json", "patch", "protobuf", "deep", "laughs", "huge"]
        + ["schema"] * 4 + ["valid"] * 5))
    as_json = "application/json" if method != "PATCH" else data.draw(st.sampled_from(
        ["application/merge-patch+json", "application/strategic-merge-patch+json"]))
    if choice == "none":
        return None, as_json
    if choice == "bytes":
        return data.draw(st.binary(max_size=512)), as_json
    if choice == "json":
        return json.dumps(data.draw(json_values)).encode(), as_json
    if choice == "protobuf":
        return b"k8s\x00" + data.draw(st.binary(max_size=256)), \
            "application/vnd.kubernetes.protobuf"
    if choice == "deep":
        depth = data.draw(st.integers(90, 5000))
        return ('{"metadata":{"labels":' + '{"a":' * depth + "1" + "}" * depth
                + "}}").encode(), as_json
    if choice == "laughs":
        lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        for i in range(1, data.draw(st.integers(2, 9))):
            lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
        return ("\n".join(lines) + f"\napiVersion: v1\nkind: {kind}\nmetadata: {{name: lol}}\n"
                ).encode(), "application/yaml" if method != "PATCH" else \
            "application/apply-patch+yaml"
    if choice == "patch":
        ops = data.draw(st.lists(st.fixed_dictionaries(
            {"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "x"])},
            optional={"path": st.sampled_from(["", "/", "/metadata/labels/a", "/spec/replicas",
                                               "/spec/containers/0/image", "/spec/containers/-",
                                               "/metadata/name", "/a~1b", "/a~2", "/status",
                                               "/spec/containers/99999999999"]),
                      "from": st.sampled_from(["/metadata", "/spec", "/x"]),
                      "value": json_values}), max_size=3))
        return json.dumps(ops).encode(), "application/json-patch+json"
    obj: Any
    if choice in ("valid", "huge"):
        obj = valid_object(data, kind, data.draw(st.sampled_from(
            [name or "fz", "fz-" + data.draw(st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True))])))
        if choice == "huge":
            obj["metadata"]["annotations"] = {"a": "x" * data.draw(st.sampled_from(
                [1000, 300_000, 3 * 1024 * 1024]))}
        elif data.draw(st.integers(0, 3)) == 0:
            obj = mutate(data, obj)
    else:
        obj = data.draw(gen.of(w.schemas.get(kind, {"type": "object"})))
        if isinstance(obj, dict) and data.draw(st.integers(0, 3)):
            obj["apiVersion"] = "/".join(w.resources[plural][0].split("/")[2:]) if plural \
                else "v1"
            obj["kind"] = kind
            meta = obj.get("metadata")
            obj["metadata"] = {**(meta if isinstance(meta, dict) else {}),
                               "name": name or "fz-schema"}
        for _ in range(data.draw(st.integers(0, 2))):
            obj = mutate(data, obj)
    if data.draw(st.integers(0, 4)) == 0:
        return yaml.safe_dump(obj).encode(), "application/yaml" if method != "PATCH" else \
            "application/apply-patch+yaml"
    return json.dumps(obj).encode(), as_json  # NaN never occurs: floats are finite


def draw_call(data: st.DataObject, w: World, gen: SchemaValues) -> Call:
    method = data.draw(st.sampled_from(["GET"] * 4 + ["POST", "PUT", "PATCH"] * 3
                                       + ["DELETE"] * 2 + ["HEAD", "OPTIONS", "TRACE", "BREW"]))
    path, plural, name = draw_path(data, w, method)
    if plural == "nodes" and method == "DELETE" and name is None:
        # Deleting the real node would have its kubelet re-register it some
        # seconds later: churn no baseline could follow.
        method = "GET"
    headers = {}
    # Mostly what real clients send, so requests get past negotiation to the
    # handlers; the rest is any header at all.
    accept = data.draw(st.sampled_from([None] * 6 + ["application/json"] * 4 + ACCEPTS))
    if accept is not None:
        headers["Accept"] = accept
    body, natural = draw_body(data, w, plural, name, gen, method) if method in MUTATING or \
        data.draw(st.integers(0, 9)) == 0 else (None, "application/json")
    content_type = natural if data.draw(st.integers(0, 3)) else \
        data.draw(st.sampled_from(CONTENT_TYPES))
    if content_type is not None:
        headers["Content-Type"] = content_type
    token = data.draw(st.sampled_from([""] * 18 + [None, "wrong"]))
    return Call(method, path, draw_query(data), headers, body, token)


# ------------------------------------------------------------------ checks


def check_accepted(call: Call, reply: Reply) -> None:
    """A 2xx must carry a body that parses as what it claims to be."""
    ctype = reply.headers.get("content-type", "")
    if ctype.startswith("application/json"):
        lines = [ln for ln in reply.body.split(b"\n") if ln.strip()] if \
            reply.headers.get("transfer-encoding") == "chunked" else [reply.body]
        for line in lines:
            value = json.loads(line)
            assert isinstance(value, dict), f"{call}: {line[:200]!r}"
            if value.get("type") == "ERROR":  # a watch may end with an error event
                assert value["object"]["kind"] == "Status"
    elif ctype.startswith("application/yaml"):
        yaml.safe_load(reply.body)
    else:
        assert ctype.startswith("text/plain"), f"{call}: content type {ctype}"


def replay_hint(seed_value: int) -> str:
    return (f"replay with MINIKUBE_PY_FUZZ_SEED={seed_value} MINIKUBE_PY_FUZZ_EXAMPLES="
            f"{EXAMPLES} pytest tests/e2e/test_api_fuzz.py::test_api_fuzz")


# Long runs (MINIKUBE_PY_FUZZ_EXAMPLES) need more than the suite's 300 s per test.
@pytest.mark.timeout(max(300, EXAMPLES // 2 + 120))
def test_api_fuzz(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    gen = SchemaValues(world.components)
    api = world.api
    state = {"base": snapshot(api)}
    started = time.monotonic()
    with capsys.disabled():
        print(f"\nAPI fuzz: seed {SEED} ({replay_hint(SEED)})")

    @seed(SEED)
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def one_request(data: st.DataObject) -> None:
        call = draw_call(data, world, gen)
        world.examples += 1
        reply = api.request(call.method, call.url, call.body, headers=call.headers,
                            token=call.token)
        world.stats[reply.status] += 1
        if TRACE:
            with open(TRACE, "a") as trace:
                trace.write(f"{reply.status} {str(call)[:400]!r} {reply.body[:200]!r}\n")
        if 200 <= reply.status < 300 and call.method != "HEAD":
            check_accepted(call, reply)
            changed = call.method in MUTATING and not call.dry_run
        else:
            if call.method == "HEAD":
                assert reply.status == 405 and reply.body == b"", f"{call}: {reply}"
            else:
                try:
                    check_status(reply, REFUSED)
                except AssertionError as exc:
                    raise AssertionError(f"{call}\n-> {exc}") from None
            changed = False
        if changed:
            state["base"] = reset(world)
        else:
            changes = diff(state["base"], snapshot(api))
            assert not changes, f"{call} -> {reply.status} changed the store: {changes}"
        if world.examples % 50 == 0:
            assert api.ready(), f"the control plane stopped being ready after {call}"

    passed = False
    try:
        one_request()
        passed = True
    finally:
        took = time.monotonic() - started
        with capsys.disabled():
            print(f"\nAPI fuzz: {sum(world.stats.values())} requests tried in {took:.0f} s "
                  f"({world.examples} examples; {world.resets} resets after accepted "
                  f"writes took {world.reset_seconds:.0f} s); status codes: "
                  f"{dict(sorted(world.stats.items()))}; seed {SEED}"
                  + ("" if passed else f"\nAPI fuzz FAILED: {replay_hint(SEED)}"))
        if STATS:
            Path(STATS).write_text(json.dumps({
                "seed": SEED, "examples": world.examples, "seconds": round(took, 1),
                "resets": world.resets, "passed": passed,
                "codes": {str(k): v for k, v in sorted(world.stats.items())}}))
    assert api.ready()
    assert world.daemon.proc.poll() is None
    log = "".join(world.daemon.log)
    assert "Traceback" not in log, log[-4000:]
    assert sum(world.stats.values()) >= EXAMPLES


def test_a_seed_replays_the_same_requests(world: World) -> None:
    """What ``MINIKUBE_PY_FUZZ_SEED`` promises: the same seed draws the same
    requests (a different one does not)."""
    gen = SchemaValues(world.components)

    def requests_of(seed_value: int) -> list[str]:
        drawn: list[str] = []

        @seed(seed_value)
        @settings(max_examples=40, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.data())
        def draw(data: st.DataObject) -> None:
            drawn.append(str(draw_call(data, world, gen)))

        draw()
        return drawn

    first = requests_of(1234)
    assert len(first) == 40
    assert requests_of(1234) == first
    assert requests_of(4321) != first


def test_fuzz_checks_can_fail() -> None:
    """The oracle itself: a 500, an HTML error page or a Status whose code lies
    are all caught."""
    def reply(status: int, body: Any, ctype: str = "application/json") -> Reply:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return Reply(status, {"content-type": ctype}, raw)

    bad: list[Callable[[], Any]] = [
        lambda: check_status(reply(500, {"kind": "Status", "apiVersion": "v1", "code": 500,
                                         "status": "Failure", "message": "boom"}), REFUSED),
        lambda: check_status(reply(400, b"<html>Bad request</html>", "text/html"), REFUSED),
        lambda: check_status(reply(404, {"kind": "Status", "apiVersion": "v1", "code": 400,
                                         "status": "Failure", "message": "x"}), REFUSED),
        lambda: check_status(reply(422, {"kind": "Pod"}), REFUSED),
    ]
    for check in bad:
        with pytest.raises(AssertionError):
            check()
    assert diff({"pods": {"a/b": ("u", "1")}}, {"pods": {"a/b": ("u", "2")}})


def test_schema_values_follow_the_schema(world: World) -> None:
    """The schema-shaped generator produces the schema's fields and types."""
    gen = SchemaValues(world.components)
    pods = gen.of(world.schemas["Pod"])
    seen: set[str] = set()

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(pods)
    def sample(obj: Any) -> None:
        assert isinstance(obj, dict)
        assert set(obj) <= set(world.schemas["Pod"]["properties"])
        seen.update(obj)
        if isinstance(obj.get("spec"), dict) and "containers" in obj["spec"]:
            assert isinstance(obj["spec"]["containers"], list)

    sample()
    assert {"metadata", "spec"} <= seen
