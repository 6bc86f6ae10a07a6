"""The connect subresources: ``pods/exec``, ``pods/attach``, ``pods/portforward``
and the proxies, checked as kube-apiserver checks them.

kube-apiserver validates a connect request (``pkg/registry/core/pod``:
``streamLocation``: the container name, the pod's node) and then hands the
connection to the kubelet. Here the kubelet of the pod's node is reached
in-process through a :class:`StreamSource` the control plane wires in, and
the relaying happens in this package (:mod:`.remotecommand`,
:mod:`.portforward`, :mod:`.proxy`). What this module promises:

* The apiserver's refusals, before any upgrade, in its words (400s):
  ``a container name must be specified for pod P, choose one of: [a b]``,
  ``container C is not valid for pod P``, ``pod P does not have a host
  assigned``, ``you must specify at least 1 of stdin, stdout, stderr``; a
  request that is not a WebSocket (or SPDY, for port-forward) upgrade gets
  400 ``Upgrade request required``.
* exec and attach speak the ``*.channel.k8s.io`` WebSocket protocols
  (kubectl 1.30+ and the official client). A kubelet that cannot open the
  stream (``container not found ("c")``) is answered the way
  kube-apiserver's v5 stream translator answers: the WebSocket is accepted
  and an ``InternalError`` ``Status`` ("unable to upgrade connection: ...")
  is the error channel's word, which kubectl prints; older protocols get
  that error as the HTTP answer instead, as the kubelet gives it.
* ``tty`` with ``stderr`` drops stderr (one terminal carries everything),
  as the kubelet does.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ...api.errors import BadRequest, InternalError, MethodNotAllowed
from ...client.sockio import SharedSocket
from ...runtime.streaming import ExecOptions, StreamSession
from ...store.registry import Registry
from ..handlers import Request, Response
from ..routes import Target
from . import channels, portforward, proxy, remotecommand
from .websocket import WebSocket, handshake, is_websocket

__all__ = ["Connect", "StreamSource", "StreamUnavailable"]


class StreamUnavailable(Exception):
    """The kubelet could not open the stream; the message is its own."""


class StreamSource(Protocol):
    """The kubelets' streaming verbs (wired by the control plane). Each raises
    :class:`StreamUnavailable` (or a subclass) with the kubelet's words."""

    def exec(self, pod: Mapping[str, Any], container: str, command: Sequence[str],
             options: ExecOptions) -> StreamSession: ...

    def attach(self, pod: Mapping[str, Any], container: str,
               options: ExecOptions) -> StreamSession: ...

    def port_forward(self, pod: Mapping[str, Any], port: int) -> socket.socket: ...


def _flag(values: Mapping[str, list[str]], name: str, default: bool = False) -> bool:
    got = values.get(name)
    if not got:
        return default
    return got[-1].lower() in ("1", "true", "t", "yes", "y")


def _multi(query: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in query:
        out.setdefault(key, []).append(value)
    return out


def _container_names(spec: Mapping[str, Any]) -> list[str]:
    return [str(c.get("name")) for group in ("initContainers", "containers",
                                             "ephemeralContainers")
            for c in spec.get(group) or []]


def choose_container(pod: Mapping[str, Any], asked: str) -> str:
    """kube-apiserver's ``validateContainer`` (for exec, attach)."""
    spec = pod.get("spec") or {}
    name = str((pod.get("metadata") or {}).get("name", ""))
    if not asked:
        containers = spec.get("containers") or []
        if len(containers) == 1:
            return str(containers[0].get("name"))
        if not containers:
            raise BadRequest(f"pod {name} does not have a container")
        raise BadRequest(f"a container name must be specified for pod {name}, choose one "
                         f"of: [{' '.join(_container_names(spec))}]")
    if asked not in _container_names(spec):
        raise BadRequest(f"container {asked} is not valid for pod {name}")
    return asked


def _assigned(pod: Mapping[str, Any]) -> None:
    if not (pod.get("spec") or {}).get("nodeName"):
        name = (pod.get("metadata") or {}).get("name", "")
        raise BadRequest(f"pod {name} does not have a host assigned")


class Connect:
    """Serves the connect subresources of pods, services and nodes."""

    def __init__(self, registry: Registry, source: StreamSource | None,
                 stopping: Callable[[], bool]) -> None:
        self.registry = registry
        self.source = source
        self.stopping = stopping

    def handle(self, target: Target, req: Request) -> Response:
        sub = target.subresource
        if sub == "proxy":
            return proxy.handle(self.registry, target, req)
        pod = self.registry.get(target.resource, target.namespace, target.name or "")
        if sub == "portforward":
            return self._port_forward(pod, req)
        if req.method not in ("GET", "POST"):
            raise MethodNotAllowed(f"{req.method} is not supported on pods/{sub}")
        query = _multi(req.query_list)
        container = choose_container(pod, (query.get("container") or [""])[-1])
        tty = _flag(query, "tty")
        options = ExecOptions(stdin=_flag(query, "stdin"), stdout=_flag(query, "stdout", True),
                              stderr=_flag(query, "stderr", True) and not tty, tty=tty)
        if not (options.stdin or options.stdout or _flag(query, "stderr", True)):
            raise BadRequest("you must specify at least 1 of stdin, stdout, stderr")
        command: list[str] | None = None
        if sub == "exec":
            command = query.get("command") or []
            if not command:
                raise BadRequest("you must specify a command to execute (the command "
                                 "parameter)")
        _assigned(pod)
        if not is_websocket(req.headers):
            raise _upgrade_required(req, "exec and attach are served over WebSocket "
                                    f"({', '.join(channels.EXEC_PROTOCOLS)})")
        protocol, answer = handshake(req.headers, channels.EXEC_PROTOCOLS,
                                     default=channels.DEFAULT)
        proto = channels.by_name(protocol)
        if self.source is None:
            raise BadRequest("this control plane runs no kubelets to stream from")
        error: str | None = None
        session: StreamSession | None = None
        try:
            if command is not None:
                session = self.source.exec(pod, container, command, options)
            else:
                session = self.source.attach(pod, container, options)
        except StreamUnavailable as exc:
            error = f"unable to upgrade connection: {exc}"
            if proto.version < 5:
                raise InternalError.of(error) from None
        stopping = self.stopping

        def run(sock: SharedSocket) -> None:
            ws = WebSocket(sock, protocol)
            if session is None:
                try:
                    remotecommand.write_status(ws, proto, remotecommand.internal_error(
                        error or "the stream could not be opened"))
                    ws.close(1000)
                    while ws.receive(timeout=5.0) is not None:
                        pass
                except ConnectionError:
                    pass
                return
            remotecommand.serve_session(ws, proto, session, options, command=command,
                                        stopping=stopping)

        return Response(101, headers=answer, upgrade=run)

    def _port_forward(self, pod: Mapping[str, Any], req: Request) -> Response:
        if req.method not in ("GET", "POST"):
            raise MethodNotAllowed(f"{req.method} is not supported on pods/portforward")
        _assigned(pod)
        if self.source is None:
            raise BadRequest("this control plane runs no kubelets to stream from")
        return portforward.handle(pod, req, self.source, self.stopping,
                                  StreamUnavailable)


def _upgrade_required(req: Request, served: str) -> BadRequest:
    if req.headers.get("upgrade", "").lower().startswith("spdy"):
        return BadRequest(f"SPDY is not served for this request: {served}")
    return BadRequest("Upgrade request required")
