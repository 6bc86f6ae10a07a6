"""Translating a pod's spec into runtime configs (the kubelet's
``generateContainerConfig`` / ``generatePodSandboxConfig``).

Pure functions of the pod object; the only side effect is creating the
directory of an ``emptyDir`` volume under the kubelet's state directory.

* Environment: ``value`` entries with ``$(VAR)`` expansion against the
  variables defined before them (``$$`` escapes a ``$``; unknown references
  stay as written), and ``valueFrom.fieldRef`` for the downward-API fields
  (``metadata.name|namespace|uid``, ``metadata.labels['k']``,
  ``metadata.annotations['k']``, ``spec.nodeName``,
  ``spec.serviceAccountName``, ``status.hostIP``, ``status.podIP``).
  Other sources (ConfigMaps, Secrets, resourceFieldRef) are not supported yet
  and leave the variable out. ``command`` and ``args`` are expanded too.
* Resources: CPU request and limit in millicores, memory limit in bytes.
* Volumes: ``hostPath`` mounts its path; ``emptyDir`` a directory
  ``<state_dir>/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>``; other
  volume types are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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
    Mount,
    PortMapping,
    SandboxConfig,
    SecurityConfig,
)

__all__ = ["container_config", "expand", "pod_dir", "pod_labels", "sandbox_config"]

_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")
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


def expand(text: str, env: Mapping[str, str]) -> str:
    """Kubernetes' ``$(VAR)`` expansion (``third_party/forked/golang/expansion``)."""
    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$"
        return env.get(m.group(1), m.group(0))
    return _REF.sub(sub, text)


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
        "status.podIP": pod_ip,
    }
    if path in simple:
        value = simple[path]
        return "" if value is None else str(value)
    m = _MAP_FIELD.match(path)
    if m:
        return str((meta.get(m.group(1)) or {}).get(m.group(2), ""))
    return None


def _env(pod: Mapping[str, Any], c: Mapping[str, Any], host_ip: str,
         pod_ip: str) -> tuple[tuple[str, str], ...]:
    values: dict[str, str] = {}
    out: list[tuple[str, str]] = []
    for var in c.get("env") or []:
        name = str(var.get("name", ""))
        if "valueFrom" in var:
            ref = (var.get("valueFrom") or {}).get("fieldRef")
            value = _field_ref(pod, str(ref.get("fieldPath", "")), host_ip, pod_ip) \
                if isinstance(ref, Mapping) else None
            if value is None:
                continue  # a source we cannot resolve yet (ConfigMap, Secret, ...)
        else:
            value = expand(str(var.get("value", "")), values)
        values[name] = value
        out.append((name, value))
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
                     restart_count: int, host_ip: str, pod_ip: str,
                     state_dir: Path) -> ContainerConfig:
    """The runtime config for container spec ``c`` of ``pod``."""
    env = _env(pod, c, host_ip, pod_ip)
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


def sandbox_config(pod: Mapping[str, Any], node: str) -> SandboxConfig:
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    ports = tuple(p for c in spec.get("containers") or [] for p in _ports(c) if p.host_port)
    return SandboxConfig(
        uid=str(meta.get("uid", "")), namespace=str(meta.get("namespace", "")),
        name=str(meta.get("name", "")), node=node,
        labels={**(meta.get("labels") or {}), **pod_labels(pod, node)},
        hostname=str(spec.get("hostname") or meta.get("name", "")), port_mappings=ports)
