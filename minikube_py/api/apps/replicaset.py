"""ReplicaSet (apps/v1): keeps a number of pod replicas running.

Generation tracks the spec; status only through ``replicasets/status``
(``status.replicas`` is always serialised); ``replicasets/scale``; describe
counts the pods its selector matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..defaults import default_replica_set
from ..describe.workloads import describe_replica_set
from ..generated import apps_v1
from ..printers import (
    D_CONTAINERS,
    D_CREATED,
    D_IMAGES,
    D_NAME,
    NONE,
    age_of,
    cell_int,
    cell_str,
    epoch,
    spec_replicas,
    workload_wide_cells,
)
from ..resource import Column, KindInfo, Related, Resource, match_labels
from ..validation_apps import validate_replica_set, validate_replica_set_update

INFO = KindInfo("ReplicaSet", "apps", "v1", "replicasets", "replicaset", True, ("rs",),
                field_labels=("status.replicas",), subresources=("status", "scale"),
                categories=("all",))

REPLICASET_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Desired", "integer",
           "Replicas is the number of desired pods. This is a pointer to distinguish between "
           "explicit zero and unspecified. Defaults to 1. More info: "
           "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"),
    Column("Current", "integer",
           "Replicas is the most recently observed number of non-terminating pods. More info: "
           "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"),
    Column("Ready", "integer",
           "The number of non-terminating pods targeted by this ReplicaSet with a Ready "
           "Condition."),
    Column("Age", "string", D_CREATED),
    Column("Containers", "string", D_CONTAINERS, priority=1),
    Column("Images", "string", D_IMAGES, priority=1),
    Column("Selector", "string",
           "Selector is a label query over pods that should match the replica count. If the "
           "selector is empty, it is defaulted to the labels present on the pod template. Label "
           "keys and values that must match in order to be controlled by this replica set. More "
           "info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
           "#label-selectors", priority=1),
)


def _print_replicaset(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    spec = _m(obj.get("spec"))
    status = _m(obj.get("status"))
    return [
        cell_str(metadata.get("name")),
        spec_replicas(spec),
        cell_int(status.get("replicas")),
        cell_int(status.get("readyReplicas")),
        age_of(epoch(metadata.get("creationTimestamp")), now),
        *workload_wide_cells(spec, empty=NONE, invalid="<error>"),  # FormatLabelSelector
    ], None


def _describe(obj: Mapping[str, Any], related: Mapping[str, Any], events: Any,
              ctx: Any) -> str:
    return describe_replica_set(obj, list(related.get("pods", ())), events, ctx)


RESOURCE = Resource(
    INFO, apps_v1.ReplicaSet,
    defaults=default_replica_set,
    validate=validate_replica_set,
    validate_update=validate_replica_set_update,
    generation="spec",
    initial_status=lambda obj: {"replicas": 0},  # ReplicaSetStatus.replicas is not omitempty
    columns=REPLICASET_COLUMNS,
    row=_print_replicaset,
    describe=_describe,
    related=(Related("pods", "pods", label_selector=match_labels),),
)
