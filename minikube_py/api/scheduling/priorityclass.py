"""PriorityClass (scheduling.k8s.io/v1): a name for a pod priority value.

``metadata.generation`` is 1 on create and never bumped (the strategy's
``PrepareForCreate``). The single global default and the built-in classes
that cannot be deleted are :mod:`minikube_py.admission.priority`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..defaults import default_priority_class
from ..generated import scheduling_v1
from ..printers import (
    D_CREATED,
    D_NAME,
    age_of,
    cell_int,
    cell_str,
    epoch,
)
from ..resource import Column, KindInfo, Resource
from ..validation_scheduling import validate_priority_class, validate_priority_class_update

INFO = KindInfo("PriorityClass", "scheduling.k8s.io", "v1", "priorityclasses",
                "priorityclass", namespaced=False, short_names=("pc",))

PRIORITY_CLASS_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Value", "integer",
           "value represents the integer value of this priority class. This is the actual "
           "priority that pods receive when they have the name of this class in their pod "
           "spec."),
    Column("Global-Default", "boolean",
           "globalDefault specifies whether this PriorityClass should be considered as the "
           "default priority for pods that do not have any priority class. Only one "
           "PriorityClass can be marked as `globalDefault`. However, if more than one "
           "PriorityClasses exists with their `globalDefault` field set to true, the smallest "
           "value of such global default PriorityClasses will be used as the default "
           "priority."),
    Column("Age", "string", D_CREATED),
    Column("PreemptionPolicy", "string",
           "preemptionPolicy is the Policy for preempting pods with lower priority. One of "
           "Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."),
)


def _print_priority_class(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    return [
        cell_str(metadata.get("name")),
        cell_int(obj.get("value")),
        obj.get("globalDefault") is True,
        age_of(epoch(metadata.get("creationTimestamp")), now),
        cell_str(obj.get("preemptionPolicy")),
    ], None



RESOURCE = Resource(
    INFO, scheduling_v1.PriorityClass,
    defaults=default_priority_class,
    validate=validate_priority_class,
    validate_update=validate_priority_class_update,
    generation="create",
    columns=PRIORITY_CLASS_COLUMNS,
    row=_print_priority_class,
)
