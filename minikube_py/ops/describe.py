"""What a description shows besides the object, read through any
:class:`~minikube_py.client.base.Client` (the CLI's HTTP one, the dashboard's,
or an in-process one): the object's events and the related objects kubectl's
describers list on their own.

Both front-ends call these two functions, then
:func:`~minikube_py.api.describe.describe`, so ``minikube-py describe`` and the
dashboard's describe screen show the same text. Both only list; API errors
propagate as :class:`~minikube_py.api.errors.StatusError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from minikube_py.api import kinds
from minikube_py.api.kinds import KindInfo
from minikube_py.client.base import Client

__all__ = ["events_for", "related_objects"]

#: The resource events are stored as (``Event``'s plural).
_EVENTS = "events"


def events_for(client: Client, info: KindInfo, obj: Mapping[str, Any],
               namespace: str | None) -> list[dict[str, Any]]:
    """The events about ``obj`` (of kind ``info``), as ``kubectl describe``
    finds them: by involved object kind, name and, unless the resource says
    its events carry no uid (nodes), uid. ``namespace`` is the object's
    (``None`` for cluster-scoped kinds)."""
    selector = (f"involvedObject.kind={info.kind},"
                f"involvedObject.name={obj['metadata']['name']}")
    if kinds.resource_of(info).events_by_uid:
        selector += f",involvedObject.uid={obj['metadata'].get('uid', '')}"
    return client.list(_EVENTS, namespace=namespace if info.namespaced else None,
                       field_selector=selector).items


def related_objects(client: Client, info: KindInfo, obj: Mapping[str, Any],
                    namespace: str | None) -> dict[str, list[dict[str, Any]]]:
    """The ``related`` argument of :func:`~minikube_py.api.describe.describe`:
    what the resource's ``related`` declarations list (a node's pods, a
    deployment's replica sets, a replica set's pods); nothing for other kinds."""
    out: dict[str, list[dict[str, Any]]] = {}
    for rel in kinds.resource_of(info).related:
        out[rel.key] = client.list(
            rel.resource, namespace=namespace if info.namespaced else None,
            label_selector=rel.label_selector(obj) or None,
            field_selector=rel.field_selector(obj) or None).items
    return out
