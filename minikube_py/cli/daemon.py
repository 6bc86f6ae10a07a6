"""``minikube-py daemon``: run the control plane headless until SIGTERM/SIGINT.

Contract: logs go to stderr and ``STATE_DIR/daemon.log``; a second daemon on
the same state directory exits 1 with a message naming the running one and
touches nothing; SIGTERM or SIGINT stops every part, compacts the store and
exits 0.
"""

from __future__ import annotations

import argparse
import logging
import os
import select
import signal
import socket
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from ..apiserver.server import ListenError
from ..apiserver.tls import CertificateError
from ..controlplane import DEFAULT_PORT, ControlPlane, Options, parse_listen
from ..nodes import NodeConfigError
from ..runtime.podman_service import PodmanUnavailable
from ..store.journal import JournalCorrupt
from ..store.lockfile import StateDirLocked
from ..store.snapshot import SnapshotError

log = logging.getLogger("minikube_py.daemon")


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/minikube-py``, else ``~/.local/state/minikube-py``."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state")
    return Path(base) / "minikube-py"


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "daemon", help="run the control plane headless",
        description="Run the control plane headless until SIGTERM or SIGINT.")
    add_control_plane_arguments(p)
    p.add_argument("--log-level", default="info",
                   choices=["debug", "info", "warning", "error"], help="log verbosity")
    p.set_defaults(func=run)


def add_control_plane_arguments(p: argparse.ArgumentParser) -> None:
    """The flags that shape a control plane (shared by ``daemon`` and ``tui``)."""
    p.add_argument("--state-dir", type=Path, default=None,
                   help=f"where state lives (default: {default_state_dir()})")
    p.add_argument("--listen", default=f"127.0.0.1:{DEFAULT_PORT}", metavar="HOST:PORT",
                   help=f"where the API listens (default 127.0.0.1:{DEFAULT_PORT}; port 0 picks "
                        "a free one). Anything but loopback exposes the API to the network")
    nodes = p.add_mutually_exclusive_group()
    nodes.add_argument("--nodes", type=int, default=None, metavar="N",
                       help="split the host evenly into N virtual nodes (default 3)")
    nodes.add_argument("--config", type=Path, default=None, metavar="FILE",
                       help="describe the virtual nodes one by one (YAML)")
    p.add_argument("--runtime", default="podman", choices=["podman", "fake"],
                   help="podman: real containers (default); fake: hollow nodes for tests and "
                        "scale experiments")
    p.add_argument("--podman-socket", default=None, metavar="URL",
                   help="use this Podman API socket instead of starting our own service")
    p.add_argument("--allow-privileged", action="store_true",
                   help="allow pods with securityContext.privileged")
    p.add_argument("--allow-host-paths", action="store_true",
                   help="allow hostPath volumes (they expose this machine's files to pods)")
    p.add_argument("--restart-backoff", default="10,300", metavar="BASE,CAP",
                   help="CrashLoopBackOff seconds: first delay and cap (default 10,300)")
    p.add_argument("--scheduler-config", type=Path, default=None, metavar="FILE",
                   help="a KubeSchedulerConfiguration: plugin weights, disabled plugins, "
                        "scoring strategy, percentageOfNodesToScore")
    p.add_argument("--node-monitor-grace-period", type=float, default=50.0, metavar="SECONDS",
                   help="seconds without a node heartbeat before the node is NotReady "
                        "(Unknown) and tainted unreachable (default 50, as Kubernetes)")
    p.add_argument("--default-toleration-seconds", type=int, default=300, metavar="SECONDS",
                   help="how long pods stay bound to a not-ready or unreachable node before "
                        "they are evicted and replaced (default 300, as Kubernetes; a pod's "
                        "own tolerations take precedence)")
    p.add_argument("--overcommit", action="store_true",
                   help="allow node sizes that add up to more than the host")
    p.add_argument("--fsync", action="store_true",
                   help="fsync every write (survives power loss; slower). By default a write "
                        "is acknowledged once the kernel has it, which survives any crash "
                        "of this process")


def options_from_args(args: argparse.Namespace) -> Options:
    """The :class:`Options` the control-plane flags ask for.

    Raises ValueError naming the flag when a value is wrong.
    """
    host, port = parse_listen(args.listen)
    if args.nodes is not None and args.nodes < 1:
        raise ValueError(f"--nodes {args.nodes}: there must be at least one node")
    backoff = _parse_backoff(args.restart_backoff)
    if not args.node_monitor_grace_period > 0:
        raise ValueError(f"--node-monitor-grace-period {args.node_monitor_grace_period:g}: "
                         "must be more than 0 seconds")
    if args.default_toleration_seconds < 0:
        raise ValueError(f"--default-toleration-seconds {args.default_toleration_seconds}: "
                         "must be 0 or more")
    return Options(
        state_dir=args.state_dir or default_state_dir(), host=host, port=port,
        nodes=args.nodes, config=args.config, runtime=args.runtime,
        overcommit=args.overcommit, scheduler_config=args.scheduler_config,
        podman_socket=args.podman_socket, allow_privileged=args.allow_privileged,
        allow_host_paths=args.allow_host_paths, restart_backoff=backoff,
        node_grace_period=args.node_monitor_grace_period,
        default_toleration_seconds=args.default_toleration_seconds,
        durability="fsync" if args.fsync else "flush")


def _parse_backoff(value: str) -> tuple[float, float]:
    try:
        base, cap = (float(v) for v in value.split(","))
    except ValueError:
        raise ValueError(f"--restart-backoff {value!r}: expected BASE,CAP in seconds, "
                         "e.g. 10,300") from None
    if not 0 < base <= cap:
        raise ValueError(f"--restart-backoff {value!r}: need 0 < BASE <= CAP")
    return base, cap


class _StateLogHandler(logging.FileHandler):
    """``daemon.log`` on a disk that may fill up or turn read-only.

    Python's handler prints a traceback to stderr for every record it cannot
    write, burying the daemon's own messages (which stderr still gets). Instead:
    one line when writing starts failing, one when it works again.
    """

    _failing = False
    _failed_now = False

    def emit(self, record: logging.LogRecord) -> None:
        self._failed_now = False
        super().emit(record)
        if self._failing and not self._failed_now:
            self._failing = False
            sys.stderr.write(f"{self.baseFilename}: writable again; logging to it resumes\n")

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            super().handleError(record)
            return
        self._failed_now = True
        if not self._failing:
            self._failing = True
            sys.stderr.write(f"cannot write {self.baseFilename}: {exc.strerror}; its records "
                             "go to stderr only until it can be written again\n")


def _setup_logging(state_dir: Path, level: str) -> None:
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    root = logging.getLogger()
    root.setLevel(level.upper())
    for handler in (logging.StreamHandler(sys.stderr),
                    _StateLogHandler(state_dir / "daemon.log")):
        handler.setFormatter(fmt)
        root.addHandler(handler)


def run(args: argparse.Namespace) -> int:
    try:
        options = options_from_args(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    state_dir = options.state_dir
    try:
        state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        print(f"error: cannot create state directory {state_dir}: {exc.strerror}",
              file=sys.stderr)
        return 1
    try:
        _setup_logging(state_dir, args.log_level)
    except OSError as exc:  # e.g. a read-only state directory: say so, no traceback
        print(f"error: cannot write to state directory {state_dir}: {exc.strerror}",
              file=sys.stderr)
        return 1
    plane = ControlPlane(options)
    try:
        plane.start()
    except (StateDirLocked, NodeConfigError, ValueError, PodmanUnavailable,
            CertificateError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (JournalCorrupt, SnapshotError) as exc:
        log.error("cannot load state: %s", exc)
        return 1
    except ListenError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1

    try:
        with SignalWaiter((signal.SIGTERM, signal.SIGINT)) as waiter:
            log.info("minikube-py daemon running (pid %d); stop it with Ctrl-C or SIGTERM",
                     os.getpid())
            signum = waiter.wait()
            log.info("received %s, shutting down", signal.Signals(signum).name)
    finally:
        plane.stop()
    return 0


class SignalWaiter:
    """Blocks the main thread until one of ``signals`` arrives, whichever thread
    the kernel hands it to.

    A signal sent to the process goes to any one of its threads. Python runs its
    handler in the main thread, but only when that thread next runs bytecode: a
    main thread blocked in a lock wait (``Event.wait``) is not woken when the
    signal lands on another thread, and the daemon would ignore SIGTERM. Here the
    C-level handler's wakeup fd (written from whichever thread took the signal)
    is what the main thread blocks on, so it always wakes. Must be used from the
    main thread; restores the previous handlers and wakeup fd on exit.
    """

    def __init__(self, signals: tuple[signal.Signals, ...]) -> None:
        self.signals = {int(s) for s in signals}
        self._read, self._write = socket.socketpair()
        self._previous: dict[int, Any] = {}
        self._previous_fd = -1

    def __enter__(self) -> SignalWaiter:
        self._write.setblocking(False)  # set_wakeup_fd requires it
        self._previous_fd = signal.set_wakeup_fd(self._write.fileno(),
                                                 warn_on_full_buffer=False)
        for signum in self.signals:
            # A Python handler must be installed for the C handler (and so the
            # wakeup byte) to run at all; the work is done in wait().
            self._previous[signum] = signal.signal(signum, _ignore)
        return self

    def wait(self) -> int:
        """The number of the first of ``signals`` to arrive."""
        while True:
            select.select([self._read], [], [])
            for signum in self._read.recv(64):
                if signum in self.signals:
                    return signum

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(self._previous_fd)
        self._read.close()
        self._write.close()


def _ignore(_signum: int, _frame: FrameType | None) -> None:
    """The Python-level handler: nothing to do, :meth:`SignalWaiter.wait` reacts."""
