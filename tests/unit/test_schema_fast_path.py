"""The decoder's fast path (``schema._fast``) is an optimisation only.

Contract: for any input, either the fast path gives up (``_Slow``) or the full
decoder would report nothing (no type error, unknown field or invalid value)
and returns an equal object, with the same JSON types. Inputs are generated
from each kind's own schema, mostly well-formed, sometimes with a ``null``, an
unknown field, a wrong type or a bad quantity/time/base64 value.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minikube_py.api import kinds, schema
from minikube_py.api.schema import _Decoder, _fast, _Slow
from minikube_py.api.schema_model import (
    ANY,
    BOOLEAN,
    FREE_FORM,
    INT_OR_STRING,
    INTEGER,
    LIST,
    MAP,
    NUMBER,
    OBJECT,
    QUANTITY,
    STRING,
    TIME,
    Schema,
)

ROOTS = sorted({info.kind: kinds.resource_of(info).schema for info in kinds.KINDS}.items())

ODD = st.sampled_from([None, True, 1, -1, 2**70, 1.5, "", "x", "1Gi", "bogus!", [], {},
                       {"a": 1}, ["a"], "2024-01-01T00:00:00Z", "not-a-time", "aGVsbG8=",
                       "%%%"])
SCALARS = {
    STRING: st.sampled_from(["", "a", "web", "aGVsbG8=", "é"]),
    BOOLEAN: st.booleans(),
    INTEGER: st.integers(-(2**31), 2**31 - 1),
    NUMBER: st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False),
    INT_OR_STRING: st.integers(0, 65535) | st.sampled_from(["http", "25%"]),
    TIME: st.sampled_from(["2024-01-01T00:00:00Z", "2026-11-27T03:08:17.305044Z"]),
    QUANTITY: st.sampled_from(["100m", "1Gi", "0.5", 2, 1.5, "1e3"]),
}


def values(draw: st.DrawFn, node: Schema, depth: int) -> Any:
    """A value for ``node``: well-typed most of the time."""
    if draw(st.integers(0, 24)) == 0:
        return draw(ODD)
    kind = node.type
    if kind == OBJECT:
        assert node.fields is not None
        names = sorted(node.fields)
        if depth > 4 or not names:
            return {}
        chosen = draw(st.lists(st.sampled_from(names), max_size=4, unique=True))
        out = {name: values(draw, node.fields[name], depth + 1) for name in chosen}
        if draw(st.integers(0, 30)) == 0:
            out["unknownField"] = 1
        return out
    if kind in (LIST, MAP):
        assert node.items is not None
        count = 0 if depth > 4 else draw(st.integers(0, 2))
        items = [values(draw, node.items, depth + 1) for _ in range(count)]
        return items if kind == LIST else {f"k{i}": v for i, v in enumerate(items)}
    if kind in (FREE_FORM, ANY):
        return draw(st.sampled_from([{}, {"a": [1, {"b": None}]}, {"x": "y"}]))
    return draw(SCALARS[kind])


@st.composite
def objects(draw: st.DrawFn) -> tuple[Schema, dict[str, Any]]:
    kind, root = draw(st.sampled_from(ROOTS))
    obj = values(draw, root, 0)
    return root, obj if isinstance(obj, dict) else {"kind": kind}


def typed(value: Any) -> str:
    """JSON text that tells 1 from 1.0 from true (``==`` does not)."""
    return json.dumps(value, sort_keys=True)


@settings(max_examples=400, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(objects())
def test_the_fast_path_agrees_with_the_full_decoder_or_gives_up(case: tuple[Schema, dict]
                                                                ) -> None:
    root, obj = case
    original = copy.deepcopy(obj)
    full = _Decoder()
    slow = full._object(root, obj, "")
    try:
        fast = _fast(root, obj)
    except _Slow:
        return
    assert (full.type_errors, full.unknown, full.field_errors) == ([], [], [])
    assert typed(fast) == typed(slow)
    assert obj == original


@pytest.mark.parametrize("bad, path", [
    ({"spec": {"containers": [{"name": "c", "image": "i", "bogus": 1}]}}, "unknown"),
    ({"spec": {"containers": [None]}}, "null list item"),
    ({"metadata": {"labels": {"a": None}}}, "null map value"),
    ({"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "x"}}}]}},
     "quantity"),
    ({"spec": {"activeDeadlineSeconds": True}}, "type"),
    ({"spec": {"priority": 2**40}}, "int32 range"),
    ({"metadata": {"creationTimestamp": "yesterday"}}, "time"),
])
def test_the_fast_path_gives_up_on_what_the_decoder_reports(bad: dict, path: str) -> None:
    with pytest.raises(_Slow):
        _fast(schema.field_schema("Pod"), {"apiVersion": "v1", "kind": "Pod", **bad})


def test_a_null_object_field_is_dropped_as_the_decoder_drops_it() -> None:
    """Go leaves a ``null`` field unset; the kubelet's conditions carry
    ``"lastProbeTime": null``, so its status writes must not need the full walk."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "uid": None},
           "status": {"conditions": [{"type": "Ready", "status": "True",
                                      "lastProbeTime": None}]}}
    full = _Decoder()
    slow = full._object(schema.field_schema("Pod"), pod, "")
    fast = _fast(schema.field_schema("Pod"), pod)
    assert fast == slow == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    assert pod["status"]["conditions"][0]["lastProbeTime"] is None  # the input is kept


def test_a_kubelet_shaped_pod_takes_the_fast_path() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                             "name": "web-1", "uid": "u", "controller": True}]},
           "spec": {"nodeName": "n1", "containers": [
               {"name": "c", "image": "busybox:1.36", "ports": [{"containerPort": 80}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
           "status": {"phase": "Running", "conditions": [
               {"type": "Ready", "status": "True",
                "lastTransitionTime": "2026-11-27T03:08:17Z"}]}}
    assert _fast(schema.field_schema("Pod"), pod) == pod
    assert schema.decode(pod) == pod


SCALAR_KINDS = [STRING, BOOLEAN, INTEGER, NUMBER, INT_OR_STRING, TIME, QUANTITY, FREE_FORM,
                ANY]
PROBES = [True, False, 0, 1, -1, 2**31, 2**63, 2**70, 1.5, -0.0, "", "x", "1Gi", "100m",
          "bogus!", "aGVsbG8=", "aGVsbG8", "2024-01-01T00:00:00Z", "not-a-time", [], [1],
          {}, {"a": None}]


@pytest.mark.parametrize("kind", SCALAR_KINDS)
@pytest.mark.parametrize("fmt", ["", "int32", "byte"])
def test_each_leaf_type_accepts_exactly_what_the_decoder_does(kind: str, fmt: str) -> None:
    node = Schema(kind, fmt=fmt)
    for value in PROBES:
        full = _Decoder()
        slow = full.value(node, value, "f")
        clean = (full.type_errors, full.field_errors) == ([], [])
        try:
            fast = _fast(node, value)
        except _Slow:
            # Giving up is always allowed; it must happen for every reported value.
            continue
        assert clean, f"{kind}/{fmt}: the fast path took {value!r}, which the decoder reports"
        assert typed(fast) == typed(slow), f"{kind}/{fmt}: {value!r}"
