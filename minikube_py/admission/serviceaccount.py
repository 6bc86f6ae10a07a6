"""Kubernetes' ``ServiceAccount`` admission plugin, for pods
(``plugin/pkg/admission/serviceaccount``, v1.32).

On **create** of a pod (mutating, before ``Priority`` as in Kubernetes' order):

1. The deprecated ``spec.serviceAccount`` fills an empty ``serviceAccountName``
   (the v1 conversion); still empty: ``default``.
2. The ServiceAccount must exist. A miss is looked up again, live: up to ten
   times 100-200 ms apart for ``default`` (its controller creates it moments
   after the namespace), once for others; then the pod is ``Forbidden``:
   ``pods "web" is forbidden: error looking up service account ns/sa:
   serviceaccount "sa" not found``. A missing or terminating namespace is
   reported as ``NamespaceLifecycle`` reports it (that plugin runs first in
   Kubernetes), without retrying.
3. Unless the token is not to be mounted (the plugin's switch off; else the
   pod's ``automountServiceAccountToken`` wins over the account's; default
   true), every init container and container that mounts nothing at
   :data:`TOKEN_MOUNT_PATH` gets a read-only mount of the projected volume
   ``kube-api-access-<5 chars>`` (token 3607 s, ``kube-root-ca.crt``'s
   ``ca.crt``, the namespace; ``defaultMode`` 420), which is added to the pod
   when some container needs it; a volume already named ``kube-api-access-*``
   is reused instead.
4. A pod without ``imagePullSecrets`` gets the account's.
5. ``spec.serviceAccount`` mirrors ``serviceAccountName`` (what the v1
   conversion writes back).

On **update** only the conversion (1 without the default, and 5) applies, so
a body without the deprecated field keeps matching the stored pod;
``serviceAccountName`` itself is immutable (pod update validation).

Mirror (static) pods are out of scope: they are left as they come.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..api import kinds
from ..api.errors import Forbidden, NotFound
from ..api.randomness import name_suffix
from . import namespaces
from .storage import Object, Storage

__all__ = ["DEFAULT_SERVICE_ACCOUNT", "TOKEN_MOUNT_PATH", "VOLUME_PREFIX",
           "ServiceAccountAdmission", "token_volume_source"]

PODS: Final = "pods"
SERVICE_ACCOUNTS: Final = "serviceaccounts"
DEFAULT_SERVICE_ACCOUNT: Final = "default"
#: ``DefaultAPITokenMountPath``.
TOKEN_MOUNT_PATH: Final = "/var/run/secrets/kubernetes.io/serviceaccount"
#: ``ServiceAccountVolumeName``: the volume is this plus ``-`` and 5 characters.
VOLUME_PREFIX: Final = "kube-api-access"
#: ``serviceaccount.WarnOnlyBoundTokenExpirationSeconds`` (1 h + 7 s).
TOKEN_EXPIRATION_SECONDS: Final = 3607
ROOT_CA_CONFIGMAP: Final = "kube-root-ca.crt"
MIRROR_ANNOTATION: Final = "kubernetes.io/config.mirror"
#: Live look-ups of the ``default`` account before giving up (Kubernetes: 10).
DEFAULT_ATTEMPTS: Final = 10


def _retry_interval() -> float:
    """``rand.Int63n(100)+100`` ms, drawn once per look-up as in Kubernetes."""
    return (100 + random.randrange(100)) / 1000.0  # jitter, not a secret


def token_volume_source() -> dict[str, Any]:
    """``TokenVolumeSource()``: the projected source of ``kube-api-access-*``
    (``defaultMode`` set explicitly: admission runs after defaulting)."""
    return {"defaultMode": 0o644, "sources": [
        {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS,
                                 "path": "token"}},
        {"configMap": {"name": ROOT_CA_CONFIGMAP,
                       "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
                                    "fieldRef": {"apiVersion": "v1",
                                                 "fieldPath": "metadata.namespace"}}]}},
    ]}


def convert_deprecated(spec: dict[str, Any]) -> None:
    """The v1 conversion of the two names: ``serviceAccount`` fills an empty
    ``serviceAccountName``, then mirrors it (dropped when there is none)."""
    if not spec.get("serviceAccountName") and spec.get("serviceAccount"):
        spec["serviceAccountName"] = spec["serviceAccount"]
    if spec.get("serviceAccountName"):
        spec["serviceAccount"] = spec["serviceAccountName"]
    else:
        spec.pop("serviceAccount", None)


def should_automount(sa: Mapping[str, Any], spec: Mapping[str, Any]) -> bool:
    """``shouldAutomount``: the pod's preference, then the account's, then true."""
    for choice in (spec.get("automountServiceAccountToken"),
                   sa.get("automountServiceAccountToken")):
        if isinstance(choice, bool):
            return choice
    return True


def mount_token(spec: dict[str, Any], new_name: Callable[[], str]) -> None:
    """``mountServiceAccountToken``: mount the token volume into every
    container not already mounting something at :data:`TOKEN_MOUNT_PATH`."""
    volumes = [v for v in spec.get("volumes") or [] if isinstance(v, dict)]
    existing = next((str(v.get("name")) for v in volumes
                     if str(v.get("name") or "").startswith(VOLUME_PREFIX + "-")), None)
    volume_name = existing or new_name()
    needed = False
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if not isinstance(container, dict):
                continue
            mounts = container.get("volumeMounts")
            if not isinstance(mounts, list):
                mounts = container["volumeMounts"] = []
            if any(isinstance(m, Mapping) and m.get("mountPath") == TOKEN_MOUNT_PATH
                   for m in mounts):
                continue
            mounts.append({"name": volume_name, "readOnly": True,
                           "mountPath": TOKEN_MOUNT_PATH})
            needed = True
    if needed and existing is None:
        spec["volumes"] = [*(spec.get("volumes") or []),
                           {"name": volume_name, "projected": token_volume_source()}]


@dataclass
class ServiceAccountAdmission:
    """The plugin over one storage (see the module contract).

    ``mount_token`` is Kubernetes' ``MountServiceAccountToken``; ``sleep``,
    ``interval`` and ``volume_name`` are there for tests.
    """

    storage: Storage
    mount_token: bool = True
    default_attempts: int = DEFAULT_ATTEMPTS
    sleep: Callable[[float], None] = time.sleep
    interval: Callable[[], float] = _retry_interval
    volume_name: Callable[[], str] = field(
        default=lambda: f"{VOLUME_PREFIX}-{name_suffix()}")

    def admit_create(self, pod: Object, name: str) -> None:
        """Mutate a pod being created, or raise ``Forbidden`` / the namespace's
        error; ``name`` is what errors call the pod (its generateName if unnamed)."""
        spec = pod.get("spec")
        meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
        if not isinstance(spec, dict) or not isinstance(meta, dict):
            return
        if MIRROR_ANNOTATION in (meta.get("annotations") or {}):
            return  # static pods: out of scope (Kubernetes forbids them an account)
        convert_deprecated(spec)
        account = str(spec.get("serviceAccountName") or DEFAULT_SERVICE_ACCOUNT)
        spec["serviceAccountName"] = spec["serviceAccount"] = account
        namespace = str(meta.get("namespace") or "default")
        sa = self._service_account(namespace, account, name)
        if self.mount_token and should_automount(sa, spec):
            mount_token(spec, self.volume_name)
        pull = [{"name": ref.get("name")} for ref in sa.get("imagePullSecrets") or []
                if isinstance(ref, Mapping)]
        if not spec.get("imagePullSecrets") and pull:
            spec["imagePullSecrets"] = pull

    def admit_update(self, new: Object) -> None:
        """The conversion on a pod update (module contract)."""
        spec = new.get("spec")
        if isinstance(spec, dict):
            convert_deprecated(spec)

    def _service_account(self, namespace: str, account: str, pod_name: str) -> Object:
        """``getServiceAccount``, with the namespace checked first on a miss."""
        try:
            return self.storage.get(SERVICE_ACCOUNTS, namespace, account)
        except NotFound:
            pass
        # NamespaceLifecycle runs before this plugin in Kubernetes: its errors win.
        namespaces.check_create(self.storage, kinds.by_plural(PODS), namespace, pod_name)
        attempts = self.default_attempts if account == DEFAULT_SERVICE_ACCOUNT else 1
        interval = self.interval()
        for _ in range(1, attempts):
            self.sleep(interval)
            try:
                return self.storage.get(SERVICE_ACCOUNTS, namespace, account)
            except NotFound:
                continue
        raise Forbidden.of(PODS, pod_name, f"error looking up service account "
                           f"{namespace}/{account}: serviceaccount \"{account}\" not found")
