"""The namespace controller: finish deleting namespaces, as Kubernetes'
``pkg/controller/namespace`` (``NamespacedResourcesDeleter``).

Deleting a namespace that has content leaves it ``Terminating``, with
``deletionTimestamp`` and its ``spec.finalizers`` (``kubernetes``), refusing
new content. For such a namespace ``reconcile(name)``:

1. Reads it live (other writers may have moved on); nothing to do unless it
   is being deleted.
2. If ``spec.finalizers`` is already empty, deletes it (UID precondition) and
   is done.
3. Deletes every object of every served namespaced kind in it (Background
   propagation, UID preconditions; objects already terminating are left to
   finish), then lists again. Whatever remains (pods terminating gracefully,
   objects held by finalizers) makes it requeue the namespace after
   ``requeue_delay`` seconds; deletions of content in a terminating namespace
   also wake it at once (through the shared informers), so it rarely waits
   the whole delay.
4. Once nothing remains, removes its token from ``spec.finalizers`` through
   the ``finalize`` subresource; when none are left, deletes the namespace
   (the registry removes it once its finalizers are empty).

Status conditions: the five Kubernetes sets
(``NamespaceDeletionDiscoveryFailure``,
``NamespaceDeletionGroupVersionParsingFailure``,
``NamespaceDeletionContentFailure``, ``NamespaceContentRemaining``,
``NamespaceFinalizersRemaining``, with Kubernetes' reasons and messages) are
computed by :func:`deletion_conditions` every pass and written to
``status.conditions`` when they change (``write_conditions=False`` skips it).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..api import kinds
from ..api.access import meta as _meta
from ..api.errors import Conflict, NotFound, StatusError
from ..api.jsoncopy import deep_copy
from ..api.timefmt import format_time as _now
from ..client.base import Client, Object
from ..client.events import EventRecorder
from ..client.informer import Handlers
from ..client.shared import SharedInformers
from .base import Controller

__all__ = ["FINALIZER_KUBERNETES", "NamespaceController", "deletion_conditions"]

log = logging.getLogger(__name__)

FINALIZER_KUBERNETES = "kubernetes"

_CONDITION_TYPES = (
    ("NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered",
     "All resources successfully discovered"),
    ("NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions",
     "All legacy kube types successfully parsed"),
    ("NamespaceDeletionContentFailure", "ContentDeleted",
     "All content successfully deleted, may be waiting on finalization"),
    ("NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"),
    ("NamespaceFinalizersRemaining", "ContentHasNoFinalizers",
     "All content-preserving finalizers finished"),
)




def deletion_conditions(*, errors: Sequence[Exception], remaining: Mapping[str, int],
                        finalizers: Mapping[str, int], old: Iterable[Mapping[str, Any]],
                        now: float) -> list[dict[str, Any]]:
    """The namespace's conditions after a deletion pass (``namespaceConditionUpdater``).

    ``remaining`` counts objects left by ``resource.group`` (``pods.`` for the
    core group, as Kubernetes prints it), ``finalizers`` the objects holding
    each finalizer. A condition whose status, reason and message are unchanged
    keeps its ``lastTransitionTime``; conditions of other types are kept.
    """
    failing: dict[str, tuple[str, str]] = {}
    if errors:
        text = str(errors[0]) if len(errors) == 1 else \
            "[" + ", ".join(str(e) for e in errors) + "]"
        failing["NamespaceDeletionContentFailure"] = (
            "ContentDeletionFailed",
            f"Failed to delete all resource types, {len(errors)} remaining: {text}")
    if remaining:
        failing["NamespaceContentRemaining"] = (
            "SomeResourcesRemain", "Some resources are remaining: " + ", ".join(
                f"{r} has {n} resource instances" for r, n in sorted(remaining.items())))
    if finalizers:
        failing["NamespaceFinalizersRemaining"] = (
            "SomeFinalizersRemain", "Some content in the namespace has finalizers remaining: "
            + ", ".join(f"{f} in {n} resource instances" for f, n in sorted(finalizers.items())))
    previous = {c.get("type"): c for c in old if isinstance(c, Mapping)}
    known = {t for t, _, _ in _CONDITION_TYPES}
    out: list[dict[str, Any]] = []
    for type_, ok_reason, ok_message in _CONDITION_TYPES:
        status, reason, message = ("True", *failing[type_]) if type_ in failing else \
            ("False", ok_reason, ok_message)
        cond = {"type": type_, "status": status, "lastTransitionTime": _now(now),
                "reason": reason, "message": message}
        prev = previous.get(type_)
        if prev is not None and (prev.get("status"), prev.get("reason"),
                                 prev.get("message")) == (status, reason, message):
            cond = dict(prev)
        out.append(cond)
    out.extend(dict(c) for t, c in previous.items() if t not in known)
    return out


class NamespaceController(Controller):
    """Empties and removes namespaces being deleted (see the module contract)."""

    name = "namespace-controller"

    def __init__(self, client: Client, informers: SharedInformers, *, workers: int = 2,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None,
                 requeue_delay: float = 2.0,
                 finalizer_token: str = FINALIZER_KUBERNETES,
                 write_conditions: bool = True) -> None:
        super().__init__(client, informers, workers=workers, clock=clock, recorder=recorder)
        self.requeue_delay = requeue_delay
        self.finalizer_token = finalizer_token
        self.write_conditions = write_conditions
        self.content = tuple(k for k in kinds.KINDS if k.namespaced)
        self.namespaces = informers.get("namespaces")
        self.namespaces.add_handlers(Handlers(on_add=self._namespace_changed,
                                              on_update=lambda _old, new:
                                              self._namespace_changed(new)))
        for info in self.content:
            if info.plural != "events":  # events are many; the requeue covers them
                informers.get(info.plural).add_handlers(
                    Handlers(on_delete=self._content_deleted))

    # ------------------------------------------------------------------ handlers

    def _namespace_changed(self, ns: Object) -> None:
        if _meta(ns).get("deletionTimestamp"):
            self.enqueue(str(_meta(ns).get("name")))

    def _content_deleted(self, obj: Object) -> None:
        namespace = _meta(obj).get("namespace")
        if not namespace:
            return
        ns = self.namespaces.get(str(namespace))
        if ns is not None and _meta(ns).get("deletionTimestamp"):
            self.enqueue(str(namespace))

    # ------------------------------------------------------------------ reconcile

    def reconcile(self, key: str) -> float | None:
        try:
            ns = self.client.get("namespaces", None, key)
        except NotFound:
            return None
        if not _meta(ns).get("deletionTimestamp"):
            return None
        if not (ns.get("spec") or {}).get("finalizers"):
            self._delete_namespace(ns)
            return None
        errors, remaining, finalizers = self._delete_content(key)
        if self.write_conditions:
            ns = self._update_conditions(ns, errors, remaining, finalizers)
        if errors:
            raise errors[0]  # retried with backoff
        if remaining:
            return self.requeue_delay
        finalized = self._finalize(ns)
        if finalized is not None and not (finalized.get("spec") or {}).get("finalizers"):
            self._delete_namespace(finalized)
        return None

    def _delete_content(self, namespace: str
                        ) -> tuple[list[Exception], dict[str, int], dict[str, int]]:
        """Delete everything in ``namespace``; returns (errors, objects left by
        ``resource.group``, objects left per finalizer)."""
        errors: list[Exception] = []
        remaining: dict[str, int] = {}
        finalizers: dict[str, int] = {}
        for info in self.content:
            try:
                items = self.client.list(info.plural, namespace=namespace).items
                for obj in items:
                    if not _meta(obj).get("deletionTimestamp"):
                        self._delete_one(info.plural, namespace, obj)
                left = self.client.list(info.plural, namespace=namespace).items
            except StatusError as exc:
                errors.append(exc)
                continue
            if not left:
                continue
            remaining[f"{info.plural}.{info.group}"] = len(left)
            for obj in left:
                for finalizer in _meta(obj).get("finalizers") or []:
                    finalizers[str(finalizer)] = finalizers.get(str(finalizer), 0) + 1
        return errors, remaining, finalizers

    def _delete_one(self, resource: str, namespace: str, obj: Mapping[str, Any]) -> None:
        meta = _meta(obj)
        # NotFound: gone already; Conflict: replaced (the new one goes next pass).
        with contextlib.suppress(NotFound, Conflict):
            self.client.delete(resource, namespace, str(meta.get("name")),
                               propagation_policy="Background",
                               preconditions={"uid": str(meta.get("uid"))})

    def _update_conditions(self, ns: Object, errors: Sequence[Exception],
                           remaining: Mapping[str, int], finalizers: Mapping[str, int]
                           ) -> Object:
        status = ns.get("status") or {}
        conditions = deletion_conditions(errors=errors, remaining=remaining,
                                         finalizers=finalizers,
                                         old=status.get("conditions") or [], now=self.clock())
        if conditions == status.get("conditions"):
            return ns
        updated = deep_copy(ns)
        updated["status"] = {**status, "conditions": conditions}
        return self.client.update(updated, subresource="status")

    def _finalize(self, ns: Object) -> Object | None:
        """Remove our token from ``spec.finalizers``; the namespace as it is then
        (None when it is gone)."""
        current = (ns.get("spec") or {}).get("finalizers") or []
        keep = sorted({f for f in current if f != self.finalizer_token})
        if len(keep) == len(current):
            return ns
        updated = deep_copy(ns)
        updated["spec"] = {**(ns.get("spec") or {}), "finalizers": keep}
        try:
            return self.client.update(updated, subresource="finalize")
        except NotFound:
            return None

    def _delete_namespace(self, ns: Mapping[str, Any]) -> None:
        meta = _meta(ns)
        with contextlib.suppress(NotFound, Conflict):
            self.client.delete("namespaces", None, str(meta.get("name")),
                               preconditions={"uid": str(meta.get("uid"))})
