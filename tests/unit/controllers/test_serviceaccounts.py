"""ServiceAccounts controller: a ``default`` ServiceAccount in every active namespace
(``pkg/controller/serviceaccount/serviceaccounts_controller.go``, v1.32)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from minikube_py.api.errors import InternalError
from minikube_py.controllers.manager import ControllerManager, ManagerOptions
from minikube_py.controllers.serviceaccounts import ServiceAccountsController
from tests.waiting import wait_for

from .conftest import Cluster, drain, pod

SYSTEM = ["default", "kube-node-lease", "kube-public", "kube-system"]


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def controller(cluster: Cluster, **kw: Any) -> ServiceAccountsController:
    ctrl = ServiceAccountsController(cluster.recorder, cluster.informers, **kw)
    cluster.controllers.append(ctrl)
    cluster.start(["namespaces", "serviceaccounts"])
    return ctrl


def accounts(cluster: Cluster) -> list[str]:
    return sorted(f"{sa['metadata']['namespace']}/{sa['metadata']['name']}"
                  for sa in cluster.client.list("serviceaccounts").items)


def created(cluster: Cluster) -> list[tuple[str, str]]:
    return [(w[2], w[3]["metadata"]["name"]) for w in cluster.recorder.writes("create")]


def test_first_sync_is_synchronous_for_existing_namespaces(cluster):
    ctrl = controller(cluster)
    drain(ctrl)
    ctrl.ensure_existing()
    assert accounts(cluster) == [f"{ns}/default" for ns in SYSTEM]
    ctrl.ensure_existing()  # idempotent: nothing more is written
    assert len(created(cluster)) == 4


def test_new_namespace_gets_its_default_account(cluster):
    ctrl = controller(cluster)
    drain(ctrl)
    cluster.client.create(namespace("team"))
    cluster.settle()
    assert drain(ctrl) == ["team"]
    assert ctrl.reconcile("team") is None
    assert created(cluster) == [("team", "default")]
    sa = cluster.client.get("serviceaccounts", "team", "default")
    assert set(sa["metadata"]) >= {"uid", "creationTimestamp"}


@pytest.mark.parametrize(("setup", "writes"), [
    ("exists", []),                        # nothing to do
    ("missing", [("team", "default")]),
    ("gone", []),                          # the namespace is no more
    ("terminating", []),                   # nothing new in a terminating namespace
])
def test_reconcile(cluster, setup, writes):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team"))
    if setup == "exists":
        cluster.client.create({"apiVersion": "v1", "kind": "ServiceAccount",
                               "metadata": {"name": "default", "namespace": "team"}})
    elif setup == "gone":
        cluster.client.delete("namespaces", None, "team")
    elif setup == "terminating":
        cluster.client.create(pod("p", namespace="team"))
        cluster.client.delete("namespaces", None, "team")
        assert cluster.client.get("namespaces", None, "team")["status"]["phase"] == \
            "Terminating"
    cluster.settle()
    cluster.recorder.clear()
    assert ctrl.reconcile("team") is None
    assert created(cluster) == writes


def test_deleted_default_account_is_recreated(cluster):
    ctrl = controller(cluster)
    ctrl.ensure_existing()
    cluster.settle()
    drain(ctrl)
    cluster.client.delete("serviceaccounts", "default", "default")
    cluster.settle()
    assert drain(ctrl) == ["default"]
    ctrl.reconcile("default")
    assert "default/default" in accounts(cluster)


def test_namespace_terminating_meanwhile_is_not_an_error(cluster):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team"))
    cluster.settle()
    # The cache still says Active; the live namespace is terminating.
    cluster.client.create(pod("p", namespace="team"))
    cluster.client.delete("namespaces", None, "team")
    ctrl.namespaces.get = lambda key: namespace_active_copy(key)  # type: ignore[method-assign]
    assert ctrl.reconcile("team") is None
    assert "team/default" not in accounts(cluster)


def namespace_active_copy(name: str) -> dict[str, Any]:
    return {**namespace(name), "status": {"phase": "Active"}}


def test_other_failures_are_retried(cluster):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team"))
    cluster.settle()
    cluster.recorder.fail["create"] = lambda _a: InternalError.of("etcd is on fire")
    with pytest.raises(InternalError):
        ctrl.reconcile("team")


def test_running_controller_reacts_within_milliseconds(cluster):
    ctrl = controller(cluster)
    ctrl.start()
    wait_for(lambda: len(accounts(cluster)) == 4, "system accounts", timeout=5)
    began = time.monotonic()
    cluster.client.create(namespace("fast"))
    wait_for(lambda: cluster.get("serviceaccounts", "fast", "default"), "default account",
             timeout=5, interval=0.002)
    assert time.monotonic() - began < 0.5


def test_manager_start_makes_the_system_accounts_before_returning(cluster):
    manager = ControllerManager(cluster.client, options=ManagerOptions(root_ca="PEM"))
    try:
        manager.start()
        assert accounts(cluster) == [f"{ns}/default" for ns in SYSTEM]
        assert sorted(cm["metadata"]["namespace"] for cm in cluster.client.list(
            "configmaps").items if cm["metadata"]["name"] == "kube-root-ca.crt") == SYSTEM
    finally:
        manager.stop()
