"""The shared decoder (store/shared_json.py) and the non-aliasing copy (api/jsoncopy.py)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from minikube_py.api import jsontext
from minikube_py.api.jsoncopy import deep_copy
from minikube_py.store.shared_json import INTERN_MAX, SharedDecoder


def ids(value: Any) -> list[int]:
    """The ids of every dict and list in ``value``, repeats included."""
    out: list[int] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            out.append(id(v))
            stack.extend(v.values())
        elif isinstance(v, list):
            out.append(id(v))
            stack.extend(v)
    return out


# ------------------------------------------------------------------ equal to json.loads


@pytest.mark.parametrize("raw", [
    "{}",
    '{"a":1,"b":[1,"x",{"c":null}],"d":{"e":true,"f":1.5,"g":"' + "y" * 65 + '"}}',
    '{"dup":1,"dup":2}',
    '{"s":"caf\\u00e9 \\ud83d\\ude00","n":-0.0,'
    '"i64":-9223372036854775808,"u64":18446744073709551615}',
    '{"m":[[1,[2,[]]],[],[[]],{}]}',
    '{"z":1,"a":2,"m":3}',  # key order kept
])
def test_decode_equals_json_loads(raw: str) -> None:
    got = SharedDecoder(min_size=0).decode(raw)
    assert got == json.loads(raw)
    assert repr(got) == repr(json.loads(raw))


def test_an_integer_the_store_would_refuse_reads_as_jsontext_reads_it() -> None:
    # Beyond 64 bits: jsontext.dumps refuses it, so no stored text holds one;
    # read anyway, it comes back as jsontext.loads gives it (orjson: a float).
    raw = '{"big":123456789012345678901234567890}'
    with pytest.raises(TypeError):
        jsontext.dumps(json.loads(raw))
    assert SharedDecoder(min_size=0).decode(raw) == jsontext.loads(raw)


# Parts that Python calls equal but JSON does not: never merged.
@pytest.mark.parametrize("first,second", [
    ('{"v":true}', '{"v":1}'),
    ('{"v":1}', '{"v":1.0}'),
    ('{"v":false}', '{"v":0}'),
    ('{"v":0}', '{"v":-0.0}'),
    ('{"v":null}', '{"v":"null"}'),
    ('{"v":"1"}', '{"v":1}'),
    ('{"[":"a"}', '["a"]'),  # an object whose key is "[" against a one-item array
    ('{"v":[1]}', '{"v":[true]}'),
    ('{"a":"b"}', '{"b":"a"}'),
    ('{"a":{}}', '{"a":[]}'),
])
def test_parts_python_calls_equal_are_not_merged(first: str, second: str) -> None:
    decoder = SharedDecoder(min_size=0)
    a = decoder.decode('{"x":' + first + "}")
    b = decoder.decode('{"x":' + second + "}")
    assert repr(a) == repr(json.loads('{"x":' + first + "}"))
    assert repr(b) == repr(json.loads('{"x":' + second + "}"))
    assert a["x"] is not b["x"]


def test_equal_parts_of_different_objects_are_one_object() -> None:
    decoder = SharedDecoder(min_size=0)
    template = {"kind": "Pod", "spec": {
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
        "securityContext": {}, "containers": [{"name": "c", "args": ["a", ["b"]]}]}}
    a = decoder.decode(json.dumps({**template, "metadata": {"name": "a"}}))
    b = decoder.decode(json.dumps({**template, "metadata": {"name": "b"}}))
    assert a["spec"] is b["spec"]
    assert a["spec"]["containers"][0]["args"][1] is b["spec"]["containers"][0]["args"][1]
    assert a["metadata"] is not b["metadata"] and a is not b
    # A part with one member that differs is its own; its equal members are shared.
    c = decoder.decode(json.dumps({**template, "metadata": {"name": "c"},
                                   "spec": {**template["spec"], "nodeName": "n1"}}))
    assert c["spec"] is not a["spec"]
    assert c["spec"]["tolerations"] is a["spec"]["tolerations"]


def test_keys_and_short_strings_are_interned_long_ones_are_not() -> None:
    decoder = SharedDecoder(min_size=0)
    short, long = "s" * INTERN_MAX, "l" * (INTERN_MAX + 1)
    a = decoder.decode(json.dumps({"k": short, "x": [short, long], "long": long, "n": 1}))
    b = decoder.decode(json.dumps({"k": short, "x": [short, long + "!"], "long": long, "n": 2}))
    assert a["k"] is b["k"] and a["x"][0] is b["x"][0]
    assert a["long"] == b["long"] and a["long"] is not b["long"]
    assert next(iter(a)) is next(iter(b))


def test_the_memory_is_bounded_and_starts_over() -> None:
    decoder = SharedDecoder(limit=10, min_size=0)
    first = decoder.decode('{"p":{"shared":1}}')["p"]
    for i in range(30):
        decoder.decode(json.dumps({"u": {"i": i}}))
        assert len(decoder) <= 10
    again = decoder.decode('{"p":{"shared":1}}')["p"]
    assert again == first and again is not first  # forgotten, decoded afresh
    assert decoder.decode('{"p":{"shared":1}}')["p"] is again


# ------------------------------------------------------------------ decode_update

POD = {"kind": "Pod", "metadata": {"name": "a", "resourceVersion": "1",
                                   "labels": {"app": "web"}},
       "spec": {"containers": [{"name": "c", "image": "busybox"}],
                "tolerations": [{"key": "k", "operator": "Exists"}]},
       "status": {"phase": "Pending"}}


@pytest.mark.parametrize("change", [
    lambda p: p["spec"].update(nodeName="n1"),  # a bind
    lambda p: p.update(status={"phase": "Running", "conditions": [{"type": "Ready"}]}),
    lambda p: p["metadata"].pop("labels"),
    lambda p: p["spec"].update(containers=[{"name": "c", "image": "busybox:2"}]),
    lambda p: p.update(kind=["Pod"]),  # a member changes type
    lambda p: None,  # only the resourceVersion
])
def test_an_update_decoded_from_the_version_before_equals_a_fresh_decode(change: Any) -> None:
    decoder = SharedDecoder(min_size=0)
    previous = decoder.decode(json.dumps(POD))
    new = copy.deepcopy(POD)
    new["metadata"]["resourceVersion"] = "2"
    change(new)
    raw = jsontext.dumps(new)
    got = decoder.decode_update(raw, previous)
    assert repr(got) == repr(json.loads(raw))
    assert previous == POD  # the previous version's copy is left as it was
    # Parts both versions have are the previous version's, not decoded again.
    for key in ("spec", "status"):
        if got[key] == previous[key]:
            assert got[key] is previous[key]
    if got["metadata"].get("labels") is not None:
        assert got["metadata"]["labels"] is previous["metadata"]["labels"]
    if got["spec"] != previous["spec"]:
        assert got["spec"]["tolerations"] is previous["spec"]["tolerations"]


# An equal part in Python that differs in JSON: the new text decides.
@pytest.mark.parametrize("before,after", [
    ({"x": {"v": 1}}, {"x": {"v": True}}),
    ({"x": {"v": 1}}, {"x": {"v": 1.0}}),
    ({"x": [0]}, {"x": [False]}),
    ({"x": {"v": [1, {"w": 0}]}}, {"x": {"v": [1, {"w": -0.0}]}}),
])
def test_an_update_never_takes_a_part_that_is_equal_only_in_python(
        before: dict[str, Any], after: dict[str, Any]) -> None:
    decoder = SharedDecoder(min_size=0)
    previous = decoder.decode(json.dumps(before))
    raw = json.dumps(after, separators=(",", ":"))
    got = decoder.decode_update(raw, previous)
    assert repr(got) == repr(json.loads(raw))
    assert got["x"] is not previous["x"]


def test_a_small_update_is_decoded_plainly() -> None:
    decoder = SharedDecoder(min_size=1024)
    previous = decoder.decode(json.dumps(POD))
    got = decoder.decode_update(json.dumps(POD, separators=(",", ":")), previous)
    assert got == POD and got["spec"] is not previous["spec"]


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="limit"):
        SharedDecoder(limit=0)


# ------------------------------------------------------------------ deep_copy


def test_deep_copy_unshares_parts_deepcopy_keeps_shared() -> None:
    obj = SharedDecoder(min_size=0).decode(
        '{"status":{},"spec":{"template":{"spec":{"securityContext":{}}}},"l":[[],[]]}')
    assert obj["status"] is obj["spec"]["template"]["spec"]["securityContext"]
    kept = copy.deepcopy(obj)  # why deep_copy exists: deepcopy keeps the alias
    assert kept["status"] is kept["spec"]["template"]["spec"]["securityContext"]
    fresh = deep_copy(obj)
    assert fresh == obj
    found = ids(fresh)
    assert len(found) == len(set(found))  # every dict and list occurs once
    assert not set(found) & set(ids(obj))
    fresh["status"]["phase"] = "Running"
    assert fresh["spec"]["template"]["spec"]["securityContext"] == {}
    assert obj["status"] == {}


@pytest.mark.parametrize("value", [
    None, True, 0, 1.5, "s", [], {}, [1, [2, {"a": [None]}]],
    {"a": {"b": ("t", ["x"])}},  # a tuple goes to copy.deepcopy
])
def test_deep_copy_equals_its_input(value: Any) -> None:
    got = deep_copy(value)
    assert got == value and repr(got) == repr(value)
    if isinstance(value, (dict, list)):
        assert got is not value


def test_deep_copy_makes_dict_subclasses_plain() -> None:
    from collections import OrderedDict
    got = deep_copy({"o": OrderedDict(a=[1])})
    assert type(got["o"]) is dict and got == {"o": {"a": [1]}}


def test_small_texts_are_decoded_plainly_their_parts_not_remembered() -> None:
    decoder = SharedDecoder(min_size=200)
    small = '{"spec":{"holderIdentity":"n1"},"metadata":{"name":"n1"}}'
    a, b = decoder.decode(small), decoder.decode(small)
    assert a == b == json.loads(small) and len(decoder) == 0
    assert repr(a) == repr(json.loads(small))
    assert a["spec"] is not b["spec"]
    assert next(iter(a["spec"])) is next(iter(b["spec"]))  # keys one object still (orjson)
    big = json.dumps({"spec": {"holderIdentity": "n1"}, "pad": "x" * 200})
    assert decoder.decode(big)["spec"] is decoder.decode(big)["spec"] and len(decoder) > 0
