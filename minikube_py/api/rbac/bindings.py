"""Role bindings: who (subjects) is granted which role (``roleRef``).

Shared by :mod:`.rolebinding` and :mod:`.clusterrolebinding`, as Kubernetes
shares ``SetDefaults_Subject``, ``ValidateRoleBindingSubject`` and kubectl
its binding table and describer. Kubernetes v1.32's rules:

* defaults: ``roleRef.apiGroup`` is ``rbac.authorization.k8s.io`` when
  empty; a ``User`` or ``Group`` subject gets that group too, a
  ``ServiceAccount`` subject the core group (``""``, never written out);
* ``roleRef``: its group must be ``rbac.authorization.k8s.io``, its kind
  ``Role`` or ``ClusterRole`` (only ``ClusterRole`` in a
  ClusterRoleBinding), its name a path segment; it never changes
  (``cannot change roleRef``, the old and new references printed as Go's
  ``%#v`` of ``rbac.RoleRef``);
* subjects: a name is required; a ``ServiceAccount`` name is a DNS
  subdomain, its group ``""`` and, in a ClusterRoleBinding, its namespace
  required; ``User`` and ``Group`` have the RBAC group; no other kind;
* an update checks the create rules first, then the metadata, then
  ``roleRef`` (Kubernetes' order).

Table: ``NAME ROLE AGE`` and, wide, ``USERS GROUPS SERVICEACCOUNTS``
(``printRoleBinding``; ``ROLE`` is ``Kind/name``, service accounts
``namespace/name``). The describer prints the role and the subjects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..access import mapping as _m
from ..access import mappings as _maps
from ..describe.sections import print_annotations, print_labels
from ..describe.values import str_map
from ..describe.writer import Ctx, Out
from ..errors import FieldError, FieldPath, invalid, not_supported, required
from ..names import name_is_dns_subdomain
from ..printers import D_CREATED, D_NAME, age_of, cell_str, epoch
from ..resource import Column
from ..validation_meta import (
    Errs,
    GoValue,
    as_list,
    as_str,
    go_quote,
    path_segment_name,
    validate_object_meta,
    validate_object_meta_update,
)
from .rules import GROUP, NAME_RULE

SERVICE_ACCOUNT: Final = "ServiceAccount"
USER: Final = "User"
GROUP_KIND: Final = "Group"

# ------------------------------------------------------------------ defaults


def default_binding(binding: dict[str, Any], create: bool) -> None:
    """``SetDefaults_RoleBinding`` / ``SetDefaults_ClusterRoleBinding`` and
    ``SetDefaults_Subject`` of each subject."""
    role_ref = binding.get("roleRef")
    if not isinstance(role_ref, dict):
        role_ref = binding["roleRef"] = {}  # a struct in Go: always there
    if not role_ref.get("apiGroup"):
        role_ref["apiGroup"] = GROUP
    for subject in as_list(binding.get("subjects")):
        if isinstance(subject, dict) and not subject.get("apiGroup") and \
                subject.get("kind") in (USER, GROUP_KIND):
            subject["apiGroup"] = GROUP


# ------------------------------------------------------------------ validation


def validate_subject(subject: Mapping[str, Any], namespaced: bool, path: FieldPath) -> Errs:
    """``ValidateRoleBindingSubject``."""
    errs: Errs = []
    name, group = as_str(subject.get("name")), as_str(subject.get("apiGroup"))
    if not name:
        errs.append(required(path.child("name"), ""))
    kind = as_str(subject.get("kind"))
    if kind == SERVICE_ACCOUNT:
        if name:
            errs.extend(invalid(path.child("name"), name, msg)
                        for msg in name_is_dns_subdomain(name, False))
        if group:
            errs.append(not_supported(path.child("apiGroup"), group, ("",)))
        if not namespaced and not as_str(subject.get("namespace")):
            errs.append(required(path.child("namespace"), ""))
    elif kind in (USER, GROUP_KIND):
        if group != GROUP:
            errs.append(not_supported(path.child("apiGroup"), group, (GROUP,)))
    else:
        errs.append(not_supported(path.child("kind"), kind,
                                  (SERVICE_ACCOUNT, USER, GROUP_KIND)))
    return errs


def validate_binding(binding: Mapping[str, Any], namespaced: bool) -> Errs:
    """``ValidateRoleBinding`` (``namespaced``) or ``ValidateClusterRoleBinding``."""
    errs: list[FieldError] = validate_object_meta(binding.get("metadata"), namespaced=namespaced,
                                                  name_rule=NAME_RULE)
    ref = _m(binding.get("roleRef"))
    ref_path = FieldPath.root("roleRef")
    group = as_str(ref.get("apiGroup"))
    if group != GROUP:
        errs.append(not_supported(ref_path.child("apiGroup"), group, (GROUP,)))
    allowed = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)
    kind = as_str(ref.get("kind"))
    if kind not in allowed:
        errs.append(not_supported(ref_path.child("kind"), kind, allowed))
    name = as_str(ref.get("name"))
    if not name:
        errs.append(required(ref_path.child("name"), ""))
    else:
        errs.extend(invalid(ref_path.child("name"), name, msg)
                    for msg in path_segment_name(name, False))
    for i, subject in enumerate(as_list(binding.get("subjects"))):
        errs.extend(validate_subject(_m(subject), namespaced,
                                     FieldPath.root("subjects").index(i)))
    return errs


def _go_role_ref(ref: Mapping[str, Any]) -> GoValue:
    """``%#v`` of the internal ``rbac.RoleRef``."""
    return GoValue(f"rbac.RoleRef{{APIGroup:{go_quote(as_str(ref.get('apiGroup')))}, "
                   f"Kind:{go_quote(as_str(ref.get('kind')))}, "
                   f"Name:{go_quote(as_str(ref.get('name')))}}}")


def validate_binding_update(new: Mapping[str, Any], old: Mapping[str, Any],
                            namespaced: bool) -> Errs:
    """``Validate(Cluster)RoleBindingUpdate``: create rules, metadata update
    rules, then an unchanged ``roleRef``."""
    errs = validate_binding(new, namespaced)
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    new_ref, old_ref = _m(new.get("roleRef")), _m(old.get("roleRef"))
    keys = ("apiGroup", "kind", "name")
    if any(as_str(new_ref.get(k)) != as_str(old_ref.get(k)) for k in keys):
        errs.append(invalid("roleRef", _go_role_ref(new_ref), "cannot change roleRef"))
    return errs


# ------------------------------------------------------------------ table


def binding_columns(of: str) -> tuple[Column, ...]:
    """``roleBindingsColumnDefinitions`` (``of`` is ``roleBinding``) or
    ``clusterRoleBindingsColumnDefinitions`` (``clusterRoleBinding``)."""
    role_ref = ("RoleRef can reference a Role in the current namespace or a ClusterRole in the "
                "global namespace. If the RoleRef cannot be resolved, the Authorizer must "
                "return an error." if of == "roleBinding" else
                "RoleRef can only reference a ClusterRole in the global namespace. If the "
                "RoleRef cannot be resolved, the Authorizer must return an error.")
    return (
        Column("Name", "string", D_NAME, format="name"),
        Column("Role", "string", role_ref),
        Column("Age", "string", D_CREATED),
        Column("Users", "string", f"Users in the {of}", priority=1),
        Column("Groups", "string", f"Groups in the {of}", priority=1),
        Column("ServiceAccounts", "string", f"ServiceAccounts in the {of}", priority=1),
    )


def subjects_strings(subjects: Any) -> tuple[list[str], list[str], list[str]]:
    """``rbac.SubjectsStrings``: users, groups and ``namespace/name`` service
    accounts (other kinds are left out of the table)."""
    users: list[str] = []
    groups: list[str] = []
    accounts: list[str] = []
    for subject in _maps(subjects):
        kind, name = as_str(subject.get("kind")), as_str(subject.get("name"))
        if kind == SERVICE_ACCOUNT:
            accounts.append(f"{as_str(subject.get('namespace'))}/{name}")
        elif kind == USER:
            users.append(name)
        elif kind == GROUP_KIND:
            groups.append(name)
    return users, groups, accounts


def print_binding(binding: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    """``printRoleBinding`` / ``printClusterRoleBinding`` (always wide, as the
    API server prints; kubectl hides the wide columns)."""
    metadata, ref = _m(binding.get("metadata")), _m(binding.get("roleRef"))
    users, groups, accounts = subjects_strings(binding.get("subjects"))
    return [cell_str(metadata.get("name")),
            f"{as_str(ref.get('kind'))}/{as_str(ref.get('name'))}",
            age_of(epoch(metadata.get("creationTimestamp")), now),
            ", ".join(users), ", ".join(groups), ", ".join(accounts)], None


# ------------------------------------------------------------------ describe


def describe_binding(binding: Mapping[str, Any], related: Mapping[str, Any], events: Any,
                     ctx: Ctx) -> str:
    """kubectl's ``RoleBindingDescriber`` and ``ClusterRoleBindingDescriber``
    (the same text: no namespace, no events)."""
    meta, ref = _m(binding.get("metadata")), _m(binding.get("roleRef"))
    w = Out()
    w.write(0, f"Name:\t{as_str(meta.get('name'))}\n")
    print_labels(w, "Labels", str_map(meta.get("labels")))
    print_annotations(w, "Annotations", str_map(meta.get("annotations")))
    w.write(0, "Role:\n")
    w.write(1, f"Kind:\t{as_str(ref.get('kind'))}\n")
    w.write(1, f"Name:\t{as_str(ref.get('name'))}\n")
    w.write(0, "Subjects:\n")
    w.write(1, "Kind\tName\tNamespace\n")
    w.write(1, "----\t----\t---------\n")
    for subject in _maps(binding.get("subjects")):
        w.write(1, f"{as_str(subject.get('kind'))}\t{as_str(subject.get('name'))}\t"
                   f"{as_str(subject.get('namespace'))}\n")
    return w.render()
