"""``minikube-py tui``: the dashboard, over an in-process control plane or a daemon.

Registered through the ``minikube_py.commands`` entry point, so the CLI layer
never imports the dashboard.

* ``minikube-py tui [daemon flags]`` starts a control plane in this process
  (the same flags as ``daemon``, same state directory rules, same error
  messages and exit code 1 when it cannot start), then runs the dashboard
  attached to it *through its kubeconfig over HTTP*, exactly as it attaches
  to a remote daemon, so both modes run one code path. Quitting the
  dashboard stops the control plane (the store is compacted). Logs go to
  ``STATE_DIR/daemon.log`` only: the terminal belongs to the dashboard.
* ``minikube-py tui --kubeconfig FILE`` attaches to a running control plane
  and starts nothing; quitting leaves it running.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minikube_py.apiserver.server import ListenError
from minikube_py.apiserver.tls import CertificateError
from minikube_py.client.http import HTTPClient
from minikube_py.client.kubeconfig import KubeconfigError, load
from minikube_py.controlplane import ControlPlane
from minikube_py.controlplane.arguments import add_control_plane_arguments, options_from_args
from minikube_py.nodes import NodeConfigError
from minikube_py.runtime.podman_service import PodmanUnavailable
from minikube_py.store.journal import JournalCorrupt
from minikube_py.store.lockfile import StateDirLocked
from minikube_py.store.snapshot import SnapshotError

if TYPE_CHECKING:
    from .app import DashboardApp


def _dashboard() -> type[DashboardApp]:
    """The app class, imported on use: every ``minikube-py`` command (the daemon
    among them) registers this one, and Textual and Rich cost ~7 MB of memory
    and a tenth of a second to import."""
    from .app import DashboardApp

    return DashboardApp


def register(commands: Any) -> None:
    """Add the ``tui`` command to the CLI's subcommands."""
    p: argparse.ArgumentParser = commands.add_parser(
        "tui", help="the dashboard: start a control plane and watch it live",
        description="Start the control plane in this process (same flags as daemon) and "
                    "show the dashboard; with --kubeconfig, attach to a running one instead.")
    add_control_plane_arguments(p)
    p.add_argument("--kubeconfig", type=Path, default=argparse.SUPPRESS,
                   help="attach to the control plane of this kubeconfig instead of starting "
                        "one (the control-plane flags are then ignored)")
    p.add_argument("--log-level", default="info",
                   choices=["debug", "info", "warning", "error"],
                   help="verbosity of STATE_DIR/daemon.log")
    p.set_defaults(func=run)


def _log_to_file(path: Path, level: str) -> None:
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.setLevel(level.upper())
    root.addHandler(handler)


def attach(kubeconfig: Path) -> int:
    """Run the dashboard against the control plane of ``kubeconfig``."""
    try:
        endpoint = load(kubeconfig)
        client = HTTPClient(endpoint)
        client.request("GET", "/readyz")
    except (KubeconfigError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    _dashboard()(client, server=endpoint.server).run()
    return 0


def run(args: argparse.Namespace) -> int:
    kubeconfig = getattr(args, "kubeconfig", None)
    if kubeconfig:
        return attach(Path(kubeconfig))
    try:
        options = options_from_args(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        options.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        print(f"error: cannot create state directory {options.state_dir}: {exc.strerror}",
              file=sys.stderr)
        return 1
    _log_to_file(options.state_dir / "daemon.log", args.log_level)
    plane = ControlPlane(options)
    print(f"starting the control plane in {options.state_dir} ...", file=sys.stderr)
    try:
        plane.start()
    except (StateDirLocked, NodeConfigError, ValueError, PodmanUnavailable, ListenError,
            CertificateError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (JournalCorrupt, SnapshotError) as exc:
        print(f"error: cannot load state: {exc}", file=sys.stderr)
        return 1
    try:
        endpoint = load(plane.kubeconfig_path)
        _dashboard()(HTTPClient(endpoint), server=endpoint.server).run()
    finally:
        plane.stop()
    print(f"control plane stopped; kubeconfig was {plane.kubeconfig_path}", file=sys.stderr)
    return 0
