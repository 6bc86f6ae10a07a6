"""PodmanRuntime against a real Podman: the ContainerRuntime contract, measured.

Grouped by behaviour: sandboxes and logs, exit states (incl. OOM), resources
in the container's cgroups, exec, ports, stopping with a grace period,
labels and listing, events, stats, images, removal.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from minikube_py.runtime.base import (
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    EVENT_CONTAINER_CREATED,
    EVENT_CONTAINER_DELETED,
    EVENT_CONTAINER_STARTED,
    EVENT_CONTAINER_STOPPED,
    EVENT_SANDBOX_DELETED,
    EVENT_SANDBOX_READY,
    EVENT_SANDBOX_STOPPED,
    EVENT_STREAM_INTERRUPTED,
    EVENT_STREAM_RESUMED,
    LABEL_CONTAINER_NAME,
    LABEL_NODE,
    LABEL_POD_UID,
    LABEL_RESTART_COUNT,
    SANDBOX_NOTREADY,
    SANDBOX_READY,
    ContainerConfig,
    ContainerNotFound,
    ContainerRuntimeError,
    ContainerStats,
    ContainerStatus,
    ImageNotFound,
    InvalidState,
    Mount,
    PortMapping,
    RuntimeEvent,
    Sandbox,
    SandboxNotFound,
    SecurityConfig,
)
from minikube_py.runtime.podman import PodmanRuntime
from minikube_py.runtime.podman_events import PodmanEventStream
from minikube_py.runtime.podman_service import HostCheck, PodmanService
from tests.waiting import blocked_in, wait_for

from .conftest import BUSYBOX, NODE, sandbox_config

pytestmark = pytest.mark.integration

MakeSandbox = Callable[..., Sandbox]
_RFC3339_NANO = re.compile(rb"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ")


def run(runtime: PodmanRuntime, sandbox: Sandbox, script: str, *, name: str = "main",
        start: bool = True, **kwargs: object) -> str:
    """Create (and start) a busybox container running ``sh -c script``."""
    labels = {**sandbox.labels, LABEL_CONTAINER_NAME: name, LABEL_RESTART_COUNT: "0"}
    config = ContainerConfig(name=name, image=BUSYBOX, command=("sh", "-c", script),
                             labels=labels, **kwargs)  # type: ignore[arg-type]
    cid = runtime.create_container(sandbox.id, config)
    if start:
        runtime.start_container(cid)
    return cid


def wait_exit(runtime: PodmanRuntime, cid: str, timeout: float = 30.0) -> ContainerStatus:
    status = runtime.wait_container(cid, timeout)
    assert status is not None, f"container {cid[:12]} still running after {timeout}s"
    return status


def logs(runtime: PodmanRuntime, cid: str, **kwargs: object) -> list[bytes]:
    return list(runtime.container_logs(cid, **kwargs))  # type: ignore[arg-type]


def listed(runtime: PodmanRuntime, sandbox: Sandbox, cid: str) -> ContainerStatus:
    return next(c for c in runtime.list_containers(sandbox.id) if c.id == cid)


# ---------------------------------------------------------------------- sandboxes and logs


def test_sandbox_is_ready_with_an_ip(runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("web")
    assert sandbox.state == SANDBOX_READY
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", sandbox.ip), sandbox.ip
    assert sandbox.created_at > time.time() - 120
    found = [s for s in runtime.list_sandboxes({LABEL_POD_UID: sandbox.labels[LABEL_POD_UID]})]
    assert [(s.id, s.ip, s.state) for s in found] == [(sandbox.id, sandbox.ip, SANDBOX_READY)]


def test_containers_share_the_sandbox_network_and_hostname(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("shared")
    cid = run(runtime, sandbox, "hostname; ip addr 2>/dev/null | grep -o 'inet [0-9.]*' || true")
    assert wait_exit(runtime, cid).exit_code == 0
    out = b"".join(logs(runtime, cid)).decode()
    assert out.splitlines()[0] == "shared"
    assert f"inet {sandbox.ip}" in out


def test_logs_come_back_whole_with_tail_and_timestamps(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("logs")
    cid = run(runtime, sandbox,
              "echo one; echo two >&2; echo -n 'part'; sleep 0.2; echo ial; echo three")
    assert wait_exit(runtime, cid).exit_code == 0
    lines = logs(runtime, cid)
    assert sorted(lines) == sorted([b"one\n", b"two\n", b"partial\n", b"three\n"])
    assert logs(runtime, cid, tail_lines=1) == [b"three\n"]
    assert logs(runtime, cid, tail_lines=0) == []
    stamped = logs(runtime, cid, timestamps=True)
    assert len(stamped) == 4
    assert all(_RFC3339_NANO.match(line) for line in stamped), stamped
    assert logs(runtime, cid, limit_bytes=6) == [b"one\n", b"tw"] or \
        len(b"".join(logs(runtime, cid, limit_bytes=6))) == 6
    assert logs(runtime, cid, since_seconds=3600) == lines
    assert logs(runtime, cid, since_seconds=3600, tail_lines=2) == lines[-2:]


def test_logs_since_keeps_only_recent_lines(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("since")
    cid = run(runtime, sandbox, "echo early; sleep 2; echo late")
    assert wait_exit(runtime, cid).exit_code == 0
    assert logs(runtime, cid, since_seconds=1.0) == [b"late\n"]
    assert logs(runtime, cid, since_seconds=30.0) == [b"early\n", b"late\n"]


def test_follow_streams_until_the_container_exits(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("follow")
    cid = run(runtime, sandbox, "for i in 1 2 3 4; do echo line $i; sleep 0.3; done")
    started = time.monotonic()
    got = logs(runtime, cid, follow=True)
    assert got == [b"line 1\n", b"line 2\n", b"line 3\n", b"line 4\n"]
    assert time.monotonic() - started < 15


def test_follow_ends_when_alive_turns_false(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("alive")
    cid = run(runtime, sandbox, "echo hello; sleep 60")
    deadline = time.monotonic() + 1.5
    started = time.monotonic()
    got = logs(runtime, cid, follow=True, alive=lambda: time.monotonic() < deadline)
    assert got == [b"hello\n"]
    assert time.monotonic() - started < 5


def test_follow_with_tail_starts_at_the_tail(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("followtail")
    cid = run(runtime, sandbox, "echo a; echo b; echo c; sleep 1; echo d")
    wait_for(lambda: b"c\n" in logs(runtime, cid), "the first three lines", timeout=15)
    assert logs(runtime, cid, follow=True, tail_lines=1) in ([b"c\n", b"d\n"], [b"d\n"])


def test_logs_of_an_unknown_container_raise(runtime: PodmanRuntime) -> None:
    with pytest.raises(ContainerNotFound):
        runtime.container_logs("0" * 64)


# ---------------------------------------------------------------------- exit states


@pytest.mark.parametrize(("script", "code", "reason"), [
    ("exit 0", 0, "Completed"),
    ("exit 3", 3, "Error"),
])
def test_exit_code_and_reason(runtime: PodmanRuntime, make_sandbox: MakeSandbox,
                              script: str, code: int, reason: str) -> None:
    sandbox = make_sandbox("exit")
    cid = run(runtime, sandbox, script)
    status = wait_exit(runtime, cid)
    assert (status.state, status.exit_code, status.reason) == (CONTAINER_EXITED, code, reason)
    assert status.started_at is not None and status.finished_at is not None
    assert status.finished_at >= status.started_at
    assert status.image == BUSYBOX and status.image_id.startswith("sha256:")
    same = listed(runtime, sandbox, cid)
    assert (same.state, same.exit_code, same.reason) == (CONTAINER_EXITED, code, reason)


def test_over_its_memory_limit_a_container_ends_oomkilled(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("oom")
    # The shell keeps 64 MiB of "a"s in a variable: far over the 16 MiB limit.
    cid = run(runtime, sandbox, "x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo ${#x}",
              memory_limit_bytes=16 * 1024 * 1024)
    status = wait_exit(runtime, cid)
    assert status.exit_code == 137
    assert status.reason == "OOMKilled"
    assert listed(runtime, sandbox, cid).reason == "OOMKilled"


def test_a_container_that_cannot_start_is_reported_as_such(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("cannotrun")
    config = ContainerConfig(name="bad", image=BUSYBOX, command=("/no/such/binary",),
                             labels=sandbox.labels)
    cid = runtime.create_container(sandbox.id, config)
    with pytest.raises(ContainerRuntimeError, match="no/such/binary"):
        runtime.start_container(cid)
    status = listed(runtime, sandbox, cid)
    assert (status.state, status.exit_code, status.reason) == (
        CONTAINER_EXITED, 128, "ContainerCannotRun")
    assert "no/such/binary" in status.message
    with pytest.raises(InvalidState):
        runtime.start_container(cid)


def test_starting_twice_is_invalid_and_teardown_is_idempotent(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("twice")
    cid = run(runtime, sandbox, "sleep 60")
    with pytest.raises(InvalidState):
        runtime.start_container(cid)
    runtime.stop_container(cid, 0)
    runtime.stop_container(cid, 0)
    runtime.remove_container(cid)
    runtime.remove_container(cid)
    with pytest.raises(ContainerNotFound):
        runtime.start_container(cid)


def test_stopping_a_created_container_completes_it(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("created")
    cid = run(runtime, sandbox, "sleep 60", start=False)
    assert listed(runtime, sandbox, cid).state == CONTAINER_CREATED
    runtime.stop_container(cid, 1)
    status = listed(runtime, sandbox, cid)
    assert (status.state, status.exit_code, status.reason) == (CONTAINER_EXITED, 0, "Completed")


# ---------------------------------------------------------------------- resources in cgroups

_CGROUP_SCRIPT = """
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  echo "cpu.max $(cat /sys/fs/cgroup/cpu.max)"
  echo "memory.max $(cat /sys/fs/cgroup/memory.max)"
  echo "cpu.weight $(cat /sys/fs/cgroup/cpu.weight)"
else
  echo "cfs_quota $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us)"
  echo "cfs_period $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"
  echo "shares $(cat /sys/fs/cgroup/cpu/cpu.shares)"
  echo "memory $(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)"
fi
echo "nofile $(ulimit -n)"
"""


def test_cpu_and_memory_limits_are_in_the_containers_cgroup(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("limits")
    cid = run(runtime, sandbox, _CGROUP_SCRIPT, cpu_millis_request=250, cpu_millis_limit=500,
              memory_limit_bytes=64 * 1024 * 1024)
    assert wait_exit(runtime, cid).exit_code == 0
    values = dict(line.decode().strip().split(" ", 1) for line in logs(runtime, cid))
    if "cpu.max" in values:  # cgroup v2 hosts
        assert values["cpu.max"] == "50000 100000"
        assert values["memory.max"] == str(64 * 1024 * 1024)
    else:
        assert values["cfs_quota"] == "50000"
        assert values["cfs_period"] == "100000"
        assert values["shares"] == "256"  # 250m * 1024 / 1000
        assert values["memory"] == str(64 * 1024 * 1024)
    assert int(values["nofile"]) == runtime.ulimits["nofile"][0]


def test_sandbox_cgroup_parent_holds_the_containers(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox, cgroup_parent: str) -> None:
    sandbox = make_sandbox("cgparent", cgroup_parent=cgroup_parent)
    cid = run(runtime, sandbox, "cat /proc/self/cgroup")
    assert wait_exit(runtime, cid).exit_code == 0
    text = b"".join(logs(runtime, cid)).decode()
    memory = [line for line in text.splitlines() if ":memory:" in line or line.startswith("0::")]
    assert memory and all(cgroup_parent in line for line in memory), text
    runtime.remove_sandbox(sandbox.id)  # so the fixture can remove the cgroup directories


# ---------------------------------------------------------------------- exec


def test_exec_sync_exit_codes_output_and_timeout(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("exec")
    cid = run(runtime, sandbox, "sleep 120")
    ok = runtime.exec_sync(cid, ["sh", "-c", "echo out; echo err >&2"], timeout=10)
    assert (ok.exit_code, ok.timed_out) == (0, False)
    assert sorted(ok.output.splitlines()) == [b"err", b"out"]
    failed = runtime.exec_sync(cid, ["sh", "-c", "exit 3"], timeout=10)
    assert failed.exit_code == 3
    missing = runtime.exec_sync(cid, ["/no/such/probe"], timeout=10)
    assert missing.exit_code in (126, 127) and not missing.timed_out
    started = time.monotonic()
    slow = runtime.exec_sync(cid, ["sleep", "30"], timeout=1)
    took = time.monotonic() - started
    assert slow.timed_out and 1 <= took < 6
    # The timed-out command was killed, not left behind.
    check = runtime.exec_sync(cid, ["sh", "-c", "ps | grep -c '[s]leep 30' || true"], timeout=10)
    assert check.output.strip() == b"0", check.output


def test_exec_in_a_stopped_container_is_invalid(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("execstopped")
    cid = run(runtime, sandbox, "true")
    wait_exit(runtime, cid)
    with pytest.raises(InvalidState):
        runtime.exec_sync(cid, ["true"], timeout=5)


# ---------------------------------------------------------------------- ports


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_host_port_reaches_httpd_in_the_pod(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    port = _free_port()
    sandbox = make_sandbox("httpd", ports=(PortMapping(8080, port, "TCP"),))
    run(runtime, sandbox,
        "mkdir -p /www && echo hello-from-$(hostname) > /www/index.html && "
        "exec httpd -f -p 8080 -h /www")
    deadline = time.monotonic() + 15
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as reply:
                body = reply.read()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    assert body == b"hello-from-httpd\n"


# ---------------------------------------------------------------------- stop with grace


def test_stop_delivers_sigterm_to_a_container_that_traps_it(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("trap")
    cid = run(runtime, sandbox,
              "trap 'echo got TERM; exit 0' TERM; echo ready; "
              "while true; do sleep 0.1; done")
    wait_for(lambda: b"ready\n" in logs(runtime, cid), "the trap to be set", timeout=15)
    started = time.monotonic()
    runtime.stop_container(cid, 10)
    took = time.monotonic() - started
    status = listed(runtime, sandbox, cid)
    assert (status.state, status.exit_code, status.reason) == (CONTAINER_EXITED, 0, "Completed")
    assert took < 5, f"stop took {took:.1f}s: SIGTERM was not delivered"
    assert b"got TERM\n" in logs(runtime, cid)


def test_stop_kills_a_container_that_ignores_sigterm_after_the_grace_period(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("ignore")
    cid = run(runtime, sandbox, "trap '' TERM; echo ready; while true; do sleep 0.1; done")
    wait_for(lambda: b"ready\n" in logs(runtime, cid), "the trap to be set", timeout=15)
    started = time.monotonic()
    runtime.stop_container(cid, 2)
    took = time.monotonic() - started
    status = listed(runtime, sandbox, cid)
    assert (status.state, status.exit_code, status.reason) == (CONTAINER_EXITED, 137, "Error")
    assert 2 <= took < 7, f"stop took {took:.1f}s with a 2s grace period"


def test_stop_sandbox_stops_everything_and_it_stays_listed(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("stopsb")
    cid = run(runtime, sandbox, "sleep 60")  # PID 1 without a handler: ignores SIGTERM
    started = time.monotonic()
    runtime.stop_sandbox(sandbox.id, 0)  # no grace: killed at once
    assert time.monotonic() - started < 5
    found = runtime.list_sandboxes({LABEL_POD_UID: sandbox.labels[LABEL_POD_UID]})
    assert [(s.id, s.state) for s in found] == [(sandbox.id, SANDBOX_NOTREADY)]
    assert listed(runtime, sandbox, cid).state == CONTAINER_EXITED
    with pytest.raises(InvalidState):
        run(runtime, sandbox, "true", name="late")
    runtime.stop_sandbox(sandbox.id, 1)  # idempotent


# ---------------------------------------------------------------------- labels and listing


def test_labels_round_trip_and_filter(runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    a = make_sandbox("label-a", labels={"app": "a", "tier": "web"})
    b = make_sandbox("label-b", labels={"app": "b", "tier": "web"})
    assert {s.id for s in runtime.list_sandboxes({"app": "a", LABEL_NODE: NODE})} == {a.id}
    assert {s.id for s in runtime.list_sandboxes({"tier": "web", LABEL_NODE: NODE})} >= {
        a.id, b.id}
    assert runtime.list_sandboxes({"app": "nope", LABEL_NODE: NODE}) == []
    assert a.labels["app"] == "a" and a.labels[LABEL_NODE] == NODE
    labels = {**a.labels, LABEL_CONTAINER_NAME: "c1", "custom": "x=y, z"}
    cid = runtime.create_container(a.id, ContainerConfig(
        name="c1", image=BUSYBOX, command=("true",), labels=labels))
    status = listed(runtime, a, cid)
    assert dict(status.labels) == labels  # exactly: no image labels mixed in
    assert status.name == "c1" and status.sandbox_id == a.id
    assert runtime.list_containers(b.id) == []
    assert cid in {c.id for c in runtime.list_containers()}


def test_unknown_sandbox(runtime: PodmanRuntime) -> None:
    with pytest.raises(SandboxNotFound):
        runtime.create_container("f" * 64, ContainerConfig(name="x", image=BUSYBOX))
    assert runtime.list_containers("f" * 64) == []
    runtime.stop_sandbox("f" * 64)
    runtime.remove_sandbox("f" * 64)


def test_mounts_env_workdir_and_security(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox, tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("from the host\n")
    os.chmod(tmp_path, 0o755)
    sandbox = make_sandbox("config")
    cid = run(runtime, sandbox,
              'cat /data/hello.txt; echo "$GREETING $SECOND"; pwd; id -u; id -g; '
              "touch /rootfs-write 2>/dev/null && echo writable || echo read-only; "
              "touch /data/new 2>/dev/null && echo data-writable || echo data-read-only",
              env=(("GREETING", "hi"), ("SECOND", "there")), working_dir="/tmp",
              mounts=(Mount(str(tmp_path), "/data", read_only=True),),
              security=SecurityConfig(run_as_user=1000, run_as_group=1000,
                                      read_only_root_fs=True, cap_drop=("NET_RAW",)))
    assert wait_exit(runtime, cid).exit_code == 0
    assert b"".join(logs(runtime, cid)).decode().splitlines() == [
        "from the host", "hi there", "/tmp", "1000", "1000", "read-only", "data-read-only"]


# ---------------------------------------------------------------------- events


def _collect(stream: object, want: set[tuple[str, str]], timeout: float = 20.0
             ) -> list[RuntimeEvent]:
    got: list[RuntimeEvent] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = stream.next(timeout=0.5)  # type: ignore[attr-defined]
        if event is None:
            continue
        got.append(event)
        if want <= {(e.type, e.container_id or e.sandbox_id) for e in got}:
            break
    return got


def test_events_for_sandbox_and_container_lifecycle(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    stream = runtime.events()
    try:
        sandbox = make_sandbox("events")
        cid = run(runtime, sandbox, "sleep 0.3")
        wait_exit(runtime, cid)
        runtime.remove_container(cid)
        runtime.remove_sandbox(sandbox.id)
        want = {(EVENT_SANDBOX_READY, sandbox.id), (EVENT_CONTAINER_CREATED, cid),
                (EVENT_CONTAINER_STARTED, cid), (EVENT_CONTAINER_STOPPED, cid),
                (EVENT_CONTAINER_DELETED, cid), (EVENT_SANDBOX_STOPPED, sandbox.id),
                (EVENT_SANDBOX_DELETED, sandbox.id)}
        got = _collect(stream, want)
        seen = {(e.type, e.container_id or e.sandbox_id) for e in got}
        assert want <= seen, f"missing {want - seen}"
        mine = [e for e in got if e.container_id == cid]
        assert [e.type for e in mine] == [EVENT_CONTAINER_CREATED, EVENT_CONTAINER_STARTED,
                                         EVENT_CONTAINER_STOPPED, EVENT_CONTAINER_DELETED]
        assert all(e.sandbox_id == sandbox.id and e.labels[LABEL_CONTAINER_NAME] == "main"
                   for e in mine)
        assert all(e.labels.get(LABEL_NODE) == NODE for e in got
                   if e.sandbox_id == sandbox.id)
    finally:
        stream.stop()


def test_event_stream_stop_wakes_a_blocked_reader(runtime: PodmanRuntime) -> None:
    stream = runtime.events()
    result: list[object] = []
    reader = threading.Thread(target=lambda: result.append(stream.next()))
    reader.start()
    wait_for(lambda: blocked_in(reader, PodmanEventStream.next), "the reader to block",
             timeout=5)
    started = time.monotonic()
    stream.stop()
    reader.join(5)
    assert not reader.is_alive() and result == [None]
    assert time.monotonic() - started < 2
    assert stream.next(timeout=0.1) is None


# ---------------------------------------------------------------------- stats


def test_stats_report_cpu_and_memory_of_running_containers(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("stats")
    cid = run(runtime, sandbox, "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 60")

    def sampled() -> ContainerStats | None:
        mine = next((s for s in runtime.stats() if s.container_id == cid), None)
        return mine if mine is not None and mine.cpu_nanos > 0 else None

    # Until a sample shows the busy loop's CPU time (a second was usually enough).
    mine = wait_for(sampled, "a stats sample with CPU time", timeout=30)
    assert mine.memory_bytes > 0
    assert abs(mine.at - time.time()) < 60


# ---------------------------------------------------------------------- images


def test_images(runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    image = runtime.image_status(BUSYBOX)
    assert image is not None and image.id.startswith("sha256:") and image.size_bytes > 0
    assert BUSYBOX in image.names
    assert runtime.pull_image(BUSYBOX) == image.id  # local image: no registry asked
    assert image.id in {i.id for i in runtime.list_images()}
    assert runtime.image_status("localhost/minikube-py/no-such-image:1") is None
    with pytest.raises(ImageNotFound) as info:
        runtime.pull_image("registry.invalid/minikube-py/nothing:1")
    assert "registry.invalid" in str(info.value)
    sandbox = make_sandbox("noimage")
    with pytest.raises(ImageNotFound):
        runtime.create_container(sandbox.id, ContainerConfig(
            name="x", image="localhost/minikube-py/no-such-image:1", labels=sandbox.labels))


# ---------------------------------------------------------------------- removal


def test_remove_sandbox_leaves_nothing_behind(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("remove")
    run(runtime, sandbox, "sleep 60")
    run(runtime, sandbox, "true", name="second")
    assert len(runtime.list_containers(sandbox.id)) == 2
    started = time.monotonic()
    runtime.remove_sandbox(sandbox.id)  # forcibly: no grace period for "sleep"
    assert time.monotonic() - started < 5
    uid = sandbox.labels[LABEL_POD_UID]
    assert runtime.list_sandboxes({LABEL_POD_UID: uid}) == []
    assert runtime.list_containers(sandbox.id) == []
    assert not [c for c in runtime.list_containers() if c.labels.get(LABEL_POD_UID) == uid]
    runtime.remove_sandbox(sandbox.id)  # idempotent


def test_running_state_is_reported(runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("running")
    cid = run(runtime, sandbox, "sleep 60")
    status = listed(runtime, sandbox, cid)
    assert status.state == CONTAINER_RUNNING and status.started_at is not None
    assert status.exit_code is None and status.reason == ""


# ---------------------------------------------------------------------- robustness


def test_concurrent_use_from_several_threads(
        runtime: PodmanRuntime, make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox("threads")
    errors: list[BaseException] = []
    made: list[str] = []

    def work(i: int) -> None:
        try:
            cid = run(runtime, sandbox, f"echo worker {i}", name=f"w{i}")
            made.append(cid)
            wait_exit(runtime, cid)
            runtime.list_containers(sandbox.id)
            runtime.list_sandboxes({LABEL_NODE: NODE})
            assert logs(runtime, cid) == [f"worker {i}\n".encode()]
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert {c.id for c in runtime.list_containers(sandbox.id)} == set(made)


def test_event_stream_reconnects_after_the_service_restarts(
        podman_host: HostCheck, tmp_path: Path) -> None:
    # A second service of our own (same storage), so restarting it disturbs no other test.
    service = PodmanService(tmp_path / "state")
    rt: PodmanRuntime | None = None
    made: list[str] = []
    try:
        url = service.start()
        rt = PodmanRuntime(url, state_dir=tmp_path / "rt", ulimits=podman_host.ulimits,
                           oci_runtime=podman_host.oci_runtime)
        stream = rt.events()
        try:
            # The stream is connected (to the service about to restart) once an event
            # has come through it. That sandbox stays until the end: removing it would
            # send more events.
            before = rt.run_sandbox(sandbox_config("before"))
            made.append(before.id)
            first = _collect(stream, {(EVENT_SANDBOX_READY, before.id)}, timeout=20)
            assert (EVENT_SANDBOX_READY, before.id) in {(e.type, e.sandbox_id) for e in first}
            service.restart()
            # No wait for the reconnection: what the new service logs before it, the
            # reconnection replays after its resumed marker.
            sandbox = rt.run_sandbox(sandbox_config("reconnect"))
            made.append(sandbox.id)
            got = _collect(stream, {(EVENT_SANDBOX_READY, sandbox.id)}, timeout=20)
            assert (EVENT_SANDBOX_READY, sandbox.id) in {(e.type, e.sandbox_id) for e in got}
            # The consumer heard of the gap: one interrupted marker, then one resumed,
            # both before the event that came over the new connection.
            kinds = [e.type for e in got]
            assert kinds.count(EVENT_STREAM_INTERRUPTED) == 1, kinds
            assert kinds.count(EVENT_STREAM_RESUMED) == 1, kinds
            assert kinds.index(EVENT_STREAM_INTERRUPTED) < kinds.index(EVENT_STREAM_RESUMED) \
                < kinds.index(EVENT_SANDBOX_READY), kinds
        finally:
            stream.stop()
    finally:
        if rt is not None:
            for sandbox_id in made:
                rt.remove_sandbox(sandbox_id)
            rt.close()
        service.stop()
