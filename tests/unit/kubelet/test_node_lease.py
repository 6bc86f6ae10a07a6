"""The kubelet's node lease and its status reported on change (kubelet/node_lease.py,
kubelet/node_status.py) against a real store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from minikube_py.api.timefmt import format_time
from minikube_py.client.local import LocalClient
from minikube_py.kubelet.node_lease import NodeLease, micro_time
from minikube_py.kubelet.node_status import NodeStatusReporter
from minikube_py.nodes import NodeSpec
from minikube_py.runtime import FakeRuntime
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.clock import FakeClock
from tests.unit.test_kubelet import GI, HOST, READINGS

NS = "kube-node-lease"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "store")
    Registry(s).ensure_system_namespaces()
    yield s
    s.close()


@pytest.fixture
def client(store: Store) -> LocalClient:
    return LocalClient(Registry(store))


def test_micro_time_is_rfc3339_with_microseconds() -> None:
    assert micro_time(1_700_000_000.25) == "2023-11-14T22:13:20.250000Z"


def test_the_lease_is_created_owned_by_the_node_then_renewed(client: LocalClient,
                                                              store: Store) -> None:
    node = client.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    clock = FakeClock(1_000_000.0)
    lease = NodeLease(client, "n1", clock=clock)
    created = lease.renew()
    assert created["metadata"]["namespace"] == NS
    assert created["spec"] == {"holderIdentity": "n1", "leaseDurationSeconds": 40,
                               "renewTime": micro_time(1_000_000.0)}
    assert created["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": node["metadata"]["uid"]}]
    clock.advance(10)
    rv = store.resource_version
    renewed = lease.renew()
    assert renewed["spec"]["renewTime"] == micro_time(1_000_010.0)
    assert store.resource_version == rv + 1  # one write, nothing else


def test_a_lease_changed_or_deleted_behind_its_back_is_read_again(client: LocalClient) -> None:
    clock = FakeClock(2_000_000.0)
    lease = NodeLease(client, "n2", clock=clock)
    first = lease.renew()
    assert "ownerReferences" not in first["metadata"]  # no Node yet
    other = dict(first, spec={**first["spec"], "holderIdentity": "someone"})
    client.update(other)  # the cached copy is now stale: Conflict, then a fresh read
    clock.advance(10)
    assert lease.renew()["spec"]["holderIdentity"] == "n2"
    client.delete("leases", NS, "n2")
    client.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}})
    clock.advance(10)
    again = lease.renew()
    assert again["spec"]["renewTime"] == micro_time(2_000_020.0)
    assert again["metadata"]["ownerReferences"][0]["name"] == "n2"


def test_status_is_written_on_change_or_when_the_report_interval_passed(
        client: LocalClient, store: Store, tmp_path: Path) -> None:
    clock = FakeClock(3_000_000.0)
    runtime = FakeRuntime()
    reporter = NodeStatusReporter(client, NodeSpec("n3", 2000, 4 * GI, 110, {}), runtime,
                                  host=HOST, state_dir=tmp_path, clock=clock,
                                  kubelet_version="v1.32.0", readings=lambda _: READINGS,
                                  report_interval=300.0)
    reporter.register()
    reporter.heartbeat()
    rv = store.resource_version
    for _ in range(5):  # 50 s of unchanged heartbeats: nothing written
        clock.advance(10)
        reporter.heartbeat()
    assert store.resource_version == rv
    runtime.pull_image("nginx:1.27")  # a change: written at the next heartbeat
    clock.advance(10)
    reporter.heartbeat()
    node = client.get("nodes", None, "n3")
    assert [i["names"] for i in node["status"]["images"]] == [["nginx:1.27"]]
    rv = store.resource_version
    clock.advance(290)
    reporter.heartbeat()
    assert store.resource_version == rv  # 290 s < 300 s since the last write
    clock.advance(10)
    reporter.heartbeat()
    ready = next(c for c in client.get("nodes", None, "n3")["status"]["conditions"]
             if c["type"] == "Ready")
    assert ready["lastHeartbeatTime"] == format_time(3_000_360.0)  # 300 s after the last


def test_usage_annotations_are_written_when_they_move_noticeably(
        client: LocalClient, store: Store, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(4_000_000.0)
    reporter = NodeStatusReporter(client, NodeSpec("n4", 2000, 4 * GI, 110, {}), FakeRuntime(),
                                  host=HOST, state_dir=tmp_path, clock=clock,
                                  kubelet_version="v1.32.0", readings=lambda _: READINGS)
    reporter.register()
    usage = [(200, 100 << 20)]
    monkeypatch.setattr(reporter, "usage", lambda: usage[0])

    def written() -> tuple[str, str]:
        ann = client.get("nodes", None, "n4")["metadata"]["annotations"]
        return ann["minikube-py.io/cpu-usage"], ann["minikube-py.io/memory-usage"]
    reporter.heartbeat()
    assert written() == ("200", str(100 << 20))
    for jitter in [(204, 101 << 20), (196, 99 << 20), (209, 104 << 20)]:  # within 5 %
        usage[0] = jitter
        clock.advance(10)
        reporter.heartbeat()
    assert written() == ("200", str(100 << 20))
    usage[0] = (260, 100 << 20)  # 30 % more CPU
    clock.advance(10)
    reporter.heartbeat()
    assert written() == ("260", str(100 << 20))
    usage[0] = (261, 100 << 20)  # jitter again, but the report interval has passed
    clock.advance(300)
    reporter.heartbeat()
    assert written() == ("261", str(100 << 20))
