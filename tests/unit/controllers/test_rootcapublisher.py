"""Root CA certificate publisher: ``kube-root-ca.crt`` in every namespace
(``pkg/controller/certificates/rootcacertpublisher/publisher.go``, v1.32)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from minikube_py.controllers.rootcapublisher import (
    CONFIGMAP_NAME,
    DESCRIPTION,
    DESCRIPTION_ANNOTATION,
    RootCACertPublisher,
)
from tests.waiting import wait_for

from .conftest import Cluster, drain, pod

CA = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"
SYSTEM = ["default", "kube-node-lease", "kube-public", "kube-system"]


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def configmap(namespace: str = "team", *, data: dict[str, str] | None = None,
              annotations: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": CONFIGMAP_NAME, "namespace": namespace}
    if annotations is not None:
        meta["annotations"] = annotations
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, **extra}
    if data is not None:
        body["data"] = data
    return body


def controller(cluster: Cluster) -> RootCACertPublisher:
    ctrl = RootCACertPublisher(cluster.recorder, cluster.informers, root_ca=CA)
    cluster.controllers.append(ctrl)
    cluster.start(["namespaces", "configmaps"])
    return ctrl


def published(cluster: Cluster, ns: str = "team") -> dict[str, Any] | None:
    return cluster.get("configmaps", ns, CONFIGMAP_NAME)


def test_new_namespace_gets_the_configmap_as_kubernetes_writes_it(cluster):
    ctrl = controller(cluster)
    drain(ctrl)
    cluster.client.create(namespace("team"))
    cluster.settle()
    assert drain(ctrl) == ["team"]
    assert ctrl.reconcile("team") is None
    cm = published(cluster)
    assert cm is not None
    assert cm["data"] == {"ca.crt": CA}
    assert cm["metadata"]["annotations"] == {DESCRIPTION_ANNOTATION: DESCRIPTION}
    assert DESCRIPTION.startswith("Contains a CA bundle that can be used to verify the "
                                  "kube-apiserver when using internal endpoints such as")


OK_ANNOTATION = {DESCRIPTION_ANNOTATION: DESCRIPTION}


@pytest.mark.parametrize(("existing", "want_update", "want"), [
    # as it should be: left alone
    (configmap(data={"ca.crt": CA}, annotations=OK_ANNOTATION), False, None),
    # any non-empty description will do (Kubernetes checks len > 0)
    (configmap(data={"ca.crt": CA}, annotations={DESCRIPTION_ANNOTATION: "mine"}), False, None),
    # edited certificate: restored
    (configmap(data={"ca.crt": "forged"}, annotations=OK_ANNOTATION), True,
     ({"ca.crt": CA}, OK_ANNOTATION)),
    # extra keys: data replaced as a whole
    (configmap(data={"ca.crt": CA, "extra": "x"}, annotations=OK_ANNOTATION), True,
     ({"ca.crt": CA}, OK_ANNOTATION)),
    # no data at all
    (configmap(annotations=OK_ANNOTATION), True, ({"ca.crt": CA}, OK_ANNOTATION)),
    # annotation removed: set again, other annotations kept
    (configmap(data={"ca.crt": CA}, annotations={"team": "a"}), True,
     ({"ca.crt": CA}, {"team": "a", **OK_ANNOTATION})),
    (configmap(data={"ca.crt": CA}, annotations={DESCRIPTION_ANNOTATION: ""}), True,
     ({"ca.crt": CA}, OK_ANNOTATION)),
])
def test_reconcile_existing(cluster, existing, want_update, want):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team"))
    cluster.client.create(copy.deepcopy(existing))
    cluster.settle()
    cluster.recorder.clear()
    assert ctrl.reconcile("team") is None
    updates = cluster.recorder.writes("update", "configmaps")
    assert bool(updates) is want_update
    cm = published(cluster)
    assert cm is not None
    if want is not None:
        assert (cm["data"], cm["metadata"]["annotations"]) == want


def test_binary_data_is_left_alone(cluster):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team"))
    cluster.client.create(configmap(data={"ca.crt": "x"}, binaryData={"blob": "AAEC"}))
    cluster.settle()
    ctrl.reconcile("team")
    cm = published(cluster)
    assert cm is not None and cm["binaryData"] == {"blob": "AAEC"}
    assert cm["data"] == {"ca.crt": CA}


@pytest.mark.parametrize("change", ["edit", "delete"])
def test_edits_and_deletions_wake_the_namespace(cluster, change):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team"))
    cluster.settle()
    drain(ctrl)
    ctrl.reconcile("team")
    cluster.settle()
    drain(ctrl)
    if change == "edit":
        cm = published(cluster)
        assert cm is not None
        cm["data"] = {"ca.crt": "forged"}
        cluster.client.update(cm)
    else:
        cluster.client.delete("configmaps", "team", CONFIGMAP_NAME)
    cluster.settle()
    assert drain(ctrl) == ["team"]
    ctrl.reconcile("team")
    cm = published(cluster)
    assert cm is not None and cm["data"] == {"ca.crt": CA}


def test_other_configmaps_do_not_wake_it(cluster):
    ctrl = controller(cluster)
    cluster.settle()
    drain(ctrl)
    cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": "app", "namespace": "default"}})
    cluster.client.delete("configmaps", "default", "app")
    cluster.settle()
    assert drain(ctrl) == []


@pytest.mark.parametrize("state", ["gone", "terminating"])
def test_no_retry_in_a_namespace_gone_or_terminating(cluster, state):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team"))
    if state == "terminating":
        cluster.client.create(pod("p", namespace="team"))
    cluster.client.delete("namespaces", None, "team")
    cluster.settle()
    assert ctrl.reconcile("team") is None
    assert published(cluster) is None


def test_already_exists_looks_again_once_cached(cluster):
    ctrl = controller(cluster)
    cluster.client.create(namespace("team"))
    cluster.settle()
    # A user's ConfigMap made just now, not yet in the cache: look again shortly.
    ctrl.configmaps.get = lambda key: None  # type: ignore[method-assign]
    cluster.client.create(configmap(data={"ca.crt": "users"}))
    assert ctrl.reconcile("team") == 0.05


def test_first_sync_and_running_workers(cluster):
    ctrl = controller(cluster)
    ctrl.ensure_existing()
    assert sorted(cm["metadata"]["namespace"] for cm in cluster.client.list("configmaps").items
                  if cm["metadata"]["name"] == CONFIGMAP_NAME) == SYSTEM
    ctrl.start()
    cluster.client.create(namespace("team"))
    wait_for(lambda: published(cluster), "published in a new namespace", timeout=5)
    cluster.client.delete("configmaps", "team", CONFIGMAP_NAME)
    wait_for(lambda: published(cluster), "published again", timeout=5)
