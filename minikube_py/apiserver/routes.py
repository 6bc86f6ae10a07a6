"""Kubernetes REST paths: turning a URL path into what it addresses.

The shapes served (``{prefix}`` is ``/api/v1`` or ``/apis/{group}/{version}``)::

    {prefix}/{resource}                              list / create / watch (all namespaces)
    {prefix}/{resource}/{name}[/{subresource}]       cluster-scoped objects
    {prefix}/namespaces/{ns}/{resource}[/{name}[/{subresource}]]

``/api/v1/namespaces/{name}/status`` and ``.../finalize`` are the namespace's own
subresources, not resources inside it — Kubernetes resolves the ambiguity the
same way, because no resource is called ``status`` or ``finalize``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..api import kinds
from ..api.errors import NotFound

#: The path segment of Kubernetes' URL grammar that introduces a namespace
#: (``.../namespaces/{ns}/{resource}``); also the namespaces resource itself.
NAMESPACES_SEGMENT = "namespaces"


@dataclass(frozen=True, slots=True)
class Target:
    """What a resource URL addresses."""

    info: kinds.KindInfo
    namespace: str | None  # None: all namespaces (lists) or cluster-scoped
    name: str | None
    subresource: str | None
    #: What follows ``/proxy`` in a proxy path (the path sent on to the pod).
    rest: str = ""

    @property
    def resource(self) -> str:
        return self.info.plural


def _group_version(parts: list[str]) -> tuple[str, str, list[str]] | None:
    """Split ``api/v1/...`` or ``apis/g/v/...`` into (group, version, rest)."""
    if len(parts) >= 2 and parts[0] == "api":
        return "", parts[1], parts[2:]
    if len(parts) >= 3 and parts[0] == "apis":
        return parts[1], parts[2], parts[3:]
    return None


def _served(group: str, version: str, resource: str) -> kinds.KindInfo:
    for info in kinds.KINDS:
        if info.plural == resource and info.group == group and info.version == version:
            return info
    raise NotFound(f'the server could not find the requested resource "{resource}"')


def resolve(path: str) -> Target | None:
    """The resource target of ``path``, or None when it is not a resource path
    (discovery and other endpoints). Raises NotFound for unserved resources."""
    parts = [p for p in path.split("/") if p]
    gv = _group_version(parts)
    if gv is None:
        return None
    group, version, rest = gv
    if not rest:
        return None
    namespace: str | None = None
    if rest[0] == NAMESPACES_SEGMENT and len(rest) >= 3 and \
            rest[2] not in kinds.by_plural(NAMESPACES_SEGMENT).subresources:
        namespace, rest = rest[1], rest[2:]
    info = _served(group, version, rest[0])
    if namespace is not None and not info.namespaced:
        raise NotFound(f'the server could not find the requested resource "{info.plural}"')
    name = rest[1] if len(rest) > 1 else None
    sub = rest[2] if len(rest) > 2 else None
    if sub == "proxy" and sub in info.subresources:
        # Everything after /proxy is the path on the pod (kept with its
        # trailing slash, which matters to the server there).
        marker = f"/{rest[1]}/proxy"
        tail = path[path.index(marker) + len(marker):] if marker in path else ""
        return Target(info, namespace, name, sub, rest=tail)
    if len(rest) > 3 or (sub is not None and sub not in info.subresources):
        raise NotFound(f'the server could not find the requested resource '
                       f'"{info.plural}/{sub or "/".join(rest[2:])}"')
    return Target(info, namespace, name, sub)


def object_path(info: kinds.KindInfo, namespace: str | None, name: str) -> str:
    """The URL path of one object."""
    prefix = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    if info.namespaced and namespace:
        return f"{prefix}/namespaces/{namespace}/{info.plural}/{name}"
    return f"{prefix}/{info.plural}/{name}"


def collection_path(info: kinds.KindInfo, namespace: str | None) -> str:
    prefix = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    if info.namespaced and namespace:
        return f"{prefix}/namespaces/{namespace}/{info.plural}"
    return f"{prefix}/{info.plural}"
