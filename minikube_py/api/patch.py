"""PATCH as the Kubernetes API server implements it: the four patch types.

Public API (the implementation lives in the modules named)::

    parse_patch_body(body, content_type) -> (patch type, parsed body)
    strategic_merge_patch(original, patch, kind)            # patch_smp
    json_merge_patch(original, patch)                       # patch_json, RFC 7386
    json_patch(original, operations)                        # patch_json, RFC 6902
    apply_patch(live, config, *, kind, manager, force, now) # apply, server-side apply
    record_update(old, new, *, kind, manager, now)          # apply, managedFields

:data:`PATCH_TYPES` lists the accepted media types in the order Kubernetes
advertises them (discovery, OpenAPI ``consumes``, the 415 message).
:func:`parse_patch_body` maps a ``Content-Type`` (parameters after ``;`` are
ignored, as Kubernetes ignores ``charset``) to the short patch type names the
API server uses internally -- ``"json"``, ``"merge"``, ``"strategic"``,
``"apply"`` -- and decodes the body:

* an unknown media type is a 415 ``UnsupportedMediaType``: ``the body of the
  request was in an unknown format - accepted media types include: ...``;
* JSON patch must decode as a list of operation objects (or ``null``, no
  operations); strategic merge patch as an object (``null`` is ``{}``); a
  merge patch may be any JSON value here (non-objects fail when applied);
  an apply body is YAML or JSON and must be a mapping. Malformed bodies are
  400 ``BadRequest`` with Go's wording where Kubernetes passes it through
  (``json: cannot unmarshal array into Go value of type map[string]interface
  {}``, ``error decoding YAML: ...``, ``Invalid JSON Patch``).

Every function returns new objects and never modifies its arguments.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from . import errors
from .apply import apply_patch, record_update
from .gojson import MAP_TYPE, json_kind, syntax_error
from .patch_json import decode_operations, json_merge_patch, json_patch
from .patch_smp import strategic_merge_patch

__all__ = [
    "APPLY",
    "JSON",
    "MERGE",
    "PATCH_TYPES",
    "STRATEGIC",
    "apply_patch",
    "json_merge_patch",
    "json_patch",
    "parse_patch_body",
    "record_update",
    "strategic_merge_patch",
]

JSON_PATCH_MEDIA = "application/json-patch+json"
MERGE_PATCH_MEDIA = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH_MEDIA = "application/strategic-merge-patch+json"
APPLY_PATCH_MEDIA = "application/apply-patch+yaml"

#: Short patch type names, as the API server's handler names them.
JSON, MERGE, STRATEGIC, APPLY = "json", "merge", "strategic", "apply"

#: Accepted PATCH media types, in Kubernetes' order.
PATCH_TYPES: tuple[str, ...] = (
    JSON_PATCH_MEDIA, MERGE_PATCH_MEDIA, STRATEGIC_MERGE_PATCH_MEDIA, APPLY_PATCH_MEDIA,
)

_BY_MEDIA = {
    JSON_PATCH_MEDIA: JSON,
    MERGE_PATCH_MEDIA: MERGE,
    STRATEGIC_MERGE_PATCH_MEDIA: STRATEGIC,
    APPLY_PATCH_MEDIA: APPLY,
}

def parse_patch_body(body: bytes, content_type: str) -> tuple[str, Any]:
    """(patch type, decoded body) for a PATCH request; see the module docstring."""
    media = content_type or ""
    cut = media.find(";")
    if cut > 0:
        media = media[:cut]
    patch_type = _BY_MEDIA.get(media)
    if patch_type is None:
        raise errors.UnsupportedMediaType(
            "the body of the request was in an unknown format - accepted media types "
            "include: " + ", ".join(PATCH_TYPES))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.BadRequest(f"invalid UTF-8 in the request body: {exc}") from None
    if patch_type == APPLY:
        return patch_type, _decode_apply(text)
    if patch_type == MERGE:
        try:
            return patch_type, json.loads(text)
        except ValueError:
            raise errors.BadRequest("Invalid JSON Patch") from None
    value = _decode_json(text)
    if patch_type == JSON:
        return patch_type, decode_operations(value)
    if value is None:
        return patch_type, {}
    if not isinstance(value, dict):
        raise errors.BadRequest(
            f"json: cannot unmarshal {json_kind(value)} into Go value of type {MAP_TYPE}")
    return patch_type, value


def _decode_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise errors.BadRequest(syntax_error(text, exc)) from None


def _decode_apply(text: str) -> Any:
    try:
        value = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    except ValueError:
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise errors.BadRequest(f"error decoding YAML: {exc}") from None
    except yaml.YAMLError as exc:
        raise errors.BadRequest(f"error decoding YAML: {exc}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.BadRequest(f"error decoding YAML: json: cannot unmarshal "
                                f"{json_kind(value)} into Go value of type {MAP_TYPE}")
    return value
