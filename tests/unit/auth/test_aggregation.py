"""aggregated_rules as the clusterrole-aggregation controller computes them
(pkg/controller/clusterroleaggregation, syncClusterRole)."""

from __future__ import annotations

from minikube_py.auth.aggregation import aggregated_rules
from minikube_py.auth.bootstrap import bootstrap_objects

from .helpers import role, rule


def agg(name: str, *selectors: dict) -> dict:
    r = role(name, [rule(["stale"])])
    r["aggregationRule"] = {"clusterRoleSelectors": list(selectors)}
    return r


def test_each_rule_once_roles_by_name_never_itself():
    target = agg("target", {"matchLabels": {"x": "1"}})
    target["metadata"]["labels"] = {"x": "1"}
    others = [
        target,
        role("b", [rule(["b"]), rule(["a"])], labels={"x": "1"}),
        role("a", [rule(["a"])], labels={"x": "1"}),
        role("c", [rule(["c"])], labels={"x": "2"}),
        role("d", [rule(["d"])]),
    ]
    assert aggregated_rules(target, others) == [rule(["a"]), rule(["b"])]


def test_selectors_in_order_and_duplicates_across_them_dropped():
    target = agg("t", {"matchLabels": {"x": "2"}}, {"matchExpressions": [
        {"key": "x", "operator": "In", "values": ["1", "2"]}]})
    others = [role("a", [rule(["a"])], labels={"x": "1"}),
              role("z", [rule(["z"])], labels={"x": "2"})]
    assert aggregated_rules(target, others) == [rule(["z"]), rule(["a"])]


def test_empty_lists_are_no_fields():
    target = agg("t", {"matchLabels": {"x": "1"}})
    others = [role("a", [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"],
                          "resourceNames": []}], labels={"x": "1"}),
              role("b", [{"resources": ["pods"], "apiGroups": [""], "verbs": ["get"]}],
                   labels={"x": "1"})]
    assert aggregated_rules(target, others) == [
        {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]


def test_nothing_selected_or_no_selectors_is_no_rules():
    assert aggregated_rules(agg("t", {"matchLabels": {"x": "9"}}),
                            [role("a", [rule(["a"])], labels={"x": "1"})]) == []
    assert aggregated_rules(agg("t"), [role("a", [rule(["a"])])]) == []
    assert aggregated_rules(role("plain", [rule(["a"])]), [role("a", [rule(["a"])])]) == []


def test_an_empty_selector_selects_every_other_role():
    target = agg("t", {})
    assert aggregated_rules(target, [target, role("a", [rule(["a"])])]) == [rule(["a"])]


def test_an_invalid_selector_selects_nothing():
    bad = agg("t", {"matchExpressions": [{"key": "x", "operator": "Bogus"}]},
              {"matchLabels": {"x": "1"}})
    assert aggregated_rules(bad, [role("a", [rule(["a"])], labels={"x": "1"})]) == \
        [rule(["a"])]


def test_the_default_roles():
    roles = {o["metadata"]["name"]: o for o in bootstrap_objects() if o["kind"] == "ClusterRole"}
    view = aggregated_rules(roles["view"], roles.values())
    assert view == roles["system:aggregate-to-view"]["rules"]
    roles["view"]["rules"] = view
    edit = aggregated_rules(roles["edit"], roles.values())
    # edit selects system:aggregate-to-edit and view: in name order.
    assert edit == roles["system:aggregate-to-edit"]["rules"] + view
    roles["edit"]["rules"] = edit
    admin = aggregated_rules(roles["admin"], roles.values())
    assert admin == roles["edit"]["rules"] + roles["system:aggregate-to-admin"]["rules"]
