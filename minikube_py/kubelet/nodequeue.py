"""The pod queue a kubelet writes to: its own, or its view of a shared one.

A kubelet queues pod keys (``namespace/name``), delays resyncs and retries,
and marks keys done. Standalone, that is a :class:`~minikube_py.client.workqueue.WorkQueue`
of its own, drained by its own workers. Hollow kubelets of a
:class:`~.pool.KubeletPool` share one queue of ``(node, key)`` pairs and one
set of workers; :class:`NodeQueue` is one node's view of it, so the kubelet's
code is the same either way. The shared queue keeps the work queue's promises
per pair: one pod is never synced by two workers at once, and a key added
many times before it is taken is synced once.
"""

from __future__ import annotations

from typing import Protocol

from ..client.workqueue import WorkQueue

__all__ = ["NodeQueue", "PodQueue"]


class PodQueue(Protocol):
    """What a kubelet does with its queue (a subset of WorkQueue's verbs)."""

    def add(self, key: str) -> None: ...
    def add_after(self, key: str, delay: float) -> None: ...
    def schedule(self, key: str, delay: float) -> None: ...
    def add_rate_limited(self, key: str) -> None: ...
    def forget(self, key: str) -> None: ...
    def done(self, key: str) -> None: ...
    def shut_down(self) -> None: ...


class NodeQueue:
    """One node's view of a shared ``WorkQueue[(node, key)]``."""

    __slots__ = ("node", "shared")

    def __init__(self, shared: WorkQueue[tuple[str, str]], node: str) -> None:
        self.shared = shared
        self.node = node

    def add(self, key: str) -> None:
        self.shared.add((self.node, key))

    def add_after(self, key: str, delay: float) -> None:
        self.shared.add_after((self.node, key), delay)

    def schedule(self, key: str, delay: float) -> None:
        self.shared.schedule((self.node, key), delay)

    def add_rate_limited(self, key: str) -> None:
        self.shared.add_rate_limited((self.node, key))

    def forget(self, key: str) -> None:
        self.shared.forget((self.node, key))

    def done(self, key: str) -> None:
        self.shared.done((self.node, key))

    def shut_down(self) -> None:
        """The pool shuts the shared queue down; one node leaving does not."""
