"""A fixed, small cluster served by an in-memory client, for snapshot tests.

Everything a view shows is pinned: the objects (with timestamps relative to
:data:`NOW`, which the app's frozen clock returns), the scheduling queue and
the decision records. The watch never sends anything, so the screen only
changes when a test changes it.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from minikube_py.api import kinds
from minikube_py.api.errors import NotFound
from minikube_py.api.fields import parse_field_selector
from minikube_py.client.base import Event, Object, ObjectList

#: The frozen "now" of every snapshot: 2026-01-01T12:00:00Z.
NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC).timestamp()


def ago(seconds: float) -> str:
    return (datetime.fromtimestamp(NOW - seconds, UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _node(name: str, *, taints: list[dict[str, str]] | None = None,
          unschedulable: bool = False) -> Object:
    conditions = [
        {"type": t, "status": "False", "reason": r, "lastHeartbeatTime": ago(5)}
        for t, r in (("MemoryPressure", "KubeletHasSufficientMemory"),
                     ("DiskPressure", "KubeletHasNoDiskPressure"),
                     ("PIDPressure", "KubeletHasSufficientPID"))]
    conditions.append({"type": "Ready", "status": "True", "reason": "KubeletReady",
                       "lastHeartbeatTime": ago(5)})
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "creationTimestamp": ago(7200),
                         "resourceVersion": "1",
                         "labels": {"kubernetes.io/hostname": name}},
            "spec": spec,
            "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"},
                       "capacity": {"cpu": "2", "memory": "4Gi", "pods": "110"},
                       "conditions": conditions,
                       "nodeInfo": {"kubeletVersion": "v1.32.0-minikube-py"}}}


def _container(name: str, cpu: str, memory: str) -> dict[str, Any]:
    return {"name": name, "image": "localhost/minikube-py/busybox:1.35",
            "resources": {"requests": {"cpu": cpu, "memory": memory}}}


def _running(name: str, restarts: int = 0, *, ready: bool = True) -> dict[str, Any]:
    status: dict[str, Any] = {"name": name, "ready": ready, "restartCount": restarts,
                              "state": {"running": {"startedAt": ago(600)}}}
    if restarts:
        status["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error",
                                              "finishedAt": ago(300)}}
    return status


def _pod(name: str, *, namespace: str = "default", node: str | None = None,
         phase: str = "Running", created: float = 3600, cpu: str = "250m",
         memory: str = "256Mi", statuses: list[dict[str, Any]] | None = None,
         labels: dict[str, str] | None = None, extra_status: dict[str, Any] | None = None,
         init: list[dict[str, Any]] | None = None,
         init_statuses: list[dict[str, Any]] | None = None,
         deleting: bool = False, main: dict[str, Any] | None = None,
         spec_extra: dict[str, Any] | None = None) -> Object:
    spec: dict[str, Any] = {"containers": [_container("main", cpu, memory) | (main or {})],
                            **(spec_extra or {})}
    if node:
        spec["nodeName"] = node
    if init:
        spec["initContainers"] = init
    status: dict[str, Any] = {"phase": phase,
                              "containerStatuses": statuses if statuses is not None
                              else [_running("main")]}
    if init_statuses:
        status["initContainerStatuses"] = init_statuses
    ready = all(s.get("ready") for s in status["containerStatuses"]) and phase == "Running"
    status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False"}]
    status.update(extra_status or {})
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": f"uid-{name}",
                            "resourceVersion": "10", "creationTimestamp": ago(created),
                            "labels": labels or {}}
    if deleting:
        meta["deletionTimestamp"] = ago(2)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": status}


def _unschedulable(message: str) -> dict[str, Any]:
    return {"conditions": [{"type": "PodScheduled", "status": "False",
                            "reason": "Unschedulable", "message": message}]}


NODES = [
    _node("node-1"),
    _node("node-2", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
    _node("node-3", unschedulable=True),
]

PODS = [
    _pod("web-7d9c5b-abcde", node="node-1", labels={"app": "web"}),
    _pod("web-7d9c5b-fghij", node="node-3", labels={"app": "web"},
         statuses=[_running("main", restarts=2)],
         spec_extra={"volumes": [{"name": "conf", "configMap": {"name": "web-config"}}]}),
    _pod("api-5f6b8c-klmno", node="node-1", cpu="500m", memory="512Mi",
         labels={"app": "api"},
         main={"envFrom": [{"configMapRef": {"name": "web-config"}}],
               "env": [{"name": "DB_PASSWORD", "valueFrom": {
                   "secretKeyRef": {"name": "db-credentials", "key": "password"}}}]},
         statuses=[{"name": "main", "ready": False, "restartCount": 5,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                                                 "finishedAt": ago(40)}}}]),
    _pod("countdown", namespace="batch", node="node-1", phase="Succeeded", created=900,
         cpu="100m", memory="32Mi",
         statuses=[{"name": "main", "ready": False, "restartCount": 0,
                    "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                             "finishedAt": ago(800)}}}]),
    _pod("init-demo", node="node-1", phase="Pending", created=20, cpu="100m",
         memory="64Mi",
         spec_extra={"imagePullSecrets": [{"name": "registry"}], "volumes": [
             {"name": "all", "projected": {"sources": [
                 {"configMap": {"name": "web-config"}},
                 {"secret": {"name": "db-credentials"}}]}}]},
         init=[_container("fetch", "50m", "16Mi"), _container("migrate", "50m", "16Mi")],
         init_statuses=[{"name": "fetch", "ready": True, "restartCount": 0,
                         "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                                  "finishedAt": ago(10)}}},
                        {"name": "migrate", "ready": False, "restartCount": 0,
                         "state": {"running": {"startedAt": ago(9)}}}],
         statuses=[{"name": "main", "ready": False, "restartCount": 0,
                    "state": {"waiting": {"reason": "PodInitializing"}}}]),
    _pod("old-web-1a2b3c", node="node-3", created=86400, deleting=True,
         labels={"app": "web"}),
    _pod("big", phase="Pending", created=120, cpu="8", memory="1Gi", statuses=[],
         extra_status=_unschedulable("0/3 nodes are available: 1 node(s) had untolerated "
                                     "taint {dedicated: gpu}, 1 node(s) were unschedulable, "
                                     "1 Insufficient cpu.")),
    _pod("picky", phase="Pending", created=30, cpu="100m", memory="64Mi", statuses=[],
         extra_status=_unschedulable("0/3 nodes are available: 3 node(s) didn't match "
                                     "Pod's node affinity/selector.")),
]


def _deployment(name: str, replicas: int, ready: int, updated: int, reason: str,
                uid: str) -> Object:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default", "uid": uid,
                         "creationTimestamp": ago(3600), "resourceVersion": "5"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [_container("main", "250m",
                                                                     "256Mi")]}}},
            "status": {"replicas": replicas, "readyReplicas": ready,
                       "updatedReplicas": updated, "availableReplicas": ready,
                       "conditions": [{"type": "Progressing", "status": "True",
                                       "reason": reason}]}}


def _replicaset(name: str, owner: str, owner_uid: str, revision: int, replicas: int,
                ready: int, created: float) -> Object:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "creationTimestamp": ago(created), "resourceVersion": "6",
                         "annotations": {"deployment.kubernetes.io/revision": str(revision)},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                              "name": owner, "uid": owner_uid,
                                              "controller": True}]},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": owner}},
                     "template": {"spec": {"containers": [_container("main", "250m",
                                                                     "256Mi")]}}},
            "status": {"replicas": replicas, "readyReplicas": ready}}


DEPLOYMENTS = [
    _deployment("web", 3, 2, 2, "ReplicaSetUpdated", "uid-dep-web"),
    _deployment("api", 1, 0, 1, "NewReplicaSetAvailable", "uid-dep-api"),
]

REPLICASETS = [
    _replicaset("web-7d9c5b", "web", "uid-dep-web", 2, 2, 2, 600),
    _replicaset("web-1a2b3c", "web", "uid-dep-web", 1, 1, 1, 86400),
    _replicaset("api-5f6b8c", "api", "uid-dep-api", 1, 1, 0, 3600),
]


def _event(n: int, seconds: float, kind: str, reason: str, obj: str, message: str,
           namespace: str = "default") -> Object:
    okind, name = obj.split("/")
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{name}.{n:04d}", "namespace": namespace,
                         "resourceVersion": str(100 + n)},
            "type": kind, "reason": reason, "message": message, "count": 1,
            "involvedObject": {"kind": okind, "name": name, "namespace": namespace,
                               # The uids _pod and _deployment give their objects.
                               "uid": f"uid-dep-{name}" if okind == "Deployment"
                               else f"uid-{name}"},
            "firstTimestamp": ago(seconds), "lastTimestamp": ago(seconds),
            "source": {"component": "default-scheduler"}}


EVENTS = [
    _event(1, 3000, "Normal", "ScalingReplicaSet", "Deployment/web",
           "Scaled up replica set web-7d9c5b from 0 to 2"),
    _event(2, 600, "Normal", "Scheduled", "Pod/web-7d9c5b-abcde",
           "Successfully assigned default/web-7d9c5b-abcde to node-1"),
    _event(3, 599, "Normal", "Started", "Pod/web-7d9c5b-abcde", "Started container main"),
    _event(4, 120, "Warning", "FailedScheduling", "Pod/big",
           "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
           "1 node(s) were unschedulable, 1 Insufficient cpu."),
    _event(5, 40, "Warning", "BackOff", "Pod/api-5f6b8c-klmno",
           "Back-off restarting failed container main in pod api-5f6b8c-klmno"),
    _event(6, 30, "Warning", "FailedScheduling", "Pod/picky",
           "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."),
]

QUEUE = {
    "active": [],
    "backoff": [{"pod": "default/picky", "priority": 0, "attempts": 2,
                 "lastFailure": "0/3 nodes are available: 3 node(s) didn't match Pod's node "
                                "affinity/selector.", "retryInSeconds": 3.5}],
    "unschedulable": [{"pod": "default/big", "priority": 0, "attempts": 4,
                       "lastFailure": "0/3 nodes are available: 1 node(s) had untolerated "
                                      "taint {dedicated: gpu}, 1 node(s) were unschedulable, "
                                      "1 Insufficient cpu.", "retryInSeconds": 0}],
    "inFlight": [],
}

_PLUGINS = [{"name": "TaintToleration", "weight": 3, "skipped": False},
            {"name": "NodeResourcesFit", "weight": 1, "skipped": False},
            {"name": "PodTopologySpread", "weight": 2, "skipped": False},
            {"name": "NodeResourcesBalancedAllocation", "weight": 1, "skipped": False},
            {"name": "ImageLocality", "weight": 1, "skipped": False}]


def _scores(fit: int, spread: int, balanced: int) -> dict[str, Any]:
    return {"TaintToleration": {"raw": 0, "normalized": 100, "weighted": 300},
            "NodeResourcesFit": {"raw": fit, "normalized": fit, "weighted": fit},
            "PodTopologySpread": {"raw": 2 - spread // 100, "normalized": spread // 2,
                                  "weighted": spread},
            "NodeResourcesBalancedAllocation": {"raw": balanced, "normalized": balanced,
                                                "weighted": balanced},
            "ImageLocality": {"raw": 0, "normalized": 0, "weighted": 0}}


DECISIONS: dict[str, list[dict[str, Any]]] = {
    "default/web-7d9c5b-abcde": [{
        "pod": "default/web-7d9c5b-abcde", "uid": "uid-web-7d9c5b-abcde",
        "time": "2026-01-01T11:50:00.000000Z", "outcome": "Scheduled", "node": "node-1",
        "message": "Successfully assigned default/web-7d9c5b-abcde to node-1",
        "nodesTotal": 3, "nodesEvaluated": 3, "feasibleNodes": 2,
        "unschedulablePlugins": [], "plugins": _PLUGINS,
        "nodes": [
            {"name": "node-1", "feasible": True, "chosen": True, "total": 683,
             "scores": _scores(91, 200, 92)},
            {"name": "node-3", "feasible": True, "chosen": False, "total": 589,
             "scores": _scores(87, 100, 102)},
            {"name": "node-2", "feasible": False, "plugin": "TaintToleration",
             "code": "UnschedulableAndUnresolvable",
             "reasons": ["node(s) had untolerated taint {dedicated: gpu}"]},
        ],
        "preemption": None}],
    "default/big": [{
        "pod": "default/big", "uid": "uid-big", "time": "2026-01-01T11:58:00.000000Z",
        "outcome": "Unschedulable", "node": None,
        "message": "0/3 nodes are available: 1 node(s) had untolerated taint "
                   "{dedicated: gpu}, 1 node(s) were unschedulable, 1 Insufficient cpu.",
        "nodesTotal": 3, "nodesEvaluated": 3, "feasibleNodes": 0,
        "unschedulablePlugins": ["NodeResourcesFit", "NodeUnschedulable", "TaintToleration"],
        "plugins": _PLUGINS,
        "nodes": [
            {"name": "node-1", "feasible": False, "plugin": "NodeResourcesFit",
             "code": "Unschedulable", "reasons": ["Insufficient cpu"]},
            {"name": "node-2", "feasible": False, "plugin": "TaintToleration",
             "code": "UnschedulableAndUnresolvable",
             "reasons": ["node(s) had untolerated taint {dedicated: gpu}"]},
            {"name": "node-3", "feasible": False, "plugin": "NodeUnschedulable",
             "code": "UnschedulableAndUnresolvable",
             "reasons": ["node(s) were unschedulable"]},
        ],
        "preemption": None}],
}

def _service(name: str, kind: str, cluster_ip: str | None, ports: list[dict[str, Any]], *,
             namespace: str = "default", selector: dict[str, str] | None = None,
             created: float = 3600, labels: dict[str, str] | None = None,
             ingress: list[dict[str, str]] | None = None,
             external_name: str | None = None) -> Object:
    """A Service as the API server returns it (cluster IP and node ports allocated)."""
    spec: dict[str, Any] = {"type": kind, "ports": ports, "sessionAffinity": "None"}
    if cluster_ip:
        spec.update(clusterIP=cluster_ip, clusterIPs=[cluster_ip], ipFamilies=["IPv4"],
                    ipFamilyPolicy="SingleStack")
    if selector:
        spec["selector"] = selector
    if external_name:
        spec["externalName"] = external_name
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-svc-{name}",
                         "creationTimestamp": ago(created), "resourceVersion": "7",
                         "labels": labels or {}},
            "spec": spec, "status": {"loadBalancer": {"ingress": ingress} if ingress else {}}}


def _endpoint(ip: str, *, pod: str | None = None, node: str | None = None,
              ready: bool = True, terminating: bool = False,
              hostname: str | None = None) -> dict[str, Any]:
    endpoint: dict[str, Any] = {"addresses": [ip], "conditions": {
        "ready": ready and not terminating, "serving": ready, "terminating": terminating}}
    if pod:
        endpoint["targetRef"] = {"kind": "Pod", "namespace": "default", "name": pod,
                                 "uid": f"uid-{pod}"}
    if node:
        endpoint["nodeName"] = node
    if hostname:
        endpoint["hostname"] = hostname
    return endpoint


def _slice(name: str, service: str, ports: list[dict[str, Any]],
           endpoints: list[dict[str, Any]], namespace: str = "default") -> Object:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-eps-{name}",
                         "creationTimestamp": ago(3000), "resourceVersion": "8",
                         "labels": {"kubernetes.io/service-name": service}},
            "addressType": "IPv4", "ports": ports, "endpoints": endpoints}


SERVICES = [
    _service("kubernetes", "ClusterIP", "10.96.0.1",
             [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}],
             created=7200, labels={"component": "apiserver", "provider": "kubernetes"}),
    _service("web", "LoadBalancer", "10.96.12.34",
             [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080,
               "nodePort": 30080}], selector={"app": "web"},
             labels={"app": "web", "tier": "front"}, ingress=[{"ip": "127.0.0.1"}]),
    _service("api", "NodePort", "10.96.40.1",
             [{"port": 8080, "protocol": "TCP", "targetPort": 8080, "nodePort": 31234}],
             selector={"app": "api"}, labels={"app": "api"}),
    _service("db", "ClusterIP", "None", [{"port": 5432, "protocol": "TCP",
                                          "targetPort": 5432}],
             selector={"app": "db"}, created=86400),
    _service("docs", "ExternalName", None, [], external_name="docs.example.com", created=600),
    _service("kube-dns", "ClusterIP", "10.96.0.10",
             [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
              {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
              {"name": "metrics", "port": 9153, "protocol": "TCP", "targetPort": 9153}],
             namespace="kube-system", selector={"k8s-app": "kube-dns"}, created=7200,
             labels={"k8s-app": "kube-dns"}),
]

ENDPOINTSLICES = [
    _slice("kubernetes", "kubernetes", [{"name": "https", "port": 6443, "protocol": "TCP"}],
           [_endpoint("192.168.1.10")]),
    # The pods of the web Deployment: two serving, the old one terminating.
    _slice("web-x7k2p", "web", [{"name": "http", "port": 8080, "protocol": "TCP"}],
           [_endpoint("10.88.2.3", pod="old-web-1a2b3c", node="node-3", terminating=True),
            _endpoint("10.88.2.7", pod="web-7d9c5b-fghij", node="node-3"),
            _endpoint("10.88.0.5", pod="web-7d9c5b-abcde", node="node-1")]),
    _slice("api-q9w8e", "api", [{"name": "", "port": 8080, "protocol": "TCP"}],
           [_endpoint("10.88.0.6", pod="api-5f6b8c-klmno", node="node-1", ready=False)]),
    _slice("db-m3n4b", "db", [{"name": "", "port": 5432, "protocol": "TCP"}],
           [_endpoint("10.88.1.4", pod="db-0", node="node-2", hostname="db-0")]),
]

def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _config(kind: str, name: str, *, namespace: str = "default", created: float = 3600,
            **fields: Any) -> Object:
    return {"apiVersion": "v1", "kind": kind,
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}",
                         "creationTimestamp": ago(created), "resourceVersion": "5"},
            **fields}


CONFIGMAPS = [
    _config("ConfigMap", "web-config", created=86400, data={
        "nginx.conf": "server {\n  listen 8080;\n  root /srv/www;\n  index index.html;\n}\n",
        "MODE": "production"}, binaryData={"favicon.ico": _b64("\x00\x01icon")}),
    _config("ConfigMap", "coredns", namespace="kube-system", created=7200,
            data={"Corefile": ".:53 {\n    errors\n    forward . /etc/resolv.conf\n}\n"}),
]

SECRETS = [
    _config("Secret", "db-credentials", type="Opaque", created=86400,
            data={"password": _b64("hunter2"), "username": _b64("admin")}),
    _config("Secret", "registry", type="kubernetes.io/dockerconfigjson", created=600,
            data={".dockerconfigjson": _b64('{"auths": {"registry.local": {}}}')}),
]

OBJECTS: dict[str, list[Object]] = {
    "nodes": NODES, "pods": PODS, "deployments": DEPLOYMENTS, "replicasets": REPLICASETS,
    "events": EVENTS, "services": SERVICES, "endpointslices": ENDPOINTSLICES,
    "configmaps": CONFIGMAPS, "secrets": SECRETS,
}


class _QuietWatch:
    """A watch that never sends anything until stopped."""

    def __init__(self) -> None:
        self._stop = threading.Event()

    def next(self, timeout: float | None = None) -> Event | None:
        self._stop.wait(timeout)
        return None

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def __iter__(self) -> Iterator[Event]:
        return iter(())


class CannedClient:
    """Serves :data:`OBJECTS`, :data:`QUEUE` and :data:`DECISIONS`; writes raise."""

    def get(self, resource: str, namespace: str | None, name: str) -> Object:
        for obj in OBJECTS.get(resource, []):
            meta = obj["metadata"]
            if meta["name"] == name and meta.get("namespace") == namespace:
                return obj
        raise NotFound.of(resource, name)

    def list(self, resource: str, *, namespace: str | None = None,
             label_selector: str | None = None, field_selector: str | None = None,
             limit: int | None = None, continue_token: str | None = None) -> ObjectList:
        kinds.by_plural(resource)
        selector = parse_field_selector(field_selector or "")
        return ObjectList([o for o in OBJECTS.get(resource, []) if selector.matches(o)], "1000")

    def watch(self, resource: str, **_: Any) -> _QuietWatch:
        return _QuietWatch()

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None,
                body: Any = None, content_type: str = "application/json",
                accept: str = "application/json") -> tuple[int, bytes, dict[str, str]]:
        if path == "/debug/scheduler/queue":
            return 200, json.dumps(QUEUE).encode(), {}
        prefix = "/debug/scheduler/decisions/"
        if path.startswith(prefix):
            key = path[len(prefix):]
            return 200, json.dumps({"pod": key, "decisions": DECISIONS.get(key, [])}).encode(), {}
        raise NotFound(f"no canned answer for {path}")

    def logs(self, namespace: str, name: str, **_: Any) -> Iterator[bytes]:
        yield b"canned log line\n"

    def _read_only(self, *_: Any, **__: Any) -> Object:
        raise NotImplementedError("the canned cluster is read-only")

    create = update = patch = delete = _read_only

    def bind(self, namespace: str, name: str, node: str) -> None:
        raise NotImplementedError("the canned cluster is read-only")
