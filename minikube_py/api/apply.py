"""Server-side apply and field ownership (``metadata.managedFields``).

A port of the parts of ``sigs.k8s.io/structured-merge-diff`` (v4) and
``k8s.io/apimachinery/pkg/util/managedfields`` that the API server runs for
``application/apply-patch+yaml`` and for ordinary writes.

Field sets
----------
A field is a path of elements: ``f:<name>`` (a struct field or map key),
``k:{"name":"web"}`` (an item of an associative list, by its list-map keys,
defaults filled in -- a container port without ``protocol`` is keyed
``{"containerPort":80,"protocol":"TCP"}``), ``v:"a"`` (an item of a set) and
``i:<n>``. Schema shapes follow the ``x-kubernetes-list-type`` /
``list_map_keys`` / ``map_type`` markers of :mod:`.schema`, plus the structs
``k8s.io/api`` tags ``+structType=atomic`` (``LabelSelector``,
``LocalObjectReference``, ``ObjectReference``, the key/field selectors,
``NodeSelector``...), which are owned as a whole. Sets are stored in
``fieldsV1`` exactly as Kubernetes encodes them (``"."`` marks an element
that is owned itself and also has owned children).

:func:`apply_patch`
    Create-or-update from an apply configuration. The configuration must have
    the kind's ``apiVersion``/``kind`` (else 400 ``invalid object type:
    apps/v1, Kind=Pod``) and no ``metadata.managedFields`` (400). Fields in the
    configuration are merged into the live object (associative lists by key,
    sets by value, atomic values replaced); fields the same manager applied
    last time and omits now are removed unless another manager owns them; a
    field owned by another manager whose value would change is a 409
    ``Apply failed with 1 conflict: conflict with "kubectl-client-side-apply"
    using v1: .spec.replicas`` unless ``force``, which moves ownership to the
    applier. ``status`` is ignored, as the main resource's reset fields are.
    As in Kubernetes, the manager ``kubectl`` may take over fields recorded in
    the ``kubectl.kubernetes.io/last-applied-configuration`` annotation whose
    live value it does not change, and keeps that annotation in sync.
    An apply that changes nothing keeps the manager's old timestamp.

:func:`record_update`
    For every other write (PUT, JSON/merge/strategic patches). Like the API
    server, ownership is only tracked for objects that already carry
    ``managedFields``: an object without them is returned unchanged (Kubernetes
    also tracks objects from their creation; minikube-py starts tracking at the
    first server-side apply, which records everything set before it under the
    ``before-first-apply`` manager, as Kubernetes does for untracked objects).
    When tracked, the writer gets an ``Update`` entry owning what it changed,
    and those fields leave the other managers' sets. A write that sets
    ``managedFields`` replaces them; ``managedFields: [{}]`` clears them.

Objects are never modified in place; both functions return new objects.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import errors, kinds
from .access import meta as _meta
from .gofmt import go_value as go_fmt
from .patch_smp import canonical_json, json_kind
from .schema import field_schema
from .schema_model import ANY, FREE_FORM, LIST, MAP, OBJECT, Schema
from .timefmt import parse_time

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
BEFORE_FIRST_APPLY = "before-first-apply"
ANCIENT_CHANGES = "ancient-changes"
MAX_UPDATE_MANAGERS = 10
_MAX_ANNOTATIONS_BYTES = 256 * 1024

PE = tuple[str, Any]
Path = tuple[PE, ...]

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_CORE = "io.k8s.api.core.v1."
#: Structs marked ``+structType=atomic`` in k8s.io/api and apimachinery.
ATOMIC_STRUCTS = frozenset({
    _META + "LabelSelector",
    _CORE + "LocalObjectReference",
    _CORE + "ObjectReference",
    _CORE + "TypedLocalObjectReference",
    _CORE + "ObjectFieldSelector",
    _CORE + "ResourceFieldSelector",
    _CORE + "ConfigMapKeySelector",
    _CORE + "SecretKeySelector",
    _CORE + "NodeSelector",
    _CORE + "NodeSelectorTerm",
    _CORE + "TopologySelectorTerm",
})
#: List-map key fields with a schema default (the OpenAPI ``default``).
_KEY_DEFAULTS = {(_CORE + "ContainerPort", "protocol"): "TCP"}

_STATUS: PE = ("f", "status")
#: stripMetaManager: never owned by anyone.
_STRIPPED: frozenset[Path] = frozenset({
    (("f", "apiVersion"),), (("f", "kind"),), (("f", "metadata"),),
    *((("f", "metadata"), ("f", name)) for name in (
        "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName",
        "generation", "managedFields", "resourceVersion")),
})


class _Missing:
    """An absent value (distinct from JSON ``null``)."""


MISSING: Any = _Missing()


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
        return "atomic" if schema.name in ATOMIC_STRUCTS else "struct"
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


# ======================================================================= merge


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(v, right[k]) for k, v in left.items())
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right,
                                                                            strict=True))
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    return bool(left == right) and (left is None) == (right is None)


def _is(value: Any, kind: type) -> bool:
    return value is MISSING or isinstance(value, kind)


def merge(lhs: Any, rhs: Any, schema: Schema | None) -> Any:
    """TypedValue.Merge: ``rhs`` (the configuration) merged into ``lhs``."""
    shape = _shape(schema, rhs if rhs is not MISSING else lhs)
    if shape in _GRANULAR_MAPS and _is(lhs, dict) and _is(rhs, dict):
        left = lhs if lhs is not MISSING else {}
        right = rhs if rhs is not MISSING else {}
        if not left and not right:
            return rhs if rhs is not MISSING else lhs
        out = {}
        for key, value in left.items():
            out[key] = merge(value, right.get(key, MISSING), _child(schema, shape, key)[0])
        for key, value in right.items():
            if key not in left:
                out[key] = merge(MISSING, value, _child(schema, shape, key)[0])
        return out
    if shape in _GRANULAR_LISTS and _is(lhs, list) and _is(rhs, list):
        assert schema is not None
        left = lhs if lhs is not MISSING else []
        right = rhs if rhs is not MISSING else []
        if not left and not right:
            return rhs if rhs is not MISSING else lhs
        return _merge_list(left, right, schema, shape)
    return rhs if rhs is not MISSING else lhs


def _merge_list(lhs: list[Any], rhs: list[Any], schema: Schema, shape: str) -> list[Any]:
    """visitListItems: lhs-only items keep their place, shared ones follow rhs order."""
    l_pes, r_pes = _item_pes(schema, shape, lhs), _item_pes(schema, shape, rhs)
    l_map = dict(zip(l_pes, lhs, strict=True))
    r_map = dict(zip(r_pes, rhs, strict=True))
    shared = [pe for pe in r_pes if pe in l_map]
    next_shared = shared.pop(0) if shared else None
    items = schema.items
    out: list[Any] = []
    li = ri = 0
    while li < len(l_pes) or ri < len(r_pes):
        if li < len(l_pes) and ri < len(r_pes):
            pe = l_pes[li]
            if pe == r_pes[ri]:
                out.append(merge(l_map[pe], r_map[pe], items))
                li, ri = li + 1, ri + 1
                next_shared = shared.pop(0) if shared else None
                continue
            if pe in r_map and next_shared is not None and next_shared != pe:
                li += 1
                continue
        if li < len(l_pes) and l_pes[li] not in r_map:
            out.append(merge(l_map[l_pes[li]], MISSING, items))
            li += 1
            continue
        if ri < len(r_pes):
            pe = r_pes[ri]
            out.append(merge(l_map.get(pe, MISSING), r_map[pe], items))
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop(0) if shared else None
        else:
            li += 1  # a shared item already merged from the rhs side
    return out


def compare(lhs: Any, rhs: Any, schema: Schema | None
            ) -> tuple[set[Path], set[Path], set[Path]]:
    """TypedValue.Compare: (added, modified, removed) going from lhs to rhs."""
    added: set[Path] = set()
    modified: set[Path] = set()
    removed: set[Path] = set()
    _compare(lhs, rhs, schema, (), added, modified, removed)
    return added, modified, removed


def _compare(lhs: Any, rhs: Any, schema: Schema | None, path: Path, added: set[Path],
             modified: set[Path], removed: set[Path]) -> None:
    shape = _shape(schema, rhs if rhs is not MISSING else lhs)
    if shape in _GRANULAR_MAPS and _is(lhs, dict) and _is(rhs, dict):
        left = lhs if lhs is not MISSING else {}
        right = rhs if rhs is not MISSING else {}
        for key in [*left, *(k for k in right if k not in left)]:
            _compare(left.get(key, MISSING), right.get(key, MISSING),
                     _child(schema, shape, key)[0], (*path, ("f", key)), added, modified,
                     removed)
    elif shape in _GRANULAR_LISTS and _is(lhs, list) and _is(rhs, list):
        assert schema is not None
        left = lhs if lhs is not MISSING else []
        right = rhs if rhs is not MISSING else []
        l_map = dict(zip(_item_pes(schema, shape, left), left, strict=True))
        r_map = dict(zip(_item_pes(schema, shape, right), right, strict=True))
        for pe, item in r_map.items():
            _compare(l_map.get(pe, MISSING), item, schema.items, (*path, pe), added, modified,
                     removed)
        for pe, item in l_map.items():
            if pe not in r_map:
                _compare(item, MISSING, schema.items, (*path, pe), added, modified, removed)
    else:
        if lhs is MISSING:
            added.add(path)
        elif rhs is MISSING:
            removed.add(path)
        elif not _same(lhs, rhs):
            modified.add(path)
        return
    if lhs is MISSING:
        added.add(path)
    elif rhs is MISSING:
        removed.add(path)


def remove_items(value: Any, schema: Schema | None, paths: set[Path]) -> Any:
    """TypedValue.RemoveItems: drop every owned path (with its subtree)."""
    shape = _shape(schema, value)
    if shape in _GRANULAR_MAPS and isinstance(value, dict):
        if not value:
            return None
        out = {}
        for key, item in value.items():
            pe: PE = ("f", key)
            if (pe,) in paths:
                continue
            sub = _with_prefix(paths, pe)
            out[key] = remove_items(item, _child(schema, shape, key)[0], sub) if sub else item
        return out or None
    if shape in _GRANULAR_LISTS and isinstance(value, list):
        assert schema is not None
        if not value:
            return None
        kept = []
        for pe, item in zip(_item_pes(schema, shape, value), value, strict=True):
            if (pe,) in paths:
                continue
            sub = _with_prefix(paths, pe)
            kept.append(remove_items(item, schema.items, sub) if sub else item)
        return kept or None
    return value


def _drop_nulls(value: Any) -> Any:
    """What a typed round trip does to ``null``: the field is simply absent."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value if v is not None]
    return value


# ============================================================= managed fields


class _DecodeError(Exception):
    pass


@dataclass
class _Entry:
    manager: str
    operation: str
    api_version: str
    time: str | None
    subresource: str = ""
    fields: set[Path] = field(default_factory=set)

    @property
    def applied(self) -> bool:
        return self.operation == "Apply"


def identifier(manager: str, operation: str, api_version: str, subresource: str = "") -> str:
    """BuildManagerIdentifier: the JSON that names a manager in conflicts."""
    parts = []
    if manager:
        parts.append(f'"manager":{canonical_json(manager)}')
    if operation:
        parts.append(f'"operation":{canonical_json(operation)}')
    if api_version and operation != "Apply":
        parts.append(f'"apiVersion":{canonical_json(api_version)}')
    if subresource:
        parts.append(f'"subresource":{canonical_json(subresource)}')
    return "{" + ",".join(parts) + "}"


def _entry_id(entry: _Entry) -> str:
    return identifier(entry.manager, entry.operation, entry.api_version, entry.subresource)


def _is_reset(encoded: Any) -> bool:
    return isinstance(encoded, list) and bool(encoded) and all(e == {} for e in encoded)


def decode_managed_fields(encoded: Any) -> dict[str, _Entry]:
    """decodeManagedFields: entries by manager identifier."""
    if encoded is None:
        return {}
    if not isinstance(encoded, list):
        raise _DecodeError(f"expected a list, got {json_kind(encoded)}")
    out: dict[str, _Entry] = {}
    for i, raw in enumerate(encoded):
        if not isinstance(raw, dict):
            raise _DecodeError(f"expected an object in managed fields entry {i}")
        operation = raw.get("operation")
        if operation not in ("Apply", "Update"):
            raise _DecodeError("operation must be `Apply` or `Update`")
        if not raw.get("apiVersion"):
            raise _DecodeError("apiVersion must not be empty")
        fields_type = raw.get("fieldsType")
        if not fields_type:
            raise _DecodeError(f"missing fieldsType in managed fields entry {i}")
        if fields_type != "FieldsV1":
            raise _DecodeError(f'invalid fieldsType "{fields_type}" in managed fields entry {i}')
        entry = _Entry(str(raw.get("manager") or ""), operation, str(raw["apiVersion"]),
                       raw.get("time"), str(raw.get("subresource") or ""))
        if raw.get("fieldsV1") is not None:
            entry.fields = decode_fields(raw["fieldsV1"])
        out[_entry_id(entry)] = entry
    return out


def _seconds(time: str | None) -> float:
    return int(parse_time(time) or 0)


def encode_managed_fields(managers: Mapping[str, _Entry]) -> list[dict[str, Any]]:
    """The sorted ``managedFields`` list (sortEncodedManagedFields' order)."""
    entries = sorted(managers.values(), key=lambda e: (
        e.operation, _seconds(e.time), e.manager, e.api_version, e.subresource))
    out = []
    for e in entries:
        item: dict[str, Any] = {}
        if e.manager:
            item["manager"] = e.manager
        item["operation"] = e.operation
        item["apiVersion"] = e.api_version
        if e.time:
            item["time"] = e.time
        item["fieldsType"] = "FieldsV1"
        item["fieldsV1"] = encode_fields(e.fields)
        if e.subresource:
            item["subresource"] = e.subresource
        out.append(item)
    return out


def _copy_managers(managers: Mapping[str, _Entry]) -> dict[str, _Entry]:
    return {k: _Entry(e.manager, e.operation, e.api_version, e.time, e.subresource,
                      set(e.fields)) for k, e in managers.items()}


class _Conflicts(Exception):
    def __init__(self, conflicts: dict[str, set[Path]]) -> None:
        super().__init__("conflicts")
        self.conflicts = conflicts


def _print_manager(manager_id: str) -> str:
    try:
        entry = json.loads(manager_id)
    except ValueError:
        return _go_quote(manager_id)
    text = _go_quote(str(entry.get("manager", "")))
    if entry.get("subresource"):
        text += f" with subresource {_go_quote(entry['subresource'])}"
    if entry.get("operation") == "Update":
        text += f" using {entry.get('apiVersion', '')}"
    return text


def _conflict_error(conflicts: Mapping[str, set[Path]]) -> errors.Conflict:
    """NewConflictError: the 409 with one cause per conflicting field."""
    pairs = [(m, p) for m in sorted(conflicts) for p in _iterate(conflicts[m])]
    causes = [{"reason": "FieldManagerConflict", "message": f"conflict with {_print_manager(m)}",
               "field": path_string(p)} for m, p in pairs]
    if len(pairs) == 1:
        manager, path = pairs[0]
        message = (f"Apply failed with 1 conflict: conflict with {_print_manager(manager)}: "
                   f"{path_string(path)}")
    else:
        lines = []
        for manager in sorted(conflicts):
            lines.append(f"conflicts with {_print_manager(manager)}:")
            lines.extend(f"- {path_string(p)}" for m, p in pairs if m == manager)
        message = f"Apply failed with {len(pairs)} conflicts: " + "\n".join(lines)
    return errors.Conflict(message, details={"causes": causes})


# ================================================================ the updater


class _Updater:
    """merge.Updater plus the managers the API server wraps around it."""

    def __init__(self, kind: str) -> None:
        self.info = kinds.by_kind(kind)
        self.schema = field_schema(kind)
        self.version = self.info.api_version

    def update_sets(self, old: Any, new: Any, managers: dict[str, _Entry], workflow: str,
                    force: bool) -> tuple[set[Path], set[Path], set[Path]]:
        """Updater.update: take changed fields from the other managers."""
        added, modified, removed = (_without_ignored(s) for s in compare(old, new, self.schema))
        changed = added | modified
        conflicts = {}
        for manager_id, entry in managers.items():
            if manager_id == workflow:
                continue
            if taken := entry.fields & changed:
                conflicts[manager_id] = taken
        if conflicts and not force:
            raise _Conflicts(conflicts)
        for manager_id, entry in list(managers.items()):
            if manager_id == workflow:
                continue
            entry.fields -= conflicts.get(manager_id, set()) | removed
            if not entry.fields:
                del managers[manager_id]
        return added, modified, removed

    def record(self, old: Any, new: Any, managers: dict[str, _Entry], manager: str,
               now: str, *, from_empty: bool = False) -> None:
        """managedFieldsUpdater.Update + Updater.Update for an ``Update`` operation."""
        added, modified, removed = self.update_sets(old, new, managers, "", True)
        changed = _without_ignored((added | modified) - removed) - _STRIPPED
        if from_empty:
            changed = self._without_struct_nodes(changed)
        if changed:
            manager_id = identifier(manager, "Update", self.version)
            previous = managers.get(manager_id)
            fields = changed | (previous.fields if previous else set())
            managers[manager_id] = _Entry(manager, "Update", self.version, now, "", fields)
        self.cap(managers)

    def _without_struct_nodes(self, paths: set[Path]) -> set[Path]:
        """Compared with Go's zero object, nested structs are never "added"."""
        out = set()
        for path in paths:
            node: Schema | None = self.schema
            for pe in path:
                node = _step(node, pe)
            has_children = any(len(p) > len(path) and p[:len(path)] == path for p in paths)
            if (path and path[-1][0] == "f" and node is not None and node.type == OBJECT
                    and _shape(node, {}) == "struct" and has_children):
                continue
            out.add(path)
        return out

    def apply(self, live: dict[str, Any], config: dict[str, Any], managers: dict[str, _Entry],
              manager: str, force: bool) -> Any:
        """Updater.Apply; returns the new object, or MISSING when nothing changed."""
        new = merge(live, config, self.schema)
        applier = identifier(manager, "Apply", self.version)
        last = managers.get(applier)
        managers[applier] = _Entry(manager, "Apply", self.version,
                                   last.time if last else None, "",
                                   _without_ignored(field_set(config, self.schema)))
        if last is not None and last.fields:
            new = self.prune(new, managers, last.fields)
        self.update_sets(live, new, managers, applier, force)
        return MISSING if _same(live, _drop_nulls(new)) else new

    def prune(self, merged: Any, managers: Mapping[str, _Entry], last: set[Path]) -> Any:
        """Remove what the applier owned last time, owns no more, and nobody else owns."""
        schema = self.schema

        def ensure(paths: set[Path]) -> set[Path]:
            return _ensure_named(paths, schema)

        pruned = remove_items(merged, schema, ensure(last))
        managed: set[Path] = set().union(*(e.fields for e in managers.values()))
        merged_set = ensure(field_set(merged, schema))
        pruned = remove_items(merged, schema, merged_set - (
            ensure(field_set(pruned, schema)) | ensure(managed)))
        return remove_items(merged, schema, (merged_set - ensure(field_set(pruned, schema)))
                            & ensure(last))

    def cap(self, managers: dict[str, _Entry]) -> None:
        """capManagersManager: fold the oldest Update entries into ``ancient-changes``."""
        updaters = [m for m, e in managers.items() if not e.applied]
        if len(updaters) <= MAX_UPDATE_MANAGERS:
            return
        updaters.sort(key=lambda m: (_seconds(managers[m].time), m))
        first_for_version: dict[str, str] = {}
        length = len(updaters)
        for manager_id in updaters:
            if length <= MAX_UPDATE_MANAGERS:
                break
            entry = managers[manager_id]
            bucket = identifier(ANCIENT_CHANGES, "Update", entry.api_version)
            first = first_for_version.get(entry.api_version)
            if first is None:
                first_for_version[entry.api_version] = manager_id
                continue
            if bucket not in managers:
                moved = managers.pop(first)
                managers[bucket] = _Entry(ANCIENT_CHANGES, "Update", moved.api_version,
                                          moved.time, "", moved.fields)
            managers[bucket].fields |= entry.fields
            managers[bucket].time = entry.time
            del managers[manager_id]
            length -= 1


# ==================================================================== entries




def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
    return obj


def _set_managed_fields(obj: dict[str, Any], managers: Mapping[str, _Entry]) -> dict[str, Any]:
    encoded = encode_managed_fields(managers)
    if encoded:
        meta = obj.setdefault("metadata", {})
        meta["managedFields"] = encoded
    else:
        _without_managed_fields(obj)
    return obj


def _gvk_string(api_version: Any, kind: Any) -> str:
    """schema.GroupVersionKind.String() of what the configuration says."""
    group = version = ""
    if isinstance(api_version, str) and api_version:
        parts = api_version.split("/")
        if len(parts) == 1:
            version = parts[0]
        elif len(parts) == 2:
            group, version = parts
    return f"{group}/{version}, Kind={kind if isinstance(kind, str) else ''}"


def apply_patch(live: Mapping[str, Any] | None, config: Mapping[str, Any], *, kind: str,
                manager: str, force: bool = False, now: str) -> dict[str, Any]:
    """Server-side apply ``config`` to ``live`` (``None``: create). See the module doc."""
    if not isinstance(config, Mapping):
        raise errors.BadRequest(f"error decoding YAML: json: cannot unmarshal "
                                f"{json_kind(config)} into Go value of type "
                                "map[string]interface {}")
    updater = _Updater(kind)
    info = updater.info
    live_obj = copy.deepcopy(dict(live)) if live is not None else None
    managers: dict[str, _Entry] = {}
    if live_obj is not None:
        try:
            managers = decode_managed_fields(_meta(live_obj).get("managedFields"))
        except _DecodeError as exc:
            raise errors.InternalError(f"failed to decode managed fields: {exc}") from None
        _without_managed_fields(live_obj)
    if config.get("apiVersion") != info.api_version or config.get("kind") != info.kind:
        raise errors.BadRequest(
            f"invalid object type: {_gvk_string(config.get('apiVersion'), config.get('kind'))}")
    cfg = copy.deepcopy(dict(config))
    try:
        obj, managers = _apply(updater, live_obj, cfg, managers, manager, force, now)
    except _Conflicts as exc:
        if manager != "kubectl":
            raise _conflict_error(exc.conflicts) from None
        allowed = _allowed_by_last_applied(updater, live_obj)
        if allowed is None:
            raise _conflict_error(exc.conflicts) from None
        rest = {m: paths - allowed for m, paths in exc.conflicts.items() if paths - allowed}
        if rest:
            raise _conflict_error(rest) from None
        obj, managers = _apply(updater, live_obj, cfg, managers, manager, True, now)
    if manager == "kubectl":
        _sync_last_applied(obj, config)
    return _set_managed_fields(obj, managers)


def _apply(updater: _Updater, live: dict[str, Any] | None, cfg: dict[str, Any],
           managers: dict[str, _Entry], manager: str, force: bool,
           now: str) -> tuple[dict[str, Any], dict[str, _Entry]]:
    managers = _copy_managers(managers)
    base = copy.deepcopy(live) if live is not None else {}
    if not managers and live is not None:
        updater.record({}, base, managers, BEFORE_FIRST_APPLY, now, from_empty=True)
    meta = _meta(cfg)
    if meta.get("managedFields", None) is not None:
        raise errors.BadRequest("metadata.managedFields must be nil")
    problems: list[str] = []
    field_set(cfg, updater.schema, strict=True, problems=problems)
    if problems:
        text = problems[0] if len(problems) == 1 else "errors:\n" + "\n".join(
            "  " + p for p in problems)
        info = updater.info
        # Kubernetes answers this with a 500, but the fault is the request's (an
        # unknown field, duplicate list keys): a 400, so hostile or mistaken
        # apply configurations never look like server failures.
        raise errors.BadRequest(
            f"failed to create typed patch object ({meta.get('namespace', '')}/"
            f"{meta.get('name', '')}; {_gvk_string(info.api_version, info.kind)}): {text}")
    cfg.pop("status", None)
    new = updater.apply(base, cfg, managers, manager, force)
    applier = identifier(manager, "Apply", updater.version)
    if new is MISSING:
        result = base
        if applier in managers and managers[applier].time is None:
            managers[applier].time = now
    else:
        result = _drop_nulls(new)
        managers[applier].time = now
    if applier in managers:
        managers[applier].fields -= _STRIPPED
        if not managers[applier].fields:
            del managers[applier]
    updater.cap(managers)
    return result, managers


def _allowed_by_last_applied(updater: _Updater, live: dict[str, Any] | None) -> set[Path] | None:
    """Fields kubectl may take over: in last-applied and unchanged in the live object."""
    annotations = _meta(live or {}).get("annotations")
    text = annotations.get(LAST_APPLIED) if isinstance(annotations, Mapping) else None
    if not text or live is None:
        return None
    try:
        last = json.loads(text)
    except ValueError:
        return None
    if not isinstance(last, dict):
        return None
    problems: list[str] = []
    owned = field_set(last, updater.schema, strict=True, problems=problems)
    if problems:
        return None
    added, modified, _ = compare(live, last, updater.schema)
    return owned - added - modified


def _sync_last_applied(obj: dict[str, Any], config: Mapping[str, Any]) -> None:
    """lastAppliedUpdater: rewrite an existing last-applied annotation."""
    annotations = _meta(obj).get("annotations")
    if not isinstance(annotations, dict) or not annotations.get(LAST_APPLIED):
        return
    applied = copy.deepcopy(dict(config))
    meta = applied.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        meta["annotations"].pop(LAST_APPLIED, None)
    annotations[LAST_APPLIED] = canonical_json(applied) + "\n"
    if sum(len(k) + len(str(v)) for k, v in annotations.items()) > _MAX_ANNOTATIONS_BYTES:
        del annotations[LAST_APPLIED]


def record_update(old: Mapping[str, Any] | None, new: Mapping[str, Any], *, kind: str,
                  manager: str, now: str) -> dict[str, Any]:
    """Ownership bookkeeping for a non-apply write. See the module docstring."""
    result = copy.deepcopy(dict(new))
    incoming = _meta(new).get("managedFields")
    if _is_reset(incoming):
        return _without_managed_fields(result)
    managers: dict[str, _Entry] = {}
    if isinstance(incoming, list) and incoming:
        try:
            managers = decode_managed_fields(incoming)
        except _DecodeError:
            managers = {}
    if not managers and old is not None:
        try:
            managers = decode_managed_fields(_meta(old).get("managedFields"))
        except _DecodeError:
            return _without_managed_fields(result)
    if not managers:
        if "managedFields" in _meta(result):
            _without_managed_fields(result)
        return result
    updater = _Updater(kind)
    before = _without_managed_fields(copy.deepcopy(dict(old))) if old is not None else {}
    after = _without_managed_fields(copy.deepcopy(dict(new)))
    updater.record(before, after, managers, manager, now, from_empty=old is None)
    return _set_managed_fields(result, managers)
