"""The ``batch/v1`` group: Job."""

from __future__ import annotations

from . import job

#: In discovery order.
RESOURCES = (job.RESOURCE,)
