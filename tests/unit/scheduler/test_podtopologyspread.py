"""PodTopologySpread: skew filter, spreading score and the system defaults."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.labels import parse_selector
from minikube_py.scheduler.framework import Handle
from minikube_py.scheduler.plugins.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PodTopologySpread,
)

from .builders import filter_codes, node, pod, run_filter, run_score, snapshot

SKEW = (ERR_REASON_CONSTRAINTS_NOT_MATCH,)
LABEL = (ERR_REASON_NODE_LABEL_NOT_MATCH,)
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
WEB = {"app": "web"}


def constraint(key: str, max_skew: int = 1, when: str = "DoNotSchedule",
               **extra: Any) -> dict[str, Any]:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": WEB}, **extra}


def web_on(node_name: str, **kw: Any) -> dict:
    return pod(node_name=node_name, labels=WEB, **kw)


def four_nodes(**labels: str) -> list[dict]:
    return [node(name, zone=zone, labels=labels) for name, zone in
            (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"),
             ("node-y", "zone2"))]


NAMES = ["node-a", "node-b", "node-x", "node-y"]
EXISTING = [web_on("node-a"), web_on("node-b"), web_on("node-x")]


def check(p: dict, nodes: list[dict], existing: list[dict], names: list[str], want: list) -> None:
    assert run_filter(PodTopologySpread(), p, snapshot(nodes, existing), names) == want


def test_normal_case() -> None:
    # zone1 has 2 matching pods, zone2 1: 2+1-1 = 2 > 1 in zone1, 1+1-1 = 1 in zone2.
    check(pod(labels=WEB, spread=[constraint(ZONE)]), four_nodes(), EXISTING, NAMES,
          [SKEW, SKEW, None, None])


def test_pod_not_matching_its_own_selector() -> None:
    check(pod(labels={"app": "other"}, spread=[constraint(ZONE)]), four_nodes(), EXISTING,
          NAMES, [None] * 4)


def test_missing_topology_key() -> None:
    nodes = [*four_nodes(), node("node-z")]
    p = pod(labels=WEB, spread=[constraint(ZONE)])
    check(p, nodes, EXISTING, [*NAMES, "node-z"], [SKEW, SKEW, None, None, LABEL])
    assert filter_codes(PodTopologySpread(), p, snapshot(nodes, EXISTING), ["node-z"]) == [
        "UnschedulableAndUnresolvable"]
    assert filter_codes(PodTopologySpread(), p, snapshot(nodes, EXISTING), ["node-a"]) == [
        "Unschedulable"]


def test_min_domains_treats_global_minimum_as_zero() -> None:
    check(pod(labels=WEB, spread=[constraint(ZONE, minDomains=3)]), four_nodes(), EXISTING,
          NAMES, [SKEW] * 4)
    check(pod(labels=WEB, spread=[constraint(ZONE, minDomains=2)]), four_nodes(), EXISTING,
          NAMES, [SKEW, SKEW, None, None])


def test_node_affinity_policy() -> None:
    # node-q (zone3, no disk label) is outside the pod's nodeSelector.
    nodes = [*four_nodes(disk="ssd"), node("node-q", zone="zone3")]
    honor = pod(labels=WEB, node_selector={"disk": "ssd"}, spread=[constraint(ZONE)])
    check(honor, nodes, EXISTING, NAMES, [SKEW, SKEW, None, None])
    ignore = pod(labels=WEB, node_selector={"disk": "ssd"},
                 spread=[constraint(ZONE, nodeAffinityPolicy="Ignore")])
    # zone3 counts with 0 pods: the minimum drops to 0.
    check(ignore, nodes, EXISTING, [*NAMES, "node-q"], [SKEW, SKEW, SKEW, SKEW, None])


def test_node_taints_policy() -> None:
    nodes = [*four_nodes(),
             node("node-q", zone="zone3", taints=[{"key": "k", "value": "v",
                                                    "effect": "NoSchedule"}])]
    ignore = pod(labels=WEB, spread=[constraint(ZONE)])
    check(ignore, nodes, EXISTING, NAMES, [SKEW] * 4)
    honor = pod(labels=WEB, spread=[constraint(ZONE, nodeTaintsPolicy="Honor")])
    check(honor, nodes, EXISTING, NAMES, [SKEW, SKEW, None, None])


def test_hostname_constraint_and_first_failing_constraint() -> None:
    # hostname: node-a and node-b have 1, x has 1, y 0: min 0 -> only node-y passes.
    p = pod(labels=WEB, spread=[constraint(HOST)])
    check(p, four_nodes(), EXISTING, NAMES, [SKEW, SKEW, SKEW, None])
    both = pod(labels=WEB, spread=[constraint(ZONE), constraint(HOST)])
    check(both, four_nodes(), EXISTING, NAMES, [SKEW, SKEW, SKEW, None])


def test_terminating_pods_do_not_count() -> None:
    existing = [web_on("node-a"), web_on("node-b", deleting=True), web_on("node-x")]
    # zone1 counts 1 (the terminating pod is skipped), zone2 1: everything fits.
    check(pod(labels=WEB, spread=[constraint(ZONE)]), four_nodes(), existing, NAMES, [None] * 4)


def test_match_label_keys_narrow_the_selector() -> None:
    existing = [pod(node_name="node-a", labels={**WEB, "rev": "1"}),
                pod(node_name="node-b", labels={**WEB, "rev": "1"}),
                pod(node_name="node-x", labels={**WEB, "rev": "2"})]
    p = pod(labels={**WEB, "rev": "2"}, spread=[constraint(ZONE, matchLabelKeys=["rev"])])
    # Only rev=2 pods count: zone1 0, zone2 1 -> zone2 skew 1+1-0 = 2.
    check(p, four_nodes(), existing, NAMES, [None, None, SKEW, SKEW])


def test_other_namespaces_do_not_count() -> None:
    existing = [pod(node_name="node-a", labels=WEB, namespace="other")] * 1 + EXISTING[2:]
    check(pod(labels=WEB, spread=[constraint(ZONE)]), four_nodes(), existing, NAMES,
          [None, None, SKEW, SKEW])


def test_no_constraints_skips_filter() -> None:
    check(pod(labels=WEB), four_nodes(), EXISTING, NAMES, [None] * 4)


# ------------------------------------------------------------------------------ score


def spread_score(p: dict, nodes: list[dict], existing: list[dict], names: list[str],
                 plugin: PodTopologySpread | None = None) -> list[int] | None:
    return run_score(plugin or PodTopologySpread(), p, snapshot(nodes, existing), names)


def test_score_one_constraint_on_hostname_all_nodes_candidates() -> None:
    # Counts 2, 1, 0, 3 with weight log(4 + 2): raw 4, 2, 0, 5 -> 100*(5+0-raw)/5.
    nodes = [node("node-a"), node("node-b"), node("node-c"), node("node-d")]
    existing = [web_on("node-a"), web_on("node-a"), web_on("node-b"),
                web_on("node-d"), web_on("node-d"), web_on("node-d")]
    p = pod(labels=WEB, spread=[constraint(HOST, when="ScheduleAnyway")])
    assert spread_score(p, nodes, existing, ["node-a", "node-b", "node-c", "node-d"]) == [
        20, 60, 100, 0]


def test_score_zone_constraint() -> None:
    # zone1 3 pods, zone2 1; weight log(2 + 2): raw round(3*1.386)=4 and round(1.386)=1.
    existing = [web_on("node-a"), web_on("node-a"), web_on("node-b"), web_on("node-x")]
    p = pod(labels=WEB, spread=[constraint(ZONE, when="ScheduleAnyway")])
    assert spread_score(p, four_nodes(), existing, NAMES) == [25, 25, 100, 100]


def test_score_ignores_nodes_without_the_key() -> None:
    nodes = [*four_nodes(), node("node-z")]
    existing = [web_on("node-a"), web_on("node-a"), web_on("node-b"), web_on("node-x")]
    p = pod(labels=WEB, spread=[constraint(ZONE, when="ScheduleAnyway")])
    assert spread_score(p, nodes, existing, [*NAMES, "node-z"]) == [25, 25, 100, 100, 0]


def test_score_skipped_without_soft_constraints() -> None:
    p = pod(labels=WEB, spread=[constraint(ZONE)])
    assert spread_score(p, four_nodes(), EXISTING, NAMES) is None


def test_system_default_constraints_need_a_controller_selector() -> None:
    nodes = [node("n1", zone="z1"), node("n2", zone="z1"), node("n3")]
    existing = [web_on("n1"), web_on("n1")]
    p = pod(labels=WEB)
    assert spread_score(p, nodes, existing, ["n1", "n2", "n3"]) is None
    plugin = PodTopologySpread({}, Handle(controller_selector=lambda _: parse_selector("app=web")))
    # hostname (maxSkew 3, weight log 5) + zone (maxSkew 5, weight log 4; the
    # zone-less node registers the "" domain): raw 12, 9, 2.
    assert spread_score(p, nodes, existing, ["n1", "n2", "n3"], plugin) == [16, 41, 100]
    empty = PodTopologySpread({}, Handle(controller_selector=lambda _: parse_selector("")))
    assert spread_score(p, nodes, existing, ["n1", "n2", "n3"], empty) is None


def test_list_defaulting() -> None:
    plugin = PodTopologySpread(
        {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}]},
        Handle(controller_selector=lambda _: parse_selector("app=web")))
    p = pod(labels=WEB)
    assert run_filter(plugin, p, snapshot(four_nodes(), EXISTING), NAMES) == [
        SKEW, SKEW, None, None]


@pytest.mark.parametrize("args", [
    {"defaultingType": "Sometimes"},
    {"defaultingType": "System", "defaultConstraints": [{"maxSkew": 1}]},
])
def test_bad_args(args: dict) -> None:
    from minikube_py.scheduler.framework import PluginArgsError

    with pytest.raises(PluginArgsError):
        PodTopologySpread(args)
