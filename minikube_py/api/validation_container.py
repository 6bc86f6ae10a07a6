"""Container validation: resources, ports, env, mounts, probes, lifecycle hooks.

``validateContainers`` / ``validateInitContainers`` / ``validateContainerCommon``
and what they call in ``pkg/apis/core/validation`` (v1.32), with Kubernetes'
paths and messages. Behaviour behind feature gates is that of a default 1.32
API server: relaxed environment variable names on, zero-second sleep actions
off. Privileged containers are allowed (``--allow-privileged=true``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import (
    FieldError,
    FieldPath,
    duplicate,
    forbidden,
    invalid,
    not_found,
    not_supported,
    required,
)
from .names import (
    inclusive_range_error,
    is_env_var_name,
    is_qualified_name,
    is_valid_port_name,
    is_valid_port_num,
    name_is_dns_subdomain,
    regex_error,
)
from .quantity import Quantity, QuantityError, validate_quantity
from .validation_meta import (
    MAX_INT32,
    Errs,
    GoValue,
    as_int,
    as_list,
    as_map,
    as_str,
    config_map_key,
    dns_label,
    enum_value,
    local_descending_path,
    no_backsteps,
    nonnegative,
)
from .validation_network import PROTOCOLS, port_num_or_name
from .validation_volumes import ENV_FIELD_PATHS, object_field_selector, resource_field_selector

__all__ = [
    "SpecContext",
    "id_range",
    "seccomp_profile",
    "validate_containers",
    "validate_init_containers",
    "validate_resource_requirements",
]

# -------------------------------------------------------------- resources

_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
    "services.loadbalancers",
})
_INTEGER_RESOURCES = frozenset({
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})
_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})


def _is_hugepage(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    if _is_native(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not _is_hugepage(name)


def _container_resource_name(name: str, path: FieldPath) -> Errs:
    """``validateContainerResourceName``."""
    errs = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if errs:
        return errs
    standard = name in _STANDARD_RESOURCES or name.startswith(
        ("hugepages-", "requests.hugepages-"))
    if "/" not in name and not standard:
        errs.append(invalid(path, name, "must be a standard resource type or fully qualified"))
    if "/" not in name:
        if name not in _CONTAINER_RESOURCES and not _is_hugepage(name):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native(name) and not _is_extended(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def _quantity_value(name: str, value: Any, path: FieldPath) -> tuple[Quantity | None, Errs]:
    """``ValidateResourceQuantityValue``: parse, non-negative, integer when the
    resource is counted in whole units."""
    errs = validate_quantity(value, path)
    try:
        q = Quantity.parse(value)
    except (QuantityError, TypeError):
        return None, errs
    if (name in _INTEGER_RESOURCES or _is_extended(name)) and q.milli_value() % 1000:
        errs.append(invalid(path, GoValue(str(q)), "must be an integer"))
    return q, errs


def _hugepage_divisible(name: str, q: Quantity) -> bool:
    try:
        page = Quantity.parse(name[len("hugepages-"):])
    except QuantityError:
        return False
    if page.nanos <= 0 or page.milli_value() % 1000:
        return False
    return q.value() % page.value() == 0


def validate_resource_requirements(resources: Any, claim_names: set[str],
                                   path: FieldPath) -> Errs:
    """``ValidateContainerResourceRequirements``."""
    res = as_map(resources)
    limits, requests = as_map(res.get("limits")), as_map(res.get("requests"))
    lim_path, req_path = path.child("limits"), path.child("requests")
    errs: Errs = []
    lim_qs: dict[str, Quantity | None] = {}
    cpu_or_memory = hugepages = False
    for name, value in limits.items():
        sub = lim_path.key(name)
        errs.extend(_container_resource_name(name, sub))
        q, q_errs = _quantity_value(name, value, sub)
        errs.extend(q_errs)
        lim_qs[name] = q
        if _is_hugepage(name):
            hugepages = True
            if q is not None and not _hugepage_divisible(name, q):
                errs.append(invalid(sub, str(q), f"{q} is not positive integer multiple of {name}"))
        cpu_or_memory = cpu_or_memory or name in ("cpu", "memory")
    for name, value in requests.items():
        sub = req_path.key(name)
        errs.extend(_container_resource_name(name, sub))
        q, q_errs = _quantity_value(name, value, sub)
        errs.extend(q_errs)
        if name in limits:
            limit = lim_qs.get(name)
            if q is not None and limit is not None:
                if q != limit and not _overcommit_allowed(name):
                    errs.append(invalid(req_path, str(q),
                                        f"must be equal to {name} limit of {limit}"))
                elif q > limit:
                    errs.append(invalid(req_path, str(q),
                                        f"must be less than or equal to {name} limit of {limit}"))
        elif not _overcommit_allowed(name):
            errs.append(required(lim_path, "Limit must be set for non overcommitable resources"))
        if _is_hugepage(name):
            hugepages = True
            if q is not None and not _hugepage_divisible(name, q):
                errs.append(invalid(sub, str(q), f"{q} is not positive integer multiple of {name}"))
        cpu_or_memory = cpu_or_memory or name in ("cpu", "memory")
    if hugepages and not cpu_or_memory:
        errs.append(forbidden(path, "HugePages require cpu or memory"))
    errs.extend(_resource_claims(res.get("claims"), claim_names, path.child("claims")))
    return errs


def _resource_claims(claims: Any, pod_claims: set[str], path: FieldPath) -> Errs:
    """``validateResourceClaimNames``."""
    errs: Errs = []
    names: set[str] = set()
    for i, raw in enumerate(as_list(claims)):
        claim = as_map(raw)
        name, request = as_str(claim.get("name")), as_str(claim.get("request"))
        if not name:
            errs.append(required(path.index(i), ""))
            continue
        if name in names:
            errs.append(duplicate(path.index(i), name))
        else:
            key = name
            if request:
                errs.extend(dns_label(request, path.index(i).child("request")))
                key += "/" + request
            if key in names:
                errs.append(duplicate(path.index(i), key))
            elif not request and any(k.split("/", 1)[0] == name for k in names if "/" in k):
                errs.append(duplicate(path.index(i), name))
            names.add(key)
        if name not in pod_claims:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += " which is empty" if not pod_claims else ": " + ", ".join(sorted(pod_claims))
            errs.append(FieldError("NotFound", str(path.index(i)), name, detail))
    return errs


_HTTP_HEADER_FMT = "[-A-Za-z0-9]+"
_HTTP_HEADER_RE = re.compile(_HTTP_HEADER_FMT)


def _http_header_name(value: str) -> list[str]:
    if _HTTP_HEADER_RE.fullmatch(value):
        return []
    return [regex_error("a valid HTTP header must consist of alphanumeric characters or '-'",
                        _HTTP_HEADER_FMT, "X-Header-Name")]


# ------------------------------------------------------------- containers

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
_RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")


def _ports(ports: Any, path: FieldPath) -> Errs:
    """``validateContainerPorts``: names unique within the container."""
    errs: Errs = []
    names: set[str] = set()
    for i, raw in enumerate(as_list(ports)):
        port = as_map(raw)
        sub = path.index(i)
        name = as_str(port.get("name"))
        if name:
            msgs = is_valid_port_name(name)
            if msgs:
                errs.extend(invalid(sub.child("name"), name, m) for m in msgs)
            elif name in names:
                errs.append(duplicate(sub.child("name"), name))
            else:
                names.add(name)
        container_port = as_int(port.get("containerPort")) or 0
        if container_port == 0:
            errs.append(required(sub.child("containerPort"), ""))
        else:
            errs.extend(invalid(sub.child("containerPort"), container_port, m)
                        for m in is_valid_port_num(container_port))
        host_port = as_int(port.get("hostPort")) or 0
        if host_port:
            errs.extend(invalid(sub.child("hostPort"), host_port, m)
                        for m in is_valid_port_num(host_port))
        protocol = as_str(port.get("protocol"))
        if not protocol:
            errs.append(required(sub.child("protocol"), ""))
        elif protocol not in PROTOCOLS:
            errs.append(not_supported(sub.child("protocol"), protocol, PROTOCOLS))
    return errs


def _env(env: Any, path: FieldPath) -> Errs:
    """``ValidateEnv`` (relaxed names, the 1.32 default)."""
    errs: Errs = []
    for i, raw in enumerate(as_list(env)):
        var = as_map(raw)
        sub = path.index(i)
        name = as_str(var.get("name"))
        if not name:
            errs.append(required(sub.child("name"), ""))
        else:
            errs.extend(invalid(sub.child("name"), name, m) for m in is_env_var_name(name))
        errs.extend(_env_value_from(var, sub.child("valueFrom")))
    return errs


def _key_selector(ref: Any, path: FieldPath) -> Errs:
    selector = as_map(ref)
    name, key = as_str(selector.get("name")), as_str(selector.get("key"))
    errs = [invalid(path.child("name"), name, m) for m in name_is_dns_subdomain(name, False)]
    if not key:
        errs.append(required(path.child("key"), ""))
    else:
        errs.extend(invalid(path.child("key"), key, m) for m in config_map_key(key))
    return errs


def _env_value_from(var: Mapping[str, Any], path: FieldPath) -> Errs:
    source = var.get("valueFrom")
    if source is None:
        return []
    source = as_map(source)
    errs: Errs = []
    count = 0
    if source.get("fieldRef") is not None:
        count += 1
        errs.extend(object_field_selector(source.get("fieldRef"), ENV_FIELD_PATHS,
                                           path.child("fieldRef")))
    if source.get("resourceFieldRef") is not None:
        count += 1
        errs.extend(resource_field_selector(source.get("resourceFieldRef"),
                                             path.child("resourceFieldRef"), volume=False))
    for key in ("configMapKeyRef", "secretKeyRef"):
        if source.get(key) is not None:
            count += 1
            errs.extend(_key_selector(source.get(key), path.child(key)))
    if count == 0:
        errs.append(invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                      "`configMapKeyRef` or `secretKeyRef`"))
    elif as_str(var.get("value")):
        errs.append(invalid(path, "", "may not be specified when `value` is not empty"))
    elif count > 1:
        errs.append(invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def _env_from(sources: Any, path: FieldPath) -> Errs:
    """``ValidateEnvFrom``; "must specify one of" is reported at the list path."""
    errs: Errs = []
    for i, raw in enumerate(as_list(sources)):
        source = as_map(raw)
        sub = path.index(i)
        prefix = as_str(source.get("prefix"))
        if prefix:
            errs.extend(invalid(sub.child("prefix"), prefix, m) for m in is_env_var_name(prefix))
        count = 0
        for key in ("configMapRef", "secretRef"):
            if source.get(key) is None:
                continue
            count += 1
            name = as_str(as_map(source.get(key)).get("name"))
            if not name:
                errs.append(required(sub.child(key).child("name"), ""))
            else:
                errs.extend(invalid(sub.child(key).child("name"), name, m)
                            for m in name_is_dns_subdomain(name, True))
        if count == 0:
            errs.append(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif count > 1:
            errs.append(invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def _volume_mounts(container: Mapping[str, Any], volumes: dict[str, Mapping[str, Any]],
                   path: FieldPath) -> Errs:
    """``ValidateVolumeMounts`` (device overlap checks included)."""
    errs: Errs = []
    devices = {as_str(as_map(d).get("name")): as_str(as_map(d).get("devicePath"))
               for d in as_list(container.get("volumeDevices"))}
    privileged = as_map(container.get("securityContext")).get("privileged") is True
    mount_paths: set[str] = set()
    for i, raw in enumerate(as_list(container.get("volumeMounts"))):
        mount = as_map(raw)
        sub = path.index(i)
        name, mount_path = as_str(mount.get("name")), as_str(mount.get("mountPath"))
        if not name:
            errs.append(required(sub.child("name"), ""))
        if name not in volumes:
            errs.append(not_found(sub.child("name"), name))
        if not mount_path:
            errs.append(required(sub.child("mountPath"), ""))
        if mount_path in mount_paths:
            errs.append(invalid(sub.child("mountPath"), mount_path, "must be unique"))
        mount_paths.add(mount_path)
        if name in devices:
            errs.append(invalid(sub.child("name"), name, "must not already exist in volumeDevices"))
        if mount_path in devices.values():
            errs.append(invalid(sub.child("mountPath"), mount_path,
                                "must not already exist as a path in volumeDevices"))
        sub_path, sub_path_expr = as_str(mount.get("subPath")), as_str(mount.get("subPathExpr"))
        if sub_path:
            # Kubernetes reports these at volumeMounts.subPath, without the index.
            errs.extend(local_descending_path(sub_path, path.child("subPath")))
        if sub_path_expr:
            if sub_path:
                errs.append(invalid(sub.child("subPathExpr"), sub_path_expr,
                                    "subPathExpr and subPath are mutually exclusive"))
            errs.extend(local_descending_path(sub_path_expr, path.child("subPathExpr")))
        propagation = mount.get("mountPropagation")
        if isinstance(propagation, str):
            prop_path = path.child("mountPropagation")
            if propagation not in _PROPAGATIONS:
                errs.append(not_supported(prop_path, propagation, _PROPAGATIONS))
            if propagation == "Bidirectional" and not privileged:
                errs.append(forbidden(prop_path, "Bidirectional mount propagation is available "
                                                 "only to privileged containers"))
        rro = mount.get("recursiveReadOnly")
        if isinstance(rro, str) and rro != "Disabled":
            rro_path = path.child("recursiveReadOnly")
            if rro not in _RECURSIVE_READ_ONLY:
                errs.append(not_supported(rro_path, rro, _RECURSIVE_READ_ONLY))
            else:
                if mount.get("readOnly") is not True:
                    errs.append(forbidden(rro_path, "may only be specified when readOnly is true"))
                if propagation not in (None, "None"):
                    errs.append(forbidden(rro_path, "may only be specified when mountPropagation "
                                                    "is None or not specified"))
    return errs


def _volume_devices(container: Mapping[str, Any], volumes: dict[str, Mapping[str, Any]],
                    path: FieldPath) -> Errs:
    """``ValidateVolumeDevices``."""
    errs: Errs = []
    mounts = {as_str(as_map(m).get("name")): as_str(as_map(m).get("mountPath"))
              for m in as_list(container.get("volumeMounts"))}
    names: set[str] = set()
    device_paths: set[str] = set()
    for i, raw in enumerate(as_list(container.get("volumeDevices"))):
        device = as_map(raw)
        sub = path.index(i)
        name, device_path = as_str(device.get("name")), as_str(device.get("devicePath"))
        volume = volumes.get(name)
        if not name:
            errs.append(required(sub.child("name"), ""))
        if name in names:
            errs.append(invalid(sub.child("name"), name, "must be unique"))
        if volume is not None and volume.get("persistentVolumeClaim") is None and volume.get(
                "ephemeral") is None:
            errs.append(invalid(sub.child("name"), name, "can only use volume source type of "
                                                         "PersistentVolumeClaim or Ephemeral for "
                                                         "block mode"))
        if volume is None:
            errs.append(not_found(sub.child("name"), name))
        if not device_path:
            errs.append(required(sub.child("devicePath"), ""))
        if device_path in device_paths:
            errs.append(invalid(sub.child("devicePath"), device_path, "must be unique"))
        if device_path and no_backsteps(device_path, sub):
            errs.append(invalid(sub.child("devicePath"), device_path,
                                "can not contain backsteps ('..')"))
        else:
            device_paths.add(device_path)
        if name in mounts:
            errs.append(invalid(sub.child("name"), name, "must not already exist in volumeMounts"))
        if device_path in mounts.values():
            errs.append(invalid(sub.child("devicePath"), device_path,
                                "must not already exist as a path in volumeMounts"))
        if name:
            names.add(name)
    return errs


def _handler(handler: Mapping[str, Any], grace: int | None, path: FieldPath, *,
             lifecycle: bool) -> Errs:
    """``validateHandler``: exactly one action."""
    errs: Errs = []
    count = 0
    kinds = ("exec", "httpGet", "tcpSocket", "sleep") if lifecycle else (
        "exec", "httpGet", "tcpSocket", "grpc")
    for kind in kinds:
        action = handler.get(kind)
        if action is None:
            continue
        sub = path.child(kind)
        if count:
            errs.append(forbidden(sub, "may not specify more than 1 handler type"))
            continue
        count += 1
        body = as_map(action)
        if kind == "exec":
            if not as_list(body.get("command")):
                errs.append(required(sub.child("command"), ""))
        elif kind == "httpGet":
            if not as_str(body.get("path")):
                errs.append(required(sub.child("path"), ""))
            errs.extend(port_num_or_name(body.get("port"), sub.child("port")))
            scheme = as_str(body.get("scheme"))
            if scheme not in ("HTTP", "HTTPS"):
                errs.append(not_supported(sub.child("scheme"), scheme, ("HTTP", "HTTPS")))
            for header in as_list(body.get("httpHeaders")):
                header_name = as_str(as_map(header).get("name"))
                errs.extend(invalid(sub.child("httpHeaders"), header_name, m)
                            for m in _http_header_name(header_name))
        elif kind == "tcpSocket":
            errs.extend(port_num_or_name(body.get("port"), sub.child("port")))
        elif kind == "grpc":
            errs.extend(port_num_or_name(as_int(body.get("port")) or 0, sub.child("port")))
        elif kind == "sleep":
            seconds = as_int(body.get("seconds")) or 0
            if grace is not None and (seconds <= 0 or seconds > grace):
                errs.append(invalid(sub, seconds, (
                    f"must be greater than 0 and less than terminationGracePeriodSeconds "
                    f"({grace}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for "
                    "zero sleep.")))
    if count == 0:
        errs.append(required(path, "must specify a handler type"))
    return errs


def _probe(probe: Any, grace: int | None, path: FieldPath, kind: str) -> Errs:
    """``validateLivenessProbe`` / ``validateReadinessProbe`` / ``validateStartupProbe``."""
    if probe is None:
        return []
    body = as_map(probe)
    errs = _handler(body, grace, path, lifecycle=False)
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold",
                "failureThreshold"):
        errs.extend(nonnegative(body.get(key), path.child(key)))
    probe_grace = as_int(body.get("terminationGracePeriodSeconds"))
    if probe_grace is not None and probe_grace <= 0:
        errs.append(invalid(path.child("terminationGracePeriodSeconds"), probe_grace,
                            "must be greater than 0"))
    if kind in ("liveness", "startup"):
        threshold = as_int(body.get("successThreshold"))
        if threshold != 1:
            errs.append(invalid(path.child("successThreshold"),
                                0 if threshold is None else threshold, "must be 1"))
    elif probe_grace is not None:
        errs.append(invalid(path.child("terminationGracePeriodSeconds"), probe_grace,
                            "must not be set for readinessProbes"))
    return errs


def _lifecycle(lifecycle: Any, grace: int | None, path: FieldPath) -> Errs:
    body = as_map(lifecycle)
    errs: Errs = []
    for hook in ("postStart", "preStop"):
        if body.get(hook) is not None:
            errs.extend(_handler(as_map(body.get(hook)), grace, path.child(hook), lifecycle=True))
    return errs


def _probes_and_lifecycle(container: Mapping[str, Any], grace: int | None,
                          path: FieldPath) -> Errs:
    errs: Errs = []
    if container.get("lifecycle") is not None:
        errs.extend(_lifecycle(container.get("lifecycle"), grace, path.child("lifecycle")))
    for kind in ("liveness", "readiness", "startup"):
        key = f"{kind}Probe"
        errs.extend(_probe(container.get(key), grace, path.child(key), kind))
    return errs


def id_range(value: Any, path: FieldPath) -> Errs:
    number = as_int(value)
    if number is not None and not 0 <= number <= MAX_INT32:
        return [invalid(path, number, inclusive_range_error(0, MAX_INT32))]
    return []


def seccomp_profile(profile: Any, path: FieldPath) -> Errs:
    if profile is None:
        return []
    body = as_map(profile)
    kind = as_str(body.get("type"))
    errs: Errs = []
    if not kind:
        errs.append(required(path.child("type"), "type is required when seccompProfile is set"))
    elif kind not in ("Localhost", "RuntimeDefault", "Unconfined"):
        errs.append(not_supported(path.child("type"), kind,
                                  ("Localhost", "RuntimeDefault", "Unconfined")))
    local = body.get("localhostProfile")
    if kind == "Localhost":
        if local is None:
            errs.append(required(path.child("localhostProfile"),
                                 "must be set when seccomp type is Localhost"))
        else:
            errs.extend(local_descending_path(as_str(local), path.child("localhostProfile")))
    elif local is not None:
        errs.append(invalid(path.child("localhostProfile"),
                            GoValue(f"&SeccompProfile{{Type:{kind},LocalhostProfile:*{local},}}"),
                            "can only be set when seccomp type is Localhost"))
    return errs


def _container_security_context(sc_value: Any, path: FieldPath, host_users: bool) -> Errs:
    """``ValidateSecurityContext`` (privileged containers are allowed, as with
    ``--allow-privileged=true``)."""
    if sc_value is None:
        return []
    sc = as_map(sc_value)
    errs = id_range(sc.get("runAsUser"), path.child("runAsUser"))
    errs.extend(id_range(sc.get("runAsGroup"), path.child("runAsGroup")))
    proc_mount = sc.get("procMount")
    if isinstance(proc_mount, str):
        if proc_mount not in ("Default", "Unmasked"):
            errs.append(not_supported(path.child("procMount"), proc_mount,
                                      ("Default", "Unmasked")))
        if host_users and proc_mount == "Unmasked":
            errs.append(invalid(path.child("procMount"), proc_mount,
                                "`hostUsers` must be false to use `Unmasked`"))
    errs.extend(seccomp_profile(sc.get("seccompProfile"), path.child("seccompProfile")))
    if sc.get("allowPrivilegeEscalation") is False:
        shown = GoValue("&SecurityContext{...}")
        if sc.get("privileged") is True:
            errs.append(invalid(path, shown, "cannot set `allowPrivilegeEscalation` to false "
                                             "and `privileged` to true"))
        if "CAP_SYS_ADMIN" in as_list(as_map(sc.get("capabilities")).get("add")):
            errs.append(invalid(path, shown, "cannot set `allowPrivilegeEscalation` to false "
                                             "and `capabilities.Add` CAP_SYS_ADMIN"))
    return errs


def _resize_policy(policies: Any, path: FieldPath, restart_policy: str) -> Errs:
    errs: Errs = []
    seen: set[str] = set()
    for i, raw in enumerate(as_list(policies)):
        policy = as_map(raw)
        resource, restart = as_str(policy.get("resourceName")), as_str(policy.get("restartPolicy"))
        if resource in seen:
            errs.append(duplicate(path.index(i), resource))
        seen.add(resource)
        errs.extend(enum_value(resource, path, ("cpu", "memory")))
        errs.extend(enum_value(restart, path, ("NotRequired", "RestartContainer")))
        if restart_policy == "Never" and restart != "NotRequired":
            errs.append(invalid(path, restart,
                                "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    return errs


def _container_common(container: Mapping[str, Any], ctx: SpecContext,
                      path: FieldPath) -> Errs:
    """``validateContainerCommon``."""
    errs: Errs = []
    name = as_str(container.get("name"))
    if not name:
        errs.append(required(path.child("name"), ""))
    else:
        errs.extend(dns_label(name, path.child("name")))
    if not as_str(container.get("image")):
        errs.append(required(path.child("image"), ""))
    errs.extend(enum_value(as_str(container.get("terminationMessagePolicy")),
                      path.child("terminationMessagePolicy"), _TERMINATION_MESSAGE_POLICIES))
    # Checks run on the lists the container has: an absent (None) one has
    # nothing to report, so its path is not even built.
    if container.get("ports") is not None:
        errs.extend(_ports(container.get("ports"), path.child("ports")))
    if container.get("env") is not None:
        errs.extend(_env(container.get("env"), path.child("env")))
    if container.get("envFrom") is not None:
        errs.extend(_env_from(container.get("envFrom"), path.child("envFrom")))
    errs.extend(_volume_mounts(container, ctx.volumes, path.child("volumeMounts")))
    errs.extend(_volume_devices(container, ctx.volumes, path.child("volumeDevices")))
    pull = as_str(container.get("imagePullPolicy"))
    if not pull:
        errs.append(required(path.child("imagePullPolicy"), ""))
    elif pull not in _PULL_POLICIES:
        errs.append(not_supported(path.child("imagePullPolicy"), pull, _PULL_POLICIES))
    errs.extend(validate_resource_requirements(container.get("resources"), ctx.claim_names,
                                               path.child("resources")))
    if container.get("resizePolicy") is not None:
        errs.extend(_resize_policy(container.get("resizePolicy"), path.child("resizePolicy"),
                                   ctx.restart_policy))
    if container.get("securityContext") is not None:
        errs.extend(_container_security_context(container.get("securityContext"),
                                                path.child("securityContext"), ctx.host_users))
    return errs


def _host_port_conflicts(containers: list[Mapping[str, Any]], path: FieldPath,
                         indexes: list[int] | None = None) -> Errs:
    """``AccumulateUniqueHostPorts``: protocol/hostIP/hostPort unique."""
    errs: Errs = []
    seen: set[str] = set()
    for ci, container in enumerate(containers):
        index = indexes[ci] if indexes is not None else ci
        for pi, raw in enumerate(as_list(container.get("ports"))):
            port = as_map(raw)
            host_port = as_int(port.get("hostPort")) or 0
            if not host_port:
                continue
            key = f"{as_str(port.get('protocol'))}/{as_str(port.get('hostIP'))}/{host_port}"
            if key in seen:
                errs.append(duplicate(path.index(index).child("ports").index(pi).child("hostPort"),
                                      key))
            else:
                seen.add(key)
    return errs


class SpecContext:
    """What the container checks need to know about the surrounding PodSpec."""

    def __init__(self, volumes: dict[str, Mapping[str, Any]], claim_names: set[str],
                 grace: int | None, restart_policy: str, host_users: bool) -> None:
        self.volumes = volumes
        self.claim_names = claim_names
        self.grace = grace
        self.restart_policy = restart_policy
        self.host_users = host_users


def validate_containers(containers: Any, ctx: SpecContext, path: FieldPath) -> Errs:
    """``validateContainers``."""
    items = [as_map(c) for c in as_list(containers)]
    if not items:
        return [required(path, "")]
    errs: Errs = []
    names: set[str] = set()
    for i, container in enumerate(items):
        sub = path.index(i)
        errs.extend(_container_common(container, ctx, sub))
        name = as_str(container.get("name"))
        if name in names:
            errs.append(duplicate(sub.child("name"), name))
        else:
            names.add(name)
        errs.extend(_probes_and_lifecycle(container, ctx.grace, sub))
        if container.get("restartPolicy") is not None:
            errs.append(forbidden(sub.child("restartPolicy"),
                                  "may not be set for non-init containers"))
    errs.extend(_host_port_conflicts(items, path))
    return errs


def validate_init_containers(init: Any, regular: Any, ctx: SpecContext, path: FieldPath) -> Errs:
    """``validateInitContainers``: names unique across init and regular
    containers; probes and lifecycle only for restartable (sidecar) ones."""
    errs: Errs = []
    names = {as_str(as_map(c).get("name")) for c in as_list(regular)}
    not_sidecar = "may not be set for init containers without restartPolicy=Always"
    for i, raw in enumerate(as_list(init)):
        container = as_map(raw)
        sub = path.index(i)
        errs.extend(_container_common(container, ctx, sub))
        restart = container.get("restartPolicy")
        if restart is not None and restart != "Always":
            errs.append(not_supported(sub.child("restartPolicy"), restart, ("Always",)))
        name = as_str(container.get("name"))
        if name in names:
            errs.append(duplicate(sub.child("name"), name))
        elif name:
            names.add(name)
        # Init containers run one by one, so host ports only clash within one.
        errs.extend(_host_port_conflicts([container], path, [i]))
        if restart == "Always":
            errs.extend(_probes_and_lifecycle(container, ctx.grace, sub))
        else:
            for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if container.get(key) is not None:
                    errs.append(forbidden(sub.child(key), not_sidecar))
    return errs


#: What an ephemeral container may not carry (``validateFieldAllowList`` in
#: Kubernetes names what it may; these are the Container fields outside it):
#: it must not be relied on for the pod's service.
_NOT_FOR_EPHEMERAL = ("ports", "resources", "resizePolicy", "lifecycle", "livenessProbe",
                      "readinessProbe", "startupProbe")


def validate_ephemeral_containers(ephemeral: Any, regular: Any, init: Any, ctx: SpecContext,
                                  path: FieldPath) -> Errs:
    """``validateEphemeralContainers``: the common checks, names unique
    across every container, a target that is a regular or init container,
    and none of the fields a pod's service could depend on."""
    errs: Errs = []
    targets = {as_str(as_map(c).get("name")) for c in [*as_list(regular), *as_list(init)]}
    names = set(targets)
    for i, raw in enumerate(as_list(ephemeral)):
        container = as_map(raw)
        sub = path.index(i)
        errs.extend(_container_common(container, ctx, sub))
        name = as_str(container.get("name"))
        if name in names:
            errs.append(duplicate(sub.child("name"), name))
        elif name:
            names.add(name)
        target = as_str(container.get("targetContainerName"))
        if target and target not in targets:
            errs.append(not_found(sub.child("targetContainerName"), target))
        for key in _NOT_FOR_EPHEMERAL:
            value = container.get(key)
            if value not in (None, {}, []):  # a zero value is not "set"
                errs.append(forbidden(sub.child(key),
                                      "cannot be set for an Ephemeral Container"))
        for j, mount in enumerate(as_list(container.get("volumeMounts"))):
            for key in ("subPath", "subPathExpr"):
                if as_str(as_map(mount).get(key)):
                    errs.append(forbidden(sub.child("volumeMounts").index(j).child(key),
                                          "cannot be set for an Ephemeral Container"))
        if container.get("restartPolicy") is not None:
            errs.append(forbidden(sub.child("restartPolicy"),
                                  "cannot be set for an Ephemeral Container"))
    return errs
