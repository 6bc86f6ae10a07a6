"""The kubelet's streaming verbs: exec, attach and port-forward into its pods.

Kubernetes' kubelet serves ``/exec``, ``/attach`` and ``/portForward`` for
the API server (through CRI's streaming server); here the API server asks
the kubelet of the pod's node in-process (wired by the control plane) and
relays the session it gets. What this module promises:

* The session is for the pod's *current* instance of the container, found by
  the pod's uid, so a pod recreated under the same name is never reached
  through an old identity.
* A container that is not running is refused with the kubelet's words,
  ``container not found ("NAME")``; a pod without a running sandbox with
  ``pod NAME is not running``. These are :class:`StreamError` (the API server
  turns them into the answers kube-apiserver gives).
* Port-forwarding dials ``localhost:PORT`` inside the pod's network
  namespace, as the kubelet does.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from typing import Any

from ..runtime.base import (
    CONTAINER_RUNNING,
    LABEL_POD_UID,
    SANDBOX_READY,
    ContainerRuntime,
    ContainerRuntimeError,
    ContainerStatus,
)
from ..runtime.streaming import ExecOptions, StreamSession
from .status import container_name, group_instances

__all__ = ["StreamError", "attach", "exec_in", "port_forward"]


class StreamError(RuntimeError):
    """The kubelet cannot open the stream; the message is the kubelet's."""


def _running(runtime: ContainerRuntime, pod: Mapping[str, Any], name: str) -> ContainerStatus:
    uid = str((pod.get("metadata") or {}).get("uid", ""))
    found = [c for sb in runtime.list_sandboxes({LABEL_POD_UID: uid})
             for c in runtime.list_containers(sb.id) if container_name(c) == name]
    instances = group_instances(found).get(name, [])
    if not instances or instances[-1].state != CONTAINER_RUNNING:
        raise StreamError(f'container not found ("{name}")')
    return instances[-1]


def _spec_of(pod: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    spec = pod.get("spec") or {}
    for group in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(group) or []:
            if c.get("name") == name:
                return dict(c)
    return {}


def exec_in(runtime: ContainerRuntime, pod: Mapping[str, Any], container: str,
            command: Sequence[str], options: ExecOptions) -> StreamSession:
    """Run ``command`` in the pod's running ``container``."""
    target = _running(runtime, pod, container)
    try:
        return runtime.exec_stream(target.id, command, options)
    except ContainerRuntimeError as exc:
        raise StreamError(f"error executing command in container: {exc}") from exc


def attach(runtime: ContainerRuntime, pod: Mapping[str, Any], container: str,
           options: ExecOptions) -> StreamSession:
    """The streams of the pod's running ``container`` itself. A TTY is used
    exactly when the container has one (``tty: true``), whatever was asked:
    that is the terminal its process writes to; stdin only when the container
    keeps one open (``stdin: true``). When a session that carried stdin ends,
    Podman ends the container's stdin too -- what ``stdinOnce`` asks for;
    Kubernetes keeps it open for a container without ``stdinOnce``, which
    Podman's attach cannot (a known limit, see the README)."""
    target = _running(runtime, pod, container)
    spec = _spec_of(pod, container)
    tty = bool(spec.get("tty"))
    opts = ExecOptions(stdin=options.stdin and bool(spec.get("stdin")), stdout=options.stdout,
                       stderr=options.stderr and not tty, tty=tty)
    try:
        return runtime.attach(target.id, opts)
    except ContainerRuntimeError as exc:
        raise StreamError(f"error attaching to container: {exc}") from exc


def port_forward(runtime: ContainerRuntime, pod: Mapping[str, Any], port: int) -> socket.socket:
    """A connection to ``localhost:port`` in the pod's network namespace."""
    meta = pod.get("metadata") or {}
    uid = str(meta.get("uid", ""))
    sandboxes = [sb for sb in runtime.list_sandboxes({LABEL_POD_UID: uid})
                 if sb.state == SANDBOX_READY]
    if not sandboxes:
        raise StreamError(f'pod {meta.get("name", "")} is not running')
    try:
        return runtime.port_forward(sandboxes[-1].id, port)
    except ContainerRuntimeError as exc:
        raise StreamError(str(exc)) from exc
