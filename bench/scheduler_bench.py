"""Scheduler benchmark, kube-scheduler's SchedulingBasic shape, with hollow nodes.

Run: ``.venv/bin/python bench/scheduler_bench.py [--quick]``

For 500 nodes / 1,000 pods and 5,000 nodes / 10,000 pods:

* nodes are hollow (Node objects only, 4 CPU / 32 Gi / 110 pods each, as the
  scheduler_perf node template), registered through the API;
* the pods (100m CPU / 500Mi each, scheduler_perf's default pod) are created
  through the HTTPS API by a separate client process while the scheduler is
  stopped, so creation does not compete with scheduling;
* the scheduler then starts; throughput = bound pods per second from the first
  bind to the last, pods bound through the ``pods/binding`` subresource.

Baseline in the same run: the same number of pods bound round-robin with no
scheduling at all (the API's binding ceiling), so ``scheduler / ceiling`` shows
what scheduling itself costs. Reference figures (not measured here): kube-
scheduler, in Go on a 36-core machine, reports about 983 pods/s at 500 nodes
and 500-1,150 at 5,000 nodes.

Targets (issue 4): >= 1,000 pods/s at 500 nodes, >= 500 pods/s at 5,000 nodes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from minikube_py.apiserver.server import APIServer
from minikube_py.client.local import LocalClient
from minikube_py.scheduler.scheduler import Scheduler
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

TOKEN = "bench-token"

CREATOR = r"""
import json, sys, threading
sys.path.insert(0, sys.argv[4])
from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import Endpoint
url, count, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def make(i):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-{i:06d}", "labels": {"app": "bench"}},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": "100m",
                                                                "memory": "500Mi"}}}]}}
def work(start):
    client = HTTPClient(Endpoint(url, "bench-token"))
    for i in range(start, count, threads):
        client.create(make(i))
ts = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
[t.start() for t in ts]; [t.join() for t in ts]
print("created", count)
"""


def node(i: int) -> dict[str, Any]:
    name = f"hollow-{i:05d}"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "kubernetes.io/os": "linux"}},
            "status": {"capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                       "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


class Env:
    def __init__(self, directory: Path, nodes: int) -> None:
        self.store = Store(directory / "state", history_size=50_000, compact_records=10**9)
        self.registry = Registry(self.store)
        self.registry.ensure_system_namespaces()
        self.client = LocalClient(self.registry)
        for i in range(nodes):
            self.registry.create(node(i))
        self.server = APIServer(self.registry, token=TOKEN, port=0)
        self.server.start()

    def create_pods(self, count: int) -> float:
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CREATOR, self.server.url, str(count), "4",
                              str(Path(__file__).resolve().parents[1])],
                             capture_output=True, text=True, check=True)
        assert out.stdout.strip() == f"created {count}", out.stderr
        return count / (time.perf_counter() - started)

    def close(self) -> None:
        self.server.stop()
        self.store.close()


class BindClock:
    """Wraps a client's bind to time the first and last successful binds."""

    def __init__(self, client: LocalClient, total: int) -> None:
        self._bind = client.bind
        self.total = total
        self.times: list[float] = []
        self.done = threading.Event()
        self._lock = threading.Lock()
        client.bind = self.bind  # type: ignore[method-assign]

    def bind(self, namespace: str, name: str, node: str) -> None:
        self._bind(namespace, name, node)
        with self._lock:
            self.times.append(time.perf_counter())
            if len(self.times) >= self.total:
                self.done.set()

    def rate(self) -> float:
        return (len(self.times) - 1) / (self.times[-1] - self.times[0])


def run_scheduler(nodes: int, pods: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        env = Env(Path(d), nodes)
        try:
            create_rate = env.create_pods(pods)
            clock = BindClock(env.client, pods)
            sched = Scheduler(env.client, record_events=False, seed=1)
            t0 = time.perf_counter()
            sched.start()
            finished = clock.done.wait(timeout=max(120, pods / 50))
            elapsed = time.perf_counter() - t0
            sched.stop()
            placed = env.store.list("pods", field_selector=None).items
            per_node: dict[str, int] = {}
            for p in placed:
                n = p["spec"].get("nodeName")
                if n:
                    per_node[n] = per_node.get(n, 0) + 1
            return {"rate": clock.rate() if len(clock.times) > 1 else 0.0,
                    "bound": float(len(clock.times)), "finished": float(finished),
                    "wall": elapsed, "create_rate": create_rate,
                    "max_per_node": float(max(per_node.values(), default=0)),
                    "nodes_used": float(len(per_node))}
        finally:
            env.close()


def run_ceiling(nodes: int, pods: int) -> float:
    """Bind the same pods round-robin with no scheduling: the API's ceiling."""
    with tempfile.TemporaryDirectory() as d:
        env = Env(Path(d), nodes)
        try:
            env.create_pods(pods)
            names = [p["metadata"]["name"] for p in env.store.list("pods").items]
            t0 = time.perf_counter()
            for i, name in enumerate(names):
                env.client.bind("default", name, f"hollow-{i % nodes:05d}")
            return len(names) / (time.perf_counter() - t0)
        finally:
            env.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="only 500 nodes / 1,000 pods")
    args = ap.parse_args()
    shapes = [(500, 1000)] if args.quick else [(500, 1000), (5000, 10000)]
    targets = {500: 1000.0, 5000: 500.0}
    rows, verdicts = [], []
    for nodes, pods in shapes:
        result = run_scheduler(nodes, pods)
        ceiling = run_ceiling(nodes, pods)
        rate = result["rate"]
        ok = rate >= targets[nodes] and result["bound"] == pods
        print(json.dumps({"nodes": nodes, "pods": pods, **result, "ceiling": ceiling}))
        rows.append([f"{nodes:,}", f"{pods:,}", f"{rate:,.0f}", f"{ceiling:,.0f}",
                     f"{rate / ceiling:.2f}", f"{int(result['bound']):,}",
                     f"{int(result['nodes_used']):,} / {int(result['max_per_node'])}",
                     f"{result['create_rate']:,.0f}"])
        verdicts.append(f"{nodes:,} nodes: {rate:,.0f} pods/s against a target of "
                        f"{targets[nodes]:,.0f} ({'met' if ok else 'NOT met'})")
        print(verdicts[-1])
    record("scheduler_bench", "\n".join([
        "## Scheduler (`bench/scheduler_bench.py`)" + (" — quick run" if args.quick else ""),
        "",
        f"Run: {machine()}. SchedulingBasic shape: hollow nodes (4 CPU, 32Gi, 110 pods), "
        "pods of 100m/500Mi created through the HTTPS API by a separate process, then "
        "scheduled; throughput from first to last bind. Baseline in the same run: binding "
        "the same pods round-robin with no scheduling (the API's ceiling). Reference, not "
        "measured here: kube-scheduler (Go, 36 cores) ~983 pods/s at 500 nodes, 500-1,150 "
        "at 5,000.",
        "",
        table(["nodes", "pods", "scheduled pods/s", "bind-only ceiling pods/s",
               "scheduler / ceiling", "bound", "nodes used / max pods per node",
               "API creates/s"], rows),
        "",
        "Targets (>= 1,000 pods/s at 500 nodes, >= 500 at 5,000): " + "; ".join(verdicts) + ".",
    ]))


if __name__ == "__main__":
    main()
