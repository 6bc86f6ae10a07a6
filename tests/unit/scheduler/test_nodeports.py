"""NodePorts: host port conflicts by IP, protocol and port (kube-scheduler's table)."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.scheduler.plugins.nodeports import ERR_REASON, NodePorts

from .builders import filter_codes, node, pod, run_filter, snapshot


def port(spec: str) -> dict[str, Any]:
    """'UDP/127.0.0.1/8080' like newPod's "proto/ip/port" in the Kubernetes test."""
    proto, ip, number = spec.split("/")
    out: dict[str, Any] = {"containerPort": int(number), "hostPort": int(number),
                           "protocol": proto}
    if ip:
        out["hostIP"] = ip
    return out


def with_ports(*specs: str, node_name: str | None = None) -> dict:
    return pod(node_name=node_name, host_ports=[port(s) for s in specs])


CASES = [
    ("nothing running", ["UDP/127.0.0.1/8080"], [], None),
    ("other port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/9090"], None),
    ("same udp port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], (ERR_REASON,)),
    ("same tcp port", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], (ERR_REASON,)),
    ("different host ip", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.2/8080"], None),
    ("different protocol", ["UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], None),
    ("second udp port conflict", ["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"],
     ["UDP/127.0.0.1/8080"], (ERR_REASON,)),
    ("first tcp port conflict", ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"],
     ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"], (ERR_REASON,)),
    ("first tcp port conflict due to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001"],
     ["TCP/127.0.0.1/8001"], (ERR_REASON,)),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", ["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"],
     ["TCP/127.0.0.1/8001"], (ERR_REASON,)),
    ("second tcp port conflict to 0.0.0.0 hostIP", ["TCP/127.0.0.1/8001"],
     ["TCP/0.0.0.0/8001"], (ERR_REASON,)),
    ("second different protocol", ["UDP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], None),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", ["UDP/127.0.0.1/8001"],
     ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"], (ERR_REASON,)),
    ("empty hostIP means 0.0.0.0", ["TCP//8001"], ["TCP/10.1.1.1/8001"], (ERR_REASON,)),
]


@pytest.mark.parametrize(("name", "wanted", "used", "want"), CASES, ids=[c[0] for c in CASES])
def test_node_ports(name: str, wanted: list[str], used: list[str],
                    want: tuple[str, ...] | None) -> None:
    existing = [with_ports(*used, node_name="n")] if used else []
    snap = snapshot([node("n")], existing)
    assert run_filter(NodePorts(), with_ports(*wanted), snap, ["n"]) == [want]
    if want:
        assert filter_codes(NodePorts(), with_ports(*wanted), snap, ["n"]) == ["Unschedulable"]


def test_no_host_ports_skips() -> None:
    snap = snapshot([node("n")], [with_ports("TCP/0.0.0.0/80", node_name="n")])
    assert run_filter(NodePorts(), pod(requests=[{"cpu": "1"}]), snap, ["n"]) == [None]


def test_ports_are_released_and_sidecar_ports_count() -> None:
    sidecar = pod(node_name="n", init_containers=[{
        "name": "s", "image": "x", "restartPolicy": "Always",
        "ports": [port("TCP//9000")]}])
    snap = snapshot([node("n")], [sidecar])
    assert run_filter(NodePorts(), with_ports("TCP//9000"), snap, ["n"]) == [(ERR_REASON,)]
    snap.remove_pod(sidecar)
    assert run_filter(NodePorts(), with_ports("TCP//9000"), snap, ["n"]) == [None]
