"""The scheduling cycle: node search, FitError text, selection and weights."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from minikube_py.api.labels import parse_selector
from minikube_py.scheduler.framework import (
    Framework,
    Profile,
    fit_error_message,
    num_feasible_nodes_to_find,
)
from minikube_py.scheduler.status import REASONS, Code

from .builders import framework, node, pod, schedule, snapshot

TAINT = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]


@pytest.mark.parametrize(("percentage", "nodes", "want"), [
    # schedule_one_test.go TestNumFeasibleNodesToFind
    (None, 10, 10),
    (40, 10, 10),
    (None, 1000, 420),
    (40, 1000, 400),
    (70, 1000, 700),
    (None, 6000, 300),
    (40, 6000, 2400),
    # Edges of the rule: all nodes below 100, never fewer than 100 after.
    (None, 99, 99),
    (None, 100, 100),
    (1, 5000, 100),
    (100, 5000, 5000),
    (None, 5000, 500),
    (0, 250, 120),
])
def test_num_feasible_nodes_to_find(percentage: int | None, nodes: int, want: int) -> None:
    assert num_feasible_nodes_to_find(percentage, nodes) == want


def reason(plugin: str, *reasons: str, code: Code = Code.UNSCHEDULABLE) -> int:
    return REASONS.intern(plugin, code, *reasons)


def test_fit_error_message_counts_and_sorts_as_strings() -> None:
    cpu = reason("NodeResourcesFit", "Insufficient cpu")
    both = reason("NodeResourcesFit", "Insufficient cpu", "Insufficient memory")
    taint = reason("TaintToleration", "node(s) had untolerated taint {dedicated: gpu}")
    statuses = np.array([cpu] * 10 + [both] * 1 + [taint] * 2, np.uint16)
    # Each reason counts per node; "11 ..." sorts before "2 ..." like Go's sort.Strings.
    assert fit_error_message(13, statuses, 0) == (
        "0/13 nodes are available: 1 Insufficient memory, 11 Insufficient cpu, "
        "2 node(s) had untolerated taint {dedicated: gpu}.")


def test_fit_error_message_absent_nodes_and_postfilter() -> None:
    absent = reason("", "node(s) didn't satisfy plugin(s) [NodeAffinity]",
                    code=Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    cpu = reason("NodeResourcesFit", "Insufficient cpu")
    msg = fit_error_message(3, np.array([cpu], np.uint16), absent,
                            postfilter_message="preemption: 0/3 nodes are available: "
                                               "3 Preemption is not helpful for scheduling.")
    assert msg == ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy "
                   "plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: "
                   "3 Preemption is not helpful for scheduling.")
    assert fit_error_message(2, np.zeros(0, np.uint16), 0, prefilter_message="boom") == (
        "0/2 nodes are available: boom.")


def test_unschedulable_message_end_to_end() -> None:
    snap = snapshot([node("n1", cpu="1"), node("n2", cpu="4", taints=TAINT),
                     node("n3", cpu="4", taints=TAINT)])
    result = schedule(framework(), pod(requests=[{"cpu": "2"}]), snap)
    assert result.node is None
    assert result.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint "
        "{dedicated: gpu}. preemption: 0/3 nodes are available: 1 No preemption victims found "
        "for incoming pod, 2 Preemption is not helpful for scheduling.")
    assert result.unschedulable_plugins == {"NodeResourcesFit", "TaintToleration"}
    assert result.decision.outcome == "Unschedulable"


def test_no_nodes() -> None:
    result = schedule(framework(), pod(), snapshot())
    assert result.node is None and result.message == "no nodes available to schedule pods"


def test_prefilter_restriction_message() -> None:
    snap = snapshot([node("n1", cpu="1"), node("n2", cpu="4"), node("n3", cpu="4")])
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}
    result = schedule(framework(), pod(requests=[{"cpu": "2"}], affinity=affinity), snap)
    assert result.message.startswith(
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
        "[NodeAffinity].")
    assert result.decision.count == 1
    ok = schedule(framework(), pod(requests=[{"cpu": "500m"}], affinity=affinity), snap)
    assert ok.node == "n1"


def test_prefilter_rejection_message() -> None:
    snap = snapshot([node("n1"), node("n2")])
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n1"]},
            {"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}}
    result = schedule(framework(), pod(affinity=affinity), snap)
    assert result.message == (
        "0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 nodes are "
        "available: 2 Preemption is not helpful for scheduling.")
    assert result.unschedulable_plugins == {"NodeAffinity"}


def test_rotating_start_index_and_early_stop() -> None:
    snap = snapshot([node(f"n{i:03d}", cpu="4") for i in range(200)])
    fw = framework()
    result = schedule(fw, pod(requests=[{"cpu": "1"}]), snap)
    # 200 nodes: max(100, 200 * 49%) = 100 feasible nodes are enough.
    assert result.feasible_nodes == 100 and result.evaluated_nodes == 100
    assert fw.next_start_node_index == 100
    second = schedule(fw, pod(requests=[{"cpu": "1"}]), snap)
    assert set(second.decision.evaluated.tolist()).isdisjoint(
        result.decision.evaluated.tolist())
    assert fw.next_start_node_index == 0


def test_rejected_nodes_before_the_quota_count_as_processed() -> None:
    nodes = [node(f"n{i:03d}", cpu="4" if i % 2 else "1") for i in range(300)]
    snap = snapshot(nodes)
    fw = framework()
    result = schedule(fw, pod(requests=[{"cpu": "2"}]), snap)
    # 300 nodes -> 48% = 144 to find; every other node fits. The search goes on
    # until the next feasible node would exceed the quota (kube-scheduler cancels
    # there), so the failing node after the 144th feasible one is processed too.
    assert result.feasible_nodes == 144
    assert result.evaluated_nodes == 289
    assert fw.next_start_node_index == 289


def test_ties_are_broken_at_random() -> None:
    snap = snapshot([node("a", cpu="4"), node("b", cpu="4")])
    fw = framework()
    chosen = {fw.schedule(pod(requests=[{"cpu": "1"}]), snap, rng=random.Random(s)).node
              for s in range(20)}
    assert chosen == {"a", "b"}


def test_highest_total_wins_and_totals_are_weighted_sums() -> None:
    snap = snapshot([node("big", cpu="8", memory="16Gi"), node("small", cpu="2", memory="4Gi")])
    result = schedule(framework(), pod(requests=[{"cpu": "1", "memory": "1Gi"}]), snap)
    assert result.node == "big"
    d = result.decision
    total = np.zeros(len(d.feasible), np.int64)
    for col in d.scorers:
        if not col.skipped:
            assert col.normalized is not None
            total += col.normalized.astype(np.int64) * col.weight
    assert (total == d.totals).all()
    skipped = {c.name for c in d.scorers if c.skipped}
    assert skipped == {"NodeAffinity", "PodTopologySpread", "InterPodAffinity"}


def test_single_feasible_node_is_chosen_without_scoring() -> None:
    snap = snapshot([node("a", cpu="4"), node("b", cpu="4", taints=TAINT)])
    result = schedule(framework(), pod(requests=[{"cpu": "1"}]), snap)
    assert result.node == "a" and result.decision.scorers == ()


def test_nominated_node_is_tried_first() -> None:
    snap = snapshot([node("big", cpu="64"), node("small", cpu="2")])
    fw = framework()
    fw.next_start_node_index = 1
    result = schedule(fw, pod(requests=[{"cpu": "1"}], nominated="small"), snap)
    assert result.node == "small" and result.evaluated_nodes == 1
    assert fw.next_start_node_index == 0
    # When the nominated node no longer fits, the normal search runs.
    result = schedule(fw, pod(requests=[{"cpu": "3"}], nominated="small"), snap)
    assert result.node == "big"


def test_plugin_errors_become_error_results() -> None:
    class Boom:
        name = "Boom"

        def __init__(self, args: Any, handle: Any) -> None:
            pass

        def filter(self, *a: Any) -> Any:
            raise RuntimeError("kaboom")

    from minikube_py.scheduler.plugins import in_tree_registry

    registry = {**in_tree_registry(), "Boom": Boom}
    fw = Framework(Profile(filters=("Boom",), scores=(), post_filters=()), registry=registry)
    result = fw.schedule(pod(), snapshot([node("a")]), rng=random.Random(0))
    assert result.error == "RuntimeError: kaboom" and result.node is None
    assert result.decision.outcome == "Error"


def test_unknown_plugin_in_profile() -> None:
    with pytest.raises(ValueError, match='plugin "Nope" does not exist'):
        Framework(Profile(filters=("Nope",)))


def test_controller_selector_per_call_enables_default_spreading() -> None:
    nodes = [node("a", zone="z1"), node("b", zone="z2")]
    existing = [pod(node_name="a", labels={"app": "web"}), pod(node_name="a",
                                                                  labels={"app": "web"})]
    snap = snapshot(nodes, existing)
    fw = framework()
    p = pod(labels={"app": "web"})
    plain = fw.schedule(p, snap, rng=random.Random(0))
    assert [c.name for c in plain.decision.scorers if c.skipped].count("PodTopologySpread") == 1
    spread = fw.schedule(p, snap, rng=random.Random(0),
                         controller_selector=lambda _: parse_selector("app=web"))
    assert spread.node == "b"
    assert "PodTopologySpread" not in {c.name for c in spread.decision.scorers if c.skipped}


def test_no_filter_and_no_score_plugins() -> None:
    fw = Framework(Profile(filters=(), scores=(), post_filters=()))
    snap = snapshot([node("a"), node("b"), node("c")])
    result = fw.schedule(pod(), snap, rng=random.Random(0))
    assert result.node in {"a", "b", "c"} and result.feasible_nodes == 3


@pytest.mark.parametrize(("nodes", "fits_every", "chunk"), [
    (1700, 1, 500),   # the quota (max(100, 1700 * 37%) = 629) ends in the 2nd chunk
    (1700, 3, 500),   # a third of the nodes fit: the quota needs most chunks
    (1700, 7, 500),   # too few fit for the quota: every node is processed
    (1700, 2, 97),    # chunk edges that fall anywhere
    (260, 2, 13),
    (1700, 0, 500),   # nothing fits: the FitError counts every node
])
def test_chunked_search_equals_one_pass(monkeypatch: pytest.MonkeyPatch, nodes: int,
                                        fits_every: int, chunk: int) -> None:
    """Filtering in chunks (``FILTER_CHUNK``) gives what one pass over all
    nodes gives: the same nodes processed, verdicts, feasible nodes, choice,
    message and next start index, over several cycles (the start rotates)."""
    from minikube_py.scheduler import framework as framework_module

    def run(chunk_size: int) -> list[tuple[Any, ...]]:
        monkeypatch.setattr(framework_module, "FILTER_CHUNK", chunk_size)
        snap = snapshot([node(f"n{i:04d}", cpu="4" if fits_every and i % fits_every == 0
                              else "1", zone=f"z{i % 3}") for i in range(nodes)])
        fw = framework()
        rng = random.Random(5)
        out = []
        for i in range(4):
            r = fw.schedule(pod(f"p{i}", requests=[{"cpu": "2"}]), snap, rng=rng)
            d = r.decision
            out.append((r.node, r.message, r.evaluated_nodes, r.feasible_nodes,
                        d.evaluated.tolist(), d.status.tolist(), d.feasible.tolist(),
                        fw.next_start_node_index))
        return out

    chunked, one_pass = run(chunk), run(10 ** 9)
    assert chunked == one_pass
    if fits_every == 1:  # the point of chunks: not every node is filtered
        assert one_pass[0][2] < nodes
