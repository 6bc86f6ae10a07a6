"""``minikube-py rollout status|undo|history deployment NAME``.

* ``status [--timeout S] [-w]``: the messages and the decision are kubectl's
  (``DeploymentStatusViewer``), read from the Deployment's status as a watch
  delivers it, so the command ends the moment the rollout does.
* ``undo [--to-revision N]``: kubectl's client-side rollback
  (``DeploymentRollbacker``): the ReplicaSet of the revision (the previous one
  by default) gives the pod template, without ``pod-template-hash``, and its
  annotations; one JSON patch replaces the Deployment's template and
  annotations, and the deployment controller rolls out the rest. Output and
  errors are kubectl's: ``deployment.apps/web rolled back``,
  ``... skipped rollback (current template already matches revision 2)``,
  ``error: unable to find specified revision 7 in history``.
* ``history [--revision N]``: kubectl's ``DeploymentHistoryViewer``: the
  REVISION / CHANGE-CAUSE table (``kubernetes.io/change-cause`` of each
  ReplicaSet), or the pod template of one revision.

The logic is :mod:`minikube_py.ops.rollout`, shared with the dashboard; this
module parses the command line and follows the status.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..client.base import Client
from ..ops.errors import OpError
from ..ops.rollout import RolloutFailed, follow_status, history, rollback, supports
from .common import (
    client_options,
    connect,
    handles_errors,
    namespace,
    resolve_kind,
    resource_ref,
)


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "rollout", parents=[client_options()],
        help="follow, undo or list a deployment's rollouts",
        description="Manage the rollout of a Deployment.")
    p.add_argument("action", choices=["status", "undo", "history"])
    p.add_argument("kind", help="deployment (or deployment/NAME)")
    p.add_argument("name", nargs="?")
    p.add_argument("--timeout", type=float, default=0,
                   help="status: give up after this many seconds (0: wait forever)")
    p.add_argument("-w", "--watch", default="true", choices=["true", "false"],
                   help="status: follow until the rollout ends")
    p.add_argument("--to-revision", type=int, default=0,
                   help="undo: the revision to roll back to (0: the previous one)")
    p.add_argument("--revision", type=int, default=0,
                   help="history: show the pod template of this revision")
    p.set_defaults(func=run)


# --------------------------------------------------------------- command


@handles_errors
def run(args: argparse.Namespace) -> int:
    kind, name = args.kind, args.name
    if name is None and "/" in kind:
        kind, name = kind.split("/", 1)
    info = resolve_kind(kind)
    if not supports(info) or not name:
        print(f"error: rollout {args.action} supports deployment NAME", file=sys.stderr)
        return 1
    client = connect(args)
    ns = namespace(args, client)
    ref = resource_ref(info, name)
    if args.action == "undo":
        print(rollback(client, ns, name, args.to_revision))
        return 0
    if args.action == "history":
        text = history(client, ns, name, args.revision)
        heading = f"with revision #{args.revision}" if args.revision > 0 else ""
        print(f"{ref} {heading}\n{text}")
        return 0
    return _follow_status(args, client, ns, name)


def _follow_status(args: argparse.Namespace, client: Client, ns: str, name: str) -> int:
    try:
        for message in follow_status(client, ns, name, watch=args.watch != "false",
                                     timeout=args.timeout or None):
            print(message, flush=True)
    except (RolloutFailed, OpError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
