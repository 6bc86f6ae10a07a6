"""The ``apps/v1`` group: Deployment, ReplicaSet."""

from __future__ import annotations

from . import deployment, replicaset

#: In discovery order.
RESOURCES = (deployment.RESOURCE, replicaset.RESOURCE)
