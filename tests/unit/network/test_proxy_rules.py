"""The Service ruleset built from Services and EndpointSlices (minikube_py.network.proxy).

The table-driven cases compare the per-service part of the generated document
(chains, map elements, sets) with expected rulesets written in nft's own text
syntax. ``render`` groups the JSON document by chain, map and set, writes each
rule and element as ``nft list`` would (:mod:`minikube_py.network.proxy.text`,
the renderer :class:`Nft` applies documents with), and drops the 8-character
hash from chain and set names (``service-ABCDEFGH-ns/name/tcp/port`` ->
``service-ns/name/tcp/port``) so the expectations stay readable; the names
themselves are tested on their own. An endpoint pick through a shared map
(``numgen random mod N offset K map @endpoints-C``) is shown resolved, as the
anonymous map it stands for (``numgen random mod N map { 0 : ip . port, ... }``):
the cases say which endpoints a service port picks from, and
``test_endpoint_maps_are_shared_by_up_to_64_service_ports`` how the shared
maps are laid out.
How documents are applied is tested in test_proxy_apply.py; the last test here
has the real ``nft`` check a large document (check mode: nothing is changed).
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
from minikube_py.network.proxy.rules import ENDPOINT_MAP_PORTS, INFO_CHAIN, hashed_name
from minikube_py.network.proxy.text import element, expression, statements, to_text

POD_CIDR = "10.244.0.0/20"
SERVICE_CIDR = "10.96.0.0/16"
_HASH = re.compile(r"\b(service|external|endpoint|affinity)-[A-Z2-7]{8}-")

# -- the document as nft text -------------------------------------------------------


@dataclass
class View:
    """A document as nft text, hashes dropped from names, shared picks resolved."""

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
FIXED_SETS = ("cluster-ips", "hairpin")


def shared_maps(doc: dict[str, Any]) -> dict[str, dict[int, Any]]:
    """The elements of the ``endpoints-C`` maps, by map and key."""
    out: dict[str, dict[int, Any]] = {}
    for cmd in doc["nftables"]:
        body = cmd.get("add", {})
        if "map" in body and body["map"]["name"].startswith("endpoints-"):
            out[body["map"]["name"]] = {}
        elif "element" in body and body["element"]["name"] in out:
            out[body["element"]["name"]].update((k, v) for k, v in body["element"]["elem"])
    return out


def resolve(expr: list[Any], maps: dict[str, dict[int, Any]]) -> list[Any]:
    """``expr`` with a pick through a shared map written as its anonymous map."""
    out = []
    for e in expr:
        target = e.get("dnat", {}).get("addr") if isinstance(e, dict) else None
        if isinstance(target, dict) and isinstance(target["map"]["data"], str):
            numgen = target["map"]["key"]["numgen"]
            slots = maps[target["map"]["data"][1:]]
            picks = [[i, slots[numgen["offset"] + i]] for i in range(numgen["mod"])]
            e = {"dnat": {"family": "ip", "addr": {"map": {
                "key": {"numgen": {**numgen, "offset": 0}}, "data": {"set": picks}}}}}
        out.append(e)
    return out


def render(doc: dict[str, Any]) -> View:
    view = View()
    strip = lambda s: _HASH.sub(r"\1-", s)  # noqa: E731
    maps = shared_maps(doc)
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
            text = statements(resolve(v["expr"], maps))
            if "comment" in v:
                text += ' comment "' + v["comment"] + '"'
            view.chains[strip(v["chain"])].append(strip(text))
        elif kind == "map":
            if v["name"] not in maps:
                view.maps[v["name"]] = {}
        elif kind == "set":
            decl = f"type {v['type']}"
            if "timeout" in v:
                decl += f" flags {','.join(v['flags'])} timeout {v['timeout']}"
            view.sets[strip(v["name"])] = decl
            view.elements[strip(v["name"])] = set()
        elif kind == "element" and v["name"] in maps:
            continue
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
        "sets": {k: v for k, v in view.sets.items() if k not in FIXED_SETS},
        "cluster-ips": view.elements.get("cluster-ips", set()),
        "hairpin": view.elements.get("hairpin", set()),
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


def pick(targets: list[str], proto: str = "tcp", key: str = "default/web:http") -> str:
    """The rule DNATing to one of ``targets`` (``ip/port``) at random."""
    if len(targets) == 1:
        ip, port = targets[0].split("/")
        return f'meta l4proto {proto} dnat to {ip}:{port} comment "{key}"'
    slots = ", ".join(f"{i} : {t.replace('/', ' . ')}" for i, t in enumerate(targets))
    return (f"meta l4proto {proto} dnat ip to numgen random mod {len(targets)} map "
            f'{{ {slots} }} comment "{key}"')


def hairpin(*ips: str) -> set[str]:
    return {f"{ip} . {ip}" for ip in ips}


def endpoint_chain(base: str, ip: str, port: int, timeout: int, proto: str = "tcp",
                   key: str = "default/web:http") -> dict[str, list[str]]:
    """An affinity endpoint's chain: remember the client, DNAT."""
    return {f"endpoint-{base}__{ip}/{port}": [
        f"update @affinity-{base}__{ip}/{port} {{ ip saddr }}",
        f'meta l4proto {proto} dnat to {ip}:{port} comment "{key}"']}


WEB = "default/web/tcp/http"
THREE = [ep("10.244.0.5"), ep("10.244.0.6"), ep("10.244.0.7")]
TO_WEB = {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}"}}

CASES: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], bool, dict[str, Any]]] = [
    ("cluster ip, three endpoints", [svc("web")], [eps("web", *THREE)], False, {
        "chains": {f"service-{WEB}": [
            "meta l4proto tcp dnat ip to numgen random mod 3 map { "
            "0 : 10.244.0.5 . 8080, 1 : 10.244.0.6 . 8080, 2 : 10.244.0.7 . 8080 } "
            'comment "default/web:http"']},
        "maps": TO_WEB,
        "sets": {},
        "cluster-ips": {"10.96.0.10"},
        "hairpin": hairpin("10.244.0.5", "10.244.0.6", "10.244.0.7"),
    }),
    ("one endpoint: DNAT without a map", [svc("web")], [eps("web", ep("10.244.0.5"))], False, {
        "chains": {f"service-{WEB}": ['meta l4proto tcp dnat to 10.244.0.5:8080 '
                                      'comment "default/web:http"']},
        "maps": TO_WEB, "sets": {}, "cluster-ips": {"10.96.0.10"},
        "hairpin": hairpin("10.244.0.5"),
    }),
    ("named targetPort resolved through the slice's port name",
     [svc("web", ports=[{"name": "http", "port": 80, "targetPort": "web-http"},
                        {"name": "admin", "port": 81, "targetPort": "admin"}])],
     [eps("web", ep("10.244.0.5"), ep("10.244.0.6"),
          ports=[{"name": "admin", "port": 9090, "protocol": "TCP"},
                 {"name": "http", "port": 8080, "protocol": "TCP"}])],
     False, {
         "chains": {
             f"service-{WEB}": [pick(["10.244.0.5/8080", "10.244.0.6/8080"])],
             "service-default/web/tcp/admin": [
                 pick(["10.244.0.5/9090", "10.244.0.6/9090"], key="default/web:admin")],
         },
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}",
                                  "10.96.0.10 . tcp . 81": "goto service-default/web/tcp/admin"}},
         "sets": {},
         "cluster-ips": {"10.96.0.10"},
         "hairpin": hairpin("10.244.0.5", "10.244.0.6"),
     }),
    ("not-ready endpoints left out",
     [svc("web")], [eps("web", ep("10.244.0.5"), ep("10.244.0.6", ready=False),
                        ep("10.244.0.7", ready=False, serving=True, terminating=True))], False, {
         "chains": {f"service-{WEB}": [pick(["10.244.0.5/8080"])]},
         "maps": TO_WEB, "sets": {}, "cluster-ips": {"10.96.0.10"},
         "hairpin": hairpin("10.244.0.5"),
     }),
    ("only serving-terminating endpoints when none is ready",
     [svc("web")], [eps("web", ep("10.244.0.5", ready=False, serving=False, terminating=True),
                        ep("10.244.0.6", ready=False, serving=True, terminating=True),
                        ep("10.244.0.7", ready=False))], False, {
         "chains": {f"service-{WEB}": [pick(["10.244.0.6/8080"])]},
         "maps": TO_WEB, "sets": {}, "cluster-ips": {"10.96.0.10"},
         "hairpin": hairpin("10.244.0.6"),
     }),
    ("no endpoints: reject entries", [svc("web", type="NodePort", ports=[
        {"name": "http", "port": 80, "nodePort": 30080}])], [eps("web")], False, {
         "chains": {},
         "maps": {"no-endpoint-services": {
                      '10.96.0.10 . tcp . 80 comment "default/web:http"': "goto reject-chain"},
                  "no-endpoint-nodeports": {
                      'tcp . 30080 comment "default/web:http"': "goto reject-chain"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"}, "hairpin": set(),
     }),
    ("headless and ExternalName: nothing",
     [svc("headless", cluster_ip="None"),
      svc("ext", cluster_ip=None, type="ExternalName", externalName="example.com"),
      svc("pending", cluster_ip="")],
     [eps("headless", ep("10.244.0.5"))], False,
     {"chains": {}, "maps": {}, "sets": {}, "cluster-ips": set(), "hairpin": set()}),
    ("NodePort", [svc("web", type="NodePort", ports=[
        {"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP"}])],
     [eps("web", *THREE)], False, {
         "chains": {
             f"service-{WEB}": [pick(["10.244.0.5/8080", "10.244.0.6/8080", "10.244.0.7/8080"])],
             f"external-{WEB}": ["jump mark-for-masquerade", f"goto service-{WEB}"]},
         "maps": {**TO_WEB, "service-nodeports": {"tcp . 30080": f"goto external-{WEB}"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"},
         "hairpin": hairpin("10.244.0.5", "10.244.0.6", "10.244.0.7"),
     }),
    ("LoadBalancer ingress IP and externalIPs",
     [svc("web", type="LoadBalancer", externalIPs=["192.168.1.50"],
          ports=[{"name": "http", "port": 80, "nodePort": 30080}],
          status={"loadBalancer": {"ingress": [{"ip": "127.0.0.1"},
                                               {"hostname": "lb.example"},
                                               {"ip": "10.1.2.3", "ipMode": "Proxy"}]}})],
     [eps("web", ep("10.244.0.5"))], False, {
         "chains": {
             f"service-{WEB}": [pick(["10.244.0.5/8080"])],
             f"external-{WEB}": ["jump mark-for-masquerade", f"goto service-{WEB}"]},
         "maps": {"service-ips": {"10.96.0.10 . tcp . 80": f"goto service-{WEB}",
                                  "127.0.0.1 . tcp . 80": f"goto external-{WEB}",
                                  "192.168.1.50 . tcp . 80": f"goto external-{WEB}"},
                  "service-nodeports": {"tcp . 30080": f"goto external-{WEB}"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"}, "hairpin": hairpin("10.244.0.5"),
     }),
    ("ClientIP affinity: per-endpoint chains and sets",
     [svc("web", sessionAffinity="ClientIP",
          sessionAffinityConfig={"clientIP": {"timeoutSeconds": 60}})],
     [eps("web", ep("10.244.0.5"), ep("10.244.0.6"))], False, {
         "chains": {
             f"service-{WEB}": [
                 f"ip saddr @affinity-{WEB}__10.244.0.5/8080 goto endpoint-{WEB}__10.244.0.5/8080",
                 f"ip saddr @affinity-{WEB}__10.244.0.6/8080 goto endpoint-{WEB}__10.244.0.6/8080",
                 f"numgen random mod 2 vmap {{ 0 : goto endpoint-{WEB}__10.244.0.5/8080, "
                 f'1 : goto endpoint-{WEB}__10.244.0.6/8080 }} comment "default/web:http"'],
             **endpoint_chain(WEB, "10.244.0.5", 8080, 60),
             **endpoint_chain(WEB, "10.244.0.6", 8080, 60)},
         "maps": TO_WEB,
         "sets": {f"affinity-{WEB}__10.244.0.5/8080": "type ipv4_addr flags timeout timeout 60",
                  f"affinity-{WEB}__10.244.0.6/8080": "type ipv4_addr flags timeout timeout 60"},
         "cluster-ips": {"10.96.0.10"}, "hairpin": hairpin("10.244.0.5", "10.244.0.6"),
     }),
    ("UDP and TCP ports of one service",
     [svc("dns", cluster_ip="10.96.0.53",
          ports=[{"name": "dns", "port": 53, "protocol": "UDP"},
                 {"name": "dns-tcp", "port": 53, "protocol": "TCP"}])],
     [eps("dns", ep("10.244.0.9"), ep("10.244.0.10"),
          ports=[{"name": "dns", "port": 5353, "protocol": "UDP"},
                 {"name": "dns-tcp", "port": 5353, "protocol": "TCP"}])],
     False, {
         "chains": {
             "service-default/dns/tcp/dns-tcp": [pick(["10.244.0.9/5353", "10.244.0.10/5353"],
                                                      key="default/dns:dns-tcp")],
             "service-default/dns/udp/dns": [pick(["10.244.0.9/5353", "10.244.0.10/5353"],
                                                  proto="udp", key="default/dns:dns")]},
         "maps": {"service-ips": {"10.96.0.53 . tcp . 53": "goto service-default/dns/tcp/dns-tcp",
                                  "10.96.0.53 . udp . 53": "goto service-default/dns/udp/dns"}},
         "sets": {}, "cluster-ips": {"10.96.0.53"}, "hairpin": hairpin("10.244.0.9", "10.244.0.10"),
     }),
    ("masquerade_all changes no service chain (the rule is in services)",
     [svc("web")], [eps("web", ep("10.244.0.5"))], True, {
         "chains": {f"service-{WEB}": [pick(["10.244.0.5/8080"])]},
         "maps": TO_WEB, "sets": {}, "cluster-ips": {"10.96.0.10"},
         "hairpin": hairpin("10.244.0.5"),
     }),
    ("two slices of one service merged",
     [svc("web")], [eps("web", ep("10.244.0.6"), name="web-a"),
                    eps("web", ep("10.244.0.5"), ep("10.244.0.6"), name="web-b")], False, {
         "chains": {f"service-{WEB}": [pick(["10.244.0.5/8080", "10.244.0.6/8080"])]},
         "maps": TO_WEB, "sets": {}, "cluster-ips": {"10.96.0.10"},
         "hairpin": hairpin("10.244.0.5", "10.244.0.6"),
     }),
    ("an endpoint of two services is one hairpin pair",
     [svc("web"), svc("api", cluster_ip="10.96.0.11")],
     [eps("web", ep("10.244.0.5")), eps("api", ep("10.244.0.5"), ep("10.244.0.6"))], False, {
         "chains": {f"service-{WEB}": [pick(["10.244.0.5/8080"])],
                    "service-default/api/tcp/http": [
                        pick(["10.244.0.5/8080", "10.244.0.6/8080"], key="default/api:http")]},
         "maps": {"service-ips": {
             "10.96.0.10 . tcp . 80": f"goto service-{WEB}",
             "10.96.0.11 . tcp . 80": "goto service-default/api/tcp/http"}},
         "sets": {}, "cluster-ips": {"10.96.0.10", "10.96.0.11"},
         "hairpin": hairpin("10.244.0.5", "10.244.0.6"),
     }),
    ("a slice without the service-name label ignored",
     [svc("web")], [eps("web", ep("10.244.0.5"), labelled=False),
                    eps("web", ep("10.244.0.6"), name="web-b")], False, {
         "chains": {f"service-{WEB}": [pick(["10.244.0.6/8080"])]},
         "maps": TO_WEB, "sets": {}, "cluster-ips": {"10.96.0.10"},
         "hairpin": hairpin("10.244.0.6"),
     }),
    ("slice port matched by name and protocol, not by number",
     [svc("web", ports=[{"name": "http", "port": 80}])],
     [eps("web", ep("10.244.0.5"), ports=[{"name": "other", "port": 8080, "protocol": "TCP"},
                                          {"name": "http", "port": 8080, "protocol": "UDP"}])],
     False, {
         "chains": {},
         "maps": {"no-endpoint-services": {
             '10.96.0.10 . tcp . 80 comment "default/web:http"': "goto reject-chain"}},
         "sets": {}, "cluster-ips": {"10.96.0.10"}, "hairpin": set(),
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
        "services": [
            "ip saddr != 10.244.0.0/20 ip daddr . meta l4proto . th dport @service-ips "
            'jump mark-for-masquerade comment "not from a pod"',
            "ip daddr . meta l4proto . th dport vmap @service-ips",
            "fib daddr type local meta l4proto . th dport vmap @service-nodeports"],
        "endpoints-check": [
            "ip daddr . meta l4proto . th dport vmap @no-endpoint-services",
            "fib daddr type local meta l4proto . th dport vmap @no-endpoint-nodeports"],
        "cluster-ips-check": [
            'ip daddr @cluster-ips reject comment "undefined port of a ClusterIP"',
            'ip daddr 10.96.0.0/16 reject comment "unallocated ClusterIP"'],
        "reject-chain": ["reject"],
        "mark-for-masquerade": [f"meta mark set meta mark | {mark}"],
        "masquerading": [
            "ct status dnat ip saddr . ip daddr @hairpin jump mark-for-masquerade "
            'comment "hairpin"',
            f"meta mark & {mark} == 0 return", f"meta mark set meta mark ^ {mark}",
            "masquerade fully-random"],
        INFO_CHAIN: ['return comment "/state/dir"'],
    }
    assert set(view.maps) == set(MAPS)
    assert view.sets == {"cluster-ips": "type ipv4_addr",
                         "hairpin": "type ['ipv4_addr', 'ipv4_addr']"}


def test_masquerade_all_marks_all_cluster_traffic_in_one_rule() -> None:
    services = render(build([], [], masquerade_all=True)).chains["services"]
    assert services[0] == ("ip daddr . meta l4proto . th dport @service-ips "
                           'jump mark-for-masquerade comment "masquerade all"')


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


def test_a_long_owner_comment_is_cut_over_several_rules() -> None:
    owner = "/var/lib/" + "é" * 120 + "x" * 100
    chain = render(build_ruleset(ProxyState(table="mk-test", bridge="b", pod_cidr=POD_CIDR,
                                            service_cidr="", comment=owner))).chains[INFO_CHAIN]
    parts = [re.fullmatch(r'return comment "(.*)"', rule) for rule in chain]
    assert len(parts) == 3 and all(parts)
    assert all(len(m.group(1).encode()) <= 128 for m in parts if m)
    assert "".join(m.group(1) for m in parts if m) == owner


def test_owner_comment_too_long_is_refused() -> None:
    with pytest.raises(ValueError):
        build_ruleset(ProxyState(table="t", bridge="b", pod_cidr=POD_CIDR,
                                 service_cidr=SERVICE_CIDR, comment="/" * 251))


def test_endpoint_maps_are_shared_by_up_to_64_service_ports() -> None:
    count = ENDPOINT_MAP_PORTS * 2 + 1
    services = [svc(f"s{i:03}", cluster_ip=f"10.96.1.{i + 1}") for i in range(count)]
    slices = [eps(f"s{i:03}", *[ep(f"10.244.{i}.{j + 1}") for j in range(i % 3 + 2)])
              for i in range(count)]
    doc = build(services, slices)
    maps = shared_maps(doc)
    assert sorted(maps) == ["endpoints-0", "endpoints-1", "endpoints-2"]
    picks = [r["add"]["rule"]["expr"][1]["dnat"]["addr"]["map"] for r in doc["nftables"]
             if "rule" in r.get("add", {}) and r["add"]["rule"]["chain"].startswith("service-")]
    assert len(picks) == count
    for i, pick_ in enumerate(picks):
        numgen = pick_["key"]["numgen"]
        assert pick_["data"] == f"@endpoints-{i // ENDPOINT_MAP_PORTS}"
        assert numgen["mod"] == i % 3 + 2
        slots = [maps[pick_["data"][1:]][numgen["offset"] + j] for j in range(numgen["mod"])]
        assert slots == [{"concat": [f"10.244.{i}.{j + 1}", 8080]} for j in range(numgen["mod"])]
    # Every key of a map belongs to exactly one service port: offsets are contiguous.
    sizes = [len(m) for m in maps.values()]
    assert sizes == [sum(i % 3 + 2 for i in range(k * ENDPOINT_MAP_PORTS,
                                                  min(count, (k + 1) * ENDPOINT_MAP_PORTS)))
                     for k in range(3)]
    assert all(sorted(m) == list(range(len(m))) for m in maps.values())


def test_comments_nft_cannot_quote() -> None:
    with pytest.raises(ValueError, match="double quote"):
        build_ruleset(ProxyState(table="t", bridge="b", pod_cidr=POD_CIDR,
                                 service_cidr=SERVICE_CIDR, comment='/state/"dir"'))
    odd = ServicePort(namespace="de\"fault", name="web", port_name="ht\ntp", protocol="tcp",
                      cluster_ip="10.96.0.10", port=80, endpoints=(Endpoint("10.244.0.5", 80),))
    doc = build_ruleset(ProxyState(table="t", bridge="b", pod_cidr=POD_CIDR,
                                   service_cidr=SERVICE_CIDR, services=(odd,)))
    assert 'comment "default/web:http"' in to_text(doc)


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
                      masquerade_all=rng.random() < 0.5,
                      comment="/var/lib/minikube-py/" + "unit" * 55)  # over two rules


def test_nft_check_mode_accepts_a_large_random_document() -> None:
    nft = Nft()
    reason = nft.available()
    assert reason is None, reason
    doc = build_ruleset(random_state(random.Random(1234), 300))
    assert sum("rule" in c.get("add", {}) for c in doc["nftables"]) > 1000
    nft.check(doc)  # raises NftError with nft's message if the kernel refuses it
