"""Pod and PodSpec validation, as ``pkg/apis/core/validation`` does it (v1.32).

:func:`validate_pod_spec` is ``ValidatePodSpec`` (shared by Pods and pod
templates; ``is_pod`` switches on the checks Kubernetes applies only to Pods),
:func:`validate_pod_template_spec` is ``ValidatePodTemplateSpec``,
:func:`validate_pod` / :func:`validate_pod_update` are ``ValidatePodCreate`` /
``ValidatePodUpdate``. Error order, paths (quirks included: the taint-like
``tolerations[i].operator`` path for a bad value, ``spec.overhead.limits[...]``)
and messages follow the Go code. Objects are expected decoded and defaulted;
fields of the wrong JSON type are treated as absent.

Feature-gated behaviour is that of a default v1.32 API server: relaxed
environment variable names on, pod-level resources and zero-second sleep
actions off.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .errors import FieldPath, duplicate, forbidden, invalid, not_supported, required
from .labels import validate_label_selector, validate_labels
from .names import (
    inclusive_range_error,
    is_dns1123_label,
    is_valid_label_value,
    name_is_dns_subdomain,
)
from .validation_container import (
    SpecContext,
    id_range,
    seccomp_profile,
    validate_containers,
    validate_ephemeral_containers,
    validate_init_containers,
    validate_resource_requirements,
)
from .validation_meta import (
    MAX_INT32,
    Errs,
    GoValue,
    as_int,
    as_list,
    as_map,
    as_str,
    dns_label,
    dns_subdomain,
    enum_value,
    go_string_map,
    qualified_name,
    semantic_equal,
    valid_ip,
    validate_annotations,
    validate_object_meta,
    validate_object_meta_update,
)
from .validation_volumes import validate_volumes

__all__ = [
    "validate_pod",
    "validate_pod_spec",
    "validate_pod_template_spec",
    "validate_pod_update",
    "validate_tolerations",
]

_NOT_POSITIVE = "must be greater than zero"

# ------------------------------------------------------------- scheduling

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def validate_tolerations(tolerations: Any, path: FieldPath) -> Errs:
    """``ValidateTolerations``."""
    errs: Errs = []
    for i, raw in enumerate(as_list(tolerations)):
        toleration = as_map(raw)
        sub = path.index(i)
        key, operator = as_str(toleration.get("key")), as_str(toleration.get("operator"))
        value, effect = as_str(toleration.get("value")), as_str(toleration.get("effect"))
        if key:
            errs.extend(qualified_name(key, sub.child("key")))
        if not key and operator != "Exists":
            errs.append(invalid(sub.child("operator"), operator,
                                "operator must be Exists when `key` is empty, which means "
                                '"match all values and all keys"'))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(invalid(sub.child("effect"), effect,
                                "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            msgs = is_valid_label_value(value)
            if msgs:
                errs.append(invalid(sub.child("operator"), value, ";".join(msgs)))
        elif operator == "Exists":
            if value:
                errs.append(invalid(sub.child("operator"), value,
                                    "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(not_supported(sub.child("operator"), operator, ("Equal", "Exists")))
        if effect and effect not in _TAINT_EFFECTS:
            errs.append(not_supported(sub.child("effect"), effect, _TAINT_EFFECTS))
    return errs


def _node_selector_requirement(req_value: Any, path: FieldPath, *,
                               allow_invalid_values: bool) -> Errs:
    req = as_map(req_value)
    operator = as_str(req.get("operator"))
    values = [as_str(v) for v in as_list(req.get("values"))]
    errs: Errs = []
    if operator in ("In", "NotIn"):
        if not values:
            errs.append(required(path.child("values"),
                                 "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(forbidden(path.child("values"), "may not be specified when `operator` "
                                                        "is 'Exists' or 'DoesNotExist'"))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(required(path.child("values"), "must be specified single value when "
                                                       "`operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(invalid(path.child("operator"), operator, "not a valid selector operator"))
    errs.extend(qualified_name(as_str(req.get("key")), path.child("key")))
    if not allow_invalid_values:
        for j, value in enumerate(values):
            errs.extend(invalid(path.child("values").index(j), value, m)
                        for m in is_valid_label_value(value))
    return errs


def _node_field_requirement(req_value: Any, path: FieldPath) -> Errs:
    req = as_map(req_value)
    values = [as_str(v) for v in as_list(req.get("values"))]
    errs: Errs = []
    operator = as_str(req.get("operator"))
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(required(path.child("values"),
                                 "must be only one value when `operator` is 'In' or 'NotIn' "
                                 "for node field selector"))
    else:
        errs.append(invalid(path.child("operator"), operator, "not a valid selector operator"))
    key = as_str(req.get("key"))
    if key != "metadata.name":
        errs.append(invalid(path.child("key"), key, "not a valid field selector key"))
    else:
        for j, value in enumerate(values):
            errs.extend(invalid(path.child("values").index(j), value, m)
                        for m in name_is_dns_subdomain(value, False))
    return errs


def _node_selector_term(term_value: Any, path: FieldPath, *, allow_invalid_values: bool) -> Errs:
    term = as_map(term_value)
    errs: Errs = []
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        errs.extend(_node_selector_requirement(req, path.child("matchExpressions").index(j),
                                               allow_invalid_values=allow_invalid_values))
    for j, req in enumerate(as_list(term.get("matchFields"))):
        errs.extend(_node_field_requirement(req, path.child("matchFields").index(j)))
    return errs


def _weight(value: Any, path: FieldPath) -> Errs:
    weight = as_int(value) or 0
    if not 1 <= weight <= 100:
        return [invalid(path, weight, "must be in the range 1-100")]
    return []


def _pod_affinity_term(term_value: Any, path: FieldPath) -> Errs:
    term = as_map(term_value)
    errs = validate_label_selector(term.get("labelSelector"), path.child("labelSelector"))
    errs.extend(validate_label_selector(term.get("namespaceSelector"),
                                        path.child("namespaceSelector")))
    for namespace in as_list(term.get("namespaces")):
        errs.extend(invalid(path.child("namespace"), as_str(namespace), m)
                    for m in is_dns1123_label(as_str(namespace)))
    selector = term.get("labelSelector")
    for key in ("matchLabelKeys", "mismatchLabelKeys"):
        keys = [as_str(k) for k in as_list(term.get(key))]
        if not keys:
            continue
        if selector is None:
            errs.append(forbidden(path.child(key),
                                  "must not be specified when labelSelector is not set"))
            continue
        for j, label_key in enumerate(keys):
            errs.extend(qualified_name(label_key, path.child(key).index(j)))
    topology_key = as_str(term.get("topologyKey"))
    if not topology_key:
        errs.append(required(path.child("topologyKey"), "can not be empty"))
    errs.extend(qualified_name(topology_key, path.child("topologyKey")))
    return errs


def _pod_affinity(affinity: Any, path: FieldPath) -> Errs:
    body = as_map(affinity)
    errs: Errs = []
    req_key = "requiredDuringSchedulingIgnoredDuringExecution"
    pref_key = "preferredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(as_list(body.get(req_key))):
        errs.extend(_pod_affinity_term(term, path.child(req_key).index(i)))
    for i, raw in enumerate(as_list(body.get(pref_key))):
        weighted = as_map(raw)
        sub = path.child(pref_key).index(i)
        errs.extend(_weight(weighted.get("weight"), sub.child("weight")))
        errs.extend(_pod_affinity_term(weighted.get("podAffinityTerm"),
                                       sub.child("podAffinityTerm")))
    return errs


def _affinity(affinity: Any, path: FieldPath) -> Errs:
    """``validateAffinity``."""
    body = as_map(affinity)
    errs: Errs = []
    node = body.get("nodeAffinity")
    if node is not None:
        node = as_map(node)
        node_path = path.child("nodeAffinity")
        required_selector = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required_selector is not None:
            terms_path = node_path.child("requiredDuringSchedulingIgnoredDuringExecution").child(
                "nodeSelectorTerms")
            terms = as_list(as_map(required_selector).get("nodeSelectorTerms"))
            if not terms:
                errs.append(required(terms_path, "must have at least one node selector term"))
            for i, term in enumerate(terms):
                errs.extend(_node_selector_term(term, terms_path.index(i),
                                                allow_invalid_values=False))
        pref_path = node_path.child("preferredDuringSchedulingIgnoredDuringExecution")
        for i, raw in enumerate(as_list(node.get(
                "preferredDuringSchedulingIgnoredDuringExecution"))):
            preferred = as_map(raw)
            errs.extend(_weight(preferred.get("weight"), pref_path.index(i).child("weight")))
            # Preferred terms may carry invalid label values: they can still be
            # satisfied by some node.
            errs.extend(_node_selector_term(preferred.get("preference"),
                                            pref_path.index(i).child("preference"),
                                            allow_invalid_values=True))
    for key in ("podAffinity", "podAntiAffinity"):
        if body.get(key) is not None:
            errs.extend(_pod_affinity(body.get(key), path.child(key)))
    return errs


def _topology_spread(constraints: Any, path: FieldPath) -> Errs:
    """``validateTopologySpreadConstraints``."""
    items = [as_map(c) for c in as_list(constraints)]
    errs: Errs = []
    for i, constraint in enumerate(items):
        sub = path.index(i)
        max_skew = as_int(constraint.get("maxSkew")) or 0
        if max_skew <= 0:
            errs.append(invalid(sub.child("maxSkew"), max_skew, _NOT_POSITIVE))
        topology_key = as_str(constraint.get("topologyKey"))
        if not topology_key:
            errs.append(required(sub.child("topologyKey"), "can not be empty"))
        action = as_str(constraint.get("whenUnsatisfiable"))
        if action not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(sub.child("whenUnsatisfiable"), action,
                                      ("DoNotSchedule", "ScheduleAnyway")))
        for other in items[i + 1:]:
            if (as_str(other.get("topologyKey")) == topology_key
                    and as_str(other.get("whenUnsatisfiable")) == action):
                errs.append(duplicate(sub.child("{topologyKey, whenUnsatisfiable}"),
                                      f"{{{topology_key}, {action}}}"))
                break
        min_domains = as_int(constraint.get("minDomains"))
        if min_domains is not None:
            if min_domains <= 0:
                errs.append(invalid(sub.child("minDomains"), min_domains, _NOT_POSITIVE))
            if action != "DoNotSchedule":
                errs.append(invalid(sub.child("minDomains"), min_domains,
                                    "can only use minDomains if whenUnsatisfiable=DoNotSchedule, "
                                    f"not {action}"))
        for key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(key)
            if isinstance(policy, str) and policy not in ("Honor", "Ignore"):
                errs.append(not_supported(sub.child(key), policy, ("Honor", "Ignore")))
        match_keys = [as_str(k) for k in as_list(constraint.get("matchLabelKeys"))]
        selector = constraint.get("labelSelector")
        if match_keys:
            selector_keys = set(as_map(as_map(selector).get("matchLabels")))
            selector_keys |= {as_str(as_map(e).get("key"))
                              for e in as_list(as_map(selector).get("matchExpressions"))}
            if selector is None:
                errs.append(forbidden(sub.child("matchLabelKeys"),
                                      "must not be specified when labelSelector is not set"))
            for j, key in enumerate(match_keys):
                errs.extend(qualified_name(key, sub.child("matchLabelKeys").index(j)))
                if key in selector_keys:
                    errs.append(invalid(sub.child("matchLabelKeys").index(j), key,
                                        "exists in both matchLabelKeys and labelSelector"))
        errs.extend(validate_label_selector(selector, sub.child("labelSelector")))
    return errs


def _pod_security_context(spec: Mapping[str, Any], path: FieldPath) -> Errs:
    """``validatePodSpecSecurityContext``."""
    if spec.get("securityContext") is None:
        return []
    sc = as_map(spec.get("securityContext"))
    errs = id_range(sc.get("fsGroup"), path.child("fsGroup"))
    errs.extend(id_range(sc.get("runAsUser"), path.child("runAsUser")))
    errs.extend(id_range(sc.get("runAsGroup"), path.child("runAsGroup")))
    for i, gid in enumerate(as_list(sc.get("supplementalGroups"))):
        errs.extend(id_range(gid, path.child("supplementalGroups").index(i)))
    share = spec.get("shareProcessNamespace")
    if share is True and spec.get("hostPID") is True:
        errs.append(invalid(path.child("shareProcessNamespace"), True,
                            "ShareProcessNamespace and HostPID cannot both be enabled"))
    names: set[str] = set()
    for i, raw in enumerate(as_list(sc.get("sysctls"))):
        name = as_str(as_map(raw).get("name"))
        sub = path.child("sysctls").index(i).child("name")
        if not name:
            errs.append(required(sub, ""))
        elif name in names:
            errs.append(duplicate(sub, name))
        names.add(name)
    policy = sc.get("fsGroupChangePolicy")
    if isinstance(policy, str) and policy not in ("Always", "OnRootMismatch"):
        errs.append(not_supported(path.child("fsGroupChangePolicy"), policy,
                                  ("Always", "OnRootMismatch")))
    errs.extend(seccomp_profile(sc.get("seccompProfile"), path.child("seccompProfile")))
    groups_policy = sc.get("supplementalGroupsPolicy")
    if isinstance(groups_policy, str) and groups_policy not in ("Merge", "Strict"):
        errs.append(not_supported(path.child("supplementalGroupsPolicy"), groups_policy,
                                  ("Merge", "Strict")))
    return errs


def _dns_config(spec: Mapping[str, Any], path: FieldPath) -> Errs:
    """``validatePodDNSConfig`` (strict search-domain validation, the 1.32 default)."""
    config = spec.get("dnsConfig")
    if as_str(spec.get("dnsPolicy")) == "None":
        if config is None:
            return [required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not as_list(as_map(config).get("nameservers")):
            return [required(path.child("nameservers"), "must provide at least one DNS "
                                                        "nameserver when `dnsPolicy` is None")]
    if config is None:
        return []
    body = as_map(config)
    errs: Errs = []
    nameservers = [as_str(n) for n in as_list(body.get("nameservers"))]
    if len(nameservers) > 3:
        errs.append(invalid(path.child("nameservers"), GoValue(_go_slice(nameservers)),
                            "must not have more than 3 nameservers"))
    for i, server in enumerate(nameservers):
        errs.extend(valid_ip(server, path.child("nameservers").index(i)))
    searches = [as_str(s) for s in as_list(body.get("searches"))]
    if len(searches) > 32:
        errs.append(invalid(path.child("searches"), GoValue(_go_slice(searches)),
                            "must not have more than 32 search paths"))
    if len(" ".join(searches)) > 2048:
        errs.append(invalid(path.child("searches"), GoValue(_go_slice(searches)),
                            "must not have more than 2048 characters (including spaces) in the "
                            "search list"))
    for i, search in enumerate(searches):
        errs.extend(dns_subdomain(search.removesuffix("."), path.child("searches").index(i)))
    for i, option in enumerate(as_list(body.get("options"))):
        if not as_str(as_map(option).get("name")):
            errs.append(required(path.child("options").index(i), "must not be empty"))
    return errs


def _go_slice(values: list[str]) -> str:
    return "[]string{" + ", ".join(json.dumps(v) for v in values) + "}"


# ------------------------------------------------------------------- PodSpec

_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")


def validate_pod_spec(spec_value: Any, path: FieldPath, *, is_pod: bool) -> Errs:
    """``ValidatePodSpec``. ``is_pod`` is Kubernetes' ``ResourceIsPod``: with
    host networking a Pod's ``hostPort`` must equal ``containerPort``, a
    template's may also be 0."""
    spec = as_map(spec_value)
    errs: Errs = []
    grace = as_int(spec.get("terminationGracePeriodSeconds"))
    if spec.get("terminationGracePeriodSeconds") is None:
        errs.append(required(path.child("terminationGracePeriodSeconds"), ""))
    host_users = spec.get("hostUsers") is not False
    volumes, volume_errs = validate_volumes(spec.get("volumes"), path.child("volumes"))
    errs.extend(volume_errs)
    claim_names = {as_str(as_map(c).get("name")) for c in as_list(spec.get("resourceClaims"))}
    claim_names.discard("")
    # The checks below run on the fields the spec has: an absent (None) one
    # has nothing to report, so its path is not even built (most pods set
    # few fields).
    if spec.get("resourceClaims") is not None:
        errs.extend(_pod_resource_claims(spec.get("resourceClaims"),
                                         path.child("resourceClaims")))
    ctx = SpecContext(volumes, claim_names, grace, as_str(spec.get("restartPolicy")), host_users)
    errs.extend(validate_containers(spec.get("containers"), ctx, path.child("containers")))
    if spec.get("initContainers") is not None:
        errs.extend(validate_init_containers(spec.get("initContainers"), spec.get("containers"),
                                             ctx, path.child("initContainers")))
    if spec.get("ephemeralContainers") is not None:
        errs.extend(validate_ephemeral_containers(spec.get("ephemeralContainers"),
                                                  spec.get("containers"),
                                                  spec.get("initContainers"),
                                                  ctx, path.child("ephemeralContainers")))
    if spec.get("hostNetwork") is True:
        containers_path = path.child("containers")
        for i, container in enumerate(as_list(spec.get("containers"))):
            for j, raw in enumerate(as_list(as_map(container).get("ports"))):
                port = as_map(raw)
                host_port = as_int(port.get("hostPort")) or 0
                if (is_pod or host_port) and host_port != (as_int(port.get("containerPort")) or 0):
                    errs.append(invalid(
                        containers_path.index(i).child("ports").index(j).child("hostPort"),
                        host_port, "must match `containerPort` when `hostNetwork` is true"))
    errs.extend(enum_value(as_str(spec.get("restartPolicy")), path.child("restartPolicy"),
                      _RESTART_POLICIES))
    errs.extend(enum_value(as_str(spec.get("dnsPolicy")), path.child("dnsPolicy"), _DNS_POLICIES))
    if spec.get("nodeSelector") is not None:
        errs.extend(validate_labels(spec.get("nodeSelector"), path.child("nodeSelector")))
    errs.extend(_pod_security_context(spec, path.child("securityContext")))
    for i, secret in enumerate(as_list(spec.get("imagePullSecrets"))):
        extra = set(as_map(secret)) - {"name"}
        if extra:
            errs.append(invalid(path.child("imagePullSecrets").index(i),
                                GoValue(f"core.LocalObjectReference{{Name:"
                                        f"{json.dumps(as_str(as_map(secret).get('name')))}}}"),
                                "only name may be set"))
    if spec.get("affinity") is not None:
        errs.extend(_affinity(spec.get("affinity"), path.child("affinity")))
    errs.extend(_dns_config(spec, path.child("dnsConfig")))
    for i, gate in enumerate(as_list(spec.get("readinessGates"))):
        errs.extend(qualified_name(as_str(as_map(gate).get("conditionType")),
                                    path.child("readinessGates").index(i).child("conditionType")))
    seen_gates: set[str] = set()
    for i, gate in enumerate(as_list(spec.get("schedulingGates"))):
        gate_name = as_str(as_map(gate).get("name"))
        errs.extend(qualified_name(gate_name, path.child("schedulingGates").index(i)))
        if gate_name in seen_gates:
            errs.append(duplicate(path.child("schedulingGates").index(i), gate_name))
        seen_gates.add(gate_name)
    if spec.get("topologySpreadConstraints") is not None:
        errs.extend(_topology_spread(spec.get("topologySpreadConstraints"),
                                     path.child("topologySpreadConstraints")))
    if not host_users:
        # Kubernetes' own (inconsistent) capitalisation of these paths.
        for key, reported in (("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"),
                              ("hostIPC", "HostIPC")):
            if spec.get(key) is True:
                errs.append(forbidden(path.child(reported), "when `pod.Spec.HostUsers` is false"))
    for key in ("serviceAccountName", "nodeName"):
        value = as_str(spec.get(key))
        if value:
            errs.extend(invalid(path.child(key), value, m)
                        for m in name_is_dns_subdomain(value, False))
    deadline = as_int(spec.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= MAX_INT32:
        errs.append(invalid(path.child("activeDeadlineSeconds"), deadline,
                            inclusive_range_error(1, MAX_INT32)))
    for key in ("hostname", "subdomain"):
        value = as_str(spec.get(key))
        if value:
            errs.extend(dns_label(value, path.child(key)))
    if spec.get("tolerations") is not None:
        errs.extend(validate_tolerations(spec.get("tolerations"), path.child("tolerations")))
    for i, raw in enumerate(as_list(spec.get("hostAliases"))):
        alias = as_map(raw)
        sub = path.child("hostAliases").index(i)
        errs.extend(valid_ip(as_str(alias.get("ip")), sub.child("ip")))
        for j, hostname in enumerate(as_list(alias.get("hostnames"))):
            errs.extend(dns_subdomain(as_str(hostname), sub.child("hostnames").index(j)))
    for key in ("priorityClassName", "runtimeClassName"):
        class_name = spec.get(key)
        if isinstance(class_name, str) and (class_name or key == "runtimeClassName"):
            errs.extend(invalid(path.child(key), class_name, m)
                        for m in name_is_dns_subdomain(class_name, False))
    preemption = spec.get("preemptionPolicy")
    if isinstance(preemption, str):
        errs.extend(enum_value(preemption, path.child("preemptionPolicy"),
                          ("PreemptLowerPriority", "Never")))
    if spec.get("overhead") is not None:
        errs.extend(validate_resource_requirements({"limits": spec.get("overhead")}, set(),
                                                   path.child("overhead")))
    if spec.get("os") is not None:
        errs.extend(_pod_os(spec, path))
    return errs


def _pod_resource_claims(claims: Any, path: FieldPath) -> Errs:
    errs: Errs = []
    names: set[str] = set()
    for i, raw in enumerate(as_list(claims)):
        claim = as_map(raw)
        sub = path.index(i)
        name = as_str(claim.get("name"))
        if not name:
            errs.append(required(sub.child("name"), ""))
        elif name in names:
            errs.append(duplicate(sub.child("name"), name))
        else:
            errs.extend(dns_label(name, sub.child("name")))
            names.add(name)
        has_claim = claim.get("resourceClaimName") is not None
        has_template = claim.get("resourceClaimTemplateName") is not None
        shown = GoValue(f"core.PodResourceClaim{{Name:{json.dumps(name)}, ...}}")
        if has_claim and has_template:
            errs.append(invalid(sub, shown, "at most one of `resourceClaimName` or "
                                            "`resourceClaimTemplateName` may be specified"))
        if not has_claim and not has_template:
            errs.append(invalid(sub, shown, "must specify one of: `resourceClaimName`, "
                                            "`resourceClaimTemplateName`"))
        for key in ("resourceClaimName", "resourceClaimTemplateName"):
            value = claim.get(key)
            if isinstance(value, str):
                errs.extend(invalid(sub.child(key), value, m)
                            for m in name_is_dns_subdomain(value, False))
    return errs


def _pod_os(spec: Mapping[str, Any], path: FieldPath) -> Errs:
    os_path = path.child("os")
    name = as_str(as_map(spec.get("os")).get("name"))
    if not name:
        return [required(os_path.child("name"), "cannot be empty")]
    if name not in ("linux", "windows"):
        return [not_supported(os_path, name, ("linux", "windows"))]
    errs: Errs = []
    if name == "linux":
        if as_map(spec.get("securityContext")).get("windowsOptions") is not None:
            errs.append(forbidden(path.child("securityContext").child("windowsOptions"),
                                  "windows options cannot be set for a linux pod"))
        for key in ("containers", "initContainers", "ephemeralContainers"):
            for i, container in enumerate(as_list(spec.get(key))):
                sc = as_map(as_map(container).get("securityContext"))
                if sc.get("windowsOptions") is not None:
                    errs.append(forbidden(
                        path.child(key).index(i).child("securityContext").child("windowsOptions"),
                        "windows options cannot be set for a linux pod"))
    return errs


def validate_pod_template_spec(template_value: Any, path: FieldPath) -> Errs:
    """``ValidatePodTemplateSpec``: labels and annotations are reported at
    ``template.labels`` / ``template.annotations`` (no ``metadata``), as
    Kubernetes does."""
    template = as_map(template_value)
    meta = as_map(template.get("metadata"))
    errs = validate_labels(meta.get("labels"), path.child("labels"))
    errs.extend(validate_annotations(meta.get("annotations"), path.child("annotations")))
    spec = as_map(template.get("spec"))
    errs.extend(validate_pod_spec(spec, path.child("spec"), is_pod=False))
    if as_list(spec.get("ephemeralContainers")):
        errs.append(forbidden(path.child("spec").child("ephemeralContainers"),
                              "ephemeral containers not allowed in pod template"))
    return errs


# ----------------------------------------------------------------------- Pod


def _pod_metadata_and_spec(pod: Mapping[str, Any]) -> Errs:
    """``validatePodMetadataAndSpec``."""
    meta = as_map(pod.get("metadata"))
    spec = as_map(pod.get("spec"))
    spec_path = FieldPath.root("spec")
    errs = validate_object_meta(meta, namespaced=True, name_rule="subdomain")
    errs.extend(validate_pod_spec(spec, spec_path, is_pod=True))
    if not as_str(spec.get("serviceAccountName")):
        for vi, volume in enumerate(as_list(spec.get("volumes"))):
            sources = as_list(as_map(as_map(volume).get("projected")).get("sources"))
            for si, source in enumerate(sources):
                if as_map(source).get("serviceAccountToken") is not None:
                    errs.append(forbidden(
                        spec_path.child("volumes").index(vi).child("projected").child(
                            "sources").index(si).child("serviceAccountToken"),
                        "must not be specified when serviceAccountName is not set"))
    for key in ("containers", "initContainers"):
        for i, container in enumerate(as_list(spec.get(key))):
            image = as_str(as_map(container).get("image"))
            if image != image.strip():
                errs.append(invalid(spec_path.child(key).index(i).child("image"), image,
                                    "must not have leading or trailing whitespace"))
    return errs


def validate_pod(pod: Mapping[str, Any]) -> Errs:
    """``ValidatePodCreate``."""
    errs = _pod_metadata_and_spec(pod)
    spec = as_map(pod.get("spec"))
    spec_path = FieldPath.root("spec")
    if as_list(spec.get("ephemeralContainers")):
        errs.append(forbidden(spec_path.child("ephemeralContainers"), "cannot be set on create"))
    if as_str(spec.get("nodeName")) and as_list(spec.get("schedulingGates")):
        errs.append(forbidden(spec_path.child("nodeName"),
                              "cannot be set until all schedulingGates have been cleared"))
    return errs


def validate_ephemeral_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidatePodEphemeralContainersUpdate`` (the ``ephemeralcontainers``
    subresource): the pod as a whole, and existing ephemeral containers
    neither removed nor changed (only additions)."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(_pod_metadata_and_spec(new))
    annotations = as_map(as_map(old.get("metadata")).get("annotations"))
    if "kubernetes.io/config.mirror" in annotations:
        return [forbidden(FieldPath.root(""), "static pods do not support ephemeral containers")]
    path = FieldPath.root("spec").child("ephemeralContainers")
    now = {as_str(as_map(c).get("name")): as_map(c)
           for c in as_list(as_map(new.get("spec")).get("ephemeralContainers"))}
    for raw in as_list(as_map(old.get("spec")).get("ephemeralContainers")):
        before = as_map(raw)
        name = as_str(before.get("name"))
        after = now.get(name)
        if after is None:
            errs.append(forbidden(path, f'existing ephemeral containers "{name}" may not be '
                                        "removed\n"))
        elif not semantic_equal(before, after):
            lines: list[str] = []
            _diff(before, after, "", lines)
            errs.append(forbidden(path, f'existing ephemeral containers "{name}" may not be '
                                        "changed\n" + "\n".join(lines)))
    return errs


UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)


def _container_updates(new: Any, old: Any, path: FieldPath) -> tuple[Errs, bool]:
    new_items, old_items = as_list(new), as_list(old)
    if len(new_items) != len(old_items):
        return [forbidden(path, "pod updates may not add or remove containers")], True
    errs: Errs = []
    for i, container in enumerate(new_items):
        image = as_str(as_map(container).get("image"))
        if not image:
            errs.append(required(path.index(i).child("image"), ""))
        if image != image.strip():
            errs.append(invalid(path.index(i).child("image"), image,
                                "must not have leading or trailing whitespace"))
    return errs, False


def _only_added_tolerations(new: Any, old: Any, path: FieldPath) -> Errs:
    new_items = [as_map(t) for t in as_list(new)]
    for old_toleration in (as_map(t) for t in as_list(old)):
        wanted = {k: v for k, v in old_toleration.items() if k != "tolerationSeconds"}
        if not any(semantic_equal(wanted, {k: v for k, v in t.items() if k != "tolerationSeconds"})
                   for t in new_items):
            return [forbidden(path, "existing toleration can not be modified except its "
                                    "tolerationSeconds")]
    return validate_tolerations(new, path)


def _diff(old: Any, new: Any, path: str, out: list[str]) -> None:
    """Changed leaves between two JSON values, ``-``/``+`` lines like cmp.Diff."""
    if semantic_equal(old, new):
        return
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new)):
            _diff(old.get(key), new.get(key), f"{path}.{key}" if path else key, out)
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _diff(a, b, f"{path}[{i}]", out)
        return
    if old is not None:
        out.append(f"- \t{path}: {json.dumps(old, sort_keys=True)},")
    if new is not None:
        out.append(f"+ \t{path}: {json.dumps(new, sort_keys=True)},")


def validate_pod_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidatePodUpdate``: only images, ``activeDeadlineSeconds`` (set or
    lowered), added tolerations, removed scheduling gates, a negative grace
    period turned into 1 and, while gated, added ``nodeSelector`` entries may
    change. The diff after the Forbidden message lists changed fields as
    ``-``/``+`` lines (Kubernetes prints a Go struct diff there)."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(_pod_metadata_and_spec(new))
    new_spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    spec_path = FieldPath.root("spec")
    for key in ("containers", "initContainers"):
        container_errs, stop = _container_updates(new_spec.get(key), old_spec.get(key),
                                                  spec_path.child(key))
        errs.extend(container_errs)
        if stop:
            return errs
    deadline_path = spec_path.child("activeDeadlineSeconds")
    new_deadline = as_int(new_spec.get("activeDeadlineSeconds"))
    old_deadline = as_int(old_spec.get("activeDeadlineSeconds"))
    if new_deadline is not None:
        if not 0 <= new_deadline <= MAX_INT32:
            errs.append(invalid(deadline_path, new_deadline, inclusive_range_error(0, MAX_INT32)))
            return errs
        if old_deadline is not None and old_deadline < new_deadline:
            errs.append(invalid(deadline_path, new_deadline,
                                "must be less than or equal to previous value"))
            return errs
    elif old_deadline is not None:
        errs.append(invalid(deadline_path, None,
                            "must not update from a positive integer to nil value"))
    errs.extend(_only_added_tolerations(new_spec.get("tolerations"), old_spec.get("tolerations"),
                                        spec_path.child("tolerations")))
    old_gates = {as_str(as_map(g).get("name")) for g in as_list(old_spec.get("schedulingGates"))}
    for i, gate in enumerate(as_list(new_spec.get("schedulingGates"))):
        gate_name = as_str(as_map(gate).get("name"))
        if gate_name not in old_gates:
            errs.append(forbidden(spec_path.child("schedulingGates").index(i).child("name"),
                                  "only deletion is allowed, but found new scheduling gate "
                                  f"'{gate_name}'"))
    if semantic_equal(new_spec, old_spec):
        return errs
    munged = dict(new_spec)
    for key in ("containers", "initContainers"):
        old_items = as_list(old_spec.get(key))
        munged[key] = [
            {**as_map(c), "image": as_map(old_items[i]).get("image")}
            for i, c in enumerate(as_list(new_spec.get(key)))
        ] or new_spec.get(key)
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged[key] = old_spec.get(key)
    old_grace = as_int(old_spec.get("terminationGracePeriodSeconds"))
    if old_grace is not None and old_grace < 0 and munged.get(
            "terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if as_list(old_spec.get("schedulingGates")):
        new_selector = as_map(munged.get("nodeSelector"))
        old_selector = as_map(old_spec.get("nodeSelector"))
        if not semantic_equal(new_selector, old_selector):
            if any(new_selector.get(k) != v for k, v in old_selector.items()):
                errs.append(invalid(spec_path.child("nodeSelector"),
                                    go_string_map(new_selector),
                                    "only additions to spec.nodeSelector are allowed (no "
                                    "mutations or deletions)"))
            munged["nodeSelector"] = old_spec.get("nodeSelector")
    if not semantic_equal(munged, old_spec):
        lines: list[str] = []
        _diff(old_spec, munged, "", lines)
        diff = "  core.PodSpec{\n" + "\n".join(lines) + "\n  }\n"
        errs.append(forbidden(spec_path, "pod updates may not change fields other than "
                                         f"{','.join(UPDATABLE_POD_SPEC_FIELDS)}\n{diff}"))
    return errs

