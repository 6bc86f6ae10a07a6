"""The core (``v1``) group: Pod, Node, Namespace, Event, ConfigMap, Endpoints,
Service, Secret, ServiceAccount."""

from __future__ import annotations

from . import configmap, endpoints, event, namespace, node, pod, secret, service, serviceaccount

#: In discovery order.
RESOURCES = (pod.RESOURCE, node.RESOURCE, namespace.RESOURCE, event.RESOURCE,
             configmap.RESOURCE, endpoints.RESOURCE, service.RESOURCE, secret.RESOURCE,
             serviceaccount.RESOURCE)
