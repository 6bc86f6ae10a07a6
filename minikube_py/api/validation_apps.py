"""Deployment and ReplicaSet validation, as ``pkg/apis/apps/validation`` (v1.32).

Includes what the apps/v1 registry strategies add on update: ``spec.selector``
is immutable. Selector and IntOrString values appear in messages the way Go
prints them (``&LabelSelector{...}``, a bare ``25%``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import FieldPath, forbidden, invalid, not_supported, required
from .labels import SelectorError, selector_from_label_selector, validate_label_selector
from .names import regex_error
from .validation_meta import (
    IS_NEGATIVE_MSG,
    Errs,
    GoValue,
    as_int,
    as_map,
    as_str,
    go_int_or_string,
    go_label_selector,
    go_quote,
    go_string_map,
    immutable,
    nonnegative,
    validate_object_meta,
    validate_object_meta_update,
)
from .validation_pod import validate_pod_template_spec

__all__ = [
    "validate_deployment",
    "validate_deployment_update",
    "validate_replica_set",
    "validate_replica_set_update",
]

_PERCENT_FMT = "[0-9]+%"
_PERCENT_RE = re.compile(_PERCENT_FMT)


def _selector_and_template(spec: Mapping[str, Any], path: FieldPath) -> Errs:
    """The selector checks of ``ValidateDeploymentSpec`` / ``ValidateReplicaSetSpec``
    and ``ValidatePodTemplateSpecForReplicaSet``."""
    errs: Errs = []
    selector = spec.get("selector")
    selector_path = path.child("selector")
    if selector is None:
        errs.append(required(selector_path, ""))
    else:
        errs.extend(validate_label_selector(selector, selector_path))
        body = as_map(selector)
        if not body.get("matchLabels") and not body.get("matchExpressions"):
            # Kubernetes says "deployment" for ReplicaSets too.
            errs.append(invalid(selector_path, go_label_selector(selector),
                                "empty selector is invalid for deployment"))
    try:
        compiled = selector_from_label_selector(None if selector is None else as_map(selector))
    except SelectorError:
        errs.append(invalid(selector_path, go_label_selector(selector), "invalid label selector"))
        return errs
    template_path = path.child("template")
    template = as_map(spec.get("template"))
    labels = as_map(template.get("metadata")).get("labels")
    if not compiled.empty() and not compiled.matches(as_map(labels)):
        errs.append(invalid(template_path.child("metadata", "labels"), go_string_map(labels),
                            "`selector` does not match template `labels`"))
    errs.extend(validate_pod_template_spec(template, template_path))
    pod_spec = as_map(template.get("spec"))
    restart = as_str(pod_spec.get("restartPolicy"))
    if restart != "Always":
        errs.append(not_supported(template_path.child("spec", "restartPolicy"), restart,
                                  ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(template_path.child("spec", "activeDeadlineSeconds"),
                              "activeDeadlineSeconds in ReplicaSet is not Supported"))
    return errs


def _percent(value: Any) -> int | None:
    if isinstance(value, str) and _PERCENT_RE.fullmatch(value):
        return int(value[:-1])
    return None


def _int_or_percent_value(value: Any) -> int:
    """``getIntOrPercentValue``: the percentage, the integer, or (like
    ``IntValue()`` on a non-numeric string) 0."""
    percent = _percent(value)
    if percent is not None:
        return percent
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return 0
    return as_int(value) or 0


def _positive_int_or_percent(value: Any, path: FieldPath) -> Errs:
    """``ValidatePositiveIntOrPercent``."""
    if isinstance(value, str):
        if _PERCENT_RE.fullmatch(value):
            return []
        msg = regex_error("a valid percent string must be a numeric string followed by an "
                          "ending '%'", _PERCENT_FMT, "1%", "93%")
        return [invalid(path, go_int_or_string(value), msg)]
    number = as_int(value)
    if number is not None and number < 0:
        return [invalid(path, number, IS_NEGATIVE_MSG)]
    return []


def _strategy(strategy_value: Any, path: FieldPath) -> Errs:
    """``ValidateDeploymentStrategy``."""
    strategy = as_map(strategy_value)
    kind = as_str(strategy.get("type"))
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [forbidden(path.child("rollingUpdate"),
                              "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind != "RollingUpdate":
        # The *DeploymentStrategy is dereferenced and printed with %#v.
        pointer = "nil" if rolling is None else "0x..."
        shown = GoValue(f"apps.DeploymentStrategy{{Type:{go_quote(kind)}, "
                        f"RollingUpdate:(*apps.RollingUpdateDeployment)({pointer})}}")
        return [not_supported(path, shown, ("Recreate", "RollingUpdate"))]
    if rolling is None:
        return [required(path.child("rollingUpdate"), "this should be defaulted and never be nil")]
    body = as_map(rolling)
    rolling_path = path.child("rollingUpdate")
    max_unavailable, max_surge = body.get("maxUnavailable"), body.get("maxSurge")
    errs = _positive_int_or_percent(max_unavailable, rolling_path.child("maxUnavailable"))
    errs.extend(_positive_int_or_percent(max_surge, rolling_path.child("maxSurge")))
    if _int_or_percent_value(max_unavailable) == 0 and _int_or_percent_value(max_surge) == 0:
        errs.append(invalid(rolling_path.child("maxUnavailable"), go_int_or_string(max_unavailable),
                            "may not be 0 when `maxSurge` is 0"))
    percent = _percent(max_unavailable)
    if percent is not None and percent > 100:
        errs.append(invalid(rolling_path.child("maxUnavailable"), go_int_or_string(max_unavailable),
                            "must not be greater than 100%"))
    return errs


def _deployment_spec(spec_value: Any, path: FieldPath) -> Errs:
    """``ValidateDeploymentSpec``."""
    spec = as_map(spec_value)
    errs = nonnegative(spec.get("replicas"), path.child("replicas"))
    errs.extend(_selector_and_template(spec, path))
    errs.extend(_strategy(spec.get("strategy"), path.child("strategy")))
    errs.extend(nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds")))
    errs.extend(nonnegative(spec.get("revisionHistoryLimit"), path.child("revisionHistoryLimit")))
    deadline = as_int(spec.get("progressDeadlineSeconds"))
    if deadline is not None:
        deadline_path = path.child("progressDeadlineSeconds")
        errs.extend(nonnegative(deadline, deadline_path))
        if deadline <= (as_int(spec.get("minReadySeconds")) or 0):
            errs.append(invalid(deadline_path, deadline, "must be greater than minReadySeconds"))
    return errs


def _replica_set_spec(spec_value: Any, path: FieldPath) -> Errs:
    """``ValidateReplicaSetSpec``."""
    spec = as_map(spec_value)
    errs = nonnegative(spec.get("replicas"), path.child("replicas"))
    errs.extend(nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds")))
    errs.extend(_selector_and_template(spec, path))
    return errs


def _selector_immutable(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    new_selector = as_map(new.get("spec")).get("selector")
    old_selector = as_map(old.get("spec")).get("selector")
    return immutable(new_selector, old_selector, FieldPath.root("spec", "selector"),
                     shown=go_label_selector(new_selector))


def validate_deployment(obj: Mapping[str, Any]) -> Errs:
    """``ValidateDeployment``."""
    errs = validate_object_meta(obj.get("metadata"), namespaced=True, name_rule="subdomain")
    errs.extend(_deployment_spec(obj.get("spec"), FieldPath.root("spec")))
    return errs


def validate_deployment_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateDeploymentUpdate`` plus the apps/v1 immutable selector."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(_deployment_spec(new.get("spec"), FieldPath.root("spec")))
    errs.extend(_selector_immutable(new, old))
    return errs


def validate_replica_set(obj: Mapping[str, Any]) -> Errs:
    """``ValidateReplicaSet``."""
    errs = validate_object_meta(obj.get("metadata"), namespaced=True, name_rule="subdomain")
    errs.extend(_replica_set_spec(obj.get("spec"), FieldPath.root("spec")))
    return errs


def validate_replica_set_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateReplicaSetUpdate`` plus the apps/v1 immutable selector."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(_replica_set_spec(new.get("spec"), FieldPath.root("spec")))
    errs.extend(_selector_immutable(new, old))
    return errs
