"""The pod's resolv.conf (kubelet/dns.py): GetPodDNS's policies, dnsConfig
merging and limits, and reading the host's resolv.conf."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minikube_py.kubelet import dns as dnsmod
from minikube_py.kubelet.dns import ClusterDNS, HostResolvConf, pod_dns
from minikube_py.runtime.base import DNSConfig

HOST = HostResolvConf(("192.0.2.53",), ("corp.example",), ("edns0",))
CLUSTER = ClusterDNS(("10.96.0.10",), "cluster.local", HOST)


def pod(policy: str | None = None, config: dict[str, Any] | None = None,
        namespace: str = "shop") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x"}]}
    if policy is not None:
        spec["dnsPolicy"] = policy
    if config is not None:
        spec["dnsConfig"] = config
    return {"metadata": {"name": "p", "namespace": namespace}, "spec": spec}


@pytest.mark.parametrize("policy, cluster, expected", [
    (None, CLUSTER, DNSConfig(("10.96.0.10",), ("shop.svc.cluster.local", "svc.cluster.local",
                                               "cluster.local", "corp.example"), ("ndots:5",))),
    ("ClusterFirst", CLUSTER, DNSConfig(("10.96.0.10",), (
        "shop.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example"),
        ("ndots:5",))),
    ("ClusterFirstWithHostNet", CLUSTER, DNSConfig(("10.96.0.10",), (
        "shop.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example"),
        ("ndots:5",))),
    ("Default", CLUSTER, DNSConfig(("192.0.2.53",), ("corp.example",), ("edns0",))),
    ("None", CLUSTER, DNSConfig((), (), ())),
    # A kubelet without cluster DNS serves ClusterFirst as Default.
    ("ClusterFirst", ClusterDNS((), "cluster.local", HOST),
     DNSConfig(("192.0.2.53",), ("corp.example",), ("edns0",))),
])
def test_policies(policy, cluster, expected):
    assert pod_dns(pod(policy), cluster) == (expected, [])


def test_dns_config_is_merged_without_duplicates_and_options_by_name():
    got, warnings = pod_dns(pod("ClusterFirst", {
        "nameservers": ["10.96.0.10", "1.1.1.1"],
        "searches": ["svc.cluster.local", "my.dns.search.suffix"],
        "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]}), CLUSTER)
    assert got == DNSConfig(("10.96.0.10", "1.1.1.1"),
                            ("shop.svc.cluster.local", "svc.cluster.local", "cluster.local",
                             "corp.example", "my.dns.search.suffix"),
                            ("ndots:2", "edns0"))
    assert warnings == []


def test_none_policy_takes_only_dns_config():
    got, _ = pod_dns(pod("None", {"nameservers": ["203.0.113.1"], "searches": ["a.example"],
                                  "options": [{"name": "timeout", "value": "1"}]}), CLUSTER)
    assert got == DNSConfig(("203.0.113.1",), ("a.example",), ("timeout:1",))


def test_limits_cut_with_the_kubelets_warnings():
    got, warnings = pod_dns(pod("None", {
        "nameservers": ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"],
        "searches": [f"s{i}.example" for i in range(40)]}), CLUSTER)
    assert got.servers == ("10.0.0.1", "10.0.0.2", "10.0.0.3")
    assert len(got.searches) == 32
    assert warnings == [
        "Nameserver limits were exceeded, some nameservers have been omitted, the applied "
        "nameserver line is: 10.0.0.1 10.0.0.2 10.0.0.3",
        "Search Line limits were exceeded, some search paths have been omitted, the applied "
        "search line is: " + " ".join(f"s{i}.example" for i in range(32))]


def test_host_resolv_conf_parsing_and_loopback_stub(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch):
    conf = tmp_path / "resolv.conf"
    conf.write_text("# comment\nnameserver 127.0.0.53\nsearch a.example b.example.\n"
                    "domain ignored.example\nsearch c.example\noptions edns0 trust-ad\n")
    upstream = tmp_path / "upstream.conf"
    upstream.write_text("nameserver 192.0.2.1\nnameserver 192.0.2.2 ; trailing\n")
    monkeypatch.setattr(dnsmod, "SYSTEMD_RESOLV_CONF", upstream)
    assert HostResolvConf.read(conf) == HostResolvConf(
        ("192.0.2.1", "192.0.2.2"), ("c.example",), ("edns0", "trust-ad"))
    upstream.unlink()
    assert HostResolvConf.read(conf).servers == ()
    assert HostResolvConf.read(tmp_path / "missing") == HostResolvConf()
