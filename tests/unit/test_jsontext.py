"""The store's JSON codec (api/jsontext.py): orjson where it is exact, refusals
where it is not, and :mod:`json` for the texts orjson does not read."""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minikube_py.api import jsontext

#: Values at the edges of what JSON and the two libraries hold.
ROUND_TRIPS: list[Any] = [
    {},
    [],
    {"z": 1, "a": 2, "m": {"y": [], "b": {}}},  # key order kept
    {"s": "café \U0001F600 \u2028 \x00 \" \\ /"},  # beyond ASCII, controls, escapes
    {"n": -0.0, "f": 0.1, "e": 1e16, "t": 1e-7, "h": 1e300, "one": 1.0},
    {"ints": [0, -1, 2**31, 2**63 - 1, 2**63, 2**64 - 1, -(2**63)]},
    {"b": [True, False, None, 1, 1.0, 0, "1", "true", "null"]},  # never confused
    {"deep": [[[[{"a": [[[]]]}]]]]},
    {"l" * 300: "v" * 70_000},
    {"tuple": (1, "a")},  # written as an array
    OrderedDict(b=1, a=[2]),  # dict subclasses as dicts
]


@pytest.mark.parametrize("value", ROUND_TRIPS)
def test_dumps_reads_back_equal_with_json_and_with_loads(value: Any) -> None:
    text = jsontext.dumps(value)
    plain = json.loads(json.dumps(value))  # what json itself makes of the value
    for got in (json.loads(text), jsontext.loads(text), jsontext.loads(text.encode())):
        assert got == plain
        assert repr(got) == repr(plain)  # types and key order too
    assert jsontext.dumps_bytes(value) == text.encode()


def test_the_text_is_compact() -> None:
    assert jsontext.dumps({"a": [1, {"b": None}], "c": "d e"}) == '{"a":[1,{"b":null}],"c":"d e"}'


def test_characters_beyond_ascii_are_utf8_not_escapes() -> None:
    assert jsontext.dumps({"s": "é\U0001F600"}) == '{"s":"é\U0001F600"}'
    assert jsontext.dumps_bytes({"s": "é"}) == '{"s":"é"}'.encode()


@pytest.mark.parametrize("value, error, words", [
    (float("nan"), ValueError, "Out of range float"),
    ({"a": {"b": [1, float("inf")]}}, ValueError, "Out of range float"),
    ([None, -math.inf], ValueError, "Out of range float"),
    (OrderedDict(a=(None, float("nan"))), ValueError, "Out of range float"),
    ({"a": 2**64}, TypeError, "64-bit"),
    ({"a": -(2**63) - 1}, TypeError, "64-bit"),
    ({1: "a"}, TypeError, "str"),
    ({"s": "\ud800"}, TypeError, "surrogates"),
    ({"o": object()}, TypeError, "not JSON serializable"),
    ({"s": {1, 2}}, TypeError, "not JSON serializable"),
])
def test_dumps_refuses_what_it_cannot_write_exactly(value: Any, error: type[Exception],
                                                    words: str) -> None:
    with pytest.raises(error, match=words):
        jsontext.dumps(value)


def test_null_and_finite_floats_together_are_written() -> None:
    # orjson writes NaN as null: the check must look, and find nothing here.
    value = {"a": None, "b": [1.5, None, {"c": -0.0}], "d": 1e308}
    assert json.loads(jsontext.dumps(value)) == value


@pytest.mark.parametrize("value,text,expected", [
    ({"a": [1, None, "é"]}, '{"a":[1,null,"é"]}', True),
    ({"a": True}, '{"a":1}', False),  # equal in Python, not in JSON
    ({"a": 1.0}, '{"a":1}', False),
    ({"a": 1}, '{"a": 1}', False),  # not the text dumps writes
    ({"s": "\ud800"}, '{"s":"\\ud800"}', False),  # refused by orjson
    ({"b": 2**64}, '{"b":18446744073709551616}', False),
])
def test_encodes_as_is_dumps_compared(value: Any, text: str, expected: bool) -> None:
    assert jsontext.encodes_as(value, text) is expected


def test_nesting_beyond_orjsons_limit_is_refused_not_truncated() -> None:
    deep: list[Any] = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(TypeError, match="Recursion limit"):
        jsontext.dumps(deep)


@pytest.mark.parametrize("text, expected", [
    ('"\\ud800"', "\ud800"),  # an escaped unpaired surrogate: json reads it
    ('{"a":"\\udc00x"}', {"a": "\udc00x"}),
    ("[NaN]", "nan"),  # a NaN literal: json reads it
    ('{"a":1,"a":2}', {"a": 2}),  # the last one wins, in both
])
def test_loads_reads_what_json_reads(text: str, expected: Any) -> None:
    got = jsontext.loads(text)
    if expected == "nan":
        assert math.isnan(got[0])
    else:
        assert got == expected == json.loads(text)


@pytest.mark.parametrize("text", ["", "{", "[1,]", "{'a':1}", "nul", '{"a" 1}'])
def test_loads_refuses_what_json_refuses_with_jsons_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as err:
        jsontext.loads(text)
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    assert str(err.value) == str(expected.value)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30)


@given(json_values)
def test_every_value_it_writes_reads_back_identically(value: Any) -> None:
    text = jsontext.dumps(value)
    assert repr(jsontext.loads(text)) == repr(value)
    assert repr(json.loads(text)) == repr(value)
