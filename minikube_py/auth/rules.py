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

from collections.abc import Iterable, Mapping
from typing import Any

from .attributes import Attributes

__all__ = ["api_group_matches", "breakdown_rule", "covers", "non_resource_url_matches",
           "resource_matches", "resource_name_matches", "rule_allows", "rules_allow",
           "verb_matches"]

Rule = Mapping[str, Any]


def _list(rule: Rule, key: str) -> list[str]:
    return [str(v) for v in rule.get(key) or ()]


def verb_matches(rule: Rule, verb: str) -> bool:
    """``VerbMatches``: ``*`` or the verb itself."""
    return any(v in ("*", verb) for v in _list(rule, "verbs"))


def api_group_matches(rule: Rule, group: str) -> bool:
    """``APIGroupMatches``: ``*`` or the group itself (``""`` is the core group)."""
    return any(g in ("*", group) for g in _list(rule, "apiGroups"))


def resource_matches(rule: Rule, combined: str, subresource: str) -> bool:
    """``ResourceMatches``: ``combined`` is ``resource`` or
    ``resource/subresource``; ``*`` matches anything, ``*/sub`` any
    resource's ``sub``. (``pods/*`` is no wildcard: it matches only a
    subresource literally named ``*``.)"""
    for resource in _list(rule, "resources"):
        if resource in ("*", combined):
            return True
        if subresource and resource == f"*/{subresource}":
            return True
    return False


def resource_name_matches(rule: Rule, name: str) -> bool:
    """``ResourceNameMatches``: no names allow any (also no name at all)."""
    names = _list(rule, "resourceNames")
    return not names or name in names


def non_resource_url_matches(rule: Rule, url: str) -> bool:
    """``NonResourceURLMatches``: ``*``, the path itself, or a prefix ending
    in ``*`` (``strings.TrimRight``: every trailing ``*`` goes)."""
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


def rules_allow(attrs: Attributes, rules: Iterable[Rule]) -> bool:
    """``RulesAllow``: any of ``rules`` allows ``attrs``."""
    return any(rule_allows(attrs, rule) for rule in rules)


# ------------------------------------------------------------------ coverage
# component-helpers/auth/rbac/validation/policy_comparator.go: does one set
# of rules grant everything another does? (Bootstrap reconciliation, and the
# escalation check on writing Roles and bindings.)


def breakdown_rule(rule: Rule) -> list[dict[str, Any]]:
    """``BreakdownRule``: the rule as rules of one group, resource, verb (and
    resource name), then one non-resource URL and verb each."""
    out: list[dict[str, Any]] = []
    names = _list(rule, "resourceNames")
    for group in _list(rule, "apiGroups"):
        for resource in _list(rule, "resources"):
            for verb in _list(rule, "verbs"):
                base = {"verbs": [verb], "apiGroups": [group], "resources": [resource]}
                if names:
                    out.extend({**base, "resourceNames": [n]} for n in names)
                else:
                    out.append(base)
    for url in _list(rule, "nonResourceURLs"):
        for verb in _list(rule, "verbs"):
            out.append({"verbs": [verb], "nonResourceURLs": [url]})
    return out


def _resource_covers_all(owned: list[str], wanted: list[str]) -> bool:
    if "*" in owned or all(r in owned for r in wanted):
        return True
    for path in wanted:
        if path in owned:
            continue
        if "/" not in path or "*/" + path.split("/", 1)[1] not in owned:
            return False
    return True


def _url_covers(owner: str, url: str) -> bool:
    return owner == url or (owner.endswith("*") and url.startswith(owner.rstrip("*")))


def _rule_covers(owner: Rule, sub: Rule) -> bool:
    """``ruleCovers``: ``sub`` is one of :func:`breakdown_rule`'s."""
    verbs, groups = _list(owner, "verbs"), _list(owner, "apiGroups")
    owner_names, sub_names = _list(owner, "resourceNames"), _list(sub, "resourceNames")
    names_ok = not owner_names or (bool(sub_names) and all(n in owner_names for n in sub_names))
    return (("*" in verbs or all(v in verbs for v in _list(sub, "verbs")))
            and ("*" in groups or all(g in groups for g in _list(sub, "apiGroups")))
            and _resource_covers_all(_list(owner, "resources"), _list(sub, "resources"))
            and all(any(_url_covers(o, u) for o in _list(owner, "nonResourceURLs"))
                    for u in _list(sub, "nonResourceURLs"))
            and names_ok)


def covers(owner_rules: Iterable[Rule], servant_rules: Iterable[Rule]
           ) -> tuple[bool, list[dict[str, Any]]]:
    """``Covers``: whether ``owner_rules`` grant all ``servant_rules`` do, and
    the broken-down servant rules they do not."""
    owners = list(owner_rules)
    uncovered = [sub for servant in servant_rules for sub in breakdown_rule(servant)
                 if not any(_rule_covers(owner, sub) for owner in owners)]
    return not uncovered, uncovered
