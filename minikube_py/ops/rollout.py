"""Rollouts of Deployments, as kubectl does them, for both front-ends.

* :func:`status_message`: kubectl's ``DeploymentStatusViewer``: the message
  and whether the rollout is done, from the Deployment's status.
* :func:`undo`: kubectl's client-side rollback (``DeploymentRollbacker``): the
  ReplicaSet of the revision (the previous one by default) gives the pod
  template, without ``pod-template-hash``, and its annotations; one JSON
  patch replaces the Deployment's template and annotations, and the
  deployment controller rolls out the rest. Errors are kubectl's
  (``unable to find specified revision 7 in history``).
* :func:`history`: kubectl's ``DeploymentHistoryViewer``: the REVISION /
  CHANGE-CAUSE table, or the pod template of one revision.
* :func:`restart`: ``kubectl rollout restart``: a new pod template annotation.

Every function takes any :class:`~minikube_py.client.base.Client`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from ..api.describe import Ctx, Out, describe_pod_template, tabwrite
from ..api.errors import StatusError
from ..api.jsoncopy import deep_copy
from ..api.kinds import KindInfo
from ..api.labels import selector_from_label_selector
from ..client.base import Client, Object
from ..controllers.deployment_util import (
    ANNOTATIONS_TO_SKIP,
    CHANGE_CAUSE_ANNOTATION,
    equal_ignore_hash,
    revision,
    template_without_hash,
)
from .errors import OpError

#: The resource ``rollout`` works on (kubectl's also covers DaemonSets and
#: StatefulSets, which are not served yet).
DEPLOYMENTS = "deployments"

__all__ = ["DEPLOYMENTS", "RESTARTED_AT_ANNOTATION", "RolloutFailed", "deployment_replica_sets",
           "follow_status", "history", "print_template", "restart", "rollback", "status_message",
           "supports", "undo"]

#: The pod template annotation ``kubectl rollout restart`` sets.
RESTARTED_AT_ANNOTATION = "kubectl.kubernetes.io/restartedAt"


class RolloutFailed(Exception):
    """The rollout cannot finish (its progress deadline was exceeded)."""


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
        raise OpError(f"unable to find specified revision {to_revision} in history")
    if previous[1] is None:
        raise OpError(f'no rollout history found for deployment "{dep["metadata"]["name"]}"')
    return previous[1]


def undo(client: Client, ns: str, name: str, to_revision: int = 0) -> str:
    """Roll ``name`` back as ``kubectl rollout undo`` does; returns what kubectl
    prints after the resource (``rolled back`` or ``skipped rollback (...)``).

    Raises :class:`OpError` with kubectl's message when there is no
    such revision or the deployment is paused.
    """
    if to_revision < 0:
        raise OpError(f"unable to find specified revision {to_revision} in history")
    dep = client.get(DEPLOYMENTS, ns, name)
    rs = _revision_replica_set(dep, deployment_replica_sets(client, dep), to_revision)
    dep_spec = dep.get("spec") or {}
    if dep_spec.get("paused"):
        raise OpError("you cannot rollback a paused deployment; resume it first with "
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
        client.patch(DEPLOYMENTS, ns, name, "json", patch)
    except StatusError as exc:
        raise OpError(f"failed restoring revision {to_revision}: {exc}") from None
    return "rolled back"


def print_template(template: Mapping[str, Any]) -> str:
    """kubectl's ``printTemplate``: ``DescribePodTemplate`` through a bare
    prefix writer (no column alignment: the tabs stay, as kubectl prints)."""
    w = Out()
    describe_pod_template(template, w, Ctx(now=time.time(), tz=None))
    return "".join(w.parts)


def history(client: Client, ns: str, name: str, revision_: int = 0) -> str:
    """``kubectl rollout history`` without its first line: the REVISION /
    CHANGE-CAUSE table, or the pod template of ``revision_`` when it is > 0."""
    dep = client.get(DEPLOYMENTS, ns, name)
    info: dict[int, Object] = {}
    for rs in deployment_replica_sets(client, dep):
        try:
            v = revision(rs)
        except ValueError:
            continue  # kubectl warns and skips it
        template = deep_copy((rs.get("spec") or {}).get("template") or {})
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
            raise OpError("unable to find the specified revision")
        return print_template(info[revision_])
    lines = ["REVISION\tCHANGE-CAUSE"]
    for v in sorted(info):
        cause = ((info[v].get("metadata") or {}).get("annotations") or {}).get(
            CHANGE_CAUSE_ANNOTATION) or "<none>"
        lines.append(f"{v}\t{cause}")
    return tabwrite("\n".join(lines) + "\n")


def _rfc3339_now() -> str:
    """Go's ``time.Now().Format(time.RFC3339)``: local time, seconds, ``Z`` for UTC."""
    now = datetime.now().astimezone()
    if now.utcoffset() == timedelta(0):
        return now.strftime("%Y-%m-%dT%H:%M:%SZ")
    return now.isoformat(timespec="seconds")


def restart(client: Client, namespace: str, name: str) -> str:
    """Restart a deployment's pods as ``kubectl rollout restart`` does: a
    strategic merge patch setting the pod template annotation
    ``kubectl.kubernetes.io/restartedAt`` to now (RFC 3339, seconds), which
    changes the template so the deployment controller rolls out new pods.

    Returns ``deployment.apps/<name> restarted``. A paused deployment raises
      :class:`OpError` with kubectl's message. As with kubectl, two restarts
    within the same second set the same value, so the second changes nothing.
    """
    dep = client.get(DEPLOYMENTS, namespace, name)
    if (dep.get("spec") or {}).get("paused"):
        raise OpError(f'deployments.apps "{name}" can\'t restart paused deployment '
                         "(run rollout resume first)")
    client.patch(DEPLOYMENTS, namespace, name, "strategic",
                 {"spec": {"template": {"metadata": {"annotations": {
                     RESTARTED_AT_ANNOTATION: _rfc3339_now()}}}}})
    return f"deployment.apps/{name} restarted"


def rollback(client: Client, namespace: str, name: str, to_revision: int | None = None) -> str:
    """:func:`undo` as ``kubectl rollout undo`` prints it:
    ``deployment.apps/web rolled back`` or ``... skipped rollback (...)``; no
    ``to_revision`` (or 0): the previous revision."""
    return f"deployment.apps/{name} {undo(client, namespace, name, to_revision or 0)}"


def supports(info: KindInfo) -> bool:
    """Whether ``rollout`` works on ``info``'s kind."""
    return info.plural == DEPLOYMENTS


def follow_status(client: Client, namespace: str, name: str, *, watch: bool = True,
                  timeout: float | None = None) -> Iterator[str]:
    """``rollout status``: each new status message of deployment
    ``namespace/name`` until the rollout is done (only the first without
    ``watch``). Raises :class:`RolloutFailed` when the progress deadline is
    exceeded and :class:`OpError` when ``timeout`` seconds pass or the
    deployment is deleted."""
    deadline = time.monotonic() + timeout if timeout else None
    last = ""
    dep = client.get(DEPLOYMENTS, namespace, name)
    stream = None
    try:
        while True:
            message, done = status_message(dep)
            if message != last:
                yield message
                last = message
            if done or not watch:
                return
            if stream is None:
                stream = client.watch(DEPLOYMENTS, namespace=namespace,
                                      field_selector=f"metadata.name={name}",
                                      resource_version=dep["metadata"]["resourceVersion"])
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise OpError("timed out waiting for the condition")
            ev = stream.next(timeout=1.0 if remaining is None else min(1.0, remaining))
            if ev is None:
                continue
            if ev.type == "DELETED":
                raise OpError(f'deployment "{name}" was deleted')
            dep = ev.object
    finally:
        if stream is not None:
            stream.stop()
