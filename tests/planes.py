"""A hollow-node control plane for tests that drive it over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from minikube_py.controlplane import ControlPlane, Options


@contextmanager
def hollow_plane(state_dir: Path, **options: Any) -> Iterator[ControlPlane]:
    """A started control plane on 3 fake-runtime nodes with a free API port,
    stopped on exit; ``options`` override :class:`Options` fields."""
    cp = ControlPlane(Options(**{"state_dir": state_dir, "runtime": "fake", "nodes": 3,
                                 "port": 0, **options}))
    cp.start()
    try:
        yield cp
        # The caches' shared objects were never changed by anyone.
        assert cp.store.verify_shared() == ()
    finally:
        cp.stop()
