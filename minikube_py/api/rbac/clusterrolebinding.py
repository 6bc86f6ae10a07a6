"""ClusterRoleBinding (rbac.authorization.k8s.io/v1): grants a ClusterRole
cluster-wide.

Defaults, ``ValidateClusterRoleBinding`` / ``...Update``, the table and
kubectl's ``ClusterRoleBindingDescriber`` are :mod:`.bindings`' (cluster
scope: ``roleRef`` names a ClusterRole, a ServiceAccount subject needs its
namespace). No status, no generation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..generated import rbac_v1
from ..resource import KindInfo, Resource
from ..validation_meta import Errs
from .bindings import (
    binding_columns,
    default_binding,
    describe_binding,
    print_binding,
    validate_binding,
    validate_binding_update,
)
from .rules import GROUP

INFO = KindInfo("ClusterRoleBinding", GROUP, "v1", "clusterrolebindings", "clusterrolebinding",
                False)


def validate_cluster_role_binding(binding: Mapping[str, Any]) -> Errs:
    """``ValidateClusterRoleBinding``."""
    return validate_binding(binding, namespaced=False)


def validate_cluster_role_binding_update(new: Mapping[str, Any],
                                         old: Mapping[str, Any]) -> Errs:
    """``ValidateClusterRoleBindingUpdate``."""
    return validate_binding_update(new, old, namespaced=False)


RESOURCE = Resource(
    INFO, rbac_v1.ClusterRoleBinding,
    defaults=default_binding,
    validate=validate_cluster_role_binding,
    validate_update=validate_cluster_role_binding_update,
    columns=binding_columns("clusterRoleBinding"),
    row=print_binding,
    describe=describe_binding,
)
