"""The Service ruleset built from Services and EndpointSlices (minikube_py.network.proxy).

The table-driven cases compare the per-service part of the generated document
(chains, map elements, sets) with expected rulesets written in nft's own text
syntax. ``render`` groups the JSON document by chain, map and set, writes each
rule and element as ``nft list`` would (:mod:`minikube_py.network.proxy.text`,
whose output the benchmark checks against the kernel), and drops the
8-character hash from chain and set names (``service-ABCDEFGH-ns/name/tcp/port``
-> ``service-ns/name/tcp/port``) so the expectations stay readable; the names
themselves are tested on their own.
The last test has the real ``nft`` check a large document (check mode: nothing
is changed).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from minikube_py.network.proxy import (
    MASQUERADE_MARK,
    Endpoint,
    Nft,
    ProxyState,
    ServicePort,
    build_ruleset,
    from_objects,
)
from minikube_py.network.proxy.rules import INFO_CHAIN, hashed_name
from minikube_py.network.proxy.text import element, expression, statements

POD_CIDR = "10.244.0.0/20"
SERVICE_CIDR = "10.96.0.0/16"
_HASH = re.compile(r"\b(service|external|endpoint|affinity)-[A-Z2-7]{8}-")

# -- the document as nft text -------------------------------------------------------


@dataclass
class View:
    """A document as nft text, hashes dropped from names."""

    chains: dict[str, list[str]] = field(default_factory=dict)
    hooks: dict[str, str] = field(default_factory=dict)
    maps: dict[str, dict[str, str]] = field(default_factory=dict)
    sets: dict[str, str] = field(default_factory=dict)  # name -> declaration
    elements: dict[str, set[str]] = field(default_factory=dict)  # set name -> elements
    head: list[str] = field(default_factory=list)


FIXED_CHAINS = {"filter-input", "filter-forward", "filter-output", "filter-output-post-dnat",
                "nat-prerouting", "nat-output", "nat-postrouting", "services",
                "endpoints-check", "cluster-ips-check", "reject-chain", "mark-for-masquerade",
                "masquerading", INFO_CHAIN}
MAPS = ("service-ips", "service-nodeports", "no-endpoint-services", "no-endpoint-nodeports")


def render(doc: dict[str, Any]) -> View:
    view = View()
    strip = lambda s: _HASH.sub(r"\1-", s)  # noqa: E731
    for cmd in doc["nftables"]:
        ((verb, body),) = cmd.items()
        ((kind, v),) = body.items()
        assert v["family"] == "ip"
        if kind == "table":
            view.head.append(f"{verb} table ip {v['name']}")
        elif kind == "chain":
            name = strip(v["name"])
            assert name not in view.chains, f"chain {name} added twice"
            view.chains[name] = []
            if "hook" in v:
                view.hooks[name] = f"type {v['type']} hook {v['hook']} priority {v['prio']}"
        elif kind == "rule":
            text = statements(v["expr"])
            if "comment" in v:
                text += ' comment "' + v["comment"] + '"'
            view.chains[strip(v["chain"])].append(strip(text))
        elif kind == "map":
            view.maps[v["name"]] = {}
        elif kind == "set":
            decl = f"type {v['type']}"
            if "timeout" in v:
                decl += f" flags {','.join(v['flags'])} timeout {v['timeout']}"
            view.sets[strip(v["name"])] = decl
            view.elements[strip(v["name"])] = set()
        elif kind == "element":
            for item in v["elem"]:
                if v["name"] in view.maps:
                    key, verdict = element(item[0]), expression(item[1])
                    assert key not in view.maps[v["name"]], f"duplicate key {key}"
                    view.maps[v["name"]][key] = strip(verdict)
                else:
                    view.elements[v["name"]].add(element(item))
        else:
            raise AssertionError(f"unexpected {kind}")
    return view


def service_part(view: View) -> dict[str, Any]:
    """What depends on the services: their chains, map elements and sets."""
    return {
        "chains": {k: v for k, v in view.chains.items() if k not in FIXED_CHAINS},
        "maps": {k: v for k, v in view.maps.items() if v},
        "sets": {k: v for k, v in view.sets.items() if k != "cluster-ips"},
        "cluster-ips": view.elements.get("cluster-ips", set()),
    }


# -- objects ---------------------------------------------------------------------------


def svc(name: str, cluster_ip: str | None = "10.96.0.10", *,
        ports: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    status = spec.pop("status", {})
    body: dict[str, Any] = {"ports": ports if ports is not None else
                            [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
                            **spec}
    if cluster_ip is not None:
        body["clusterIP"] = cluster_ip
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default"}, "spec": body, "status": status}


def ep(ip: str, ready: bool | None = True, serving: bool | None = None,
       terminating: bool | None = None) -> dict[str, Any]:
    cond = {k: v for k, v in (("ready", ready), ("serving", serving),
                              ("terminating", terminating)) if v is not None}
    return {"addresses": [ip], "conditions": cond}


def eps(service: str, *endpoints: dict[str, Any], name: str = "", ports: Any = None,
        labelled: bool = True) -> dict[str, Any]:
    labels = {"kubernetes.io/service-name": service} if labelled else {}
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name or f"{service}-x", "namespace": "default",
                         "labels": labels},
            "addressType": "IPv4",
            "ports": ports if ports is not None else [{"name": "http", "port": 8080,
                                                       "protocol": "TCP"}],
            "endpoints": list(endpoints)}


def build(services: list[dict[str, Any]], slices: list[dict[str, Any]],
          masquerade_all: bool = False) -> dict[str, Any]:
    return build_ruleset(ProxyState(table="mk-test", bridge="mktest", pod_cidr=POD_CIDR,
                                    service_cidr=SERVICE_CIDR,
                                    services=from_objects(services, slices),
                                    masquerade_all=masquerade_all, comment="/state/dir"))


# -- expected fragments ----------------------------------------------------------------

MASQ_NOT_POD = "ip daddr {ip} th dport {port} ip saddr != 10.244.0.0/20 jump mark-for-masquerade"
MASQ_ALL = "ip daddr {ip} th dport {port} jump mark-for-masquerade"


def endpoint_chain(base: str, ip: str, port: int, proto: str = "tcp", key: str = "default/web:http",
                   affinity: int = 0) -> dict[str, list[str]]:
    rules = [f"ip saddr {ip} jump mark-for-masquerade"]
    if affinity:
        rules.append(f"update @affinity-{base}__{ip}/{port} {{ ip saddr }}")
    rules.append(f'meta l4proto {proto} dnat to {ip}:{port} comment "{key}"')
    return {f"endpoint-{base}__{ip}/{port}": rules}


def pick(base: str, targets: list[str], key: str = "default/web:http") -> str:
    vmap = ", ".join(f"{i} : goto endpoint-{base}__{t}" for i, t in enumerate(targets))
    return f'numgen random mod {len(targets)} vmap {{ {vmap} }} comment "{key}"'


WEB = "default/web/tcp/http"
THREE = [ep("10.244.0.5"), ep("10.244.0.6"), ep("10.244.0.7")]

CASES: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], bool, dict[str, Any]]] = [
    ("cluster ip, three endpoints", [svc("web")], [eps("web", *THREE)], False, {
        "chains": {
            f"service-{WEB}": [
                "ip daddr 10.96.0.10 th dport 80 ip saddr != 10.244.0.0/20 "
                "jump mark-for-masquerade",
                "numgen random mod 3 vmap { "
                f"0 : goto endpoint-{WEB}__10.244.0.5/8080, "
                f"1 : goto endpoint-{WEB}__10.244.0.6/8080, "
                f'2 : goto endpoint-{WEB}__10.244.0.7/8080 }} comment "default/web:http"'],
            f"endpoint-{WEB}__10.244.0.5/8080": [
                "ip saddr 10.244.0.5 jump mark-for-masquerade",
                'meta l4proto tcp dnat to 10.244.0.5:8080 comment "default/web:http"'],
            f"endpoint-{WEB}__10.244.0.6/8080": [
                "ip saddr 10.244.0.6 jump mark-for-masquerade",
                'meta l4proto tcp dnat to 10.244.0.6:8080 comment "default/web:http"'],
            f"endpoint-{WEB}__10.244.0.7/8080": [
                "ip saddr 10.244.0.7 jump mark-for-masquerade",
                'meta l4proto tcp dnat to 10.244.0.7:8080 comment "default/web:http"'],
        },
        "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"}},
        "sets": {},
        "cluster-ips": {"10.96.0.10"},
    }),
    ("named targetPort resolved through the slice's port name",
     [svc("web", ports=[{"name": "http", "port": 80, "targetPort": "web-http"},
                        {"name": "admin", "port": 81, "targetPort": "admin"}])],
     [eps("web", ep("10.244.0.5"), ports=[{"name": "admin", "port": 9090, "protocol": "TCP"},
                                          {"name": "http", "port": 8080, "protocol": "TCP"}])],
     False, {
         "chains": {
             f"service-{WEB}": [MASQ_NOT_POD.format(ip="10.96.0.10", port=80),
                                pick(WEB, ["10.244.0.5/8080"])],
             **endpoint_chain(WEB, "10.244.0.5", 8080),
             "service-default/web/tcp/admin": [
                 MASQ_NOT_POD.format(ip="10.96.0.10", port=81),
                 pick("default/web/tcp/admin", ["10.244.0.5/9090"], key="default/web:admin")],
             **endpoint_chain("default/web/tcp/admin", "10.244.0.5", 9090, key="default/web:admin"),
         },
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}",
                                  "10.96.0.10 . tcp . 81": "goto service-default/web/tcp/admin"}},
         "sets": {},
         "cluster-ips": {"10.96.0.10"},
     }),
    ("not-ready endpoints left out",
     [svc("web")], [eps("web", ep("10.244.0.5"), ep("10.244.0.6", ready=False),
                        ep("10.244.0.7", ready=False, serving=True, terminating=True))], False, {
         "chains": {f"service-{WEB}": [MASQ_NOT_POD.format(ip="10.96.0.10", port=80),
                                       pick(WEB, ["10.244.0.5/8080"])],
                    **endpoint_chain(WEB, "10.244.0.5", 8080)},
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
     }),
    ("only serving-terminating endpoints when none is ready",
     [svc("web")], [eps("web", ep("10.244.0.5", ready=False, serving=False, terminating=True),
                        ep("10.244.0.6", ready=False, serving=True, terminating=True),
                        ep("10.244.0.7", ready=False))], False, {
         "chains": {f"service-{WEB}": [MASQ_NOT_POD.format(ip="10.96.0.10", port=80),
                                       pick(WEB, ["10.244.0.6/8080"])],
                    **endpoint_chain(WEB, "10.244.0.6", 8080)},
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
     }),
    ("no endpoints: reject entries", [svc("web", type="NodePort", ports=[
        {"name": "http", "port": 80, "nodePort": 30080}])], [eps("web")], False, {
         "chains": {},
         "maps": {"no-endpoint-services": {
                      '10.96.0.10 . tcp . 80 comment "default/web:http"': "goto reject-chain"},
                  "no-endpoint-nodeports": {
                      'tcp . 30080 comment "default/web:http"': "goto reject-chain"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
     }),
    ("headless and ExternalName: nothing",
     [svc("headless", cluster_ip="None"),
      svc("ext", cluster_ip=None, type="ExternalName", externalName="example.com"),
      svc("pending", cluster_ip="")],
     [eps("headless", ep("10.244.0.5"))], False,
     {"chains": {}, "maps": {}, "sets": {}, "cluster-ips": set()}),
    ("NodePort", [svc("web", type="NodePort", ports=[
        {"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP"}])],
     [eps("web", ep("10.244.0.5"))], False, {
         "chains": {
             f"service-{WEB}": [MASQ_NOT_POD.format(ip="10.96.0.10", port=80),
                                pick(WEB, ["10.244.0.5/8080"])],
             f"external-{WEB}": ["jump mark-for-masquerade", f"goto service-{WEB}"],
             **endpoint_chain(WEB, "10.244.0.5", 8080)},
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"},
                  "service-nodeports": {"tcp . 30080": f"goto external-{WEB}"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
     }),
    ("LoadBalancer ingress IP and externalIPs",
     [svc("web", type="LoadBalancer", externalIPs=["192.168.1.50"],
          ports=[{"name": "http", "port": 80, "nodePort": 30080}],
          status={"loadBalancer": {"ingress": [{"ip": "127.0.0.1"},
                                               {"hostname": "lb.example"},
                                               {"ip": "10.1.2.3", "ipMode": "Proxy"}]}})],
     [eps("web", ep("10.244.0.5"))], False, {
         "chains": {
             f"service-{WEB}": [MASQ_NOT_POD.format(ip="10.96.0.10", port=80),
                                pick(WEB, ["10.244.0.5/8080"])],
             f"external-{WEB}": ["jump mark-for-masquerade", f"goto service-{WEB}"],
             **endpoint_chain(WEB, "10.244.0.5", 8080)},
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}",
                                  "127.0.0.1 . tcp . 80": f"goto external-{WEB}",
                                  "192.168.1.50 . tcp . 80": f"goto external-{WEB}"},
                  "service-nodeports": {"tcp . 30080": f"goto external-{WEB}"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
     }),
    ("ClientIP affinity",
     [svc("web", sessionAffinity="ClientIP",
          sessionAffinityConfig={"clientIP": {"timeoutSeconds": 60}})],
     [eps("web", ep("10.244.0.5"), ep("10.244.0.6"))], False, {
         "chains": {
             f"service-{WEB}": [
                 MASQ_NOT_POD.format(ip="10.96.0.10", port=80),
                 f"ip saddr @affinity-{WEB}__10.244.0.5/8080 goto endpoint-{WEB}__10.244.0.5/8080",
                 f"ip saddr @affinity-{WEB}__10.244.0.6/8080 goto endpoint-{WEB}__10.244.0.6/8080",
                 pick(WEB, ["10.244.0.5/8080", "10.244.0.6/8080"])],
             **endpoint_chain(WEB, "10.244.0.5", 8080, affinity=60),
             **endpoint_chain(WEB, "10.244.0.6", 8080, affinity=60)},
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"}},
         "sets": {f"affinity-{WEB}__10.244.0.5/8080": "type ipv4_addr flags timeout timeout 60",
                  f"affinity-{WEB}__10.244.0.6/8080": "type ipv4_addr flags timeout timeout 60"},
         "cluster-ips": {"10.96.0.10"},
     }),
    ("UDP and TCP ports of one service",
     [svc("dns", cluster_ip="10.96.0.53",
          ports=[{"name": "dns", "port": 53, "protocol": "UDP"},
                 {"name": "dns-tcp", "port": 53, "protocol": "TCP"}])],
     [eps("dns", ep("10.244.0.9"), ports=[{"name": "dns", "port": 5353, "protocol": "UDP"},
                                          {"name": "dns-tcp", "port": 5353, "protocol": "TCP"}])],
     False, {
         "chains": {
             "service-default/dns/tcp/dns-tcp": [
                 MASQ_NOT_POD.format(ip="10.96.0.53", port=53),
                 pick("default/dns/tcp/dns-tcp", ["10.244.0.9/5353"], key="default/dns:dns-tcp")],
             **endpoint_chain("default/dns/tcp/dns-tcp", "10.244.0.9", 5353,
                              key="default/dns:dns-tcp"),
             "service-default/dns/udp/dns": [
                 MASQ_NOT_POD.format(ip="10.96.0.53", port=53),
                 pick("default/dns/udp/dns", ["10.244.0.9/5353"], key="default/dns:dns")],
             **endpoint_chain("default/dns/udp/dns", "10.244.0.9", 5353, proto="udp",
                              key="default/dns:dns")},
         "maps": {"service-ips": {"10.96.0.53 . tcp . 53": "goto service-default/dns/tcp/dns-tcp",
                                  "10.96.0.53 . udp . 53": "goto service-default/dns/udp/dns"}},
         "sets": {}, "cluster-ips": {"10.96.0.53"},
     }),
    ("masquerade_all", [svc("web")], [eps("web", ep("10.244.0.5"))], True, {
        "chains": {f"service-{WEB}": [MASQ_ALL.format(ip="10.96.0.10", port=80),
                                      pick(WEB, ["10.244.0.5/8080"])],
                   **endpoint_chain(WEB, "10.244.0.5", 8080)},
        "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"}},
        "sets": {}, "cluster-ips": {"10.96.0.10"},
    }),
    ("two slices of one service merged",
     [svc("web")], [eps("web", ep("10.244.0.6"), name="web-a"),
                    eps("web", ep("10.244.0.5"), ep("10.244.0.6"), name="web-b")], False, {
         "chains": {f"service-{WEB}": [MASQ_NOT_POD.format(ip="10.96.0.10", port=80),
                                       pick(WEB, ["10.244.0.5/8080", "10.244.0.6/8080"])],
                    **endpoint_chain(WEB, "10.244.0.5", 8080),
                    **endpoint_chain(WEB, "10.244.0.6", 8080)},
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
     }),
    ("a slice without the service-name label ignored",
     [svc("web")], [eps("web", ep("10.244.0.5"), labelled=False),
                    eps("web", ep("10.244.0.6"), name="web-b")], False, {
         "chains": {f"service-{WEB}": [MASQ_NOT_POD.format(ip="10.96.0.10", port=80),
                                       pick(WEB, ["10.244.0.6/8080"])],
                    **endpoint_chain(WEB, "10.244.0.6", 8080)},
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
     }),
    ("slice port matched by name and protocol, not by number",
     [svc("web", ports=[{"name": "http", "port": 80}])],
     [eps("web", ep("10.244.0.5"), ports=[{"name": "other", "port": 8080, "protocol": "TCP"},
                                          {"name": "http", "port": 8080, "protocol": "UDP"}])],
     False, {
         "chains": {},
         "maps": {"no-endpoint-services": {
             '10.96.0.10 . tcp . 80 comment "default/web:http"': "goto reject-chain"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
     }),
]


@pytest.mark.parametrize(("services", "slices", "masquerade_all", "expected"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_service_rules(services: list[dict[str, Any]], slices: list[dict[str, Any]],
                       masquerade_all: bool, expected: dict[str, Any]) -> None:
    assert service_part(render(build(services, slices, masquerade_all))) == expected


# -- the fixed part of the table ----------------------------------------------------------


def test_document_replaces_the_table_and_hooks_every_chain() -> None:
    view = render(build([], []))
    assert view.head == ["add table ip mk-test", "delete table ip mk-test", "add table ip mk-test"]
    assert view.hooks == {
        "filter-input": "type filter hook input priority -110",
        "filter-forward": "type filter hook forward priority -110",
        "filter-output": "type filter hook output priority -110",
        "filter-output-post-dnat": "type filter hook output priority -90",
        "nat-prerouting": "type nat hook prerouting priority -100",
        "nat-output": "type nat hook output priority -100",
        "nat-postrouting": "type nat hook postrouting priority 100",
    }
    mark = f"{MASQUERADE_MARK:#x}"
    assert {k: v for k, v in view.chains.items() if k in FIXED_CHAINS} == {
        "filter-input": ['iifname "mktest" ct state new jump endpoints-check'],
        "filter-forward": ['iifname "mktest" ct state new jump endpoints-check',
                           'iifname "mktest" ct state new jump cluster-ips-check'],
        "filter-output": ["ct state new jump endpoints-check"],
        "filter-output-post-dnat": ["ct state new jump cluster-ips-check"],
        "nat-prerouting": ['iifname "mktest" jump services'],
        "nat-output": ["jump services"],
        "nat-postrouting": ["jump masquerading"],
        "services": ["ip daddr . meta l4proto . th dport vmap @service-ips",
                     "fib daddr type local meta l4proto . th dport vmap @service-nodeports"],
        "endpoints-check": [
            "ip daddr . meta l4proto . th dport vmap @no-endpoint-services",
            "fib daddr type local meta l4proto . th dport vmap @no-endpoint-nodeports"],
        "cluster-ips-check": [
            'ip daddr @cluster-ips reject comment "undefined port of a ClusterIP"',
            'ip daddr 10.96.0.0/16 reject comment "unallocated ClusterIP"'],
        "reject-chain": ["reject"],
        "mark-for-masquerade": [f"meta mark set meta mark | {mark}"],
        "masquerading": [f"meta mark & {mark} == 0 return", f"meta mark set meta mark ^ {mark}",
                         "masquerade fully-random"],
        INFO_CHAIN: ['return comment "/state/dir"'],
    }
    assert set(view.maps) == set(MAPS)


def test_every_command_names_only_its_own_table() -> None:
    doc = build([svc("web", type="NodePort", ports=[{"name": "http", "port": 80,
                                                     "nodePort": 30080}])],
                [eps("web", *THREE)])
    for cmd in doc["nftables"]:
        ((_, body),) = cmd.items()
        ((_, v),) = body.items()
        assert v.get("table", v.get("name")) == "mk-test", cmd
        assert v["family"] == "ip"


def test_same_objects_in_any_order_give_the_same_document() -> None:
    services = [svc(f"s{i}", cluster_ip=f"10.96.1.{i}") for i in range(5)]
    slices = [eps(f"s{i}", ep(f"10.244.1.{i}"), ep(f"10.244.2.{i}")) for i in range(5)]
    first = json.dumps(build(services, slices))
    rng = random.Random(7)
    for _ in range(3):
        rng.shuffle(services)
        rng.shuffle(slices)
        for s in slices:
            rng.shuffle(s["endpoints"])
        assert json.dumps(build(services, slices)) == first


def test_an_address_and_port_claimed_twice_goes_to_the_first_service() -> None:
    lb = {"loadBalancer": {"ingress": [{"ip": "127.0.0.1"}]}}
    services = [svc("a", cluster_ip="10.96.0.1", type="LoadBalancer", status=lb,
                    ports=[{"name": "http", "port": 80, "nodePort": 30080}]),
                svc("b", cluster_ip="10.96.0.2", type="LoadBalancer", status=lb,
                    ports=[{"name": "http", "port": 80, "nodePort": 30080}])]
    maps = render(build(services, [eps("a", ep("10.244.0.5"))])).maps
    assert maps["service-ips"] == {"10.96.0.1 . tcp . 80": "goto service-default/a/tcp/http",
                                   "127.0.0.1 . tcp . 80": "goto external-default/a/tcp/http"}
    # b has no endpoints: its ClusterIP is refused, the shared keys stay a's.
    assert maps["no-endpoint-services"] == {
        '10.96.0.2 . tcp . 80 comment "default/b:http"': "goto reject-chain"}
    assert maps["service-nodeports"] == {"tcp . 30080": "goto external-default/a/tcp/http"}
    assert maps["no-endpoint-nodeports"] == {}


def test_default_affinity_timeout_and_affinity_without_endpoints() -> None:
    (sp,) = from_objects([svc("web", sessionAffinity="ClientIP")], [])
    assert sp.affinity_timeout == 10800
    assert service_part(render(build([svc("web", sessionAffinity="ClientIP")], [])))["sets"] == {}


def test_model_keeps_ports_addresses_and_policies() -> None:
    (sp,) = from_objects(
        [svc("web", type="LoadBalancer", externalTrafficPolicy="Local",
             externalIPs=["192.168.1.5", "fe80::1", "192.168.1.5"],
             ports=[{"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP"}],
             status={"loadBalancer": {"ingress": [{"ip": "127.0.0.1"}]}})],
        [eps("web", ep("10.244.0.7"), ep("10.244.0.5"), ep("fe80::2"))])
    assert sp == ServicePort(
        namespace="default", name="web", port_name="http", protocol="tcp",
        cluster_ip="10.96.0.10", port=80, node_port=30080, load_balancer_ips=("127.0.0.1",),
        external_ips=("192.168.1.5",), affinity_timeout=0,
        endpoints=(Endpoint("10.244.0.5", 8080), Endpoint("10.244.0.7", 8080)))
    assert sp.key == "default/web:http"
    # A ClusterIP service's nodePort (left over from a type change) is not a NodePort.
    (plain,) = from_objects([svc("web", ports=[{"name": "http", "port": 80, "nodePort": 30080}])],
                            [])
    assert plain.node_port == 0


def test_chain_names_are_stable_short_and_distinct() -> None:
    a = hashed_name("endpoint-", f"{WEB}__10.244.0.5/8080")
    assert a == hashed_name("endpoint-", f"{WEB}__10.244.0.5/8080")
    assert re.fullmatch(r"endpoint-[A-Z2-7]{8}-default/web/tcp/http__10\.244\.0\.5/8080", a)
    assert a[9:17] != hashed_name("endpoint-", f"{WEB}__10.244.0.6/8080")[9:17]
    assert hashed_name("affinity-", "x", salt="@60") != hashed_name("affinity-", "x", salt="@61")
    long = hashed_name("endpoint-", "n" * 63 + "/" + "s" * 63 + "/tcp/" + "p" * 300)
    assert len(long) <= 255 and long.endswith("...")


def test_owner_comment_too_long_is_refused() -> None:
    with pytest.raises(ValueError):
        build_ruleset(ProxyState(table="t", bridge="b", pod_cidr=POD_CIDR,
                                 service_cidr=SERVICE_CIDR, comment="/" * 251))


def test_affinity_carry_over_keeps_live_entries_only() -> None:
    class Listed(Nft):
        def _run(self, args: list[str], stdin: str | None = None) -> str:
            assert args == ["-j", "list", "sets", "table", "ip", "mk-test"]
            return json.dumps({"nftables": [
                {"metainfo": {}},
                {"set": {"name": "affinity-KEEP", "table": "mk-test", "elem": [
                    {"elem": {"val": "10.244.0.9", "timeout": 60, "expires": 42}},
                    {"elem": {"val": "10.244.0.8", "timeout": 60, "expires": 0}}]}},
                {"set": {"name": "affinity-GONE", "table": "mk-test", "elem": [
                    {"elem": {"val": "10.244.0.7", "timeout": 60, "expires": 50}}]}},
                {"set": {"name": "cluster-ips", "table": "mk-test", "elem": ["10.96.0.1"]}}]})

    commands = [{"add": {"set": {"family": "ip", "table": "mk-test", "name": "affinity-KEEP",
                                 "type": "ipv4_addr", "flags": ["timeout"], "timeout": 60}}}]
    assert Listed()._affinity_carry_over(commands) == [
        {"add": {"element": {"family": "ip", "table": "mk-test", "name": "affinity-KEEP",
                             "elem": [{"elem": {"val": "10.244.0.9", "timeout": 42}}]}}}]


# -- the real nft accepts it -------------------------------------------------------------


def random_state(rng: random.Random, services: int) -> ProxyState:
    svcs, slices = [], []
    for i in range(services):
        kind = rng.choice(["ClusterIP", "NodePort", "LoadBalancer"])
        ports = [{"name": f"p{j}", "port": 80 + j, "protocol": rng.choice(["TCP", "UDP", "SCTP"]),
                  "nodePort": 30000 + i * 3 + j} for j in range(rng.randint(1, 3))]
        spec: dict[str, Any] = {"type": kind}
        if rng.random() < 0.2:
            spec["sessionAffinity"] = "ClientIP"
        if rng.random() < 0.1:
            spec["externalIPs"] = [f"192.168.{i % 256}.{rng.randint(1, 254)}"]
        status = {"loadBalancer": {"ingress": [{"ip": "127.0.0.1"}]}}
        svcs.append(svc(f"svc-{i}", cluster_ip=f"10.96.{i // 256}.{i % 256}", ports=ports,
                        status=status, **spec))
        conditions = [dict(ready=True), dict(ready=False),
                      dict(ready=False, serving=True, terminating=True)]
        endpoints = [ep(f"10.244.{rng.randint(0, 15)}.{rng.randint(2, 254)}",
                        **rng.choice(conditions)) for _ in range(rng.randint(0, 12))]
        slices.append(eps(f"svc-{i}", *endpoints, ports=[
            {"name": p["name"], "port": 8000 + rng.randint(0, 99), "protocol": p["protocol"]}
            for p in ports]))
    return ProxyState(table="minikube-py-unit-check", bridge="mkunit0", pod_cidr=POD_CIDR,
                      service_cidr=SERVICE_CIDR, services=from_objects(svcs, slices),
                      masquerade_all=rng.random() < 0.5, comment="/var/lib/minikube-py/unit")


def test_nft_check_mode_accepts_a_large_random_document() -> None:
    nft = Nft()
    reason = nft.available()
    assert reason is None, reason
    doc = build_ruleset(random_state(random.Random(1234), 300))
    assert sum("rule" in c.get("add", {}) for c in doc["nftables"]) > 1000
    nft.check(doc)  # raises NftError with nft's message if the kernel refuses it
