"""Entry point of the ``minikube-py`` command.

Each command lives in its own module and registers its arguments here.
Commands from layers above the CLI (the Textual dashboard's ``tui``) plug in
through the ``minikube_py.commands`` entry-point group: an entry point names a
``register(commands)`` function, so this module never imports them. Exit codes
follow kubectl: 0 on success, 1 on any error, with the error on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path

from .. import __version__
from . import (
    apply,
    create,
    daemon,
    delete,
    describe_cmd,
    events,
    explain,
    get,
    logs,
    rollout,
    scale,
    service,
    teardown,
)

#: Entry points in this group add commands: ``name = "package.module:register"``.
PLUGIN_GROUP = "minikube_py.commands"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="minikube-py",
        description="A single-host, Kubernetes-shaped orchestrator.",
    )
    parser.add_argument("--version", action="version", version=f"minikube-py {__version__}")
    # Also accepted after the command (each client command repeats them).
    parser.add_argument("--kubeconfig", type=Path, default=None,
                        help="kubeconfig of the control plane (default: the daemon's)")
    parser.add_argument("-n", "--namespace", default=None, help="namespace")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (daemon, apply, create, get, describe_cmd, delete, logs, scale, rollout,
                   events, explain, service, teardown):
        module.register(commands)
    for plugin in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        try:
            plugin.load()(commands)
        except Exception as exc:  # a broken extra command must not take the others down
            print(f"warning: the {plugin.name!r} command is unavailable: {exc}",
                  file=sys.stderr)
    version = commands.add_parser("version", help="print the version")
    version.set_defaults(func=lambda _args: print(f"minikube-py {__version__}") or 0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 1
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
