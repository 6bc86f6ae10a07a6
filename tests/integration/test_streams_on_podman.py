"""Exec, attach and port-forward sessions on real Podman (the runtime's
streaming verbs, below the API server): stdin and its end, exit codes, a
terminal and its size, a container's own streams, and ``localhost`` inside
the pod's network namespace. Nothing is left behind: ended exec sessions
leave the container within Podman's ``exit_command_delay``."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from minikube_py.runtime.base import InvalidState, Sandbox
from minikube_py.runtime.podman import PodmanRuntime
from minikube_py.runtime.podman_service import EXEC_SESSION_LINGER
from minikube_py.runtime.streaming import ExecOptions, StreamSession
from tests.waiting import wait_for

from .test_podman_runtime import MakeSandbox, run, wait_exit

pytestmark = pytest.mark.integration


def drain(session: StreamSession) -> dict[int, bytes]:
    out: dict[int, bytes] = {1: b"", 2: b""}
    while (item := session.recv()) is not None:
        out[item[0]] = out.get(item[0], b"") + item[1]
    return out


def exec_ids(runtime: PodmanRuntime, cid: str) -> list[str]:
    return list(runtime._inspect(cid).get("ExecIDs") or [])


def test_exec_stdin_end_exit_code_and_no_leftover_sessions(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("stream-exec")
    cid = run(runtime, sandbox, "sleep 300")
    # stdin, and its end: cat echoes and ends when stdin closes (kubectl cp relies on it)
    cat = runtime.exec_stream(cid, ["sh", "-c", "cat; echo done >&2; exit 4"],
                              ExecOptions(stdin=True))
    payload = bytes(range(256)) * 4096  # 1 MiB of every byte value

    def feed() -> None:  # while the output is read, as any client does
        cat.send(payload)
        cat.close_stdin()

    writer = threading.Thread(target=feed)
    writer.start()
    out = drain(cat)
    writer.join(10)
    assert out[1] == payload and out[2] == b"done\n"
    assert cat.exit_code() == 4
    cat.close()
    ok = runtime.exec_stream(cid, ["true"], ExecOptions())
    assert drain(ok) == {1: b"", 2: b""} and ok.exit_code() == 0
    ok.close()
    # Podman forgets ended sessions after exit_command_delay (ours is short).
    wait_for(lambda: exec_ids(runtime, cid) == [], timeout=EXEC_SESSION_LINGER + 10,
             what="the ended exec sessions to be removed")


def test_exec_with_a_terminal_sees_its_size(runtime: PodmanRuntime,
                                           make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("stream-tty")
    cid = run(runtime, sandbox, "sleep 300")
    shell = runtime.exec_stream(cid, ["sh"], ExecOptions(stdin=True, tty=True, stderr=False))
    shell.resize(123, 45)
    shell.send(b"stty size; tty; exit 7\n")
    seen = b""
    while (item := shell.recv()) is not None:
        assert item[0] == 1  # a terminal has one output
        seen += item[1]
    assert b"45 123" in seen and b"/dev/pts/" in seen, seen
    assert shell.exit_code() == 7
    shell.close()


def test_closing_a_running_exec_kills_its_process(runtime: PodmanRuntime,
                                                  make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("stream-kill")
    cid = run(runtime, sandbox, "sleep 300")
    sleeper = runtime.exec_stream(cid, ["sleep", "1234"], ExecOptions())
    wait_for(lambda: b"sleep 1234" in runtime.exec_sync(cid, ["ps"], timeout=10).output,
             timeout=10, what="the exec'd sleep to run")
    sleeper.close()  # the client went away
    wait_for(lambda: b"sleep 1234" not in runtime.exec_sync(cid, ["ps"], timeout=10).output,
             timeout=10, what="the exec'd sleep to be killed")


def test_attach_reaches_the_containers_own_streams(runtime: PodmanRuntime,
                                                   make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("stream-attach")
    cid = run(runtime, sandbox, "while read line; do echo got-$line; done; echo bye",
              stdin=True)
    session = runtime.attach(cid, ExecOptions(stdin=True))
    session.send(b"one\ntwo\n")
    seen = b""
    deadline = time.monotonic() + 15
    while b"got-two" not in seen and time.monotonic() < deadline:
        item = session.recv()
        assert item is not None, seen
        seen += item[1]
    assert b"got-one\ngot-two\n" in seen
    # The client's end of input is the container's (Podman's attach, as stdinOnce).
    session.close_stdin()
    while (item := session.recv()) is not None:
        seen += item[1]
    assert seen.endswith(b"bye\n")
    session.close()
    assert wait_exit(runtime, cid).exit_code == 0


def test_port_forward_dials_localhost_inside_the_pod(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox: Sandbox = make_sandbox("stream-pf")
    # Listening on the pod's loopback only: reachable the kubelet's way, not by pod IP.
    run(runtime, sandbox, "mkdir -p /www && echo hello-pf > /www/index.html && "
        "exec httpd -f -p 127.0.0.1:8080 -h /www")

    def get() -> bytes:
        conn = runtime.port_forward(sandbox.id, 8080)
        with conn:
            conn.sendall(b"GET / HTTP/1.0\r\nHost: x\r\n\r\n")
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
        return data

    def answers() -> bool:
        try:
            return b"hello-pf" in get()
        except Exception:
            return False

    wait_for(answers, timeout=15, what="httpd on the pod's loopback")
    with pytest.raises(Exception, match=r'failed to connect to localhost:9 inside namespace '
                       r'"/proc/\d+/ns/net", IPv4: dial tcp4 127.0.0.1:9: connect: connection '
                       r'refused IPv6 dial tcp6 \[::1\]:9: connect: connection refused'):
        runtime.port_forward(sandbox.id, 9)
    # The daemon's own threads never changed namespace: this thread still sees the host.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))


def test_streams_into_a_stopped_container_are_refused(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("stream-stopped")
    cid = run(runtime, sandbox, "true")
    wait_exit(runtime, cid)
    with pytest.raises(InvalidState, match="not running: cannot exec in it"):
        runtime.exec_stream(cid, ["true"], ExecOptions())
    with pytest.raises(InvalidState, match="not running: cannot attach to it"):
        runtime.attach(cid, ExecOptions())
