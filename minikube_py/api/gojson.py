"""Go's ``encoding/json`` error texts for documents Python's decoder reads.

Kubernetes passes ``json.Unmarshal`` errors through to users in several
places (a malformed patch body, a ``.dockerconfigjson`` Secret that is not
JSON), so reproducing its words needs Go's wording for what Python's
:mod:`json` reports differently:

* :func:`json_kind` names a decoded value as Go's ``UnmarshalTypeError`` does
  (``object``, ``array``, ``string``, ``number``, ``bool``);
* :func:`syntax_error` turns a :class:`json.JSONDecodeError` into Go's
  ``SyntaxError`` text (``invalid character 'x' looking for beginning of
  value``, ``unexpected end of JSON input``);
* :func:`unmarshal_object_error` is the whole error (or ``None``) of
  ``json.Unmarshal(data, &map[string]interface{}{})``.

Go checks the syntax of the whole document before it decodes anything, so a
syntax error wins over a type error, as it does here; and Go has no ``NaN``
or ``Infinity`` literals, which Python would accept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["MAP_TYPE", "json_kind", "syntax_error", "unmarshal_object_error"]

#: How Go names the target of ``json.Unmarshal(data, &map[string]interface{}{})``.
MAP_TYPE = "map[string]interface {}"


def json_kind(value: Any) -> str:
    """The JSON kind Go's decoder names in "cannot unmarshal X into ..."."""
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null"


def syntax_error(text: str, exc: json.JSONDecodeError) -> str:
    """encoding/json's SyntaxError text for Python's decode error."""
    if not text[exc.pos:].strip():
        return "unexpected end of JSON input"
    char = text[exc.pos]
    quoted = "'\\''" if char == "'" else f"'{char}'"
    context = {
        "Expecting value": "looking for beginning of value",
        "Expecting property name enclosed in double quotes":
            "looking for beginning of object key string",
        "Expecting ':' delimiter": "after object key",
        "Expecting ',' delimiter": "after object key:value pair"
        if _innermost_open(text, exc.pos) == "{" else "after array element",
        "Extra data": "after top-level value",
    }.get(exc.msg, exc.msg)
    return f"invalid character {quoted} {context}"


def _innermost_open(text: str, pos: int) -> str:
    """Whether ``pos`` is inside an object or an array (ignoring strings)."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text[:pos]:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else ""


def _no_constant(name: str) -> Any:
    # Python reads NaN/Infinity/-Infinity; Go stops at their first letter.
    raise ValueError(name)


def unmarshal_object_error(text: str) -> str | None:
    """The error of ``json.Unmarshal([]byte(text), &map[string]interface{}{})``,
    or ``None`` when Go accepts it (an object, or ``null``)."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        return syntax_error(text, exc)
    except ValueError as exc:  # a NaN/Infinity literal, refused where it starts
        name = str(exc)
        start = text.find(name)
        if name.startswith("-"):
            start += 1  # "-" starts a number; "I" is what Go cannot read after it
            return f"invalid character '{text[start]}' in numeric literal"
        return f"invalid character '{text[start]}' looking for beginning of value"
    if value is None or isinstance(value, dict):
        return None
    return f"json: cannot unmarshal {json_kind(value)} into Go value of type {MAP_TYPE}"
