"""Subresources with their own semantics: ``pods/binding`` and ``*/scale``.

* Binding assigns a pod to a node: it sets ``spec.nodeName`` (which no update
  may change) and the ``PodScheduled`` condition, exactly once. Binding a pod
  that is already assigned or being deleted is a Conflict, as in Kubernetes,
  so two schedulers can never both win.
* Scale (``autoscaling/v1 Scale``) reads and writes a workload's
  ``spec.replicas``; ``status.selector`` is the selector in string form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..api import kinds
from ..api.errors import BadRequest, Conflict, FieldPath, Invalid, NotFound, invalid
from ..api.labels import selector_from_label_selector
from ..api.timefmt import format_time
from .store import Object

if TYPE_CHECKING:
    from .registry import Registry

SCALABLE = frozenset({"deployments", "replicasets"})


def bind(registry: Registry, namespace: str, name: str, node: str, *,
         uid: str | None = None, dry_run: bool = False) -> Object:
    """Assign pod ``namespace/name`` to ``node``; returns the bound pod."""
    if not node:
        raise Invalid.of("Binding", name, [invalid(FieldPath.root("target", "name"), node,
                                                    "must be a node name")])
    now = format_time(registry.clock())

    def assign(pod: Object) -> Object:
        meta = pod["metadata"]
        if uid and meta.get("uid") != uid:
            raise Conflict.of("pods", name, f"Precondition failed: UID in precondition: {uid}, "
                              f"UID in object meta: {meta.get('uid')}")
        if meta.get("deletionTimestamp"):
            raise Conflict.of("pods", name, f"pod {name} is being deleted, cannot be assigned "
                              "to a host")
        current = (pod.get("spec") or {}).get("nodeName")
        if current:
            raise Conflict.of("pods", name, f"pod {name} is already assigned to node "
                              f'"{current}"')
        pod["spec"]["nodeName"] = node
        status = pod.setdefault("status", {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
        conditions.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                           "lastTransitionTime": now})
        status["conditions"] = conditions
        return pod

    if dry_run:
        return assign(registry.store.get("pods", namespace, name))
    return registry.store.guaranteed_update("pods", namespace, name, assign)


def _scalable(resource: str) -> kinds.KindInfo:
    if resource not in SCALABLE:
        raise NotFound(f'the server could not find the requested resource "{resource}/scale"')
    return kinds.by_plural(resource)


def scale_of(obj: Mapping[str, Any]) -> Object:
    """The ``autoscaling/v1 Scale`` view of a Deployment or ReplicaSet."""
    meta = obj["metadata"]
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    scale: Object = {
        "kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion",
                                          "creationTimestamp") if k in meta},
        "spec": {"replicas": spec.get("replicas", 1)},
        "status": {"replicas": status.get("replicas", 0)},
    }
    selector = str(selector_from_label_selector(spec.get("selector")))
    if selector:
        scale["status"]["selector"] = selector
    return scale


def get_scale(registry: Registry, resource: str, namespace: str, name: str) -> Object:
    _scalable(resource)
    return scale_of(registry.store.get(resource, namespace, name))


def update_scale(registry: Registry, resource: str, namespace: str, name: str,
                 scale: Mapping[str, Any], *, dry_run: bool = False) -> Object:
    """Set ``spec.replicas`` from a Scale; its resourceVersion, if set, is a precondition."""
    info = _scalable(resource)
    spec, meta = scale.get("spec") or {}, scale.get("metadata") or {}
    if not isinstance(spec, Mapping) or not isinstance(meta, Mapping):
        raise BadRequest('Scale in version "v1" cannot be handled as a Scale: spec and '
                         "metadata must be objects")
    replicas = spec.get("replicas")
    if isinstance(replicas, bool) or not isinstance(replicas, int):
        raise BadRequest(f"Scale in version \"v1\" cannot be handled as a Scale: spec.replicas: "
                         f"expected integer, got {replicas!r}")
    if replicas < 0:
        raise Invalid.of("Scale", name, [invalid(FieldPath.root("spec", "replicas"), replicas,
                                                  "must be greater than or equal to 0")],
                         group="autoscaling")
    wanted_rv = str(meta.get("resourceVersion") or "")
    obj = registry.store.get(resource, namespace, name)
    if wanted_rv and wanted_rv != obj["metadata"]["resourceVersion"]:
        raise Conflict.of(info.group_resource, name, "the object has been modified; please "
                          "apply your changes to the latest version and try again")
    obj["spec"]["replicas"] = replicas
    if not wanted_rv:
        obj["metadata"]["resourceVersion"] = ""  # unconditional, retried by the registry
    return scale_of(registry.update(obj, namespace=namespace, dry_run=dry_run))
