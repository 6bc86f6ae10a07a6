"""Schemas of the request bodies that are not stored objects.

``DeleteOptions`` (meta.k8s.io/v1), ``Binding`` (core/v1) and ``Scale``
(autoscaling/v1) as Kubernetes v1.32 defines them: the API server type-checks
these bodies against them before it reads a single field, exactly as it does
stored kinds against :data:`~.schema_defs.ROOTS`.
"""

from __future__ import annotations

from .schema_meta import CORE, META, OBJECT_META, OBJECT_REFERENCE, TYPE_META, string_list
from .schema_model import Schema, boolean, int32, int64, obj, ref, string

__all__ = ["BINDING", "BODIES", "DELETE_OPTIONS", "SCALE"]


DELETE_OPTIONS = obj(META + "DeleteOptions", {
    **TYPE_META,
    "gracePeriodSeconds": int64("Seconds before the object is deleted; 0 deletes at once."),
    "preconditions": obj(META + "Preconditions", {
        "uid": string("The object's uid must be this."),
        "resourceVersion": string("The object's resourceVersion must be this."),
    }, "Must be fulfilled before the deletion is carried out."),
    "orphanDependents": boolean("Deprecated: whether dependents are orphaned."),
    "propagationPolicy": string("Orphan, Background or Foreground."),
    "dryRun": string_list("All: check everything, delete nothing."),
    "ignoreStoreReadErrorWithClusterBreakingPotential": boolean(
        "Delete objects that cannot be read from storage (unsafe)."),
}, "Options for a deletion.")

BINDING = obj(CORE + "Binding", {
    **TYPE_META,
    "metadata": ref(OBJECT_META, "Standard object metadata."),
    "target": ref(OBJECT_REFERENCE, "The node to bind to."),
}, "Ties a pod to a node.", required=("target",))

SCALE = obj("io.k8s.api.autoscaling.v1.Scale", {
    **TYPE_META,
    "metadata": ref(OBJECT_META, "Standard object metadata."),
    "spec": obj("io.k8s.api.autoscaling.v1.ScaleSpec", {
        "replicas": int32("Desired number of instances."),
    }, "The desired scale."),
    "status": obj("io.k8s.api.autoscaling.v1.ScaleStatus", {
        "replicas": int32("Actual number of instances."),
        "selector": string("Label query over the pods, in string form."),
    }, "The current scale."),
}, "A scaling request for a resource.")

#: Body kind -> (its API version, its schema).
BODIES: dict[str, tuple[str, Schema]] = {
    "DeleteOptions": ("v1", DELETE_OPTIONS),
    "Binding": ("v1", BINDING),
    "Scale": ("autoscaling/v1", SCALE),
}
