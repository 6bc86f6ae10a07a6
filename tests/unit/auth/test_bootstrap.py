"""The bootstrap policy (bootstrappolicy/policy.go of Kubernetes 1.32) and
its reconciliation (pkg/registry/rbac/reconciliation, union mode)."""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import pytest

from minikube_py.api.rbac.clusterrole import validate_cluster_role
from minikube_py.api.rbac.clusterrolebinding import validate_cluster_role_binding
from minikube_py.auth.bootstrap import AUTOUPDATE, bootstrap_objects, ensure_bootstrap_policy
from minikube_py.auth.rbac import RBACAuthorizer, StaticRoleSource

from .helpers import RBAC, aggregate, binding, res, rule

SA = [{"kind": "ServiceAccount", "name": "bot"}]


def test_every_object_is_a_labelled_auto_updated_valid_rbac_object():
    objects = bootstrap_objects()
    names = [(o["kind"], o["metadata"]["name"]) for o in objects]
    assert names == [
        ("ClusterRole", "cluster-admin"), ("ClusterRole", "system:discovery"),
        ("ClusterRole", "system:monitoring"), ("ClusterRole", "system:basic-user"),
        ("ClusterRole", "system:public-info-viewer"), ("ClusterRole", "admin"),
        ("ClusterRole", "edit"), ("ClusterRole", "view"),
        ("ClusterRole", "system:aggregate-to-admin"), ("ClusterRole", "system:aggregate-to-edit"),
        ("ClusterRole", "system:aggregate-to-view"), ("ClusterRole", "system:auth-delegator"),
        ("ClusterRole", "system:service-account-issuer-discovery"),
        ("ClusterRoleBinding", "cluster-admin"), ("ClusterRoleBinding", "system:monitoring"),
        ("ClusterRoleBinding", "system:discovery"), ("ClusterRoleBinding", "system:basic-user"),
        ("ClusterRoleBinding", "system:public-info-viewer"),
        ("ClusterRoleBinding", "system:service-account-issuer-discovery"),
    ]
    for obj in objects:
        assert obj["apiVersion"] == f"{RBAC}/v1"
        assert obj["metadata"]["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults"
        assert obj["metadata"]["annotations"] == {AUTOUPDATE: "true"}
        validate = (validate_cluster_role if obj["kind"] == "ClusterRole"
                    else validate_cluster_role_binding)
        assert list(validate(obj)) == [], obj["metadata"]["name"]
    assert bootstrap_objects() == objects and bootstrap_objects() is not objects


def test_aggregation_labels_and_selectors():
    by_name = {o["metadata"]["name"]: o for o in bootstrap_objects() if o["kind"] == "ClusterRole"}
    for name, labelled_into in [("edit", "admin"), ("view", "edit"),
                                ("system:aggregate-to-admin", "admin"),
                                ("system:aggregate-to-edit", "edit"),
                                ("system:aggregate-to-view", "view")]:
        assert by_name[name]["metadata"]["labels"][
            f"rbac.authorization.k8s.io/aggregate-to-{labelled_into}"] == "true"
    for name in ("admin", "edit", "view"):
        assert by_name[name]["aggregationRule"] == {"clusterRoleSelectors": [
            {"matchLabels": {f"rbac.authorization.k8s.io/aggregate-to-{name}": "true"}}]}
        assert by_name[name]["rules"] == []


def test_bindings_subjects():
    subjects = {o["metadata"]["name"]: [(s["kind"], s["name"], s["apiGroup"])
                                        for s in o["subjects"]]
                for o in bootstrap_objects() if o["kind"] == "ClusterRoleBinding"}
    group = "rbac.authorization.k8s.io"
    assert subjects == {
        "cluster-admin": [("Group", "system:masters", group)],
        "system:monitoring": [("Group", "system:monitoring", group)],
        "system:discovery": [("Group", "system:authenticated", group)],
        "system:basic-user": [("Group", "system:authenticated", group)],
        "system:public-info-viewer": [("Group", "system:authenticated", group),
                                      ("Group", "system:unauthenticated", group)],
        "system:service-account-issuer-discovery": [("Group", "system:serviceaccounts",
                                                     group)],
    }


# kubectl auth can-i answers for the default roles bound in "default" once
# aggregated, as a real cluster gives them.
@pytest.mark.parametrize("role, request_, allowed", [
    ("view", res("list", "pods"), True),
    ("view", res("watch", "deployments", group="apps"), True),
    ("view", res("get", "pods", sub="log", name="p"), True),
    ("view", res("get", "namespaces", name="default"), True),
    ("view", res("list", "secrets"), False),
    ("view", res("get", "secrets", name="s"), False),
    ("view", res("create", "pods"), False),
    ("view", res("create", "pods", sub="exec", name="p"), False),
    ("view", res("list", "roles", group=RBAC), False),
    ("view", res("list", "pods", namespace="other"), False),
    ("edit", res("create", "deployments", group="apps"), True),
    ("edit", res("patch", "deployments", group="apps", sub="scale", name="d"), True),
    ("edit", res("get", "secrets", name="s"), True),
    ("edit", res("list", "pods"), True),                 # view's rules, aggregated twice
    ("edit", res("create", "pods", sub="exec", name="p"), True),
    ("edit", res("create", "serviceaccounts", sub="token", name="bot"), True),
    ("edit", res("impersonate", "serviceaccounts", name="bot"), True),
    ("edit", res("update", "leases", group="coordination.k8s.io", name="l"), True),
    ("edit", res("create", "rolebindings", group=RBAC), False),
    ("edit", res("update", "resourcequotas", name="q"), False),
    ("edit", res("update", "pods", sub="status", name="p"), False),
    ("admin", res("create", "rolebindings", group=RBAC), True),
    ("admin", res("delete", "roles", group=RBAC, name="r"), True),
    ("admin", res("create", "localsubjectaccessreviews", group="authorization.k8s.io"), True),
    ("admin", res("delete", "pods", name="p"), True),
    ("admin", res("get", "secrets", name="s"), True),
    ("admin", res("delete", "nodes", name="n", namespace=""), False),
    ("admin", res("update", "resourcequotas", name="q"), False),
    ("cluster-admin", res("update", "resourcequotas", name="q"), True),
])
def test_the_aggregated_default_roles_answer_as_kubernetes(role, request_, allowed):
    source = StaticRoleSource([*aggregate(bootstrap_objects()),
                               binding("b", "ClusterRole", role, SA, "default")])
    assert RBACAuthorizer(source).authorize(request_).allowed is allowed


# ------------------------------------------------------------------ reconciliation

class Store:
    """What ensure_bootstrap_policy is given, over a dict; records writes."""

    RESOURCES: ClassVar[dict[str, str]] = {"ClusterRole": "clusterroles",
                                           "ClusterRoleBinding": "clusterrolebindings"}

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], dict[str, Any]] = {}
        self.log: list[tuple[str, str]] = []

    def key(self, obj: dict[str, Any]) -> tuple[str, str]:
        return self.RESOURCES[obj["kind"]], obj["metadata"]["name"]

    def create(self, obj: dict[str, Any]) -> None:
        assert self.key(obj) not in self.objects
        self.objects[self.key(obj)] = copy.deepcopy(obj)
        self.log.append(("create", obj["metadata"]["name"]))

    def update(self, obj: dict[str, Any]) -> None:
        assert self.key(obj) in self.objects
        self.objects[self.key(obj)] = copy.deepcopy(obj)
        self.log.append(("update", obj["metadata"]["name"]))

    def delete(self, obj: dict[str, Any]) -> None:
        del self.objects[self.key(obj)]
        self.log.append(("delete", obj["metadata"]["name"]))

    def get(self, resource: str, name: str) -> dict[str, Any] | None:
        found = self.objects.get((resource, name))
        return copy.deepcopy(found) if found is not None else None

    def ensure(self, *, with_delete: bool = False) -> list[str]:
        return ensure_bootstrap_policy(self.create, self.get, self.update,
                                       self.delete if with_delete else None)

    def role(self, name: str) -> dict[str, Any]:
        return self.objects[("clusterroles", name)]

    def binding(self, name: str) -> dict[str, Any]:
        return self.objects[("clusterrolebindings", name)]


@pytest.fixture
def store() -> Store:
    s = Store()
    created = s.ensure()
    assert created == [f"{o['kind']}/{o['metadata']['name']}" for o in bootstrap_objects()]
    s.log.clear()
    return s


def test_a_second_run_writes_nothing(store: Store):
    assert store.ensure() == []
    # Not even once the aggregation controller has filled admin/edit/view in.
    roles = [store.role(n) for n in ("admin", "edit", "view", "system:aggregate-to-view",
                                     "system:aggregate-to-edit", "system:aggregate-to-admin")]
    for r in aggregate(roles):
        store.objects[("clusterroles", r["metadata"]["name"])] = r
    assert store.ensure() == []
    assert store.log == []


def test_missing_rules_come_back_broken_down_and_user_rules_stay(store: Store):
    basic = store.role("system:basic-user")
    mine = rule(["get"], [""], ["configmaps"])
    basic["rules"] = [rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews"]),
                      mine]
    assert store.ensure() == ["ClusterRole/system:basic-user"]
    assert store.role("system:basic-user")["rules"] == [
        rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews"]),
        mine,
        rule(["create"], ["authorization.k8s.io"], ["selfsubjectrulesreviews"]),
        rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ]
    assert store.ensure() == []


def test_rules_covered_otherwise_are_left_as_they_are(store: Store):
    store.role("system:discovery")["rules"] = [rule(["*"], urls=["*"])]
    assert store.ensure() == []


def test_aggregation_selectors_are_added_never_removed(store: Store):
    mine = {"matchLabels": {"team": "a"}}
    store.role("view")["aggregationRule"] = {"clusterRoleSelectors": [mine]}
    assert store.ensure() == ["ClusterRole/view"]
    assert store.role("view")["aggregationRule"]["clusterRoleSelectors"] == [
        mine, {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}}]
    # An aggregation rule the default has not is dropped.
    store.role("system:basic-user")["aggregationRule"] = {"clusterRoleSelectors": [mine]}
    assert store.ensure() == ["ClusterRole/system:basic-user"]
    assert "aggregationRule" not in store.role("system:basic-user")


def test_labels_and_annotations_are_added_but_the_objects_values_win(store: Store):
    meta = store.role("edit")["metadata"]
    meta["labels"] = {"rbac.authorization.k8s.io/aggregate-to-admin": "false", "mine": "1"}
    meta["annotations"] = {"note": "x"}
    assert store.ensure() == ["ClusterRole/edit"]
    assert store.role("edit")["metadata"]["labels"] == {
        "kubernetes.io/bootstrapping": "rbac-defaults",
        "rbac.authorization.k8s.io/aggregate-to-admin": "false", "mine": "1"}
    assert store.role("edit")["metadata"]["annotations"] == {AUTOUPDATE: "true", "note": "x"}


def test_missing_subjects_come_back(store: Store):
    mine = {"kind": "User", "name": "alice", "apiGroup": RBAC}
    store.binding("system:public-info-viewer")["subjects"] = [mine]
    assert store.ensure() == ["ClusterRoleBinding/system:public-info-viewer"]
    assert store.binding("system:public-info-viewer")["subjects"] == [
        mine,
        {"apiGroup": RBAC, "kind": "Group", "name": "system:authenticated"},
        {"apiGroup": RBAC, "kind": "Group", "name": "system:unauthenticated"}]


@pytest.mark.parametrize("value, protected", [("false", True), ("False", False),
                                              ("no", False), ("true", False)])
def test_only_autoupdate_false_protects(store: Store, value: str, protected: bool):
    crb = store.binding("cluster-admin")
    crb["subjects"] = []
    crb["metadata"]["annotations"] = {AUTOUPDATE: value}
    assert store.ensure() == ([] if protected else ["ClusterRoleBinding/cluster-admin"])
    assert (store.binding("cluster-admin")["subjects"] == []) is protected


def test_a_binding_to_another_role_is_recreated(store: Store):
    store.binding("system:discovery")["roleRef"]["name"] = "view"
    assert store.ensure() == []                       # cannot without delete
    assert store.ensure(with_delete=True) == ["ClusterRoleBinding/system:discovery"]
    assert store.log == [("delete", "system:discovery"), ("create", "system:discovery")]
    assert store.binding("system:discovery")["roleRef"]["name"] == "system:discovery"


def test_a_deleted_object_is_created_again(store: Store):
    del store.objects[("clusterroles", "view")]
    assert store.ensure() == ["ClusterRole/view"]
