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
from ..controlplane import ControlPlane
from ..controlplane.arguments import (
    add_control_plane_arguments,
    options_from_args,
)
from ..nodes import NodeConfigError
from ..runtime.podman_service import PodmanUnavailable
from ..store.journal import JournalCorrupt
from ..store.lockfile import StateDirLocked
from ..store.snapshot import SnapshotError
from .collector import FreezeSurvivors, freeze_start_up

log = logging.getLogger("minikube_py.daemon")


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "daemon", help="run the control plane headless",
        description="Run the control plane headless until SIGTERM or SIGINT.")
    add_control_plane_arguments(p)
    p.add_argument("--log-level", default="info",
                   choices=["debug", "info", "warning", "error"], help="log verbosity")
    p.set_defaults(func=run)


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
    freeze_start_up()
    freezer = FreezeSurvivors()
    freezer.install()

    try:
        with SignalWaiter((signal.SIGTERM, signal.SIGINT)) as waiter:
            log.info("minikube-py daemon running (pid %d); stop it with Ctrl-C or SIGTERM",
                     os.getpid())
            signum = waiter.wait()
            log.info("received %s, shutting down", signal.Signals(signum).name)
    finally:
        freezer.uninstall()
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
