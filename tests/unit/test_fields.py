"""Field selectors: parsing, escapes, matching on Pod/Node/Event-shaped objects,
and the per-kind supported-field check.

Rows come from apimachinery's ``fields/selector_test.go`` and the field sets the
Pod, Node, Event and ReplicaSet registries build; messages are Kubernetes' texts.
"""

from __future__ import annotations

import pytest

from minikube_py.api.errors import BadRequest
from minikube_py.api.fields import (
    FieldRequirement,
    FieldSelector,
    check_supported,
    escape_value,
    parse_field_selector,
)
from minikube_py.api.kinds import by_kind

# ------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "text", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=a||y\\=b", "x=a\\=\\=b"]
)
def test_parse_round_trips(text):
    assert str(parse_field_selector(text)) == text


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("x==a", "x=a"),  # "==" prints back as "="
        ("z=1,a=2", "a=2,z=1"),  # terms are sorted
        ("a=x,x=a", "a=x,x=a"),
        ("x=a,", "x=a"),  # empty terms are skipped
        (",x=a", "x=a"),
        ("k=\\,,k2=v2", "k2=v2,k=\\,"),
        ("k=\\\\,k2=v2", "k2=v2,k=\\\\"),
        ("k=\\\\\\,,k2=v2", "k2=v2,k=\\\\\\,"),
        ("함=수,목=록", "목=록,함=수"),
        ("spec.nodeName=", "spec.nodeName="),
        ("status.phase!=Running", "status.phase!=Running"),
    ],
)
def test_parse_canonical(text, canonical):
    assert str(parse_field_selector(text)) == canonical


def test_parse_is_deterministic():
    assert str(parse_field_selector("x=a,a=x")) == str(parse_field_selector("a=x,x=a"))


@pytest.mark.parametrize(
    ("text", "requirements"),
    [
        ("a=value", (FieldRequirement("a", "=", "value"),)),
        ("b==value", (FieldRequirement("b", "==", "value"),)),
        ("c!=value", (FieldRequirement("c", "!=", "value"),)),
        ("k=\\,", (FieldRequirement("k", "=", ","),)),
        ("k=\\=", (FieldRequirement("k", "=", "="),)),
        ("k=\\\\", (FieldRequirement("k", "=", "\\"),)),
        ("k=\\\\\\=\\,", (FieldRequirement("k", "=", "\\=,"),)),
        ("함=수", (FieldRequirement("함", "=", "수"),)),
        ("a!b=c", (FieldRequirement("a!b", "=", "c"),)),
        ("x=", (FieldRequirement("x", "=", ""),)),
    ],
)
def test_parse_requirements(text, requirements):
    assert parse_field_selector(text).requirements == requirements


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x", "invalid selector: 'x'; can't understand 'x'"),
        ("x=a,b", "invalid selector: 'x=a,b'; can't understand 'b'"),
        ("x in (a)", "invalid selector: 'x in (a)'; can't understand 'x in (a)'"),
        # Terms are sorted before they are read, so "b" is the first bad one.
        ("x in (a,b,c)", "invalid selector: 'x in (a,b,c)'; can't understand 'b'"),
        ("x=a||y=b", "invalid field selector: unescaped character in value: 61"),
        ("x==a==b", "invalid field selector: unescaped character in value: 61"),
        ("k=\\", "invalid field selector: invalid escape sequence: \\"),
        ("k=\\\\\\", "invalid field selector: invalid escape sequence: \\"),
        ("k=\\a", "invalid field selector: invalid escape sequence: \\a"),
        ("k=\\a\\b\\", "invalid field selector: invalid escape sequence: \\a"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(BadRequest) as info:
        parse_field_selector(text)
    assert info.value.message == message
    assert info.value.to_status()["code"] == 400


@pytest.mark.parametrize(
    ("value", "escaped"),
    [("", ""), ("a", "a"), ("=", "\\="), (",", "\\,"), ("\\", "\\\\"),
     ("\\=\\,\\", "\\\\\\=\\\\\\,\\\\")],
)
def test_escape_round_trip(value, escaped):
    assert escape_value(value) == escaped
    assert parse_field_selector(f"k={escaped}").requirements[0].value == value


def test_empty_selector():
    sel = parse_field_selector("")
    assert sel.empty()
    assert sel == FieldSelector()
    assert sel.matches({})
    assert not parse_field_selector("a=b").empty()


# ------------------------------------------------------------------ matching

PLAIN = {"foo": "bar", "baz": "blah", "complex": "=value\\,\\"}


@pytest.mark.parametrize(
    ("text", "obj", "expected"),
    [
        ("", {"x": "y"}, True),
        ("x=y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("foo=bar", PLAIN, True),
        ("baz=blah", PLAIN, True),
        ("foo=bar,baz=blah", PLAIN, True),
        ("foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\", PLAIN, True),
        ("foo=blah", PLAIN, False),
        ("baz=bar", PLAIN, False),
        ("foo=bar,foobar=bar,baz=blah", PLAIN, False),
        ("missing=", PLAIN, True),  # a missing field is ""
        ("missing!=", PLAIN, False),
    ],
)
def test_matches_plain(text, obj, expected):
    assert parse_field_selector(text).matches(obj) is expected


POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-1", "namespace": "default"},
    "spec": {
        "nodeName": "node-a",
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "hostNetwork": False,
    },
    "status": {"phase": "Running", "podIP": "10.0.0.5", "podIPs": [{"ip": "10.0.0.5"}]},
}
PENDING_POD = {
    "kind": "Pod",
    "metadata": {"name": "web-2", "namespace": "default"},
    "spec": {"hostNetwork": True},
    "status": {"phase": "Pending", "podIPs": [{"ip": "10.0.0.9"}]},
}
NODE = {
    "kind": "Node",
    "metadata": {"name": "node-a"},
    "spec": {"unschedulable": True},
}
READY_NODE = {"kind": "Node", "metadata": {"name": "node-b"}, "spec": {}}
EVENT = {
    "kind": "Event",
    "metadata": {"name": "web-1.17a", "namespace": "default"},
    "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "default", "uid": "u-1",
                       "apiVersion": "v1", "fieldPath": "spec.containers{web}"},
    "reason": "Scheduled",
    "type": "Normal",
    "source": {"component": "default-scheduler"},
}
NEW_EVENT = {
    "kind": "Event",
    "metadata": {"name": "web-1.17b", "namespace": "default"},
    "reason": "Pulled",
    "type": "Normal",
    "reportingComponent": "kubelet",
}
REPLICA_SET = {"kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
               "status": {"replicas": 3}}


@pytest.mark.parametrize(
    ("text", "obj", "expected"),
    [
        ("metadata.name=web-1", POD, True),
        ("metadata.namespace=default", POD, True),
        ("metadata.namespace=kube-system", POD, False),
        ("spec.nodeName=node-a", POD, True),
        ("spec.nodeName=", POD, False),
        ("spec.nodeName=", PENDING_POD, True),  # unscheduled: missing is ""
        ("spec.nodeName!=", PENDING_POD, False),
        ("status.phase=Running,spec.restartPolicy=Always", POD, True),
        ("status.phase!=Running", PENDING_POD, True),
        ("spec.hostNetwork=false", POD, True),  # bools are "true"/"false"
        ("spec.hostNetwork=true", PENDING_POD, True),
        ("spec.hostNetwork=False", POD, False),
        ("status.podIP=10.0.0.5", POD, True),
        ("status.podIP=10.0.0.9", PENDING_POD, True),  # falls back to podIPs[0]
        ("spec.schedulerName=default-scheduler", POD, True),
        ("spec.serviceAccountName=default", POD, True),
        ("status.nominatedNodeName=", POD, True),
        ("spec.unschedulable=true", NODE, True),
        ("spec.unschedulable=false", NODE, False),
        ("spec.unschedulable=", READY_NODE, True),
        ("metadata.namespace=", NODE, True),  # cluster-scoped: no namespace
        ("metadata.name=node-a", NODE, True),
        ("involvedObject.kind=Pod,involvedObject.name=web-1", EVENT, True),
        ("involvedObject.uid=u-1", EVENT, True),
        ("involvedObject.fieldPath=spec.containers{web}", EVENT, True),
        ("involvedObject.resourceVersion=", EVENT, True),
        ("source=default-scheduler", EVENT, True),  # source means source.component
        ("source=kubelet", NEW_EVENT, True),  # ... or reportingComponent
        ("reportingComponent=kubelet", NEW_EVENT, True),
        ("reportingComponent=", EVENT, True),
        ("type=Normal,reason=Scheduled", EVENT, True),
        ("type=Warning", EVENT, False),
        ("status.replicas=3", REPLICA_SET, True),  # ints are decimal strings
        ("status.replicas!=0", REPLICA_SET, True),
    ],
)
def test_matches_objects(text, obj, expected):
    assert parse_field_selector(text).matches(obj) is expected


# ------------------------------------------------------------ supported fields


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("Pod", "metadata.name=a,metadata.namespace=b"),
        ("Pod", "spec.nodeName=n,status.phase=Running,status.podIP=1.2.3.4"),
        ("Pod", "spec.restartPolicy=Never,spec.schedulerName=s,spec.serviceAccountName=sa"),
        ("Pod", "spec.hostNetwork=true,status.nominatedNodeName=n"),
        ("Node", "metadata.name=a,spec.unschedulable=true"),
        ("Namespace", "status.phase=Active"),
        ("Event", "involvedObject.kind=Pod,involvedObject.uid=u,reason=r,source=s,type=Normal"),
        ("Event", "involvedObject.apiVersion=v1,involvedObject.resourceVersion=1,"
                  "involvedObject.fieldPath=f,involvedObject.namespace=n,"
                  "involvedObject.name=n,reportingComponent=c"),
        ("ReplicaSet", "status.replicas=1"),
        ("Deployment", "metadata.name=web"),
        ("Deployment", ""),
    ],
)
def test_check_supported_accepts(kind, text):
    check_supported(parse_field_selector(text), by_kind(kind))


@pytest.mark.parametrize(
    ("kind", "text", "field"),
    [
        ("Pod", "spec.containers=web", "spec.containers"),
        ("Pod", "metadata.labels=x", "metadata.labels"),
        ("Node", "spec.nodeName=x", "spec.nodeName"),
        ("Node", "status.phase=Ready", "status.phase"),
        ("Namespace", "spec.finalizers=x", "spec.finalizers"),
        ("Event", "message=x", "message"),
        ("ReplicaSet", "spec.replicas=1", "spec.replicas"),
        ("Deployment", "status.replicas=1", "status.replicas"),
        ("Deployment", "metadata.name=a,foo=bar", "foo"),
    ],
)
def test_check_supported_rejects(kind, text, field):
    with pytest.raises(BadRequest) as info:
        check_supported(parse_field_selector(text), by_kind(kind))
    assert info.value.message == f"field label not supported: {field}"
    assert info.value.to_status()["reason"] == "BadRequest"


# ------------------------------------------------------ the store's extractor

JOB = {"kind": "Job", "metadata": {"name": "j", "namespace": "default"},
       "status": {"succeeded": 2}}
ODD = {  # non-mappings along a path, numbers, floats and null in the leaves
    "metadata": {"name": "odd", "namespace": ["not", "a", "string"]},
    "spec": "a string where a mapping belongs",
    "status": {"phase": None, "podIP": 7, "replicas": 2.0, "podIPs": "x"},
    "involvedObject": {"kind": True, "name": 1.5, "uid": {"nested": 1}},
    "source": None, "reason": 0, "type": False,
}


@pytest.mark.parametrize("obj", [POD, PENDING_POD, NODE, READY_NODE, EVENT, NEW_EVENT,
                                 REPLICA_SET, JOB, ODD, {}],
                         ids=["pod", "pending-pod", "node", "ready-node", "event",
                              "new-event", "replicaset", "job", "odd", "empty"])
def test_field_extractor_gives_field_value_for_every_kind(obj):
    """The store's compiled extractor is field_value, label by label, for
    every served kind (derived fields included) and any object shape."""
    from minikube_py.api.fields import field_extractor, field_value
    from minikube_py.api.kinds import KINDS

    for info in KINDS:
        labels = ("metadata.name", "metadata.namespace", *info.field_labels)
        expected = [field_value(obj, label, info.kind) for label in labels]
        assert field_extractor(info.kind, labels)(obj) == expected, info.kind
