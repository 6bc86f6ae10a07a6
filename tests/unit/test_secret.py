"""Secret (v1): defaults and stringData, validation by type, immutability, the
strategy through a Registry, protobuf bodies, the table and kubectl's describe
text, against Kubernetes v1.32's rules."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api import kinds
from minikube_py.api.describe import describe
from minikube_py.api.errors import BadRequest, Invalid
from minikube_py.api.fields import parse_field_selector
from minikube_py.api.printers import table
from minikube_py.api.protobuf import MAGIC, decode_k8s_protobuf
from minikube_py.api.validation import validate, validate_update
from minikube_py.store.patching import patch
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

NOW = 1_700_000_000.0


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def secret(name: str = "db", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": name, "namespace": "default"}, **fields}


def messages(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    errs = validate(obj) if old is None else validate_update(obj, old)
    return [str(e) for e in errs]


KEY_MSG = ("Invalid value: \"{k}\": a valid config key must consist of alphanumeric "
           "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', "
           "regex used for validation is '[-._a-zA-Z0-9]+')")
REDACTED = 'Invalid value: "<secret contents redacted>"'
SA_NAME = "kubernetes.io/service-account.name"


@pytest.mark.parametrize(("obj", "expected"), [
    (secret(type="Opaque", data={"a.b_c-D9": b64("x")}), []),
    (secret(type="Opaque", data={"bad key": b64("x")}),
     ["data[bad key]: " + KEY_MSG.format(k="bad key")]),
    (secret(type="Opaque", data={"..a": ""}),
     ["data[..a]: Invalid value: \"..a\": must not start with '..'"]),
    # The size counts decoded bytes, and the error is at "data".
    (secret(type="Opaque", data={"a": b64(b"x" * (512 * 1024)), "b": b64(b"x" * (512 * 1024))}),
     []),
    (secret(type="Opaque", data={"a": b64(b"x" * (1024 * 1024 + 1))}),
     ["data: Too long: may not be more than 1048576 bytes"]),
    (secret("Not_A_Name", type="Opaque"),
     ["metadata.name: Invalid value: \"Not_A_Name\": a lowercase RFC 1123 subdomain must "
      "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
      "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    # service-account-token: only the annotation naming the account is required.
    (secret(type="kubernetes.io/service-account-token"),
     [f"metadata.annotations[{SA_NAME}]: Required value"]),
    (secret(type="kubernetes.io/service-account-token") | {
        "metadata": {"name": "t", "namespace": "default", "annotations": {SA_NAME: "build"}}},
     []),
    (secret(type="kubernetes.io/dockercfg"), ["data[.dockercfg]: Required value"]),
    (secret(type="kubernetes.io/dockercfg", data={".dockercfg": b64("{}")}), []),
    (secret(type="kubernetes.io/dockercfg", data={".dockercfg": b64("[1]")}),
     [f"data[.dockercfg]: {REDACTED}: json: cannot unmarshal array into Go value of type "
      "map[string]interface {}"]),
    (secret(type="kubernetes.io/dockerconfigjson"), ["data[.dockerconfigjson]: Required value"]),
    (secret(type="kubernetes.io/dockerconfigjson",
            data={".dockerconfigjson": b64('{"auths":{}}')}), []),
    (secret(type="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": b64("{oops")}),
     [f"data[.dockerconfigjson]: {REDACTED}: invalid character 'o' looking for beginning of "
      "object key string"]),
    (secret(type="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": ""}),
     [f"data[.dockerconfigjson]: {REDACTED}: unexpected end of JSON input"]),
    (secret(type="kubernetes.io/basic-auth"),
     ["data[username]: Required value", "data[password]: Required value"]),
    (secret(type="kubernetes.io/basic-auth", data={"password": ""}), []),
    (secret(type="kubernetes.io/ssh-auth"), ["data[ssh-privatekey]: Required value"]),
    (secret(type="kubernetes.io/ssh-auth", data={"ssh-privatekey": ""}),
     ["data[ssh-privatekey]: Required value"]),
    (secret(type="kubernetes.io/ssh-auth", data={"ssh-privatekey": b64("k")}), []),
    (secret(type="kubernetes.io/tls"),
     ["data[tls.crt]: Required value", "data[tls.key]: Required value"]),
    (secret(type="kubernetes.io/tls", data={"tls.crt": "", "tls.key": ""}), []),
    (secret(type="bootstrap.kubernetes.io/token"), []),
    (secret(type="example.com/anything"), []),
])
def test_create_validation(obj: dict[str, Any], expected: list[str]):
    assert messages(obj) == expected


IMMUTABLE = "Forbidden: field is immutable when `immutable` is set"


def _versioned(obj: dict[str, Any]) -> dict[str, Any]:
    obj["metadata"]["resourceVersion"] = "7"
    return obj


@pytest.mark.parametrize(("new_fields", "expected"), [
    ({"type": "Opaque", "immutable": True, "data": {"k": b64("v")}}, []),
    ({"type": "Opaque", "immutable": True, "data": {"k": b64("w")}}, ["data: " + IMMUTABLE]),
    ({"type": "Opaque", "immutable": False, "data": {"k": b64("v")}},
     ["immutable: " + IMMUTABLE]),
    ({"type": "Opaque"}, ["immutable: " + IMMUTABLE, "data: " + IMMUTABLE]),
    ({"type": "kubernetes.io/basic-auth", "immutable": True, "data": {"k": b64("v")}},
     ['type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
      "data[username]: Required value", "data[password]: Required value"]),
])
def test_update_validation(new_fields: dict[str, Any], expected: list[str]):
    old = _versioned(secret(type="Opaque", immutable=True, data={"k": b64("v")}))
    assert messages(_versioned(secret(**new_fields)), old) == expected


def test_a_mutable_secret_may_change_and_become_immutable():
    old = _versioned(secret(type="Opaque", data={"k": b64("v")}))
    new = _versioned(secret(type="Opaque", data={"k": b64("w")}, immutable=True))
    assert messages(new, old) == []


# ------------------------------------------------------------------ strategy


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    store = Store(tmp_path / "s", clock=lambda: NOW)
    reg = Registry(store, clock=lambda: NOW, new_uid=lambda: "uid-1")
    reg.ensure_system_namespaces()
    yield reg
    store.close()


def test_string_data_is_merged_into_data_and_never_stored(registry: Registry):
    made = registry.create(secret(data={"a": b64("old"), "b": b64("kept")},
                                  stringData={"a": "new", "c": "ünï"}))
    assert made["type"] == "Opaque" and "stringData" not in made
    assert made["data"] == {"a": b64("new"), "b": b64("kept"), "c": b64("ünï")}
    assert "status" not in made and "generation" not in made["metadata"]
    stored = registry.store.get("secrets", "default", "db")
    assert "stringData" not in stored and stored["data"] == made["data"]
    # An update merges too (over what the update sends, not over what is stored).
    made["stringData"] = {"b": "changed"}
    updated = registry.update(made)
    assert updated["data"] == {"a": b64("new"), "b": b64("changed"), "c": b64("ünï")}
    assert "stringData" not in updated


def test_patches_merge_string_data(registry: Registry):
    registry.create(secret(data={"a": b64("1")}))
    patched, _ = patch(registry, "secrets", "default", "db", "merge",
                       {"stringData": {"a": "2", "z": "3"}})
    assert patched["data"] == {"a": b64("2"), "z": b64("3")} and "stringData" not in patched
    applied, _ = patch(registry, "secrets", "default", "db", "apply",
                       {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"},
                        "stringData": {"q": "4"}}, field_manager="test")
    assert applied["data"]["q"] == b64("4") and "stringData" not in applied


def test_string_data_counts_towards_validation(registry: Registry):
    with pytest.raises(Invalid) as err:
        registry.create(secret(type="kubernetes.io/tls", stringData={"tls.crt": "c"}))
    assert str(err.value) == ('Secret "db" is invalid: data[tls.key]: Required value')
    with pytest.raises(Invalid, match=r"data\[bad key\]"):
        registry.create(secret(stringData={"bad key": "v"}))
    assert registry.store.list("secrets").items == []


def test_immutable_secret_through_the_registry(registry: Registry):
    made = registry.create(secret(immutable=True, stringData={"k": "v"}))
    made["stringData"] = {"k": "v"}  # the same value: data does not change
    assert registry.update(made)["data"] == {"k": b64("v")}
    made["stringData"] = {"k": "other"}
    with pytest.raises(Invalid, match="data: Forbidden: field is immutable when"):
        registry.update(made)
    # Metadata may still change.
    labelled, _ = patch(registry, "secrets", "default", "db", "merge",
                        {"metadata": {"labels": {"a": "b"}}})
    assert labelled["metadata"]["labels"] == {"a": "b"}


def test_type_is_fixed_and_a_field_label(registry: Registry):
    made = registry.create(secret(stringData={"k": "v"}))
    registry.create(secret("tls", type="kubernetes.io/tls",
                           stringData={"tls.crt": "c", "tls.key": "k"}))
    made["type"] = "kubernetes.io/ssh-auth"
    with pytest.raises(Invalid, match=r'type: Invalid value: "kubernetes.io/ssh-auth": '
                                      "field is immutable"):
        registry.update(made)
    found = registry.store.list("secrets", field_selector=parse_field_selector(
        "type=kubernetes.io/tls")).items
    assert [o["metadata"]["name"] for o in found] == ["tls"]


def test_data_must_be_base64(registry: Registry):
    with pytest.raises(BadRequest, match="illegal base64 data at input byte 3"):
        registry.create(secret(data={"x": "AAE*"}))


# ------------------------------------------------------------------ protobuf


def _ld(number: int, payload: bytes) -> bytes:
    assert len(payload) < 128
    return bytes([number << 3 | 2, len(payload)]) + payload


def test_a_protobuf_secret_has_base64_data():
    """kubectl create secret sends protobuf: data is map<string, bytes>."""
    meta = _ld(1, b"db") + _ld(3, b"default")
    entry = _ld(1, b"bin") + _ld(2, b"\x00\xff")
    body = _ld(1, meta) + _ld(2, entry) + _ld(3, b"Opaque") + \
        _ld(4, _ld(1, b"s") + _ld(2, b"text"))
    unknown = _ld(1, _ld(1, b"v1") + _ld(2, b"Secret")) + _ld(2, body)
    assert decode_k8s_protobuf(MAGIC + unknown) == {
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "db", "namespace": "default"},
        "data": {"bin": b64(b"\x00\xff")}, "type": "Opaque", "stringData": {"s": "text"}}


# ------------------------------------------------------------------ table, describe


def test_scheme_and_table():
    info = kinds.resolve("secrets")
    assert (info.kind, info.plural, info.namespaced, info.short_names, info.field_labels,
            info.subresources) == ("Secret", "secrets", True, (), ("type",), ())
    obj = secret(type="kubernetes.io/tls", data={"tls.crt": "", "tls.key": ""})
    obj["metadata"]["creationTimestamp"] = "2023-11-14T22:10:00Z"
    tab = table("Secret", [obj, secret("empty", type="Opaque")], now=NOW)
    assert [c["name"] for c in tab["columnDefinitions"]] == ["Name", "Type", "Data", "Age"]
    assert tab["rows"][0]["cells"] == ["db", "kubernetes.io/tls", 2, "3m20s"]
    assert tab["rows"][1]["cells"][:3] == ["empty", "Opaque", 0]


def test_describe_prints_sizes_never_values():
    obj = secret(type="Opaque", data={"password": b64("hunter2"), "ca.crt": b64("x" * 1099),
                                      "empty": ""})
    obj["metadata"]["labels"] = {"app": "db"}
    text = describe("secret", obj, now=NOW, tz=None,
                    events=[{"type": "Normal", "reason": "X", "message": "m"}])
    assert text == (
        "Name:         db\n"
        "Namespace:    default\n"
        "Labels:       app=db\n"
        "Annotations:  <none>\n"
        "\n"
        "Type:  Opaque\n"
        "\n"
        "Data\n"
        "====\n"
        "ca.crt:    1099 bytes\n"
        "empty:     0 bytes\n"
        "password:  7 bytes\n")
    assert "hunter2" not in text and "Events" not in text


def test_describe_shows_a_service_account_token_as_kubectl_does():
    """kubectl prints the ``token`` of a service-account-token Secret in full
    (and only that key)."""
    obj = secret(type="kubernetes.io/service-account-token",
                 data={"token": b64("eyJhbGc"), "ca.crt": b64("pem")})
    obj["metadata"]["annotations"] = {SA_NAME: "build"}
    text = describe("secret", obj, now=NOW, tz=None)
    assert text.endswith("Data\n====\nca.crt:  3 bytes\ntoken:   eyJhbGc\n")
    assert "pem" not in text
