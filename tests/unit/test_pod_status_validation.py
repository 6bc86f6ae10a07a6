"""Writes to ``pods/status`` are validated as Kubernetes' pod status strategy
does (``ValidatePodStatusUpdate``): the status on its own terms, never the
stored spec again. One row per rule, through the registry's real path; the
expected lines are Kubernetes' wording (``str(FieldError)``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import Invalid
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

TERMINATED_0 = {"terminated": {"exitCode": 0, "reason": "Completed"}}
TERMINATED_1 = {"terminated": {"exitCode": 1, "reason": "Error"}}
RUNNING = {"running": {"startedAt": "2026-11-27T03:08:17Z"}}
TRANSITION = "Forbidden: may not be transitioned to non-terminated state"


@pytest.fixture
def registry(tmp_path: Path):
    store = Store(tmp_path / "state")
    reg = Registry(store)
    reg.ensure_system_namespaces()
    yield reg
    store.close()


def _pod(policy: str, *, sidecar: bool = False) -> dict[str, Any]:
    init: dict[str, Any] = {"name": "init", "image": "busybox"}
    if sidecar:
        init["restartPolicy"] = "Always"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"restartPolicy": policy, "nodeName": "node-1", "initContainers": [init],
                     "containers": [{"name": "app", "image": "busybox"}]}}


def _write(registry: Registry, pod: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    current = registry.store.get("pods", "default", pod["metadata"]["name"])
    return registry.update({**current, "status": status}, subresource="status")


@pytest.mark.parametrize("policy, sidecar, before, after, errors", [
    # Containers that may not restart stay terminated.
    ("Never", False, {"containerStatuses": [{"name": "app", "state": TERMINATED_0}]},
     {"containerStatuses": [{"name": "app", "state": RUNNING}]},
     [f"status.containerStatuses[0].state: {TRANSITION}"]),
    ("OnFailure", False, {"containerStatuses": [{"name": "app", "state": TERMINATED_0}]},
     {"containerStatuses": [{"name": "app", "state": RUNNING}]},
     [f"status.containerStatuses[0].state: {TRANSITION}"]),
    # Allowed: a failure under OnFailure, anything under Always, staying terminated.
    ("OnFailure", False, {"containerStatuses": [{"name": "app", "state": TERMINATED_1}]},
     {"containerStatuses": [{"name": "app", "state": RUNNING}]}, []),
    ("Always", False, {"containerStatuses": [{"name": "app", "state": TERMINATED_0}]},
     {"containerStatuses": [{"name": "app", "state": RUNNING}]}, []),
    ("Never", False, {"containerStatuses": [{"name": "app", "state": TERMINATED_0}]},
     {"containerStatuses": [{"name": "app", "state": TERMINATED_0}]}, []),
    # Init containers likewise, but a restartable one (a sidecar) may restart.
    ("Never", False, {"initContainerStatuses": [{"name": "init", "state": TERMINATED_0}]},
     {"initContainerStatuses": [{"name": "init", "state": RUNNING}]},
     [f"status.initContainerStatuses[0].state: {TRANSITION}"]),
    ("Never", True, {"initContainerStatuses": [{"name": "init", "state": TERMINATED_0}]},
     {"initContainerStatuses": [{"name": "init", "state": RUNNING}]}, []),
    # Ephemeral containers never restart, whatever the pod's policy.
    ("Always", False,
     {"ephemeralContainerStatuses": [{"name": "debug", "state": TERMINATED_0}]},
     {"ephemeralContainerStatuses": [{"name": "debug", "state": RUNNING}]},
     [f"status.ephemeralContainerStatuses[0].state: {TRANSITION}"]),
    # A new nominated node must be a valid name.
    ("Always", False, {}, {"nominatedNodeName": "Bad_Node"},
     ['status.nominatedNodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain']),
    ("Always", False, {}, {"nominatedNodeName": "node-2"}, []),
])
def test_a_status_write_is_checked_on_its_own_terms(
        registry: Registry, policy: str, sidecar: bool, before: dict[str, Any],
        after: dict[str, Any], errors: list[str]) -> None:
    pod = _pod(policy, sidecar=sidecar)
    registry.create(pod)
    stored = _write(registry, pod, before)
    if not errors:
        written = _write(registry, pod, after)
        assert written["status"] == after
        return
    with pytest.raises(Invalid) as caught:
        _write(registry, pod, after)
    causes = [str(e) for e in caught.value.errors]
    assert len(causes) == len(errors), causes
    for text, start in zip(causes, errors, strict=True):
        assert text.startswith(start), text
    # Nothing was written.
    assert registry.store.get("pods", "default", "web") == stored


def test_a_status_write_does_not_validate_the_stored_spec_again(registry: Registry,
                                                                 monkeypatch) -> None:
    """The spec cannot change through ``pods/status``: Kubernetes does not
    validate it there, and neither do we (a kubelet writes status for every
    pod many times; the spec checks were most of their cost)."""
    from minikube_py.api import validation_pod

    registry.create(_pod("Always"))
    calls: list[str] = []
    monkeypatch.setattr(validation_pod, "validate_pod_spec",
                        lambda *a, **k: calls.append("spec") or [])
    _write(registry, _pod("Always"), {"phase": "Running"})
    assert calls == []
    current = registry.store.get("pods", "default", "web")
    registry.update({**current, "metadata": {**current["metadata"], "labels": {"a": "b"}}})
    assert calls == ["spec"]  # the main resource still validates the whole pod
