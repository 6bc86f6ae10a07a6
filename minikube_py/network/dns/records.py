"""The cluster's DNS records: a thread-safe index fed from informers, and the
lookup the DNS server asks.

:class:`ClusterRecords` takes Kubernetes-shaped JSON dicts exactly as the API
serves them (``apiVersion``/``kind``/``metadata``/``spec``/``status``) through
``upsert_*`` / ``delete_*``, meant to be called from informer event handlers:

* Namespaces: a name under a namespace that does not exist is NXDOMAIN, as in
  CoreDNS, so namespaces must be fed too;
* core/v1 Services (ClusterIP, headless, ExternalName);
* discovery.k8s.io/v1 EndpointSlices, several per Service, each joined to its
  Service by the ``kubernetes.io/service-name`` label (a slice without it is
  ignored).

Pods are not needed: ``pods insecure`` answers ``a-b-c-d.ns.pod.<zone>``
from the name alone.

:meth:`ClusterRecords.answer` answers one question as CoreDNS's
``kubernetes`` plugin does (see :mod:`.lookup` for the behaviours kept).

Thread safety: every method may be called from any thread. Updates and
lookups serialise on one lock and a lookup holds it for its whole length (a
few dictionary reads per question), so an answer sees the index before or
after an update, never in between. Nothing the caller passes in is kept:
objects are copied into frozen views on arrival.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import dns.name
import dns.rdatatype

from .index import Index, canonical_ip, meta_key, service_view, slice_view
from .lookup import Answer, Zone, lookup

__all__ = ["ClusterRecords"]


class ClusterRecords:
    """The DNS view of the cluster, fed from informers, asked by the server.

    ``zone`` is the cluster domain; the reverse zones ``in-addr.arpa`` and
    ``ip6.arpa`` are served beside it. ``ttl`` is every record's TTL and the
    SOA minimum (30, as kubeadm's Corefile). ``dns_ips`` are the addresses the
    DNS server answers on, CoreDNS's "local IPs": the zone's NS records name
    the Service that has one of them as a ready endpoint (typically
    ``kube-dns.kube-system.svc.<zone>`` at its ClusterIP), else
    ``ns.dns.<zone>`` at these addresses. ``clock`` is wall time for the SOA
    serial, the time of the last change as in CoreDNS.

    With ``synced=False`` names that do not exist are SERVFAIL instead of
    NXDOMAIN until :meth:`mark_synced`, as CoreDNS answers before its
    informers have synced: a client then retries instead of caching a denial
    for a Service that is merely not known yet.
    """

    def __init__(self, zone: str = "cluster.local", *, ttl: int = 30,
                 dns_ips: Sequence[str] = (), clock: Callable[[], float] = time.time,
                 synced: bool = True) -> None:
        self.zone = dns.name.from_text(zone).canonicalize()
        self._ttl = ttl
        self._dns_ips = tuple(canonical_ip(ip) or ip for ip in dns_ips)
        self._clock = clock
        self._lock = threading.Lock()
        self._index = Index()
        self._serial = int(clock())
        self._synced = synced

    # --------------------------------------------------------------- feeding

    def mark_synced(self) -> None:
        """The initial lists are in: unknown names are NXDOMAIN from now on."""
        with self._lock:
            self._synced = True

    def clear(self) -> None:
        """Forget every object (before feeding a fresh list)."""
        with self._lock:
            self._index = Index()
            self._touched(True)

    def upsert_namespace(self, namespace: Mapping[str, Any]) -> None:
        """Add a Namespace: names under it can exist from now on."""
        name = meta_key(namespace)[1]
        with self._lock:
            self._touched(self._index.put_namespace(name))

    def delete_namespace(self, namespace: Mapping[str, Any]) -> None:
        """Remove a Namespace (only ``metadata.name`` is read)."""
        name = meta_key(namespace)[1]
        with self._lock:
            self._touched(self._index.remove_namespace(name))

    def upsert_service(self, svc: Mapping[str, Any]) -> None:
        """Add or replace a core/v1 Service."""
        view = service_view(svc)
        with self._lock:
            self._touched(self._index.put_service(view))

    def delete_service(self, svc: Mapping[str, Any]) -> None:
        """Remove a Service (only its metadata is read). Its slices stay until
        they are deleted themselves, as in the API."""
        key = meta_key(svc)
        with self._lock:
            self._touched(self._index.remove_service(key))

    def upsert_slice(self, slice_: Mapping[str, Any]) -> None:
        """Add or replace a discovery.k8s.io/v1 EndpointSlice. A slice without
        the ``kubernetes.io/service-name`` label names nothing: it is ignored
        (and one that lost the label is removed)."""
        view = slice_view(slice_)
        key = meta_key(slice_)
        with self._lock:
            self._touched(self._index.put_slice(key, view))

    def delete_slice(self, slice_: Mapping[str, Any]) -> None:
        """Remove an EndpointSlice (only its metadata is read)."""
        key = meta_key(slice_)
        with self._lock:
            self._touched(self._index.remove_slice(key))

    def _touched(self, changed: bool) -> None:
        if changed:
            self._serial = int(self._clock())

    # ------------------------------------------------------------- answering

    def answer(self, qname: dns.name.Name | str,
               qtype: dns.rdatatype.RdataType | int | str) -> Answer:
        """Answer one question as CoreDNS's kubernetes plugin would.

        Pure: reads the index, changes nothing, does no I/O; an out-of-zone
        CNAME target is left to the caller (:attr:`Answer.chase`). Records
        carry the owner name as asked, case kept. A relative ``qname`` string
        is taken as absolute.
        """
        name = dns.name.from_text(qname) if isinstance(qname, str) else qname
        rdtype = dns.rdatatype.RdataType.make(qtype)
        with self._lock:
            settings = Zone(primary=self.zone, ttl=self._ttl, dns_ips=self._dns_ips,
                            serial=self._serial, synced=self._synced)
            return lookup(self._index, settings, name, rdtype)
