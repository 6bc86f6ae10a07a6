"""Images minikube-py builds on the host, offline: ``localhost/minikube-py/busybox``.

Hosts here often have no registry in reach, so the image our own pods,
probes and tests run is built locally from ``images/busybox/Containerfile``:
``FROM scratch``, Debian's *static* busybox (package ``busybox-static``)
copied from ``/bin/busybox`` into the build context at build time, one
symlink per applet (``sh``, ``httpd``, ``sleep``, ``wget``, ``cat``, ``echo``,
...), ``ENV PATH=/bin``. It is tagged with busybox's version as ``busybox
--help`` reports it (``localhost/minikube-py/busybox:1.35``) and ``:latest``.

:func:`ensure_images` builds what is missing and is fast when everything is
present (one image inspect per tag). An image we built carries the digest of
its sources (:data:`SOURCE_LABEL`); a tag whose image lacks that digest
(busybox was upgraded, the Containerfile changed, or it was built some other
way) is rebuilt, so the image always has what this recipe promises
(``/tmp``, ``/etc/passwd``, every applet). ``force=True`` rebuilds anyway.

Builds go through the Podman API (a base URL, or a client) or, given
neither, through the ``podman build`` command (fixed argv, no shell).

A second image, ``localhost/minikube-py/python-client`` (Debian's python3
and python3-kubernetes, for pods using the official client in-cluster), is
made by :mod:`.image_pyclient` on the same terms, but only when asked for
(``names=``, ``--image``): the tests that run it build it, ``make images``
and the host check do not.

Command line (``make images`` runs it)::

    python -m minikube_py.runtime.images [--url URL] [--images-dir DIR] [--force]
                                         [--image busybox|python-client ...]

``--url`` (or ``$MINIKUBE_PY_PODMAN_SOCKET``) names a Podman service; without
it the ``podman`` command is used directly. ``--image`` (repeatable) names
the images to make (default: busybox).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from podman import PodmanClient

from .base import ContainerRuntimeError
from .podman_api import PodmanAPI, error_message, iter_json_lines

__all__ = [
    "BUSYBOX_REPO",
    "DEFAULT_IMAGES",
    "IMAGE_NAMES",
    "PYCLIENT_REPO",
    "HOST_BUSYBOX",
    "SOURCE_LABEL",
    "ImageBuildError",
    "busybox_applets",
    "busybox_problem",
    "busybox_version",
    "default_images_dir",
    "ensure_images",
    "is_static_elf",
    "main",
]

BUSYBOX_REPO = "localhost/minikube-py/busybox"
#: Debian's python3 with python3-kubernetes (:mod:`.image_pyclient`).
PYCLIENT_REPO = "localhost/minikube-py/python-client"
#: The images :func:`ensure_images` knows, by name (a directory of ``images/``).
IMAGE_NAMES: Mapping[str, str] = {"busybox": BUSYBOX_REPO, "python-client": PYCLIENT_REPO}
#: What ``make images`` and the host check build: what every pod and test needs.
DEFAULT_IMAGES: tuple[str, ...] = ("busybox",)
HOST_BUSYBOX = Path("/bin/busybox")
#: Label holding the digest of what an image was built from.
SOURCE_LABEL = "minikube-py.io/source-digest"
_FORMAT = b"minikube-py busybox image v1\n"
_PASSWD = ("root:x:0:0:root:/root:/bin/sh\n"
           "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n")
_GROUP = "root:x:0:\nnobody:x:65534:\n"
_VERSION = re.compile(rb"BusyBox v(\d+)\.(\d+)")
_PT_INTERP = 3


class ImageBuildError(ContainerRuntimeError):
    """A local image could not be built; the message says why and what to install."""


def default_images_dir() -> Path:
    """``images/`` of the source tree this package runs from."""
    return Path(__file__).resolve().parents[2] / "images"


# ---------------------------------------------------------------------- the host's busybox


def is_static_elf(data: bytes) -> bool:
    """Whether ``data`` (an ELF file's start) is an executable without an
    interpreter, i.e. one that runs in an empty image."""
    if len(data) < 64 or data[:4] != b"\x7fELF":
        return False
    wide, little = data[4] == 2, data[5] == 1
    order = "<" if little else ">"
    if wide:
        phoff, = struct.unpack_from(order + "Q", data, 0x20)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x36)
    else:
        phoff, = struct.unpack_from(order + "I", data, 0x1C)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x2A)
    for i in range(phnum):
        offset = phoff + i * phentsize
        if offset + 4 > len(data):
            return False  # headers beyond what we read: cannot tell
        p_type, = struct.unpack_from(order + "I", data, offset)
        if p_type == _PT_INTERP:
            return False
    return True


def busybox_problem(path: Path = HOST_BUSYBOX) -> str:
    """Why ``path`` cannot go into the image ("" if it can)."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return (f"busybox-static is not installed ({path} is missing): "
                "apt-get install busybox-static")
    if not is_static_elf(head):
        return (f"{path} is not a static busybox (the busybox package links it dynamically): "
                "apt-get install busybox-static")
    return ""


def _run(argv: Sequence[str], timeout: float = 30.0) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(list(argv), capture_output=True, timeout=timeout, check=False)


def busybox_version(path: Path = HOST_BUSYBOX) -> str:
    """``1.35`` for ``BusyBox v1.35.0 (Debian ...)`` from ``busybox --help``."""
    done = _run([str(path), "--help"])
    m = _VERSION.search(done.stdout + done.stderr)
    if m is None:
        raise ImageBuildError(f"cannot tell the version of {path} from `busybox --help`")
    return f"{int(m.group(1))}.{int(m.group(2))}"


def busybox_applets(path: Path = HOST_BUSYBOX) -> list[str]:
    done = _run([str(path), "--list"])
    names = {n.strip() for n in done.stdout.decode(errors="replace").splitlines()}
    return sorted(n for n in names if n and "/" not in n and n != "busybox")


# ---------------------------------------------------------------------- the build context


def _source_digest(containerfile: bytes, busybox: bytes, applets: Sequence[str]) -> str:
    h = hashlib.sha256(_FORMAT)
    for part in (containerfile, busybox, "\n".join(applets).encode(), _PASSWD.encode(),
                 _GROUP.encode()):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return "sha256:" + h.hexdigest()


def _assemble(dest: Path, containerfile: Path, busybox: Path, applets: Sequence[str]) -> None:
    shutil.copyfile(containerfile, dest / "Containerfile")
    bin_dir = dest / "rootfs" / "bin"
    bin_dir.mkdir(parents=True)
    shutil.copyfile(busybox, bin_dir / "busybox")
    os.chmod(bin_dir / "busybox", 0o755)
    for name in applets:
        os.symlink("busybox", bin_dir / name)
    etc = dest / "rootfs" / "etc"
    etc.mkdir()
    (etc / "passwd").write_text(_PASSWD)
    (etc / "group").write_text(_GROUP)
    for name, mode in (("tmp", 0o1777), ("root", 0o700)):
        (dest / "rootfs" / name).mkdir()
        os.chmod(dest / "rootfs" / name, mode)


def _tar(directory: Path) -> bytes:
    # Owners normalised, mtimes kept: Python checks a .pyc against its source's mtime.
    def as_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        return info

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for entry in sorted(directory.iterdir()):
            tar.add(entry, arcname=entry.name, filter=as_root)
    return buf.getvalue()


# ---------------------------------------------------------------------- backends


class _Backend(Protocol):
    def inspect(self, ref: str) -> dict[str, Any] | None: ...

    def tag(self, source: str, target: str) -> None: ...

    def build(self, context: Path, tags: Sequence[str], labels: dict[str, str]) -> None: ...

    def remove(self, image_id: str) -> None: ...


class _ApiBackend:
    def __init__(self, api: PodmanAPI) -> None:
        self.api = api

    def inspect(self, ref: str) -> dict[str, Any] | None:
        response = self.api.call("GET", f"/images/{ref}/json")
        if response.status_code == 404:
            return None
        self.api.check(response, f"image {ref}")
        data = response.json()
        return data if isinstance(data, dict) else None

    def tag(self, source: str, target: str) -> None:
        repo, _, tag = target.rpartition(":")
        response = self.api.call("POST", f"/images/{source}/tag",
                                 params={"repo": repo, "tag": tag})
        self.api.check(response, f"tagging {source} as {target}")

    def build(self, context: Path, tags: Sequence[str], labels: dict[str, str]) -> None:
        response = self.api.call(
            "POST", "/build", data=_tar(context), stream=True, timeout=600.0,
            params={"t": list(tags), "dockerfile": "Containerfile",
                    "labels": json.dumps(labels), "layers": "false", "rm": "true"},
            headers={"content-type": "application/x-tar"})
        if response.status_code >= 400:
            raise ImageBuildError(f"building {tags[0]} failed: {error_message(response)}")
        errors = [str(item["error"]).strip() for item in iter_json_lines(response)
                  if item.get("error")]
        if errors:
            raise ImageBuildError(f"building {tags[0]} failed: {'; '.join(errors)}")

    def remove(self, image_id: str) -> None:
        self.api.call("DELETE", f"/images/{image_id}")  # refused while in use: fine


class _CliBackend:
    def __init__(self, podman: str) -> None:
        self.podman = podman

    def inspect(self, ref: str) -> dict[str, Any] | None:
        done = _run([self.podman, "image", "inspect", ref])
        if done.returncode != 0:
            return None
        try:
            data = json.loads(done.stdout)
        except ValueError:
            return None
        return data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else None

    def tag(self, source: str, target: str) -> None:
        done = _run([self.podman, "tag", source, target])
        if done.returncode != 0:
            raise ImageBuildError(f"tagging {source} as {target} failed: "
                                  f"{done.stderr.decode(errors='replace').strip()}")

    def build(self, context: Path, tags: Sequence[str], labels: dict[str, str]) -> None:
        argv = [self.podman, "build", "--layers=false", "-f", str(context / "Containerfile")]
        for tag in tags:
            argv += ["-t", tag]
        for key, value in labels.items():
            argv += ["--label", f"{key}={value}"]
        done = _run([*argv, str(context)], timeout=600.0)
        if done.returncode != 0:
            raise ImageBuildError(f"building {tags[0]} failed: "
                                  f"{done.stderr.decode(errors='replace').strip()}")

    def remove(self, image_id: str) -> None:
        _run([self.podman, "rmi", image_id])  # refused while in use: fine


def _labels(info: dict[str, Any] | None) -> dict[str, str]:
    if info is None:
        return {}
    labels = info.get("Labels") or (info.get("Config") or {}).get("Labels") or {}
    return dict(labels) if isinstance(labels, dict) else {}


def _tags_left(backend: _Backend, old: dict[str, Any]) -> bool:
    now = backend.inspect(str(old.get("Id")))
    return bool(now and (now.get("RepoTags") or []))


# ---------------------------------------------------------------------- ensure


def ensure_images(target: str | PodmanClient | PodmanAPI | None, *,
                  images_dir: Path | None = None, force: bool = False,
                  busybox: Path = HOST_BUSYBOX,
                  names: Sequence[str] = DEFAULT_IMAGES) -> list[str]:
    """Build (or tag) the local images that are missing; returns what was made.

    ``target`` is a Podman base URL, a ``PodmanClient``, a :class:`PodmanAPI`,
    or ``None`` for the ``podman`` command. ``names`` are the images to make,
    of :data:`IMAGE_NAMES`: by default only ``busybox``, which everything
    needs; ``python-client`` (:mod:`.image_pyclient`) is built by the tests
    that use it. Raises :class:`ImageBuildError`.
    """
    unknown = [n for n in names if n not in IMAGE_NAMES]
    if unknown:
        raise ImageBuildError(f"unknown image {', '.join(unknown)} "
                              f"(known: {', '.join(IMAGE_NAMES)})")
    backend: _Backend
    owned: PodmanAPI | None = None
    if target is None:
        podman = shutil.which("podman")
        if podman is None:
            raise ImageBuildError("podman is not installed: apt-get install podman runc")
        backend = _CliBackend(podman)
    elif isinstance(target, PodmanAPI):
        backend = _ApiBackend(target)
    else:
        url = target if isinstance(target, str) else target.api.base_url.geturl()
        owned = PodmanAPI(url)
        backend = _ApiBackend(owned)
    made: list[str] = []
    try:
        for name in names:
            try:
                if name == "busybox":
                    made += _ensure_busybox(backend, images_dir or default_images_dir(),
                                            force, busybox)
                else:
                    from .image_pyclient import ensure_python_client_image

                    made += ensure_python_client_image(backend, images_dir=images_dir,
                                                       force=force, busybox=busybox)
            except ContainerRuntimeError as exc:
                if isinstance(exc, ImageBuildError):
                    raise
                raise ImageBuildError(f"cannot build {IMAGE_NAMES[name]}: {exc}") from exc
        return made
    finally:
        if owned is not None:
            owned.close()


def _ensure_built(backend: _Backend, versioned: str, latest: str, digest: str, force: bool,
                  assemble: Callable[[Path], None]) -> list[str]:
    """Build ``versioned`` and ``latest`` from the context ``assemble`` writes
    into a temporary directory, unless ``versioned`` carries ``digest``
    already (then only ``latest`` is pointed at it if need be). Images we
    built before and this build left without a tag are removed."""
    info = backend.inspect(versioned)
    latest_info = backend.inspect(latest)
    if force or info is None or _labels(info).get(SOURCE_LABEL) != digest:
        with tempfile.TemporaryDirectory(prefix="minikube-py-image-") as tmp:
            assemble(Path(tmp))
            backend.build(Path(tmp), [versioned, latest], {SOURCE_LABEL: digest})
        # Images we built before and just untagged would linger as <none>.
        olds = {str(old.get("Id")): old for old in (info, latest_info) if old is not None}
        for image_id, old in olds.items():
            if SOURCE_LABEL in _labels(old) and not _tags_left(backend, old):
                backend.remove(image_id)
        return [versioned, latest]
    if latest_info is None or latest_info.get("Id") != info.get("Id"):
        backend.tag(versioned, latest)
        return [latest]
    return []


def _ensure_busybox(backend: _Backend, images_dir: Path, force: bool,
                    busybox: Path) -> list[str]:
    problem = busybox_problem(busybox)
    latest = f"{BUSYBOX_REPO}:latest"
    if problem:
        if not force and backend.inspect(latest) is not None:
            return []  # built before; without busybox-static we could not rebuild anyway
        raise ImageBuildError(f"cannot build {latest}: {problem}")
    containerfile = images_dir / "busybox" / "Containerfile"
    if not containerfile.is_file():
        raise ImageBuildError(f"cannot build {latest}: {containerfile} is missing")
    versioned = f"{BUSYBOX_REPO}:{busybox_version(busybox)}"
    applets = busybox_applets(busybox)
    if "sh" not in applets:
        raise ImageBuildError(f"{busybox} has no sh applet; install Debian's busybox-static")
    digest = _source_digest(containerfile.read_bytes(), busybox.read_bytes(), applets)
    return _ensure_built(backend, versioned, latest, digest, force,
                         lambda context: _assemble(context, containerfile, busybox, applets))


# ---------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m minikube_py.runtime.images",
        description="Build minikube-py's local images (<repo>:<version> and :latest) if "
                    "they are missing or out of date. Offline: needs podman and "
                    "busybox-static (python-client: python3-kubernetes).")
    parser.add_argument("--url", default=os.environ.get("MINIKUBE_PY_PODMAN_SOCKET") or None,
                        help="Podman service socket or URL (default: $MINIKUBE_PY_PODMAN_SOCKET, "
                             "else the podman command)")
    parser.add_argument("--images-dir", type=Path, default=None,
                        help=f"where the Containerfiles are (default: {default_images_dir()})")
    parser.add_argument("--force", action="store_true", help="rebuild even if present")
    parser.add_argument("--image", action="append", choices=sorted(IMAGE_NAMES), default=None,
                        help="an image to make; repeatable (default: "
                             f"{', '.join(DEFAULT_IMAGES)})")
    args = parser.parse_args(argv)
    names = tuple(dict.fromkeys(args.image or DEFAULT_IMAGES))
    target = None if args.url is None else args.url
    if target is not None and target.startswith("/"):
        target = "unix://" + target
    try:
        made = ensure_images(target, images_dir=args.images_dir, force=args.force, names=names)
    except ImageBuildError as exc:
        print(f"minikube-py images: {exc}", file=sys.stderr)
        return 1
    if made:
        for ref in made:
            print(f"built {ref}")
    else:
        print(f"up to date: {', '.join(IMAGE_NAMES[n] for n in names)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
