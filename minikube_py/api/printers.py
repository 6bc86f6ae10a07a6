"""Server-side printing: ``meta.k8s.io/v1`` Table objects, as kubectl shows them.

Contract
--------
:func:`table` turns stored objects of one kind into the Table the Kubernetes API
server returns for ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io``
(``pkg/printers/internalversion/printers.go`` behind the apiserver's
``asTable``):

* **Columns** are Kubernetes' own column definitions for ``Pod``, ``Node``,
  ``Namespace``, ``Event``, ``Deployment``, ``ReplicaSet``, ``Job`` and
  ``PriorityClass``: name, type,
  format, description, priority. Priority ``0`` columns are always shown,
  priority ``1`` only by ``kubectl -o wide``. As in Kubernetes the server always
  fills *every* column (it prints with ``Wide: true``); hiding priority-1
  columns is the client's job. Any other kind gets the apiserver's default
  table: ``Name`` and ``Created At`` (UTC RFC 3339, ``0001-01-01T00:00:00Z``
  when the timestamp is missing, as Go prints its zero time).
* **Cells** follow the printers' rules: pod STATUS/READY/RESTARTS as kubectl
  shows them (see :func:`pod_status`), ``<none>``/``<unknown>`` placeholders,
  integer cells as ``int``, ages through :func:`human_duration`.
* **Rows** are ``{"cells": [...], "object": ...}``; a pod whose phase is
  ``Succeeded``/``Failed`` also carries the row ``conditions`` Kubernetes adds
  (``Completed`` / ``True``). ``include_object`` is the ``includeObject``
  query parameter: ``"Object"`` embeds the object itself, ``"Metadata"`` (the
  default; ``""`` means the same) a ``PartialObjectMetadata``, ``"None"``
  ``null``. Any other value raises :class:`~.errors.BadRequest` with the
  apiserver's message. Embedded objects and metadata are the caller's
  mappings, not copies.
* **Table metadata** carries ``resourceVersion`` and ``continue`` when they are
  non-empty (Kubernetes omits empty ``ListMeta`` fields).
* **Time**: every age is relative to the ``now`` argument (seconds since the
  epoch), never the wall clock, so output is deterministic. Timestamps are RFC
  3339 strings (``metav1.Time`` / ``MicroTime``); a missing, empty, zero
  (``0001-01-01T00:00:00Z``) or unparsable timestamp prints ``<unknown>``.
  Parsing is cached, so a refresh that re-renders the same objects parses
  nothing twice.

Values the defaulting layer normally fills in are read with the API defaults
when absent (``spec.replicas`` is 1), because the server prints defaulted
objects. The helpers :func:`pod_status`, :func:`pod_ready`,
:func:`pod_restarts`, :func:`human_duration`, :func:`short_human_duration` and
:func:`age` are public for the CLI and the dashboard. Per-row work is dictionary
lookups and string formatting: no regular expressions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Final

from .access import mapping as _m
from .errors import BadRequest
from .labels import SelectorError, selector_from_label_selector
from .timefmt import parse_datetime

__all__ = [
    "INCLUDE_OBJECT_VALUES",
    "TABLE_API_VERSION",
    "Column",
    "age",
    "column_definitions",
    "human_duration",
    "pod_ready",
    "pod_restarts",
    "pod_status",
    "short_human_duration",
    "table",
]

TABLE_API_VERSION: Final = "meta.k8s.io/v1"
INCLUDE_OBJECT_VALUES: Final = ("None", "Metadata", "Object")

_NO_ITEMS: Final[tuple[Any, ...]] = ()
_UNKNOWN: Final = "<unknown>"
_NONE: Final = "<none>"


# ------------------------------------------------------------------ durations


def human_duration(seconds: float) -> str:
    """``duration.HumanDuration``: about 2-3 significant figures.

    ``0s`` .. ``119s``, ``2m1s`` .. ``9m59s``, ``10m`` .. ``179m``, ``3h`` ..
    ``7h59m``, ``8h`` .. ``47h``, ``2d`` .. ``7d23h``, ``8d`` .. ``729d``,
    ``2y`` .. ``7y364d``, then whole years. Up to 2 seconds in the future
    (clock skew) prints ``0s``; further ahead ``<invalid>``.
    """
    if not math.isfinite(seconds):
        return "<invalid>"
    secs = int(seconds)  # Go's int(d.Seconds()) truncates toward zero
    if secs < -1:
        return "<invalid>"
    if secs < 0:
        return "0s"
    if secs < 120:
        return f"{secs}s"
    minutes = secs // 60
    if minutes < 10:
        rest = secs % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = secs // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        rest = hours % 24
        return f"{days}d" if rest == 0 else f"{days}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        rest = days % 365
        return f"{years}y" if rest == 0 else f"{years}y{rest}d"
    return f"{years}y"


def short_human_duration(seconds: float) -> str:
    """``duration.ShortHumanDuration``: one unit only (``59s``, ``1m``, ``23h``,
    ``364d``, ``2y``); the same clock-skew tolerance as :func:`human_duration`."""
    if not math.isfinite(seconds):
        return "<invalid>"
    secs = int(seconds)
    if secs < -1:
        return "<invalid>"
    if secs < 0:
        return "0s"
    if secs < 60:
        return f"{secs}s"
    minutes = int(seconds / 60)
    if minutes < 60:
        return f"{minutes}m"
    hours = int(seconds / 3600)
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    return f"{int(seconds / 3600 / 24 / 365)}y"


# ----------------------------------------------------------------- timestamps

_GO_ZERO_TIME: Final = datetime(1, 1, 1, tzinfo=UTC)
_GO_ZERO_TEXT: Final = "0001-01-01T00:00:00Z"


@lru_cache(maxsize=16384)
def _parse_time(text: str) -> tuple[float, datetime] | None:
    """RFC 3339 text -> (epoch seconds, aware datetime); ``None`` for the zero
    time or text that is not a timestamp. Cached: timestamps repeat across
    refreshes."""
    parsed = parse_datetime(text, naive_utc=True)
    if parsed is None or parsed == _GO_ZERO_TIME:
        return None
    return parsed.timestamp(), parsed


def _epoch(value: Any) -> float | None:
    if not value or not isinstance(value, str):
        return None
    parsed = _parse_time(value)
    return None if parsed is None else parsed[0]


def age(timestamp: str | None, *, now: float) -> str:
    """``translateTimestampSince``: :func:`human_duration` of ``now - timestamp``,
    ``<unknown>`` when the timestamp is missing or zero."""
    when = _epoch(timestamp)
    if when is None:
        return _UNKNOWN
    return human_duration(now - when)


def _age_of(when: float | None, now: float) -> str:
    return _UNKNOWN if when is None else human_duration(now - when)


def _rfc3339_utc(value: Any) -> str:
    """Go's ``t.UTC().Format(time.RFC3339)`` (whole seconds); zero time if unset."""
    if not value or not isinstance(value, str):
        return _GO_ZERO_TEXT
    parsed = _parse_time(value)
    if parsed is None:
        return _GO_ZERO_TEXT
    return parsed[1].astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -------------------------------------------------------------- small helpers


def _seq(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else _NO_ITEMS


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return 0


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


# Go's unicode.IsSpace set, which strings.TrimSpace strips.
_GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _layout_containers(containers: Sequence[Any]) -> tuple[str, str]:
    """``layoutContainerCells``: names and images joined with commas."""
    names = []
    images = []
    for container in containers:
        c = _m(container)
        names.append(_str(c.get("name")))
        images.append(_str(c.get("image")))
    return ",".join(names), ",".join(images)


def _selector_string(selector: Any) -> str:
    """``LabelSelectorAsSelector(sel).String()``; raises :class:`SelectorError`."""
    ls = selector if isinstance(selector, Mapping) else None
    return str(selector_from_label_selector(ls))


# ---------------------------------------------------------------- columns


@dataclass(frozen=True, slots=True)
class Column:
    """One ``TableColumnDefinition``."""

    name: str
    type: str
    description: str
    format: str = ""
    priority: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        }


# Descriptions are the Kubernetes API field docs the Go code reads through
# SwaggerDoc() (core/v1 and meta/v1; extensions/v1beta1 for the workloads).
_D_NAME: Final = (
    "Name must be unique within a namespace. Is required when creating resources, although "
    "some resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_D_CREATED: Final = (
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.  Populated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_D_CONTAINERS: Final = "Names of each container in the template."
_D_IMAGES: Final = "Images referenced by each container in the template."
_D_NODE_ADDRESSES: Final = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. "
    "More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This "
    "field is declared as mergeable, but the merge key is not sufficiently unique, which can "
    "cause data corruption when it is merged. Callers should instead use a full-replacement "
    "patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that "
    "addresses can change during the lifetime of a Node. However, there are some exceptions "
    "where this may not be possible, such as Pods that inherit a Node's address in its own "
    "status or consumers of the downward API (status.hostIP)."
)

POD_COLUMNS: Final = (
    Column("Name", "string", _D_NAME, format="name"),
    Column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    Column("Status", "string", "The aggregate status of the containers in this pod."),
    Column("Restarts", "string",
           "The number of times the containers in this pod have been restarted and when the "
           "last container in this pod has restarted."),
    Column("Age", "string", _D_CREATED),
    Column("IP", "string",
           "podIP address allocated to the pod. Routable at least within the cluster. Empty if "
           "not yet allocated.", priority=1),
    Column("Node", "string",
           "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
           "candidate for scheduling by the scheduler defined in schedulerName. Once this field "
           "is set, the kubelet for this node becomes responsible for the lifecycle of this pod. "
           "This field should not be used to express a desire for the pod to be scheduled on a "
           "specific node. "
           "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
           priority=1),
    Column("Nominated Node", "string",
           "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
           "cannot be scheduled right away as preemption victims receive their graceful "
           "termination periods. This field does not guarantee that the pod will be scheduled "
           "on this node. Scheduler may decide to place the pod elsewhere if other nodes become "
           "available sooner. Scheduler may also decide to give the resources on this node to a "
           "higher priority pod that is created after preemption. As a result, this field may "
           "be different than PodSpec.nodeName when the pod is scheduled.", priority=1),
    Column("Readiness Gates", "string",
           "If specified, all readiness gates will be evaluated for pod readiness. A pod is "
           "ready when all its containers are ready AND all conditions specified in the "
           "readiness gates have status equal to \"True\" More info: "
           "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
           priority=1),
)

NODE_COLUMNS: Final = (
    Column("Name", "string", _D_NAME, format="name"),
    Column("Status", "string", "The status of the node"),
    Column("Roles", "string", "The roles of the node"),
    Column("Age", "string", _D_CREATED),
    Column("Version", "string", "Kubelet Version reported by the node."),
    Column("Internal-IP", "string", _D_NODE_ADDRESSES, priority=1),
    Column("External-IP", "string", _D_NODE_ADDRESSES, priority=1),
    Column("OS-Image", "string",
           "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 "
           "(wheezy)).", priority=1),
    Column("Kernel-Version", "string",
           "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
           priority=1),
    Column("Container-Runtime", "string",
           "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
           "containerd://1.4.2).", priority=1),
)

NAMESPACE_COLUMNS: Final = (
    Column("Name", "string", _D_NAME, format="name"),
    Column("Status", "string", "The status of the namespace"),
    Column("Age", "string", _D_CREATED),
)

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
    Column("Name", "string", _D_NAME, format="name", priority=1),
)

DEPLOYMENT_COLUMNS: Final = (
    Column("Name", "string", _D_NAME, format="name"),
    Column("Ready", "string", "Number of the pod with ready state"),
    Column("Up-to-date", "string",
           "Total number of non-terminating pods targeted by this deployment that have the "
           "desired template spec."),
    Column("Available", "string",
           "Total number of available non-terminating pods (ready for at least minReadySeconds) "
           "targeted by this deployment."),
    Column("Age", "string", _D_CREATED),
    Column("Containers", "string", _D_CONTAINERS, priority=1),
    Column("Images", "string", _D_IMAGES, priority=1),
    Column("Selector", "string",
           "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be "
           "the ones affected by this deployment.", priority=1),
)

REPLICASET_COLUMNS: Final = (
    Column("Name", "string", _D_NAME, format="name"),
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
    Column("Age", "string", _D_CREATED),
    Column("Containers", "string", _D_CONTAINERS, priority=1),
    Column("Images", "string", _D_IMAGES, priority=1),
    Column("Selector", "string",
           "Selector is a label query over pods that should match the replica count. If the "
           "selector is empty, it is defaulted to the labels present on the pod template. Label "
           "keys and values that must match in order to be controlled by this replica set. More "
           "info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
           "#label-selectors", priority=1),
)

PRIORITY_CLASS_COLUMNS: Final = (
    Column("Name", "string", _D_NAME, format="name"),
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
    Column("Age", "string", _D_CREATED),
    Column("PreemptionPolicy", "string",
           "preemptionPolicy is the Policy for preempting pods with lower priority. One of "
           "Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."),
)

JOB_COLUMNS: Final = (
    Column("Name", "string", _D_NAME, format="name"),
    Column("Status", "string", "Status of the job."),
    Column("Completions", "string",
           "The number of pods which reached phase Succeeded. The value increases monotonically "
           "for a given spec. However, it may decrease in reaction to scale down of elastic "
           "indexed jobs."),
    Column("Duration", "string", "Time required to complete the job."),
    Column("Age", "string", _D_CREATED),
    Column("Containers", "string", _D_CONTAINERS, priority=1),
    Column("Images", "string", _D_IMAGES, priority=1),
    Column("Selector", "string",
           "A label query over pods that should match the pod count. Normally, the system sets "
           "this field for you. More info: "
           "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
           "#label-selectors", priority=1),
)

DEFAULT_COLUMNS: Final = (
    Column("Name", "string", _D_NAME, format="name"),
    Column("Created At", "date", _D_CREATED),
)


# ------------------------------------------------------------------- pods

_POD_SUCCEEDED_CONDITION: Final = {
    "type": "Completed", "status": "True", "reason": "Succeeded",
    "message": "The pod has completed successfully.",
}
_POD_FAILED_CONDITION: Final = {
    "type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed.",
}
_NODE_UNREACHABLE_POD_REASON: Final = "NodeLost"


def _finished_at(status: Mapping[str, Any]) -> float | None:
    """``lastState.terminated.finishedAt`` of a container status, if any."""
    last = status.get("lastState")
    if not isinstance(last, Mapping):
        return None
    terminated = last.get("terminated")
    if not isinstance(terminated, Mapping):
        return None
    return _epoch(terminated.get("finishedAt"))


def _later(current: float | None, candidate: float | None) -> float | None:
    if candidate is None:
        return current
    if current is None or current < candidate:
        return candidate
    return current


def _pod_summary(pod: Mapping[str, Any], now: float) -> tuple[str, str, str]:
    """printPod's READY, STATUS and RESTARTS cells, in one pass over the pod."""
    spec = _m(pod.get("spec"))
    status = _m(pod.get("status"))
    containers = _seq(spec.get("containers"))
    init_containers = _seq(spec.get("initContainers"))
    conditions = _seq(status.get("conditions"))

    total = len(containers)
    ready = 0
    phase = _str(status.get("phase"))
    status_reason = _str(status.get("reason"))
    reason = status_reason or phase

    for condition in conditions:
        c = _m(condition)
        if c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    # Name -> restartable (restartPolicy: Always); a later duplicate name wins,
    # as in the Go map.
    restartable: dict[str, bool] = {}
    for container in init_containers:
        c = _m(container)
        is_sidecar = c.get("restartPolicy") == "Always"
        restartable[_str(c.get("name"))] = is_sidecar
        if is_sidecar:
            total += 1

    restarts = 0
    sidecar_restarts = 0
    last_restart: float | None = None
    last_sidecar_restart: float | None = None
    initializing = False
    for index, item in enumerate(_seq(status.get("initContainerStatuses"))):
        cs = _m(item)
        count = _int(cs.get("restartCount"))
        finished = _finished_at(cs)
        restarts += count
        last_restart = _later(last_restart, finished)
        is_sidecar = restartable.get(_str(cs.get("name")), False)
        if is_sidecar:
            sidecar_restarts += count
            last_sidecar_restart = _later(last_sidecar_restart, finished)
        state = _m(cs.get("state"))
        terminated = state.get("terminated")
        waiting = state.get("waiting")
        if terminated is not None and _int(_m(terminated).get("exitCode")) == 0:
            continue
        if is_sidecar and cs.get("started") is True:
            if cs.get("ready"):
                ready += 1
            continue
        if terminated is not None:
            term = _m(terminated)
            term_reason = _str(term.get("reason"))
            if term_reason:
                reason = "Init:" + term_reason
            else:
                signal = _int(term.get("signal"))
                if signal != 0:
                    reason = f"Init:Signal:{signal}"
                else:
                    reason = f"Init:ExitCode:{_int(term.get('exitCode'))}"
        elif waiting is not None and _str(_m(waiting).get("reason")) not in ("", "PodInitializing"):
            reason = "Init:" + _str(_m(waiting).get("reason"))
        else:
            reason = f"Init:{index}/{len(init_containers)}"
        initializing = True
        break

    if not initializing or _initialized(conditions):
        restarts = sidecar_restarts
        last_restart = last_sidecar_restart
        has_running = False
        for item in reversed(_seq(status.get("containerStatuses"))):
            cs = _m(item)
            restarts += _int(cs.get("restartCount"))
            last_restart = _later(last_restart, _finished_at(cs))
            state = _m(cs.get("state"))
            waiting = state.get("waiting")
            terminated = state.get("terminated")
            waiting_reason = _str(_m(waiting).get("reason")) if waiting is not None else ""
            if waiting_reason:
                reason = waiting_reason
            elif terminated is not None:
                term = _m(terminated)
                term_reason = _str(term.get("reason"))
                if term_reason:
                    reason = term_reason
                else:
                    signal = _int(term.get("signal"))
                    if signal != 0:
                        reason = f"Signal:{signal}"
                    else:
                        reason = f"ExitCode:{_int(term.get('exitCode'))}"
            elif cs.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        # Back to Running when some container still runs after another completed.
        if reason == "Completed" and has_running:
            reason = "Running" if _ready(conditions) else "NotReady"

    if _m(pod.get("metadata")).get("deletionTimestamp"):
        if status_reason == _NODE_UNREACHABLE_POD_REASON:
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"

    restarts_text = str(restarts)
    if restarts != 0 and last_restart is not None:
        restarts_text = f"{restarts} ({human_duration(now - last_restart)} ago)"
    return f"{ready}/{total}", reason, restarts_text


def _initialized(conditions: Sequence[Any]) -> bool:
    for condition in conditions:
        c = _m(condition)
        if c.get("type") == "Initialized":
            return c.get("status") == "True"
    return False


def _ready(conditions: Sequence[Any]) -> bool:
    for condition in conditions:
        c = _m(condition)
        if c.get("type") == "Ready" and c.get("status") == "True":
            return True
    return False


def pod_status(pod: Mapping[str, Any], *, now: float) -> str:
    """The STATUS column kubectl shows for a pod.

    Starts from ``status.reason`` or the phase (``SchedulingGated`` when the
    PodScheduled condition says so); an unfinished init container gives
    ``Init:<reason>``, ``Init:Signal:N``, ``Init:ExitCode:N`` or ``Init:i/n``
    (``PodInitializing`` waits count as progress; started sidecars —
    ``restartPolicy: Always`` init containers — do not block). Once
    initialized, the first container with a waiting or terminated reason (or
    ``Signal:N`` / ``ExitCode:N``) wins; ``Completed`` with a container still
    running reads ``Running`` or ``NotReady`` by the Ready condition. A pod
    being deleted shows ``Unknown`` when its node was lost (``NodeLost``), else
    ``Terminating`` unless it already Succeeded/Failed. ``now`` does not change
    the result; it is accepted so the three pod helpers share a signature.
    """
    return _pod_summary(pod, now)[1]


def pod_ready(pod: Mapping[str, Any]) -> str:
    """The READY column: ready containers / containers (sidecars count in both)."""
    return _pod_summary(pod, 0.0)[0]


def pod_restarts(pod: Mapping[str, Any], *, now: float) -> str:
    """The RESTARTS column: ``"3"``, or ``"3 (5m ago)"`` when the last
    termination time of a counted container is known."""
    return _pod_summary(pod, now)[2]


def _pod_ip(status: Mapping[str, Any]) -> str:
    # v1 -> internal conversion: podIP is authoritative, else podIPs[0].
    ip = _str(status.get("podIP"))
    if not ip:
        ips = _seq(status.get("podIPs"))
        if ips:
            ip = _str(_m(ips[0]).get("ip"))
    return ip or _NONE


def _print_pod(pod: Mapping[str, Any], now: float) -> tuple[list[Any], dict[str, str] | None]:
    metadata = _m(pod.get("metadata"))
    spec = _m(pod.get("spec"))
    status = _m(pod.get("status"))
    ready, reason, restarts = _pod_summary(pod, now)
    gates = _seq(spec.get("readinessGates"))
    readiness_gates = _NONE
    if gates:
        conditions = _seq(status.get("conditions"))
        true_count = 0
        for gate in gates:
            wanted = _m(gate).get("conditionType")
            for condition in conditions:
                c = _m(condition)
                if c.get("type") == wanted:
                    if c.get("status") == "True":
                        true_count += 1
                    break
        readiness_gates = f"{true_count}/{len(gates)}"
    cells: list[Any] = [
        _str(metadata.get("name")),
        ready,
        reason,
        restarts,
        _age_of(_epoch(metadata.get("creationTimestamp")), now),
        _pod_ip(status),
        _str(spec.get("nodeName")) or _NONE,
        _str(status.get("nominatedNodeName")) or _NONE,
        readiness_gates,
    ]
    phase = status.get("phase")
    condition = (_POD_SUCCEEDED_CONDITION if phase == "Succeeded"
                 else _POD_FAILED_CONDITION if phase == "Failed" else None)
    return cells, condition


# ------------------------------------------------------------------ nodes

_ROLE_PREFIX: Final = "node-role.kubernetes.io/"
_ROLE_LABEL: Final = "kubernetes.io/role"


def _node_roles(labels: Mapping[str, Any]) -> str:
    roles: set[str] = set()
    for key, value in labels.items():
        if key.startswith(_ROLE_PREFIX):
            role = key[len(_ROLE_PREFIX):]
            if role:
                roles.add(role)
        elif key == _ROLE_LABEL and value:
            roles.add(str(value))
    return ",".join(sorted(roles)) or _NONE


def _node_address(addresses: Sequence[Any], kind: str) -> str:
    for address in addresses:
        a = _m(address)
        if a.get("type") == kind:
            return _str(a.get("address"))
    return _NONE


def _print_node(node: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(node.get("metadata"))
    spec = _m(node.get("spec"))
    status = _m(node.get("status"))
    info = _m(status.get("nodeInfo"))
    ready_status: Any = None  # the last Ready condition wins, as in the Go map
    for condition in _seq(status.get("conditions")):
        c = _m(condition)
        if c.get("type") == "Ready":
            ready_status = c.get("status")
    if ready_status is None:
        state = "Unknown"
    else:
        state = "Ready" if ready_status == "True" else "NotReady"
    if spec.get("unschedulable") is True:
        state += ",SchedulingDisabled"
    addresses = _seq(status.get("addresses"))
    cells: list[Any] = [
        _str(metadata.get("name")),
        state,
        _node_roles(_m(metadata.get("labels"))),
        _age_of(_epoch(metadata.get("creationTimestamp")), now),
        _str(info.get("kubeletVersion")),
        _node_address(addresses, "InternalIP"),
        _node_address(addresses, "ExternalIP"),
        _str(info.get("osImage")) or _UNKNOWN,
        _str(info.get("kernelVersion")) or _UNKNOWN,
        _str(info.get("containerRuntimeVersion")) or _UNKNOWN,
    ]
    return cells, None


# ------------------------------------------------------ namespaces, events


def _print_namespace(ns: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(ns.get("metadata"))
    return [
        _str(metadata.get("name")),
        _str(_m(ns.get("status")).get("phase")),
        _age_of(_epoch(metadata.get("creationTimestamp")), now),
    ], None


def _print_event(event: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(event.get("metadata"))
    first_at = _epoch(event.get("firstTimestamp"))
    first = _age_of(first_at if first_at is not None else _epoch(event.get("eventTime")), now)
    last_at = _epoch(event.get("lastTimestamp"))
    last = first if last_at is None else _age_of(last_at, now)
    count = _int(event.get("count"))
    series = event.get("series")
    if isinstance(series, Mapping):
        last = _age_of(_epoch(series.get("lastObservedTime")), now)
        count = _int(series.get("count"))
    elif count == 0:
        count = 1  # singleton events of the new API carry no count
    involved = _m(event.get("involvedObject"))
    kind = _str(involved.get("kind")).lower()
    name = _str(involved.get("name"))
    target = f"{kind}/{name}" if name else kind
    source = _m(event.get("source"))
    component = _str(source.get("component")) or _str(event.get("reportingComponent"))
    host = _str(source.get("host")) or _str(event.get("reportingInstance"))
    return [
        last,
        _str(event.get("type")),
        _str(event.get("reason")),
        target,
        _str(involved.get("fieldPath")),
        f"{component}, {host}" if host else component,
        _str(event.get("message")).strip(_GO_SPACE),
        first,
        count,
        _str(metadata.get("name")),
    ], None


# -------------------------------------------------------------- workloads


def _replicas(spec: Mapping[str, Any]) -> int:
    replicas = spec.get("replicas")
    return 1 if replicas is None else _int(replicas)


def _print_deployment(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    spec = _m(obj.get("spec"))
    status = _m(obj.get("status"))
    names, images = _layout_containers(
        _seq(_m(_m(spec.get("template")).get("spec")).get("containers")))
    try:
        selector = _selector_string(spec.get("selector"))
    except SelectorError:
        selector = "<invalid>"
    return [
        _str(metadata.get("name")),
        f"{_int(status.get('readyReplicas'))}/{_replicas(spec)}",
        _int(status.get("updatedReplicas")),
        _int(status.get("availableReplicas")),
        _age_of(_epoch(metadata.get("creationTimestamp")), now),
        names,
        images,
        selector,
    ], None


def _print_replicaset(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    spec = _m(obj.get("spec"))
    status = _m(obj.get("status"))
    names, images = _layout_containers(
        _seq(_m(_m(spec.get("template")).get("spec")).get("containers")))
    try:  # metav1.FormatLabelSelector
        selector = _selector_string(spec.get("selector")) or _NONE
    except SelectorError:
        selector = "<error>"
    return [
        _str(metadata.get("name")),
        _replicas(spec),
        _int(status.get("replicas")),
        _int(status.get("readyReplicas")),
        _age_of(_epoch(metadata.get("creationTimestamp")), now),
        names,
        images,
        selector,
    ], None


# ------------------------------------------------------------------ batch

#: ``printJob``'s STATUS: the first of these conditions that is True, in order
#: (``Terminating`` for a job being deleted sits between Failed and Suspended).
#: v1.32 has no ``SuccessCriteriaMet`` case (kubernetes#132832 added it in 1.34):
#: a job that met its criteria but still has terminating pods prints Running.
_JOB_STATUS_ORDER: Final = ("Complete", "Failed", "", "Suspended", "FailureTarget")


def _job_condition(conditions: Sequence[Any], kind: str) -> bool:
    """``hasJobCondition``: the first condition of ``kind`` decides."""
    for cond in conditions:
        c = _m(cond)
        if c.get("type") == kind:
            return c.get("status") == "True"
    return False


def _job_status(obj: Mapping[str, Any]) -> str:
    conditions = _seq(_m(obj.get("status")).get("conditions"))
    for kind in _JOB_STATUS_ORDER:
        if not kind:
            if _m(obj.get("metadata")).get("deletionTimestamp"):
                return "Terminating"
        elif _job_condition(conditions, kind):
            return kind
    return "Running"


def _print_job(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    spec = _m(obj.get("spec"))
    status = _m(obj.get("status"))
    succeeded = _int(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{_int(spec.get('completions'))}"
    elif _int(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {_int(spec.get('parallelism'))}"
    else:
        completions = f"{succeeded}/1"
    start = _epoch(status.get("startTime"))
    end = _epoch(status.get("completionTime"))
    if start is None:
        duration = ""
    elif end is None:
        duration = human_duration(now - start)
    else:
        duration = human_duration(end - start)
    names, images = _layout_containers(
        _seq(_m(_m(spec.get("template")).get("spec")).get("containers")))
    try:  # metav1.FormatLabelSelector
        selector = _selector_string(spec.get("selector")) or _NONE
    except SelectorError:
        selector = "<error>"
    return [
        _str(metadata.get("name")),
        _job_status(obj),
        completions,
        duration,
        _age_of(_epoch(metadata.get("creationTimestamp")), now),
        names,
        images,
        selector,
    ], None


# ------------------------------------------------------------- scheduling


def _print_priority_class(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    return [
        _str(metadata.get("name")),
        _int(obj.get("value")),
        obj.get("globalDefault") is True,
        _age_of(_epoch(metadata.get("creationTimestamp")), now),
        _str(obj.get("preemptionPolicy")),
    ], None


def _print_default(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    return [_str(metadata.get("name")), _rfc3339_utc(metadata.get("creationTimestamp"))], None


# ------------------------------------------------------------------ table

_Printer = Callable[[Mapping[str, Any], float], tuple[list[Any], dict[str, str] | None]]

_PRINTERS: Final[dict[str, tuple[tuple[Column, ...], _Printer]]] = {
    "Pod": (POD_COLUMNS, _print_pod),
    "Node": (NODE_COLUMNS, _print_node),
    "Namespace": (NAMESPACE_COLUMNS, _print_namespace),
    "Event": (EVENT_COLUMNS, _print_event),
    "Deployment": (DEPLOYMENT_COLUMNS, _print_deployment),
    "ReplicaSet": (REPLICASET_COLUMNS, _print_replicaset),
    "PriorityClass": (PRIORITY_CLASS_COLUMNS, _print_priority_class),
    "Job": (JOB_COLUMNS, _print_job),
}


def column_definitions(kind: str) -> tuple[Column, ...]:
    """The columns :func:`table` uses for ``kind`` (the default pair for kinds
    without a printer)."""
    entry = _PRINTERS.get(kind)
    return DEFAULT_COLUMNS if entry is None else entry[0]


def table(
    kind: str,
    objects: Sequence[Mapping[str, Any]],
    *,
    now: float,
    include_object: str = "Metadata",
    resource_version: str = "",
    continue_token: str | None = None,
) -> dict[str, Any]:
    """A ``meta.k8s.io/v1`` Table of ``objects`` (all of ``kind``); see the
    module docstring for the contract."""
    if include_object == "":
        include_object = "Metadata"
    if include_object not in INCLUDE_OBJECT_VALUES:
        raise BadRequest(f"unrecognized includeObject value: {json.dumps(include_object)}")
    columns, printer = _PRINTERS.get(kind, (DEFAULT_COLUMNS, _print_default))
    rows: list[dict[str, Any]] = []
    append = rows.append
    for obj in objects:
        cells, condition = printer(obj, now)
        row: dict[str, Any] = {"cells": cells}
        if condition is not None:
            row["conditions"] = [dict(condition)]
        if include_object == "Object":
            row["object"] = obj
        elif include_object == "Metadata":
            row["object"] = {
                "kind": "PartialObjectMetadata",
                "apiVersion": TABLE_API_VERSION,
                "metadata": meta if isinstance(meta := obj.get("metadata"), Mapping) else {},
            }
        else:
            row["object"] = None
        append(row)
    metadata: dict[str, Any] = {}
    if resource_version:
        metadata["resourceVersion"] = resource_version
    if continue_token:
        metadata["continue"] = continue_token
    return {
        "kind": "Table",
        "apiVersion": TABLE_API_VERSION,
        "metadata": metadata,
        "columnDefinitions": [column.to_dict() for column in columns],
        "rows": rows,
    }
