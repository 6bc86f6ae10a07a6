"""``minikube-py explain pod NAME [--all]``: why the pod is (or is not) where it is.

Prints the scheduler's decision record for the pod's latest attempt: every
node's filter verdict with the rejecting plugin and reason, each plugin's raw,
normalized and weighted score, the totals and the chosen node, ending with
Kubernetes' own message. ``--all`` prints every attempt still remembered.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..api import kinds
from ..api.errors import BadRequest
from ..ops.explain import decisions, explains
from .common import CLIError, client_options, connect, handles_errors, namespace


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "explain", parents=[client_options()], help="why a pod was scheduled where it was",
        description="Show the scheduler's decision record for a pod.")
    p.add_argument("kind", help="pod")
    p.add_argument("name")
    p.add_argument("--all", action="store_true", help="every remembered attempt, oldest first")
    p.add_argument("-o", "--output", choices=["text", "json"], default="text")
    p.set_defaults(func=run)


@handles_errors
def run(args: argparse.Namespace) -> int:
    try:
        info = kinds.resolve(args.kind)
    except BadRequest:
        info = None
    if info is None or not explains(info):
        raise CLIError("explain works on pods: minikube-py explain pod NAME")
    client = connect(args)
    ns = namespace(args, client)
    pod, records = decisions(client, ns, args.name)  # NotFound reads as kubectl's message
    if not records:
        node = (pod.get("spec") or {}).get("nodeName")
        why = (f"it is on node {node} without a recorded decision (placed by spec.nodeName, "
               "or its record is no longer kept)" if node else
               "it has not been tried yet")
        print(f"No scheduling decision is recorded for pod {ns}/{args.name}: {why}.")
        return 0
    shown = records if args.all else records[-1:]
    if args.output == "json":
        sys.stdout.write(json.dumps([{k: v for k, v in r.items() if k != "text"}
                                     for r in shown], indent=2) + "\n")
        return 0
    sys.stdout.write("\n\n".join(r["text"].rstrip("\n") for r in shown) + "\n")
    return 0
