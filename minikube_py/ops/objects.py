"""Delete and scale: one object at a time, as ``kubectl delete`` and
``kubectl scale`` do, with kubectl's lines (``pod "x" deleted``,
``deployment.apps/web scaled``)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..api import kinds
from ..api.errors import NotFound
from ..client.base import Client
from .errors import OpError
from .wording import quoted_ref, resolve_kind, resource_ref

__all__ = ["SCALABLE", "Target", "delete", "scale", "wait_gone"]

#: Resources with a scale subresource (what their resources declare).
SCALABLE = tuple(info.plural for info in kinds.KINDS if "scale" in info.subresources)

#: (kind, namespace or None for cluster-scoped, name).
Target = tuple[kinds.KindInfo, str | None, str]


def _scope(info: kinds.KindInfo, namespace: str | None) -> str | None:
    if not info.namespaced:
        return None
    if not namespace:
        raise OpError(f"a namespace is required for {info.plural}")
    return namespace


def delete(client: Client, resource: str, namespace: str | None, name: str, *,
           grace_period: int | None = None, propagation: str = "Background") -> str:
    """Delete one object (``propagation``: ``Background`` as kubectl's default,
    ``Foreground`` or ``Orphan``); returns ``pod "x" deleted`` /
    ``deployment.apps "web" deleted``.

    It does not wait for the object to be gone (a pod's grace period, a
    finalizer): :func:`wait_gone` does. ``namespace`` is ignored for
    cluster-scoped resources. A missing object raises ``NotFound``.
    """
    info = resolve_kind(resource)
    client.delete(info.plural, _scope(info, namespace), name,
                  grace_period_seconds=grace_period, propagation_policy=propagation)
    return f"{quoted_ref(info, name)} deleted"


def wait_gone(client: Client, targets: Sequence[Target], timeout: float) -> None:
    """Wait (at most ``timeout`` seconds in all) until every target is gone,
    watching each object rather than polling it, as ``kubectl delete`` waits."""
    deadline = time.monotonic() + timeout
    for info, ns, name in targets:
        while time.monotonic() < deadline:
            try:
                obj = client.get(info.plural, ns, name)
            except NotFound:
                break
            stream = client.watch(info.plural, namespace=ns,
                                  field_selector=f"metadata.name={name}",
                                  resource_version=obj["metadata"]["resourceVersion"])
            try:
                while time.monotonic() < deadline:
                    ev = stream.next(timeout=min(1.0, max(0.0, deadline - time.monotonic())))
                    if ev is not None and ev.type == "DELETED":
                        break
                else:
                    continue
                break
            finally:
                stream.stop()


def scale(client: Client, resource: str, namespace: str, name: str, replicas: int) -> str:
    """Set the replica count through the ``scale`` subresource, as
    ``kubectl scale`` does; returns ``deployment.apps/web scaled`` (also when
    the count was already ``replicas``, as kubectl prints it).

    Only kinds with a ``scale`` subresource (:data:`SCALABLE`) scale; other
    kinds, a non-integer or a negative count raise :class:`OpError`.
    """
    info = resolve_kind(resource)
    if info.plural not in SCALABLE:
        raise OpError(f"{info.plural} cannot be scaled: only {' and '.join(SCALABLE)}")
    if isinstance(replicas, bool) or not isinstance(replicas, int):
        raise OpError(f"replicas must be a whole number, not {replicas!r}")
    if replicas < 0:
        raise OpError(f"replicas must be greater than or equal to 0, not {replicas}")
    client.patch(info.plural, _scope(info, namespace), name, "merge",
                 {"spec": {"replicas": replicas}}, subresource="scale")
    return f"{resource_ref(info, name)} scaled"
