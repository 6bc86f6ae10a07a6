"""NodeAffinity: nodeSelector, required terms (filter), preferred terms (score)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from minikube_py.scheduler.framework import CycleState
from minikube_py.scheduler.plugins.nodeaffinity import ERR_REASON_POD, NodeAffinity
from minikube_py.scheduler.podinfo import PodInfo

from .builders import filter_codes, node, pod, run_filter, run_score, snapshot

NOT_MATCH = (ERR_REASON_POD,)


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def required(*terms: dict[str, Any] | None) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": list(terms)}}}


def term(*exprs: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"matchExpressions": list(exprs)}
    if fields is not None:
        out["matchFields"] = fields
    return out


FILTER = [
    ("no Affinity will schedule onto a node", {}, None, {"foo": "bar"}, None),
    ("missing labels", {"foo": "bar"}, None, {}, NOT_MATCH),
    ("same labels", {"foo": "bar"}, None, {"foo": "bar"}, None),
    ("node labels are superset", {"foo": "bar"}, None, {"foo": "bar", "baz": "blah"}, None),
    ("node labels are subset", {"foo": "bar", "baz": "blah"}, None, {"foo": "bar"}, NOT_MATCH),
    ("matchExpressions In matches the existing node", {},
     required(term(expr("foo", "In", "bar", "value2"))), {"foo": "bar"}, None),
    ("matchExpressions Gt matches the existing node", {},
     required(term(expr("kernel-version", "Gt", "0204"))), {"kernel-version": "0206"}, None),
    ("matchExpressions Lt with a non-integer label does not match", {},
     required(term(expr("kernel-version", "Lt", "0204"))), {"kernel-version": "beta"},
     NOT_MATCH),
    ("matchExpressions NotIn that doesn't match the existing node", {},
     required(term(expr("mem-type", "NotIn", "DDR", "DDR2"))), {"mem-type": "DDR3"}, None),
    ("matchExpressions Exists matches the existing node", {},
     required(term(expr("GPU", "Exists"))), {"GPU": "NVIDIA-GRID-K1"}, None),
    ("matchExpressions DoesNotExist", {},
     required(term(expr("GPU", "DoesNotExist"))), {"GPU": "NVIDIA-GRID-K1"}, NOT_MATCH),
    ("affinity that don't match node's labels won't schedule onto the node", {},
     required(term(expr("foo", "In", "value1", "value2"))), {"foo": "bar"}, NOT_MATCH),
    ("a nil []NodeSelectorTerm can't match the node's labels", {},
     {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
         "nodeSelectorTerms": None}}}, {"foo": "bar"}, NOT_MATCH),
    ("an empty []NodeSelectorTerm can't match the node's labels", {}, required(),
     {"foo": "bar"}, NOT_MATCH),
    ("an empty MatchExpressions can't match the node's labels", {}, required(term()),
     {"foo": "bar"}, NOT_MATCH),
    ("multiple matchExpressions ANDed that don't match the existing node", {},
     required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))),
     {"GPU": "AMD"}, NOT_MATCH),
    ("multiple NodeSelectorTerms ORed: one matches", {},
     required(term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong"))),
     {"foo": "bar"}, None),
    ("an invalid term never matches, the others still do", {},
     required(term(expr("foo", "Gt", "not-a-number")), term(expr("foo", "Exists"))),
     {"foo": "bar"}, None),
    ("affinity and nodeSelector are both required: nodeSelector fails", {"foo": "bar"},
     required(term(expr("GPU", "Exists"))), {"GPU": "x"}, NOT_MATCH),
    ("affinity and nodeSelector both match", {"foo": "bar"},
     required(term(expr("GPU", "Exists"))), {"GPU": "x", "foo": "bar"}, None),
]


@pytest.mark.parametrize(("name", "selector", "affinity", "labels", "want"), FILTER,
                         ids=[c[0] for c in FILTER])
def test_filter(name: str, selector: dict, affinity: dict | None, labels: dict,
                want: tuple[str, ...] | None) -> None:
    snap = snapshot([node("node1", labels=labels)])
    p = pod(node_selector=selector, affinity=affinity)
    assert run_filter(NodeAffinity(), p, snap, ["node1"]) == [want]
    if want:
        assert filter_codes(NodeAffinity(), p, snap, ["node1"]) == [
            "UnschedulableAndUnresolvable"]


def fields(op: str, *names: str) -> list[dict[str, Any]]:
    return [{"key": "metadata.name", "operator": op, "values": list(names)}]


def test_match_fields() -> None:
    snap = snapshot([node("node1"), node("node2")])
    p = pod(affinity=required({"matchFields": fields("In", "node1")}))
    assert run_filter(NodeAffinity(), p, snap, ["node1", "node2"]) == [None, NOT_MATCH]
    p = pod(affinity=required({"matchFields": fields("NotIn", "node1")}))
    assert run_filter(NodeAffinity(), p, snap, ["node1", "node2"]) == [NOT_MATCH, None]
    # Fields and expressions of one term are ANDed.
    p = pod(affinity=required(term(expr("kubernetes.io/hostname", "In", "node2"),
                                   fields=fields("In", "node1"))))
    assert run_filter(NodeAffinity(), p, snap, ["node1", "node2"]) == [NOT_MATCH, NOT_MATCH]


def prefilter(p: dict) -> tuple[Any, Any]:
    return NodeAffinity().pre_filter(CycleState(random.Random(0)), PodInfo(p),
                                     snapshot([node("node1")]))


def test_prefilter_node_names() -> None:
    res, st = prefilter(pod(affinity=required({"matchFields": fields("In", "node1")},
                                              {"matchFields": fields("In", "node2")})))
    assert st.ok and res.node_names == {"node1", "node2"}
    # A term without a name field admits every node.
    res, st = prefilter(pod(affinity=required({"matchFields": fields("In", "node1")},
                                              term(expr("foo", "Exists")))))
    assert st.ok and res is None
    # ANDed name fields that cannot both hold: the terms conflict.
    res, st = prefilter(pod(affinity=required(
        {"matchFields": [*fields("In", "node1"), *fields("In", "node2")]})))
    assert st.code.label == "UnschedulableAndUnresolvable"
    assert st.reasons == ("pod affinity terms conflict",)
    res, st = prefilter(pod())
    assert st.is_skip


def preferred(*items: tuple[int, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": {"matchExpressions": e}} for w, e in items]}}


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = preferred((2, [expr("foo", "In", "bar")]))
AFFINITY2 = preferred((2, [expr("foo", "In", "bar")]), (4, [expr("key", "In", "value")]),
                      (5, [expr("foo", "In", "bar"), expr("key", "In", "value"),
                           expr("az", "In", "az1")]))

SCORE = [
    ("all nodes are same priority as NodeAffinity is nil", None,
     [LABEL1, LABEL2, LABEL3], None),
    ("no node matches preferred scheduling requirements so all nodes' priority is zero",
     AFFINITY1, [LABEL4, LABEL2, LABEL3], [0, 0, 0]),
    ("only node1 matches the preferred scheduling requirements of pod", AFFINITY1,
     [LABEL1, LABEL2, LABEL3], [100, 0, 0]),
    # Raw sums 2, 11, 4 -> 100 * raw / 11.
    ("all nodes matches the preferred scheduling requirements but with different priorities",
     AFFINITY2, [LABEL1, LABEL5, LABEL2], [18, 100, 36]),
]


@pytest.mark.parametrize(("name", "affinity", "labels", "want"), SCORE,
                         ids=[c[0] for c in SCORE])
def test_score(name: str, affinity: dict | None, labels: list[dict],
               want: list[int] | None) -> None:
    nodes = [node(f"machine{i}", labels=lbl) for i, lbl in enumerate(labels)]
    got = run_score(NodeAffinity(), pod(affinity=affinity), snapshot(nodes),
                    [n["metadata"]["name"] for n in nodes])
    assert got == want


def test_zero_weight_terms_are_ignored() -> None:
    nodes = [node("a", labels=LABEL1), node("b")]
    got = run_score(NodeAffinity(), pod(affinity=preferred((0, [expr("foo", "Exists")]))),
                    snapshot(nodes), ["a", "b"])
    assert got == [0, 0]


def test_large_integer_labels_compare_exactly() -> None:
    big = str(2**62 + 1)
    nodes = [node("a", labels={"v": big}), node("b", labels={"v": str(2**62)})]
    p = pod(affinity=required(term(expr("v", "Gt", str(2**62)))))
    assert run_filter(NodeAffinity(), p, snapshot(nodes), ["a", "b"]) == [None, NOT_MATCH]
