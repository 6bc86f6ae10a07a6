"""The cluster's networking, wired: what pods reach and how.

With the Podman runtime the control plane owns, per cluster:

* the **pod network** (a Podman bridge network of its own, made by the runtime);
* the **Service data plane**: a :class:`~minikube_py.network.proxier.Proxier`
  keeping the cluster's nftables table ``minikube-py-<cluster id>`` (its
  comment names the state directory) in step with Services and EndpointSlices.
  Where nftables is missing or refused, the daemon says so once at start and
  Services stay API-only (objects, endpoints and DNS work; no traffic is
  forwarded): never a half-built table. Tables of clusters whose state
  directory is gone are removed at start, with their pod networks;
* **cluster DNS** on the gateway's port 53, reached through the ``kube-dns``
  Service (the tenth address of the service CIDR);
* the **API for pods** on the gateway's port 6443, reached through the
  ``kubernetes`` Service (the first address), with a certificate carrying the
  names pods use (``kubernetes.default.svc``...).

Hollow nodes (the fake runtime) get the API side only: Services, endpoints and
the ``kubernetes`` Service (without endpoints); no data plane and no DNS.

Everything here talks to the cluster through a :class:`LocalClient`, like any
loop, and only :meth:`Networking.start` / :meth:`Networking.stop` touch the host.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..admission.services import ServiceNetwork
from ..client.local import LocalClient
from ..client.shared import SharedInformers
from ..controllers.clusterservices import ClusterService, cluster_services
from ..kubelet.dns import ClusterDNS, HostResolvConf, PodNetworking
from ..network.dns import Forwarder
from ..network.dnsservice import DnsService
from ..network.proxier import Proxier, bridge_netfilter_active
from ..network.proxy import Nft, NftError, ProxyState
from ..runtime.podman_network import ClusterNetwork
from ..store.registry import Registry

__all__ = ["API_POD_PORT", "TABLE_PREFIX", "NetworkPlan", "Networking", "table_name"]

log = logging.getLogger(__name__)

TABLE_PREFIX: Final = "minikube-py-"
#: Where the API listens for pods on the gateway (kube-apiserver's secure port).
API_POD_PORT: Final = 6443
DNS_PORT: Final = 53
#: How long a kubelet waits for the Services' cache before its first container
#: (the kubelet waits for its service informer likewise).
_SERVICES_SYNC_WAIT = 10.0
#: How often the Service allocators are rebuilt from the store (kube-apiserver's
#: repair controllers run every 3 minutes).
REPAIR_INTERVAL: Final = 180.0


def table_name(cluster: str) -> str:
    return f"{TABLE_PREFIX}{cluster}"


@dataclass(frozen=True)
class NetworkPlan:
    """The addresses of one cluster's networking, worked out before anything starts."""

    services: ServiceNetwork
    domain: str
    #: The pod network (``None``: hollow nodes).
    network: ClusterNetwork | None = None

    @property
    def kubernetes_ip(self) -> str:
        return self.services.ip(1)

    @property
    def dns_ip(self) -> str:
        return self.services.ip(10)

    def cluster_services(self) -> tuple[ClusterService, ...]:
        gateway = self.network.gateway if self.network is not None else ""
        return tuple(cluster_services(kubernetes_ip=self.kubernetes_ip, api_port=API_POD_PORT,
                                      gateway=gateway,
                                      dns_ip=self.dns_ip if self.network is not None else None))

    def tls_names(self) -> list[str]:
        """What the API's certificate must also cover for clients in pods."""
        names = ["kubernetes", "kubernetes.default", "kubernetes.default.svc",
                 f"kubernetes.default.svc.{self.domain}", self.kubernetes_ip]
        if self.network is not None:
            names.append(self.network.gateway)
        return names

    def api_listen(self) -> list[tuple[str, int]]:
        return [(self.network.gateway, API_POD_PORT)] if self.network is not None else []


class Networking:
    """Starts and stops the data plane and cluster DNS (module docstring)."""

    def __init__(self, registry: Registry, plan: NetworkPlan, *, state_dir: Path,
                 cluster: str, dns_upstreams: Iterable[tuple[str, int]] = (),
                 nft: Nft | None = None, remove_network: Any = None,
                 repair_interval: float = REPAIR_INTERVAL) -> None:
        self.plan = plan
        self._registry = registry
        self._repair_interval = repair_interval
        self._stopping = threading.Event()
        self._repair: threading.Thread | None = None
        self.state_dir = state_dir
        self.cluster = cluster
        self.informers = SharedInformers(LocalClient(registry, field_manager="kube-proxy"))
        self._services = self.informers.get("services")
        self.dns: DnsService | None = None
        self.proxier: Proxier | None = None
        #: Why Services are API-only here ("" when the data plane runs).
        self.data_plane_off = ""
        self._nft = nft or Nft()
        self._remove_network = remove_network
        network = plan.network
        if network is None:
            return
        upstreams = list(dns_upstreams)
        forwarder = Forwarder(upstreams) if upstreams else _host_forwarder()
        self.dns = DnsService(self.informers, zone=plan.domain,
                              listen=[(network.gateway, DNS_PORT)], forwarder=forwarder)
        reason = self._nft.available()
        if reason is not None:
            self.data_plane_off = reason
            return
        masquerade_all = not bridge_netfilter_active()
        self.proxier = Proxier(self.informers, self._nft, ProxyState(
            table=table_name(cluster), bridge=network.interface, pod_cidr=network.subnet,
            service_cidr=plan.services.cidr, masquerade_all=masquerade_all,
            comment=str(state_dir.resolve())))

    def pod_networking(self) -> PodNetworking:
        """What every kubelet of this cluster is given (one Services cache for all)."""
        dns = None
        if self.plan.network is not None:
            dns = ClusterDNS((self.plan.dns_ip,), self.plan.domain, HostResolvConf.read())
        return PodNetworking(dns=dns, services=self._services_list)

    def _services_list(self) -> list[Mapping[str, Any]]:
        self._services.wait_synced(_SERVICES_SYNC_WAIT)
        return list(self._services.list())

    def start(self) -> None:
        if self.plan.network is not None and self.proxier is None:
            log.warning("Services stay API-only (no traffic is forwarded to them): %s",
                        self.data_plane_off)
        if self.proxier is not None:
            self._collect_dead_clusters()
        self.informers.start()
        self._repair = threading.Thread(target=self._repair_allocations, daemon=True,
                                        name="service-allocation-repair")
        self._repair.start()
        if self.dns is not None:
            self.dns.start()
        if self.proxier is not None:
            self.proxier.start()
            log.info("Service data plane: nftables table ip %s (masquerade %s)",
                     self.proxier.state.table,
                     "all service traffic: br_netfilter is off" if
                     self.proxier.state.masquerade_all else "hairpin and host traffic")

    def stop(self) -> None:
        """Stop the loops; the table stays (pods keep reaching Services meanwhile)."""
        self._stopping.set()
        if self._repair is not None:
            self._repair.join(5)
            self._repair = None
        if self.proxier is not None:
            self.proxier.stop()
        if self.dns is not None:
            self.dns.stop()
        self.informers.stop()

    def _repair_allocations(self) -> None:
        """Kubernetes' repair controllers: the allocators rebuilt from the store,
        every problem (a cluster IP or node port held twice, or outside its
        range) logged; what leaked is freed by the rebuild itself."""
        while not self._stopping.wait(self._repair_interval):
            try:
                for problem in self._registry.repair_allocations():
                    log.warning("Service allocation: %s", problem)
            except Exception:  # a failed pass is retried at the next interval
                log.exception("repairing the Service allocations failed")

    def _collect_dead_clusters(self) -> None:
        """Remove the tables (and pod networks) of clusters whose state is gone."""
        try:
            tables = self._nft.list_tables(TABLE_PREFIX)
        except (NftError, OSError) as exc:
            log.warning("cannot list nftables tables: %s", exc)
            return
        for table in tables:
            owner = table.comment
            if not owner or os.path.isdir(owner) or table.name == table_name(self.cluster):
                continue
            try:
                self._nft.delete_table(table.name)
            except (NftError, OSError) as exc:
                log.warning("cannot remove table %s of a removed cluster: %s", table.name, exc)
                continue
            log.info("removed the Service rules of cluster %s (its state directory %s is "
                     "gone)", table.name[len(TABLE_PREFIX):], owner)
            if self._remove_network is not None:
                try:
                    self._remove_network(table.name[len(TABLE_PREFIX):])
                except Exception as exc:  # its pods may still run: leave the network
                    log.info("left the pod network of cluster %s: %s",
                             table.name[len(TABLE_PREFIX):], exc)


def _host_forwarder() -> Forwarder:
    try:
        return Forwarder.from_resolv_conf()
    except OSError as exc:
        log.warning("cluster DNS forwards nothing: cannot read /etc/resolv.conf (%s); "
                    "pass --dns-upstream", exc)
        return Forwarder([])
