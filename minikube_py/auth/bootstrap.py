"""The default roles every cluster starts with (Kubernetes 1.32's bootstrap
policy, plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go: the
user-facing roles and the ``system:`` basics; the roles of components this
daemon runs in-process — kubelets, controllers, scheduler, proxy, DNS —
are left out, as those never call in over HTTP).

ClusterRoles, with Kubernetes' rules:

* ``cluster-admin`` — everything;
* ``admin``, ``edit``, ``view`` — aggregated (``aggregationRule``) from the
  ClusterRoles labelled ``rbac.authorization.k8s.io/aggregate-to-<role>``:
  ``system:aggregate-to-admin`` / ``-edit`` / ``-view``, ``edit`` into
  ``admin`` and ``view`` into ``edit``, and whatever a user labels so (the
  aggregation controller fills their rules in);
* ``system:basic-user`` — the self reviews (``can-i``, ``whoami``);
* ``system:discovery`` — the discovery and OpenAPI paths;
* ``system:public-info-viewer`` — health and version;
* ``system:monitoring`` — health checks in detail and metrics;
* ``system:service-account-issuer-discovery`` — the OIDC discovery paths;
* ``system:auth-delegator`` — token and access reviews (bound to nobody).

ClusterRoleBindings: ``cluster-admin`` to the group ``system:masters``;
``system:monitoring`` to ``system:monitoring``; ``system:basic-user`` and
``system:discovery`` to ``system:authenticated``;
``system:public-info-viewer`` to ``system:authenticated`` and
``system:unauthenticated``; ``system:service-account-issuer-discovery`` to
``system:serviceaccounts``.

All carry ``kubernetes.io/bootstrapping: rbac-defaults`` and
``rbac.authorization.kubernetes.io/autoupdate: "true"``.
:func:`ensure_bootstrap_policy` does what kube-apiserver's
``ensureRBACPolicy`` post-start hook does with them (pkg/registry/rbac/
reconciliation, in its union mode, which never removes anything a user
added): it creates what is missing, and for every object not annotated
``autoupdate: "false"``

* adds back missing labels and annotations (the object's own values win);
* a ClusterRole: appends the rules it lacks, as ``Covers`` finds them
  (broken down to one group, resource and verb each), and the aggregation
  selectors it lacks; drops an ``aggregationRule`` the default has not;
* a ClusterRoleBinding: appends the subjects it lacks; one whose
  ``roleRef`` differs (immutable) is deleted and created anew.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .rules import covers

__all__ = ["AUTOUPDATE", "bootstrap_objects", "ensure_bootstrap_policy"]

GROUP: Final = "rbac.authorization.k8s.io"
AUTOUPDATE: Final = "rbac.authorization.kubernetes.io/autoupdate"
_AGG = "rbac.authorization.k8s.io/aggregate-to-"
_RW: Final = ["create", "delete", "deletecollection", "patch", "update"]
_READ: Final = ["get", "list", "watch"]
_ALL: Final = ["create", "delete", "deletecollection", "get", "list", "patch", "update",
               "watch"]


def _rule(groups: list[str], resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": list(verbs)}


def _urls(urls: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"nonResourceURLs": urls, "verbs": list(verbs)}


def _meta(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"name": name, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults",
                                     **(labels or {})},
            "annotations": {AUTOUPDATE: "true"}}


def _role(name: str, rules: list[dict[str, Any]], *, labels: dict[str, str] | None = None,
          aggregate: str | None = None) -> dict[str, Any]:
    role: dict[str, Any] = {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRole",
                            "metadata": _meta(name, labels), "rules": rules}
    if aggregate is not None:
        role["aggregationRule"] = {"clusterRoleSelectors": [
            {"matchLabels": {f"{_AGG}{aggregate}": "true"}}]}
    return role


def _binding(name: str, groups: list[str], role: str | None = None) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRoleBinding", "metadata": _meta(name),
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role or name},
            "subjects": [{"apiGroup": GROUP, "kind": "Group", "name": g} for g in groups]}


def _aggregate_to_view() -> list[dict[str, Any]]:
    return [
        _rule([""], ["configmaps", "endpoints", "persistentvolumeclaims",
                     "persistentvolumeclaims/status", "pods", "replicationcontrollers",
                     "replicationcontrollers/scale", "serviceaccounts", "services",
                     "services/status"], _READ),
        _rule([""], ["bindings", "events", "limitranges", "namespaces/status", "pods/log",
                     "pods/status", "replicationcontrollers/status", "resourcequotas",
                     "resourcequotas/status"], _READ),
        _rule([""], ["namespaces"], _READ),
        _rule(["discovery.k8s.io"], ["endpointslices"], _READ),
        _rule(["apps"], ["controllerrevisions", "daemonsets", "daemonsets/status",
                         "deployments", "deployments/scale", "deployments/status",
                         "replicasets", "replicasets/scale", "replicasets/status",
                         "statefulsets", "statefulsets/scale", "statefulsets/status"], _READ),
        _rule(["autoscaling"], ["horizontalpodautoscalers",
                                "horizontalpodautoscalers/status"], _READ),
        _rule(["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], _READ),
        _rule(["extensions"], ["daemonsets", "daemonsets/status", "deployments",
                               "deployments/scale", "deployments/status", "ingresses",
                               "ingresses/status", "networkpolicies", "replicasets",
                               "replicasets/scale", "replicasets/status",
                               "replicationcontrollers/scale"], _READ),
        _rule(["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"], _READ),
        _rule(["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"],
              _READ),
    ]


def _aggregate_to_edit() -> list[dict[str, Any]]:
    return [
        _rule([""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
                     "services/proxy"], _READ),
        _rule([""], ["serviceaccounts"], ["impersonate"]),
        _rule([""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"],
              _RW),
        _rule([""], ["pods/eviction"], ["create"]),
        _rule([""], ["configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                     "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
                     "services/proxy"], _RW),
        _rule([""], ["serviceaccounts/token"], ["create"]),
        _rule(["apps"], ["daemonsets", "deployments", "deployments/rollback",
                         "deployments/scale", "replicasets", "replicasets/scale",
                         "statefulsets", "statefulsets/scale"], _RW),
        _rule(["autoscaling"], ["horizontalpodautoscalers"], _RW),
        _rule(["batch"], ["cronjobs", "jobs"], _RW),
        _rule(["extensions"], ["daemonsets", "deployments", "deployments/rollback",
                               "deployments/scale", "ingresses", "networkpolicies",
                               "replicasets", "replicasets/scale",
                               "replicationcontrollers/scale"], _RW),
        _rule(["policy"], ["poddisruptionbudgets"], _RW),
        _rule(["networking.k8s.io"], ["ingresses", "networkpolicies"], _RW),
        _rule(["coordination.k8s.io"], ["leases"], _ALL),
    ]


def bootstrap_objects() -> list[dict[str, Any]]:
    """Every bootstrap ClusterRole, then every ClusterRoleBinding, in
    Kubernetes' order (fresh dicts)."""
    return [
        _role("cluster-admin", [_rule(["*"], ["*"], ["*"]), _urls(["*"], ["*"])]),
        _role("system:discovery", [_urls(["/api", "/api/*", "/apis", "/apis/*", "/healthz",
                                          "/livez", "/openapi", "/openapi/*", "/readyz",
                                          "/version", "/version/"], ["get"])]),
        _role("system:monitoring", [_urls(["/healthz", "/healthz/*", "/livez", "/livez/*",
                                           "/metrics", "/metrics/slis", "/readyz",
                                           "/readyz/*"], ["get"])]),
        _role("system:basic-user", [
            _rule(["authorization.k8s.io"], ["selfsubjectaccessreviews",
                                             "selfsubjectrulesreviews"], ["create"]),
            _rule(["authentication.k8s.io"], ["selfsubjectreviews"], ["create"]),
        ]),
        _role("system:public-info-viewer", [_urls(["/healthz", "/livez", "/readyz", "/version",
                                                   "/version/"], ["get"])]),
        _role("admin", [], aggregate="admin"),
        _role("edit", [], labels={f"{_AGG}admin": "true"}, aggregate="edit"),
        _role("view", [], labels={f"{_AGG}edit": "true"}, aggregate="view"),
        _role("system:aggregate-to-admin", [
            _rule(["authorization.k8s.io"], ["localsubjectaccessreviews"], ["create"]),
            _rule([GROUP], ["rolebindings", "roles"], _ALL),
        ], labels={f"{_AGG}admin": "true"}),
        _role("system:aggregate-to-edit", _aggregate_to_edit(),
              labels={f"{_AGG}edit": "true"}),
        _role("system:aggregate-to-view", _aggregate_to_view(),
              labels={f"{_AGG}view": "true"}),
        _role("system:auth-delegator", [
            _rule(["authentication.k8s.io"], ["tokenreviews"], ["create"]),
            _rule(["authorization.k8s.io"], ["subjectaccessreviews"], ["create"]),
        ]),
        _role("system:service-account-issuer-discovery", [
            _urls(["/.well-known/openid-configuration", "/openid/v1/jwks"], ["get"])]),
        _binding("cluster-admin", ["system:masters"]),
        _binding("system:monitoring", ["system:monitoring"]),
        _binding("system:discovery", ["system:authenticated"]),
        _binding("system:basic-user", ["system:authenticated"]),
        _binding("system:public-info-viewer", ["system:authenticated",
                                               "system:unauthenticated"]),
        _binding("system:service-account-issuer-discovery", ["system:serviceaccounts"]),
    ]


_RESOURCES: Final = {"ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings"}


def _merged(wanted: dict[str, str], current: dict[str, str]) -> dict[str, str]:
    # reconciliation's merge(expected, existing): the object's values win.
    return {**wanted, **current}


def _reconciled_role(current: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """``computeReconciledRole`` in union mode: ``current`` plus the rules
    and aggregation selectors it lacks."""
    out = dict(current)
    rules = list(current.get("rules") or [])
    _, missing = covers(rules, wanted.get("rules") or [])
    if missing:
        out["rules"] = rules + missing
    want_agg, have_agg = wanted.get("aggregationRule"), current.get("aggregationRule")
    if want_agg is None:
        if have_agg is not None:
            del out["aggregationRule"]
    else:
        selectors = list((have_agg or {}).get("clusterRoleSelectors") or [])
        lacking = [s for s in want_agg.get("clusterRoleSelectors") or []
                   if s not in selectors]
        if lacking:
            out["aggregationRule"] = {**(have_agg or {}),
                                      "clusterRoleSelectors": selectors + lacking}
    return out


def _reconciled_binding(current: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """``computeReconciledRoleBinding`` in union mode: ``current`` plus the
    subjects it lacks."""
    subjects = list(current.get("subjects") or [])
    missing = [s for s in wanted.get("subjects") or [] if s not in subjects]
    return {**current, "subjects": subjects + missing} if missing else dict(current)


def _with_metadata(obj: dict[str, Any], current: dict[str, Any],
                   wanted: dict[str, Any]) -> dict[str, Any]:
    meta = dict(current.get("metadata") or {})
    for key in ("labels", "annotations"):
        merged = _merged(wanted["metadata"][key], dict(meta.get(key) or {}))
        if merged != (meta.get(key) or {}):
            meta[key] = merged
    return {**obj, "metadata": meta}


def ensure_bootstrap_policy(create: Callable[[dict[str, Any]], object],
                            get: Callable[[str, str], dict[str, Any] | None],
                            update: Callable[[dict[str, Any]], object],
                            delete: Callable[[dict[str, Any]], object] | None = None
                            ) -> list[str]:
    """Create the missing bootstrap objects and reconcile the others (module
    contract). ``get(resource, name)`` reads a cluster-scoped object
    (``clusterroles`` / ``clusterrolebindings``; None when absent);
    ``delete(obj)``, when given, removes a binding whose ``roleRef`` must
    change (without it such a binding is left alone). Returns
    ``kind/name`` of what was written, in :func:`bootstrap_objects` order."""
    written: list[str] = []
    for wanted in bootstrap_objects():
        name = wanted["metadata"]["name"]
        current = get(_RESOURCES[wanted["kind"]], name)
        if current is None:
            create(wanted)
            written.append(f"{wanted['kind']}/{name}")
            continue
        annotations = (current.get("metadata") or {}).get("annotations") or {}
        if annotations.get(AUTOUPDATE) == "false":
            continue  # reconcile-protected: exactly "false", as Kubernetes checks
        if wanted["kind"] == "ClusterRoleBinding" and \
                current.get("roleRef") != wanted["roleRef"]:
            if delete is not None:
                delete(current)
                create(wanted)
                written.append(f"{wanted['kind']}/{name}")
            continue
        if wanted["kind"] == "ClusterRole":
            fixed = _reconciled_role(current, wanted)
        else:
            fixed = _reconciled_binding(current, wanted)
        fixed = _with_metadata(fixed, current, wanted)
        if fixed != current:
            update(fixed)
            written.append(f"{wanted['kind']}/{name}")
    return written
