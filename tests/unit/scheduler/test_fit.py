"""NodeResourcesFit: the filter and its three scoring strategies.

Score tables are kube-scheduler's own (least_allocated_test.go,
most_allocated_test.go, requested_to_capacity_ratio_test.go); quantities such
as "4000" cpu are whole cores there too, the arithmetic is the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from minikube_py.scheduler.framework import PluginArgsError
from minikube_py.scheduler.plugins.fit import Fit
from minikube_py.scheduler.plugins.resource_allocation import broken_linear

from .builders import MB, node, pod, run_filter, run_score, snapshot

XYZ = "abc.com/xyz"
EXTENDED_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                {"name": XYZ, "weight": 1}]


def n(name: str, cpu: str | None = None, mem: int | None = None, **extra: str) -> dict:
    return node(name, cpu=cpu, mem_bytes=mem, pods=None, extra=extra)


def req(*containers: dict[str, str]) -> dict:
    return pod(requests=list(containers))


def on(node_name: str, *containers: dict[str, str]) -> dict:
    return pod(node_name=node_name, requests=list(containers))


def empty_on(node_name: str) -> dict:
    return pod(node_name=node_name, containers=[])


NOTHING = pod(containers=[])
R12 = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})

LEAST = [
    ("nothing scheduled, nothing requested", NOTHING,
     [n("node1", "4000", 10000), n("node2", "4000", 10000)], [], None, [100, 100]),
    ("nothing scheduled, resources requested, differently sized nodes", req(*R12),
     [n("node1", "4000", 10000), n("node2", "6000", 10000)], [], None, [37, 50]),
    ("no resources requested, pods scheduled", NOTHING,
     [n("node1", "4000", 10000), n("node2", "4000", 10000)],
     [empty_on("node1"), empty_on("node1"), empty_on("node2"), empty_on("node2")], None,
     [100, 100]),
    ("no resources requested, pods scheduled with resources", NOTHING,
     [n("node1", "10000", 20000), n("node2", "10000", 20000)],
     [on("node1", {"cpu": "3000", "memory": "0"}), on("node1", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "5000"})], None, [70, 57]),
    ("resources requested, pods scheduled with resources", req(*R12),
     [n("node1", "10000", 20000), n("node2", "10000", 20000)],
     [on("node1", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "5000"})], None, [57, 45]),
    ("resources requested, pods scheduled with resources, differently sized nodes", req(*R12),
     [n("node1", "10000", 20000), n("node2", "10000", 50000)],
     [on("node1", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "5000"})], None, [57, 60]),
    ("requested resources exceed node capacity", req({"cpu": "3000", "memory": "0"}),
     [n("node1", "4000", 10000), n("node2", "4000", 10000)],
     [on("node1", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "5000"})], None, [50, 25]),
    ("zero node resources, pods scheduled with resources", NOTHING,
     [n("node1"), n("node2")],
     [on("node1", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "5000"})], None, [0, 0]),
    ("different weight on CPU and memory", req(*R12),
     [n("node1", "4000", 10000), n("node2", "6000", 10000)], [],
     [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [41, 50]),
    ("bypass extended resource if the pod does not request", req(*R12),
     [n("node1", "6000", 10000), n("node2", "6000", 10000, **{XYZ: "4"})], [],
     EXTENDED_SET, [50, 50]),
    ("honor extended resource if the pod requests",
     req({"cpu": "3000", "memory": "5000", XYZ: "2"}),
     [n("node1", "6000", 10000, **{XYZ: "4"}), n("node2", "6000", 10000, **{XYZ: "10"})], [],
     EXTENDED_SET, [50, 60]),
    ("if the node doesn't have a resource", req({"cpu": "3000", "memory": "4000"}),
     [n("node1", "6000", 10000), n("node2", "6000", 10000, **{XYZ: "4"})], [],
     [{"name": XYZ, "weight": 2}, {"name": "cpu", "weight": 1},
      {"name": "memory", "weight": 1}], [55, 55]),
]

MOST = [
    ("nothing scheduled, nothing requested", NOTHING,
     [n("node1", "4000", 10000), n("node2", "4000", 10000)], [], None, [0, 0]),
    ("nothing scheduled, resources requested, differently sized nodes", req(*R12),
     [n("node1", "4000", 10000), n("node2", "6000", 10000)], [], None, [62, 50]),
    ("no resources requested, pods scheduled with resources", NOTHING,
     [n("node1", "10000", 20000), n("node2", "10000", 20000)],
     [on("node1", {"cpu": "3000", "memory": "0"}), on("node1", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "5000"})], None, [30, 42]),
    ("resources requested, pods scheduled with resources", req(*R12),
     [n("node1", "10000", 20000), n("node2", "10000", 20000)],
     [on("node1", {"cpu": "3000", "memory": "0"}),
      on("node2", {"cpu": "3000", "memory": "5000"})], None, [42, 55]),
    ("resources requested equal node capacity",
     req({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
     [n("node1", "5000", 10000), n("node2", "10000", 9000)], [], None, [95, 75]),
    ("different weights", req(*R12),
     [n("node1", "4000", 10000), n("node2", "6000", 10000)], [],
     [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [58, 50]),
    # Pods without requests count as 100m / 200Mi each (non-zero requests).
    ("no resources requested, pods scheduled, nonzero request for resource",
     pod(containers=[{"name": "container", "image": "x"}]),
     [node("node1", cpu="250m", memory="1000Mi", pods=None),
      node("node2", cpu="250m", memory="1000Mi", pods=None)],
     [pod(node_name="node1", containers=[{"name": "container", "image": "x"}]),
      pod(node_name="node1", containers=[{"name": "container", "image": "x"}])], None, [80, 30]),
    ("bypass extended resource if the pod does not request", req(*R12),
     [n("node1", "6000", 10000), n("node2", "6000", 10000, **{XYZ: "4"})], [],
     EXTENDED_SET, [50, 50]),
    ("honor extended resource if the pod request",
     req({"cpu": "3000", "memory": "5000", XYZ: "2"}),
     [n("node1", "6000", 10000, **{XYZ: "4"}), n("node2", "6000", 10000, **{XYZ: "10"})], [],
     EXTENDED_SET, [50, 40]),
    ("if the node doesn't have a resource", req({"cpu": "3000", "memory": "4000"}),
     [n("node1", "6000", 10000), n("node2", "6000", 10000, **{XYZ: "4"})], [],
     [{"name": XYZ, "weight": 2}, {"name": "cpu", "weight": 1},
      {"name": "memory", "weight": 1}], [45, 45]),
]


def fit(strategy: str, resources: list[dict[str, Any]] | None = None,
        shape: list[dict[str, int]] | None = None) -> Fit:
    scoring: dict[str, Any] = {"type": strategy}
    if resources is not None:
        scoring["resources"] = resources
    if shape is not None:
        scoring["requestedToCapacityRatio"] = {"shape": shape}
    return Fit({"scoringStrategy": scoring})


def check(plugin: Fit, p: dict, nodes: list[dict], existing: list[dict], want: list[int]) -> None:
    snap = snapshot(nodes, existing)
    assert run_score(plugin, p, snap, [x["metadata"]["name"] for x in nodes]) == want


@pytest.mark.parametrize(("name", "p", "nodes", "existing", "resources", "want"), LEAST,
                         ids=[c[0] for c in LEAST])
def test_least_allocated(name: str, p: dict, nodes: list[dict], existing: list[dict],
                         resources: list[dict] | None, want: list[int]) -> None:
    check(fit("LeastAllocated", resources), p, nodes, existing, want)


@pytest.mark.parametrize(("name", "p", "nodes", "existing", "resources", "want"), MOST,
                         ids=[c[0] for c in MOST])
def test_most_allocated(name: str, p: dict, nodes: list[dict], existing: list[dict],
                        resources: list[dict] | None, want: list[int]) -> None:
    check(fit("MostAllocated", resources), p, nodes, existing, want)


SHAPE_LEAST = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
RTCR = [
    ("nothing scheduled, nothing requested", NOTHING,
     [n("node1", "4000", 10000), n("node2", "4000", 10000)],
     [empty_on("node1"), empty_on("node1")], [100, 100]),
    ("nothing scheduled, resources requested, differently sized nodes", req(*R12),
     [n("node1", "4000", 10000), n("node2", "6000", 10000)],
     [empty_on("node1"), empty_on("node1")], [38, 50]),
    ("no resources requested, pods scheduled with resources", NOTHING,
     [n("node1", "4000", 10000), n("node2", "6000", 10000)],
     [on("node1", {"cpu": "3000", "memory": "5000"}),
      on("node2", {"cpu": "3000", "memory": "5000"})], [38, 50]),
]


@pytest.mark.parametrize(("name", "p", "nodes", "existing", "want"), RTCR,
                         ids=[c[0] for c in RTCR])
def test_requested_to_capacity_ratio(name: str, p: dict, nodes: list[dict],
                                     existing: list[dict], want: list[int]) -> None:
    check(fit("RequestedToCapacityRatio", None, SHAPE_LEAST), p, nodes, existing, want)


FOO = "intel.com/foo"
BAR = "intel.com/bar"
BIN_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]


def mk(name: str, **extended: int) -> dict:
    return node(name, milli_cpu=4000, mem_bytes=10000 * MB, pods=None,
                extra={k.replace("_", "/"): str(v) for k, v in extended.items()})


@pytest.mark.parametrize(("p", "existing", "want"), [
    (NOTHING, [empty_on("node1")], [0, 0]),
    (req({FOO: "2"}), [empty_on("node1")], [2, 5]),
    (req({FOO: "2"}), [on("node2", {FOO: "2"})], [2, 10]),
    (req({FOO: "4"}), [empty_on("node1")], [5, 10]),
])
def test_resource_bin_packing_single_extended(p: dict, existing: list[dict],
                                              want: list[int]) -> None:
    nodes = [node("node1", milli_cpu=4000, mem_bytes=10000 * MB, pods=None, extra={FOO: "8"}),
             node("node2", milli_cpu=4000, mem_bytes=10000 * MB, pods=None, extra={FOO: "4"})]
    check(fit("RequestedToCapacityRatio", [{"name": FOO, "weight": 1}], BIN_SHAPE),
          p, nodes, existing, want)


def test_resource_bin_packing_multiple_extended() -> None:
    # foo weight 3, bar weight 5: node1 (2*3 + 5*5)/8 = 3.875 -> 4, node2 (5*3 + 2*5)/8 -> 3.
    nodes = [node("node1", milli_cpu=4000, mem_bytes=10000 * MB, pods=None,
                  extra={FOO: "8", BAR: "4"}),
             node("node2", milli_cpu=4000, mem_bytes=10000 * MB, pods=None,
                  extra={FOO: "4", BAR: "8"})]
    plugin = fit("RequestedToCapacityRatio",
                 [{"name": FOO, "weight": 3}, {"name": BAR, "weight": 5}], BIN_SHAPE)
    check(plugin, NOTHING, nodes, [], [0, 0])
    check(plugin, req({FOO: "2", BAR: "2"}), nodes, [], [4, 3])


@pytest.mark.parametrize(("points", "assertions"), [
    ([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2),
                          (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5),
                                    (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2),
                                   (100, 2), (110, 2)]),
])
def test_broken_linear_function(points: list[tuple[int, int]],
                                assertions: list[tuple[int, int]]) -> None:
    fn = broken_linear(points)
    got = fn(np.array([p for p, _ in assertions], np.int64)).tolist()
    assert got == [want for _, want in assertions]


def test_negative_slope_truncates_toward_zero() -> None:
    # Go: 10 + (0-10)*(33-0)/(100-0) = 10 + (-330/100) = 10 - 3 (truncated), not 10 - 4.
    assert broken_linear([(0, 10), (100, 0)])(np.array([33], np.int64)).tolist() == [7]


@pytest.mark.parametrize(("resources", "path"), [
    ([{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
     "scoringStrategy.resources[0].weight"),
    ([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}],
     "scoringStrategy.resources[1].weight"),
    ([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}],
     "scoringStrategy.resources[1].weight"),
])
def test_resource_weight_validation(resources: list[dict], path: str) -> None:
    with pytest.raises(PluginArgsError) as err:
        fit("LeastAllocated", resources)
    assert [p for p, _ in err.value.errors] == [path]


# ----------------------------------------------------------------------------- filter

CAP = {"cpu": "10", "memory": "20", "ephemeral-storage": "20", "nvidia.com/gpu": "2"}


def filt(p: dict, existing: list[dict], args: dict | None = None,
         pods: int = 32) -> tuple[str, ...] | None:
    snap = snapshot([node("n", pods=pods, extra=CAP)], existing)
    return run_filter(Fit(args or {}), p, snap, ["n"])[0]


FILTER = [
    ("no resources requested always fits", pod(containers=[]),
     [on("n", {"cpu": "10", "memory": "20"})], None),
    ("too many resources fails", req({"cpu": "1", "memory": "1"}),
     [on("n", {"cpu": "10", "memory": "20"})], ("Insufficient cpu", "Insufficient memory")),
    ("too many resources fails due to cpu only", req({"cpu": "2", "memory": "1"}),
     [on("n", {"cpu": "9", "memory": "5"})], ("Insufficient cpu",)),
    ("equal edge case fits", req({"cpu": "5", "memory": "1"}),
     [on("n", {"cpu": "5", "memory": "19"})], None),
    # A pod requesting 0 cpu is not blocked by an over-committed cpu.
    ("zero cpu request on a full node", req({"cpu": "0", "memory": "1"}),
     [on("n", {"cpu": "12", "memory": "5"})], None),
    ("init container is the peak", pod(
        init_containers=[{"name": "i", "image": "x", "resources": {"requests": {"cpu": "3"}}}],
        requests=[{"cpu": "1"}]), [on("n", {"cpu": "8"})], ("Insufficient cpu",)),
    ("overhead counts", pod(requests=[{"cpu": "2"}], overhead={"cpu": "500m"}),
     [on("n", {"cpu": "8"})], ("Insufficient cpu",)),
    ("ephemeral storage", req({"ephemeral-storage": "5"}),
     [on("n", {"ephemeral-storage": "16"})], ("Insufficient ephemeral-storage",)),
    ("extended resource", req({"nvidia.com/gpu": "2"}),
     [on("n", {"nvidia.com/gpu": "1"})], ("Insufficient nvidia.com/gpu",)),
    ("extended resource the node does not have", req({"example.com/foo": "1"}), [],
     ("Insufficient example.com/foo",)),
]


@pytest.mark.parametrize(("name", "p", "existing", "want"), FILTER, ids=[c[0] for c in FILTER])
def test_filter(name: str, p: dict, existing: list[dict], want: tuple[str, ...] | None) -> None:
    assert filt(p, existing) == want


def test_too_many_pods_comes_first() -> None:
    assert filt(req({"cpu": "1"}), [on("n", {"cpu": "10"})], pods=1) == (
        "Too many pods", "Insufficient cpu")
    assert filt(pod(containers=[]), [empty_on("n")], pods=1) == ("Too many pods",)


def test_ignored_resources_and_groups() -> None:
    p = req({"nvidia.com/gpu": "3"})
    assert filt(p, [], {"ignoredResources": ["nvidia.com/gpu"]}) is None
    assert filt(p, [], {"ignoredResourceGroups": ["nvidia.com"]}) is None
    assert filt(p, []) == ("Insufficient nvidia.com/gpu",)


def test_nominated_pods_of_higher_or_equal_priority_count() -> None:
    snap = snapshot([node("n", cpu="4")])
    snap.nominate(pod("big", priority=10, requests=[{"cpu": "3"}]), "n")
    plugin = Fit()
    assert run_filter(plugin, pod(priority=10, requests=[{"cpu": "2"}]), snap, ["n"]) == [
        ("Insufficient cpu",)]
    assert run_filter(plugin, pod(priority=11, requests=[{"cpu": "2"}]), snap, ["n"]) == [None]
