"""Probes (kubelet/probes.py): handlers, then liveness/readiness/startup behaviour."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from minikube_py.kubelet.probes import ProbeSpec, Result, run_handler
from minikube_py.runtime import ContainerConfig, FakeRuntime, SandboxConfig
from tests.waiting import wait_for, wait_for_quietly

from .conftest import (
    condition,
    container_status,
    create_pod,
    event_messages,
    get_pod,
    pod_in_phase,
)


class Server:
    """A local HTTP server whose status code a test can change."""

    def __init__(self) -> None:
        self.status = 200
        self.requests: list[tuple[str, dict[str, str]]] = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.requests.append((self.path, dict(self.headers.items())))
                self.send_response(owner.status)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ------------------------------------------------------------------ spec + handlers


def test_defaults_are_kubernetes():
    spec = ProbeSpec.parse({"exec": {"command": ["true"]}})
    assert (spec.initial_delay, spec.period, spec.timeout, spec.success_threshold,
            spec.failure_threshold) == (0, 10, 1, 1, 3)
    spec = ProbeSpec.parse({"httpGet": {"port": "http", "path": "/healthz",
                                        "httpHeaders": [{"name": "X-A", "value": "b"}]},
                            "periodSeconds": 2, "failureThreshold": 5})
    assert (spec.handler, spec.port, spec.path, spec.headers, spec.period,
            spec.failure_threshold) == ("httpGet", "http", "/healthz", (("X-A", "b"),), 2, 5)
    assert ProbeSpec.parse({"tcpSocket": {"port": "8080"}}).port == 8080


def running_container(rt: FakeRuntime, **env: str) -> str:
    sb = rt.run_sandbox(SandboxConfig(uid="u", namespace="default", name="p", node="n"))
    rt.pull_image("busybox")
    cid = rt.create_container(sb.id, ContainerConfig(name="c", image="busybox",
                                                     env=tuple(env.items())))
    rt.start_container(cid)
    return cid


@pytest.mark.parametrize(("env", "result", "output"), [
    ({}, Result.SUCCESS, "fake exec: cat /tmp/healthy"),
    ({"FAKE_EXEC_EXIT_CODE": "1"}, Result.FAILURE, "fake exec: cat /tmp/healthy"),
    ({"FAKE_EXEC_DELAY": "0.3"}, Result.FAILURE, 'command "cat /tmp/healthy" timed out'),
])
def test_exec_handler(env, result, output):
    rt = FakeRuntime()
    cid = running_container(rt, **env)
    spec = ProbeSpec.parse({"exec": {"command": ["cat", "/tmp/healthy"]}})
    assert run_handler(spec, runtime=rt, container_id=cid, container={}, pod_ip="",
                       timeout=0.1) == (result, output)


@pytest.mark.parametrize(("status", "result"), [(200, Result.SUCCESS), (302, Result.SUCCESS),
                                                (399, Result.SUCCESS), (404, Result.FAILURE),
                                                (500, Result.FAILURE)])
def test_http_handler(server, status, result):
    server.status = status
    spec = ProbeSpec.parse({"httpGet": {"host": "127.0.0.1", "port": "web", "path": "healthz",
                                        "httpHeaders": [{"name": "X-Probe", "value": "1"}]}})
    container = {"name": "c", "ports": [{"name": "web", "containerPort": server.port}]}
    got, output = run_handler(spec, runtime=FakeRuntime(), container_id="", container=container,
                              pod_ip="10.88.0.2", timeout=1.0)
    assert got == result
    if result == Result.FAILURE:
        assert output == f"HTTP probe failed with statuscode: {status}"
    path, headers = server.requests[-1]
    assert path == "/healthz"
    assert headers["X-Probe"] == "1"
    assert headers["User-Agent"].startswith("kube-probe/")


def test_http_handler_connection_refused():
    port = free_port()
    spec = ProbeSpec.parse({"httpGet": {"host": "127.0.0.1", "port": port}})
    got, output = run_handler(spec, runtime=FakeRuntime(), container_id="", container={},
                              pod_ip="", timeout=1.0)
    assert got == Result.FAILURE
    assert output == (f'Get "http://127.0.0.1:{port}/": dial tcp 127.0.0.1:{port}: '
                      "connect: connection refused")


def test_http_handler_rejects_https_and_unknown_named_ports():
    with pytest.raises(ValueError, match="HTTPS"):
        run_handler(ProbeSpec.parse({"httpGet": {"port": 1, "scheme": "HTTPS"}}),
                    runtime=FakeRuntime(), container_id="", container={}, pod_ip="x",
                    timeout=1.0)
    with pytest.raises(ValueError, match="couldn't find port: web"):
        run_handler(ProbeSpec.parse({"httpGet": {"port": "web"}}), runtime=FakeRuntime(),
                    container_id="", container={"name": "c"}, pod_ip="x", timeout=1.0)


def test_tcp_handler(server):
    ok = ProbeSpec.parse({"tcpSocket": {"host": "127.0.0.1", "port": server.port}})
    assert run_handler(ok, runtime=FakeRuntime(), container_id="", container={}, pod_ip="",
                       timeout=1.0)[0] == Result.SUCCESS
    port = free_port()
    refused = ProbeSpec.parse({"tcpSocket": {"host": "127.0.0.1", "port": port}})
    assert run_handler(refused, runtime=FakeRuntime(), container_id="", container={},
                       pod_ip="", timeout=1.0) == (
        Result.FAILURE, f"dial tcp 127.0.0.1:{port}: connect: connection refused")


# ------------------------------------------------------------------ behaviour


def probed(name: str = "c", **probes: Any) -> list[dict[str, Any]]:
    return [{"name": name, "image": "busybox", **probes}]


def exec_probe(**kw: Any) -> dict[str, Any]:
    return {"exec": {"command": ["check"]}, "periodSeconds": 1, **kw}


def test_readiness_gates_ready_until_it_succeeds(client, kubelet, runtime):
    runtime.exec_exit_codes["c"] = 1
    create_pod(client, "p", containers=probed(readinessProbe=exec_probe()))
    pod = pod_in_phase(client, "p", "Running")
    wait_for(lambda: event_messages(client, "p", "Unhealthy"), "Unhealthy event")
    assert event_messages(client, "p", "Unhealthy")[0] == (
        "Readiness probe failed: fake exec: check")
    pod = get_pod(client, "p")
    st = container_status(client, "p", "c")
    assert (st["ready"], st["started"]) == (False, True)
    assert condition(pod, "Ready") == "False" and condition(pod, "ContainersReady") == "False"
    runtime.exec_exit_codes["c"] = 0
    wait_for(lambda: container_status(client, "p", "c").get("ready") is True, "ready")
    assert condition(get_pod(client, "p"), "Ready") == "True"
    # failureThreshold (3) failures make it unready again
    runtime.exec_exit_codes["c"] = 1
    wait_for(lambda: container_status(client, "p", "c").get("ready") is False, "unready")


def test_readiness_success_threshold(client, kubelet, runtime):
    create_pod(client, "p", containers=probed(readinessProbe=exec_probe(successThreshold=3)))
    wait_for(lambda: container_status(client, "p", "c").get("ready") is True, "ready")
    checks = [h for h in runtime.exec_history if h[1] == "c"]
    assert len(checks) >= 3


def test_liveness_failure_kills_and_restarts(client, kubelet, runtime):
    create_pod(client, "p", containers=probed(livenessProbe=exec_probe(failureThreshold=2)))
    pod_in_phase(client, "p", "Running")
    assert container_status(client, "p", "c")["ready"] is True  # no readiness probe
    runtime.exec_exit_codes["c"] = 1
    wait_for(lambda: container_status(client, "p", "c").get("restartCount", 0) >= 1, "restart")
    assert "Liveness probe failed: fake exec: check" in event_messages(client, "p", "Unhealthy")
    assert "Container c failed liveness probe, will be restarted" in \
        event_messages(client, "p", "Killing")
    st = container_status(client, "p", "c")
    assert st["lastState"]["terminated"]["exitCode"] == 143
    # it keeps failing: killed again, and the back-off applies
    wait_for(lambda: container_status(client, "p", "c")
             .get("restartCount", 0) >= 2, "crash loop")


def test_liveness_failure_with_restart_never(client, kubelet, runtime):
    runtime.exec_exit_codes["c"] = 1
    create_pod(client, "p", restartPolicy="Never",
               containers=probed(livenessProbe=exec_probe(failureThreshold=1)))
    pod = pod_in_phase(client, "p", "Failed")
    assert pod["status"]["containerStatuses"][0]["restartCount"] == 0
    assert event_messages(client, "p", "Killing") == ["Container c failed liveness probe"]


def test_startup_probe_gates_liveness_and_readiness(client, kubelet, runtime):
    runtime.exec_exit_codes["c"] = 1  # startup fails, so nothing else may run
    create_pod(client, "p", containers=probed(
        startupProbe=exec_probe(failureThreshold=1000),
        readinessProbe={"tcpSocket": {"host": "127.0.0.1", "port": free_port()},
                        "periodSeconds": 1},
        livenessProbe={"tcpSocket": {"host": "127.0.0.1", "port": free_port()},
                       "periodSeconds": 1}))
    wait_for(lambda: len(event_messages(client, "p", "Unhealthy")) >= 3
             or [m for m in event_messages(client, "p", "Unhealthy")
                 if m.startswith("Startup")], "startup failures")
    # Probes start with the container; its status may be written a moment later.
    st = wait_for(lambda: container_status(client, "p", "c"), "container status")
    assert (st["started"], st["ready"]) == (False, False)
    messages = event_messages(client, "p", "Unhealthy")
    assert all(m.startswith("Startup probe failed") for m in messages)
    runtime.exec_exit_codes["c"] = 0
    wait_for(lambda: container_status(client, "p", "c").get("started") is True, "started")
    # now liveness runs (and fails on the refused port) -> killed and restarted
    wait_for(lambda: [m for m in event_messages(client, "p", "Unhealthy")
                      if m.startswith("Liveness probe failed: dial tcp")], "liveness ran")


def test_startup_probe_failure_kills(client, kubelet, runtime):
    runtime.exec_exit_codes["c"] = 1
    create_pod(client, "p", containers=probed(startupProbe=exec_probe(failureThreshold=2)))
    wait_for(lambda: "Container c failed startup probe, will be restarted" in
             event_messages(client, "p", "Killing"), "killed")


def test_http_readiness_probe_against_the_host(client, kubelet, server):
    server.status = 500
    create_pod(client, "p", containers=[{
        "name": "c", "image": "busybox",
        "ports": [{"name": "http", "containerPort": server.port}],
        "readinessProbe": {"httpGet": {"host": "127.0.0.1", "port": "http", "path": "/ready"},
                           "periodSeconds": 1}}])
    wait_for(lambda: "Readiness probe failed: HTTP probe failed with "
             "statuscode: 500" in event_messages(client, "p", "Unhealthy"), "Unhealthy")
    assert container_status(client, "p", "c")["ready"] is False
    server.status = 200
    wait_for(lambda: container_status(client, "p", "c").get("ready") is True, "ready")
    assert server.requests[-1][0] == "/ready"


def test_initial_delay_holds_probes_back(client, kubelet, runtime):
    # 40 s scaled by 0.05 = 2 s: no exec may happen in the first second.
    create_pod(client, "p", containers=probed(
        readinessProbe=exec_probe(initialDelaySeconds=40)))
    pod_in_phase(client, "p", "Running")
    assert not wait_for_quietly(lambda: [h for h in runtime.exec_history if h[1] == "c"], 1.0)
    assert container_status(client, "p", "c")["ready"] is False
    wait_for(lambda: container_status(client, "p", "c")
             .get("ready") is True, "ready after the delay")


def test_probe_workers_stop_with_the_pod(client, kubelet):
    create_pod(client, "p", containers=probed(readinessProbe=exec_probe(),
                                              livenessProbe=exec_probe()))
    wait_for(lambda: kubelet.probes.worker_count() == 2, "two workers")
    client.delete("pods", "default", "p")
    wait_for(lambda: not client.list("pods", namespace="default").items, "pod gone")
    wait_for(lambda: kubelet.probes.worker_count() == 0, "workers stopped")


def test_probe_workers_stop_with_the_kubelet(client, make_kubelet):
    kubelet = make_kubelet()
    create_pod(client, "p", containers=probed(readinessProbe=exec_probe()))
    wait_for(lambda: kubelet.probes.worker_count() == 1, "worker")
    kubelet.stop()
    assert kubelet.probes.worker_count() == 0
