"""Cluster DNS: what CoreDNS answers in a kubeadm cluster, in-process.

The Corefile reproduced is kubeadm's default::

    .:53 {
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
            ttl 30
        }
        forward . /etc/resolv.conf
        cache 30
    }

Three parts, each behind a small API:

* :class:`ClusterRecords` (:mod:`.records`, over :mod:`.index` and
  :mod:`.lookup`): the cluster's names, fed with Namespaces, Services and
  EndpointSlices as the API serves them, and a pure
  :meth:`~ClusterRecords.answer` that gives CoreDNS's kubernetes plugin's
  answer (records, rcode, authority) for one question. Thread-safe.
* :class:`Forwarder` (:mod:`.upstream`): the host's resolvers from
  resolv.conf (:func:`read_resolv_conf`), tried in order with a per-try
  timeout; SERVFAIL when none answers; never ourselves (loop guard).
* :class:`DnsServer` (:mod:`.server`): UDP and TCP on each listen address
  (bindable before the address exists, ``IP_FREEBIND``), answers from the
  records, ExternalName targets and other names through the forwarder and a
  bounded answer cache (:class:`AnswerCache`), EDNS and truncation as
  CoreDNS. Bounded threads; ``stop()`` returns promptly and leaves nothing
  running or bound.

Wiring, as the daemon does it::

    records = ClusterRecords("cluster.local", dns_ips=["10.88.0.1"], synced=False)
    # informer handlers: records.upsert_namespace / upsert_service / upsert_slice,
    # and the delete_* twins; records.mark_synced() once the initial lists are in
    forwarder = Forwarder.from_resolv_conf("/etc/resolv.conf")
    server = DnsServer(records, listen=[("10.88.0.1", 53)], forwarder=forwarder)
    server.start()
    ...
    server.stop()

Layering: standard library and dnspython only (the objects arrive as dicts;
informers belong to the caller).
"""

from .cache import AnswerCache
from .cancel import Cancel, Cancelled
from .lookup import DNS_SCHEMA_VERSION, Answer
from .records import ClusterRecords
from .server import DnsServer
from .upstream import Address, Forwarder, ResolvConf, parse_resolv_conf, read_resolv_conf

__all__ = [
    "DNS_SCHEMA_VERSION",
    "Address",
    "Answer",
    "AnswerCache",
    "Cancel",
    "Cancelled",
    "ClusterRecords",
    "DnsServer",
    "Forwarder",
    "ResolvConf",
    "parse_resolv_conf",
    "read_resolv_conf",
]
