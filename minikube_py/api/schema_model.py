"""The small type vocabulary the field schema is written in.

A :class:`Schema` node describes one JSON value. The vocabulary is deliberately
tiny and maps one-to-one onto what Kubernetes' Go types serialise to:

=================  ===================================================
``string``         a JSON string (optionally restricted by ``enum``)
``integer``        a JSON integer (``fmt`` is ``int32`` or ``int64``)
``number``         a JSON number
``boolean``        ``true`` / ``false``
``quantity``       ``resource.Quantity``: a string or a number
``int-or-string``  ``intstr.IntOrString``: an integer or a string
``time``           ``metav1.Time`` / ``MicroTime``: an RFC 3339 string
``free-form``      a JSON object whose content is not described
``any``            any JSON value
``map``            a JSON object whose values all follow ``items``
``list``           a JSON array whose items follow ``items``
``object``         a JSON object with the named ``fields``
=================  ===================================================

Lists that strategic merge patch merges carry ``merge_key`` and
``patch_strategy`` exactly as the ``patchMergeKey`` / ``patchStrategy`` struct
tags in ``k8s.io/api`` say; ``list_type`` / ``list_map_keys`` mirror the
``+listType`` / ``+listMapKey`` markers.

The constructors below return *new* nodes, so a description attached to a
field never leaks to another field that shares the same shape; reusing a named
object shape under a new description goes through :func:`ref`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

STRING = "string"
INTEGER = "integer"
NUMBER = "number"
BOOLEAN = "boolean"
QUANTITY = "quantity"
INT_OR_STRING = "int-or-string"
TIME = "time"
FREE_FORM = "free-form"
ANY = "any"
MAP = "map"
LIST = "list"
OBJECT = "object"

TYPES = frozenset(
    {STRING, INTEGER, NUMBER, BOOLEAN, QUANTITY, INT_OR_STRING, TIME, FREE_FORM, ANY,
     MAP, LIST, OBJECT}
)


@dataclass(frozen=True, slots=True, eq=False)
class Schema:
    """One node of the field schema (see the module docstring for ``type``).

    ``name`` is the Go definition name (``io.k8s.api.core.v1.Container``) of
    named object shapes; it is only used to share definitions in an OpenAPI
    document. ``origin`` is the named shape a field made with :func:`ref`
    reuses (with the type's own description, where the field has its own).
    Nodes compare by identity.
    """

    type: str
    description: str = ""
    fields: Mapping[str, Schema] | None = None
    items: Schema | None = None
    fmt: str = ""
    enum: tuple[str, ...] = ()
    merge_key: str = ""
    patch_strategy: str = ""
    list_type: str = ""
    list_map_keys: tuple[str, ...] = ()
    map_type: str = ""
    name: str = ""
    required: tuple[str, ...] = ()
    origin: Schema | None = None

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"unknown schema type {self.type!r}")
        if self.type == OBJECT and self.fields is None:
            raise ValueError("object schemas need fields")
        if self.type in (MAP, LIST) and self.items is None:
            raise ValueError(f"{self.type} schemas need items")

    def child(self, name: str) -> Schema | None:
        """The schema of field ``name`` of an object, or of any value of a map."""
        if self.type == OBJECT and self.fields is not None:
            return self.fields.get(name)
        if self.type == MAP:
            return self.items
        return None


# ----------------------------------------------------------------- constructors


def string(description: str = "", *, enum: tuple[str, ...] = ()) -> Schema:
    return Schema(STRING, description, enum=enum)


def int32(description: str = "") -> Schema:
    return Schema(INTEGER, description, fmt="int32")


def int64(description: str = "") -> Schema:
    return Schema(INTEGER, description, fmt="int64")


def number(description: str = "") -> Schema:
    return Schema(NUMBER, description, fmt="double")


def boolean(description: str = "") -> Schema:
    return Schema(BOOLEAN, description)


def quantity(description: str = "") -> Schema:
    return Schema(QUANTITY, description)


def int_or_string(description: str = "") -> Schema:
    return Schema(INT_OR_STRING, description)


def byte_string(description: str = "") -> Schema:
    """``[]byte``: a base64 string (``encoding/json``'s form of bytes)."""
    return Schema(STRING, description, fmt="byte")


def time(description: str = "") -> Schema:
    return Schema(TIME, description, fmt="date-time")


def free_form(description: str = "") -> Schema:
    return Schema(FREE_FORM, description)


def any_value(description: str = "") -> Schema:
    return Schema(ANY, description)


def map_of(items: Schema, description: str = "", *, map_type: str = "") -> Schema:
    return Schema(MAP, description, items=items, map_type=map_type)


def list_of(
    items: Schema,
    description: str = "",
    *,
    merge_key: str = "",
    strategy: str = "",
    list_type: str = "",
    map_keys: tuple[str, ...] = (),
) -> Schema:
    """A list. ``strategy`` is the ``patchStrategy`` tag (``merge``,
    ``merge,retainKeys``); ``merge_key`` the ``patchMergeKey`` tag."""
    if not list_type:
        # Kubernetes' defaults: keyed merge lists are maps, primitive merge
        # lists are sets, everything else is atomic.
        if merge_key:
            list_type = "map"
        elif strategy:
            list_type = "set"
        else:
            list_type = "atomic"
    if list_type == "map" and not map_keys and merge_key:
        map_keys = (merge_key,)
    return Schema(
        LIST, description, items=items, merge_key=merge_key, patch_strategy=strategy,
        list_type=list_type, list_map_keys=map_keys,
    )


def obj(
    name: str,
    fields: Mapping[str, Schema],
    description: str = "",
    *,
    required: tuple[str, ...] = (),
    strategy: str = "",
    map_type: str = "",
) -> Schema:
    """A named object shape. ``strategy`` carries a struct-level ``patchStrategy``
    (``retainKeys`` on ``DeploymentStrategy``); ``map_type`` the ``+structType``
    marker (``atomic``: server-side apply owns the object as a whole)."""
    return Schema(
        OBJECT, description, fields=dict(fields), name=name, required=required,
        patch_strategy=strategy, map_type=map_type,
    )


def fill(shape: Schema, fields: Mapping[str, Schema]) -> None:
    """Give an object shape made with no fields its fields, once.

    Only for shapes that contain themselves (``JSONSchemaProps``): the shape is
    made first, so fields further down can refer to it, and filled after.
    Copies made with :func:`ref` share the filled fields.
    """
    assert isinstance(shape.fields, dict) and not shape.fields, "fill() a new empty shape"
    shape.fields.update(fields)


def inline(shape: Schema) -> Mapping[str, Schema]:
    """The fields of an object shape, to embed in another (Go's
    ``json:",inline"``: ``Volume`` has the fields of ``VolumeSource``)."""
    assert shape.fields is not None, f"{shape.name} is not an object"
    return shape.fields


def ref(shape: Schema, description: str = "", *, strategy: str = "",
        map_type: str = "") -> Schema:
    """Reuse a (named) shape for a field with its own description (and the
    field's ``patchStrategy`` tag or ``+structType`` marker, when it has them)."""
    changes: dict[str, object] = {"description": description or shape.description,
                                  "origin": shape.origin or shape}
    if strategy:
        changes["patch_strategy"] = strategy
    if map_type:
        changes["map_type"] = map_type
    return dataclasses.replace(shape, **changes)  # type: ignore[arg-type]


def extend(shape: Schema, name: str, extra: Mapping[str, Schema], description: str = "") -> Schema:
    """A new object shape with the fields of ``shape`` plus ``extra``."""
    assert shape.fields is not None
    return obj(name, {**shape.fields, **extra}, description or shape.description)
