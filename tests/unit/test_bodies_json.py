"""JSON request bodies (minikube_py/apiserver/bodies.py ``parse_json``): what
json.loads reads is read the same (orjson first, json.loads for what orjson
refuses), and what must be refused is: non-finite numbers, nesting past
MAX_DEPTH, anything that is not JSON."""

from __future__ import annotations

import json

import pytest

from minikube_py.api.errors import BadRequest
from minikube_py.api.manifest import MAX_DEPTH
from minikube_py.apiserver.bodies import parse_json


def nested(levels: int) -> bytes:
    """``levels`` containers, one inside the other."""
    return ('{"a":' * (levels - 1) + "[]" + "}" * (levels - 1)).encode()


@pytest.mark.parametrize("raw", [
    b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"x"}},'
    b'"spec":{"containers":[{"name":"c","image":"busybox","resources":'
    b'{"requests":{"cpu":"100m"}}}]}}',
    b'{"a":1,"a":2}',                                # the last duplicate wins, as in json
    b'{"big":123456789012345678901234567890}',       # past 64 bits: json.loads reads it
    b'{"float":1.5e300,"neg":-0.0,"esc":"\\u00e9\\n"}',
    b'{"lone":"\\ud800"}',                           # a lone surrogate: json.loads reads it
    '{"utf16": "\u00e9"}'.encode("utf-16"),          # json.loads detects UTF-16 and -32
    b'{"s":"' + b"{" * (3 * MAX_DEPTH) + b'"}',      # braces in a string: shallow all the same
    nested(MAX_DEPTH),                               # as deep as allowed
    b'"just a string"',
    b"42",
])
def test_what_json_loads_reads_is_read_the_same(raw: bytes):
    got = parse_json(raw)
    assert got == json.loads(raw)
    assert json.dumps(got) == json.dumps(json.loads(raw))  # same types, same order


@pytest.mark.parametrize("raw, message", [
    (b'{"a":NaN}', "NaN is not valid JSON"),
    (b"[Infinity]", "Infinity is not valid JSON"),
    (b"[-Infinity]", "-Infinity is not valid JSON"),
    (b"", "the request body is not valid JSON"),
    (b'{"a":', "the request body is not valid JSON"),
    (b"\xff\xfe\xfd", "the request body is not valid JSON"),
    (nested(MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels"),
    (nested(900), f"nested deeper than {MAX_DEPTH} levels"),      # orjson reads it: walked
    (nested(5000), f"nested deeper than {MAX_DEPTH} levels"),     # orjson refuses it
])
def test_what_must_be_refused_is(raw: bytes, message: str):
    with pytest.raises(BadRequest, match=message):
        parse_json(raw)
