"""Objects as the registry stores them deserialize into the official Python client's
typed models and serialize back unchanged: same field names, same types, nothing lost.

The client's models know every field of Kubernetes' API, so a field we invent, mistype
or misspell would be dropped or fail here.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from kubernetes.client import ApiClient

from minikube_py.api.manifest import load_paths
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
MODEL = {"Pod": "V1Pod", "Namespace": "V1Namespace", "Node": "V1Node", "Event": "CoreV1Event",
         "Deployment": "V1Deployment", "ReplicaSet": "V1ReplicaSet"}


_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def instants(value: Any) -> Any:
    """Timestamps as instants: the client writes ``+00:00`` where the API writes ``Z``."""
    if isinstance(value, dict):
        return {k: instants(v) for k, v in value.items()}
    if isinstance(value, list):
        return [instants(v) for v in value]
    if isinstance(value, str) and _TIME.match(value):
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


def roundtrip(obj: dict[str, Any]) -> Any:
    client = ApiClient()
    model = client.deserialize(json.dumps(obj), MODEL[obj["kind"]], "application/json")
    return instants(client.sanitize_for_serialization(model))


@pytest.fixture
def registry(tmp_path: Path):
    store = Store(tmp_path / "s")
    reg = Registry(store)
    reg.ensure_system_namespaces()
    yield reg
    store.close()


EXTRA: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "node-a", "labels": {"kubernetes.io/hostname": "node-a"}},
     "spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]},
     "status": {"capacity": {"cpu": "2", "memory": "4Gi", "pods": "110"},
                "allocatable": {"cpu": "1900m", "memory": "3.5Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                "message": "ok", "lastHeartbeatTime": "2026-11-21T10:00:00Z",
                                "lastTransitionTime": "2026-11-21T10:00:00Z"}],
                "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b",
                             "kernelVersion": "6.1", "osImage": "Debian", "operatingSystem":
                             "linux", "architecture": "amd64", "containerRuntimeVersion":
                             "podman://4.3.1", "kubeletVersion": "v1.32.0",
                             "kubeProxyVersion": ""}}},
    {"apiVersion": "v1", "kind": "Event",
     "metadata": {"name": "web.1", "namespace": "default"},
     "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web", "uid": "u"},
     "reason": "Scheduled", "message": "Successfully assigned default/web to node-a",
     "source": {"component": "default-scheduler"}, "type": "Normal", "count": 1,
     "firstTimestamp": "2026-11-21T10:00:00Z", "lastTimestamp": "2026-11-21T10:00:00Z"},
    {"apiVersion": "apps/v1", "kind": "ReplicaSet",
     "metadata": {"name": "web-5d4f8b7c9", "labels": {"app": "web"}},
     "spec": {"replicas": 2, "selector": {"matchExpressions": [
         {"key": "app", "operator": "In", "values": ["web"]}]},
              "template": {"metadata": {"labels": {"app": "web"}},
                           "spec": {"containers": [{
                               "name": "c", "image": "busybox:1.36",
                               "env": [{"name": "NODE", "valueFrom": {"fieldRef": {
                                   "fieldPath": "spec.nodeName"}}}],
                               "livenessProbe": {"tcpSocket": {"port": 80}},
                               "securityContext": {"runAsUser": 1000,
                                                   "capabilities": {"drop": ["ALL"]}}}],
                               "tolerations": [{"key": "k", "operator": "Exists"}],
                               "volumes": [{"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}],
                               "affinity": {"nodeAffinity": {
                                   "requiredDuringSchedulingIgnoredDuringExecution": {
                                       "nodeSelectorTerms": [{"matchExpressions": [{
                                           "key": "zone", "operator": "In",
                                           "values": ["a"]}]}]}}}}}}},
]


def stored_objects(registry: Registry) -> list[dict[str, Any]]:
    objs = [registry.create(m.obj) for m in load_paths([MANIFESTS])]
    objs += [registry.create(o) for o in EXTRA]
    objs += registry.store.list("namespaces").items
    return objs


def test_every_kind_round_trips_through_the_official_client(registry: Registry):
    objs = stored_objects(registry)
    assert {o["kind"] for o in objs} == set(MODEL)
    for obj in objs:
        assert roundtrip(obj) == instants(obj), obj["metadata"]["name"]


def test_a_misspelled_field_would_be_caught(registry: Registry):
    # The check above can fail: a field the client does not know is dropped.
    obj = registry.create(EXTRA[1])
    obj["involvedObject"]["nmae"] = "typo"
    assert roundtrip(obj) != instants(obj)
