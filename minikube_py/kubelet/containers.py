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

  - ``valueFrom.configMapKeyRef`` / ``secretKeyRef`` and ``envFrom`` (with
    ``prefix``), read through the API (:mod:`.envsources`); a missing
    reference that is not ``optional`` raises :class:`~.sources.ConfigError`.

  The Services' variables (:mod:`.envvars`) can be referred
  to and follow the declared ones unless overridden. ``command`` and
  ``args`` are expanded against the result.
* Resources: CPU request and limit in millicores, memory limit in bytes.
* Volumes: ``hostPath`` mounts its path; ``emptyDir`` a directory
  ``<state_dir>/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>``;
  ``configMap``, ``secret``, ``downwardAPI`` and ``projected`` their
  directory written by :mod:`.volumes`, always read-only. ``subPath`` /
  ``subPathExpr`` mount a path inside the volume (of API data: the file as
  it is when the container starts). Validation refuses every other type.
  ``mountPropagation`` (``HostToContainer``, ``Bidirectional``) becomes the
  mount's ``rslave`` / ``rshared`` propagation. An ``emptyDir`` is 0777, as
  the kubelet makes it, inside the pod's 0700 directory.
* Sandbox: labels, hostname, host ports, the node's ``cgroup_parent`` and
  the pod's DNS settings (:mod:`.dns`).
"""

from __future__ import annotations

import os
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
    PROPAGATION_BIDIRECTIONAL,
    PROPAGATION_HOST_TO_CONTAINER,
    PROPAGATION_PRIVATE,
    ContainerConfig,
    DNSConfig,
    Mount,
    PortMapping,
    SandboxConfig,
    SecurityConfig,
)
from .envsources import Warn, expand, make_environment
from .sources import ObjectSource, SourceData
from .volumes import data_volume_dir, ensure_pod_dir

__all__ = ["container_config", "expand", "pod_dir", "pod_labels", "sandbox_config"]


#: ``mountPropagation`` -> the runtime's propagation (``None`` is private).
_PROPAGATION = {"HostToContainer": PROPAGATION_HOST_TO_CONTAINER,
                "Bidirectional": PROPAGATION_BIDIRECTIONAL}


class _NoSources:
    """No ConfigMaps or Secrets (callers that never refer to them)."""

    def get(self, kind: str, namespace: str, name: str) -> SourceData | None:
        return None


_NO_SOURCES = _NoSources()


def pod_labels(pod: Mapping[str, Any], node: str) -> dict[str, str]:
    """The labels that tie runtime objects to a pod on a node."""
    meta = pod.get("metadata") or {}
    return {LABEL_POD_UID: str(meta.get("uid", "")),
            LABEL_NAMESPACE: str(meta.get("namespace", "")),
            LABEL_NAME: str(meta.get("name", "")),
            LABEL_NODE: node}


def pod_dir(state_dir: Path, uid: str) -> Path:
    return state_dir / "pods" / uid


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


def _mounts(pod: Mapping[str, Any], c: Mapping[str, Any], state_dir: Path,
            env: Mapping[str, str]) -> tuple[Mount, ...]:
    spec = pod.get("spec") or {}
    uid = str((pod.get("metadata") or {}).get("uid", ""))
    volumes = {str(v.get("name")): v for v in spec.get("volumes") or []}
    out: list[Mount] = []
    for vm in c.get("volumeMounts") or []:
        vol = volumes.get(str(vm.get("name")))
        if vol is None:
            continue  # validation refuses a mount of an undeclared volume
        read_only = bool(vm.get("readOnly", False))
        sub_path = expand(str(vm.get("subPathExpr") or ""), env) if vm.get("subPathExpr") \
            else str(vm.get("subPath") or "")
        data_dir = data_volume_dir(os.path.join(state_dir, "pods", uid), vol)
        if data_dir is not None and "hostPath" not in vol and "emptyDir" not in vol:
            # API data is always mounted read-only (Kubernetes' ReadOnlyAPIDataVolumes).
            # A subPath mount is of the file itself, through ..data as it is now:
            # it does not follow later updates of the ConfigMap or Secret.
            out.append(Mount(os.path.realpath(os.path.join(data_dir, sub_path)) if sub_path
                             else data_dir, str(vm.get("mountPath", "")), True,
                             _PROPAGATION.get(str(vm.get("mountPropagation") or ""),
                                              PROPAGATION_PRIVATE)))
            continue
        if "hostPath" in vol:
            root = Path(str((vol.get("hostPath") or {}).get("path", "")))
        elif "emptyDir" in vol:
            ensure_pod_dir(pod_dir(state_dir, uid))
            root = pod_dir(state_dir, uid) / "volumes" / "kubernetes.io~empty-dir" / vol["name"]
            if not root.is_dir():
                root.mkdir(parents=True, exist_ok=True)
                # Writable by any user the container runs as, as the kubelet's 0777.
                root.chmod(0o777)
        else:  # validation refuses every other volume type
            raise ValueError(f'volume "{vol.get("name")}" has a type this kubelet cannot mount')
        source = root
        if sub_path:
            source = root / sub_path
            if not source.exists():
                source.mkdir(parents=True, exist_ok=True)  # as the kubelet does
        out.append(Mount(str(source), str(vm.get("mountPath", "")), read_only,
                         _PROPAGATION.get(str(vm.get("mountPropagation") or ""),
                                          PROPAGATION_PRIVATE)))
    return tuple(out)


def container_config(pod: Mapping[str, Any], c: Mapping[str, Any], *, node: str, init: bool,
                     restart_count: int, host_ip: str, pod_ip: str, state_dir: Path,
                     allocatable: tuple[int, int] = (0, 0),
                     service_env: Mapping[str, str] | None = None,
                     sources: ObjectSource | None = None,
                     warn: Warn | None = None) -> ContainerConfig:
    """The runtime config for container spec ``c`` of ``pod``; ``allocatable``
    is the node's ``(cpu millicores, memory bytes)`` (downward-API defaults),
    ``service_env`` the Services' variables (:mod:`.envvars`), ``sources``
    where ConfigMaps and Secrets are read. Raises
    :class:`~.sources.ConfigError` for a reference that cannot be resolved
    (the container waits in ``CreateContainerConfigError``)."""
    env = make_environment(pod, c, sources=sources or _NO_SOURCES, host_ip=host_ip,
                           pod_ip=pod_ip, allocatable=allocatable,
                           service_env=service_env or {}, warn=warn)
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
        mounts=_mounts(pod, c, state_dir, values), security=_security(pod.get("spec") or {}, c),
        labels=labels, init=init, stdin=bool(c.get("stdin")),
        stdin_once=bool(c.get("stdinOnce")), tty=bool(c.get("tty")))


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
