"""The dashboard's actions: plain functions over a :class:`~minikube_py.client.base.Client`.

Each action does what the matching kubectl command does and returns the lines
kubectl prints on success (``deployment.apps/web created``, ``pod "x" deleted``,
``node/n1 cordoned``), so the dashboard shows the same words as the CLI.

Contract shared by every action:

* Errors the API reports propagate as
  :class:`~minikube_py.api.errors.StatusError` subclasses (``NotFound``,
  ``Invalid``, ``Conflict``...), untouched; the dashboard can print them with
  :func:`minikube_py.cli.common.server_error`.
* Mistakes the client catches before sending anything (an unknown resource
  type, a negative replica count, a manifest that does not parse, no rollout
  history) raise :class:`ValueError` whose message names what is wrong.
* An action made of several steps that fails after some of them took effect
  (``apply_paths`` with one bad object among good ones, ``drain`` once the node
  is cordoned) raises :class:`PartialFailure`, a ``ValueError`` that also
  carries the lines of what *was* done, so nothing that changed the cluster
  goes unreported.
* Actions block on network I/O (``drain`` waits for pods to go): call them
  from a worker thread, never from the UI's event loop.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from minikube_py.api import kinds
from minikube_py.api.errors import NotFound, StatusError
from minikube_py.api.manifest import ManifestError, load_paths
from minikube_py.cli import rollout
from minikube_py.cli.apply import FIELD_MANAGER, _order
from minikube_py.cli.common import CLIError, quoted_ref, resource_ref, server_error
from minikube_py.client.base import Client, Object

__all__ = [
    "DRAIN_TIMEOUT",
    "MIRROR_POD_ANNOTATION",
    "RESTARTED_AT_ANNOTATION",
    "SCALABLE",
    "PartialFailure",
    "apply_paths",
    "cordon",
    "delete",
    "drain",
    "drain_pod_status",
    "rollout_restart",
    "rollout_undo",
    "scale",
    "uncordon",
]

#: The pod template annotation ``kubectl rollout restart`` sets.
RESTARTED_AT_ANNOTATION = "kubectl.kubernetes.io/restartedAt"
#: Marks a mirror pod (the API's copy of a static pod); drain leaves those alone.
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
#: Resources with a scale subresource (as ``cli/scale.py`` accepts them).
SCALABLE = ("deployments", "replicasets")
#: Seconds :func:`drain` waits, by default, for the pods it deleted to be gone.
DRAIN_TIMEOUT = 120.0

# kubectl's drain filter messages (k8s.io/kubectl/pkg/drain/filters.go).
# Upstream's unmanagedFatal starts with "cannot delete " and then gets that
# prefix again ("cannot delete cannot delete Pods that..."); the stutter is a
# bug, so the prefix is added once, here as for every other message.
_DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
_LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
_LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
_UNMANAGED_FATAL = "Pods that declare no controller (use --force to override)"
_UNMANAGED_WARNING = "deleting Pods that declare no controller"
# kubectl polls every second; a laptop cluster deletes pods in milliseconds.
_DRAIN_POLL_SECONDS = 0.1


class PartialFailure(ValueError):
    """Some steps of an action took effect, then others failed.

    ``done`` holds kubectl's lines for what succeeded (possibly none),
    ``errors`` one line per failure; ``str()`` is the errors joined by newlines.
    """

    def __init__(self, done: Sequence[str], errors: Sequence[str]) -> None:
        super().__init__("\n".join(errors))
        self.done = list(done)
        self.errors = list(errors)


# ------------------------------------------------------------------ helpers


def _kind(resource: str) -> kinds.KindInfo:
    """Resolve a resource as a command line would (``pods``, ``po``, ``Deployment``)."""
    try:
        return kinds.resolve(resource)
    except StatusError as exc:  # an unknown type is the caller's mistake, not the server's
        raise ValueError(exc.message) from None


def _scope(info: kinds.KindInfo, namespace: str | None) -> str | None:
    if not info.namespaced:
        return None
    if not namespace:
        raise ValueError(f"a namespace is required for {info.plural}")
    return namespace


def _default_namespace(client: Client) -> str:
    # HTTPClient knows its kubeconfig context's namespace; other clients do not.
    endpoint = getattr(client, "endpoint", None)
    return str(getattr(endpoint, "namespace", None) or "default")


def _controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """metav1.GetControllerOf: the ownerReference with ``controller: true``."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller") is True:
            return dict(ref)
    return None


# ------------------------------------------------------------------ apply


def _applied_view(obj: Mapping[str, Any]) -> tuple[Any, ...]:
    """What an apply can change: the object without its status, resourceVersion,
    generation and other managers' field ownership.

    The CLI compares resourceVersions, so a controller writing status between
    its GET and its PATCH turns a no-op apply into ``configured``; comparing
    this view instead keeps ``unchanged`` true under such concurrent writes.
    """
    meta = dict(obj.get("metadata") or {})
    mine = [entry.get("fieldsV1") for entry in meta.pop("managedFields", None) or []
            if entry.get("manager") == FIELD_MANAGER and entry.get("operation") == "Apply"]
    meta.pop("resourceVersion", None)
    meta.pop("generation", None)
    rest = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    return meta, rest, mine


def apply_paths(client: Client, paths: Sequence[Path], *, namespace: str | None = None,
                recursive: bool = False, force_conflicts: bool = False) -> list[str]:
    """Server-side apply every document in ``paths`` (files or directories), as
    ``minikube-py apply -f`` (and ``kubectl apply --server-side``) does.

    Directories contribute their ``.yaml``/``.yml``/``.json`` files (their
    subdirectories too with ``recursive``). Everything is read and parsed
    before anything is sent, so a broken file leaves the cluster untouched
    (:class:`ValueError` listing every problem, ``file:line`` first).
    Namespaces are applied first, then the rest in file order; objects without
    a namespace go to ``namespace`` (default: the client's kubeconfig
    namespace, else ``default``).

    Returns one line per object: ``<kind>/<name> created``, ``configured`` or
    ``unchanged``. If any object fails, the others are still applied and
    :class:`PartialFailure` is raised with their lines as ``done`` and one
    error per failed object, worded as the CLI prints it
    (``Error from server (Invalid): ... (web.yaml:1)``).
    """
    if not paths:
        raise ValueError("no files or directories given to apply")
    # "-" means standard input to load_paths; in a dashboard it can only be a file.
    sources = ["./-" if os.fspath(p) == "-" else os.fspath(p) for p in paths]
    try:
        manifests = _order(load_paths(sources, recursive=recursive))
    except ManifestError as exc:
        raise ValueError(exc.message) from None
    if not manifests:
        raise ValueError("no objects passed to apply")
    default_ns = namespace or _default_namespace(client)
    done: list[str] = []
    errors: list[str] = []
    for m in manifests:
        try:
            info = kinds.for_object(m.obj)
        except StatusError as exc:
            errors.append(f"error: {m.where()}: {exc.message}")
            continue
        meta = m.obj.get("metadata") or {}
        name = meta.get("name")
        if not name:
            errors.append(f"error: {m.where()}: metadata.name is required for apply")
            continue
        ns = (meta.get("namespace") or default_ns) if info.namespaced else None
        try:
            before: Object | None = client.get(info.plural, ns, name)
        except NotFound:
            before = None
        try:
            # The server validates apply patches strictly by default, as the CLI asks.
            after = client.patch(info.plural, ns, name, "apply", m.obj,
                                 field_manager=FIELD_MANAGER, force=force_conflicts)
        except StatusError as exc:
            errors.append(f"{server_error(exc)} ({m.where()})")
            continue
        if before is None:
            verb = "created"
        else:
            verb = "unchanged" if _applied_view(before) == _applied_view(after) else "configured"
        done.append(f"{resource_ref(info, name)} {verb}")
    if errors:
        raise PartialFailure(done, errors)
    return done


# ------------------------------------------------------------------ delete / scale


def delete(client: Client, resource: str, namespace: str | None, name: str, *,
           grace_period: int | None = None) -> str:
    """Delete one object (background cascade, as kubectl's default); returns
    ``pod "x" deleted`` / ``deployment.apps "web" deleted``.

    It does not wait for the object to be gone (a pod's grace period, a
    finalizer): the dashboard's views show it terminating. ``namespace`` is
    ignored for cluster-scoped resources. A missing object raises ``NotFound``.
    """
    info = _kind(resource)
    client.delete(info.plural, _scope(info, namespace), name,
                  grace_period_seconds=grace_period, propagation_policy="Background")
    return f"{quoted_ref(info, name)} deleted"


def scale(client: Client, resource: str, namespace: str, name: str, replicas: int) -> str:
    """Set the replica count through the ``scale`` subresource, as
    ``kubectl scale`` does; returns ``deployment.apps/web scaled`` (also when
    the count was already ``replicas``, as kubectl prints it).

    Only deployments and replicasets scale; other kinds, a non-integer or a
    negative count raise :class:`ValueError`.
    """
    info = _kind(resource)
    if info.plural not in SCALABLE:
        raise ValueError(f"{info.plural} cannot be scaled: only deployments and replicasets")
    if isinstance(replicas, bool) or not isinstance(replicas, int):
        raise ValueError(f"replicas must be a whole number, not {replicas!r}")
    if replicas < 0:
        raise ValueError(f"replicas must be greater than or equal to 0, not {replicas}")
    client.patch(info.plural, _scope(info, namespace), name, "merge",
                 {"spec": {"replicas": replicas}}, subresource="scale")
    return f"{resource_ref(info, name)} scaled"


# ------------------------------------------------------------------ rollouts


def _rfc3339_now() -> str:
    """Go's ``time.Now().Format(time.RFC3339)``: local time, seconds, ``Z`` for UTC."""
    now = datetime.now().astimezone()
    if now.utcoffset() == timedelta(0):
        return now.strftime("%Y-%m-%dT%H:%M:%SZ")
    return now.isoformat(timespec="seconds")


def rollout_restart(client: Client, namespace: str, name: str) -> str:
    """Restart a deployment's pods as ``kubectl rollout restart`` does: a
    strategic merge patch setting the pod template annotation
    ``kubectl.kubernetes.io/restartedAt`` to now (RFC 3339, seconds), which
    changes the template so the deployment controller rolls out new pods.

    Returns ``deployment.apps/<name> restarted``. A paused deployment raises
    :class:`ValueError` with kubectl's message. As with kubectl, two restarts
    within the same second set the same value, so the second changes nothing.
    """
    dep = client.get("deployments", namespace, name)
    if (dep.get("spec") or {}).get("paused"):
        raise ValueError(f'deployments.apps "{name}" can\'t restart paused deployment '
                         "(run rollout resume first)")
    client.patch("deployments", namespace, name, "strategic",
                 {"spec": {"template": {"metadata": {"annotations": {
                     RESTARTED_AT_ANNOTATION: _rfc3339_now()}}}}})
    return f"deployment.apps/{name} restarted"


def rollout_undo(client: Client, namespace: str, name: str,
                 to_revision: int | None = None) -> str:
    """Roll a deployment back as ``kubectl rollout undo`` does (the logic is
    :func:`minikube_py.cli.rollout.undo`): to ``to_revision``, or to the
    previous revision when it is ``None`` (or 0).

    Returns ``deployment.apps/<name> rolled back`` or ``deployment.apps/<name>
    skipped rollback (current template already matches revision N)``. No such
    revision, no history, a paused deployment or a negative revision raise
    :class:`ValueError` with kubectl's message; a missing deployment ``NotFound``.
    """
    try:
        outcome = rollout.undo(client, namespace, name, to_revision or 0)
    except CLIError as exc:
        raise ValueError(str(exc)) from None
    return f"deployment.apps/{name} {outcome}"


# ------------------------------------------------------------------ nodes


def _set_unschedulable(client: Client, node: str, desired: bool) -> str:
    obj = client.get("nodes", None, node)
    word = "cordoned" if desired else "uncordoned"
    if bool((obj.get("spec") or {}).get("unschedulable")) == desired:
        return f"node/{node} already {word}"
    # kubectl's CordonHelper sends the two-way strategic merge diff; false is
    # Go's omitempty zero value, so uncordoning removes the field (null).
    client.patch("nodes", None, node, "strategic",
                 {"spec": {"unschedulable": True if desired else None}})
    return f"node/{node} {word}"


def cordon(client: Client, node: str) -> str:
    """Mark ``node`` unschedulable (``spec.unschedulable``), as ``kubectl cordon``:
    ``node/<node> cordoned``, or ``node/<node> already cordoned`` (no write)."""
    return _set_unschedulable(client, node, True)


def uncordon(client: Client, node: str) -> str:
    """Mark ``node`` schedulable again, as ``kubectl uncordon``:
    ``node/<node> uncordoned``, or ``node/<node> already uncordoned`` (no write)."""
    return _set_unschedulable(client, node, False)


def drain_pod_status(pod: Mapping[str, Any], *, force: bool = False,
                     delete_emptydir_data: bool = False) -> tuple[bool, str, str]:
    """kubectl's drain filters for one pod: ``(delete, kind, message)``, where
    ``kind`` is ``Okay``, ``Skip``, ``Warning`` or ``Error``.

    Filters run in kubectl's order and stop at the first that keeps the pod;
    otherwise the last one's verdict stands (so, as in kubectl, a local-storage
    warning is replaced by the controller filter's Okay):

    1. DaemonSet-managed, not finished: kept, warning ``ignoring DaemonSet-managed
       Pods`` (kubectl with ``--ignore-daemonsets``: the DaemonSet controller
       would put them straight back, ignoring the cordon).
    2. Mirror pods (annotation ``kubernetes.io/config.mirror``): kept silently;
       the API cannot delete a static pod.
    3. An ``emptyDir`` volume, not finished: error unless
       ``delete_emptydir_data`` (then a warning), as its data is lost.
    4. No controller, not finished: error unless ``force`` (then a warning):
       nothing would recreate the pod.
    """
    phase = (pod.get("status") or {}).get("phase")
    finished = phase in ("Succeeded", "Failed")
    controller = _controller_of(pod)
    # 1. DaemonSets: this control plane serves none, so a pod naming one as its
    # controller cannot be checked against it; kubectl skips them all the same.
    if controller is not None and controller.get("kind") == "DaemonSet" and not finished:
        return False, "Warning", _DAEMONSET_WARNING
    # 2. mirror pods
    if MIRROR_POD_ANNOTATION in ((pod.get("metadata") or {}).get("annotations") or {}):
        return False, "Skip", ""
    # 3. local storage
    volumes = (pod.get("spec") or {}).get("volumes") or []
    if any("emptyDir" in v for v in volumes) and not finished and not delete_emptydir_data:
        return False, "Error", _LOCAL_STORAGE_FATAL
    # 4. unreplicated
    if finished or controller is not None:
        return True, "Okay", ""
    if force:
        return True, "Warning", _UNMANAGED_WARNING
    return False, "Error", _UNMANAGED_FATAL


def _aggregate(errors: Sequence[str]) -> str:
    """apimachinery's utilerrors.Aggregate text: one error as is, several in brackets."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def _grouped(by_message: Mapping[str, list[str]], fmt: str) -> list[str]:
    return [fmt.format(message=m, pods=", ".join(p)) for m, p in by_message.items()]


def drain(client: Client, node: str, *, grace_period: int | None = None, force: bool = False,
          delete_emptydir_data: bool = False,
          timeout: float | None = DRAIN_TIMEOUT) -> list[str]:
    """Drain ``node`` as ``kubectl drain --ignore-daemonsets`` does on a server
    without the eviction subresource (as here): cordon it, then delete every
    pod bound to it that :func:`drain_pod_status` lets go, and wait until they
    are gone (or replaced by a new pod of the same name).

    Returns kubectl's lines in order: ``node/<node> cordoned`` (or ``already
    cordoned``), ``WARNING: <message>: ns/pod, ...; ...`` when pods were skipped
    or deleted with a warning, ``pod/<name> deleted`` for each pod once it is
    gone, ``node/<node> drained``.

    ``grace_period``: seconds each pod gets to stop (``None`` or negative: the
    pod's own ``terminationGracePeriodSeconds``). ``force``: also delete pods no
    controller would recreate. ``delete_emptydir_data``: also delete pods whose
    ``emptyDir`` data is lost with them. ``timeout``: seconds to wait for the
    pods to go (``None``: forever, kubectl's default).

    A missing node raises ``NotFound`` before anything changes. Once the node
    is cordoned (it stays so, as with kubectl), failures raise
    :class:`PartialFailure`: pods that must not be deleted without
    ``force``/``delete_emptydir_data`` (nothing is deleted then), e.g.
    ``unable to drain node "n1" due to error:cannot delete Pods that declare no
    controller (use --force to override): default/bare`` (kubectl's wording,
    its missing space included); a failed delete; or the timeout, followed by
    the pods still pending.
    """
    done = [cordon(client, node)]
    pods = client.list("pods", field_selector=f"spec.nodeName={node}").items
    victims: list[Object] = []
    warnings: dict[str, list[str]] = {}
    fatal: dict[str, list[str]] = {}
    for pod in pods:
        meta = pod["metadata"]
        delete_it, kind, message = drain_pod_status(
            pod, force=force, delete_emptydir_data=delete_emptydir_data)
        ref = f"{meta.get('namespace')}/{meta['name']}"
        if kind == "Error":
            fatal.setdefault(message, []).append(ref)
        elif kind == "Warning":
            warnings.setdefault(message, []).append(ref)
        if delete_it:
            victims.append(pod)
    if fatal:
        errors = _grouped(fatal, "cannot delete {message}: {pods}")
        raise PartialFailure(done, [f'unable to drain node "{node}" due to error:'
                                    f"{_aggregate(errors)}"])
    if warnings:
        done.append("WARNING: " + "; ".join(_grouped(warnings, "{message}: {pods}")))
    grace = grace_period if grace_period is not None and grace_period >= 0 else None
    for pod in victims:
        meta = pod["metadata"]
        try:
            client.delete("pods", meta.get("namespace"), meta["name"],
                          grace_period_seconds=grace)
        except NotFound:
            continue  # already gone: the wait below reports it
        except StatusError as exc:
            raise PartialFailure(done, [f'unable to drain node "{node}" due to error:'
                                        f"{exc.message}"]) from exc
    pending = _wait_gone(client, victims, done, timeout)
    if pending:
        reason = "timed out waiting for the condition"
        raise PartialFailure(done, [
            f'unable to drain node "{node}" due to error:{reason}',
            f'There are pending pods in node "{node}" when an error occurred: {reason}',
            *(f"pod/{p['metadata']['name']}" for p in pending)])
    done.append(f"node/{node} drained")
    return done


def _wait_gone(client: Client, pods: list[Object], done: list[str],
               timeout: float | None) -> list[Object]:
    """kubectl's waitForDelete: poll until each pod is NotFound or another pod
    (another UID) has its name, appending ``pod/<name> deleted`` as each goes.
    Returns the pods still there when ``timeout`` ran out."""
    deadline = None if timeout is None else time.monotonic() + timeout
    pending = list(pods)
    while pending:
        still: list[Object] = []
        for pod in pending:
            meta = pod["metadata"]
            try:
                current = client.get("pods", meta.get("namespace"), meta["name"])
            except NotFound:
                current = None
            if current is None or current["metadata"].get("uid") != meta.get("uid"):
                done.append(f"pod/{meta['name']} deleted")
            else:
                still.append(pod)
        pending = still
        if not pending or (deadline is not None and time.monotonic() >= deadline):
            break
        time.sleep(_DRAIN_POLL_SECONDS)
    return pending
