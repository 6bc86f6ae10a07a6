"""The node's cgroup: the kernel holds a virtual node to its size.

Scheduling keeps the sum of requests within a node's allocatable, but only a
cgroup stops the containers of a node from using more than its share of the
host. :class:`NodeCgroup` promises:

* :meth:`~NodeCgroup.setup` creates ``minikube-py/<cluster>/<node>`` under the
  cgroup root (``minikube-py/<node>`` without a cluster id) and sets its limits
  to the node's allocatable. The cluster id keeps two clusters on one host
  apart: both have a ``node-1``, and sharing its cgroup would let one rewrite
  (or, when it stops, remove) the other's limits:

  - **cgroup v1** (``<root>/cpu`` or ``<root>/cpu,cpuacct``, and
    ``<root>/memory``): ``cpu.cfs_period_us`` = 100000 and
    ``cpu.cfs_quota_us`` = millicores * 100 in the cpu hierarchy,
    ``memory.limit_in_bytes`` in the memory one;
  - **cgroup v2** (``<root>/cgroup.controllers`` exists): ``cpu.max`` =
    ``<quota> 100000`` and ``memory.max``, after enabling ``+cpu +memory``
    in ``cgroup.subtree_control`` of the root, of every level down to the
    node's cgroup (so the pods' cgroups below it get the controllers).

  It returns the cgroup parent for sandboxes (``/minikube-py/<cluster>/<node>``,
  the path below the root of each hierarchy), or ``""`` when the host does not
  allow it (no permission, read-only cgroupfs, controller missing, no
  cgroupfs at all). That is logged as ONE warning per cgroup root per process,
  saying that CPU and memory are then held only by scheduling; the kubelet
  goes on. Existing cgroups are reused and their limits rewritten.
* :meth:`~NodeCgroup.teardown` removes the node's cgroup (and the levels
  above it that are left empty) only when it is empty: a cgroup
  that still holds a container (a stopped kubelet leaves them running) is
  kept, silently.
* ``root=None`` disables all of it (``setup`` returns ``""``). Tests point
  ``root`` at a directory tree mimicking cgroupfs files.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from pathlib import Path

__all__ = ["CGROUP_PARENT", "CPU_PERIOD_US", "DEFAULT_CGROUP_ROOT", "NodeCgroup"]

log = logging.getLogger(__name__)

DEFAULT_CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The cgroup every node's cgroup lives under.
CGROUP_PARENT = "minikube-py"
#: The CFS period (microseconds) the quota is expressed against.
CPU_PERIOD_US = 100_000
_CONTROLLERS = ("cpu", "memory")

_warned: set[str] = set()
_warned_lock = threading.Lock()


class _Unavailable(Exception):
    """The host does not let us create or limit the node's cgroup."""


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as exc:
        raise _Unavailable(f"cannot write {path}: {exc.strerror or exc}") from exc


def _mkdir(path: Path) -> bool:
    """Create ``path``; True if it did not exist."""
    try:
        path.mkdir()
    except FileExistsError:
        return False
    except OSError as exc:
        raise _Unavailable(f"cannot create {path}: {exc.strerror or exc}") from exc
    return True


def _remove_if_empty(path: Path) -> bool:
    """rmdir a cgroup with no child cgroups; True if it is gone."""
    if not path.is_dir():
        return True
    try:
        if any(p.is_dir() for p in path.iterdir()):
            return False
        os.rmdir(path)
    except OSError as exc:
        if exc.errno != errno.ENOTEMPTY:
            return False  # EBUSY: it still holds processes
        # Not a cgroupfs (where rmdir ignores the control files): a test tree.
        try:
            for p in path.iterdir():
                p.unlink()
            os.rmdir(path)
        except OSError:
            return False
    return True


class NodeCgroup:
    """The cgroup of one virtual node (see the module contract)."""

    def __init__(self, node: str, *, cpu_millis: int, memory_bytes: int,
                 root: Path | None = DEFAULT_CGROUP_ROOT, cluster: str = "") -> None:
        if "/" in node or "/" in cluster or node in ("", ".", "..") or cluster in (".", ".."):
            raise ValueError(f"node {node!r} / cluster {cluster!r}: not a cgroup name")
        self.node = node
        self.cluster = cluster
        self.cpu_millis = cpu_millis
        self.memory_bytes = memory_bytes
        self.root = Path(root) if root is not None else None
        #: What sandboxes get as ``cgroup_parent`` ("" until set up, or if unavailable).
        self.parent = ""
        #: ``v1``, ``v2`` or ``None`` (not set up).
        self.version: str | None = None
        self._node_dirs: list[Path] = []

    @property
    def relative_path(self) -> str:
        return "/".join(self._levels)

    @property
    def _levels(self) -> list[str]:
        """The path below the hierarchy's root, one directory per level."""
        return [CGROUP_PARENT, *([self.cluster] if self.cluster else []), self.node]

    @property
    def quota_us(self) -> int:
        return max(1000, self.cpu_millis * CPU_PERIOD_US // 1000)

    def setup(self) -> str:
        """Create and limit the node's cgroup; its parent path, or ``""``."""
        if self.root is None:
            return ""
        try:
            if (self.root / "cgroup.controllers").is_file():
                self._setup_v2(self.root)
                self.version = "v2"
            else:
                cpu = next((self.root / n for n in ("cpu", "cpu,cpuacct")
                            if (self.root / n).is_dir()), None)
                memory = self.root / "memory"
                if cpu is None or not memory.is_dir():
                    raise _Unavailable(f"no cgroup v2 and no cgroup v1 cpu and memory "
                                       f"hierarchies under {self.root}")
                self._setup_v1(cpu, memory)
                self.version = "v1"
        except _Unavailable as exc:
            self._warn(str(exc))
            self.parent = ""
            return ""
        # Absolute: Podman's cgroupfs manager reads a relative parent as relative to
        # conmon's own cgroup, nesting the pod somewhere unexpected.
        self.parent = "/" + self.relative_path
        log.info("node %s: cgroup %s (%s): cpu %dm, memory %d bytes", self.node,
                 self.parent, self.version, self.cpu_millis, self.memory_bytes)
        return self.parent

    def _setup_v1(self, cpu: Path, memory: Path) -> None:
        cpu_dir = cpu / self.relative_path
        mem_dir = memory / self.relative_path
        for hierarchy in (cpu, memory):
            d = hierarchy
            for level in self._levels:
                d = d / level
                _mkdir(d)
            self._node_dirs.append(d)
        _write(cpu_dir / "cpu.cfs_period_us", str(CPU_PERIOD_US))
        _write(cpu_dir / "cpu.cfs_quota_us", str(self.quota_us))
        _write(mem_dir / "memory.limit_in_bytes", str(self.memory_bytes))

    def _setup_v2(self, root: Path) -> None:
        available = (root / "cgroup.controllers").read_text().split()
        missing = [c for c in _CONTROLLERS if c not in available]
        if missing:
            raise _Unavailable(f"cgroup v2 controller(s) {', '.join(missing)} not available "
                               f"in {root}")
        self._enable(root)
        node_dir = root
        for level in self._levels:
            node_dir = node_dir / level
            _mkdir(node_dir)
            if level != self.node:
                self._enable(node_dir)
        self._node_dirs.append(node_dir)
        _write(node_dir / "cpu.max", f"{self.quota_us} {CPU_PERIOD_US}")
        _write(node_dir / "memory.max", str(self.memory_bytes))
        self._enable(node_dir)

    @staticmethod
    def _enable(cgroup: Path) -> None:
        control = cgroup / "cgroup.subtree_control"
        try:
            enabled = control.read_text().split()
        except FileNotFoundError:
            enabled = []
        except OSError as exc:
            raise _Unavailable(f"cannot read {control}: {exc.strerror or exc}") from exc
        wanted = [f"+{c}" for c in _CONTROLLERS if c not in enabled]
        if wanted:
            _write(control, " ".join(wanted))

    def _warn(self, why: str) -> None:
        key = str(self.root)
        with _warned_lock:
            first = key not in _warned
            _warned.add(key)
        message = ("node %s: cannot create its cgroup (%s); CPU and memory of its pods are "
                   "not limited by the kernel, only by scheduling")
        if first:
            log.warning(message, self.node, why)
        else:
            log.debug(message, self.node, why)

    def teardown(self) -> None:
        """Remove the node's cgroup (and the levels above it) when empty."""
        for d in self._node_dirs:
            for _ in self._levels:
                if not _remove_if_empty(d):
                    break
                d = d.parent
        self._node_dirs = []
        self.parent = ""
