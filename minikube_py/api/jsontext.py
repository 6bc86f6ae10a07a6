"""The JSON text of API objects: what the store writes and reads back, and what
the API server answers with.

Every write encodes its object once and every cache decodes the stored text
again, so this codec sits on the path of every write. It uses orjson (a
maintained C implementation, several times faster than :mod:`json` for both)
within the bounds where orjson and :mod:`json` agree, and says where it refuses:

* :func:`dumps` is compact JSON (no spaces) that :func:`json.loads` reads back
  equal to ``obj``, with the same key order. Characters beyond ASCII are
  written as UTF-8, not as ``\\uXXXX`` escapes (the same JSON string).
  It refuses what a JSON document cannot hold exactly or what the store must
  never keep: ``NaN`` and infinities with :class:`ValueError`, as
  ``json.dumps(allow_nan=False)`` does (orjson would write ``null``: that is
  checked here); with :class:`TypeError` (orjson's ``JSONEncodeError``):
  integers outside the 64 bits orjson holds (``-2**63 .. 2**64-1``;
  Kubernetes' integers are int32 and int64), keys that are not strings
  (:mod:`json` would quietly write ``1`` as ``"1"``), strings with unpaired
  surrogates, values of other types, nesting beyond orjson's limit (254
  levels; the API server refuses bodies nested deeper than 100). So
  everything :func:`dumps` wrote is read back exactly by :func:`loads`.
* :func:`loads` reads text or bytes as :func:`json.loads` does, for every text
  :func:`dumps` writes; a text orjson refuses (an escaped unpaired surrogate
  or a ``NaN`` literal, which only older state files or other writers hold)
  is read by :func:`json.loads` instead, so nothing :mod:`json` could read
  becomes unreadable. Not for request bodies: a client's integer beyond 64
  bits would come back as a float here (orjson's choice); the API server reads
  bodies with :mod:`json` and its own checks (``apiserver.bodies``).
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

__all__ = ["dumps", "dumps_bytes", "encodes_as", "loads"]

_ORJSON_DUMPS = orjson.dumps
_ORJSON_LOADS = orjson.loads
_ORJSON_DECODE_ERROR = orjson.JSONDecodeError
_STR = str
_DICT = dict
_LIST = list
_ISFINITE = math.isfinite


def _has_non_finite(obj: Any) -> bool:
    """Whether a float NaN or infinity is anywhere in ``obj`` (iteratively: a
    deep value must not meet the recursion limit here). Only what orjson
    encodes is looked at: dicts, lists and tuples and their subclasses."""
    stack = [obj]
    pop, extend = stack.pop, stack.extend
    while stack:
        item = pop()
        t = type(item)
        if t is _STR:
            continue
        if t is _DICT:
            extend(item.values())
        elif t is _LIST:
            extend(item)
        elif isinstance(item, float):
            if not _ISFINITE(item):
                return True
        elif isinstance(item, dict):
            extend(item.values())
        elif isinstance(item, list | tuple):
            extend(item)
    return False


def dumps_bytes(obj: Any) -> bytes:
    """``obj`` as compact UTF-8 JSON (see the module contract)."""
    out = _ORJSON_DUMPS(obj)
    # orjson writes a non-finite float as null: only then can one hide in it.
    if b"null" in out and _has_non_finite(obj):
        raise ValueError("Out of range float values are not JSON compliant")
    return out


def dumps(obj: Any) -> str:
    """:func:`dumps_bytes` as a string."""
    return dumps_bytes(obj).decode()


def encodes_as(obj: Any, text: str) -> bool:
    """Whether ``obj`` encodes as :func:`dumps` would write it to exactly
    ``text``; ``False`` for what orjson refuses. Unlike ``dumps(obj) == text``
    it does not look for non-finite floats (no walk of ``obj``): orjson writes
    them ``null``, so only ask for an ``obj`` that holds none, e.g. one whose
    every float a NaN-free text decoded."""
    try:
        return _ORJSON_DUMPS(obj) == text.encode()
    except TypeError:  # orjson's JSONEncodeError: what dumps refuses
        return False


def loads(text: str | bytes) -> Any:
    """``text`` decoded as :func:`json.loads` does (see the module contract)."""
    try:
        return _ORJSON_LOADS(text)
    except _ORJSON_DECODE_ERROR:
        return json.loads(text)
