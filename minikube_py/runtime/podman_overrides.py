"""Final container states that Podman does not keep, kept on disk.

Podman leaves a container whose start failed in state "created", and a
container stopped before it ever started too; the runtime contract wants
both reported as exited (``ContainerCannotRun`` with the error, or
``Completed``). :class:`Overrides` remembers those outcomes, one small JSON
file per container id under the runtime's state directory, so that a
restarted control plane still reports them. Thread-safe.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from pathlib import Path
from typing import Any

__all__ = ["Overrides"]

_ID = re.compile(r"^[0-9a-f]{12,64}$")


class Overrides:
    """``container id -> {exit_code, reason, message, finished_at}``."""

    def __init__(self, directory: Path) -> None:
        self._dir = directory
        self._lock = threading.Lock()
        self._cache: dict[str, dict[str, Any]] | None = None

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._cache is None:
            self._cache = {}
            try:
                names = os.listdir(self._dir)
            except FileNotFoundError:
                names = []
            for name in names:
                cid = name.removesuffix(".json")
                if not _ID.match(cid):
                    continue
                try:
                    value = json.loads((self._dir / name).read_text())
                except (OSError, ValueError):
                    continue
                if isinstance(value, dict):
                    self._cache[cid] = value
        return self._cache

    def get(self, container_id: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._load().get(container_id)
            return dict(found) if found is not None else None

    def set(self, container_id: str, value: dict[str, Any]) -> None:
        if not _ID.match(container_id):
            raise ValueError(f"not a container id: {container_id!r}")
        with self._lock:
            self._load()[container_id] = dict(value)
            self._dir.mkdir(parents=True, exist_ok=True)
            tmp = self._dir / f".{container_id}.tmp"
            tmp.write_text(json.dumps(value, sort_keys=True))
            os.replace(tmp, self._dir / f"{container_id}.json")

    def drop(self, container_id: str) -> None:
        with self._lock:
            if self._load().pop(container_id, None) is None:
                return
            with contextlib.suppress(FileNotFoundError):
                (self._dir / f"{container_id}.json").unlink()
