"""Kubernetes' ``NamespaceLifecycle`` admission and the namespace storage's delete.

* New content needs its namespace to exist and not be terminating.
* ``default``, ``kube-system`` and ``kube-public`` can never be deleted.
* Deleting a namespace: an empty one goes at once; one with content, or with
  ``spec.finalizers`` other than ``kubernetes``, turns ``Terminating`` and
  stays (refusing new content) until the namespace controller empties and
  finalizes it and every other finalizer is removed.
* The namespaces every cluster has are created at start-up.
"""

from __future__ import annotations

from typing import Any

from ..api import kinds
from ..api.errors import AlreadyExists, Forbidden, NotFound
from ..api.kinds import KindInfo
from .storage import Create, Object, Storage

NAMESPACES = "namespaces"

#: Namespaces every cluster has, created at start-up if missing.
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")

#: Namespaces that can never be deleted.
IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


def check_create(storage: Storage, info: KindInfo, namespace: str, name: str) -> None:
    """New content of a namespaced kind needs a live namespace."""
    if not info.namespaced:
        return
    try:
        # Read only: the shared copy, no decode per create (five a pod, Events too).
        ns = storage.get_shared(NAMESPACES, None, namespace)
    except NotFound:
        raise NotFound.of(NAMESPACES, namespace) from None
    if (ns.get("metadata") or {}).get("deletionTimestamp") or \
            (ns.get("status") or {}).get("phase") == "Terminating":
        raise Forbidden.of(info.plural, name, f"unable to create new content in namespace "
                           f"{namespace} because it is being terminated", group=info.group)


def check_delete(name: str) -> None:
    if name in IMMORTAL_NAMESPACES:
        raise Forbidden.of(NAMESPACES, name, "this namespace may not be deleted")


def has_content(storage: Storage, name: str) -> bool:
    for info in kinds.KINDS:
        if info.namespaced and storage.list(info.plural, namespace=name, limit=1).items:
            return True
    return False


def delete(storage: Storage, ns: Object, preconditions: Any) -> Any:
    """Delete namespace ``ns`` (module docstring); returns the store's result."""
    name = ns["metadata"]["name"]
    check_delete(name)
    spec_finalizers = (ns.get("spec") or {}).get("finalizers") or []
    # Only the namespace controller's own token on an empty namespace lets it
    # go at once (what the controller would do next); anything else waits.
    if spec_finalizers and (set(spec_finalizers) - {"kubernetes"}
                            or has_content(storage, name)):
        if ns["metadata"].get("deletionTimestamp"):
            return None

        def terminate(obj: Object) -> Object | None:
            obj["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}
            return obj

        storage.guaranteed_update(NAMESPACES, None, name, terminate)
        return storage.delete(NAMESPACES, None, name, preconditions=preconditions, hold=True)
    return storage.delete(NAMESPACES, None, name, preconditions=preconditions)


def ensure_system(create: Create) -> list[str]:
    """Create the namespaces every cluster has; returns the names created."""
    created = []
    for name in SYSTEM_NAMESPACES:
        try:
            create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
            created.append(name)
        except AlreadyExists:
            pass
    return created
