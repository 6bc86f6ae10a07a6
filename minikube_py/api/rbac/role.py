"""Role (rbac.authorization.k8s.io/v1): namespaced permissions.

``ValidateRole`` (v1.32): the object metadata (the name a path segment,
``ValidateRBACName``), then every rule as a namespaced rule (no
``nonResourceURLs``; :mod:`.rules`); an update checks that first and the
metadata update rules after it. No defaults, status or generation.
The table is the API server's default (``NAME CREATED AT``: kube-apiserver
has no printer for roles) and the describer kubectl's ``RoleDescriber``.
Escalation checks (a user may only grant what they hold) belong to the API
server's authorizer, not to this strategy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..generated import rbac_v1
from ..resource import KindInfo, Resource
from ..validation_meta import Errs, validate_object_meta, validate_object_meta_update
from .rules import GROUP, NAME_RULE, describe_role, validate_rules

INFO = KindInfo("Role", GROUP, "v1", "roles", "role", True)


def validate_role(role: Mapping[str, Any]) -> Errs:
    """``ValidateRole``."""
    errs = validate_object_meta(role.get("metadata"), namespaced=True, name_rule=NAME_RULE)
    errs.extend(validate_rules(role, namespaced=True))
    return errs


def validate_role_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateRoleUpdate``: the create rules, then the metadata update rules."""
    errs = validate_role(new)
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    return errs


RESOURCE = Resource(
    INFO, rbac_v1.Role,
    validate=validate_role,
    validate_update=validate_role_update,
    describe=describe_role,
)
