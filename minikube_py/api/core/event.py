"""Event (core/v1): a report of something that happened to an object.

Validated as Kubernetes validates a legacy event (namespace agreement with
``involvedObject``; the reporting fields only for events that set
``eventTime``), then the generic metadata checks. Its ``source`` field label
is ``source.component``, falling back to ``reportingComponent``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..defaults import default_event
from ..errors import (
    FieldPath,
    invalid,
    required,
)
from ..generated import core_v1
from ..names import is_dns1123_subdomain, is_qualified_name
from ..printers import (
    D_NAME,
    GO_SPACE,
    age_of,
    cell_int,
    cell_str,
    epoch,
)
from ..resource import Column, KindInfo, Resource
from ..validation_meta import (
    Errs,
    as_map,
    as_str,
    validate_object_meta,
    validate_object_meta_update,
)

INFO = KindInfo(
    "Event", "", "v1", "events", "event", True, ("ev",),
    field_labels=(
        "involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
        "involvedObject.uid", "involvedObject.apiVersion",
        "involvedObject.resourceVersion", "involvedObject.fieldPath",
        "reason", "reportingComponent", "source", "type",
    ),
)

# ------------------------------------------------------------------ validation

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


# ------------------------------------------------------------------ table

EVENT_COLUMNS: Final = (
    Column("Last Seen", "string",
           "The time at which the most recent occurrence of this event was recorded."),
    Column("Type", "string",
           "Type of this event (Normal, Warning), new types could be added in the future"),
    Column("Reason", "string",
           "This should be a short, machine understandable string that gives the reason for the "
           "transition into the object's current status."),
    Column("Object", "string", "The object that this event is about."),
    Column("Subobject", "string",
           "If referring to a piece of an object instead of an entire object, this string should "
           "contain a valid JSON/Go field access statement, such as "
           "desiredState.manifest.containers[2]. For example, if the object reference is to a "
           "container within a pod, this would take on a value like: \"spec.containers{name}\" "
           "(where \"name\" refers to the name of the container that triggered the event) or if "
           "no container name is specified \"spec.containers[2]\" (container with index 2 in "
           "this pod). This syntax is chosen only to have some well-defined way of referencing a "
           "part of an object.", priority=1),
    Column("Source", "string",
           "The component reporting this event. Should be a short machine understandable string.",
           priority=1),
    Column("Message", "string", "A human-readable description of the status of this operation."),
    Column("First Seen", "string",
           "The time at which the event was first recorded. (Time of server receipt is in "
           "TypeMeta.)", priority=1),
    Column("Count", "string", "The number of times this event has occurred.", priority=1),
    Column("Name", "string", D_NAME, format="name", priority=1),
)


def _print_event(event: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(event.get("metadata"))
    first_at = epoch(event.get("firstTimestamp"))
    first = age_of(first_at if first_at is not None else epoch(event.get("eventTime")), now)
    last_at = epoch(event.get("lastTimestamp"))
    last = first if last_at is None else age_of(last_at, now)
    count = cell_int(event.get("count"))
    series = event.get("series")
    if isinstance(series, Mapping):
        last = age_of(epoch(series.get("lastObservedTime")), now)
        count = cell_int(series.get("count"))
    elif count == 0:
        count = 1  # singleton events of the new API carry no count
    involved = _m(event.get("involvedObject"))
    kind = cell_str(involved.get("kind")).lower()
    name = cell_str(involved.get("name"))
    target = f"{kind}/{name}" if name else kind
    source = _m(event.get("source"))
    component = cell_str(source.get("component")) or cell_str(event.get("reportingComponent"))
    host = cell_str(source.get("host")) or cell_str(event.get("reportingInstance"))
    return [
        last,
        cell_str(event.get("type")),
        cell_str(event.get("reason")),
        target,
        cell_str(involved.get("fieldPath")),
        f"{component}, {host}" if host else component,
        cell_str(event.get("message")).strip(GO_SPACE),
        first,
        count,
        cell_str(metadata.get("name")),
    ], None


# ------------------------------------------------------------------ resource


def field_value(event: Mapping[str, Any], label: str) -> object | None:
    """``source`` is ``source.component``, or the newer ``reportingComponent``
    when an events.k8s.io client wrote the event."""
    if label != "source":
        return None
    source = event.get("source")
    component = source.get("component") if isinstance(source, Mapping) else None
    if isinstance(component, str) and component:
        return component
    reporting = event.get("reportingComponent")
    return reporting if reporting is not None else ""


RESOURCE = Resource(
    INFO, core_v1.Event,
    defaults=default_event,
    validate=_validate_event,
    validate_update=_validate_event_update,
    field_value=field_value,
    columns=EVENT_COLUMNS,
    row=_print_event,
)
