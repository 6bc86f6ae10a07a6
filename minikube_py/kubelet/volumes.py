"""The pod's API-data volumes on this node: ``configMap``, ``secret``,
``downwardAPI`` and ``projected`` (the kubelet's volume manager, for the
volume plugins that write files; pkg/volume/configmap, secret, downwardapi,
projected).

Each such volume is a directory
``<state_dir>/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>`` written by
the atomic writer (:mod:`.atomic_writer`): the files in a timestamped
directory, ``..data`` pointing at it, one symlink per visible entry. At
every sync of the pod (:meth:`VolumeManager.set_up`) the payload is built
again from the API (:mod:`.volume_payloads`) and swapped in atomically when
it changed, so a mounted ConfigMap or Secret follows its edits within the
kubelet's sync period; a ``subPath`` mount is bound to the file itself when
the container starts and so does not follow them, as in Kubernetes.

A volume whose payload cannot be built (a missing object or key that is not
``optional``, a token that cannot be had) fails its set-up with the
plugin's message; the containers of a pod with such a volume are not
started (the kubelet reports ``FailedMount``) and the pod is retried.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from .atomic_writer import AtomicWriter
from .sources import ConfigError, ObjectSource
from .tokens import TokenCache
from .volume_payloads import volume_payload

__all__ = ["PLUGIN_DIRS", "VolumeManager", "data_volume_dir"]

#: Volume source -> the plugin directory Kubernetes names it by.
PLUGIN_DIRS: Final = {"configMap": "kubernetes.io~configmap",
                      "secret": "kubernetes.io~secret",
                      "downwardAPI": "kubernetes.io~downward-api",
                      "projected": "kubernetes.io~projected"}


def data_volume_dir(pod_root: Path, volume: Mapping[str, Any]) -> Path | None:
    """Where an API-data volume lives under the pod's directory; None for
    other volume types."""
    for source, plugin in PLUGIN_DIRS.items():
        if isinstance(volume.get(source), Mapping):
            return pod_root / "volumes" / plugin / str(volume.get("name", ""))
    return None


class VolumeManager:
    """Sets up and refreshes one node's API-data volumes (module contract)."""

    def __init__(self, sources: ObjectSource, tokens: TokenCache, *,
                 allocatable: tuple[int, int] = (0, 0)) -> None:
        self.sources = sources
        self.tokens = tokens
        self.allocatable = allocatable
        # The atomic writer wants one writer per directory: pods sync on several
        # workers, but a pod never on two at once; this guards the rare overlap
        # of a pod's resync with a removal.
        self._lock = threading.Lock()

    def set_up(self, pod: Mapping[str, Any], pod_root: Path) -> list[tuple[str, str]]:
        """Write every API-data volume of ``pod``; ``(volume, message)`` of
        those that failed (empty: all ready)."""
        failures: list[tuple[str, str]] = []
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            target = data_volume_dir(pod_root, volume)
            if target is None:
                continue
            try:
                payload = volume_payload(pod, volume, sources=self.sources, tokens=self.tokens,
                                         allocatable=self.allocatable)
                with self._lock:
                    target.mkdir(parents=True, exist_ok=True, mode=0o750)
                    AtomicWriter(target).write(payload)
            except (ConfigError, ValueError, OSError) as exc:
                failures.append((str(volume.get("name", "")), str(exc)))
        return failures

    def forget(self, uid: str) -> None:
        """The pod is gone: drop its cached tokens (its directory goes with it)."""
        self.tokens.forget(uid)
