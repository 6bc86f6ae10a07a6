"""One scheduling cycle against a big cluster: the cost of ``Framework.schedule``.

Run: ``.venv/bin/python bench/scheduler_cycle_bench.py``

A simple pod (100m CPU, 128 Mi) against 5,000 hollow nodes in three zones,
scheduled 300 times on one snapshot (after 50 warm-up cycles), and the cost
of ``Snapshot.assume`` per pod. No API, no threads: this is the inner loop
``bench/scheduler_bench.py`` measures end to end. Baseline in the same run:
the same cycle against 500 nodes, so the ratio shows how the cycle grows with
the cluster (adaptive percentageOfNodesToScore keeps it well below 10x).
(It used to run in the unit tests on every ``make test``; it is a benchmark.)
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table
from minikube_py.scheduler.framework import Framework
from minikube_py.scheduler.snapshot import Snapshot


def node(i: int) -> dict[str, Any]:
    name = f"node-{i:05d}"
    alloc = {"cpu": "32", "memory": "128Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": f"z{i % 3}"}},
            "spec": {}, "status": {"capacity": dict(alloc), "allocatable": alloc}}


def pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {
                "requests": {"cpu": "100m", "memory": "128Mi"}}}]}}


def measure(nodes: int) -> dict[str, float]:
    snap = Snapshot()
    for i in range(nodes):
        snap.add_node(node(i))
    fw = Framework()
    rng = random.Random(1)
    p = pod("bench")
    for _ in range(50):
        fw.schedule(p, snap, rng=rng)
    samples = []
    result = None
    for _ in range(300):
        start = time.perf_counter()
        result = fw.schedule(p, snap, rng=rng)
        samples.append(time.perf_counter() - start)
        assert result.node is not None, result.message
    assert result is not None
    samples.sort()
    start = time.perf_counter()
    for i in range(1000):
        snap.assume(pod(f"a{i}"), f"node-{i % nodes:05d}")
    assume_us = (time.perf_counter() - start) * 1e3
    return {"median": statistics.median(samples) * 1e3,
            "p90": samples[int(len(samples) * 0.9)] * 1e3,
            "evaluated": result.evaluated_nodes, "feasible": result.feasible_nodes,
            "assume_us": assume_us}


def main() -> None:
    rows = []
    figures = {}
    for nodes in (500, 5000):
        f = figures[nodes] = measure(nodes)
        print(f"schedule() on {nodes} nodes: median {f['median']:.3f} ms, p90 "
              f"{f['p90']:.3f} ms ({f['evaluated']:.0f} evaluated, {f['feasible']:.0f} "
              f"scored); assume() {f['assume_us']:.1f} us per pod")
        rows.append([f"{nodes:,}", f"{f['median']:.3f}", f"{f['p90']:.3f}",
                     f"{f['evaluated']:.0f}", f"{f['feasible']:.0f}", f"{f['assume_us']:.1f}"])
    ratio = figures[5000]["median"] / figures[500]["median"]
    record("scheduler_cycle_bench", "\n".join([
        "## One scheduling cycle (`bench/scheduler_cycle_bench.py`)",
        "",
        f"Run: {machine()}. `Framework.schedule` of a simple pod (100m, 128Mi) on one "
        "snapshot of hollow nodes in three zones, 300 cycles after 50 warm-up ones; "
        "`Snapshot.assume` per pod. Baseline in the same run: the 500-node row.",
        "",
        table(["nodes", "median ms", "p90 ms", "nodes evaluated", "nodes scored",
               "assume us/pod"], rows),
        "",
        f"5,000 nodes cost {ratio:.1f}x the 500-node cycle (10x the nodes).",
    ]))


if __name__ == "__main__":
    main()
