"""Scheduling decisions outlive the control plane: after a clean stop and after
``kill -9`` the restarted daemon still explains every pod, and a pod's
records go with the pod (deleted through the API, or while the daemon was
being killed)."""

from __future__ import annotations

import json
import signal
import textwrap
from pathlib import Path

import pytest

from minikube_py.controlplane import DECISION_FILE
from minikube_py.scheduler.decision_file import DecisionFile
from minikube_py.store.store import Store
from tests.waiting import wait_for

from .conftest import Daemon, start_daemon, stop_daemon

pytestmark = pytest.mark.e2e

NODES = textwrap.dedent("""\
    nodes:
      - {name: node-a, cpu: "1", memory: 2Gi}
      - {name: node-b, cpu: "1", memory: 2Gi}
      - name: node-gpu
        cpu: "1"
        memory: 2Gi
        taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
    """)


def pod(name: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: v1
        kind: Pod
        metadata: {{name: {name}}}
        spec:
          terminationGracePeriodSeconds: 0
          containers:
          - name: c
            image: localhost/minikube-py/busybox:1.35
            resources: {{requests: {{cpu: 100m}}}}
        """)


def scheduled(d: Daemon, name: str) -> str:
    return wait_for(lambda: json.loads(d.kubectl("get", "pod", name, "-o", "json").stdout)
                    ["spec"].get("nodeName"), f"{name} scheduled")


def explained(d: Daemon, name: str) -> str:
    return d.cli("explain", "pod", name).stdout


def uids_in_file(state: Path) -> set[str]:
    """The pods the decision file still holds decisions for (as a restart reads it)."""
    decisions, _ = DecisionFile(state / DECISION_FILE).load()
    return {d.pod_uid for d in decisions}


def test_explain_answers_after_a_restart_and_after_kill_9(tmp_path: Path):
    config = tmp_path / "nodes.yaml"
    config.write_text(NODES)
    state = tmp_path / "state"
    args = ("--config", str(config))
    d = start_daemon(state, *args)
    try:
        for name in ("first", "second"):
            d.kubectl("apply", "-f", "-", input=pod(name))
        before = {name: explained(d, name) for name in ("first", "second")}
        for name, text in before.items():
            assert f"Scheduled -> {scheduled(d, name)}" in text
            assert "untolerated taint {dedicated: gpu}" in text
        second_uid = json.loads(d.kubectl("get", "pod", "second", "-o", "json").stdout)[
            "metadata"]["uid"]
    finally:
        assert stop_daemon(d) == 0

    d = start_daemon(state, *args)
    try:
        # A clean restart: the same records, word for word.
        assert {name: explained(d, name) for name in before} == before
        d.kubectl("apply", "-f", "-", input=pod("third"))
        scheduled(d, "third")
        third = explained(d, "third")
        assert "Scheduled -> node-" in third
        # Deleted through the API: its records go with it.
        d.kubectl("delete", "pod", "second")
        wait_for(lambda: second_uid not in uids_in_file(state), "second's records removed")
    finally:
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait(timeout=10)

    d = start_daemon(state, *args)
    try:
        assert explained(d, "first") == before["first"]
        assert explained(d, "third") == third
        raw = d.kubectl("get", "--raw", "/debug/scheduler/decisions/default/second").stdout
        assert json.loads(raw)["decisions"] == []
    finally:
        assert stop_daemon(d) == 0


def test_a_pod_deleted_before_its_removal_was_written_is_dropped_on_start(tmp_path: Path):
    """kill -9 can land between a pod's deletion and the scheduler's note of it;
    the restarted scheduler drops the records of pods that no longer exist."""
    config = tmp_path / "nodes.yaml"
    config.write_text(NODES)
    state = tmp_path / "state"
    d = start_daemon(state, "--config", str(config))
    try:
        d.kubectl("apply", "-f", "-", input=pod("doomed"))
        scheduled(d, "doomed")
        uid = json.loads(d.kubectl("get", "pod", "doomed", "-o", "json").stdout)[
            "metadata"]["uid"]
    finally:
        assert stop_daemon(d) == 0
    assert uid in uids_in_file(state)
    # The pod goes while the scheduler is not there to see it: straight from the
    # store, as if the daemon had died right after the deletion committed.
    store = Store(state)
    store.delete("pods", "default", "doomed", grace_period_seconds=0)
    store.close()
    d = start_daemon(state, "--config", str(config))
    try:
        wait_for(lambda: uid not in uids_in_file(state), "the records of the deleted pod dropped")
        assert any("those of 1 pod(s) deleted meanwhile dropped" in line for line in d.log), \
            "".join(d.log[-20:])
    finally:
        assert stop_daemon(d) == 0
