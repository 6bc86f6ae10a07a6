"""EndpointSlice (discovery.k8s.io/v1): defaults, validation, strategy
(generation, topology), selectors, table and describe, against Kubernetes
v1.32's rules and kubectl's output."""

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
from minikube_py.api.labels import parse_selector
from minikube_py.api.printers import table
from minikube_py.store.registry import Registry

from .network_helpers import NOW, STAMP, messages, registry_in
from .validation_helpers import DNS_LABEL as LABEL
from .validation_helpers import LABEL_VALUE, SUBDOMAIN

HTTP = {"name": "http", "port": 8080, "protocol": "TCP"}


def eps(*endpoints: dict[str, Any], address_type: str = "IPv4",
        ports: list[dict[str, Any]] | None = None, name: str = "web-abc") -> dict[str, Any]:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name, "namespace": "default",
                         "labels": {"kubernetes.io/service-name": "web"}},
            "addressType": address_type, "endpoints": list(endpoints),
            "ports": [HTTP] if ports is None else ports}


def ep(*addresses: str, **fields: Any) -> dict[str, Any]:
    return {"addresses": list(addresses), **fields}


@pytest.mark.parametrize(("obj", "expected"), [
    (eps(), []),
    (eps(ep("10.244.0.5", hostname="web-0", nodeName="node-a", zone="zone-a",
            conditions={"ready": True, "serving": True, "terminating": False},
            hints={"forZones": [{"name": "zone-a"}]})), []),
    (eps(ep("fd00::5"), address_type="IPv6"), []),
    (eps(ep("db.example.com."), address_type="FQDN"), []),
    (eps(name="Web_Slice"), [f'metadata.name: Invalid value: "Web_Slice": {SUBDOMAIN}']),
    # address types, and addresses of each
    ({**eps(), "addressType": ""}, ["addressType: Required value"]),
    (eps(address_type="IP"),
     ['addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"']),
    (eps(ep()), ["endpoints[0].addresses: Required value: must contain at least 1 address"]),
    (eps(ep(*(f"10.0.{i // 250}.{i % 250 + 1}" for i in range(101)))),
     ["endpoints[0].addresses: Too many: 101: must have at most 100 items"]),
    (eps(ep("fd00::5", "10.0.0")),
     ['endpoints[0].addresses[0]: Invalid value: "fd00::5": must be a valid IPv4 address',
      'endpoints[0].addresses[1]: Invalid value: "10.0.0": must be a valid IPv4 address',
      'endpoints[0].addresses[1]: Invalid value: "10.0.0": must be a valid IP address']),
    (eps(ep("127.0.0.1", "169.254.0.9")),
     ['endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range '
      "(127.0.0.0/8, ::1/128)",
      'endpoints[0].addresses[1]: Invalid value: "169.254.0.9": may not be in the link-local '
      "range (169.254.0.0/16, fe80::/10)"]),
    (eps(ep("10.0.0.1", "::"), address_type="IPv6"),
     ['endpoints[0].addresses[0]: Invalid value: "10.0.0.1": must be a valid IPv6 address',
      'endpoints[0].addresses[1]: Invalid value: "::": may not be unspecified (::)']),
    (eps(ep("localhost", "Db_Host.example.com", "a.-b"), address_type="FQDN"),
     ['endpoints[0].addresses[0]: Invalid value: "localhost": should be a domain with at least '
      "two segments separated by dots",
      f'endpoints[0].addresses[1]: Invalid value: "Db_Host.example.com": {SUBDOMAIN}',
      f'endpoints[0].addresses[2]: Invalid value: "a.-b": {SUBDOMAIN}']),
    (eps(ep(""), address_type="FQDN"),
     ["endpoints[0].addresses[0]: Required value"]),
    (eps(ep("anything at all"), address_type="Unknown"),
     ['addressType: Unsupported value: "Unknown": supported values: "FQDN", "IPv4", "IPv6"']),
    # the rest of an endpoint
    (eps(ep("10.244.0.5", nodeName="Node_A", hostname="Web.0")),
     [f'endpoints[0].nodeName: Invalid value: "Node_A": {SUBDOMAIN}',
      'endpoints[0].hostname: Invalid value: "Web.0": ' + LABEL]),
    (eps(ep("10.244.0.5", deprecatedTopology={f"k{i}": "v" for i in range(17)})),
     ["endpoints[0].deprecatedTopology: Too many: 17: must have at most 16 items"]),
    (eps(ep("10.244.0.5", deprecatedTopology={"topology.kubernetes.io/zone": "a"})),
     ["endpoints[0].deprecatedTopology[topology.kubernetes.io/zone]: Internal error: reserved "
      "key was not removed in conversion"]),
    (eps(ep("10.244.0.5", hints={"forZones": [{"name": f"z{i}"} for i in range(9)]})),
     ["endpoints[0].hints.forZones: Too many: 9: must have at most 8 items"]),
    (eps(ep("10.244.0.5", hints={"forZones": [{"name": "a"}, {"name": "a"}, {"name": "-b"}]})),
     ['endpoints[0].hints.forZones[1].name: Duplicate value: "a"',
      f'endpoints[0].hints.forZones[2].name: Invalid value: "-b": {LABEL_VALUE}']),
    (eps(*(ep("10.244.0.5") for _ in range(1001))),
     ["endpoints: Too many: 1001: must have at most 1000 items"]),
    # ports: unique names ("" too), empty or DNS labels; TCP, UDP or SCTP
    (eps(ports=[{"name": "", "protocol": "TCP"}, {"name": "", "port": 80, "protocol": "UDP"}]),
     ['ports[1].name: Duplicate value: ""']),
    (eps(ports=[{"name": "HTTP", "port": 80, "protocol": "ICMP"},
                {"name": "dns", "port": 53, "protocol": ""},
                {"name": "x", "port": 1, "protocol": "TCP", "appProtocol": "a/b/c"}]),
     [f'ports[0].name: Invalid value: "HTTP": {LABEL}',
      'ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'ports[1].protocol: Unsupported value: "": supported values: "SCTP", "TCP", "UDP"',
      'ports[2].appProtocol: Invalid value: "a/b/c": a valid label key must consist of '
      "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
      "'/' (e.g. 'example.com/MyName')"]),
    (eps(ports=[{"name": "http", "port": 80}]), ["ports[0].protocol: Required value"]),
    (eps(ports=[{"name": f"p{i}", "protocol": "TCP"} for i in range(20001)]),
     ["ports: Too many: 20001: must have at most 20000 items"]),
])
def test_validation(obj: dict[str, Any], expected: list[str]):
    assert messages(obj) == expected


def test_the_address_type_is_immutable():
    old = eps(ep("10.244.0.5"))
    old["metadata"]["resourceVersion"] = "4"
    new = copy.deepcopy(old)
    new["endpoints"] = [ep("10.244.0.6")]
    assert messages(new, old) == []
    new["addressType"] = "FQDN"
    new["endpoints"] = [ep("db.example.com")]
    assert messages(new, old) == ['addressType: Invalid value: "FQDN": field is immutable']


def test_defaults_give_ports_a_name_and_tcp():
    obj = eps(ports=[{"port": 80}, {"name": "dns", "port": 53, "protocol": "UDP"}, {}])
    assert apply_defaults(obj)["ports"] == [
        {"port": 80, "name": "", "protocol": "TCP"},
        {"name": "dns", "port": 53, "protocol": "UDP"}, {"name": "", "protocol": "TCP"}]


# ------------------------------------------------------------------ strategy


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    yield from registry_in(tmp_path)


def _update(registry: Registry, obj: dict[str, Any]) -> dict[str, Any]:
    sent = copy.deepcopy(obj)
    sent["metadata"].pop("resourceVersion", None)
    return registry.update(sent)


def test_generation_follows_everything_but_metadata_and_labels(registry: Registry):
    made = registry.create(eps(ep("10.244.0.5", deprecatedTopology={"kubernetes.io/os": "x"}),
                               ports=[{"port": 80}]))
    assert made["metadata"]["generation"] == 1 and "status" not in made
    assert made["endpoints"] == [{"addresses": ["10.244.0.5"]}]  # v1 drops the old topology
    assert made["ports"] == [{"port": 80, "name": "", "protocol": "TCP"}]
    made["metadata"]["annotations"] = {"note": "x"}
    same = _update(registry, made)
    assert same["metadata"]["generation"] == 1
    same["metadata"]["labels"]["tier"] = "a"
    relabelled = _update(registry, same)
    assert relabelled["metadata"]["generation"] == 2
    relabelled["endpoints"][0]["conditions"] = {"ready": False}
    changed = _update(registry, relabelled)
    assert changed["metadata"]["generation"] == 3
    changed["endpoints"][0]["deprecatedTopology"] = {"kubernetes.io/os": "x"}
    dropped = _update(registry, changed)
    assert dropped["metadata"]["generation"] == 4  # counted before the field is dropped
    assert "deprecatedTopology" not in dropped["endpoints"][0]


def test_refusals_and_selectors(registry: Registry):
    registry.create(eps(ep("10.244.0.5"), name="web-a"))
    other = eps(ep("10.244.0.6"), name="api-a")
    other["metadata"]["labels"] = {"kubernetes.io/service-name": "api"}
    registry.create(other)
    store = registry.store
    found = store.list("endpointslices",
                       label_selector=parse_selector("kubernetes.io/service-name=web")).items
    assert [o["metadata"]["name"] for o in found] == ["web-a"]
    with pytest.raises(Invalid) as err:
        registry.create(eps(ep("127.0.0.1"), name="bad"))
    assert str(err.value) == (
        'EndpointSlice.discovery.k8s.io "bad" is invalid: endpoints[0].addresses[0]: Invalid '
        'value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)')
    info = kinds.resolve("endpointslices")
    assert (info.kind, info.api_version, info.short_names, info.subresources) == (
        "EndpointSlice", "discovery.k8s.io/v1", (), ())
    assert kinds.resolve("endpointslices.discovery.k8s.io") is info


# ------------------------------------------------------------------ table


def cells(obj: dict[str, Any]) -> list[Any]:
    obj["metadata"]["creationTimestamp"] = STAMP
    tab = table("EndpointSlice", [obj], now=NOW)
    assert [c["name"] for c in tab["columnDefinitions"]] == [
        "Name", "AddressType", "Ports", "Endpoints", "Age"]
    return tab["rows"][0]["cells"]


@pytest.mark.parametrize(("obj", "ports", "endpoints"), [
    (eps(), "8080", "<unset>"),
    (eps(ep("10.0.0.1", "10.0.0.2"), ep("10.0.0.3"), ports=[]), "<unset>",
     "10.0.0.1,10.0.0.2,10.0.0.3"),
    (eps(ep("10.0.0.1"), ep("10.0.0.2"), ep("10.0.0.3"), ep("10.0.0.4"), ep("10.0.0.5")),
     "8080", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more..."),
    (eps(ports=[{"port": 80}, {"name": "dns"}, {}, {"port": 9090}, {"port": 9091}]),
     "80,dns,* + 2 more...", "<unset>"),
    (eps(ports=[{"name": "", "protocol": "TCP"}]), "<unset>", "<unset>"),
])
def test_rows(obj: dict[str, Any], ports: str, endpoints: str):
    assert cells(obj) == ["web-abc", "IPv4", ports, endpoints, "3m20s"]


def test_describe_is_kubectls():
    obj = eps(ep("10.244.0.5", conditions={"ready": True}, hostname="web-0",
                 nodeName="node-a", zone="zone-a",
                 targetRef={"kind": "Pod", "name": "web-0", "namespace": "default"}),
              ep("10.244.0.6", "10.244.0.7", conditions={"ready": False}),
              ports=[HTTP, {"name": "", "protocol": "UDP"}])
    assert describe("endpointslice", obj, now=NOW, tz=UTC) == (
        "Name:         web-abc\n"
        "Namespace:    default\n"
        "Labels:       kubernetes.io/service-name=web\n"
        "Annotations:  <none>\n"
        "AddressType:  IPv4\n"
        "Ports:\n"
        "  Name     Port     Protocol\n"
        "  ----     ----     --------\n"
        "  http     8080     TCP\n"
        "  <unset>  <unset>  UDP\n"
        "Endpoints:\n"
        "  - Addresses:  10.244.0.5\n"
        "    Conditions:\n"
        "      Ready:    true\n"
        "    Hostname:   web-0\n"
        "    TargetRef:  Pod/web-0\n"
        "    NodeName:   node-a\n"
        "    Zone:       zone-a\n"
        "  - Addresses:  10.244.0.6, 10.244.0.7\n"
        "    Conditions:\n"
        "      Ready:   false\n"
        "    Hostname:  <unset>\n"
        "    NodeName:  <unset>\n"
        "    Zone:      <unset>\n"
        "Events:        <none>\n")
    empty = describe("endpointslices", eps(ports=[]), now=NOW, tz=UTC)
    assert empty.endswith("AddressType:  IPv4\nPorts: <unset>\nEndpoints: <none>\n"
                          "Events:  <none>\n")
