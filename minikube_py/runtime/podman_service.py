"""Finding or starting the Podman API service, and checking the host can run containers.

Two ways to get a Podman service:

* **Given** (``socket=`` or ``$MINIKUBE_PY_PODMAN_SOCKET``): a socket path or
  URL of a running service (``systemctl start podman.socket`` gives
  ``/run/podman/podman.sock``). We only talk to it.
* **Our own** (the default): ``podman system service --time=0
  unix://STATE_DIR/podman/podman.sock`` as a child process (fixed argv, never a
  shell), with ``CONTAINERS_CONF`` pointing at a ``containers.conf`` we write
  in ``STATE_DIR/podman/``. That file sets what this host needs and nothing
  else (Podman 4.3 reads only that file when ``CONTAINERS_CONF`` is set, so
  settings of a system ``/etc/containers/containers.conf`` do not apply to our
  service): ``default_ulimits`` (for the pods' infra containers, which take
  no per-container limits) and the OCI runtime. :meth:`PodmanService.stop`
  ends it (SIGTERM, SIGKILL after 1 s).

  Our own service is **supervised**: if it exits while we did not ask it to
  (killed, crashed), a supervisor thread logs it (``the Podman service (pid N)
  was killed by signal 9; restarting it in 1 s ...``, or ``exited with code
  C``) and starts it again on the same socket with the
  same ``containers.conf``, with a back-off from 1 s up to 30 s while it keeps
  dying. Containers outlive the service (conmon holds them), so the kubelets
  only see the API disappear for a moment: they log that the runtime does not
  answer, and resync every pod when it is back. A service we were given is not
  ours to restart.

What hosts need, measured (and handled here by detection, never by changing
system configuration):

* Podman gives containers RLIMIT_NOFILE and RLIMIT_NPROC of 1048576. Where
  the service lacks CAP_SYS_RESOURCE (in a container, say), runc may not raise
  a limit above the service's hard limit and fails with ``error setting
  rlimit type 7 (nofile)`` (6 is nproc). So containers get nofile = the
  process's hard limit, nproc = min(hard limit, ``kernel.pid_max``).
* crun refuses hybrid cgroup hierarchies ("cgroups in hybrid mode not
  supported"); runc works there, so we pick runc when crun would be used.

:meth:`PodmanService.check` verifies all of it once at startup and reports in
*one* message everything that is missing (Podman, runc, busybox-static, a
socket that does not answer, an OCI runtime that cannot run a container) and
what was adapted. The probe runs a real pod with a busybox container, with
the chosen limits and runtime; on an rlimit error it lowers that limit, on
crun's hybrid-cgroups error it switches to runc, and tries again (a few
times). The pure planning functions (:func:`detect_host`, :func:`plan_engine`,
:func:`adapt_plan`, :func:`containers_conf`) are unit-tested without Podman.

Control plane usage::

    service = PodmanService(state_dir)
    check = service.check()            # raises PodmanUnavailable(message)
    log.info("%s", check.message)
    runtime = PodmanRuntime(check.base_url, state_dir=state_dir,
                            ulimits=check.ulimits, oci_runtime=check.oci_runtime)
    ...
    service.stop()
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import re
import resource
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from . import images
from .base import (
    LABEL_NAME,
    LABEL_NAMESPACE,
    LABEL_NODE,
    LABEL_POD_UID,
    ContainerConfig,
    ContainerRuntimeError,
    SandboxConfig,
)
from .images import BUSYBOX_REPO
from .podman import PodmanRuntime
from .podman_api import PodmanAPI, normalize_url
from .podman_oom import KernelOomLog

__all__ = [
    "PODMAN_DEFAULT_RLIMIT",
    "SOCKET_ENV",
    "EnginePlan",
    "HostCheck",
    "HostFacts",
    "PodmanService",
    "PodmanUnavailable",
    "adapt_plan",
    "cgroup_mode",
    "containers_conf",
    "detect_host",
    "plan_engine",
    "rlimit_error",
]

log = logging.getLogger(__name__)

#: Environment variable naming a Podman socket (path or URL) to use instead of our own.
SOCKET_ENV = "MINIKUBE_PY_PODMAN_SOCKET"
#: What Podman gives containers for nofile and nproc unless told otherwise.
PODMAN_DEFAULT_RLIMIT = 1_048_576
#: Lowest limit the probe lowers to before it gives up.
_MIN_RLIMIT = 1024
_PROBE_ATTEMPTS = 6
_START_TIMEOUT = 30.0
#: Seconds our Podman service gets to exit on SIGTERM before SIGKILL. Short: it
#: waits for in-flight requests, and a container stop in progress can take its
#: whole grace period; the container keeps its state and our next start finishes it.
_STOP_GRACE = 1.0
#: Pause before restarting our service after it died, doubled while it keeps dying
#: (within :data:`_RESTART_STABLE` seconds of its start), up to the cap.
_RESTART_DELAY = 1.0
_RESTART_DELAY_CAP = 30.0
_RESTART_STABLE = 60.0
_MIN_PODMAN = (4, 0)
_MAX_SOCKET_PATH = 100
INSTALL_HINT = "apt-get install podman runc"
# Linux resource numbers as runc reports them ("error setting rlimit type 7").
_RLIMIT_NUMBERS = {6: "nproc", 7: "nofile"}
_RLIMIT_NAMES = {"RLIMIT_NPROC": "nproc", "RLIMIT_NOFILE": "nofile"}
_RUNTIME_DIRS = ("/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin",
                 "/usr/libexec/podman", "/usr/lib/cri-o-runc/sbin")


class PodmanUnavailable(ContainerRuntimeError):
    """Podman cannot run minikube-py's containers here; the message says
    everything that is missing and how to get it."""


# ---------------------------------------------------------------------- pure planning


@dataclass(frozen=True, slots=True)
class HostFacts:
    """What the plan depends on, read from the host by :func:`detect_host`."""

    nofile_hard: int
    nproc_hard: int
    pid_max: int
    cgroups: str  # "unified", "hybrid" or "legacy"
    crun: str | None  # path, if installed
    runc: str | None


@dataclass(frozen=True, slots=True)
class EnginePlan:
    """The limits and OCI runtime containers get, and why."""

    ulimits: Mapping[str, tuple[int, int]]
    oci_runtime: str | None  # None: Podman's default
    notes: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def _limit(value: int) -> int:
    """An rlimit value, with RLIM_INFINITY as "no bound" (a huge number)."""
    return 1 << 62 if value < 0 or value == resource.RLIM_INFINITY else value


def cgroup_mode(mountinfo: str) -> str:
    """``unified`` (cgroup v2 only), ``hybrid`` (v1 controllers plus a v2
    hierarchy at ``/sys/fs/cgroup/unified``) or ``legacy`` (v1 only), from the
    text of ``/proc/self/mountinfo``."""
    types: dict[str, str] = {}
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5 or not right.split():
            continue
        types[fields[4]] = right.split()[0]
    if types.get("/sys/fs/cgroup") == "cgroup2":
        return "unified"
    if types.get("/sys/fs/cgroup/unified") == "cgroup2":
        return "hybrid"
    return "legacy"


def _which(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for directory in _RUNTIME_DIRS:
        path = os.path.join(directory, name)
        if os.access(path, os.X_OK):
            return path
    return None


def detect_host() -> HostFacts:
    """Read :class:`HostFacts` from this process and host."""
    try:
        pid_max = int(Path("/proc/sys/kernel/pid_max").read_text().strip())
    except (OSError, ValueError):
        pid_max = 32768  # the kernel's default
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text()
    except OSError:
        mountinfo = ""
    return HostFacts(nofile_hard=_limit(resource.getrlimit(resource.RLIMIT_NOFILE)[1]),
                     nproc_hard=_limit(resource.getrlimit(resource.RLIMIT_NPROC)[1]),
                     pid_max=pid_max, cgroups=cgroup_mode(mountinfo),
                     crun=_which("crun"), runc=_which("runc"))


def plan_engine(facts: HostFacts) -> EnginePlan:
    """The first plan: limits within what the host allows, and a runtime that
    works on its cgroups."""
    notes: list[str] = []
    problems: list[str] = []
    runtime: str | None = None
    if facts.crun is None and facts.runc is None:
        problems.append(f"no OCI runtime (runc or crun) is installed: {INSTALL_HINT}")
    elif facts.cgroups == "hybrid" and facts.crun is not None:
        if facts.runc is not None:
            runtime = "runc"
            notes.append("crun cannot run containers on this host's hybrid cgroups; using runc")
        else:
            problems.append("crun cannot run containers on this host's hybrid cgroups and "
                            "runc is not installed: apt-get install runc")
    elif facts.crun is None:
        runtime = "runc"
    nofile = min(facts.nofile_hard, PODMAN_DEFAULT_RLIMIT)
    if nofile < PODMAN_DEFAULT_RLIMIT:
        notes.append(f"container nofile limit set to {nofile} (host hard limit)")
    nproc = min(facts.nproc_hard, facts.pid_max, PODMAN_DEFAULT_RLIMIT)
    if nproc < PODMAN_DEFAULT_RLIMIT:
        why = "kernel.pid_max" if facts.pid_max <= facts.nproc_hard else "host hard limit"
        notes.append(f"container nproc limit set to {nproc} ({why})")
    return EnginePlan({"nofile": (nofile, nofile), "nproc": (nproc, nproc)}, runtime,
                      tuple(notes), tuple(problems))


_RLIMIT_TYPE = re.compile(r"rlimit(?:s)?(?: for [a-z ]+)?:? type (\d+)|setting rlimit type (\d+)")
_RLIMIT_NAME = re.compile(r"(RLIMIT_[A-Z]+)")


def rlimit_error(message: str) -> str | None:
    """The limit (``nofile``/``nproc``) an OCI runtime error complains about."""
    if "rlimit" not in message.lower():
        return None
    m = _RLIMIT_TYPE.search(message)
    if m:
        return _RLIMIT_NUMBERS.get(int(m.group(1) or m.group(2)))
    m = _RLIMIT_NAME.search(message)
    if m:
        return _RLIMIT_NAMES.get(m.group(1))
    return None


def _is_crun_hybrid(message: str) -> bool:
    return "hybrid mode not supported" in message or (
        "crun" in message and "hybrid" in message and "cgroup" in message)


def adapt_plan(plan: EnginePlan, facts: HostFacts, error: str) -> EnginePlan | None:
    """The plan to try after the probe failed with ``error``, or ``None`` when
    nothing we may change would help."""
    if _is_crun_hybrid(error) and plan.oci_runtime != "runc" and facts.runc is not None:
        return replace(plan, oci_runtime="runc", notes=(
            *plan.notes, "crun cannot run containers on this host's hybrid cgroups; using runc"))
    kind = rlimit_error(error)
    if kind is not None and kind in plan.ulimits:
        current = plan.ulimits[kind][1]
        host = facts.nofile_hard if kind == "nofile" else min(facts.nproc_hard, facts.pid_max)
        # Above what this process may set: go there at once; else halve (a service
        # we did not start may run with lower limits than ours).
        lowered = host if current > host else max(_MIN_RLIMIT, current // 2)
        if lowered >= current:
            return None
        limits = dict(plan.ulimits)
        limits[kind] = (lowered, lowered)
        notes = [n for n in plan.notes if not n.startswith(f"container {kind} limit")]
        notes.append(f"container {kind} limit lowered to {lowered} "
                     f"(the OCI runtime may not set {current} here)")
        return replace(plan, ulimits=limits, notes=tuple(notes))
    return None


#: Seconds an ended exec session stays in Podman (``engine.exit_command_delay``).
EXEC_SESSION_LINGER = 2


def containers_conf(plan: EnginePlan) -> str:
    """The ``containers.conf`` our own service runs with."""
    lines = ["# Written by minikube-py (minikube_py/runtime/podman_service.py) for the Podman",
             "# service it starts; regenerated at every start.", "", "[containers]"]
    limits = ", ".join(f'"{kind}={soft}:{hard}"'
                       for kind, (soft, hard) in sorted(plan.ulimits.items()))
    lines.append(f"default_ulimits = [{limits}]")
    # Podman removes an exec session made through its API this long after the
    # process exits (default 5 minutes, "to mimic Docker"); we read the exit
    # code the moment the output ends, so 2 s keeps exec probes and
    # ``kubectl exec`` from piling sessions up on the container.
    lines += ["", "[engine]", f"exit_command_delay = {EXEC_SESSION_LINGER}"]
    if plan.oci_runtime:
        lines.append(f'runtime = "{plan.oci_runtime}"')
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class HostCheck:
    """A usable Podman: where it is and how containers must be run there."""

    base_url: str
    podman_version: str
    ulimits: Mapping[str, tuple[int, int]]
    oci_runtime: str | None
    own_service: bool
    notes: tuple[str, ...] = ()
    images_built: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        """The startup line(s) for the log."""
        whose = "own service" if self.own_service else "external service"
        head = (f"Podman {self.podman_version} ready at {self.base_url} ({whose}; "
                f"OCI runtime {self.oci_runtime or 'Podman default'})")
        extra = [f"  adapted: {n}" for n in self.notes]
        extra += [f"  built image {i}" for i in self.images_built]
        extra += [f"  warning: {w}" for w in self.warnings]
        return "\n".join([head, *extra])


def _unavailable(problems: list[str], notes: tuple[str, ...]) -> PodmanUnavailable:
    lines = ["Podman cannot run minikube-py's containers on this host:"]
    lines += [f"  - {p}" for p in problems]
    if notes:
        lines.append("already adapted: " + "; ".join(notes))
    return PodmanUnavailable("\n".join(lines))


# ---------------------------------------------------------------------- the service


class PodmanService:
    """Our own Podman API service, or the one named by ``socket``."""

    def __init__(self, state_dir: Path, *, socket: str | None = None,
                 podman: str | None = None) -> None:
        self.state_dir = Path(state_dir)
        self.dir = self.state_dir / "podman"
        given = socket if socket is not None else os.environ.get(SOCKET_ENV) or None
        self.external_url = normalize_url(given) if given else None
        self._podman = podman
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._facts: HostFacts | None = None
        self._plan: EnginePlan | None = None
        self.base_url: str | None = None
        # Guards _proc and _log between stop() and the supervisor's restarts.
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None
        #: How many times the supervisor restarted the service (for logs and tests).
        self.restarts = 0

    # ------------------------------------------------------------------ paths

    @property
    def socket_path(self) -> Path:
        path = self.dir / "podman.sock"
        if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
            return path
        # A unix socket path must fit in 108 bytes: deep state dirs get a short one.
        digest = hashlib.sha256(os.fsencode(self.dir.resolve())).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"minikube-py-{digest}" / "podman.sock"

    @property
    def conf_path(self) -> Path:
        return self.dir / "containers.conf"

    @property
    def log_path(self) -> Path:
        return self.dir / "service.log"

    @property
    def pid_path(self) -> Path:
        return self.dir / "service.pid"

    def podman_binary(self) -> str | None:
        return self._podman or _which("podman")

    @property
    def plan(self) -> EnginePlan:
        if self._plan is None:
            self._facts = detect_host()
            self._plan = plan_engine(self._facts)
        return self._plan

    # ------------------------------------------------------------------ start / stop

    def start(self, timeout: float = _START_TIMEOUT) -> str:
        """The service's base URL; starts our own service unless one was given."""
        if self.base_url is not None:
            return self.base_url
        if self.external_url is not None:
            self._wait_ready(self.external_url, timeout, proc=None)
            self.base_url = self.external_url
            return self.base_url
        podman = self.podman_binary()
        if podman is None:
            raise PodmanUnavailable(f"podman is not installed: {INSTALL_HINT}")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.socket_path.parent.mkdir(parents=True, exist_ok=True)
        self._stop_stale()
        self.conf_path.write_text(containers_conf(self.plan))
        url = f"unix://{self.socket_path}"
        self._stopping.clear()
        with self._lock:
            proc = self._launch(podman, url)
        atexit.register(self.stop)  # a crashing caller must not leave it behind
        try:
            self._wait_ready(url, timeout, proc=proc)
        except BaseException:
            self.stop()
            raise
        self.base_url = url
        self._supervisor = threading.Thread(target=self._supervise, args=(podman, url),
                                            name="podman-service-supervisor", daemon=True)
        self._supervisor.start()
        return url

    def _launch(self, podman: str, url: str) -> subprocess.Popen[bytes]:
        """Start ``podman system service`` on ``url`` (caller holds ``_lock``)."""
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()  # a dead service's socket would refuse connections
        env = dict(os.environ, CONTAINERS_CONF=str(self.conf_path))
        if self._log is None:
            self._log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the child's life
        self._log.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} starting {podman} "
                        f"system service {url}\n".encode())
        self._log.flush()
        # Own session: a Ctrl-C meant for us must not kill the service under the
        # containers before we have stopped what we run.
        self._proc = subprocess.Popen(
            [podman, "system", "service", "--time=0", url], cwd=self.dir, env=env,
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.pid_path.write_text(f"{self._proc.pid}\n")
        return self._proc

    def _supervise(self, podman: str, url: str) -> None:
        """Restart our service whenever it exits without :meth:`stop` (see the module
        docstring). Blocks in ``wait()`` on the child: no polling while it runs."""
        delay = _RESTART_DELAY
        while True:
            with self._lock:
                proc = self._proc
            if proc is None or self._stopping.is_set():
                return
            started = time.monotonic()
            code = proc.wait()
            if self._stopping.is_set():
                return
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            if time.monotonic() - started >= _RESTART_STABLE:
                delay = _RESTART_DELAY
            log.error("the Podman service (pid %d) %s; restarting it in %.0f s on %s "
                      "(containers keep running; kubelets resync when it answers): %s",
                      proc.pid, how, delay, url, self._log_tail(3))
            if self._stopping.wait(delay):
                return
            delay = min(delay * 2, _RESTART_DELAY_CAP)
            with self._lock:
                if self._stopping.is_set() or self._proc is not proc:
                    return
                new = self._launch(podman, url)
            try:
                self._wait_ready(url, _START_TIMEOUT, proc=new)
            except PodmanUnavailable as exc:
                log.error("the restarted Podman service does not answer yet: %s", exc)
                continue  # wait() on it returns at once if it died: back off, again
            self.restarts += 1
            log.warning("the Podman service is back (pid %d, restart %d) on %s",
                        new.pid, self.restarts, url)

    def _wait_ready(self, url: str, timeout: float, *,
                    proc: subprocess.Popen[bytes] | None) -> None:
        api = PodmanAPI(url, timeout=2.0)
        deadline = time.monotonic() + timeout
        last = ""
        try:
            while True:
                if proc is not None and proc.poll() is not None:
                    raise PodmanUnavailable(
                        f"podman system service exited with code {proc.returncode}: "
                        f"{self._log_tail()}")
                try:
                    response = api.call("GET", "/_ping")
                    if response.status_code == 200:
                        return
                    last = f"HTTP {response.status_code}"
                except ContainerRuntimeError as exc:
                    last = str(exc)
                if time.monotonic() >= deadline:
                    raise PodmanUnavailable(f"the Podman socket {url} does not answer ({last})")
                time.sleep(0.1)
        finally:
            api.close()

    def _log_tail(self, lines: int = 5) -> str:
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(text[-lines:]) or "(empty log)"

    def _stop_stale(self) -> None:
        """End a service a previous run of ours left behind (same socket path)."""
        try:
            pid = int(self.pid_path.read_text().strip())
        except (OSError, ValueError):
            return
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            cmdline = []
        if f"unix://{self.socket_path}".encode() in cmdline:
            _terminate(pid)
        with contextlib.suppress(FileNotFoundError):
            self.pid_path.unlink()

    def stop(self) -> None:
        """Stop our own service (SIGTERM, SIGKILL after 1 s) and its supervisor;
        containers keep running."""
        self._stopping.set()
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None:
            atexit.unregister(self.stop)
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(_STOP_GRACE)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5.0)
            with contextlib.suppress(FileNotFoundError):
                self.pid_path.unlink()
            with contextlib.suppress(FileNotFoundError):
                self.socket_path.unlink()
            if self.socket_path.parent != self.dir:
                with contextlib.suppress(OSError):
                    self.socket_path.parent.rmdir()
        supervisor, self._supervisor = self._supervisor, None
        if supervisor is not None and supervisor is not threading.current_thread():
            # It wakes from wait() (the child is gone) or from _stopping: at once,
            # unless it is waiting for a restarted service to answer.
            supervisor.join(_START_TIMEOUT + 1)
        with self._lock:
            if self._log is not None:
                self._log.close()
                self._log = None
        if self.external_url is None:
            self.base_url = None

    def restart(self) -> str:
        self.stop()
        return self.start()

    def __enter__(self) -> PodmanService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ the check

    def check(self, *, images_dir: Path | None = None) -> HostCheck:
        """Start (or reach) the service, build the local images, and run a probe
        pod. Returns how containers must be run; raises :class:`PodmanUnavailable`
        listing everything that is missing."""
        try:
            return self._check(images_dir)
        except PodmanUnavailable:
            self.stop()  # our own service is of no use then
            raise

    def _check(self, images_dir: Path | None) -> HostCheck:
        problems: list[str] = []
        podman = self.podman_binary()
        if podman is None and self.external_url is None:
            problems.append(f"podman is not installed: {INSTALL_HINT}")
        plan = self.plan
        problems.extend(plan.problems)
        busybox_problem = images.busybox_problem(images.HOST_BUSYBOX)
        if podman is None and self.external_url is None:
            if busybox_problem:
                problems.append(busybox_problem)
            raise _unavailable(problems, plan.notes)
        try:
            url = self.start()
        except PodmanUnavailable as exc:
            problems.append(str(exc))
            raise _unavailable(problems, plan.notes) from None
        api = PodmanAPI(url)
        try:
            version = self._version(api, problems)
            built: list[str] = []
            try:
                built = images.ensure_images(url, images_dir=images_dir)
            except images.ImageBuildError as exc:
                problems.append(str(exc))
            if problems:
                raise _unavailable(problems, plan.notes)
            plan = self._probe(plan, problems)
            if problems:
                raise _unavailable(problems, plan.notes)
        finally:
            api.close()
        warnings = self._warnings()
        return HostCheck(url, version, dict(plan.ulimits), plan.oci_runtime,
                         self.external_url is None, plan.notes, tuple(built), warnings)

    @staticmethod
    def _version(api: PodmanAPI, problems: list[str]) -> str:
        try:
            data = api.json("GET", "/version", what="Podman version") or {}
        except ContainerRuntimeError as exc:
            problems.append(str(exc))
            return "unknown"
        version = str(data.get("Version") or "unknown")
        parts = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
        if len(parts) == 2 and parts < _MIN_PODMAN:
            problems.append(f"Podman {version} is too old; minikube-py needs 4.0 or newer")
        return version

    @staticmethod
    def _warnings() -> tuple[str, ...]:
        kmsg = KernelOomLog()
        try:
            if kmsg.readable():
                return ()
            return (f"{kmsg.unavailable}: OOMKilled relies on Podman alone",)
        finally:
            kmsg.close()

    def _probe(self, plan: EnginePlan, problems: list[str]) -> EnginePlan:
        """Run a probe pod until it works, adapting the plan between tries."""
        facts = self._facts or detect_host()
        for _ in range(_PROBE_ATTEMPTS):
            failed = self._probe_once(plan)
            if failed is None:
                self._plan = plan
                return plan
            stage, error = failed
            # A pod's infra container takes its limits and runtime from the service's
            # containers.conf: only our own service can be adapted for it.
            adaptable = stage == "container" or self.external_url is None
            adapted = adapt_plan(plan, facts, error) if adaptable else None
            if adapted is None:
                if self.external_url is not None and stage == "sandbox":
                    problems.append(
                        f"the Podman service at {self.external_url} cannot start a pod "
                        f"({error}); fix default_ulimits/runtime in its containers.conf, or "
                        f"unset {SOCKET_ENV} to let minikube-py start its own service")
                else:
                    problems.append(f"the OCI runtime cannot run a container here: {error}")
                return plan
            plan = adapted
            if self.external_url is None:  # infra containers read the file: restart
                self._plan = plan
                self.restart()
        problems.append(f"the OCI runtime still fails after {_PROBE_ATTEMPTS} attempts")
        return plan

    def _probe_once(self, plan: EnginePlan) -> tuple[str, str] | None:
        """``None`` if a pod with a busybox container ran and exited 0, else
        ``(stage, error)`` with stage ``sandbox`` or ``container``."""
        assert self.base_url is not None
        probe_dir = self.dir / "probe"
        runtime = PodmanRuntime(self.base_url, state_dir=probe_dir, ulimits=plan.ulimits,
                                oci_runtime=plan.oci_runtime)
        uid = f"probe-{secrets.token_hex(4)}"
        sandbox_id = ""
        try:
            try:
                sandbox = runtime.run_sandbox(SandboxConfig(
                    uid=uid, namespace="minikube-py", name="host-check", node="host-check",
                    labels={LABEL_POD_UID: uid, LABEL_NAMESPACE: "minikube-py",
                            LABEL_NAME: "host-check", LABEL_NODE: "host-check"}))
            except ContainerRuntimeError as exc:
                return "sandbox", str(exc)
            sandbox_id = sandbox.id
            cid = runtime.create_container(sandbox_id, ContainerConfig(
                name="probe", image=f"{BUSYBOX_REPO}:latest",
                command=("sh", "-c", "ulimit -n >/dev/null && echo ok"),
                labels={LABEL_POD_UID: uid}))
            runtime.start_container(cid)
            status = runtime.wait_container(cid, 30.0)
            if status is None:
                return "container", "the probe container did not finish within 30 s"
            if status.exit_code != 0:
                output = b"".join(runtime.container_logs(cid, tail_lines=5)).decode(
                    errors="replace").strip()
                return "container", f"the probe container exited with {status.exit_code}: {output}"
            return None
        except ContainerRuntimeError as exc:
            return "container", str(exc)
        finally:
            if sandbox_id:
                with contextlib.suppress(ContainerRuntimeError):
                    runtime.remove_sandbox(sandbox_id)
            runtime.close()
            shutil.rmtree(probe_dir, ignore_errors=True)


def _terminate(pid: int) -> None:
    """SIGTERM ``pid``; SIGKILL if it is still there after the grace period."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + _STOP_GRACE
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
