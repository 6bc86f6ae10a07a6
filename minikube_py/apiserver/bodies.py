"""Request bodies: decoded, then type-checked, before any handler reads them.

The rule this module exists for: no handler looks inside a body until it has
been decoded (JSON, YAML or Kubernetes protobuf, per ``Content-Type``) *and*
type-checked against the schema of what it claims to be. A body of the wrong
shape anywhere (the whole body, ``metadata``, ``spec``, a List's items,
``DeleteOptions``, ``Binding``, ``Scale``) is a 400 ``Status`` naming the
field, never an exception deeper down. Patch documents are decoded here and
typed by the registry (:mod:`minikube_py.store.patching`), which every client,
in-process ones included, patches through.

Hostile bodies are refused with a 400 before anything acts on them: JSON or
YAML nested deeper than :data:`~minikube_py.api.manifest.MAX_DEPTH` levels,
YAML whose aliases expand past the loader's budget ("billion laughs"),
non-finite numbers; bodies over :data:`MAX_BODY` are a 413.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..api import kinds
from ..api.errors import BadRequest, RequestEntityTooLarge
from ..api.manifest import MAX_DEPTH, ManifestError, parse_documents
from ..api.protobuf import decode_k8s_protobuf
from ..api.schema import field_schema, type_errors
from ..api.schema_bodies import BINDING, DELETE_OPTIONS
from ..api.schema_check import json_type, typed_object
from .negotiation import body_type

__all__ = ["MAX_BODY", "Binding", "DeleteOptions", "binding", "decode", "delete_options",
           "dry_run", "object_body", "parse_json", "parse_yaml", "patch_body"]

MAX_BODY = 3 * 1024 * 1024

_PROPAGATION = ("Orphan", "Background", "Foreground")
_ORJSON_LOADS = orjson.loads
_LONG_DIGITS = re.compile(rb"[0-9]{20}").search
_NOT_READ = object()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _check_depth(value: Any, what: str) -> None:
    """Refuse ``value`` nested deeper than MAX_DEPTH (walked iteratively: a deep
    value must not blow the stack here either). Deeper values would reach
    recursive code (merge patches, validation, copies) and end in a 500."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise BadRequest(f"{what} is nested deeper than {MAX_DEPTH} levels")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def _strict_json(raw: bytes) -> Any:
    """``raw`` read by orjson, or :data:`_NOT_READ` for json.loads to read.

    Every create and update comes this way. orjson takes strict JSON only (no
    NaN or Infinity) and reads it as json.loads does, but for an integer past
    64 bits (a float to orjson): a body with a run of 20 digits is left to
    json.loads, as is whatever orjson refuses, for the error json.loads names
    (or the UTF-16 body it accepts)."""
    if _LONG_DIGITS(raw) is not None:
        return _NOT_READ
    try:
        return _ORJSON_LOADS(raw)
    except orjson.JSONDecodeError:
        return _NOT_READ


def parse_json(raw: bytes, what: str = "the request body") -> Any:
    """Decode a JSON body: BadRequest (never another exception) when it is not
    JSON, holds NaN/Infinity, or nests deeper than MAX_DEPTH."""
    value = _strict_json(raw)
    if value is not _NOT_READ:
        # Each level of nesting opens with a brace or a bracket: a body with
        # fewer of them than MAX_DEPTH cannot be too deep, and needs no walk.
        if raw.count(b"{") + raw.count(b"[") >= MAX_DEPTH:
            _check_depth(value, what)
        return value
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
    except RecursionError:
        # The C decoder gives up at the interpreter's recursion limit, cleanly.
        raise BadRequest(f"{what} is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise BadRequest(f"{what} is not valid JSON: {exc}") from None
    _check_depth(value, what)
    return value


def parse_yaml(raw: bytes, what: str = "the request body") -> Any:
    """Decode a single-document YAML body with the manifest loader's limits
    (depth, alias expansion, string keys, standard tags only); BadRequest
    otherwise. ``yaml.safe_load`` would share aliased nodes, so a 1 KiB
    "billion laughs" body would be expanded when stored."""
    try:
        docs = parse_documents(raw, what)
    except ManifestError as exc:
        raise BadRequest(f"{what} is not valid YAML: {exc.message}") from None
    if len(docs) > 1:
        raise BadRequest(f"{what} must be a single YAML document, found {len(docs)}")
    return docs[0].value if docs else None


def _too_large() -> RequestEntityTooLarge:
    return RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY}")


def decode(raw: bytes, content_type: str | None) -> Any:
    """The JSON value of a non-patch body (JSON, YAML or protobuf), untyped."""
    if len(raw) > MAX_BODY:
        raise _too_large()
    kind = body_type(content_type, patch=False)
    if kind == "protobuf":
        return decode_k8s_protobuf(raw)
    if kind == "yaml":
        return parse_yaml(raw)
    return parse_json(raw)


def patch_body(raw: bytes, content_type: str | None) -> tuple[str, Any]:
    """(patch type, its document, untyped): the registry types it against the
    kind it patches."""
    if len(raw) > MAX_BODY:
        raise _too_large()
    kind = body_type(content_type, patch=True)
    if kind == "apply":
        return kind, parse_yaml(raw, "the patch")
    return kind, parse_json(raw, "the patch")


def _claimed_schema(value: Any, info: kinds.KindInfo) -> tuple[str, str, Any]:
    """(kind, version, schema) to type ``value`` with: the kind the body says
    it is when that is a served kind or a v1 List, else the URL's kind."""
    if isinstance(value, Mapping):
        claimed, api_version = value.get("kind"), value.get("apiVersion")
        if claimed == "List" and api_version == "v1":
            return "List", "v1", field_schema("List")
        for other in kinds.KINDS:
            if other.kind == claimed and other.api_version == api_version:
                return other.kind, other.version, field_schema(other.kind)
    return info.kind, info.version, field_schema(info.kind)


def object_body(raw: bytes, content_type: str | None, info: kinds.KindInfo) -> dict[str, Any]:
    """The object a create or update sends to ``info``'s URL: decoded, typed
    (a List's items by their own kinds), and of the URL's kind and version."""
    value = decode(raw, content_type)
    kind, version, root = _claimed_schema(value, info)
    obj = typed_object(value, root, kind=kind, version=version)
    if kind == "List":
        errors: list[str] = []
        for i, item in enumerate(obj.get("items") or []):
            if not isinstance(item, dict):
                errors.append(f"items[{i}]: expected object, got {json_type(item)}")
                continue
            errors.extend(f"items[{i}].{e}" for e in type_errors(_claimed_schema(item, info)[2],
                                                                 item))
        if errors:
            raise BadRequest('List in version "v1" cannot be handled as a List: '
                             + ", ".join(errors))
    api_version, claimed = obj.get("apiVersion"), obj.get("kind")
    if api_version and api_version != info.api_version:
        raise BadRequest(f"the API version in the data ({api_version}) does not match the "
                         f"expected API version ({info.api_version})")
    if claimed and claimed != info.kind:
        raise BadRequest(f"the kind in the data ({claimed}) does not match the expected kind "
                         f"({info.kind})")
    obj.setdefault("apiVersion", info.api_version)
    obj.setdefault("kind", info.kind)
    return obj


# ------------------------------------------------------------------ DeleteOptions


def dry_run(query: Mapping[str, str], body_values: list[str] | None = None) -> bool:
    """``dryRun`` from the query (and a DeleteOptions body): only ``All`` exists."""
    values = [query.get("dryRun", ""), *(body_values or ())]
    for v in values:
        if v and v != "All":
            raise BadRequest(f'dryRun: Unsupported value: "{v}": supported values: "All"')
    return "All" in values


def _flag(query: Mapping[str, str], name: str) -> bool:
    return query.get(name, "").lower() in ("1", "true", "yes")


def query_int(query: Mapping[str, str], name: str) -> int | None:
    """An integer query parameter (absent: None); BadRequest naming it otherwise."""
    raw = query.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise BadRequest(f'invalid value for {name}: "{raw}" is not an integer') from None


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    """A deletion's options, from the body and the query together."""

    grace_period_seconds: int | None = None
    propagation_policy: str | None = None
    preconditions: dict[str, str] = field(default_factory=dict)
    dry_run: bool = False


def delete_options(raw: bytes, content_type: str | None,
                   query: Mapping[str, str]) -> DeleteOptions:
    """DeleteOptions as Kubernetes reads them: the body (typed against the
    DeleteOptions schema) with the query's values on top. A field of the wrong
    type is refused, never ignored: a ``dryRun`` that is not a list would
    otherwise delete for real."""
    body: dict[str, Any] = {}
    if raw.strip():
        body = typed_object(decode(raw, content_type), DELETE_OPTIONS, kind="DeleteOptions",
                            version="v1", what="DeleteOptions")
    grace = query_int(query, "gracePeriodSeconds")
    if grace is None:
        grace = body.get("gracePeriodSeconds")
    policy = query.get("propagationPolicy") or body.get("propagationPolicy")
    if policy is not None and policy not in _PROPAGATION:
        raise BadRequest(f'propagationPolicy "{policy}" is not supported: use one of '
                         f'{", ".join(_PROPAGATION)}')
    if policy is None and query.get("orphanDependents"):
        policy = "Orphan" if _flag(query, "orphanDependents") else "Background"
    if policy is None and body.get("orphanDependents") is not None:
        policy = "Orphan" if body["orphanDependents"] else "Background"
    pre = body.get("preconditions") or {}
    return DeleteOptions(
        grace_period_seconds=grace, propagation_policy=policy,
        preconditions={k: v for k, v in pre.items()
                       if k in ("uid", "resourceVersion") and v is not None},
        dry_run=dry_run(query, body.get("dryRun")))


# ------------------------------------------------------------------ Binding


@dataclass(frozen=True, slots=True)
class Binding:
    """A ``pods/binding`` request: bind pod ``name`` (uid ``uid`` if set) to ``node``."""

    name: str
    node: str
    uid: str | None


def binding(raw: bytes, content_type: str | None, pod: str | None) -> Binding:
    """The Binding posted for ``pod`` (None: the ``bindings`` collection)."""
    body = typed_object(decode(raw, content_type), BINDING, kind="Binding", version="v1",
                        what="the Binding")
    if body.get("kind") not in (None, "Binding"):
        raise BadRequest(f"the kind in the data ({body.get('kind')}) does not match the "
                         "expected kind (Binding)")
    meta, target = body.get("metadata") or {}, body.get("target") or {}
    name = str(meta.get("name") or pod or "")
    if pod and name != pod:
        raise BadRequest(f"the name of the binding ({name}) does not match the pod ({pod})")
    return Binding(name=name, node=target.get("name") or "", uid=meta.get("uid"))
