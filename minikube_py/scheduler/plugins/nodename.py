"""NodeName: a pod that names a node (``spec.nodeName``) fits only there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..framework import CycleState, Handle
from ..podinfo import PodInfo
from ..snapshot import Snapshot
from ..status import REASONS, Code
from .helpers import U16, Slots, verdicts

NAME: Final = "NodeName"
ERR_REASON: Final = "node(s) didn't match the requested node name"


class NodeName:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        self._rid = REASONS.intern(NAME, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)

    def filter(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> U16 | None:
        if not pod.node_name:
            return None
        return verdicts(slots != snap.slot_of(pod.node_name), self._rid)
