"""Micro-benchmark: one simple pod against 5,000 nodes (printed, not asserted)."""

from __future__ import annotations

import random
import statistics
import time

from .builders import framework, node, pod, snapshot


def test_schedule_one_simple_pod_against_5000_nodes() -> None:
    snap = snapshot([node(f"node-{i:05d}", cpu="32", memory="128Gi", zone=f"zone-{i % 3}")
                     for i in range(5000)])
    fw = framework()
    rng = random.Random(1)
    p = pod("bench", requests=[{"cpu": "100m", "memory": "128Mi"}])
    for _ in range(50):
        fw.schedule(p, snap, rng=rng)
    samples = []
    for _ in range(300):
        start = time.perf_counter()
        result = fw.schedule(p, snap, rng=rng)
        samples.append(time.perf_counter() - start)
        assert result.node is not None
    samples.sort()
    median = statistics.median(samples) * 1e3
    p90 = samples[int(len(samples) * 0.9)] * 1e3
    print(f"\nschedule() on 5000 nodes: median {median:.3f} ms, p90 {p90:.3f} ms "
          f"({result.evaluated_nodes} evaluated, {result.feasible_nodes} scored)")

    start = time.perf_counter()
    for i in range(1000):
        snap.assume(pod(f"a{i}", requests=[{"cpu": "100m"}]), f"node-{i % 5000:05d}")
    print(f"assume(): {(time.perf_counter() - start) * 1e3 / 1000 * 1e3:.1f} us per pod")
