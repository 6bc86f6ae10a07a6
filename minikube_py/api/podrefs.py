"""The ConfigMaps and Secrets a pod refers to: the one place that reads them off a pod.

A pod uses a ConfigMap or Secret of its own namespace through:

* ``env[].valueFrom.configMapKeyRef`` / ``secretKeyRef`` and
  ``envFrom[].configMapRef`` / ``secretRef`` of every container, init
  container and ephemeral container;
* its ``volumes``: ``configMap.name``, ``secret.secretName``, and the
  ``configMap`` / ``secret`` sources of a ``projected`` volume;
* ``imagePullSecrets`` (Secrets only).

References that are ``optional`` count too (the pod still names the object).
The pods come from the API, which validated their shape; a reference that
names no object (no name, or a field of another shape) refers to nothing and
so adds nothing, rather than failing the dashboard over one pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .access import mapping, mappings, spec_of

__all__ = ["CONFIGMAPS", "CONTAINER_FIELDS", "SECRETS", "pod_references"]

#: The resources a reference names.
CONFIGMAPS: Final = "configmaps"
SECRETS: Final = "secrets"
#: The pod spec's container lists, in the order Kubernetes runs them.
CONTAINER_FIELDS: Final = ("initContainers", "containers", "ephemeralContainers")


def pod_references(pod: Mapping[str, Any]) -> frozenset[tuple[str, str]]:
    """``(resource, name)`` of every ConfigMap (:data:`CONFIGMAPS`) and Secret
    (:data:`SECRETS`) ``pod`` refers to (see the module docstring); the
    objects live in the pod's namespace."""
    spec = spec_of(pod)
    refs: set[tuple[str, str]] = set()

    def add(resource: str, ref: object, field: str = "name") -> None:
        name = mapping(ref).get(field)
        if isinstance(name, str) and name:
            refs.add((resource, name))

    for field in CONTAINER_FIELDS:
        for container in mappings(spec.get(field)):
            for var in mappings(container.get("env")):
                source = mapping(var.get("valueFrom"))
                add(CONFIGMAPS, source.get("configMapKeyRef"))
                add(SECRETS, source.get("secretKeyRef"))
            for source in mappings(container.get("envFrom")):
                add(CONFIGMAPS, source.get("configMapRef"))
                add(SECRETS, source.get("secretRef"))
    for volume in mappings(spec.get("volumes")):
        add(CONFIGMAPS, volume.get("configMap"))
        add(SECRETS, volume.get("secret"), "secretName")
        for source in mappings(mapping(volume.get("projected")).get("sources")):
            add(CONFIGMAPS, source.get("configMap"))
            add(SECRETS, source.get("secret"))
    for ref in mappings(spec.get("imagePullSecrets")):
        add(SECRETS, ref)
    return frozenset(refs)
