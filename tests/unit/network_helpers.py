"""Shared pieces of the Service, Endpoints and EndpointSlice tests: the clock,
Kubernetes' address and port messages, a registry on a fresh store, and
Services of each type as the allocator hands them to validation."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from minikube_py.api.validation import validate, validate_update
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

NOW = 1_700_000_000.0
STAMP = "2023-11-14T22:10:00Z"  # NOW - 200 s: an age of 3m20s
IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
RANGE = "must be between 1 and 65535, inclusive"
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
           "with an alphabetic character, and end with an alphanumeric character (e.g. "
           "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


def registry_in(tmp_path: Path) -> Iterator[Registry]:
    """A registry (with the system namespaces) over a store in ``tmp_path``,
    at :data:`NOW`; the store is closed when the generator is."""
    store = Store(tmp_path / "s", clock=lambda: NOW)
    registry = Registry(store, clock=lambda: NOW, new_uid=lambda: "uid-1")
    registry.ensure_system_namespaces()
    yield registry
    store.close()


def messages(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    """The field errors of creating ``obj`` (replacing ``old`` with it), as
    Kubernetes renders them."""
    errs = validate(obj) if old is None else validate_update(obj, old)
    return [str(e) for e in errs]


# ------------------------------------------------------------------ Services


def svc(name: str = "web", *, meta: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    """A Service as the allocator hands it to validation: a ClusterIP with one
    port, its address and IPv4 single-stack family fields."""
    body: dict[str, Any] = {
        "ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}],
        "selector": {"app": "web"}, "type": "ClusterIP", "sessionAffinity": "None",
        "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"], "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster"}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default", **(meta or {})}, "spec": body}


def node_port(**spec: Any) -> dict[str, Any]:
    return svc(**{"type": "NodePort", "externalTrafficPolicy": "Cluster",
                  "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80,
                             "nodePort": 30080}], **spec})


def load_balancer(**spec: Any) -> dict[str, Any]:
    return node_port(**{"type": "LoadBalancer", "allocateLoadBalancerNodePorts": True, **spec})


def external_name(**spec: Any) -> dict[str, Any]:
    obj = svc(**{"type": "ExternalName", "externalName": "db.example.com", **spec})
    for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "selector"):
        if key not in spec:
            obj["spec"].pop(key)
    return obj


def without(obj: dict[str, Any], *keys: str) -> dict[str, Any]:
    for key in keys:
        obj["spec"].pop(key)
    return obj


def stored(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"]["resourceVersion"] = "7"
    return out


def with_ingress(obj: dict[str, Any], *points: dict[str, Any]) -> dict[str, Any]:
    out = stored(obj)
    out["status"] = {"loadBalancer": {"ingress": list(points)}}
    return out
