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

from ..api import kinds
from ..api.errors import NotFound, StatusError
from ..api.manifest import Manifest, load_paths
from ..client.http import object_path
from .common import (
    client_options,
    connect,
    handles_errors,
    namespace,
    resource_ref,
    server_error,
)

FIELD_MANAGER = "minikube-py"


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


def _order(manifests: list[Manifest]) -> list[Manifest]:
    # Namespaces before what lives in them (stable otherwise), as kubectl sorts.
    return sorted(manifests, key=lambda m: 0 if m.obj.get("kind") == "Namespace" else 1)


@handles_errors
def run(args: argparse.Namespace) -> int:
    manifests = _order(load_paths(args.filename, recursive=args.recursive, stdin=sys.stdin))
    if not manifests:
        print("error: no objects passed to apply", file=sys.stderr)
        return 1
    client = connect(args)
    default_ns = namespace(args, client)
    failures = 0
    suffix = " (server dry run)" if args.dry_run == "server" else ""
    for m in manifests:
        try:
            info = kinds.for_object(m.obj)
        except StatusError as exc:
            print(f"error: {m.where()}: {exc.message}", file=sys.stderr)
            failures += 1
            continue
        meta = m.obj.get("metadata") or {}
        name = meta.get("name")
        if not name:
            print(f"error: {m.where()}: metadata.name is required for apply", file=sys.stderr)
            failures += 1
            continue
        ns = (meta.get("namespace") or default_ns) if info.namespaced else None
        try:
            before = client.get(info.plural, ns, name)["metadata"]["resourceVersion"]
        except NotFound:
            before = None
        try:
            _, body, _ = client.request(
                "PATCH", object_path(info, ns, name),
                query={"fieldManager": FIELD_MANAGER, "fieldValidation": "Strict",
                       "force": "true" if args.force_conflicts else None,
                       "dryRun": "All" if args.dry_run == "server" else None},
                body=_json_bytes(m.obj), content_type="application/apply-patch+yaml")
        except StatusError as exc:
            print(f"{server_error(exc)} ({m.where()})", file=sys.stderr)
            failures += 1
            continue
        import json
        after = json.loads(body)["metadata"].get("resourceVersion")
        verb = "created" if before is None else "unchanged" if after == before else "configured"
        print(f"{resource_ref(info, name)} {verb}{suffix}")
    return 1 if failures else 0


def _json_bytes(obj: dict[str, Any]) -> bytes:
    import json
    return json.dumps(obj).encode()
