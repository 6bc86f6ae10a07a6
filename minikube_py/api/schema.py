"""The field schema of every served kind, strict decoding, and OpenAPI output.

Contracts
---------
* :func:`decode` is the first thing a manifest meets. It checks the JSON type of
  every field it knows, reports unknown fields, and returns a *deep copy*; the
  input is never modified. ``null`` is accepted anywhere and means "absent"
  (as Go's JSON decoding makes it): object fields set to ``null`` are dropped;
  ``null`` list items and map values become the zero value of their type.
  Problems raise :class:`~minikube_py.api.errors.BadRequest` worded like the
  Kubernetes API server::

      Pod in version "v1" cannot be handled as a Pod: strict decoding error:
      unknown field "spec.containers[0].imagee", unknown field "spec.foo"

  Type errors win over unknown fields (as in Kubernetes, where a failed
  unmarshal is reported before strictness is looked at); all type errors are
  reported, in document order. With ``strict=False`` unknown fields are
  dropped silently (``fieldValidation=Ignore``); :func:`unknown_fields` lists
  them for ``fieldValidation=Warn``.
* :func:`field_schema` gives the root :class:`Schema` of a kind; :func:`lookup`,
  :func:`merge_key` and :func:`patch_strategy` answer the questions a
  strategic-merge-patch engine asks while it walks an object.
* :func:`openapi_schema` renders a kind as an OpenAPI v3 schema carrying the
  ``x-kubernetes-*`` extensions kubectl reads; :func:`openapi_document` renders a
  whole group-version as a ``/openapi/v3/...`` document with shared components.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from . import kinds
from .errors import BadRequest, FieldError, Invalid, NotFound, invalid
from .generated import meta_v1
from .jsoncopy import deep_copy
from .quantity import Quantity, QuantityError
from .schema_model import (
    ANY,
    BOOLEAN,
    FREE_FORM,
    INT_OR_STRING,
    INTEGER,
    LIST,
    MAP,
    NUMBER,
    OBJECT,
    QUANTITY,
    STRING,
    TIME,
    Schema,
)

__all__ = [
    "Schema",
    "decode",
    "describe_value",
    "field_schema",
    "lookup",
    "merge_key",
    "openapi_document",
    "openapi_schema",
    "patch_strategy",
    "swagger_definitions",
    "type_errors",
    "unknown_fields",
]

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}

# RFC 3339 as metav1.Time / MicroTime accept it (fractional seconds optional).
_RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)

_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _base64_error_at(text: str) -> int | None:
    """Where standard padded base64 (what ``encoding/json`` decodes ``[]byte``
    from) goes wrong in ``text``, or ``None`` when it decodes. Like Go, the
    offset is the first byte that cannot be; a string cut short is wrong at
    its end."""
    body = text.rstrip("=")
    padding = len(text) - len(body)
    for i, ch in enumerate(body):
        if ch not in _BASE64:
            return i
    if padding > 2 or len(text) % 4 or (padding and len(body) % 4 == 1):
        return len(body) if padding else len(text) - len(text) % 4
    return None


# --------------------------------------------------------------------- lookups


def field_schema(kind: str) -> Schema:
    """The root :class:`Schema` of ``kind`` (``Pod``, ..., or ``List``).

    Raises :class:`BadRequest` for kinds that have no schema.
    """
    if kind == "List":
        return meta_v1.List
    try:
        return kinds.resource(kind).schema
    except NotFound:
        raise BadRequest(f'no schema for kind "{kind}"') from None


def lookup(kind: str, path: Sequence[str | int]) -> Schema | None:
    """The schema of the value at ``path`` inside an object of ``kind``.

    ``path`` is a sequence of steps: a ``str`` is a field name (or any key of a
    map), an ``int`` steps into the items of a list. ``None`` when the path
    leaves the known schema (unknown field, or inside a free-form value).

    >>> lookup("Pod", ["spec", "containers", 0, "ports"]).merge_key
    'containerPort'
    """
    node: Schema | None = field_schema(kind)
    for step in path:
        if node is None:
            return None
        if isinstance(step, int):
            node = node.items if node.type == LIST else None
        else:
            node = node.child(step)
    return node


def merge_key(kind: str, path: Sequence[str | int]) -> str | None:
    """The ``patchMergeKey`` of the list at ``path`` (``"name"`` for
    ``["spec", "containers"]``), or ``None`` when the list has none."""
    node = lookup(kind, path)
    if node is None or node.type != LIST or not node.merge_key:
        return None
    return node.merge_key


def patch_strategy(kind: str, path: Sequence[str | int]) -> str:
    """The ``patchStrategy`` of the field at ``path``: ``"merge"``,
    ``"merge,retainKeys"``, ``"retainKeys"`` or ``""`` (replace / atomic).

    Lists with ``"merge"`` and a :func:`merge_key` merge item by key; lists with
    ``"merge"`` and no key are merged as sets of primitives; any other list is
    replaced whole. Objects with ``retainKeys`` (``spec.strategy`` of a
    Deployment, the items of ``spec.volumes``) drop fields absent from the patch.
    """
    node = lookup(kind, path)
    return node.patch_strategy if node is not None else ""


# --------------------------------------------------------------------- decoding


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def describe_value(value: Any) -> str:
    """``got ...`` wording for a JSON value of the wrong type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, str):
        return f"string {json.dumps(value)}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"number {value!r}"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


_EXPECTED = {
    STRING: "string",
    INTEGER: "integer",
    NUMBER: "number",
    BOOLEAN: "boolean",
    QUANTITY: "quantity (string or number)",
    INT_OR_STRING: "integer or string",
    TIME: "string (RFC 3339 time)",
    FREE_FORM: "object",
    MAP: "object",
    OBJECT: "object",
    LIST: "array",
}


def _zero(schema: Schema) -> Any:
    """Go's zero value of a type, as JSON: what a ``null`` item becomes."""
    return {
        STRING: "", INTEGER: 0, NUMBER: 0, BOOLEAN: False, QUANTITY: "0", INT_OR_STRING: 0,
        FREE_FORM: {}, MAP: {}, OBJECT: {}, LIST: [],
    }.get(schema.type)


class _Decoder:
    """One decoding pass: collects type errors and unknown field paths."""

    def __init__(self, *, copies: bool = True) -> None:
        #: False: only check (free-form values are not copied).
        self.copies = copies
        self.type_errors: list[str] = []
        self.unknown: list[str] = []
        #: Well-typed values that are still wrong (quantity syntax): field errors.
        self.field_errors: list[FieldError] = []

    def value(self, schema: Schema, value: Any, path: str) -> Any:
        kind = schema.type
        if kind == ANY:
            return deep_copy(value) if self.copies else value
        if kind == OBJECT:
            return self._object(schema, value, path)
        if kind == MAP:
            if not isinstance(value, Mapping):
                return self._wrong(schema, value, path)
            assert schema.items is not None
            out: dict[str, Any] = {}
            for key, item in value.items():
                sub = f"{path}[{key}]"
                out[str(key)] = _zero(schema.items) if item is None else self.value(
                    schema.items, item, sub)
            return out
        if kind == LIST:
            if not isinstance(value, list | tuple):
                return self._wrong(schema, value, path)
            assert schema.items is not None
            return [
                _zero(schema.items) if item is None else self.value(
                    schema.items, item, f"{path}[{i}]")
                for i, item in enumerate(value)
            ]
        if kind == FREE_FORM:
            if not isinstance(value, Mapping):
                return self._wrong(schema, value, path)
            return deep_copy(dict(value)) if self.copies else value
        return self._scalar(schema, value, path)

    def _object(self, schema: Schema, value: Any, path: str) -> Any:
        if not isinstance(value, Mapping):
            return self._wrong(schema, value, path)
        assert schema.fields is not None
        out: dict[str, Any] = {}
        for name, item in value.items():
            sub = _join(path, str(name))
            field = schema.fields.get(name) if isinstance(name, str) else None
            if field is None:
                self.unknown.append(sub)
                continue
            if item is None:
                continue
            out[name] = self.value(field, item, sub)
        return out

    def _scalar(self, schema: Schema, value: Any, path: str) -> Any:
        kind = schema.type
        is_bool = isinstance(value, bool)
        is_int = isinstance(value, int) and not is_bool
        is_number = is_int or isinstance(value, float)
        if kind == STRING and isinstance(value, str):
            if schema.fmt == "byte":
                bad = _base64_error_at(value)
                if bad is not None:
                    self.type_errors.append(f"{path}: illegal base64 data at input byte {bad}")
            return value
        if kind == BOOLEAN and is_bool:
            return value
        if kind == INTEGER and is_int:
            low, high = _INT_RANGES.get(schema.fmt, _INT_RANGES["int64"])
            if not low <= value <= high:
                self.type_errors.append(
                    f"{path}: integer {value} out of range for {schema.fmt or 'int64'}")
            return value
        if kind == NUMBER and is_number:
            return value
        if kind == INT_OR_STRING and (is_int or isinstance(value, str)):
            return value
        if kind == TIME and isinstance(value, str):
            if not _RFC3339.match(value):
                self.type_errors.append(f"{path}: invalid RFC 3339 time {json.dumps(value)}")
            return value
        if kind == QUANTITY and (is_number or isinstance(value, str)):
            self._check_quantity(value, path)
            return value
        return self._wrong(schema, value, path)

    def _check_quantity(self, value: Any, path: str) -> None:
        # Checked here rather than in validation so that nothing after decoding
        # (defaulting, canonical formatting) ever meets an unparsable quantity.
        try:
            Quantity.parse(value)
        except QuantityError as exc:
            self.field_errors.append(invalid(path, value, str(exc)))

    def _wrong(self, schema: Schema, value: Any, path: str) -> None:
        self.type_errors.append(
            f"{path or '<root>'}: expected {_EXPECTED[schema.type]}, got {describe_value(value)}")
        return None


def _resolve(obj: Mapping[str, Any]) -> tuple[str, str]:
    """(kind, version) of a manifest, checked against the registry."""
    if obj.get("kind") == "List" and obj.get("apiVersion") == "v1":
        return "List", "v1"
    info = kinds.for_object(dict(obj))
    return info.kind, info.version


class _Slow(Exception):
    """:func:`_fast` met something only :class:`_Decoder` handles: a ``null``,
    an unknown field, a wrong type or value, a ``dict`` look-alike."""


def _fast(schema: Schema, value: Any) -> Any:
    """What ``_Decoder().value(schema, value, path)`` returns, for a value with
    nothing to report; raises :class:`_Slow` at the first thing the decoder
    would report or treat specially (a ``null`` object field is dropped here
    too; a ``null`` list item or map value is left to the full walk). Most
    writes are well-formed objects from our own loops and clients: this path
    builds no field paths and no error lists. Each schema node is compiled
    once into a check of its own (see :func:`_compile`), so a value costs one
    call per node and no dispatch on the node's type."""
    check = _CHECKS.get(schema)
    if check is None:
        check = _compile(schema)
    return check(value)


_Check = Callable[[Any], Any]
#: Compiled checks by schema node (nodes compare by identity). Filled lazily;
#: an object's check is registered before its fields are compiled (schemas
#: are recursive), so another thread may briefly see it with fields missing:
#: it then gives up (``_Slow``) and the full walk answers, which is correct.
_CHECKS: dict[Schema, _Check] = {}


def _check_for(schema: Schema) -> _Check:
    check = _CHECKS.get(schema)
    return check if check is not None else _compile(schema)


def _compile(schema: Schema) -> _Check:
    """The check :func:`_fast` runs for ``schema``: returns the decoded value
    or raises :class:`_Slow`. Every check refuses ``None``, so containers need
    not look for ``null`` members themselves."""
    kind, fmt = schema.type, schema.fmt
    check: _Check
    if kind == OBJECT:
        fields: dict[str, _Check] = {}
        get = fields.get

        def check(value: Any) -> Any:
            if type(value) is not dict:
                raise _Slow
            out = {}
            for name, item in value.items():
                field = get(name)
                if field is None or type(name) is not str:
                    raise _Slow
                if item is None:
                    # Absent, as in the full walk (Go leaves the field unset): a
                    # kubelet's conditions carry ``"lastProbeTime": null``.
                    continue
                if field is _plain_string:
                    # Most fields are plain strings: checked here, not called.
                    if type(item) is not str:
                        raise _Slow
                    out[name] = item
                else:
                    out[name] = field(item)
            return out
        _CHECKS[schema] = check
        assert schema.fields is not None
        for name, node in schema.fields.items():
            fields[name] = _check_for(node)
        return check
    if kind in (LIST, MAP):
        _CHECKS[schema] = check = _container(kind, schema)
        return check
    if kind == STRING:
        if fmt == "byte":
            def check(value: Any) -> Any:
                if type(value) is str and _base64_error_at(value) is None:
                    return value
                raise _Slow
        else:
            check = _plain_string
    elif kind == BOOLEAN:
        def check(value: Any) -> Any:
            if type(value) is bool:
                return value
            raise _Slow
    elif kind == INTEGER:
        low, high = _INT_RANGES.get(fmt, _INT_RANGES["int64"])

        def check(value: Any) -> Any:
            if type(value) is int and low <= value <= high:
                return value
            raise _Slow
    elif kind == NUMBER:
        def check(value: Any) -> Any:
            if type(value) is int or type(value) is float:
                return value
            raise _Slow
    elif kind == INT_OR_STRING:
        def check(value: Any) -> Any:
            if type(value) is int or type(value) is str:
                return value
            raise _Slow
    elif kind == TIME:
        match = _RFC3339.match

        def check(value: Any) -> Any:
            if type(value) is str and match(value):
                return value
            raise _Slow
    elif kind == QUANTITY:
        def check(value: Any) -> Any:
            cls = type(value)
            if cls is str or cls is int or cls is float:
                try:
                    Quantity.parse(value)
                except QuantityError:
                    raise _Slow from None
                return value
            raise _Slow
    elif kind == FREE_FORM:
        def check(value: Any) -> Any:
            if type(value) is dict:
                return deep_copy(value)
            raise _Slow
    else:  # ANY
        def check(value: Any) -> Any:
            if value is None:
                raise _Slow
            return deep_copy(value)
    _CHECKS[schema] = check
    return check


def _plain_string(value: Any) -> Any:
    """The check of every string field without a format (objects test for
    this very function and check such fields inline)."""
    if type(value) is str:
        return value
    raise _Slow


def _container(kind: str, schema: Schema) -> _Check:
    """A list's or a map's check; its items' check is compiled on first use
    (the items may be the container's own ancestor)."""
    assert schema.items is not None
    node = schema.items
    items: list[_Check] = []

    def item_check() -> _Check:
        if not items:
            items.append(_check_for(node))
        return items[0]

    if kind == LIST:
        def check(value: Any) -> Any:
            if type(value) is not list:
                raise _Slow
            each = items[0] if items else item_check()
            return [each(item) for item in value]
        return check

    def check_map(value: Any) -> Any:
        if type(value) is not dict:
            raise _Slow
        each = items[0] if items else item_check()
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _Slow
            out[key] = each(item)
        return out
    return check_map


def _run(obj: Mapping[str, Any]) -> tuple[str, str, _Decoder, dict[str, Any]]:
    if not isinstance(obj, Mapping):
        raise BadRequest(f"expected a JSON object, got {describe_value(obj)}")
    kind, version = _resolve(obj)
    decoder = _Decoder()
    root = field_schema(kind)
    if kind != "List":
        try:
            return kind, version, decoder, _fast(root, obj)
        except _Slow:
            pass  # the full walk finds and words what is wrong
    out = decoder._object(root, obj, "")
    if kind == "List" and isinstance(out, dict):
        out["items"] = [
            _decode_item(decoder, item, f"items[{i}]")
            for i, item in enumerate(out.get("items") or [])
        ]
    return kind, version, decoder, out


def _decode_item(decoder: _Decoder, item: Any, path: str) -> Any:
    """Items of a ``List`` are decoded by their own kind when it is served."""
    if not isinstance(item, Mapping):
        decoder.type_errors.append(f"{path}: expected object, got {describe_value(item)}")
        return item
    kind, api_version = item.get("kind"), item.get("apiVersion")
    for info in kinds.KINDS:
        if info.kind == kind and info.api_version == api_version:
            sub = _Decoder()
            out = sub._object(kinds.resource_of(info).schema, item, "")
            decoder.type_errors.extend(f"{path}.{e}" for e in sub.type_errors)
            decoder.type_errors.extend(f"{path}.{e}" for e in sub.field_errors)
            decoder.unknown.extend(f"{path}.{u}" for u in sub.unknown)
            return out
    return deep_copy(dict(item))


def decode(obj: Mapping[str, Any], *, strict: bool = True) -> dict[str, Any]:
    """Check ``obj`` against the schema of its kind and return a deep copy.

    See the module docstring for the rules and the error wording.
    """
    kind, version, decoder, out = _run(obj)
    prefix = f'{kind} in version "{version}" cannot be handled as a {kind}: '
    if decoder.type_errors:
        raise BadRequest(prefix + ", ".join(decoder.type_errors))
    if strict and decoder.unknown:
        raise BadRequest(
            prefix + "strict decoding error: "
            + ", ".join(f'unknown field "{u}"' for u in decoder.unknown))
    if decoder.field_errors:
        meta = obj.get("metadata")
        name = meta.get("name") or meta.get("generateName") or "" if isinstance(
            meta, Mapping) else ""
        group = "" if kind == "List" else kinds.by_kind(kind).group
        raise Invalid.of(kind, str(name), decoder.field_errors, group=group)
    return out


def type_errors(root: Schema, value: Any) -> list[str]:
    """Every place where ``value`` has another JSON type than ``root`` says, in
    document order (``metadata: expected object, got string "xx"``). Unknown
    fields and nulls are not type errors; nothing is copied or changed."""
    try:
        _fast(root, value)
        return []  # the fast path takes only what the full walk reports nothing in
    except _Slow:
        pass
    decoder = _Decoder(copies=False)
    decoder.value(root, value, "")
    return decoder.type_errors


def unknown_fields(obj: Mapping[str, Any]) -> list[str]:
    """Paths of the fields of ``obj`` its schema does not know, in document
    order, e.g. ``["spec.containers[0].imagee"]``. Type errors are ignored."""
    return _run(obj)[2].unknown


# ---------------------------------------------------------------------- OpenAPI


def _gvk(kind: str) -> list[dict[str, str]]:
    if kind == "List":
        return [{"group": "", "kind": "List", "version": "v1"}]
    info = kinds.by_kind(kind)
    return [{"group": info.group, "kind": info.kind, "version": info.version}]


class _OpenAPI:
    """Renders :class:`Schema` trees; with ``components`` named object shapes
    become ``$ref``s into it."""

    def __init__(self, components: dict[str, Any] | None = None) -> None:
        self.components = components
        self._inlining: set[str] = set()  # named shapes being inlined, outermost first

    def render(self, schema: Schema, *, top: bool = False) -> dict[str, Any]:
        if schema.type != OBJECT or not schema.name:
            return self._body(schema)
        if self.components is not None and not top:
            if schema.name not in self.components:
                self.components[schema.name] = {}  # reserve first: breaks cycles
                # The shared definition carries the type's own description
                # (a field's is beside its reference, as Kubernetes has it).
                self.components[schema.name] = self._body(schema.origin or schema)
            out = self._reference(schema.name)
            if schema.origin is not None and schema.description:
                # A field's own description; the shape itself (a list's
                # items) has its description in the definition only.
                out["description"] = schema.description
            self._extensions(schema, out)
            return out
        if schema.name in self._inlining:
            # A shape inside itself (JSONSchemaProps), fully inlined: stop
            # here with an object that keeps whatever it is given.
            out = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
            if schema.description:
                out["description"] = schema.description
            return out
        self._inlining.add(schema.name)
        try:
            return self._body(schema)
        finally:
            self._inlining.discard(schema.name)

    @staticmethod
    def _reference(name: str) -> dict[str, Any]:
        return {"allOf": [{"$ref": "#/components/schemas/" + name}]}

    def _body(self, schema: Schema) -> dict[str, Any]:
        out: dict[str, Any] = {}
        kind = schema.type
        if kind == OBJECT:
            assert schema.fields is not None
            out["type"] = "object"
            out["properties"] = {n: self.render(s) for n, s in schema.fields.items()}
            if schema.required:
                out["required"] = list(schema.required)
        elif kind == MAP:
            assert schema.items is not None
            out["type"] = "object"
            out["additionalProperties"] = self.render(schema.items)
        elif kind == LIST:
            assert schema.items is not None
            out["type"] = "array"
            out["items"] = self.render(schema.items)
        elif kind == FREE_FORM:
            out["type"] = "object"
            out["x-kubernetes-preserve-unknown-fields"] = True
        elif kind == ANY:
            out["x-kubernetes-preserve-unknown-fields"] = True
        elif kind == QUANTITY:
            out["oneOf"] = [{"type": "string"}, {"type": "number"}]
        elif kind == INT_OR_STRING:
            out["x-kubernetes-int-or-string"] = True
            out["format"] = "int-or-string"
            out["oneOf"] = [{"type": "integer"}, {"type": "string"}]
        elif kind == TIME:
            out["type"] = "string"
            out["format"] = "date-time"
        else:
            out["type"] = kind
            if schema.fmt:
                out["format"] = schema.fmt
            if schema.enum:
                out["enum"] = list(schema.enum)
        if schema.description:
            out["description"] = schema.description
        self._extensions(schema, out)
        return out

    @staticmethod
    def _extensions(schema: Schema, out: dict[str, Any]) -> None:
        if schema.patch_strategy:
            out["x-kubernetes-patch-strategy"] = schema.patch_strategy
        if schema.merge_key:
            out["x-kubernetes-patch-merge-key"] = schema.merge_key
        if schema.type == LIST and schema.list_type:
            out["x-kubernetes-list-type"] = schema.list_type
            if schema.list_type == "map" and schema.list_map_keys:
                out["x-kubernetes-list-map-keys"] = list(schema.list_map_keys)
        if schema.type == MAP and schema.map_type:
            out["x-kubernetes-map-type"] = schema.map_type


class _Swagger(_OpenAPI):
    """The same trees as Swagger 2.0 (OpenAPI v2) definitions, as Kubernetes'
    ``/openapi/v2`` has them: a plain ``$ref`` beside the description, and
    quantities and int-or-strings as strings (v2 has no ``oneOf``)."""

    @staticmethod
    def _reference(name: str) -> dict[str, Any]:
        return {"$ref": "#/definitions/" + name}

    def _body(self, schema: Schema) -> dict[str, Any]:
        if schema.type in (QUANTITY, INT_OR_STRING):
            out: dict[str, Any] = {"type": "string"}
            if schema.type == INT_OR_STRING:
                out["format"] = "int-or-string"
            if schema.description:
                out["description"] = schema.description
            return out
        return super()._body(schema)


def openapi_schema(kind: str) -> dict[str, Any]:
    """The OpenAPI v3 schema of ``kind``, fully inlined, with
    ``x-kubernetes-group-version-kind`` at the top and
    ``x-kubernetes-patch-strategy`` / ``x-kubernetes-patch-merge-key`` /
    ``x-kubernetes-list-type`` on the fields that carry them."""
    out = _OpenAPI().render(field_schema(kind), top=True)
    out["x-kubernetes-group-version-kind"] = _gvk(kind)
    return out


def _definitions(renderer_class: type[_OpenAPI], kind_names: Iterable[str]
                 ) -> dict[str, Any]:
    """The named shapes of the given kinds and of everything they use, each
    kind's carrying its ``x-kubernetes-group-version-kind``."""
    shapes: dict[str, Any] = {}
    renderer = renderer_class(shapes)
    for kind in kind_names:
        root = field_schema(kind)
        body = renderer.render(root, top=True)
        body["x-kubernetes-group-version-kind"] = _gvk(kind)
        shapes[root.name] = body
    return shapes


def openapi_document(kind_names: Iterable[str], *, title: str = "Kubernetes",
                     version: str = "v1.32.0") -> dict[str, Any]:
    """An OpenAPI v3 document (``/openapi/v3/api/v1`` style) whose
    ``components.schemas`` holds the given kinds under their Go definition
    names (``io.k8s.api.core.v1.Pod``) plus every named shape they use, shared
    through ``$ref``. Paths are left to the API server to fill in."""
    return {
        "openapi": "3.0.0",
        "info": {"title": title, "version": version},
        "paths": {},
        "components": {"schemas": _definitions(_OpenAPI, kind_names)},
    }


def swagger_definitions(kind_names: Iterable[str]) -> dict[str, Any]:
    """Swagger 2.0 ``definitions`` for the given kinds and every named shape
    they use (``/openapi/v2`` style)."""
    return _definitions(_Swagger, kind_names)
