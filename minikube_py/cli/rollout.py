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

:func:`undo` and :func:`history` take any :class:`~minikube_py.client.base.Client`
(the CLI passes the HTTP one), so they are tested in-process.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from collections.abc import Mapping
from typing import Any

from ..api.errors import StatusError
from ..api.labels import selector_from_label_selector
from ..client.base import Client, Object
from ..controllers.deployment_util import (
    ANNOTATIONS_TO_SKIP,
    CHANGE_CAUSE_ANNOTATION,
    equal_ignore_hash,
    revision,
    template_without_hash,
)
from .common import (
    CLIError,
    client_options,
    connect,
    handles_errors,
    namespace,
    resolve_kind,
    resource_ref,
)
from .describe import _Ctx, _describe_pod_template, _Out, tabwrite


class RolloutFailed(Exception):
    pass


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


# --------------------------------------------------------------- undo / history


def deployment_replica_sets(client: Client, dep: Mapping[str, Any]) -> list[Object]:
    """kubectl's ``GetAllReplicaSets``: the ReplicaSets the Deployment's
    selector matches and that it controls."""
    meta = dep["metadata"]
    selector = selector_from_label_selector((dep.get("spec") or {}).get("selector"))
    listed = client.list("replicasets", namespace=meta.get("namespace"),
                         label_selector=str(selector) or None).items
    out = []
    for rs in listed:
        for ref in (rs.get("metadata") or {}).get("ownerReferences") or []:
            if ref.get("controller") is True and ref.get("uid") == meta.get("uid"):
                out.append(rs)
                break
    return out


def _revision_replica_set(dep: Mapping[str, Any], rss: list[Object],
                          to_revision: int) -> Object:
    """``deploymentRevision``: the ReplicaSet of ``to_revision``, or of the
    second newest revision when it is 0."""
    latest: tuple[int, Object | None] = (-1, None)
    previous: tuple[int, Object | None] = (-1, None)
    for rs in rss:
        try:
            v = revision(rs)
        except ValueError:
            continue
        if to_revision == 0:
            if latest[0] < v:
                previous, latest = latest, (v, rs)
            elif previous[0] < v:
                previous = (v, rs)
        elif to_revision == v:
            return rs
    if to_revision > 0:
        raise CLIError(f"unable to find specified revision {to_revision} in history")
    if previous[1] is None:
        raise CLIError(f'no rollout history found for deployment "{dep["metadata"]["name"]}"')
    return previous[1]


def undo(client: Client, ns: str, name: str, to_revision: int = 0) -> str:
    """Roll ``name`` back as ``kubectl rollout undo`` does; returns what kubectl
    prints after the resource (``rolled back`` or ``skipped rollback (...)``).

    Raises :class:`~.common.CLIError` with kubectl's message when there is no
    such revision or the deployment is paused.
    """
    if to_revision < 0:
        raise CLIError(f"unable to find specified revision {to_revision} in history")
    dep = client.get("deployments", ns, name)
    rs = _revision_replica_set(dep, deployment_replica_sets(client, dep), to_revision)
    dep_spec = dep.get("spec") or {}
    if dep_spec.get("paused"):
        raise CLIError("you cannot rollback a paused deployment; resume it first with "
                       "'kubectl rollout resume' and try again")
    rs_template = (rs.get("spec") or {}).get("template") or {}
    if equal_ignore_hash(rs_template, dep_spec.get("template") or {}):
        return f"skipped rollback (current template already matches revision {to_revision})"
    template = template_without_hash(rs_template)
    dep_annotations = (dep["metadata"].get("annotations") or {})
    annotations = {k: v for k, v in dep_annotations.items() if k in ANNOTATIONS_TO_SKIP}
    annotations.update({k: v for k, v in ((rs.get("metadata") or {}).get("annotations")
                                          or {}).items() if k not in ANNOTATIONS_TO_SKIP})
    patch = [{"op": "replace", "path": "/spec/template", "value": template},
             {"op": "replace", "path": "/metadata/annotations", "value": annotations}]
    try:
        client.patch("deployments", ns, name, "json", patch)
    except StatusError as exc:
        raise CLIError(f"failed restoring revision {to_revision}: {exc}") from None
    return "rolled back"


def print_template(template: Mapping[str, Any]) -> str:
    """kubectl's ``printTemplate``: ``DescribePodTemplate`` through a bare
    prefix writer (no column alignment: the tabs stay, as kubectl prints)."""
    w = _Out()
    _describe_pod_template(template, w, _Ctx(now=time.time(), tz=None))
    return "".join(w.parts)


def history(client: Client, ns: str, name: str, revision_: int = 0) -> str:
    """``kubectl rollout history`` without its first line: the REVISION /
    CHANGE-CAUSE table, or the pod template of ``revision_`` when it is > 0."""
    dep = client.get("deployments", ns, name)
    info: dict[int, Object] = {}
    for rs in deployment_replica_sets(client, dep):
        try:
            v = revision(rs)
        except ValueError:
            continue  # kubectl warns and skips it
        template = copy.deepcopy((rs.get("spec") or {}).get("template") or {})
        cause = ((rs.get("metadata") or {}).get("annotations") or {}).get(
            CHANGE_CAUSE_ANNOTATION)
        if cause:
            tmeta = template.setdefault("metadata", {})
            tmeta["annotations"] = {**(tmeta.get("annotations") or {}),
                                    CHANGE_CAUSE_ANNOTATION: cause}
        info[v] = template
    if not info:
        return "No rollout history found."
    if revision_ > 0:
        if revision_ not in info:
            raise CLIError("unable to find the specified revision")
        return print_template(info[revision_])
    lines = ["REVISION\tCHANGE-CAUSE"]
    for v in sorted(info):
        cause = ((info[v].get("metadata") or {}).get("annotations") or {}).get(
            CHANGE_CAUSE_ANNOTATION) or "<none>"
        lines.append(f"{v}\t{cause}")
    return tabwrite("\n".join(lines) + "\n")


# --------------------------------------------------------------- command


@handles_errors
def run(args: argparse.Namespace) -> int:
    kind, name = args.kind, args.name
    if name is None and "/" in kind:
        kind, name = kind.split("/", 1)
    info = resolve_kind(kind)
    if info.plural != "deployments" or not name:
        print(f"error: rollout {args.action} supports deployment NAME", file=sys.stderr)
        return 1
    client = connect(args)
    ns = namespace(args, client)
    ref = resource_ref(info, name)
    if args.action == "undo":
        print(f"{ref} {undo(client, ns, name, args.to_revision)}")
        return 0
    if args.action == "history":
        text = history(client, ns, name, args.revision)
        heading = f"with revision #{args.revision}" if args.revision > 0 else ""
        print(f"{ref} {heading}\n{text}")
        return 0
    return _follow_status(args, client, ns, name)


def _follow_status(args: argparse.Namespace, client: Client, ns: str, name: str) -> int:
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
