"""The ``rbac.authorization.k8s.io/v1`` group: Role, ClusterRole, RoleBinding,
ClusterRoleBinding (:mod:`.rules` and :mod:`.bindings` hold what the roles
and the bindings share)."""

from __future__ import annotations

from . import clusterrole, clusterrolebinding, role, rolebinding

#: In discovery order (kube-apiserver's: clusterrolebindings, clusterroles,
#: rolebindings, roles).
RESOURCES = (clusterrolebinding.RESOURCE, clusterrole.RESOURCE, rolebinding.RESOURCE,
             role.RESOURCE)
