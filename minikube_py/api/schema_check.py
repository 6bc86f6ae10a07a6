"""Type-checking request bodies and patch documents before anything reads them.

Every body that reaches the API (an object to create or replace, an apply
configuration, a merge or strategic merge patch, a JSON patch, and the
non-object bodies of :mod:`.schema_bodies`) goes through one of these
functions first. They promise:

* the value has the JSON type its schema says at every place the schema
  knows (unknown fields are not type errors: strictness about them is the
  registry's business, under ``fieldValidation``); ``null`` is accepted
  anywhere, as Go's decoder accepts it;
* otherwise :class:`~.errors.BadRequest` (400) naming every wrong field, in
  document order, e.g. ``Pod in version "v1" cannot be handled as a Pod:
  metadata: expected object, got string "xx"``;
* the value is returned unchanged (no copy): callers may then read it with the
  types the schema promises.

Patch documents are checked as the partial objects they are: nulls delete,
and in strategic merge patches the directives (``$patch``, ``$retainKeys``,
``$setElementOrder/...``, ``$deleteFromPrimitiveList/...``) are checked for
their own shapes and set aside before the rest is typed against the kind.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .errors import BadRequest
from .schema import describe_value, type_errors
from .schema_model import Schema

__all__ = ["JSON_PATCH_OPS", "json_type", "typed_json_patch", "typed_object", "typed_patch"]

#: RFC 6902 operations and the members each needs besides ``op`` and ``path``.
JSON_PATCH_OPS: dict[str, tuple[str, ...]] = {
    "add": ("value",), "remove": (), "replace": ("value",), "move": ("from",),
    "copy": ("from",), "test": ("value",),
}

_SMP_PATCH_VALUES = ("replace", "merge", "delete")
_LIST_DIRECTIVES = ("$setElementOrder/", "$deleteFromPrimitiveList/")


def json_type(value: Any) -> str:
    """The JSON type of a decoded value, as messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def _handled_as(kind: str, version: str) -> str:
    return f'{kind} in version "{version}" cannot be handled as a {kind}: '


def typed_object(value: Any, root: Schema, *, kind: str, version: str,
                 what: str = "the request body") -> dict[str, Any]:
    """``value`` if it is an object whose fields have the types of ``root``."""
    if not isinstance(value, dict):
        raise BadRequest(f"{what} must be a JSON object ({kind}), not {json_type(value)}")
    errors = type_errors(root, value)
    if errors:
        raise BadRequest(_handled_as(kind, version) + ", ".join(errors))
    return value


# ------------------------------------------------------------------ patches

_LABELS = {"merge": "merge patch", "strategic": "strategic merge patch",
           "apply": "apply configuration", "json": "JSON patch"}


def typed_patch(doc: Any, root: Schema, *, kind: str, version: str,
                patch_type: str) -> Any:
    """``doc`` if it is a well-typed patch of ``patch_type`` (``merge``,
    ``strategic``, ``apply`` or ``json``) for an object of ``root``."""
    if patch_type == "json":
        return typed_json_patch(doc)
    label = _LABELS.get(patch_type)
    if label is None:
        raise BadRequest(f'patch type "{patch_type}" is not supported')
    if not isinstance(doc, dict):
        raise BadRequest(f"the {label} must be a JSON object ({kind}), not {json_type(doc)}")
    errors: list[str] = []
    partial = _without_directives(doc, "", errors) if patch_type == "strategic" else doc
    errors.extend(type_errors(root, partial))
    if errors:
        raise BadRequest(_handled_as(kind, version) + f"the {label} has "
                         + ", ".join(errors))
    return doc


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _without_directives(value: Any, path: str, errors: list[str]) -> Any:
    """A strategic merge patch with its directives checked and removed (a
    shallow rebuild: the document itself is not modified)."""
    if isinstance(value, list):
        return [_without_directives(item, f"{path}[{i}]", errors)
                for i, item in enumerate(value)]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        where = _join(path, str(key))
        if key == "$patch":
            if item not in _SMP_PATCH_VALUES:
                errors.append(f"{where}: expected one of "
                              f"{', '.join(json.dumps(v) for v in _SMP_PATCH_VALUES)}, got "
                              f"{describe_value(item)}")
        elif key == "$retainKeys" or (isinstance(key, str) and key.startswith(_LIST_DIRECTIVES)):
            if not isinstance(item, list) or (
                    key == "$retainKeys" and not all(isinstance(k, str) for k in item)):
                wanted = "array of strings" if key == "$retainKeys" else "array"
                errors.append(f"{where}: expected {wanted}, got {describe_value(item)}")
        else:
            out[key] = _without_directives(item, where, errors)
    return out


def typed_json_patch(ops: Any) -> list[dict[str, Any]]:
    """``ops`` if it is an RFC 6902 document: a list of operation objects, each
    with a known ``op``, a string ``path`` and what that op needs."""
    if not isinstance(ops, list):
        raise BadRequest(f"the JSON patch must be a list of operations, not {json_type(ops)}")
    for i, op in enumerate(ops):
        where = f"JSON patch operation {i}"
        if not isinstance(op, dict):
            raise BadRequest(f"{where} must be an object, not {json_type(op)}")
        name = op.get("op")
        if not isinstance(name, str):
            raise BadRequest(f"{where}: op must be a string, not {describe_value(name)}")
        if name not in JSON_PATCH_OPS:
            raise BadRequest(f'{where}: op "{name}" is not one of '
                             f'{", ".join(JSON_PATCH_OPS)}')
        for member in ("path", *JSON_PATCH_OPS[name]):
            if member not in op:
                raise BadRequest(f'{where} ("{name}"): {member} is required')
            if member != "value" and not isinstance(op[member], str):
                raise BadRequest(f'{where} ("{name}"): {member} must be a string, not '
                                 f"{describe_value(op[member])}")
    return ops
