"""ConfigMaps and Secrets as the kubelet reads them, and the error a missing
reference is.

The kubelet reads the objects a pod refers to through the API (a
:class:`~minikube_py.client.base.Client` GET each time a container is built
and each time a volume is refreshed: Kubernetes' "Get" change-detection
strategy, always current, never stale), never from the store.

* :class:`SourceData` is one object's content as the kubelet uses it:
  ``strings`` is what environment variables see (a ConfigMap's ``data``; a
  Secret's ``data`` decoded from base64, as Go's ``string([]byte)``) and
  :meth:`SourceData.files` what a volume writes (a ConfigMap's ``data`` and
  ``binaryData``, a Secret's ``data``, as bytes).
* :class:`ObjectSource` is the seam: ``get(kind, namespace, name)`` returns
  ``None`` for an object that does not exist (Kubernetes' NotFound, also what
  an API without that kind answers); other API errors propagate, and the
  pod's sync is retried.
* :class:`ConfigError` carries Kubernetes' message for a reference that
  cannot be resolved now (``configmap "app-config" not found``, ``couldn't
  find key LOG_LEVEL in ConfigMap default/app-config``): a container waits in
  ``CreateContainerConfigError``, a volume fails its ``MountVolume.SetUp``,
  and both are retried until the object appears.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from ..api.errors import NotFound
from ..client.base import Client

__all__ = ["CONFIGMAP", "SECRET", "ClientSources", "ConfigError", "ObjectSource",
           "SourceData", "not_found"]

#: The kinds a pod may take configuration from, named as the kubelet's
#: managers name them in errors (``corev1.Resource("configmap")``).
CONFIGMAP: Final = "configmap"
SECRET: Final = "secret"
_PLURALS: Final = {CONFIGMAP: "configmaps", SECRET: "secrets"}


class ConfigError(Exception):
    """A reference the kubelet cannot resolve now; ``str()`` is Kubernetes' message."""


def not_found(kind: str, name: str) -> ConfigError:
    """``apierrors.NewNotFound(corev1.Resource(kind), name)`` as the kubelet reports it."""
    return ConfigError(f'{kind} "{name}" not found')


@dataclass(frozen=True)
class SourceData:
    """One ConfigMap's or Secret's content (see the module contract)."""

    kind: str
    namespace: str
    name: str
    strings: Mapping[str, str] = field(default_factory=dict)
    binary: Mapping[str, bytes] = field(default_factory=dict)

    def files(self) -> dict[str, bytes]:
        """Every key as a volume writes it: ``data`` first, then ``binaryData``
        (a key is in one of them only: the API refuses duplicates)."""
        out = {k: v.encode() for k, v in self.strings.items()}
        out.update(self.binary)
        return out

    @classmethod
    def from_object(cls, kind: str, obj: Mapping[str, Any]) -> SourceData:
        meta = obj.get("metadata") or {}
        namespace, name = str(meta.get("namespace") or ""), str(meta.get("name") or "")
        if kind == SECRET:
            binary = {str(k): _decode(v) for k, v in (obj.get("data") or {}).items()}
            # Go's string([]byte): the bytes as they are; invalid UTF-8 cannot
            # cross to the runtime as text, so it becomes U+FFFD.
            strings = {k: v.decode("utf-8", "replace") for k, v in binary.items()}
            return cls(kind, namespace, name, strings, binary)
        strings = {str(k): str(v) for k, v in (obj.get("data") or {}).items()}
        binary = {str(k): _decode(v) for k, v in (obj.get("binaryData") or {}).items()}
        return cls(kind, namespace, name, strings, binary)


def _decode(value: Any) -> bytes:
    try:
        return base64.b64decode(str(value or ""), validate=True)
    except (binascii.Error, ValueError):
        # The API server only stores valid base64; never crash a sync on a bad value.
        return b""


class ObjectSource(Protocol):
    """Where ConfigMaps and Secrets come from (the API, or a test's table)."""

    def get(self, kind: str, namespace: str, name: str) -> SourceData | None:
        """The object, or ``None`` when it does not exist."""
        ...


class ClientSources:
    """:class:`ObjectSource` over the API: one GET per call, nothing cached.
    What a GET returns is only read (copied into :class:`SourceData`), so the
    client may be one that hands out shared read-only copies."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def get(self, kind: str, namespace: str, name: str) -> SourceData | None:
        try:
            obj = self.client.get(_PLURALS[kind], namespace, name)
        except NotFound:
            return None
        return SourceData.from_object(kind, obj)
