"""PriorityClass validation, as ``pkg/apis/scheduling/validation`` (v1.32), and the
scheduling constants the Priority admission step shares with it.

* Create (``ValidatePriorityClass``): metadata with a DNS-subdomain name (cluster
  scoped); names starting ``system-`` are reserved for the two built-in classes,
  which must carry exactly their built-in value and ``globalDefault: false``;
  any other class may not exceed :data:`HIGHEST_USER_DEFINABLE_PRIORITY`;
  ``preemptionPolicy`` is ``PreemptLowerPriority`` or ``Never``.
* Update (``ValidatePriorityClassUpdate``, all the strategy runs on update):
  metadata update rules, ``value`` may not change (``Forbidden``), and
  ``preemptionPolicy`` is immutable (``Invalid ... field is immutable``, as
  ``ValidateImmutableField`` words it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .errors import FieldPath, forbidden
from .validation_meta import (
    Errs,
    as_int,
    as_map,
    as_str,
    enum_value,
    immutable,
    validate_object_meta,
    validate_object_meta_update,
)

__all__ = [
    "DEFAULT_PRIORITY",
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "PREEMPTION_POLICIES",
    "SYSTEM_CRITICAL_PRIORITY",
    "SYSTEM_PRIORITY_CLASSES",
    "SYSTEM_PRIORITY_CLASS_PREFIX",
    "system_priority_class",
    "validate_priority_class",
    "validate_priority_class_update",
]

#: ``scheduling.HighestUserDefinablePriority``.
HIGHEST_USER_DEFINABLE_PRIORITY: Final = 1_000_000_000
#: ``scheduling.SystemCriticalPriority``: the floor of the built-in classes.
SYSTEM_CRITICAL_PRIORITY: Final = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
#: ``scheduling.DefaultPriorityWhenNoDefaultClassExists``.
DEFAULT_PRIORITY: Final = 0
#: ``scheduling.SystemPriorityClassPrefix``.
SYSTEM_PRIORITY_CLASS_PREFIX: Final = "system-"
#: ``core.PreemptLowerPriority`` / ``core.PreemptNever``, in Kubernetes' order.
PREEMPTION_POLICIES: Final = ("PreemptLowerPriority", "Never")

#: The built-in classes (``schedulingapiv1.SystemPriorityClasses``), in the
#: order Kubernetes creates them at start-up: (name, value, description).
SYSTEM_PRIORITY_CLASSES: Final[tuple[tuple[str, int, str], ...]] = (
    ("system-node-critical", SYSTEM_CRITICAL_PRIORITY + 1000,
     "Used for system critical pods that must not be moved from their current node."),
    ("system-cluster-critical", SYSTEM_CRITICAL_PRIORITY,
     "Used for system critical pods that must run in the cluster, but can be moved to "
     "another node if necessary."),
)


def system_priority_class(name: str) -> dict[str, Any]:
    """The manifest of the built-in class ``name`` (KeyError for other names)."""
    for class_name, value, description in SYSTEM_PRIORITY_CLASSES:
        if class_name == name:
            return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                    "metadata": {"name": class_name}, "value": value,
                    "description": description}
    raise KeyError(name)


def _known_system_class_error(name: str, value: int, global_default: bool) -> str:
    """``IsKnownSystemPriorityClass``'s error text, ``""`` when the class matches."""
    for class_name, class_value, _ in SYSTEM_PRIORITY_CLASSES:
        if class_name == name:
            if class_value != value:
                return f"value of {class_name} PriorityClass must be {class_value}"
            if global_default:
                return f"globalDefault of {class_name} PriorityClass must be false"
            return ""
    return f"{name} is not a known system priority class"


def validate_priority_class(obj: Mapping[str, Any]) -> Errs:
    """``ValidatePriorityClass``."""
    meta = as_map(obj.get("metadata"))
    errs = validate_object_meta(meta, namespaced=False, name_rule="subdomain")
    name = as_str(meta.get("name"))
    value = as_int(obj.get("value")) or 0
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        problem = _known_system_class_error(name, value, obj.get("globalDefault") is True)
        if problem:
            errs.append(forbidden(
                FieldPath.root("metadata", "name"),
                f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are "
                f"reserved for system use only. error: {problem}"))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(forbidden(
            FieldPath.root("value"),
            f"maximum allowed value of a user defined priority is "
            f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = obj.get("preemptionPolicy")
    if policy is not None:
        errs.extend(enum_value(as_str(policy), FieldPath.root("preemptionPolicy"),
                               PREEMPTION_POLICIES))
    return errs


def validate_priority_class_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidatePriorityClassUpdate``: the only check the strategy runs on update."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    if (as_int(new.get("value")) or 0) != (as_int(old.get("value")) or 0):
        errs.append(forbidden(FieldPath.root("value"), "may not be changed in an update."))
    errs.extend(immutable(new.get("preemptionPolicy"), old.get("preemptionPolicy"),
                          FieldPath.root("preemptionPolicy")))
    return errs
