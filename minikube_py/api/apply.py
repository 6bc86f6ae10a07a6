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

import json
from collections.abc import Mapping
from typing import Any

from . import errors, kinds
from .access import meta as _meta
from .apply_fields import PE as PE
from .apply_fields import Path as Path
from .apply_fields import _DecodeError, _ensure_named, _shape, _step, _without_ignored
from .apply_fields import decode_fields as decode_fields
from .apply_fields import encode_fields as encode_fields
from .apply_fields import field_set as field_set
from .apply_fields import path_string as path_string
from .apply_managers import (
    _conflict_error,
    _Conflicts,
    _copy_managers,
    _Entry,
    _is_reset,
    _seconds,
)
from .apply_managers import decode_managed_fields as decode_managed_fields
from .apply_managers import encode_managed_fields as encode_managed_fields
from .apply_managers import identifier as identifier
from .apply_merge import MISSING as MISSING
from .apply_merge import _drop_nulls, _same
from .apply_merge import compare as compare
from .apply_merge import merge as merge
from .apply_merge import remove_items as remove_items
from .jsoncopy import deep_copy
from .patch_smp import canonical_json, json_kind
from .schema import field_schema
from .schema_model import OBJECT, Schema

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
BEFORE_FIRST_APPLY = "before-first-apply"
ANCIENT_CHANGES = "ancient-changes"
MAX_UPDATE_MANAGERS = 10
_MAX_ANNOTATIONS_BYTES = 256 * 1024

#: stripMetaManager: never owned by anyone.
_STRIPPED: frozenset[Path] = frozenset({
    (("f", "apiVersion"),), (("f", "kind"),), (("f", "metadata"),),
    *((("f", "metadata"), ("f", name)) for name in (
        "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName",
        "generation", "managedFields", "resourceVersion")),
})


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
    live_obj = deep_copy(dict(live)) if live is not None else None
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
    cfg = deep_copy(dict(config))
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
    base = deep_copy(live) if live is not None else {}
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
    applied = deep_copy(dict(config))
    meta = applied.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        meta["annotations"].pop(LAST_APPLIED, None)
    annotations[LAST_APPLIED] = canonical_json(applied) + "\n"
    if sum(len(k) + len(str(v)) for k, v in annotations.items()) > _MAX_ANNOTATIONS_BYTES:
        del annotations[LAST_APPLIED]


def record_update(old: Mapping[str, Any] | None, new: Mapping[str, Any], *, kind: str,
                  manager: str, now: str) -> dict[str, Any]:
    """Ownership bookkeeping for a non-apply write. See the module docstring."""
    result = deep_copy(dict(new))
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
    before = _without_managed_fields(deep_copy(dict(old))) if old is not None else {}
    after = _without_managed_fields(deep_copy(dict(new)))
    updater.record(before, after, managers, manager, now, from_empty=old is None)
    return _set_managed_fields(result, managers)
