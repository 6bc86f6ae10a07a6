"""A container's environment from ConfigMaps and Secrets (kubelet/envsources.py):
``configMapKeyRef`` / ``secretKeyRef`` with ``optional``, ``envFrom`` with
``prefix``, the order in which definitions replace each other, invalid names
skipped with the kubelet's event, and Kubernetes' messages for what is missing
-- a table over an in-memory object source."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import pytest

from minikube_py.kubelet.envsources import make_environment
from minikube_py.kubelet.sources import CONFIGMAP, SECRET, ConfigError, SourceData


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


CONFIGMAP_OBJ = {"metadata": {"name": "app-config", "namespace": "default"},
                 "data": {"LOG_LEVEL": "debug", "mode": "fast", "GREETING": "hi $(USER)"},
                 "binaryData": {"blob": b64(b"\x00\x01")}}
SECRET_OBJ = {"metadata": {"name": "db", "namespace": "default"},
              "data": {"password": b64("s3cr=t with spaces"), "user": b64("admin")}}


class Objects:
    """An ObjectSource over a table; counts the reads."""

    def __init__(self, *objects: tuple[str, Mapping[str, Any]]) -> None:
        self.table = {(kind, obj["metadata"]["namespace"], obj["metadata"]["name"]):
                      SourceData.from_object(kind, obj) for kind, obj in objects}
        self.reads = 0

    def get(self, kind: str, namespace: str, name: str) -> SourceData | None:
        self.reads += 1
        return self.table.get((kind, namespace, name))


def objects() -> Objects:
    return Objects((CONFIGMAP, CONFIGMAP_OBJ), (SECRET, SECRET_OBJ))


POD = {"metadata": {"name": "web", "namespace": "default", "uid": "u-1"},
       "spec": {"nodeName": "node-1", "containers": []}}


def env(container: dict[str, Any], source: Objects | None = None,
        warnings: list[tuple[str, str]] | None = None,
        services: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    return list(make_environment(
        POD, {"name": "app", **container}, sources=source or objects(), host_ip="10.0.0.1",
        pod_ip="10.88.0.2", allocatable=(1000, 1 << 30), service_env=services or {},
        warn=None if warnings is None else (lambda r, m: warnings.append((r, m)))))


def cm_key(name: str, key: str, optional: bool | None = None) -> dict[str, Any]:
    ref: dict[str, Any] = {"name": name, "key": key}
    if optional is not None:
        ref["optional"] = optional
    return {"valueFrom": {"configMapKeyRef": ref}}


def secret_key(name: str, key: str, optional: bool | None = None) -> dict[str, Any]:
    ref: dict[str, Any] = {"name": name, "key": key}
    if optional is not None:
        ref["optional"] = optional
    return {"valueFrom": {"secretKeyRef": ref}}


@pytest.mark.parametrize(("var", "expected"), [
    (cm_key("app-config", "LOG_LEVEL"), [("V", "debug")]),
    (cm_key("app-config", "nope", optional=True), []),
    (cm_key("absent", "LOG_LEVEL", optional=True), []),
    (secret_key("db", "password"), [("V", "s3cr=t with spaces")]),
    (secret_key("db", "nope", optional=True), []),
    (secret_key("absent", "password", optional=True), []),
    # binaryData is for volumes only, as the kubelet's env reads ConfigMap.Data.
    (cm_key("app-config", "blob", optional=True), []),
], ids=["configmap key", "optional missing key", "optional missing configmap", "secret key",
        "optional missing secret key", "optional missing secret", "binaryData not in env"])
def test_key_refs(var: dict[str, Any], expected: list[tuple[str, str]]):
    assert env({"env": [{"name": "V", **var}]}) == expected


@pytest.mark.parametrize(("var", "message"), [
    (cm_key("app-config", "level"), "couldn't find key level in ConfigMap default/app-config"),
    (cm_key("app-config", "level", optional=False),
     "couldn't find key level in ConfigMap default/app-config"),
    (cm_key("later", "level"), 'configmap "later" not found'),
    (secret_key("db", "token"), "couldn't find key token in Secret default/db"),
    (secret_key("gone", "token"), 'secret "gone" not found'),
])
def test_missing_references_are_config_errors_with_kubernetes_messages(
        var: dict[str, Any], message: str):
    with pytest.raises(ConfigError) as err:
        env({"env": [{"name": "V", **var}]})
    assert str(err.value) == message


@pytest.mark.parametrize(("env_from", "message"), [
    ({"configMapRef": {"name": "later"}}, 'configmap "later" not found'),
    ({"secretRef": {"name": "gone"}}, 'secret "gone" not found'),
])
def test_env_from_a_missing_object(env_from: dict[str, Any], message: str):
    with pytest.raises(ConfigError, match=f"^{message}$"):
        env({"envFrom": [env_from]})
    assert env({"envFrom": [{next(iter(env_from)): {**next(iter(env_from.values())),
                                                      "optional": True}}]}) == []


def test_env_from_with_prefix_and_a_secret():
    got = dict(env({"envFrom": [{"configMapRef": {"name": "app-config"}, "prefix": "CFG_"},
                                {"secretRef": {"name": "db"}}]}))
    assert got == {"CFG_LOG_LEVEL": "debug", "CFG_mode": "fast", "CFG_GREETING": "hi $(USER)",
                   "password": "s3cr=t with spaces", "user": "admin"}


def test_later_definitions_replace_earlier_ones_and_env_sees_env_from():
    got = env({"envFrom": [{"configMapRef": {"name": "app-config"}},
                           {"secretRef": {"name": "db"}, "prefix": "mode"}],
               "env": [{"name": "mode", "value": "slow"},
                       {"name": "SUMMARY", "value": "$(LOG_LEVEL)/$(mode)/$(modeuser)/$(SVC)"},
                       {"name": "LOG_LEVEL", **secret_key("db", "user")}]},
              services={"SVC": "10.0.0.9", "mode": "service"})
    values = dict(got)
    assert values["mode"] == "slow"  # env replaces envFrom
    assert values["SUMMARY"] == "debug/slow/admin/10.0.0.9"
    assert values["LOG_LEVEL"] == "admin"  # a later env replaces the earlier definition
    # The Services' variables come last, those the container defines left out.
    assert got[-1] == ("SVC", "10.0.0.9") and ("mode", "service") not in got


def test_each_object_is_read_once_per_container():
    source = objects()
    env({"envFrom": [{"configMapRef": {"name": "app-config"}}],
         "env": [{"name": "A", **cm_key("app-config", "mode")},
                 {"name": "B", **cm_key("app-config", "LOG_LEVEL")}]}, source)
    assert source.reads == 1


def test_invalid_names_are_skipped_with_the_kubelets_event():
    # The API refuses such keys today; an object stored without that check
    # (or a prefix making a name invalid) must still not reach the runtime.
    bad = {"metadata": {"name": "odd", "namespace": "default"},
           "data": {"GOOD": "1", "a=b": "2", "tab\tname": "3"}}
    warnings: list[tuple[str, str]] = []
    got = env({"envFrom": [{"configMapRef": {"name": "odd"}},
                           {"secretRef": {"name": "db"}, "prefix": "X="}]},
              Objects((CONFIGMAP, bad), (SECRET, SECRET_OBJ)), warnings)
    assert got == [("GOOD", "1")]
    assert warnings == [
        ("InvalidEnvironmentVariableNames",
         "Keys [a=b, tab\tname] from the EnvFrom configMap default/odd were skipped since "
         "they are considered invalid environment variable names."),
        ("InvalidEnvironmentVariableNames",
         "Keys [X=password, X=user] from the EnvFrom secret default/db were skipped since "
         "they are considered invalid environment variable names.")]


def test_relaxed_names_pass_as_in_kubernetes_1_30_and_later():
    odd = {"metadata": {"name": "odd", "namespace": "default"},
           "data": {"1st": "a", "app.name": "b", "with-dash": "c"}}
    got = dict(env({"envFrom": [{"configMapRef": {"name": "odd"}}]},
                   Objects((CONFIGMAP, odd))))
    assert got == {"1st": "a", "app.name": "b", "with-dash": "c"}


def test_downward_and_resource_refs_beside_config():
    got = dict(env({"env": [
        {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        {"name": "HOST", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}},
        {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu",
                                                            "divisor": "1m"}}},
        {"name": "LVL", **cm_key("app-config", "LOG_LEVEL")}]}))
    assert got == {"NODE": "node-1", "IP": "10.88.0.2", "HOST": "10.0.0.1", "CPU": "1000",
                   "LVL": "debug"}


def test_secret_values_are_decoded_bytes_as_text():
    obj = {"metadata": {"name": "bin", "namespace": "default"},
           "data": {"utf8": b64("héllo"), "raw": b64(b"\xff")}}
    got = dict(env({"envFrom": [{"secretRef": {"name": "bin"}}]}, Objects((SECRET, obj))))
    assert got == {"utf8": "héllo", "raw": "\ufffd"}
