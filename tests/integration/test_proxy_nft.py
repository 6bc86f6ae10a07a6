"""The Service data plane in a real kernel: rules from :mod:`minikube_py.network.proxy`
applied with the real ``nft`` inside network namespaces this module creates.

Topology (all inside namespaces named ``mkp<hex>-*``; nothing in the host's own):

    host ns:  br0 10.99.0.1/24 (the cluster bridge; ports in hairpin mode),
              eth0 192.168.77.2/24 (the "LAN", with the default route),
              ip_forward=1, route_localnet on br0
    p1/p2/p3: eth0 10.99.0.11-13, each running a TCP server on :8080 that answers
              "<name> <peer address>"
    client:   eth0 10.99.0.20, a pod without a server

Needs root (CAP_NET_ADMIN, ``ip netns``); nothing is skipped. The namespaces and
the servers are removed at the end even when a test fails.
"""

from __future__ import annotations

import errno
import json
import secrets
import select
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from minikube_py.network.proxy import Nft, NftError, ProxyState, build_ruleset, from_objects

pytestmark = pytest.mark.integration

TABLE = "minikube-py-itest"
BRIDGE_IP = "10.99.0.1"
HOST_IP = "192.168.77.2"
PODS = {"p1": "10.99.0.11", "p2": "10.99.0.12", "p3": "10.99.0.13"}
CLIENT_IP = "10.99.0.20"
#: Per network namespace (the host's own value is never read or written here).
BR_NF = "/proc/sys/net/bridge/bridge-nf-call-iptables"

SERVER = r"""
import socket, sys
name, port = sys.argv[1], int(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", port))
s.listen(128)
print("ready", flush=True)
while True:
    c, addr = s.accept()
    c.sendall(f"{name} {addr[0]}\n".encode())
    c.close()
"""

CLIENT = r"""
import json, socket, sys, time
host, port, count, timeout = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
out = []
for _ in range(count):
    start = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=timeout) as c:
            data = b""
            while chunk := c.recv(256):
                data += chunk
        out.append({"answer": data.decode().split()})
    except OSError as e:
        out.append({"errno": e.errno, "error": str(e), "seconds": time.monotonic() - start})
print(json.dumps(out))
"""


def sh(*argv: str) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} failed: {result.stderr.strip()}")
    return result.stdout


@dataclass
class Replies:
    """The outcome of ``count`` connections: who answered, what failed."""

    answers: list[tuple[str, str]]  # (server name, peer address it saw)
    errors: list[dict[str, Any]]

    @property
    def names(self) -> set[str]:
        return {name for name, _ in self.answers}

    @property
    def peers(self) -> set[str]:
        return {peer for _, peer in self.answers}


@dataclass
class Lab:
    prefix: str
    host: str
    nft: Nft
    servers: list[subprocess.Popen[str]]

    def ns(self, name: str) -> str:
        return f"{self.prefix}-{name}"

    def connect(self, where: str, ip: str, port: int, count: int = 1,
                timeout: float = 3.0) -> Replies:
        """``count`` TCP connections to ip:port from namespace ``where``."""
        out = sh("ip", "netns", "exec", self.ns(where), sys.executable, "-c", CLIENT,
                 ip, str(port), str(count), str(timeout))
        answers, errors = [], []
        for item in json.loads(out):
            if "answer" in item:
                answers.append((item["answer"][0], item["answer"][1]))
            else:
                errors.append(item)
        return Replies(answers, errors)

    def apply(self, state: ProxyState) -> None:
        self.nft.apply(build_ruleset(state))

    def br_netfilter(self) -> bool:
        """Whether bridged IPv4 traffic passes netfilter in the host namespace."""
        out = subprocess.run(["ip", "netns", "exec", self.host, "cat", BR_NF],
                             capture_output=True, text=True, check=False)
        return out.returncode == 0 and out.stdout.strip() == "1"

    def set_br_netfilter(self, on: bool) -> None:
        sh("ip", "netns", "exec", self.host, "sh", "-c", f"echo {int(on)} > {BR_NF}")


def _wait_ready(proc: subprocess.Popen[str], seconds: float = 20.0) -> None:
    """Wait for the server's "ready" line (it is listening by then)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    line = proc.stdout.readline() if ready else ""
    if line.strip() != "ready":
        proc.kill()
        errors = proc.stderr.read() if proc.stderr else ""
        raise AssertionError(f"server did not start: {line!r} {errors}")


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    prefix = f"mkp{secrets.token_hex(3)}"
    names = ["host", *PODS, "client"]
    made: list[str] = []
    servers: list[subprocess.Popen[str]] = []
    try:
        for name in names:
            sh("ip", "netns", "add", f"{prefix}-{name}")
            made.append(f"{prefix}-{name}")
            sh("ip", "-n", f"{prefix}-{name}", "link", "set", "lo", "up")
        host = f"{prefix}-host"
        ip_h = ("ip", "-n", host)
        sh(*ip_h, "link", "add", "br0", "type", "bridge")
        sh(*ip_h, "addr", "add", f"{BRIDGE_IP}/24", "dev", "br0")
        sh(*ip_h, "link", "set", "br0", "up")
        # The "LAN": a veth pair whose far end stays unconnected (the dummy driver
        # is not in every kernel); the default route gives the host a source
        # address for ClusterIPs, as on a real machine.
        sh(*ip_h, "link", "add", "eth0", "type", "veth", "peer", "name", "lan0")
        sh(*ip_h, "addr", "add", f"{HOST_IP}/24", "dev", "eth0")
        sh(*ip_h, "link", "set", "lan0", "up")
        sh(*ip_h, "link", "set", "eth0", "up")
        sh(*ip_h, "route", "add", "default", "via", "192.168.77.1")
        # Per-namespace sysctl (a new namespace starts with forwarding off).
        sh("ip", "netns", "exec", host, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward")
        for i, (name, ip) in enumerate([*PODS.items(), ("client", CLIENT_IP)]):
            pod = f"{prefix}-{name}"
            sh(*ip_h, "link", "add", f"veth{i}", "type", "veth", "peer", "name", "eth0",
               "netns", pod)
            sh(*ip_h, "link", "set", f"veth{i}", "master", "br0", "up")
            # As Podman's CNI bridge does ("hairpinMode": true): with br_netfilter,
            # a pod's packet DNATed back to the pod itself is bridged out of the
            # port it came in by, which a bridge port allows only in hairpin mode.
            sh(*ip_h, "link", "set", f"veth{i}", "type", "bridge_slave", "hairpin", "on")
            sh("ip", "-n", pod, "addr", "add", f"{ip}/24", "dev", "eth0")
            sh("ip", "-n", pod, "link", "set", "eth0", "up")
            sh("ip", "-n", pod, "route", "add", "default", "via", BRIDGE_IP)
        for name in PODS:
            proc = subprocess.Popen(
                ["ip", "netns", "exec", f"{prefix}-{name}", sys.executable, "-c", SERVER,
                 name, "8080"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            servers.append(proc)
            _wait_ready(proc)
        nft = Nft(netns=host)
        assert nft.available() is None
        assert nft.set_route_localnet("br0") is True
        yield Lab(prefix, host, nft, servers)
    finally:
        for proc in servers:
            proc.kill()
            proc.wait(timeout=10)
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], check=False)
        left = sh("ip", "netns", "list")
        assert prefix not in left, f"namespaces left behind: {left}"


# -- the cluster's objects ----------------------------------------------------------

def service(name: str, ip: str, *, svc_type: str = "ClusterIP", node_port: int = 0,
            affinity: bool = False, ingress: Sequence[str] = (),
            external_ips: Sequence[str] = ()) -> dict[str, Any]:
    port: dict[str, Any] = {"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}
    if node_port:
        port["nodePort"] = node_port
    spec: dict[str, Any] = {"type": svc_type, "clusterIP": ip, "ports": [port],
                            "externalIPs": list(external_ips)}
    if affinity:
        spec["sessionAffinity"] = "ClientIP"
        spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 600}}
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec,
            "status": {"loadBalancer": {"ingress": [{"ip": i} for i in ingress]}}}


def endpoint_slice(service_name: str, pods: Sequence[str]) -> dict[str, Any]:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": f"{service_name}-abc", "namespace": "default",
                         "labels": {"kubernetes.io/service-name": service_name}},
            "addressType": "IPv4",
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
            "endpoints": [{"addresses": [PODS[p]], "conditions": {"ready": True}} for p in pods]}


def state(lab: Lab, *, web_pods: Sequence[str] = ("p1", "p2", "p3"),
          sticky_pods: Sequence[str] = tuple(PODS),
          masquerade_all: bool | None = None) -> ProxyState:
    services = [
        service("web", "10.96.0.10", svc_type="LoadBalancer", node_port=30080,
                ingress=["127.0.0.1"], external_ips=["192.168.77.50"]),
        service("sticky", "10.96.0.11", affinity=True),
        service("empty", "10.96.0.12", svc_type="NodePort", node_port=30081),
        service("self", "10.96.0.13"),
    ]
    slices = [endpoint_slice("web", web_pods), endpoint_slice("sticky", sticky_pods),
              endpoint_slice("self", ["p1"])]
    if masquerade_all is None:
        masquerade_all = not lab.br_netfilter()  # what the daemon does
    return ProxyState(table=TABLE, bridge="br0", pod_cidr="10.99.0.0/24",
                      service_cidr="10.96.0.0/16", services=from_objects(services, slices),
                      masquerade_all=masquerade_all, comment="/tmp/itest-state")


def assert_refused(replies: Replies) -> None:
    assert not replies.answers, replies
    for err in replies.errors:
        assert err["errno"] == errno.ECONNREFUSED, err
        assert err["seconds"] < 1.0, err  # refused at once, not timed out


# -- tests --------------------------------------------------------------------------

def test_cluster_ip_from_a_pod_reaches_every_endpoint(lab: Lab) -> None:
    st = state(lab)
    lab.apply(st)
    replies = lab.connect("client", "10.96.0.10", 80, count=30)
    assert not replies.errors
    assert replies.names <= set(PODS)
    assert len(replies.names) >= 2, replies.names
    # Pod-to-pod through a ClusterIP keeps the client's address unless told otherwise.
    assert replies.peers == ({BRIDGE_IP} if st.masquerade_all else {CLIENT_IP})


def test_host_reaches_cluster_ip_nodeports_and_load_balancer(lab: Lab) -> None:
    lab.apply(state(lab))
    for ip, port in [("10.96.0.10", 80), ("127.0.0.1", 30080), (HOST_IP, 30080),
                     (BRIDGE_IP, 30080), ("127.0.0.1", 80), ("192.168.77.50", 80)]:
        replies = lab.connect("host", ip, port, count=3)
        assert not replies.errors, (ip, port, replies.errors)
        assert replies.names <= set(PODS)
        # Host traffic is masqueraded to the bridge's address, so replies come back.
        assert replies.peers == {BRIDGE_IP}, (ip, port)


def test_pod_reaches_nodeport_on_the_bridge_address(lab: Lab) -> None:
    lab.apply(state(lab))
    replies = lab.connect("client", BRIDGE_IP, 30080, count=3)
    assert not replies.errors
    assert replies.peers == {BRIDGE_IP}


def test_pod_reaches_itself_through_its_service(lab: Lab) -> None:
    lab.apply(state(lab))
    replies = lab.connect("p1", "10.96.0.13", 80, count=3)
    assert not replies.errors
    # Hairpin: without SNAT p1 would answer itself directly and drop the reply.
    assert replies.answers == [("p1", BRIDGE_IP)] * 3


def test_only_the_hairpin_connections_of_a_pod_are_masqueraded(lab: Lab) -> None:
    st = state(lab)
    lab.apply(st)
    replies = lab.connect("p1", "10.96.0.10", 80, count=40)
    assert not replies.errors
    peers: dict[str, set[str]] = {}
    for name, peer in replies.answers:
        peers.setdefault(name, set()).add(peer)
    assert len(peers) >= 2, peers
    # p1 reached through the Service by p1 itself: SNATed (the hairpin set);
    # p2 and p3 see p1's own address unless all service traffic is masqueraded.
    assert peers.get("p1", {BRIDGE_IP}) == {BRIDGE_IP}
    others = set().union(*(v for k, v in peers.items() if k != "p1"))
    assert others == ({BRIDGE_IP} if st.masquerade_all else {PODS["p1"]})


def test_service_without_endpoints_is_refused_at_once(lab: Lab) -> None:
    lab.apply(state(lab))
    assert_refused(lab.connect("client", "10.96.0.12", 80, count=2))
    assert_refused(lab.connect("host", "10.96.0.12", 80, count=2))
    assert_refused(lab.connect("host", "127.0.0.1", 30081, count=2))
    assert_refused(lab.connect("client", BRIDGE_IP, 30081, count=2))
    # A port the Service does not define, and an address no Service has.
    assert_refused(lab.connect("client", "10.96.0.10", 81))
    assert_refused(lab.connect("client", "10.96.0.99", 80))
    assert_refused(lab.connect("host", "10.96.0.99", 80))


def test_client_ip_affinity_keeps_a_client_on_one_backend(lab: Lab) -> None:
    lab.apply(state(lab))
    clients = ["client", "p1", "p2", "p3"]
    first = {}
    for who in clients:
        replies = lab.connect(who, "10.96.0.11", 80, count=8)
        assert not replies.errors
        assert len(replies.names) == 1, (who, replies.answers)
        first[who] = replies.answers[0][0]
    # A sync (the same state applied again) keeps what the sets remember.
    lab.apply(state(lab))
    remembered = _affinity_clients(lab)
    assert {CLIENT_IP, *PODS.values()} <= remembered
    for who in clients:
        assert lab.connect(who, "10.96.0.11", 80, count=3).names == {first[who]}, who


def _affinity_clients(lab: Lab) -> set[str]:
    out = json.loads(sh("ip", "netns", "exec", lab.host, "nft", "-j", "list", "sets",
                        "table", "ip", TABLE))
    found = set()
    for item in out["nftables"]:
        body = item.get("set", {})
        if body.get("name", "").startswith("affinity-"):
            found |= {e["elem"]["val"] for e in body.get("elem", [])}
    return found


def test_replacing_in_place_leaves_exactly_a_fresh_table(lab: Lab) -> None:
    lab.apply(state(lab))
    # Foreign objects in the table, and a client remembered by an affinity set.
    host = ("ip", "netns", "exec", lab.host, "nft")
    sh(*host, "add", "chain", "ip", TABLE, "stray")
    sh(*host, "add", "rule", "ip", TABLE, "services", "jump", "stray")
    sh(*host, "add", "set", "ip", TABLE, "stray-set", "{ type ipv4_addr; }")
    sh(*host, "add", "map", "ip", TABLE, "stray-map", "{ type ipv4_addr : verdict; }")
    names = [s["set"]["name"] for s in json.loads(sh(*host, "-j", "list", "sets", "table",
                                                     "ip", TABLE))["nftables"] if "set" in s]
    p1_set = next(n for n in names if n.startswith("affinity-") and f"__{PODS['p1']}/" in n)
    sh(*host, "add", "element", "ip", TABLE, p1_set, "{ 10.99.0.99 timeout 300s }")
    # Fewer endpoints: web's shared map, sticky's chain and set for p3 must go.
    smaller = state(lab, web_pods=("p2",), sticky_pods=("p1", "p2"))
    lab.apply(smaller)
    in_place = lab.nft.listing(TABLE)
    assert "10.99.0.99" in _affinity_clients(lab)  # kept: the table was not re-created
    lab.nft.delete_table(TABLE)
    lab.apply(smaller)
    assert in_place == lab.nft.listing(TABLE)


def test_reapplying_without_an_endpoint_stops_traffic_to_it(lab: Lab) -> None:
    lab.apply(state(lab))
    assert "p3" in lab.connect("client", "10.96.0.10", 80, count=30).names
    lab.apply(state(lab, web_pods=("p1", "p2")))
    replies = lab.connect("client", "10.96.0.10", 80, count=30)
    assert not replies.errors
    assert replies.names == {"p1", "p2"}


def test_masquerade_all_carries_pod_traffic_without_br_netfilter(lab: Lab) -> None:
    # Without the br_netfilter module there is nothing to switch off.
    loaded = Path("/proc/sys/net/bridge").exists()
    before = lab.br_netfilter()
    if loaded:
        lab.set_br_netfilter(False)
    try:
        # Without SNAT the reply goes pod-to-pod over the bridge, past conntrack:
        # the client sees an unknown source and the connection never completes.
        lab.apply(state(lab, masquerade_all=False))
        broken = lab.connect("client", "10.96.0.10", 80, count=1, timeout=1.5)
        assert not broken.answers
        lab.apply(state(lab, masquerade_all=True))
        replies = lab.connect("client", "10.96.0.10", 80, count=10)
        assert not replies.errors
        assert replies.peers == {BRIDGE_IP}
    finally:
        if loaded:
            lab.set_br_netfilter(before)


def test_failed_apply_leaves_the_previous_ruleset(lab: Lab) -> None:
    lab.apply(state(lab))
    doc = build_ruleset(state(lab, web_pods=("p1",)))
    # A rule jumping to a chain that does not exist: the kernel refuses the batch.
    doc["nftables"].append({"add": {"rule": {"family": "ip", "table": TABLE,
                                             "chain": "services",
                                             "expr": [{"jump": {"target": "no-such-chain"}}]}}})
    with pytest.raises(NftError):
        lab.nft.apply(doc)
    assert len(lab.connect("client", "10.96.0.10", 80, count=30).names) >= 2


def test_deleting_the_table_removes_every_rule(lab: Lab) -> None:
    lab.apply(state(lab))
    assert [t.name for t in lab.nft.list_tables("minikube-py")] == [TABLE]
    assert lab.nft.list_tables("minikube-py")[0].comment == "/tmp/itest-state"
    lab.nft.delete_table(TABLE)
    lab.nft.delete_table(TABLE)  # idempotent
    assert lab.nft.list_tables("minikube-py") == []
    assert sh("ip", "netns", "exec", lab.host, "nft", "list", "ruleset").strip() == ""
    # No NodePort left: nothing listens on 127.0.0.1:30080 in the host namespace.
    assert_refused(lab.connect("host", "127.0.0.1", 30080))


def test_route_localnet_on_a_missing_interface(lab: Lab) -> None:
    assert lab.nft.set_route_localnet("nosuch0") is False
    with pytest.raises(ValueError):
        lab.nft.set_route_localnet("../all")
