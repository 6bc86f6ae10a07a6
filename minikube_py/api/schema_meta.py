"""Shared pieces of the field schema: metadata shapes and small constructors.

``ObjectMeta``, ``ListMeta``, ``LabelSelector``, ``OwnerReference`` and
``ObjectReference`` as ``k8s.io/apimachinery`` and ``k8s.io/api/core/v1`` define
them (v1.32), plus the Go definition-name prefixes the OpenAPI output uses.
"""

from __future__ import annotations

from .schema_model import (
    Schema,
    boolean,
    free_form,
    int64,
    list_of,
    map_of,
    obj,
    quantity,
    string,
    time,
)

CORE = "io.k8s.api.core.v1."
APPS = "io.k8s.api.apps.v1."
META = "io.k8s.apimachinery.pkg.apis.meta.v1."


def string_list(description: str = "") -> Schema:
    """``[]string`` (atomic)."""
    return list_of(string(), description)


def string_map(description: str) -> Schema:
    """``map[string]string``."""
    return map_of(string(), description)


def resource_map(description: str) -> Schema:
    """``ResourceList``: resource name to quantity."""
    return map_of(quantity(), description)


# ------------------------------------------------------------------------- meta

#: ``apiVersion`` and ``kind``, which every top-level body has.
TYPE_META = {
    "apiVersion": string("Versioned schema of this representation."),
    "kind": string("REST resource this object represents."),
}

OWNER_REFERENCE = obj(META + "OwnerReference", {
    "apiVersion": string("API version of the referent."),
    "kind": string("Kind of the referent."),
    "name": string("Name of the referent."),
    "uid": string("UID of the referent."),
    "controller": boolean("If true, this reference points to the managing controller."),
    "blockOwnerDeletion": boolean("If true, the owner cannot be deleted before this object."),
}, "Identifies an owning object.", required=("apiVersion", "kind", "name", "uid"))

OBJECT_META = obj(META + "ObjectMeta", {
    "name": string("Name, unique within a namespace."),
    "generateName": string("Prefix used to generate a unique name when name is empty."),
    "namespace": string("Namespace the object lives in."),
    "selfLink": string("Deprecated; not set by the server."),
    "uid": string("Unique identifier set by the server."),
    "resourceVersion": string("Opaque version used for optimistic concurrency."),
    "generation": int64("Sequence number of the desired state."),
    "creationTimestamp": time("When the object was created."),
    "deletionTimestamp": time("When the object will be deleted; set by the server."),
    "deletionGracePeriodSeconds": int64("Seconds allowed for graceful termination."),
    "labels": string_map("Labels used to organise and select objects."),
    "annotations": string_map("Arbitrary non-identifying metadata."),
    "ownerReferences": list_of(
        OWNER_REFERENCE, "Objects this object depends on.", merge_key="uid", strategy="merge"),
    "finalizers": list_of(
        string(), "Must be empty before the object is deleted.", strategy="merge",
        list_type="set"),
    "managedFields": list_of(free_form(), "Field ownership for server-side apply."),
}, "Standard object metadata.")

LIST_META = obj(META + "ListMeta", {
    "selfLink": string("Deprecated."),
    "resourceVersion": string("Version of the list."),
    "continue": string("Token for the next chunk."),
    "remainingItemCount": int64("Items remaining after this chunk."),
}, "Standard list metadata.")

LABEL_SELECTOR_REQUIREMENT = obj(META + "LabelSelectorRequirement", {
    "key": string("The label key the selector applies to."),
    "operator": string("In, NotIn, Exists or DoesNotExist."),
    "values": string_list("Values for In / NotIn."),
}, required=("key", "operator"))

LABEL_SELECTOR = obj(META + "LabelSelector", {
    "matchLabels": string_map("Labels that must all match."),
    "matchExpressions": list_of(LABEL_SELECTOR_REQUIREMENT, "Requirements that must all match."),
}, "A label query over a set of objects.")

OBJECT_REFERENCE = obj(CORE + "ObjectReference", {
    "kind": string("Kind of the referent."),
    "namespace": string("Namespace of the referent."),
    "name": string("Name of the referent."),
    "uid": string("UID of the referent."),
    "apiVersion": string("API version of the referent."),
    "resourceVersion": string("Specific resourceVersion of the referent."),
    "fieldPath": string("A field within the referent, e.g. spec.containers{name}."),
}, "A reference to an object.")
