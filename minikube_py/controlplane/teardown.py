"""Removing a cluster from this host: ``minikube-py teardown`` (as ``minikube delete``).

What a cluster leaves on the host outlives its daemon on purpose (pods keep
running and keep reaching Services while the daemon restarts), so taking a
cluster away is a verb of its own. In order:

1. refuse while a daemon owns the state directory (its lock);
2. remove every Podman pod labelled with the cluster's id (through the
   cluster's own Podman service, started for the purpose, or ``--podman-socket``);
3. remove the cluster's pod network;
4. remove its nftables table (the Service rules);
5. unless ``keep_state``, remove the state directory itself.

Each step says what it removed; a step with nothing to do is fine, so
teardown can be run again after a partial failure. A daemon started later on
a removed state directory begins a new, empty cluster.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

from ..network.proxy import Nft, NftError
from ..runtime.podman import PodmanRuntime
from ..runtime.podman_service import PodmanService
from ..store.lockfile import DirLock
from .networking import table_name

__all__ = ["teardown"]

log = logging.getLogger(__name__)


def teardown(state_dir: Path, *, keep_state: bool = False, podman_socket: str | None = None,
             say: Callable[[str], None] = print, nft: Nft | None = None) -> None:
    """Remove the cluster of ``state_dir`` from this host (module docstring).

    Raises :class:`~minikube_py.store.lockfile.StateDirLocked` while a daemon
    runs there, and ``FileNotFoundError`` when there is no cluster.
    """
    id_file = state_dir / "cluster-id"
    if not id_file.is_file():
        raise FileNotFoundError(f"no minikube-py cluster in {state_dir} (no cluster-id file)")
    cluster = id_file.read_text().strip()
    lock = DirLock(state_dir)  # raises StateDirLocked while a daemon runs
    try:
        service = PodmanService(state_dir, socket=podman_socket)
        try:
            runtime = PodmanRuntime(service.start(), state_dir=state_dir, cluster=cluster)
            try:
                sandboxes = runtime.list_sandboxes()
                for sandbox in sandboxes:
                    runtime.remove_sandbox(sandbox.id)
                say(f"removed {len(sandboxes)} pod(s) of cluster {cluster}")
                if runtime.detach_network():
                    say(f"removed the pod network of cluster {cluster}")
            finally:
                runtime.close()
        finally:
            service.stop()
        nft = nft or Nft()
        if nft.available() is None:
            try:
                if any(t.name == table_name(cluster) for t in nft.list_tables(table_name(cluster))):
                    nft.delete_table(table_name(cluster))
                    say(f"removed the Service rules (nftables table ip {table_name(cluster)})")
            except NftError as exc:
                raise RuntimeError(f"cannot remove table {table_name(cluster)}: {exc}") from None
    finally:
        lock.release()
    if not keep_state:
        shutil.rmtree(state_dir)
        say(f"removed {state_dir}")
