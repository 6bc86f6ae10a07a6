"""``minikube-py get KIND [NAME] [-o wide|yaml|json|name] [-l SEL] [-A] [-w]``.

Tables come from the server (``as=Table``), so the columns are exactly
kubectl's; ``-o wide`` adds the priority-1 columns, ``-A`` a NAMESPACE column.
An empty result says ``No resources found in <ns> namespace.`` on stderr and
exits 0, as kubectl does.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..api import kinds
from ..client.http import HTTPClient, object_path
from .common import (
    TABLE_ACCEPT,
    client_options,
    connect,
    dump,
    handles_errors,
    namespace,
    print_table,
    resolve_kind,
    resource_ref,
)


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "get", parents=[client_options()], help="list or show objects",
        description="List or show objects, as `kubectl get`.")
    p.add_argument("kind", help="pods, deployments, nodes, ... (short names work: po, deploy)")
    p.add_argument("name", nargs="?", help="one object's name")
    p.add_argument("-o", "--output", choices=["wide", "yaml", "json", "name"], default=None)
    p.add_argument("-l", "--selector", default=None, help="label selector, e.g. app=web")
    p.add_argument("--field-selector", default=None, help="field selector, e.g. "
                   "spec.nodeName=node-1")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("-w", "--watch", action="store_true", help="keep printing changes")
    p.set_defaults(func=run)


def _scope(args: argparse.Namespace, info: kinds.KindInfo, client: HTTPClient) -> str | None:
    if not info.namespaced or args.all_namespaces:
        return None
    return namespace(args, client)


def _cell(value: Any, *, first: bool) -> str:
    """A table cell as kubectl prints it: booleans in lower case, empty as <none>."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value in (None, "") and not first:
        return "<none>"
    return str(value)


def _rows(table: dict[str, Any], wide: bool, with_namespace: bool
          ) -> tuple[list[str], list[list[str]], list[int]]:
    cols = table.get("columnDefinitions") or []
    keep = [i for i, c in enumerate(cols) if wide or c.get("priority", 0) == 0]
    names = [str(cols[i]["name"]).upper() for i in keep]
    rows = []
    for row in table.get("rows") or []:
        cells = [_cell(row["cells"][i], first=i == 0) for i in keep]
        if with_namespace:
            ns = ((row.get("object") or {}).get("metadata") or {}).get("namespace", "")
            cells.insert(0, ns)
        rows.append(cells)
    if with_namespace:
        names.insert(0, "NAMESPACE")
    return names, rows, keep


@handles_errors
def run(args: argparse.Namespace) -> int:
    info = resolve_kind(args.kind)
    client = connect(args)
    ns = _scope(args, info, client)
    query = {"labelSelector": args.selector, "fieldSelector": args.field_selector}
    if args.name:
        if args.output in ("yaml", "json"):
            obj = client.get(info.plural, ns, args.name)
            sys.stdout.write(dump(obj, args.output))
        elif args.output == "name":
            client.get(info.plural, ns, args.name)
            print(resource_ref(info, args.name))
        else:
            _, body, _ = client.request("GET", object_path(info, ns, args.name),
                                        accept=TABLE_ACCEPT)
            names, rows, _ = _rows(json.loads(body), args.output == "wide", False)
            print_table(names, rows)
        if args.watch:
            return _watch(client, info, ns, args, {**query,
                                                   "fieldSelector": f"metadata.name={args.name}"},
                          resource_version=None)
        return 0
    if args.output in ("yaml", "json", "name"):
        listing = client.list(info.plural, namespace=ns, label_selector=args.selector,
                              field_selector=args.field_selector)
        if args.output == "name":
            for obj in listing.items:
                print(resource_ref(info, obj["metadata"]["name"]))
        else:
            sys.stdout.write(dump({"apiVersion": "v1", "kind": "List", "items": listing.items,
                                   "metadata": {"resourceVersion": ""}}, args.output))
        rv = listing.resource_version
    else:
        _, body, _ = client.request("GET", object_path(info, ns), query=query,
                                    accept=TABLE_ACCEPT)
        table = json.loads(body)
        rv = str((table.get("metadata") or {}).get("resourceVersion") or "")
        names, rows, _ = _rows(table, args.output == "wide", args.all_namespaces and
                               info.namespaced)
        if rows:
            print_table(names, rows)
        elif not args.watch:
            where = f" in {ns} namespace" if ns else ""
            print(f"No resources found{where}.", file=sys.stderr)
    if args.watch:
        return _watch(client, info, ns, args, query, resource_version=rv)
    return 0


def _watch(client: HTTPClient, info: kinds.KindInfo, ns: str | None, args: argparse.Namespace,
           query: dict[str, Any], resource_version: str | None) -> int:
    """Print each change: a row (or an object for -o yaml/json/name) per event."""
    tables = args.output not in ("yaml", "json", "name")
    stream = client.watch(info.plural, namespace=ns, label_selector=query.get("labelSelector"),
                          field_selector=query.get("fieldSelector"),
                          resource_version=resource_version,
                          accept=TABLE_ACCEPT if tables else "application/json")
    columns: list[dict[str, Any]] = []
    widths: list[int] = []
    try:
        for event in stream:
            obj = event.object
            if args.output in ("yaml", "json"):
                sys.stdout.write(("---\n" if args.output == "yaml" else "") +
                                 dump(obj, args.output))
                continue
            if args.output == "name":
                print(resource_ref(info, obj["metadata"]["name"]), flush=True)
                continue
            # Table events: only the first carries the column definitions.
            columns = obj.get("columnDefinitions") or columns
            _, rows, _ = _rows({**obj, "columnDefinitions": columns}, args.output == "wide",
                               args.all_namespaces and info.namespaced)
            for row in rows:
                widths = [max(w, len(c)) for w, c in zip(widths or [0] * len(row), row,
                                                            strict=False)]
                print("   ".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip(),
                      flush=True)
    finally:
        stream.stop()
    return 0
