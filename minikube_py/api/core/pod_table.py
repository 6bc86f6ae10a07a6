"""The Pod table: kubectl's columns and ``printPod`` (STATUS, READY,
RESTARTS as ``kubectl get pods`` shows them), for the pod resource and for the
CLI and dashboard that print pod states.

:func:`pod_status`, :func:`pod_ready` and :func:`pod_restarts` are public;
:func:`print_pod` is the resource's row printer (see :mod:`..printers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..access import mapping as _m
from ..printers import (
    D_CREATED,
    D_NAME,
    NONE,
    age_of,
    cell_int,
    cell_list,
    cell_str,
    epoch,
    human_duration,
)
from ..resource import Column

__all__ = ["POD_COLUMNS", "pod_ready", "pod_restarts", "pod_status", "print_pod"]

POD_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    Column("Status", "string", "The aggregate status of the containers in this pod."),
    Column("Restarts", "string",
           "The number of times the containers in this pod have been restarted and when the "
           "last container in this pod has restarted."),
    Column("Age", "string", D_CREATED),
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
    return epoch(terminated.get("finishedAt"))


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
    containers = cell_list(spec.get("containers"))
    init_containers = cell_list(spec.get("initContainers"))
    conditions = cell_list(status.get("conditions"))

    total = len(containers)
    ready = 0
    phase = cell_str(status.get("phase"))
    status_reason = cell_str(status.get("reason"))
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
        restartable[cell_str(c.get("name"))] = is_sidecar
        if is_sidecar:
            total += 1

    restarts = 0
    sidecar_restarts = 0
    last_restart: float | None = None
    last_sidecar_restart: float | None = None
    initializing = False
    for index, item in enumerate(cell_list(status.get("initContainerStatuses"))):
        cs = _m(item)
        count = cell_int(cs.get("restartCount"))
        finished = _finished_at(cs)
        restarts += count
        last_restart = _later(last_restart, finished)
        is_sidecar = restartable.get(cell_str(cs.get("name")), False)
        if is_sidecar:
            sidecar_restarts += count
            last_sidecar_restart = _later(last_sidecar_restart, finished)
        state = _m(cs.get("state"))
        terminated = state.get("terminated")
        waiting = state.get("waiting")
        if terminated is not None and cell_int(_m(terminated).get("exitCode")) == 0:
            continue
        if is_sidecar and cs.get("started") is True:
            if cs.get("ready"):
                ready += 1
            continue
        if terminated is not None:
            term = _m(terminated)
            term_reason = cell_str(term.get("reason"))
            if term_reason:
                reason = "Init:" + term_reason
            else:
                signal = cell_int(term.get("signal"))
                if signal != 0:
                    reason = f"Init:Signal:{signal}"
                else:
                    reason = f"Init:ExitCode:{cell_int(term.get('exitCode'))}"
        elif waiting is not None and \
                cell_str(_m(waiting).get("reason")) not in ("", "PodInitializing"):
            reason = "Init:" + cell_str(_m(waiting).get("reason"))
        else:
            reason = f"Init:{index}/{len(init_containers)}"
        initializing = True
        break

    if not initializing or _initialized(conditions):
        restarts = sidecar_restarts
        last_restart = last_sidecar_restart
        has_running = False
        for item in reversed(cell_list(status.get("containerStatuses"))):
            cs = _m(item)
            restarts += cell_int(cs.get("restartCount"))
            last_restart = _later(last_restart, _finished_at(cs))
            state = _m(cs.get("state"))
            waiting = state.get("waiting")
            terminated = state.get("terminated")
            waiting_reason = cell_str(_m(waiting).get("reason")) if waiting is not None else ""
            if waiting_reason:
                reason = waiting_reason
            elif terminated is not None:
                term = _m(terminated)
                term_reason = cell_str(term.get("reason"))
                if term_reason:
                    reason = term_reason
                else:
                    signal = cell_int(term.get("signal"))
                    if signal != 0:
                        reason = f"Signal:{signal}"
                    else:
                        reason = f"ExitCode:{cell_int(term.get('exitCode'))}"
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
    ip = cell_str(status.get("podIP"))
    if not ip:
        ips = cell_list(status.get("podIPs"))
        if ips:
            ip = cell_str(_m(ips[0]).get("ip"))
    return ip or NONE


def print_pod(pod: Mapping[str, Any], now: float) -> tuple[list[Any], dict[str, str] | None]:
    metadata = _m(pod.get("metadata"))
    spec = _m(pod.get("spec"))
    status = _m(pod.get("status"))
    ready, reason, restarts = _pod_summary(pod, now)
    gates = cell_list(spec.get("readinessGates"))
    readiness_gates = NONE
    if gates:
        conditions = cell_list(status.get("conditions"))
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
        cell_str(metadata.get("name")),
        ready,
        reason,
        restarts,
        age_of(epoch(metadata.get("creationTimestamp")), now),
        _pod_ip(status),
        cell_str(spec.get("nodeName")) or NONE,
        cell_str(status.get("nominatedNodeName")) or NONE,
        readiness_gates,
    ]
    phase = status.get("phase")
    condition = (_POD_SUCCEEDED_CONDITION if phase == "Succeeded"
                 else _POD_FAILED_CONDITION if phase == "Failed" else None)
    return cells, condition
