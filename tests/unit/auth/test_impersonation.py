"""Impersonation as kube-apiserver 1.32's filter (filters/impersonation.go)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from minikube_py.api.errors import BadRequest, Forbidden
from minikube_py.auth.attributes import Attributes
from minikube_py.auth.bootstrap import bootstrap_objects
from minikube_py.auth.impersonation import impersonate, wants_impersonation
from minikube_py.auth.rbac import Decision, RBACAuthorizer, StaticRoleSource
from minikube_py.auth.user import UserInfo, admin_user

from .helpers import aggregate, binding

BOB = UserInfo("bob", ("system:authenticated",))


def recorder(allowed: Callable[[Attributes], bool] = lambda a: True):
    asked: list[Attributes] = []

    def authorize(attrs: Attributes) -> Decision:
        asked.append(attrs)
        return Decision(allowed(attrs), "" if allowed(attrs) else "RBAC: no")
    return authorize, asked


def test_no_headers_no_change():
    authorize, asked = recorder()
    assert impersonate(BOB, {}, authorize) is BOB
    assert impersonate(BOB, [("Accept", "json")], authorize) is BOB
    assert asked == []
    assert not wants_impersonation([("Accept", "json")])
    assert wants_impersonation({"Impersonate-User": "x"})


def test_each_identity_is_checked_in_kubernetes_order():
    authorize, asked = recorder()
    user = impersonate(BOB, [("Impersonate-Uid", "1234"), ("Impersonate-Group", "b"),
                             ("Impersonate-Extra-Scopes", "view"),
                             ("Impersonate-User", "jane"), ("Impersonate-Group", "a"),
                             ("Impersonate-Extra-Scopes", "edit")], authorize)
    assert user == UserInfo("jane", ("b", "a", "system:authenticated"), "1234",
                            {"scopes": ("view", "edit")})
    assert [(a.resource, a.subresource, a.api_group, a.api_version, a.namespace, a.name)
            for a in asked] == [
        ("users", "", "", "", "", "jane"),
        ("groups", "", "", "", "", "b"),
        ("groups", "", "", "", "", "a"),
        ("userextras", "scopes", "authentication.k8s.io", "v1", "", "view"),
        ("userextras", "scopes", "authentication.k8s.io", "v1", "", "edit"),
        ("uids", "", "authentication.k8s.io", "v1", "", "1234"),
    ]
    assert all(a.verb == "impersonate" and a.resource_request and a.user is BOB
               for a in asked)


def test_a_service_account_is_checked_in_its_namespace_and_gets_its_groups():
    authorize, asked = recorder()
    user = impersonate(BOB, {"impersonate-user": "system:serviceaccount:ns:sa"}, authorize)
    assert user == UserInfo("system:serviceaccount:ns:sa",
                            ("system:serviceaccounts", "system:serviceaccounts:ns",
                             "system:authenticated"))
    assert [(a.resource, a.namespace, a.name) for a in asked] == [("serviceaccounts", "ns",
                                                                  "sa")]
    # Groups asked for replace the service-account groups.
    user = impersonate(BOB, [("Impersonate-User", "system:serviceaccount:ns:sa"),
                             ("Impersonate-Group", "g")], authorize)
    assert user.groups == ("g", "system:authenticated")


def test_a_malformed_service_account_name_is_a_user():
    authorize, asked = recorder()
    user = impersonate(BOB, {"Impersonate-User": "system:serviceaccount:ns"}, authorize)
    assert (user.name, asked[0].resource) == ("system:serviceaccount:ns", "users")


@pytest.mark.parametrize("name, groups, expected", [
    ("jane", ["system:unauthenticated"], ("system:unauthenticated",)),
    ("jane", ["system:authenticated", "g"], ("system:authenticated", "g")),
    ("system:anonymous", [], ("system:unauthenticated",)),
    ("system:anonymous", ["system:authenticated"],
     ("system:authenticated", "system:unauthenticated")),
    ("system:anonymous", ["system:unauthenticated"], ("system:unauthenticated",)),
])
def test_authenticated_and_unauthenticated_groups(name, groups, expected):
    authorize, _ = recorder()
    headers = [("Impersonate-User", name)] + [("Impersonate-Group", g) for g in groups]
    assert impersonate(BOB, headers, authorize).groups == expected


def test_extra_keys_are_lower_cased_and_percent_decoded():
    authorize, _ = recorder()
    user = impersonate(BOB, [("Impersonate-User", "jane"),
                             ("Impersonate-Extra-Example.com%2FScope", "a"),
                             ("Impersonate-Extra-Bad%zz", "b")], authorize)
    assert user.extra == {"example.com/scope": ("a",), "bad%zz": ("b",)}


@pytest.mark.parametrize("headers, message", [
    ([("Impersonate-User", "jane")],
     'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group '
     '"" at the cluster scope: RBAC: no'),
    ([("Impersonate-User", "system:serviceaccount:ns:sa")],
     'serviceaccounts "sa" is forbidden: User "bob" cannot impersonate resource '
     '"serviceaccounts" in API group "" in the namespace "ns": RBAC: no'),
    ([("Impersonate-User", "ok"), ("Impersonate-Group", "admins")],
     'groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API '
     'group "" at the cluster scope: RBAC: no'),
    ([("Impersonate-User", "ok"), ("Impersonate-Extra-Scopes", "x")],
     'userextras.authentication.k8s.io "x" is forbidden: User "bob" cannot impersonate '
     'resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope: '
     'RBAC: no'),
    ([("Impersonate-User", "ok"), ("Impersonate-Uid", "42")],
     'uids.authentication.k8s.io "42" is forbidden: User "bob" cannot impersonate resource '
     '"uids" in API group "authentication.k8s.io" at the cluster scope: RBAC: no'),
])
def test_refusals_are_kubernetes_forbidden(headers, message):
    authorize, _ = recorder(lambda a: a.name == "ok")
    with pytest.raises(Forbidden) as caught:
        impersonate(BOB, headers, authorize)
    assert caught.value.message == message
    assert caught.value.code == 403


@pytest.mark.parametrize("headers, message", [
    ([("Impersonate-Group", "a"), ("Impersonate-Group", "b")],
     "requested [{Group  a    } {Group  b    }] without impersonating a user"),
    ([("Impersonate-Extra-Scopes", "v")],
     "requested [{UserExtra  v  authentication.k8s.io/v1  scopes}] without impersonating a "
     "user"),
    ([("Impersonate-Uid", "42")],
     "requested [{UID  42  authentication.k8s.io/v1  }] without impersonating a user"),
    ([("Impersonate-User", ""), ("Impersonate-Group", "a")],
     "requested [{Group  a    }] without impersonating a user"),
])
def test_groups_extras_or_uid_need_a_user(headers, message):
    authorize, asked = recorder()
    with pytest.raises(BadRequest) as caught:
        impersonate(BOB, headers, authorize)
    assert caught.value.message == message
    assert asked == []


def test_with_rbac_edit_may_impersonate_service_accounts_of_its_namespace_only():
    source = StaticRoleSource([*aggregate(bootstrap_objects()),
                               binding("e", "ClusterRole", "edit",
                                       [{"kind": "User", "name": "bob"}], "dev")])
    authz = RBACAuthorizer(source)
    user = impersonate(BOB, {"Impersonate-User": "system:serviceaccount:dev:ci"},
                       authz.authorize)
    assert user.name == "system:serviceaccount:dev:ci"
    with pytest.raises(Forbidden, match='serviceaccounts "ci" is forbidden'):
        impersonate(BOB, {"Impersonate-User": "system:serviceaccount:prod:ci"},
                    authz.authorize)
    with pytest.raises(Forbidden, match='users "jane" is forbidden'):
        impersonate(BOB, {"Impersonate-User": "jane"}, authz.authorize)
    # cluster-admin (system:masters) may impersonate anyone.
    assert impersonate(admin_user(), {"Impersonate-User": "jane"},
                       authz.authorize).name == "jane"
