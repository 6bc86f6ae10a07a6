"""NodeUnschedulable: reject cordoned nodes (``spec.unschedulable``).

A pod that tolerates the ``node.kubernetes.io/unschedulable:NoSchedule`` taint
also tolerates the field (as DaemonSet pods do).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..framework import CycleState, Handle
from ..podinfo import PodInfo, Taint, tolerations_tolerate
from ..snapshot import Snapshot
from ..status import REASONS, Code
from .helpers import U16, Slots, verdicts

NAME: Final = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE: Final = "node(s) were unschedulable"
_TAINT: Final = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


class NodeUnschedulable:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        self._rid = REASONS.intern(NAME, Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                   ERR_REASON_UNSCHEDULABLE)

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> U16 | None:
        if tolerations_tolerate(pod.tolerations, _TAINT):
            return None
        return verdicts(snap.unschedulable[slots], self._rid)
