"""Validation of object metadata (and that valid objects of every kind pass),
one or more rows per rule, with the exact rendered messages.

Every expected line is what ``kubectl`` shows for the same manifest against a
v1.32 API server (``str(FieldError)`` is the part after ``is invalid:``).
Objects go through ``apply_defaults`` first, as on the API server, unless a
row needs the raw object.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from minikube_py.api.validation import validate

from .validation_helpers import (
    DNS_LABEL,
    LABEL_VALUE,
    QNAME,
    SUBDOMAIN,
    Mutator,
    built,
    messages,
    raw_deployment,
    raw_event,
    raw_namespace,
    raw_node,
    raw_pod,
    raw_replica_set,
    set_in,
)


def test_valid_objects_have_no_errors():
    for factory in (raw_pod, raw_deployment, raw_replica_set, raw_node, raw_namespace,
                    raw_event):
        assert messages(built(factory)) == [], factory.__name__


# -------------------------------------------------------------------- metadata

META_CASES: list[tuple[str, Callable[[], dict], Mutator, str]] = [
    ("name required", raw_pod, set_in("metadata.name", ""),
     "metadata.name: Required value: name or generateName is required"),
    ("name subdomain", raw_pod, set_in("metadata.name", "Web"),
     f'metadata.name: Invalid value: "Web": {SUBDOMAIN}'),
    ("deployment name subdomain", raw_deployment, set_in("metadata.name", "web_1"),
     f'metadata.name: Invalid value: "web_1": {SUBDOMAIN}'),
    ("node name subdomain", raw_node, set_in("metadata.name", "Node 1"),
     f'metadata.name: Invalid value: "Node 1": {SUBDOMAIN}'),
    ("namespace name label", raw_namespace, set_in("metadata.name", "Team"),
     f'metadata.name: Invalid value: "Team": {DNS_LABEL}'),
    ("generateName checked as prefix", raw_pod,
     lambda o: o["metadata"].update(name="", generateName="Web-"),
     f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN}'),
    ("namespace required", raw_pod, lambda o: o["metadata"].pop("namespace"),
     "metadata.namespace: Required value"),
    ("namespace is a label", raw_deployment, set_in("metadata.namespace", "Prod"),
     f'metadata.namespace: Invalid value: "Prod": {DNS_LABEL}'),
    ("namespace forbidden on cluster-scoped", raw_node, set_in("metadata.namespace", "default"),
     "metadata.namespace: Forbidden: not allowed on this type"),
    ("namespace forbidden on namespaces", raw_namespace, set_in("metadata.namespace", "x"),
     "metadata.namespace: Forbidden: not allowed on this type"),
    ("label key", raw_pod, set_in("metadata.labels", {"-app": "web"}),
     f'metadata.labels: Invalid value: "-app": {QNAME}'),
    ("label value", raw_pod, set_in("metadata.labels", {"app": "web server"}),
     f'metadata.labels: Invalid value: "web server": {LABEL_VALUE}'),
    ("annotation key", raw_pod, set_in("metadata.annotations", {"bad key": "v"}),
     f'metadata.annotations: Invalid value: "bad key": {QNAME}'),
    ("annotations size", raw_pod,
     set_in("metadata.annotations", {"big": "x" * (256 * 1024)}),
     "metadata.annotations: Too long: may not be more than 262144 bytes"),
    ("generation", raw_pod, set_in("metadata.generation", -1),
     "metadata.generation: Invalid value: -1: must be greater than or equal to 0"),
    ("owner uid", raw_pod, set_in("metadata.ownerReferences", [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs"}]),
     'metadata.ownerReferences.uid: Invalid value: "": must not be empty'),
    ("owner apiVersion", raw_pod, set_in("metadata.ownerReferences", [
        {"kind": "ReplicaSet", "name": "rs", "uid": "1"}]),
     'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty'),
    ("owner kind", raw_pod, set_in("metadata.ownerReferences", [
        {"apiVersion": "v1", "name": "rs", "uid": "1"}]),
     'metadata.ownerReferences.kind: Invalid value: "": must not be empty'),
    ("owner name", raw_pod, set_in("metadata.ownerReferences", [
        {"apiVersion": "v1", "kind": "Node", "uid": "1"}]),
     'metadata.ownerReferences.name: Invalid value: "": must not be empty'),
    ("event owner", raw_pod, set_in("metadata.ownerReferences", [
        {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}]),
     "metadata.ownerReferences: Invalid value: &OwnerReference{Kind:Event,Name:e,UID:1,"
     "APIVersion:v1,Controller:nil,BlockOwnerDeletion:nil,}: /v1, Kind=Event is disallowed "
     "from being an owner"),
    ("finalizer format", raw_pod, set_in("metadata.finalizers", ["example.com/bad name"]),
     f'metadata.finalizers: Invalid value: "example.com/bad name": {QNAME}'),
    ("finalizer not standard", raw_deployment, set_in("metadata.finalizers", ["cleanup"]),
     'metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard '
     "finalizer name nor is it fully qualified"),
    ("finalizers conflict", raw_pod,
     set_in("metadata.finalizers", ["orphan", "foregroundDeletion"]),
     'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer '
     "orphan and foregroundDeletion cannot be both set"),
]


@pytest.mark.parametrize(("case", "factory", "mutate", "expected"), META_CASES,
                         ids=[c[0] for c in META_CASES])
def test_metadata(case, factory, mutate, expected):
    assert expected in messages(built(factory, mutate))


def test_generate_name_without_name_is_accepted():
    obj = built(raw_pod, lambda o: o["metadata"].update(name="", generateName="web-"))
    assert messages(obj) == []


def test_at_most_one_controller():
    refs = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": n, "uid": n,
             "controller": True} for n in ("a", "b")]
    (err,) = validate(built(raw_pod, set_in("metadata.ownerReferences", refs)))
    assert err.path == "metadata.ownerReferences"
    assert str(err).endswith(
        ': Only one reference can have Controller set to true. Found "true" in references for '
        "ReplicaSet/a and ReplicaSet/b")


# ------------------------------------------------ update: the unchanged shortcut

STORED_META = {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "7",
               "generation": 3, "creationTimestamp": "2026-11-27T03:08:17Z",
               "labels": {"app": "web"}, "annotations": {"a": "b"},
               "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "n1",
                                    "uid": "u-2"}],
               "finalizers": ["example.com/keep"]}


@pytest.mark.parametrize("change, reported", [
    ({"resourceVersion": "8"}, []),
    ({}, []),
    ({"resourceVersion": ""}, ["metadata.resourceVersion: Invalid value: \"\": "
                               "must be specified for an update"]),
    ({"resourceVersion": "8", "name": "other"}, ["metadata.name"]),
    ({"resourceVersion": "8", "uid": "u-9"}, ["metadata.uid"]),
    ({"resourceVersion": "8", "generation": 2}, ["metadata.generation"]),
    ({"resourceVersion": "8", "creationTimestamp": "2026-11-28T03:08:17Z"},
     ["metadata.creationTimestamp"]),
    ({"resourceVersion": "8", "labels": {"bad label!": "x"}}, ["metadata.labels"]),
    ({"resourceVersion": "8", "finalizers": ["no-slash"]}, ["metadata.finalizers[0]"]),
])
def test_an_update_reports_the_same_with_or_without_the_unchanged_shortcut(
        change: dict, reported: list[str]) -> None:
    """Metadata equal to the stored one but for its resourceVersion reports
    nothing without a full check; any other change is checked in full. The
    full path is forced by handing the same metadata in a read-only mapping
    (the shortcut takes plain dicts only)."""
    from types import MappingProxyType

    from minikube_py.api.validation_meta import validate_object_meta_update

    new = {**STORED_META, **change}
    quick = [str(e) for e in validate_object_meta_update(new, dict(STORED_META))]
    full = [str(e) for e in validate_object_meta_update(MappingProxyType(new),
                                                         MappingProxyType(STORED_META))]
    assert quick == full
    assert len(quick) == len(reported)
    for text, start in zip(quick, reported, strict=True):
        assert text.startswith(start), text
