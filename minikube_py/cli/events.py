"""``minikube-py events [-A] [--for KIND/NAME] [--types Warning] [-w]``, as ``kubectl events``:
oldest first, with LAST SEEN, TYPE, REASON, OBJECT and MESSAGE."""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from typing import Any

from ..api import printers
from ..ops.events import EventQuery, event_time, list_events, watch_events
from .common import client_options, connect, handles_errors, namespace, print_table


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


def _row(ev: Mapping[str, Any], now: float, all_ns: bool) -> list[str]:
    obj = ev.get("involvedObject") or {}
    row = [printers.age(event_time(ev) or None, now=now), str(ev.get("type", "")),
           str(ev.get("reason", "")), f"{str(obj.get('kind', '')).lower()}/{obj.get('name', '')}",
           str(ev.get("message", "")).strip()]
    if all_ns:
        row.insert(0, str((ev.get("metadata") or {}).get("namespace", "")))
    return row


@handles_errors
def run(args: argparse.Namespace) -> int:
    client = connect(args)
    ns = None if args.all_namespaces else namespace(args, client)
    query = EventQuery(ns, args.for_,
                       frozenset(t.strip() for t in args.types.split(",")) if args.types else None)
    events, resource_version = list_events(client, query)
    columns = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    if args.all_namespaces:
        columns.insert(0, "NAMESPACE")
    now = time.time()
    if events:
        print_table(columns, [_row(e, now, args.all_namespaces) for e in events])
    elif not args.watch:
        print(f"No events found in {ns} namespace." if ns else "No events found.")
    if args.watch:
        for ev in watch_events(client, query, resource_version):
            print_table(columns, [_row(ev, time.time(), args.all_namespaces)], headers=False)
    return 0
