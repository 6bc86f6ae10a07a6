"""PriorityClass (scheduling.k8s.io/v1) and the Priority admission step.

Expectations come from ``pkg/apis/scheduling/validation``,
``pkg/apis/scheduling/v1/{defaults,helpers}.go``, the priorityclasses registry
(strategy and storage), ``printPriorityClass`` and
``plugin/pkg/admission/priority``.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api import kinds, schema
from minikube_py.api.defaults import apply_defaults
from minikube_py.api.errors import (
    AlreadyExists,
    BadRequest,
    Forbidden,
    Invalid,
    NotFound,
)
from minikube_py.api.printers import column_definitions, table
from minikube_py.api.validation import check_create, check_update, validate, validate_update
from minikube_py.apiserver import discovery, openapi, routes
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z
GROUP = "scheduling.k8s.io"
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
             "'-' or '.', and must start and end with an alphanumeric character (e.g. "
             "'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
RESERVED = ("metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
            "for system use only. error: ")
COMPUTED = "priority admission controller computed"


def pc(name: str = "high", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, **fields}


def pod(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "s", clock=lambda: NOW)
    yield s
    s.close()


@pytest.fixture
def registry(store: Store) -> Registry:
    counter = itertools.count(1)
    reg = Registry(store, clock=lambda: NOW, new_uid=lambda: f"uid-{next(counter)}")
    reg.ensure_system_namespaces()
    reg.ensure_system_priority_classes()
    return reg


# ---------------------------------------------------------------- kind registry


@pytest.mark.parametrize("typed", ["pc", "priorityclass", "priorityclasses", "PriorityClass",
                                   "priorityclasses.scheduling.k8s.io"])
def test_kind_resolves_by_every_name(typed: str):
    info = kinds.resolve(typed)
    assert (info.kind, info.group, info.version, info.plural) == (
        "PriorityClass", GROUP, "v1", "priorityclasses")
    assert not info.namespaced
    assert info.api_version == "scheduling.k8s.io/v1"
    assert info.group_resource == "priorityclasses.scheduling.k8s.io"


def test_wrong_version_is_refused():
    with pytest.raises(BadRequest, match=re.escape(
            'no matches for kind "PriorityClass" in version "scheduling.k8s.io/v1beta1"')):
        kinds.for_object({**pc(), "apiVersion": "scheduling.k8s.io/v1beta1"})


def test_discovery_routes_and_openapi_pick_the_group_up():
    groups = discovery.api_group_list()["groups"]
    assert [g["name"] for g in groups] == ["apps", "authentication.k8s.io",
                                           "authorization.k8s.io", "batch",
                                           "coordination.k8s.io", "discovery.k8s.io",
                                           "rbac.authorization.k8s.io", GROUP]
    assert groups[-1]["preferredVersion"] == {"groupVersion": "scheduling.k8s.io/v1",
                                             "version": "v1"}
    assert discovery.api_group(GROUP)["versions"] == [groups[-1]["preferredVersion"]]
    listing = discovery.resource_list(GROUP, "v1")
    assert listing is not None
    assert listing["resources"] == [{
        "name": "priorityclasses", "singularName": "priorityclass", "namespaced": False,
        "kind": "PriorityClass", "verbs": ["create", "delete", "deletecollection", "get",
                                           "list", "patch", "update", "watch"],
        "shortNames": ["pc"]}]
    target = routes.resolve("/apis/scheduling.k8s.io/v1/priorityclasses/high")
    assert target is not None
    assert (target.resource, target.namespace, target.name, target.subresource) == (
        "priorityclasses", None, "high", None)
    with pytest.raises(NotFound):
        routes.resolve("/apis/scheduling.k8s.io/v1/namespaces/default/priorityclasses/high")
    with pytest.raises(NotFound):
        routes.resolve("/apis/scheduling.k8s.io/v1/priorityclasses/high/status")
    body, _ = openapi.documents()["apis/scheduling.k8s.io/v1"]
    doc = json.loads(body)
    assert "/apis/scheduling.k8s.io/v1/priorityclasses/{name}" in doc["paths"]
    component = doc["components"]["schemas"]["io.k8s.api.scheduling.v1.PriorityClass"]
    assert component["x-kubernetes-group-version-kind"] == [
        {"group": GROUP, "kind": "PriorityClass", "version": "v1"}]
    assert component["required"] == ["value"]
    assert component["properties"]["value"]["format"] == "int32"
    assert component["properties"]["globalDefault"]["type"] == "boolean"


def test_store_has_a_table(store: Store):
    assert store.list("priorityclasses").items == []


# ---------------------------------------------------------------------- schema


def test_decode_keeps_every_field():
    full = pc(value=1000, globalDefault=True, description="d", preemptionPolicy="Never")
    assert schema.decode(full) == full


@pytest.mark.parametrize(("fields", "message"), [
    ({"value": "high"}, 'value: expected integer, got string "high"'),
    ({"value": 2**31}, "value: integer 2147483648 out of range for int32"),
    ({"globalDefault": "yes"}, 'globalDefault: expected boolean, got string "yes"'),
    ({"preemptionPolicy": 1}, "preemptionPolicy: expected string, got integer 1"),
    ({"spec": {}}, 'strict decoding error: unknown field "spec"'),
])
def test_decode_errors(fields: dict[str, Any], message: str):
    with pytest.raises(BadRequest) as exc:
        schema.decode(pc(**fields))
    assert str(exc.value).startswith(
        'PriorityClass in version "v1" cannot be handled as a PriorityClass: ')
    assert message in str(exc.value)


# -------------------------------------------------------------------- defaults


def test_defaults():
    assert apply_defaults(pc()) == {**pc(), "value": 0,
                                    "preemptionPolicy": "PreemptLowerPriority"}
    kept = pc(value=5, preemptionPolicy="Never")
    assert apply_defaults(kept) == kept


# ------------------------------------------------------------------ validation


def ready(obj: dict[str, Any]) -> dict[str, Any]:
    return apply_defaults(schema.decode(obj))


VALID = [
    pc(value=1_000_000_000),
    pc(value=-2_147_483_648),
    pc(value=1, globalDefault=True, preemptionPolicy="Never", description="x"),
    pc("system-node-critical", value=2_000_001_000),
    pc("system-cluster-critical", value=2_000_000_000),
    pc("a.b-c", value=0),
]


@pytest.mark.parametrize("obj", VALID, ids=lambda o: f"{o['metadata']['name']}")
def test_valid(obj: dict[str, Any]):
    assert validate(ready(obj)) == []


INVALID = [
    ("user value too high", pc(value=1_000_000_001),
     ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]),
    ("unknown system name", pc("system-foo", value=1),
     [RESERVED + "system-foo is not a known system priority class"]),
    ("system class with another value", pc("system-node-critical", value=5),
     [RESERVED + "value of system-node-critical PriorityClass must be 2000001000"]),
    ("system class as global default",
     pc("system-cluster-critical", value=2_000_000_000, globalDefault=True),
     [RESERVED + "globalDefault of system-cluster-critical PriorityClass must be false"]),
    ("system prefix with a huge value is only the name error", pc("system-x", value=2**31 - 1),
     [RESERVED + "system-x is not a known system priority class"]),
    ("bad preemption policy", pc(value=1, preemptionPolicy="Always"),
     ['preemptionPolicy: Unsupported value: "Always": supported values: '
      '"PreemptLowerPriority", "Never"']),
    ("empty preemption policy", pc(value=1, preemptionPolicy=""),
     ["preemptionPolicy: Required value"]),
    ("name not a subdomain", pc("High", value=1),
     [f'metadata.name: Invalid value: "High": {SUBDOMAIN}']),
    ("namespace on a cluster-scoped kind",
     {**pc(value=1), "metadata": {"name": "high", "namespace": "default"}},
     ["metadata.namespace: Forbidden: not allowed on this type"]),
]


@pytest.mark.parametrize(("case", "obj", "expected"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid(case: str, obj: dict[str, Any], expected: list[str]):
    assert [str(e) for e in validate(ready(obj))] == expected


def test_invalid_message_is_group_qualified():
    with pytest.raises(Invalid) as exc:
        check_create(ready(pc(value=1_000_000_001)))
    assert str(exc.value) == (
        'PriorityClass.scheduling.k8s.io "high" is invalid: value: Forbidden: maximum '
        "allowed value of a user defined priority is 1000000000")
    assert exc.value.details["group"] == GROUP


def stored(obj: dict[str, Any]) -> dict[str, Any]:
    out = ready(obj)
    out["metadata"]["resourceVersion"] = "7"
    return out


UPDATES = [
    ("description and globalDefault may change",
     {"description": "new", "globalDefault": True}, []),
    ("value may not change", {"value": 2},
     ["value: Forbidden: may not be changed in an update."]),
    ("preemptionPolicy is immutable", {"preemptionPolicy": "Never"},
     ['preemptionPolicy: Invalid value: "Never": field is immutable']),
    ("both", {"value": 2, "preemptionPolicy": "Never"},
     ["value: Forbidden: may not be changed in an update.",
      'preemptionPolicy: Invalid value: "Never": field is immutable']),
    ("create-only checks are not rerun", {"metadata": {"name": "high", "labels": {"a": "b"}}},
     []),
]


@pytest.mark.parametrize(("case", "change", "expected"), UPDATES, ids=[c[0] for c in UPDATES])
def test_update(case: str, change: dict[str, Any], expected: list[str]):
    old = stored(pc(value=1, description="old"))
    new = copy.deepcopy(old)
    for key, value in change.items():
        if key == "metadata":
            new["metadata"].update(value)
        else:
            new[key] = value
    assert [str(e) for e in validate_update(new, old)] == expected


def test_update_error_is_raised_as_invalid():
    old = stored(pc(value=1))
    with pytest.raises(Invalid, match=r'^PriorityClass.scheduling.k8s.io "high" is invalid: '
                                      r"value: Forbidden: may not be changed in an update\.$"):
        check_update({**old, "value": 3}, old)


# -------------------------------------------------------------------- printers


def test_columns():
    got = [(c.name, c.type, c.format, c.priority) for c in column_definitions("PriorityClass")]
    assert got == [("Name", "string", "name", 0), ("Value", "integer", "", 0),
                   ("Global-Default", "boolean", "", 0), ("Age", "string", "", 0),
                   ("PreemptionPolicy", "string", "", 0)]


@pytest.mark.parametrize(("obj", "cells"), [
    ({**pc(value=1000, globalDefault=True, preemptionPolicy="Never"),
      "metadata": {"name": "high", "creationTimestamp": "2027-01-15T07:00:00Z"}},
     ["high", 1000, True, "60m", "Never"]),
    (pc("bare"), ["bare", 0, False, "<unknown>", ""]),
])
def test_rows(obj: dict[str, Any], cells: list[Any]):
    t = table("PriorityClass", [obj], now=NOW)
    assert t["rows"][0]["cells"] == cells
    assert [c["name"] for c in t["columnDefinitions"]] == [
        "Name", "Value", "Global-Default", "Age", "PreemptionPolicy"]


# ------------------------------------------------------------ system classes


def test_system_classes_exist(registry: Registry):
    node = registry.get("priorityclasses", None, "system-node-critical")
    cluster = registry.get("priorityclasses", None, "system-cluster-critical")
    assert (node["value"], node["preemptionPolicy"]) == (2_000_001_000, "PreemptLowerPriority")
    assert node["description"] == (
        "Used for system critical pods that must not be moved from their current node.")
    assert (cluster["value"], cluster["preemptionPolicy"]) == (
        2_000_000_000, "PreemptLowerPriority")
    assert cluster["description"] == ("Used for system critical pods that must run in the "
                                      "cluster, but can be moved to another node if necessary.")
    assert "globalDefault" not in node
    assert node["metadata"]["generation"] == 1
    assert "namespace" not in node["metadata"]
    assert registry.ensure_system_priority_classes() == []


def test_system_class_creation_is_reported_once(store: Store):
    reg = Registry(store, clock=lambda: NOW)
    assert reg.ensure_system_priority_classes() == ["system-node-critical",
                                                    "system-cluster-critical"]
    assert reg.ensure_system_priority_classes() == []


@pytest.mark.parametrize("name", ["system-node-critical", "system-cluster-critical"])
@pytest.mark.parametrize("dry_run", [False, True])
def test_system_classes_cannot_be_deleted(registry: Registry, name: str, dry_run: bool):
    with pytest.raises(Forbidden) as exc:
        registry.delete("priorityclasses", None, name, dry_run=dry_run)
    assert str(exc.value) == (f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: this '
                              "is a system priority class and cannot be deleted")
    assert exc.value.to_status()["code"] == 403
    assert exc.value.details == {"name": name, "kind": "priorityclasses", "group": GROUP}
    assert registry.get("priorityclasses", None, name)


def test_user_classes_can_be_deleted(registry: Registry):
    registry.create(pc(value=10))
    assert registry.delete("priorityclasses", None, "high").finished
    with pytest.raises(NotFound, match=re.escape(
            'priorityclasses.scheduling.k8s.io "high" not found')):
        registry.get("priorityclasses", None, "high")


def test_system_name_with_the_wrong_value_is_refused(store: Store):
    reg = Registry(store, clock=lambda: NOW)
    with pytest.raises(Invalid, match="value of system-node-critical PriorityClass must be "
                                      "2000001000"):
        reg.create(pc("system-node-critical", value=1))


# -------------------------------------------------------- classes in the registry


def test_create_and_update_class(registry: Registry):
    created = registry.create({**pc(value=10), "metadata": {"name": "high",
                                                             "namespace": "team"}})
    assert created["metadata"]["generation"] == 1
    assert "namespace" not in created["metadata"]
    assert created["preemptionPolicy"] == "PreemptLowerPriority"
    with pytest.raises(AlreadyExists, match=re.escape(
            'priorityclasses.scheduling.k8s.io "high" already exists')):
        registry.create(pc(value=10))
    updated = registry.update({**pc(value=10, description="now described")})
    assert updated["description"] == "now described"
    assert updated["metadata"]["generation"] == 1  # never bumped
    with pytest.raises(Invalid, match=re.escape(
            "value: Forbidden: may not be changed in an update.")):
        registry.update(pc(value=11))
    # An update that omits preemptionPolicy is defaulted, not taken from the stored object.
    never = registry.create(pc("never", value=1, preemptionPolicy="Never"))
    with pytest.raises(Invalid, match="preemptionPolicy: Invalid value: \"PreemptLowerPriority\""
                                      ": field is immutable"):
        registry.update({**pc("never", value=1), "metadata": never["metadata"]})


# ------------------------------------------------------------ global default


def test_only_one_global_default(registry: Registry):
    registry.create(pc(value=100, globalDefault=True))
    with pytest.raises(Forbidden) as exc:
        registry.create(pc("other", value=5, globalDefault=True))
    assert str(exc.value) == (
        'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass high is '
        "already marked as default. Only one default can exist")
    assert exc.value.details == {"name": "other", "kind": "priorityclasses", "group": GROUP}
    with pytest.raises(Forbidden, match="PriorityClass high is already marked as default"):
        registry.create(pc("other", value=5, globalDefault=True), dry_run=True)
    # Re-creating the default itself is refused the same way (admission runs first).
    with pytest.raises(Forbidden, match='"high" is forbidden: PriorityClass high is already'):
        registry.create(pc(value=100, globalDefault=True))
    # The default itself may be updated; another class may not become a default...
    registry.update(pc(value=100, globalDefault=True, description="still the default"))
    registry.create(pc("other", value=5))
    with pytest.raises(Forbidden, match='"other" is forbidden: PriorityClass high is already'):
        registry.update(pc("other", value=5, globalDefault=True))
    # ...until the old default steps down.
    registry.update(pc(value=100, globalDefault=False))
    assert registry.update(pc("other", value=5, globalDefault=True))["globalDefault"] is True


def test_pods_get_the_global_default(registry: Registry):
    registry.create(pc("batch", value=-5, globalDefault=True, preemptionPolicy="Never"))
    spec = registry.create(pod())["spec"]
    assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == (
        "batch", -5, "Never")
    with pytest.raises(Forbidden) as exc:
        registry.create(pod("again", priority=0))
    assert str(exc.value) == (
        'pods "again" is forbidden: the integer value of priority (0) must not be provided in '
        f"pod spec; {COMPUTED} -5 from the given PriorityClass name")
    # A named class still wins over the default.
    spec = registry.create(pod("named", priorityClassName="system-cluster-critical"))["spec"]
    assert (spec["priorityClassName"], spec["priority"]) == ("system-cluster-critical",
                                                             2_000_000_000)


def test_lowest_global_default_wins_when_several_exist(registry: Registry, store: Store):
    registry.create(pc("a", value=10, globalDefault=True))
    # Two defaults can only come from a race; the lowest value is used.
    raced = apply_defaults(pc("b", value=3, globalDefault=True))
    raced["metadata"].update(uid="u", creationTimestamp="2027-01-15T08:00:00Z")
    store.create("priorityclasses", raced)
    assert registry.create(pod())["spec"]["priorityClassName"] == "b"


def test_the_default_class_is_listed_again_only_after_a_class_changed(
        registry: Registry, store: Store, monkeypatch: pytest.MonkeyPatch):
    """Pod creates read the global default from a cache (as the plugin reads a
    lister), which follows every change of the PriorityClasses at once."""
    lists: list[str] = []
    real_list = store.list

    def counting_list(resource: str, **kw: Any) -> Any:
        lists.append(resource)
        return real_list(resource, **kw)

    monkeypatch.setattr(store, "list", counting_list)

    def admitted(name: str) -> tuple[Any, ...]:
        before = len(lists)
        spec = registry.create(pod(name))["spec"]
        listed.append(lists[before:].count("priorityclasses"))
        return spec.get("priorityClassName"), spec["priority"]

    listed: list[int] = []  # the classes listed by each pod create

    assert admitted("p1") == (None, 0)
    assert admitted("p2") == (None, 0)
    assert admitted("p3") == (None, 0)
    assert listed == [1, 0, 0]  # listed once for three pods
    registry.create(pc("batch", value=-5, globalDefault=True))
    assert admitted("p4") == ("batch", -5)
    registry.update(pc("batch", value=-5, globalDefault=False))
    assert admitted("p5") == (None, 0)
    raced = apply_defaults(pc("direct", value=7, globalDefault=True))
    raced["metadata"].update(uid="u", creationTimestamp="2027-01-15T08:00:00Z")
    store.create("priorityclasses", raced)  # a write below the registry counts too
    assert admitted("p6") == ("direct", 7)
    registry.delete("priorityclasses", None, "direct")
    assert admitted("p7") == (None, 0)
    assert admitted("p8") == (None, 0)
    assert listed == [1, 0, 0, 1, 1, 1, 1, 0]  # after each change, never again


# --------------------------------------------------------- pod priority admission


@pytest.mark.parametrize(("spec", "expected"), [
    ({}, (None, 0, "PreemptLowerPriority")),
    ({"priority": 0}, (None, 0, "PreemptLowerPriority")),
    ({"preemptionPolicy": "PreemptLowerPriority"}, (None, 0, "PreemptLowerPriority")),
    ({"priorityClassName": "system-node-critical"},
     ("system-node-critical", 2_000_001_000, "PreemptLowerPriority")),
    ({"priorityClassName": "system-cluster-critical", "priority": 2_000_000_000},
     ("system-cluster-critical", 2_000_000_000, "PreemptLowerPriority")),
    ({"priorityClassName": "low"}, ("low", -10, "Never")),
    ({"priorityClassName": "low", "preemptionPolicy": "Never", "priority": -10},
     ("low", -10, "Never")),
])
def test_pod_priority_is_resolved(registry: Registry, spec: dict[str, Any],
                                  expected: tuple[Any, ...]):
    registry.create(pc("low", value=-10, preemptionPolicy="Never"))
    created = registry.create(pod(**spec))["spec"]
    got = (created.get("priorityClassName"), created["priority"], created["preemptionPolicy"])
    assert got == expected


FORBIDDEN = [
    ("unknown class", {"priorityClassName": "nope"},
     "no PriorityClass with name nope was found"),
    ("name that could never be a class", {"priorityClassName": "Nope"},
     "no PriorityClass with name Nope was found"),
    ("priority without a class", {"priority": 5},
     f"the integer value of priority (5) must not be provided in pod spec; {COMPUTED} 0 from "
     "the given PriorityClass name"),
    ("priority that differs from the class", {"priorityClassName": "low", "priority": 10},
     f"the integer value of priority (10) must not be provided in pod spec; {COMPUTED} -10 "
     "from the given PriorityClass name"),
    ("preemptionPolicy without a class", {"preemptionPolicy": "Never"},
     "the string value of PreemptionPolicy (Never) must not be provided in pod spec; "
     f"{COMPUTED} PreemptLowerPriority from the given PriorityClass name"),
    ("preemptionPolicy that differs from the class",
     {"priorityClassName": "low", "preemptionPolicy": "PreemptLowerPriority"},
     "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod "
     f"spec; {COMPUTED} Never from the given PriorityClass name"),
]


@pytest.mark.parametrize(("case", "spec", "why"), FORBIDDEN, ids=[c[0] for c in FORBIDDEN])
def test_pod_priority_forbidden(registry: Registry, store: Store, case: str,
                                spec: dict[str, Any], why: str):
    registry.create(pc("low", value=-10, preemptionPolicy="Never"))
    for dry_run in (True, False):
        with pytest.raises(Forbidden) as exc:
            registry.create(pod(**spec), dry_run=dry_run)
        assert str(exc.value) == f'pods "web" is forbidden: {why}'
        assert exc.value.to_status()["reason"] == "Forbidden"
        assert exc.value.details == {"name": "web", "kind": "pods"}
    assert store.list("pods").items == []


def test_forbidden_pod_is_named_by_generate_name(registry: Registry):
    src = pod(priorityClassName="nope")
    src["metadata"] = {"generateName": "web-"}
    with pytest.raises(Forbidden, match=r'^pods "web-" is forbidden: no PriorityClass with '
                                        r"name nope was found$"):
        registry.create(src)


def test_admission_comes_before_validation(registry: Registry):
    # Kubernetes runs mutating admission before the strategy validates.
    src = pod(priorityClassName="nope")
    src["spec"]["containers"][0]["image"] = ""
    with pytest.raises(Forbidden, match="no PriorityClass with name nope"):
        registry.create(src)


def test_pod_update_keeps_the_admitted_priority(registry: Registry):
    registry.create(pc("low", value=-10, preemptionPolicy="Never"))
    created = registry.create(pod(priorityClassName="low"))
    replacement = copy.deepcopy(created)
    del replacement["spec"]["priority"]
    del replacement["spec"]["preemptionPolicy"]
    replacement["metadata"]["labels"] = {"tier": "batch"}
    updated = registry.update(replacement)
    assert (updated["spec"]["priority"], updated["spec"]["preemptionPolicy"]) == (-10, "Never")
    assert updated["metadata"]["labels"] == {"tier": "batch"}
    changed = copy.deepcopy(updated)
    changed["spec"]["priority"] = 3
    with pytest.raises(Invalid, match="pod updates may not change fields"):
        registry.update(changed)


def test_pod_templates_are_not_admitted(registry: Registry):
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
           "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"priorityClassName": "nope", "containers": [
                                     {"name": "c", "image": "busybox:1.36"}]}}}}
    spec = registry.create(dep)["spec"]["template"]["spec"]
    assert spec["priorityClassName"] == "nope"
    assert "priority" not in spec and "preemptionPolicy" not in spec


def test_class_deleted_later_leaves_pods_alone(registry: Registry):
    registry.create(pc(value=7))
    registry.create(pod(priorityClassName="high"))
    registry.delete("priorityclasses", None, "high")
    assert registry.get("pods", "default", "web")["spec"]["priority"] == 7
    with pytest.raises(Forbidden, match="no PriorityClass with name high was found"):
        registry.create(pod("second", priorityClassName="high"))


# ------------------------------------------------------------ official client


def test_official_client_roundtrip(registry: Registry):
    from kubernetes.client import ApiClient

    obj = registry.create(pc(value=10, globalDefault=True, description="d",
                             preemptionPolicy="Never"))
    client = ApiClient()
    model = client.deserialize(json.dumps(obj), "V1PriorityClass", "application/json")
    back = client.sanitize_for_serialization(model)
    back["metadata"]["creationTimestamp"] = obj["metadata"]["creationTimestamp"]
    assert back == obj
