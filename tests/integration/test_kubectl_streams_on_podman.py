"""Into the pod with the real kubectl and the official client, on real Podman:
exec (exit codes, stdin, a terminal), cp both ways, attach, run -i --rm,
port-forward (pod, service, deployment; several connections; a closed port),
proxy, debug (--target and --copy-to), the RBAC verbs they need, and nothing
left behind: no daemon threads, no Podman exec sessions."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
import yaml

from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load
from minikube_py.ops.portforward import PortForward
from minikube_py.ops.shell import exec_interactive
from tests.e2e.conftest import Daemon
from tests.hostclean import podman_daemon
from tests.inpod import app_container, podman
from tests.waiting import wait_for

pytestmark = pytest.mark.integration

BUSYBOX = "localhost/minikube-py/busybox:1.35"
PYCLIENT = "localhost/minikube-py/python-client:latest"

MANIFESTS = [
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
     "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "template": {
         "metadata": {"labels": {"app": "web"}},
         "spec": {"terminationGracePeriodSeconds": 0, "containers": [{
             "name": "web", "image": BUSYBOX, "imagePullPolicy": "IfNotPresent",
             "ports": [{"containerPort": 8080, "name": "http"}],
             "command": ["sh", "-c", "mkdir -p /www && echo hello-web > /www/index.html && "
                         "httpd -p 8080 -h /www && exec sleep 100000"]}]}}}},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
     "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80,
                                                      "targetPort": "http"}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "echo"},
     "spec": {"terminationGracePeriodSeconds": 0, "containers": [{
         "name": "echo", "image": BUSYBOX, "imagePullPolicy": "IfNotPresent", "stdin": True,
         "command": ["sh", "-c", "while read line; do echo got-$line; done"]}]}},
]


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    with podman_daemon(tmp_path_factory.mktemp("streams") / "state") as d:
        d.kubectl("apply", "-f", "-", input=yaml.safe_dump_all(MANIFESTS))
        d.kubectl("rollout", "status", "deployment/web", "--timeout=120s")
        d.kubectl("wait", "--for=condition=Ready", "pod/echo", "--timeout=120s")
        yield d


#: kubectl 1.32's WebSocket client starts reading before it has made its streams,
#: so the empty message that announces an exec session on stdout (kube-apiserver's
#: remotecommand sends it, and so do we) is now and then discarded with this klog
#: line (kubernetes/kubernetes#131189, fixed in client-go 1.33 by #131203). Only
#: that empty message can be hit: the command's output comes after the exec starts.
KUBECTL_DEMUX_RACE = re.compile(
    r"^E\d{4} [\d:.]+ +\d+ websocket\.go:\d+\] Unknown stream id 1, discarding message\n",
    re.M)


def stderr_of(result: subprocess.CompletedProcess[str]) -> str:
    """kubectl's stderr without the client bug's line above."""
    return KUBECTL_DEMUX_RACE.sub("", result.stderr)


def web_pod(d: Daemon) -> str:
    pods = d.get_json("pods", "-l", "app=web")["items"]
    return str(pods[0]["metadata"]["name"])


def tty_run(d: Daemon, args: list[str], keys: str, timeout: float = 60) -> str:
    """kubectl with a terminal (``script``), typing ``keys``; its output."""
    kubectl = shutil.which("kubectl")
    assert kubectl and shutil.which("script")
    command = " ".join([kubectl, "--cache-dir", str(d.state / "kubectl-cache"), *args])
    result = subprocess.run(["script", "-qec", command, "/dev/null"], input=keys,
                            capture_output=True, text=True, env=d.env(), timeout=timeout)
    return result.stdout + result.stderr


# ---------------------------------------------------------------------- exec, cp


def test_exec_exit_codes_and_streams(daemon: Daemon) -> None:
    pod = web_pod(daemon)
    ok = daemon.kubectl("exec", pod, "--", "sh", "-c", "echo out; echo err >&2")
    assert (ok.stdout, stderr_of(ok)) == ("out\n", "err\n")
    failed = daemon.kubectl("exec", pod, "--", "sh", "-c", "exit 3", check=False)
    assert failed.returncode == 3
    assert "command terminated with exit code 3" in failed.stderr
    piped = daemon.kubectl("exec", "-i", pod, "--", "sh", "-c", "cat; echo end",
                           input="line one\nline two\n")
    assert piped.stdout == "line one\nline two\nend\n"
    terminal = tty_run(daemon, ["exec", "-it", pod, "--", "sh"], "tty; exit 5\n")
    assert re.search(r"/dev/pts/\d+", terminal), terminal


def test_exec_errors_are_kubectls(daemon: Daemon) -> None:
    pod = web_pod(daemon)
    wrong = daemon.kubectl("exec", pod, "-c", "nope", "--", "true", check=False)
    assert wrong.returncode == 1
    assert f"container nope is not valid for pod {pod}" in wrong.stderr
    missing = daemon.kubectl("exec", pod, "--", "/no/such/binary", check=False)
    assert missing.returncode != 0


def test_cp_10_mb_both_ways(daemon: Daemon, tmp_path: Path) -> None:
    pod = web_pod(daemon)
    data = os.urandom(10 * 1024 * 1024)
    source = tmp_path / "big.bin"
    source.write_bytes(data)
    daemon.kubectl("cp", str(source), f"{pod}:/tmp/big.bin", timeout=120)
    inside = daemon.kubectl("exec", pod, "--", "sha256sum", "/tmp/big.bin").stdout.split()[0]
    assert inside == hashlib.sha256(data).hexdigest()
    back = tmp_path / "back.bin"
    daemon.kubectl("cp", f"{pod}:/tmp/big.bin", str(back), timeout=120)
    assert hashlib.sha256(back.read_bytes()).hexdigest() == hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------- attach, run


def _read_line(stream: IO[str], into: list[str]) -> None:
    into.append(stream.readline())


def test_attach_reaches_the_containers_own_process(daemon: Daemon) -> None:
    kubectl = shutil.which("kubectl")
    assert kubectl
    for word in ("first",):
        proc = subprocess.Popen([kubectl, "attach", "-i", "echo"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=daemon.env())
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(f"{word}\n")
        proc.stdin.flush()
        lines: list[str] = []
        reader = threading.Thread(target=_read_line, args=(proc.stdout, lines), daemon=True)
        reader.start()
        reader.join(30)
        proc.kill()
        proc.wait(10)
        assert lines == [f"got-{word}\n"], lines


def test_run_i_rm(daemon: Daemon) -> None:
    out = daemon.kubectl("run", "once", "-i", "--rm", "--restart=Never", f"--image={BUSYBOX}",
                         "--image-pull-policy=IfNotPresent", "--", "sh", "-c",
                         "read x; echo got-$x", input="abc\n", timeout=120)
    assert "got-abc" in out.stdout
    wait_for(lambda: daemon.kubectl("get", "pod", "once", check=False).returncode != 0,
             timeout=30, what="kubectl run --rm to delete its pod")


# ---------------------------------------------------------------------- port-forward


def _get(port: int, path: str = "/index.html") -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
        return bytes(reply.read())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _forward(daemon: Daemon, target: str, mapping: str,
             env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    kubectl = shutil.which("kubectl")
    assert kubectl
    proc = subprocess.Popen([kubectl, "port-forward", target, mapping],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**daemon.env(), **(env or {})})
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("Forwarding from"), line
    return proc


@pytest.mark.parametrize("target", ["pod", "svc/web", "deploy/web"])
def test_port_forward_pod_service_deployment(daemon: Daemon, target: str) -> None:
    local = _free_port()
    remote = "80" if target.startswith("svc") else "8080"
    proc = _forward(daemon, web_pod(daemon) if target == "pod" else target, f"{local}:{remote}")
    try:
        results: list[bytes] = []
        threads = [threading.Thread(target=lambda: results.append(_get(local)))
                   for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert results == [b"hello-web\n"] * 5
    finally:
        proc.kill()
        proc.wait(10)


def test_port_forward_by_spdy_upgrade_and_a_closed_port(daemon: Daemon) -> None:
    local, closed = _free_port(), _free_port()
    proc = _forward(daemon, web_pod(daemon), f"{local}:8080",
                    env={"KUBECTL_PORT_FORWARD_WEBSOCKETS": "false"})
    try:
        assert _get(local) == b"hello-web\n"
    finally:
        proc.kill()
        proc.wait(10)
    proc = _forward(daemon, web_pod(daemon), f"{closed}:9")
    with pytest.raises(OSError):
        _get(closed, "/")
    out, _ = proc.communicate(timeout=30)
    assert "an error occurred forwarding" in out and "connection refused" in out, out
    assert "error forwarding port 9 to pod" in out and "lost connection to pod" in out, out


# ---------------------------------------------------------------------- proxy


def test_kubectl_proxy_reaches_pods_and_services(daemon: Daemon) -> None:
    pod = web_pod(daemon)
    raw = daemon.kubectl("get", "--raw",
                         f"/api/v1/namespaces/default/pods/{pod}:8080/proxy/index.html")
    assert raw.stdout == "hello-web\n"
    svc = daemon.kubectl("get", "--raw",
                         "/api/v1/namespaces/default/services/web:http/proxy/index.html")
    assert svc.stdout == "hello-web\n"
    port = _free_port()
    kubectl = shutil.which("kubectl")
    assert kubectl
    proxy = subprocess.Popen([kubectl, "proxy", f"--port={port}"], stdout=subprocess.PIPE,
                             text=True, env=daemon.env())
    try:
        assert proxy.stdout is not None
        assert "Starting to serve" in proxy.stdout.readline()
        assert _get(port, f"/api/v1/namespaces/default/pods/{pod}:8080/proxy/index.html") \
            == b"hello-web\n"
    finally:
        proxy.kill()
        proxy.wait(10)


# ---------------------------------------------------------------------- debug


def test_debug_target_shares_processes_and_copy_to(daemon: Daemon) -> None:
    pod = web_pod(daemon)
    out = tty_run(daemon, ["debug", pod, "-it", f"--image={BUSYBOX}",
                           "--image-pull-policy=IfNotPresent", "--target=web", "--", "sh"],
                  "ps; exit\n", timeout=120)
    assert "httpd -p 8080" in out, out  # the target's processes, seen from the debugger
    statuses = daemon.get_json("pod", pod)["status"]["ephemeralContainerStatuses"]
    assert statuses and statuses[0]["name"].startswith("debugger-")
    assert statuses[0]["ready"] is False
    daemon.kubectl("debug", pod, f"--image={BUSYBOX}", "--image-pull-policy=IfNotPresent",
                   "--copy-to=web-copy", "--container=dbg", "--", "sleep", "1000")
    daemon.kubectl("wait", "--for=condition=Ready", "pod/web-copy", "--timeout=120s")
    names = [c["name"] for c in daemon.get_json("pod", "web-copy")["spec"]["containers"]]
    assert names == ["web", "dbg"]
    daemon.kubectl("delete", "pod", "web-copy", "--grace-period=0", "--force")


# ---------------------------------------------------------------------- authorization


def test_exec_and_port_forward_need_their_rbac_verbs(daemon: Daemon) -> None:
    pod = web_pod(daemon)
    who = "--as=system:serviceaccount:default:viewer"
    daemon.kubectl("create", "serviceaccount", "viewer", check=False)
    daemon.kubectl("create", "rolebinding", "viewer-view", "--clusterrole=view",
                   "--serviceaccount=default:viewer", check=False)
    denied = daemon.kubectl(who, "exec", pod, "--", "true", check=False)
    assert denied.returncode != 0
    assert 'cannot create resource "pods/exec" in API group "" in the namespace "default"' \
        in denied.stderr or 'cannot get resource "pods/exec"' in denied.stderr, denied.stderr
    daemon.kubectl("create", "rolebinding", "viewer-edit", "--clusterrole=edit",
                   "--serviceaccount=default:viewer")
    assert daemon.kubectl(who, "exec", pod, "--", "echo", "allowed").stdout == "allowed\n"


# ---------------------------------------------------------------------- official client


CLIENT_SCRIPT = r"""
import json, socket
from kubernetes import client, config
from kubernetes.stream import portforward, stream
config.load_kube_config()
v1 = client.CoreV1Api()
POD = "%s"
out = {}
out["text"] = stream(v1.connect_get_namespaced_pod_exec, POD, "default",
                     command=["sh", "-c", "echo hi; echo err >&2"], stderr=True, stdin=False,
                     stdout=True, tty=False)
out["binary"] = len(stream(v1.connect_get_namespaced_pod_exec, POD, "default",
                           command=["head", "-c", "4096", "/dev/urandom"], stderr=True,
                           stdin=False, stdout=True, tty=False, binary=True))
r = stream(v1.connect_get_namespaced_pod_exec, POD, "default", command=["sh", "-c", "exit 5"],
           stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
r.run_forever(timeout=20)
out["code"] = r.returncode
r = stream(v1.connect_get_namespaced_pod_exec, POD, "default", command=["cat"], stderr=True,
           stdin=True, stdout=True, tty=False, _preload_content=False)
r.write_stdin("typed\n")
out["interactive"] = r.readline_stdout(timeout=20)
r.close()
pf = portforward(v1.connect_get_namespaced_pod_portforward, POD, "default", ports="8080")
s = pf.socket(8080)
s.setblocking(True)
s.sendall(b"GET /index.html HTTP/1.0\r\nHost: x\r\n\r\n")
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
s.close()
out["portforward"] = data.decode().split("\r\n\r\n", 1)[-1]
print(json.dumps(out))
"""


def test_official_client_stream_and_portforward(daemon: Daemon) -> None:
    script = CLIENT_SCRIPT % web_pod(daemon)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=daemon.env(), timeout=120)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out == {"text": "hi\nerr\n", "binary": 4096, "code": 5, "interactive": "typed",
                   "portforward": "hello-web\n"}


# ---------------------------------------------------------------------- our own client


def test_the_dashboards_shell_and_port_forward(daemon: Daemon) -> None:
    """What ``s`` and ``shift+f`` run (ops.shell, ops.portforward), with pipes
    for a terminal."""
    pod = web_pod(daemon)
    client = HTTPClient(load(daemon.kubeconfig))
    stdin_r, stdin_w = os.pipe()
    out_r, out_w = os.pipe()
    os.write(stdin_w, b"echo from-shell; exit 6\n")
    os.close(stdin_w)
    try:
        code = exec_interactive(client, "default", pod, "web", ("sh",), stdin_fd=stdin_r,
                                stdout_fd=out_w)
        os.close(out_w)
        assert code == 6
        assert os.read(out_r, 65536) == b"from-shell\n"
    finally:
        os.close(stdin_r)
        os.close(out_r)
    forward = PortForward(client, "default", pod, 8080).start()
    try:
        assert [_get(forward.local_port) for _ in range(3)] == [b"hello-web\n"] * 3
        assert forward.connections == 3
    finally:
        forward.stop()
    closed = PortForward(client, "default", pod, 9).start()
    try:
        with pytest.raises(OSError):
            _get(closed.local_port, "/")
        wait_for(lambda: "connection refused" in closed.last_error, timeout=10,
                 what="the refusal as the forward's last error")
        assert "error forwarding port 9 to pod" in closed.last_error
    finally:
        closed.stop()


# ---------------------------------------------------------------------- leftovers


def _threads(d: Daemon) -> int:
    return len(os.listdir(f"/proc/{d.proc.pid}/task"))


def test_streams_leave_nothing_behind(daemon: Daemon) -> None:
    pod = web_pod(daemon)
    container = app_container(daemon, pod)
    daemon.kubectl("exec", pod, "--", "true")  # warm up the connection pools
    wait_for(lambda: not json.loads(podman(daemon, "inspect", container).stdout)[0].get(
        "ExecIDs"), timeout=30, what="earlier exec sessions to go")
    before = _threads(daemon)
    for _ in range(5):
        daemon.kubectl("exec", pod, "--", "true")
    local = _free_port()
    proc = _forward(daemon, pod, f"{local}:8080")
    assert _get(local) == b"hello-web\n"
    proc.kill()
    proc.wait(10)
    # A stream cut off by its client: the process goes, and the session with it.
    kubectl = shutil.which("kubectl")
    assert kubectl
    sleeper = subprocess.Popen([kubectl, "exec", pod, "--", "sleep", "4321"], env=daemon.env())
    wait_for(lambda: "sleep 4321" in podman(daemon, "exec", container, "ps").stdout,
             timeout=30, what="the exec'd sleep")
    sleeper.kill()
    sleeper.wait(10)
    wait_for(lambda: "sleep 4321" not in podman(daemon, "exec", container, "ps").stdout,
             timeout=30, what="the exec'd sleep to be killed once its client went away")
    wait_for(lambda: not json.loads(podman(daemon, "inspect", container).stdout)[0].get(
        "ExecIDs"), timeout=30, what="no Podman exec session left")
    wait_for(lambda: _threads(daemon) <= before, timeout=30,
             what=f"the daemon's threads back to {before} (now {_threads(daemon)})")


def test_a_stream_ends_when_its_pod_is_deleted(daemon: Daemon) -> None:
    daemon.kubectl("run", "doomed", f"--image={BUSYBOX}", "--image-pull-policy=IfNotPresent",
                   "--restart=Never", "--", "sleep", "100000")
    daemon.kubectl("wait", "--for=condition=Ready", "pod/doomed", "--timeout=120s")
    kubectl = shutil.which("kubectl")
    assert kubectl
    started = time.monotonic()
    proc = subprocess.Popen([kubectl, "exec", "doomed", "--", "sleep", "200000"],
                            env=daemon.env(), stderr=subprocess.PIPE, text=True)
    wait_for(lambda: "sleep 200000" in podman(
        daemon, "exec", app_container(daemon, "doomed"), "ps", check=False).stdout,
        timeout=30, what="the exec to run")
    daemon.kubectl("delete", "pod", "doomed", "--grace-period=0", "--force")
    proc.wait(60)
    assert time.monotonic() - started < 60
    assert proc.returncode != 0  # killed with its container
