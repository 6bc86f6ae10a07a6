"""The ``scheduling.k8s.io/v1`` group: PriorityClass."""

from __future__ import annotations

from . import priorityclass

#: In discovery order.
RESOURCES = (priorityclass.RESOURCE,)
