"""Strategic merge patch, as the Kubernetes API server applies it.

Contract
--------
:func:`strategic_merge_patch` ports the *apply* half of
``k8s.io/apimachinery/pkg/util/strategicpatch`` (``StrategicMergeMapPatch`` with
``MergeParallelList`` and ``IgnoreUnmatchedNulls``, v0.36), driven by the
``patchStrategy`` / ``patchMergeKey`` tags of :mod:`minikube_py.api.schema`:

* Maps merge recursively; ``null`` deletes a key. Values new to the object are
  taken from the patch with their ``null`` fields and ``$patch`` directives
  removed.
* Lists whose strategy contains ``merge`` merge item by item: by the merge key
  for lists of objects (``containers`` by ``name``, ``ports`` by
  ``containerPort``...), as sets for primitives (``finalizers``). Every other
  list (``tolerations``, ``args``...) is replaced whole.
* Directives: ``$patch: replace | delete`` on a map, ``$patch: replace | delete``
  as a list element, ``$retainKeys``, ``$setElementOrder/<field>`` and
  ``$deleteFromPrimitiveList/<field>``. ``$patch: merge`` is rejected as
  Kubernetes rejects it (it is only a client-side marker).
* Order of merged lists follows Kubernetes exactly, including the effect of Go
  slices sharing their backing array (``_GoSlice``): the order kubectl's
  three-way patches produce on a real cluster is reproduced item for item.

Inputs are never modified. Errors are :class:`~.errors.BadRequest` with
Kubernetes' wording (``unknown patch type: foo in map: map[$patch:foo name:x]``),
except "lists of lists are not supported", which Kubernetes answers with a 422.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from . import errors
from .gofmt import go_value as go_fmt
from .gojson import json_kind as json_kind
from .jsoncopy import deep_copy
from .schema import field_schema
from .schema_model import LIST, Schema

DIRECTIVE = "$patch"
DELETE = "delete"
REPLACE = "replace"
MERGE = "merge"
RETAIN_KEYS = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER = "$setElementOrder"

ERR_BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
ERR_BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
ERR_BAD_SET_ORDER = "invalid patch format of setElementOrder list"
ERR_LIST_OF_LISTS = "lists of lists are not supported"
UNPROCESSABLE = "the server rejected our request due to an error in our request"


class SMPError(Exception):
    """A strategic merge patch failure; ``unprocessable`` ones are 422s."""

    def __init__(self, message: str, *, unprocessable: bool = False) -> None:
        super().__init__(message)
        self.unprocessable = unprocessable


def strategic_merge_patch(original: Mapping[str, Any], patch: Mapping[str, Any],
                          kind: str) -> dict[str, Any]:
    """Apply strategic merge ``patch`` to ``original`` (an object of ``kind``)."""
    body: Any = {} if patch is None else patch
    if not isinstance(body, Mapping):
        raise errors.BadRequest(
            f"json: cannot unmarshal {json_kind(body)} into Go value of type "
            "map[string]interface {}")
    schema = field_schema(kind)
    doc = deep_copy(dict(original))
    work = deep_copy(dict(body))
    try:
        return _merge_map(doc, work, schema)
    except SMPError as exc:
        if exc.unprocessable:
            raise errors.Invalid(UNPROCESSABLE) from exc
        raise errors.BadRequest(str(exc)) from exc


# ------------------------------------------------------------------ go helpers


def _go_type(value: Any) -> str:
    """The Go dynamic type of a decoded JSON value."""
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "<nil>"


def _go_key(value: Any) -> tuple[str, Any]:
    """A hashable key with Go's interface equality (1 != 1.0 != true)."""
    if isinstance(value, dict | list):
        raise SMPError(f"runtime error: hash of unhashable type {_go_type(value)}")
    return _go_type(value), value


def _go_eq(left: Any, right: Any) -> bool:
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return left is right
    return _go_type(left) == _go_type(right) and bool(left == right)


def _bad_arg_type(expected: str, actual: Any) -> SMPError:
    return SMPError(f"expected a {expected}, but received a {_go_type(actual)}")


def _no_merge_key(item: Any, key: str) -> SMPError:
    return SMPError(f"map: {go_fmt(item)} does not contain declared merge key: {key}")


def _bad_patch_type(directive: Any, item: Any) -> SMPError:
    shown = (directive if isinstance(directive, str)
             else f"%!s({_go_type(directive)}={go_fmt(directive)})")
    return SMPError(f"unknown patch type: {shown} in map: {go_fmt(item)}")


# -------------------------------------------------------------- go slices

#: Go's malloc size classes (bytes) up to 32 KiB, for append's capacity growth.
_SIZE_CLASSES = (
    8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288,
    320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408,
    1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784,
    6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480,
    21760, 24576, 27264, 28672, 32768,
)
_ELEM = 16  # sizeof(interface{})


def _roundup(nbytes: int) -> int:
    for size in _SIZE_CLASSES:
        if size >= nbytes:
            return size
    return -(-nbytes // 8192) * 8192


def _grow(old_cap: int, need: int) -> int:
    """runtime.growslice's new capacity for []interface{}."""
    new_cap = old_cap
    if need > 2 * old_cap:
        new_cap = need
    elif old_cap < 256:
        new_cap = 2 * old_cap
    else:
        while new_cap < need:
            new_cap += (new_cap + 3 * 256) >> 2
    return _roundup(new_cap * _ELEM) // _ELEM


class _GoSlice:
    """A Go ``[]interface{}``: a window on a backing array that ``append`` may
    write through. Strategic merge patch relies on that aliasing for the
    order of merged lists, so it is modelled rather than avoided."""

    __slots__ = ("arr", "cap", "length", "off")

    def __init__(self, arr: list[Any], off: int, length: int, cap: int) -> None:
        self.arr, self.off, self.length, self.cap = arr, off, length, cap

    @classmethod
    def decoded(cls, items: list[Any]) -> _GoSlice:
        """A slice as JSON decoding builds it (appending one by one)."""
        cap = 0 if not items else 1 << (len(items) - 1).bit_length()
        return cls([*items, *([None] * (cap - len(items)))], 0, len(items), cap)

    def items(self) -> list[Any]:
        return self.arr[self.off:self.off + self.length]

    def get(self, i: int) -> Any:
        return self.arr[self.off + i]

    def set(self, i: int, value: Any) -> None:
        self.arr[self.off + i] = value

    def reslice(self, lo: int, hi: int) -> _GoSlice:
        return _GoSlice(self.arr, self.off + lo, hi - lo, self.cap - lo)

    def append(self, *values: Any) -> _GoSlice:
        need = self.length + len(values)
        if need <= self.cap:
            for i, value in enumerate(values):
                self.arr[self.off + self.length + i] = value
            return _GoSlice(self.arr, self.off, need, self.cap)
        cap = _grow(self.cap, need)
        return _GoSlice([*self.items(), *values, *([None] * (cap - need))], 0, need, cap)


# ------------------------------------------------------------------- schema


def _child(schema: Schema | None, key: str) -> Schema | None:
    return schema.child(key) if schema is not None else None


def _strategies(schema: Schema | None) -> tuple[bool, str]:
    """(retainKeys, other strategy) as extractRetainKeysPatchStrategy returns."""
    raw = schema.patch_strategy if schema is not None else ""
    parts = raw.split(",") if raw else []
    if len(parts) > 2 or (len(parts) == 2 and "retainKeys" not in parts):
        raise SMPError(f"unexpected patch strategy: {go_fmt(parts)}")
    retain = "retainKeys" in parts
    others = [p for p in parts if p != "retainKeys"]
    return retain, others[0] if others else ""


def _items(schema: Schema | None) -> Schema | None:
    return schema.items if schema is not None and schema.type == LIST else None


def _merge_key(schema: Schema | None) -> str:
    return schema.merge_key if schema is not None and schema.type == LIST else ""


def _schema_name(schema: Schema | None) -> str:
    return schema.name if schema is not None and schema.name else "<unknown>"


# ---------------------------------------------------------------- mergeMap


def _merge_map(original: dict[str, Any] | None, patch: dict[str, Any],
               schema: Schema | None) -> dict[str, Any]:
    if DIRECTIVE in patch:
        return _directive_in_map(patch[DIRECTIVE], patch)
    if original is None:
        original = {}
    _apply_retain_keys(original, patch)
    _merge_set_element_order(original, patch, schema)
    for key, patch_value in list(patch.items()):
        field, is_delete_list = key, False
        if key.startswith(DELETE_FROM_PRIMITIVE_LIST):
            field, is_delete_list = _extract_key(key, DELETE_FROM_PRIMITIVE_LIST), True
        if patch_value is None:
            original.pop(field, None)
            continue
        if field not in original:
            if not is_delete_list:
                value, keep = _remove_directives(_discard_nulls(patch_value))
                if keep:
                    original[field] = value
            continue
        current = original[field]
        if _go_type(current) != _go_type(patch_value):
            if not is_delete_list:
                value, keep = _remove_directives(_discard_nulls(patch_value))
                if keep:
                    original[field] = value
                else:
                    del original[field]
            continue
        sub = _child(schema, field)
        if isinstance(current, dict):
            _, strategy = _strategies(sub)
            original[field] = (_merge_map(current, patch_value, sub) if strategy != REPLACE
                               else _discard_nulls(patch_value))
        elif isinstance(current, list):
            _, strategy = _strategies(sub)
            original[field] = _merge_slice_handler(
                _GoSlice.decoded(current), patch_value, sub, strategy, _merge_key(sub),
                is_delete_list)
        else:
            value, keep = _remove_directives(patch_value)
            if keep:
                original[field] = value
            else:
                del original[field]
    return original


def _directive_in_map(directive: Any, patch: dict[str, Any]) -> dict[str, Any]:
    if _go_eq(directive, REPLACE):
        del patch[DIRECTIVE]
        return _discard_nulls(patch)  # type: ignore[no-any-return]
    if _go_eq(directive, DELETE):
        return {}
    raise _bad_patch_type(directive, patch)


def _discard_nulls(value: Any) -> Any:
    """discardNullValuesFromPatch: drop ``null`` map values, recursively."""
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for item in value.values():
            _discard_nulls(item)
    elif isinstance(value, list):
        for item in value:
            _discard_nulls(item)
    return value


def _remove_directives(value: Any) -> tuple[Any, bool]:
    """removeDirectives: the value without ``$patch`` maps, and whether to keep it."""
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return None, False
        for key in list(value):
            inner, keep = _remove_directives(value[key])
            if keep:
                value[key] = inner
            else:
                del value[key]
        return value, True
    if isinstance(value, list):
        kept = []
        for item in value:
            inner, keep = _remove_directives(item)
            if keep:
                kept.append(inner)
        return kept, True
    return value, True


def _extract_key(key: str, prefix: str) -> str:
    parts = key.split("/", 1)
    if len(parts) <= 1 or parts[0] != prefix:
        if prefix == DELETE_FROM_PRIMITIVE_LIST:
            raise SMPError(ERR_BAD_PRIMITIVE_LIST)
        if prefix == SET_ELEMENT_ORDER:
            raise SMPError(ERR_BAD_SET_ORDER)
        raise SMPError(f'fail to find unknown prefix "{prefix}" in {key}')
    return parts[1]


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    if RETAIN_KEYS not in patch:
        return
    retain = patch.pop(RETAIN_KEYS)
    if not isinstance(retain, list) or any(isinstance(v, dict | list) for v in retain):
        raise SMPError(ERR_BAD_RETAIN_KEYS)
    allowed = {_go_key(v) for v in retain}
    for key, value in patch.items():
        if value is None or key.startswith((DELETE_FROM_PRIMITIVE_LIST, SET_ELEMENT_ORDER)):
            continue
        if _go_key(key) not in allowed:
            raise SMPError(ERR_BAD_RETAIN_KEYS)
    for key in [k for k in original if _go_key(k) not in allowed]:
        del original[key]


# ------------------------------------------------------- $setElementOrder


def _merge_set_element_order(original: dict[str, Any], patch: dict[str, Any],
                             schema: Schema | None) -> None:
    """mergePatchIntoOriginal: merge each ordered list, then impose the order."""
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        if not isinstance(order, list):
            raise _bad_arg_type("[]interface {}", order)
        field = _extract_key(key, SET_ELEMENT_ORDER)
        found_original, found_patch = field in original, field in patch
        original_view: _GoSlice | None = None
        patch_list: list[Any] = []
        if found_original:
            if not isinstance(original[field], list):
                raise _bad_arg_type("[]interface {}", original[field])
            original_view = _GoSlice.decoded(original[field])
        if found_patch:
            if not isinstance(patch[field], list):
                raise _bad_arg_type("[]interface {}", patch[field])
            patch_list = patch[field]
        sub = _child(schema, field)
        _, strategy = _strategies(sub)
        merge_key = _merge_key(sub)
        _validate_set_order(patch_list, order, merge_key)
        if original_view is not None and not found_patch:
            merged = original_view.items()
        elif original_view is None and found_patch:
            merged = _remove_directives(patch_list)[0]
        elif original_view is not None:
            merged = _merge_slice_handler(original_view, patch_list, sub, strategy, merge_key,
                                          False)
        else:
            continue
        if not merge_key:
            in_order, server_only = _partition_primitives(merged, order)
        else:
            in_order, server_only = _partition_maps(merged, order, merge_key)
        server_order = original_view.items() if original_view is not None else []
        kind = _slice_element_type(server_order, patch_list)
        original[field] = _normalize_element_order(in_order, server_only, order, server_order,
                                                   merge_key, kind)
        patch.pop(field, None)


def _validate_set_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    if not order or not patch_list:
        return
    non_delete = _extract_to_delete(patch_list)[0] if merge_key else patch_list
    p = s = 0
    while p < len(non_delete) and s < len(order):
        if isinstance(non_delete[p], dict) and DIRECTIVE in non_delete[p]:
            p += 1
            continue
        if _merge_key_equal(non_delete[p], order[s], merge_key):
            p += 1
        s += 1
    if p < len(non_delete) and s >= len(order):
        raise SMPError(f"the order in patch list:\n{go_fmt(patch_list)}\n doesn't match "
                       f"{SET_ELEMENT_ORDER} list:\n{go_fmt(order)}")


def _merge_key_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _go_eq(left, right)
    if not isinstance(left, dict):
        raise _bad_arg_type("map[string]interface {}", left)
    if not isinstance(right, dict):
        raise _bad_arg_type("map[string]interface {}", right)
    if merge_key not in left:
        raise _no_merge_key(left, merge_key)
    if merge_key not in right:
        raise _no_merge_key(right, merge_key)
    return _go_eq(left[merge_key], right[merge_key])


# -------------------------------------------------------------- mergeSlice


def _merge_slice_handler(original: _GoSlice, patch: list[Any], schema: Schema | None,
                         strategy: str, merge_key: str, is_delete_list: bool) -> list[Any]:
    if strategy == MERGE or is_delete_list:
        return _merge_slice(original, patch, _items(schema), merge_key, is_delete_list,
                            schema)
    return _discard_nulls(patch)  # type: ignore[no-any-return]


def _merge_slice(original: _GoSlice, patch: list[Any], item_schema: Schema | None,
                 merge_key: str, is_delete_list: bool, schema: Schema | None) -> list[Any]:
    if original.length == 0 and not patch:
        return original.items()
    kind = _slice_element_type(original.items(), patch)
    if kind != "map":
        if is_delete_list:
            drop = {_go_key(v) for v in patch}
            return [v for v in original.items() if _go_key(v) not in drop]
        merged = _dedupe_scalars(original.append(*patch)).items()
        patch_order: list[Any] | None = patch
    else:
        if not merge_key:
            raise SMPError(f"cannot merge lists without merge key for {_schema_name(schema)}")
        original, patch_order = _merge_special_elements(original, patch, merge_key)
        merged = _merge_plain_elements(original, patch_order or [], merge_key,
                                       item_schema).items()
    ordered = patch_order or []
    if not merge_key:
        in_patch, server_only = _partition_primitives(merged, ordered)
    else:
        in_patch, server_only = _partition_maps(merged, ordered, merge_key)
    return _normalize_element_order(in_patch, server_only, ordered, original.items(),
                                    merge_key, kind)


def _merge_special_elements(original: _GoSlice, patch: list[Any],
                            merge_key: str) -> tuple[_GoSlice, list[Any] | None]:
    plain = _GoSlice([], 0, 0, 0)
    replace = False
    for item in patch:
        if DIRECTIVE not in item:
            plain = plain.append(item)
            continue
        directive = item[DIRECTIVE]
        if _go_eq(directive, DELETE):
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            original = _delete_matching(original, merge_key, item[merge_key])
        elif _go_eq(directive, REPLACE):
            replace = True
        elif _go_eq(directive, MERGE):
            raise SMPError("merging lists cannot yet be specified in the patch")
        else:
            raise _bad_patch_type(directive, item)
    if replace:
        return plain, None
    return original, plain.items()


def _find(items: list[Any], key: str, value: Any) -> int:
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise SMPError(f"value for key {i} is not a map")
        if key in item and _go_eq(item[key], value):
            return i
    return -1


def _delete_matching(original: _GoSlice, key: str, value: Any) -> _GoSlice:
    while (i := _find(original.items(), key, value)) >= 0:
        rest = original.reslice(i + 1, original.length).items()
        original = original.reslice(0, i).append(*rest)
    return original


def _merge_plain_elements(original: _GoSlice, patch: list[Any], merge_key: str,
                          item_schema: Schema | None) -> _GoSlice:
    for item in patch:
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        i = _find(original.items(), merge_key, item[merge_key])
        if i >= 0:
            original.set(i, _merge_map(original.get(i), item, item_schema))
        else:
            original = original.append(_discard_nulls(item))
    return original


def _dedupe_scalars(s: _GoSlice) -> _GoSlice:
    """deduplicateScalars, swaps and all (it reorders through the backing array)."""
    length = s.length - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if _go_eq(s.get(i), s.get(j)):
                s.set(j, s.get(length))
                s = s.reslice(0, length)
                length -= 1
                j -= 1
            j += 1
        i += 1
    return s


def _slice_element_type(*lists: list[Any]) -> str:
    previous = ""
    for items in lists:
        for item in items:
            current = "map" if isinstance(item, dict) else _go_type(item)
            if not previous:
                previous = current
                if current == "[]interface {}":
                    raise SMPError(ERR_LIST_OF_LISTS, unprocessable=True)
            elif previous != current:
                raise SMPError(
                    f"list element types are not identical: {go_fmt([list(x) for x in lists])}")
    if not previous:
        raise SMPError("no elements in any of the given slices")
    return previous


def _extract_to_delete(items: list[Any]) -> tuple[list[Any], list[Any]]:
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type("map[string]interface {}", item)
        (delete if DIRECTIVE in item and _go_eq(item[DIRECTIVE], DELETE) else keep).append(item)
    return keep, delete


def _partition_primitives(items: list[Any], by: list[Any]) -> tuple[list[Any], list[Any]]:
    present = {_go_key(v) for v in by}
    inside = [v for v in items if _go_key(v) in present]
    return inside, [v for v in items if _go_key(v) not in present]


def _partition_maps(items: list[Any], by: list[Any],
                    merge_key: str) -> tuple[list[Any], list[Any]]:
    inside: list[Any] = []
    outside: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type("map[string]interface {}", item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        (inside if _find(by, merge_key, item[merge_key]) >= 0 else outside).append(item)
    return inside, outside


# ------------------------------------------------------------------- order


def _index(items: list[Any], value: Any, merge_key: str, kind: str) -> int:
    get: Callable[[Any], Any]
    if kind == "map":
        def get(item: Any) -> Any:
            return item.get(merge_key) if isinstance(item, dict) else None
    else:
        def get(item: Any) -> Any:
            return item
    wanted = get(value)
    for i, item in enumerate(items):
        if _go_eq(wanted, get(item)):
            return i
    return -1


def _normalize_element_order(in_patch: list[Any], server_only: list[Any],
                             patch_order: list[Any], server_order: list[Any],
                             merge_key: str, kind: str) -> list[Any]:
    in_patch = _normalize_slice_order(in_patch, patch_order, merge_key, kind)
    server_only = _normalize_slice_order(server_only, server_order, merge_key, kind)
    return _merge_sorted(server_only, in_patch, server_order, merge_key, kind)


def _normalize_slice_order(to_sort: list[Any], order: list[Any], merge_key: str,
                           kind: str) -> list[Any]:
    to_delete: list[Any] = []
    if kind == "map":
        for item in (*to_sort, *order):
            if not isinstance(item, dict):
                raise _bad_arg_type("map[string]interface {}", item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
        to_sort, to_delete = _extract_to_delete(to_sort)
    items = list(to_sort)

    def less(a: Any, b: Any) -> bool:
        ia = _index(order, a, merge_key, kind)
        if ia >= 0:
            ib = _index(order, b, merge_key, kind)
            if ib >= 0:
                return ia < ib
        return True

    if len(items) <= 20:  # sort.SliceStable is an insertion sort for small slices
        for i in range(1, len(items)):
            j = i
            while j > 0 and less(items[j], items[j - 1]):
                items[j], items[j - 1] = items[j - 1], items[j]
                j -= 1
    else:
        big = len(order)
        items.sort(key=lambda v: pos if (pos := _index(order, v, merge_key, kind)) >= 0
                   else big)
    return items + to_delete


def _merge_sorted(left: list[Any], right: list[Any], server_order: list[Any],
                  merge_key: str, kind: str) -> list[Any]:
    """mergeSortedSlice: interleave server-only items into the patch items."""
    out: list[Any] = []
    i = j = 0
    while i < len(left) and j < len(right):
        li = _index(server_order, left[i], merge_key, kind)
        ri = _index(server_order, right[j], merge_key, kind)
        if li >= 0 and ri >= 0 and li < ri:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def canonical_json(value: Any) -> str:
    """Compact JSON as Go's encoder writes it (sorted keys, HTML-safe)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
