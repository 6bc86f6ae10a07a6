"""``metadata.managedFields`` entries: decoding, encoding and conflict errors.

Split off :mod:`.apply`: one :class:`_Entry` per manager (keyed by its
``BuildManagerIdentifier`` JSON), the sorted ``managedFields`` list, and the
409 a conflicting apply answers with.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import errors
from .apply_fields import (
    Path,
    _DecodeError,
    _go_quote,
    _iterate,
    decode_fields,
    encode_fields,
    path_string,
)
from .patch_smp import canonical_json, json_kind
from .timefmt import parse_time


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
