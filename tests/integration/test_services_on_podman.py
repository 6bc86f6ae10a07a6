"""Services on real Podman and nftables: cluster DNS answered from inside pods,
traffic through ClusterIPs, NodePorts and load-balancer addresses, readiness
taking a backend out, the rules following Services and surviving a kill -9 of
the daemon.

Commands run inside the pods with ``podman exec`` (``kubectl exec`` comes with
its own issue), so every DNS query and connection starts in the pod's network
namespace with the pod's own resolv.conf. The host's resolver is replaced by a
fake upstream (``--dns-upstream``), so the names cluster DNS forwards have
known answers on a machine without internet.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.dnsfake import FakeUpstream
from tests.e2e.conftest import Daemon, start_daemon, stop_daemon
from tests.hostclean import release_cluster
from tests.inpod import app_container, in_pod, podman
from tests.waiting import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

IMAGE = "localhost/minikube-py/busybox:1.35"
LB_PORT = 18089
#: busybox httpd serving its hostname at /name; ready while it serves /ready (an
#: HTTP probe: an exec probe every second would leave a Podman exec session each
#: time, which Podman's API never removes, and make the pods slow to remove).
SERVE = ("mkdir -p /www && hostname > /www/name && touch /www/ready && "
         "exec httpd -f -p 8080 -h /www")
#: busybox 1.35's wget crashes with its own -T (Debian's static build): it is
#: timed out with the timeout applet instead.
WGET = "timeout 5 wget -q -O -"

#: A GET of /version as an in-cluster client does it: to 10.96.0.1:443, the
#: certificate checked for ``kubernetes.default.svc``; argv: CA file, token.
IN_CLUSTER_GET = """
import http.client, socket, ssl, sys

class Connection(http.client.HTTPSConnection):
    def connect(self):  # the name is checked; the address is the Service's
        raw = socket.create_connection(("10.96.0.1", 443), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)

context = ssl.create_default_context(cafile=sys.argv[1])
conn = Connection("kubernetes.default.svc", 443, context=context, timeout=5)
conn.request("GET", "/version", headers={"Authorization": "Bearer " + sys.argv[2]})
print(conn.getresponse().read().decode())
"""


def manifests() -> str:
    pod_spec = {"terminationGracePeriodSeconds": 1, "containers": [{
        "name": "web", "image": IMAGE, "imagePullPolicy": "IfNotPresent",
        "command": ["sh", "-c", SERVE], "ports": [{"name": "http", "containerPort": 8080}],
        "readinessProbe": {"httpGet": {"path": "/ready", "port": "http"},
                           "periodSeconds": 1, "timeoutSeconds": 5}}]}
    docs: list[dict[str, Any]] = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod_spec}}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
         "spec": {"selector": {"app": "web"},
                  "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web-np"},
         "spec": {"type": "NodePort", "selector": {"app": "web"},
                  "ports": [{"port": 80, "targetPort": 8080}]}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web-lb"},
         "spec": {"type": "LoadBalancer", "selector": {"app": "web"},
                  "ports": [{"port": LB_PORT, "targetPort": 8080}]}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "crew"},
         "spec": {"clusterIP": "None", "selector": {"app": "web"},
                  "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext"},
         "spec": {"type": "ExternalName", "externalName": "db.corp.example"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "named",
                                                         "labels": {"app": "web"}},
         "spec": {**pod_spec, "hostname": "first", "subdomain": "crew"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "client"},
         "spec": {"terminationGracePeriodSeconds": 1, "containers": [{
             "name": "client", "image": IMAGE, "imagePullPolicy": "IfNotPresent",
             "command": ["sleep", "3600"]}]}},
    ]
    return yaml.safe_dump_all(docs)


@pytest.fixture(scope="module")
def upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream({("db.corp.example.", "A"): ["192.0.2.10"],
                       ("mirror.example.org.", "A"): ["192.0.2.20"]}) as fake:
        yield fake


@dataclass
class Cluster:
    """The module's cluster: its daemon (replaced by the kill -9 test) and the
    flags it was started with."""

    daemon: Daemon
    flags: tuple[str, ...]

    def restart(self) -> Daemon:
        self.daemon = start_daemon(self.daemon.state, *self.flags)
        return self.daemon


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory,
            upstream: FakeUpstream) -> Iterator[Cluster]:
    state = tmp_path_factory.mktemp("services") / "state"
    host, port = upstream.address
    flags = ("--runtime", "podman", "--nodes", "2", "--dns-upstream", f"{host}:{port}")
    c = Cluster(start_daemon(state, *flags), flags)
    try:
        c.daemon.kubectl("apply", "-f", "-", input=manifests())
        c.daemon.kubectl("wait", "--for=condition=Ready", "pod", "--all", "--timeout=120s")
        # Two replicas and the named pod: three backends.
        wait_for(lambda: len(ready_ips(c.daemon, "web")) == 3, "3 ready endpoints of web", 60)
        yield c
    finally:
        try:
            c.daemon.kubectl("delete", "pods", "--all", "--grace-period=0", "--force",
                             check=False)
            stop_daemon(c.daemon)
        finally:
            release_cluster(state)


# ----------------------------------------------------------------------- helpers


def ready_ips(d: Daemon, service: str) -> list[str]:
    out = []
    for s in d.get_json("endpointslices", "-l", f"kubernetes.io/service-name={service}")[
            "items"]:
        for ep in s.get("endpoints") or []:
            if (ep.get("conditions") or {}).get("ready"):
                out.extend(ep["addresses"])
    return sorted(out)


def nslookup(d: Daemon, name: str, kind: str = "") -> tuple[str, list[str]]:
    """busybox nslookup from the client pod: its whole output and the answer's
    addresses (what follows ``Name:``)."""
    out = in_pod(d, "client", f"nslookup {'-type=' + kind + ' ' if kind else ''}{name}")
    answers = out.split("Name:", 1)[1] if "Name:" in out else ""
    return out, re.findall(r"Address: ([0-9.]+)", answers)


def pod_ips(d: Daemon) -> dict[str, str]:
    """The backends by the name they answer with (their hostname) -> pod IP."""
    return {p["spec"].get("hostname") or p["metadata"]["name"]: p["status"]["podIP"]
            for p in d.get_json("pods", "-l", "app=web")["items"]}


def table(d: Daemon) -> str:
    cluster_id = (d.state / "cluster-id").read_text().strip()
    return subprocess.run(["nft", "list", "table", "ip", f"minikube-py-{cluster_id}"],
                          capture_output=True, text=True, check=False).stdout


def spec(d: Daemon, service: str) -> dict[str, Any]:
    return d.get_json("service", service)["spec"]  # type: ignore[no-any-return]


def http_get(url: str, timeout: float = 3) -> str:
    """The body of a GET from this host, stripped; "" when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return str(response.read().decode()).strip()
    except OSError:
        return ""


# ----------------------------------------------------------------------- DNS


def test_the_pods_resolv_conf_and_service_variables(cluster: Cluster):
    d = cluster.daemon
    conf = in_pod(d, "client", "cat /etc/resolv.conf")
    assert "nameserver 10.96.0.10" in conf
    assert "search default.svc.cluster.local svc.cluster.local cluster.local" in conf
    assert "options ndots:5" in conf
    env = dict(line.split("=", 1) for line in in_pod(d, "client", "env").splitlines()
               if "=" in line)
    assert env["KUBERNETES_SERVICE_HOST"] == "10.96.0.1"
    assert env["KUBERNETES_SERVICE_PORT"] == "443"
    assert env["WEB_SERVICE_HOST"] == spec(d, "web")["clusterIP"]
    assert env["WEB_PORT_80_TCP"] == f"tcp://{spec(d, 'web')['clusterIP']}:80"


def test_a_service_resolves_by_short_name_and_fqdn_and_answers_through_its_cluster_ip(
        cluster: Cluster):
    d = cluster.daemon
    ip = spec(d, "web")["clusterIP"]
    _, addresses = nslookup(d, "web.default.svc.cluster.local")
    assert addresses == [ip]
    backends = set(pod_ips(d))
    by_short = in_pod(d, "client", f"{WGET} http://web/name").strip()
    by_fqdn = in_pod(d, "client",
                     f"{WGET} http://web.default.svc.cluster.local/name").strip()
    assert by_short in backends and by_fqdn in backends


def test_thirty_connections_spread_over_the_backends(cluster: Cluster):
    d = cluster.daemon
    ip = spec(d, "web")["clusterIP"]
    out = in_pod(d, "client", f"for i in $(seq 30); do {WGET} "
                                    f"http://{ip}/name; done").split()
    assert len(out) == 30
    assert set(out) <= set(pod_ips(d))
    assert len(set(out)) >= 2, out


def test_headless_hostnames_srv_ptr_and_pod_records(cluster: Cluster):
    d = cluster.daemon
    ips = pod_ips(d)
    _, addresses = nslookup(d, "crew.default.svc.cluster.local")
    assert sorted(addresses) == sorted(ips.values())
    _, named = nslookup(d, "first.crew.default.svc.cluster.local")
    assert named == [ips["first"]]
    srv, _ = nslookup(d, "_http._tcp.web.default.svc.cluster.local", "SRV")
    assert "web.default.svc.cluster.local" in srv and " 80 " in srv, srv
    reverse = ".".join(reversed(spec(d, "web")["clusterIP"].split("."))) + ".in-addr.arpa"
    ptr, _ = nslookup(d, reverse, "PTR")
    assert "web.default.svc.cluster.local" in ptr, ptr
    dashed = ips["first"].replace(".", "-")
    _, pod_record = nslookup(d, f"{dashed}.default.pod.cluster.local")
    assert pod_record == [ips["first"]]


def test_external_names_and_other_names_go_to_the_hosts_resolver(
        cluster: Cluster, upstream: FakeUpstream):
    d = cluster.daemon
    out, addresses = nslookup(d, "ext.default.svc.cluster.local")
    assert "db.corp.example" in out and addresses == ["192.0.2.10"], out
    _, forwarded = nslookup(d, "mirror.example.org")
    assert forwarded == ["192.0.2.20"]
    assert any(q.question[0].name.to_text() == "mirror.example.org."
               for _, q in upstream.seen)
    missing, none = nslookup(d, "nothing-here.default.svc.cluster.local")
    assert none == [] and "NXDOMAIN" in missing, missing


def test_the_api_is_reachable_from_a_pod_with_a_certificate_for_its_names(cluster: Cluster):
    d = cluster.daemon
    # Python in the pod's network namespace: the pod's own path to the API,
    # with a client that checks the certificate (busybox's cannot), for the
    # name in-cluster clients use, at the kubernetes Service's address.
    pid = podman(d, "inspect", "-f", "{{.State.Pid}}", app_container(d, "client")).stdout.strip()
    out = subprocess.run(
        ["nsenter", "-t", pid, "-n", sys.executable, "-c", IN_CLUSTER_GET,
         str(d.state / "pki" / "ca.crt"), (d.state / "token").read_text().strip()],
        capture_output=True, text=True, check=False, timeout=30)
    assert json.loads(out.stdout)["major"] == "1", out.stderr


# ----------------------------------------------------------------------- from the host


def test_node_port_and_load_balancer_answer_at_127_0_0_1(cluster: Cluster):
    d = cluster.daemon
    backends = set(pod_ips(d))
    node_port = spec(d, "web-np")["ports"][0]["nodePort"]
    assert http_get(f"http://127.0.0.1:{node_port}/name") in backends
    lb = d.get_json("service", "web-lb")["status"]["loadBalancer"]["ingress"]
    assert lb == [{"ip": "127.0.0.1", "ipMode": "VIP"}]
    assert http_get(f"http://127.0.0.1:{LB_PORT}/name") in backends
    url = d.cli("service", "web-np", "--url").stdout.strip()
    assert url == f"http://127.0.0.1:{node_port}"
    assert http_get(url + "/name") in backends
    assert "LoadBalancer" in d.kubectl("get", "svc", "web-lb").stdout


def test_kubectl_and_our_cli_show_services_as_on_a_real_cluster(cluster: Cluster):
    d = cluster.daemon
    info = d.kubectl("cluster-info").stdout
    api = json.loads(d.kubectl("config", "view", "-o", "json", "--raw").stdout)[
        "clusters"][0]["cluster"]["server"]
    assert f"Kubernetes control plane is running at {api}" in info
    assert (f"CoreDNS is running at {api}/api/v1/namespaces/kube-system/services/"
            "kube-dns:dns/proxy") in info
    ips = sorted(pod_ips(d).values())
    described = d.kubectl("describe", "service", "web").stdout
    endpoints = re.search(r"^Endpoints:\s+(.*)$", described, re.M)
    assert endpoints and endpoints.group(1) == ",".join(f"{ip}:8080" for ip in ips)
    assert d.cli("describe", "service", "web").stdout == described
    wide = d.cli("get", "svc", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE",
                               "SELECTOR"]
    row = next(line.split() for line in wide if line.startswith("web-lb "))
    assert row[1:4] == ["LoadBalancer", spec(d, "web-lb")["clusterIP"], "127.0.0.1"]
    assert row[-1] == "app=web"


def test_a_backend_failing_readiness_leaves_the_endpoints_and_gets_no_traffic(
        cluster: Cluster):
    d = cluster.daemon
    ips = pod_ips(d)
    victim = sorted(n for n in ips if n.startswith("web-"))[0]
    in_pod(d, victim, "rm /www/ready")
    try:
        wait_for(lambda: ips[victim] not in ready_ips(d, "web"),
                 f"{victim} to leave the ready endpoints", 30)
        ep = d.get_json("endpoints", "web")
        assert ips[victim] in [a["ip"] for s in ep["subsets"]
                               for a in s.get("notReadyAddresses", [])]
        wait_for(lambda: f"{ips[victim]} . 8080" not in table(d) and
                 f"{ips[victim]}:8080" not in table(d),
                 "its rules to go", 30)
        clusterip = spec(d, "web")["clusterIP"]
        out = in_pod(d, "client", f"for i in $(seq 30); do {WGET} "
                                        f"http://{clusterip}/name; done").split()
        assert len(out) == 30 and victim not in out, out
    finally:
        in_pod(d, victim, "touch /www/ready")
        wait_for(lambda: ips[victim] in ready_ips(d, "web"), "it to come back", 30)


def test_deleting_a_service_removes_its_rules(cluster: Cluster):
    d = cluster.daemon
    d.kubectl("create", "service", "nodeport", "doomed", "--tcp", "81:8080")
    d.kubectl("patch", "service", "doomed", "-p",
                    json.dumps({"spec": {"selector": {"app": "web"}}}))
    node_port = spec(d, "doomed")["ports"][0]["nodePort"]
    ip = spec(d, "doomed")["clusterIP"]
    wait_for(lambda: http_get(f"http://127.0.0.1:{node_port}/name"), "the node port", 30)
    d.kubectl("delete", "service", "doomed")
    wait_for(lambda: ip not in table(d) and f" {node_port} " not in table(d),
             "the Service's rules to go", 30)
    assert http_get(f"http://127.0.0.1:{node_port}/name", timeout=2) == ""


def test_after_kill_9_traffic_flows_and_after_restart_the_rules_converge(cluster: Cluster):
    d = cluster.daemon
    clusterip = spec(d, "web")["clusterIP"]
    backends = set(pod_ips(d))
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait()
    # The daemon is gone; the kernel still serves the Services.
    assert http_get(f"http://127.0.0.1:{LB_PORT}/name") in backends
    # Break the rules while it is down: the restart must rebuild them.
    cluster_id = (d.state / "cluster-id").read_text().strip()
    subprocess.run(["nft", "flush", "map", "ip", f"minikube-py-{cluster_id}", "service-ips"],
                   check=True)
    assert http_get(f"http://127.0.0.1:{LB_PORT}/name", timeout=2) == ""
    restarted = cluster.restart()
    wait_for(lambda: http_get(f"http://127.0.0.1:{LB_PORT}/name"), "the rules rebuilt", 60)
    out = in_pod(restarted, "client", f"for i in $(seq 10); do {WGET} "
                                      f"http://{clusterip}/name; done").split()
    assert len(out) == 10 and set(out) <= backends
    # A Service made after the restart gets its rules like any other.
    restarted.kubectl("expose", "deployment", "web", "--name", "late", "--port", "82",
                      "--target-port", "8080")
    late = spec(restarted, "late")["clusterIP"]
    wait_for(lambda: in_pod(restarted, "client",
                            f"timeout 3 wget -q -O - http://{late}:82/name").strip(),
             "the new Service to answer", 60)


def test_teardown_removes_the_cluster_from_the_host(tmp_path: Path):
    state = tmp_path / "state"
    d = start_daemon(state, "--runtime", "podman", "--nodes", "1")
    cluster_id = (state / "cluster-id").read_text().strip()
    try:
        d.kubectl("run", "lonely", "--image", IMAGE, "--image-pull-policy", "IfNotPresent",
                  "--command", "--", "sleep", "3600")
        d.kubectl("wait", "--for=condition=Ready", "pod/lonely", "--timeout=120s")
        refused = d.cli("teardown", "--state-dir", str(state), check=False)
        assert refused.returncode == 1 and "is in use by another minikube-py process" in \
            refused.stderr
    finally:
        assert stop_daemon(d) == 0
    done = d.cli("teardown", "--state-dir", str(state))
    assert f"removed 1 pod(s) of cluster {cluster_id}" in done.stdout
    assert "removed the pod network" in done.stdout
    assert f"nftables table ip minikube-py-{cluster_id}" in done.stdout
    assert not state.exists()
    assert subprocess.run(["podman", "network", "exists", f"minikube-py-{cluster_id}"],
                          check=False).returncode == 1
    assert subprocess.run(["nft", "list", "table", "ip", f"minikube-py-{cluster_id}"],
                          capture_output=True, check=False).returncode == 1
