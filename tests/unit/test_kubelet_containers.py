"""Pod spec -> runtime configs (kubelet/containers.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minikube_py.kubelet.containers import container_config, expand, sandbox_config
from minikube_py.runtime import Mount, PortMapping


def pod(**container: Any) -> dict[str, Any]:
    c = {"name": "app", "image": "busybox", **container}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "namespace": "prod", "uid": "u-1",
                         "labels": {"app": "web"}, "annotations": {"team": "core"}},
            "spec": {"containers": [c], "nodeName": "node-1", "serviceAccountName": "sa",
                     "securityContext": {"runAsUser": 1000, "runAsGroup": 3000},
                     "volumes": [{"name": "scratch", "emptyDir": {}},
                                 {"name": "host", "hostPath": {"path": "/srv/data"}},
                                 {"name": "cfg", "configMap": {"name": "x"}}]}}


def config(p: dict[str, Any], tmp_path: Path, **kw: Any):
    return container_config(p, p["spec"]["containers"][0], node="node-1", init=False,
                            restart_count=kw.get("restart_count", 0), host_ip="192.168.1.10",
                            pod_ip="10.88.0.7", state_dir=tmp_path)


@pytest.mark.parametrize(("text", "env", "expected"), [
    ("$(A)-$(B)", {"A": "1", "B": "2"}, "1-2"),
    ("$(MISSING)", {}, "$(MISSING)"),
    ("$$(A)", {"A": "1"}, "$(A)"),
    ("plain $ sign", {}, "plain $ sign"),
])
def test_expand(text, env, expected):
    assert expand(text, env) == expected


def test_env_values_field_refs_and_expansion(tmp_path):
    p = pod(env=[
        {"name": "A", "value": "hello"},
        {"name": "B", "value": "$(A) world"},
        {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        {"name": "HOST", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}},
        {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
    ], command=["sh", "-c"], args=["echo $(B) from $(POD)"])
    cfg = config(p, tmp_path)
    assert dict(cfg.env) == {"A": "hello", "B": "hello world", "POD": "web", "NS": "prod",
                             "IP": "10.88.0.7", "HOST": "192.168.1.10", "NODE": "node-1",
                             "APP": "web"}
    assert cfg.command == ("sh", "-c")
    assert cfg.args == ("echo hello world from web",)


def test_resources_ports_security_labels(tmp_path):
    p = pod(resources={"requests": {"cpu": "250m"}, "limits": {"cpu": "1", "memory": "64Mi"}},
            ports=[{"containerPort": 80, "hostPort": 8080}],
            securityContext={"runAsUser": 0, "readOnlyRootFilesystem": True,
                             "capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]}})
    cfg = config(p, tmp_path, restart_count=3)
    assert (cfg.cpu_millis_request, cfg.cpu_millis_limit, cfg.memory_limit_bytes) == \
        (250, 1000, 64 * 1024 * 1024)
    assert cfg.ports == (PortMapping(80, 8080, "TCP", ""),)
    assert cfg.security.run_as_user == 0          # the container's wins
    assert cfg.security.run_as_group == 3000      # the pod's fills in
    assert cfg.security.read_only_root_fs is True
    assert cfg.security.cap_add == ("NET_ADMIN",) and cfg.security.cap_drop == ("ALL",)
    assert cfg.labels["minikube-py.io/restart-count"] == "3"
    assert cfg.labels["minikube-py.io/container-name"] == "app"
    assert cfg.labels["minikube-py.io/pod-uid"] == "u-1"


def test_volumes_become_mounts(tmp_path):
    p = pod(volumeMounts=[{"name": "scratch", "mountPath": "/tmp/s"},
                          {"name": "host", "mountPath": "/data", "readOnly": True},
                          {"name": "cfg", "mountPath": "/etc/cfg"}])
    cfg = config(p, tmp_path)
    empty_dir = tmp_path / "pods" / "u-1" / "volumes" / "kubernetes.io~empty-dir" / "scratch"
    cfg_dir = tmp_path / "pods" / "u-1" / "volumes" / "kubernetes.io~configmap" / "cfg"
    assert cfg.mounts == (Mount(str(empty_dir), "/tmp/s", False),
                          Mount("/srv/data", "/data", True),
                          Mount(str(cfg_dir), "/etc/cfg", True))  # API data: read-only
    assert empty_dir.is_dir()


def test_sandbox_config():
    p = pod(ports=[{"containerPort": 80, "hostPort": 8080}, {"containerPort": 9090}])
    cfg = sandbox_config(p, "node-1")
    assert (cfg.uid, cfg.namespace, cfg.name, cfg.node, cfg.hostname) == \
        ("u-1", "prod", "web", "node-1", "web")
    assert cfg.port_mappings == (PortMapping(80, 8080, "TCP", ""),)
    assert cfg.labels["app"] == "web"
    assert cfg.labels["minikube-py.io/namespace"] == "prod"
