"""The core (``v1``) group: Pod, Node, Namespace, Event, ConfigMap."""

from __future__ import annotations

from . import configmap, event, namespace, node, pod

#: In discovery order.
RESOURCES = (pod.RESOURCE, node.RESOURCE, namespace.RESOURCE, event.RESOURCE,
             configmap.RESOURCE)
