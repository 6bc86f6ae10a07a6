"""ImageLocality: prefer nodes that already have the pod's images.

For each container (init and app) whose normalised image a node has, add
``size * (nodes with the image / all nodes)`` (spread-scaled, so an image
present everywhere gives no advantage). The sum is clamped to
``[23Mi, 1000Mi * containers]`` and mapped linearly onto 0..100.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from ..framework import MAX_NODE_SCORE, CycleState, Handle
from ..gil import zeros
from ..podinfo import PodInfo
from ..snapshot import Snapshot
from .helpers import I64, Slots

NAME: Final = "ImageLocality"
MB: Final = 1024 * 1024
MIN_THRESHOLD: Final = 23 * MB
MAX_CONTAINER_THRESHOLD: Final = 1000 * MB


def calculate_priority(sum_scores: I64, num_containers: int) -> I64:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = np.where(sum_scores < MIN_THRESHOLD, MIN_THRESHOLD,
                       np.where(sum_scores > max_threshold, max_threshold, sum_scores))
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality:
    name = NAME

    def __init__(self, args: Mapping[str, Any] | None = None,
                 handle: Handle | None = None) -> None:
        pass

    def score(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots) -> I64:
        total_nodes = snap.num_nodes
        sums = zeros(len(slots), np.int64)
        for image in pod.images:
            col = snap.image_column(image)
            if col is None:
                continue
            size, count = snap.image_state(image)
            scaled = int(float(size) * (float(count) / float(total_nodes)))
            sums += np.where(col[slots], scaled, 0)
        return calculate_priority(sums, pod.num_containers)

    def normalize(self, state: CycleState, pod: PodInfo, snap: Snapshot, slots: Slots,
                  scores: I64) -> I64:
        return scores
