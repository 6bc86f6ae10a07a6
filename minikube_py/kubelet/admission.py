"""Pod admission: the kubelet's own check that a pod bound to its node fits
(``pkg/kubelet/lifecycle/predicate.go``), because the scheduler's view may be
stale, a pod may be bound by hand (``spec.nodeName``), or two schedulers race.

:class:`Admitter` promises:

* A pod is decided **once** per uid: admitted, or rejected with a
  :class:`Rejection`. A rejected pod is never started (the syncer writes phase
  Failed with ``reason`` and ``message = "Pod was rejected: " + message``).
* It is checked against the node's allocatable (:class:`~minikube_py.nodes.NodeSpec`)
  minus the pods admitted so far and not released, in Kubernetes' order (the
  first failure is the one reported):

  1. pods count -- ``OutOfpods``;
  2. cpu -- ``OutOfcpu``; 3. memory -- ``OutOfmemory``: only when the pod
     requests some (``requests > allocatable - used``), with the message
     ``Node didn't have enough resource: cpu, requested: 3000, used: 500,
     capacity: 2000`` (cpu in millicores, memory in bytes);
  4. host ports -- ``NodePorts``: a ``hostPort`` already taken for the same
     protocol, where either side binds every address (``0.0.0.0`` or empty)
     or both bind the same one.

* Requests are Kubernetes' effective pod requests, computed where the
  scheduler computes them (:mod:`minikube_py.api.podrequests`).
* ``adopted=True`` (the runtime already runs the pod: a kubelet restart)
  admits without checking, so a running pod is never rejected afterwards.
* :meth:`~Admitter.release` gives a pod's share back (terminal, or its
  containers are gone); :meth:`~Admitter.forget` drops the pod altogether.
  Thread safe; decisions are made under one lock, so concurrent admissions
  never over-commit the node.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..api import podrequests
from ..nodes import NodeSpec

__all__ = ["Admitter", "Rejection", "pod_host_ports", "pod_requests"]

_NANO = 10**9
_MILLI_NANOS = 10**6
_ANY_IP = ("", "0.0.0.0")  # a host port on every address


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a pod was not admitted: ``reason`` (``OutOfcpu``...) and the message."""

    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class _Usage:
    cpu_millis: int
    memory_bytes: int
    ports: frozenset[tuple[str, str, int]]


def pod_requests(pod: Mapping[str, Any]) -> tuple[int, int]:
    """``(cpu millicores, memory bytes)`` the pod requests: Kubernetes' effective
    pod requests (:func:`~minikube_py.api.podrequests.pod_requests`)."""
    requests = podrequests.pod_requests(pod)
    return requests.get(podrequests.CPU, 0), requests.get(podrequests.MEMORY, 0)


def pod_host_ports(pod: Mapping[str, Any]) -> frozenset[tuple[str, str, int]]:
    """``(host IP, protocol, host port)`` of every container port with a hostPort."""
    spec = pod.get("spec") or {}
    out: set[tuple[str, str, int]] = set()
    for c in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        for p in c.get("ports") or []:
            try:
                port = int(p.get("hostPort") or 0)
            except (TypeError, ValueError):
                continue
            if port > 0:
                out.add((str(p.get("hostIP") or ""), str(p.get("protocol") or "TCP"), port))
    return frozenset(out)


def _ports_conflict(wanted: frozenset[tuple[str, str, int]],
                    used: set[tuple[str, str, int]]) -> bool:
    for ip, proto, port in wanted:
        for uip, uproto, uport in used:
            if port == uport and proto == uproto and (
                    ip in _ANY_IP or uip in _ANY_IP or ip == uip):
                return True
    return False


def _insufficient(resource: str, requested: int, used: int, capacity: int) -> Rejection:
    return Rejection(f"OutOf{resource}",
                     f"Node didn't have enough resource: {resource}, requested: {requested}, "
                     f"used: {used}, capacity: {capacity}")


class Admitter:
    """Decides, once per pod, whether it fits the node (see the module contract)."""

    def __init__(self, node: NodeSpec) -> None:
        self.node = node
        self._lock = threading.Lock()
        self._admitted: dict[str, _Usage] = {}
        self._rejected: dict[str, Rejection] = {}
        self._released: set[str] = set()

    def admit(self, pod: Mapping[str, Any], *, adopted: bool = False) -> Rejection | None:
        """The decision for ``pod`` (made now if it is new to this kubelet)."""
        uid = str((pod.get("metadata") or {}).get("uid", ""))
        with self._lock:
            if uid in self._admitted or uid in self._released:
                return None
            if uid in self._rejected:
                return self._rejected[uid]
            cpu, memory = pod_requests(pod)
            ports = pod_host_ports(pod)
            rejection = None if adopted else self._check(cpu, memory, ports)
            if rejection is None:
                self._admitted[uid] = _Usage(cpu, memory, ports)
            else:
                self._rejected[uid] = rejection
            return rejection

    def _check(self, cpu: int, memory: int,
               ports: frozenset[tuple[str, str, int]]) -> Rejection | None:
        used_cpu = sum(u.cpu_millis for u in self._admitted.values())
        used_memory = sum(u.memory_bytes for u in self._admitted.values())
        if len(self._admitted) + 1 > self.node.pods:
            return _insufficient("pods", 1, len(self._admitted), self.node.pods)
        if cpu > 0 and cpu > self.node.cpu_millis - used_cpu:
            return _insufficient("cpu", cpu, used_cpu, self.node.cpu_millis)
        if memory > 0 and memory > self.node.memory_bytes - used_memory:
            return _insufficient("memory", memory, used_memory, self.node.memory_bytes)
        used_ports = {p for u in self._admitted.values() for p in u.ports}
        if ports and _ports_conflict(ports, used_ports):
            return Rejection("NodePorts", "Predicate NodePorts failed: node(s) didn't have free "
                                          "ports for the requested pod ports")
        return None

    def decision(self, uid: str) -> Rejection | None:
        with self._lock:
            return self._rejected.get(uid)

    def admitted(self, uid: str) -> bool:
        with self._lock:
            return uid in self._admitted

    def release(self, uid: str) -> None:
        """Give back what ``uid`` held (it stays admitted, holding nothing); a
        rejection is remembered until :meth:`forget`."""
        with self._lock:
            if self._admitted.pop(uid, None) is not None:
                self._released.add(uid)

    def forget(self, uid: str) -> None:
        """The pod is gone: drop every trace of it."""
        with self._lock:
            self._admitted.pop(uid, None)
            self._rejected.pop(uid, None)
            self._released.discard(uid)

    def used(self) -> tuple[int, int, int]:
        """``(cpu millicores, memory bytes, pods)`` held by admitted pods."""
        with self._lock:
            return (sum(u.cpu_millis for u in self._admitted.values()),
                    sum(u.memory_bytes for u in self._admitted.values()),
                    len(self._admitted))
