"""One DNS question answered from an :class:`~.index.Index` the way CoreDNS's
``kubernetes`` plugin answers it.

A port of ``ServeDNS`` (handler.go), ``Services`` / ``Records`` /
``findServices`` / ``findPods`` (kubernetes.go), ``parseRequest`` (parse.go),
``Reverse`` (reverse.go), ``nsAddrs`` (ns.go) and the record builders of
plugin/backend_lookup.go, for kubeadm's default Corefile (``pods insecure``,
``fallthrough in-addr.arpa ip6.arpa``, one TTL for everything). Their quirks
are kept on purpose, so clients and tests written against CoreDNS see the
same rcodes:

* A name in a namespace that does not exist is NXDOMAIN, services and pods
  alike (``pods insecure`` only skips the check that the *pod* exists).
* ``ns.svc.<zone>``, ``svc.<zone>``, ``pod.<zone>``, ``ns.pod.<zone>`` and
  the zone itself are NOERROR/NODATA; a TXT question for any of them is
  NXDOMAIN (CoreDNS's TXT path admits only names that hold records).
* A headless service without ready endpoints is NXDOMAIN; a ClusterIP
  service always has its A record, endpoints or not.
* Endpoint names (``hostname.svc.ns.svc.<zone>``, else the dashed IP) answer
  for ClusterIP services as well as headless ones; PTR answers for the
  address of any endpoint, not only headless ones.
* ``_port._proto`` labels also narrow A questions; SRV without them lists
  every named and unnamed port.
* SOA for a name below the apex is NODATA without an existence check;
  AXFR/IXFR are REFUSED.
* ``*`` is a plain label: CoreDNS removed wildcard queries (coredns#5019).
* Names not found in the reverse zones fall through to the upstream
  resolvers (:attr:`Answer.in_zone` False); in the cluster zone they never do.

A lookup reads the index and builds records; it never blocks, never does
I/O and changes nothing. The caller holds whatever lock guards the index.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import dns.exception
import dns.name
import dns.rcode
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rdtypes.ANY.CNAME
import dns.rdtypes.ANY.NS
import dns.rdtypes.ANY.PTR
import dns.rdtypes.ANY.SOA
import dns.rdtypes.ANY.TXT
import dns.rdtypes.IN.A
import dns.rdtypes.IN.AAAA
import dns.rdtypes.IN.SRV
import dns.reversename
import dns.rrset

from .index import NO_PORT, EndpointView, Index, PortView, canonical_ip

__all__ = ["DNS_SCHEMA_VERSION", "REVERSE_ZONES", "Answer", "Zone", "lookup"]

#: The Kubernetes DNS specification version served at ``dns-version.<zone>``.
DNS_SCHEMA_VERSION = "1.1.0"
REVERSE_ZONES = (dns.name.from_text("in-addr.arpa."), dns.name.from_text("ip6.arpa."))

_IN = dns.rdataclass.IN
_A = dns.rdatatype.A
_AAAA = dns.rdatatype.AAAA
_CNAME = dns.rdatatype.CNAME
_SRV = dns.rdatatype.SRV
_TXT = dns.rdatatype.TXT
_NS = dns.rdatatype.NS
# dnspython's rdata constructors are untyped; these say what they return.
_RdataOf = Callable[..., dns.rdata.Rdata]
_A_RDATA = cast(_RdataOf, dns.rdtypes.IN.A.A)
_AAAA_RDATA = cast(_RdataOf, dns.rdtypes.IN.AAAA.AAAA)
_CNAME_RDATA = cast(_RdataOf, dns.rdtypes.ANY.CNAME.CNAME)
_NS_RDATA = cast(_RdataOf, dns.rdtypes.ANY.NS.NS)
_PTR_RDATA = cast(_RdataOf, dns.rdtypes.ANY.PTR.PTR)
_SOA_RDATA = cast(_RdataOf, dns.rdtypes.ANY.SOA.SOA)
_SRV_RDATA = cast(_RdataOf, dns.rdtypes.IN.SRV.SRV)
_TXT_RDATA = cast(_RdataOf, dns.rdtypes.ANY.TXT.TXT)
_TXT_TTL = 28800  # CoreDNS's fixed TTL for dns-version
_MAX_CNAME_CHAIN = 10  # backend_lookup.go maxCnameChainLength


@dataclass(frozen=True)
class Answer:
    """What to reply to one question, before EDNS and size limits.

    ``in_zone`` False means "not ours": the name is outside our zones, or it
    is a reverse name we hold nothing for (``fallthrough in-addr.arpa
    ip6.arpa``); the caller forwards the query, and every other field is
    empty. Otherwise the reply has ``rcode``, the AA bit when
    ``authoritative``, and the three sections in order. Each RRset holds
    exactly one record, so a reply cut to fit a size keeps a prefix of them.

    ``chase`` is set when the answer ends in a CNAME to a name outside the
    zone (an ExternalName service): the caller resolves that name, same
    question type, upstream and appends what it gets to ``answer``, as
    CoreDNS's upstream lookup does.
    """

    rcode: dns.rcode.Rcode
    answer: tuple[dns.rrset.RRset, ...] = ()
    authority: tuple[dns.rrset.RRset, ...] = ()
    additional: tuple[dns.rrset.RRset, ...] = ()
    in_zone: bool = True
    authoritative: bool = True
    chase: tuple[dns.name.Name, dns.rdatatype.RdataType] | None = None


FALLTHROUGH = Answer(rcode=dns.rcode.NOERROR, in_zone=False, authoritative=False)


@dataclass(frozen=True)
class Zone:
    """The settings a lookup needs besides the index."""

    primary: dns.name.Name  # the cluster zone, lower case
    ttl: int
    dns_ips: tuple[str, ...]  # our own addresses (CoreDNS's "local IPs")
    serial: int  # the SOA serial: when the index last changed
    synced: bool  # False: unknown names are SERVFAIL, not NXDOMAIN


@dataclass(frozen=True)
class _Rec:
    """CoreDNS's ``msg.Service``: one thing a name resolves to.

    ``host`` is an IP address or, for a CNAME, a domain name; ``owner`` is the
    name the record lives at (``msg.Domain(Key)``): an SRV target, and the
    owner of the address records in the additional section.
    """

    host: str
    port: int
    owner: str
    ttl: int
    text: str = ""


@dataclass
class _Request:
    """parse.go ``recordRequest``: the parts of a name below the zone."""

    port: str = ""
    protocol: str = ""
    endpoint: str = ""
    service: str = ""
    namespace: str = ""
    pod_or_svc: str = ""


def lookup(index: Index, zone: Zone, qname: dns.name.Name,
           qtype: dns.rdatatype.RdataType) -> Answer:
    """Answer ``qname``/``qtype`` from ``index``; see the module docstring."""
    lower = qname.canonicalize()
    matched = None
    for candidate in (zone.primary, *REVERSE_ZONES):
        if lower.is_subdomain(candidate) and (matched is None or len(candidate) > len(matched)):
            matched = candidate
    if matched is None:
        return FALLTHROUGH
    return _Lookup(index, zone, matched).serve(qname, lower, qtype)


class _Lookup:
    def __init__(self, index: Index, settings: Zone, zone: dns.name.Name) -> None:
        self.ix = index
        self.settings = settings
        self.zone = zone
        self.zone_text = zone.to_text()
        self.primary_text = settings.primary.to_text()
        self.reverse = zone in REVERSE_ZONES
        self.ttl = settings.ttl

    def serve(self, qname: dns.name.Name, lower: dns.name.Name,
              qtype: dns.rdatatype.RdataType) -> Answer:
        """handler.go ``ServeDNS``: dispatch on the type, then pick the rcode."""
        zone_owner = dns.name.Name(qname.labels[len(qname) - len(self.zone):])  # case kept
        records: list[dns.rrset.RRset] = []
        extra: list[dns.rrset.RRset] = []
        chase = None
        found = True  # False is CoreDNS's "name error"
        if qtype in (_A, _AAAA):
            addresses = self.address(qname, qtype, [])
            found = addresses is not None
            if addresses is not None:
                records, chase = addresses
        elif qtype == _TXT:
            recs = self.services(lower, qtype)
            found = recs is not None
            records = [_rr(qname, r.ttl, _txt(r.text)) for r in recs or ()]
        elif qtype == _CNAME:
            recs = self.services(lower, qtype)
            found = recs is not None
            if recs and _host_type(recs[0].host) == _CNAME:
                records = [_cname(qname, recs[0])]
        elif qtype == dns.rdatatype.PTR:
            ptrs = self.reverse_lookup(lower)
            found = ptrs is not None
            records = [_rr(qname, self.ttl, _ptr(h)) for h in dict.fromkeys(ptrs or ())]
        elif qtype == dns.rdatatype.MX:
            # Nothing here is mail: the name only decides NXDOMAIN vs NODATA.
            found = self.services(lower, qtype) is not None
        elif qtype == _SRV:
            srv = self.srv(qname, lower)
            found = srv is not None
            if srv is not None:
                records, extra = srv
        elif qtype == dns.rdatatype.SOA:
            if lower == self.zone:
                records = [self.soa(zone_owner)]
        elif qtype in (dns.rdatatype.AXFR, dns.rdatatype.IXFR):
            return Answer(rcode=dns.rcode.REFUSED, authoritative=False)
        elif qtype == _NS and lower == self.zone:
            records, extra = self.ns(qname)
        else:
            # Any other type: a fake A lookup tells NXDOMAIN from NODATA.
            found = self.address(qname, _A, [], chase_external=False) is not None

        if not found:
            if self.reverse:
                return FALLTHROUGH
            rcode = dns.rcode.NXDOMAIN if self.settings.synced else dns.rcode.SERVFAIL
            return Answer(rcode=rcode, authority=(self.soa(zone_owner),))
        if not records:
            return Answer(rcode=dns.rcode.NOERROR, authority=(self.soa(zone_owner),))
        return Answer(rcode=dns.rcode.NOERROR, answer=tuple(records),
                      additional=tuple(extra), chase=chase)

    # ------------------------------------------------------- record builders

    def address(self, qname: dns.name.Name, qtype: dns.rdatatype.RdataType,
                previous: list[tuple[dns.name.Name, dns.name.Name]],
                chase_external: bool = True,
                ) -> tuple[list[dns.rrset.RRset],
                           tuple[dns.name.Name, dns.rdatatype.RdataType] | None] | None:
        """backend_lookup.go ``A``/``AAAA``: the addresses of ``qname``,
        following CNAMEs inside the zone; None is a name error."""
        recs = self.services(qname.canonicalize(), qtype)
        if recs is None:
            return None
        out: list[dns.rrset.RRset] = []
        chase = None
        seen: set[str] = set()
        for rec in recs:
            kind = _host_type(rec.host)
            if kind == _CNAME:
                target = dns.name.from_text(rec.host)  # validated when indexed
                if target == qname or len(previous) > _MAX_CNAME_CHAIN:
                    continue  # x CNAME x is a loop; over-long chains are cut
                if (qname, target) in previous:
                    continue
                cname = _cname(qname, rec)
                if target.is_subdomain(self.zone):
                    sub = self.address(target, qtype, [*previous, (qname, target)],
                                       chase_external)
                    if sub is not None and sub[0]:
                        out.append(cname)
                        out.extend(sub[0])
                        chase = sub[1] or chase
                    continue
                out.append(cname)
                if chase_external:
                    chase = (target, qtype)
            elif kind == qtype and rec.host not in seen:
                seen.add(rec.host)
                out.append(_rr(qname, rec.ttl, _address_rdata(rec.host)))
        return out, chase

    def srv(self, qname: dns.name.Name, lower: dns.name.Name,
            ) -> tuple[list[dns.rrset.RRset], list[dns.rrset.RRset]] | None:
        """backend_lookup.go ``SRV``: one record per (target, port), the
        targets' addresses in the additional section."""
        recs = self.services(lower, _SRV)
        if recs is None:
            return None
        # Every entry has priority 0 and no weight of its own, so CoreDNS's
        # weight is 100 / count * 100 (at least 1), counting portless and
        # duplicate entries too.
        weight = max(1, math.floor(100.0 / (100.0 * len(recs)) * 100)) if recs else 0
        answer: list[dns.rrset.RRset] = []
        extra: list[dns.rrset.RRset] = []
        seen_srv: set[tuple[str, int]] = set()
        seen_addr: set[tuple[str, str]] = set()
        for rec in recs:
            if rec.port == NO_PORT or _host_type(rec.host) == _CNAME:
                continue  # (no CNAME reaches here: Services() drops them for SRV)
            target = dns.name.from_text(rec.owner)
            if (rec.owner, rec.port) not in seen_srv:
                seen_srv.add((rec.owner, rec.port))
                answer.append(_rr(qname, rec.ttl, _SRV_RDATA(
                    _IN, _SRV, 0, weight, rec.port, target)))
            if (rec.owner, rec.host) not in seen_addr:
                seen_addr.add((rec.owner, rec.host))
                extra.append(_rr(target, rec.ttl, _address_rdata(rec.host)))
        return answer, extra

    def ns(self, qname: dns.name.Name) -> tuple[list[dns.rrset.RRset], list[dns.rrset.RRset]]:
        """backend_lookup.go ``NS``: the zone's name servers and their addresses."""
        answer: list[dns.rrset.RRset] = []
        extra: list[dns.rrset.RRset] = []
        seen: set[str] = set()
        for owner, ip in self.ns_addrs():
            target = dns.name.from_text(owner)
            extra.append(_rr(target, self.ttl, _address_rdata(ip)))
            if owner not in seen:
                seen.add(owner)
                answer.append(_rr(qname, self.ttl, _NS_RDATA(_IN, _NS, target)))
        return answer, extra

    def soa(self, owner: dns.name.Name) -> dns.rrset.RRset:
        """backend_lookup.go ``SOA``."""
        rdata = _SOA_RDATA(
            _IN, dns.rdatatype.SOA,
            dns.name.from_text("ns.dns", self.zone), dns.name.from_text("hostmaster", self.zone),
            self.settings.serial & 0xFFFFFFFF, 7200, 1800, 86400, self.ttl)
        return _rr(owner, min(self.ttl, 300), rdata)

    # ------------------------------------------------------------ the backend

    def services(self, name: dns.name.Name, qtype: dns.rdatatype.RdataType) -> list[_Rec] | None:
        """kubernetes.go ``Services``: what ``name`` (lower case) holds; None
        is a name error."""
        labels = _labels(name, self.zone)
        if qtype == _TXT:
            if labels == ["dns-version"]:
                return [_Rec(host="", port=0, owner=name.to_text(), ttl=_TXT_TTL,
                             text=DNS_SCHEMA_VERSION)]
            return [] if self.records(labels) else None
        if qtype == _NS:
            return [_Rec(host=ip, port=0, owner=owner, ttl=self.ttl)
                    for owner, ip in self.ns_addrs()]
        if labels == ["ns", "dns"]:
            return [_Rec(host=ip, port=0, owner=name.to_text(), ttl=self.ttl)
                    for _, ip in self.ns_addrs() if _host_type(ip) == qtype]
        recs = self.records(labels)
        if qtype == _SRV and recs is not None:
            # CoreDNS implements no SRV for ExternalName services.
            recs = [r for r in recs if _host_type(r.host) != _CNAME]
        return recs

    def records(self, labels: list[str]) -> list[_Rec] | None:
        """kubernetes.go ``Records``."""
        req = _parse_request(labels)
        if req is None:
            return None
        if not req.pod_or_svc:
            return []  # the zone, svc.<zone>, pod.<zone>: NODATA
        if self.reverse or req.namespace not in self.ix.namespaces:
            return None
        if req.pod_or_svc == "pod":
            return self.find_pods(req)
        return self.find_services(req)

    def find_pods(self, req: _Request) -> list[_Rec] | None:
        """``pods insecure``: a dashed IP is its own address; no pod check."""
        podname = req.service
        if not podname:
            return []  # ns.pod.<zone> of an existing namespace: NODATA
        if podname.count("-") == 3 and "--" not in podname:
            ip = podname.replace("-", ".")
        else:
            ip = podname.replace("-", ":")
        if canonical_ip(ip) is None:
            return None
        owner = f"{podname}.{req.namespace}.pod.{self.zone_text}"
        return [_Rec(host=ip, port=0, owner=owner, ttl=self.ttl)]

    def find_services(self, req: _Request) -> list[_Rec] | None:
        """kubernetes.go ``findServices``."""
        if not req.service:
            return []  # ns.svc.<zone> of an existing namespace: NODATA
        svc = self.ix.services.get((req.namespace, req.service))
        if svc is None:
            return None
        base = f"{svc.name}.{svc.namespace}.svc.{self.zone_text}"
        if svc.type == "ExternalName":
            # Nothing lives below an ExternalName: no endpoints, no ports.
            if req.endpoint or req.port or req.protocol:
                return None
            if not svc.external_name or _host_type(svc.external_name) != _CNAME:
                return None
            return [_Rec(host=svc.external_name, port=0, owner=base, ttl=self.ttl)]
        out: list[_Rec] = []
        found = False
        if svc.headless or req.endpoint:
            for slice_ in self.ix.slices_for(svc):
                for ep in slice_.endpoints:
                    if not (ep.ready or svc.publish_not_ready):
                        continue
                    hostname = _endpoint_hostname(ep)
                    if req.endpoint and req.endpoint != hostname:
                        continue
                    for port in slice_.ports:
                        if _port_matches(req, port):
                            found = True
                            out.append(_Rec(host=ep.ip, port=port.port,
                                            owner=f"{hostname}.{base}", ttl=self.ttl))
            return out if found else None
        for port in svc.ports:
            if _port_matches(req, port):
                found = True
                out.extend(_Rec(host=ip, port=port.port, owner=base, ttl=self.ttl)
                           for ip in svc.cluster_ips)
        return out if found else None

    def reverse_lookup(self, name: dns.name.Name) -> list[str] | None:
        """reverse.go ``Reverse``: PTR targets of an address, a ClusterIP first."""
        ip = _address_from_reverse(name)
        if ip is None:
            return None if self.records(_labels(name, self.zone)) is None else []
        for svc in self.ix.services_at(ip):
            return [f"{svc.name}.{svc.namespace}.svc.{self.primary_text}"]
        hosts: list[str] = []
        for slice_ in self.ix.slices_at(ip):
            svc_view = self.ix.services.get((slice_.namespace, slice_.service))
            publish = svc_view is not None and svc_view.publish_not_ready
            hosts.extend(
                f"{_endpoint_hostname(ep)}.{slice_.service}.{slice_.namespace}"
                f".svc.{self.primary_text}"
                for ep in slice_.endpoints if ep.ip == ip and (ep.ready or publish))
        return hosts or None

    def ns_addrs(self) -> list[tuple[str, str]]:
        """ns.go ``nsAddrs``: (name, address) pairs naming this DNS server.

        A Service with a ready endpoint at one of our own addresses names us
        (``kube-dns.kube-system.svc.<zone>`` at its ClusterIP; a headless one
        by its endpoints); failing that, ``ns.dns.<zone>`` at our addresses.
        """
        out: list[tuple[str, str]] = []
        found = False
        for local in self.settings.dns_ips:
            for slice_ in self.ix.slices_at(local):
                if not any(ep.ip == local and ep.ready for ep in slice_.endpoints):
                    continue  # CoreDNS's IP index holds ready addresses only
                found = True
                svc = self.ix.services.get((slice_.namespace, slice_.service))
                if svc is None:
                    continue
                base = f"{svc.name}.{svc.namespace}.svc.{self.zone_text}"
                if svc.headless:
                    out.extend((f"{_endpoint_hostname(ep)}.{base}", ep.ip)
                               for ep in slice_.endpoints if ep.ready)
                else:
                    out.extend((base, ip) for ip in svc.cluster_ips)
        if not found:
            out = [(f"ns.dns.{self.zone_text}", ip) for ip in self.settings.dns_ips]
        return out


# ------------------------------------------------------------------ helpers


def _parse_request(labels: list[str]) -> _Request | None:
    """parse.go ``parseRequest``; None is an invalid (hence absent) name.

    Right to left below the zone: ``svc|pod``, namespace, service, then one
    label (an endpoint) or two (``_port._protocol``); longer names do not
    exist.
    """
    req = _Request()
    if not labels or labels in (["svc"], ["pod"]):
        return req
    segs = list(labels)
    req.pod_or_svc = segs.pop()
    if req.pod_or_svc not in ("svc", "pod"):
        return None
    req.namespace = segs.pop()
    if segs:
        req.service = segs.pop()
    if len(segs) == 1:
        req.endpoint = segs[0]
    elif len(segs) == 2:
        req.port = segs[0].removeprefix("_")
        req.protocol = segs[1].removeprefix("_")
    elif segs:
        return None
    return req


def _labels(name: dns.name.Name, zone: dns.name.Name) -> list[str]:
    """The labels of ``name`` (lower case) below ``zone``, as text."""
    return [label.decode("ascii", "backslashreplace")
            for label in name.relativize(zone).labels]


def _port_matches(req: _Request, port: PortView) -> bool:
    return ((not req.port or req.port == port.name.lower())
            and (not req.protocol or req.protocol == port.protocol.lower()))


def _endpoint_hostname(ep: EndpointView) -> str:
    """kubernetes.go ``endpointHostname``: the hostname, else the dashed IP."""
    if ep.hostname:
        return ep.hostname
    if "." in ep.ip:
        return ep.ip.replace(".", "-")
    dashed = ep.ip.replace(":", "-")
    return dashed + "0" if dashed.endswith("-") else dashed


def _address_from_reverse(name: dns.name.Name) -> str | None:
    """dnsutil ``ExtractAddressFromReverse``: a full reverse name's address."""
    if not any(name.is_subdomain(z) and name != z for z in REVERSE_ZONES):
        return None
    try:
        return canonical_ip(dns.reversename.to_address(name))
    except (dns.exception.DNSException, ValueError):
        return None


def _host_type(host: str) -> dns.rdatatype.RdataType:
    """msg.Service ``HostType``: A or AAAA for an address, else CNAME."""
    ip = canonical_ip(host)
    if ip is None:
        return _CNAME
    return _AAAA if ":" in ip else _A


def _address_rdata(ip: str) -> dns.rdata.Rdata:
    if _host_type(ip) == _A:
        return _A_RDATA(_IN, _A, ip)
    return _AAAA_RDATA(_IN, _AAAA, ip)


def _cname(owner: dns.name.Name, rec: _Rec) -> dns.rrset.RRset:
    target = dns.name.from_text(rec.host)
    return _rr(owner, rec.ttl, _CNAME_RDATA(_IN, _CNAME, target))


def _txt(text: str) -> dns.rdata.Rdata:
    chunks = [text[i:i + 255].encode() for i in range(0, len(text), 255)] or [b""]
    return _TXT_RDATA(_IN, _TXT, chunks)


def _ptr(host: str) -> dns.rdata.Rdata:
    return _PTR_RDATA(_IN, dns.rdatatype.PTR, dns.name.from_text(host))


def _rr(owner: dns.name.Name, ttl: int, rdata: dns.rdata.Rdata) -> dns.rrset.RRset:
    return dns.rrset.from_rdata(owner, ttl, rdata)
