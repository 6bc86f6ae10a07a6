"""NodePorts: a host port (per host IP and protocol) can be used by one pod per node.

``0.0.0.0`` (or an empty host IP) binds every address, so it conflicts with
the same protocol/port on any IP, and any IP conflicts with ``0.0.0.0``.
Ports come from app containers and sidecars (``schedutil.GetHostPorts``).
Only nodes that already have host ports in use are examined; nominated pods of
higher or equal priority count as using their ports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import numpy as np

from ..framework import CycleState, Handle, PreFilterResult
from ..gil import zeros
from ..podinfo import DEFAULT_BIND_ALL_HOST_IP, HostPort, PodInfo
from ..snapshot import Snapshot
from ..status import REASONS, Code, Status
from .helpers import U16, Slots

NAME: Final = "NodePorts"
ERR_REASON: Final = "node(s) didn't have free ports for the requested pod ports"


def conflicts(used: Iterable[HostPort], wanted: Iterable[HostPort]) -> bool:
    """``HostPortInfo.CheckConflict`` for each wanted port."""
    used_set = set(used)
    for ip, proto, port in wanted:
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            if any(u[1] == proto and u[2] == port for u in used_set):
                return True
        elif (DEFAULT_BIND_ALL_HOST_IP, proto, port) in used_set or (ip, proto, port) in used_set:
            return True
    return False


class NodePorts:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        self._rid = REASONS.intern(NAME, Code.UNSCHEDULABLE, ERR_REASON)

    def pre_filter(self, state: CycleState, pod: PodInfo,
                   snap: Snapshot) -> tuple[PreFilterResult | None, Status]:
        if not pod.host_ports:
            return None, Status.skip()
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> U16 | None:
        if not pod.host_ports:
            return None
        extra: dict[int, list[HostPort]] = {}
        for slot, pods in snap.nominated_charges(pod.priority, pod.uid):
            ports = [p for info in pods for p in info.host_ports]
            if ports:
                extra[slot] = ports
        candidates = set(slots[snap.port_counts[slots] > 0].tolist()) | set(extra)
        if not candidates:
            return None
        out = zeros(len(slots), np.uint16)
        hit = False
        positions = np.flatnonzero(np.isin(slots, np.array(sorted(candidates), np.int32)))
        for i in positions.tolist():
            slot = int(slots[i])
            used = [*snap.ports_of(slot), *extra.get(slot, ())]
            if conflicts(used, pod.host_ports):
                out[i] = self._rid
                hit = True
        return out if hit else None
