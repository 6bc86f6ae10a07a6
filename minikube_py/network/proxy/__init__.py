"""The Service data plane in the kernel: a kube-proxy equivalent on nftables.

One module a step, modelled on kube-proxy's nftables mode
(pkg/proxy/nftables/proxier.go, Kubernetes v1.32), with fewer kernel objects:

* :mod:`.model` - :func:`from_objects` turns Services and EndpointSlices, as the
  API serves them, into frozen :class:`ServicePort` values with their usable
  endpoints (ready ones; else serving-and-terminating ones);
* :mod:`.rules` - :func:`build_ruleset` is a pure function from a
  :class:`ProxyState` (one cluster: its table, bridge, pod and service CIDRs,
  ``masquerade_all``, service ports) to a document (libnftables' JSON schema)
  that replaces the cluster's table in one transaction: ClusterIPs, NodePorts
  (on every local address, 127.0.0.1 included), LoadBalancer ingress IPs and
  externalIPs DNATed to a random endpoint, ClientIP affinity, rejection of
  service ports without endpoints, masquerading where replies would otherwise
  miss the host. A service port is one chain whose one rule picks and DNATs
  (``dnat ip to numgen random mod N offset K map @endpoints-C``, maps shared by
  64 ports); only ClientIP affinity keeps a chain and a set per endpoint;
  hairpin traffic is recognised after DNAT, in postrouting, by a set of
  ``endpoint . endpoint`` pairs. 1,000 services x 10 endpoints make 1,714
  chains, 2,922 rules and 21,700 set elements (kube-proxy's layout: 11,214
  chains, 23,420 rules), and a full sync takes about a third of a second
  (``bench/proxy_sync_bench.py``);
* :mod:`.nft` - :class:`Nft` applies documents with the ``nft`` binary (one
  process, one atomic transaction; :class:`NftError` on refusal, the previous
  ruleset untouched), replacing an existing table in place so that affinity
  sets keep their entries (:func:`~.nft.in_place`), deletes and lists tables,
  and sets ``route_localnet`` on the bridge;
* :mod:`.text` - the same documents in nft's text syntax, which is what is
  applied (nft 1.0.6's JSON cannot declare the ``typeof`` maps above) and what
  tests and logs read.

Promises: one table per cluster, named by the caller, is all that is ever
created or changed (family ``ip``, IPv4 only); the same state always yields the
same document; a failed apply changes nothing; after an apply the table holds
exactly what the document describes (plus the live entries of its affinity
sets), whatever it held before. The caller (the daemon's proxy
loop) watches Services and EndpointSlices, debounces, builds and applies, sets
``route_localnet`` on the bridge (needed for 127.0.0.1 NodePorts and
LoadBalancer IPs), chooses ``masquerade_all`` (true when br_netfilter is not
active) and removes the tables of clusters that are gone
(:meth:`Nft.list_tables` returns each table's owner comment). The host must
forward (``net.ipv4.ip_forward=1``, which Podman sets) and have a route
covering the service CIDR (a default route does) for the host itself to reach
ClusterIPs; the bridge ports need hairpin mode (Podman's CNI sets it) for a pod
to reach itself through its Service while br_netfilter is on.

Layering: standard library only (it may import :mod:`minikube_py.api` and
:mod:`minikube_py.client`, but needs neither).
"""

from minikube_py.network.proxy.model import Endpoint, ServicePort, from_objects
from minikube_py.network.proxy.nft import Nft, NftError, TableInfo, TableObjects, in_place
from minikube_py.network.proxy.rules import MASQUERADE_MARK, ProxyState, build_ruleset

__all__ = [
    "Endpoint",
    "MASQUERADE_MARK",
    "Nft",
    "NftError",
    "ProxyState",
    "ServicePort",
    "TableInfo",
    "TableObjects",
    "build_ruleset",
    "from_objects",
    "in_place",
]
