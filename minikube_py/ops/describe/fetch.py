"""What a description shows besides the object, read through any
:class:`~minikube_py.client.base.Client` (the CLI's HTTP one, the dashboard's,
or an in-process one): the object's events and the related objects kubectl's
describers list on their own.

Both front-ends call these two functions, then
:func:`~minikube_py.ops.describe.describe`, so ``minikube-py describe`` and the
dashboard's describe screen show the same text. Both only list; API errors
propagate as :class:`~minikube_py.api.errors.StatusError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from minikube_py.api.kinds import KindInfo
from minikube_py.client.base import Client

__all__ = ["events_for", "related_objects"]


def events_for(client: Client, info: KindInfo, obj: Mapping[str, Any],
               namespace: str | None) -> list[dict[str, Any]]:
    """The events about ``obj`` (of kind ``info``), as ``kubectl describe``
    finds them: by involved object kind, name and, except for nodes, uid.
    ``namespace`` is the object's (``None`` for cluster-scoped kinds)."""
    selector = (f"involvedObject.kind={info.kind},"
                f"involvedObject.name={obj['metadata']['name']}")
    if info.kind != "Node":
        # Node events from kubelets carry the node's name as the uid, so match by name.
        selector += f",involvedObject.uid={obj['metadata'].get('uid', '')}"
    return client.list("events", namespace=namespace if info.namespaced else None,
                       field_selector=selector).items


def related_objects(client: Client, info: KindInfo, obj: Mapping[str, Any],
                    namespace: str | None) -> dict[str, list[dict[str, Any]]]:
    """The ``related`` argument of :func:`~minikube_py.ops.describe.describe`:
    a node's pods, a deployment's replica sets (by its selector's
    ``matchLabels``), a replica set's pods; nothing for other kinds."""
    name = obj["metadata"]["name"]
    if info.kind == "Node":
        return {"pods": client.list("pods", field_selector=f"spec.nodeName={name}").items}
    if info.kind in ("Deployment", "ReplicaSet"):
        selector = (obj.get("spec") or {}).get("selector") or {}
        labels = ",".join(f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items())
        if info.kind == "Deployment":
            return {"replicasets": client.list("replicasets", namespace=namespace,
                                               label_selector=labels or None).items}
        return {"pods": client.list("pods", namespace=namespace,
                                    label_selector=labels or None).items}
    return {}
