"""Removing what a test's Podman cluster leaves on the host.

A cluster on the Podman runtime owns host objects that outlive its daemon on
purpose (pods, its pod network, its nftables table with the Service rules).
Tests remove them once their daemon is stopped, with the local ``podman`` CLI
(same storage as the daemon's service) and ``nft``: leftovers would load the
machine, use up pod subnets, and a dead cluster's node ports or load-balancer
addresses would answer in a later test's place. ``sweep`` is the safety net
at the end of the session for clusters a failed test did not release.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

from tests.e2e.conftest import Daemon, start_daemon, stop_daemon

LABEL_CLUSTER = "minikube-py.io/cluster"
TABLE_PREFIX = "minikube-py-"


def _run(*argv: str) -> str:
    result = subprocess.run(list(argv), capture_output=True, text=True, timeout=120,
                            check=False)
    return result.stdout


@contextlib.contextmanager
def podman_daemon(state: Path, *extra: str) -> Iterator[Daemon]:
    """A daemon on Podman (1 node unless ``extra`` says otherwise); afterwards
    its pods are force-deleted, it is stopped, and what it left on the host
    is released (even when stopping fails)."""
    nodes = [] if "--nodes" in extra else ["--nodes", "1"]
    d = start_daemon(state, "--runtime", "podman", *nodes, *extra)
    try:
        yield d
    finally:
        try:
            d.kubectl("delete", "pods", "--all", "--grace-period=0", "--force", check=False)
            stop_daemon(d)
        finally:
            release_cluster(state)


def release_cluster(state: Path) -> None:
    """Remove the pods, pod network and Service rules of the (stopped) cluster
    of ``state``, and end its Podman service if a killed daemon left it
    running; nothing to remove is fine."""
    _stop_own_podman_service(state)
    try:
        cluster = (state / "cluster-id").read_text().strip()
    except FileNotFoundError:
        return
    release_cluster_id(cluster)


def _stop_own_podman_service(state: Path) -> None:
    """A daemon's own Podman service outlives a SIGKILL of the daemon (its own
    session): end it, if it is alive and really is that cluster's."""
    try:
        pid = int((state / "podman" / "service.pid").read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if str(state / "podman" / "podman.sock").encode() in cmdline:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def release_cluster_id(cluster: str) -> None:
    pods = _run("podman", "pod", "ps", "-q", "--filter", f"label={LABEL_CLUSTER}={cluster}")
    if pods.split():
        # Killed first: Podman 4.3 reads a stop timeout of 0 for a pod's infra
        # container as its 10 s default, so ``pod rm -f -t 0`` waits 10 s a pod.
        _run("podman", "pod", "kill", *pods.split())
        _run("podman", "pod", "rm", "-f", *pods.split())
    _run("podman", "network", "rm", "-f", f"minikube-py-{cluster}")
    _run("nft", "delete", "table", "ip", f"{TABLE_PREFIX}{cluster}")


def sweep(under: Path) -> list[str]:
    """Release every cluster whose pod network or Service rules name a state
    directory below ``under``; returns their ids."""
    try:
        listed = json.loads(_run("nft", "-j", "list", "tables", "ip") or "{}")
    except ValueError:
        return []
    released = []
    try:
        networks = json.loads(_run("podman", "network", "ls", "--format", "json") or "[]")
    except ValueError:
        networks = []
    for network in networks:
        labels = network.get("labels") or {}
        if str(under) in labels.get("minikube-py.io/state-dir", "") and \
                labels.get(LABEL_CLUSTER):
            release_cluster_id(labels[LABEL_CLUSTER])
            released.append(labels[LABEL_CLUSTER])
    for item in listed.get("nftables", []):
        name = (item.get("table") or {}).get("name", "")
        if not name.startswith(TABLE_PREFIX):
            continue
        owner = _run("nft", "list", "chain", "ip", name, "cluster-info")
        if str(under) in owner:
            cluster = name[len(TABLE_PREFIX):]
            release_cluster_id(cluster)
            released.append(cluster)
    return released
