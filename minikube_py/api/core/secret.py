"""Secret (core/v1): small pieces of sensitive data, typed by their use.

Kubernetes v1.32's rules:

* ``SetDefaults_Secret``: ``type`` defaults to ``Opaque``.
* ``stringData`` is write-only: every key of it is copied into ``data``
  (base64, overwriting a key of the same name) and the field is never stored
  or returned. Kubernetes does this while converting the v1 object to its
  internal form, after defaulting and before admission, strategy and
  validation, on every write (create, update, patch, apply); here the
  ``defaults`` hook is that moment, being the first thing run on a decoded
  body.
* ``ValidateSecret``: the name is a DNS subdomain; every key of ``data`` is a
  config key; the values hold at most 1 MiB in all (``data: Too long``); and
  each type asks for its keys: ``kubernetes.io/service-account-token`` the
  annotation ``kubernetes.io/service-account.name``,
  ``kubernetes.io/dockercfg`` / ``kubernetes.io/dockerconfigjson`` the key
  ``.dockercfg`` / ``.dockerconfigjson`` holding a JSON object (its content
  is never echoed: ``"<secret contents redacted>"``),
  ``kubernetes.io/basic-auth`` ``username`` or ``password``,
  ``kubernetes.io/ssh-auth`` a non-empty ``ssh-privatekey``,
  ``kubernetes.io/tls`` ``tls.crt`` and ``tls.key``; ``Opaque``,
  ``bootstrap.kubernetes.io/token`` and any other type ask for nothing.
* ``ValidateSecretUpdate``: ``type`` never changes, and once ``immutable``
  is true it stays true and ``data`` never changes.
* The strategy has no status and no generation; ``type`` is a field label.

Table and describer are kubectl's: ``NAME TYPE DATA AGE`` and the
``SecretDescriber``, which prints each key with its size and never a value,
except the ``token`` of a service-account-token Secret, which kubectl prints
in full. Keys are sorted (Go's map order is random, ours is not).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..describe.sections import print_name_header
from ..describe.writer import Ctx, Out
from ..errors import FieldError, FieldPath, forbidden, invalid, required, too_long
from ..generated import core_v1
from ..gojson import unmarshal_object_error
from ..printers import D_CREATED, D_NAME, age_of, cell_str, epoch
from ..resource import Column, KindInfo, Resource
from ..validation_meta import (
    Errs,
    as_str,
    immutable,
    validate_object_meta,
    validate_object_meta_update,
)
from .configmap import MAX_SIZE, decoded_len, is_config_map_key

INFO = KindInfo("Secret", "", "v1", "secrets", "secret", True, field_labels=("type",))

OPAQUE: Final = "Opaque"
SERVICE_ACCOUNT_TOKEN: Final = "kubernetes.io/service-account-token"
DOCKERCFG: Final = "kubernetes.io/dockercfg"
DOCKER_CONFIG_JSON: Final = "kubernetes.io/dockerconfigjson"
BASIC_AUTH: Final = "kubernetes.io/basic-auth"
SSH_AUTH: Final = "kubernetes.io/ssh-auth"
TLS: Final = "kubernetes.io/tls"
BOOTSTRAP_TOKEN: Final = "bootstrap.kubernetes.io/token"

#: ``core.ServiceAccountNameKey`` / ``ServiceAccountUIDKey``: which account a
#: service-account-token Secret belongs to.
SERVICE_ACCOUNT_NAME_KEY: Final = "kubernetes.io/service-account.name"
SERVICE_ACCOUNT_UID_KEY: Final = "kubernetes.io/service-account.uid"
#: ``core.ServiceAccountTokenKey``: the key kubectl describe prints in full.
TOKEN_KEY: Final = "token"

_REDACTED: Final = "<secret contents redacted>"
_IMMUTABLE: Final = "field is immutable when `immutable` is set"

# ------------------------------------------------------------------ defaults


def default_secret(secret: dict[str, Any], create: bool) -> None:
    """``SetDefaults_Secret``, then ``stringData`` merged into ``data``
    (``Convert_v1_Secret_To_core_Secret``; see the module docstring)."""
    if not secret.get("type"):
        secret["type"] = OPAQUE
    string_data = secret.pop("stringData", None)
    if isinstance(string_data, Mapping) and string_data:
        data = secret.get("data")
        if not isinstance(data, dict):
            data = secret["data"] = {}
        for key, value in string_data.items():
            data[key] = base64.b64encode(as_str(value).encode()).decode()


# ------------------------------------------------------------------ validation


def _decoded(value: Any) -> bytes:
    try:
        return base64.b64decode(as_str(value), validate=True)
    except (binascii.Error, ValueError):
        return b""  # refused at decoding; never reaches validation


def _json_object(data: Mapping[str, Any], key: str) -> Errs:
    """The key is present and holds what ``json.Unmarshal`` reads into a map."""
    path = FieldPath.root("data").key(key)
    if key not in data:
        return [required(path, "")]
    problem = unmarshal_object_error(_decoded(data[key]).decode("utf-8", "replace"))
    return [invalid(path, _REDACTED, problem)] if problem else []


def _type_rules(secret: Mapping[str, Any], data: Mapping[str, Any]) -> Errs:
    """The keys each type asks for (``ValidateSecret``'s switch)."""
    kind = as_str(secret.get("type"))
    data_path = FieldPath.root("data")
    if kind == SERVICE_ACCOUNT_TOKEN:
        annotations = _m(_m(secret.get("metadata")).get("annotations"))
        if not as_str(annotations.get(SERVICE_ACCOUNT_NAME_KEY)):
            return [required(FieldPath.root("metadata", "annotations")
                             .key(SERVICE_ACCOUNT_NAME_KEY), "")]
    elif kind == DOCKERCFG:
        return _json_object(data, ".dockercfg")
    elif kind == DOCKER_CONFIG_JSON:
        return _json_object(data, ".dockerconfigjson")
    elif kind == BASIC_AUTH:
        # Either may be empty, but one of them must be there.
        if "username" not in data and "password" not in data:
            return [required(data_path.key("username"), ""),
                    required(data_path.key("password"), "")]
    elif kind == SSH_AUTH:
        if not decoded_len(data.get("ssh-privatekey") or ""):
            return [required(data_path.key("ssh-privatekey"), "")]
    elif kind == TLS:
        return [required(data_path.key(key), "") for key in ("tls.crt", "tls.key")
                if key not in data]
    return []


def validate_secret(secret: Mapping[str, Any]) -> Errs:
    """``ValidateSecret`` (module docstring)."""
    errs: list[FieldError] = validate_object_meta(secret.get("metadata"), namespaced=True,
                                                  name_rule="subdomain")
    data = _m(secret.get("data"))
    total = 0
    for key in sorted(data):
        errs.extend(invalid(FieldPath.root("data").key(key), key, msg)
                    for msg in is_config_map_key(key))
        total += decoded_len(data[key])
    if total > MAX_SIZE:
        errs.append(too_long("data", MAX_SIZE))
    errs.extend(_type_rules(secret, data))
    return errs


def validate_secret_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateSecretUpdate``: metadata rules, a fixed type, immutability,
    then the create rules."""
    errs: list[FieldError] = validate_object_meta_update(new.get("metadata"),
                                                         old.get("metadata"))
    errs.extend(immutable(as_str(new.get("type")), as_str(old.get("type")),
                          FieldPath.root("type")))
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errs.append(forbidden(FieldPath.root("immutable"), _IMMUTABLE))
        # stringData needs no check: it is already part of data here.
        if (new.get("data") or None) != (old.get("data") or None):
            errs.append(forbidden(FieldPath.root("data"), _IMMUTABLE))
    errs.extend(validate_secret(new))
    return errs


# ------------------------------------------------------------------ table

SECRET_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Type", "string",
           "Used to facilitate programmatic handling of secret data. More info: "
           "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
    Column("Data", "string",
           "Data contains the secret data. Each key must consist of alphanumeric characters, "
           "'-', '_' or '.'. The serialized form of the secret data is a base64 encoded "
           "string, representing the arbitrary (possibly non-string) data value here. "
           "Described in https://tools.ietf.org/html/rfc4648#section-4"),
    Column("Age", "string", D_CREATED),
)


def print_secret(secret: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    """``printSecret``: name, type, number of keys, age."""
    metadata = _m(secret.get("metadata"))
    return [cell_str(metadata.get("name")), cell_str(secret.get("type")),
            len(_m(secret.get("data"))),
            age_of(epoch(metadata.get("creationTimestamp")), now)], None


# ------------------------------------------------------------------ describe


def describe_secret(secret: Mapping[str, Any], related: Mapping[str, Any],
                    events: Any, ctx: Ctx) -> str:
    """kubectl's ``SecretDescriber``: sizes, not values (no Events section)."""
    w = Out()
    print_name_header(w, _m(secret.get("metadata")))
    kind = as_str(secret.get("type"))
    w.write(0, f"\nType:\t{kind}\n")
    w.write(0, "\nData\n====\n")
    data = _m(secret.get("data"))
    for key in sorted(data):
        if key == TOKEN_KEY and kind == SERVICE_ACCOUNT_TOKEN:
            w.write(0, f"{key}:\t{_decoded(data[key]).decode('utf-8', 'replace')}\n")
        else:
            w.write(0, f"{key}:\t{decoded_len(data[key])} bytes\n")
    return w.render()


RESOURCE = Resource(
    INFO, core_v1.Secret,
    defaults=default_secret,
    validate=validate_secret,
    validate_update=validate_secret_update,
    columns=SECRET_COLUMNS,
    row=print_secret,
    describe=describe_secret,
)
