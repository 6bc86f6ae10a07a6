"""The python-client image on the real Podman: built from the host's Debian
packages (or found current), and its python3 imports Debian's official client.

Run the way this host's pods are run: with the OCI runtime and ulimits the
session's host check chose (runc, nofile at the process's hard limit, ...)."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from minikube_py.runtime.image_pyclient import (
    PYCLIENT_REPO,
    ROOT_PACKAGE,
    ensure_python_client_image,
    image_tag,
    package_closure,
)
from minikube_py.runtime.images import SOURCE_LABEL
from minikube_py.runtime.podman_service import HostCheck

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


def podman_run(host: HostCheck, *argv: str) -> subprocess.CompletedProcess[str]:
    podman = shutil.which("podman")
    assert podman is not None
    engine = [] if host.oci_runtime is None else ["--runtime", host.oci_runtime]
    limits = [f"--ulimit={name}={soft}:{hard}" for name, (soft, hard) in host.ulimits.items()]
    return subprocess.run([podman, *engine, "run", "--rm", *limits, *argv],
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_image_is_built_once_and_runs_debians_client(podman_host: HostCheck):
    ensure_python_client_image()
    started = time.monotonic()
    assert ensure_python_client_image() == []  # current: nothing to do
    assert time.monotonic() - started < 5

    root = next(p for p in package_closure() if p.name == ROOT_PACKAGE)
    versioned = f"{PYCLIENT_REPO}:{image_tag(root.version)}"
    inspect = subprocess.run(["podman", "image", "inspect", "--format",
                              f'{{{{.Id}}}} {{{{index .Labels "{SOURCE_LABEL}"}}}}',
                              versioned, f"{PYCLIENT_REPO}:latest"],
                             capture_output=True, text=True, timeout=30, check=True)
    versioned_id, latest_id = inspect.stdout.splitlines()
    assert versioned_id == latest_id
    assert " sha256:" in versioned_id

    done = podman_run(podman_host, f"{PYCLIENT_REPO}:latest", "python3", "-c",
                      "import kubernetes, sys; print(kubernetes.__version__)")
    assert done.returncode == 0, done.stderr
    # Debian's version 22.6.0-2 packages the client 22.6.0
    assert done.stdout.strip() == root.version.rsplit("-", 1)[0].split(":")[-1]

    # A shell for `sh -c` commands, and the script pods run by default.
    done = podman_run(podman_host, f"{PYCLIENT_REPO}:latest", "sh", "-c",
                      "test -f /list_pods.py && echo $PATH && ls -d /tmp")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["/usr/local/bin:/usr/bin:/bin", "/tmp"]


def test_list_pods_outside_a_cluster_fails_on_in_cluster_config(podman_host: HostCheck):
    ensure_python_client_image()
    done = podman_run(podman_host, f"{PYCLIENT_REPO}:latest")
    assert done.returncode == 1
    assert "Service host/port is not set" in done.stderr
