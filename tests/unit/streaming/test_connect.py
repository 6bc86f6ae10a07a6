"""pods/exec, pods/attach and pods/portforward through the real HTTP server
(in-process, fake streams), spoken by an independent WebSocket client
(websocket-client, the official client's): handshakes, framings, statuses,
kube-apiserver's refusals, and no thread left behind."""

from __future__ import annotations

import base64
import json
import socket
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import websocket

from minikube_py.apiserver.server import APIServer
from minikube_py.apiserver.streaming.connect import StreamUnavailable
from minikube_py.runtime.base import ContainerRuntimeError
from minikube_py.runtime.fake_stream import FakeStream, echo_connection
from minikube_py.runtime.streaming import ExecOptions, StreamSession
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.waiting import wait_for

TOKEN = "t"
POD = "/api/v1/namespaces/default/pods/p"


class Source:
    def exec(self, pod: Mapping[str, Any], container: str, command: Sequence[str],
             options: ExecOptions) -> StreamSession:
        if container == "gone":
            raise StreamUnavailable('container not found ("gone")')
        code = 3 if list(command)[-1:] == ["fail"] else 0
        return FakeStream(f"ran {' '.join(command)}\n".encode(), tty=options.tty,
                          stdin=options.stdin, exit_code=code)

    def attach(self, pod: Mapping[str, Any], container: str,
               options: ExecOptions) -> StreamSession:
        return FakeStream(b"attached\n", tty=options.tty, stdin=options.stdin, exit_code=None)

    def port_forward(self, pod: Mapping[str, Any], port: int) -> socket.socket:
        try:
            return echo_connection(port, {80})
        except ContainerRuntimeError as exc:  # the kubelet's StreamError, as wired
            raise StreamUnavailable(str(exc)) from exc


@pytest.fixture
def server(tmp_path: Path) -> Iterator[APIServer]:
    store = Store(tmp_path / "s", history_size=20)
    registry = Registry(store)
    registry.ensure_system_namespaces()
    for name, node in (("p", "n1"), ("unscheduled", "")):
        registry.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                         "spec": {"nodeName": node, "containers": [
                             {"name": "c", "image": "busybox"},
                             {"name": "gone", "image": "busybox"}]}})
    api = APIServer(registry, token=TOKEN, port=0, streams=Source())
    api.start()
    yield api
    api.stop()
    store.close()


def connect(api: APIServer, path: str, protocols: list[str]) -> websocket.WebSocket:
    host, port = api.address
    return websocket.create_connection(f"ws://{host}:{port}{path}", subprotocols=protocols,
                                       header=[f"Authorization: Bearer {TOKEN}"], timeout=10)


def frames(ws: websocket.WebSocket) -> list[tuple[int, bytes]]:
    out: list[tuple[int, bytes]] = []
    while True:
        opcode, data = ws.recv_data(control_frame=False)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return out
        out.append((data[0], bytes(data[1:])))


def test_exec_v5_stdin_its_close_and_the_status(server: APIServer) -> None:
    before = threading.active_count()
    ws = connect(server, f"{POD}/exec?container=c&command=cat&stdin=true&stdout=true",
                 ["v5.channel.k8s.io", "v4.channel.k8s.io"])
    assert ws.subprotocol == "v5.channel.k8s.io"
    ws.send_binary(b"\x00typed")
    ws.send_binary(bytes((255, 0)))  # v5: stdin is closed
    got = frames(ws)
    ws.close()
    assert got[0] == (1, b"")  # the session is announced on stdout
    assert (1, b"ran cat\n") in got and (1, b"typed") in got
    assert json.loads(got[-1][1]) == {"metadata": {}, "status": "Success"}
    assert got[-1][0] == 3
    wait_for(lambda: threading.active_count() <= before, timeout=10, what="threads to end")


def test_exec_exit_code_in_v4_and_v1_and_base64(server: APIServer) -> None:
    ws = connect(server, f"{POD}/exec?container=c&command=sh&command=fail",
                 ["v4.channel.k8s.io"])
    status = json.loads(frames(ws)[-1][1])
    assert status["details"]["causes"] == [{"reason": "ExitCode", "message": "3"}]
    ws = connect(server, f"{POD}/exec?container=c&command=sh&command=fail", ["channel.k8s.io"])
    assert frames(ws)[-1] == (3, b"command terminated with non-zero exit code: error "
                                 b"executing command [sh fail], exit code 3")
    ws = connect(server, f"{POD}/exec?container=c&command=true", ["base64.channel.k8s.io"])
    texts = []
    while True:
        opcode, data = ws.recv_data()
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            break
        texts.append(data.decode())
    assert "1" + base64.b64encode(b"ran true\n").decode() in texts


def test_a_kubelet_refusal_is_the_translators_internal_error(server: APIServer) -> None:
    ws = connect(server, f"{POD}/exec?container=gone&command=true", ["v5.channel.k8s.io"])
    status = json.loads(frames(ws)[-1][1])
    assert status["reason"] == "InternalError"
    assert status["message"] == ('Internal error occurred: unable to upgrade connection: '
                                 'container not found ("gone")')


@pytest.mark.parametrize(("path", "message"), [
    (f"{POD}/exec?command=true", "a container name must be specified for pod p, choose one "
                                 "of: [c gone]"),
    (f"{POD}/exec?container=x&command=true", "container x is not valid for pod p"),
    (f"{POD}/exec?container=c", "you must specify a command"),
    ("/api/v1/namespaces/default/pods/unscheduled/exec?container=c&command=true",
     "pod unscheduled does not have a host assigned"),
])
def test_refusals_before_the_upgrade(server: APIServer, path: str, message: str) -> None:
    with pytest.raises(websocket.WebSocketBadStatusException) as err:
        connect(server, path, ["v5.channel.k8s.io"])
    assert err.value.status_code == 400
    assert message in json.loads(err.value.resp_body or b"{}")["message"]


def test_plain_requests_are_told_to_upgrade(server: APIServer) -> None:
    import http.client
    host, port = server.address
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request("POST", f"{POD}/exec?container=c&command=true",
                 headers={"Authorization": f"Bearer {TOKEN}"})
    reply = conn.getresponse()
    assert reply.status == 400
    assert json.loads(reply.read())["message"] == "Upgrade request required"


def test_port_forward_v4_channels(server: APIServer) -> None:
    ws = connect(server, f"{POD}/portforward?ports=80", ["v4.channel.k8s.io"])
    heads = {ws.recv_data()[1] for _ in range(2)}
    assert heads == {b"\x00\x50\x00", b"\x01\x50\x00"}  # port 80, little-endian
    ws.send_binary(b"\x00ping")
    assert ws.recv_data()[1] == b"\x00ping"
    ws.close()
    refused = connect(server, f"{POD}/portforward?ports=81", ["v4.channel.k8s.io"])
    seen = frames(refused)
    assert any(ch == 1 and b"error forwarding port 81 to pod p_default" in data
               for ch, data in seen), seen
