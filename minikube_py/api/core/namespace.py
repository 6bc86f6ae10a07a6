"""Namespace (core/v1): a scope for names.

Created ``Active`` with the ``kubernetes`` finalizer (defaults);
``spec.finalizers`` change only through ``namespaces/finalize`` and a
terminating namespace waits for them too. Deleting one, and the namespaces
that cannot be deleted, are :mod:`minikube_py.admission.namespaces`' job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..defaults import default_namespace
from ..describe.generic import describe_namespace
from ..errors import (
    FieldPath,
    invalid,
)
from ..generated import core_v1
from ..names import is_qualified_name
from ..printers import (
    D_CREATED,
    D_NAME,
    age_of,
    cell_str,
    epoch,
)
from ..resource import Column, KindInfo, Resource
from ..validation_meta import (
    Errs,
    as_list,
    as_map,
    as_str,
    kube_finalizer_name,
    validate_object_meta,
    validate_object_meta_update,
)

INFO = KindInfo("Namespace", "", "v1", "namespaces", "namespace", False, ("ns",),
                field_labels=("status.phase",), subresources=("status", "finalize"),
                spec_finalizers=True)

# ------------------------------------------------------------------ validation

def _validate_namespace(namespace: Mapping[str, Any]) -> Errs:
    """``ValidateNamespace``: a DNS-label name; spec finalizers are qualified
    names (reported at ``spec.finalizers``, unindexed) and, unless prefixed,
    standard."""
    errs = validate_object_meta(namespace.get("metadata"), namespaced=False, name_rule="label")
    path = FieldPath.root("spec", "finalizers")
    for finalizer in as_list(as_map(namespace.get("spec")).get("finalizers")):
        value = as_str(finalizer)
        errs.extend(invalid(path, value, msg) for msg in is_qualified_name(value))
        errs.extend(kube_finalizer_name(value, path))
    return errs


def _validate_namespace_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    errs = _validate_namespace(new)
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    return errs


# ------------------------------------------------------------------ table

NAMESPACE_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Status", "string", "The status of the namespace"),
    Column("Age", "string", D_CREATED),
)


def _print_namespace(ns: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(ns.get("metadata"))
    return [
        cell_str(metadata.get("name")),
        cell_str(_m(ns.get("status")).get("phase")),
        age_of(epoch(metadata.get("creationTimestamp")), now),
    ], None


# ------------------------------------------------------------------ strategy


def _keep_spec(new: dict[str, Any], old: dict[str, Any]) -> None:
    """``spec.finalizers`` change only through the finalize subresource."""
    new["spec"] = old.get("spec", {})


def _finalize(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``namespaces/finalize``: ``spec.finalizers`` from the request, all else kept."""
    finalizers = (new.get("spec") or {}).get("finalizers")
    out = dict(old)
    out["metadata"] = {**old["metadata"],
                       "resourceVersion": new["metadata"].get("resourceVersion")}
    out["spec"] = {**(old.get("spec") or {}), "finalizers": finalizers or []}
    return out


def _describe(ns: Mapping[str, Any], related: Mapping[str, Any], events: Any,
              ctx: Any) -> str:
    return describe_namespace(ns, ctx)


RESOURCE = Resource(
    INFO, core_v1.Namespace,
    defaults=default_namespace,
    validate=_validate_namespace,
    validate_update=_validate_namespace_update,
    initial_status=lambda ns: {"phase": "Active"},
    prepare_for_update=_keep_spec,
    update_subresource={"finalize": _finalize},
    columns=NAMESPACE_COLUMNS,
    row=_print_namespace,
    describe=_describe,
)
