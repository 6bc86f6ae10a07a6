"""Pod security admission: what a pod may ask of the host.

Pods run as real containers on the user's machine, so the dangerous asks are
refused unless the daemon was started to allow them, in the spirit of
Kubernetes' PodSecurity "baseline" level:

* ``securityContext.privileged: true`` (containers and init containers) —
  allowed only with ``--allow-privileged``;
* ``hostPath`` volumes — allowed only with ``--allow-host-paths``;
* volume types the kubelet cannot provide (``persistentVolumeClaim``,
  ``nfs``, ``csi``, ...) and projections other than configMap, secret,
  downwardAPI and serviceAccountToken — always;
* ``hostNetwork``, ``hostPID``, ``hostIPC`` — not supported by minikube-py's
  runtime, always refused (clearly, instead of being silently ignored).

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


#: The volume types the kubelet honours; any other is refused, never skipped.
SUPPORTED_VOLUMES = ("configMap", "downwardAPI", "emptyDir", "hostPath", "projected", "secret")
#: The sources of a projected volume it honours.
SUPPORTED_PROJECTIONS = ("configMap", "downwardAPI", "secret", "serviceAccountToken")


def _unsupported_volume(volume: Mapping[str, Any]) -> list[str]:
    name = volume.get("name")
    kinds = [k for k in volume if k != "name"]
    found = [f'{kind} volumes (volume "{name}": minikube-py cannot provide them; supported '
             f'volume types: {", ".join(SUPPORTED_VOLUMES)})'
             for kind in kinds if kind not in SUPPORTED_VOLUMES]
    projected = volume.get("projected")
    if isinstance(projected, Mapping):
        for i, source in enumerate(projected.get("sources") or []):
            for kind in source or {}:
                if kind not in SUPPORTED_PROJECTIONS:
                    found.append(f'{kind} projections (volume "{name}", sources[{i}]: '
                                 f'supported: {", ".join(SUPPORTED_PROJECTIONS)})')
    return found


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
    for v in spec.get("volumes") or []:
        found.extend(_unsupported_volume(v or {}))
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
