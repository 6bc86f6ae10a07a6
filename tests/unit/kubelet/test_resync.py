"""The periodic resync of a pod that runs as it should (kubelet/sync.py).

100,000 hollow pods each resync every few minutes, so what a resync of a
settled pod asks of the runtime is part of the daemon's idle cost: one
listing of the pod's sandboxes (by name: its own and any left by an older
pod of that name) and one of its containers; nothing is started and the
status is not written again.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from minikube_py.runtime import FakeRuntime
from minikube_py.runtime.base import LABEL_NAME, LABEL_POD_UID

from .conftest import create_pod, get_pod, pod_in_phase


class _Counting:
    """Counts the runtime listings made by this thread for one pod (by its
    name or uid, or a sandbox's containers): the kubelet's own threads (its
    workers, the PLEG) are left out."""

    def __init__(self, runtime: FakeRuntime) -> None:
        self._thread = threading.get_ident()
        self.sandboxes = 0
        self.containers = 0
        self._list_sandboxes = runtime.list_sandboxes
        self._list_containers = runtime.list_containers
        runtime.list_sandboxes = self.list_sandboxes  # type: ignore[method-assign]
        runtime.list_containers = self.list_containers  # type: ignore[method-assign]

    def list_sandboxes(self, labels: Mapping[str, str] | None = None) -> Any:
        if threading.get_ident() == self._thread and labels and (
                LABEL_NAME in labels or LABEL_POD_UID in labels):
            self.sandboxes += 1
        return self._list_sandboxes(labels)

    def list_containers(self, sandbox_id: str | None = None) -> Any:
        if threading.get_ident() == self._thread and sandbox_id is not None:
            self.containers += 1
        return self._list_containers(sandbox_id)


def test_a_resync_of_a_running_pod_lists_the_runtime_once_and_writes_nothing(
        client, kubelet, runtime):
    create_pod(client, "web")
    running = pod_in_phase(client, "web", "Running")
    count = _Counting(runtime)
    kubelet.sync("default/web")
    assert (count.sandboxes, count.containers) == (1, 1)
    after = get_pod(client, "web")
    assert after["metadata"]["resourceVersion"] == running["metadata"]["resourceVersion"]
    assert after["status"] == running["status"]
    assert len(runtime.list_containers()) == 1  # nothing started again
