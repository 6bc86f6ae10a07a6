"""RoleBinding (rbac.authorization.k8s.io/v1): grants a Role or a
ClusterRole within one namespace.

Defaults, ``ValidateRoleBinding`` / ``ValidateRoleBindingUpdate``, the table
and kubectl's ``RoleBindingDescriber`` are :mod:`.bindings`' (namespaced:
``roleRef`` may name a Role or a ClusterRole, a ServiceAccount subject
without a namespace means the binding's own). No status, no generation.
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

INFO = KindInfo("RoleBinding", GROUP, "v1", "rolebindings", "rolebinding", True)


def validate_role_binding(binding: Mapping[str, Any]) -> Errs:
    """``ValidateRoleBinding``."""
    return validate_binding(binding, namespaced=True)


def validate_role_binding_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateRoleBindingUpdate``."""
    return validate_binding_update(new, old, namespaced=True)


RESOURCE = Resource(
    INFO, rbac_v1.RoleBinding,
    defaults=default_binding,
    validate=validate_role_binding,
    validate_update=validate_role_binding_update,
    columns=binding_columns("roleBinding"),
    row=print_binding,
    describe=describe_binding,
)
