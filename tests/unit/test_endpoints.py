"""Endpoints (v1): defaults, validation, strategy, selectors, table and
describe, against Kubernetes v1.32's rules and kubectl's output."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api import kinds
from minikube_py.api.defaults import apply_defaults
from minikube_py.api.describe import describe
from minikube_py.api.errors import Invalid
from minikube_py.api.fields import parse_field_selector
from minikube_py.api.labels import parse_selector
from minikube_py.api.printers import table
from minikube_py.store.registry import Registry

from .network_helpers import IP, NOW, RANGE, STAMP, messages, registry_in
from .validation_helpers import DNS_LABEL as LABEL
from .validation_helpers import QNAME, SUBDOMAIN


def endpoints(*subsets: dict[str, Any], name: str = "web") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": name, "namespace": "default"}, "subsets": list(subsets)}


def subset(*ips: str, ports: list[dict[str, Any]] | None = None,
           not_ready: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"addresses": [{"ip": ip} for ip in ips]}
    if not_ready:
        out["notReadyAddresses"] = [{"ip": ip} for ip in not_ready]
    out["ports"] = [{"port": 8080, "protocol": "TCP"}] if ports is None else ports
    return out


@pytest.mark.parametrize(("obj", "expected"), [
    (endpoints(), []),
    (endpoints(subset("10.244.0.5", "fd00::5")), []),
    (endpoints(subset(not_ready=("10.244.0.5",), ports=[])), []),
    (endpoints(name="web.example"), []),
    (endpoints(name="Web"), [f'metadata.name: Invalid value: "Web": {SUBDOMAIN}']),
    (endpoints({"ports": [{"port": 80, "protocol": "TCP"}]}),
     ["subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`"]),
    # an invalid IP is reported by IsValidIP and again by ValidateNonSpecialIP
    (endpoints(subset("10.244.0")),
     [f'subsets[0].addresses[0].ip: Invalid value: "10.244.0": {IP}',
      'subsets[0].addresses[0].ip: Invalid value: "10.244.0": must be a valid IP address']),
    (endpoints(subset("127.0.0.1", "0.0.0.0", not_ready=("fe80::1", "224.0.0.1"))),
     ['subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback '
      "range (127.0.0.0/8, ::1/128)",
      'subsets[0].addresses[1].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
      'subsets[0].notReadyAddresses[0].ip: Invalid value: "fe80::1": may not be in the '
      "link-local range (169.254.0.0/16, fe80::/10)",
      'subsets[0].notReadyAddresses[1].ip: Invalid value: "224.0.0.1": may not be in the '
      "link-local multicast range (224.0.0.0/24, ff02::/10)"]),
    # Go reads an IPv4-mapped address as the IPv4 address it carries
    (endpoints(subset("::ffff:127.0.0.1")),
     ['subsets[0].addresses[0].ip: Invalid value: "::ffff:127.0.0.1": may not be in the '
      "loopback range (127.0.0.0/8, ::1/128)"]),
    (endpoints({"addresses": [{"ip": "10.244.0.5", "hostname": "Web-0",
                               "nodeName": "Node_1"}]}),
     [f'subsets[0].addresses[0].hostname: Invalid value: "Web-0": {LABEL}',
      f'subsets[0].addresses[0].nodeName: Invalid value: "Node_1": {SUBDOMAIN}']),
    # ports
    (endpoints(subset("10.244.0.5", ports=[{"port": 80, "protocol": "TCP"},
                                           {"port": 443, "protocol": "TCP"}])),
     ["subsets[0].ports[0].name: Required value", "subsets[0].ports[1].name: Required value"]),
    (endpoints(subset("10.244.0.5", ports=[{"name": "HTTP", "port": 0, "protocol": "ICMP",
                                            "appProtocol": "-x-"}])),
     [f'subsets[0].ports[0].name: Invalid value: "HTTP": {LABEL}',
      f"subsets[0].ports[0].port: Invalid value: 0: {RANGE}",
      'subsets[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", '
      '"TCP", "UDP"',
      f'subsets[0].ports[0].appProtocol: Invalid value: "-x-": {QNAME}']),
    (endpoints(subset("10.244.0.5", ports=[{"port": 80}])),
     ["subsets[0].ports[0].protocol: Required value"]),
])
def test_validation(obj: dict[str, Any], expected: list[str]):
    assert messages(obj) == expected


def test_update_validation():
    old = endpoints(subset("10.244.0.5"))
    old["metadata"]["resourceVersion"] = "3"
    new = copy.deepcopy(old)
    new["subsets"][0]["addresses"][0]["nodeName"] = "node-b"  # may change: IPs are reused
    assert messages(new, old) == []
    new["subsets"][0]["addresses"][0]["ip"] = "127.0.0.1"
    new["metadata"]["name"] = "other"
    assert messages(new, old) == [
        'metadata.name: Invalid value: "other": field is immutable',
        'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback '
        "range (127.0.0.0/8, ::1/128)"]


def test_defaults_give_ports_tcp():
    obj = endpoints(subset("10.244.0.5", ports=[{"port": 80}, {"port": 53, "protocol": "UDP"}]))
    assert apply_defaults(obj)["subsets"][0]["ports"] == [
        {"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]


# ------------------------------------------------------------------ strategy


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    yield from registry_in(tmp_path)


def test_strategy_and_selectors(registry: Registry):
    sent = endpoints(subset("10.244.0.5", ports=[{"port": 80}]))
    sent["metadata"]["labels"] = {"app": "web"}
    made = registry.create(sent)
    assert "status" not in made and "generation" not in made["metadata"]
    assert made["subsets"][0]["ports"] == [{"port": 80, "protocol": "TCP"}]
    registry.create(endpoints(subset("10.244.0.6"), name="other"))
    store = registry.store
    by_label = store.list("endpoints", label_selector=parse_selector("app=web")).items
    assert [o["metadata"]["name"] for o in by_label] == ["web"]
    by_name = store.list("endpoints",
                         field_selector=parse_field_selector("metadata.name=other")).items
    assert [o["metadata"]["name"] for o in by_name] == ["other"]
    with pytest.raises(Invalid) as err:
        registry.create(endpoints(subset("127.0.0.1"), name="bad"))
    assert str(err.value) == ('Endpoints "bad" is invalid: subsets[0].addresses[0].ip: Invalid '
                              'value: "127.0.0.1": may not be in the loopback range '
                              "(127.0.0.0/8, ::1/128)")
    info = kinds.resolve("ep")
    assert (info.kind, info.plural, info.singular, info.subresources, info.categories) == (
        "Endpoints", "endpoints", "endpoints", (), ())


# ------------------------------------------------------------------ table


def cells(obj: dict[str, Any]) -> list[Any]:
    obj["metadata"]["creationTimestamp"] = STAMP
    tab = table("Endpoints", [obj], now=NOW)
    assert [c["name"] for c in tab["columnDefinitions"]] == ["Name", "Endpoints", "Age"]
    return tab["rows"][0]["cells"]


@pytest.mark.parametrize(("obj", "text"), [
    (endpoints(), "<none>"),
    (endpoints(subset("10.244.0.5")), "10.244.0.5:8080"),
    (endpoints(subset(not_ready=("10.244.0.5",))), ""),
    (endpoints(subset("10.244.0.5", "10.244.0.6", ports=[])), "10.244.0.5,10.244.0.6"),
    (endpoints(subset("fd00::5")), "[fd00::5]:8080"),
    (endpoints(subset("10.244.0.5", "10.244.0.6", ports=[{"port": 80}, {"port": 443}])),
     "10.244.0.5:80,10.244.0.6:80,10.244.0.5:443 + 1 more..."),
    (endpoints(subset("10.0.0.1", "10.0.0.2"), subset("10.0.0.3"), subset("10.0.0.4", "10.0.0.5")),
     "10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:8080 + 2 more..."),
    (endpoints(subset("10.0.0.1", "10.0.0.2", "10.0.0.3")),
     "10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:8080"),
])
def test_rows(obj: dict[str, Any], text: str):
    assert cells(obj) == ["web", text, "3m20s"]


def test_describe_is_kubectls():
    obj = endpoints(subset("10.244.0.5", "10.244.0.6", not_ready=("10.244.0.7",),
                           ports=[{"name": "http", "port": 8080, "protocol": "TCP"},
                                  {"name": "metrics", "port": 9090, "protocol": "TCP"}]),
                    subset(not_ready=("10.244.1.9",), ports=[]))
    obj["metadata"]["labels"] = {"app": "web"}
    assert describe("ep", obj, now=NOW, tz=UTC) == (
        "Name:         web\n"
        "Namespace:    default\n"
        "Labels:       app=web\n"
        "Annotations:  <none>\n"
        "Subsets:\n"
        "  Addresses:          10.244.0.5,10.244.0.6\n"
        "  NotReadyAddresses:  10.244.0.7\n"
        "  Ports:\n"
        "    Name     Port  Protocol\n"
        "    ----     ----  --------\n"
        "    http     8080  TCP\n"
        "    metrics  9090  TCP\n"
        "\n"
        "  Addresses:          <none>\n"
        "  NotReadyAddresses:  10.244.1.9\n"
        "\n"
        "Events:  <none>\n")
    assert describe("endpoints", endpoints(), now=NOW, tz=UTC) == (
        "Name:         web\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n"
        "Subsets:\nEvents:  <none>\n")
