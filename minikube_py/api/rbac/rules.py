"""Policy rules: what a Role or ClusterRole grants, validated and described.

Shared by :mod:`.role` and :mod:`.clusterrole`, as Kubernetes shares
``ValidatePolicyRule`` (``pkg/apis/rbac/validation``) and kubectl shares the
PolicyRule table of its Role and ClusterRole describers.

Validation (v1.32): a rule needs ``verbs``; a rule with ``nonResourceURLs``
is refused in a Role (namespaced) and beside ``apiGroups``, ``resources`` or
``resourceNames``, and is otherwise complete; any other rule needs
``apiGroups`` and ``resources``. Bad URL lists print as Go's ``%#v`` of a
``[]string``. Role and binding names only have to be path segments
(``ValidateRBACName``).

The describe table is kubectl's: every rule broken down into one verb, one
group, one resource and at most one resource name (``BreakdownRule``), the
pieces that differ only by verb joined again (``CompactRules``), sorted by
the rule's Go ``String()`` and printed ``resource.group``, then the URLs,
names and verbs as Go prints a ``[]string`` (``[get list]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..access import mappings as _maps
from ..describe.sections import print_annotations, print_labels
from ..describe.values import str_map
from ..describe.writer import Ctx, Out
from ..errors import FieldPath, go_string_slice, invalid, required
from ..gofmt import go_value
from ..jsoncopy import deep_copy
from ..validation_meta import Errs, as_list, as_str

#: ``rbac.GroupName``.
GROUP: Final = "rbac.authorization.k8s.io"
#: The object-name rule of every RBAC kind (``ValidateRBACName``).
NAME_RULE: Final = "path-segment"

Rule = dict[str, list[str]]

# ------------------------------------------------------------------ validation


def validate_policy_rule(rule: Mapping[str, Any], namespaced: bool, path: FieldPath) -> Errs:
    """``ValidatePolicyRule`` (module docstring)."""
    errs: Errs = []
    if not as_list(rule.get("verbs")):
        errs.append(required(path.child("verbs"), "verbs must contain at least one value"))
    urls = as_list(rule.get("nonResourceURLs"))
    if urls:
        if namespaced:
            errs.append(invalid(path.child("nonResourceURLs"), go_string_slice(urls),
                                "namespaced rules cannot apply to non-resource URLs"))
        if any(as_list(rule.get(key)) for key in ("apiGroups", "resources", "resourceNames")):
            errs.append(invalid(path.child("nonResourceURLs"), go_string_slice(urls),
                                "rules cannot apply to both regular resources and "
                                "non-resource URLs"))
        return errs
    if not as_list(rule.get("apiGroups")):
        errs.append(required(path.child("apiGroups"),
                             "resource rules must supply at least one api group"))
    if not as_list(rule.get("resources")):
        errs.append(required(path.child("resources"),
                             "resource rules must supply at least one resource"))
    return errs


def validate_rules(role: Mapping[str, Any], namespaced: bool) -> Errs:
    """Every rule of ``role.rules``, at ``rules[i]``."""
    errs: Errs = []
    for i, rule in enumerate(as_list(role.get("rules"))):
        errs.extend(validate_policy_rule(_m(rule), namespaced, FieldPath.root("rules").index(i)))
    return errs


# ------------------------------------------------------------------ describe

_FIELDS: Final = ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")


def _strings(rule: Mapping[str, Any], key: str) -> list[str]:
    return [as_str(v) for v in as_list(rule.get(key))]


def breakdown_rule(rule: Mapping[str, Any]) -> list[Rule]:
    """kubectl's ``BreakdownRule``: one verb, group, resource and resource
    name (or one URL and verb) per rule. A resource rule without groups
    yields nothing, as in kubectl."""
    verbs, names = _strings(rule, "verbs"), _strings(rule, "resourceNames")
    out: list[Rule] = []
    for group in _strings(rule, "apiGroups"):
        for resource in _strings(rule, "resources"):
            for verb in verbs:
                base = {"apiGroups": [group], "resources": [resource], "verbs": [verb]}
                if names:
                    out.extend({**base, "resourceNames": [name]} for name in names)
                else:
                    out.append(base)
    out.extend({"nonResourceURLs": [url], "verbs": [verb]}
               for url in _strings(rule, "nonResourceURLs") for verb in verbs)
    return out


def _simple_key(rule: Rule) -> tuple[str, str, bool, str] | None:
    """``isSimpleResourceRule``: one group, one resource, at most one name."""
    groups, resources = rule.get("apiGroups", []), rule.get("resources", [])
    names = rule.get("resourceNames", [])
    if len(names) > 1 or rule.get("nonResourceURLs") or len(groups) != 1 or \
            len(resources) != 1:
        return None
    return groups[0], resources[0], bool(names), names[0] if names else ""


def compact_rules(rules: list[Rule]) -> list[Rule]:
    """kubectl's ``CompactRules``: simple rules of one resource joined, their
    verbs in first-seen order; the others kept as they are, first."""
    compacted: list[Rule] = []
    simple: dict[tuple[str, str, bool, str], Rule] = {}
    for rule in rules:
        key = _simple_key(rule)
        if key is None:
            compacted.append(rule)
        elif key in simple:
            verbs = simple[key].setdefault("verbs", [])
            verbs.extend(v for v in rule.get("verbs", []) if v not in verbs)
        else:
            simple[key] = deep_copy(rule)
    return compacted + list(simple.values())


def rule_string(rule: Rule) -> str:
    """``(*PolicyRule).String()``, which kubectl sorts the table by."""
    fields = ",".join(f"{_GO_NAMES[key]}:{go_value(rule.get(key, []))}" for key in _FIELDS)
    return f"&PolicyRule{{{fields},}}"


_GO_NAMES: Final = {"verbs": "Verbs", "apiGroups": "APIGroups", "resources": "Resources",
                    "resourceNames": "ResourceNames", "nonResourceURLs": "NonResourceURLs"}


def combine_resource_group(resources: list[str], groups: list[str]) -> str:
    """kubectl's ``CombineResourceGroup``: ``deployments.apps/scale``."""
    if not resources:
        return ""
    resource, _, sub = resources[0].partition("/")
    combined = resource
    if groups and groups[0]:
        combined += "." + groups[0]
    return combined + ("/" + sub if "/" in resources[0] else "")


def describe_role(role: Mapping[str, Any], related: Mapping[str, Any], events: Any,
                  ctx: Ctx) -> str:
    """kubectl's ``RoleDescriber`` and ``ClusterRoleDescriber`` (the same
    text: no namespace, no events)."""
    meta = _m(role.get("metadata"))
    rules = [piece for rule in _maps(role.get("rules")) for piece in breakdown_rule(rule)]
    w = Out()
    w.write(0, f"Name:\t{as_str(meta.get('name'))}\n")
    print_labels(w, "Labels", str_map(meta.get("labels")))
    print_annotations(w, "Annotations", str_map(meta.get("annotations")))
    w.write(0, "PolicyRule:\n")
    w.write(1, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n")
    w.write(1, "---------\t-----------------\t--------------\t-----\n")
    for rule in sorted(compact_rules(rules), key=rule_string):
        w.write(1, f"{combine_resource_group(rule.get('resources', []), rule.get('apiGroups', []))}"
                   f"\t{go_value(rule.get('nonResourceURLs', []))}"
                   f"\t{go_value(rule.get('resourceNames', []))}"
                   f"\t{go_value(rule.get('verbs', []))}\n")
    return w.render()
