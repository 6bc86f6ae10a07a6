"""Server-side Table printing: columns, cells, ages, includeObject, default table.

Expectations come from Kubernetes' own tests, translated from Go structs to v1
JSON: ``pkg/printers/internalversion/printers_test.go`` (TestPrintPod*,
TestPrintNode*, TestPrintEvent, TestPrintNamespace, TestPrintDeployment,
TestPrintReplicaSet, TestTranslateTimestampSince),
``apimachinery/pkg/util/duration/duration_test.go``, and the apiserver's
``endpoints/apiserver_test.go`` (TestGetTable) for the default table and
PartialObjectMetadata rows. A few extra rows follow printers.go's rules
directly (marked "printers.go rule").

The Go tests call the printers with ``Wide: false`` or ``Wide: true``. The API
server always prints wide and kubectl hides priority-1 columns, so a non-wide
Go expectation is compared with the priority-0 cells (:func:`visible`) and a
wide one with all cells.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest

from minikube_py.api.core.pod_table import pod_ready, pod_restarts, pod_status
from minikube_py.api.errors import BadRequest
from minikube_py.api.printers import age, human_duration, short_human_duration, table

NOW = 1_700_000_000.0
MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0
MS = 0.001
NS = 1e-9


def ts(offset: float) -> str:
    """The RFC 3339 timestamp ``offset`` seconds from NOW (negative = past)."""
    return datetime.fromtimestamp(NOW + offset, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rows(kind: str, objects: list[dict[str, Any]], **kw: Any) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = table(kind, objects, now=NOW, **kw)["rows"]
    return result


def visible(kind: str, obj: dict[str, Any]) -> list[Any]:
    """The cells kubectl shows without ``-o wide`` (priority-0 columns)."""
    t = table(kind, [obj], now=NOW)
    cells = t["rows"][0]["cells"]
    return [c for c, col in zip(cells, t["columnDefinitions"], strict=True)
            if col["priority"] == 0]


def wide(kind: str, obj: dict[str, Any]) -> list[Any]:
    cells: list[Any] = table(kind, [obj], now=NOW)["rows"][0]["cells"]
    return cells


# ------------------------------------------------------------------ durations

# duration_test.go TestHumanDuration
@pytest.mark.parametrize(("seconds", "want"), [
    (1, "1s"),
    (70, "70s"),
    (190, "3m10s"),
    (70 * MINUTE, "70m"),
    (47 * HOUR, "47h"),
    (49 * HOUR, "2d1h"),
    ((8 * 24 + 2) * HOUR, "8d"),
    (367 * 24 * HOUR, "367d"),
    ((365 * 2 * 24 + 25) * HOUR, "2y1d"),
    ((365 * 8 * 24 + 2) * HOUR, "8y"),
])
def test_human_duration(seconds: float, want: str) -> None:
    assert human_duration(seconds) == want


# duration_test.go TestHumanDurationBoundaries
@pytest.mark.parametrize(("seconds", "want"), [
    (-2, "<invalid>"),
    (-2 + NS, "0s"),
    (0, "0s"),
    (1 - MS, "0s"),
    (2 * MINUTE - MS, "119s"),
    (2 * MINUTE, "2m"),
    (2 * MINUTE + 1, "2m1s"),
    (10 * MINUTE - MS, "9m59s"),
    (10 * MINUTE, "10m"),
    (10 * MINUTE + 1, "10m"),
    (3 * HOUR - MS, "179m"),
    (3 * HOUR, "3h"),
    (3 * HOUR + MINUTE, "3h1m"),
    (8 * HOUR - MS, "7h59m"),
    (8 * HOUR, "8h"),
    (8 * HOUR + 59 * MINUTE, "8h"),
    (2 * 24 * HOUR - MS, "47h"),
    (2 * 24 * HOUR, "2d"),
    (2 * 24 * HOUR + HOUR, "2d1h"),
    (8 * 24 * HOUR - MS, "7d23h"),
    (8 * 24 * HOUR, "8d"),
    (8 * 24 * HOUR + 23 * HOUR, "8d"),
    (2 * 365 * 24 * HOUR - MS, "729d"),
    (2 * 365 * 24 * HOUR, "2y"),
    (2 * 365 * 24 * HOUR + 23 * HOUR, "2y"),
    (2 * 365 * 24 * HOUR + 23 * HOUR + 59 * MINUTE, "2y"),
    (2 * 365 * 24 * HOUR + 24 * HOUR - MS, "2y"),
    (2 * 365 * 24 * HOUR + 24 * HOUR, "2y1d"),
    (3 * 365 * 24 * HOUR, "3y"),
    (4 * 365 * 24 * HOUR, "4y"),
    (5 * 365 * 24 * HOUR, "5y"),
    (6 * 365 * 24 * HOUR, "6y"),
    (7 * 365 * 24 * HOUR, "7y"),
    (8 * 365 * 24 * HOUR - MS, "7y364d"),
    (8 * 365 * 24 * HOUR, "8y"),
    (8 * 365 * 24 * HOUR + 364 * 24 * HOUR, "8y"),
    (9 * 365 * 24 * HOUR, "9y"),
])
def test_human_duration_boundaries(seconds: float, want: str) -> None:
    assert human_duration(seconds) == want


# duration_test.go TestShortHumanDurationBoundaries
@pytest.mark.parametrize(("seconds", "want"), [
    (-2, "<invalid>"),
    (-2 + NS, "0s"),
    (0, "0s"),
    (1 - MS, "0s"),
    (1, "1s"),
    (2 - MS, "1s"),
    (MINUTE - MS, "59s"),
    (MINUTE, "1m"),
    (2 * MINUTE - MS, "1m"),
    (HOUR - MS, "59m"),
    (HOUR, "1h"),
    (2 * HOUR - MS, "1h"),
    (24 * HOUR - MS, "23h"),
    (24 * HOUR, "1d"),
    (2 * 24 * HOUR - MS, "1d"),
    (365 * 24 * HOUR - MS, "364d"),
    (365 * 24 * HOUR, "1y"),
    (2 * 365 * 24 * HOUR - MS, "1y"),
    (2 * 365 * 24 * HOUR, "2y"),
])
def test_short_human_duration_boundaries(seconds: float, want: str) -> None:
    assert short_human_duration(seconds) == want


# printers_test.go TestTranslateTimestampSince
@pytest.mark.parametrize(("timestamp", "want"), [
    (ts(2.1), "<invalid>"),          # a while from now
    (ts(1.9), "0s"),                 # almost now
    (ts(0), "0s"),                   # now
    (None, "<unknown>"),             # unknown (zero time)
    ("", "<unknown>"),
    ("0001-01-01T00:00:00Z", "<unknown>"),
    (ts(-30), "30s"),                # 3e10 ns ago
    (ts(-300), "5m"),                # 3e11 ns ago
    (ts(-6000), "100m"),             # 6e12 ns ago
    (ts(-2 * DAY), "2d"),
    (ts(-90 * DAY), "90d"),
    (ts(-10 * 365 * DAY), "10y"),
])
def test_age(timestamp: str | None, want: str) -> None:
    assert age(timestamp, now=NOW) == want


def test_age_accepts_whole_second_and_nanosecond_timestamps() -> None:
    # metav1.Time is whole seconds, MicroTime has 6 digits; RFC3339Nano parses too.
    assert age("2023-11-14T22:13:20Z", now=NOW) == "0s"            # == NOW
    assert age("2023-11-14T22:12:20.123456Z", now=NOW) == "59s"
    assert age("2023-11-14T22:12:20.123456789Z", now=NOW) == "59s"
    assert age("2023-11-14T23:13:20+01:00", now=NOW) == "0s"


# -------------------------------------------------------------------- pods

RUNNING: dict[str, Any] = {"running": {}}


def cs(*, ready: bool = False, restarts: int = 0, state: dict[str, Any] | None = None,
       finished: float | None = None, name: str = "", started: bool | None = None,
       ) -> dict[str, Any]:
    """A v1 ContainerStatus; ``finished`` is lastState.terminated.finishedAt
    as an offset from NOW."""
    status: dict[str, Any] = {"name": name, "ready": ready, "restartCount": restarts,
                              "state": state or {}}
    if finished is not None:
        status["lastState"] = {"terminated": {"finishedAt": ts(finished)}}
    if started is not None:
        status["started"] = started
    return status


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


def pod(name: str, *, containers: int = 0, init: int | list[dict[str, Any]] = 0,
        phase: str = "", reason: str = "", statuses: list[dict[str, Any]] | None = None,
        init_statuses: list[dict[str, Any]] | None = None,
        conditions: list[dict[str, Any]] | None = None, deleted: bool = False,
        **extra_status: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": ""} for _ in range(containers)]}
    if isinstance(init, int):
        if init:
            spec["initContainers"] = [{"name": ""} for _ in range(init)]
    else:
        spec["initContainers"] = init
    status: dict[str, Any] = {"phase": phase}
    if reason:
        status["reason"] = reason
    if statuses is not None:
        status["containerStatuses"] = statuses
    if init_statuses is not None:
        status["initContainerStatuses"] = init_statuses
    if conditions is not None:
        status["conditions"] = conditions
    status.update(extra_status)
    metadata: dict[str, Any] = {"name": name}
    if deleted:
        metadata["deletionTimestamp"] = ts(-10)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec,
            "status": status}


SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
              "message": "The pod has completed successfully."}]
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


# ------------------------------------------------------------------- nodes


def node(name: str, *, conditions: list[dict[str, Any]] | None = None,
         unschedulable: bool = False, labels: dict[str, str] | None = None,
         node_info: dict[str, str] | None = None,
         addresses: list[dict[str, str]] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if labels is not None:
        metadata["labels"] = labels
    status: dict[str, Any] = {}
    if conditions is not None:
        status["conditions"] = conditions
    if node_info is not None:
        status["nodeInfo"] = node_info
    if addresses is not None:
        status["addresses"] = addresses
    spec = {"unschedulable": True} if unschedulable else {}
    return {"apiVersion": "v1", "kind": "Node", "metadata": metadata, "spec": spec,
            "status": status}


READY = {"type": "Ready", "status": "True"}
NOT_READY = {"type": "Ready", "status": "False"}
EXT = {"type": "ExternalIP", "address": "1.1.1.1"}


# printers_test.go TestPrintNodeStatus, TestPrintNodeRole, TestPrintNodeName
@pytest.mark.parametrize(("obj", "want"), [
    (node("foo1", conditions=[READY]), ["foo1", "Ready", "<none>", "<unknown>", ""]),
    (node("foo2", conditions=[READY], unschedulable=True),
     ["foo2", "Ready,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (node("foo3", conditions=[READY, READY]), ["foo3", "Ready", "<none>", "<unknown>", ""]),
    (node("foo4", conditions=[NOT_READY]), ["foo4", "NotReady", "<none>", "<unknown>", ""]),
    (node("foo5", conditions=[NOT_READY], unschedulable=True),
     ["foo5", "NotReady,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (node("foo6", conditions=[{"type": "InvalidValue", "status": "True"}]),
     ["foo6", "Unknown", "<none>", "<unknown>", ""]),
    (node("foo7", conditions=[{}]), ["foo7", "Unknown", "<none>", "<unknown>", ""]),
    (node("foo8", conditions=[{"type": "InvalidValue", "status": "True"}], unschedulable=True),
     ["foo8", "Unknown,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (node("foo9", conditions=[{}], unschedulable=True),
     ["foo9", "Unknown,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (node("foo9"), ["foo9", "Unknown", "<none>", "<unknown>", ""]),
    (node("foo10", labels={"node-role.kubernetes.io/master": "",
                           "node-role.kubernetes.io/control-plane": "",
                           "node-role.kubernetes.io/proxy": "", "kubernetes.io/role": "node"}),
     ["foo10", "Unknown", "control-plane,master,node,proxy", "<unknown>", ""]),
    (node("foo11", labels={"kubernetes.io/role": "node"}),
     ["foo11", "Unknown", "node", "<unknown>", ""]),
    (node("127.0.0.1"), ["127.0.0.1", "Unknown", "<none>", "<unknown>", ""]),
    (node(""), ["", "Unknown", "<none>", "<unknown>", ""]),
])
def test_print_node(obj: dict[str, Any], want: list[Any]) -> None:
    assert visible("Node", obj) == want


# TestPrintNodeOSImage, TestPrintNodeKernelVersion, TestPrintNodeContainerRuntimeVersion,
# TestPrintNodeExternalIP, TestPrintNodeInternalIP (all Wide)
@pytest.mark.parametrize(("obj", "want"), [
    (node("foo1", node_info={"osImage": "fake-os-image"}, addresses=[EXT]),
     ["foo1", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "fake-os-image",
      "<unknown>", "<unknown>"]),
    (node("foo2", node_info={"kernelVersion": "fake-kernel-version"}, addresses=[EXT]),
     ["foo2", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "<unknown>",
      "fake-kernel-version", "<unknown>"]),
    (node("foo1", node_info={"containerRuntimeVersion": "foo://1.2.3"}, addresses=[EXT]),
     ["foo1", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "<unknown>",
      "<unknown>", "foo://1.2.3"]),
    (node("foo2", node_info={}, addresses=[EXT]),
     ["foo2", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "<unknown>",
      "<unknown>", "<unknown>"]),
    (node("foo1", addresses=[EXT]),
     ["foo1", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "<unknown>",
      "<unknown>", "<unknown>"]),
    (node("foo2", addresses=[{"type": "InternalIP", "address": "1.1.1.1"}]),
     ["foo2", "Unknown", "<none>", "<unknown>", "", "1.1.1.1", "<none>", "<unknown>",
      "<unknown>", "<unknown>"]),
    (node("foo3", addresses=[{"type": "ExternalIP", "address": "2.2.2.2"},
                             {"type": "InternalIP", "address": "3.3.3.3"},
                             {"type": "ExternalIP", "address": "4.4.4.4"}]),
     ["foo3", "Unknown", "<none>", "<unknown>", "", "3.3.3.3", "2.2.2.2", "<unknown>",
      "<unknown>", "<unknown>"]),
    (node("foo3", addresses=[{"type": "InternalIP", "address": "2.2.2.2"},
                             {"type": "ExternalIP", "address": "3.3.3.3"},
                             {"type": "InternalIP", "address": "4.4.4.4"}]),
     ["foo3", "Unknown", "<none>", "<unknown>", "", "2.2.2.2", "3.3.3.3", "<unknown>",
      "<unknown>", "<unknown>"]),
])
def test_print_node_wide(obj: dict[str, Any], want: list[Any]) -> None:
    assert wide("Node", obj) == want


# ------------------------------------------------------------------ events


def event(name: str, *, kind: str = "Deployment", obj_name: str = "Deployment Name",
          etype: str = "Warning", **fields: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
        "involvedObject": {"kind": kind, "name": obj_name, "fieldPath": "spec.containers{foo}"},
        "reason": "Event Reason", "message": "Message Data", "type": etype,
    }
    ev.update(fields)
    return ev


KUBELET_NODE1 = {"component": "kubelet", "host": "Node1"}


# printers_test.go TestPrintEvent
def test_print_event_basic() -> None:
    ev = event("event1", kind="Pod", obj_name="Pod Name", etype="Normal",
               source={"component": "kubelet"}, firstTimestamp=ts(-3 * DAY),
               lastTimestamp=ts(-2 * DAY), count=6)
    # Columns: Last Seen, Type, Reason, Object, Message
    assert visible("Event", ev) == ["2d", "Normal", "Event Reason", "pod/Pod Name",
                                    "Message Data"]


@pytest.mark.parametrize(("ev", "want"), [
    # Basic event; generate options=Wide
    (event("event2", source=KUBELET_NODE1, firstTimestamp=ts(-3 * DAY),
           lastTimestamp=ts(-2 * DAY), count=6),
     ["2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 6, "event2"]),
    # w/o FirstTimestamp
    (event("event3", source=KUBELET_NODE1, eventTime=ts(-3 * DAY),
           lastTimestamp=ts(-3 * DAY), count=1),
     ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 1, "event3"]),
    # w/o LastTimestamp
    (event("event4", source=KUBELET_NODE1, eventTime=ts(-3 * DAY),
           firstTimestamp=ts(-3 * DAY), count=1),
     ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 1, "event4"]),
    # w/o FirstTimestamp and LastTimestamp
    (event("event5", source=KUBELET_NODE1, eventTime=ts(-3 * DAY), count=1),
     ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 1, "event5"]),
    # event series, w/o FirstTimestamp, LastTimestamp and Count
    (event("event6", source=KUBELET_NODE1, eventTime=ts(-3 * DAY),
           series={"count": 2, "lastObservedTime": ts(-2 * DAY)}),
     ["2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 2, "event6"]),
    # singleton event, w/o FirstTimestamp, LastTimestamp and Count
    (event("event7", source=KUBELET_NODE1, eventTime=ts(-3 * DAY)),
     ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 1, "event7"]),
    # empty Source: reportingController (JSON reportingComponent) and reportingInstance
    (event("event2", reportingComponent="kubelet", reportingInstance="test",
           firstTimestamp=ts(-3 * DAY), lastTimestamp=ts(-2 * DAY), count=6),
     ["2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, test", "Message Data", "3d", 6, "event2"]),
])
def test_print_event_wide(ev: dict[str, Any], want: list[Any]) -> None:
    assert wide("Event", ev) == want


def test_print_event_rules() -> None:
    # printers.go rules: kind alone when the object has no name; message trimmed;
    # no timestamps at all -> <unknown>.
    ev = {"involvedObject": {"kind": "Node"}, "message": "  hello \n", "type": "Normal"}
    assert wide("Event", ev) == ["<unknown>", "Normal", "", "node", "", "", "hello",
                                 "<unknown>", 1, ""]


# -------------------------------------------------------------- namespaces


# printers_test.go TestPrintNamespace
@pytest.mark.parametrize(("obj", "want"), [
    ({"metadata": {"name": "namespace1", "creationTimestamp": ts(1.9)},
      "status": {"phase": "FooStatus"}},
     ["namespace1", "FooStatus", "0s"]),
    ({"metadata": {"name": "namespace2"}}, ["namespace2", "", "<unknown>"]),
])
def test_print_namespace(obj: dict[str, Any], want: list[Any]) -> None:
    assert wide("Namespace", obj) == want


# --------------------------------------------------------------- workloads

TEMPLATE = {"spec": {"containers": [{"name": "fake-container1", "image": "fake-image1"},
                                    {"name": "fake-container2", "image": "fake-image2"}]}}


def test_print_deployment() -> None:
    # printers_test.go TestPrintDeployment
    deploy = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "test1", "creationTimestamp": ts(1.9)},
        "spec": {"replicas": 5, "template": TEMPLATE,
                 "selector": {"matchLabels": {"foo": "bar"}}},
        "status": {"replicas": 10, "updatedReplicas": 2, "availableReplicas": 1,
                   "unavailableReplicas": 4},
    }
    # Columns: Name, ReadyReplicas, UpdatedReplicas, AvailableReplicas, Age
    assert visible("Deployment", deploy) == ["test1", "0/5", 2, 1, "0s"]
    # + Containers, Images, Selectors
    assert wide("Deployment", deploy) == [
        "test1", "0/5", 2, 1, "0s", "fake-container1,fake-container2",
        "fake-image1,fake-image2", "foo=bar"]


def test_print_replicaset() -> None:
    # printers_test.go TestPrintReplicaSet
    rs = {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "test1", "creationTimestamp": ts(1.9)},
        "spec": {"replicas": 5, "template": TEMPLATE,
                 "selector": {"matchLabels": {"foo": "bar"}}},
        "status": {"replicas": 5, "readyReplicas": 2},
    }
    # Columns: Name, Desired, Current, Ready, Age
    assert visible("ReplicaSet", rs) == ["test1", 5, 5, 2, "0s"]
    # + Containers, Images, Selector
    assert wide("ReplicaSet", rs) == [
        "test1", 5, 5, 2, "0s", "fake-container1,fake-container2", "fake-image1,fake-image2",
        "foo=bar"]


def test_workload_selectors() -> None:
    # Deployment prints LabelSelectorAsSelector(...).String() ("" when empty,
    # <invalid> on error); ReplicaSet prints metav1.FormatLabelSelector
    # (<none> when empty, <error> on error).
    expr = {"matchLabels": {"b": "2"}, "matchExpressions": [
        {"key": "a", "operator": "In", "values": ["y", "x"]},
        {"key": "c", "operator": "DoesNotExist"}]}
    bad = {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}
    for selector, deploy_cell, rs_cell in [
        (expr, "a in (x,y),b=2,!c", "a in (x,y),b=2,!c"),
        ({}, "", "<none>"),
        (bad, "<invalid>", "<error>"),
    ]:
        spec = {"replicas": 1, "selector": selector}
        assert wide("Deployment", {"spec": spec})[7] == deploy_cell
        assert wide("ReplicaSet", {"spec": spec})[7] == rs_cell


def test_workload_defaults_when_fields_are_missing() -> None:
    # A missing spec.replicas is the API default (1); missing status counts are 0.
    assert wide("Deployment", {"metadata": {"name": "d"}}) == [
        "d", "0/1", 0, 0, "<unknown>", "", "", ""]
    assert wide("ReplicaSet", {"metadata": {"name": "r"}}) == [
        "r", 1, 0, 0, "<unknown>", "", "", "<none>"]


# ------------------------------------------------------- column definitions

# (name, type, format, priority) from printers.go AddHandlers
COLUMNS = {
    "Pod": [("Name", "string", "name", 0), ("Ready", "string", "", 0),
            ("Status", "string", "", 0), ("Restarts", "string", "", 0),
            ("Age", "string", "", 0), ("IP", "string", "", 1), ("Node", "string", "", 1),
            ("Nominated Node", "string", "", 1), ("Readiness Gates", "string", "", 1)],
    "Node": [("Name", "string", "name", 0), ("Status", "string", "", 0),
             ("Roles", "string", "", 0), ("Age", "string", "", 0),
             ("Version", "string", "", 0), ("Internal-IP", "string", "", 1),
             ("External-IP", "string", "", 1), ("OS-Image", "string", "", 1),
             ("Kernel-Version", "string", "", 1), ("Container-Runtime", "string", "", 1)],
    "Namespace": [("Name", "string", "name", 0), ("Status", "string", "", 0),
                  ("Age", "string", "", 0)],
    "Event": [("Last Seen", "string", "", 0), ("Type", "string", "", 0),
              ("Reason", "string", "", 0), ("Object", "string", "", 0),
              ("Subobject", "string", "", 1), ("Source", "string", "", 1),
              ("Message", "string", "", 0), ("First Seen", "string", "", 1),
              ("Count", "string", "", 1), ("Name", "string", "name", 1)],
    "Deployment": [("Name", "string", "name", 0), ("Ready", "string", "", 0),
                   ("Up-to-date", "string", "", 0), ("Available", "string", "", 0),
                   ("Age", "string", "", 0), ("Containers", "string", "", 1),
                   ("Images", "string", "", 1), ("Selector", "string", "", 1)],
    "ReplicaSet": [("Name", "string", "name", 0), ("Desired", "integer", "", 0),
                   ("Current", "integer", "", 0), ("Ready", "integer", "", 0),
                   ("Age", "string", "", 0), ("Containers", "string", "", 1),
                   ("Images", "string", "", 1), ("Selector", "string", "", 1)],
    "ConfigMap": [("Name", "string", "name", 0), ("Data", "string", "", 0),
                  ("Age", "string", "", 0)],
    # apiserver defaultTableConvertor, for a kind with no printer
    "Widget": [("Name", "string", "name", 0), ("Created At", "date", "", 0)],
}


@pytest.mark.parametrize("kind", sorted(COLUMNS))
def test_column_definitions(kind: str) -> None:
    t = table(kind, [], now=NOW)
    got = [(c["name"], c["type"], c["format"], c["priority"]) for c in t["columnDefinitions"]]
    assert got == COLUMNS[kind]
    for column in t["columnDefinitions"]:
        assert set(column) == {"name", "type", "format", "description", "priority"}
        assert column["description"]
    assert t["rows"] == []


def test_column_descriptions() -> None:
    pods = {c["name"]: c["description"] for c in table("Pod", [], now=NOW)["columnDefinitions"]}
    assert pods["Ready"] == "The aggregate readiness state of this pod for accepting traffic."
    assert pods["Status"] == "The aggregate status of the containers in this pod."
    assert pods["Restarts"] == (
        "The number of times the containers in this pod have been restarted and when the last "
        "container in this pod has restarted.")
    assert pods["Name"].startswith("Name must be unique within a namespace.")
    assert pods["Age"].startswith("CreationTimestamp is a timestamp representing the server time")
    nodes = {c["name"]: c["description"] for c in table("Node", [], now=NOW)["columnDefinitions"]}
    assert nodes["Status"] == "The status of the node"
    assert nodes["Roles"] == "The roles of the node"
    ns = table("Namespace", [], now=NOW)["columnDefinitions"]
    assert ns[1]["description"] == "The status of the namespace"
    deploy = table("Deployment", [], now=NOW)["columnDefinitions"]
    assert deploy[1]["description"] == "Number of the pod with ready state"
    assert deploy[5]["description"] == "Names of each container in the template."
    assert deploy[6]["description"] == "Images referenced by each container in the template."


# ------------------------------------------------------------ table shape


def test_table_envelope_and_metadata() -> None:
    t = table("Namespace", [], now=NOW, resource_version="10")
    assert t == {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                 "metadata": {"resourceVersion": "10"},
                 "columnDefinitions": t["columnDefinitions"], "rows": []}
    t = table("Namespace", [], now=NOW, resource_version="7", continue_token="abc")
    assert t["metadata"] == {"resourceVersion": "7", "continue": "abc"}
    # Empty ListMeta fields are omitted, as Go's omitempty does.
    assert table("Namespace", [], now=NOW, continue_token="")["metadata"] == {}


def _simple() -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "foo1", "namespace": "ns1", "resourceVersion": "10",
                         "creationTimestamp": "2023-11-14T22:13:20Z", "uid": "abcdef0123"},
            "data": {"a": "b"}}


def test_default_table_for_other_kinds() -> None:
    # apiserver_test.go TestGetTable: cells are name and creationTimestamp in UTC RFC3339.
    obj = _simple()
    obj["metadata"]["creationTimestamp"] = "2023-11-15T00:13:20.5+02:00"
    t = table("Widget", [obj], now=NOW, resource_version="10")
    assert t["metadata"] == {"resourceVersion": "10"}
    assert t["rows"] == [{
        "cells": ["foo1", "2023-11-14T22:13:20Z"],
        "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                   "metadata": obj["metadata"]},
    }]
    # A missing timestamp prints Go's zero time.
    assert table("Widget", [{"metadata": {"name": "w"}}], now=NOW)["rows"][0]["cells"] == [
        "w", "0001-01-01T00:00:00Z"]


@pytest.mark.parametrize(("mode", "expected"), [
    ("Metadata", "partial"),
    ("", "partial"),            # the apiserver treats an empty includeObject as Metadata
    ("Object", "object"),
    ("None", None),
])
def test_include_object(mode: str, expected: str | None) -> None:
    obj = pod("p", containers=1, phase="Running")
    row = rows("Pod", [obj], include_object=mode)[0]
    if expected == "partial":
        assert row["object"] == {"kind": "PartialObjectMetadata",
                                 "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}
    elif expected == "object":
        assert row["object"] is obj
    else:
        assert "object" in row and row["object"] is None


def test_include_object_default_is_metadata() -> None:
    row = table("Widget", [_simple()], now=NOW)["rows"][0]
    assert row["object"]["kind"] == "PartialObjectMetadata"


def test_include_object_rejects_unknown_values() -> None:
    with pytest.raises(BadRequest) as err:
        table("Pod", [], now=NOW, include_object="Everything")
    assert str(err.value) == 'unrecognized includeObject value: "Everything"'


def test_row_conditions_are_fresh_copies() -> None:
    obj = pod("p", containers=1, phase="Succeeded")
    first = rows("Pod", [obj])[0]
    first["conditions"][0]["reason"] = "mutated"
    assert rows("Pod", [obj])[0]["conditions"] == SUCCEEDED


def test_thousand_pods_render_quickly() -> None:
    pods = []
    for i in range(1000):
        obj = pod(f"p{i}", containers=2, phase="Running", statuses=[
            cs(ready=True, restarts=i % 4, state=RUNNING, finished=-float(i)),
            cs(ready=True, state=RUNNING)],
            conditions=[{"type": "Ready", "status": "True"}], podIP=f"10.0.{i // 250}.{i % 250}")
        obj["metadata"]["creationTimestamp"] = ts(-HOUR - i)
        obj["spec"]["nodeName"] = "minikube"
        pods.append(obj)
    start = time.thread_time()  # CPU time, so a loaded machine does not fail it
    t = table("Pod", pods, now=NOW)
    elapsed = time.thread_time() - start
    assert len(t["rows"]) == 1000
    assert t["rows"][0]["cells"][:3] == ["p0", "2/2", "Running"]
    assert elapsed < 1.0
