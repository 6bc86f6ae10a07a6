"""Fixtures for kubelet behaviour tests: a real Store/Registry/LocalClient in a
tmp dir, a FakeRuntime sharing the kubelet's clock, and fast knobs.

Every wait is on an observable outcome, bounded by a timeout (``wait_for``, from
:mod:`tests.waiting`). The clock is real time a test can move ahead
(:meth:`tests.clock.FakeClock.real_time`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.client.local import LocalClient
from minikube_py.kubelet import Kubelet
from minikube_py.nodes import HostInfo, HostReadings, NodeSpec
from minikube_py.runtime import FakeRuntime
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.clock import FakeClock
from tests.waiting import wait_for

GI = 1024**3
MI = 1024**2
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
def clock() -> FakeClock:
    return FakeClock.real_time()


@pytest.fixture
def runtime(clock: FakeClock) -> FakeRuntime:
    return FakeRuntime(clock=clock, missing_images={"ghost:1"})


@pytest.fixture
def make_kubelet(client, runtime, clock, tmp_path):
    made: list[Kubelet] = []

    def make(name: str = "node-1", *, cpu: int = 2000, memory: int = 4 * GI, pods: int = 110,
             **kw: Any) -> Kubelet:
        kw.setdefault("heartbeat_interval", 0.2)
        kw.setdefault("restart_backoff", (0.2, 1.0))
        kw.setdefault("backoff_reset", 600.0)
        kw.setdefault("probe_time_scale", 0.05)
        kw.setdefault("relist_interval", 0.1)
        kw.setdefault("cgroup_root", None)
        kw.setdefault("state_dir", tmp_path / f"kubelet-{name}")
        kubelet = Kubelet(client, NodeSpec(name, cpu, memory, pods, {"tier": "test"}),
                          kw.pop("runtime", runtime), host=HOST, clock=clock,
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
               containers: list[dict[str, Any]] | None = None,
               labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    pod = client.create({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": name, "labels": labels or {"app": name}},
                         "spec": {"containers": containers or [
                             {"name": "web", "image": "nginx:1.27"}], **spec}})
    if node:
        client.bind("default", name, node)
    return pod


def get_pod(client: LocalClient, name: str) -> dict[str, Any]:
    return client.get("pods", "default", name)


def pod_in_phase(client: LocalClient, name: str, phase: str,
                 timeout: float = TIMEOUT) -> dict[str, Any]:
    return wait_for(lambda: (
        p if (p := get_pod(client, name)).get("status", {}).get("phase") == phase
        else None), f"pod {name} {phase}", timeout)


def container_status(client: LocalClient, name: str, container: str) -> dict[str, Any]:
    for st in get_pod(client, name).get("status", {}).get("containerStatuses") or []:
        if st["name"] == container:
            return st
    return {}


def condition(pod: dict[str, Any], type_: str) -> str | None:
    for c in pod.get("status", {}).get("conditions") or []:
        if c["type"] == type_:
            return str(c["status"])
    return None


def events_for(client: LocalClient, name: str) -> list[dict[str, Any]]:
    return client.list("events", namespace="default",
                       field_selector=f"involvedObject.name={name}").items


def event_messages(client: LocalClient, name: str, reason: str) -> list[str]:
    return [e["message"] for e in events_for(client, name) if e["reason"] == reason]
