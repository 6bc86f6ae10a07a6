"""Fixtures for tests against a real Podman.

The session starts its own Podman service in a temporary state directory
(exactly what the control plane does), which builds the busybox image and
probes the OCI runtime. Nothing is skipped: if Podman cannot run containers
here, the fixture fails with the host check's message.

Every sandbox a test makes carries this session's node label, and at the end
of the session everything with it is removed (``runtime`` fixture), so
parallel sessions on the same host (other engineers, CI) do not touch each
other's pods.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from minikube_py.runtime.base import (
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_NODE,
    LABEL_POD_UID,
    PortMapping,
    Sandbox,
    SandboxConfig,
)
from minikube_py.runtime.images import BUSYBOX_REPO
from minikube_py.runtime.podman import PodmanRuntime
from minikube_py.runtime.podman_service import HostCheck, PodmanService, PodmanUnavailable

#: The node label of this test session's sandboxes.
NODE = f"itest-{secrets.token_hex(4)}"
BUSYBOX = f"{BUSYBOX_REPO}:latest"


@pytest.fixture(scope="session")
def podman_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostCheck]:
    service = PodmanService(tmp_path_factory.mktemp("podman-state"))
    try:
        check = service.check()
    except PodmanUnavailable as exc:
        service.stop()
        pytest.fail(str(exc), pytrace=False)
    print(check.message)
    yield check
    service.stop()


@pytest.fixture(scope="session")
def runtime(podman_host: HostCheck,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[PodmanRuntime]:
    # A cluster id of its own, as the control plane has: lists, stats and events see
    # only this session's objects, however many other pods the host runs.
    rt = PodmanRuntime(podman_host.base_url, state_dir=tmp_path_factory.mktemp("runtime"),
                       ulimits=podman_host.ulimits, oci_runtime=podman_host.oci_runtime,
                       cluster=NODE)
    yield rt
    for sandbox in rt.list_sandboxes({LABEL_NODE: NODE}):
        rt.remove_sandbox(sandbox.id)
    left = rt.list_sandboxes({LABEL_NODE: NODE})
    rt.close()
    assert not left, f"sandboxes left behind: {left}"


def sandbox_config(name: str, *, labels: dict[str, str] | None = None,
                   ports: tuple[PortMapping, ...] = (), cgroup_parent: str = "") -> SandboxConfig:
    uid = f"uid-{secrets.token_hex(6)}"
    return SandboxConfig(
        uid=uid, namespace="itest", name=name, node=NODE,
        labels={**(labels or {}), LABEL_POD_UID: uid, LABEL_NAMESPACE: "itest",
                LABEL_NAME: name, LABEL_NODE: NODE},
        hostname=name, port_mappings=ports, cgroup_parent=cgroup_parent)


@pytest.fixture
def make_sandbox(runtime: PodmanRuntime) -> Iterator[Callable[..., Sandbox]]:
    """Run a sandbox for the test; removed when the test ends."""
    made: list[str] = []

    def make(name: str = "pod", **kwargs: object) -> Sandbox:
        sandbox = runtime.run_sandbox(sandbox_config(name, **kwargs))  # type: ignore[arg-type]
        made.append(sandbox.id)
        return sandbox

    yield make
    for sandbox_id in made:
        runtime.remove_sandbox(sandbox_id)


@pytest.fixture
def cgroup_parent() -> Iterator[str]:
    """A fresh cgroup parent name; its directories are removed afterwards."""
    name = f"minikube-py-itest-{secrets.token_hex(4)}"
    yield name
    root = Path("/sys/fs/cgroup")
    for hierarchy in [root, *(p for p in root.iterdir() if p.is_dir())]:
        top = hierarchy / name
        if not top.is_dir():
            continue
        for directory in sorted(top.rglob("*"), key=lambda p: len(p.parts), reverse=True):
            if directory.is_dir():
                directory.rmdir()
        top.rmdir()
