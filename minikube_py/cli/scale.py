"""``minikube-py scale deployment NAME --replicas N`` through the scale subresource."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..ops.objects import scale
from .common import client_options, connect, handles_errors, namespace


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "scale", parents=[client_options()], help="set a workload's replica count",
        description="Set the number of replicas of a Deployment or ReplicaSet.")
    p.add_argument("kind", help="deployment or replicaset (or KIND/NAME)")
    p.add_argument("name", nargs="?")
    p.add_argument("--replicas", type=int, required=True)
    p.set_defaults(func=run)


@handles_errors
def run(args: argparse.Namespace) -> int:
    kind, name = args.kind, args.name
    if name is None and "/" in kind:
        kind, name = kind.split("/", 1)
    if not name:
        print("error: scale needs KIND NAME (or KIND/NAME)", file=sys.stderr)
        return 1
    if args.replicas < 0:  # kubectl's words for its flag
        print("error: The --replicas=COUNT flag is required, and COUNT must be greater than "
              "or equal to 0", file=sys.stderr)
        return 1
    client = connect(args)
    print(scale(client, kind, namespace(args, client), name, args.replicas))
    return 0
