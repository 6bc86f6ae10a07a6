"""PATCH through the registry: the four patch types, as Kubernetes' patch handler.

``patch`` reads the live object, applies the patch (strategic merge, JSON
merge, JSON patch, or server-side apply), and writes the result through
:meth:`Registry.update`, so a patched object passes exactly the same decoding,
defaulting and validation as a replaced one. A conflict with a concurrent
writer is retried from a fresh read, unless the patch itself pins a
``metadata.resourceVersion`` (then the Conflict is the caller's answer).

Server-side apply creates the object when it does not exist, and an apply that
changes nothing but managedFields timestamps writes nothing (as Kubernetes
ignores timestamp-only changes), so re-applying the same file is "unchanged".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..api import kinds
from ..api.errors import BadRequest, Conflict, NotFound
from ..api.jsoncopy import deep_copy
from ..api.patch import (
    apply_patch,
    json_merge_patch,
    json_patch,
    record_update,
    strategic_merge_patch,
)
from ..api.schema import field_schema
from ..api.schema_check import typed_object, typed_patch
from ..api.timefmt import format_time
from .store import Object

if TYPE_CHECKING:
    from .registry import FieldValidation, Registry

#: Patch types by the names Kubernetes' handler uses internally.
STRATEGIC, MERGE, JSON, APPLY = "strategic", "merge", "json", "apply"
DEFAULT_MANAGER = "minikube-py"


def _without_times(obj: Mapping[str, Any], *, untracked: bool = False) -> Any:
    """``obj`` as the unchanged-check compares it: managedFields without timestamps.

    ``untracked``: the live object carried no managedFields, so the
    ``before-first-apply`` entry apply adds for it is bookkeeping, not a change
    (else re-applying a config that owns nothing would never be "unchanged").
    """
    meta = obj.get("metadata") or {}
    fields = [{k: v for k, v in e.items() if k != "time"} for e in meta.get("managedFields") or []
              if not (untracked and e.get("manager") == "before-first-apply")]
    return {**obj, "metadata": {**meta, "managedFields": fields, "resourceVersion": None}}


def typed(patch_type: str, body: Any, kind: str) -> Any:
    """``body`` if it is a well-typed ``patch_type`` document for ``kind``
    (see :mod:`~minikube_py.api.schema_check`); BadRequest naming the field."""
    info = kinds.by_kind(kind)
    return typed_patch(body, field_schema(kind), kind=kind, version=info.version,
                       patch_type=patch_type)


def patched(live: Object, patch_type: str, body: Any, *, kind: str, manager: str,
            force: bool, now: str) -> Object:
    """The object ``patch_type`` + ``body`` makes of ``live`` (no write).

    ``body`` must have passed :func:`typed`. The result is typed again before
    anything reads it: a JSON patch can put any value anywhere."""
    if patch_type == STRATEGIC:
        new = strategic_merge_patch(live, body, kind)
    elif patch_type == MERGE:
        new = json_merge_patch(live, body)
    elif patch_type == JSON:
        new = json_patch(live, body)
    elif patch_type == APPLY:
        return apply_patch(live, body, kind=kind, manager=manager, force=force, now=now)
    else:
        raise BadRequest(f'patch type "{patch_type}" is not supported')
    typed_object(new, field_schema(kind), kind=kind, version=kinds.by_kind(kind).version,
                 what="the patched object")
    return record_update(live, new, kind=kind, manager=manager, now=now)


def patch(registry: Registry, resource: str, namespace: str | None, name: str,
          patch_type: str, body: Any, *, subresource: str | None = None,
          field_manager: str | None = None, force: bool = False, dry_run: bool = False,
          field_validation: FieldValidation = "Strict",
          warnings: list[str] | None = None) -> tuple[Object, bool]:
    """Patch an object; returns (object as stored, created).

    ``created`` is True only for a server-side apply that created the object.
    """
    info = kinds.by_plural(resource)
    ns = namespace if info.namespaced else None
    manager = field_manager or DEFAULT_MANAGER
    if force and patch_type != APPLY:
        raise BadRequest("force is only allowed with apply patches")
    body = typed(patch_type, body, info.kind)
    now = format_time(registry.clock())
    for _ in range(100):
        try:
            live = registry.store.get(resource, ns, name)
        except NotFound:
            if patch_type != APPLY or subresource is not None:
                raise
            return _apply_create(registry, info, ns, name, body, manager=manager, force=force,
                                 now=now, dry_run=dry_run, field_validation=field_validation,
                                 warnings=warnings), True
        new = patched(deep_copy(live), patch_type, body, kind=info.kind, manager=manager,
                      force=force, now=now)
        _check_identity(info, new, ns, name)
        pinned = _pinned_rv(patch_type, body)
        new.setdefault("metadata", {})["resourceVersion"] = pinned or live["metadata"][
            "resourceVersion"]
        untracked = not (live.get("metadata") or {}).get("managedFields")
        if patch_type == APPLY and _without_times(new, untracked=untracked) == _without_times(
                live, untracked=untracked):
            return live, False
        try:
            return registry.update(new, namespace=ns, subresource=subresource,
                                   field_validation=field_validation, dry_run=dry_run,
                                   warnings=warnings), False
        except Conflict:
            if pinned:
                raise
    raise Conflict.of(info.plural, name, "too many concurrent writers", group=info.group)


def _apply_create(registry: Registry, info: kinds.KindInfo, ns: str | None, name: str,
                  body: Any, *, manager: str, force: bool, now: str, dry_run: bool,
                  field_validation: FieldValidation, warnings: list[str] | None) -> Object:
    obj = apply_patch(None, body, kind=info.kind, manager=manager, force=force, now=now)
    meta = obj.setdefault("metadata", {})
    if meta.get("name") and meta["name"] != name:
        raise BadRequest(f"the name of the object ({meta['name']}) does not match the name "
                         f"on the URL ({name})")
    meta["name"] = name
    return registry.create(obj, namespace=ns, field_validation=field_validation,
                           dry_run=dry_run, warnings=warnings)


def _check_identity(info: kinds.KindInfo, new: Any, ns: str | None, name: str) -> None:
    """The patched object still is the object on the URL (and still an object:
    a patch may have replaced it, or its metadata, with anything)."""
    if not isinstance(new, Mapping):
        raise BadRequest(f"the patched object must be a JSON object, not {type(new).__name__}")
    meta = new.get("metadata") or {}
    if not isinstance(meta, Mapping):
        raise BadRequest(f"{info.kind} in version \"{info.version}\" cannot be handled as a "
                         f"{info.kind}: metadata: expected object, got {type(meta).__name__}")
    if meta.get("name") != name:
        raise BadRequest(f"the name of the object ({meta.get('name')}) does not match the "
                         f"name on the URL ({name})")
    if info.namespaced and meta.get("namespace") not in (None, ns):
        raise BadRequest("the namespace of the object does not match the namespace on the URL")
    if new.get("kind") != info.kind or new.get("apiVersion") != info.api_version:
        raise BadRequest(f"the patch changed the object's kind or apiVersion "
                         f"(to {new.get('apiVersion')}/{new.get('kind')})")


def _pinned_rv(patch_type: str, body: Any) -> str:
    """A resourceVersion the patch itself sets, making it a precondition."""
    if patch_type in (STRATEGIC, MERGE, APPLY) and isinstance(body, Mapping):
        meta = body.get("metadata")
        if isinstance(meta, Mapping) and meta.get("resourceVersion"):
            return str(meta["resourceVersion"])
    if patch_type == JSON and isinstance(body, list):
        for op in body:
            if isinstance(op, Mapping) and op.get("path") == "/metadata/resourceVersion" \
                    and op.get("op") in ("add", "replace"):
                return str(op.get("value") or "")
    return ""
