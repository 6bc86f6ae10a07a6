"""Deployment (apps/v1): declarative updates of pods through ReplicaSets.

Generation tracks the spec; status only through ``deployments/status``;
``deployments/scale``; describe lists the replica sets its selector matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..defaults import default_deployment
from ..describe.workloads import describe_deployment
from ..generated import apps_v1
from ..printers import (
    D_CONTAINERS,
    D_CREATED,
    D_IMAGES,
    D_NAME,
    age_of,
    cell_int,
    cell_str,
    epoch,
    spec_replicas,
    workload_wide_cells,
)
from ..resource import Column, KindInfo, Related, Resource, match_labels
from ..validation_apps import validate_deployment, validate_deployment_update

INFO = KindInfo("Deployment", "apps", "v1", "deployments", "deployment", True, ("deploy",),
                subresources=("status", "scale"), categories=("all",))

DEPLOYMENT_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Ready", "string", "Number of the pod with ready state"),
    Column("Up-to-date", "string",
           "Total number of non-terminating pods targeted by this deployment that have the "
           "desired template spec."),
    Column("Available", "string",
           "Total number of available non-terminating pods (ready for at least minReadySeconds) "
           "targeted by this deployment."),
    Column("Age", "string", D_CREATED),
    Column("Containers", "string", D_CONTAINERS, priority=1),
    Column("Images", "string", D_IMAGES, priority=1),
    Column("Selector", "string",
           "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be "
           "the ones affected by this deployment.", priority=1),
)



def _print_deployment(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    spec = _m(obj.get("spec"))
    status = _m(obj.get("status"))
    return [
        cell_str(metadata.get("name")),
        f"{cell_int(status.get('readyReplicas'))}/{spec_replicas(spec)}",
        cell_int(status.get("updatedReplicas")),
        cell_int(status.get("availableReplicas")),
        age_of(epoch(metadata.get("creationTimestamp")), now),
        *workload_wide_cells(spec, empty="", invalid="<invalid>"),
    ], None


def _describe(obj: Mapping[str, Any], related: Mapping[str, Any], events: Any,
              ctx: Any) -> str:
    return describe_deployment(obj, list(related.get("replicasets", ())), events, ctx)


RESOURCE = Resource(
    INFO, apps_v1.Deployment,
    defaults=default_deployment,
    validate=validate_deployment,
    validate_update=validate_deployment_update,
    generation="spec",
    initial_status=lambda obj: {},  # every DeploymentStatus field is omitempty
    columns=DEPLOYMENT_COLUMNS,
    row=_print_deployment,
    describe=_describe,
    related=(Related("replicasets", "replicasets", label_selector=match_labels),),
)
