"""Property: scheduling never overcommits, and failure messages tell the truth.

Random nodes and pods are scheduled one by one through ``Framework.schedule``
and ``Snapshot.assume``. The expectations are computed here from Kubernetes'
rules (request <= allocatable - requested, pod count, taints, cordons), not by
the scheduler.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .builders import framework, node, pod, snapshot

TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
TAINT_REASON = "node(s) had untolerated taint {dedicated: gpu}"
MIB = 1024 * 1024


@dataclass
class N:
    cpu: int  # millicores
    mem: int  # MiB
    pods: int
    tainted: bool
    cordoned: bool


@dataclass
class P:
    cpu: int | None
    mem: int | None
    priority: int
    tolerates: bool


nodes_st = st.lists(st.builds(N, st.integers(0, 8000), st.integers(0, 8192),
                              st.integers(0, 6), st.booleans(),
                              st.sampled_from([False, False, False, True])),
                    min_size=1, max_size=8)
pods_st = st.lists(st.builds(P, st.one_of(st.none(), st.integers(0, 4000)),
                             st.one_of(st.none(), st.integers(0, 4096)),
                             st.integers(0, 3), st.booleans()), min_size=1, max_size=25)


def true_reasons(n: N, used: tuple[int, int, int], p: P) -> set[str]:
    cpu_used, mem_used, count = used
    out = set()
    if n.cordoned:
        out.add("node(s) were unschedulable")
    if n.tainted and not p.tolerates:
        out.add(TAINT_REASON)
    if count + 1 > n.pods:
        out.add("Too many pods")
    if p.cpu and p.cpu > n.cpu - cpu_used:
        out.add("Insufficient cpu")
    if p.mem and p.mem * MIB > n.mem * MIB - mem_used:
        out.add("Insufficient memory")
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes_st, pods_st, st.integers(0, 2**32))
def test_no_overcommit_and_truthful_messages(nodes: list[N], pods: list[P], seed: int) -> None:
    names = [f"n{i}" for i in range(len(nodes))]
    snap = snapshot([node(name, milli_cpu=n.cpu, memory=f"{n.mem}Mi", pods=n.pods,
                          taints=[TAINT] if n.tainted else [], unschedulable=n.cordoned)
                     for name, n in zip(names, nodes, strict=True)])
    fw = framework()
    rng = random.Random(seed)
    used = {name: (0, 0, 0) for name in names}
    for i, p in enumerate(pods):
        requests: dict[str, str] = {}
        if p.cpu is not None:
            requests["cpu"] = f"{p.cpu}m"
        if p.mem is not None:
            requests["memory"] = f"{p.mem}Mi"
        obj = pod(f"p{i}", requests=[requests], priority=p.priority,
                  tolerations=[{"key": "dedicated", "operator": "Exists"}] if p.tolerates else [])
        result = fw.schedule(obj, snap, rng=rng)
        assert result.error is None
        if result.node is not None:
            k = names.index(result.node)
            assert not true_reasons(nodes[k], used[result.node], p)
            snap.assume(obj, result.node)
            cpu, mem, count = used[result.node]
            used[result.node] = (cpu + (p.cpu or 0), mem + (p.mem or 0) * MIB, count + 1)
            n = nodes[k]
            assert used[result.node][0] <= n.cpu
            assert used[result.node][1] <= n.mem * MIB
            assert used[result.node][2] <= n.pods
            assert snap.requested_of(result.node)["cpu"] == used[result.node][0]
            continue
        head = result.message.split(" preemption:")[0]
        m = re.fullmatch(rf"0/{len(nodes)} nodes are available: (.*)\.", head)
        assert m, result.message
        named: dict[str, int] = {}
        for part in m.group(1).split(", "):
            count_text, reason = part.split(" ", 1)
            named[reason] = int(count_text)
        truths = [true_reasons(n, used[name], p) for name, n in zip(names, nodes, strict=True)]
        for truth in truths:
            # Every node is rejected for a reason the message names and that holds.
            assert truth & set(named), (truth, named)
        for reason, count in named.items():
            assert sum(reason in t for t in truths) >= count, (reason, count, truths)
