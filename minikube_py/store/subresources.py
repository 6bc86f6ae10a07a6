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
from ..api.errors import Conflict, FieldPath, Invalid, NotFound, invalid
from ..api.labels import selector_from_label_selector
from ..api.patch import json_merge_patch, json_patch
from ..api.schema_bodies import SCALE
from ..api.schema_check import typed_object, typed_patch
from ..api.timefmt import format_time
from .store import Object

if TYPE_CHECKING:
    from .registry import Registry


def bind(registry: Registry, namespace: str, name: str, node: str, *,
         uid: str | None = None, dry_run: bool = False, resource: str | None = None) -> Object:
    """Assign pod ``namespace/name`` to ``node``; returns the bound pod, the
    store's shared read-only copy (never change it; a dry run's is its own).
    ``resource`` is the one that serves ``binding`` unless named."""
    plural = resource or kinds.serving("binding").plural
    if "binding" not in kinds.by_plural(plural).subresources:
        raise NotFound(f'the server could not find the requested resource "{plural}/binding"')
    if not node:
        raise Invalid.of("Binding", name, [invalid(FieldPath.root("target", "name"), node,
                                                    "must be a node name")])
    now = format_time(registry.clock())

    def assign(pod: Object) -> Object:
        meta = pod["metadata"]
        if uid and meta.get("uid") != uid:
            raise Conflict.of(plural, name, f"Precondition failed: UID in precondition: {uid}, "
                              f"UID in object meta: {meta.get('uid')}")
        if meta.get("deletionTimestamp"):
            raise Conflict.of(plural, name, f"pod {name} is being deleted, cannot be assigned "
                              "to a host")
        current = (pod.get("spec") or {}).get("nodeName")
        if current:
            raise Conflict.of(plural, name, f"pod {name} is already assigned to node "
                              f'"{current}"')
        pod["spec"]["nodeName"] = node
        status = pod.setdefault("status", {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
        conditions.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                           "lastTransitionTime": now})
        status["conditions"] = conditions
        return pod

    if dry_run:
        return assign(registry.store.get(plural, namespace, name))
    # Its callers answer with a Status, not the pod: no copy of its own.
    return registry.store.guaranteed_update(plural, namespace, name, assign, shared=True)


def _scalable(resource: str) -> kinds.KindInfo:
    info = kinds.by_plural(resource)
    if "scale" not in info.subresources:
        raise NotFound(f'the server could not find the requested resource "{resource}/scale"')
    return info


def scale_of(obj: Mapping[str, Any]) -> Object:
    """The ``autoscaling/v1 Scale`` view of a workload (``spec.replicas``,
    ``status.replicas``, ``spec.selector``)."""
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
                 scale: Any, *, dry_run: bool = False) -> Object:
    """Set ``spec.replicas`` from a Scale (typed first); its resourceVersion, if
    set, is a precondition."""
    info = _scalable(resource)
    scale = typed_object(scale, SCALE, kind="Scale", version="v1", what="the Scale")
    spec, meta = scale.get("spec") or {}, scale.get("metadata") or {}
    # ScaleSpec.replicas is a plain int32 with omitempty: absent means 0, as there.
    replicas = spec.get("replicas") or 0
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


def patch_scale(registry: Registry, resource: str, namespace: str, name: str,
                patch_type: str, body: Any, *, dry_run: bool = False) -> Object:
    """PATCH a Scale: the document is typed against the Scale schema, applied
    to the current Scale, and the result written as :func:`update_scale` does.
    A Scale has no lists, so merge, strategic and apply patches all merge."""
    _scalable(resource)
    body = typed_patch(body, SCALE, kind="Scale", version="v1",
                       patch_type="merge" if patch_type == "strategic" else patch_type)
    current = get_scale(registry, resource, namespace, name)
    new = json_patch(current, body) if patch_type == "json" else json_merge_patch(current, body)
    patch_meta = body.get("metadata") if isinstance(body, Mapping) else None
    pinned = patch_meta.get("resourceVersion") if isinstance(patch_meta, Mapping) else None
    if not pinned and isinstance(new.get("metadata"), dict):
        new["metadata"].pop("resourceVersion", None)
    return update_scale(registry, resource, namespace, name, new, dry_run=dry_run)
