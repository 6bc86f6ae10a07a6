"""Running commands in a daemon's pods with the daemon's own Podman service
(``podman exec``: ``kubectl exec`` comes with issue 17)."""

from __future__ import annotations

import subprocess

from tests.e2e.conftest import Daemon


def podman(d: Daemon, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``podman <args>`` against the daemon's Podman service."""
    return subprocess.run(["podman", "--url", f"unix://{d.state}/podman/podman.sock", *args],
                          capture_output=True, text=True, timeout=120, check=check)


def app_container(d: Daemon, pod: str) -> str:
    """The name of the pod's (first) running app container."""
    cluster_id = (d.state / "cluster-id").read_text().strip()
    names = podman(d, "ps", "--format", "{{.Names}}", "--filter",
                   f"label=minikube-py.io/cluster={cluster_id}", "--filter",
                   f"label=minikube-py.io/name={pod}").stdout.split()
    app = [n for n in names if not n.endswith("-infra")]
    assert app, f"no running container of pod {pod}: {names}"
    return app[0]


def in_pod(d: Daemon, pod: str, script: str, *, check: bool = False) -> str:
    """``sh -c script`` in the pod's (first) app container; its stdout."""
    return podman(d, "exec", app_container(d, pod), "sh", "-c", script, check=check).stdout
