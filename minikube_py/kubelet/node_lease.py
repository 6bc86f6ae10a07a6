"""The node's Lease in ``kube-node-lease``: the cheap heartbeat.

Kubernetes' kubelets prove they are alive by renewing a Lease named after
their node (``pkg/kubelet`` + ``component-helpers/apimachinery/lease``),
and post the full NodeStatus only when it changed or every
``nodeStatusReportFrequency`` (5 minutes). The node lifecycle controller
counts either as a heartbeat. :class:`NodeLease` is the kubelet's side:

* :meth:`~NodeLease.renew` sets ``spec.renewTime`` (a MicroTime) with
  ``holderIdentity`` = the node's name and ``leaseDurationSeconds``; the
  lease is created on first use, owned by the Node object (so the garbage
  collector removes it with the node), as the kubelet's ``setNodeOwnerFunc``
  does;
* a renewal updates the copy it wrote last (one write, no read), falling
  back to a fresh read on a Conflict or NotFound, as the lease controller's
  ``latestLease`` does;
* a Node that does not exist (yet) gets a lease without an owner; the next
  renewal adds it once the node is there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ..api.errors import AlreadyExists, Conflict, NotFound
from ..api.names import NAMESPACE_NODE_LEASE as NODE_LEASE_NAMESPACE
from ..api.timefmt import format_micro_time
from ..client.base import Client, Object, for_caches

__all__ = ["DEFAULT_LEASE_DURATION", "NODE_LEASE_NAMESPACE", "RENEW_FRACTION", "NodeLease",
           "micro_time", "renew_interval"]

log = logging.getLogger(__name__)

#: The kubelet's ``nodeLeaseDurationSeconds`` default; it renews at a quarter of it.
DEFAULT_LEASE_DURATION = 40
#: The kubelet's ``nodeLeaseRenewIntervalFraction``: a lease is renewed this
#: fraction of its duration after the last renewal (10 s for the default 40 s).
RENEW_FRACTION = 0.25


def renew_interval(duration: float) -> float:
    """Seconds between two renewals of a lease of ``duration`` seconds."""
    return duration * RENEW_FRACTION


#: ``metav1.MicroTime``'s JSON form: RFC 3339 with microseconds, in UTC.
micro_time = format_micro_time


class NodeLease:
    """Creates and renews one node's Lease (see the module contract)."""

    def __init__(self, client: Client, node: str, *, clock: Callable[[], float],
                 duration: int = DEFAULT_LEASE_DURATION) -> None:
        # The lease is only read to build the next renewal from: an in-process
        # client may hand out the store's shared copy (one decode per renewal
        # for every reader instead of one more for us).
        self.client: Client = for_caches(client)
        self.node = node
        self.clock = clock
        self.duration = duration
        self._latest: Object | None = None

    def _desired(self, base: Object | None) -> Object:
        # New dicts only along the path changed: the registry never changes what
        # it is given, so the rest of ``base`` can be shared (no deep copy per
        # renewal; thousands of hollow nodes renew every 10 s).
        lease: Object = dict(base) if base is not None else {
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": self.node, "namespace": NODE_LEASE_NAMESPACE}}
        spec = lease["spec"] = dict(lease.get("spec") or {})
        spec["holderIdentity"] = self.node
        spec["leaseDurationSeconds"] = self.duration
        spec["renewTime"] = micro_time(self.clock())
        meta = lease["metadata"] = dict(lease["metadata"])
        if not meta.get("ownerReferences"):
            owner = self._owner()
            if owner is not None:
                meta["ownerReferences"] = [owner]
        return lease

    def _owner(self) -> dict[str, Any] | None:
        try:
            node = self.client.get("nodes", None, self.node)
        except NotFound:
            return None
        return {"apiVersion": "v1", "kind": "Node", "name": self.node,
                "uid": node["metadata"]["uid"]}

    def renew(self) -> Object:
        """Renew (or create) the lease; returns it as stored."""
        if self._latest is not None:
            try:
                self._latest = self.client.update(self._desired(self._latest))
                return self._latest
            except (Conflict, NotFound):
                self._latest = None  # someone else wrote it, or it was deleted: read it
        for _ in range(3):
            try:
                current = self.client.get("leases", NODE_LEASE_NAMESPACE, self.node)
            except NotFound:
                try:
                    self._latest = self.client.create(self._desired(None))
                    return self._latest
                except AlreadyExists:
                    continue
            try:
                self._latest = self.client.update(self._desired(current))
                return self._latest
            except (Conflict, NotFound):
                continue
        raise Conflict.of("leases", self.node, "too many concurrent updates of the node lease",
                          group="coordination.k8s.io")
