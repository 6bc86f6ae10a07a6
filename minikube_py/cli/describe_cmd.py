"""``minikube-py describe KIND NAME``: the object, what relates to it, and its events,
formatted by :mod:`.describe` as ``kubectl describe`` prints them."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ..api import kinds
from ..client.http import HTTPClient
from .common import client_options, connect, handles_errors, namespace, resolve_kind
from .describe import describe


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "describe", parents=[client_options()], help="show an object in detail with its events",
        description="Show details of an object, as kubectl describe.")
    p.add_argument("kind")
    p.add_argument("name")
    p.set_defaults(func=run)


def _related(client: HTTPClient, info: kinds.KindInfo, obj: dict[str, Any],
             ns: str | None) -> dict[str, list[dict[str, Any]]]:
    name = obj["metadata"]["name"]
    if info.kind == "Node":
        return {"pods": client.list("pods", field_selector=f"spec.nodeName={name}").items}
    if info.kind in ("Deployment", "ReplicaSet"):
        selector = (obj.get("spec") or {}).get("selector") or {}
        labels = ",".join(f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items())
        if info.kind == "Deployment":
            return {"replicasets": client.list("replicasets", namespace=ns,
                                               label_selector=labels or None).items}
        return {"pods": client.list("pods", namespace=ns, label_selector=labels or None).items}
    return {}


@handles_errors
def run(args: argparse.Namespace) -> int:
    info = resolve_kind(args.kind)
    client = connect(args)
    ns = namespace(args, client) if info.namespaced else None
    obj = client.get(info.plural, ns, args.name)
    selector = f"involvedObject.kind={info.kind},involvedObject.name={args.name}"
    if info.kind != "Node":
        # Node events from kubelets carry the node's name as the uid, so match by name.
        selector += f",involvedObject.uid={obj['metadata'].get('uid', '')}"
    events = client.list("events", namespace=ns if info.namespaced else None,
                         field_selector=selector).items
    sys.stdout.write(describe(info.kind, obj, events=events,
                              related=_related(client, info, obj, ns), now=time.time()))
    return 0
