"""OpenAPI v3: the index at ``/openapi/v3`` and one document per group-version.

kubectl reads these to decide how to validate: a PATCH operation carrying the
``fieldValidation`` query parameter (and the object's group-version-kind
extension) tells it the server validates fields strictly itself, so
``kubectl apply`` sends ``fieldValidation=Strict`` and relies on our decoder.
The schemas come from :mod:`minikube_py.api.schema`, the same table the
decoder uses, so what kubectl is told and what the server enforces agree.

Documents are built once and cached with a content hash, which the index
publishes (``?hash=...``) as Kubernetes does, so clients can cache them.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from ..api import kinds, schema
from .discovery import KUBE_MAJOR, KUBE_MINOR

_QUERY = {
    "dryRun": "When present, indicates that modifications should not be persisted. "
              "Valid value: All.",
    "fieldManager": "A name associated with the actor making these changes.",
    "fieldValidation": "How the server handles unknown or duplicate fields: Ignore, Warn "
                       "or Strict (the default).",
    "force": "Force is going to \"force\" Apply requests.",
    "pretty": "If 'true', the output is pretty printed.",
}
_LIST_QUERY = ("labelSelector", "fieldSelector", "limit", "continue", "resourceVersion",
               "resourceVersionMatch", "timeoutSeconds", "watch", "allowWatchBookmarks")


def _param(name: str) -> dict[str, Any]:
    kind = "boolean" if name in ("force", "watch", "allowWatchBookmarks") else \
        "integer" if name in ("limit", "timeoutSeconds") else "string"
    return {"name": name, "in": "query", "description": _QUERY.get(name, name),
            "schema": {"type": kind}, "uniqueItems": True}


def _ref(kind: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{schema.field_schema(kind).name}"}


def _op(info: kinds.KindInfo, verb: str, action: str, params: tuple[str, ...],
        body: bool = False, patch: bool = False) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": f"{verb}{info.kind}",
        "parameters": [_param(p) for p in params],
        "responses": {"200": {"description": "OK", "content": {
            "application/json": {"schema": _ref(info.kind)}}}},
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": info.group, "version": info.version,
                                            "kind": info.kind},
    }
    if body:
        types = (["application/apply-patch+yaml", "application/json-patch+json",
                  "application/merge-patch+json", "application/strategic-merge-patch+json"]
                 if patch else ["application/json"])
        op["requestBody"] = {"content": {t: {"schema": {"type": "object"} if patch
                                             else _ref(info.kind)} for t in types}}
    return op


def _paths(info: kinds.KindInfo) -> dict[str, Any]:
    prefix = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    base = f"{prefix}/namespaces/{{namespace}}/{info.plural}" if info.namespaced else \
        f"{prefix}/{info.plural}"
    write = ("dryRun", "fieldManager", "fieldValidation", "pretty")
    paths: dict[str, Any] = {
        base: {"get": _op(info, "list", "list", _LIST_QUERY),
               "post": _op(info, "create", "post", write, body=True),
               "delete": _op(info, "deletecollection", "deletecollection", _LIST_QUERY)},
        f"{base}/{{name}}": {
            "get": _op(info, "read", "get", ("pretty",)),
            "put": _op(info, "replace", "put", write, body=True),
            "patch": _op(info, "patch", "patch", (*write, "force"), body=True, patch=True),
            "delete": _op(info, "delete", "delete", ("dryRun", "gracePeriodSeconds",
                                                     "propagationPolicy")),
        },
    }
    for sub in info.subresources:
        if sub == "status":
            paths[f"{base}/{{name}}/status"] = {
                "get": _op(info, "read", "get", ("pretty",)),
                "put": _op(info, "replace", "put", write, body=True),
                "patch": _op(info, "patch", "patch", (*write, "force"), body=True, patch=True)}
    if info.namespaced:
        paths[f"{prefix}/{info.plural}"] = {"get": _op(info, "list", "list", _LIST_QUERY)}
    return paths


@functools.cache
def documents() -> dict[str, tuple[bytes, str]]:
    """``api/v1`` / ``apis/apps/v1`` -> (document JSON, hash)."""
    out: dict[str, tuple[bytes, str]] = {}
    by_gv: dict[tuple[str, str], list[kinds.KindInfo]] = {}
    for info in kinds.KINDS:
        by_gv.setdefault((info.group, info.version), []).append(info)
    for (group, version), infos in by_gv.items():
        doc = schema.openapi_document([i.kind for i in infos], title="Kubernetes",
                                      version=f"v{KUBE_MAJOR}.{KUBE_MINOR}.0")
        for info in infos:
            doc["paths"].update(_paths(info))
        body = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
        key = f"apis/{group}/{version}" if group else f"api/{version}"
        out[key] = (body, hashlib.sha512(body).hexdigest()[:64].upper())
    return out


def index() -> dict[str, Any]:
    return {"paths": {key: {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"}
                      for key, (_, digest) in sorted(documents().items())}}
