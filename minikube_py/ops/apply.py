"""Apply: server-side apply of manifests, as ``kubectl apply --server-side`` does.

One meaning of the outcome for both front-ends: an object that did not exist
is ``created``; one whose applied content changed is ``configured``; one the
apply left as it was is ``unchanged`` — decided by comparing the object
before and after *without* its status, resourceVersion, generation and other
managers' field ownership, so a controller writing status between the read
and the patch does not turn a no-op apply into ``configured``.

Everything is read and parsed before anything is sent (a broken file leaves
the cluster untouched), namespaces are applied first and the rest in file
order, and objects without a namespace go to the caller's default one.
Objects are applied with field manager ``minikube-py`` and strict field
validation (the server's default).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..api import kinds
from ..api.errors import NotFound, StatusError
from ..api.manifest import Manifest, ManifestError, load_paths
from ..client.base import Client, Object
from .errors import OpError, PartialFailure
from .wording import resource_ref, server_error

__all__ = ["FIELD_MANAGER", "Outcome", "apply_manifests", "apply_paths", "default_namespace",
           "read_manifests"]

FIELD_MANAGER = "minikube-py"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One object's result: kubectl's line, and whether it is a success
    (``pod/web created``) or an error (``Error from server (Invalid): ... (web.yaml:1)``)."""

    line: str
    ok: bool


def default_namespace(client: Client) -> str:
    """The kubeconfig context's namespace of an HTTP client, else ``default``."""
    endpoint = getattr(client, "endpoint", None)
    return str(getattr(endpoint, "namespace", None) or "default")


def read_manifests(paths: Sequence[str | Path], *, recursive: bool = False,
                   stdin: TextIO | None = None) -> list[Manifest]:
    """Every document of ``paths`` (files, directories, ``-`` for ``stdin``
    when given), namespaces first; :class:`OpError` listing every problem when
    anything does not parse. Without ``stdin``, ``-`` is a file of that name."""
    if not paths:
        raise OpError("no files or directories given to apply")
    sources = [os.fspath(p) if stdin is not None or os.fspath(p) != "-" else "./-"
               for p in paths]
    try:
        manifests = load_paths(sources, recursive=recursive, stdin=stdin)
    except ManifestError as exc:
        raise OpError(exc.message) from None
    # Namespaces before what lives in them (stable otherwise), as kubectl sorts.
    return sorted(manifests, key=lambda m: 0 if m.obj.get("kind") == "Namespace" else 1)


def _applied_view(obj: Mapping[str, Any]) -> tuple[Any, ...]:
    """What an apply can change (see the module docstring)."""
    meta = dict(obj.get("metadata") or {})
    mine = [entry.get("fieldsV1") for entry in meta.pop("managedFields", None) or []
            if entry.get("manager") == FIELD_MANAGER and entry.get("operation") == "Apply"]
    meta.pop("resourceVersion", None)
    meta.pop("generation", None)
    rest = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    return meta, rest, mine


def apply_manifests(client: Client, manifests: Iterable[Manifest], *, namespace: str,
                    force_conflicts: bool = False, dry_run: bool = False) -> list[Outcome]:
    """Apply each manifest in order; one :class:`Outcome` per object. A failed
    object does not stop the others. ``dry_run``: the server checks
    everything and stores nothing (lines end ``(server dry run)``)."""
    suffix = " (server dry run)" if dry_run else ""
    out: list[Outcome] = []
    for m in manifests:
        try:
            info = kinds.for_object(m.obj)
        except StatusError as exc:
            out.append(Outcome(f"error: {m.where()}: {exc.message}", False))
            continue
        meta = m.obj.get("metadata") or {}
        name = meta.get("name")
        if not name:
            out.append(Outcome(f"error: {m.where()}: metadata.name is required for apply",
                               False))
            continue
        ns = (meta.get("namespace") or namespace) if info.namespaced else None
        try:
            before: Object | None = client.get(info.plural, ns, name)
        except NotFound:
            before = None
        try:
            after = client.patch(info.plural, ns, name, "apply", m.obj,
                                 field_manager=FIELD_MANAGER, force=force_conflicts,
                                 dry_run=dry_run)
        except StatusError as exc:
            out.append(Outcome(f"{server_error(exc)} ({m.where()})", False))
            continue
        if before is None:
            verb = "created"
        else:
            verb = "unchanged" if _applied_view(before) == _applied_view(after) else "configured"
        out.append(Outcome(f"{resource_ref(info, name)} {verb}{suffix}", True))
    return out


def apply_paths(client: Client, paths: Sequence[str | Path], *, namespace: str | None = None,
                recursive: bool = False, force_conflicts: bool = False) -> list[str]:
    """Read ``paths`` and apply them (:func:`read_manifests`,
    :func:`apply_manifests`); kubectl's line per object. Any failure raises
    :class:`PartialFailure` with the other objects' lines as ``done``."""
    manifests = read_manifests(paths, recursive=recursive)
    if not manifests:
        raise OpError("no objects passed to apply")
    outcomes = apply_manifests(client, manifests, namespace=namespace or default_namespace(client),
                               force_conflicts=force_conflicts)
    errors = [o.line for o in outcomes if not o.ok]
    if errors:
        raise PartialFailure([o.line for o in outcomes if o.ok], errors)
    return [o.line for o in outcomes]
