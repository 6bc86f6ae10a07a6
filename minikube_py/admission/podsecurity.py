"""Pod security admission: what a pod may ask of the host.

Pods run as real containers on the user's machine, so the dangerous asks are
refused unless the daemon was started to allow them, in the spirit of
Kubernetes' PodSecurity "baseline" level:

* ``securityContext.privileged: true`` (containers and init containers) —
  allowed only with ``--allow-privileged``;
* ``hostPath`` volumes — allowed only with ``--allow-host-paths``;
* ``hostNetwork``, ``hostPID``, ``hostIPC`` — not supported by minikube-py's
  runtime, always refused (clearly, instead of being silently ignored).

Volume types the kubelet cannot provide at all (``persistentVolumeClaim``,
``nfs``, ``csi``, ...) are refused earlier, by validation
(:mod:`minikube_py.api.validation_volumes`), for pod templates too.

Checked when a pod is created; violations are all listed in one ``Forbidden``
error that says how to allow what can be allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..api.errors import Forbidden


@dataclass(frozen=True, slots=True)
class SecurityPolicy:
    allow_privileged: bool = False
    allow_host_paths: bool = False


def violations(pod: Mapping[str, Any], policy: SecurityPolicy) -> list[str]:
    """Human-readable violations of ``policy`` by ``pod`` (empty: admitted)."""
    spec = pod.get("spec") or {}
    found: list[str] = []
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(field):
            found.append(f"{field}=true (not supported by minikube-py)")
    if not policy.allow_privileged:
        for kind in ("initContainers", "containers", "ephemeralContainers"):
            for c in spec.get(kind) or []:
                if ((c or {}).get("securityContext") or {}).get("privileged"):
                    found.append(f'privileged (container "{c.get("name")}" must not set '
                                 "securityContext.privileged=true; start the daemon with "
                                 "--allow-privileged to allow it)")
    if not policy.allow_host_paths:
        for v in spec.get("volumes") or []:
            if (v or {}).get("hostPath") is not None:
                found.append(f'hostPath volumes (volume "{v.get("name")}"; start the daemon '
                             "with --allow-host-paths to allow them)")
    return found


def admit(pod: Mapping[str, Any], policy: SecurityPolicy) -> None:
    """Raise Forbidden listing every violation, as Kubernetes' PodSecurity does."""
    found = violations(pod, policy)
    if found:
        name = (pod.get("metadata") or {}).get("name") or \
            (pod.get("metadata") or {}).get("generateName", "")
        raise Forbidden(f'pods "{name}" is forbidden: ' + ", ".join(found),
                        details={"name": name, "kind": "pods"})
