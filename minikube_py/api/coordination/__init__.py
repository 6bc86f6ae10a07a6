"""The ``coordination.k8s.io/v1`` group: Lease."""

from __future__ import annotations

from . import lease

#: In discovery order.
RESOURCES = (lease.RESOURCE,)
