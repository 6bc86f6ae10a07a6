"""ClusterRole aggregation (kube-controller-manager's ``clusterrole-aggregation``).

A ClusterRole with an ``aggregationRule`` gets, as its ``rules``, the rules of
every other ClusterRole whose labels match one of its
``clusterRoleSelectors`` (:func:`~minikube_py.auth.aggregation.aggregated_rules`):
``admin``, ``edit`` and ``view`` are built that way from the
``system:aggregate-to-*`` roles, and a user extends them by labelling a
ClusterRole ``rbac.authorization.k8s.io/aggregate-to-view: "true"``.

Level-triggered as Kubernetes' controller: any ClusterRole change re-checks
every aggregating ClusterRole (they are few), and a role whose rules already
equal the aggregation is not written.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from ..api.access import key_of
from ..auth.aggregation import aggregated_rules
from ..client.base import Client
from ..client.shared import SharedInformers
from .base import Controller

__all__ = ["ClusterRoleAggregationController"]


class ClusterRoleAggregationController(Controller):
    name = "clusterrole-aggregation-controller"

    def __init__(self, client: Client, informers: SharedInformers, *, workers: int = 1,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(client, informers, workers=workers, clock=clock)
        self.roles = self.watch("clusterroles", key=self._aggregating_keys)
        self.synced_before_start = (self.roles,)

    def _aggregating_keys(self, _changed: Mapping[str, Any]) -> list[str]:
        return [key_of(r) for r in self.roles.list() if r.get("aggregationRule")]

    def reconcile(self, key: str) -> float | None:
        role = self.roles.get(key)
        if role is None or not role.get("aggregationRule"):
            return None
        rules = aggregated_rules(role, self.roles.list())
        if (role.get("rules") or []) == rules:
            return None
        # A full update with the cached resourceVersion: a concurrent change is
        # a Conflict, retried by the queue with the newer object.
        self.client.update({**role, "rules": rules})
        return None
