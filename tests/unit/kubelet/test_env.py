"""Environment variables (kubelet/containers.py): values, the downward API,
resourceFieldRef and ``$(VAR)`` expansion -- as a table, then through a kubelet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minikube_py.kubelet.containers import container_config, expand
from minikube_py.kubelet.sources import ConfigError

from .conftest import GI, MI, create_pod, get_pod, pod_in_phase

NODE_ALLOCATABLE = (2000, 4 * GI)


def pod(env: list[dict[str, Any]], **container: Any) -> dict[str, Any]:
    c = {"name": "app", "image": "busybox", "env": env, **container}
    return {"metadata": {"name": "web", "namespace": "prod", "uid": "u-1",
                         "labels": {"app": "web"}, "annotations": {"team": "core"}},
            "spec": {"containers": [c, {"name": "side", "image": "busybox",
                                        "resources": {"limits": {"cpu": "250m"}}}],
                     "nodeName": "node-1", "serviceAccountName": "builder"}}


def env_of(p: dict[str, Any], tmp_path: Path) -> dict[str, str]:
    cfg = container_config(p, p["spec"]["containers"][0], node="node-1", init=False,
                           restart_count=0, host_ip="192.168.1.10", pod_ip="10.88.0.7",
                           state_dir=tmp_path, allocatable=NODE_ALLOCATABLE)
    return dict(cfg.env)


def field(path: str) -> dict[str, Any]:
    return {"fieldRef": {"fieldPath": path}}


def resource(res: str, divisor: str | None = None, container: str | None = None) -> dict:
    ref: dict[str, Any] = {"resource": res}
    if divisor:
        ref["divisor"] = divisor
    if container:
        ref["containerName"] = container
    return {"resourceFieldRef": ref}


@pytest.mark.parametrize(("source", "value"), [
    (field("metadata.name"), "web"),
    (field("metadata.namespace"), "prod"),
    (field("metadata.uid"), "u-1"),
    (field("metadata.labels['app']"), "web"),
    (field("metadata.annotations['team']"), "core"),
    (field("metadata.labels['missing']"), ""),
    (field("spec.nodeName"), "node-1"),
    (field("spec.serviceAccountName"), "builder"),
    (field("status.hostIP"), "192.168.1.10"),
    (field("status.hostIPs"), "192.168.1.10"),
    (field("status.podIP"), "10.88.0.7"),
    (field("status.podIPs"), "10.88.0.7"),
])
def test_field_refs(tmp_path, source, value):
    assert env_of(pod([{"name": "X", "valueFrom": source}]), tmp_path)["X"] == value


RESOURCES = {"requests": {"cpu": "250m", "memory": "64Mi"},
             "limits": {"cpu": "1500m", "memory": "100Mi"}}


@pytest.mark.parametrize(("resources", "source", "value"), [
    (RESOURCES, resource("limits.cpu"), "2"),                 # 1.5 cores rounded up
    (RESOURCES, resource("limits.cpu", "1m"), "1500"),
    (RESOURCES, resource("requests.cpu", "1m"), "250"),
    (RESOURCES, resource("requests.cpu"), "1"),
    (RESOURCES, resource("limits.memory"), str(100 * MI)),
    (RESOURCES, resource("limits.memory", "1Mi"), "100"),
    (RESOURCES, resource("requests.memory", "1Mi"), "64"),
    (RESOURCES, resource("requests.memory", "1Gi"), "1"),
    # no limit: the node's allocatable (the downward API's default)
    ({}, resource("limits.cpu", "1m"), "2000"),
    ({}, resource("limits.memory"), str(4 * GI)),
    # no request: zero (requests are not defaulted to the node)
    ({}, resource("requests.cpu", "1m"), "0"),
    # another container's
    ({}, resource("limits.cpu", "1m", container="side"), "250"),
])
def test_resource_field_refs(tmp_path, resources, source, value):
    p = pod([{"name": "X", "valueFrom": source}], resources=resources)
    assert env_of(p, tmp_path)["X"] == value


def test_a_missing_secret_and_an_invalid_reference_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match=r'^secret "s" not found$'):
        env_of(pod([{"name": "S", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]),
               tmp_path)
    # The API refuses these; a kubelet that met one would fail as Kubernetes'.
    with pytest.raises(ConfigError, match=r"^container nope not found$"):
        env_of(pod([{"name": "X", "valueFrom": resource("limits.cpu", container="nope")}]),
               tmp_path)
    with pytest.raises(ConfigError, match=r"^unsupported fieldPath: status.phase$"):
        env_of(pod([{"name": "Y", "valueFrom": field("status.phase")}]), tmp_path)


@pytest.mark.parametrize(("text", "env", "expected"), [
    ("$(A)-$(B)", {"A": "1", "B": "2"}, "1-2"),
    ("$(MISSING)", {}, "$(MISSING)"),
    ("$$(A)", {"A": "1"}, "$(A)"),
    ("$$$(A)", {"A": "1"}, "$1"),
    ("$$$$", {}, "$$"),
    ("plain $ sign", {}, "plain $ sign"),
    ("trailing $", {}, "trailing $"),
    ("$(A", {"A": "1"}, "$(A"),                 # unterminated reference
    ("$(A)$(A", {"A": "1"}, "1$(A"),
    ("$()", {}, "$()"),
    ("$(WITH SPACE)", {"WITH SPACE": "x"}, "x"),  # any name up to ")"
    ("$A", {"A": "1"}, "$A"),                   # no parentheses: not a reference
    ("(x)$(A)(y)", {"A": "1"}, "(x)1(y)"),
])
def test_expansion(text, env, expected):
    assert expand(text, env) == expected


def test_values_expand_earlier_variables_only(tmp_path):
    env = env_of(pod([
        {"name": "LATER_REF", "value": "$(POD)"},
        {"name": "POD", "valueFrom": field("metadata.name")},
        {"name": "URL", "value": "http://$(POD).$(NS):80"},
        {"name": "NS", "valueFrom": field("metadata.namespace")},
        {"name": "CPU", "valueFrom": resource("limits.cpu", "1m")},
        {"name": "OPTS", "value": "-Xmx$(CPU)m $$(KEEP)"},
    ]), tmp_path)
    assert env["LATER_REF"] == "$(POD)"
    assert env["URL"] == "http://web.$(NS):80"
    assert env["OPTS"] == "-Xmx2000m $(KEEP)"


def test_command_and_args_see_every_variable(tmp_path):
    p = pod([{"name": "A", "value": "1"}, {"name": "POD", "valueFrom": field("metadata.name")}],
            command=["echo", "$(POD)"], args=["$(A)", "$$(A)", "$(NOPE)"])
    cfg = container_config(p, p["spec"]["containers"][0], node="node-1", init=False,
                           restart_count=0, host_ip="h", pod_ip="i", state_dir=tmp_path)
    assert cfg.command == ("echo", "web")
    assert cfg.args == ("1", "$(A)", "$(NOPE)")


def test_env_through_the_kubelet(client, make_kubelet, runtime):
    make_kubelet(cpu=1500, memory=2 * GI)
    create_pod(client, "web", containers=[{
        "name": "app", "image": "busybox",
        "env": [{"name": "IP", "valueFrom": field("status.podIP")},
                {"name": "MEM", "valueFrom": resource("limits.memory", "1Mi")},
                {"name": "GREETING", "value": "pod $(IP) has $(MEM)Mi"}],
        "args": ["$(GREETING)"]}])
    pod_ip = pod_in_phase(client, "web", "Running")["status"]["podIP"]
    [c] = runtime.list_containers()
    cfg = runtime.container_config(c.id)
    assert dict(cfg.env)["GREETING"] == f"pod {pod_ip} has 2048Mi"
    assert cfg.args == (f"pod {pod_ip} has 2048Mi",)
    assert get_pod(client, "web")["status"]["phase"] == "Running"
