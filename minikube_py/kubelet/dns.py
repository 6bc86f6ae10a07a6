"""A pod's resolv.conf: the kubelet's ``GetPodDNS`` (pkg/kubelet/network/dns, v1.32).

* ``ClusterFirst`` (the default) and ``ClusterFirstWithHostNet`` (which is
  ClusterFirst for a pod on the pod network; host-network pods are refused
  here): the cluster DNS server as the only nameserver, the search list
  ``<ns>.svc.<domain> svc.<domain> <domain>`` followed by the host's searches
  (duplicates left out), and ``ndots:5``. A kubelet without cluster DNS (hollow
  nodes) falls back to ``Default``, as the kubelet does (it also records a
  ``MissingClusterDNS`` event; hollow nodes have no DNS to miss, so no event).
* ``Default``: the host's resolv.conf (its nameservers, searches and options).
* ``None``: nothing but ``dnsConfig``.
* ``dnsConfig`` is then merged in: nameservers and searches appended without
  duplicates, options merged by name (the pod's value wins).
* Limits as the kubelet's ``formDNSConfigFitsLimits``: at most 3 nameservers
  and 32 search domains of at most 2048 characters together; what is cut is
  reported (the kubelet records a ``DNSConfigForming`` warning event).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..network.dns import parse_resolv_conf
from ..runtime.base import DNSConfig

__all__ = ["ClusterDNS", "HostResolvConf", "PodNetworking", "pod_dns"]

MAX_NAMESERVERS: Final = 3
MAX_SEARCHES: Final = 32
MAX_SEARCH_CHARS: Final = 2048
#: Where systemd-resolved keeps the real upstreams when /etc/resolv.conf points
#: at its stub on 127.0.0.53, which a pod cannot reach (the kubelet's advice too).
SYSTEMD_RESOLV_CONF: Final = Path("/run/systemd/resolve/resolv.conf")


@dataclass(frozen=True)
class HostResolvConf:
    """The host's resolver settings (``nameserver``, ``search``, ``options``)."""

    servers: tuple[str, ...] = ()
    searches: tuple[str, ...] = ()
    options: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> HostResolvConf:
        """resolv.conf's text (read by the cluster DNS's own parser: the last
        ``search``/``domain`` line wins, as in glibc); search domains without
        their trailing dot."""
        conf = parse_resolv_conf(text)
        return cls(tuple(host for host, _ in conf.nameservers),
                   tuple(d.rstrip(".") for d in conf.search if d != "."), conf.options)

    @classmethod
    def read(cls, path: Path = Path("/etc/resolv.conf")) -> HostResolvConf:
        """The host's settings; loopback nameservers (a local stub resolver) are
        replaced by systemd-resolved's upstreams when there are any, else left
        out: a pod cannot reach the host's loopback."""
        try:
            conf = cls.parse(path.read_text())
        except OSError:
            return cls()
        if any(s.startswith("127.") or s == "::1" for s in conf.servers):
            try:
                upstream = cls.parse(SYSTEMD_RESOLV_CONF.read_text())
            except OSError:
                upstream = cls()
            servers = tuple(s for s in (*upstream.servers, *conf.servers)
                            if not s.startswith("127.") and s != "::1")
            conf = cls(servers, conf.searches, conf.options)
        return conf


@dataclass(frozen=True)
class ClusterDNS:
    """The kubelet's ``--cluster-dns`` and ``--cluster-domain``, and the host's resolvers."""

    servers: tuple[str, ...] = ()
    domain: str = "cluster.local"
    host: HostResolvConf = HostResolvConf()


def _unique(items: Sequence[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _merge_options(base: Sequence[str], extra: Sequence[Any]) -> list[str]:
    """``mergeDNSOptions``: by name, the pod's options override the base's."""
    merged: dict[str, str] = {}
    for option in base:
        merged[option.partition(":")[0]] = option
    for option in extra:
        if not isinstance(option, Mapping):
            continue
        name = str(option.get("name") or "")
        if not name:
            continue
        value = option.get("value")
        merged[name] = f"{name}:{value}" if value is not None else name
    return list(merged.values())


def pod_dns(pod: Mapping[str, Any], cluster: ClusterDNS) -> tuple[DNSConfig, list[str]]:
    """The pod's DNS settings and the warnings about what had to be cut."""
    spec = pod.get("spec") or {}
    namespace = str((pod.get("metadata") or {}).get("namespace") or "default")
    policy = str(spec.get("dnsPolicy") or "ClusterFirst")
    host = cluster.host
    servers: list[str]
    searches: list[str]
    options: list[str]
    if policy == "None":
        servers, searches, options = [], [], []
    elif policy in ("ClusterFirst", "ClusterFirstWithHostNet") and cluster.servers:
        servers = list(cluster.servers)
        domain = cluster.domain.rstrip(".")
        searches = _unique([f"{namespace}.svc.{domain}", f"svc.{domain}", domain,
                            *host.searches])
        options = ["ndots:5"]
    else:  # Default, or ClusterFirst without a cluster DNS server
        servers, searches, options = list(host.servers), list(host.searches), \
            list(host.options)
    extra = spec.get("dnsConfig")
    if isinstance(extra, Mapping):
        servers = _unique([*servers, *(str(s) for s in extra.get("nameservers") or [])])
        searches = _unique([*searches, *(str(s) for s in extra.get("searches") or [])])
        options = _merge_options(options, extra.get("options") or [])
    warnings: list[str] = []
    if len(servers) > MAX_NAMESERVERS:
        servers = servers[:MAX_NAMESERVERS]
        warnings.append("Nameserver limits were exceeded, some nameservers have been "
                        f"omitted, the applied nameserver line is: {' '.join(servers)}")
    if len(searches) > MAX_SEARCHES or len(" ".join(searches)) > MAX_SEARCH_CHARS:
        kept: list[str] = []
        for domain in searches[:MAX_SEARCHES]:
            if len(" ".join([*kept, domain])) > MAX_SEARCH_CHARS:
                break
            kept.append(domain)
        searches = kept
        warnings.append("Search Line limits were exceeded, some search paths have been "
                        f"omitted, the applied search line is: {' '.join(searches)}")
    return DNSConfig(tuple(servers), tuple(searches), tuple(options)), warnings


@dataclass(frozen=True)
class PodNetworking:
    """What a kubelet needs to know of the cluster's network for its pods:
    cluster DNS (``None``: hollow nodes, which get no DNS settings at all) and
    where the Services come from (for the service environment variables; the
    control plane shares one informer between every kubelet)."""

    dns: ClusterDNS | None = None
    services: Callable[[], Iterable[Mapping[str, Any]]] = tuple
