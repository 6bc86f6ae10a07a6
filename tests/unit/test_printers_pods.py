"""Server-side Table printing of Pods: columns, cells, status rules.

Expectations come from Kubernetes' own tests, translated from Go structs to v1
JSON: ``pkg/printers/internalversion/printers_test.go`` (TestPrintPod*). A few
extra rows follow printers.go's rules directly (marked "printers.go rule").

The Go tests call the printers with ``Wide: false`` or ``Wide: true``. The API
server always prints wide and kubectl hides priority-1 columns, so a non-wide
Go expectation is compared with the priority-0 cells (:func:`visible`) and a
wide one with all cells.
"""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.core.pod_table import pod_ready, pod_restarts, pod_status

from .printers_helpers import (
    DAY,
    HOUR,
    MINUTE,
    NOW,
    RUNNING,
    SUCCEEDED,
    cs,
    pod,
    rows,
    ts,
    visible,
    wide,
)

# -------------------------------------------------------------------- pods


def waiting(reason: str = "") -> dict[str, Any]:
    return {"waiting": {"reason": reason} if reason else {}}


def terminated(reason: str = "", exit_code: int = 0, signal: int = 0) -> dict[str, Any]:
    term: dict[str, Any] = {}
    if reason:
        term["reason"] = reason
    if exit_code:
        term["exitCode"] = exit_code
    if signal:
        term["signal"] = signal
    return {"terminated": term}
FAILED = [{"type": "Completed", "status": "True", "reason": "Failed",
           "message": "The pod failed."}]

# printers_test.go TestPrintPod
PRINT_POD_CASES: list[tuple[dict[str, Any], list[Any], list[dict[str, str]] | None]] = [
    # name, num of containers, restarts, container ready status
    (pod("test1", containers=2, phase="podPhase", statuses=[
        cs(ready=True, restarts=3, state=RUNNING), cs(restarts=3)]),
     ["test1", "1/2", "podPhase", "6", "<unknown>"], None),
    # container error overwrites pod phase
    (pod("test2", containers=2, phase="podPhase", statuses=[
        cs(ready=True, restarts=3, state=RUNNING),
        cs(restarts=3, state=waiting("ContainerWaitingReason"))]),
     ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>"], None),
    # the same with Terminated state; the first container overwrites the rest
    (pod("test3", containers=2, phase="podPhase", statuses=[
        cs(restarts=3, state=waiting("ContainerWaitingReason")),
        cs(restarts=3, state=terminated("ContainerTerminatedReason"))]),
     ["test3", "0/2", "ContainerWaitingReason", "6", "<unknown>"], None),
    # ready is not enough for reporting running
    (pod("test4", containers=2, phase="podPhase", statuses=[
        cs(ready=True, restarts=3, state=RUNNING), cs(ready=True, restarts=3)]),
     ["test4", "1/2", "podPhase", "6", "<unknown>"], None),
    (pod("test5", containers=2, phase="podPhase", reason="podReason", statuses=[
        cs(ready=True, restarts=3, state=RUNNING), cs(ready=True, restarts=3)]),
     ["test5", "1/2", "podReason", "6", "<unknown>"], None),
    # one running, one completed, no ready condition
    (pod("test6", containers=2, phase="Running", statuses=[
        cs(ready=True, restarts=3, state=terminated("Completed")),
        cs(ready=True, restarts=3, state=RUNNING)]),
     ["test6", "1/2", "NotReady", "6", "<unknown>"], None),
    # one running, one completed, with ready condition
    (pod("test6", containers=2, phase="Running", statuses=[
        cs(ready=True, restarts=3, state=terminated("Completed")),
        cs(ready=True, restarts=3, state=RUNNING)],
        conditions=[{"type": "Ready", "status": "True", "lastProbeTime": ts(0)}]),
     ["test6", "1/2", "Running", "6", "<unknown>"], None),
    # 1 init container restarting and 1 container not running
    (pod("test7", containers=1, init=1, phase="podPhase",
         init_statuses=[cs(restarts=3, state=RUNNING, finished=-10)],
         statuses=[cs(state=waiting())]),
     ["test7", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"], None),
    # 2 init containers, one restarting and the other not running
    (pod("test8", containers=1, init=2, phase="podPhase",
         init_statuses=[cs(restarts=3, state=RUNNING, finished=-10), cs(state=waiting())],
         statuses=[cs(state=waiting())]),
     ["test8", "0/1", "Init:0/2", "3 (10s ago)", "<unknown>"], None),
    # 2 init containers, one completed without restarts and the other restarting
    (pod("test9", containers=1, init=2, phase="podPhase",
         init_statuses=[cs(state=terminated()), cs(restarts=3, state=RUNNING, finished=-10)],
         statuses=[cs(state=waiting())]),
     ["test9", "0/1", "Init:1/2", "3 (10s ago)", "<unknown>"], None),
    # 2 init containers, one completed with restarts and the other restarting
    (pod("test10", containers=1, init=2, phase="podPhase",
         init_statuses=[cs(restarts=2, state=terminated(), finished=-2 * MINUTE),
                        cs(restarts=3, state=RUNNING, finished=-10)],
         statuses=[cs(state=waiting())]),
     ["test10", "0/1", "Init:1/2", "5 (10s ago)", "<unknown>"], None),
    # 1 init container completed with restarts and one container restarting
    (pod("test11", containers=1, init=1, phase="Running",
         init_statuses=[cs(restarts=2, state=terminated(), finished=-2 * MINUTE)],
         statuses=[cs(restarts=4, state=RUNNING, finished=-20)]),
     ["test11", "0/1", "Running", "4 (20s ago)", "<unknown>"], None),
    # 1 container that restarted 5d ago
    (pod("test12", containers=1, phase="Running",
         statuses=[cs(ready=True, restarts=3, state=RUNNING, finished=-5 * DAY)]),
     ["test12", "1/1", "Running", "3 (5d ago)", "<unknown>"], None),
    # one never restarted, the other restarted 10d ago
    (pod("test13", containers=2, phase="Running", statuses=[
        cs(ready=True, state=RUNNING),
        cs(ready=True, restarts=3, state=RUNNING, finished=-10 * DAY)]),
     ["test13", "2/2", "Running", "3 (10d ago)", "<unknown>"], None),
    # one restarted 5d ago, the other 20d ago
    (pod("test14", containers=2, phase="Running", statuses=[
        cs(ready=True, restarts=6, state=RUNNING, finished=-5 * DAY),
        cs(ready=True, restarts=3, state=RUNNING, finished=-20 * DAY)]),
     ["test14", "2/2", "Running", "9 (5d ago)", "<unknown>"], None),
    # PodScheduled condition with reason SchedulingGated
    (pod("test15", containers=2, phase="podPhase", conditions=[
        {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]),
     ["test15", "0/2", "SchedulingGated", "0", "<unknown>"], None),
    # pod condition succeed
    (pod("test16", containers=1, phase="Succeeded",
         statuses=[cs(state=terminated("Completed"))]),
     ["test16", "0/1", "Completed", "0", "<unknown>"], SUCCEEDED),
    # pod condition failed
    (pod("test17", containers=1, phase="Failed",
         statuses=[cs(state=terminated("Error", exit_code=1))]),
     ["test17", "0/1", "Error", "0", "<unknown>"], FAILED),
    # pod condition succeed with deletion
    (pod("test18", containers=1, phase="Succeeded", deleted=True,
         statuses=[cs(state=terminated("Completed"))]),
     ["test18", "0/1", "Completed", "0", "<unknown>"], SUCCEEDED),
    # pod condition running with deletion
    (pod("test19", containers=1, phase="Running", deleted=True,
         statuses=[cs(state=RUNNING)]),
     ["test19", "0/1", "Terminating", "0", "<unknown>"], None),
    # pod condition pending with deletion
    (pod("test20", containers=1, phase="Pending", deleted=True),
     ["test20", "0/1", "Terminating", "0", "<unknown>"], None),
]


def _with_containers(obj: dict[str, Any], containers: list[dict[str, Any]]) -> dict[str, Any]:
    obj["spec"]["containers"] = containers
    return obj


def _sidecars(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "restartPolicy": "Always"} for n in names]


# printers_test.go TestPrintPodWithRestartableInitContainer
RESTARTABLE_INIT_CASES: list[tuple[dict[str, Any], list[Any], list[dict[str, str]] | None]] = [
    # 2 restartable init containers, the first one running but not started
    (pod("test1", containers=1, init=_sidecars("restartable-init-1", "restartable-init-2"),
         phase="Pending",
         init_statuses=[
             cs(name="restartable-init-1", restarts=3, state=RUNNING, started=False,
                finished=-10),
             cs(name="restartable-init-2", state=waiting(), started=False)],
         statuses=[cs(state=waiting())],
         conditions=[{"type": "Initialized", "status": "False"}]),
     ["test1", "0/3", "Init:0/2", "3 (10s ago)", "<unknown>"], None),
    # the first one started and the second one running but not started
    (pod("test1", containers=1, init=_sidecars("restartable-init-1", "restartable-init-2"),
         phase="Pending",
         init_statuses=[
             cs(name="restartable-init-1", restarts=3, state=RUNNING, started=True,
                finished=-10),
             cs(name="restartable-init-2", state=RUNNING, started=False)],
         statuses=[cs(state=waiting())],
         conditions=[{"type": "Initialized", "status": "False"}]),
     ["test1", "0/3", "Init:1/2", "3 (10s ago)", "<unknown>"], None),
    # 2 restartable init containers started and 1 container running
    (pod("test2", containers=1, init=_sidecars("restartable-init-1", "restartable-init-2"),
         phase="Running",
         init_statuses=[
             cs(name="restartable-init-1", restarts=3, state=RUNNING, started=True,
                finished=-10),
             cs(name="restartable-init-2", state=RUNNING, started=True)],
         statuses=[cs(ready=True, restarts=4, state=RUNNING, finished=-20)],
         conditions=[{"type": "Initialized", "status": "True"}]),
     ["test2", "1/3", "Running", "7 (10s ago)", "<unknown>"], None),
    # 2 restartable init containers completed with non-zero and 1 container completed
    (pod("test3", containers=1, init=_sidecars("restartable-init-1", "restartable-init-2"),
         phase="Succeeded",
         init_statuses=[
             cs(name="restartable-init-1", restarts=3,
                state=terminated("Error", exit_code=137), started=False, finished=-10),
             cs(name="restartable-init-2", state=terminated("Error", exit_code=137),
                started=False)],
         statuses=[cs(restarts=4, state=terminated("Completed"), finished=-20)],
         conditions=[{"type": "Initialized", "status": "True"}]),
     ["test3", "0/3", "Completed", "7 (10s ago)", "<unknown>"], SUCCEEDED),
    # container statuses for non-existent initContainers and containers
    (_with_containers(
        pod("test4", phase="Running",
            init=[{"name": "init1", "image": "initimage"},
                  {"name": "sidecar1", "image": "sidecarimage", "restartPolicy": "Always"}],
            init_statuses=[{"name": "initinvalid"}, {"name": "init1"}, {"name": "sidecar1"}],
            statuses=[{"name": "containerinvalid"}, {"name": "container1"}]),
        [{"name": "container1", "image": "containerimage"}]),
     ["test4", "0/2", "Init:0/2", "0", "<unknown>"], None),
]

# printers_test.go TestPrintPodConditions and TestPrintNonTerminatedPod
_TWO = [cs(ready=True, restarts=3, state=RUNNING), cs(restarts=3)]
PHASE_CASES: list[tuple[dict[str, Any], list[Any], list[dict[str, str]] | None]] = [
    (pod("test1", containers=2, phase="Running", statuses=_TWO),
     ["test1", "1/2", "Running", "6", "<unknown>"], None),
    (pod("test1", containers=2, phase="Succeeded", statuses=_TWO),
     ["test1", "1/2", "Succeeded", "6", "<unknown>"], SUCCEEDED),
    (pod("test2", containers=2, phase="Failed", statuses=_TWO),
     ["test2", "1/2", "Failed", "6", "<unknown>"], FAILED),
    (pod("test2", containers=2, phase="Pending", statuses=_TWO),
     ["test2", "1/2", "Pending", "6", "<unknown>"], None),
    (pod("test3", containers=2, phase="Unknown", statuses=_TWO),
     ["test3", "1/2", "Unknown", "6", "<unknown>"], None),
    (pod("test5", containers=2, phase="Failed",
         statuses=[cs(ready=True, restarts=3, state=RUNNING), cs(ready=True, restarts=3)]),
     ["test5", "1/2", "Failed", "6", "<unknown>"], FAILED),
]


@pytest.mark.parametrize(("obj", "want", "conditions"),
                         PRINT_POD_CASES + RESTARTABLE_INIT_CASES + PHASE_CASES)
def test_print_pod(obj: dict[str, Any], want: list[Any],
                   conditions: list[dict[str, str]] | None) -> None:
    assert visible("Pod", obj) == want
    row = rows("Pod", [obj])[0]
    assert row.get("conditions") == conditions
    # The helpers agree with the table.
    assert pod_ready(obj) == want[1]
    assert pod_status(obj, now=NOW) == want[2]
    assert pod_restarts(obj, now=NOW) == want[3]


# printers_test.go TestPrintPodwide
def _gated(**kw: Any) -> dict[str, Any]:
    obj = pod("test1", containers=2, phase="podPhase", statuses=_TWO,
              conditions=[{"type": "condition1", "status": "False"},
                          {"type": "condition2", "status": "True"}],
              nominatedNodeName="node1", **kw)
    obj["spec"]["nodeName"] = "test1"
    obj["spec"]["readinessGates"] = [{"conditionType": f"condition{i}"} for i in (1, 2, 3)]
    return obj


@pytest.mark.parametrize(("obj", "want"), [
    (_gated(podIPs=[{"ip": "1.1.1.1"}]),
     ["test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"]),
    (_gated(podIP="1.1.1.1", podIPs=[{"ip": "1.1.1.1"}, {"ip": "2001:db8::"}]),
     ["test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"]),
    (pod("test2", containers=2, phase="podPhase", statuses=[
        cs(ready=True, restarts=3, state=RUNNING),
        cs(restarts=3, state=waiting("ContainerWaitingReason"))]),
     ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>", "<none>", "<none>", "<none>",
      "<none>"]),
])
def test_print_pod_wide(obj: dict[str, Any], want: list[Any]) -> None:
    assert wide("Pod", obj) == want


def test_print_pod_list() -> None:
    # printers_test.go TestPrintPodList
    pods = [
        pod("test1", containers=2, phase="podPhase", statuses=[
            cs(ready=True, restarts=3, state=RUNNING), cs(ready=True, restarts=3, state=RUNNING)]),
        pod("test2", containers=1, phase="podPhase",
            statuses=[cs(ready=True, restarts=1, state=RUNNING)]),
    ]
    got = [r["cells"][:5] for r in rows("Pod", pods)]
    assert got == [["test1", "2/2", "podPhase", "6", "<unknown>"],
                   ["test2", "1/1", "podPhase", "1", "<unknown>"]]


@pytest.mark.parametrize(("obj", "want"), [
    # printers.go rule: an init container waiting with a reason shows Init:<reason>
    (pod("p", containers=1, init=1, phase="Pending",
         init_statuses=[cs(restarts=5, state=waiting("CrashLoopBackOff"), finished=-30)]),
     "Init:CrashLoopBackOff"),
    # ... but PodInitializing is progress, not a reason
    (pod("p", containers=1, init=2, phase="Pending",
         init_statuses=[cs(state=terminated()), cs(state=waiting("PodInitializing"))]),
     "Init:1/2"),
    # printers.go rule: a failed init container without reason -> Init:Signal / Init:ExitCode
    (pod("p", containers=1, init=1, phase="Pending",
         init_statuses=[cs(state=terminated(exit_code=2, signal=9))]),
     "Init:Signal:9"),
    (pod("p", containers=1, init=1, phase="Pending",
         init_statuses=[cs(state=terminated(exit_code=2))]),
     "Init:ExitCode:2"),
    (pod("p", containers=1, init=1, phase="Pending",
         init_statuses=[cs(state=terminated("Error", exit_code=1))]),
     "Init:Error"),
    # printers.go rule: terminated containers without reason -> Signal:N / ExitCode:N
    (pod("p", containers=1, phase="Running",
         statuses=[cs(state=terminated(exit_code=137, signal=9))]), "Signal:9"),
    (pod("p", containers=1, phase="Running",
         statuses=[cs(state=terminated(exit_code=3))]), "ExitCode:3"),
    (pod("p", containers=1, phase="Running",
         statuses=[cs(state=waiting("ImagePullBackOff"))]), "ImagePullBackOff"),
    # printers.go rule: deleted pod whose node was lost -> Unknown
    (pod("p", containers=1, phase="Running", reason="NodeLost", deleted=True,
         statuses=[cs(state=RUNNING)]), "Unknown"),
    (pod("p", containers=1, phase="Failed", deleted=True,
         statuses=[cs(state=terminated("Error", exit_code=1))]), "Error"),
])
def test_pod_status_rules(obj: dict[str, Any], want: str) -> None:
    assert pod_status(obj, now=NOW) == want


def test_pod_restarts_without_termination_time_has_no_ago() -> None:
    # restarts != 0 but lastRestartDate is zero -> the bare count (TestPrintPod test1).
    obj = pod("p", containers=1, phase="Running", statuses=[cs(restarts=3, state=RUNNING)])
    assert pod_restarts(obj, now=NOW) == "3"


def test_pod_age_and_missing_fields() -> None:
    obj = pod("p", containers=1, phase="Running")
    obj["metadata"]["creationTimestamp"] = ts(-3 * HOUR - 5 * MINUTE)
    assert visible("Pod", obj) == ["p", "0/1", "Running", "0", "3h5m"]
    # A bare object prints Go's zero values.
    assert wide("Pod", {}) == ["", "0/0", "", "0", "<unknown>", "<none>", "<none>", "<none>",
                               "<none>"]
