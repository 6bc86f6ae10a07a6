"""What the host has (:class:`HostInfo`) and how it is doing (:class:`HostReadings`).

Both are frozen dataclasses so tests build them by hand; only the ``read``
classmethods touch the machine. Reading never fails: anything the host does not
tell us falls back to a documented default.

Limits of the container we run in count as the host's size: a cgroup CPU quota
or memory limit (v2 ``cpu.max``/``memory.max`` along our cgroup path, or v1
``cpu.cfs_quota_us``/``memory.limit_in_bytes``) and the CPU affinity mask cap
what psutil reports for the whole machine, because that is all we can use.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import os
import platform
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

__all__ = ["PIDS_PER_POD", "HostInfo", "HostReadings", "SharedReadings", "go_arch"]

#: PIDs budgeted per pod when deriving :attr:`HostInfo.pods_max`: the infra
#: process, one conmon per container and the containers' own processes and
#: threads (every thread takes a PID).
PIDS_PER_POD = 64

_CGROUP = Path("/sys/fs/cgroup")
#: cgroup v1 reports "no limit" as a huge page-aligned number near 2^63.
_V1_UNLIMITED = 2**62

#: ``uname -m`` -> Go's GOARCH, which ``kubernetes.io/arch`` uses.
_GOARCH = {
    "x86_64": "amd64",
    "amd64": "amd64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "armv7l": "arm",
    "armv6l": "arm",
    "armv8l": "arm",
    "i386": "386",
    "i486": "386",
    "i586": "386",
    "i686": "386",
    "ppc64le": "ppc64le",
    "ppc64": "ppc64",
    "s390x": "s390x",
    "riscv64": "riscv64",
    "loongarch64": "loong64",
    "mips64": "mips64",
}


def go_arch(machine: str) -> str:
    """The GOARCH name for a ``uname -m`` value (``x86_64`` -> ``amd64``).

    Unknown names are lower-cased and passed through, so an already-GOARCH
    value maps to itself.
    """
    return _GOARCH.get(machine.lower(), machine.lower() or "unknown")


@dataclass(frozen=True)
class HostInfo:
    """The machine the virtual nodes are carved from.

    ``cpu_millis`` and ``memory_bytes`` are the whole host (not yet minus the
    system reservation, see :func:`~minikube_py.nodes.system_reserved`).
    ``pods_max`` is how many pods the host can run in total, from its PID
    budget (``min(kernel.pid_max, kernel.threads-max, cgroup pids.max) //``
    :data:`PIDS_PER_POD`). ``arch`` is a GOARCH name (``amd64``).
    ``disk_bytes`` is the size of the filesystem holding the state directory
    (0 when unknown); nodes report it as ``ephemeral-storage``.
    """

    cpu_millis: int
    memory_bytes: int
    pods_max: int
    hostname: str
    kernel: str
    os_image: str
    arch: str
    boot_id: str
    machine_id: str
    ip: str
    disk_bytes: int = 0

    @classmethod
    def read(cls, state_dir: str | Path | None = None) -> HostInfo:
        """Read this machine with psutil and ``/proc``/``/etc``.

        ``state_dir`` picks the disk whose size becomes ``disk_bytes`` (the
        home directory when not given). Fallbacks: ``os_image`` "Linux",
        ``boot_id``/``machine_id`` "", ``ip`` "127.0.0.1".
        """
        cpu_millis = _host_cpus() * 1000
        quota = _cgroup_cpu_millis()
        if quota is not None:
            cpu_millis = max(1, min(cpu_millis, quota))
        memory = int(psutil.virtual_memory().total)
        limit = _cgroup_memory_limit()
        if limit is not None:
            memory = min(memory, limit)
        uname = platform.uname()
        disk_path = Path(state_dir) if state_dir is not None else Path.home()
        return cls(
            cpu_millis=cpu_millis,
            memory_bytes=memory,
            pods_max=max(1, _pid_limit() // PIDS_PER_POD),
            hostname=socket.gethostname() or uname.node or "localhost",
            kernel=uname.release,
            os_image=_os_image(),
            arch=go_arch(uname.machine),
            boot_id=_read_text(Path("/proc/sys/kernel/random/boot_id")),
            machine_id=_read_text(Path("/etc/machine-id"))
            or _read_text(Path("/var/lib/dbus/machine-id")),
            ip=primary_ipv4(),
            disk_bytes=_disk_usage(disk_path)[0],
        )


@dataclass(frozen=True)
class HostReadings:
    """A sample of the host's free resources, for node conditions.

    ``memory_available`` is bytes (the smaller of the machine's and our
    cgroup's headroom); ``disk_available_ratio`` is the fraction of the state
    disk an unprivileged user may still write (statfs ``f_bavail / f_blocks``,
    1.0 when unknown); ``pids_available`` is PIDs left, counted the way the
    kubelet counts ``pid.available`` (the PID limit minus the kernel's task
    count from ``/proc/loadavg``).
    """

    memory_available: int
    disk_available_ratio: float
    pids_available: int

    @classmethod
    def read(cls, state_dir: Path) -> HostReadings:
        """Sample now. ``state_dir`` need not exist yet: its nearest existing
        ancestor is measured."""
        available = int(psutil.virtual_memory().available)
        cgroup = _cgroup_memory_headroom()
        if cgroup is not None:
            available = min(available, cgroup)
        total, free = _disk_usage(Path(state_dir))
        ratio = free / total if total > 0 else 1.0
        return cls(
            memory_available=max(0, available),
            disk_available_ratio=min(1.0, max(0.0, ratio)),
            pids_available=_pids_available(),
        )


class SharedReadings:
    """One :meth:`HostReadings.read` for many nodes, at most every ``max_age`` s.

    Every virtual node is carved from the same host, so their kubelets read the
    same numbers; at thousands of hollow nodes, one read each per heartbeat
    would be thousands of /proc reads a second. Callable like
    ``HostReadings.read``; a sample is kept per state directory.
    """

    def __init__(self, max_age: float = 1.0, *,
                 read: Callable[[Path], HostReadings] = HostReadings.read,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_age = max_age
        self._read = read
        self._clock = clock
        self._lock = threading.Lock()
        self._samples: dict[Path, tuple[float, HostReadings]] = {}

    def __call__(self, state_dir: Path) -> HostReadings:
        now = self._clock()
        with self._lock:
            sample = self._samples.get(state_dir)
            if sample is not None and now - sample[0] < self.max_age:
                return sample[1]
        reading = self._read(state_dir)
        with self._lock:
            self._samples[state_dir] = (now, reading)
        return reading


# ----------------------------------------------------------------- helpers


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def _read_int(path: Path) -> int | None:
    """An integer file; ``None`` when missing, unreadable or ``max``."""
    text = _read_text(path)
    try:
        return int(text)
    except ValueError:
        return None


def _host_cpus() -> int:
    with contextlib.suppress(AttributeError, OSError):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, psutil.cpu_count(logical=True) or 1)


def _os_image() -> str:
    fields: dict[str, str] = {}
    for path in (Path("/etc/os-release"), Path("/usr/lib/os-release")):
        text = _read_text(path)
        if not text:
            continue
        for line in text.splitlines():
            key, sep, value = line.partition("=")
            if sep:
                fields[key.strip()] = value.strip().strip("\"'")
        break
    return fields.get("PRETTY_NAME") or fields.get("NAME") or "Linux"


def primary_ipv4() -> str:
    """The IPv4 address of the default route's interface, else the first
    non-loopback, non-link-local IPv4 of an interface that is up, else
    ``127.0.0.1``."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        # Connecting a UDP socket sends nothing; it only picks the route.
        s.connect(("192.0.2.1", 9))  # TEST-NET-1
        address = str(s.getsockname()[0])
        if _usable_ipv4(address):
            return address
    with contextlib.suppress(OSError):
        stats = psutil.net_if_stats()
        for name, addrs in sorted(psutil.net_if_addrs().items()):
            if name in stats and not stats[name].isup:
                continue
            for addr in addrs:
                if addr.family == socket.AF_INET and _usable_ipv4(addr.address):
                    return str(addr.address)
    return "127.0.0.1"


def _usable_ipv4(address: str) -> bool:
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified)


def _disk_usage(path: Path) -> tuple[int, int]:
    """(total, available-to-us) bytes of the filesystem holding ``path`` or
    its nearest existing ancestor; (0, 0) when unknown."""
    for candidate in (path, *path.parents):
        try:
            usage = psutil.disk_usage(str(candidate))
        except OSError:
            continue
        return int(usage.total), int(usage.free)
    return 0, 0


# --------------------------------------------------------------- cgroups


def _cgroup_v2_dirs() -> Iterator[Path]:
    """Our cgroup v2 directory and its ancestors up to the mount point."""
    if not (_CGROUP / "cgroup.controllers").exists():
        return
    own = ""
    for line in _read_text(Path("/proc/self/cgroup")).splitlines():
        if line.startswith("0::"):
            own = line[3:].strip().lstrip("/")
    current = _CGROUP / own if own else _CGROUP
    while True:
        yield current
        if current == _CGROUP or _CGROUP not in current.parents:
            return
        current = current.parent


def _cgroup_cpu_millis() -> int | None:
    limits: list[int] = []
    for d in _cgroup_v2_dirs():
        quota, _, period = _read_text(d / "cpu.max").partition(" ")
        if quota.isdigit() and period.strip().isdigit() and int(period) > 0:
            limits.append(math.ceil(int(quota) * 1000 / int(period)))
    v1_quota = _read_int(_CGROUP / "cpu" / "cpu.cfs_quota_us")
    v1_period = _read_int(_CGROUP / "cpu" / "cpu.cfs_period_us")
    if v1_quota is not None and v1_quota > 0 and v1_period:
        limits.append(math.ceil(v1_quota * 1000 / v1_period))
    return min(limits) if limits else None


def _cgroup_memory_limit() -> int | None:
    limits = [v for d in _cgroup_v2_dirs() if (v := _read_int(d / "memory.max")) is not None]
    v1 = _read_int(_CGROUP / "memory" / "memory.limit_in_bytes")
    if v1 is not None and v1 < _V1_UNLIMITED:
        limits.append(v1)
    return min(limits) if limits else None


def _cgroup_memory_headroom() -> int | None:
    """Bytes our cgroup may still allocate, when it has a limit."""
    headroom: list[int] = []
    for d in _cgroup_v2_dirs():
        limit, usage = _read_int(d / "memory.max"), _read_int(d / "memory.current")
        if limit is not None and usage is not None:
            headroom.append(limit - usage)
    v1_limit = _read_int(_CGROUP / "memory" / "memory.limit_in_bytes")
    v1_usage = _read_int(_CGROUP / "memory" / "memory.usage_in_bytes")
    if v1_limit is not None and v1_usage is not None and v1_limit < _V1_UNLIMITED:
        headroom.append(v1_limit - v1_usage)
    return min(headroom) if headroom else None


def _pid_limit() -> int:
    limits = [v for p in ("pid_max", "threads-max")
              if (v := _read_int(Path("/proc/sys/kernel") / p)) is not None and v > 0]
    limits.extend(v for d in _cgroup_v2_dirs() if (v := _read_int(d / "pids.max")) is not None)
    v1 = _read_int(_CGROUP / "pids" / "pids.max")
    if v1 is not None:
        limits.append(v1)
    return min(limits) if limits else 32768  # the kernel's default pid_max


def _tasks() -> int:
    """Kernel scheduling entities (processes and threads), as the kubelet
    counts them: the denominator of ``/proc/loadavg``'s fourth field."""
    fields = _read_text(Path("/proc/loadavg")).split()
    if len(fields) >= 4 and "/" in fields[3]:
        with contextlib.suppress(ValueError):
            return int(fields[3].split("/")[1])
    return len(psutil.pids())


def _pids_available() -> int:
    available = _pid_limit() - _tasks()
    for d in _cgroup_v2_dirs():
        limit, current = _read_int(d / "pids.max"), _read_int(d / "pids.current")
        if limit is not None and current is not None:
            available = min(available, limit - current)
    return max(0, available)
