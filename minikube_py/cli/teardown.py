"""``minikube-py teardown``: remove a cluster from this host (as ``minikube delete``).

Its pods, its pod network and its Service rules go, then (unless
``--keep-state``) its state directory. Refused while its daemon runs.
Exit 0 when done, 1 with the reason on stderr otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..controlplane.arguments import default_state_dir
from ..controlplane.teardown import teardown
from ..runtime.base import ContainerRuntimeError
from ..store.lockfile import StateDirLocked


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "teardown", help="remove a cluster from this host (pods, network, rules, state)",
        description="Remove a cluster's pods, pod network and Service rules from this host, "
                    "then its state directory. Its daemon must be stopped first.")
    p.add_argument("--state-dir", type=Path, default=None,
                   help=f"the cluster's state (default: {default_state_dir()})")
    p.add_argument("--keep-state", action="store_true",
                   help="keep the state directory (objects, certificates, kubeconfig)")
    p.add_argument("--podman-socket", default=None, metavar="URL",
                   help="use this Podman API socket instead of starting our own service")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    state = args.state_dir or default_state_dir()
    try:
        teardown(state, keep_state=args.keep_state, podman_socket=args.podman_socket)
    except (StateDirLocked, FileNotFoundError, ContainerRuntimeError, RuntimeError,
            OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
