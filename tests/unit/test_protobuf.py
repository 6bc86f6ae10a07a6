"""Decoding Kubernetes protobuf request bodies (``minikube_py.api.protobuf``).

Bodies are built with a tiny encoder written here, shaped the way go-protobuf
(gogo) writes Kubernetes objects: non-pointer scalars are written even when
zero, pointers and lists only when set, non-pointer structs always (an empty
``Time`` as an empty message).
"""

from __future__ import annotations

import json
import struct
from datetime import UTC, datetime
from typing import Any

import pytest

from minikube_py.api import errors
from minikube_py.api.proto_schema import MESSAGES, ROOTS, SPECIAL
from minikube_py.api.protobuf import MAGIC, PROTOBUF, decode_k8s_protobuf
from minikube_py.apiserver.negotiation import body_type

# ------------------------------------------------------------------ encoder


def varint(n: int) -> bytes:
    n &= 0xFFFFFFFFFFFFFFFF  # negative ints: ten-byte two's complement, as Go writes them
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def vi(number: int, value: int) -> bytes:
    """A varint field (int32, int64, bool)."""
    return tag(number, 0) + varint(value)


def ld(number: int, payload: bytes) -> bytes:
    """A length-delimited field (string, bytes, message)."""
    return tag(number, 2) + varint(len(payload)) + payload


def s(number: int, text: str) -> bytes:
    return ld(number, text.encode())


def m(number: int, *parts: bytes) -> bytes:
    return ld(number, b"".join(parts))


def entry(number: int, key: str, value: bytes) -> bytes:
    """One map entry; ``value`` is the already-encoded value field (number 2)."""
    return m(number, s(1, key), value)


def labels(number: int, mapping: dict[str, str]) -> bytes:
    return b"".join(entry(number, k, s(2, v)) for k, v in mapping.items())


def quantity(number: int, text: str) -> bytes:
    return m(number, s(1, text))


def int_or_string(number: int, value: int | str) -> bytes:
    if isinstance(value, int):
        return m(number, vi(1, 0), vi(2, value), s(3, ""))
    return m(number, vi(1, 1), vi(2, 0), s(3, value))


def envelope(api_version: str, kind: str, raw: bytes, *extra: bytes) -> bytes:
    unknown = m(1, s(1, api_version), s(2, kind)) + ld(2, raw) + s(3, "") + s(4, "")
    return MAGIC + unknown + b"".join(extra)


def object_meta(name: str, *extra: bytes, namespace: str = "") -> bytes:
    """ObjectMeta as gogo writes it: every plain scalar, zero or not, and the
    (zero) creationTimestamp as an empty message."""
    return m(1, s(1, name), s(2, ""), s(3, namespace), s(4, ""), s(5, ""), s(6, ""),
             vi(7, 0), m(8), *extra)


def seconds(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


# -------------------------------------------------------------------- cases

NAMESPACE = envelope("v1", "Namespace", object_meta(
    "pb-ns", labels(11, {"team": "a", "tier": "b"})) + m(2) + m(3, s(1, "")))

CONTAINER = m(
    2, s(1, "web"), s(2, "localhost/minikube-py/busybox:1.35"), s(5, ""),
    m(6, s(1, ""), vi(2, 0), vi(3, 8080), s(4, "TCP"), s(5, "")),
    m(8, entry(1, "cpu", quantity(2, "500m")), entry(1, "memory", quantity(2, "64Mi")),
      entry(2, "cpu", quantity(2, "0.25"))),
    s(13, "/dev/termination-log"), s(14, "IfNotPresent"),
    vi(16, 0), vi(17, 0), vi(18, 0), s(20, "File"),
)

DEPLOYMENT = envelope("apps/v1", "Deployment", object_meta(
    "web", labels(11, {"app": "web"}), namespace="default") + m(
    2,
    vi(1, 2),
    m(2, labels(1, {"app": "web"})),
    m(3, m(1, s(1, ""), labels(11, {"app": "web"}), m(8)),
      m(2, CONTAINER, s(3, "Always"), vi(4, 30), s(6, "ClusterFirst"),
        s(8, ""), s(9, ""), s(10, ""), vi(11, 0), vi(12, 0), vi(13, 0),
        m(14), s(19, "default-scheduler"))),
    m(4, s(1, "RollingUpdate"), m(2, int_or_string(1, "25%"), int_or_string(2, 1))),
    vi(5, 0), vi(6, 0), vi(7, 0), vi(9, 600),
) + m(3, vi(1, 0), vi(2, 0), vi(3, 0), vi(4, 0), vi(5, 0), vi(7, 0)))

CONTAINER_JSON = {
    "name": "web",
    "image": "localhost/minikube-py/busybox:1.35",
    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
    "resources": {"limits": {"cpu": "500m", "memory": "64Mi"}, "requests": {"cpu": "250m"}},
    "terminationMessagePath": "/dev/termination-log",
    "imagePullPolicy": "IfNotPresent",
    "terminationMessagePolicy": "File",
}

PRIORITY_CLASS = envelope("scheduling.k8s.io/v1", "PriorityClass", object_meta(
    "high") + vi(2, 1000) + vi(3, 1) + s(4, "x") + s(5, "PreemptLowerPriority"))

PRIORITY_CLASS_ZERO = envelope("scheduling.k8s.io/v1", "PriorityClass", object_meta(
    "zero") + vi(2, 0) + vi(3, 0) + s(4, ""))

POD = envelope("v1", "Pod", m(
    1, s(1, "p"), s(3, "default"),
    m(8, vi(1, seconds("2026-01-02T03:04:05")), vi(2, 987)),  # nanos are dropped
    m(13, s(5, "apps/v1"), s(1, "ReplicaSet"), s(3, "rs"), s(4, "uid-1"), vi(6, 1)),
    m(17, s(1, "kubectl"), s(2, "Update"), s(3, "v1"),
      m(4, vi(1, seconds("2026-01-02T03:04:05"))), s(6, "FieldsV1"),
      m(7, ld(1, b'{"f:metadata":{"f:labels":{}}}')), s(8, "")),
) + m(
    2,
    m(1, s(1, "scratch"), m(2, m(2, s(1, "Memory"), quantity(2, "1Gi")))),
    m(2, s(1, "c"), s(2, "busybox"),
      m(10, m(1, m(2, s(1, "/healthz"), int_or_string(2, "http"), s(4, "HTTP"))),
        vi(2, 3), vi(3, 0)),
      m(15, vi(2, 0), vi(4, -1)),
      m(9, s(1, "scratch"), vi(2, 0), s(3, "/tmp"))),
    vi(4, 0),
    vi(21, 0),
    m(14, vi(4, 1000), vi(4, 2000), ld(4, varint(3000) + varint(4000))),
))

EVENT = envelope("v1", "Event", object_meta("e", namespace="default") + m(
    2, s(1, "Pod"), s(3, "p")) + s(3, "Started") + m(5) + m(6) + m(7) + vi(8, 0) + m(
    10, vi(1, seconds("2026-01-02T03:04:05")), vi(2, 123456789)) + s(14, "") + s(15, ""))


CASES: list[tuple[str, bytes, dict[str, Any]]] = [
    ("namespace with labels", NAMESPACE, {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "pb-ns", "labels": {"team": "a", "tier": "b"}},
        "spec": {}, "status": {},
    }),
    ("deployment", DEPLOYMENT, {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [CONTAINER_JSON],
                    "restartPolicy": "Always",
                    "terminationGracePeriodSeconds": 30,
                    "dnsPolicy": "ClusterFirst",
                    "securityContext": {},
                    "schedulerName": "default-scheduler",
                },
            },
            "strategy": {"type": "RollingUpdate",
                         "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}},
            "revisionHistoryLimit": 0,  # a pointer: an explicit zero is kept
            "progressDeadlineSeconds": 600,
        },
        "status": {},
    }),
    ("priority class", PRIORITY_CLASS, {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "high"}, "value": 1000, "globalDefault": True,
        "description": "x", "preemptionPolicy": "PreemptLowerPriority",
    }),
    ("priority class with zero values", PRIORITY_CLASS_ZERO, {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "zero"}, "value": 0,  # `json:"value"`: no omitempty
    }),
    ("pod", POD, {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "p", "namespace": "default",
            "creationTimestamp": "2026-01-02T03:04:05Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                 "name": "rs", "uid": "uid-1", "controller": True}],
            "managedFields": [{
                "manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                "time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {}}},
            }],
        },
        "spec": {
            "volumes": [{"name": "scratch", "emptyDir": {"medium": "Memory",
                                                         "sizeLimit": "1Gi"}}],
            "containers": [{
                "name": "c", "image": "busybox",
                "volumeMounts": [{"name": "scratch", "mountPath": "/tmp"}],
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http",
                                              "scheme": "HTTP"},
                                  "initialDelaySeconds": 3},
                "securityContext": {"privileged": False, "runAsUser": -1},
            }],
            "terminationGracePeriodSeconds": 0,
            "securityContext": {"supplementalGroups": [1000, 2000, 3000, 4000]},
            "automountServiceAccountToken": False,
        },
    }),
    ("event with micro time", EVENT, {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "e", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p"},
        "reason": "Started", "source": {},
        "eventTime": "2026-01-02T03:04:05.123456Z",
        "reportingComponent": "", "reportingInstance": "",
    }),
]


@pytest.mark.parametrize(("body", "expected"), [(c[1], c[2]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_decode(body: bytes, expected: dict[str, Any]) -> None:
    assert decode_k8s_protobuf(body) == expected


@pytest.mark.parametrize("api_version", ["v1", "apps/v1", "meta.k8s.io/v1"])
def test_delete_options_in_the_deleting_clients_version(api_version: str) -> None:
    body = envelope(api_version, "DeleteOptions",
                    vi(1, 0) + m(2, s(1, "uid-1")) + s(4, "Foreground") + s(5, "All"))
    assert decode_k8s_protobuf(body) == {
        "apiVersion": api_version, "kind": "DeleteOptions",
        "gracePeriodSeconds": 0,  # a pointer: zero means "now", not "default"
        "preconditions": {"uid": "uid-1"},
        "propagationPolicy": "Foreground", "dryRun": ["All"],
    }


def test_decoded_key_order_follows_the_go_struct() -> None:
    obj = decode_k8s_protobuf(DEPLOYMENT)
    assert list(obj) == ["apiVersion", "kind", "metadata", "spec", "status"]
    container = obj["spec"]["template"]["spec"]["containers"][0]
    assert list(container)[:3] == ["name", "image", "ports"]


def test_repeated_fields_accumulate_and_singular_ones_take_the_last() -> None:
    body = envelope("v1", "Namespace", object_meta(
        "a", s(14, "one"), s(14, "two")) + m(1, s(1, "b")) + m(2, s(1, "x")))
    obj = decode_k8s_protobuf(body)
    # A repeated singular message is merged: name "b" overrides "a", lists append.
    assert obj["metadata"] == {"name": "b", "finalizers": ["one", "two"]}
    assert obj["spec"] == {"finalizers": ["x"]}


def test_map_entry_without_a_value_gets_the_zero_value() -> None:
    body = envelope("v1", "Namespace", m(1, m(11, s(1, "empty"))))
    assert decode_k8s_protobuf(body)["metadata"] == {"labels": {"empty": ""}}


def test_zero_time_is_omitted() -> None:
    go_zero = -62135596800
    body = envelope("v1", "Namespace", m(1, s(1, "n"), m(8, vi(1, go_zero)), m(9)))
    assert decode_k8s_protobuf(body)["metadata"] == {"name": "n"}


def test_epoch_time_is_not_zero() -> None:
    body = envelope("v1", "Namespace", m(1, m(8, vi(1, 0))))
    assert decode_k8s_protobuf(body)["metadata"] == {
        "creationTimestamp": "1970-01-01T00:00:00Z"}


def test_empty_quantity_is_zero() -> None:
    body = envelope("v1", "Pod", m(2, m(1, s(1, "v"), m(2, m(2, m(2)))),
                                   m(2, s(1, "c"), s(2, "e"))))
    spec = decode_k8s_protobuf(body)["spec"]
    assert spec["volumes"] == [{"name": "v", "emptyDir": {"sizeLimit": "0"}}]
    assert spec["containers"] == [{"name": "c", "image": "e"}]


def test_extra_values_decode_as_plain_string_lists() -> None:
    """A user's ``extra`` values are a Go ``[]string`` (``ExtraValue``) that the
    proto wraps in a message of ``items``; JSON has the bare array."""
    user = s(1, "alice") + entry(4, "scopes", m(2, s(1, "read"), s(1, "write"))) + \
        entry(4, "none", m(2))
    body = envelope("authentication.k8s.io/v1", "TokenReview",
                    m(2, s(1, "t")) + m(3, vi(1, 1), m(2, user)))
    assert decode_k8s_protobuf(body)["status"] == {
        "authenticated": True,
        "user": {"username": "alice", "extra": {"scopes": ["read", "write"], "none": []}}}


def test_fixed_width_fields_are_rejected_where_a_varint_is_expected() -> None:
    body = envelope("v1", "Pod", m(2, tag(4, 1) + struct.pack("<q", 5)))
    with pytest.raises(errors.BadRequest, match="wire type 1, expected 0"):
        decode_k8s_protobuf(body)


# ------------------------------------------------------------------- refusals

REFUSALS: list[tuple[str, bytes, str]] = [
    ("no magic", b"\x0a\x00", "invalid protobuf body: the body does not start with"),
    ("json", b'{"kind": "Namespace"}', "invalid protobuf body"),
    ("truncated varint", MAGIC + b"\x08\xff", "invalid protobuf body: truncated varint"),
    ("overlong length", MAGIC + b"\x12\x05ab", "invalid protobuf body: field 2 in "
                                               "runtime.Unknown is longer than its message"),
    ("group wire type", MAGIC + b"\x0b", "invalid protobuf body: unsupported wire type 3"),
    ("list", envelope("v1", "List", b""), "List is not accepted as a protobuf request body"),
    ("pod list", envelope("v1", "PodList", m(1)), "PodList is not accepted"),
    ("unknown kind", envelope("v1", "ResourceQuota", m(1, s(1, "s"))),
     'no kind "ResourceQuota" is registered for version "v1"'),
    ("wrong version", envelope("apps/v1beta1", "Deployment", b""),
     'no kind "Deployment" is registered for version "apps/v1beta1"'),
    ("missing kind", envelope("v1", "", b""), "Object 'Kind' is missing"),
    ("content encoding", MAGIC + m(1, s(1, "v1"), s(2, "Namespace")) + s(3, "gzip"),
     "content encoding 'gzip' are not supported"),
    ("unknown envelope field", MAGIC + vi(9, 1),
     "protobuf field number 9 of message runtime.Unknown is not known"),
    ("unknown object field", envelope("v1", "Pod", m(2, vi(99, 1))),
     "protobuf field number 99 of message PodSpec (at spec) is not known to this server"),
    ("unknown nested field", envelope("apps/v1", "Deployment", m(2, m(3, m(2, m(
        2, s(1, "c"), vi(77, 1)))))),
     "field number 77 of message Container (at spec.template.spec.containers[0])"),
    ("invalid utf-8", envelope("v1", "Namespace", m(1, ld(1, b"\xff\xfe"))),
     "invalid protobuf body: field 1 of ObjectMeta (at metadata.name) is not valid UTF-8"),
    ("bad quantity", envelope("v1", "Pod", m(2, m(2, s(1, "c"), m(
        8, entry(1, "cpu", quantity(2, "lots")))))),
     "invalid protobuf body: quantity 'lots' at spec.containers[0].resources.limits[cpu]"),
    ("bad int-or-string", envelope("apps/v1", "Deployment", m(2, m(4, m(2, m(
        1, vi(1, 7)))))), "IntOrString at spec.strategy.rollingUpdate.maxUnavailable has "
                          "unknown type 7"),
    ("fields not json", envelope("v1", "Pod", m(1, m(17, m(7, ld(1, b"{nope"))))),
     "FieldsV1 at metadata.managedFields[0].fieldsV1 does not hold JSON"),
    ("time out of range", envelope("v1", "Pod", m(1, m(8, vi(1, 10**15)))),
     "time at metadata.creationTimestamp is out of range"),
]


@pytest.mark.parametrize(("body", "message"), [(c[1], c[2]) for c in REFUSALS],
                         ids=[c[0] for c in REFUSALS])
def test_refused(body: bytes, message: str) -> None:
    with pytest.raises(errors.BadRequest) as exc:
        decode_k8s_protobuf(body)
    assert exc.value.code == 400
    assert message in exc.value.message


# ------------------------------------------------------------------- plumbing


def test_body_type_accepts_protobuf() -> None:
    assert body_type(PROTOBUF, patch=False) == "protobuf"
    assert body_type(f"{PROTOBUF}; charset=utf-8", patch=False) == "protobuf"
    with pytest.raises(errors.UnsupportedMediaType):
        body_type(PROTOBUF, patch=True)


def test_schema_table_is_consistent() -> None:
    for (_, _), root in ROOTS.items():
        assert root in MESSAGES
    for name, fields in MESSAGES.items():
        json_names = [f[0] for f in fields.values() if f[3] != "inline"]
        assert len(json_names) == len(set(json_names)), name
        for number, (json_name, label, type_name, flags) in fields.items():
            assert number > 0
            assert label in ("opt", "rep", "map")
            assert flags in ("", "keep", "inline")
            assert (type_name in MESSAGES or type_name in SPECIAL or type_name in
                    {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64",
                     "double", "float"}), (name, number)
            assert (json_name == "") == (flags == "inline"), (name, number)


def test_object_meta_field_numbers() -> None:
    meta = MESSAGES["ObjectMeta"]
    assert [meta[n][0] for n in (1, 2, 3, 8, 11, 12, 13, 14, 17)] == [
        "name", "generateName", "namespace", "creationTimestamp", "labels", "annotations",
        "ownerReferences", "finalizers", "managedFields"]
    assert meta[8][2] == "Time"


def test_decoded_objects_are_json_serializable() -> None:
    for _, body, _ in CASES:
        json.dumps(decode_k8s_protobuf(body))
