"""Node maintenance: cordon, uncordon and drain, as kubectl does them on a
server without the eviction subresource (as here), with kubectl's lines and
messages (``node/n1 cordoned``, ``unable to drain node "n1" due to error:...``).

Drain blocks while the pods it deleted go: call it from a worker thread in a
user interface, never from its event loop.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..api.errors import NotFound, StatusError
from ..client.base import Client, Object
from .errors import PartialFailure

__all__ = ["DRAIN_TIMEOUT", "MIRROR_POD_ANNOTATION", "cordon", "drain", "drain_pod_status",
           "uncordon"]

#: Marks a mirror pod (the API's copy of a static pod); drain leaves those alone.
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
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


def _controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """metav1.GetControllerOf: the ownerReference with ``controller: true``."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller") is True:
            return dict(ref)
    return None


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
    2. Mirror pods (annotation ``kubernetes.io/config.mirror``): kept, with no
       warning, as kubectl keeps them: the API cannot delete a static pod.
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
