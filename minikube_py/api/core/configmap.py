"""ConfigMap (core/v1): configuration data for pods to consume.

Kubernetes' ``configmap`` strategy and ``ValidateConfigMap`` /
``ValidateConfigMapUpdate`` (v1.32):

* the name is a DNS subdomain; every key of ``data`` and ``binaryData`` is a
  config key (``[-._a-zA-Z0-9]+``, at most 253 characters, not ``.`` or
  ``..`` and not starting with ``..``) and no key is in both;
* ``data`` and ``binaryData`` together hold at most 1 MiB (1048576 bytes);
* once ``immutable`` is true it stays true and ``data``/``binaryData`` never
  change (metadata still may);
* no status, no generation; ``binaryData`` values are base64 on the wire (the
  schema's ``format: byte`` refuses anything else at decoding).

Table and describer are kubectl's: ``NAME DATA AGE`` (``DATA`` counts the keys
of both maps) and ``Data`` / ``BinaryData`` sections (keys sorted: Go's map
order is random, ours is not).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..describe.sections import describe_events, print_name_header
from ..describe.values import str_map
from ..describe.writer import Ctx, Out
from ..errors import FieldError, FieldPath, forbidden, invalid, too_long
from ..generated import core_v1
from ..names import max_len_error, regex_error
from ..printers import D_CREATED, D_NAME, age_of, cell_str, epoch
from ..resource import Column, KindInfo, Resource
from ..validation_meta import Errs, validate_object_meta, validate_object_meta_update

INFO = KindInfo("ConfigMap", "", "v1", "configmaps", "configmap", True, ("cm",))

#: ``core.MaxSecretSize``: the most a ConfigMap (or Secret) may hold.
MAX_SIZE: Final = 1024 * 1024

# ------------------------------------------------------------------ validation

_KEY_FMT: Final = "[-._a-zA-Z0-9]+"
_KEY_RE: Final = re.compile(f"^{_KEY_FMT}$")
_KEY_ERR: Final = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
_KEY_MAX: Final = 253
_IMMUTABLE: Final = "field is immutable when `immutable` is set"


def is_config_map_key(key: str) -> list[str]:
    """``validation.IsConfigMapKey``: the messages for a key that is not one."""
    errs = []
    if len(key) > _KEY_MAX:
        errs.append(max_len_error(_KEY_MAX))
    if not _KEY_RE.match(key):
        errs.append(regex_error(_KEY_ERR, _KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    if key == ".":
        errs.append("must not be '.'")
    elif key == "..":
        errs.append("must not be '..'")
    elif key.startswith(".."):
        errs.append("must not start with '..'")
    return errs


def decoded_len(value: Any) -> int:
    """How many bytes the base64 ``value`` holds (a ``[]byte`` field's length)."""
    try:
        return len(base64.b64decode(str(value), validate=True))
    except (binascii.Error, ValueError):
        return len(str(value))  # refused at decoding; only counted here


def validate_config_map(cm: Mapping[str, Any]) -> Errs:
    """``ValidateConfigMap`` (module docstring)."""
    errs: list[FieldError] = validate_object_meta(cm.get("metadata"), namespaced=True,
                                                  name_rule="subdomain")
    data, binary = str_map(cm.get("data")), _m(cm.get("binaryData"))
    total = 0
    for key in sorted(data):
        path = FieldPath.root("data").key(key)
        errs.extend(invalid(path, key, msg) for msg in is_config_map_key(key))
        if key in binary:
            errs.append(invalid(path, key, "duplicate of key present in binaryData"))
        total += len(data[key].encode())
    for key in sorted(binary):
        path = FieldPath.root("binaryData").key(key)
        errs.extend(invalid(path, key, msg) for msg in is_config_map_key(key))
        total += decoded_len(binary[key])
    if total > MAX_SIZE:
        errs.append(too_long("", MAX_SIZE))
    return errs


def validate_config_map_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateConfigMapUpdate``: metadata rules, immutability, then create rules."""
    errs: list[FieldError] = validate_object_meta_update(new.get("metadata"),
                                                         old.get("metadata"))
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errs.append(forbidden(FieldPath.root("immutable"), _IMMUTABLE))
        if (new.get("data") or None) != (old.get("data") or None):
            errs.append(forbidden(FieldPath.root("data"), _IMMUTABLE))
        if (new.get("binaryData") or None) != (old.get("binaryData") or None):
            errs.append(forbidden(FieldPath.root("binaryData"), _IMMUTABLE))
    errs.extend(validate_config_map(new))
    return errs


# ------------------------------------------------------------------ table

CONFIG_MAP_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Data", "string",
           "Data contains the configuration data. Each key must consist of alphanumeric "
           "characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the "
           "BinaryData field. The keys stored in Data must not overlap with the keys in the "
           "BinaryData field, this is enforced during validation process."),
    Column("Age", "string", D_CREATED),
)


def print_config_map(cm: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    """``printConfigMap``: name, number of keys (both maps), age."""
    metadata = _m(cm.get("metadata"))
    keys = len(_m(cm.get("data"))) + len(_m(cm.get("binaryData")))
    return [cell_str(metadata.get("name")), keys,
            age_of(epoch(metadata.get("creationTimestamp")), now)], None


# ------------------------------------------------------------------ describe


def describe_config_map(cm: Mapping[str, Any], related: Mapping[str, Any],
                        events: Any, ctx: Ctx) -> str:
    """kubectl's ``ConfigMapDescriber``."""
    meta = _m(cm.get("metadata"))
    w = Out()
    print_name_header(w, meta)
    w.write(0, "\nData\n====\n")
    data = str_map(cm.get("data"))
    for key in sorted(data):
        w.write(0, f"{key}:\n----\n")
        w.write(0, f"{data[key]}\n")
        w.write(0, "\n")
    w.write(0, "\nBinaryData\n====\n")
    binary = _m(cm.get("binaryData"))
    for key in sorted(binary):
        w.write(0, f"{key}: {decoded_len(binary[key])} bytes\n")
    w.write(0, "\n")
    describe_events(events, w, ctx)
    return w.render()


RESOURCE = Resource(
    INFO, core_v1.ConfigMap,
    validate=validate_config_map,
    validate_update=validate_config_map_update,
    columns=CONFIG_MAP_COLUMNS,
    row=print_config_map,
    describe=describe_config_map,
)
