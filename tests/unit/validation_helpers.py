"""Shared helpers for the validation tests (``test_validation_*.py``): the
Kubernetes message fragments, raw object factories and mutators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minikube_py.api.defaults import apply_defaults
from minikube_py.api.validation import validate

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
             "'-' or '.', and must start and end with an alphanumeric character (e.g. "
             "'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
DNS_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
             "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
             "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
QNAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
         "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
         "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, "
               "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
               "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
               "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")

Mutator = Callable[[dict], Any]


def raw_pod() -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}


def raw_deployment() -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}


def raw_replica_set() -> dict:
    obj = raw_deployment()
    obj["kind"] = "ReplicaSet"
    return obj


def raw_node() -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}, "spec": {},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi"}}}


def raw_namespace() -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}


def raw_event() -> dict:
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "web.17a2b3c4", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
            "reason": "Started", "message": "Started container", "type": "Normal"}


def messages(obj: dict) -> list[str]:
    return [str(e) for e in validate(obj)]


def built(factory: Callable[[], dict], mutate: Mutator | None = None, *,
          after: Mutator | None = None) -> dict:
    """``factory()`` mutated, defaulted, then mutated again (``after``)."""
    obj = factory()
    if mutate is not None:
        mutate(obj)
    obj = apply_defaults(obj)
    if after is not None:
        after(obj)
    return obj


def container(obj: dict, i: int = 0) -> dict:
    spec = obj["spec"]["template"]["spec"] if "template" in obj["spec"] else obj["spec"]
    return spec["containers"][i]


def set_in(path: str, value: Any) -> Mutator:
    """A mutator setting a dotted path (list indices as numbers)."""

    def mutate(obj: dict) -> None:
        node: Any = obj
        steps = [int(s) if s.isdigit() else s for s in path.split(".")]
        for step in steps[:-1]:
            if isinstance(step, str) and step not in node:
                node[step] = {}
            node = node[step]
        node[steps[-1]] = value

    return mutate
