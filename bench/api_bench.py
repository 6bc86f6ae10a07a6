"""API benchmark: GET and CREATE latency at 1,000 objects, and watch fan-out to 50 watchers.

Run: ``.venv/bin/python bench/api_bench.py [--quick]``

The daemon runs as its own process (fake runtime, one node) so client and
server do not share an interpreter lock; the client is our HTTPClient over
HTTPS with keep-alive, as kubectl uses the API. Side by side in the same run:

* the floor of the HTTP stack: ``GET /livez`` over the same connection (no
  routing, store or JSON work), so ``GET pod / GET livez`` shows what the API
  itself costs;
* the same operations in-process (registry, no HTTP), so the HTTP share shows.

Targets (issue 3): GET p99 <= 5 ms, CREATE p99 <= 10 ms at 1,000 objects.
Prints the figures and records them in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import load
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store


def pod(i: int, prefix: str = "bench") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{prefix}-{i:05d}", "labels": {"app": "bench", "i": str(i)}},
            "spec": {"containers": [{
                "name": "web", "image": "localhost/minikube-py/busybox:1.35",
                "command": ["httpd", "-f", "-p", "8080"],
                "ports": [{"containerPort": 8080}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                              "limits": {"cpu": "200m", "memory": "128Mi"}}}]}}


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def timed(fn: Any, *args: Any) -> float:
    t = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - t) * 1000


def start_daemon(state: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "minikube_py", "daemon", "--state-dir", str(state),
         "--listen", "127.0.0.1:0", "--nodes", "1", "--runtime", "fake",
         "--log-level", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if (state / "kubeconfig").exists():
            try:
                HTTPClient(load(state / "kubeconfig")).request("GET", "/readyz")
                return proc
            except Exception:
                pass
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("the daemon did not start")


def bench_http(n: int, gets: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as d:
        proc = start_daemon(Path(d) / "state")
        try:
            client = HTTPClient(load(Path(d) / "state" / "kubeconfig"))
            client.request("GET", "/livez")  # open the connection once
            create = [timed(client.create, pod(i), ) for i in range(n)]
            names = [f"bench-{i:05d}" for i in range(n)]
            rng = random.Random(1)
            get = [timed(client.get, "pods", "default", rng.choice(names)) for _ in range(gets)]
            floor = [timed(client.request, "GET", "/livez") for _ in range(gets)]
            fanout = watch_fanout(client, watchers=50, events=200, rate=100.0)
            return {"create": create, "get": get, "floor": floor, **fanout}
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)


def watch_fanout(client: HTTPClient, *, watchers: int, events: int,
                 rate: float) -> dict[str, list[float]]:
    """Latency from create call start to each watcher receiving the ADDED event."""
    rv = client.list("pods", limit=1).resource_version
    streams = [client.watch("pods", label_selector="app=fanout", resource_version=rv)
               for _ in range(watchers)]
    received: list[dict[str, float]] = [{} for _ in streams]

    def consume(i: int) -> None:
        for ev in streams[i]:
            received[i][ev.object["metadata"]["name"]] = time.perf_counter()
            if len(received[i]) == events:
                return

    threads = [threading.Thread(target=consume, args=(i,), daemon=True)
               for i in range(watchers)]
    for t in threads:
        t.start()
    sent: dict[str, float] = {}
    begin = time.perf_counter()
    for k in range(events):
        delay = begin + k / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        obj = pod(k, "fanout")
        obj["metadata"]["labels"]["app"] = "fanout"
        sent[obj["metadata"]["name"]] = time.perf_counter()
        client.create(obj)
    for t in threads:
        t.join(timeout=30)
    for s in streams:
        s.stop()
    lat = [(r[name] - t0) * 1000 for r in received for name, t0 in sent.items() if name in r]
    return {"fanout": lat, "delivered": [float(sum(len(r) for r in received))],
            "expected": [float(watchers * events)]}


def bench_inprocess(n: int, gets: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "s")
        registry = Registry(store)
        registry.ensure_system_namespaces()
        create = [timed(registry.create, pod(i)) for i in range(n)]
        rng = random.Random(1)
        get = [timed(registry.get, "pods", "default", f"bench-{rng.randrange(n):05d}")
               for _ in range(gets)]
        store.close()
    return {"create": create, "get": get}


def row(label: str, values: list[float]) -> list[str]:
    return [label, f"{statistics.median(values):.2f}", f"{pct(values, 99):.2f}",
            f"{max(values):.1f}", str(len(values))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n, gets = 1000, (1000 if args.quick else 5000)
    http = bench_http(n, gets)
    local = bench_inprocess(n, gets)
    rows = [
        row("CREATE pod (HTTPS)", http["create"]),
        row("GET pod (HTTPS)", http["get"]),
        row("GET /livez (HTTPS floor)", http["floor"]),
        row("CREATE pod (in-process registry)", local["create"]),
        row("GET pod (in-process registry)", local["get"]),
        row("watch fan-out, 50 watchers, 100 creates/s", http["fanout"]),
    ]
    for r in rows:
        print(f"{r[0]:<44} p50 {r[1]:>6} ms   p99 {r[2]:>6} ms   max {r[3]:>6} ms   n={r[4]}")
    get_p99, create_p99 = pct(http["get"], 99), pct(http["create"], 99)
    ratio = statistics.median(http["get"]) / statistics.median(http["floor"])
    delivered = f"{int(http['delivered'][0])}/{int(http['expected'][0])}"
    verdict = (f"Targets at 1,000 objects: GET p99 <= 5 ms: **{get_p99:.2f} ms "
               f"({'met' if get_p99 <= 5 else 'NOT met'})**; CREATE p99 <= 10 ms: "
               f"**{create_p99:.2f} ms ({'met' if create_p99 <= 10 else 'NOT met'})**. "
               f"GET costs {ratio:.1f}x the bare HTTPS round trip. Watch fan-out delivered "
               f"{delivered} events.")
    print(verdict)
    record("api_bench", "\n".join([
        "## API (`bench/api_bench.py`)" + (" — quick run" if args.quick else ""),
        "",
        f"Run: {machine()}. Daemon in its own process (fake runtime, 1 node), client: "
        "HTTPClient over HTTPS with keep-alive. Baselines in the same run: the bare HTTPS "
        "round trip (`GET /livez`) and the same operations in-process (registry, no HTTP).",
        "",
        table(["operation", "p50 ms", "p99 ms", "max ms", "samples"], rows),
        "",
        verdict,
    ]))


if __name__ == "__main__":
    main()
