"""``minikube-py events [-A] [--for KIND/NAME] [--types Warning] [-w]``, as ``kubectl events``:
oldest first, with LAST SEEN, TYPE, REASON, OBJECT and MESSAGE."""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from typing import Any

from ..api import printers
from .common import client_options, connect, handles_errors, namespace, print_table, resolve_kind


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "events", parents=[client_options()], help="list events",
        description="List events, oldest first (as kubectl events).")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--for", dest="for_", default=None, metavar="KIND/NAME",
                   help="only events about this object")
    p.add_argument("--types", default=None, help="comma-separated: Normal,Warning")
    p.add_argument("-w", "--watch", action="store_true")
    p.set_defaults(func=run)


def _when(ev: Mapping[str, Any]) -> str:
    return str(ev.get("lastTimestamp") or ev.get("eventTime") or
               (ev.get("metadata") or {}).get("creationTimestamp") or "")


def _row(ev: Mapping[str, Any], now: float, all_ns: bool) -> list[str]:
    obj = ev.get("involvedObject") or {}
    row = [printers.age(_when(ev) or None, now=now), str(ev.get("type", "")),
           str(ev.get("reason", "")), f"{str(obj.get('kind', '')).lower()}/{obj.get('name', '')}",
           str(ev.get("message", "")).strip()]
    if all_ns:
        row.insert(0, str((ev.get("metadata") or {}).get("namespace", "")))
    return row


@handles_errors
def run(args: argparse.Namespace) -> int:
    client = connect(args)
    ns = None if args.all_namespaces else namespace(args, client)
    selector = None
    if args.for_:
        kind, _, name = args.for_.partition("/")
        selector = f"involvedObject.kind={resolve_kind(kind).kind},involvedObject.name={name}"
    listing = client.list("events", namespace=ns, field_selector=selector)
    types = {t.strip() for t in args.types.split(",")} if args.types else None
    events = sorted((e for e in listing.items if not types or e.get("type") in types), key=_when)
    columns = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    if args.all_namespaces:
        columns.insert(0, "NAMESPACE")
    now = time.time()
    if events:
        print_table(columns, [_row(e, now, args.all_namespaces) for e in events])
    elif not args.watch:
        print(f"No events found in {ns} namespace." if ns else "No events found.")
    if args.watch:
        stream = client.watch("events", namespace=ns, field_selector=selector,
                              resource_version=listing.resource_version)
        try:
            for ev in stream:
                if ev.type != "DELETED" and (not types or ev.object.get("type") in types):
                    print_table(columns, [_row(ev.object, time.time(), args.all_namespaces)],
                                headers=False)
        finally:
            stream.stop()
    return 0
