"""Request bodies of the wrong shape, anywhere, for every verb on every served resource.

The table is verb x resource x malformed shape: each case sends a body whose
JSON types are wrong at one place (the whole body, ``metadata``, a label, the
``spec``, a nested container, ``DeleteOptions`` fields, ``Binding``,
``Scale``, patch documents of all four types, List items...). Every answer
must be a 400 ``Status`` (reason BadRequest) whose message names the field,
and the store must be exactly as before: nothing is touched before the body
has been decoded and type-checked.

Resources come from the kind registry, so a kind added later is covered
without touching this file (its valid object comes from :data:`VALID`).
"""

from __future__ import annotations

import copy
import http.client
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api import kinds
from minikube_py.apiserver.routes import collection_path, object_path
from minikube_py.apiserver.server import APIServer
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

TOKEN = "t"
NS = "fz"
NAME = "fz"

_TEMPLATE = {"metadata": {"labels": {"app": "fz"}},
             "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}

#: One valid object per kind (created before the cases run).
VALID: dict[str, dict[str, Any]] = {
    "Pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": NAME},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                     "ports": [{"containerPort": 80}]}]}},
    "Node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": NAME}, "spec": {}},
    "Namespace": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
    "Event": {"apiVersion": "v1", "kind": "Event", "metadata": {"name": NAME},
              "involvedObject": {"kind": "Pod", "name": NAME, "namespace": NS},
              "reason": "Fuzz", "message": "m", "type": "Normal"},
    "Deployment": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": NAME},
                   "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "fz"}},
                            "template": _TEMPLATE}},
    "ReplicaSet": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": NAME},
                   "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "fz"}},
                            "template": _TEMPLATE}},
    "PriorityClass": {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                      "metadata": {"name": NAME}, "value": 7},
    "ConfigMap": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": NAME},
                  "data": {"k": "v"}, "binaryData": {"b": "AAE="}},
    "Job": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": NAME},
            "spec": {"suspend": True, "template": {
                **_TEMPLATE, "spec": {**_TEMPLATE["spec"], "restartPolicy": "Never"}}}},
    "Service": {"apiVersion": "v1", "kind": "Service", "metadata": {"name": NAME},
                "spec": {"selector": {"app": "fz"}, "ports": [{"port": 80}]}},
    "Endpoints": {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": NAME},
                  "subsets": [{"addresses": [{"ip": "10.244.0.9"}], "ports": [{"port": 80}]}]},
    "EndpointSlice": {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                      "metadata": {"name": NAME}, "addressType": "IPv4",
                      "endpoints": [{"addresses": ["10.244.0.9"], "conditions": {}}],
                      "ports": [{"port": 80}]},
    "Secret": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": NAME},
               "type": "Opaque", "data": {"k": "dg=="}},
    "ServiceAccount": {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": NAME},
                       "secrets": [{"name": "s"}], "imagePullSecrets": [{"name": "p"}],
                       "automountServiceAccountToken": False},
    "Role": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
             "metadata": {"name": NAME},
             "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]},
    "ClusterRole": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                    "metadata": {"name": NAME},
                    "rules": [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}],
                    "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"a": "b"}}]}},
    "RoleBinding": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                    "metadata": {"name": NAME},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                "name": "r"},
                    "subjects": [{"kind": "User", "name": "u"}]},
    "ClusterRoleBinding": {"apiVersion": "rbac.authorization.k8s.io/v1",
                           "kind": "ClusterRoleBinding", "metadata": {"name": NAME},
                           "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                       "kind": "ClusterRole", "name": "view"},
                           "subjects": [{"kind": "ServiceAccount", "name": "sa",
                                         "namespace": NS}]},
    "Lease": {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": NAME},
              "spec": {"holderIdentity": "h", "leaseDurationSeconds": 40,
                       "acquireTime": "2024-01-02T03:04:05.000000Z",
                       "renewTime": "2024-01-02T03:04:05.123456Z", "leaseTransitions": 0}},
}

#: (dotted path, wrong value) pairs every kind gets; "" is the whole body.
COMMON_SHAPES: list[tuple[str, Any]] = [
    ("", []), ("", "x"), ("", 1), ("", True),
    ("metadata", "xx"), ("metadata", []), ("metadata", 7),
    ("metadata.name", 1), ("metadata.labels", []), ("metadata.labels.a", 1),
    ("metadata.labels.b", {"c": "d"}), ("metadata.annotations", "x"),
    ("metadata.ownerReferences", {}), ("metadata.ownerReferences", [1]),
    ("metadata.finalizers", "x"), ("metadata.resourceVersion", 5),
    ("metadata.generation", "one"), ("apiVersion", 1), ("kind", []),
]

#: Wrong shapes inside each kind's own fields.
KIND_SHAPES: dict[str, list[tuple[str, Any]]] = {
    "Pod": [("spec", "x"), ("spec", []), ("status", "x"), ("spec.containers", "x"),
            ("spec.containers.0", "x"), ("spec.containers.0.ports", {}),
            ("spec.containers.0.ports.0.containerPort", "80"), ("spec.nodeSelector", [])],
    "Node": [("spec", "x"), ("status", []), ("spec.taints", "x"), ("spec.unschedulable", "no")],
    "Namespace": [("spec", "x"), ("status", []), ("spec.finalizers", "kubernetes")],
    "Event": [("involvedObject", "x"), ("involvedObject.name", 3), ("count", "1")],
    "Deployment": [("spec", "x"), ("spec", []), ("status", "x"), ("spec.replicas", "3"),
                   ("spec.template", "x"), ("spec.template.spec.containers", 5),
                   ("spec.selector.matchLabels", [])],
    "ReplicaSet": [("spec", []), ("spec.template.metadata", "x"), ("spec.replicas", {})],
    "PriorityClass": [("value", "x"), ("globalDefault", "yes")],
    "Job": [("spec", "x"), ("spec.template.spec", []), ("spec.backoffLimit", "6")],
    "ConfigMap": [("data", []), ("data.k", 1), ("binaryData", "x"), ("binaryData.b", 5),
                  ("binaryData.b", "not base64!"), ("immutable", "yes")],
    "Service": [("spec", "x"), ("spec.ports", "x"), ("spec.ports.0", 80),
                ("spec.ports.0.port", "80"), ("spec.ports.0.targetPort", []),
                ("spec.selector", []), ("spec.clusterIPs", "10.96.0.9"),
                ("spec.allocateLoadBalancerNodePorts", "yes"), ("status", []),
                ("status.loadBalancer.ingress", {})],
    "Endpoints": [("subsets", "x"), ("subsets.0.addresses", {}), ("subsets.0.addresses.0.ip", 1),
                  ("subsets.0.ports.0.port", "80"), ("subsets.0.notReadyAddresses", 5)],
    "EndpointSlice": [("addressType", 4), ("endpoints", "x"), ("endpoints.0.addresses", "a"),
                      ("endpoints.0.conditions.ready", "yes"), ("ports", {}),
                      ("ports.0.port", "80"), ("ports.0.name", 1)],
    # stringData is never stored, so a JSON patch cannot add a key under it.
    "Secret": [("data", []), ("data.k", 1), ("data.k", "not base64!"), ("stringData", "x"),
               ("stringData", {"k": 5}), ("type", 1), ("immutable", "yes")],
    "ServiceAccount": [("secrets", "x"), ("secrets.0", "s"), ("secrets.0.name", 1),
                       ("imagePullSecrets", {}), ("imagePullSecrets.0.name", []),
                       ("automountServiceAccountToken", "no")],
    "Role": [("rules", "x"), ("rules.0", "x"), ("rules.0.verbs", "get"),
             ("rules.0.apiGroups.0", 1), ("rules.0.resourceNames", {})],
    "ClusterRole": [("aggregationRule", "x"), ("aggregationRule.clusterRoleSelectors", {}),
                    ("aggregationRule.clusterRoleSelectors.0.matchLabels", []),
                    ("rules.0.nonResourceURLs", "/x")],
    "RoleBinding": [("roleRef", "x"), ("roleRef.kind", 1), ("subjects", "x"),
                    ("subjects.0", "u"), ("subjects.0.name", 1)],
    "ClusterRoleBinding": [("roleRef.name", []), ("subjects.0.namespace", 2),
                           ("subjects", {})],
    "Lease": [("spec", "x"), ("spec", []), ("spec.holderIdentity", 1),
              ("spec.leaseDurationSeconds", "40"), ("spec.leaseDurationSeconds", 1.5),
              ("spec.leaseDurationSeconds", 2**31), ("spec.acquireTime", 5),
              ("spec.renewTime", "yesterday"), ("spec.leaseTransitions", []),
              ("spec.strategy", 1), ("spec.preferredHolder", {})],
}

DELETE_OPTIONS: list[tuple[Any, str]] = [
    ("x", "DeleteOptions"), ([], "DeleteOptions"), (5, "DeleteOptions"),
    ({"gracePeriodSeconds": "x"}, "gracePeriodSeconds"),
    ({"gracePeriodSeconds": 1.5}, "gracePeriodSeconds"),
    ({"preconditions": "x"}, "preconditions"), ({"preconditions": {"uid": 1}}, "uid"),
    ({"preconditions": {"resourceVersion": []}}, "resourceVersion"),
    ({"propagationPolicy": 1}, "propagationPolicy"),
    ({"orphanDependents": "x"}, "orphanDependents"), ({"dryRun": "All"}, "dryRun"),
    ({"dryRun": [1]}, "dryRun"), ({"apiVersion": 1}, "apiVersion"), ({"kind": {}}, "kind"),
]

BINDINGS: list[tuple[Any, str]] = [
    ("x", "Binding"), ([], "Binding"), ({"target": "x"}, "target"),
    ({"target": {"name": 1}}, "target.name"), ({"target": {"kind": []}}, "target.kind"),
    ({"metadata": "x"}, "metadata"), ({"metadata": {"name": 1}}, "metadata.name"),
    ({"metadata": {"uid": 1}, "target": {"name": "n"}}, "metadata.uid"),
]

SCALES: list[tuple[Any, str]] = [
    ("x", "Scale"), ([], "Scale"), ({"spec": "x"}, "spec"),
    ({"spec": {"replicas": "x"}}, "spec.replicas"), ({"spec": {"replicas": 1.5}},
                                                      "spec.replicas"),
    ({"metadata": "x"}, "metadata"), ({"metadata": {"name": 1}}, "metadata.name"),
    ({"status": "x"}, "status"),
]

#: Patch documents wrong as documents, per patch content type.
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSONPATCH = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"
BAD_PATCH_DOCUMENTS: list[tuple[str, Any, str]] = [
    (MERGE, [], "patch"), (MERGE, "x", "patch"), (STRATEGIC, [1], "patch"),
    (STRATEGIC, 3, "patch"), (STRATEGIC, {"$patch": 1}, "$patch"),
    (STRATEGIC, {"metadata": {"$retainKeys": "x"}}, "$retainKeys"),
    (APPLY, [], "apply"), (APPLY, "x", "apply"),
    (JSONPATCH, {}, "patch"), (JSONPATCH, [1], "patch"), (JSONPATCH, "x", "patch"),
    (JSONPATCH, [{"op": 1, "path": "/metadata"}], "op"),
    (JSONPATCH, [{"op": "add", "value": 1}], "path"),
    (JSONPATCH, [{"op": "add", "path": 1, "value": 1}], "path"),
    (JSONPATCH, [{"op": "move", "path": "/metadata/labels", "from": 1}], "from"),
]


# ---------------------------------------------------------------- the server


@dataclass
class Server:
    host: str
    port: int
    store: Store

    def call(self, method: str, path: str, body: Any, content_type: str = "application/json",
             ) -> tuple[int, dict[str, Any]]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.request(method, path, body=raw, headers={
            "Authorization": f"Bearer {TOKEN}", "Content-Type": content_type,
            "Accept": "application/json"})
        resp = conn.getresponse()
        payload = resp.read()
        conn.close()
        return resp.status, json.loads(payload)

    def state(self) -> dict[str, dict[str, str]]:
        """Every object's resourceVersion, by resource."""
        return {info.plural: {f"{o['metadata'].get('namespace')}/{o['metadata']['name']}":
                              o["metadata"]["resourceVersion"]
                              for o in self.store.list(info.plural).items}
                for info in kinds.KINDS}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    store = Store(Path(tmp_path_factory.mktemp("bodies")) / "s", history_size=50)
    registry = Registry(store)
    registry.ensure_system_namespaces()
    registry.create(VALID["Namespace"])
    for kind, obj in VALID.items():
        if kind != "Namespace":
            registry.create(copy.deepcopy(obj), namespace=NS)
    for info in kinds.KINDS:  # labels to patch into, so JSON patch paths exist
        registry.patch(info.plural, NS if info.namespaced else None, NAME, "merge",
                       {"metadata": {"labels": {"fz": "yes"}}})
    api = APIServer(registry, token=TOKEN, port=0)
    api.start()
    host, port = api.address
    yield Server(host, port, store)
    api.stop()
    store.close()


# ---------------------------------------------------------------- the table


def _pointer(path: str) -> str:
    return "/" + path.replace(".", "/") if path else ""


def _with(obj: dict[str, Any], path: str, value: Any) -> Any:
    """``obj`` with the value at dotted ``path`` replaced (created as needed)."""
    if not path:
        return value
    out = copy.deepcopy(obj)
    node: Any = out
    steps = path.split(".")
    for step in steps[:-1]:
        key: Any = int(step) if isinstance(node, list) else step
        if isinstance(node, dict) and key not in node:
            node[key] = {}
        node = node[key]
    last: Any = int(steps[-1]) if isinstance(node, list) else steps[-1]
    node[last] = value
    return out


def _partial(path: str, value: Any) -> Any:
    """The smallest merge patch setting ``path`` to ``value``."""
    if not path:
        return value
    out: Any = value
    for step in reversed(path.split(".")):
        out = [out] if step.isdigit() else {step: out}
    return out


#: Fields that are maps: their keys are named ``field[key]``.
_MAPS = ("metadata.labels", "metadata.annotations", "data", "binaryData", "stringData")


def _field(path: str) -> str:
    """How the field is named in a message: ``spec.containers[0].ports``."""
    out = ""
    for step in path.split("."):
        out += f"[{step}]" if step.isdigit() else (f".{step}" if out else step)
    if out.startswith(tuple(f"{m}." for m in _MAPS)):
        head, _, key = out.rpartition(".")
        out = f"{head}[{key}]"
    return out


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    body: Any
    content_type: str
    names: str  # what the message must mention

    def __str__(self) -> str:
        return f"{self.method} {self.path} {self.content_type} {json.dumps(self.body)[:80]}"


def _object_cases(info: kinds.KindInfo) -> Iterator[Case]:
    ns = NS if info.namespaced else None
    obj = VALID[info.kind]
    here = object_path(info, ns, NAME)
    subs = info.subresources
    writable = [here] + [f"{here}/status"] * ("status" in subs)
    for path, value in COMMON_SHAPES + KIND_SHAPES[info.kind]:
        bad = _with(obj, path, value)
        names = _field(path) if path else "body"
        yield Case("POST", collection_path(info, ns), bad, "application/json", names)
        if info.kind == "Namespace":
            yield Case("PUT", f"{here}/finalize", bad, "application/json", names)
        if path in ("", "apiVersion", "kind"):
            # Patches cannot carry the whole body or the type fields wrongly
            # in a way that means the same thing; their own documents are below.
            continue
        if path == "metadata.name":
            continue  # a PUT naming another object is a (tested) mismatch, not a type error
        for target in writable:
            yield Case("PUT", target, bad, "application/json", names)
            yield Case("PATCH", target, _partial(path, value), MERGE, names)
            yield Case("PATCH", target, _partial(path, value), STRATEGIC, names)
            yield Case("PATCH", target, bad, APPLY, names)
            yield Case("PATCH", target, [{"op": "add", "path": _pointer(path), "value": value}],
                       JSONPATCH, names)
    for content_type, doc, names in BAD_PATCH_DOCUMENTS:
        for target in writable:
            yield Case("PATCH", target, doc, content_type, names)
    for opts, names in DELETE_OPTIONS:
        yield Case("DELETE", here, opts, "application/json", names)
        yield Case("DELETE", collection_path(info, ns), opts, "application/json", names)
    if "binding" in subs:
        for body, names in BINDINGS:
            yield Case("POST", f"{here}/binding", body, "application/json", names)
    if "scale" in subs:
        for body, names in SCALES:
            yield Case("PUT", f"{here}/scale", body, "application/json", names)
            if isinstance(body, dict):
                yield Case("PATCH", f"{here}/scale", body, MERGE, names)
                key = next(iter(body))
                yield Case("PATCH", f"{here}/scale",
                           [{"op": "add", "path": f"/{key}", "value": body[key]}], JSONPATCH,
                           names)
    # A List where an object belongs, with malformed items.
    for items, names in (("x", "items"), ([1], "items[0]"), ([{"metadata": "x"}], "items[0]")):
        yield Case("POST", collection_path(info, ns),
                   {"apiVersion": "v1", "kind": "List", "items": items}, "application/json",
                   names)


CASES = [case for info in kinds.KINDS for case in _object_cases(info)]


def test_the_table_covers_every_verb_and_resource():
    """Every served resource meets every verb with a malformed body."""
    seen = {(c.method, c.path.split("/")[-1] if c.path.endswith(
        ("status", "scale", "binding", "finalize")) else "", c.content_type) for c in CASES}
    assert {("POST", "", "application/json"), ("PUT", "", "application/json"),
            ("PUT", "status", "application/json"), ("DELETE", "", "application/json"),
            ("PATCH", "", MERGE), ("PATCH", "", STRATEGIC), ("PATCH", "", APPLY),
            ("PATCH", "", JSONPATCH), ("PATCH", "status", JSONPATCH),
            ("POST", "binding", "application/json"), ("PUT", "scale", "application/json"),
            ("PATCH", "scale", MERGE), ("PUT", "finalize", "application/json")} <= seen
    for info in kinds.KINDS:
        assert any(info.plural in c.path for c in CASES), info.kind
    assert len(CASES) > 1000


def _check(server: Server, case: Case, expect: Callable[[dict[str, Any]], str | None]) -> str:
    before = server.state()
    body = case.body if case.content_type != APPLY else json.dumps(case.body).encode()
    code, status = server.call(case.method, case.path, body, case.content_type)
    problems = []
    if code != 400 or status.get("reason") != "BadRequest" or status.get("code") != 400:
        problems.append(f"got {code} {status.get('reason')}: {status.get('message')}")
    else:
        wrong = expect(status)
        if wrong:
            problems.append(wrong)
    if server.state() != before:
        problems.append("the store changed")
    return f"{case}: {'; '.join(problems)}" if problems else ""


@pytest.mark.parametrize("info", kinds.KINDS, ids=lambda i: i.plural)
def test_malformed_bodies_get_400_naming_the_field(server: Server, info: kinds.KindInfo):
    failures = []
    for case in (c for c in CASES if f"/{info.plural}" in c.path):
        def names_field(status: dict[str, Any], case: Case = case) -> str | None:
            message = status.get("message", "")
            if case.names not in message:
                return f"message does not name {case.names!r}: {message}"
            return None
        failure = _check(server, case, names_field)
        if failure:
            failures.append(failure)
    assert not failures, f"{len(failures)} case(s):\n" + "\n".join(failures[:40])


def test_a_check_that_can_fail(server: Server):
    """The oracle: a well-formed body is not refused, so a 400 here means something."""
    info = kinds.by_kind("PriorityClass")
    case = Case("PATCH", object_path(info, None, NAME), {"description": "d"}, MERGE,
                "description")
    assert "got 200" in _check(server, case, lambda s: None)
