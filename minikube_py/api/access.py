"""Reading Kubernetes-shaped objects safely: the one set of accessors.

Objects reach controllers, the scheduler, printers and ``describe`` as JSON
dicts that were validated once but are read everywhere, often field by field
out of optional sub-objects. These functions promise never to raise on a
missing or wrongly-typed value: a mapping that is absent (or not a mapping)
reads as an empty, read-only mapping, a list as an empty list, a name as
``""``. They never copy and never modify what they are given.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

__all__ = ["EMPTY", "annotations_of", "items", "key_of", "labels_of", "mapping", "mappings",
           "meta", "name_of", "namespace_of", "spec_of", "status_of", "uid_of"]

#: The empty mapping every accessor answers with (read-only: nobody can fill it).
EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})


def mapping(value: object) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else :data:`EMPTY`."""
    # A plain dict first: nearly every value is one, and the ABC check costs
    # six times as much (it is called hundreds of times along a pod's chain).
    if type(value) is dict:
        return value
    return value if isinstance(value, Mapping) else EMPTY


def items(value: object) -> list[Any]:
    """``value`` if it is a list, else ``[]``."""
    return value if isinstance(value, list) else []


def mappings(value: object) -> list[Mapping[str, Any]]:
    """The items of the list ``value`` that are mappings (others skipped)."""
    return [item for item in items(value) if isinstance(item, Mapping)]


def meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """``obj.metadata``."""
    return mapping(obj.get("metadata"))


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """``obj.spec``."""
    return mapping(obj.get("spec"))


def status_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """``obj.status``."""
    return mapping(obj.get("status"))


def name_of(obj: Mapping[str, Any]) -> str:
    return str(meta(obj).get("name") or "")


def namespace_of(obj: Mapping[str, Any]) -> str:
    """The namespace, ``""`` for cluster-scoped objects."""
    return str(meta(obj).get("namespace") or "")


def uid_of(obj: Mapping[str, Any]) -> str:
    return str(meta(obj).get("uid") or "")


def labels_of(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return mapping(meta(obj).get("labels"))


def annotations_of(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return mapping(meta(obj).get("annotations"))


def key_of(obj: Mapping[str, Any]) -> str:
    """``namespace/name``, or ``name`` for cluster-scoped objects (a store and
    informer key)."""
    ns, name = namespace_of(obj), name_of(obj)
    return f"{ns}/{name}" if ns else name
