"""OpenAPI v2 (``/openapi/v2``): the schema definitions of every served kind.

Why it is served at all: kubectl 1.32 validates a manifest against OpenAPI
v3 first, but for a kind it cannot find there (a ``kind: List``, a kind this
server does not serve) it falls back to the legacy v2 document. Without one,
that fallback failed and kubectl dropped the *whole file* ("failed to download
openapi: the server could not find the requested resource"), where a real
cluster applies the other objects and reports ``no matches for kind "X" in
version "Y"`` for the one it does not know.

What it holds: ``swagger``, ``info`` and ``definitions`` (the same field
schemas the decoder and ``/openapi/v3`` use, as Swagger 2.0), and no
``paths``. The operations are described in v3 only; kubectl's legacy check
reads v2 paths to guess whether an unknown kind is a custom resource (it
looks for ``fieldValidation`` on the Namespace PATCH operation and then lists
CustomResourceDefinitions). No CRDs are served, so the honest answer is the
one an empty ``paths`` gives: the kind is not a custom resource, and the
object gets kubectl's own mapping error.

kubectl asks for the gnostic protobuf encoding
(``application/com.github.proto-openapi.spec.v2@v1.0+protobuf``); other
clients get JSON. The protobuf messages are the subset of gnostic's
``openapiv2/OpenAPIv2.proto`` a definitions-only document needs, declared
here (field numbers from that file) and encoded by the protobuf library.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

import yaml

from ..api import kinds, schema
from .discovery import KUBE_MAJOR, KUBE_MINOR

__all__ = ["PROTOBUF", "document", "encoded"]

PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

# (message, [(field, number, type, label, message type)]); types: "string",
# "bool" or a message name. label "repeated" or "".
_MESSAGES: list[tuple[str, list[tuple[str, int, str, str]]]] = [
    ("Any", [("yaml", 2, "string", "")]),
    ("NamedAny", [("name", 1, "string", ""), ("value", 2, "Any", "")]),
    ("Info", [("title", 1, "string", ""), ("version", 2, "string", "")]),
    ("TypeItem", [("value", 1, "string", "repeated")]),
    ("ItemsItem", [("schema", 1, "Schema", "repeated")]),
    ("AdditionalPropertiesItem", [("schema", 1, "Schema", ""), ("boolean", 2, "bool", "")]),
    ("NamedSchema", [("name", 1, "string", ""), ("value", 2, "Schema", "")]),
    ("Properties", [("additional_properties", 1, "NamedSchema", "repeated")]),
    ("Schema", [("ref", 1, "string", ""), ("format", 2, "string", ""),
                ("description", 4, "string", ""), ("required", 19, "string", "repeated"),
                ("enum", 20, "Any", "repeated"),
                ("additional_properties", 21, "AdditionalPropertiesItem", ""),
                ("type", 22, "TypeItem", ""), ("items", 23, "ItemsItem", ""),
                ("properties", 25, "Properties", ""),
                ("vendor_extension", 31, "NamedAny", "repeated")]),
    ("Definitions", [("additional_properties", 1, "NamedSchema", "repeated")]),
    ("Document", [("swagger", 1, "string", ""), ("info", 2, "Info", ""),
                  ("definitions", 9, "Definitions", "")]),
]


@functools.cache
def _classes() -> dict[str, Any]:
    """The message classes, built once (the library is loaded only when a
    client asks for this document)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    proto = descriptor_pb2.FileDescriptorProto(name="minikube_py/openapiv2.proto",
                                               package="openapi.v2", syntax="proto3")
    field_type = descriptor_pb2.FieldDescriptorProto
    scalar = {"string": field_type.TYPE_STRING, "bool": field_type.TYPE_BOOL}
    for name, fields in _MESSAGES:
        message = proto.message_type.add(name=name)
        for field_name, number, kind, label in fields:
            entry = message.field.add(
                name=field_name, number=number,
                label=field_type.LABEL_REPEATED if label else field_type.LABEL_OPTIONAL)
            if kind in scalar:
                entry.type = scalar[kind]
            else:
                entry.type = field_type.TYPE_MESSAGE
                entry.type_name = f".openapi.v2.{kind}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return {name: message_factory.GetMessageClass(
        pool.FindMessageTypeByName(f"openapi.v2.{name}")) for name, _ in _MESSAGES}


@functools.cache
def document() -> dict[str, Any]:
    """The v2 document as JSON (see the module docstring for what it holds)."""
    return {
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": f"v{KUBE_MAJOR}.{KUBE_MINOR}.0"},
        "paths": {},
        "definitions": schema.swagger_definitions([info.kind for info in kinds.KINDS]),
    }


def _schema(classes: dict[str, Any], body: dict[str, Any]) -> Any:
    message = classes["Schema"]()
    for key, value in body.items():
        if key == "$ref":
            message.ref = value
        elif key in ("format", "description"):
            setattr(message, key, value)
        elif key == "type":
            message.type.value.append(value)
        elif key == "required":
            message.required.extend(value)
        elif key == "enum":
            # gnostic keeps each value as its YAML text, like extension values.
            for item in value:
                message.enum.add(yaml=yaml.safe_dump(item, default_flow_style=False))
        elif key == "items":
            message.items.schema.append(_schema(classes, value))
        elif key == "properties":
            for name, sub in value.items():
                message.properties.additional_properties.add(
                    name=name).value.CopyFrom(_schema(classes, sub))
        elif key == "additionalProperties":
            if isinstance(value, dict):
                message.additional_properties.schema.CopyFrom(_schema(classes, value))
            else:
                message.additional_properties.boolean = bool(value)
        elif key.startswith("x-"):
            # gnostic keeps extension values as the YAML text of the value.
            extension = message.vendor_extension.add(name=key)
            extension.value.yaml = yaml.safe_dump(value, default_flow_style=False)
        else:
            raise ValueError(f"no v2 encoding for schema keyword {key!r}")
    return message


@functools.cache
def encoded(content_type: str) -> tuple[bytes, str]:
    """(body, ETag) of the document in ``content_type`` (:data:`PROTOBUF` or JSON)."""
    doc = document()
    if content_type == PROTOBUF:
        classes = _classes()
        message = classes["Document"](swagger=doc["swagger"])
        message.info.title, message.info.version = doc["info"]["title"], doc["info"]["version"]
        for name, body in doc["definitions"].items():
            message.definitions.additional_properties.add(name=name).value.CopyFrom(
                _schema(classes, body))
        raw = message.SerializeToString(deterministic=True)
    else:
        raw = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    return raw, '"' + hashlib.sha512(raw).hexdigest()[:64].upper() + '"'
