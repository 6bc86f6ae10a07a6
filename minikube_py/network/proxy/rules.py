"""The nftables ruleset of one cluster's Services, built from a :class:`ProxyState`.

:func:`build_ruleset` is pure: the same state gives the same document
(``{"nftables": [...]}``, libnftables' JSON schema), and applying it as one
transaction (:meth:`~.nft.Nft.apply` renders it with :mod:`.text` and runs
``nft -f``) replaces the cluster's table atomically. The document starts with
``add table`` + ``delete table`` + ``add table`` (checked on nft 1.0.6: the kernel
accepts a table deleted and re-created in one transaction, and an ``add`` first
makes the ``delete`` valid when the table does not exist yet), then creates every
chain, set, map, rule and element. Packets see either the old table or the new
one, never a mix; connections already established keep their NAT bindings
(those live in conntrack, not in the table).

Design (kube-proxy's nftables mode, pkg/proxy/nftables/proxier.go, with fewer
objects; one table per cluster, family ``ip``; priorities as kube-proxy):

* base chains: ``nat-prerouting`` (nat, prerouting, dstnat) sends traffic arriving
  from the cluster's bridge to ``services``; ``nat-output`` (nat, output, dstnat)
  sends everything the host originates there too; ``nat-postrouting`` (nat,
  postrouting, srcnat) runs ``masquerading``. ``filter-input``/``-forward``
  (bridge traffic only) and ``filter-output`` (filter, priority dstnat-10, so they
  see pre-DNAT addresses) reject new connections to service ports without
  endpoints (``endpoints-check``); ``filter-forward`` and ``filter-output-post-dnat``
  (dstnat+10) reject what is left addressed to a ClusterIP after DNAT: a port the
  Service does not define, or an unallocated address of the service CIDR
  (``cluster-ips-check``; kube-proxy drops the latter, we reject: on one host no
  router can own those addresses, and a refusal beats a timeout).
* dispatch: ``services`` looks ``ip daddr . meta l4proto . th dport`` up in the verdict
  map ``service-ips`` (ClusterIPs, LoadBalancer ingress IPs, externalIPs) and, for
  destinations that are local addresses of the host (``fib daddr type local``,
  127.0.0.1 included, unlike kube-proxy), ``meta l4proto . th dport`` in
  ``service-nodeports``. Service ports without endpoints are keys of
  ``no-endpoint-services`` / ``no-endpoint-nodeports`` instead, whose verdict is
  ``goto reject-chain``.
* per service port: ``service-<HASH>-ns/name/proto/port`` picks an endpoint and
  DNATs in one rule, ``dnat ip to numgen random mod N offset K map @endpoints-C``:
  the endpoints of up to :data:`ENDPOINT_MAP_PORTS` service ports share one map
  ``endpoints-C`` (``typeof numgen random mod 1 : ip daddr . th dport``), each
  port owning the N keys from its offset K. One endpoint needs no map: ``dnat to
  ip:port``. ``external-<HASH>-...`` (NodePort, LoadBalancer, externalIPs) marks
  for masquerade and goes to the service chain. Only service ports with ClientIP
  affinity keep kube-proxy's per-endpoint chains, since the affinity set of an
  endpoint is refreshed where it is chosen: the service chain sends a client
  found in ``@affinity-<HASH>-...__ip/port`` to that endpoint's chain, else picks
  one (``numgen random mod N vmap``); ``endpoint-<HASH>-...__ip/port`` records the
  client (``update @affinity-... { ip saddr }``) and DNATs. Names follow
  kube-proxy: an 8-character base32 SHA-256 prefix keeps them unique and stable,
  the rest keeps them readable (``nft list table`` is the debugging tool).
* masquerade: packets to be SNATed get mark bit :data:`MASQUERADE_MARK` (0x4000,
  kube-proxy's default bit 14: anyone debugging a Kubernetes-like host reads it
  as "masquerade me"; it differs from Podman/CNI's hostport bit 0x2000 and the
  kubelet's 0x8000; a real kube-proxy on the same host means the same thing by
  it, so sharing it is harmless: whichever table's postrouting chain runs first
  SNATs to the outgoing interface's address, which is what both want).
  ``masquerading`` clears the bit and masquerades. Marked are: ClusterIP traffic
  not from the pod CIDR (the host; one rule in ``services`` looking the packet's
  key up in ``service-ips``), all NodePort/LoadBalancer/externalIP traffic (the
  external chains), all ClusterIP traffic when ``masquerade_all`` is set (needed
  when br_netfilter is off: replies between two pods of one bridge are then
  switched, never seen by conntrack, and only SNAT to the bridge address routes
  them back through it), and hairpin traffic (a pod reaching itself through its
  service): after DNAT its source and destination are the same endpoint, so
  ``masquerading`` marks DNATed connections whose ``ip saddr . ip daddr`` is in
  the set ``hairpin`` (``ip . ip`` for every endpoint; a pod never sends to its
  own address through the bridge otherwise).
  With br_netfilter on, hairpin traffic is bridged back out of the port it came
  in by, which needs the bridge ports in hairpin mode (Podman's CNI bridge sets
  ``hairpinMode: true``; the integration test does the same).

Why this shape (``bench/proxy_sync_bench.py``, 1,000 service ports x 10
endpoints, kernel 6.18, nft 1.0.6): a sync's cost is what nft parses and the
kernel checks per object, so objects become set elements wherever the data
path allows. Per-endpoint chains (kube-proxy's layout, 11,214 chains and 23,420
rules) took 1.5-2.2 s to apply. An anonymous map per service port is costly
too: the kernel scans every set of the table to name each anonymous one, and
walks the whole transaction to bind it. One map shared by all service ports is
costly the other way: each element is checked against every rule bound to the
map (and each binding against every element), so the cost grows with
elements x rules; maps shared by :data:`ENDPOINT_MAP_PORTS` ports keep both
small. nft 1.0.6's JSON parser cannot declare such a map (it has no
``typeof``), which is why documents are applied in the text syntax.

Isolation: only the state's own table is named; prerouting and the forward/input
checks match the cluster's bridge only, so another cluster's pods (another
bridge) never hit this cluster's ClusterIPs. Host-originated traffic is matched
by every cluster's table: two clusters on one host need disjoint service CIDRs,
NodePorts and LoadBalancer address:port pairs to be told apart.

Keys claimed twice (two LoadBalancer Services on 127.0.0.1 port 80, a NodePort
allocated twice) go to the first service port in the state's order; the later
ones are left out rather than failing the whole transaction.

The document shares immutable sub-objects between rules (built once, for speed):
treat it as read-only.
"""

from __future__ import annotations

import base64
import gc
import hashlib
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from minikube_py.network.proxy.model import Endpoint, ServicePort

#: The packet-mark bit asking for SNAT in postrouting (see the module docstring).
MASQUERADE_MARK = 0x4000
#: The chain holding the owner comment :meth:`~.nft.Nft.list_tables` reads back.
INFO_CHAIN = "cluster-info"
#: nft's text syntax refuses comments of more than 128 bytes; kube-proxy-style
#: comments stay below this.
MAX_COMMENT = 128
#: The owner comment must survive intact (garbage collection compares it): it is
#: split over as many rules of :data:`INFO_CHAIN` as it needs.
MAX_OWNER_COMMENT = 250
#: Service ports whose endpoints share one ``endpoints-C`` map. Checking an
#: element costs one step per rule bound to its map: 64 ports x 10 endpoints
#: is 41,000 steps a map, against 9.5 million for one map of 1,000 ports.
ENDPOINT_MAP_PORTS = 64
#: Kernel limit on chain and set names is 255 bytes; leave room for a prefix.
_MAX_NAME_BASE = 240

DNAT_PRIORITY = -100
SNAT_PRIORITY = 100
#: Filter chains run just before DNAT (to see service addresses), or just after.
FILTER_PRIORITY = DNAT_PRIORITY - 10
FILTER_POST_DNAT_PRIORITY = DNAT_PRIORITY + 10

Command = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ProxyState:
    """Everything the ruleset of one cluster depends on.

    ``table`` is the nftables table (family ``ip``) the cluster owns; ``bridge`` its
    pods' bridge interface; ``pod_cidr`` and ``service_cidr`` IPv4 prefixes
    (``service_cidr`` may be empty: no check for unallocated ClusterIPs);
    ``services`` from :func:`~.model.from_objects`; ``comment`` an owner marker
    (the daemon's state directory) stored in the table for garbage collection.
    """

    table: str
    bridge: str
    pod_cidr: str
    service_cidr: str
    services: Sequence[ServicePort] = ()
    masquerade_all: bool = False
    comment: str = ""


def hashed_name(prefix: str, base: str, salt: str = "") -> str:
    """kube-proxy's chain/set naming: ``prefix`` + 8 base32 chars of SHA-256 + base.

    ``salt`` enters the hash only: names that must differ when something not
    shown changes (an affinity timeout) stay readable.
    """
    # Base32 turns each 5 bytes into 8 characters: the first 5 bytes of the digest
    # give exactly kube-proxy's 8 characters, at an eighth of the cost.
    digest = base64.b32encode(hashlib.sha256((base + salt).encode()).digest()[:5]).decode()
    name = f"{digest}-{base}"
    if len(name) > _MAX_NAME_BASE:
        name = name[:_MAX_NAME_BASE - 3] + "..."
    return prefix + name


def owner_comment_parts(comment: str) -> list[str]:
    """``comment`` cut into rule comments of at most :data:`MAX_COMMENT` bytes (at
    character boundaries), joined again by :meth:`~.nft.Nft.list_tables`; one
    empty part for no comment."""
    parts, part, size = [], "", 0
    for char in comment:
        width = len(char.encode())
        if size + width > MAX_COMMENT:
            parts.append(part)
            part, size = "", 0
        part, size = part + char, size + width
    return [*parts, part]


def service_base(sp: ServicePort) -> str:
    """The readable part of a service port's chain names: ``ns/name/proto/port``."""
    return f"{sp.namespace}/{sp.name}/{sp.protocol}/{sp.port_name}"


def build_ruleset(state: ProxyState) -> dict[str, Any]:
    """The document that replaces ``state.table`` with the rules of ``state``.

    Raises ValueError for an unusable state (a CIDR that does not parse, an owner
    comment too long to store or holding a double quote or a control character,
    which nft's text syntax cannot quote); never for a service (see :mod:`.model`;
    rule comments drop such characters instead).

    The cyclic garbage collector is paused during the build: it allocates tens
    of thousands of acyclic objects (1,000 services x 10 endpoints), and the
    collections they would trigger add a fifth to the build's time.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return {"nftables": _Builder(state).build()}
    finally:
        if paused:
            gc.enable()


# Shared expressions (never mutated).
_SADDR = {"payload": {"protocol": "ip", "field": "saddr"}}
_DADDR = {"payload": {"protocol": "ip", "field": "daddr"}}
_L4PROTO = {"meta": {"key": "l4proto"}}
_DPORT = {"payload": {"protocol": "th", "field": "dport"}}
_MARK = {"meta": {"key": "mark"}}
_CT_NEW = {"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": "new"}}
_CT_DNAT = {"match": {"op": "in", "left": {"ct": {"key": "status"}}, "right": "dnat"}}
_FIB_LOCAL = {"match": {"op": "==", "left": {"fib": {"result": "type", "flags": ["daddr"]}},
                        "right": "local"}}
_JUMP_MASQ = {"jump": {"target": "mark-for-masquerade"}}
_IP_TUPLE = {"concat": [_DADDR, _L4PROTO, _DPORT]}
_PORT_TUPLE = {"concat": [_L4PROTO, _DPORT]}
_GOTO_REJECT = {"goto": {"target": "reject-chain"}}
_L4_MATCH = {p: {"match": {"op": "==", "left": _L4PROTO, "right": p}}
             for p in ("tcp", "udp", "sctp")}
_IP_KEY_TYPE = ["ipv4_addr", "inet_proto", "inet_service"]
_PORT_KEY_TYPE = ["inet_proto", "inet_service"]
#: The key and value of the ``endpoints-C`` maps, as newer nft's JSON spells
#: ``typeof numgen random mod 1 : ip daddr . th dport`` (nft 1.0.6's cannot).
_SLOT_TYPE = {"typeof": {"numgen": {"mode": "random", "mod": 1, "offset": 0}}}
_ENDPOINT_TYPE = {"typeof": {"concat": [_DADDR, _DPORT]}}
#: What rule comments drop: nft's text syntax has no escapes in quoted strings.
_UNQUOTABLE = {c: None for c in [*range(32), 127, ord('"')]}


def _match(left: Any, right: Any, op: str = "==") -> dict[str, Any]:
    return {"match": {"op": op, "left": left, "right": right}}


def _prefix(cidr: str) -> dict[str, Any]:
    net = ipaddress.IPv4Network(cidr, strict=False)
    return {"prefix": {"addr": str(net.network_address), "len": net.prefixlen}}


def _dnat(ep: Endpoint) -> dict[str, Any]:
    return {"dnat": {"addr": ep.ip, "port": ep.port}}


class _Builder:
    """One build: accumulates commands by kind, so that every chain and set exists
    before a rule or element names it (nft resolves names as it goes)."""

    def __init__(self, state: ProxyState) -> None:
        if len(state.comment) > MAX_OWNER_COMMENT:
            raise ValueError(f"owner comment longer than {MAX_OWNER_COMMENT} characters")
        if state.comment.translate(_UNQUOTABLE) != state.comment:
            raise ValueError("owner comment with a double quote or a control character")
        self.state = state
        self.table = state.table
        self.pod_prefix = _prefix(state.pod_cidr)
        self.service_prefix = _prefix(state.service_cidr) if state.service_cidr else None
        self.chains: list[Command] = []
        self.sets: list[Command] = []
        self.affinity_sets: list[Command] = []
        self.rules: list[Command] = []
        self.service_ips: list[Any] = []
        self.service_nodeports: list[Any] = []
        self.no_endpoint_services: list[Any] = []
        self.no_endpoint_nodeports: list[Any] = []
        self.cluster_ips: dict[str, None] = {}
        self.hairpin: dict[str, None] = {}
        #: The elements of endpoints-0, endpoints-1, ...
        self.endpoint_maps: list[list[Any]] = []
        self.mapped_ports = 0
        self.claimed: set[tuple[str, str, int]] = set()
        self.claimed_nodeports: set[tuple[str, int]] = set()

    # -- helpers -----------------------------------------------------------------

    def chain(self, name: str, hook: tuple[str, str, int] | None = None) -> None:
        body: dict[str, Any] = {"family": "ip", "table": self.table, "name": name}
        if hook is not None:
            body.update(type=hook[0], hook=hook[1], prio=hook[2], policy="accept")
        self.chains.append({"add": {"chain": body}})

    def rule(self, chain: str, *expr: Any, comment: str = "") -> None:
        body: dict[str, Any] = {"family": "ip", "table": self.table, "chain": chain,
                                "expr": list(expr)}
        if comment:
            body["comment"] = comment
        self.rules.append({"add": {"rule": body}})

    def container(self, kind: str, name: str, into: list[Command] | None = None,
                  **fields: Any) -> None:
        (self.sets if into is None else into).append(
            {"add": {kind: {"family": "ip", "table": self.table, "name": name, **fields}}})

    def elements(self, name: str, elems: list[Any]) -> list[Command]:
        if not elems:
            return []
        return [{"add": {"element": {"family": "ip", "table": self.table, "name": name,
                                     "elem": elems}}}]

    # -- the table ---------------------------------------------------------------

    def build(self) -> list[Command]:
        table = {"family": "ip", "name": self.table}
        head: list[Command] = [{"add": {"table": table}}, {"delete": {"table": table}},
                               {"add": {"table": table}}]
        self.fixed_part()
        for sp in self.state.services:
            self.service_port(sp)
        elements = (
            self.elements("service-ips", self.service_ips)
            + self.elements("service-nodeports", self.service_nodeports)
            + self.elements("no-endpoint-services", self.no_endpoint_services)
            + self.elements("no-endpoint-nodeports", self.no_endpoint_nodeports)
            + self.elements("cluster-ips", list(self.cluster_ips))
            + self.elements("hairpin", [{"concat": [ip, ip]} for ip in self.hairpin]))
        for i, elems in enumerate(self.endpoint_maps):
            # Declared before the affinity sets: the kernel finds a set by name
            # by walking the table's sets in creation order.
            self.container("map", f"endpoints-{i}", type=_SLOT_TYPE, map=_ENDPOINT_TYPE,
                           comment=f"endpoints of up to {ENDPOINT_MAP_PORTS} service ports")
            elements += self.elements(f"endpoints-{i}", elems)
        return (head + self.chains + self.sets + self.affinity_sets + self.rules
                + elements)

    def fixed_part(self) -> None:
        """The chains, maps and rules every cluster has, services or not."""
        bridge = _match({"meta": {"key": "iifname"}}, self.state.bridge)
        for name, hook in (
                ("filter-input", ("filter", "input", FILTER_PRIORITY)),
                ("filter-forward", ("filter", "forward", FILTER_PRIORITY)),
                ("filter-output", ("filter", "output", FILTER_PRIORITY)),
                ("filter-output-post-dnat", ("filter", "output", FILTER_POST_DNAT_PRIORITY)),
                ("nat-prerouting", ("nat", "prerouting", DNAT_PRIORITY)),
                ("nat-output", ("nat", "output", DNAT_PRIORITY)),
                ("nat-postrouting", ("nat", "postrouting", SNAT_PRIORITY))):
            self.chain(name, hook)
        for name in ("services", "endpoints-check", "cluster-ips-check", "reject-chain",
                     "mark-for-masquerade", "masquerading", INFO_CHAIN):
            self.chain(name)
        self.container("map", "service-ips", type=_IP_KEY_TYPE, map="verdict",
                       comment="ClusterIP, ExternalIP and LoadBalancer IP traffic")
        self.container("map", "service-nodeports", type=_PORT_KEY_TYPE, map="verdict",
                       comment="NodePort traffic")
        self.container("map", "no-endpoint-services", type=_IP_KEY_TYPE, map="verdict",
                       comment="service addresses without endpoints: reject")
        self.container("map", "no-endpoint-nodeports", type=_PORT_KEY_TYPE, map="verdict",
                       comment="NodePorts without endpoints: reject")
        self.container("set", "cluster-ips", type="ipv4_addr", comment="active ClusterIPs")
        self.container("set", "hairpin", type=["ipv4_addr", "ipv4_addr"],
                       comment="endpoint . endpoint: a pod reaching itself via a service")

        rule = self.rule
        rule("filter-input", bridge, _CT_NEW, {"jump": {"target": "endpoints-check"}})
        rule("filter-forward", bridge, _CT_NEW, {"jump": {"target": "endpoints-check"}})
        rule("filter-forward", bridge, _CT_NEW, {"jump": {"target": "cluster-ips-check"}})
        rule("filter-output", _CT_NEW, {"jump": {"target": "endpoints-check"}})
        rule("filter-output-post-dnat", _CT_NEW, {"jump": {"target": "cluster-ips-check"}})
        rule("nat-prerouting", bridge, {"jump": {"target": "services"}})
        rule("nat-output", {"jump": {"target": "services"}})
        rule("nat-postrouting", {"jump": {"target": "masquerading"}})

        # Used as a set here: every key of service-ips leads to a service port
        # with endpoints; external keys are marked by their chains anyway.
        to_service = _match(_IP_TUPLE, "@service-ips")
        if self.state.masquerade_all:
            rule("services", to_service, _JUMP_MASQ, comment="masquerade all")
        else:
            rule("services", _match(_SADDR, self.pod_prefix, "!="), to_service, _JUMP_MASQ,
                 comment="not from a pod")
        rule("services", {"vmap": {"key": _IP_TUPLE, "data": "@service-ips"}})
        rule("services", _FIB_LOCAL, {"vmap": {"key": _PORT_TUPLE, "data": "@service-nodeports"}})
        rule("endpoints-check", {"vmap": {"key": _IP_TUPLE, "data": "@no-endpoint-services"}})
        rule("endpoints-check", _FIB_LOCAL,
             {"vmap": {"key": _PORT_TUPLE, "data": "@no-endpoint-nodeports"}})
        rule("cluster-ips-check", _match(_DADDR, "@cluster-ips"), {"reject": None},
             comment="undefined port of a ClusterIP")
        if self.service_prefix is not None:
            rule("cluster-ips-check", _match(_DADDR, self.service_prefix), {"reject": None},
                 comment="unallocated ClusterIP")
        rule("reject-chain", {"reject": None})

        rule("mark-for-masquerade",
             {"mangle": {"key": _MARK, "value": {"|": [_MARK, MASQUERADE_MARK]}}})
        rule("masquerading", _CT_DNAT, _match({"concat": [_SADDR, _DADDR]}, "@hairpin"),
             _JUMP_MASQ, comment="hairpin")
        rule("masquerading", _match({"&": [_MARK, MASQUERADE_MARK]}, 0), {"return": None})
        rule("masquerading", {"mangle": {"key": _MARK, "value": {"^": [_MARK, MASQUERADE_MARK]}}})
        rule("masquerading", {"masquerade": {"flags": ["fully-random"]}})
        # The owner marker is in rule comments of a chain nothing jumps to, where
        # versions applying JSON (whose parser drops table comments) put it too.
        for part in owner_comment_parts(self.state.comment):
            rule(INFO_CHAIN, {"return": None}, comment=part)

    # -- one service port --------------------------------------------------------

    def claim(self, ip: str, proto: str, port: int) -> bool:
        key = (ip, proto, port)
        if key in self.claimed:
            return False
        self.claimed.add(key)
        return True

    def claim_nodeport(self, proto: str, port: int) -> bool:
        key = (proto, port)
        if not port or key in self.claimed_nodeports:
            return False
        self.claimed_nodeports.add(key)
        return True

    def service_port(self, sp: ServicePort) -> None:
        proto, port = sp.protocol, sp.port
        label = sp.key[:MAX_COMMENT].translate(_UNQUOTABLE)
        self.cluster_ips[sp.cluster_ip] = None
        outside = [ip for ip in (*sp.load_balancer_ips, *sp.external_ips)
                   if self.claim(ip, proto, port)]
        cluster = self.claim(sp.cluster_ip, proto, port)
        node_port = self.claim_nodeport(proto, sp.node_port)

        if not sp.endpoints:
            reject = _GOTO_REJECT
            for ip in ([sp.cluster_ip] if cluster else []) + outside:
                self.no_endpoint_services.append(
                    [{"elem": {"val": {"concat": [ip, proto, port]}, "comment": label}}, reject])
            if node_port:
                self.no_endpoint_nodeports.append(
                    [{"elem": {"val": {"concat": [proto, sp.node_port]}, "comment": label}},
                     reject])
            return

        base = service_base(sp)
        svc_chain = hashed_name("service-", base)
        self.chain(svc_chain)
        if cluster:
            self.service_ips.append([{"concat": [sp.cluster_ip, proto, port]},
                                     {"goto": {"target": svc_chain}}])
        if outside or node_port:
            ext_chain = hashed_name("external-", base)
            self.chain(ext_chain)
            # externalTrafficPolicy is Cluster here (see .model): always SNAT.
            self.rule(ext_chain, _JUMP_MASQ)
            self.rule(ext_chain, {"goto": {"target": svc_chain}})
            ext_verdict = {"goto": {"target": ext_chain}}
            for ip in outside:
                self.service_ips.append([{"concat": [ip, proto, port]}, ext_verdict])
            if node_port:
                self.service_nodeports.append([{"concat": [proto, sp.node_port]}, ext_verdict])

        hairpin = self.hairpin
        for ep in sp.endpoints:
            hairpin[ep.ip] = None
        l4 = _L4_MATCH[proto]
        if sp.affinity_timeout:
            self.affinity(sp, base, svc_chain, label)
        elif len(sp.endpoints) == 1:
            self.rule(svc_chain, l4, _dnat(sp.endpoints[0]), comment=label)
        else:
            self.rule(svc_chain, l4, {"dnat": {"family": "ip", "addr": {
                "map": self.endpoint_slots(sp.endpoints)}}}, comment=label)

    def endpoint_slots(self, endpoints: Sequence[Endpoint]) -> dict[str, Any]:
        """``numgen random mod N offset K map @endpoints-C``: ``endpoints`` get the
        next N keys of the current map (a new map every :data:`ENDPOINT_MAP_PORTS`
        service ports)."""
        if self.mapped_ports % ENDPOINT_MAP_PORTS == 0:
            self.endpoint_maps.append([])
        self.mapped_ports += 1
        elems = self.endpoint_maps[-1]
        offset = len(elems)
        elems.extend([offset + i, {"concat": [ep.ip, ep.port]}]
                     for i, ep in enumerate(endpoints))
        return {"key": {"numgen": {"mode": "random", "mod": len(endpoints), "offset": offset}},
                "data": f"@endpoints-{len(self.endpoint_maps) - 1}"}

    def affinity(self, sp: ServicePort, base: str, svc_chain: str, label: str) -> None:
        """kube-proxy's per-endpoint chains and sets for ClientIP affinity."""
        l4 = _L4_MATCH[sp.protocol]
        timeout = sp.affinity_timeout
        verdicts = []
        for i, ep in enumerate(sp.endpoints):
            ep_base = f"{base}__{ep.ip}/{ep.port}"
            ep_chain = hashed_name("endpoint-", ep_base)
            self.chain(ep_chain)
            verdicts.append([i, {"goto": {"target": ep_chain}}])
            # The timeout is part of the name: a changed timeout makes a new
            # set rather than carrying old entries over (see .nft).
            aff_set = hashed_name("affinity-", ep_base, salt=f"@{timeout}")
            self.container("set", aff_set, self.affinity_sets, type="ipv4_addr",
                           flags=["timeout"], timeout=timeout)
            self.rule(svc_chain, _match(_SADDR, "@" + aff_set), {"goto": {"target": ep_chain}})
            self.rule(ep_chain, {"set": {"op": "update", "elem": _SADDR, "set": "@" + aff_set}})
            self.rule(ep_chain, l4, _dnat(ep), comment=label)
        self.rule(svc_chain, {"vmap": {
            "key": {"numgen": {"mode": "random", "mod": len(verdicts), "offset": 0}},
            "data": {"set": verdicts}}}, comment=label)
