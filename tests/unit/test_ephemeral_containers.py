"""pods/ephemeralcontainers (kubectl debug): only additions, Kubernetes' checks
and messages (ValidatePodEphemeralContainersUpdate), through the registry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import Invalid
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    store = Store(tmp_path / "s", history_size=20)
    reg = Registry(store)
    reg.ensure_system_namespaces()
    reg.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "app", "image": "busybox"}]}})
    yield reg
    store.close()


def add(reg: Registry, *containers: dict[str, Any]) -> dict[str, Any]:
    patch = {"spec": {"ephemeralContainers": list(containers)}}
    obj, _ = reg.patch("pods", "default", "p", "strategic", patch,
                       subresource="ephemeralcontainers")
    return obj


def test_adding_one_changes_only_ephemeral_containers(registry: Registry) -> None:
    pod = add(registry, {"name": "dbg", "image": "busybox", "targetContainerName": "app",
                         "stdin": True, "tty": True})
    assert [c["name"] for c in pod["spec"]["ephemeralContainers"]] == ["dbg"]
    assert pod["spec"]["ephemeralContainers"][0]["imagePullPolicy"] == "Always"  # defaulted
    assert [c["name"] for c in pod["spec"]["containers"]] == ["app"]


@pytest.mark.parametrize(("container", "message"), [
    ({"name": "app", "image": "busybox"}, 'spec.ephemeralContainers[0].name: Duplicate value: '
                                          '"app"'),
    ({"name": "d", "image": "busybox", "targetContainerName": "nope"},
     'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"'),
    ({"name": "d", "image": "busybox", "ports": [{"containerPort": 80}]},
     "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container"),
    ({"name": "d", "image": "busybox", "readinessProbe": {"exec": {"command": ["true"]}}},
     "spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral "
     "Container"),
    ({"name": "d"}, "spec.ephemeralContainers[0].image: Required value"),
])
def test_refused_additions(registry: Registry, container: dict[str, Any], message: str) -> None:
    with pytest.raises(Invalid) as err:
        add(registry, container)
    assert message in str(err.value.to_status()["message"])


def test_existing_ones_are_neither_changed_nor_removed(registry: Registry) -> None:
    add(registry, {"name": "dbg", "image": "busybox"})
    with pytest.raises(Invalid, match='existing ephemeral containers "dbg" may not be changed'):
        add(registry, {"name": "dbg", "image": "busybox:other"})
    with pytest.raises(Invalid, match='existing ephemeral containers "dbg" may not be removed'):
        registry.patch("pods", "default", "p", "merge",
                       {"spec": {"ephemeralContainers": None}},
                       subresource="ephemeralcontainers")


def test_not_through_the_pod_itself(registry: Registry) -> None:
    with pytest.raises(Invalid, match="pod updates may not change fields"):
        registry.patch("pods", "default", "p", "strategic",
                       {"spec": {"ephemeralContainers": [{"name": "d", "image": "busybox"}]}})
