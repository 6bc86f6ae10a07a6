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

Secrets are files on disk here (Kubernetes puts them on a tmpfs): the
pod's directory ``<state_dir>/pods/<uid>`` and ``<state_dir>/pods`` are
0700, so only the daemon's user (and root) can reach them on the host; the
timestamped directory inside is 0755 and each file has its ``mode``, for
the container's users. The directory goes when the pod is removed.

Hollow nodes (``files=False``: the fake runtime, whose containers read
nothing) build every payload just the same, with the same failures and
events, but write no files: the manager only remembers which volumes are
set up. A thousand pods' token volumes on disk would be most of a hollow
node's work (and its system calls) for files nobody reads.

A volume whose payload cannot be built (a missing object or key that is not
``optional``, a token that cannot be had) fails its set-up with the
plugin's message (the kubelet reports ``FailedMount``) and is retried; the
containers of a pod with such a volume are not started until it is set up.
A volume set up before keeps its last content when a refresh fails (its
ConfigMap was deleted, say), and the pod goes on running as in Kubernetes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from .atomic_writer import DATA_DIR, AtomicWriter
from .sources import ConfigError, ObjectSource
from .tokens import TokenCache
from .volume_payloads import volume_payload

__all__ = ["PLUGIN_DIRS", "VolumeManager", "data_volume_dir", "ensure_pod_dir"]

#: Volume source -> the plugin directory Kubernetes names it by.
PLUGIN_DIRS: Final = {"configMap": "kubernetes.io~configmap",
                      "secret": "kubernetes.io~secret",
                      "downwardAPI": "kubernetes.io~downward-api",
                      "projected": "kubernetes.io~projected"}


def data_volume_dir(pod_root: str, volume: Mapping[str, Any]) -> str | None:
    """Where an API-data volume lives under the pod's directory; None for
    other volume types. Text, not a Path: every container start of every
    hollow pod asks, and three Path joins cost more than the rest of its
    mounts."""
    plugin = _plugin_dir(volume)
    if plugin is None:
        return None
    return os.path.join(pod_root, "volumes", plugin, str(volume.get("name", "")))


def _plugin_dir(volume: Mapping[str, Any]) -> str | None:
    for source, plugin in PLUGIN_DIRS.items():
        if isinstance(volume.get(source), Mapping):
            return plugin
    return None


def ensure_pod_dir(pod_root: Path) -> None:
    """Create ``<state_dir>/pods/<uid>`` and its parent, both 0700 (whatever
    the umask, and also when an older run left them wider)."""
    for d in (pod_root.parent, pod_root):
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        if d.stat().st_mode & 0o777 != 0o700:
            d.chmod(0o700)


class VolumeManager:
    """Sets up and refreshes one node's API-data volumes (module contract)."""

    def __init__(self, sources: ObjectSource, tokens: TokenCache, *,
                 allocatable: tuple[int, int] = (0, 0), files: bool = True) -> None:
        self.sources = sources
        self.tokens = tokens
        self.allocatable = allocatable
        self.files = files
        #: Without files: pod uid -> the names of its volumes set up.
        self._set_up: dict[str, set[str]] = {}
        # The atomic writer wants one writer per directory: pods sync on several
        # workers, but a pod never on two at once; this guards the rare overlap
        # of a pod's resync with a removal.
        self._lock = threading.Lock()

    def set_up(self, pod: Mapping[str, Any],
               pod_root: Callable[[], Path]) -> list[tuple[str, str, bool]]:
        """Write every API-data volume of ``pod`` under the directory
        ``pod_root()`` gives (asked only when files are written); ``(volume, message,
        mounted)`` of those that failed (empty: all ready). ``mounted``: the
        volume was set up before and keeps its last content (a refresh that
        failed: the pod goes on, as Kubernetes' mounted volumes stay
        mounted); otherwise the pod's containers cannot start yet."""
        failures: list[tuple[str, str, bool]] = []
        uid = str((pod.get("metadata") or {}).get("uid", ""))
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            plugin = _plugin_dir(volume)
            if plugin is None:
                continue
            name = str(volume.get("name", ""))
            # Paths only where files are written: a hollow node's pod resyncs
            # every few minutes, 100,000 of them, and paths cost more than the
            # payload's own checks.
            target: Path | None = None
            if self.files:
                root = pod_root()
                ensure_pod_dir(root)
                target = root / "volumes" / plugin / name
            try:
                payload = volume_payload(pod, volume, sources=self.sources, tokens=self.tokens,
                                         allocatable=self.allocatable)
                with self._lock:
                    if target is not None:
                        target.mkdir(parents=True, exist_ok=True, mode=0o750)
                        AtomicWriter(target).write(payload)
                    else:
                        self._set_up.setdefault(uid, set()).add(name)
            except (ConfigError, ValueError, OSError) as exc:
                mounted = ((target / DATA_DIR).is_symlink() if target is not None
                           else name in self._set_up.get(uid, ()))
                failures.append((name, str(exc), mounted))
        return failures

    def forget(self, uid: str) -> None:
        """The pod is gone: drop its cached tokens (its directory goes with it)."""
        self.tokens.forget(uid)
        with self._lock:
            self._set_up.pop(uid, None)
