"""``minikube-py delete KIND NAME... | -f FILE`` with kubectl's flags and wording.

By default it waits until the objects are really gone (a pod's grace period,
finalizers), as ``kubectl delete`` does; ``--wait=false`` returns at once.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..api import kinds
from ..api.errors import StatusError
from ..api.manifest import load_paths
from ..ops.objects import Target, delete, wait_gone
from .common import (
    client_options,
    connect,
    handles_errors,
    namespace,
    resolve_kind,
    server_error,
)


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "delete", parents=[client_options()], help="delete objects",
        description="Delete objects by kind and name, or those in manifests.")
    p.add_argument("kind", nargs="?", help="kind (pods, deploy, ...)")
    p.add_argument("names", nargs="*", help="names")
    p.add_argument("-f", "--filename", action="append", help="manifests naming the objects")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("--grace-period", type=int, default=None,
                   help="seconds to let pods stop (0 with --force: at once)")
    p.add_argument("--force", action="store_true", help="with --grace-period=0: do not wait "
                   "for the kubelet to confirm")
    p.add_argument("--cascade", choices=["background", "foreground", "orphan"],
                   default="background")
    p.add_argument("--wait", default="true", choices=["true", "false"],
                   help="wait until the objects are gone (default true)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait at most")
    p.set_defaults(func=run)


@handles_errors
def run(args: argparse.Namespace) -> int:
    client = connect(args)
    default_ns = namespace(args, client)
    targets: list[Target] = []
    if args.filename:
        for m in load_paths(args.filename, recursive=args.recursive, stdin=sys.stdin):
            info = kinds.for_object(m.obj)
            meta = m.obj.get("metadata") or {}
            ns = (meta.get("namespace") or default_ns) if info.namespaced else None
            targets.append((info, ns, str(meta.get("name"))))
    elif args.kind and args.names:
        info = resolve_kind(args.kind)
        targets = [(info, default_ns if info.namespaced else None, n) for n in args.names]
    else:
        print("error: you must specify the objects to delete: KIND NAME... or -f FILE",
              file=sys.stderr)
        return 1
    grace = args.grace_period
    if args.force and grace is None:
        grace = 0
    failures = 0
    done: list[tuple[Target, str]] = []
    for target in targets:
        info, ns, name = target
        try:
            line = delete(client, info.plural, ns, name, grace_period=grace,
                          propagation=args.cascade.capitalize())
            done.append((target, line))
        except StatusError as exc:
            print(server_error(exc), file=sys.stderr)
            failures += 1
    if args.wait == "true":
        wait_gone(client, [target for target, _ in done], args.timeout)
    for _, line in done:
        print(line)
    return 1 if failures else 0
