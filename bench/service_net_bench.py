"""Service data plane and cluster DNS, measured from inside a pod.

Run: ``.venv/bin/python bench/service_net_bench.py [--requests N] [--queries N]``

The real path: the daemon as a process on Podman (2 nodes), a Deployment of
one busybox httpd behind a ClusterIP Service, and a client pod. The client
side is this script's own Python, run in the client pod's network namespace
(``nsenter -n``), so every connection and query leaves the pod exactly as the
pod's own would; only the process is the host's (busybox has no client that
can time itself).

* **Connect + request latency**: a new TCP connection, ``GET /name``, the
  whole answer read, through the ClusterIP and straight to the pod's IP,
  alternating one by one so both see the same moment of a noisy machine.
  Target (issue 15): ClusterIP p50 within 1.1x of the direct path.
* **DNS**: A queries for ``web.default.svc.cluster.local`` over UDP to the
  pod's nameserver (the ``kube-dns`` ClusterIP), and, side by side, to the DNS
  server's own address on the gateway (no DNAT), alternating. Target: p99 of
  the pod's path within 2 ms.

The cluster is torn down afterwards (``minikube-py teardown``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load

IMAGE = "localhost/minikube-py/busybox:1.35"

#: What runs inside the client pod's network namespace (the host's interpreter).
CLIENT = r'''
import json, socket, sys, time
import dns.message, dns.query
args = json.loads(sys.argv[1])

def http(ip):
    started = time.perf_counter()
    with socket.create_connection((ip, args["port_of"][ip]), timeout=5) as s:
        s.sendall(b"GET /name HTTP/1.0\r\nHost: x\r\n\r\n")
        while s.recv(65536):
            pass
    return time.perf_counter() - started

def query(server):
    q = dns.message.make_query("web.default.svc.cluster.local", "A")
    started = time.perf_counter()
    r = dns.query.udp(q, server, timeout=2)
    took = time.perf_counter() - started
    assert r.answer, r
    return took

out = {"http": {ip: [] for ip in args["http"]}, "dns": {s: [] for s in args["dns"]}}
for _ in range(20):  # warm both paths (conntrack, ARP, caches)
    for ip in args["http"]:
        http(ip)
    for server in args["dns"]:
        query(server)
for _ in range(args["requests"]):
    for ip in args["http"]:
        out["http"][ip].append(http(ip))
for _ in range(args["queries"]):
    for server in args["dns"]:
        out["dns"][server].append(query(server))
print(json.dumps(out))
'''


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def manifests() -> list[dict[str, Any]]:
    serve = "mkdir -p /www && hostname > /www/name && exec httpd -f -p 8080 -h /www"
    return [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                      "containers": [{"name": "web", "image": IMAGE,
                                      "imagePullPolicy": "IfNotPresent",
                                      "command": ["sh", "-c", serve]}]}}}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
         "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "client"},
         "spec": {"containers": [{"name": "c", "image": IMAGE, "imagePullPolicy": "IfNotPresent",
                                  "command": ["sleep", "3600"]}]}},
    ]


class Cluster:
    def __init__(self, state: Path) -> None:
        self.state = state
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(state),
             "--listen", "127.0.0.1:0", "--nodes", "2", "--runtime", "podman",
             "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 90
        while True:
            try:
                self.client = HTTPClient(load(state / "kubeconfig"))
                self.client.request("GET", "/readyz")
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise SystemExit("the daemon did not start") from None
                time.sleep(0.2)

    def kubectl(self, *args: str, stdin: str | None = None) -> str:
        return subprocess.run(["kubectl", "--kubeconfig", str(self.state / "kubeconfig"),
                               *args], input=stdin, capture_output=True, text=True,
                              check=True).stdout

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        subprocess.run([sys.executable, "-m", "minikube_py", "teardown", "--state-dir",
                        str(self.state)], capture_output=True, check=False)


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.read())
    except OSError:
        return False


def client_pid(c: Cluster) -> str:
    cluster = (c.state / "cluster-id").read_text().strip()
    names = subprocess.run(
        ["podman", "--url", f"unix://{c.state}/podman/podman.sock", "ps", "--format",
         "{{.Names}}", "--filter", f"label=minikube-py.io/cluster={cluster}", "--filter",
         "label=minikube-py.io/name=client"], capture_output=True, text=True,
        check=True).stdout.split()
    app = next(n for n in names if not n.endswith("-infra"))
    return subprocess.run(["podman", "--url", f"unix://{c.state}/podman/podman.sock",
                           "inspect", "-f", "{{.State.Pid}}", app], capture_output=True,
                          text=True, check=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=3000)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="svcnet-"))
    c = Cluster(tmp / "state")
    try:
        c.kubectl("apply", "-f", "-", stdin=yaml.safe_dump_all(manifests()))
        c.kubectl("wait", "--for=condition=Ready", "pod", "--all", "--timeout=180s")
        cluster_ip = c.client.get("services", "default", "web")["spec"]["clusterIP"]
        pod_ip = next(p for p in c.client.list("pods", namespace="default").items
                  if p["metadata"]["name"].startswith("web-"))["status"]["podIP"]
        gateway = json.loads((c.state / "network.json").read_text())["gateway"]
        deadline = time.monotonic() + 60
        while not answers(f"http://{cluster_ip}/name"):
            if time.monotonic() > deadline:
                raise SystemExit("the Service never answered from the host")
            time.sleep(0.2)
        spec = {"http": [cluster_ip, pod_ip], "port_of": {cluster_ip: 80, pod_ip: 8080},
                "dns": ["10.96.0.10", gateway], "requests": args.requests,
                "queries": args.queries}
        out = subprocess.run(["nsenter", "-t", client_pid(c), "-n", sys.executable, "-c",
                              CLIENT, json.dumps(spec)], capture_output=True, text=True,
                             check=True).stdout
        got = json.loads(out)
    finally:
        c.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    via, direct = got["http"][cluster_ip], got["http"][pod_ip]
    pod_dns, gw_dns = got["dns"]["10.96.0.10"], got["dns"][gateway]

    def ms(v: float) -> str:
        return f"{v * 1000:.3f}"

    ratio50 = statistics.median(via) / statistics.median(direct)
    ratio99 = pct(via, 99) / pct(direct, 99)
    rows = [["connect + GET through the ClusterIP", ms(statistics.median(via)),
             ms(pct(via, 99))],
            ["connect + GET to the pod IP", ms(statistics.median(direct)), ms(pct(direct, 99))],
            ["DNS A query to 10.96.0.10 (the pod's nameserver)", ms(statistics.median(pod_dns)),
             ms(pct(pod_dns, 99))],
            ["DNS A query to the server's own address", ms(statistics.median(gw_dns)),
             ms(pct(gw_dns, 99))]]
    body = "\n".join([
        "## Service data plane and cluster DNS from a pod (`bench/service_net_bench.py`)", "",
        f"Run: {machine()}. Daemon on Podman (2 nodes), one busybox httpd behind a "
        "ClusterIP Service; the client runs in a pod's network namespace. "
        f"{args.requests} requests per path and {args.queries} queries per server, "
        "alternating.", "",
        table(["path", "p50 ms", "p99 ms"], rows), "",
        f"ClusterIP / direct: **{ratio50:.2f}x** at p50, {ratio99:.2f}x at p99 "
        f"(target <= 1.1x: {'met' if ratio50 <= 1.1 else 'NOT met'}). "
        f"DNS p99 from the pod: **{pct(pod_dns, 99) * 1000:.2f} ms** (target <= 2 ms: "
        f"{'met' if pct(pod_dns, 99) <= 0.002 else 'NOT met'})."])
    print(body)
    record("service_net_bench", body)


if __name__ == "__main__":
    main()
