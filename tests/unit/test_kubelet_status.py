"""Pod status as a pure function of spec + runtime state (kubelet/status.py)."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.timefmt import format_time as rfc3339
from minikube_py.kubelet.status import group_instances, pod_status
from minikube_py.runtime.base import LABEL_RESTART_COUNT, ContainerStatus, Sandbox

NOW = 1_800_000_000.0
T0 = rfc3339(NOW)
SANDBOX = Sandbox("sb1", "10.88.0.2", "ready", {}, NOW - 10)


def pod(*, containers=("app",), init=(), restart="Always", status=None,
        gates=()) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": n, "image": f"img-{n}"} for n in containers],
        "restartPolicy": restart, "nodeName": "node-1"}
    if init:
        spec["initContainers"] = [{"name": n, "image": f"img-{n}"} for n in init]
    if gates:
        spec["readinessGates"] = [{"conditionType": g} for g in gates]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
            "spec": spec, "status": status or {"phase": "Pending", "qosClass": "BestEffort"}}


def ctr(name: str, state: str, *, exit_code: int | None = None, attempt: int = 0,
        cid: str | None = None, started: float | None = NOW - 5,
        finished: float | None = None) -> ContainerStatus:
    reason = ""
    if state == "exited":
        reason = "Completed" if exit_code == 0 else "Error"
        finished = finished if finished is not None else NOW - 1
    return ContainerStatus(
        id=cid or f"{name}-{attempt}", sandbox_id="sb1", name=name, image=f"img-{name}",
        image_id=f"sha256:{name}", state=state, exit_code=exit_code, reason=reason,
        created_at=NOW - 6 + attempt, started_at=started if state != "created" else None,
        finished_at=finished, labels={LABEL_RESTART_COUNT: str(attempt)})


def status_of(p, containers=(), sandbox=SANDBOX, waiting=None, now=NOW):
    return pod_status(p, sandbox=sandbox, containers=list(containers), waiting=waiting,
                      runtime="fake", host_ip="192.168.1.10", now=now)


def conditions(status) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c.get("reason", "")) for c in status["conditions"]}


# ------------------------------------------------------------------ phase table


@pytest.mark.parametrize(("restart", "init", "containers", "phase"), [
    ("Always", (), [], "Pending"),
    ("Always", (), [ctr("app", "created")], "Pending"),
    ("Always", (), [ctr("app", "running")], "Running"),
    ("Always", (), [ctr("app", "exited", exit_code=0)], "Running"),  # will restart
    ("Never", (), [ctr("app", "exited", exit_code=0)], "Succeeded"),
    ("Never", (), [ctr("app", "exited", exit_code=1)], "Failed"),
    ("OnFailure", (), [ctr("app", "exited", exit_code=0)], "Succeeded"),
    ("OnFailure", (), [ctr("app", "exited", exit_code=2)], "Running"),
    ("Always", ("init",), [], "Pending"),
    ("Always", ("init",), [ctr("init", "running")], "Pending"),
    ("Always", ("init",), [ctr("init", "exited", exit_code=0)], "Pending"),
    ("Never", ("init",), [ctr("init", "exited", exit_code=1)], "Failed"),
    ("Always", ("init",), [ctr("init", "exited", exit_code=1)], "Pending"),
    ("Always", ("init",), [ctr("init", "exited", exit_code=0), ctr("app", "running")],
     "Running"),
])
def test_phase(restart, init, containers, phase):
    assert status_of(pod(restart=restart, init=init), containers)["phase"] == phase


def test_phase_with_two_containers_one_running_one_done():
    p = pod(containers=("a", "b"), restart="Never")
    st = status_of(p, [ctr("a", "running"), ctr("b", "exited", exit_code=0)])
    assert st["phase"] == "Running"
    st = status_of(p, [ctr("a", "exited", exit_code=0), ctr("b", "exited", exit_code=3)])
    assert st["phase"] == "Failed"


@pytest.mark.parametrize(("restart", "code", "phase"), [("Always", 143, "Failed"),
                                                        ("Always", 0, "Succeeded"),
                                                        ("OnFailure", 1, "Failed")])
def test_final_status_of_a_deleted_pod_is_terminal(restart, code, phase):
    st = pod_status(pod(restart=restart), sandbox=None,
                    containers=[ctr("app", "exited", exit_code=code)], runtime="fake",
                    host_ip="h", now=NOW, terminating=True)
    assert st["phase"] == phase


def test_terminal_phase_is_sticky():
    p = pod(restart="Never", status={"phase": "Succeeded"})
    assert status_of(p, [], sandbox=None)["phase"] == "Succeeded"


# ------------------------------------------------------------------ container statuses


def test_running_container_status_fields():
    st = status_of(pod(), [ctr("app", "running", cid="abc")])
    [cs] = st["containerStatuses"]
    assert cs == {
        "name": "app", "state": {"running": {"startedAt": rfc3339(NOW - 5)}},
        "lastState": {}, "ready": True, "restartCount": 0, "image": "img-app",
        "imageID": "sha256:app", "containerID": "fake://abc", "started": True}
    assert st["hostIP"] == "192.168.1.10"
    assert st["hostIPs"] == [{"ip": "192.168.1.10"}]
    assert st["podIP"] == "10.88.0.2"
    assert st["podIPs"] == [{"ip": "10.88.0.2"}]
    assert st["startTime"] == T0
    assert st["qosClass"] == "BestEffort"
    assert "initContainerStatuses" not in st


@pytest.mark.parametrize(("code", "reason"), [(0, "Completed"), (1, "Error"), (137, "Error")])
def test_terminated_state(code, reason):
    st = status_of(pod(restart="Never"), [ctr("app", "exited", exit_code=code, cid="x")])
    [cs] = st["containerStatuses"]
    assert cs["state"] == {"terminated": {
        "exitCode": code, "reason": reason, "startedAt": rfc3339(NOW - 5),
        "finishedAt": rfc3339(NOW - 1), "containerID": "fake://x"}}
    assert cs["ready"] is False
    assert cs["started"] is False


@pytest.mark.parametrize(("init", "expected"), [((), "ContainerCreating"),
                                                (("i",), "PodInitializing")])
def test_default_waiting_reason(init, expected):
    st = status_of(pod(init=init), [])
    assert st["containerStatuses"][0]["state"] == {"waiting": {"reason": expected}}
    assert st["containerStatuses"][0]["imageID"] == ""
    assert "containerID" not in st["containerStatuses"][0]


@pytest.mark.parametrize("reason", ["ErrImagePull", "ErrImageNeverPull"])
def test_kubelet_waiting_reason_wins(reason):
    st = status_of(pod(), [], waiting={"app": (reason, "why")})
    assert st["containerStatuses"][0]["state"] == {"waiting": {"reason": reason,
                                                               "message": "why"}}
    assert st["phase"] == "Pending"


def test_crash_loop_back_off_shows_last_state_and_restart_count():
    containers = [ctr("app", "exited", exit_code=1, attempt=0),
                  ctr("app", "exited", exit_code=1, attempt=1, cid="second")]
    st = status_of(pod(), containers, waiting={"app": ("CrashLoopBackOff", "back-off 10s")})
    [cs] = st["containerStatuses"]
    assert cs["state"] == {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 10s"}}
    assert cs["lastState"]["terminated"]["exitCode"] == 1
    assert cs["lastState"]["terminated"]["containerID"] == "fake://second"
    assert cs["restartCount"] == 1
    assert st["phase"] == "Running"


def test_restarted_container_has_previous_as_last_state():
    containers = [ctr("app", "exited", exit_code=2, attempt=0, cid="old"),
                  ctr("app", "running", attempt=1, cid="new")]
    [cs] = status_of(pod(), containers)["containerStatuses"]
    assert cs["restartCount"] == 1
    assert "running" in cs["state"]
    assert cs["lastState"]["terminated"]["containerID"] == "fake://old"
    assert cs["containerID"] == "fake://new"


def test_app_statuses_sorted_by_name_and_init_in_spec_order():
    p = pod(containers=("zeta", "alpha"), init=("second", "first"))
    st = status_of(p, [])
    assert [c["name"] for c in st["containerStatuses"]] == ["alpha", "zeta"]
    assert [c["name"] for c in st["initContainerStatuses"]] == ["second", "first"]


def test_group_instances_orders_by_attempt():
    grouped = group_instances([ctr("a", "running", attempt=2), ctr("a", "exited", exit_code=0),
                               ctr("b", "running")])
    assert [restart for restart in (c.labels[LABEL_RESTART_COUNT] for c in grouped["a"])] == \
        ["0", "2"]


# ------------------------------------------------------------------ conditions


def test_conditions_of_a_running_pod_in_kubelet_order():
    scheduled = {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                 "lastTransitionTime": "2027-01-15T07:00:00Z"}
    p = pod(status={"phase": "Pending", "qosClass": "BestEffort", "conditions": [scheduled]})
    st = status_of(p, [ctr("app", "running")])
    assert [c["type"] for c in st["conditions"]] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    assert all(c["status"] == "True" for c in st["conditions"])
    assert st["conditions"][-1] == scheduled  # kept exactly as the scheduler wrote it
    assert st["conditions"][0]["lastTransitionTime"] == T0


@pytest.mark.parametrize(("p", "containers", "sandbox", "expected"), [
    (pod(), [], None, {"PodReadyToStartContainers": ("False", ""),
                       "Initialized": ("True", ""),
                       "Ready": ("False", "ContainersNotReady"),
                       "ContainersReady": ("False", "ContainersNotReady")}),
    (pod(init=("i1", "i2")), [ctr("i1", "exited", exit_code=0), ctr("i2", "running")], SANDBOX,
     {"PodReadyToStartContainers": ("True", ""),
      "Initialized": ("False", "ContainersNotInitialized"),
      "Ready": ("False", "ContainersNotReady")}),
    (pod(restart="Never"), [ctr("app", "exited", exit_code=0)], SANDBOX,
     {"Initialized": ("True", "PodCompleted"), "Ready": ("False", "PodCompleted"),
      "ContainersReady": ("False", "PodCompleted")}),
    (pod(restart="Never"), [ctr("app", "exited", exit_code=1)], SANDBOX,
     {"Ready": ("False", "PodFailed"), "ContainersReady": ("False", "PodFailed")}),
    (pod(gates=("example.com/gate",)), [ctr("app", "running")], SANDBOX,
     {"Ready": ("False", "ReadinessGatesNotReady"), "ContainersReady": ("True", "")}),
])
def test_condition_table(p, containers, sandbox, expected):
    got = conditions(status_of(p, containers, sandbox=sandbox))
    for type_, value in expected.items():
        assert got[type_] == value, type_


def test_condition_messages():
    p = pod(containers=("b", "a"), init=("i1", "i2"))
    st = status_of(p, [ctr("i1", "running")])
    by_type = {c["type"]: c for c in st["conditions"]}
    assert by_type["Initialized"]["message"] == "containers with incomplete status: [i1 i2]"
    assert by_type["Ready"]["message"] == "containers with unready status: [a b]"


def test_last_transition_time_kept_while_unchanged_and_moved_on_change():
    first = status_of(pod(), [ctr("app", "created")], now=NOW)
    later = NOW + 60
    p = pod(status=first)
    same = status_of(p, [ctr("app", "created")], now=later)
    assert same == first  # nothing changed: nothing to write
    changed = status_of(p, [ctr("app", "running")], now=later)
    by_type = {c["type"]: c for c in changed["conditions"]}
    assert by_type["Ready"]["lastTransitionTime"] == rfc3339(later)
    assert by_type["PodReadyToStartContainers"]["lastTransitionTime"] == T0
    assert changed["startTime"] == T0


def test_foreign_conditions_are_kept():
    other = {"type": "DisruptionTarget", "status": "True", "lastTransitionTime": T0}
    st = status_of(pod(status={"phase": "Running", "conditions": [other]}), [])
    assert st["conditions"][-1] == other


def test_pod_ip_kept_after_sandbox_is_gone():
    p = pod(restart="Never", status={"phase": "Succeeded", "podIP": "10.88.0.9",
                                     "podIPs": [{"ip": "10.88.0.9"}]})
    st = status_of(p, [], sandbox=None)
    assert st["podIP"] == "10.88.0.9"
    assert conditions(st)["PodReadyToStartContainers"] == ("False", "")


# ------------------------------------------------------------------ probes


@pytest.mark.parametrize(("ready", "started", "want_ready", "want_started", "condition"), [
    (None, None, True, True, "True"),             # no probes: running means ready
    ({"app": False}, None, False, True, "False"),  # readiness not passed yet
    ({"app": True}, {"app": False}, False, False, "False"),  # startup gates readiness
    ({"app": True}, {"app": True}, True, True, "True"),
])
def test_probe_outcomes_make_ready_and_started(ready, started, want_ready, want_started,
                                               condition):
    st = pod_status(pod(), sandbox=SANDBOX, containers=[ctr("app", "running")],
                    runtime="fake", host_ip="192.168.1.10", now=NOW, ready=ready,
                    started=started)
    [cs] = st["containerStatuses"]
    assert (cs["ready"], cs["started"]) == (want_ready, want_started)
    assert conditions(st)["Ready"][0] == condition
    assert conditions(st)["ContainersReady"][0] == condition


def test_instances_are_grouped_by_the_container_name_label():
    c = ctr("podman-name-of-app", "running")
    labelled = ContainerStatus(**{**{f: getattr(c, f) for f in c.__slots__},
                                  "labels": {**c.labels,
                                             "minikube-py.io/container-name": "app"}})
    assert list(group_instances([labelled])) == ["app"]
