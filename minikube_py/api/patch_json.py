"""JSON merge patch (RFC 7386) and JSON patch (RFC 6902), as Kubernetes applies them.

Kubernetes applies both with ``gopkg.in/evanphx/json-patch.v4``; this module
reproduces that library's behaviour, including where it departs from the RFCs,
and the API server's error mapping (``handlers/patch.go``):

:func:`json_merge_patch`
    RFC 7386: objects merge recursively, ``null`` deletes, anything else
    replaces. As in json-patch v4, ``null`` items are also dropped from arrays
    that the patch adds. A ``null`` or scalar patch is a 400
    ``Invalid JSON Patch``; an array patch yields an array, which cannot be an
    object, so it is a 422 like Kubernetes' failed decode.

:func:`json_patch`
    RFC 6902 ``add``, ``remove``, ``replace``, ``move``, ``copy`` and ``test``
    with JSON pointers (``~0``/``~1`` escapes, ``-`` appends, and v4's negative
    indices). A document that is not a list of operation objects is a 400
    (Go's decode message); more than 10000 operations is a 413; any operation
    that fails (failed ``test``, missing path, bad index) is a 422 ``Invalid``
    with Kubernetes' generic message ``the server rejected our request due to
    an error in our request`` -- the library's own explanation (``testing value
    /x failed: test failed``) travels as the exception's ``__cause__``, since
    Kubernetes does not put it in the Status either.

    json-patch v4 quirks kept on purpose, because clients see them on a real
    cluster: ``replace`` of a missing object member adds it; ``copy`` or
    ``move`` from a missing member writes ``null``; ``add`` at the root path
    ``""`` fails; ``replace`` at ``""`` with a scalar does nothing; a ``test``
    of a missing member against ``null`` succeeds.

Inputs are never modified; results are deep copies.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from . import errors
from .jsoncopy import deep_copy
from .patch_smp import UNPROCESSABLE, canonical_json, json_kind

#: handlers/patch.go's maxJSONPatchOperations.
MAX_JSON_PATCH_OPERATIONS = 10000

_ATOI = re.compile(r"[+-]?[0-9]+")
_MISSING = "missing value"
_INVALID_INDEX = "invalid index referenced"
_TEST_FAILED = "test failed"


class JSONPatchError(Exception):
    """Why json-patch refused an operation (json-patch v4's wording)."""


# ------------------------------------------------------------- merge patch


def json_merge_patch(original: Mapping[str, Any], patch: Any) -> dict[str, Any]:
    """Apply an RFC 7386 merge patch to ``original``."""
    if isinstance(patch, Mapping):
        doc = deep_copy(dict(original))
        _merge_docs(doc, deep_copy(dict(patch)))
        return doc
    if isinstance(patch, list):
        result = _prune_nulls(deep_copy(patch))
        raise _not_an_object(result, "array")
    raise errors.BadRequest("Invalid JSON Patch")


def _merge_docs(doc: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if value is None:
            doc.pop(key, None)
        elif key not in doc:
            doc[key] = _prune_nulls(value)
        else:
            doc[key] = _merge(doc[key], value)


def _merge(current: Any, patch: Any) -> Any:
    if not isinstance(current, dict):
        return _prune_nulls(patch)
    if not isinstance(patch, dict):
        return patch
    _merge_docs(current, patch)
    return current


def _prune_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _prune_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_prune_nulls(v) for v in value if v is not None]
    return value


def _not_an_object(result: Any, kind: str) -> errors.Invalid:
    """The 422 Kubernetes answers when a patched document is not an object."""
    text = canonical_json(result)
    detail = ("couldn't get version/kind; json parse error: json: cannot unmarshal "
              f"{kind} into Go value of type struct {{ APIVersion string "
              '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
    err = errors.invalid("patch", text, detail)
    return errors.Invalid(f' "" is invalid: {err}', details={"causes": [err.cause()]},
                          errors=[err])


# -------------------------------------------------------------- JSON patch


def json_patch(original: Mapping[str, Any], operations: Any) -> dict[str, Any]:
    """Apply an RFC 6902 patch (a list of operation objects) to ``original``."""
    ops = decode_operations(operations)
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        raise errors.RequestEntityTooLarge(
            "Request entity too large: The allowed maximum operations in a JSON patch is "
            f"{MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}")
    box: list[Any] = [deep_copy(dict(original))]
    try:
        for op in ops:
            _apply_operation(box, op)
    except JSONPatchError as exc:
        raise errors.Invalid(UNPROCESSABLE) from exc
    result = box[0]
    if not isinstance(result, dict):
        raise _not_an_object(result, json_kind(result))
    return result


def decode_operations(operations: Any) -> list[dict[str, Any] | None]:
    """Check that ``operations`` decodes as jsonpatch.Patch; 400 if it does not."""
    if operations is None:
        return []
    if not isinstance(operations, list | tuple):
        raise errors.BadRequest(f"json: cannot unmarshal {json_kind(operations)} into Go "
                                "value of type jsonpatch.Patch")
    out: list[dict[str, Any] | None] = []
    for op in operations:
        if op is not None and not isinstance(op, Mapping):
            raise errors.BadRequest(f"json: cannot unmarshal {json_kind(op)} into Go value "
                                    "of type jsonpatch.Operation")
        out.append(None if op is None else dict(op))
    return out


def _wrap(message: str, cause: str) -> JSONPatchError:
    return JSONPatchError(f"{message}: {cause}")


def _string_field(op: dict[str, Any] | None, name: str, missing: str) -> str:
    value = None if op is None else op.get(name)
    if value is None:
        raise _wrap(missing, _MISSING)
    if not isinstance(value, str):
        raise JSONPatchError(f"json: cannot unmarshal {json_kind(value)} into Go value of "
                             "type string")
    return value


def _path(op: dict[str, Any] | None) -> str:
    return _string_field(op, "path", "operation missing path field")


def _from(op: dict[str, Any] | None) -> str:
    return _string_field(op, "from", "operation, missing from field")


def _decode_key(key: str) -> str:
    return key.replace("~1", "/").replace("~0", "~")


def _atoi(key: str) -> int:
    if not _ATOI.fullmatch(key):
        raise JSONPatchError(f'strconv.Atoi: parsing "{key}": invalid syntax')
    return int(key)


def _invalid_index(idx: int) -> JSONPatchError:
    return _wrap(f"Unable to access invalid index: {idx}", _INVALID_INDEX)


def _get(container: Any, key: str) -> Any:
    """container.get: a missing object member is ``None``, never an error."""
    if isinstance(container, dict):
        return container.get(key)
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(container):
            raise _invalid_index(idx)
        idx += len(container)
    if idx >= len(container):
        raise _invalid_index(idx)
    return container[idx]


def _set(container: Any, key: str, value: Any) -> None:
    if isinstance(container, dict):
        container[key] = value
        return
    idx = _atoi(key)
    if idx < 0:
        if idx < -len(container):
            raise _invalid_index(idx)
        idx += len(container)
    container[idx] = value


def _add(container: Any, key: str, value: Any) -> None:
    if isinstance(container, dict):
        container[key] = value
        return
    if key == "-":
        container.append(value)
        return
    try:
        idx = _atoi(key)
    except JSONPatchError as exc:
        raise _wrap(f"value was not a proper array index: '{key}'", str(exc)) from None
    size = len(container) + 1
    if idx >= size:
        raise _invalid_index(idx)
    if idx < 0:
        if idx < -size:
            raise _invalid_index(idx)
        idx += size
    container.insert(idx, value)


def _remove(container: Any, key: str) -> None:
    if isinstance(container, dict):
        if key not in container:
            raise _wrap(f"Unable to remove nonexistent key: {key}", _MISSING)
        del container[key]
        return
    idx = _atoi(key)
    if idx >= len(container):
        raise _invalid_index(idx)
    if idx < 0:
        if idx < -len(container):
            raise _invalid_index(idx)
        idx += len(container)
    del container[idx]


def _find_object(box: list[Any], path: str) -> tuple[Any, str] | None:
    """findObject: the container holding ``path``'s last token, and that token."""
    split = path.split("/")
    if len(split) < 2:
        return None
    doc = box[0]
    for part in split[1:-1]:
        try:
            nxt = _get(doc, _decode_key(part))
        except JSONPatchError:
            return None
        if not isinstance(nxt, dict | list):
            return None
        doc = nxt
    return doc, _decode_key(split[-1])


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_equal(v, right[k]) for k, v in left.items())
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_equal(a, b) for a, b in zip(left, right,
                                                                              strict=True))
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    return type(left) is type(right) and bool(left == right)


def _apply_operation(box: list[Any], op: dict[str, Any] | None) -> None:
    kind = op.get("op") if op is not None else None
    kind = kind if isinstance(kind, str) else "unknown"
    handler = _OPERATIONS.get(kind)
    if handler is None:
        raise JSONPatchError(f"Unexpected kind: {kind}")
    handler(box, op)


def _op_add(box: list[Any], op: dict[str, Any] | None) -> None:
    try:
        path = _path(op)
    except JSONPatchError:
        raise _wrap("add operation failed to decode path", _MISSING) from None
    found = _find_object(box, path)
    if found is None:
        raise _wrap(f'add operation does not apply: doc is missing path: "{path}"', _MISSING)
    try:
        _add(*found, deep_copy((op or {}).get("value")))
    except JSONPatchError as exc:
        raise _wrap(f"error in add for path: '{path}'", str(exc)) from None


def _op_remove(box: list[Any], op: dict[str, Any] | None) -> None:
    try:
        path = _path(op)
    except JSONPatchError:
        raise _wrap("remove operation failed to decode path", _MISSING) from None
    found = _find_object(box, path)
    if found is None:
        raise _wrap(f'remove operation does not apply: doc is missing path: "{path}"',
                    _MISSING)
    try:
        _remove(*found)
    except JSONPatchError as exc:
        raise _wrap(f"error in remove for path: '{path}'", str(exc)) from None


def _op_replace(box: list[Any], op: dict[str, Any] | None) -> None:
    try:
        path = _path(op)
    except JSONPatchError as exc:
        raise _wrap("replace operation failed to decode path", str(exc)) from None
    value = deep_copy((op or {}).get("value"))
    if path == "":
        # v4 wraps a nil error here, so a scalar document is silently ignored.
        if isinstance(value, dict | list):
            box[0] = value
        return
    found = _find_object(box, path)
    if found is None:
        raise _wrap(f"replace operation does not apply: doc is missing path: {path}",
                    _MISSING)
    try:
        _get(*found)
    except JSONPatchError:
        raise _wrap(f"replace operation does not apply: doc is missing key: {path}",
                    _MISSING) from None
    try:
        _set(*found, value)
    except JSONPatchError as exc:
        raise _wrap(f"error in remove for path: '{path}'", str(exc)) from None


def _op_move(box: list[Any], op: dict[str, Any] | None) -> None:
    try:
        source = _from(op)
    except JSONPatchError as exc:
        raise _wrap("move operation failed to decode from", str(exc)) from None
    found = _find_object(box, source)
    if found is None:
        raise _wrap(f"move operation does not apply: doc is missing from path: {source}",
                    _MISSING)
    container, key = found
    try:
        value = _get(container, key)
        _remove(container, key)
    except JSONPatchError as exc:
        raise _wrap(f"error in move for path: '{key}'", str(exc)) from None
    try:
        path = _path(op)
    except JSONPatchError as exc:
        raise _wrap("move operation failed to decode path", str(exc)) from None
    target = _find_object(box, path)
    if target is None:
        raise _wrap(f"move operation does not apply: doc is missing destination path: {path}",
                    _MISSING)
    try:
        _add(*target, value)
    except JSONPatchError as exc:
        raise _wrap(f"error in move for path: '{path}'", str(exc)) from None


def _op_test(box: list[Any], op: dict[str, Any] | None) -> None:
    try:
        path = _path(op)
    except JSONPatchError as exc:
        raise _wrap("test operation failed to decode path", str(exc)) from None
    failed = _wrap(f"testing value {path} failed", _TEST_FAILED)
    has_value = op is not None and "value" in op
    expected = (op or {}).get("value")
    if path == "":
        if not has_value or not _equal(box[0], expected):
            raise failed
        return
    found = _find_object(box, path)
    if found is None:
        raise _wrap(f"test operation does not apply: is missing path: {path}", _MISSING)
    try:
        actual = _get(*found)
    except JSONPatchError as exc:
        raise _wrap(f"error in test for path: '{path}'", str(exc)) from None
    if actual is None:
        if has_value and expected is None:
            return
        raise failed
    if not has_value or not _equal(actual, expected):
        raise failed


def _op_copy(box: list[Any], op: dict[str, Any] | None) -> None:
    try:
        source = _from(op)
    except JSONPatchError as exc:
        raise _wrap("copy operation failed to decode from", str(exc)) from None
    found = _find_object(box, source)
    if found is None:
        raise _wrap(f"copy operation does not apply: doc is missing from path: {source}",
                    _MISSING)
    try:
        value = _get(*found)
    except JSONPatchError as exc:
        raise _wrap(f"error in copy for from: '{source}'", str(exc)) from None
    try:
        path = _path(op)
    except JSONPatchError:
        raise _wrap("copy operation failed to decode path", _MISSING) from None
    target = _find_object(box, path)
    if target is None:
        raise _wrap(f"copy operation does not apply: doc is missing destination path: {path}",
                    _MISSING)
    try:
        _add(*target, deep_copy(value))
    except JSONPatchError as exc:
        raise _wrap("error while adding value during copy", str(exc)) from None


_OPERATIONS = {
    "add": _op_add,
    "remove": _op_remove,
    "replace": _op_replace,
    "move": _op_move,
    "test": _op_test,
    "copy": _op_copy,
}

