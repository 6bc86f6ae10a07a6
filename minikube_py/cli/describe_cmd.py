"""``minikube-py describe KIND NAME``: the object, what relates to it, and its events,
read by :mod:`minikube_py.ops.describe` and formatted by
:mod:`minikube_py.api.describe` as ``kubectl describe`` prints them."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ..api.describe import describe
from ..ops.describe import events_for, related_objects
from .common import client_options, connect, handles_errors, namespace, resolve_kind


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "describe", parents=[client_options()], help="show an object in detail with its events",
        description="Show details of an object, as kubectl describe.")
    p.add_argument("kind")
    p.add_argument("name")
    p.set_defaults(func=run)


@handles_errors
def run(args: argparse.Namespace) -> int:
    info = resolve_kind(args.kind)
    client = connect(args)
    ns = namespace(args, client) if info.namespaced else None
    obj = client.get(info.plural, ns, args.name)
    events = events_for(client, info, obj, ns)
    sys.stdout.write(describe(info.kind, obj, events=events,
                              related=related_objects(client, info, obj, ns), now=time.time()))
    return 0
