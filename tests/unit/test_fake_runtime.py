"""FakeRuntime: the in-memory ContainerRuntime behind hollow nodes and kubelet tests."""

from __future__ import annotations

import hashlib
import threading
import time

import pytest

from minikube_py.runtime import (
    ContainerConfig,
    ContainerNotFound,
    ContainerRuntime,
    FakeRuntime,
    ImageNotFound,
    InvalidState,
    SandboxConfig,
    SandboxNotFound,
)
from tests.clock import FakeClock
from tests.waiting import blocked_in, wait_for

NOW = 1_800_000_000.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(NOW)


@pytest.fixture
def rt(clock) -> FakeRuntime:
    return FakeRuntime(clock=clock, missing_images={"ghost:1"})


def sandbox(rt: FakeRuntime, name: str = "web", **labels: str):
    return rt.run_sandbox(SandboxConfig(uid=f"uid-{name}", namespace="default", name=name,
                                        node="node-1", labels={"app": name, **labels}))


def run(rt: FakeRuntime, sb_id: str, name: str = "c", image: str = "busybox:1.36",
        **kw) -> str:
    rt.pull_image(image)
    cid = rt.create_container(sb_id, ContainerConfig(name=name, image=image, **kw))
    rt.start_container(cid)
    return cid


def state(rt: FakeRuntime, cid: str):
    [c] = [c for c in rt.list_containers() if c.id == cid]
    return c


def test_satisfies_the_protocol():
    runtime: ContainerRuntime = FakeRuntime()
    assert runtime.name == "fake"


def test_images_pull_instantly_with_deterministic_ids(rt):
    assert rt.image_status("nginx:1.27") is None
    image_id = rt.pull_image("nginx:1.27")
    assert image_id == "sha256:" + hashlib.sha256(b"nginx:1.27").hexdigest()
    img = rt.image_status("nginx:1.27")
    assert img is not None and img.id == image_id and img.names == ("nginx:1.27",)
    assert img.size_bytes > 0
    assert [i.id for i in rt.list_images()] == [image_id]


def test_missing_image_fails_to_pull_with_a_clear_message(rt):
    with pytest.raises(ImageNotFound, match='image "ghost:1" not found'):
        rt.pull_image("ghost:1")


def test_preloaded_images_are_present():
    rt = FakeRuntime(preloaded_images=["local/app:dev"])
    assert rt.image_status("local/app:dev") is not None


def test_sandbox_ips_are_unique_and_ordered(rt):
    ips = [sandbox(rt, f"p{i}").ip for i in range(300)]
    assert ips[:3] == ["10.88.0.2", "10.88.0.3", "10.88.0.4"]
    assert len(set(ips)) == 300
    assert all(not ip.endswith((".0", ".255")) for ip in ips)


def test_list_sandboxes_filters_by_labels(rt):
    a, b = sandbox(rt, "a", tier="web"), sandbox(rt, "b", tier="db")
    assert [s.id for s in rt.list_sandboxes({"tier": "db"})] == [b.id]
    assert {s.id for s in rt.list_sandboxes()} == {a.id, b.id}
    assert a.state == "ready"
    assert a.created_at == NOW


def test_create_needs_a_present_image_and_a_ready_sandbox(rt):
    sb = sandbox(rt)
    with pytest.raises(ImageNotFound):
        rt.create_container(sb.id, ContainerConfig(name="c", image="never-pulled"))
    with pytest.raises(SandboxNotFound):
        rt.create_container("nope", ContainerConfig(name="c", image="x"))
    rt.stop_sandbox(sb.id)
    rt.pull_image("x")
    with pytest.raises(InvalidState):
        rt.create_container(sb.id, ContainerConfig(name="c", image="x"))


def test_app_container_runs_until_stopped(rt, clock):
    sb = sandbox(rt)
    cid = run(rt, sb.id)
    c = state(rt, cid)
    assert (c.state, c.started_at, c.exit_code) == ("running", NOW, None)
    assert c.image_id.startswith("sha256:")
    clock.advance(5)
    rt.stop_container(cid, 30)
    c = state(rt, cid)
    assert (c.state, c.exit_code, c.reason, c.finished_at) == ("exited", 143, "Error", NOW + 5)
    rt.stop_container(cid)  # idempotent
    with pytest.raises(InvalidState):
        rt.start_container(cid)


def test_init_container_exits_zero_right_after_start(rt):
    cid = run(rt, sandbox(rt).id, init=True)
    c = state(rt, cid)
    assert (c.state, c.exit_code, c.reason) == ("exited", 0, "Completed")


@pytest.mark.parametrize(("value", "code", "reason"), [("0", 0, "Completed"),
                                                       ("1", 1, "Error"),
                                                       ("42", 42, "Error")])
def test_fake_exit_code(rt, value, code, reason):
    cid = run(rt, sandbox(rt).id, env=(("FAKE_EXIT_CODE", value),))
    c = state(rt, cid)
    assert (c.state, c.exit_code, c.reason) == ("exited", code, reason)


def test_remove_is_idempotent_and_sandbox_removal_takes_containers(rt):
    sb = sandbox(rt)
    cid = run(rt, sb.id)
    rt.stop_sandbox(sb.id)
    assert state(rt, cid).state == "exited"
    assert rt.list_sandboxes()[0].state == "notready"
    rt.remove_sandbox(sb.id)
    assert rt.list_containers() == []
    assert rt.list_sandboxes() == []
    rt.remove_sandbox(sb.id)
    rt.remove_container(cid)
    rt.stop_sandbox(sb.id)


def test_list_containers_by_sandbox(rt):
    a, b = sandbox(rt, "a"), sandbox(rt, "b")
    ca, cb = run(rt, a.id), run(rt, b.id)
    assert [c.id for c in rt.list_containers(a.id)] == [ca]
    assert {c.id for c in rt.list_containers()} == {ca, cb}


def test_logs_have_realistic_lines(rt):
    cid = run(rt, sandbox(rt).id, name="web", image="nginx:1.27")
    lines = list(rt.container_logs(cid))
    assert lines[0] == b"2027-01-15T08:00:00Z started nginx:1.27 as default/web/web\n"
    assert all(line.endswith(b"\n") for line in lines)
    assert len(lines) >= 3


def test_logs_options(rt, clock):
    cid = run(rt, sandbox(rt).id)
    clock.advance(100)
    rt.stop_container(cid)
    all_lines = list(rt.container_logs(cid))
    assert list(rt.container_logs(cid, tail_lines=1)) == all_lines[-1:]
    assert list(rt.container_logs(cid, tail_lines=0)) == []
    assert list(rt.container_logs(cid, since_seconds=10)) == all_lines[-1:]
    stamped = list(rt.container_logs(cid, timestamps=True))
    assert stamped[0].startswith(b"2027-01-15T08:00:00.000000000Z 2027-01-15T08:00:00Z started")
    assert b"".join(rt.container_logs(cid, limit_bytes=10)) == b"".join(all_lines)[:10]
    with pytest.raises(ContainerNotFound):
        list(rt.container_logs("nope"))


def test_follow_returns_when_the_container_stops(rt):
    cid = run(rt, sandbox(rt).id)
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.extend(rt.container_logs(cid, follow=True)))
    t.start()
    # Following a running container: past the lines written so far, waiting for more.
    wait_for(lambda: blocked_in(t, FakeRuntime._stream), "the follower to wait", timeout=5)
    rt.stop_container(cid)
    t.join(2)
    assert not t.is_alive()
    assert b"received SIGTERM" in got[-1]


def test_follow_returns_when_alive_turns_false(rt):
    cid = run(rt, sandbox(rt).id)
    alive = threading.Event()
    alive.set()
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.extend(
        rt.container_logs(cid, follow=True, alive=alive.is_set)))
    t.start()
    wait_for(lambda: blocked_in(t, FakeRuntime._stream), "the follower to wait", timeout=5)
    alive.clear()
    t.join(3)
    assert not t.is_alive()
    assert got  # the lines written so far


def test_events_stream(rt):
    stream = rt.events()
    sb = sandbox(rt)
    cid = run(rt, sb.id)
    rt.stop_container(cid)
    types = []
    while (ev := stream.next(timeout=0)) is not None:
        types.append(ev.type)
        assert ev.labels.get("app") == "web" or ev.container_id
    assert types == ["sandbox-ready", "container-created", "container-started",
                     "container-stopped"]
    stream.stop()
    assert stream.next(timeout=0) is None
    sandbox(rt, "other")
    assert stream.next(timeout=0) is None  # unsubscribed


def test_thread_safety_under_concurrent_use(rt):
    errors: list[BaseException] = []

    def churn(i: int) -> None:
        try:
            for j in range(50):
                sb = sandbox(rt, f"p{i}-{j}")
                cid = run(rt, sb.id)
                rt.stop_container(cid)
                rt.remove_sandbox(sb.id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=churn, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert errors == []
    assert rt.list_sandboxes() == [] and rt.list_containers() == []


# ------------------------------------------------------------------ exec, stats, configs


def test_exec_sync_defaults_to_success_with_a_recognisable_output(rt):
    cid = run(rt, sandbox(rt).id)
    res = rt.exec_sync(cid, ["cat", "/tmp/ready"], timeout=1)
    assert (res.exit_code, res.output, res.timed_out) == (0, b"fake exec: cat /tmp/ready", False)
    assert list(rt.exec_history) == [(cid, "c", ("cat", "/tmp/ready"))]


@pytest.mark.parametrize(("env", "code", "timed_out"), [
    ((("FAKE_EXEC_EXIT_CODE", "3"),), 3, False),
    ((("FAKE_EXEC_DELAY", "0.05"),), 0, False),
    ((("FAKE_EXEC_DELAY", "5"),), -1, True),
])
def test_exec_sync_is_configured_per_container(rt, env, code, timed_out):
    cid = run(rt, sandbox(rt).id, env=env)
    started = time.monotonic()
    res = rt.exec_sync(cid, ["check"], timeout=0.2)
    assert (res.exit_code, res.timed_out) == (code, timed_out)
    assert time.monotonic() - started < 2  # a delay never outlasts the timeout


def test_exec_exit_code_override_by_container_name(rt):
    cid = run(rt, sandbox(rt).id, name="web", env=(("FAKE_EXEC_EXIT_CODE", "1"),))
    rt.exec_exit_codes["web"] = 0
    assert rt.exec_sync(cid, ["x"], timeout=1).exit_code == 0


def test_exec_sync_needs_a_running_container(rt):
    cid = run(rt, sandbox(rt).id)
    rt.stop_container(cid)
    with pytest.raises(InvalidState):
        rt.exec_sync(cid, ["x"], timeout=1)
    with pytest.raises(ContainerNotFound):
        rt.exec_sync("nope", ["x"], timeout=1)


def test_stats_are_plausible_and_accumulate(rt, clock):
    sb = sandbox(rt).id
    a = run(rt, sb, name="a", cpu_millis_request=500, memory_limit_bytes=16 * 1024**2)
    b = run(rt, sb, name="b", env=(("FAKE_CPU_MILLIS", "250"),
                                   ("FAKE_MEMORY_BYTES", str(100 * 1024**2))))
    stopped = run(rt, sb, name="gone")
    rt.stop_container(stopped)
    clock.advance(10)
    stats = {s.container_id: s for s in rt.stats()}
    assert set(stats) == {a, b}  # running containers only
    assert stats[a].cpu_nanos == 25 * 10**6 * 10   # 5% of its 500m request, for 10 s
    assert 0 < stats[a].memory_bytes <= 16 * 1024**2 * 0.9
    assert stats[b].cpu_nanos == 250 * 10**6 * 10
    assert stats[b].memory_bytes == 100 * 1024**2
    assert stats[a].at == clock.now
    clock.advance(10)
    assert {s.container_id: s for s in rt.stats()}[a].cpu_nanos == 25 * 10**6 * 20


def test_configs_are_kept_with_the_cgroup_parent(rt):
    sb = rt.run_sandbox(SandboxConfig(uid="u", namespace="default", name="p", node="node-1",
                                      cgroup_parent="minikube-py/node-1"))
    assert rt.sandbox_config(sb.id).cgroup_parent == "minikube-py/node-1"
    cid = run(rt, sb.id, env=(("A", "1"),))
    assert rt.container_config(cid).env == (("A", "1"),)
    with pytest.raises(SandboxNotFound):
        rt.sandbox_config("nope")


def test_container_ignoring_sigterm_is_killed_after_the_timeout(rt):
    cid = run(rt, sandbox(rt).id, env=(("FAKE_IGNORE_SIGTERM", "1"),))
    started = time.monotonic()
    rt.stop_container(cid, 0.2)
    assert time.monotonic() - started >= 0.2
    c = state(rt, cid)
    assert (c.state, c.exit_code, c.reason) == ("exited", 137, "Error")


def test_a_shorter_stop_kills_a_container_waiting_out_its_grace(rt):
    cid = run(rt, sandbox(rt).id, env=(("FAKE_IGNORE_SIGTERM", "1"),))
    t = threading.Thread(target=rt.stop_container, args=(cid, 30))
    t.start()
    started = time.monotonic()
    deadline = started + 5
    while not any(b"ignoring it" in line for line in rt.container_logs(cid)):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    rt.stop_container(cid, 0)
    t.join(5)
    assert not t.is_alive()
    assert time.monotonic() - started < 5
    assert state(rt, cid).exit_code == 137


def test_simulated_restart_ends_streams_and_can_kill_everything(rt):
    sb = sandbox(rt)
    cid = run(rt, sb.id)
    stream = rt.events()
    rt.simulate_restart()
    assert stream.next(timeout=1) is None  # ended
    assert state(rt, cid).state == "running"
    rt.simulate_restart(kill=True)
    assert state(rt, cid).state == "exited" and state(rt, cid).exit_code == 137
    assert rt.list_sandboxes()[0].state == "notready"


def test_kill_container_behind_the_kubelets_back(rt, clock):
    sb = sandbox(rt)
    cid = run(rt, sb.id)
    oom = run(rt, sb.id, name="hungry")
    stream = rt.events()
    clock.advance(3)
    rt.kill_container(cid)
    c = state(rt, cid)
    assert (c.state, c.exit_code, c.reason, c.finished_at) == ("exited", 137, "Error", NOW + 3)
    rt.kill_container(oom, 137, reason="OOMKilled")
    assert (state(rt, oom).exit_code, state(rt, oom).reason) == (137, "OOMKilled")
    events = [(ev.type, ev.container_id) for ev in iter(lambda: stream.next(timeout=0), None)]
    assert events == [("container-stopped", cid), ("container-stopped", oom)]
    assert b"killed" in b"".join(rt.container_logs(cid))
    with pytest.raises(InvalidState):
        rt.kill_container(cid)  # already exited: the kill did nothing
    with pytest.raises(ContainerNotFound):
        rt.kill_container("no-such-container")
    stream.stop()


def test_kill_container_ends_a_graceful_stop_at_once(rt):
    cid = run(rt, sandbox(rt).id, env=(("FAKE_IGNORE_SIGTERM", "1"),))
    started = time.monotonic()
    t = threading.Thread(target=rt.stop_container, args=(cid, 30))
    t.start()
    try:
        wait_for(lambda: b"ignoring" in b"".join(rt.container_logs(cid)),
                 "the container to ignore the SIGTERM", timeout=5, interval=0.01)
    finally:  # ends the stop either way, so no thread is left in its 30 s grace
        rt.kill_container(cid, 1)
    t.join(5)
    assert not t.is_alive() and time.monotonic() - started < 5
    assert (state(rt, cid).exit_code, state(rt, cid).reason) == (1, "Error")


def test_removed_sandboxes_free_their_ips_for_reuse_after_a_wrap():
    rt = FakeRuntime(network="10.90.0.0/24")  # .2 .. .254: 253 addresses
    first = [sandbox(rt, f"p{i}") for i in range(253)]
    with pytest.raises(InvalidState, match="no free pod IP"):
        sandbox(rt, "full")
    rt.remove_sandbox(first[5].id)  # 10.90.0.7
    rt.remove_sandbox(first[1].id)  # 10.90.0.3
    assert sandbox(rt, "again").ip == "10.90.0.3"  # wrapped: the first free one
    assert sandbox(rt, "more").ip == "10.90.0.7"
    for sb in first[10:]:
        rt.remove_sandbox(sb.id)
    # Churn far beyond the range: a node that keeps replacing pods never runs out.
    live = [sandbox(rt, f"churn{i}") for i in range(5)]
    for i in range(1000):
        rt.remove_sandbox(live.pop(0).id)
        live.append(sandbox(rt, f"churn-{i}"))
    ips = [sb.ip for sb in rt.list_sandboxes()]
    assert len(ips) == len(set(ips))


def test_equal_env_and_mounts_are_kept_once_across_runtimes(clock):
    """Hollow nodes hold 100,000 containers: the service-link variables every
    pod of a Deployment shares are one tuple, not one per container."""
    env = tuple((f"SVC_{i}_SERVICE_HOST", f"10.96.0.{i}") for i in range(7))
    a, b = FakeRuntime(clock=clock), FakeRuntime(clock=clock)
    ids = [run(r, sandbox(r, name).id, env=tuple(list(env)), labels={"pod": name})
           for r, name in ((a, "one"), (b, "two"))]
    first, second = a._containers[ids[0]], b._containers[ids[1]]
    assert first.config.env == env and first.config.env is second.config.env
    assert first.config.mounts is second.config.mounts
    # Labels: one copy for the status and the config, not the caller's dict.
    assert first.status.labels == {"pod": "one"} and first.status.labels is first.config.labels
    other = run(a, sandbox(a, "three").id, env=(("X", "1"),))
    assert a._containers[other].config.env == (("X", "1"),)
    assert a._containers[other].config.env is not first.config.env
    assert state(a, other).labels == {}


def test_lookups_by_pod_and_by_sandbox_equal_a_scan_in_creation_order(rt):
    """The indexes behind a hollow pod's resync (by pod UID, by pod name, the
    containers of a sandbox) give what filtering everything gives, in the same
    order, also after removals and for a pod with a second sandbox."""
    from minikube_py.runtime.base import LABEL_NAME, LABEL_NAMESPACE, LABEL_POD_UID

    def pod_sandbox(ns: str, name: str, uid: str):
        return rt.run_sandbox(SandboxConfig(
            uid=uid, namespace=ns, name=name, node="node-1",
            labels={LABEL_NAMESPACE: ns, LABEL_NAME: name, LABEL_POD_UID: uid}))

    made = [pod_sandbox("default", "web", "u1"), pod_sandbox("other", "web", "u2"),
            pod_sandbox("default", "db", "u3"), pod_sandbox("default", "web", "u1"),
            pod_sandbox("default", "web", "u4"), sandbox(rt, "unlabelled")]
    containers = {sb.id: [run(rt, sb.id, "a"), run(rt, sb.id, "b")] for sb in made}
    rt.remove_container(containers[made[0].id][0])
    rt.remove_sandbox(made[2].id)
    rt.remove_sandbox(made[4].id)
    filters = [{LABEL_POD_UID: "u1"}, {LABEL_POD_UID: "u3"}, {LABEL_POD_UID: "nope"},
               {LABEL_NAME: "web"}, {LABEL_NAMESPACE: "default", LABEL_NAME: "web"},
               {LABEL_NAMESPACE: "other", LABEL_NAME: "web", LABEL_POD_UID: "u2"},
               {LABEL_POD_UID: "u1", LABEL_NAME: "db"}, {LABEL_NAME: "db"},
               {LABEL_NAMESPACE: "default"}, {"app": "unlabelled"}, {}]
    everything = rt.list_sandboxes()
    assert [s.id for s in everything] == [s.id for s in made if s not in (made[2], made[4])]
    for wanted in filters:
        scan = [s.id for s in everything
                if all(s.labels.get(k) == v for k, v in wanted.items())]
        assert [s.id for s in rt.list_sandboxes(wanted)] == scan, wanted
    assert [s.id for s in rt.list_sandboxes({LABEL_POD_UID: "u1"})] == [made[0].id, made[3].id]
    all_containers = rt.list_containers()
    for sb in made:
        scan = [c.id for c in all_containers if c.sandbox_id == sb.id]
        assert [c.id for c in rt.list_containers(sb.id)] == scan
    assert [c.id for c in rt.list_containers(made[0].id)] == containers[made[0].id][1:]
    assert rt.list_containers(made[2].id) == []  # removed with its sandbox
    # A new sandbox of a removed pod's UID is found, and only it.
    again = pod_sandbox("default", "db", "u3")
    assert [s.id for s in rt.list_sandboxes({LABEL_POD_UID: "u3"})] == [again.id]
