"""Does one RBAC ``PolicyRule`` allow a request? (``RuleAllows`` and its
helpers, pkg/apis/rbac/v1/evaluation_helpers.go and
plugin/pkg/auth/authorizer/rbac/rbac.go.)

Rules are the API's plain dicts (``verbs``, ``apiGroups``, ``resources``,
``resourceNames``, ``nonResourceURLs``). The matching is Kubernetes':

* ``*`` matches any verb, group, resource or non-resource URL;
* a resource request for a subresource asks for ``resource/subresource``,
  which a rule grants by naming it or by ``*/subresource``;
* an empty ``resourceNames`` allows every name;
* a non-resource URL ending in ``*`` is a prefix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .attributes import Attributes

__all__ = ["api_group_matches", "non_resource_url_matches", "resource_matches",
           "resource_name_matches", "rule_allows", "verb_matches"]

Rule = Mapping[str, Any]


def _list(rule: Rule, key: str) -> list[str]:
    return [str(v) for v in rule.get(key) or ()]


def verb_matches(rule: Rule, verb: str) -> bool:
    return any(v in ("*", verb) for v in _list(rule, "verbs"))


def api_group_matches(rule: Rule, group: str) -> bool:
    return any(g in ("*", group) for g in _list(rule, "apiGroups"))


def resource_matches(rule: Rule, combined: str, subresource: str) -> bool:
    for resource in _list(rule, "resources"):
        if resource in ("*", combined):
            return True
        if subresource and resource == f"*/{subresource}":
            return True
    return False


def resource_name_matches(rule: Rule, name: str) -> bool:
    names = _list(rule, "resourceNames")
    return not names or name in names


def non_resource_url_matches(rule: Rule, url: str) -> bool:
    for pattern in _list(rule, "nonResourceURLs"):
        if pattern in ("*", url):
            return True
        if pattern.endswith("*") and url.startswith(pattern.rstrip("*")):
            return True
    return False


def rule_allows(attrs: Attributes, rule: Rule) -> bool:
    """``RuleAllows``."""
    if attrs.resource_request:
        combined = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource \
            else attrs.resource
        return (verb_matches(rule, attrs.verb) and api_group_matches(rule, attrs.api_group)
                and resource_matches(rule, combined, attrs.subresource)
                and resource_name_matches(rule, attrs.name))
    return verb_matches(rule, attrs.verb) and non_resource_url_matches(rule, attrs.path)
