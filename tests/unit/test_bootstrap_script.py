"""The system-package bootstrap behind `make run` / `make test`: quiet when all is
there, and a clear message naming what is missing when it may not install."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ensure-system-packages.sh"


def run(env_path: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": env_path, **extra}
    return subprocess.run(["/bin/bash", str(SCRIPT)], capture_output=True, text=True,
                          env=env, timeout=60, check=False)


def test_nothing_to_do_on_a_machine_that_has_everything():
    # make test has just run the bootstrap, so this machine has every package.
    result = run(os.environ["PATH"], MINIKUBE_PY_NO_INSTALL="1")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_missing_packages_are_named_when_it_may_not_install(tmp_path: Path):
    # A PATH with the basic tools but without podman or runc (catatonit may still be
    # found at its absolute libexec path, so it is not asserted on).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("python3", "id", "cat"):
        found = shutil.which(tool)
        assert found
        (bin_dir / tool).symlink_to(found)
    result = run(str(bin_dir), MINIKUBE_PY_NO_INSTALL="1")
    assert result.returncode == 1
    assert "minikube-py needs these system packages, which are missing:" in result.stderr
    for package in ("podman", "runc"):
        assert package in result.stderr
    assert "apt-get install" in result.stderr
