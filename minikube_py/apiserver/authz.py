"""Authorization: may this user do this, as kube-apiserver's authorizer chain decides.

The chain is kube-apiserver's default for a kubeadm cluster minus the Node
authorizer (kubelets run inside the daemon and do not call in over HTTP):

1. members of ``system:masters`` may do anything, whatever RBAC says
   (``authorizerfactory.NewPrivilegedGroups``; the admin kubeconfig is one);
2. everybody else gets what RBAC grants them
   (:class:`~minikube_py.auth.rbac.RBACAuthorizer`), from the Roles,
   ClusterRoles and bindings in the store, read at every decision so a new
   binding counts from the next request on;
3. anything else is denied — a 403 with Kubernetes' wording
   (:func:`forbidden_error`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..api.errors import Forbidden, NotFound
from ..api.rbac import clusterrole, clusterrolebinding, role, rolebinding
from ..auth.attributes import Attributes
from ..auth.forbidden import forbidden_status_message
from ..auth.rbac import Decision, RBACAuthorizer
from ..auth.user import SYSTEM_MASTERS, UserInfo
from ..store.store import Store

__all__ = ["Authorization", "StoreRoleSource", "forbidden_error"]


class StoreRoleSource:
    """RBAC's objects as the store holds them now (an ``auth.rbac.RoleSource``)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def _get(self, resource: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        try:
            return self._store.get(resource, namespace, name)
        except NotFound:
            return None

    def get_role(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self._get(role.INFO.plural, namespace, name)

    def get_cluster_role(self, name: str) -> dict[str, Any] | None:
        return self._get(clusterrole.INFO.plural, None, name)

    def role_bindings(self, namespace: str) -> Iterable[dict[str, Any]]:
        if not namespace:
            return []
        return self._store.list(rolebinding.INFO.plural, namespace=namespace).items

    def cluster_role_bindings(self) -> Iterable[dict[str, Any]]:
        return self._store.list(clusterrolebinding.INFO.plural).items


class Authorization:
    """The authorizer chain (module contract)."""

    def __init__(self, store: Store) -> None:
        self.rbac = RBACAuthorizer(StoreRoleSource(store))

    def authorize(self, attrs: Attributes) -> Decision:
        if SYSTEM_MASTERS in attrs.user.groups:
            return Decision(True, "")
        return self.rbac.authorize(attrs)

    def rules_for(self, user: UserInfo, namespace: str
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool, list[str]]:
        return self.rbac.rules_for(user, namespace)


def forbidden_error(attrs: Attributes, reason: str) -> Forbidden:
    """The 403 kube-apiserver answers a denied request with."""
    message, details = forbidden_status_message(attrs, reason)
    return Forbidden(message, details=details)
