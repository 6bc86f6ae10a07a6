"""Field paths and field sets: what server-side apply tracks ownership of.

Split off :mod:`.apply`. Path elements (``f:``, ``k:``, ``v:``, ``i:``) and
their ``fieldsV1`` encoding, the schema shapes that decide which values are
owned as a whole, and ``TypedValue.ToFieldSet`` (:func:`field_set`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from .gofmt import go_value as go_fmt
from .patch_smp import canonical_json, json_kind
from .schema_model import ANY, FREE_FORM, LIST, MAP, OBJECT, Schema

PE = tuple[str, Any]
Path = tuple[PE, ...]

_CORE = "io.k8s.api.core.v1."
#: List-map key fields with a schema default (the OpenAPI ``default``: the
#: ``+default="TCP"`` markers of k8s.io/api core/v1).
_KEY_DEFAULTS = {(_CORE + "ContainerPort", "protocol"): "TCP",
                 (_CORE + "ServicePort", "protocol"): "TCP"}

_STATUS: PE = ("f", "status")


class _DecodeError(Exception):
    pass


# ================================================================ path elements


def _key_pe(fields: Mapping[str, Any]) -> PE:
    return "k", tuple(sorted((k, canonical_json(v)) for k, v in fields.items()))


def _pe_text(pe: PE) -> str:
    kind, value = pe
    if kind == "f":
        return f"f:{value}"
    if kind == "k":
        return "k:{" + ",".join(f"{canonical_json(n)}:{v}" for n, v in value) + "}"
    if kind == "v":
        return f"v:{value}"
    return f"i:{value}"


def _parse_pe(text: str) -> PE:
    prefix, _, rest = text.partition(":")
    try:
        if prefix == "f":
            return "f", rest
        if prefix == "k":
            keys = json.loads(rest)
            if not isinstance(keys, dict):
                raise ValueError("keys must be an object")
            return _key_pe(keys)
        if prefix == "v":
            return "v", canonical_json(json.loads(rest))
        if prefix == "i":
            return "i", int(rest)
    except ValueError as exc:
        raise _DecodeError(f"parsing JSON: {exc}") from None
    raise _DecodeError(f"unknown path element prefix: {text!r}")


def _value_order(value: Any) -> tuple[Any, ...]:
    """structured-merge-diff's value.Compare as a sort key."""
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, float(value))
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, list):
        return (3, tuple(_value_order(v) for v in value))
    if isinstance(value, dict):
        return (4, tuple((k, _value_order(v)) for k, v in sorted(value.items())))
    return (5,)


def _pe_order(pe: PE) -> tuple[Any, ...]:
    kind, value = pe
    if kind == "f":
        return (0, value)
    if kind == "k":
        return (1, tuple((n, _value_order(json.loads(v))) for n, v in value))
    if kind == "v":
        return (2, _value_order(json.loads(value)))
    return (3, value)


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _value_string(value: Any) -> str:
    """value.ToString, as paths print key values."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return _go_quote(value)
    return go_fmt(value)


def path_string(path: Path) -> str:
    """``.spec.containers[name="web"].image`` (fieldpath.Path.String)."""
    out = []
    for kind, value in path:
        if kind == "f":
            out.append("." + value)
        elif kind == "k":
            out.append("[" + ",".join(f"{n}={_value_string(json.loads(v))}"
                                      for n, v in value) + "]")
        elif kind == "v":
            out.append(f"[={_value_string(json.loads(value))}]")
        else:
            out.append(f"[{value}]")
    return "".join(out)


# ==================================================================== fieldsV1


class _Node:
    __slots__ = ("children", "members")

    def __init__(self) -> None:
        self.members: set[PE] = set()
        self.children: dict[PE, _Node] = {}


def _trie(paths: set[Path]) -> _Node:
    root = _Node()
    for path in paths:
        node = root
        for pe in path[:-1]:
            node = node.children.setdefault(pe, _Node())
        node.members.add(path[-1])
    return root


def encode_fields(paths: set[Path]) -> dict[str, Any]:
    """A field set as ``fieldsV1``."""
    def emit(node: _Node, owned: bool) -> dict[str, Any]:
        out: dict[str, Any] = {".": {}} if owned else {}
        for pe in sorted(node.members | node.children.keys(), key=_pe_order):
            child = node.children.get(pe)
            out[_pe_text(pe)] = emit(child, pe in node.members) if child else {}
        return out
    return emit(_trie(paths), False)


def decode_fields(encoded: Any, prefix: Path = ()) -> set[Path]:
    """``fieldsV1`` back to a field set."""
    if not isinstance(encoded, dict):
        raise _DecodeError(f"expected an object, got {json_kind(encoded)}")
    out: set[Path] = set()
    for key, value in encoded.items():
        if key == ".":
            if prefix:
                out.add(prefix)
            continue
        path = (*prefix, _parse_pe(key))
        if not isinstance(value, dict):
            raise _DecodeError(f"expected an object, got {json_kind(value)}")
        if value:
            out |= decode_fields(value, path)
        else:
            out.add(path)
    return out


def _iterate(paths: set[Path]) -> Iterator[Path]:
    """Set.Iterate's order: a node's own members, then its children."""
    def walk(node: _Node, prefix: Path) -> Iterator[Path]:
        for pe in sorted(node.members, key=_pe_order):
            yield (*prefix, pe)
        for pe in sorted(node.children, key=_pe_order):
            yield from walk(node.children[pe], (*prefix, pe))
    yield from walk(_trie(paths), ())


# ====================================================================== shapes

_GRANULAR_MAPS = ("struct", "map", "deduced")
_GRANULAR_LISTS = ("set", "assoc")


def _shape(schema: Schema | None, value: Any) -> str:
    if schema is None or schema.type in (ANY, FREE_FORM):
        if isinstance(value, dict):
            return "deduced"
        return "atomic" if isinstance(value, list) else "scalar"
    if schema.type == OBJECT:
        # ``+structType=atomic`` on the type (or on the field, which wins).
        return "atomic" if schema.map_type == "atomic" else "struct"
    if schema.type == MAP:
        return "atomic" if schema.map_type == "atomic" else "map"
    if schema.type == LIST:
        if schema.list_type == "set":
            return "set"
        if schema.list_type == "map" and (schema.list_map_keys or schema.merge_key):
            return "assoc"
        return "atomic"
    return "scalar"


def _child(schema: Schema | None, shape: str, key: str) -> tuple[Schema | None, bool]:
    """(schema of member ``key``, whether it is a declared struct field)."""
    if shape == "struct" and schema is not None and schema.fields is not None:
        sub = schema.fields.get(key)
        return sub, sub is not None
    if shape == "map" and schema is not None:
        return schema.items, False
    return None, False


def _step(schema: Schema | None, pe: PE) -> Schema | None:
    if schema is None:
        return None
    if pe[0] == "f":
        return schema.child(pe[1])
    return schema.items if schema.type == LIST else None


class _ItemError(Exception):
    pass


def _item_pe(schema: Schema, shape: str, item: Any) -> PE:
    if shape == "set":
        return "v", canonical_json(item)
    if not isinstance(item, dict):
        raise _ItemError("associative list with keys may not have non-map elements")
    keys: dict[str, Any] = {}
    item_name = schema.items.name if schema.items is not None else ""
    for key in schema.list_map_keys or (schema.merge_key,):
        if key in item:
            keys[key] = item[key]
        elif (item_name, key) in _KEY_DEFAULTS:
            keys[key] = _KEY_DEFAULTS[(item_name, key)]
        else:
            raise _ItemError(f'associative list with keys has an element that omits key field '
                             f'"{key}" (and doesn\'t have default value)')
    return _key_pe(keys)


def _item_pes(schema: Schema, shape: str, items: list[Any]) -> list[PE]:
    """Item path elements; items that cannot be keyed keep a positional one."""
    out = []
    for i, item in enumerate(items):
        try:
            out.append(_item_pe(schema, shape, item))
        except _ItemError:
            out.append(("i", i))
    return out


# ================================================================== field sets


def field_set(value: Any, schema: Schema | None, *, strict: bool = False,
              problems: list[str] | None = None) -> set[Path]:
    """TypedValue.ToFieldSet; with ``strict`` also collect typing problems."""
    out: set[Path] = set()
    _walk_set(value, schema, (), out, problems if problems is not None else [], strict)
    return out


def _walk_set(value: Any, schema: Schema | None, path: Path, out: set[Path],
              problems: list[str], strict: bool) -> None:
    shape = _shape(schema, value)
    if value is None or shape in ("scalar", "atomic"):
        out.add(path)
        return
    where = path_string(path) or "."
    if shape in _GRANULAR_MAPS:
        if not isinstance(value, dict):
            if strict:
                problems.append(f"{where}: expected map, got {json_kind(value)}")
            out.add(path)
            return
        for key, item in value.items():
            sub, declared = _child(schema, shape, key)
            sub_path = (*path, ("f", key))
            if shape == "struct" and not declared and strict:
                problems.append(f"{path_string(sub_path)}: field not declared in schema")
                continue
            _walk_set(item, sub, sub_path, out, problems, strict)
            if item is None or item == {} or not declared:
                out.add(sub_path)
        return
    assert schema is not None
    if not isinstance(value, list):
        if strict:
            problems.append(f"{where}: expected list, got {json_kind(value)}")
        out.add(path)
        return
    seen: set[PE] = set()
    for i, item in enumerate(value):
        try:
            pe = _item_pe(schema, shape, item)
        except _ItemError as exc:
            if strict:
                problems.append(f"{where}: element {i}: {exc}")
            continue
        if pe in seen and strict:
            problems.append(f"{where}: duplicate entries for key {path_string((pe,))}")
        seen.add(pe)
        _walk_set(item, schema.items, (*path, pe), out, problems, strict)
        out.add((*path, pe))


def _ensure_named(paths: set[Path], root: Schema) -> set[Path]:
    """EnsureNamedFieldsAreMembers: struct fields with owned children are owned too."""
    out = set(paths)
    for path in paths:
        node: Schema | None = root
        for i, pe in enumerate(path[:-1]):
            if (pe[0] == "f" and node is not None and node.type == OBJECT
                    and node.fields is not None and pe[1] in node.fields):
                out.add(path[:i + 1])
            node = _step(node, pe)
    return out


def _without_ignored(paths: set[Path]) -> set[Path]:
    """RecursiveDifference with the reset fields (``status``)."""
    return {p for p in paths if not p or p[0] != _STATUS}


def _with_prefix(paths: set[Path], pe: PE) -> set[Path]:
    return {p[1:] for p in paths if len(p) > 1 and p[0] == pe}
