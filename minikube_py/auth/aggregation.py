"""ClusterRole aggregation: the rules an aggregated ClusterRole should have
(kube-controller-manager 1.32's ``clusterrole-aggregation`` controller,
pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go,
``syncClusterRole``).

For each of the ``aggregationRule.clusterRoleSelectors`` in turn, the rules
of every *other* ClusterRole its labels select, those roles sorted by name;
each rule once (the first time it is seen, compared as
``equality.Semantic.DeepEqual`` does: an empty list is the same as none).
The result is not sorted further. The controller writes it as the role's
``rules`` when it differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..api.labels import SelectorError, selector_from_label_selector

__all__ = ["aggregated_rules"]

_RULE_FIELDS = ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")


def _normalized(rule: Mapping[str, Any]) -> dict[str, Any]:
    # A PolicyRule as the controller writes it back: its fields in API
    # order, empty ones left out (omitempty), so [] and absent compare equal.
    return {k: list(rule[k]) for k in _RULE_FIELDS if rule.get(k)}


def aggregated_rules(role: Mapping[str, Any],
                     cluster_roles: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rules ``role`` aggregates from ``cluster_roles`` (module contract).

    ``role``'s own rules never aggregate into it, even when its labels match
    its selectors: Kubernetes' controller leaves it out by name too.
    An invalid selector selects nothing: Kubernetes' controller fails the
    sync instead, but validation refuses such selectors on write, so only a
    corrupt store could hold one."""
    rule = role.get("aggregationRule") or {}
    selectors = []
    for raw in rule.get("clusterRoleSelectors") or ():
        try:
            selectors.append(selector_from_label_selector(raw))
        except SelectorError:
            continue
    own = (role.get("metadata") or {}).get("name")
    # sort.Sort(byName(...)): Go compares bytes, which for UTF-8 is code-point order.
    ordered = sorted(cluster_roles, key=lambda r: str((r.get("metadata") or {}).get("name")))
    out: list[dict[str, Any]] = []
    for selector in selectors:
        for other in ordered:
            meta = other.get("metadata") or {}
            labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
            if meta.get("name") == own or not selector.matches(labels):
                continue
            for r in other.get("rules") or ():
                if not isinstance(r, Mapping):
                    continue
                candidate = _normalized(r)
                if candidate not in out:
                    out.append(candidate)
    return out
