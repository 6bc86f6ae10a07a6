"""Rule matching and coverage as Kubernetes' RBAC
(pkg/apis/rbac/v1/evaluation_helpers.go, plugin/pkg/auth/authorizer/rbac/
rbac.go RuleAllows, component-helpers/auth/rbac/validation Covers)."""

from __future__ import annotations

import pytest

from minikube_py.auth.rules import (
    api_group_matches,
    breakdown_rule,
    covers,
    non_resource_url_matches,
    resource_matches,
    resource_name_matches,
    rule_allows,
    rules_allow,
    verb_matches,
)

from .helpers import res, rule, url


@pytest.mark.parametrize("verbs, verb, ok", [
    (["get"], "get", True), (["*"], "deletecollection", True), (["get"], "list", False),
    ([], "get", False), (["GET"], "get", False),  # case matters
])
def test_verb_matches(verbs, verb, ok):
    assert verb_matches({"verbs": verbs}, verb) is ok


@pytest.mark.parametrize("groups, group, ok", [
    ([""], "", True), (["*"], "apps", True), (["apps"], "", False), ([], "", False),
    (["*"], "", True),
])
def test_api_group_matches(groups, group, ok):
    assert api_group_matches({"apiGroups": groups}, group) is ok


@pytest.mark.parametrize("resources, combined, sub, ok", [
    (["pods"], "pods", "", True),
    (["*"], "pods/log", "log", True),
    (["pods"], "pods/log", "log", False),       # a subresource is its own resource
    (["pods/log"], "pods/log", "log", True),
    (["*/log"], "pods/log", "log", True),
    (["*/log"], "pods", "", False),
    (["*/status"], "pods/log", "log", False),
    (["*/lo"], "pods/log", "log", False),
    (["pods/*"], "pods/log", "log", False),     # no wildcard on the right of the slash
    (["pods/*"], "pods/*", "*", True),
    (["*/*"], "pods/log", "log", False),
    ([], "pods", "", False),
])
def test_resource_matches(resources, combined, sub, ok):
    assert resource_matches({"resources": resources}, combined, sub) is ok


@pytest.mark.parametrize("names, name, ok", [
    (None, "", True), ([], "x", True), (["a"], "a", True), (["a"], "b", False),
    (["a"], "", False),   # a list or create has no name: a named rule never allows it
])
def test_resource_name_matches(names, name, ok):
    assert resource_name_matches({"resourceNames": names}, name) is ok


@pytest.mark.parametrize("urls, path, ok", [
    (["/healthz"], "/healthz", True), (["*"], "/anything", True),
    (["/apis/*"], "/apis/apps/v1", True), (["/apis/*"], "/apis", False),
    (["/apis*"], "/apis", True), (["/apis/**"], "/apis/x", True),
    (["/healthz"], "/healthz/", False), (["/api"], "/apis", False),
])
def test_non_resource_url_matches(urls, path, ok):
    assert non_resource_url_matches({"nonResourceURLs": urls}, path) is ok


@pytest.mark.parametrize("the_rule, request_, allowed", [
    (rule(["get"], [""], ["pods"]), res("get", "pods", name="p"), True),
    (rule(["*"], [""], ["pods"]), res("delete", "pods", name="p"), True),
    (rule(["get"], [""], ["pods"]), res("list", "pods"), False),
    (rule(["get"], ["apps"], ["pods"]), res("get", "pods"), False),
    (rule(["get"], ["*"], ["*"]), res("get", "deployments", group="apps"), True),
    (rule(["get"], [""], ["pods"]), res("get", "pods", sub="log", name="p"), False),
    (rule(["get"], [""], ["pods/log"]), res("get", "pods", sub="log", name="p"), True),
    (rule(["get"], [""], ["*/log"]), res("get", "pods", sub="log", name="p"), True),
    (rule(["get"], [""], ["pods"], ["a"]), res("get", "pods", name="a"), True),
    (rule(["get"], [""], ["pods"], ["a"]), res("get", "pods", name="b"), False),
    (rule(["list"], [""], ["pods"], ["a"]), res("list", "pods"), False),
    (rule(["get"], urls=["/healthz"]), url("get", "/healthz"), True),
    (rule(["get"], urls=["*"]), url("post", "/x"), False),
    # A resource rule never allows a path, nor a path rule a resource.
    (rule(["*"], ["*"], ["*"]), url("get", "/api"), False),
    (rule(["*"], urls=["*"]), res("get", "pods"), False),
    # The namespace is no part of a rule: bindings scope it.
    (rule(["get"], [""], ["nodes"]), res("get", "nodes", namespace=""), True),
])
def test_rule_allows(the_rule, request_, allowed):
    assert rule_allows(request_, the_rule) is allowed
    assert rules_allow(request_, [rule(["nothing"]), the_rule]) is allowed


def test_breakdown_rule():
    assert breakdown_rule(rule(["get", "list"], ["", "apps"], ["pods"], ["a"])) == [
        {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]},
        {"verbs": ["list"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]},
        {"verbs": ["get"], "apiGroups": ["apps"], "resources": ["pods"],
         "resourceNames": ["a"]},
        {"verbs": ["list"], "apiGroups": ["apps"], "resources": ["pods"],
         "resourceNames": ["a"]},
    ]
    assert breakdown_rule(rule(["get"], urls=["/a", "/b"])) == [
        {"verbs": ["get"], "nonResourceURLs": ["/a"]},
        {"verbs": ["get"], "nonResourceURLs": ["/b"]}]


@pytest.mark.parametrize("owner, servant, uncovered", [
    ([rule(["*"], ["*"], ["*"])], [rule(["get"], ["apps"], ["deployments"])], []),
    ([rule(["get", "list"], [""], ["pods"])], [rule(["get", "watch"], [""], ["pods"])],
     [{"verbs": ["watch"], "apiGroups": [""], "resources": ["pods"]}]),
    ([rule(["get"], [""], ["*/log"])], [rule(["get"], [""], ["pods/log"])], []),
    ([rule(["get"], [""], ["pods"], ["a"])], [rule(["get"], [""], ["pods"])],
     [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]),
    ([rule(["get"], [""], ["pods"])], [rule(["get"], [""], ["pods"], ["a"])], []),
    ([rule(["get"], urls=["/apis/*"])], [rule(["get"], urls=["/apis/apps"])], []),
    ([rule(["get"], urls=["/apis/*"])], [rule(["get"], urls=["/api"])],
     [{"verbs": ["get"], "nonResourceURLs": ["/api"]}]),
])
def test_covers(owner, servant, uncovered):
    assert covers(owner, servant) == (not uncovered, uncovered)
