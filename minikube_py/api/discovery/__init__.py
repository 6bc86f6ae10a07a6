"""The ``discovery.k8s.io/v1`` group: EndpointSlice."""

from __future__ import annotations

from . import endpointslice

#: In discovery order.
RESOURCES = (endpointslice.RESOURCE,)
