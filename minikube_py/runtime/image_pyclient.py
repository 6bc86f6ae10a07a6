"""``localhost/minikube-py/python-client``: Debian's python3 with Debian's
``python3-kubernetes`` (the official client), built on the host, offline.

For pods that talk to the API the way applications do (in-cluster config).
Built from ``images/python-client/Containerfile`` (``FROM scratch``, no RUN
step): the build context's ``rootfs`` holds

* the files of the installed package ``python3-kubernetes`` and of every
  package it depends on (``Pre-Depends`` and ``Depends``, recursively; of
  alternatives the first one installed, a virtual package through an
  installed package providing it: :func:`resolve_closure`), as ``dpkg -L``
  lists them: regular files and symlinks; documentation, manuals,
  translations, leap-second time zones and glibc's iconv modules left out;
* the bytecode Debian compiled for their Python files at install time, so
  ``import kubernetes.client`` takes a quarter of a second, not two;
* the host's ``/etc/ssl/certs`` when ``ca-certificates`` is in the closure;
* the static busybox as a shell (``sh`` and a few applets), ``/etc/passwd``,
  ``/tmp``, and the pod script ``/list_pods.py`` (the image's command).

About 110 MB; built in about 10 s (files are hard-linked into the context,
copied only across filesystems). The packages must be installed on the host
(``scripts/ensure-system-packages.sh`` installs ``python3-kubernetes``).

Tagged ``:<python3-kubernetes version>`` (``22.6.0-2`` on Debian 12) and
``:latest``, labelled (:data:`~.images.SOURCE_LABEL`) with a digest of its
sources: the packages' names, architectures and versions, the Containerfile,
the script, busybox, the CA bundle. Rebuilt only when that digest changes;
:func:`ensure_python_client_image` is fast when the image is current (one
``dpkg-query`` and two image inspects). The tests that need the image call it
(``make images`` builds only busybox; ``python -m minikube_py.runtime.images
--image python-client`` builds this one).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .images import (
    HOST_BUSYBOX,
    PYCLIENT_REPO,
    ImageBuildError,
    _Backend,
    _CliBackend,
    _ensure_built,
    busybox_problem,
    default_images_dir,
)

__all__ = [
    "PYCLIENT_REPO",
    "ROOT_PACKAGE",
    "Package",
    "bytecode_of",
    "ensure_python_client_image",
    "image_tag",
    "installed_packages",
    "kept",
    "package_closure",
    "parse_depends",
    "parse_installed",
    "resolve_closure",
]

ROOT_PACKAGE: Final = "python3-kubernetes"
#: What the image needs no copy of: documentation, translations, the
#: leap-second time zones, and (``/usr/lib/<triplet>/gconv/``) glibc's iconv
#: modules, 8 MB that Python never loads.
_SKIPPED: Final = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/locale/",
                   "/usr/share/info/", "/usr/share/lintian/", "/usr/share/bug/",
                   "/usr/share/zoneinfo/right/")
_GCONV: Final = re.compile(r"^/usr/lib/[^/]+/gconv/")
_APPLETS: Final = ("sh", "cat", "ls", "env", "sleep", "echo", "id", "test", "true", "false",
                   "mkdir", "rm", "cp", "mv", "grep", "head", "tail", "ps", "wc", "sed")
_PASSWD: Final = ("root:x:0:0:root:/root:/bin/sh\n"
                  "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n")
_GROUP: Final = "root:x:0:\nnobody:x:65534:\n"
_FORMAT: Final = b"minikube-py python-client image v2\n"
_CERTS: Final = Path("/etc/ssl/certs")
_DEP_NAME: Final = re.compile(r"^\s*([a-z0-9][a-z0-9+.-]*)")
#: One line per package known to dpkg, tab-separated (read by :func:`parse_installed`).
_QUERY: Final = ("${Package}\t${Architecture}\t${db:Status-Abbrev}\t${Version}\t"
                 "${Provides}\t${Pre-Depends}\t${Depends}\n")


# ---------------------------------------------------------------------- the package closure (pure)


@dataclass(frozen=True, slots=True)
class Package:
    """An installed Debian package, as far as the closure needs it."""

    name: str
    arch: str
    version: str
    provides: tuple[str, ...] = ()
    #: ``Pre-Depends`` then ``Depends``; each clause is its alternatives.
    depends: tuple[tuple[str, ...], ...] = ()

    @property
    def ref(self) -> str:
        """``name:arch``, what ``dpkg -L`` takes unambiguously."""
        return f"{self.name}:{self.arch}"


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


def parse_installed(text: str, native_arch: str) -> dict[str, Package]:
    """The installed packages in ``dpkg-query -W -f`` output of :data:`_QUERY`,
    by name. Packages dpkg only remembers (removed, config files left) are
    left out; of a package installed for several architectures, the native
    one (or ``all``) is kept."""
    out: dict[str, Package] = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) != 7:
            continue
        name, arch, status, version, provides, pre_depends, depends = fields
        if len(status) < 2 or status[1] != "i":  # "ii ", "hi ": installed
            continue
        package = Package(
            name, arch, version,
            tuple(alternatives[0] for alternatives in parse_depends(provides)),
            tuple(tuple(alt) for alt in parse_depends(f"{pre_depends}, {depends}")))
        if name not in out or arch in (native_arch, "all"):
            out[name] = package
    return out


def resolve_closure(root: str, installed: Mapping[str, Package]) -> list[Package]:
    """``root`` and every installed package it needs, by name.

    Each dependency clause is met by its first alternative that is installed,
    else by an installed package providing one of the alternatives (one
    already in the closure first, then by name). A clause nothing installed
    meets (dpkg would not have left it so) is ignored. Raises
    :class:`ImageBuildError` when ``root`` is not installed.
    """
    if root not in installed:
        raise ImageBuildError(f"cannot build {PYCLIENT_REPO}: the package {root} is not "
                              f"installed (apt-get install {root})")
    providers: dict[str, list[str]] = {}
    for package in installed.values():
        for virtual in package.provides:
            providers.setdefault(virtual, []).append(package.name)
    seen = {root}
    todo = [root]
    while todo:
        for alternatives in installed[todo.pop()].depends:
            chosen = next((a for a in alternatives if a in installed), None)
            if chosen is None:
                candidates = sorted({p for a in alternatives for p in providers.get(a, ())})
                chosen = next((p for p in candidates if p in seen),
                              candidates[0] if candidates else None)
            if chosen is not None and chosen not in seen:
                seen.add(chosen)
                todo.append(chosen)
    return [installed[name] for name in sorted(seen)]


def kept(path: str) -> bool:
    """Whether a path ``dpkg -L`` lists goes into the image."""
    return path.startswith("/") and not path.startswith(_SKIPPED) and not _GCONV.match(path)


def image_tag(version: str) -> str:
    """A Debian version as an image tag: ``1:2.0~rc1+b1`` -> ``1_2.0_rc1_b1``."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", version)[:128]


def bytecode_of(path: str) -> list[str]:
    """The compiled files Python keeps for the source file ``path``
    (``d/__pycache__/m.cpython-311.pyc``, ...) that exist on the host."""
    if not path.endswith(".py"):
        return []
    directory, name = os.path.split(path)
    cache = os.path.join(directory, "__pycache__")
    try:
        entries = os.listdir(cache)
    except OSError:
        return []
    stem = name[:-3] + "."
    return sorted(os.path.join(cache, e) for e in entries
                  if e.startswith(stem) and e.endswith(".pyc") and e.count(".") == 2)


# ---------------------------------------------------------------------- the host's dpkg


def _dpkg(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=60,
                              check=False)
    except FileNotFoundError as exc:
        raise ImageBuildError(f"cannot build {PYCLIENT_REPO}: {argv[0]} is missing "
                              "(a Debian host is needed)") from exc


def installed_packages() -> dict[str, Package]:
    arch = _dpkg(["dpkg", "--print-architecture"]).stdout.strip()
    done = _dpkg(["dpkg-query", "-W", "-f", _QUERY])
    if done.returncode != 0:
        raise ImageBuildError(f"cannot build {PYCLIENT_REPO}: dpkg-query failed: "
                              f"{done.stderr.strip()}")
    return parse_installed(done.stdout, arch)


def package_closure(root: str = ROOT_PACKAGE) -> list[Package]:
    """:func:`resolve_closure` over the host's installed packages."""
    return resolve_closure(root, installed_packages())


def _files(packages: Iterable[Package]) -> list[str]:
    done = _dpkg(["dpkg", "-L", *(p.ref for p in packages)])
    if done.returncode != 0:
        raise ImageBuildError(f"cannot build {PYCLIENT_REPO}: dpkg -L failed: "
                              f"{done.stderr.strip()}")
    return sorted({line.strip() for line in done.stdout.splitlines() if kept(line.strip())})


# ---------------------------------------------------------------------- the build context


def _copy_into(rootfs: Path, path: str) -> None:
    """Copy one host path into ``rootfs``: a symlink as a symlink, a regular
    file with its mode and mtime (``.pyc`` files are checked against their
    sources' mtimes); directories are made as needed, anything else skipped."""
    try:
        st = os.lstat(path)
    except OSError:
        return  # a conffile the admin removed, a diverted file
    dest = rootfs / path.lstrip("/")
    if stat.S_ISDIR(st.st_mode):
        dest.mkdir(parents=True, exist_ok=True)
        return
    if os.path.lexists(dest):
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(path), dest)
    elif stat.S_ISREG(st.st_mode):
        try:
            os.link(path, dest)  # same filesystem: no copy (the context is only read)
        except OSError:
            shutil.copy2(path, dest, follow_symlinks=False)


def _write(dest: Path, data: bytes) -> None:
    """Write a file of our own into the context; never through a hard link to
    a host file a package listed there."""
    if os.path.lexists(dest):
        dest.unlink()
    dest.write_bytes(data)


def _merged_usr(rootfs: Path) -> None:
    """The host's merged ``/usr`` (``/bin -> usr/bin``, ...), so the packages'
    files land where they do on the host."""
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / top
        if host.is_symlink():
            target = os.readlink(host)
            (rootfs / top).symlink_to(target)
            (rootfs / target).mkdir(parents=True, exist_ok=True)


def _assemble(dest: Path, containerfile: Path, script: Path, files: Sequence[str],
              busybox: Path, certs: Path | None) -> None:
    shutil.copyfile(containerfile, dest / "Containerfile")
    rootfs = dest / "rootfs"
    rootfs.mkdir()
    _merged_usr(rootfs)
    for path in files:
        _copy_into(rootfs, path)
        for compiled in bytecode_of(path):
            _copy_into(rootfs, compiled)
    if certs is not None and certs.is_dir():
        for entry in sorted(certs.iterdir()):
            _copy_into(rootfs, str(entry))
    bin_dir = rootfs / "bin"
    bin_dir.mkdir(exist_ok=True)  # under a merged /usr: usr/bin, there already
    _write(bin_dir / "busybox", busybox.read_bytes())
    os.chmod(bin_dir / "busybox", 0o755)
    for applet in _APPLETS:
        link = bin_dir / applet
        if not os.path.lexists(link):
            link.symlink_to("busybox")
    etc = rootfs / "etc"
    etc.mkdir(exist_ok=True)
    _write(etc / "passwd", _PASSWD.encode())
    _write(etc / "group", _GROUP.encode())
    for name, mode in (("tmp", 0o1777), ("root", 0o700)):
        (rootfs / name).mkdir(exist_ok=True)
        os.chmod(rootfs / name, mode)
    _write(rootfs / "list_pods.py", script.read_bytes())


def _digest(packages: Sequence[Package], parts: Sequence[bytes]) -> str:
    h = hashlib.sha256(_FORMAT)
    listing = "\n".join(f"{p.ref}={p.version}" for p in packages).encode()
    for part in (listing, *parts, "\n".join(_APPLETS).encode(), _PASSWD.encode(),
                 _GROUP.encode(), "\n".join(_SKIPPED).encode()):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return "sha256:" + h.hexdigest()


def ensure_python_client_image(backend: _Backend | None = None, *,
                               images_dir: Path | None = None, force: bool = False,
                               busybox: Path = HOST_BUSYBOX) -> list[str]:
    """Build the image if it is missing or out of date; returns the tags made
    (``[]`` when it was current). ``backend`` defaults to the ``podman``
    command; :func:`~.images.ensure_images` passes one for a Podman service.
    Raises :class:`ImageBuildError`."""
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
    root = next(p for p in packages if p.name == ROOT_PACKAGE)
    certs = _CERTS if any(p.name == "ca-certificates" for p in packages) else None
    bundle = certs / "ca-certificates.crt" if certs is not None else None
    digest = _digest(packages, [
        containerfile.read_bytes(), script.read_bytes(),
        hashlib.sha256(busybox.read_bytes()).digest(),
        bundle.read_bytes() if bundle is not None and bundle.is_file() else b""])

    def assemble(context: Path) -> None:
        _assemble(context, containerfile, script, _files(packages), busybox, certs)

    return _ensure_built(backend, f"{PYCLIENT_REPO}:{image_tag(root.version)}",
                         f"{PYCLIENT_REPO}:latest", digest, force, assemble)
