"""The kubelet against a real store/registry and the FakeRuntime.

Every wait is on an observable outcome (pod status, events, runtime state),
polled with a short sleep and bounded by a timeout.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import BadRequest
from minikube_py.client.local import LocalClient
from minikube_py.client.workqueue import WorkQueue
from minikube_py.kubelet import Kubelet
from minikube_py.nodes import HostInfo, HostReadings, NodeSpec
from minikube_py.runtime import LABEL_CONTAINER_NAME, FakeRuntime
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.clock import FakeClock
from tests.waiting import wait_for

GI = 1024**3
HOST = HostInfo(cpu_millis=8000, memory_bytes=16 * GI, pods_max=500, hostname="host",
                kernel="6.8.0", os_image="Test Linux", arch="amd64", boot_id="boot",
                machine_id="machine", ip="192.168.1.10", disk_bytes=100 * GI)
READINGS = HostReadings(memory_available=8 * GI, disk_available_ratio=0.5,
                        pids_available=100_000)
TIMEOUT = 10.0


@pytest.fixture
def client(tmp_path: Path) -> Iterator[LocalClient]:
    store = Store(tmp_path / "store")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    yield LocalClient(registry)
    store.close()


@pytest.fixture
def runtime() -> FakeRuntime:
    return FakeRuntime(missing_images={"ghost:1"})


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock.real_time()


@pytest.fixture
def make_kubelet(client, runtime, clock, tmp_path):
    made: list[Kubelet] = []

    def make(name: str = "node-1", **kw: Any) -> Kubelet:
        kw.setdefault("heartbeat_interval", 0.2)
        kw.setdefault("restart_backoff", (10.0, 300.0))
        kw.setdefault("cgroup_root", None)
        kw.setdefault("relist_interval", 0.2)
        kubelet = Kubelet(client, NodeSpec(name, 2000, 4 * GI, 110, {"tier": "test"}),
                          kw.pop("runtime", runtime), host=HOST,
                          state_dir=tmp_path / f"kubelet-{name}", clock=clock,
                          readings=lambda _: READINGS, **kw)
        kubelet.start()
        made.append(kubelet)
        return kubelet

    yield make
    for k in made:
        k.stop()


@pytest.fixture
def kubelet(make_kubelet) -> Kubelet:
    return make_kubelet()


def create_pod(client: LocalClient, name: str, *, node: str | None = "node-1",
               containers: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    pod = client.create({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": name, "labels": {"app": name}},
                         "spec": {"containers": containers or [
                             {"name": "web", "image": "nginx:1.27",
                              "ports": [{"containerPort": 80}]}], **spec}})
    if node:
        client.bind("default", name, node)
    return pod


def pod_in_phase(client: LocalClient, name: str, phase: str) -> dict[str, Any]:
    return wait_for(lambda: (
        p if (p := client.get("pods", "default", name)).get("status", {}).get("phase") == phase
        else None), f"pod {name} {phase}")


def events_for(client: LocalClient, name: str) -> list[dict[str, Any]]:
    return client.list("events", namespace="default",
                       field_selector=f"involvedObject.name={name}").items


def reasons(client: LocalClient, name: str) -> list[str]:
    return [e["reason"] for e in events_for(client, name)]


# ------------------------------------------------------------------ node


def test_node_registers_with_conditions_and_capacity(client, kubelet):
    node = client.get("nodes", None, "node-1")
    status = node["status"]
    assert status["capacity"]["cpu"] == "2"
    assert status["capacity"]["memory"] == "4Gi"
    assert status["capacity"]["pods"] == "110"
    assert status["allocatable"] == status["capacity"]
    conds = {c["type"]: c for c in status["conditions"]}
    assert set(conds) == {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}
    assert conds["Ready"]["status"] == "True"
    assert conds["Ready"]["reason"] == "KubeletReady"
    assert conds["MemoryPressure"]["status"] == "False"
    assert status["nodeInfo"]["containerRuntimeVersion"] == "fake://0.1.0"
    assert status["nodeInfo"]["kubeletVersion"] == "v1.32.0"
    assert {"type": "InternalIP", "address": "192.168.1.10"} in status["addresses"]
    assert node["metadata"]["labels"]["tier"] == "test"
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "node-1"


def test_heartbeat_updates_last_heartbeat_time_and_images(client, kubelet, clock):
    def ready() -> dict[str, Any]:
        node = client.get("nodes", None, "node-1")
        return next(c for c in node["status"]["conditions"] if c["type"] == "Ready")

    first = ready()
    clock.advance(3600.0)  # an hour later, so second-precision timestamps must move
    later = wait_for(lambda: (c := ready())["lastHeartbeatTime"] > first["lastHeartbeatTime"]
                     and c, "a newer heartbeat")
    assert later["lastTransitionTime"] == first["lastTransitionTime"]  # status unchanged
    create_pod(client, "web")
    wait_for(lambda: [
        i for i in client.get("nodes", None, "node-1")["status"].get("images", [])
        if "nginx:1.27" in i["names"]], "images in node status")


@pytest.mark.parametrize(("lease_every", "status_every"), [(0.2, 4.0), (4.0, 0.2)])
def test_lease_and_status_each_keep_their_own_period(client, make_kubelet, lease_every,
                                                      status_every):
    """nodeLeaseDurationSeconds (renewed every quarter) and
    nodeStatusUpdateFrequency are separate kubelet settings: one heartbeat
    thread keeps both, neither dragging the other."""
    kubelet = make_kubelet(heartbeat_interval=status_every, lease_renew_interval=lease_every,
                           lease_duration=120)
    start = time.monotonic()
    calls: list[str] = []
    kubelet.renew_lease = lambda: calls.append("lease")  # type: ignore[method-assign]
    kubelet.report_status = lambda: calls.append("status")  # type: ignore[method-assign]
    fast, slow = ("lease", "status") if lease_every < status_every else ("status", "lease")
    wait_for(lambda: calls.count(fast) >= 5, f"five {fast} duties", timeout=15)
    assert time.monotonic() - start < max(lease_every, status_every)
    assert calls.count(slow) <= 1, calls
    # The lease says how long it lasts: the duration given, not the default.
    lease = client.get("leases", "kube-node-lease", "node-1")
    assert lease["spec"]["leaseDurationSeconds"] == 120


def test_a_lease_duration_under_a_second_is_refused(client, runtime, tmp_path):
    with pytest.raises(ValueError, match="node n: the lease duration must be more than 0"):
        Kubelet(client, NodeSpec("n", 2000, 4 * GI, 110, {}), runtime, host=HOST,
                state_dir=tmp_path / "k", lease_duration=0)


def test_reregistration_keeps_spec_and_merges_labels(client, make_kubelet, runtime):
    client.create({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": "node-1", "labels": {"custom": "yes"}},
                   "spec": {"unschedulable": True}})
    make_kubelet()
    node = client.get("nodes", None, "node-1")
    assert node["spec"]["unschedulable"] is True
    assert node["metadata"]["labels"]["custom"] == "yes"
    assert node["metadata"]["labels"]["tier"] == "test"
    assert node["status"]["capacity"]["cpu"] == "2"


# ------------------------------------------------------------------ pods


def test_bound_pod_becomes_running_with_realistic_status(client, kubelet, runtime):
    create_pod(client, "web")
    pod = pod_in_phase(client, "web", "Running")
    status = pod["status"]
    conds = {c["type"]: c for c in status["conditions"]}
    assert [c["type"] for c in status["conditions"]] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    assert all(c["status"] == "True" for c in conds.values())
    [cs] = status["containerStatuses"]
    assert cs["name"] == "web"
    assert cs["ready"] is True and cs["started"] is True
    assert cs["restartCount"] == 0
    assert cs["image"] == "nginx:1.27"
    assert cs["imageID"].startswith("sha256:")
    assert cs["containerID"].startswith("fake://")
    assert "startedAt" in cs["state"]["running"]
    assert cs["lastState"] == {}
    assert status["hostIP"] == "192.168.1.10"
    assert status["hostIPs"] == [{"ip": "192.168.1.10"}]
    assert status["podIP"].startswith("10.88.")
    assert status["podIPs"] == [{"ip": status["podIP"]}]
    assert status["startTime"]
    assert status["qosClass"] == "BestEffort"
    [sandbox] = runtime.list_sandboxes()
    assert sandbox.ip == status["podIP"]
    assert sandbox.labels["minikube-py.io/pod-uid"] == pod["metadata"]["uid"]
    assert sandbox.labels["minikube-py.io/namespace"] == "default"
    assert sandbox.labels["minikube-py.io/name"] == "web"
    assert sandbox.labels["minikube-py.io/node"] == "node-1"


def test_status_writes_hand_the_kubelet_the_stored_shared_copy(client, kubelet):
    """A status write returns what the pod informers read (the store's one shared
    decoded copy), not a fresh decode for the kubelet alone; nothing changes it."""
    written: list[dict[str, Any]] = []
    remember = kubelet.syncer._on_written
    assert remember is not None
    kubelet.syncer._on_written = lambda pod, acted_on: (written.append(pod),
                                                        remember(pod, acted_on))[-1]
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    # The last write is the stored version itself (a fresh decode never is).
    last = wait_for(lambda: (
        w if written and (w := written[-1])["status"].get("phase") == "Running"
        and w is client.store.get_shared("pods", "default", "web") else None),
        "the Running status written, handed back as the stored shared copy", timeout=5)
    assert kubelet.cached_pod("default", "web") == last
    assert client.store.verify_shared() == ()


def test_init_containers_run_in_order_before_app_containers(client, kubelet, runtime):
    stream = runtime.events()
    create_pod(client, "ordered", initContainers=[
        {"name": "first", "image": "busybox:1.36"}, {"name": "second", "image": "busybox:1.36"}])
    pod = pod_in_phase(client, "ordered", "Running")
    started = []
    while (ev := stream.next(timeout=0)) is not None:
        if ev.type == "container-started":
            started.append(ev.labels[LABEL_CONTAINER_NAME])
    stream.stop()
    assert started == ["first", "second", "web"]
    inits = pod["status"]["initContainerStatuses"]
    assert [s["name"] for s in inits] == ["first", "second"]
    for s in inits:
        assert s["state"]["terminated"]["reason"] == "Completed"
        assert s["state"]["terminated"]["exitCode"] == 0
    conds = {c["type"]: c["status"] for c in pod["status"]["conditions"]}
    assert conds["Initialized"] == "True"


def test_failed_init_container_with_restart_never_fails_the_pod(client, kubelet, runtime):
    create_pod(client, "badinit", restartPolicy="Never", initContainers=[
        {"name": "setup", "image": "busybox:1.36", "env": [{"name": "FAKE_EXIT_CODE",
                                                           "value": "3"}]}])
    pod = pod_in_phase(client, "badinit", "Failed")
    assert pod["status"]["initContainerStatuses"][0]["state"]["terminated"]["exitCode"] == 3
    assert pod["status"]["containerStatuses"][0]["state"] == {
        "waiting": {"reason": "PodInitializing"}}
    assert [c.name for c in runtime.list_containers()] == ["setup"]  # the app never started


@pytest.mark.parametrize(("code", "phase", "reason"), [("0", "Succeeded", "Completed"),
                                                       ("1", "Failed", "Error")])
def test_exit_code_with_restart_never(client, kubelet, runtime, code, phase, reason):
    create_pod(client, "job", restartPolicy="Never", containers=[
        {"name": "task", "image": "busybox:1.36",
         "env": [{"name": "FAKE_EXIT_CODE", "value": code}]}])
    pod = pod_in_phase(client, "job", phase)
    [cs] = pod["status"]["containerStatuses"]
    assert cs["state"]["terminated"]["reason"] == reason
    assert cs["state"]["terminated"]["exitCode"] == int(code)
    assert cs["ready"] is False
    # A finished pod's sandbox is stopped, its containers kept for logs.
    wait_for(lambda: all(s.state == "notready" for s in runtime.list_sandboxes()),
             "sandbox stopped")
    assert len(runtime.list_containers()) == 1


def test_restart_policy_always_restarts_and_counts(client, make_kubelet):
    kubelet = make_kubelet(restart_backoff=(0.2, 1.0))
    create_pod(client, "crashy", containers=[
        {"name": "app", "image": "busybox:1.36",
         "env": [{"name": "FAKE_EXIT_CODE", "value": "1"}]}])

    def restarted() -> dict[str, Any] | None:
        pod = client.get("pods", "default", "crashy")
        statuses = pod.get("status", {}).get("containerStatuses") or [{}]
        return statuses[0] if statuses[0].get("restartCount", 0) >= 2 else None

    cs = wait_for(restarted, "two restarts")
    assert cs["lastState"]["terminated"]["exitCode"] == 1
    assert client.get("pods", "default", "crashy")["status"]["phase"] == "Running"
    assert "BackOff" in reasons(client, "crashy")
    pod = client.get("pods", "default", "crashy")
    assert b"exiting with code 1" in b"".join(kubelet.logs(pod, "app", previous=True))


def test_image_pull_policy_never_with_missing_image(client, kubelet):
    create_pod(client, "never", containers=[
        {"name": "app", "image": "local/app:dev", "imagePullPolicy": "Never"}])

    def waiting() -> dict[str, Any] | None:
        pod = client.get("pods", "default", "never")
        for cs in pod.get("status", {}).get("containerStatuses") or []:
            if cs["state"].get("waiting", {}).get("reason") == "ErrImageNeverPull":
                return cs
        return None

    cs = wait_for(waiting, "ErrImageNeverPull")
    assert cs["state"]["waiting"]["message"] == (
        'Container image "local/app:dev" is not present with pull policy of Never')
    assert client.get("pods", "default", "never")["status"]["phase"] == "Pending"
    wait_for(lambda: "ErrImageNeverPull" in reasons(client, "never"), "ErrImageNeverPull event")


def test_failed_pull_is_err_image_pull(client, kubelet):
    create_pod(client, "ghost", containers=[{"name": "app", "image": "ghost:1"}])
    # ErrImagePull, then ImagePullBackOff until the pull back-off has passed.
    wait_for(lambda: (
        client.get("pods", "default", "ghost").get("status", {}).get("containerStatuses")
        or [{}])[0].get("state", {}).get("waiting", {}).get("reason") in (
            "ErrImagePull", "ImagePullBackOff"), "ErrImagePull")
    messages = [e["message"] for e in events_for(client, "ghost") if e["reason"] == "Failed"]
    assert 'Failed to pull image "ghost:1": image "ghost:1" not found' in messages[0]


def test_events_pulling_pulled_created_started(client, kubelet):
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    wait_for(lambda: "Started" in reasons(client, "web"), "Started event")
    evs = {e["reason"]: e for e in events_for(client, "web")}
    assert {"Pulling", "Pulled", "Created", "Started"} <= set(evs)
    assert evs["Pulling"]["message"] == 'Pulling image "nginx:1.27"'
    assert evs["Pulled"]["message"].startswith('Successfully pulled image "nginx:1.27" in ')
    assert evs["Created"]["message"] == "Created container: web"
    assert evs["Started"]["message"] == "Started container web"
    assert evs["Started"]["source"] == {"component": "kubelet", "host": "node-1"}
    assert evs["Started"]["involvedObject"]["fieldPath"] == "spec.containers{web}"
    # A second pod finds the image already there (policy IfNotPresent for a tag).
    create_pod(client, "web2")
    pod_in_phase(client, "web2", "Running")
    wait_for(lambda: [e for e in events_for(client, "web2") if e["reason"] == "Pulled"],
             "Pulled event")
    [pulled] = [e for e in events_for(client, "web2") if e["reason"] == "Pulled"]
    assert pulled["message"] == 'Container image "nginx:1.27" already present on machine'


def test_graceful_delete_stops_containers_and_removes_the_pod(client, kubelet, runtime):
    create_pod(client, "web")
    running = pod_in_phase(client, "web", "Running")
    watch = client.watch("pods", namespace="default",
                         resource_version=running["metadata"]["resourceVersion"])
    client.delete("pods", "default", "web")  # graceful: the kubelet finishes it
    seen = []
    while (ev := watch.next(timeout=TIMEOUT)) is not None:
        seen.append(ev)
        if ev.type == "DELETED":
            break
    watch.stop()
    assert seen[-1].type == "DELETED"
    final = seen[-2].object["status"]  # written by the kubelet before it deleted the pod
    assert final["phase"] == "Failed"
    assert final["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 143
    assert runtime.list_sandboxes() == []
    assert runtime.list_containers() == []
    assert "Killing" in reasons(client, "web")


def test_force_deleted_pod_is_cleaned_up(client, kubelet, runtime):
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    client.delete("pods", "default", "web", grace_period_seconds=0)
    wait_for(lambda: runtime.list_sandboxes() == [], "sandbox removed")


def test_pods_on_other_nodes_are_ignored(client, kubelet, runtime):
    create_pod(client, "elsewhere", node="node-2")
    create_pod(client, "unbound", node=None)
    create_pod(client, "mine")
    pod_in_phase(client, "mine", "Running")
    [sandbox] = runtime.list_sandboxes()
    assert sandbox.labels["minikube-py.io/name"] == "mine"
    for name in ("elsewhere", "unbound"):
        status = client.get("pods", "default", name)["status"]
        assert "containerStatuses" not in status
        assert status["phase"] == "Pending"


def test_logs_return_the_containers_lines(client, kubelet):
    create_pod(client, "web")
    pod = pod_in_phase(client, "web", "Running")
    lines = list(kubelet.logs(pod, "web"))
    assert lines[0].endswith(b" started nginx:1.27 as default/web/web\n")
    assert list(kubelet.logs(pod, None, tail_lines=1)) == lines[-1:]
    with pytest.raises(BadRequest, match='previous terminated container "web" in pod "web" '
                                         "not found"):
        kubelet.logs(pod, "web", previous=True)
    with pytest.raises(BadRequest, match="container nope is not valid for pod web"):
        kubelet.logs(pod, "nope")


def test_logs_follow_ends_when_the_caller_goes_away(client, kubelet):
    create_pod(client, "web")
    pod = pod_in_phase(client, "web", "Running")
    gone = threading.Event()
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.extend(
        kubelet.logs(pod, "web", follow=True, alive=lambda: not gone.is_set())))
    t.start()
    wait_for(lambda: got, "first lines")
    gone.set()
    t.join(5)
    assert not t.is_alive()


def test_logs_need_a_container_name_when_ambiguous(client, kubelet):
    pod = create_pod(client, "two", node=None, containers=[
        {"name": "a", "image": "busybox"}, {"name": "b", "image": "busybox"}])
    with pytest.raises(BadRequest, match=r"choose one of: \[a b\]"):
        kubelet.logs(pod)
    with pytest.raises(BadRequest, match='container "a" in pod "two" is waiting to start'):
        kubelet.logs(pod, "a")


def test_stop_is_prompt_and_leaves_containers_running(client, make_kubelet, runtime):
    kubelet = make_kubelet(heartbeat_interval=30.0)
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    started = time.monotonic()
    kubelet.stop()
    assert time.monotonic() - started < 3
    assert not any(t.is_alive() for t in kubelet._threads)
    assert [c.state for c in runtime.list_containers()] == ["running"]


def test_restarted_kubelet_cleans_up_pods_deleted_while_it_was_down(client, make_kubelet,
                                                                    runtime):
    first = make_kubelet()
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    first.stop()
    client.delete("pods", "default", "web", grace_period_seconds=0)
    make_kubelet()
    wait_for(lambda: runtime.list_sandboxes() == [], "orphan sandbox removed")


def test_recreated_pod_with_same_name_gets_a_fresh_sandbox(client, kubelet, runtime):
    old = create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    client.delete("pods", "default", "web")
    wait_for(lambda: not client.list("pods", namespace="default").items, "old pod removed")
    new = create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    [sandbox] = runtime.list_sandboxes()
    assert sandbox.labels["minikube-py.io/pod-uid"] == new["metadata"]["uid"]
    assert new["metadata"]["uid"] != old["metadata"]["uid"]


def test_many_pods_on_many_workers(client, kubelet, runtime):
    for i in range(20):
        create_pod(client, f"p{i}")
    wait_for(lambda: sum(
        p.get("status", {}).get("phase") == "Running"
        for p in client.list("pods", namespace="default").items) == 20, "20 running pods")
    ips = {sb.ip for sb in runtime.list_sandboxes()}
    assert len(ips) == 20


# ------------------------------------------------------------------ resync timing


class RecordingQueue(WorkQueue[str]):
    """A kubelet's work queue noting each scheduled sync: (key, delay, monotonic
    now), and each key added for a sync now."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        super().__init__(name="recording", clock=clock)
        self.delayed: list[tuple[str, float, float]] = []
        self.added: list[str] = []

    def schedule(self, item: str, delay: float) -> None:
        self.delayed.append((item, delay, time.monotonic()))
        super().schedule(item, delay)

    def add(self, key: str) -> None:
        self.added.append(key)
        super().add(key)


@pytest.mark.parametrize("granularity", [0.0, 1.0, 7.0])
def test_a_resync_falls_on_the_next_multiple_of_its_granularity(client, make_kubelet,
                                                                granularity):
    """Hollow nodes put each pod's periodic resync off to the pool's next tick
    (so the resyncs due within one run back to back): never sooner than the
    resync interval, less than one step later, due on a multiple of the step
    on the monotonic clock. Without a granularity the interval is kept exactly."""
    queue = RecordingQueue()
    make_kubelet(resync_interval=30.0, resync_granularity=granularity, queue=queue)
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    resyncs = wait_for(lambda: [(delay, at) for key, delay, at in queue.delayed
                                if key == "default/web"], "a resync queued")
    for delay, at in resyncs:
        if granularity == 0:
            assert delay == 30.0
            continue
        assert 30.0 < delay <= 30.0 + granularity
        # The kubelet read the clock a moment before the queue noted it.
        offset = (at + delay) % granularity
        assert min(offset, granularity - offset) < 0.05


def test_with_jitter_each_pod_resyncs_on_its_own_slot(client, make_kubelet):
    """Hollow nodes (jitter 0.5): every sync of a pod, whenever it came,
    queues its resync on that pod's one slot, a period (1.25 intervals) apart
    from each other slot; never sooner than the interval (kubelet/resync.py)."""
    queue = RecordingQueue()
    kubelet = make_kubelet(resync_interval=30.0, resync_jitter=0.5, queue=queue)
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    wait_for(lambda: [d for key, d, _ in queue.delayed if key == "default/web"],
             "a resync queued")
    synced = time.monotonic()
    time.sleep(0.5)  # not a wait for a condition: a sync at a later instant is the point
    kubelet.sync("default/web")  # ... and it queues the same slot
    resyncs = [(delay, at) for key, delay, at in queue.delayed if key == "default/web"]
    assert len(resyncs) >= 2 and resyncs[-1][1] > synced + 0.5
    first_due = resyncs[0][0] + resyncs[0][1]
    for delay, at in resyncs:
        assert 30.0 <= delay < 30.0 + 37.5 + 0.05
        # The kubelet read the clock a moment before the queue noted it.
        steps = (at + delay - first_due) / 37.5
        assert abs(steps - round(steps)) * 37.5 < 0.05



def test_the_next_resync_counts_from_the_latest_sync(client, make_kubelet):
    """As Kubernetes' pod workers (their queue's Enqueue overwrites): a pod
    synced again, for an event or by hand, is resynced an interval after that
    sync, not at the time an earlier sync had set."""
    clock = FakeClock(1000.0)
    queue = RecordingQueue(clock=clock)
    make_kubelet(resync_interval=30.0, queue=queue)
    create_pod(client, "web")
    pod_in_phase(client, "web", "Running")
    wait_for(lambda: queue._waiting.get("default/web") == 1030.0, "a resync waiting")
    clock.advance(10)
    queue.add("default/web")
    wait_for(lambda: queue._waiting.get("default/web") == 1040.0,
             "the resync put off by the later sync")
    assert len(queue._heap) == 1  # put off in place, not added again


def _pod_version(name: str, rv: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "resourceVersion": str(rv)},
            "spec": {"nodeName": "node-1", "containers": []}}


@pytest.mark.parametrize(("cached", "written", "event", "event_rv", "queued", "kept"), [
    (None, None, "ADDED", 5, True, 5),       # a pod new to the kubelet
    (5, None, "MODIFIED", 6, True, 6),       # a newer version (anyone's write)
    (5, None, "MODIFIED", 5, True, 5),       # a version seen before, not our write: synced
    (6, None, "MODIFIED", 5, True, 6),       # an older version: synced, the newer one kept
    (5, (6, True), "MODIFIED", 6, False, 6),   # our write on what the sync acted on
    (5, (6, True), "MODIFIED", 7, True, 7),    # a write after ours
    # Our write after a conflict's re-read: the version re-read may hold a change
    # no sync has acted on (a deletion), so its echo is synced.
    (5, (7, False), "MODIFIED", 7, True, 7),
    (5, (6, True), "DELETED", 6, True, None),  # gone: synced away
])
def test_only_the_echo_of_the_kubelets_own_status_write_is_not_synced(
        client, runtime, clock, tmp_path, cached, written, event, event_rv, queued, kept):
    queue = RecordingQueue()
    kubelet = Kubelet(client, NodeSpec("node-1", 2000, 4 * GI, 110, {}), runtime, host=HOST,
                      state_dir=tmp_path / "kubelet", clock=clock,
                      readings=lambda _: READINGS, cgroup_root=None, queue=queue)
    if cached is not None:
        kubelet._pods["default/web"] = _pod_version("web", cached)
    if written is not None:
        rv, acted_on = written
        kubelet._remember(_pod_version("web", rv), acted_on)
    kubelet.observe(event, _pod_version("web", event_rv))
    assert queue.added == (["default/web"] if queued else [])
    held = kubelet.cached_pod("default", "web")
    assert (held and int(held["metadata"]["resourceVersion"])) == kept


def test_the_kubelet_does_not_sync_again_for_its_own_status_write(client, make_kubelet):
    """The Running status the kubelet wrote comes back on its watch: that event
    queues no sync (the sync that wrote it acted on the version before it), as
    a kubelet of Kubernetes only reconciles its own status; a change by anyone
    else is synced."""
    queue = RecordingQueue()
    kubelet = make_kubelet(queue=queue)
    echoes: list[tuple[int, list[str]]] = []
    observe = kubelet.observe

    def watched(type_: str, pod: dict[str, Any]) -> None:
        before = len(queue.added)
        observe(type_, pod)
        echoes.append((int(pod["metadata"]["resourceVersion"]), queue.added[before:]))

    kubelet.observe = watched  # type: ignore[method-assign]
    create_pod(client, "web")
    running = pod_in_phase(client, "web", "Running")
    rv = int(running["metadata"]["resourceVersion"])
    (adds,) = wait_for(lambda: next(((a,) for v, a in echoes if v == rv), None),
                       "the Running status written seen on the kubelet's watch")
    assert adds == []
    # Someone else's status write is a newer version: synced (the kubelet
    # writes its own view back).
    client.update({**running, "status": {**running["status"], "phase": "Pending"}},
                  subresource="status")
    wait_for(lambda: client.get("pods", "default", "web")["status"]["phase"] == "Running"
             and int(client.get("pods", "default", "web")["metadata"]["resourceVersion"]) > rv
             + 1, "the kubelet's status written back over the other writer's")


def test_a_status_write_says_whether_it_was_made_on_the_version_the_sync_acted_on(
        client, kubelet):
    """A write on the pod as the sync had it is its own echo; one that had to
    re-read a newer version after a conflict (here a label added meanwhile;
    a deletion begun would be the same) is not, so the kubelet syncs that
    newer version."""
    create_pod(client, "web")
    running = pod_in_phase(client, "web", "Running")
    calls: list[tuple[int, bool]] = []
    kubelet.syncer._on_written = lambda pod, acted_on: calls.append(
        (int(pod["metadata"]["resourceVersion"]), acted_on))

    def note(text: str) -> Any:
        return lambda current: {**current["status"], "message": text}

    stored = kubelet.syncer._update_status(running, note("on the version acted on"))
    assert stored is not None
    # (The kubelet's own syncs write through the same hook: look for ours.)
    assert (int(stored["metadata"]["resourceVersion"]), True) in calls
    client.patch("pods", "default", "web", "merge",  # a change the stale copy lacks
                 {"metadata": {"labels": {"tier": "late"}}})
    again = kubelet.syncer._update_status(running, note("after a conflict"))
    assert again is not None and again["metadata"]["labels"]["tier"] == "late"
    assert (int(again["metadata"]["resourceVersion"]), False) in calls
