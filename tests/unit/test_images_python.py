"""The python-client image's recipe without Podman: the dependency closure of
python3-kubernetes from dpkg's answers, what goes into the image, the tag,
and when it is (re)built."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from minikube_py.runtime import image_pyclient as pc
from minikube_py.runtime import images
from minikube_py.runtime.image_pyclient import (
    Package,
    bytecode_of,
    image_tag,
    kept,
    parse_depends,
    parse_installed,
    resolve_closure,
)
from minikube_py.runtime.images import SOURCE_LABEL, ImageBuildError

IMAGES_DIR = Path(__file__).resolve().parents[2] / "images"


def pkg(name: str, *depends: str, provides: Sequence[str] = (), arch: str = "all",
        version: str = "1.0-1") -> Package:
    return Package(name, arch, version, tuple(provides),
                   tuple(tuple(a.strip() for a in clause.split("|")) for clause in depends))


def db(*packages: Package) -> dict[str, Package]:
    return {p.name: p for p in packages}


def names(closure: Sequence[Package]) -> list[str]:
    return [p.name for p in closure]


# ---------------------------------------------------------------------- dpkg's fields


def test_parse_depends_keeps_names_and_alternatives():
    assert parse_depends("python3-six (>= 1.9.0), python3:any, gpgv | gpgv2 | gpgv1") == [
        ["python3-six"], ["python3"], ["gpgv", "gpgv2", "gpgv1"]]
    assert parse_depends("libc6:amd64 (>= 2.34) [amd64], ") == [["libc6"]]
    assert parse_depends(", ") == []
    assert parse_depends("") == []


def test_parse_installed_reads_installed_packages_only():
    text = "\n".join([
        "python3-kubernetes\tall\tii \t22.6.0-2\t\t\tpython3-certifi, python3:any",
        "python3\tamd64\tii \t3.11.2-1+b1\tpython3-profiler\tpython3-minimal (= 3.11.2-1+b1)"
        "\tlibpython3-stdlib (= 3.11.2-1+b1)",
        "oldpkg\tall\trc \t1\t\t\t",
        "gone\tall\tun \t\t\t\t",
        "held\tamd64\thi \t2\t\t\t",
        "libfoo\ti386\tii \t1\t\t\t",
        "libfoo\tamd64\tii \t1\t\t\t",
        "garbage line",
    ])
    got = parse_installed(text, "amd64")
    assert sorted(got) == ["held", "libfoo", "python3", "python3-kubernetes"]
    assert got["python3-kubernetes"].depends == (("python3-certifi",), ("python3",))
    assert got["python3"].provides == ("python3-profiler",)
    # Pre-Depends first, then Depends
    assert got["python3"].depends == (("python3-minimal",), ("libpython3-stdlib",))
    assert got["libfoo"].arch == "amd64"  # the native one of a multi-arch pair
    assert got["python3"].ref == "python3:amd64"
    assert got["python3-kubernetes"].version == "22.6.0-2"


# ---------------------------------------------------------------------- the closure


def test_closure_follows_depends_recursively_and_stops_at_cycles():
    installed = db(pkg("root", "a", "b"), pkg("a", "c"), pkg("b", "c", "root"), pkg("c"),
                   pkg("unrelated", "a"))
    assert names(resolve_closure("root", installed)) == ["a", "b", "c", "root"]


def test_closure_takes_the_first_installed_alternative():
    installed = db(pkg("root", "missing | second | third"), pkg("second"), pkg("third"))
    assert names(resolve_closure("root", installed)) == ["root", "second"]


def test_closure_meets_a_virtual_package_through_its_provider():
    installed = db(pkg("root", "python3-six-abi", "mail-transport-agent"),
                   pkg("python3-six", provides=["python3-six-abi"]),
                   pkg("postfix", provides=["mail-transport-agent"]),
                   pkg("exim4", provides=["mail-transport-agent"]))
    # Of several providers: by name.
    assert names(resolve_closure("root", installed)) == ["exim4", "python3-six", "root"]


def test_closure_prefers_a_provider_already_in_the_closure():
    installed = db(pkg("root", "zz-provider", "virtual"),
                   pkg("aa-provider", provides=["virtual"]),
                   pkg("zz-provider", provides=["virtual"]))
    assert names(resolve_closure("root", installed)) == ["root", "zz-provider"]


def test_closure_ignores_what_nothing_installed_meets():
    installed = db(pkg("root", "not-installed", "a | also-missing"), pkg("a"))
    assert names(resolve_closure("root", installed)) == ["a", "root"]


def test_closure_of_a_package_not_installed_says_what_to_install():
    with pytest.raises(ImageBuildError, match="apt-get install python3-kubernetes"):
        resolve_closure("python3-kubernetes", db(pkg("python3")))


# ---------------------------------------------------------------------- files and tags


@pytest.mark.parametrize(("path", "expected"), [
    ("/usr/lib/python3/dist-packages/kubernetes/__init__.py", True),
    ("/usr/bin/python3.11", True),
    ("/etc/python3.11/sitecustomize.py", True),
    ("/usr/share/zoneinfo/Europe/Paris", True),
    ("/usr/share/doc/python3-kubernetes/copyright", False),
    ("/usr/share/man/man1/python3.11.1.gz", False),
    ("/usr/share/locale/de/LC_MESSAGES/dpkg.mo", False),
    ("/usr/share/zoneinfo/right/Europe/Paris", False),
    ("/usr/lib/x86_64-linux-gnu/gconv/UTF-16.so", False),
    ("relative/path", False),
])
def test_kept(path: str, expected: bool):
    assert kept(path) is expected


@pytest.mark.parametrize(("version", "tag"), [
    ("22.6.0-2", "22.6.0-2"),
    ("1:1.35.0-4+deb12u1+b1", "1_1.35.0-4_deb12u1_b1"),
    ("2.0~rc1-1", "2.0_rc1-1"),
])
def test_image_tag(version: str, tag: str):
    assert image_tag(version) == tag


def test_bytecode_of_finds_the_compiled_files_of_a_source(tmp_path: Path):
    (tmp_path / "mod.py").write_text("x = 1\n")
    (tmp_path / "other.py").write_text("")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for name in ("mod.cpython-311.pyc", "mod.cpython-312.pyc", "other.cpython-311.pyc",
                 "mod.cpython-311.opt-1.pyc", "modx.cpython-311.pyc"):
        (cache / name).write_bytes(b"")
    assert bytecode_of(str(tmp_path / "mod.py")) == [str(cache / "mod.cpython-311.pyc"),
                                                    str(cache / "mod.cpython-312.pyc")]
    assert bytecode_of(str(tmp_path / "README")) == []
    assert bytecode_of(str(tmp_path / "nocache" / "x.py")) == []


# ---------------------------------------------------------------------- the build context


def _fake_host(tmp_path: Path) -> tuple[Path, list[str]]:
    host = tmp_path / "host"
    lib = host / "usr" / "lib" / "python3" / "dist-packages" / "kubernetes"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("__version__ = '22.6.0'\n")
    os.utime(lib / "__init__.py", (1_600_000_000, 1_600_000_000))
    (lib / "__pycache__").mkdir()
    (lib / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"pyc")
    (host / "usr" / "bin").mkdir(parents=True)
    (host / "usr" / "bin" / "python3.11").write_bytes(b"\x7fELF")
    os.chmod(host / "usr" / "bin" / "python3.11", 0o755)
    (host / "usr" / "bin" / "python3").symlink_to("python3.11")
    (host / "etc").mkdir()
    (host / "etc" / "passwd").write_text("host's own passwd\n")
    files = [str(p) for p in (host / "usr", lib, lib / "__init__.py", host / "usr" / "bin",
                              host / "usr" / "bin" / "python3.11",
                              host / "usr" / "bin" / "python3", host / "etc" / "passwd",
                              host / "gone.py")]
    return host, files


def test_assemble_copies_files_links_and_bytecode_and_never_writes_through(tmp_path: Path):
    host, files = _fake_host(tmp_path)
    context = tmp_path / "context"
    context.mkdir()
    pc._assemble(context, IMAGES_DIR / "python-client" / "Containerfile",
                 IMAGES_DIR / "python-client" / "list_pods.py", files, images.HOST_BUSYBOX
                 if images.HOST_BUSYBOX.is_file() else host / "usr" / "bin" / "python3.11",
                 None)
    rootfs = context / "rootfs"
    inside = rootfs / str(host).lstrip("/")
    init = inside / "usr/lib/python3/dist-packages/kubernetes/__init__.py"
    assert init.read_text() == "__version__ = '22.6.0'\n"
    assert int(init.stat().st_mtime) == 1_600_000_000  # .pyc files are checked against it
    assert (init.parent / "__pycache__" / "__init__.cpython-311.pyc").read_bytes() == b"pyc"
    assert os.readlink(inside / "usr/bin/python3") == "python3.11"
    assert stat.S_IMODE((inside / "usr/bin/python3.11").stat().st_mode) == 0o755
    assert not (inside / "gone.py").exists()
    # Our own files replace, never overwrite, what a package put at their place.
    hosts_passwd = host / "etc" / "passwd"
    (rootfs / "etc" / "group").unlink()
    os.link(hosts_passwd, rootfs / "etc" / "group")  # as if a package listed it
    pc._write(rootfs / "etc" / "group", b"root:x:0:\n")
    assert hosts_passwd.read_text() == "host's own passwd\n"
    assert (rootfs / "etc" / "group").read_text() == "root:x:0:\n"
    assert "root:x:0:0:root:/root:/bin/sh" in (rootfs / "etc" / "passwd").read_text()
    assert os.readlink(rootfs / "bin" / "sh") == "busybox"
    assert stat.S_IMODE((rootfs / "tmp").stat().st_mode) == 0o1777
    assert (rootfs / "list_pods.py").read_bytes() == (
        IMAGES_DIR / "python-client" / "list_pods.py").read_bytes()
    assert (context / "Containerfile").is_file()


# ---------------------------------------------------------------------- when it is built


class FakeBackend:
    def __init__(self) -> None:
        self.images: dict[str, dict[str, Any]] = {}  # ref -> info
        self.builds: list[tuple[list[str], dict[str, str], list[str]]] = []
        self.removed: list[str] = []
        self.tagged: list[tuple[str, str]] = []

    def inspect(self, ref: str) -> dict[str, Any] | None:
        if ref in self.images:
            return self.images[ref]
        return next((i for i in self.images.values() if i["Id"] == ref), None)

    def tag(self, source: str, target: str) -> None:
        self.tagged.append((source, target))
        self.images[target] = self.images[source]
        self.images[target]["RepoTags"].append(target)

    def build(self, context: Path, tags: Sequence[str], labels: dict[str, str]) -> None:
        listing = sorted(str(p.relative_to(context)) for p in context.rglob("*"))
        self.builds.append((list(tags), dict(labels), listing))
        info = {"Id": f"id{len(self.builds)}", "Labels": dict(labels), "RepoTags": list(tags)}
        for old in self.images.values():
            old["RepoTags"] = [t for t in old["RepoTags"] if t not in tags]
        for tag in tags:
            self.images[tag] = info

    def remove(self, image_id: str) -> None:
        self.removed.append(image_id)


@pytest.fixture
def fake_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Package]:
    _host, files = _fake_host(tmp_path)
    installed = db(pkg("python3-kubernetes", "python3", version="22.6.0-2"),
                   pkg("python3", arch="amd64", version="3.11.2-1"))
    monkeypatch.setattr(pc, "installed_packages", lambda: installed)
    monkeypatch.setattr(pc, "_files", lambda packages: files)
    return installed


needs_busybox = pytest.mark.skipif(bool(images.busybox_problem()),
                                   reason="busybox-static is not installed")


@needs_busybox
def test_built_when_missing_then_a_no_op_then_rebuilt_when_a_package_changes(
        fake_host: dict[str, Package]):
    backend = FakeBackend()
    versioned = "localhost/minikube-py/python-client:22.6.0-2"
    latest = "localhost/minikube-py/python-client:latest"
    assert pc.ensure_python_client_image(backend) == [versioned, latest]
    (tags, labels, listing), = backend.builds
    assert tags == [versioned, latest]
    assert labels[SOURCE_LABEL].startswith("sha256:")
    assert "rootfs/list_pods.py" in listing
    assert "rootfs/bin/busybox" in listing or "rootfs/usr/bin/busybox" in listing
    assert pc.ensure_python_client_image(backend) == []
    assert len(backend.builds) == 1

    backend.images[latest] = {"Id": "other", "Labels": {}, "RepoTags": [latest]}
    assert pc.ensure_python_client_image(backend) == [latest]  # only re-pointed
    assert backend.tagged == [(versioned, latest)]

    fake_host["python3"] = pkg("python3", arch="amd64", version="3.11.2-2")
    assert pc.ensure_python_client_image(backend) == [versioned, latest]
    assert len(backend.builds) == 2
    assert backend.builds[1][1][SOURCE_LABEL] != labels[SOURCE_LABEL]
    assert backend.removed == ["id1"]  # the old build, left without a tag

    assert pc.ensure_python_client_image(backend, force=True) == [versioned, latest]
    assert len(backend.builds) == 3


@needs_busybox
def test_a_missing_script_is_reported(fake_host: dict[str, Package], tmp_path: Path):
    (tmp_path / "imgs" / "python-client").mkdir(parents=True)
    (tmp_path / "imgs" / "python-client" / "Containerfile").write_text("FROM scratch\n")
    with pytest.raises(ImageBuildError, match=r"list_pods\.py is missing"):
        pc.ensure_python_client_image(FakeBackend(), images_dir=tmp_path / "imgs")


def test_ensure_images_refuses_unknown_names():
    with pytest.raises(ImageBuildError, match="unknown image nginx"):
        images.ensure_images(None, names=["nginx"])


def test_make_images_builds_busybox_only():
    assert images.DEFAULT_IMAGES == ("busybox",)
    assert images.IMAGE_NAMES["python-client"] == pc.PYCLIENT_REPO
