"""The Service rules loop (network/proxier.py) over a real store and informers,
with the kernel replaced by a recorder: it waits for the caches, coalesces
bursts, skips unchanged rulesets, retries refusals and keeps route_localnet set."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.client.local import LocalClient
from minikube_py.client.shared import SharedInformers
from minikube_py.network.proxier import Proxier, bridge_netfilter_active
from minikube_py.network.proxy import NftError, ProxyState
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store
from tests.waiting import wait_for, wait_for_quietly


class RecordingNft:
    def __init__(self) -> None:
        self.applied: list[dict[str, Any]] = []
        self.refuse = 0
        self.bridge_exists = False
        self.localnet_calls = 0
        self.lock = threading.Lock()

    def apply(self, document: dict[str, Any]) -> None:
        with self.lock:
            if self.refuse:
                self.refuse -= 1
                raise NftError("Error: Could not process rule: No such file or directory")
            self.applied.append(document)

    def set_route_localnet(self, interface: str) -> bool:
        with self.lock:
            self.localnet_calls += 1
            return self.bridge_exists

    def count(self) -> int:
        with self.lock:
            return len(self.applied)


def svc(name: str, ip: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"clusterIP": ip, "clusterIPs": [ip], "ipFamilies": ["IPv4"],
                     "ipFamilyPolicy": "SingleStack", "selector": {"app": name},
                     "ports": [{"name": "http", "port": 80, "protocol": "TCP",
                                "targetPort": 80}]}}


def rule_text(document: dict[str, Any]) -> str:
    return str(document)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[LocalClient, RecordingNft, Proxier]]:
    store = Store(tmp_path / "state")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    client = LocalClient(registry)
    informers = SharedInformers(client)
    nft = RecordingNft()
    proxier = Proxier(informers, nft,  # type: ignore[arg-type]
                      ProxyState(table="minikube-py-test", bridge="mktest",
                                 pod_cidr="10.244.0.0/20", service_cidr="10.96.0.0/12"),
                      min_sync_interval=0.05, bridge_check_interval=0.05)
    client.create(svc("before", "10.96.0.20"))
    informers.start()
    proxier.start()
    yield client, nft, proxier
    proxier.stop()
    informers.stop()
    store.close()


def test_first_sync_has_what_existed_and_changes_follow(setup):
    client, nft, proxier = setup
    assert proxier.wait_synced(10)
    assert "10.96.0.20" in rule_text(nft.applied[0])
    client.create(svc("after", "10.96.0.21"))
    wait_for(lambda: "10.96.0.21" in rule_text(nft.applied[-1]), "the new Service's rules")
    client.delete("services", "default", "before")
    wait_for(lambda: "10.96.0.20" not in rule_text(nft.applied[-1]), "the rules to go")


def test_a_burst_is_coalesced_and_an_unchanged_ruleset_is_not_applied(setup):
    client, nft, proxier = setup
    assert proxier.wait_synced(10)
    before = nft.count()
    for i in range(30):
        client.create(svc(f"s{i}", f"10.96.1.{i + 1}"))
    wait_for(lambda: "10.96.1.30" in rule_text(nft.applied[-1]), "the burst's rules")
    assert nft.count() - before < 30
    settled = nft.count()
    # An update that changes nothing the rules depend on applies nothing.
    client.patch("services", "default", "s0", "merge",
                 {"metadata": {"labels": {"touched": "yes"}}})
    assert not wait_for_quietly(lambda: nft.count() > settled, 0.5)


def test_a_refused_ruleset_is_retried(setup):
    client, nft, proxier = setup
    assert proxier.wait_synced(10)
    nft.refuse = 1
    client.create(svc("retry", "10.96.0.30"))
    wait_for(lambda: "10.96.0.30" in rule_text(nft.applied[-1]), "the retried apply", 10)
    assert nft.refuse == 0


def test_route_localnet_is_set_once_the_bridge_appears(setup):
    _, nft, _proxier = setup
    wait_for(lambda: nft.localnet_calls >= 2, "repeated looks for the bridge")
    nft.bridge_exists = True
    calls = wait_for(lambda: nft.localnet_calls if nft.bridge_exists else None, "a look")
    # Once set, it is looked at rarely (every few minutes), not every interval.
    assert not wait_for_quietly(lambda: nft.localnet_calls > calls + 2, 0.5)


def test_bridge_netfilter_detection(tmp_path: Path):
    flag = tmp_path / "bridge-nf-call-iptables"
    flag.write_text("1\n")
    assert bridge_netfilter_active(str(flag))
    flag.write_text("0\n")
    assert not bridge_netfilter_active(str(flag))
    assert not bridge_netfilter_active(str(tmp_path / "missing"))
