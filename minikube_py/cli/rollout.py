"""``minikube-py rollout status deployment NAME [--timeout S]``.

The messages and the decision are kubectl's (``DeploymentStatusViewer``), read
from the Deployment's status as a watch delivers it, so the command ends the
moment the rollout does.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping
from typing import Any

from .common import client_options, connect, handles_errors, namespace, resolve_kind


class RolloutFailed(Exception):
    pass


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "rollout", parents=[client_options()], help="follow a deployment's rollout",
        description="Manage the rollout of a Deployment.")
    p.add_argument("action", choices=["status"])
    p.add_argument("kind", help="deployment (or deployment/NAME)")
    p.add_argument("name", nargs="?")
    p.add_argument("--timeout", type=float, default=0,
                   help="give up after this many seconds (0: wait forever)")
    p.add_argument("-w", "--watch", default="true", choices=["true", "false"])
    p.set_defaults(func=run)


def status_message(dep: Mapping[str, Any]) -> tuple[str, bool]:
    """(message, done) for a Deployment, as kubectl's rollout status decides it.

    Raises RolloutFailed when the Progressing condition reports the deadline
    was exceeded.
    """
    name = dep["metadata"]["name"]
    spec = dep.get("spec") or {}
    status = dep.get("status") or {}
    generation = dep["metadata"].get("generation", 0)
    if generation > status.get("observedGeneration", 0):
        return "Waiting for deployment spec update to be observed...", False
    for cond in status.get("conditions") or []:
        if cond.get("type") == "Progressing" and cond.get("reason") == "ProgressDeadlineExceeded":
            raise RolloutFailed(f'deployment "{name}" exceeded its progress deadline')
    replicas = spec.get("replicas", 1)
    updated = status.get("updatedReplicas", 0)
    total = status.get("replicas", 0)
    available = status.get("availableReplicas", 0)
    if updated < replicas:
        return (f'Waiting for deployment "{name}" rollout to finish: {updated} out of '
                f"{replicas} new replicas have been updated...", False)
    if total > updated:
        return (f'Waiting for deployment "{name}" rollout to finish: {total - updated} old '
                "replicas are pending termination...", False)
    if available < updated:
        return (f'Waiting for deployment "{name}" rollout to finish: {available} of {updated} '
                "updated replicas are available...", False)
    return f'deployment "{name}" successfully rolled out', True


@handles_errors
def run(args: argparse.Namespace) -> int:
    kind, name = args.kind, args.name
    if name is None and "/" in kind:
        kind, name = kind.split("/", 1)
    info = resolve_kind(kind)
    if info.plural != "deployments" or not name:
        print("error: rollout status supports deployment NAME", file=sys.stderr)
        return 1
    client = connect(args)
    ns = namespace(args, client)
    deadline = time.monotonic() + args.timeout if args.timeout else None
    last = ""
    dep = client.get("deployments", ns, name)
    stream = None
    try:
        while True:
            try:
                message, done = status_message(dep)
            except RolloutFailed as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 1
            if message != last:
                print(message, flush=True)
                last = message
            if done or args.watch == "false":
                return 0
            if stream is None:
                stream = client.watch("deployments", namespace=ns,
                                      field_selector=f"metadata.name={name}",
                                      resource_version=dep["metadata"]["resourceVersion"])
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                print("error: timed out waiting for the condition", file=sys.stderr)
                return 1
            ev = stream.next(timeout=1.0 if remaining is None else min(1.0, remaining))
            if ev is None:
                continue
            if ev.type == "DELETED":
                print(f'error: deployment "{name}" was deleted', file=sys.stderr)
                return 1
            dep = ev.object
    finally:
        if stream is not None:
            stream.stop()
