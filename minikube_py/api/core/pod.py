"""Pod (core/v1): a group of containers scheduled together onto one node.

The pod strategy: created ``Pending`` with its QoS class (clients cannot
create a pod in a state of their choosing), ``metadata.generation`` tracks the
spec, status only through ``pods/status``, graceful deletion for pods bound to
a node and not finished (``CheckGracefulDelete``), and a delete answers with
the pod. Admission (Priority, DefaultTolerationSeconds, Pod Security) is in
:mod:`minikube_py.admission`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..defaults import default_pod
from ..describe.pods import describe_pod
from ..generated import core_v1
from ..jsoncopy import deep_copy
from ..qos import qos_class
from ..resource import KindInfo, Resource
from ..validation_pod import validate_ephemeral_update, validate_pod, validate_pod_update
from ..validation_pod_status import validate_pod_status_update
from .pod_table import POD_COLUMNS, print_pod

INFO = KindInfo(
    "Pod", "", "v1", "pods", "pod", True, ("po",),
    field_labels=(
        "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
        "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
        "status.podIP", "status.nominatedNodeName",
    ),
    subresources=("status", "binding", "log", "exec", "attach", "portforward", "proxy",
                  "ephemeralcontainers"),
    categories=("all",),
    returns_deleted_object=True,
)


def initial_status(pod: dict[str, Any]) -> dict[str, Any]:
    """``PrepareForCreate``: every pod starts Pending, with its QoS class."""
    return {"phase": "Pending", "qosClass": qos_class(pod)}


def field_value(pod: Mapping[str, Any], label: str) -> object | None:
    """``status.podIP`` falls back to the first ``status.podIPs`` entry (older
    writers fill only that), as Kubernetes selects on it."""
    if label != "status.podIP":
        return None
    status = pod.get("status")
    if not isinstance(status, Mapping) or status.get("podIP") is not None:
        return None
    pod_ips = status.get("podIPs")
    if isinstance(pod_ips, list) and pod_ips and isinstance(pod_ips[0], Mapping):
        return pod_ips[0].get("ip")
    return None


def grace_period(pod: Mapping[str, Any], requested: int | None) -> int:
    """``CheckGracefulDelete``: unscheduled or finished pods go at once; others
    get the request's period, else ``spec.terminationGracePeriodSeconds``."""
    spec = pod.get("spec") or {}
    phase = (pod.get("status") or {}).get("phase")
    if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
        return 0
    if requested is not None:
        return max(requested, 0)
    return int(spec.get("terminationGracePeriodSeconds", 30))


def _ephemeral_containers(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """A write to ``pods/ephemeralcontainers`` changes only
    ``spec.ephemeralContainers``; everything else stays as stored."""
    out = deep_copy(old)
    out["metadata"]["resourceVersion"] = new["metadata"].get("resourceVersion")
    ephemeral = (new.get("spec") or {}).get("ephemeralContainers")
    if ephemeral:
        out.setdefault("spec", {})["ephemeralContainers"] = ephemeral
    else:
        out.get("spec", {}).pop("ephemeralContainers", None)
    return out


def _describe(pod: Mapping[str, Any], related: Mapping[str, Any], events: Any,
              ctx: Any) -> str:
    return describe_pod(pod, events, ctx)


RESOURCE = Resource(
    INFO, core_v1.Pod,
    defaults=default_pod,
    validate=validate_pod,
    validate_update=validate_pod_update,
    update_subresource={"ephemeralcontainers": _ephemeral_containers},
    validate_subresource_update={"ephemeralcontainers": validate_ephemeral_update,
                                 "status": validate_pod_status_update},
    generation="spec",
    initial_status=initial_status,
    field_value=field_value,
    grace_period=grace_period,
    columns=POD_COLUMNS,
    row=print_pod,
    describe=_describe,
)
