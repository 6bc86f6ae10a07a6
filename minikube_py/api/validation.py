"""Validation of every served kind, as the Kubernetes v1.32 API server does it.

Contracts
---------
* :func:`validate` checks an object for *create*; :func:`validate_update`
  checks ``new`` against the stored ``old``. Both expect objects that went
  through :func:`~.schema.decode` and :func:`~.defaults.apply_defaults` (so
  JSON types are right and defaulted fields are present) and return the
  :class:`~.errors.FieldError` list Kubernetes would report, in Kubernetes'
  order, with its paths and messages (``str(err)`` is the rendered line).
* :func:`check_create` / :func:`check_update` raise
  :class:`~.errors.Invalid` (``Pod "web" is invalid: ...``, group-qualified
  for apps kinds) when that list is not empty; repeated identical messages are
  reported once, as Kubernetes' aggregate does.
* Updates need ``metadata.resourceVersion`` on ``new``, as in Kubernetes: for
  an unconditional update, fill it in from ``old`` before calling.
* An object with ``generateName`` and no ``name`` passes name validation when
  the prefix is valid (Kubernetes generates the name before validating; the
  generated name is valid exactly when the prefix is).

Per kind: Pod (``validation_pod``), Deployment and ReplicaSet
(``validation_apps``), Job (``validation_batch``), PriorityClass
(``validation_scheduling``), and here Node,
Namespace and Event. A core/v1 Event is
validated the way Kubernetes validates a legacy event (namespace agreement with
``involvedObject``, and the reporting fields only for events that set
``eventTime``), followed by the generic metadata checks every object gets.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from typing import Any

from . import kinds
from .errors import (
    BadRequest,
    FieldError,
    FieldPath,
    Invalid,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from .names import is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from .quantity import Quantity, QuantityError, validate_quantity
from .validation_apps import (
    validate_deployment,
    validate_deployment_update,
    validate_replica_set,
    validate_replica_set_update,
)
from .validation_batch import validate_job, validate_job_update
from .validation_meta import (
    Errs,
    GoValue,
    as_list,
    as_map,
    as_str,
    go_quote,
    kube_finalizer_name,
    qualified_name,
    validate_object_meta,
    validate_object_meta_update,
)
from .validation_pod import validate_pod, validate_pod_update
from .validation_scheduling import validate_priority_class, validate_priority_class_update

__all__ = ["check_create", "check_update", "validate", "validate_update"]

# ------------------------------------------------------------------- Node

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _taint_gosyntax(taint: Mapping[str, Any]) -> GoValue:
    added = taint.get("timeAdded")
    time_added = "(*v1.Time)(nil)" if not added else "(*v1.Time)(0x...)"
    return GoValue(f"core.Taint{{Key:{go_quote(as_str(taint.get('key')))}, "
                   f"Value:{go_quote(as_str(taint.get('value')))}, "
                   f"Effect:{go_quote(as_str(taint.get('effect')))}, TimeAdded:{time_added}}}")


def _node_taints(taints: Any, path: FieldPath) -> Errs:
    """``validateNodeTaints``: key, value, effect; unique by key and effect."""
    errs: Errs = []
    seen: set[tuple[str, str]] = set()
    for i, raw in enumerate(as_list(taints)):
        taint = as_map(raw)
        sub = path.index(i)
        key, value, effect = (as_str(taint.get(k)) for k in ("key", "value", "effect"))
        errs.extend(qualified_name(key, sub.child("key")))
        msgs = is_valid_label_value(value)
        if msgs:
            errs.append(invalid(sub.child("value"), value, ";".join(msgs)))
        if not effect:
            errs.append(required(sub.child("effect"), ""))
        elif effect not in _TAINT_EFFECTS:
            errs.append(not_supported(sub.child("effect"), effect, _TAINT_EFFECTS))
        if (key, effect) in seen:
            errs.append(FieldError("Duplicate", str(sub), _taint_gosyntax(taint),
                                   "taints must be unique by key and effect pair"))
            continue
        seen.add((key, effect))
    return errs


def _node_resources(node: Mapping[str, Any]) -> Errs:
    """``ValidateNodeResources``; Kubernetes builds these paths with ``Child``,
    so they read ``status.capacity.cpu``, not ``status.capacity[cpu]``."""
    errs: Errs = []
    status = as_map(node.get("status"))
    for key in ("capacity", "allocatable"):
        for name, value in as_map(status.get(key)).items():
            path = FieldPath.root("status", key, str(name))
            errs.extend(validate_quantity(value, path))
            if "/" in str(name) and "kubernetes.io/" not in str(name):
                try:
                    q = Quantity.parse(value)
                except (QuantityError, TypeError):
                    continue
                if not is_qualified_name("requests." + str(name)) and q.milli_value() % 1000:
                    errs.append(invalid(path, GoValue(str(q)), "must be an integer"))
    return errs


def _valid_cidr(value: str) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return "/" in value


def _validate_node(node: Mapping[str, Any]) -> Errs:
    """``ValidateNode``."""
    meta_path = FieldPath.root("metadata")
    errs = validate_object_meta(node.get("metadata"), namespaced=False, name_rule="subdomain")
    spec = as_map(node.get("spec"))
    # Kubernetes reports taint errors under metadata.taints (it passes the
    # metadata path); users see exactly that.
    errs.extend(_node_taints(spec.get("taints"), meta_path.child("taints")))
    errs.extend(_node_resources(node))
    cidrs = [as_str(c) for c in as_list(spec.get("podCIDRs"))]
    cidrs_path = FieldPath.root("spec", "podCIDRs")
    for i, cidr in enumerate(cidrs):
        if not _valid_cidr(cidr):
            errs.append(invalid(cidrs_path.index(i), cidr,
                                "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
    if len(cidrs) > 1:
        families = set()
        for cidr in cidrs:
            if _valid_cidr(cidr):
                families.add(ipaddress.ip_network(cidr, strict=False).version)
        if len(cidrs) > 2 or len(families) != 2:
            errs.append(invalid(cidrs_path, GoValue(
                "[]string{" + ", ".join(go_quote(c) for c in cidrs) + "}"),
                "may specify no more than one CIDR for each IP family"))
        seen: set[str] = set()
        for i, cidr in enumerate(cidrs):
            if cidr in seen:
                errs.append(duplicate(cidrs_path.index(i), cidr))
            seen.add(cidr)
    return errs


def _validate_node_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateNode(new)`` followed by ``ValidateNodeUpdate``, as the node
    strategy runs them."""
    errs = _validate_node(new)
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    errs.extend(_node_resources(new))
    seen: list[tuple[str, str]] = []
    for i, raw in enumerate(as_list(as_map(new.get("status")).get("addresses"))):
        address = as_map(raw)
        pair = (as_str(address.get("type")), as_str(address.get("address")))
        if pair in seen:
            errs.append(duplicate(
                FieldPath.root("status", "addresses").index(i),
                GoValue(f"core.NodeAddress{{Type:{go_quote(pair[0])}, "
                        f"Address:{go_quote(pair[1])}}}")))
        seen.append(pair)
    new_spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    old_cidrs, new_cidrs = as_list(old_spec.get("podCIDRs")), as_list(new_spec.get("podCIDRs"))
    cidr_msg = 'node updates may not change podCIDR except from "" to valid'
    cidrs_path = FieldPath.root("spec", "podCIDRs")
    if old_cidrs:
        if len(old_cidrs) != len(new_cidrs):
            errs.append(forbidden(cidrs_path, cidr_msg))
        else:
            errs.extend(forbidden(cidrs_path, cidr_msg)
                        for a, b in zip(old_cidrs, new_cidrs, strict=True) if a != b)
    old_provider = as_str(old_spec.get("providerID"))
    if old_provider and old_provider != as_str(new_spec.get("providerID")):
        errs.append(forbidden(FieldPath.root("spec", "providerID"),
                              'node updates may not change providerID except from "" to valid'))
    errs.extend(_node_taints(new_spec.get("taints"), FieldPath.root("metadata", "taints")))
    if as_str(new_spec.get("externalID")) != as_str(old_spec.get("externalID")):
        errs.append(forbidden(FieldPath.root("spec", "externalID"), "may not be updated"))
    return errs


# -------------------------------------------------------------- Namespace


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


# ------------------------------------------------------------------ Event

_EVENT_LIMITS = (("reportingInstance", 128), ("action", 128), ("reason", 128))


def _legacy_event(event: Mapping[str, Any]) -> Errs:
    """``legacyValidateEvent``: all a core/v1 Event gets from its strategy.

    ``reportingComponent`` errors carry the internal field name
    ``reportingController``, as in Kubernetes.
    """
    errs: Errs = []
    namespace = as_str(as_map(event.get("metadata")).get("namespace"))
    involved_ns = as_str(as_map(event.get("involvedObject")).get("namespace"))
    involved_path = FieldPath.root("involvedObject", "namespace")
    mismatch = "does not match event.namespace"
    if not event.get("eventTime"):
        if not involved_ns:
            # Events about cluster-scoped objects live in "default" (or nowhere).
            if namespace not in ("", "default"):
                errs.append(invalid(involved_path, involved_ns, mismatch))
        elif namespace != involved_ns:
            errs.append(invalid(involved_path, involved_ns, mismatch))
    else:
        if not involved_ns and namespace not in ("default", "kube-system"):
            errs.append(invalid(involved_path, involved_ns, mismatch))
        controller = as_str(event.get("reportingComponent"))
        controller_path = FieldPath.root("reportingController")
        if not controller:
            errs.append(required(controller_path, ""))
        errs.extend(invalid(controller_path, controller, msg)
                    for msg in is_qualified_name(controller))
        for key, limit in _EVENT_LIMITS:
            value = as_str(event.get(key))
            if not value:
                errs.append(required(FieldPath.root(key), ""))
            if len(value) > limit:
                errs.append(invalid(FieldPath.root(key), "",
                                    f"can have at most {limit} characters"))
        if len(as_str(event.get("message"))) > 1024:
            errs.append(invalid(FieldPath.root("message"), "",
                                "can have at most 1024 characters"))
    errs.extend(invalid(FieldPath.root("namespace"), namespace, msg)
                for msg in is_dns1123_subdomain(namespace))
    return errs


def _validate_event(event: Mapping[str, Any]) -> Errs:
    errs = _legacy_event(event)
    if errs:
        # The generic metadata checks only run once the strategy's passed.
        return errs
    return validate_object_meta(event.get("metadata"), namespaced=True, name_rule="path-segment")


def _validate_event_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    errs = _legacy_event(new)
    if errs:
        return errs
    errs = validate_object_meta(new.get("metadata"), namespaced=True, name_rule="path-segment")
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    return errs


# --------------------------------------------------------------- dispatch

_CREATE: dict[str, Callable[[Mapping[str, Any]], Errs]] = {
    "Pod": validate_pod,
    "Node": _validate_node,
    "Namespace": _validate_namespace,
    "Event": _validate_event,
    "Deployment": validate_deployment,
    "ReplicaSet": validate_replica_set,
    "PriorityClass": validate_priority_class,
    "Job": validate_job,
}

_UPDATE: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Errs]] = {
    "Pod": validate_pod_update,
    "Node": _validate_node_update,
    "Namespace": _validate_namespace_update,
    "Event": _validate_event_update,
    "Deployment": validate_deployment_update,
    "ReplicaSet": validate_replica_set_update,
    "PriorityClass": validate_priority_class_update,
    "Job": validate_job_update,
}


def _kind(obj: Mapping[str, Any]) -> str:
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in _CREATE:
        raise BadRequest(f'no validation for kind "{kind}"')
    return kind


def validate(obj: Mapping[str, Any]) -> list[FieldError]:
    """The field errors Kubernetes reports when ``obj`` is created."""
    return _CREATE[_kind(obj)](obj)


def validate_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """The field errors Kubernetes reports when ``old`` is replaced by ``new``."""
    kind = _kind(new)
    if old.get("kind") != kind:
        raise BadRequest(f'cannot update a {old.get("kind")} with a {kind}')
    return _UPDATE[kind](new, old)


def _unique(errs: list[FieldError]) -> list[FieldError]:
    seen: set[str] = set()
    out: list[FieldError] = []
    for err in errs:
        text = str(err)
        if text not in seen:
            seen.add(text)
            out.append(err)
    return out


def _raise(obj: Mapping[str, Any], errs: list[FieldError]) -> None:
    if not errs:
        return
    kind = _kind(obj)
    meta = as_map(obj.get("metadata"))
    name = as_str(meta.get("name"))
    raise Invalid.of(kind, name, _unique(errs), group=kinds.by_kind(kind).group)


def check_create(obj: Mapping[str, Any]) -> None:
    """Raise :class:`~.errors.Invalid` when :func:`validate` finds errors."""
    _raise(obj, validate(obj))


def check_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> None:
    """Raise :class:`~.errors.Invalid` when :func:`validate_update` finds errors."""
    _raise(new, validate_update(new, old))
