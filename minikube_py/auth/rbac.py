"""The RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go and the rule
resolver of pkg/registry/rbac/validation/rule.go).

The rules that apply to a user in a namespace are visited in Kubernetes'
order: every ClusterRoleBinding first, then the RoleBindings of the
namespace (none for a cluster-scoped request). A binding applies when one of
its subjects is the user:

* ``User`` by name, ``Group`` by membership;
* ``ServiceAccount`` ``namespace/name`` by the user name
  ``system:serviceaccount:<ns>:<name>``; a RoleBinding's subject without a
  namespace means the binding's own namespace (a ClusterRoleBinding's
  means nothing).

A binding refers to a ``Role`` of its namespace or a ``ClusterRole``; a
reference that cannot be resolved is an error, collected (and reported in a
denial's reason, ``RBAC: clusterrole.rbac.authorization.k8s.io "x" not
found``) while the other bindings are still visited.

:meth:`RBACAuthorizer.authorize` allows at the first rule that allows the
request, with the reason ``RBAC: allowed by ClusterRoleBinding "b" of
ClusterRole "r" to Group "g"``; otherwise it has no opinion (``allowed``
false), which the API server turns into a 403. :meth:`RBACAuthorizer.rules_for`
answers ``SelfSubjectRulesReview``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .attributes import Attributes
from .rules import rule_allows
from .user import UserInfo, service_account_username

__all__ = ["Decision", "RBACAuthorizer", "RoleSource", "StaticRoleSource",
           "aggregate_errors"]

Object = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Decision:
    """An authorizer's answer: ``allowed`` or not, and why (may be empty)."""

    allowed: bool
    reason: str = ""


class RoleSource(Protocol):
    """Where the RBAC objects come from (the store, or a fixed list)."""

    def get_role(self, namespace: str, name: str) -> Object | None: ...

    def get_cluster_role(self, name: str) -> Object | None: ...

    def role_bindings(self, namespace: str) -> Iterable[Object]: ...

    def cluster_role_bindings(self) -> Iterable[Object]: ...


class StaticRoleSource:
    """A :class:`RoleSource` over a fixed list of objects (tests, checks)."""

    def __init__(self, objects: Iterable[Mapping[str, Any]]) -> None:
        self._objects = [dict(o) for o in objects]

    def _of(self, kind: str) -> list[Object]:
        return [o for o in self._objects if o.get("kind") == kind]

    def get_role(self, namespace: str, name: str) -> Object | None:
        return next((o for o in self._of("Role") if o["metadata"].get("name") == name
                     and o["metadata"].get("namespace") == namespace), None)

    def get_cluster_role(self, name: str) -> Object | None:
        return next((o for o in self._of("ClusterRole")
                     if o["metadata"].get("name") == name), None)

    def role_bindings(self, namespace: str) -> Iterable[Object]:
        return [o for o in self._of("RoleBinding")
                if o["metadata"].get("namespace") == namespace]

    def cluster_role_bindings(self) -> Iterable[Object]:
        return self._of("ClusterRoleBinding")


def aggregate_errors(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message as is, several
    (duplicates dropped) in brackets."""
    unique = list(dict.fromkeys(errors))
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


def _applies(user: UserInfo, subject: Mapping[str, Any], namespace: str) -> bool:
    """``appliesToUser``."""
    kind, name = subject.get("kind"), str(subject.get("name") or "")
    if kind == "User":
        return user.name == name
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        sa_namespace = str(subject.get("namespace") or "") or namespace
        return bool(sa_namespace) and user.name == service_account_username(sa_namespace, name)
    return False


def _describe_subject(subject: Mapping[str, Any], binding_namespace: str) -> str:
    kind, name = str(subject.get("kind") or ""), str(subject.get("name") or "")
    if kind == "ServiceAccount":
        return f'{kind} "{name}/{subject.get("namespace") or binding_namespace}"'
    return f'{kind} "{name}"'


# Visitor: (source description, rule or None, error or None) -> keep going?
Visitor = Callable[[str, Mapping[str, Any] | None, str | None], bool]


class RBACAuthorizer:
    """Authorizes from Roles, ClusterRoles and their bindings (module contract)."""

    def __init__(self, source: RoleSource) -> None:
        self.source = source

    def _role_rules(self, ref: Mapping[str, Any], namespace: str) -> list[Mapping[str, Any]]:
        """``GetRoleReferenceRules``; raises LookupError with Kubernetes' message."""
        kind, name = ref.get("kind"), str(ref.get("name") or "")
        if kind == "Role":
            role = self.source.get_role(namespace, name)
            if role is None:
                raise LookupError(f'role.rbac.authorization.k8s.io "{name}" not found')
        elif kind == "ClusterRole":
            role = self.source.get_cluster_role(name)
            if role is None:
                raise LookupError(f'clusterrole.rbac.authorization.k8s.io "{name}" not found')
        else:
            raise LookupError(f'unsupported role reference kind: "{kind}"')
        return [r for r in role.get("rules") or () if isinstance(r, Mapping)]

    def visit_rules_for(self, user: UserInfo, namespace: str, visit: Visitor) -> None:
        """``VisitRulesFor``: every rule that applies, with where it came from."""
        for binding in self.source.cluster_role_bindings():
            subject = next((s for s in binding.get("subjects") or ()
                            if _applies(user, s, "")), None)
            if subject is None:
                continue
            ref = binding.get("roleRef") or {}
            try:
                rules = self._role_rules(ref, "")
            except LookupError as exc:
                if not visit("", None, str(exc)):
                    return
                continue
            source = (f'ClusterRoleBinding "{binding["metadata"].get("name", "")}" of '
                      f'{ref.get("kind")} "{ref.get("name")}" to '
                      f'{_describe_subject(subject, "")}')
            for rule in rules:
                if not visit(source, rule, None):
                    return
        if not namespace:
            return
        for binding in self.source.role_bindings(namespace):
            subject = next((s for s in binding.get("subjects") or ()
                            if _applies(user, s, namespace)), None)
            if subject is None:
                continue
            ref = binding.get("roleRef") or {}
            try:
                rules = self._role_rules(ref, namespace)
            except LookupError as exc:
                if not visit("", None, str(exc)):
                    return
                continue
            bns = str(binding["metadata"].get("namespace", ""))
            source = (f'RoleBinding "{binding["metadata"].get("name", "")}/{bns}" of '
                      f'{ref.get("kind")} "{ref.get("name")}" to '
                      f'{_describe_subject(subject, bns)}')
            for rule in rules:
                if not visit(source, rule, None):
                    return

    def authorize(self, attrs: Attributes) -> Decision:
        """Allowed by the first rule that allows it; no opinion otherwise."""
        allowed: list[str] = []
        errors: list[str] = []

        def visit(source: str, rule: Mapping[str, Any] | None, error: str | None) -> bool:
            if rule is not None and rule_allows(attrs, rule):
                allowed.append(f"RBAC: allowed by {source}")
                return False
            if error is not None:
                errors.append(error)
            return True

        self.visit_rules_for(attrs.user, attrs.namespace, visit)
        if allowed:
            return Decision(True, allowed[0])
        return Decision(False, f"RBAC: {aggregate_errors(errors)}" if errors else "")

    def rules_for(self, user: UserInfo, namespace: str
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool, list[str]]:
        """``(resourceRules, nonResourceRules, incomplete, errors)`` of
        ``SelfSubjectRulesReview``: each applying rule split into its resource
        and non-resource parts, as ``RBACAuthorizer.RulesFor`` does."""
        resource_rules: list[dict[str, Any]] = []
        non_resource_rules: list[dict[str, Any]] = []
        errors: list[str] = []

        def visit(_source: str, rule: Mapping[str, Any] | None, error: str | None) -> bool:
            if error is not None:
                errors.append(error)
            if rule is None:
                return True
            verbs = list(rule.get("verbs") or [])
            if rule.get("resources"):
                out: dict[str, Any] = {"verbs": verbs,
                                       "apiGroups": list(rule.get("apiGroups") or []),
                                       "resources": list(rule.get("resources") or [])}
                if rule.get("resourceNames"):
                    out["resourceNames"] = list(rule["resourceNames"])
                resource_rules.append(out)
            if rule.get("nonResourceURLs"):
                non_resource_rules.append({"verbs": verbs,
                                           "nonResourceURLs": list(rule["nonResourceURLs"])})
            return True

        self.visit_rules_for(user, namespace, visit)
        return resource_rules, non_resource_rules, False, errors
