"""Translating a pod's spec into runtime configs (the kubelet's
``generateContainerConfig`` / ``generatePodSandboxConfig``).

Pure functions of the pod object; the only side effect is creating the
directory of an ``emptyDir`` volume under the kubelet's state directory.

* Environment (``makeEnvironmentVariables``), in order, each variable able to
  refer to the ones defined before it:

  - ``value``, with ``$(VAR)`` expansion exactly as Kubernetes'
    ``third_party/forked/golang/expansion``: ``$$`` is a literal ``$``, an
    unknown ``$(NAME)`` and an unterminated ``$(`` stay as written, a ``$``
    followed by anything else stays too;
  - ``valueFrom.fieldRef``: ``metadata.name|namespace|uid``,
    ``metadata.labels['k']``, ``metadata.annotations['k']``,
    ``spec.nodeName``, ``spec.serviceAccountName``, ``status.hostIP(s)``,
    ``status.podIP(s)`` (one IP per family here, so a single address);
  - ``valueFrom.resourceFieldRef``: ``limits|requests`` ``.cpu|.memory|
    .ephemeral-storage`` of this container (or of ``containerName``), divided
    by ``divisor`` (default ``1``) and rounded up, as
    ``ExtractContainerResourceValue``; a missing cpu/memory **limit** is the
    node's allocatable (``defaultPodLimitsForDownwardAPI``).

  Other sources (ConfigMaps, Secrets) are not supported yet and leave the
  variable out. The Services' variables (:mod:`.envvars`) can be referred
  to and follow the declared ones unless overridden. ``command`` and
  ``args`` are expanded against the result.
* Resources: CPU request and limit in millicores, memory limit in bytes.
* Volumes: ``hostPath`` mounts its path; ``emptyDir`` a directory
  ``<state_dir>/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>``; other
  volume types are skipped.
* Sandbox: labels, hostname, host ports, the node's ``cgroup_parent`` and
  the pod's DNS settings (:mod:`.dns`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..api.quantity import Quantity, QuantityError
from ..runtime.base import (
    LABEL_CONTAINER_NAME,
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_NODE,
    LABEL_POD_UID,
    LABEL_RESTART_COUNT,
    ContainerConfig,
    DNSConfig,
    Mount,
    PortMapping,
    SandboxConfig,
    SecurityConfig,
)

__all__ = ["container_config", "expand", "pod_dir", "pod_labels", "sandbox_config"]

_MAP_FIELD = re.compile(r"^metadata\.(labels|annotations)\['(.+)'\]$")


def pod_labels(pod: Mapping[str, Any], node: str) -> dict[str, str]:
    """The labels that tie runtime objects to a pod on a node."""
    meta = pod.get("metadata") or {}
    return {LABEL_POD_UID: str(meta.get("uid", "")),
            LABEL_NAMESPACE: str(meta.get("namespace", "")),
            LABEL_NAME: str(meta.get("name", "")),
            LABEL_NODE: node}


def pod_dir(state_dir: Path, uid: str) -> Path:
    return state_dir / "pods" / uid


def expand(text: str, env: Mapping[str, str] | Callable[[str], str | None]) -> str:
    """Kubernetes' ``$(VAR)`` expansion (``third_party/forked/golang/expansion``).

    ``env`` maps a name to its value (a mapping, or a function returning
    ``None`` for an unknown name, which then stays as ``$(NAME)``).
    """
    lookup = env.get if isinstance(env, Mapping) else env
    out: list[str] = []
    checkpoint = 0
    i = 0
    n = len(text)
    while i < n:
        if text[i] == "$" and i + 1 < n:
            out.append(text[checkpoint:i])
            nxt = text[i + 1]
            if nxt == "$":  # an escaped operator
                out.append("$")
                i += 1
            elif nxt == "(":
                close = text.find(")", i + 2)
                if close < 0:  # incomplete reference: keep "$(" and go on after it
                    out.append("$(")
                    i += 1
                else:
                    name = text[i + 2:close]
                    value = lookup(name)
                    out.append(value if value is not None else f"$({name})")
                    i = close
            else:  # a lone operator: keep it with the character after it
                out.append("$" + nxt)
                i += 1
            checkpoint = i + 1
        i += 1
    out.append(text[checkpoint:])
    return "".join(out)


def _field_ref(pod: Mapping[str, Any], path: str, host_ip: str, pod_ip: str) -> str | None:
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    simple = {
        "metadata.name": meta.get("name"),
        "metadata.namespace": meta.get("namespace"),
        "metadata.uid": meta.get("uid"),
        "spec.nodeName": spec.get("nodeName"),
        "spec.serviceAccountName": spec.get("serviceAccountName"),
        "status.hostIP": host_ip,
        "status.hostIPs": host_ip,
        "status.podIP": pod_ip,
        "status.podIPs": pod_ip,
    }
    if path in simple:
        value = simple[path]
        return "" if value is None else str(value)
    m = _MAP_FIELD.match(path)
    if m:
        return str((meta.get(m.group(1)) or {}).get(m.group(2), ""))
    return None


def _quantity(raw: Any) -> Quantity | None:
    if raw is None:
        return None
    try:
        return Quantity.parse(raw)
    except (QuantityError, TypeError):
        return None


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _resource_field_ref(pod: Mapping[str, Any], c: Mapping[str, Any], ref: Mapping[str, Any],
                        allocatable: tuple[int, int]) -> str | None:
    """``ExtractContainerResourceValue`` on the pod with the downward-API limit defaults."""
    spec = pod.get("spec") or {}
    target: Mapping[str, Any] = c
    wanted = ref.get("containerName")
    if wanted:
        found = next((x for x in [*(spec.get("containers") or []),
                                  *(spec.get("initContainers") or [])]
                      if x.get("name") == wanted), None)
        if found is None:
            return None
        target = found
    kind, _, name = str(ref.get("resource", "")).partition(".")
    if kind not in ("limits", "requests") or name not in ("cpu", "memory",
                                                          "ephemeral-storage"):
        return None
    divisor = _quantity(ref.get("divisor"))
    if divisor is None or divisor.is_zero():
        divisor = Quantity.parse("1")
    values = (target.get("resources") or {}).get(kind) or {}
    q = _quantity(values.get(name))
    if name == "cpu":
        millis = q.milli_value() if q is not None else 0
        if q is None and kind == "limits":
            millis = allocatable[0]
        return str(_ceil_div(millis, max(1, divisor.milli_value())))
    amount = q.value() if q is not None else 0
    if q is None and kind == "limits" and name == "memory":
        amount = allocatable[1]
    return str(_ceil_div(amount, max(1, divisor.value())))


def _env(pod: Mapping[str, Any], c: Mapping[str, Any], host_ip: str, pod_ip: str,
         allocatable: tuple[int, int],
         service: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    values: dict[str, str] = {}
    out: list[tuple[str, str]] = []

    def lookup(name: str) -> str | None:
        # makeEnvironmentVariables: declared variables first, then the Services'.
        found = values.get(name)
        return found if found is not None else service.get(name)
    for var in c.get("env") or []:
        name = str(var.get("name", ""))
        if "valueFrom" in var:
            source = var.get("valueFrom") or {}
            field_ref = source.get("fieldRef")
            resource_ref = source.get("resourceFieldRef")
            value: str | None = None
            if isinstance(field_ref, Mapping):
                value = _field_ref(pod, str(field_ref.get("fieldPath", "")), host_ip, pod_ip)
            elif isinstance(resource_ref, Mapping):
                value = _resource_field_ref(pod, c, resource_ref, allocatable)
            if value is None:
                continue  # a source we cannot resolve yet (ConfigMap, Secret, ...)
        else:
            value = expand(str(var.get("value", "")), lookup)
        values[name] = value
        out.append((name, value))
    out.extend((k, service[k]) for k in sorted(service) if k not in values)
    return tuple(out)


def _millis(resources: Any, kind: str, name: str) -> int:
    raw = ((resources or {}).get(kind) or {}).get(name)
    if raw is None:
        return 0
    try:
        q = Quantity.parse(raw)
    except QuantityError:
        return 0
    return q.milli_value() if name == "cpu" else q.value()


def _security(pod_spec: Mapping[str, Any], c: Mapping[str, Any]) -> SecurityConfig:
    pod_sc = pod_spec.get("securityContext") or {}
    sc = c.get("securityContext") or {}
    caps = sc.get("capabilities") or {}
    user = sc.get("runAsUser", pod_sc.get("runAsUser"))
    group = sc.get("runAsGroup", pod_sc.get("runAsGroup"))
    return SecurityConfig(
        run_as_user=int(user) if user is not None else None,
        run_as_group=int(group) if group is not None else None,
        read_only_root_fs=bool(sc.get("readOnlyRootFilesystem", False)),
        cap_add=tuple(str(x) for x in caps.get("add") or []),
        cap_drop=tuple(str(x) for x in caps.get("drop") or []),
        privileged=bool(sc.get("privileged", False)))


def _ports(c: Mapping[str, Any]) -> tuple[PortMapping, ...]:
    return tuple(PortMapping(int(p.get("containerPort", 0)), int(p.get("hostPort", 0) or 0),
                             str(p.get("protocol", "TCP")), str(p.get("hostIP", "")))
                 for p in c.get("ports") or [])


def _mounts(pod: Mapping[str, Any], c: Mapping[str, Any], state_dir: Path) -> tuple[Mount, ...]:
    spec = pod.get("spec") or {}
    uid = str((pod.get("metadata") or {}).get("uid", ""))
    volumes = {str(v.get("name")): v for v in spec.get("volumes") or []}
    out: list[Mount] = []
    for vm in c.get("volumeMounts") or []:
        vol = volumes.get(str(vm.get("name")))
        if vol is None:
            continue
        if "hostPath" in vol:
            source = str((vol.get("hostPath") or {}).get("path", ""))
        elif "emptyDir" in vol:
            path = pod_dir(state_dir, uid) / "volumes" / "kubernetes.io~empty-dir" / vol["name"]
            path.mkdir(parents=True, exist_ok=True)
            source = str(path)
        else:
            continue  # volume types without a source on this node yet
        out.append(Mount(source, str(vm.get("mountPath", "")), bool(vm.get("readOnly", False))))
    return tuple(out)


def container_config(pod: Mapping[str, Any], c: Mapping[str, Any], *, node: str, init: bool,
                     restart_count: int, host_ip: str, pod_ip: str, state_dir: Path,
                     allocatable: tuple[int, int] = (0, 0),
                     service_env: Mapping[str, str] | None = None) -> ContainerConfig:
    """The runtime config for container spec ``c`` of ``pod``; ``allocatable``
    is the node's ``(cpu millicores, memory bytes)`` (downward-API defaults),
    ``service_env`` the Services' variables (:mod:`.envvars`)."""
    env = _env(pod, c, host_ip, pod_ip, allocatable, service_env or {})
    values = dict(env)
    resources = c.get("resources") or {}
    labels = {**pod_labels(pod, node), LABEL_CONTAINER_NAME: str(c.get("name", "")),
              LABEL_RESTART_COUNT: str(restart_count)}

    def expanded(items: Sequence[Any] | None) -> tuple[str, ...]:
        return tuple(expand(str(x), values) for x in items or [])

    return ContainerConfig(
        name=str(c.get("name", "")), image=str(c.get("image", "")),
        command=expanded(c.get("command")), args=expanded(c.get("args")), env=env,
        working_dir=str(c.get("workingDir", "")), ports=_ports(c),
        cpu_millis_request=_millis(resources, "requests", "cpu"),
        cpu_millis_limit=_millis(resources, "limits", "cpu"),
        memory_limit_bytes=_millis(resources, "limits", "memory"),
        mounts=_mounts(pod, c, state_dir), security=_security(pod.get("spec") or {}, c),
        labels=labels, init=init)


def sandbox_config(pod: Mapping[str, Any], node: str, *, cgroup_parent: str = "",
                   dns: DNSConfig | None = None) -> SandboxConfig:
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    ports = tuple(p for c in spec.get("containers") or [] for p in _ports(c) if p.host_port)
    return SandboxConfig(
        uid=str(meta.get("uid", "")), namespace=str(meta.get("namespace", "")),
        name=str(meta.get("name", "")), node=node,
        labels={**(meta.get("labels") or {}), **pod_labels(pod, node)},
        hostname=str(spec.get("hostname") or meta.get("name", "")), port_mappings=ports,
        cgroup_parent=cgroup_parent, dns=dns)
