"""``localhost/minikube-py/python-client``: Debian's python3 with Debian's
``python3-kubernetes`` (the official client), built on the host, offline.

For pods that talk to the API the way applications do (in-cluster config).
Built from ``images/python-client/Containerfile`` (``FROM scratch``, no RUN
step): the build context's ``rootfs`` holds every file of the installed
package ``python3-kubernetes`` and of every package it depends on
(``Pre-Depends`` and ``Depends``, recursively; of alternatives the first one
installed; ``dpkg -L``; documentation, manuals and translations left out),
the static busybox as a shell, ``/etc/passwd`` and the pod script
``list_pods.py``. The packages must be installed on the host
(``scripts/ensure-system-packages.sh`` installs ``python3-kubernetes``).

Tagged ``:<python3-kubernetes version>`` and ``:latest``, labelled with a
digest of its sources (the package names and versions, the Containerfile,
the script), and rebuilt only when that digest changes:
:func:`ensure_python_client_image` is fast when the image is current. The
tests that need the image call it (``make images`` builds only busybox).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from .images import (
    HOST_BUSYBOX,
    SOURCE_LABEL,
    ImageBuildError,
    _Backend,
    _CliBackend,
    _labels,
    busybox_problem,
    default_images_dir,
)

__all__ = ["PYCLIENT_REPO", "ROOT_PACKAGE", "ensure_python_client_image", "package_closure"]

PYCLIENT_REPO: Final = "localhost/minikube-py/python-client"
ROOT_PACKAGE: Final = "python3-kubernetes"
#: What an image needs no copy of.
_SKIPPED: Final = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/locale/",
                   "/usr/share/info/", "/usr/share/lintian/", "/usr/share/bug/")
_APPLETS: Final = ("sh", "cat", "ls", "env", "sleep", "echo", "id", "test")
_PASSWD: Final = ("root:x:0:0:root:/root:/bin/sh\n"
                  "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n")
_GROUP: Final = "root:x:0:\nnobody:x:65534:\n"
_DEP_NAME: Final = re.compile(r"^\s*([a-z0-9][a-z0-9+.-]*)")


def _dpkg_query(fmt: str, package: str) -> str | None:
    done = subprocess.run(["dpkg-query", "-W", "-f", fmt, package], capture_output=True,
                          text=True, timeout=30, check=False)
    return done.stdout if done.returncode == 0 else None


def _installed(package: str) -> bool:
    status = _dpkg_query("${db:Status-Abbrev}", package)
    return status is not None and status.startswith("ii")


def parse_depends(field: str) -> list[list[str]]:
    """A ``Depends`` field as alternatives: ``a (>= 1), b:any | c`` ->
    ``[["a"], ["b", "c"]]`` (versions and architecture qualifiers dropped)."""
    out: list[list[str]] = []
    for clause in field.split(","):
        names = []
        for alternative in clause.split("|"):
            m = _DEP_NAME.match(alternative.split(":")[0])
            if m:
                names.append(m.group(1))
        if names:
            out.append(names)
    return out


def package_closure(root: str = ROOT_PACKAGE) -> list[str]:
    """``root`` and every installed package it depends on, sorted; raises
    :class:`ImageBuildError` when ``root`` itself is not installed."""
    if not _installed(root):
        raise ImageBuildError(f"cannot build {PYCLIENT_REPO}: the package {root} is not "
                              f"installed (apt-get install {root})")
    seen = {root}
    todo = [root]
    while todo:
        package = todo.pop()
        field = _dpkg_query("${Pre-Depends}, ${Depends}", package) or ""
        for alternatives in parse_depends(field):
            chosen = next((a for a in alternatives if a in seen or _installed(a)), None)
            if chosen is None:
                # A virtual package (python3-six-abi...) provided by one we have,
                # or an unmet dependency dpkg would not have allowed: skip.
                continue
            if chosen not in seen:
                seen.add(chosen)
                todo.append(chosen)
    return sorted(seen)


def _versions(packages: Iterable[str]) -> list[str]:
    return [f"{p}={(_dpkg_query('${Version}', p) or '').strip()}" for p in packages]


def _files(packages: Iterable[str]) -> list[str]:
    out: set[str] = set()
    for package in packages:
        done = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True,
                              timeout=30, check=False)
        for line in done.stdout.splitlines():
            path = line.strip()
            if path.startswith("/") and not path.startswith(_SKIPPED):
                out.add(path)
    return sorted(out)


def _copy_into(rootfs: Path, path: str) -> None:
    """Copy one packaged path: a symlink as a symlink, a file with its mode;
    directories are made as needed (their contents are listed on their own)."""
    source = Path(path)
    try:
        st = os.lstat(source)
    except FileNotFoundError:
        return  # a conffile removed by the admin, a diverted file
    dest = rootfs / path.lstrip("/")
    if stat.S_ISDIR(st.st_mode) or os.path.lexists(dest):
        if stat.S_ISDIR(st.st_mode):
            dest.mkdir(parents=True, exist_ok=True)
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(source), dest)
    elif stat.S_ISREG(st.st_mode):
        shutil.copy2(source, dest, follow_symlinks=False)


def _assemble(dest: Path, containerfile: Path, script: Path, files: Sequence[str],
              busybox: Path) -> None:
    shutil.copy(containerfile, dest / "Containerfile")
    rootfs = dest / "rootfs"
    rootfs.mkdir()
    # The host's /usr merge first (/bin -> usr/bin, /lib -> usr/lib, ...): the
    # packages' files land under usr/ through those links, as on the host.
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / top
        if host.is_symlink():
            target = os.readlink(host)
            (rootfs / top).symlink_to(target)
            (rootfs / top).parent.joinpath(target).mkdir(parents=True, exist_ok=True)
    for path in files:
        _copy_into(rootfs, path)
    (rootfs / "bin").mkdir(exist_ok=True)  # exists already under /usr merge
    shutil.copy(busybox, rootfs / "bin" / "busybox")
    for applet in _APPLETS:
        link = rootfs / "bin" / applet
        if not link.exists() and not link.is_symlink():
            link.symlink_to("busybox")
    (rootfs / "etc").mkdir(exist_ok=True)
    (rootfs / "etc" / "passwd").write_text(_PASSWD)
    (rootfs / "etc" / "group").write_text(_GROUP)
    for empty in ("tmp", "root"):
        (rootfs / empty).mkdir(exist_ok=True)
    (rootfs / "tmp").chmod(0o1777)
    shutil.copy(script, rootfs / "list_pods.py")


def _digest(versions: Sequence[str], containerfile: bytes, script: bytes) -> str:
    h = hashlib.sha256(b"minikube-py python-client image v1\n")
    for part in (*versions, containerfile.decode(), script.decode()):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def ensure_python_client_image(backend: _Backend | None = None, *,
                               images_dir: Path | None = None, force: bool = False,
                               busybox: Path = HOST_BUSYBOX) -> list[str]:
    """Build the image if it is missing or out of date; the tags made (module
    contract). ``backend`` defaults to the ``podman`` command."""
    if backend is None:
        podman = shutil.which("podman")
        if podman is None:
            raise ImageBuildError("podman is not installed: apt-get install podman runc")
        backend = _CliBackend(podman)
    problem = busybox_problem(busybox)
    if problem:
        raise ImageBuildError(f"cannot build {PYCLIENT_REPO}: {problem}")
    directory = (images_dir or default_images_dir()) / "python-client"
    containerfile, script = directory / "Containerfile", directory / "list_pods.py"
    for needed in (containerfile, script):
        if not needed.is_file():
            raise ImageBuildError(f"cannot build {PYCLIENT_REPO}: {needed} is missing")
    packages = package_closure()
    versions = _versions(packages)
    version = next(v.split("=", 1)[1] for v in versions if v.startswith(f"{ROOT_PACKAGE}="))
    versioned = f"{PYCLIENT_REPO}:{version.replace('+', '_').replace('~', '_')}"
    latest = f"{PYCLIENT_REPO}:latest"
    digest = _digest(versions, containerfile.read_bytes(), script.read_bytes())
    info = backend.inspect(versioned)
    if not force and info is not None and _labels(info).get(SOURCE_LABEL) == digest:
        latest_info = backend.inspect(latest)
        if latest_info is None or latest_info.get("Id") != info.get("Id"):
            backend.tag(versioned, latest)
            return [latest]
        return []
    with tempfile.TemporaryDirectory(prefix="minikube-py-pyclient-") as tmp:
        _assemble(Path(tmp), containerfile, script, _files(packages), busybox)
        backend.build(Path(tmp), [versioned, latest], {SOURCE_LABEL: digest})
    return [versioned, latest]
