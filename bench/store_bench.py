"""Store benchmark: durable writes/s and watch delivery latency, against plain TinyDB.

Run: ``.venv/bin/python bench/store_bench.py [--quick]``

For 1,000 and 10,000 pod-sized objects it measures, in one run:

* our store: creates/s, updates/s (compare-and-swap updates, each durable
  before it returns) with ``durability="flush"`` (survives the process being
  killed) and ``durability="fsync"`` (survives power loss too);
* the baseline, plain ``tinydb.TinyDB(path)`` with its default JSONStorage:
  inserts/s and updates/s on the same documents;
* watch delivery latency (update call start -> watcher receives the event),
  p50/p99, with 1 and 10 watchers, at a paced 1,000 writes/s and with the writer
  saturating the store.

Targets (issue 2): >= 5,000 durable writes/s at 10,000 objects; watch p99 <= 5 ms.
Prints the figures and records them in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tinydb import TinyDB

from bench.results import machine, record, table
from minikube_py.store.store import Store
from minikube_py.store.watch import Watch


def make_pod(i: int) -> dict[str, Any]:
    """A realistic, defaulted pod (~1 KB of JSON)."""
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": f"web-{i:05d}", "namespace": "default",
            "uid": f"6f1c1d2e-0000-4000-8000-{i:012d}",
            "creationTimestamp": "2026-11-21T10:00:00Z", "generation": 1,
            "labels": {"app": "web", "pod-template-hash": "5d4f8b7c9", "tier": "frontend"},
            "annotations": {"seq": "0"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                 "name": "web-5d4f8b7c9", "uid": "rs-uid", "controller": True,
                                 "blockOwnerDeletion": True}],
        },
        "spec": {
            "containers": [{
                "name": "web", "image": "localhost/busybox:latest",
                "command": ["httpd", "-f", "-p", "8080"],
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                              "limits": {"cpu": "200m", "memory": "128Mi"}},
                "imagePullPolicy": "IfNotPresent",
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            }],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
            "securityContext": {}, "nodeName": f"node-{i % 3}",
        },
        "status": {"phase": "Running", "podIP": "10.88.0.5", "hostIP": "127.0.0.1",
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


# ----------------------------------------------------------------------- our store


def bench_ours(n: int, updates: int, durability: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory(dir=Path(__file__).parent) as d:
        store = Store(Path(d) / "s", durability=durability, compact_records=10**9,  # type: ignore[arg-type]
                      compact_interval=3600)
        pods = [make_pod(i) for i in range(n)]
        gc.collect()
        t = time.perf_counter()
        current = [store.create("pods", p) for p in pods]
        create_s = time.perf_counter() - t
        t = time.perf_counter()
        for k in range(updates):
            i = k % n
            obj = current[i]
            obj["metadata"]["annotations"]["seq"] = str(k + 1)
            current[i] = store.update("pods", obj)
        update_s = time.perf_counter() - t
        t = time.perf_counter()
        store.close()
        close_s = time.perf_counter() - t
        t = time.perf_counter()
        Store(Path(d) / "s").close()
        reopen_s = time.perf_counter() - t
    return {"creates_per_s": n / create_s, "updates_per_s": updates / update_s,
            "compact_ms": close_s * 1000, "reopen_ms": reopen_s * 1000}


# ----------------------------------------------------------------------- TinyDB


def bench_tinydb(n: int, ops: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(dir=Path(__file__).parent) as d:
        db = TinyDB(Path(d) / "db.json")
        tbl = db.table("pods")
        tbl.insert_multiple(make_pod(i) for i in range(n))
        t = time.perf_counter()
        for k in range(ops):
            doc = make_pod(k % n)
            doc["metadata"]["annotations"]["seq"] = str(k)
            tbl.update(doc, doc_ids=[k % n + 1])
        update_s = time.perf_counter() - t
        t = time.perf_counter()
        for k in range(ops):
            tbl.insert(make_pod(n + k))
        insert_s = time.perf_counter() - t
        db.close()
    return {"inserts_per_s": ops / insert_s, "updates_per_s": ops / update_s,
            "update_ms": update_s / ops * 1000}


# ----------------------------------------------------------------------- watch latency


def watch_latency(n: int, watchers: int, rate: float | None, duration: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory(dir=Path(__file__).parent) as d:
        store = Store(Path(d) / "s", compact_records=10**9, compact_interval=3600)
        current = [store.create("pods", make_pod(i)) for i in range(n)]
        start_rv = store.resource_version
        received: list[dict[int, float]] = [{} for _ in range(watchers)]
        stop = threading.Event()
        ready = threading.Barrier(watchers + 1)

        def consume(w: Watch, sink: dict[int, float]) -> None:
            ready.wait()
            clock = time.perf_counter
            while not stop.is_set():
                ev = w.next(timeout=0.2)
                if ev is not None:
                    sink[ev.resource_version] = clock()

        ws = [store.watch("pods", resource_version=start_rv) for _ in range(watchers)]
        threads = [threading.Thread(target=consume, args=(w, s)) for w, s in zip(ws, received,
                                                                               strict=True)]
        for th in threads:
            th.start()
        ready.wait()
        sent: dict[int, float] = {}
        count = int((rate or 4000) * duration)
        begin = time.perf_counter()
        for k in range(count):
            if rate:
                target = begin + k / rate
                delay = target - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
            i = k % n
            obj = current[i]
            obj["metadata"]["annotations"]["seq"] = str(k + 1)
            t0 = time.perf_counter()
            current[i] = store.update("pods", obj)
            sent[int(current[i]["metadata"]["resourceVersion"])] = t0
        elapsed = time.perf_counter() - begin
        deadline = time.monotonic() + 10
        while any(len(r) < count for r in received) and time.monotonic() < deadline:
            time.sleep(0.01)
        stop.set()
        for th in threads:
            th.join()
        for w in ws:
            w.stop()
        store.close()
    lat = [(sink[rv] - t0) * 1000 for sink in received for rv, t0 in sent.items() if rv in sink]
    delivered = sum(len(s) for s in received)
    return {"p50_ms": statistics.median(lat), "p99_ms": pct(lat, 99), "max_ms": max(lat),
            "writes_per_s": count / elapsed, "delivered": delivered, "expected": count * watchers}


# ----------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs (smoke test)")
    args = ap.parse_args()
    sizes = [1_000, 10_000]
    updates = 5_000 if args.quick else 20_000
    duration = 1.0 if args.quick else 3.0
    tiny_ops = {1_000: 20 if args.quick else 100, 10_000: 5 if args.quick else 20}

    write_rows: list[list[str]] = []
    summary: dict[tuple[int, str], float] = {}
    for n in sizes:
        flush = bench_ours(n, updates, "flush")
        fsync = bench_ours(n, updates // 4, "fsync")
        tiny = bench_tinydb(n, tiny_ops[n])
        summary[(n, "flush")] = flush["updates_per_s"]
        print(f"{n:>6} objects | ours flush: {flush['creates_per_s']:8.0f} creates/s "
              f"{flush['updates_per_s']:8.0f} updates/s | ours fsync: "
              f"{fsync['updates_per_s']:7.0f} updates/s | TinyDB: {tiny['inserts_per_s']:6.1f} "
              f"inserts/s {tiny['updates_per_s']:6.1f} updates/s "
              f"({tiny['update_ms']:.1f} ms each) | ratio flush/TinyDB updates: "
              f"{flush['updates_per_s'] / tiny['updates_per_s']:.0f}x | compaction "
              f"{flush['compact_ms']:.0f} ms, reopen {flush['reopen_ms']:.0f} ms")
        write_rows.append([
            f"{n:,}", f"{flush['creates_per_s']:,.0f}", f"{flush['updates_per_s']:,.0f}",
            f"{fsync['updates_per_s']:,.0f}", f"{tiny['inserts_per_s']:,.1f}",
            f"{tiny['updates_per_s']:,.1f}",
            f"{flush['updates_per_s'] / tiny['updates_per_s']:,.0f}x",
            f"{flush['compact_ms']:,.0f} / {flush['reopen_ms']:,.0f}",
        ])

    watch_rows: list[list[str]] = []
    worst_paced = 0.0
    for n in sizes:
        for watchers in (1, 10):
            for rate in (1000.0, None):
                r = watch_latency(n, watchers, rate, duration)
                label = "1,000/s paced" if rate else "saturated"
                if rate:
                    worst_paced = max(worst_paced, r["p99_ms"])
                print(f"{n:>6} objects, {watchers:>2} watchers, {label:>13}: "
                      f"p50 {r['p50_ms']:.2f} ms  p99 {r['p99_ms']:.2f} ms  "
                      f"max {r['max_ms']:.1f} ms  at {r['writes_per_s']:.0f} writes/s  "
                      f"delivered {r['delivered']}/{r['expected']}")
                watch_rows.append([f"{n:,}", str(watchers), label, f"{r['writes_per_s']:,.0f}",
                                   f"{r['p50_ms']:.2f}", f"{r['p99_ms']:.2f}",
                                   f"{r['max_ms']:.1f}", f"{r['delivered']}/{r['expected']}"])

    at_10k = summary[(10_000, "flush")]
    verdict = (f"Target >= 5,000 durable writes/s at 10,000 objects: **{at_10k:,.0f}/s "
               f"({'met' if at_10k >= 5000 else 'NOT met'})**. Target watch p99 <= 5 ms at a "
               f"paced 1,000 writes/s: **worst {worst_paced:.2f} ms "
               f"({'met' if worst_paced <= 5 else 'NOT met'})**.")
    print(verdict)
    body = "\n".join([
        "## Store (`bench/store_bench.py`)" + (" — quick run" if args.quick else ""),
        "",
        f"Run: {machine()}. Baseline: plain `tinydb.TinyDB(path)` (default JSONStorage) on "
        "the same pod-sized documents, same process. 'flush' acknowledges a write once it "
        "is in the kernel (survives the process being killed); 'fsync' once it is on disk "
        "(survives power loss).",
        "",
        table(["objects", "ours creates/s", "ours updates/s (flush)",
               "ours updates/s (fsync)", "TinyDB inserts/s", "TinyDB updates/s",
               "updates ratio", "compaction / reopen ms"], write_rows),
        "",
        "Watch delivery latency (update call start -> event received by every watcher). "
        "The target applies to the paced rows: a heavy but realistic load for one host. In "
        "the saturated rows one writer thread runs flat out and takes nearly all of the "
        "interpreter's time (the GIL), so watchers run only in the gaps and each delivery "
        "waits tens of milliseconds; nothing is lost (see delivered). A shorter "
        "`sys.setswitchinterval` was tried and did not change this.",
        "",
        table(["objects", "watchers", "writer", "writes/s", "p50 ms", "p99 ms", "max ms",
               "delivered"], watch_rows),
        "",
        verdict,
    ])
    record("store_bench", body)


if __name__ == "__main__":
    main()
