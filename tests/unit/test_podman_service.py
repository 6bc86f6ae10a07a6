"""The Podman host check's pure logic, and the Podman runtime's pure helpers.

No Podman here: limit detection and planning, the containers.conf we
generate, how OCI runtime errors are read and the plan adapted, the one
message that lists what is missing; then the runtime's JSON translations
(specs, log frames, times, events, kernel OOM records).
"""

from __future__ import annotations

import json
import struct
from dataclasses import replace

import pytest

from minikube_py.runtime import podman_service
from minikube_py.runtime.base import (
    EVENT_CONTAINER_STOPPED,
    EVENT_SANDBOX_DELETED,
    EVENT_SANDBOX_READY,
    LABEL_NODE,
    LABEL_POD_UID,
    ContainerConfig,
    DNSConfig,
    Mount,
    PortMapping,
    SandboxConfig,
    SecurityConfig,
)
from minikube_py.runtime.images import is_static_elf
from minikube_py.runtime.podman_api import FrameDecoder, normalize_url, parse_time, rfc3339_nano
from minikube_py.runtime.podman_events import CONFIG_LABEL, translate
from minikube_py.runtime.podman_logs import LineAssembler
from minikube_py.runtime.podman_oom import oom_container_ids
from minikube_py.runtime.podman_service import (
    PODMAN_DEFAULT_RLIMIT,
    EnginePlan,
    HostCheck,
    HostFacts,
    PodmanService,
    PodmanUnavailable,
    adapt_plan,
    cgroup_mode,
    containers_conf,
    plan_engine,
    rlimit_error,
)
from minikube_py.runtime.podman_spec import (
    config_label,
    container_spec,
    container_state,
    cpu_quota,
    cpu_shares,
    pod_spec,
)

# What this kind of host looks like (measured on Debian 12 in a sandbox).
HYBRID_MOUNTINFO = """\
25 30 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
26 25 0:24 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
27 26 0:25 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
28 26 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
29 26 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
UNIFIED_MOUNTINFO = "26 25 0:24 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n"
LEGACY_MOUNTINFO = "\n".join(HYBRID_MOUNTINFO.splitlines()[:4]) + "\n"

RUNC_NOFILE = ("runc: runc create failed: unable to start container process: error during "
               "container init: error setting rlimits for ready process: error setting rlimit "
               "type 7: operation not permitted: OCI permission denied")
RUNC_NPROC = RUNC_NOFILE.replace("type 7", "type 6")
CRUN_HYBRID = ("crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2: "
               "OCI runtime error")


def facts(**changes: object) -> HostFacts:
    base = {"nofile_hard": 20000, "nproc_hard": 96365, "pid_max": 32768, "cgroups": "hybrid",
            "crun": None, "runc": "/usr/sbin/runc"}
    base.update(changes)
    return HostFacts(**base)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- detection


@pytest.mark.parametrize(("text", "mode"), [
    (HYBRID_MOUNTINFO, "hybrid"), (UNIFIED_MOUNTINFO, "unified"), (LEGACY_MOUNTINFO, "legacy"),
    ("", "legacy"),
])
def test_cgroup_mode(text: str, mode: str) -> None:
    assert cgroup_mode(text) == mode


def test_detect_host_reads_this_process() -> None:
    found = podman_service.detect_host()
    assert found.nofile_hard > 0 and found.nproc_hard > 0 and found.pid_max > 0
    assert found.cgroups in {"unified", "hybrid", "legacy"}


# ---------------------------------------------------------------------- planning


def test_plan_on_this_kind_of_host() -> None:
    plan = plan_engine(facts())
    assert plan.ulimits == {"nofile": (20000, 20000), "nproc": (32768, 32768)}
    assert plan.oci_runtime == "runc"  # crun absent, runc present
    assert plan.notes == ("container nofile limit set to 20000 (host hard limit)",
                          "container nproc limit set to 32768 (kernel.pid_max)")
    assert plan.problems == ()


def test_crun_on_hybrid_cgroups_switches_to_runc() -> None:
    plan = plan_engine(facts(crun="/usr/bin/crun"))
    assert plan.oci_runtime == "runc"
    assert "crun cannot run containers on this host's hybrid cgroups; using runc" in plan.notes


def test_crun_on_unified_cgroups_is_left_alone() -> None:
    plan = plan_engine(facts(crun="/usr/bin/crun", cgroups="unified"))
    assert plan.oci_runtime is None
    assert not any("crun" in n for n in plan.notes)


def test_crun_on_hybrid_without_runc_is_a_problem() -> None:
    plan = plan_engine(facts(crun="/usr/bin/crun", runc=None))
    assert plan.problems == ("crun cannot run containers on this host's hybrid cgroups and "
                             "runc is not installed: apt-get install runc",)


def test_no_oci_runtime_is_a_problem() -> None:
    plan = plan_engine(facts(runc=None))
    assert plan.problems == ("no OCI runtime (runc or crun) is installed: "
                             "apt-get install podman runc",)


def test_generous_hosts_keep_podmans_defaults_without_notes() -> None:
    plan = plan_engine(facts(nofile_hard=1 << 62, nproc_hard=1 << 62, pid_max=4194304,
                             cgroups="unified", crun="/usr/bin/crun"))
    assert plan.ulimits == {"nofile": (PODMAN_DEFAULT_RLIMIT, PODMAN_DEFAULT_RLIMIT),
                            "nproc": (PODMAN_DEFAULT_RLIMIT, PODMAN_DEFAULT_RLIMIT)}
    assert plan.notes == ()


def test_nproc_limited_by_its_hard_limit_says_so() -> None:
    plan = plan_engine(facts(nproc_hard=4096))
    assert plan.ulimits["nproc"] == (4096, 4096)
    assert "container nproc limit set to 4096 (host hard limit)" in plan.notes


def test_containers_conf() -> None:
    text = containers_conf(plan_engine(facts()))
    assert 'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]' in text
    assert '[engine]\nexit_command_delay = 2\nruntime = "runc"' in text
    # Ended exec sessions go 2 s after their exit whatever the OCI runtime.
    plain = containers_conf(EnginePlan({"nofile": (5, 5)}, None))
    assert "[engine]\nexit_command_delay = 2\n" in plain and "runtime =" not in plain


# ---------------------------------------------------------------------- reading errors, adapting


@pytest.mark.parametrize(("message", "kind"), [
    (RUNC_NOFILE, "nofile"),
    (RUNC_NPROC, "nproc"),
    ("runc create failed: ... error setting rlimit type 7 (nofile): operation not permitted",
     "nofile"),
    ("crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted: OCI permission denied", "nofile"),
    ("crun: setrlimit `RLIMIT_NPROC`: Operation not permitted", "nproc"),
    ("executable file not found in $PATH", None),
    (CRUN_HYBRID, None),
])
def test_rlimit_error(message: str, kind: str | None) -> None:
    assert rlimit_error(message) == kind


def test_adapt_switches_crun_to_runc() -> None:
    plan = EnginePlan({"nofile": (20000, 20000)}, None)
    adapted = adapt_plan(plan, facts(crun="/usr/bin/crun", cgroups="unified"), CRUN_HYBRID)
    assert adapted is not None and adapted.oci_runtime == "runc"
    assert adapted.notes[-1] == ("crun cannot run containers on this host's hybrid cgroups; "
                                 "using runc")
    assert adapt_plan(plan, facts(crun="/usr/bin/crun", runc=None), CRUN_HYBRID) is None


def test_adapt_lowers_a_limit_to_the_host_then_halves() -> None:
    big = EnginePlan({"nofile": (PODMAN_DEFAULT_RLIMIT,) * 2, "nproc": (32768, 32768)}, "runc")
    first = adapt_plan(big, facts(), RUNC_NOFILE)
    assert first is not None and first.ulimits["nofile"] == (20000, 20000)
    assert first.notes[-1] == ("container nofile limit lowered to 20000 "
                               f"(the OCI runtime may not set {PODMAN_DEFAULT_RLIMIT} here)")
    second = adapt_plan(first, facts(), RUNC_NOFILE)
    assert second is not None and second.ulimits["nofile"] == (10000, 10000)
    assert [n for n in second.notes if "nofile" in n] == [
        "container nofile limit lowered to 10000 (the OCI runtime may not set 20000 here)"]
    nproc = adapt_plan(big, facts(), RUNC_NPROC)
    assert nproc is not None and nproc.ulimits["nproc"] == (16384, 16384)


def test_adapt_gives_up() -> None:
    floor = EnginePlan({"nofile": (1024, 1024)}, "runc")
    assert adapt_plan(floor, facts(), RUNC_NOFILE) is None
    assert adapt_plan(floor, facts(), "executable file not found") is None


# ---------------------------------------------------------------------- messages and the service


def test_host_check_message() -> None:
    check = HostCheck("unix:///s/podman.sock", "4.3.1", {"nofile": (20000, 20000)}, "runc",
                      True, ("container nofile limit set to 20000 (host hard limit)",),
                      ("localhost/minikube-py/busybox:1.35",))
    assert check.message.splitlines() == [
        "Podman 4.3.1 ready at unix:///s/podman.sock (own service; OCI runtime runc)",
        "  adapted: container nofile limit set to 20000 (host hard limit)",
        "  built image localhost/minikube-py/busybox:1.35"]


def test_everything_missing_is_reported_in_one_message(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv(podman_service.SOCKET_ENV, raising=False)
    monkeypatch.setattr(podman_service, "_which", lambda name: None)
    from minikube_py.runtime import images
    monkeypatch.setattr(images, "HOST_BUSYBOX", tmp_path / "no-busybox")
    with pytest.raises(PodmanUnavailable) as info:
        PodmanService(tmp_path).check()
    lines = str(info.value).splitlines()
    assert lines[0] == "Podman cannot run minikube-py's containers on this host:"
    assert "  - podman is not installed: apt-get install podman runc" in lines
    assert any("no OCI runtime" in line for line in lines)
    assert any("busybox-static is not installed" in line and "apt-get install busybox-static"
               in line for line in lines)


def test_socket_from_argument_or_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv(podman_service.SOCKET_ENV, "/run/podman/podman.sock")
    assert PodmanService(tmp_path).external_url == "unix:///run/podman/podman.sock"
    assert PodmanService(tmp_path, socket="unix:///x.sock").external_url == "unix:///x.sock"
    monkeypatch.delenv(podman_service.SOCKET_ENV)
    service = PodmanService(tmp_path)
    assert service.external_url is None
    assert service.socket_path == tmp_path / "podman" / "podman.sock"


def test_an_unanswering_socket_is_reported(tmp_path) -> None:
    service = PodmanService(tmp_path, socket=str(tmp_path / "nobody.sock"))
    with pytest.raises(PodmanUnavailable, match="does not answer"):
        service.start(timeout=0.3)


# ---------------------------------------------------------------------- runtime: specs


def test_cpu_and_memory_formulas_match_the_kubelet() -> None:
    assert cpu_shares(0) == 2 and cpu_shares(1) == 2 and cpu_shares(250) == 256
    assert cpu_shares(1000) == 1024 and cpu_shares(10**9) == 262144
    assert cpu_quota(0) == 0 and cpu_quota(500) == 50000 and cpu_quota(1) == 1000


def test_container_spec() -> None:
    config = ContainerConfig(
        name="web", image="localhost/minikube-py/busybox:1.35", command=("sh", "-c"),
        args=("echo hi",), env=(("A", "1"), ("B", "2"), ("A", "3")), working_dir="/w",
        cpu_millis_request=250, cpu_millis_limit=500, memory_limit_bytes=64 << 20,
        mounts=(Mount("/host", "/data", read_only=True),),
        security=SecurityConfig(run_as_user=1000, run_as_group=2000, read_only_root_fs=True,
                                cap_add=("NET_ADMIN",), cap_drop=("ALL",)),
        labels={LABEL_POD_UID: "u1", "x": "y"})
    spec = container_spec("pod1", config, name="n", pod_labels={LABEL_NODE: "node-1", "app": "a"},
                          ulimits={"nofile": (20000, 20000)}, oci_runtime="runc")
    assert spec["pod"] == "pod1" and spec["name"] == "n" and spec["oci_runtime"] == "runc"
    assert spec["entrypoint"] == ["sh", "-c"] and spec["command"] == ["echo hi"]
    assert spec["env"] == {"A": "3", "B": "2"}
    assert spec["resource_limits"] == {
        "cpu": {"shares": 256, "quota": 50000, "period": 100000},
        "memory": {"limit": 64 << 20, "swap": 64 << 20}}
    assert spec["r_limits"] == [{"type": "nofile", "soft": 20000, "hard": 20000}]
    assert spec["mounts"] == [{"destination": "/data", "source": "/host", "type": "bind",
                               "options": ["rbind", "ro"]}]
    assert spec["stop_signal"] == 15 and spec["work_dir"] == "/w" and spec["user"] == "1000:2000"
    assert spec["cap_add"] == ["CAP_NET_ADMIN"] and spec["cap_drop"] == ["ALL"]
    assert spec["read_only_filesystem"] is True and "privileged" not in spec
    labels = spec["labels"]
    assert labels[LABEL_NODE] == "node-1" and "app" not in labels and labels["x"] == "y"
    assert json.loads(labels[CONFIG_LABEL]) == {
        "name": "web", "image": "localhost/minikube-py/busybox:1.35",
        "labels": {LABEL_POD_UID: "u1", "x": "y"}, "init": False}


def test_container_spec_keeps_the_image_defaults_when_unset() -> None:
    spec = container_spec("p", ContainerConfig(name="c", image="i"), name="n", pod_labels={},
                          ulimits={}, oci_runtime=None)
    for key in ("entrypoint", "command", "work_dir", "user", "oci_runtime", "cap_add"):
        assert key not in spec
    assert spec["resource_limits"] == {"cpu": {"shares": 2}}


def test_pod_spec() -> None:
    config = SandboxConfig(uid="u" * 36, namespace="default", name="web-1", node="n1",
                           labels={"app": "web"}, hostname="",
                           port_mappings=(PortMapping(80, 8080, "TCP", "127.0.0.1"),
                                          PortMapping(53, 0, "UDP")),
                           cgroup_parent="minikube-py/n1")
    spec = pod_spec(config, name="k8s_web-1")
    assert spec["hostname"] == "web-1" and spec["cgroup_parent"] == "minikube-py/n1"
    assert spec["portmappings"] == [{"container_port": 80, "host_port": 8080,
                                     "protocol": "tcp", "host_ip": "127.0.0.1"}]
    assert spec["labels"] == {"app": "web", LABEL_POD_UID: "u" * 36,
                              "minikube-py.io/namespace": "default",
                              "minikube-py.io/name": "web-1", LABEL_NODE: "n1"}


def test_pod_spec_network_and_dns() -> None:
    plain = SandboxConfig(uid="u", namespace="default", name="p", node="n1")
    spec = pod_spec(plain, name="k8s_p")
    for key in ("netns", "Networks", "dns_server", "dns_search", "dns_option"):
        assert key not in spec  # Podman's defaults
    config = replace(plain, dns=DNSConfig(("10.96.0.10",), ("default.svc.cluster.local",),
                                          ("ndots:5",)))
    spec = pod_spec(config, name="k8s_p", network="minikube-py-abc")
    assert spec["netns"] == {"nsmode": "bridge"}
    assert spec["Networks"] == {"minikube-py-abc": {}}
    assert (spec["dns_server"], spec["dns_search"], spec["dns_option"]) == (
        ["10.96.0.10"], ["default.svc.cluster.local"], ["ndots:5"])
    # No search domains must not let Podman copy the host's: "." means none.
    bare = pod_spec(replace(plain, dns=DNSConfig(("1.1.1.1",))), name="k8s_p")
    assert bare["dns_search"] == ["."]


@pytest.mark.parametrize(("state", "expected"), [
    ("created", "created"), ("configured", "created"), ("running", "running"),
    ("paused", "running"), ("exited", "exited"), ("stopped", "exited"), ("weird", "unknown"),
])
def test_container_state(state: str, expected: str) -> None:
    assert container_state(state) == expected


# ---------------------------------------------------------------------- runtime: streams


def frame(stream: int, payload: bytes) -> bytes:
    return bytes([stream, 0, 0, 0]) + len(payload).to_bytes(4, "big") + payload


def test_frame_decoder_handles_split_frames_and_raw_streams() -> None:
    data = frame(1, b"out\n") + frame(2, b"err\n")
    decoder = FrameDecoder()
    got = []
    for i in range(len(data)):
        got += decoder.feed(data[i:i + 1])
    assert got == [(1, b"out\n"), (2, b"err\n")]
    raw = FrameDecoder()
    assert raw.feed(b"plain text from a tty\n") == [(1, b"plain text from a tty\n")]


def test_line_assembler_joins_partial_frames_and_keeps_times() -> None:
    lines = LineAssembler()
    out = lines.feed(frame(1, b"2026-11-21T10:11:13Z out\n")
                     + frame(1, b"2026-11-21T10:11:13.5Z part")
                     + frame(2, b"2026-11-21T10:11:14Z err\n")
                     + frame(1, b"2026-11-21T10:11:15Z ial\n"))
    t = parse_time("2026-11-21T10:11:13Z")
    assert t is not None
    assert out == [(t, b"out\n"), (t + 1, b"err\n"), (t + 0.5, b"partial\n")]
    assert lines.feed(frame(1, b"2026-11-21T10:11:16Z no newline")) == []
    assert lines.finish() == [(t + 3, b"no newline\n")]


def test_times() -> None:
    assert parse_time("0001-01-01T00:00:00Z") is None
    assert parse_time("garbage") is None
    assert parse_time("2026-11-21T10:11:13.362817730Z") == pytest.approx(1795255873.36281773)
    assert parse_time("2026-11-21T11:11:13+01:00") == parse_time("2026-11-21T10:11:13Z")
    assert rfc3339_nano(1795255873.5) == "2026-11-21T10:11:13.500000000Z"
    assert normalize_url("/run/podman/podman.sock") == "unix:///run/podman/podman.sock"
    assert normalize_url("tcp://localhost:8080") == "tcp://localhost:8080"


# ---------------------------------------------------------------------- runtime: events, OOM


def podman_event(kind: str, action: str, object_id: str, attrs: dict[str, str]) -> dict:
    return {"Type": kind, "Action": action, "Actor": {"ID": object_id, "Attributes": attrs},
            "timeNano": 1795255873_000000000}


def test_translate_container_events_use_the_exact_labels() -> None:
    config = ContainerConfig(name="c", image="i", labels={LABEL_POD_UID: "u", "k": "v"})
    attrs = {"podId": "pod1", "io.buildah.version": "1.28", LABEL_POD_UID: "u", "k": "v",
             CONFIG_LABEL: config_label(config)}
    pods_of: dict[str, str] = {}
    event = translate(podman_event("container", "create", "c1", attrs), lambda p, c: None, pods_of)
    assert event is not None and event.sandbox_id == "pod1" and event.container_id == "c1"
    assert event.labels == {LABEL_POD_UID: "u", "k": "v"} and event.at == 1795255873.0
    died = translate(podman_event("container", "died", "c1", {**attrs, "podId": ""}),
                     lambda p, c: None, pods_of)
    assert died is not None and died.type == EVENT_CONTAINER_STOPPED and died.sandbox_id == "pod1"
    assert translate(podman_event("container", "cleanup", "c1", attrs), lambda p, c: None) is None
    foreign = {"podId": "", "name": "someone-else"}
    assert translate(podman_event("container", "start", "x", foreign), lambda p, c: None) is None


def test_translate_sandbox_events() -> None:
    labels = {LABEL_POD_UID: "u"}

    def resolve(pod_id: str, infra_id: str) -> tuple[str, dict[str, str]] | None:
        return ("pod1", labels) if pod_id == "pod1" or infra_id == "infra1" else None

    ready = translate(podman_event("container", "start", "infra1",
                                   {LABEL_POD_UID: "u", "podId": "pod1"}), resolve)
    assert ready is not None and (ready.type, ready.sandbox_id, ready.container_id) == (
        EVENT_SANDBOX_READY, "pod1", "")
    gone = translate(podman_event("pod", "remove", "pod1", {}), resolve)
    assert gone is not None and gone.type == EVENT_SANDBOX_DELETED and gone.labels == labels
    assert translate(podman_event("pod", "remove", "other", {}), resolve) is None


def test_kernel_oom_records_name_the_container() -> None:
    cid = "e5839ca94c07e074b8c2172407c177282ebf35473e610ed4d1608337938a2352"
    record = (b"6,1155,6226439806,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"
              b"cpuset=libpod-" + cid.encode() + b",mems_allowed=0,oom_memcg=/libpod_parent/"
              b"libpod-" + cid.encode() + b",task_memcg=/libpod_parent/libpod-" + cid.encode()
              + b",task=sh,pid=2584,uid=0\n")
    assert oom_container_ids(record) == {cid}
    assert oom_container_ids(b"6,1,2,-;Memory cgroup out of memory: Killed process 2584\n") == set()


# ---------------------------------------------------------------------- images


def elf(interp: bool) -> bytes:
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 0x20, 64)  # program headers right after
    struct.pack_into("<HH", header, 0x36, 56, 2)
    phdrs = struct.pack("<I", 1) + bytes(52) + struct.pack("<I", 3 if interp else 1) + bytes(52)
    return bytes(header) + phdrs


def test_is_static_elf() -> None:
    assert is_static_elf(elf(interp=False))
    assert not is_static_elf(elf(interp=True))
    assert not is_static_elf(b"#!/bin/sh\n" + bytes(100))
