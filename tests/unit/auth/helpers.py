"""Shared builders for the authorization tests."""

from __future__ import annotations

from typing import Any

from minikube_py.auth.aggregation import aggregated_rules
from minikube_py.auth.attributes import Attributes
from minikube_py.auth.user import UserInfo, service_account_user

RBAC = "rbac.authorization.k8s.io"
BOT = service_account_user("default", "bot")


def res(verb: str, resource: str, *, group: str = "", sub: str = "", name: str = "",
        namespace: str = "default", user: UserInfo = BOT) -> Attributes:
    """A resource request."""
    return Attributes(user, verb, True, namespace, group, "v1", resource, sub, name)


def url(verb: str, path: str, *, user: UserInfo = BOT) -> Attributes:
    """A non-resource request."""
    return Attributes(user, verb, False, path=path)


def rule(verbs: list[str], groups: list[str] | None = None,
         resources: list[str] | None = None, names: list[str] | None = None,
         urls: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"verbs": verbs}
    if groups is not None:
        out["apiGroups"] = groups
    if resources is not None:
        out["resources"] = resources
    if names is not None:
        out["resourceNames"] = names
    if urls is not None:
        out["nonResourceURLs"] = urls
    return out


def role(name: str, rules: list[dict[str, Any]], namespace: str | None = None,
         labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels or {}}
    if namespace is not None:
        meta["namespace"] = namespace
    return {"apiVersion": f"{RBAC}/v1", "kind": "Role" if namespace else "ClusterRole",
            "metadata": meta, "rules": rules}


def binding(name: str, role_kind: str, role_name: str, subjects: list[dict[str, Any]],
            namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    return {"apiVersion": f"{RBAC}/v1",
            "kind": "RoleBinding" if namespace is not None else "ClusterRoleBinding",
            "metadata": meta, "roleRef": {"apiGroup": RBAC, "kind": role_kind,
                                          "name": role_name},
            "subjects": subjects}


def aggregate(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``objects`` once the aggregation controller has settled: every
    aggregating ClusterRole's rules filled in until nothing changes."""
    roles = [o for o in objects if o["kind"] == "ClusterRole"]
    changed = True
    while changed:
        changed = False
        for r in roles:
            if r.get("aggregationRule"):
                rules = aggregated_rules(r, roles)
                if rules != (r.get("rules") or []):
                    r["rules"] = rules
                    changed = True
    return objects
