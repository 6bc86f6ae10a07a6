"""Pod security admission: privileged, hostPath and host namespaces (a test for each)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minikube_py.admission.podsecurity import SecurityPolicy
from minikube_py.api.errors import Forbidden
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store


def pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


PRIVILEGED = {"containers": [{"name": "c", "image": "busybox:1.36",
                              "securityContext": {"privileged": True}}]}
PRIVILEGED_INIT = {"initContainers": [{"name": "i", "image": "busybox:1.36",
                                       "securityContext": {"privileged": True}}]}
HOST_PATH = {"volumes": [{"name": "host", "hostPath": {"path": "/etc"}}]}


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "s")
    yield s
    s.close()


def registry(store: Store, **policy: bool) -> Registry:
    reg = Registry(store, security=SecurityPolicy(**policy))
    reg.ensure_system_namespaces()
    return reg


@pytest.mark.parametrize("spec, message", [
    (PRIVILEGED, 'privileged (container "c" must not set securityContext.privileged=true; '
                 "start the daemon with --allow-privileged to allow it)"),
    (PRIVILEGED_INIT, 'privileged (container "i" must not'),
    (HOST_PATH, 'hostPath volumes (volume "host"; start the daemon with --allow-host-paths'),
    ({"hostNetwork": True}, "hostNetwork=true (not supported by minikube-py)"),
    ({"hostPID": True}, "hostPID=true (not supported by minikube-py)"),
    ({"hostIPC": True}, "hostIPC=true (not supported by minikube-py)"),
])
def test_refused_by_default(store: Store, spec: dict[str, Any], message: str):
    reg = registry(store)
    with pytest.raises(Forbidden) as err:
        reg.create(pod(**spec))
    assert str(err.value).startswith('pods "p" is forbidden: ')
    assert message in str(err.value)
    assert err.value.to_status()["code"] == 403
    assert store.count("pods") == 0


@pytest.mark.parametrize("spec, policy", [
    (PRIVILEGED, {"allow_privileged": True}),
    (PRIVILEGED_INIT, {"allow_privileged": True}),
    (HOST_PATH, {"allow_host_paths": True}),
])
def test_allowed_when_the_daemon_allows_it(store: Store, spec: dict[str, Any],
                                           policy: dict[str, bool]):
    assert registry(store, **policy).create(pod(**spec))["metadata"]["name"] == "p"


def test_host_namespaces_stay_refused_even_with_everything_allowed(store: Store):
    reg = registry(store, allow_privileged=True, allow_host_paths=True)
    with pytest.raises(Forbidden, match="hostNetwork"):
        reg.create(pod(hostNetwork=True))


def test_every_violation_is_listed_at_once(store: Store):
    with pytest.raises(Forbidden) as err:
        registry(store).create(pod(hostPID=True, **PRIVILEGED, **HOST_PATH))
    text = str(err.value)
    assert "hostPID" in text and "privileged" in text and "hostPath" in text
