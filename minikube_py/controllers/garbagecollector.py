"""The garbage collector: ``ownerReferences`` cascades, as Kubernetes'
``pkg/controller/garbagecollector``.

Three deletion modes, chosen by the client's ``propagationPolicy`` (the store
turns Foreground/Orphan into the ``foregroundDeletion``/``orphan`` finalizer):

* **Background** (the default). The owner goes at once. Every dependent whose
  owners are *all* gone is then deleted (Background too, unless it carries a
  GC finalizer of its own, which is honoured). A dependent that still has a
  live owner only loses its references to the gone ones.
* **Foreground.** The owner stays, with ``deletionTimestamp`` and the
  ``foregroundDeletion`` finalizer, while its dependents are deleted: those
  that have dependents of their own are deleted Foreground too (recursively),
  the others Background. Once no dependent with ``blockOwnerDeletion: true``
  remains, the finalizer is removed and the owner goes.
* **Orphan.** The owner stays, with the ``orphan`` finalizer, until every
  dependent's reference to it has been removed (a strategic-merge patch
  deleting it by UID); then the finalizer is removed.

How it works (the shape of Kubernetes' ``GraphBuilder`` + workers):

* A **graph** is kept from the shared informers of every tracked resource: a
  node per object (UID, identity, owner references, deletion state) and, per
  owner UID, the UIDs of its dependents. Owners that exist in no cache
  (another kind, or already gone) appear only as that dependents set, as
  Kubernetes' "virtual" nodes do.
* Handlers only update the graph and enqueue UIDs: a new object, or one whose
  references changed, when one of its owners is unknown or waiting for its
  dependents; an object entering foreground or orphan deletion; an object's
  dependents when it is deleted; an owner waiting for dependents when one of
  them goes or drops its reference.
* ``reconcile(uid)`` decides from the graph, a live read of the object (never
  the possibly stale cache, since it may delete it) and, for owners missing
  from the caches, a live read of the owner; owners confirmed absent are
  remembered (UIDs are never reused). Deletes carry a UID precondition.
* Level-triggered: a restart rebuilds the graph from the caches, and the
  initial list enqueues whatever needs attention. Workers start only once
  every tracked cache has synced, so an incomplete graph never makes a
  foreground owner look free of dependents. No polling.

Tracked resources default to every served kind (:data:`minikube_py.api.kinds.KINDS`)
except Events, which are many and never own or are owned.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..api import kinds
from ..api.access import meta as _meta
from ..api.errors import Conflict, Invalid, NotFound, StatusError
from ..client.base import Client, Object
from ..client.events import EventRecorder
from ..client.informer import Handlers, Informer
from ..client.shared import SharedInformers
from .base import Controller

__all__ = ["FOREGROUND_FINALIZER", "ORPHAN_FINALIZER", "GarbageCollector", "default_resources"]

log = logging.getLogger(__name__)

FOREGROUND_FINALIZER = "foregroundDeletion"
ORPHAN_FINALIZER = "orphan"
_ABSENT_CACHE_SIZE = 4096


def default_resources() -> tuple[str, ...]:
    """Every served resource but events."""
    return tuple(k.plural for k in kinds.KINDS if k.plural != "events")


def _same_graph_fields(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether an update leaves what a graph :class:`Node` holds as it was
    (``before``/``after``: the two versions' metadata)."""
    return (before.get("ownerReferences") == after.get("ownerReferences")
            and bool(before.get("deletionTimestamp")) == bool(after.get("deletionTimestamp"))
            and before.get("finalizers") == after.get("finalizers"))


def _finalizers(obj: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(f) for f in _meta(obj).get("finalizers") or [])


def _deleting_dependents(obj: Mapping[str, Any]) -> bool:
    return bool(_meta(obj).get("deletionTimestamp")) and \
        FOREGROUND_FINALIZER in _finalizers(obj)


@dataclass(frozen=True, slots=True)
class OwnerRef:
    uid: str
    api_version: str
    kind: str
    name: str
    block: bool

    @classmethod
    def parse(cls, refs: Any) -> tuple[OwnerRef, ...]:
        out = []
        for ref in refs or []:
            if isinstance(ref, Mapping) and ref.get("uid"):
                out.append(cls(str(ref["uid"]), str(ref.get("apiVersion") or ""),
                               str(ref.get("kind") or ""), str(ref.get("name") or ""),
                               ref.get("blockOwnerDeletion") is True))
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Node:
    """What the graph knows of one object."""

    uid: str
    resource: str
    namespace: str | None
    name: str
    kind: str
    owners: tuple[OwnerRef, ...]
    being_deleted: bool
    finalizers: tuple[str, ...]

    @classmethod
    def of(cls, resource: str, obj: Mapping[str, Any]) -> Node:
        meta = _meta(obj)
        return cls(str(meta.get("uid") or ""), resource, meta.get("namespace") or None,
                   str(meta.get("name") or ""), str(obj.get("kind") or ""),
                   OwnerRef.parse(meta.get("ownerReferences")),
                   bool(meta.get("deletionTimestamp")), _finalizers(obj))

    @property
    def deleting_dependents(self) -> bool:
        return self.being_deleted and FOREGROUND_FINALIZER in self.finalizers

    @property
    def orphaning(self) -> bool:
        return self.being_deleted and ORPHAN_FINALIZER in self.finalizers


class GarbageCollector(Controller):
    """Cascading deletion by ownerReferences (see the module contract)."""

    name = "garbage-collector-controller"

    def __init__(self, client: Client, informers: SharedInformers, *,
                 resources: Iterable[str] | None = None, workers: int = 2,
                 clock: Callable[[], float] = time.time,
                 recorder: EventRecorder | None = None) -> None:
        super().__init__(client, informers, workers=workers, clock=clock, recorder=recorder)
        self.resources = tuple(resources) if resources is not None else default_resources()
        self._lock = threading.Lock()
        self._nodes: dict[str, Node] = {}
        self._dependents: dict[str, set[str]] = {}
        self._absent: OrderedDict[str, None] = OrderedDict()
        self._informers: list[Informer] = []
        for resource in self.resources:
            informer = informers.get(resource)
            informer.add_handlers(self._handlers(resource))
            self._informers.append(informer)
        self.synced_before_start = tuple(self._informers)

    # ------------------------------------------------------------------ graph

    def _handlers(self, resource: str) -> Handlers:
        return Handlers(on_add=lambda obj: self._observe(resource, None, obj),
                        on_update=lambda old, new: self._observe(resource, old, new),
                        on_delete=lambda obj: self._forget(obj))

    def _observe(self, resource: str, old: Object | None, obj: Object) -> None:
        if old is not None:
            before, after = _meta(old), _meta(obj)
            if before.get("uid") != after.get("uid"):
                self._forget(old)  # replaced under the same name between two lists
            elif _same_graph_fields(before, after) and \
                    after.get("uid") in self._nodes:
                # Nothing the graph holds changed (a status write, a lease renewal:
                # 500 a second at 5,000 nodes): as Kubernetes' graph builder, whose
                # update with unchanged references and deletion state does nothing.
                return
        node = Node.of(resource, obj)
        if not node.uid:
            return
        wake: list[str] = []
        with self._lock:
            prev = self._nodes.get(node.uid)
            self._nodes[node.uid] = node
            before = {r.uid: r for r in prev.owners} if prev is not None else {}
            after = {r.uid: r for r in node.owners}
            for uid in before.keys() - after.keys():
                self._unlink(uid, node.uid)
            for uid in after.keys() - before.keys():
                self._dependents.setdefault(uid, set()).add(node.uid)
            if prev is not None:
                # An owner waiting for its dependents may be free now.
                for uid in before.keys() | after.keys():
                    owner = self._nodes.get(uid)
                    if before.get(uid) != after.get(uid) and owner is not None \
                            and owner.deleting_dependents:
                        wake.append(uid)
            if (prev is None or prev.owners != node.owners) and self._needs_look(node):
                wake.append(node.uid)
            if node.deleting_dependents and not (prev and prev.deleting_dependents):
                wake.append(node.uid)
            if node.orphaning and not (prev and prev.orphaning):
                wake.append(node.uid)
        for uid in dict.fromkeys(wake):
            self.enqueue(uid)

    def _needs_look(self, node: Node) -> bool:
        """Some owner is unknown to the graph or waits for its dependents."""
        for ref in node.owners:
            owner = self._nodes.get(ref.uid)
            if owner is None or owner.deleting_dependents:
                return True
        return False

    def _forget(self, obj: Object) -> None:
        uid = str(_meta(obj).get("uid") or "")
        if not uid:
            return
        wake: list[str] = []
        with self._lock:
            node = self._nodes.pop(uid, None)
            if node is not None:
                for ref in node.owners:
                    self._unlink(ref.uid, uid)
                    owner = self._nodes.get(ref.uid)
                    if owner is not None and owner.deleting_dependents:
                        wake.append(ref.uid)
            dependents = self._dependents.get(uid)
            if dependents:
                self._note_absent(uid)
                wake.extend(dependents)
        for key in dict.fromkeys(wake):
            self.enqueue(key)

    def _unlink(self, owner: str, dependent: str) -> None:
        deps = self._dependents.get(owner)
        if deps is not None:
            deps.discard(dependent)
            if not deps:
                del self._dependents[owner]

    def _note_absent(self, uid: str) -> None:
        self._absent[uid] = None
        self._absent.move_to_end(uid)
        while len(self._absent) > _ABSENT_CACHE_SIZE:
            self._absent.popitem(last=False)

    def node(self, uid: str) -> Node | None:
        with self._lock:
            return self._nodes.get(uid)

    def dependents(self, uid: str) -> list[Node]:
        """The known dependents of ``uid`` (objects naming it as an owner)."""
        with self._lock:
            return [self._nodes[d] for d in sorted(self._dependents.get(uid, ()))
                    if d in self._nodes]

    # ------------------------------------------------------------------ reconcile

    def reconcile(self, key: str) -> float | None:
        node = self.node(key)
        if node is None:
            return None  # gone: its dependents were enqueued when it went
        if node.orphaning:
            self._orphan_dependents(node)
        elif node.deleting_dependents:
            self._process_deleting_dependents(node)
        elif node.owners:
            self._attempt_to_delete(node)
        return None

    def _live(self, node: Node) -> Object | None:
        """The object as stored now, if it is still the one ``node`` describes."""
        try:
            obj = self.client.get(node.resource, node.namespace, node.name)
        except NotFound:
            return None
        return obj if _meta(obj).get("uid") == node.uid else None

    def _attempt_to_delete(self, node: Node) -> None:
        live = self._live(node)
        if live is None or _meta(live).get("deletionTimestamp"):
            return  # gone, or on its way: its dependents are handled when it goes
        owners = OwnerRef.parse(_meta(live).get("ownerReferences"))
        if not owners:
            return
        solid: list[OwnerRef] = []
        dangling: list[OwnerRef] = []
        waiting: list[OwnerRef] = []
        for ref in owners:
            state = self._owner_state(ref, node.namespace)
            {"solid": solid, "dangling": dangling, "waiting": waiting}[state].append(ref)
        if solid:
            gone = dangling + waiting
            if gone:
                # A live owner keeps it; only the references to the others go.
                self._patch_refs(node, [{"$patch": "delete", "uid": r.uid} for r in gone])
            return
        if waiting and self.dependents(node.uid):
            if any(d.deleting_dependents for d in self.dependents(node.uid)):
                # A dependent waits for us while we wait for it: stop blocking owners.
                self._patch_refs(node, [{"uid": r.uid, "blockOwnerDeletion": False}
                                        for r in owners if r.block])
            self._delete(node, "Foreground")
            return
        finalizers = _finalizers(live)
        policy = ("Orphan" if ORPHAN_FINALIZER in finalizers else
                  "Foreground" if FOREGROUND_FINALIZER in finalizers else "Background")
        self._delete(node, policy)

    def _owner_state(self, ref: OwnerRef, namespace: str | None) -> str:
        """``solid`` (exists), ``dangling`` (absent) or ``waiting`` (exists, being
        deleted in the foreground)."""
        with self._lock:
            if ref.uid in self._absent:
                return "dangling"
            cached = self._nodes.get(ref.uid)
        try:
            info = kinds.by_kind(ref.kind)
        except NotFound:
            info = None
        group = ref.api_version.rpartition("/")[0] if "/" in ref.api_version else ""
        if info is None or info.group != group:
            # A kind this server does not serve: it cannot be looked up, so it is
            # not known to be absent (Kubernetes retries such items; we keep them).
            log.debug("%s: owner %s/%s of unknown kind kept", self.name, ref.kind, ref.name)
            return "solid"
        if info.namespaced and not namespace:
            return "dangling"  # a cluster-scoped object cannot have a namespaced owner
        owner_ns = namespace if info.namespaced else None
        if cached is not None and cached.kind == info.kind and \
                cached.namespace == owner_ns and cached.name == ref.name:
            return "waiting" if cached.deleting_dependents else "solid"
        try:
            owner = self.client.get(info.plural, owner_ns, ref.name)
        except NotFound:
            owner = None
        if owner is None or _meta(owner).get("uid") != ref.uid:
            with self._lock:
                self._note_absent(ref.uid)
            return "dangling"
        return "waiting" if _deleting_dependents(owner) else "solid"

    def _process_deleting_dependents(self, node: Node) -> None:
        dependents = self.dependents(node.uid)
        blocking = [d for d in dependents
                    if any(r.uid == node.uid and r.block for r in d.owners)]
        if not blocking:
            self._remove_finalizer(node, FOREGROUND_FINALIZER)
            return
        for dep in dependents:
            if not dep.being_deleted:
                self.enqueue(dep.uid)

    def _orphan_dependents(self, node: Node) -> None:
        errors: list[Exception] = []
        for dep in self._live_dependents(node):
            try:
                self._patch_refs(dep, [{"$patch": "delete", "uid": node.uid}])
            except StatusError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]
        self._remove_finalizer(node, ORPHAN_FINALIZER)

    def _live_dependents(self, node: Node) -> list[Node]:
        """The graph's dependents of ``node`` plus any the store holds that the
        caches have not delivered yet.

        Orphaning is the one decision a lagging cache makes wrong for good: a
        dependent created just before its owner's orphan deletion, missed here,
        would be collected as dangling once the owner is gone. Orphan deletions
        are rare, so a live scan of the tracked resources is affordable.
        """
        found = {d.uid: d for d in self.dependents(node.uid)}
        for resource in self.resources:
            try:
                info = kinds.by_plural(resource)
            except NotFound:
                continue
            namespace = node.namespace if info.namespaced else None
            if info.namespaced and node.namespace is None:
                namespace = None  # a cluster-scoped owner: dependents anywhere
            for obj in self.client.list(resource, namespace=namespace).items:
                dep = Node.of(resource, obj)
                if dep.uid not in found and any(r.uid == node.uid for r in dep.owners):
                    found[dep.uid] = dep
        return list(found.values())

    # ------------------------------------------------------------------ writes

    def _patch_refs(self, node: Node, refs: list[dict[str, Any]]) -> None:
        """A strategic-merge patch of ``ownerReferences``, pinned to the UID."""
        if not refs:
            return
        # NotFound: gone; Invalid: replaced by another object of the same name.
        with contextlib.suppress(NotFound, Invalid):
            self.client.patch(node.resource, node.namespace, node.name, "strategic",
                              {"metadata": {"ownerReferences": refs, "uid": node.uid}})

    def _delete(self, node: Node, policy: str) -> None:
        log.debug("%s: deleting %s %s/%s (%s)", self.name, node.kind, node.namespace,
                  node.name, policy)
        with contextlib.suppress(NotFound, Conflict):  # already gone, or replaced
            self.client.delete(node.resource, node.namespace, node.name,
                               propagation_policy=policy, preconditions={"uid": node.uid})

    def _remove_finalizer(self, node: Node, finalizer: str) -> None:
        for _ in range(10):
            live = self._live(node)
            if live is None:
                return
            finalizers = [f for f in _finalizers(live) if f != finalizer]
            if len(finalizers) == len(_finalizers(live)):
                return
            body = {"metadata": {"finalizers": finalizers or None,
                                 "resourceVersion": _meta(live).get("resourceVersion")}}
            try:
                self.client.patch(node.resource, node.namespace, node.name, "merge", body)
                return
            except NotFound:
                return
            except Conflict:
                continue
        raise Conflict(f"{node.resource} {node.name}: could not remove finalizer {finalizer}")
