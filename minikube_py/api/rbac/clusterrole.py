"""ClusterRole (rbac.authorization.k8s.io/v1): cluster-wide permissions.

``ValidateClusterRole`` (v1.32): the object metadata (the name a path
segment), every rule as a cluster rule (``nonResourceURLs`` allowed;
:mod:`.rules`), and an ``aggregationRule`` needs at least one
``clusterRoleSelectors`` entry, each a valid label selector that also
converts to a selector (``invalid label selector.``, with the nil selector
Go prints as ``"null"``). An update checks that first, then the metadata
update rules; it tolerates invalid label values in the selectors when the
stored ClusterRole already had a selector that did not validate
(``AllowInvalidLabelValueInSelector``).

The rules of an aggregated ClusterRole are filled in by the aggregation
controller (not here). The table is the API server's default (``NAME
CREATED AT``) and the describer kubectl's ``ClusterRoleDescriber``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..access import mapping as _m
from ..errors import FieldPath, invalid, required
from ..generated import rbac_v1
from ..labels import SelectorError, selector_from_label_selector, validate_label_selector
from ..resource import KindInfo, Resource
from ..validation_meta import Errs, as_list, validate_object_meta, validate_object_meta_update
from .rules import GROUP, NAME_RULE, describe_role, validate_rules

INFO = KindInfo("ClusterRole", GROUP, "v1", "clusterroles", "clusterrole", False)

_SELECTORS = FieldPath.root("aggregationRule", "clusterRoleSelectors")


def _aggregation_rule(role: Mapping[str, Any], allow_invalid_values: bool) -> Errs:
    rule = role.get("aggregationRule")
    if rule is None:
        return []
    selectors = as_list(_m(rule).get("clusterRoleSelectors"))
    if not selectors:
        return [required(_SELECTORS, "at least one clusterRoleSelector required if "
                                     "aggregationRule is non-nil")]
    errs: Errs = []
    for i, selector in enumerate(selectors):
        errs.extend(validate_label_selector(selector, _SELECTORS.index(i),
                                            allow_invalid_values=allow_invalid_values))
        try:
            selector_from_label_selector(_m(selector))
        except SelectorError:
            errs.append(invalid(_SELECTORS.index(i), "null", "invalid label selector."))
    return errs


def _validate(role: Mapping[str, Any], allow_invalid_values: bool) -> Errs:
    errs = validate_object_meta(role.get("metadata"), namespaced=False, name_rule=NAME_RULE)
    errs.extend(validate_rules(role, namespaced=False))
    errs.extend(_aggregation_rule(role, allow_invalid_values))
    return errs


def validate_cluster_role(role: Mapping[str, Any]) -> Errs:
    """``ValidateClusterRole`` as a create checks it."""
    return _validate(role, allow_invalid_values=False)


def validate_cluster_role_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateClusterRoleUpdate``, with the strategy's tolerance of what
    the stored selectors already had."""
    tolerant = bool(_aggregation_rule(old, allow_invalid_values=False))
    errs = _validate(new, allow_invalid_values=tolerant)
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    return errs


RESOURCE = Resource(
    INFO, rbac_v1.ClusterRole,
    validate=validate_cluster_role,
    validate_update=validate_cluster_role_update,
    describe=describe_role,
)
