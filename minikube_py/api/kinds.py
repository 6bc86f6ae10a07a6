"""The scheme: every kind minikube-py serves, looked up by any of its names.

Each resource module (``api/core/pod.py``, ``api/apps/deployment.py``, ...)
builds a :class:`~.resource.Resource` and calls :func:`register`;
``minikube_py.api`` imports every group package on first use, as Kubernetes'
``install`` packages add their types to the scheme. Lookups here are all the
other layers use: they route, store, print and describe by what the resource
declares and never branch on a kind's name.

Adding a kind is adding its resource module (see ``docs/adding-a-kind.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import BadRequest, NotFound
from .resource import KindInfo, Resource

__all__ = ["KINDS", "KindInfo", "by_kind", "by_plural", "find", "for_object", "register",
           "resolve", "resource", "resource_of", "serving"]

#: Every registered kind, in registration order (discovery and OpenAPI order).
KINDS: tuple[KindInfo, ...] = ()

_RESOURCES: dict[str, Resource] = {}
_BY_KIND: dict[str, KindInfo] = {}
_BY_PLURAL: dict[str, KindInfo] = {}
_BY_ANY_NAME: dict[str, KindInfo] = {}


def register(res: Resource) -> Resource:
    """Add ``res`` to the scheme; a second kind or resource of the same name is
    a programming error."""
    global KINDS
    info = res.info
    if info.kind in _BY_KIND or info.plural in _BY_PLURAL:
        raise ValueError(f"kind {info.kind} ({info.plural}) is registered twice")
    _RESOURCES[info.kind] = res
    _BY_KIND[info.kind] = info
    _BY_PLURAL[info.plural] = info
    for name in (info.kind.lower(), info.plural, info.singular, *info.short_names,
                 info.group_resource):
        _BY_ANY_NAME.setdefault(name, info)
    KINDS = (*KINDS, info)
    return res


def resource(kind: str) -> Resource:
    """The :class:`Resource` of ``kind``; raises :class:`NotFound` when unknown."""
    try:
        return _RESOURCES[kind]
    except KeyError:
        raise NotFound(f'no kind "{kind}" is registered') from None


def find(kind: str) -> Resource | None:
    """The :class:`Resource` of ``kind``, or ``None`` when it is not served."""
    return _RESOURCES.get(kind)


def serving(subresource: str) -> KindInfo:
    """The first kind that serves ``subresource`` (``binding``: pods)."""
    for info in KINDS:
        if subresource in info.subresources:
            return info
    raise NotFound(f'no resource serves "{subresource}"')


def resource_of(info: KindInfo) -> Resource:
    """The :class:`Resource` whose facts are ``info``."""
    return _RESOURCES[info.kind]


def by_kind(kind: str) -> KindInfo:
    """Look up by ``kind`` (``Pod``); raises :class:`NotFound` for unknown kinds."""
    try:
        return _BY_KIND[kind]
    except KeyError:
        raise NotFound(f'no kind "{kind}" is registered') from None


def by_plural(plural: str) -> KindInfo:
    """Look up by resource (``pods``); raises :class:`NotFound` when not served."""
    try:
        return _BY_PLURAL[plural]
    except KeyError:
        raise NotFound(f'the server could not find the requested resource "{plural}"') from None


def resolve(name: str) -> KindInfo:
    """Resolve what a user typed on a command line: ``po``, ``pods``, ``Deployment``,
    ``deployments.apps``. Case-insensitive. Unknown names raise :class:`BadRequest`
    with kubectl's wording."""
    info = _BY_ANY_NAME.get(name.lower())
    if info is None:
        raise BadRequest(f'the server doesn\'t have a resource type "{name}"')
    return info


def for_object(obj: Mapping[str, Any]) -> KindInfo:
    """The kind of a manifest; checks that its ``apiVersion`` matches ours.

    Raises :class:`BadRequest` naming what is wrong, as kubectl's
    ``no matches for kind "X" in version "Y"``.
    """
    kind = obj.get("kind")
    api_version = obj.get("apiVersion")
    if not isinstance(kind, str) or not kind:
        raise BadRequest("Object 'Kind' is missing")
    if not isinstance(api_version, str) or not api_version:
        raise BadRequest(f"Object 'apiVersion' is missing in kind {kind}")
    info = _BY_KIND.get(kind)
    if info is None or info.api_version != api_version:
        raise BadRequest(f'no matches for kind "{kind}" in version "{api_version}"')
    return info
