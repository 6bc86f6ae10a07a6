"""NodeResourcesBalancedAllocation: prefer nodes whose resources would be used evenly.

``score = int((1 - std) * 100)`` over the fractions ``requested/allocatable``
(capped at 1) of the configured resources (default cpu and memory), using the
node's real requests plus the pod's (``useRequested``: no non-zero defaults).
kube-scheduler v1.32 scores best-effort pods too (skipping them came in 1.33).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..framework import CycleState, Handle, PluginArgsError
from ..podinfo import PodInfo
from ..snapshot import Snapshot
from ..status import Status
from .fit import parse_resources
from .helpers import I64, Slots
from .resource_allocation import allocatable_requested, balanced, pod_request_list

NAME: Final = "NodeResourcesBalancedAllocation"
_PRESCORE_KEY: Final = "PreScore" + NAME


class BalancedAllocation:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        errors: list[tuple[str, str]] = []
        self.resources = parse_resources((args or {}).get("resources"), "resources", errors)
        if errors:
            raise PluginArgsError(errors)

    def pre_score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> Status:
        state.write(_PRESCORE_KEY, pod_request_list(pod, self.resources, use_requested=True))
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> I64:
        requests = state.get(_PRESCORE_KEY)
        if not isinstance(requests, list):
            requests = pod_request_list(pod, self.resources, use_requested=True)
        alloc, req = allocatable_requested(snap, slots, self.resources, requests,
                                           use_requested=True)
        return balanced(req, alloc)

    def normalize(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots,
                  scores: I64) -> I64:
        return scores
