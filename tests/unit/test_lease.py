"""Lease (coordination.k8s.io/v1): scheme and discovery, validation, strategy,
selectors, table and describe, against Kubernetes v1.32.

Expectations come from ``pkg/apis/coordination/validation`` (``ValidateLease``,
``ValidateLeaseSpec``, ``ValidateCoordinatedLeaseStrategy``),
``pkg/registry/coordination/lease/strategy.go`` (the
``CoordinatedLeaderElection`` gate, off in 1.32), ``printLease`` and kubectl's
generic describer (kubectl has no Lease describer).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from minikube_py.admission.namespaces import SYSTEM_NAMESPACES
from minikube_py.api import kinds
from minikube_py.api.coordination.lease import validate_lease_spec
from minikube_py.api.describe import describe
from minikube_py.api.errors import BadRequest, FieldPath, Invalid, NotFound
from minikube_py.api.fields import parse_field_selector
from minikube_py.api.labels import parse_selector
from minikube_py.api.printers import table
from minikube_py.api.protobuf import decode_k8s_protobuf
from minikube_py.api.validation import validate, validate_update
from minikube_py.apiserver import discovery, routes
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.unit.test_protobuf import envelope, m, object_meta, s, seconds, vi

NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z
STAMP = "2027-01-15T08:00:00Z"  # NOW
GROUP = "coordination.k8s.io"
API_VERSION = "coordination.k8s.io/v1"
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
             "'-' or '.', and must start and end with an alphanumeric character (e.g. "
             "'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
QNAME_REGEX = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must "
               "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
               "or '123-abc', regex used for validation is "
               "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
NOT_SUPPORTED = 'Unsupported value: "{v}": supported values: "OldestEmulationVersion"'
PREFERRED = "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"


def lease(name: str = "node-1", namespace: str = "kube-node-lease",
          **spec: Any) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": "Lease",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def messages(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    errs = validate(obj) if old is None else validate_update(obj, old)
    return [str(e) for e in errs]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "s", clock=lambda: NOW)
    yield s
    s.close()


@pytest.fixture
def registry(store: Store) -> Registry:
    counter = itertools.count(1)
    reg = Registry(store, clock=lambda: NOW, new_uid=lambda: f"uid-{next(counter)}")
    reg.ensure_system_namespaces()
    return reg


# ---------------------------------------------------------------- scheme and discovery


@pytest.mark.parametrize("typed", ["lease", "leases", "Lease", "leases.coordination.k8s.io"])
def test_kind_resolves_by_every_name(typed: str):
    info = kinds.resolve(typed)
    assert (info.kind, info.group, info.version, info.plural, info.singular) == (
        "Lease", GROUP, "v1", "leases", "lease")
    assert info.namespaced and info.short_names == () and info.subresources == ()
    assert info.categories == () and info.field_labels == ()
    assert info.api_version == API_VERSION


def test_wrong_version_is_refused():
    with pytest.raises(BadRequest, match=re.escape(
            'no matches for kind "Lease" in version "coordination.k8s.io/v1beta1"')):
        kinds.for_object({**lease(), "apiVersion": "coordination.k8s.io/v1beta1"})


def test_discovery_lists_leases_with_kube_apiservers_verbs():
    groups = [g["name"] for g in discovery.api_group_list()["groups"]]
    assert GROUP in groups
    gv = {"groupVersion": API_VERSION, "version": "v1"}
    assert discovery.api_group(GROUP) == {"kind": "APIGroup", "apiVersion": "v1", "name": GROUP,
                                          "versions": [gv], "preferredVersion": gv}
    listing = discovery.resource_list(GROUP, "v1")
    assert listing is not None and listing["groupVersion"] == API_VERSION
    assert listing["resources"] == [{
        "name": "leases", "singularName": "lease", "namespaced": True, "kind": "Lease",
        "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update",
                  "watch"]}]
    target = routes.resolve("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n")
    assert target is not None
    assert (target.resource, target.namespace, target.name, target.subresource) == (
        "leases", "kube-node-lease", "n", None)
    with pytest.raises(NotFound):
        routes.resolve("/apis/coordination.k8s.io/v1/namespaces/default/leases/n/status")


def test_kube_node_lease_exists_from_the_start(registry: Registry, store: Store):
    assert "kube-node-lease" in SYSTEM_NAMESPACES
    ns = store.get("namespaces", None, "kube-node-lease")
    assert ns["status"]["phase"] == "Active"
    assert registry.ensure_system_namespaces() == []


def test_a_protobuf_lease_decodes():
    """client-go's typed clients (kubelets' node leases) send protobuf bodies;
    ``Strategy``/``PreferredHolder``/``LeaseDurationSeconds`` are pointers,
    written only when set; a MicroTime has six fractional digits."""
    body = envelope(API_VERSION, "Lease", object_meta("node-1", namespace="kube-node-lease") + m(
        2, s(1, "node-1"), vi(2, 40),
        m(4, vi(1, seconds("2027-01-15T07:59:00")), vi(2, 123456000)), vi(5, 0)))
    assert decode_k8s_protobuf(body) == {
        "apiVersion": API_VERSION, "kind": "Lease",
        "metadata": {"name": "node-1", "namespace": "kube-node-lease"},
        "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40,
                 "renewTime": "2027-01-15T07:59:00.123456Z", "leaseTransitions": 0}}


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(("obj", "expected"), [
    (lease(holderIdentity="node-1", leaseDurationSeconds=40, leaseTransitions=0,
           acquireTime="2027-01-15T07:00:00.000000Z",
           renewTime="2027-01-15T07:59:59.123456Z"), []),
    (lease(), []),
    (lease(holderIdentity=""), []),
    (lease(leaseDurationSeconds=1), []),
    (lease(leaseDurationSeconds=0),
     ["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]),
    (lease(leaseDurationSeconds=-5),
     ["spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0"]),
    (lease(leaseTransitions=-1),
     ["spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"]),
    (lease(leaseDurationSeconds=0, leaseTransitions=-2),
     ["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -2: must be greater than or equal to 0"]),
    (lease("Node_1"), [f'metadata.name: Invalid value: "Node_1": {SUBDOMAIN}']),
    (lease("a.b-c"), []),
    (lease(namespace=""), ["metadata.namespace: Required value"]),
])
def test_create_validation(obj: dict[str, Any], expected: list[str]):
    assert messages(obj) == expected


@pytest.mark.parametrize(("spec", "expected"), [
    ({"strategy": "OldestEmulationVersion"}, []),
    ({"strategy": "OldestEmulationVersion", "preferredHolder": "node-2"}, []),
    ({"strategy": "example.com/my-strategy"}, []),
    ({"strategy": "Newest"},
     ["spec.strategy.strategy: " + NOT_SUPPORTED.format(v="Newest")]),
    ({"strategy": ""}, ["spec.strategy.strategy: " + NOT_SUPPORTED.format(v="")]),
    ({"strategy": "example.com/"},
     ['spec.strategy.strategy: Invalid value: "example.com/": name part must be non-empty',
      f'spec.strategy.strategy: Invalid value: "example.com/": {QNAME_REGEX}']),
    ({"strategy": "/x"},
     ['spec.strategy.strategy: Invalid value: "/x": prefix part must be non-empty']),
    ({"strategy": "Bad_Prefix/x"},
     [f'spec.strategy.strategy: Invalid value: "Bad_Prefix/x": prefix part {SUBDOMAIN}']),
    ({"preferredHolder": "node-2"}, [PREFERRED]),
    ({"preferredHolder": "node-2", "strategy": ""},
     ["spec.strategy.strategy: " + NOT_SUPPORTED.format(v=""), PREFERRED]),
    ({"preferredHolder": ""}, []),
])
def test_strategy_and_preferred_holder_rules(spec: dict[str, Any], expected: list[str]):
    """The rules about the gated fields, called directly (through the API the
    fields are dropped before validation while the gate is off)."""
    assert [str(e) for e in validate_lease_spec(spec, FieldPath.root("spec"))] == expected


def _stored(obj: dict[str, Any], rv: str = "7") -> dict[str, Any]:
    obj["metadata"].update(resourceVersion=rv, uid="uid-1", creationTimestamp=STAMP)
    return obj


@pytest.mark.parametrize(("new", "expected"), [
    (lease(holderIdentity="node-2", leaseDurationSeconds=10, leaseTransitions=3), []),
    (lease(leaseDurationSeconds=0),
     ["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]),
    (lease(leaseTransitions=-1),
     ["spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"]),
    (lease("other"), ['metadata.name: Invalid value: "other": field is immutable']),
])
def test_update_validation(new: dict[str, Any], expected: list[str]):
    old = _stored(lease(holderIdentity="node-1", leaseDurationSeconds=40))
    assert messages(_stored(new), old) == expected


def test_update_needs_a_resource_version():
    old = _stored(lease())
    new = lease()
    new["metadata"].update(uid="uid-1", creationTimestamp=STAMP)
    assert messages(new, old) == [
        'metadata.resourceVersion: Invalid value: "": must be specified for an update']


# ---------------------------------------------------------------- strategy through a Registry


def test_create_drops_the_gated_fields_and_sets_no_generation(registry: Registry):
    made = registry.create(lease(holderIdentity="node-1", leaseDurationSeconds=40,
                                 renewTime="2027-01-15T07:59:59.123456Z",
                                 strategy="Bogus", preferredHolder="node-2"))
    # The gate is off: strategy and preferredHolder are dropped before validation.
    assert made["spec"] == {"holderIdentity": "node-1", "leaseDurationSeconds": 40,
                            "renewTime": "2027-01-15T07:59:59.123456Z"}
    meta = made["metadata"]
    assert "generation" not in meta and "status" not in made
    assert meta["uid"].startswith("uid-")
    assert (meta["creationTimestamp"], meta["namespace"]) == (STAMP, "kube-node-lease")
    assert registry.get("leases", "kube-node-lease", "node-1") == made


def test_an_empty_spec_is_served(registry: Registry):
    made = registry.create({"apiVersion": API_VERSION, "kind": "Lease",
                            "metadata": {"name": "bare"}})
    assert made["spec"] == {} and made["metadata"]["namespace"] == "default"


def test_invalid_create_and_update_are_refused(registry: Registry, store: Store):
    with pytest.raises(Invalid) as err:
        registry.create(lease(leaseDurationSeconds=0, leaseTransitions=-1))
    assert err.value.message == (
        'Lease.coordination.k8s.io "node-1" is invalid: '
        "[spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, "
        "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]")
    assert store.list("leases").items == []
    made = registry.create(lease(holderIdentity="node-1", leaseDurationSeconds=40))
    changed = {**made, "spec": {**made["spec"], "leaseDurationSeconds": -1}}
    with pytest.raises(Invalid) as err:
        registry.update(changed)
    assert err.value.message == (
        'Lease.coordination.k8s.io "node-1" is invalid: spec.leaseDurationSeconds: '
        "Invalid value: -1: must be greater than 0")
    assert registry.get("leases", "kube-node-lease", "node-1") == made


def test_update_renews_and_drops_the_gated_fields(registry: Registry):
    made = registry.create(lease(holderIdentity="node-1", leaseDurationSeconds=40))
    renewed = {**made, "spec": {**made["spec"], "renewTime": "2027-01-15T08:00:00.000001Z",
                                "leaseTransitions": 1, "strategy": "OldestEmulationVersion",
                                "preferredHolder": "node-2"}}
    stored = registry.update(renewed)
    assert stored["spec"] == {"holderIdentity": "node-1", "leaseDurationSeconds": 40,
                              "renewTime": "2027-01-15T08:00:00.000001Z",
                              "leaseTransitions": 1}
    assert "generation" not in stored["metadata"]
    assert int(stored["metadata"]["resourceVersion"]) > int(made["metadata"]["resourceVersion"])
    patched, created = registry.patch("leases", "kube-node-lease", "node-1", "merge",
                                      {"spec": {"holderIdentity": "node-2", "strategy": "x"}})
    assert not created
    assert patched["spec"]["holderIdentity"] == "node-2" and "strategy" not in patched["spec"]
    assert registry.delete("leases", "kube-node-lease", "node-1").finished
    with pytest.raises(NotFound):
        registry.get("leases", "kube-node-lease", "node-1")


def test_a_lease_needs_a_live_namespace(registry: Registry):
    with pytest.raises(NotFound, match='namespaces "nowhere" not found'):
        registry.create(lease(namespace="nowhere"))


# ---------------------------------------------------------------- selectors through the Store


def test_label_and_field_selectors(registry: Registry, store: Store):
    registry.create(lease("node-1", holderIdentity="node-1") | {
        "metadata": {"name": "node-1", "namespace": "kube-node-lease",
                     "labels": {"role": "node"}}})
    registry.create(lease("node-2", holderIdentity="node-2"))
    registry.create(lease("leader", namespace="kube-system", holderIdentity="ctrl"))

    def names(**kw: Any) -> list[str]:
        return [f"{o['metadata']['namespace']}/{o['metadata']['name']}"
                for o in store.list("leases", **kw).items]

    assert names() == ["kube-node-lease/node-1", "kube-node-lease/node-2",
                       "kube-system/leader"]
    assert names(namespace="kube-node-lease") == ["kube-node-lease/node-1",
                                                  "kube-node-lease/node-2"]
    assert names(label_selector=parse_selector("role=node")) == ["kube-node-lease/node-1"]
    assert names(field_selector=parse_field_selector("metadata.name=leader")) == [
        "kube-system/leader"]
    assert names(field_selector=parse_field_selector("metadata.namespace!=kube-system")) == [
        "kube-node-lease/node-1", "kube-node-lease/node-2"]
    unsupported = re.escape("field label not supported: spec.holderIdentity")
    with pytest.raises(BadRequest, match=unsupported):
        store.list("leases", field_selector=parse_field_selector("spec.holderIdentity=ctrl"))


# ---------------------------------------------------------------- table and describe


def test_table_is_print_lease():
    held = lease(holderIdentity="node-1", leaseDurationSeconds=40)
    held["metadata"]["creationTimestamp"] = "2027-01-15T07:56:40Z"
    free = lease("free")
    free["metadata"]["creationTimestamp"] = "2027-01-13T08:00:00Z"
    tab = table("Lease", [held, free], now=NOW)
    columns = tab["columnDefinitions"]
    assert [(c["name"], c["type"], c["format"], c["priority"]) for c in columns] == [
        ("Name", "string", "name", 0), ("Holder", "string", "", 0), ("Age", "string", "", 0)]
    assert columns[1]["description"] == (
        "holderIdentity contains the identity of the holder of a current lease. If "
        "Coordinated Leader Election is used, the holder identity must be equal to the "
        "elected LeaseCandidate.metadata.name field.")
    assert [row["cells"] for row in tab["rows"]] == [["node-1", "node-1", "3m20s"],
                                                      ["free", "", "2d"]]


def test_describe_is_kubectls_generic_describer():
    obj = lease(holderIdentity="node-1", leaseDurationSeconds=40, leaseTransitions=0,
                renewTime="2027-01-15T07:59:00.123456Z")
    obj["metadata"].update(uid="u-1", resourceVersion="5",
                           creationTimestamp="2027-01-15T07:00:00Z", labels={"a": "b"})
    text = describe("lease", obj, now=NOW, tz=UTC, events=())
    assert text == (
        "Name:         node-1\n"
        "Namespace:    kube-node-lease\n"
        "Labels:       a=b\n"
        "Annotations:  <none>\n"
        "API Version:  coordination.k8s.io/v1\n"
        "Kind:         Lease\n"
        "Metadata:\n"
        "  Creation Timestamp:  2027-01-15T07:00:00Z\n"
        "  Resource Version:    5\n"
        "  UID:                 u-1\n"
        "Spec:\n"
        "  Holder Identity:         node-1\n"
        "  Lease Duration Seconds:  40\n"
        "  Lease Transitions:       0\n"
        "  Renew Time:              2027-01-15T07:59:00.123456Z\n"
        "Events:                    <none>\n")
