"""The RBAC authorizer: which bindings apply, the reasons it gives, the
errors it collects, and SelfSubjectRulesReview's rules (plugin/pkg/auth/
authorizer/rbac/rbac.go and pkg/registry/rbac/validation/rule.go)."""

from __future__ import annotations

import pytest

from minikube_py.auth.bootstrap import bootstrap_objects
from minikube_py.auth.rbac import Decision, RBACAuthorizer, StaticRoleSource, aggregate_errors
from minikube_py.auth.user import UserInfo, admin_user, anonymous_user, service_account_user

from .helpers import BOT, binding, res, role, rule, url

ALL = rule(["*"], ["*"], ["*"])
AUTHENTICATED = [{"kind": "Group", "name": "system:authenticated"}]


def authorizer(*objects) -> RBACAuthorizer:
    return RBACAuthorizer(StaticRoleSource(objects))


# Adapted from rbac_test.go TestAuthorizer: a ClusterRole bound in ns1 only.
@pytest.mark.parametrize("user, request_ns, resource, allowed", [
    (UserInfo("admin"), "ns1", "pods", True),
    (UserInfo("admin", ("group1",)), "ns1", "foobar", True),
    (UserInfo("joe", ("admins",)), "ns1", "foobar", True),
    (UserInfo("joe", ("group1", "admins")), "ns1", "foobar", True),
    (UserInfo("admin"), "ns2", "pods", False),
    (UserInfo("admin"), "", "nodes", False),
    (UserInfo("admin", ("admins",)), "ns2", "pods", False),
    (UserInfo("joe"), "ns1", "pods", False),
])
def test_a_role_binding_grants_in_its_namespace_only(user, request_ns, resource, allowed):
    authz = authorizer(role("admin", [ALL]),
                       binding("admin", "ClusterRole", "admin",
                               [{"kind": "User", "name": "admin"},
                                {"kind": "Group", "name": "admins"}], "ns1"))
    decision = authz.authorize(res("watch", resource, namespace=request_ns, user=user))
    assert decision.allowed is allowed


@pytest.mark.parametrize("subject, user, binding_ns, applies", [
    ({"kind": "User", "name": "alice"}, UserInfo("alice"), "default", True),
    ({"kind": "User", "name": "alice"}, UserInfo("bob"), "default", False),
    ({"kind": "User", "name": "devs"}, UserInfo("bob", ("devs",)), "default", False),
    ({"kind": "Group", "name": "devs"}, UserInfo("bob", ("devs",)), "default", True),
    ({"kind": "Group", "name": "devs"}, UserInfo("devs"), "default", False),
    # A RoleBinding's service account without a namespace is in the binding's.
    ({"kind": "ServiceAccount", "name": "bot"}, BOT, "default", True),
    ({"kind": "ServiceAccount", "name": "bot"}, BOT, "other", False),
    ({"kind": "ServiceAccount", "name": "bot", "namespace": "other"}, BOT, "default", False),
    ({"kind": "ServiceAccount", "name": "bot", "namespace": "default"}, BOT, "other", True),
    ({"kind": "ServiceAccount", "name": "bot", "namespace": "default"},
     UserInfo("system:serviceaccount:default:bot"), "default", True),
    ({"kind": "Unknown", "name": "bot"}, BOT, "default", False),
])
def test_role_binding_subjects(subject, user, binding_ns, applies):
    authz = authorizer(role("all", [ALL]), binding("b", "ClusterRole", "all", [subject],
                                                   binding_ns))
    got = authz.authorize(res("get", "pods", name="p", namespace=binding_ns, user=user))
    assert got.allowed is applies


@pytest.mark.parametrize("subject, applies", [
    ({"kind": "ServiceAccount", "name": "bot", "namespace": "default"}, True),
    # A ClusterRoleBinding has no namespace to default to: matches nobody.
    ({"kind": "ServiceAccount", "name": "bot"}, False),
    ({"kind": "Group", "name": "system:serviceaccounts:default"}, True),
    ({"kind": "Group", "name": "system:serviceaccounts"}, True),
    ({"kind": "Group", "name": "system:authenticated"}, True),
])
def test_cluster_role_binding_subjects(subject, applies):
    authz = authorizer(role("all", [ALL]), binding("b", "ClusterRole", "all", [subject]))
    assert authz.authorize(res("list", "nodes", namespace="")).allowed is applies


def test_reasons_name_binding_role_and_the_first_matching_subject():
    authz = authorizer(
        role("reader", [rule(["get"], [""], ["pods"])], "default"),
        role("nodes", [rule(["list"], [""], ["nodes"])]),
        binding("read", "Role", "reader", [{"kind": "User", "name": "x"},
                                           {"kind": "ServiceAccount", "name": "bot"}],
                "default"),
        binding("see-nodes", "ClusterRole", "nodes",
                [{"kind": "Group", "name": "system:serviceaccounts"},
                 {"kind": "ServiceAccount", "name": "bot", "namespace": "default"}]))
    assert authz.authorize(res("get", "pods", name="p")) == Decision(
        True, 'RBAC: allowed by RoleBinding "read/default" of Role "reader" to '
              'ServiceAccount "bot/default"')
    assert authz.authorize(res("list", "nodes", namespace="")) == Decision(
        True, 'RBAC: allowed by ClusterRoleBinding "see-nodes" of ClusterRole "nodes" to '
              'Group "system:serviceaccounts"')


def test_cluster_role_bindings_are_visited_first():
    authz = authorizer(
        role("all", [ALL]), role("local", [ALL], "default"),
        binding("local", "Role", "local", [{"kind": "ServiceAccount", "name": "bot"}],
                "default"),
        binding("global", "ClusterRole", "all", AUTHENTICATED))
    reason = authz.authorize(res("get", "pods", name="p")).reason
    assert reason.startswith('RBAC: allowed by ClusterRoleBinding "global"')


def test_no_opinion_has_no_reason_unless_something_could_not_be_resolved():
    assert authorizer().authorize(res("get", "pods")) == Decision(False, "")
    sa = [{"kind": "ServiceAccount", "name": "bot"}]
    authz = authorizer(
        binding("a", "Role", "ghost", sa, "default"),
        binding("b", "ClusterRole", "phantom", AUTHENTICATED),
        binding("c", "Role", "ghost", sa, "default"),       # the same error once
        binding("d", "Secret", "x", sa, "default"),
        binding("e", "ClusterRole", "elsewhere", sa, "other"))  # not this namespace
    assert authz.authorize(res("get", "pods")) == Decision(
        False, 'RBAC: [clusterrole.rbac.authorization.k8s.io "phantom" not found, '
               'role.rbac.authorization.k8s.io "ghost" not found, '
               'unsupported role reference kind: "Secret"]')
    one = authorizer(binding("a", "Role", "ghost", sa, "default"))
    assert one.authorize(res("get", "pods")) == Decision(
        False, 'RBAC: role.rbac.authorization.k8s.io "ghost" not found')


def test_an_error_does_not_stop_a_later_grant():
    sa = [{"kind": "ServiceAccount", "name": "bot"}]
    authz = authorizer(role("r", [ALL], "default"), binding("a", "Role", "ghost", sa, "default"),
                       binding("b", "Role", "r", sa, "default"))
    assert authz.authorize(res("get", "pods")).allowed


def test_a_cluster_role_binding_to_a_role_finds_no_role():
    authz = authorizer(role("r", [ALL], "default"),
                       binding("b", "Role", "r", AUTHENTICATED))
    assert authz.authorize(res("get", "pods")) == Decision(
        False, 'RBAC: role.rbac.authorization.k8s.io "r" not found')


def test_cluster_scoped_requests_never_use_role_bindings():
    authz = authorizer(role("all", [ALL]),
                       binding("b", "ClusterRole", "all",
                               [{"kind": "ServiceAccount", "name": "bot"}], "default"))
    assert not authz.authorize(res("list", "nodes", namespace="")).allowed
    assert not authz.authorize(url("get", "/metrics")).allowed


def test_aggregate_errors_is_utilerrors_aggregate():
    assert aggregate_errors(["a"]) == "a"
    assert aggregate_errors(["a", "a"]) == "a"
    assert aggregate_errors(["a", "b", "a"]) == "[a, b]"


def test_the_bootstrap_policy():
    authz = RBACAuthorizer(StaticRoleSource(bootstrap_objects()))
    masters = authz.authorize(res("delete", "nodes", name="n", namespace="",
                                  user=admin_user()))
    assert masters == Decision(True, 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of '
                                     'ClusterRole "cluster-admin" to Group "system:masters"')
    assert authz.authorize(url("delete", "/anything", user=admin_user())).allowed
    assert authz.authorize(url("get", "/apis/apps/v1")).allowed
    assert authz.authorize(url("get", "/openapi/v3/apis/apps/v1")).allowed
    assert authz.authorize(res("create", "selfsubjectrulesreviews", namespace="",
                               group="authorization.k8s.io")).allowed
    assert authz.authorize(res("create", "selfsubjectreviews", namespace="",
                               group="authentication.k8s.io")).allowed
    assert authz.authorize(url("get", "/.well-known/openid-configuration")).allowed
    assert not authz.authorize(url("get", "/metrics")).allowed
    assert not authz.authorize(res("list", "pods")).allowed
    monitor = UserInfo("prometheus", ("system:monitoring", "system:authenticated"))
    assert authz.authorize(url("get", "/metrics", user=monitor)).allowed
    anonymous = anonymous_user()
    assert authz.authorize(url("get", "/version", user=anonymous)).allowed
    assert authz.authorize(url("get", "/healthz", user=anonymous)).allowed
    assert not authz.authorize(url("get", "/api", user=anonymous)).allowed
    assert not authz.authorize(res("create", "selfsubjectaccessreviews", namespace="",
                                   group="authorization.k8s.io", user=anonymous)).allowed


def test_rules_for_lists_every_applying_rule_in_visit_order():
    sa = [{"kind": "ServiceAccount", "name": "bot"}]
    authz = authorizer(
        role("mixed", [rule(["get"], [""], ["pods"], ["a"]),
                       rule(["get"], urls=["/logs"])]),
        role("local", [rule(["list"], ["apps"], ["deployments"])], "default"),
        binding("ghost", "Role", "ghost", sa, "default"),
        binding("local", "Role", "local", sa, "default"),
        binding("mixed", "ClusterRole", "mixed",
                [{"kind": "Group", "name": "system:serviceaccounts"}]))
    resource_rules, non_resource_rules, incomplete, errors = authz.rules_for(BOT, "default")
    assert resource_rules == [
        {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]},
        {"verbs": ["list"], "apiGroups": ["apps"], "resources": ["deployments"]}]
    assert non_resource_rules == [{"verbs": ["get"], "nonResourceURLs": ["/logs"]}]
    # RBACAuthorizer.RulesFor reports errors but never "incomplete".
    assert (incomplete, errors) == (False, ['role.rbac.authorization.k8s.io "ghost" not found'])
    other = service_account_user("other", "bot")
    assert authz.rules_for(other, "default")[:2] == (
        [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}],
        [{"verbs": ["get"], "nonResourceURLs": ["/logs"]}])
