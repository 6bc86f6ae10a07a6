"""The authorization library against Kubernetes' own tables: request info,
rule matching, the RBAC authorizer's reasons, the 403 wording, impersonation,
the bootstrap roles and aggregation."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.errors import BadRequest, Forbidden
from minikube_py.auth.aggregation import aggregated_rules
from minikube_py.auth.attributes import Attributes
from minikube_py.auth.bootstrap import bootstrap_objects, ensure_bootstrap_policy
from minikube_py.auth.forbidden import forbidden_status_message
from minikube_py.auth.impersonation import impersonate
from minikube_py.auth.rbac import Decision, RBACAuthorizer, StaticRoleSource
from minikube_py.auth.requestinfo import request_info
from minikube_py.auth.rules import rule_allows
from minikube_py.auth.user import UserInfo, admin_user, service_account_user

BOT = service_account_user("default", "bot")


# ------------------------------------------------------------------ request info

@pytest.mark.parametrize("method, path, query, expected", [
    # (verb, resource request, namespace, group, version, resource, subresource, name)
    ("GET", "/api/v1/namespaces", {}, ("list", True, "", "", "v1", "namespaces", "", "")),
    ("GET", "/api/v1/namespaces/other", {},
     ("get", True, "other", "", "v1", "namespaces", "", "other")),
    ("GET", "/api/v1/namespaces/other/pods", {},
     ("list", True, "other", "", "v1", "pods", "", "")),
    ("GET", "/api/v1/namespaces/other/pods/foo", {},
     ("get", True, "other", "", "v1", "pods", "", "foo")),
    ("HEAD", "/api/v1/namespaces/other/pods/foo", {},
     ("get", True, "other", "", "v1", "pods", "", "foo")),
    ("GET", "/api/v1/pods", {}, ("list", True, "", "", "v1", "pods", "", "")),
    ("GET", "/api/v1/namespaces/other/pods", {"watch": "true"},
     ("watch", True, "other", "", "v1", "pods", "", "")),
    ("GET", "/api/v1/namespaces/other/pods",
     {"watch": "1", "fieldSelector": "metadata.name=foo"},
     ("watch", True, "other", "", "v1", "pods", "", "foo")),
    ("GET", "/api/v1/watch/namespaces/other/pods", {},
     ("watch", True, "other", "", "v1", "pods", "", "")),
    ("POST", "/api/v1/namespaces/other/pods", {},
     ("create", True, "other", "", "v1", "pods", "", "")),
    ("PUT", "/api/v1/namespaces/other/pods/foo", {},
     ("update", True, "other", "", "v1", "pods", "", "foo")),
    ("PATCH", "/api/v1/namespaces/other/pods/foo", {},
     ("patch", True, "other", "", "v1", "pods", "", "foo")),
    ("DELETE", "/api/v1/namespaces/other/pods/foo", {},
     ("delete", True, "other", "", "v1", "pods", "", "foo")),
    ("DELETE", "/api/v1/namespaces/other/pods", {},
     ("deletecollection", True, "other", "", "v1", "pods", "", "")),
    ("GET", "/api/v1/namespaces/other/pods/foo/log", {},
     ("get", True, "other", "", "v1", "pods", "log", "foo")),
    ("PUT", "/api/v1/namespaces/other/finalize", {},
     ("update", True, "other", "", "v1", "namespaces", "finalize", "other")),
    ("PUT", "/api/v1/namespaces/other/status", {},
     ("update", True, "other", "", "v1", "namespaces", "status", "other")),
    ("GET", "/apis/apps/v1/namespaces/other/deployments/foo/scale", {},
     ("get", True, "other", "apps", "v1", "deployments", "scale", "foo")),
    ("GET", "/api/v1/proxy/namespaces/other/pods/foo/bar", {},
     ("proxy", True, "other", "", "v1", "pods", "", "foo")),
    ("POST", "/api/v1/namespaces/ns/serviceaccounts/bot/token", {},
     ("create", True, "ns", "", "v1", "serviceaccounts", "token", "bot")),
])
def test_request_info_is_kubernetes(method: str, path: str, query: dict[str, str],
                                    expected: tuple[Any, ...]):
    info = request_info(method, path, query)
    assert (info.verb, info.is_resource_request, info.namespace, info.api_group,
            info.api_version, info.resource, info.subresource, info.name) == expected


@pytest.mark.parametrize("method, path", [
    ("GET", "/api"), ("GET", "/api/v1"), ("GET", "/apis"), ("GET", "/apis/apps/v1"),
    ("GET", "/openapi/v2"), ("GET", "/healthz"), ("POST", "/metrics"),
])
def test_discovery_and_other_paths_are_non_resource(method: str, path: str):
    info = request_info(method, path, {})
    assert not info.is_resource_request
    assert (info.verb, info.path) == (method.lower(), path)


# ------------------------------------------------------------------ rules

def attrs(verb: str, resource: str = "", *, group: str = "", sub: str = "", name: str = "",
          namespace: str = "default", path: str = "", user: UserInfo = BOT) -> Attributes:
    if path:
        return Attributes(user, verb, False, path=path)
    return Attributes(user, verb, True, namespace, group, "v1", resource, sub, name)


@pytest.mark.parametrize("rule, request_, allowed", [
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}, attrs("get", "pods"), True),
    ({"verbs": ["*"], "apiGroups": [""], "resources": ["pods"]}, attrs("delete", "pods"), True),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}, attrs("list", "pods"), False),
    ({"verbs": ["get"], "apiGroups": ["apps"], "resources": ["pods"]}, attrs("get", "pods"),
     False),
    ({"verbs": ["get"], "apiGroups": ["*"], "resources": ["*"]},
     attrs("get", "deployments", group="apps"), True),
    # A subresource is asked for as resource/subresource.
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]},
     attrs("get", "pods", sub="log", name="p"), False),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods/log"]},
     attrs("get", "pods", sub="log", name="p"), True),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["*/log"]},
     attrs("get", "pods", sub="log", name="p"), True),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["*/log"]}, attrs("get", "pods"),
     False),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]},
     attrs("get", "pods", name="a"), True),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]},
     attrs("get", "pods", name="b"), False),
    ({"verbs": ["list"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]},
     attrs("list", "pods"), False),
    ({"verbs": ["get"], "nonResourceURLs": ["/healthz"]}, attrs("get", path="/healthz"), True),
    ({"verbs": ["get"], "nonResourceURLs": ["/apis/*"]}, attrs("get", path="/apis/apps"), True),
    ({"verbs": ["get"], "nonResourceURLs": ["/apis/*"]}, attrs("get", path="/api"), False),
    ({"verbs": ["get"], "nonResourceURLs": ["*"]}, attrs("post", path="/x"), False),
    # A resource rule never allows a path, nor a path rule a resource.
    ({"verbs": ["get"], "apiGroups": ["*"], "resources": ["*"]}, attrs("get", path="/api"),
     False),
    ({"verbs": ["get"], "nonResourceURLs": ["*"]}, attrs("get", "pods"), False),
])
def test_rule_matching(rule: dict[str, Any], request_: Attributes, allowed: bool):
    assert rule_allows(request_, rule) is allowed


# ------------------------------------------------------------------ RBAC with the bootstrap roles

def with_aggregation(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bootstrap objects once the aggregation controller has settled."""
    roles = {o["metadata"]["name"]: o for o in objects if o["kind"] == "ClusterRole"}
    for name in ("view", "edit", "admin"):  # inner roles first, as the controller converges
        roles[name]["rules"] = aggregated_rules(roles[name], roles.values())
    return objects


def binding(kind: str, role_kind: str, role: str, subject: dict[str, Any],
            namespace: str = "default") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": f"{role}-binding"}
    if kind == "RoleBinding":
        meta["namespace"] = namespace
    return {"kind": kind, "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind,
                        "name": role}, "subjects": [subject]}


SA_SUBJECT = {"kind": "ServiceAccount", "name": "bot"}  # the binding's namespace


@pytest.mark.parametrize("role, request_, allowed", [
    ("view", attrs("list", "pods"), True),
    ("view", attrs("watch", "deployments", group="apps"), True),
    ("view", attrs("get", "pods", sub="log", name="p"), True),
    ("view", attrs("get", "secrets", name="s"), False),
    ("view", attrs("create", "pods"), False),
    ("view", attrs("list", "pods", namespace="other"), False),
    ("edit", attrs("create", "deployments", group="apps"), True),
    ("edit", attrs("get", "secrets", name="s"), True),
    ("edit", attrs("create", "serviceaccounts", sub="token", name="bot"), True),
    ("edit", attrs("create", "rolebindings", group="rbac.authorization.k8s.io"), False),
    ("admin", attrs("create", "rolebindings", group="rbac.authorization.k8s.io"), True),
    ("admin", attrs("delete", "pods", name="p"), True),
    ("admin", attrs("delete", "nodes", name="n", namespace=""), False),
])
def test_the_aggregated_default_roles_answer_as_kubernetes(role: str, request_: Attributes,
                                                           allowed: bool):
    source = StaticRoleSource([*with_aggregation(bootstrap_objects()),
                               binding("RoleBinding", "ClusterRole", role, SA_SUBJECT)])
    assert RBACAuthorizer(source).authorize(request_).allowed is allowed


def test_every_authenticated_user_may_discover_and_ask_about_itself():
    authz = RBACAuthorizer(StaticRoleSource(bootstrap_objects()))
    assert authz.authorize(attrs("get", path="/apis/apps/v1")).allowed
    assert authz.authorize(attrs("create", "selfsubjectaccessreviews",
                                 group="authorization.k8s.io", namespace="")).allowed
    assert not authz.authorize(attrs("list", "pods")).allowed
    masters = authz.authorize(attrs("delete", "nodes", namespace="", user=admin_user()))
    assert masters == Decision(True, 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of '
                                     'ClusterRole "cluster-admin" to Group "system:masters"')


def test_reasons_name_the_binding_and_missing_roles():
    authz = RBACAuthorizer(StaticRoleSource([
        binding("RoleBinding", "Role", "ghost", SA_SUBJECT),
        binding("RoleBinding", "Role", "reader", SA_SUBJECT),
        {"kind": "Role", "metadata": {"name": "reader", "namespace": "default"},
         "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]}]))
    allowed = authz.authorize(attrs("get", "pods", name="p"))
    assert allowed == Decision(True, 'RBAC: allowed by RoleBinding "reader-binding/default" of '
                                     'Role "reader" to ServiceAccount "bot/default"')
    denied = authz.authorize(attrs("delete", "pods", name="p"))
    assert denied == Decision(False, 'RBAC: role.rbac.authorization.k8s.io "ghost" not found')
    resource_rules, _, incomplete, errors = authz.rules_for(BOT, "default")
    assert resource_rules == [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]
    assert (incomplete, errors) == (False, ['role.rbac.authorization.k8s.io "ghost" not found'])


@pytest.mark.parametrize("subject, user, namespace, applies", [
    ({"kind": "User", "name": "alice"}, UserInfo("alice"), "default", True),
    ({"kind": "User", "name": "alice"}, UserInfo("bob"), "default", False),
    ({"kind": "Group", "name": "devs"}, UserInfo("bob", ("devs",)), "default", True),
    ({"kind": "ServiceAccount", "name": "bot"}, BOT, "default", True),
    ({"kind": "ServiceAccount", "name": "bot", "namespace": "other"}, BOT, "default", False),
    ({"kind": "ServiceAccount", "name": "bot", "namespace": "default"}, BOT, "other", True),
])
def test_subjects(subject: dict[str, Any], user: UserInfo, namespace: str, applies: bool):
    authz = RBACAuthorizer(StaticRoleSource([
        binding("RoleBinding", "ClusterRole", "anything", subject, namespace),
        {"kind": "ClusterRole", "metadata": {"name": "anything"},
         "rules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]}]))
    assert authz.authorize(attrs("get", "pods", name="p", namespace=namespace,
                                 user=user)).allowed is applies


# ------------------------------------------------------------------ 403 wording

@pytest.mark.parametrize("request_, reason, message, details", [
    (attrs("list", "pods"), "",
     'pods is forbidden: User "system:serviceaccount:default:bot" cannot list resource "pods" '
     'in API group "" in the namespace "default"', {"kind": "pods"}),
    (attrs("get", "deployments", group="apps", sub="scale", name="web"), "",
     'deployments.apps "web" is forbidden: User "system:serviceaccount:default:bot" cannot get '
     'resource "deployments/scale" in API group "apps" in the namespace "default"',
     {"kind": "deployments", "group": "apps", "name": "web"}),
    (attrs("list", "nodes", namespace=""), "RBAC: x",
     'nodes is forbidden: User "system:serviceaccount:default:bot" cannot list resource "nodes" '
     'in API group "" at the cluster scope: RBAC: x', {"kind": "nodes"}),
    (attrs("get", path="/metrics"), "",
     'forbidden: User "system:serviceaccount:default:bot" cannot get path "/metrics"', {}),
])
def test_forbidden_wording(request_: Attributes, reason: str, message: str,
                           details: dict[str, Any]):
    assert forbidden_status_message(request_, reason) == (message, details)


# ------------------------------------------------------------------ impersonation

def allow_only(*resources: str):
    def authorize(a: Attributes) -> Decision:
        return Decision(a.verb == "impersonate" and a.resource in resources)
    return authorize


def test_impersonating_a_service_account_gives_its_groups():
    user = impersonate(admin_user(), [("Impersonate-User", "system:serviceaccount:ns:sa")],
                       allow_only("serviceaccounts"))
    assert user == UserInfo("system:serviceaccount:ns:sa",
                            ("system:serviceaccounts", "system:serviceaccounts:ns",
                             "system:authenticated"))


def test_impersonating_a_user_with_groups_and_extras():
    user = impersonate(admin_user(), [("Impersonate-User", "jane"),
                                      ("Impersonate-Group", "a"), ("Impersonate-Group", "b"),
                                      ("Impersonate-Extra-Scopes%2Fx", "v")],
                       allow_only("users", "groups", "userextras"))
    assert (user.name, user.groups) == ("jane", ("a", "b", "system:authenticated"))
    assert user.extra == {"scopes/x": ("v",)}


def test_impersonation_is_checked_and_needs_a_user():
    with pytest.raises(Forbidden, match='groups "a" is forbidden: User "minikube-py-admin" '
                                        'cannot impersonate resource "groups"'):
        impersonate(admin_user(), [("Impersonate-User", "jane"), ("Impersonate-Group", "a")],
                    allow_only("users"))
    with pytest.raises(BadRequest, match="without impersonating a user"):
        impersonate(admin_user(), [("Impersonate-Group", "a")], allow_only("groups"))


# ------------------------------------------------------------------ bootstrap reconciliation

def test_bootstrap_creates_once_and_puts_back_what_was_removed():
    stored: dict[tuple[str, str], dict[str, Any]] = {}
    resources = {"ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings"}

    def put(obj: dict[str, Any]) -> None:
        stored[(resources[obj["kind"]], obj["metadata"]["name"])] = obj

    def get(resource: str, name: str) -> dict[str, Any] | None:
        return stored.get((resource, name))

    first = ensure_bootstrap_policy(put, get, put)
    assert "ClusterRole/view" in first and "ClusterRoleBinding/cluster-admin" in first
    assert ensure_bootstrap_policy(put, get, put) == []
    stored[("clusterrolebindings", "cluster-admin")]["subjects"] = []
    basic = stored[("clusterroles", "system:basic-user")]
    basic["rules"] = [*basic["rules"][:1],
                      {"verbs": ["get"], "apiGroups": [""], "resources": ["mine"]}]
    assert ensure_bootstrap_policy(put, get, put) == ["ClusterRole/system:basic-user",
                                                      "ClusterRoleBinding/cluster-admin"]
    assert {"verbs": ["get"], "apiGroups": [""], "resources": ["mine"]} in \
        stored[("clusterroles", "system:basic-user")]["rules"]  # a user's rule is kept
    # autoupdate "false": the user's edits stand.
    stored[("clusterrolebindings", "cluster-admin")]["subjects"] = []
    stored[("clusterrolebindings", "cluster-admin")]["metadata"]["annotations"] = {
        "rbac.authorization.kubernetes.io/autoupdate": "false"}
    assert ensure_bootstrap_policy(put, get, put) == []


def test_aggregation_takes_each_rule_once_in_name_order_and_never_its_own():
    role = {"metadata": {"name": "agg"}, "aggregationRule": {"clusterRoleSelectors": [
        {"matchLabels": {"x": "1"}}]}, "rules": [{"verbs": ["old"]}]}
    others = [
        role,
        {"metadata": {"name": "b", "labels": {"x": "1"}}, "rules": [{"verbs": ["b"]}]},
        {"metadata": {"name": "a", "labels": {"x": "1"}},
         "rules": [{"verbs": ["a"]}, {"verbs": ["b"]}]},
        {"metadata": {"name": "c", "labels": {"x": "2"}}, "rules": [{"verbs": ["c"]}]},
    ]
    assert aggregated_rules(role, others) == [{"verbs": ["a"]}, {"verbs": ["b"]}]
