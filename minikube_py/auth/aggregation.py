"""ClusterRole aggregation: the rules an aggregated ClusterRole should have
(pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go).

For each of the ``aggregationRule.clusterRoleSelectors`` in turn, the rules
of every *other* ClusterRole its labels select, in name order; each rule
once (the first time it is seen). The controller writes them as the role's
``rules``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..api.labels import SelectorError, selector_from_label_selector

__all__ = ["aggregated_rules"]


def aggregated_rules(role: Mapping[str, Any],
                     cluster_roles: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rules ``role`` aggregates from ``cluster_roles`` (module contract).

    An invalid selector selects nothing (validation refuses those on write)."""
    rule = role.get("aggregationRule") or {}
    selectors = []
    for raw in rule.get("clusterRoleSelectors") or ():
        try:
            selectors.append(selector_from_label_selector(raw))
        except SelectorError:
            continue
    own = (role.get("metadata") or {}).get("name")
    ordered = sorted(cluster_roles, key=lambda r: str((r.get("metadata") or {}).get("name")))
    out: list[dict[str, Any]] = []
    for selector in selectors:
        for other in ordered:
            meta = other.get("metadata") or {}
            labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
            if meta.get("name") == own or not selector.matches(labels):
                continue
            for r in other.get("rules") or ():
                if isinstance(r, Mapping) and dict(r) not in out:
                    out.append(dict(r))
    return out
