"""Pod status from the runtime's view: a pure function, as the kubelet's
``generateAPIPodStatus`` + status manager compute it.

:func:`pod_status` takes the pod (spec and the status last written), what the
runtime reports for the pod (its sandbox and every container instance, current
and previous), the kubelet's remembered waiting reasons (image pull errors,
restart back-off) and ``now``; it returns the whole ``status`` to write.
Nothing here performs I/O, so every rule is table-tested.

Rules (Kubernetes' unless said otherwise):

* ``phase`` follows ``getPhase``: Pending while an init container has not
  succeeded or an app container waits for its first start; Running while
  one runs (or, with ``restartPolicy: Always``/``OnFailure``, while exited
  containers will be restarted); Succeeded when all app containers exited 0;
  Failed when one failed and ``restartPolicy`` is ``Never`` (also when an
  init container failed with ``Never``). A terminal phase never changes again.
  The final status of a deleted pod is terminal too (``terminating=True``).
* Conditions, in the kubelet's order: PodReadyToStartContainers (the sandbox
  is ready with an IP), Initialized, Ready, ContainersReady, PodScheduled (kept
  as the scheduler wrote it); conditions the kubelet does not own are kept.
  ``lastTransitionTime`` is kept while a condition's status is unchanged.
* Container statuses: ``state`` is waiting (``ContainerCreating``, or
  ``PodInitializing`` when the pod has init containers; or the kubelet's
  reason: ``ErrImagePull``, ``ErrImageNeverPull``, ``CrashLoopBackOff``),
  running or terminated; ``lastState`` is the previous instance's
  termination; ``restartCount`` is the latest instance's attempt;
  ``containerID`` is ``<runtime>://<id>``. App statuses are sorted by name,
  init statuses follow the spec. A running container is ``started`` once its
  startup probe succeeded (at once without one) and ``ready`` once started and
  its readiness probe succeeded (at once without one): the caller passes the
  probe outcomes for the current instances (``started``/``ready`` by name).
* ``hostIP``/``hostIPs`` is the node's IP, ``podIP``/``podIPs`` the sandbox's
  (kept from the old status once the sandbox is gone); ``startTime`` is set
  once; ``qosClass`` and ``nominatedNodeName`` are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..api.qos import qos_class
from ..api.timefmt import format_time as rfc3339
from ..runtime.base import (
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    LABEL_CONTAINER_NAME,
    LABEL_RESTART_COUNT,
    SANDBOX_READY,
    ContainerStatus,
    Sandbox,
)

__all__ = [
    "KUBELET_CONDITIONS",
    "TERMINAL_PHASES",
    "container_name",
    "group_instances",
    "pod_status",
    "restart_count",
    "rfc3339",
]

TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})
#: Condition types the kubelet owns, in the order it writes them.
KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                      "PodScheduled")

Obj = dict[str, Any]
#: Waiting reasons the kubelet remembers per container name: (reason, message).
Waiting = Mapping[str, tuple[str, str]]


def restart_count(c: ContainerStatus) -> int:
    try:
        return int(c.labels.get(LABEL_RESTART_COUNT, "0"))
    except ValueError:
        return 0


def container_name(c: ContainerStatus) -> str:
    """The pod spec's container name (the label the kubelet set; the runtime's
    own name only if the label is missing)."""
    return str(c.labels.get(LABEL_CONTAINER_NAME) or c.name)


def group_instances(containers: Sequence[ContainerStatus]) -> dict[str, list[ContainerStatus]]:
    """Container instances by container name, oldest first (by attempt, then creation)."""
    out: dict[str, list[ContainerStatus]] = {}
    for c in containers:
        out.setdefault(container_name(c), []).append(c)
    for instances in out.values():
        instances.sort(key=lambda c: (restart_count(c), c.created_at))
    return out


# --------------------------------------------------------------- containers


def _terminated(c: ContainerStatus, runtime: str) -> Obj:
    term: Obj = {"exitCode": c.exit_code if c.exit_code is not None else 0,
                 "reason": c.reason or ("Completed" if not c.exit_code else "Error")}
    if c.message:
        term["message"] = c.message
    if c.started_at is not None:
        term["startedAt"] = rfc3339(c.started_at)
    if c.finished_at is not None:
        term["finishedAt"] = rfc3339(c.finished_at)
    term["containerID"] = f"{runtime}://{c.id}"
    return term


def _waiting(reason: str, message: str = "") -> Obj:
    return {"waiting": {"reason": reason, **({"message": message} if message else {})}}


def _container_status(spec: Mapping[str, Any], instances: Sequence[ContainerStatus], *,
                      default_reason: str, override: tuple[str, str] | None,
                      runtime: str, probed_ready: bool = True,
                      probed_started: bool = True) -> Obj:
    name = str(spec.get("name", ""))
    image = str(spec.get("image", ""))
    if not instances:
        reason, message = override or (default_reason, "")
        return {"name": name, "state": _waiting(reason, message), "lastState": {},
                "ready": False, "restartCount": 0, "image": image, "imageID": "",
                "started": False}
    latest = instances[-1]
    previous = instances[-2] if len(instances) > 1 else None
    last_state: Obj = {}
    if previous is not None and previous.state == CONTAINER_EXITED:
        last_state = {"terminated": _terminated(previous, runtime)}
    running = latest.state == CONTAINER_RUNNING
    if latest.state == CONTAINER_EXITED and override is not None:
        # Exited and waiting to be restarted (or for its new image).
        state = _waiting(*override)
        last_state = {"terminated": _terminated(latest, runtime)}
    elif running:
        state = {"running": {"startedAt": rfc3339(latest.started_at or latest.created_at)}}
    elif latest.state == CONTAINER_EXITED:
        state = {"terminated": _terminated(latest, runtime)}
    elif latest.state == CONTAINER_CREATED:
        state = _waiting(*(override or (default_reason, "")))
    else:
        state = _waiting("ContainerStatusUnknown", "The container state could not be read")
    started = running and probed_started
    return {"name": name, "state": state, "lastState": last_state,
            "ready": started and probed_ready,
            "restartCount": restart_count(latest), "image": image,
            "imageID": latest.image_id, "containerID": f"{runtime}://{latest.id}",
            "started": started}


def _succeeded(status: Mapping[str, Any]) -> bool:
    term = status["state"].get("terminated")
    return term is not None and term.get("exitCode") == 0


def _stopped(status: Mapping[str, Any]) -> bool:
    """Counted as stopped by getPhase: terminated, or waiting after a termination."""
    return "terminated" in status["state"] or (
        "waiting" in status["state"] and "terminated" in status["lastState"])


# --------------------------------------------------------------- phase


def _phase(spec: Mapping[str, Any], init: Sequence[Obj], apps: Sequence[Obj],
           old_phase: str, terminating: bool) -> str:
    if old_phase in TERMINAL_PHASES:
        return old_phase
    policy = spec.get("restartPolicy", "Always")
    pending_init = failed_init = 0
    for st in init:
        state, last = st["state"], st["lastState"]
        if "terminated" in state:
            failed_init += state["terminated"].get("exitCode") != 0
        elif "waiting" in state and "terminated" in last:
            failed_init += last["terminated"].get("exitCode") != 0
        else:
            pending_init += 1
    if failed_init and policy == "Never":
        return "Failed"
    started_apps = any("waiting" not in st["state"] or st["lastState"] for st in apps)
    if pending_init and not started_apps:
        return "Failed" if terminating else "Pending"
    running = stopped = succeeded = waiting = 0
    for st in apps:
        state = st["state"]
        if "running" in state:
            running += 1
        elif "terminated" in state:
            stopped += 1
            succeeded += _succeeded(st)
        elif _stopped(st):
            stopped += 1
        else:
            waiting += 1
    if waiting:
        return "Pending"
    if running:
        return "Running"
    if stopped:
        if terminating:  # nothing will be restarted any more, whatever the policy
            return "Succeeded" if stopped == succeeded else "Failed"
        if policy == "Always":
            return "Running"
        if stopped == succeeded:
            return "Succeeded"
        if policy == "Never":
            return "Failed"
        return "Running"
    return "Pending"


# --------------------------------------------------------------- conditions


def _go_list(names: Sequence[str]) -> str:
    return "[" + " ".join(names) + "]"  # Go's %s of a []string


def _condition(type_: str, ok: bool, reason: str = "", message: str = "") -> Obj:
    cond: Obj = {"type": type_, "status": "True" if ok else "False"}
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    return cond


def _readiness(type_: str, apps: Sequence[Obj], phase: str) -> Obj:
    if phase == "Succeeded":
        return _condition(type_, False, "PodCompleted")
    if phase == "Failed":
        return _condition(type_, False, "PodFailed")
    unready = [st["name"] for st in apps if not st["ready"]]
    if unready:
        return _condition(type_, False, "ContainersNotReady",
                          f"containers with unready status: {_go_list(unready)}")
    return _condition(type_, True)


def _ready(spec: Mapping[str, Any], apps: Sequence[Obj], phase: str,
           old_conditions: Mapping[str, Obj]) -> Obj:
    cond = _readiness("Ready", apps, phase)
    if cond["status"] != "True":
        return cond
    missing: list[str] = []
    for gate in spec.get("readinessGates") or []:
        gate_type = str((gate or {}).get("conditionType", ""))
        have = old_conditions.get(gate_type)
        if have is None:
            missing.append(f'corresponding condition of pod readiness gate "{gate_type}" '
                           "does not exist.")
        elif have.get("status") != "True":
            missing.append(f'the status of pod readiness gate "{gate_type}" is not "True", '
                           f"but {have.get('status')}")
    if missing:
        return _condition("Ready", False, "ReadinessGatesNotReady", ", ".join(missing))
    return cond


def _initialized(init: Sequence[Obj], apps: Sequence[Obj], phase: str) -> Obj:
    if phase == "Succeeded":
        return _condition("Initialized", True, "PodCompleted")
    if any("waiting" not in st["state"] or st["lastState"] for st in apps):
        return _condition("Initialized", True)  # an app container started: init finished
    incomplete = [st["name"] for st in init if not _succeeded(st)]
    if incomplete:
        return _condition("Initialized", False, "ContainersNotInitialized",
                          f"containers with incomplete status: {_go_list(incomplete)}")
    return _condition("Initialized", True)


def _with_transition(cond: Obj, old: Mapping[str, Any] | None, now: float) -> Obj:
    if old is not None and old.get("status") == cond["status"] and old.get("lastTransitionTime"):
        since = str(old["lastTransitionTime"])
    else:
        since = rfc3339(now)  # only a transition needs the time written out
    # No ``lastProbeTime: null``: the API drops nulls, and a status that
    # round-trips unchanged is what lets "write only when changed" hold.
    return {"type": cond["type"], "status": cond["status"], "lastTransitionTime": since,
            **{k: cond[k] for k in ("reason", "message") if k in cond}}


# --------------------------------------------------------------- the status


def pod_status(pod: Mapping[str, Any], *, sandbox: Sandbox | None,
               containers: Sequence[ContainerStatus], waiting: Waiting | None = None,
               runtime: str, host_ip: str, now: float, terminating: bool = False,
               ready: Mapping[str, bool] | None = None,
               started: Mapping[str, bool] | None = None) -> Obj:
    """The pod's whole ``status`` (see the module contract).

    ``terminating`` is for the final status of a pod whose containers were
    stopped for its deletion: nothing restarts any more, so it ends Succeeded
    (all exited 0) or Failed, as the kubelet reports since Kubernetes 1.27.
    ``ready``/``started`` give the readiness/startup probe outcome of a
    container's current instance by name (absent: no such probe, so True).
    """
    spec = pod.get("spec") or {}
    old = pod.get("status") or {}
    waiting = waiting or {}
    ready = ready or {}
    started = started or {}
    instances = group_instances(containers)
    init_specs = list(spec.get("initContainers") or [])
    default_reason = "PodInitializing" if init_specs else "ContainerCreating"

    def statuses(specs: Sequence[Mapping[str, Any]]) -> list[Obj]:
        return [_container_status(c, instances.get(str(c.get("name")), []),
                                  default_reason=default_reason,
                                  override=waiting.get(str(c.get("name"))), runtime=runtime,
                                  probed_ready=ready.get(str(c.get("name")), True),
                                  probed_started=started.get(str(c.get("name")), True))
                for c in specs]

    init = statuses(init_specs)
    apps = sorted(statuses(list(spec.get("containers") or [])), key=lambda s: str(s["name"]))
    phase = _phase(spec, init, apps, str(old.get("phase") or ""), terminating)

    old_conditions: dict[str, Obj] = {}
    for cond in old.get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type"):
            old_conditions[str(cond["type"])] = dict(cond)
    sandbox_ok = sandbox is not None and sandbox.state == SANDBOX_READY and bool(sandbox.ip)
    owned = [
        _condition("PodReadyToStartContainers", sandbox_ok),
        _initialized(init, apps, phase),
        _ready(spec, apps, phase, old_conditions),
        _readiness("ContainersReady", apps, phase),
    ]
    conditions = [_with_transition(c, old_conditions.get(c["type"]), now) for c in owned]
    scheduled = old_conditions.get("PodScheduled")
    conditions.append(scheduled if scheduled is not None else _with_transition(
        _condition("PodScheduled", True), None, now))
    conditions.extend(c for t, c in old_conditions.items() if t not in KUBELET_CONDITIONS)

    status: Obj = {"phase": phase, "conditions": conditions}
    for key in ("message", "reason", "nominatedNodeName"):
        if old.get(key):
            status[key] = old[key]
    if host_ip:
        status["hostIP"] = host_ip
        status["hostIPs"] = [{"ip": host_ip}]
    if sandbox is not None and sandbox.ip:
        status["podIP"] = sandbox.ip
        status["podIPs"] = [{"ip": sandbox.ip}]
    elif old.get("podIP"):
        status["podIP"] = old["podIP"]
        status["podIPs"] = old.get("podIPs") or [{"ip": old["podIP"]}]
    status["startTime"] = old.get("startTime") or rfc3339(now)
    if init_specs:
        status["initContainerStatuses"] = init
    status["containerStatuses"] = apps
    ephemeral = list(spec.get("ephemeralContainers") or [])
    if ephemeral:
        # Never ready: nothing may depend on a debugging container.
        status["ephemeralContainerStatuses"] = [{**st, "ready": False}
                                                for st in statuses(ephemeral)]
    status["qosClass"] = old.get("qosClass") or qos_class(pod)
    return status
