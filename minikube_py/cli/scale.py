"""``minikube-py scale deployment NAME --replicas N`` through the scale subresource."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import client_options, connect, handles_errors, namespace, resolve_kind, resource_ref


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
    info = resolve_kind(kind)
    if info.plural not in ("deployments", "replicasets"):
        print(f"error: {info.plural} cannot be scaled: only deployments and replicasets",
              file=sys.stderr)
        return 1
    if args.replicas < 0:
        print("error: The --replicas=COUNT flag is required, and COUNT must be greater than "
              "or equal to 0", file=sys.stderr)
        return 1
    client = connect(args)
    client.patch(info.plural, namespace(args, client), name, "merge",
                 {"spec": {"replicas": args.replicas}}, subresource="scale")
    print(f"{resource_ref(info, name)} scaled")
    return 0
