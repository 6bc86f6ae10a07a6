"""ConfigMap (v1): validation, strategy, table, describe and the ``create
configmap`` generator, against Kubernetes v1.32's rules and kubectl's output."""

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
from minikube_py.api.labels import parse_selector
from minikube_py.api.printers import table
from minikube_py.api.validation import validate, validate_update
from minikube_py.ops.create import Sources, config_map
from minikube_py.ops.errors import OpError
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

NOW = 1_700_000_000.0
STAMP = "2023-11-14T22:13:20Z"  # NOW


def cm(name: str = "web", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"}, **fields}


def messages(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    errs = validate(obj) if old is None else validate_update(obj, old)
    return [str(e) for e in errs]


KEY_MSG = ("Invalid value: \"{k}\": a valid config key must consist of alphanumeric "
           "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', "
           "regex used for validation is '[-._a-zA-Z0-9]+')")


@pytest.mark.parametrize(("obj", "expected"), [
    (cm(data={"a.b_c-D9": "x"}, binaryData={"bin": "AAE="}), []),
    (cm(data={"bad key": "x"}), ["data[bad key]: " + KEY_MSG.format(k="bad key")]),
    (cm(data={".": "x"}), ["data[.]: Invalid value: \".\": must not be '.'"]),
    (cm(data={"..": "x"}), ["data[..]: Invalid value: \"..\": must not be '..'"]),
    (cm(binaryData={"..a": "AA=="}),
     ["binaryData[..a]: Invalid value: \"..a\": must not start with '..'"]),
    (cm(data={"k" * 254: ""}),
     [f"data[{'k' * 254}]: Invalid value: \"{'k' * 254}\": must be no more than 253 "
      "characters"]),
    (cm(data={"same": "x"}, binaryData={"same": "AA=="}),
     ["data[same]: Invalid value: \"same\": duplicate of key present in binaryData"]),
    (cm(data={"big": "x" * (1024 * 1024 + 1)}),
     [": Too long: may not be more than 1048576 bytes"]),
    (cm("Not_A_Name"), ["metadata.name: Invalid value: \"Not_A_Name\": a lowercase RFC 1123 "
                        "subdomain must consist of lower case alphanumeric characters, '-' or "
                        "'.', and must start and end with an alphanumeric character (e.g. "
                        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*"
                        "[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
])
def test_create_validation(obj: dict[str, Any], expected: list[str]):
    assert messages(obj) == expected


def test_binary_size_counts_decoded_bytes():
    half = base64.b64encode(b"x" * (512 * 1024)).decode()
    assert messages(cm(binaryData={"a": half, "b": half})) == []
    assert messages(cm(binaryData={"a": half, "b": half}, data={"c": "x"})) == [
        ": Too long: may not be more than 1048576 bytes"]


IMMUTABLE = "Forbidden: field is immutable when `immutable` is set"


@pytest.mark.parametrize(("new_fields", "expected"), [
    ({"immutable": True, "data": {"k": "v"}}, []),
    ({"immutable": True, "data": {"k": "w"}}, ["data: " + IMMUTABLE]),
    ({"immutable": True, "data": {"k": "v"}, "binaryData": {"b": "AA=="}},
     ["binaryData: " + IMMUTABLE]),
    ({"immutable": False, "data": {"k": "v"}}, ["immutable: " + IMMUTABLE]),
    ({"data": {}}, ["immutable: " + IMMUTABLE, "data: " + IMMUTABLE]),
])
def test_an_immutable_config_map_keeps_its_data(new_fields: dict[str, Any],
                                                expected: list[str]):
    old = cm(immutable=True, data={"k": "v"})
    old["metadata"]["resourceVersion"] = "7"
    new = cm(**new_fields)
    new["metadata"]["resourceVersion"] = "7"
    assert messages(new, old) == expected


def test_a_mutable_config_map_may_change_and_become_immutable():
    old = cm(data={"k": "v"})
    old["metadata"]["resourceVersion"] = "7"
    new = cm(data={"k": "w"}, immutable=True)
    new["metadata"]["resourceVersion"] = "7"
    assert messages(new, old) == []


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    store = Store(tmp_path / "s", clock=lambda: NOW)
    reg = Registry(store, clock=lambda: NOW, new_uid=lambda: "uid-1")
    reg.ensure_system_namespaces()
    yield reg
    store.close()


def test_strategy_no_status_no_generation_and_selectors(registry: Registry):
    made = registry.create(cm(data={"k": "v"}, status={"x": 1}) | {
        "metadata": {"name": "web", "labels": {"app": "web"}}}, namespace="default",
        field_validation="Ignore")
    assert "status" not in made and "generation" not in made["metadata"]
    assert made["metadata"]["uid"] == "uid-1" and made["metadata"]["namespace"] == "default"
    registry.create(cm("other", data={}))
    store = registry.store
    by_label = store.list("configmaps", label_selector=parse_selector("app=web")).items
    assert [o["metadata"]["name"] for o in by_label] == ["web"]
    by_name = store.list("configmaps",
                         field_selector=parse_field_selector("metadata.name=other")).items
    assert [o["metadata"]["name"] for o in by_name] == ["other"]
    registry.delete("configmaps", "default", "web")
    assert [o["metadata"]["name"] for o in store.list("configmaps").items] == ["other"]


def test_binary_data_must_be_base64(registry: Registry):
    with pytest.raises(BadRequest, match="illegal base64 data at input byte 3"):
        registry.create(cm(binaryData={"x": "AAE*"}))
    with pytest.raises(Invalid):
        registry.create(cm(data={"bad key": "1"}))
    assert registry.store.list("configmaps").items == []


def test_table_and_scheme():
    info = kinds.resolve("cm")
    assert (info.kind, info.plural, info.namespaced, info.subresources) == (
        "ConfigMap", "configmaps", True, ())
    obj = cm(data={"a": "1", "b": "2"}, binaryData={"c": "AA=="})
    obj["metadata"]["creationTimestamp"] = "2023-11-14T22:10:00Z"
    tab = table("ConfigMap", [obj], now=NOW)
    assert [c["name"] for c in tab["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert tab["rows"][0]["cells"] == ["web", 3, "3m20s"]


def test_describe_is_kubectls():
    obj = cm(data={"z": "last", "a": "first\n"}, binaryData={"bin": "AAECAw=="})
    obj["metadata"]["labels"] = {"tier": "front"}
    text = describe("configmap", obj, now=NOW, tz=None, events=())
    assert text == (
        "Name:         web\n"
        "Namespace:    default\n"
        "Labels:       tier=front\n"
        "Annotations:  <none>\n"
        "\n"
        "Data\n"
        "====\n"
        "a:\n----\nfirst\n\n\n"
        "z:\n----\nlast\n\n"
        "\n"
        "BinaryData\n"
        "====\n"
        "bin: 4 bytes\n"
        "\n"
        "Events:  <none>\n")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "app.conf").write_text("x=1\n")
    (tmp_path / "logo.bin").write_bytes(b"\x89PNG\xff")
    (tmp_path / "sub").mkdir()
    return tmp_path


def test_generator_literals_files_and_directories(files: Path):
    made = config_map("web", "prod", Sources(["a=1", "b==2"],
                                             [str(files / "app.conf"), f"k={files / 'logo.bin'}"]))
    assert made == {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "web", "namespace": "prod"},
                    "data": {"a": "1", "b": "=2", "app.conf": "x=1\n"},
                    "binaryData": {"k": base64.b64encode(b"\x89PNG\xff").decode()}}
    whole = config_map("web", "prod", Sources((), [str(files)]))
    assert sorted(whole["data"]) == ["app.conf"] and sorted(whole["binaryData"]) == ["logo.bin"]


@pytest.mark.parametrize(("sources", "message"), [
    (Sources(["novalue"]), "invalid literal source novalue, expected key=value"),
    (Sources(["bad key=1"]), '"bad key" is not a valid key name for a ConfigMap'),
    (Sources(["a=1", "a=2"]),
     'cannot add key "a", another key by that name already exists in Data for ConfigMap "web"'),
    (Sources([], ["=/x"]), "key name for file path /x missing"),
    (Sources([], ["/does/not/exist"]), "error reading /does/not/exist"),
])
def test_generator_errors(sources: Sources, message: str):
    with pytest.raises(OpError, match=None) as err:
        config_map("web", "default", sources)
    assert message in str(err.value)


def test_generator_binary_duplicate(files: Path):
    with pytest.raises(OpError, match="already exists in BinaryData"):
        config_map("web", "default", Sources([], [f"k={files / 'logo.bin'}",
                                                  f"k={files / 'app.conf'}"]))
