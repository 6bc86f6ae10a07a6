"""``minikube-py apply -f FILE|DIR [-R] [--force-conflicts] [--dry-run]``.

Server-side apply, as ``kubectl apply --server-side`` does it, with field
manager ``minikube-py``. Each object reports as kubectl does: ``pod/web
created``, ``deployment.apps/web configured`` or ``... unchanged``. All files
are read and parsed before anything is sent, so a typo in the third file
leaves the cluster untouched; objects are then applied in file order,
namespaces first, so a file holding a namespace and its pods applies in one go.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..ops.apply import apply_manifests, read_manifests
from .common import client_options, connect, handles_errors, namespace


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "apply", parents=[client_options()], help="create or update objects from manifests",
        description="Apply manifests with server-side apply (as kubectl apply --server-side).")
    p.add_argument("-f", "--filename", action="append", required=True,
                   help="file, directory or - for stdin (repeatable)")
    p.add_argument("-R", "--recursive", action="store_true",
                   help="read directories recursively")
    p.add_argument("--force-conflicts", action="store_true",
                   help="take ownership of fields another manager set")
    p.add_argument("--dry-run", choices=["server", "none"], default="none",
                   help="server: check everything, change nothing")
    p.set_defaults(func=run)


@handles_errors
def run(args: argparse.Namespace) -> int:
    manifests = read_manifests(args.filename, recursive=args.recursive, stdin=sys.stdin)
    if not manifests:
        print("error: no objects passed to apply", file=sys.stderr)
        return 1
    client = connect(args)
    failures = 0
    for outcome in apply_manifests(client, manifests, namespace=namespace(args, client),
                                   force_conflicts=args.force_conflicts,
                                   dry_run=args.dry_run == "server"):
        print(outcome.line, file=sys.stdout if outcome.ok else sys.stderr)
        failures += not outcome.ok
    return 1 if failures else 0
