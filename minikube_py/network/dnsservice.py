"""Cluster DNS as the daemon runs it: informers feeding :class:`~.dns.ClusterRecords`,
and the :class:`~.dns.DnsServer` answering pods.

Namespaces, Services and EndpointSlices arrive through shared informers; each
event updates the records at once (handlers are quick: an in-memory index).
Until every informer has listed once, names the records do not know are
answered SERVFAIL rather than NXDOMAIN (as CoreDNS before its caches sync),
so a pod never caches a wrong "no such name" during a restart.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..client.informer import Handlers
from ..client.shared import SharedInformers
from .dns import ClusterRecords, DnsServer, Forwarder

__all__ = ["DnsService"]

log = logging.getLogger(__name__)

_FEEDS = {
    "namespaces": ("upsert_namespace", "delete_namespace"),
    "services": ("upsert_service", "delete_service"),
    "endpointslices": ("upsert_slice", "delete_slice"),
}


def _on_update(upsert: Callable[[Any], None]) -> Callable[[Any, Any], None]:
    return lambda _old, new: upsert(new)


class DnsService:
    """Cluster DNS for one cluster (see the module docstring)."""

    def __init__(self, informers: SharedInformers, *, zone: str,
                 listen: Sequence[tuple[str, int]], forwarder: Forwarder) -> None:
        self.records = ClusterRecords(zone, dns_ips=[host for host, _ in listen], synced=False)
        self._informers = []
        for resource, (upsert_name, delete_name) in _FEEDS.items():
            informer = informers.get(resource)
            upsert: Callable[[Any], None] = getattr(self.records, upsert_name)
            delete: Callable[[Any], None] = getattr(self.records, delete_name)
            informer.add_handlers(Handlers(on_add=upsert, on_update=_on_update(upsert),
                                           on_delete=delete))
            self._informers.append(informer)
        self.server = DnsServer(self.records, listen=listen, forwarder=forwarder)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.server.start()
        self._thread = threading.Thread(target=self._mark_synced, name="dns-sync", daemon=True)
        self._thread.start()
        log.info("cluster DNS listening on %s", ", ".join(
            f"{host}:{port}" for host, port in self.server.addresses))

    def _mark_synced(self) -> None:
        for informer in self._informers:
            while not informer.wait_synced(0.5):
                if self._stop.is_set():
                    return
        self.records.mark_synced()

    def stop(self) -> None:
        self._stop.set()
        self.server.stop()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None
