"""NodeResourcesBalancedAllocation: kube-scheduler's balanced_allocation_test.go table."""

from __future__ import annotations

import pytest

from minikube_py.scheduler.plugins.balancedallocation import BalancedAllocation

from .builders import node, pod, run_score, snapshot

DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
WITH_GPU = [*DEFAULT, {"name": "nvidia.com/gpu", "weight": 1}]


def mk(name: str, milli_cpu: int, memory: int, gpu: int | None = None) -> dict:
    return node(name, milli_cpu=milli_cpu, mem_bytes=memory, pods=None,
                extra={"nvidia.com/gpu": str(gpu)} if gpu is not None else None)


def spec(node_name: str | None, *containers: dict[str, str]) -> dict:
    return pod(node_name=node_name, requests=list(containers))


CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
CPU_MEMORY_GPU = ({"cpu": "1000m", "memory": "2000"},
                  {"cpu": "2000m", "memory": "3000", "nvidia.com/gpu": "3"})

CASES = [
    # CPU 3000/4000 = 0.75, memory 5000/10000 = 0.5: std 0.125 -> 87; node2 balanced -> 100.
    ("nothing scheduled, resources requested, differently sized nodes",
     spec(None, *CPU_AND_MEMORY), [mk("node1", 4000, 10000), mk("node2", 6000, 10000)], [],
     DEFAULT, [87, 100]),
    ("resources requested, pods scheduled with resources",
     spec(None, *CPU_AND_MEMORY), [mk("node1", 10000, 20000), mk("node2", 10000, 20000)],
     [spec("node1", *CPU_ONLY), spec("node2", *CPU_AND_MEMORY)], DEFAULT, [82, 95]),
    ("resources requested, pods scheduled with resources, differently sized nodes",
     spec(None, *CPU_AND_MEMORY), [mk("node1", 10000, 20000), mk("node2", 10000, 50000)],
     [spec("node1", *CPU_ONLY), spec("node2", *CPU_AND_MEMORY)], DEFAULT, [82, 80]),
    ("requested resources at node capacity",
     spec(None, *CPU_ONLY), [mk("node1", 6000, 10000), mk("node2", 6000, 10000)],
     [spec("node1", *CPU_ONLY), spec("node2", *CPU_AND_MEMORY)], DEFAULT, [50, 75]),
    # Three fractions: population standard deviation.
    ("include scalar resource on a node for balanced resource allocation",
     spec(None, {"memory": "0", "nvidia.com/gpu": "1"}),
     [mk("node1", 3500, 40000, 8), mk("node2", 3500, 40000, 8)],
     [spec("node2", *CPU_AND_MEMORY), spec("node1", *CPU_MEMORY_GPU)], WITH_GPU, [70, 65]),
    ("node without the scalar resource should skip the scalar resource",
     spec(None, *CPU_AND_MEMORY), [mk("node1", 3500, 40000, 8), mk("node2", 3500, 40000)], [],
     WITH_GPU, [63, 63]),
    # v1.32 still scores best-effort pods (the PreScore skip arrived in 1.33).
    ("best-effort pod on empty nodes", pod(containers=[]),
     [mk("node1", 4000, 10000), mk("node2", 4000, 10000)], [], DEFAULT, [100, 100]),
]


@pytest.mark.parametrize(("name", "p", "nodes", "existing", "resources", "want"), CASES,
                         ids=[c[0] for c in CASES])
def test_balanced_allocation(name: str, p: dict, nodes: list[dict], existing: list[dict],
                             resources: list[dict], want: list[int]) -> None:
    snap = snapshot(nodes, existing)
    plugin = BalancedAllocation({"resources": resources})
    assert run_score(plugin, p, snap, [n["metadata"]["name"] for n in nodes]) == want


def test_uses_real_requests_not_non_zero_defaults() -> None:
    # A container without requests adds nothing here (useRequested), unlike
    # NodeResourcesFit's scoring which would count 100m / 200Mi.
    nodes = [mk("node1", 4000, 10000)]
    snap = snapshot(nodes, [pod(node_name="node1", containers=[{"name": "c", "image": "x"}])])
    got = run_score(BalancedAllocation(), pod(containers=[{"name": "c", "image": "x"}]), snap,
                    ["node1"])
    assert got == [100]
