"""``pods/proxy`` and ``services/proxy``: HTTP to a pod through the API server.

``GET /api/v1/namespaces/NS/pods/[SCHEME:]NAME[:PORT]/proxy/PATH`` is sent on
to ``PODIP:PORT/PATH`` (kube-apiserver's ``pod.ResourceLocation``: a port
may be a number or a container port's name; without one, the first declared
container port, else 80); ``services/NAME[:PORT]/proxy`` picks a ready
endpoint of the service (the port by service port name or number, sent to
the endpoint's port of the same name). This is what ``kubectl proxy`` and
``kubectl get --raw`` reach.

Forwarding keeps the method, the path after ``/proxy``, the query, the body
and the end-to-end headers; the client's credentials (``Authorization``,
``Impersonate-*``) are the API server's business and never reach the pod.
The answer comes back as the pod gave it (status, headers, body streamed).
Only ``http`` is served: the API server has no client certificate a pod
would check, and ``https:`` pod proxies are refused with a clear message.
``nodes/proxy`` of an existing node is refused (503; a missing node is
404): the kubelets run inside the control plane and
serve no HTTP endpoint of their own.
"""

from __future__ import annotations

import http.client
import random
from collections.abc import Iterator, Mapping
from typing import Any

from ...api.errors import BadRequest, MethodNotAllowed, ServiceUnavailable
from ...store.registry import Registry
from ..handlers import Request, Response
from ..routes import Target

__all__ = ["handle", "split_name"]

#: Headers that belong to one connection, not to the request (RFC 9110 7.6.1).
_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                  "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"})
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
#: Seconds to wait for the pod to connect and to answer.
_TIMEOUT = 30.0


def split_name(raw: str) -> tuple[str, str, str]:
    """``[scheme:]name[:port]`` -> (scheme, name, port) as kube-apiserver's
    ``SplitSchemeNamePort``."""
    parts = raw.split(":")
    if len(parts) == 1:
        return "", parts[0], ""
    if len(parts) == 2:
        return "", parts[0], parts[1]
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    raise BadRequest(f'invalid resource name "{raw}": use [scheme:]name[:port]')


def _pod_port(pod: Mapping[str, Any], port: str) -> int:
    containers = (pod.get("spec") or {}).get("containers") or []
    if not port:
        for c in containers:
            for p in c.get("ports") or []:
                return int(p.get("containerPort", 80))
        return 80
    if port.isdigit():
        return int(port)
    for c in containers:
        for p in c.get("ports") or []:
            if p.get("name") == port:
                return int(p.get("containerPort", 0))
    name = (pod.get("metadata") or {}).get("name", "")
    raise BadRequest(f'pod "{name}" has no port named "{port}"')


def _pod_location(registry: Registry, namespace: str, raw: str) -> tuple[str, int]:
    scheme, name, port = split_name(raw)
    _scheme(scheme)
    pod = registry.get("pods", namespace, name)
    ip = (pod.get("status") or {}).get("podIP")
    if not ip:
        raise ServiceUnavailable(f'pod "{name}" has no IP address yet: it is not running')
    return str(ip), _pod_port(pod, port)


def _service_location(registry: Registry, namespace: str, raw: str) -> tuple[str, int]:
    scheme, name, port = split_name(raw)
    _scheme(scheme)
    svc = registry.get("services", namespace, name)
    ports = (svc.get("spec") or {}).get("ports") or []
    chosen: Mapping[str, Any] | None = None
    for p in ports:
        if not port or port == p.get("name") or port == str(p.get("port")):
            chosen = p
            break
    if chosen is None:
        raise ServiceUnavailable(f'no service port "{port}" found for service "{name}"')
    try:
        endpoints = registry.get("endpoints", namespace, name)
    except Exception:
        endpoints = {}
    candidates: list[tuple[str, int]] = []
    for subset in endpoints.get("subsets") or []:
        for ep_port in subset.get("ports") or []:
            if (ep_port.get("name") or "") != (chosen.get("name") or ""):
                continue
            for address in subset.get("addresses") or []:
                candidates.append((str(address.get("ip")), int(ep_port.get("port", 0))))
    if not candidates:
        raise ServiceUnavailable(f'no endpoints available for service "{name}"')
    return random.choice(candidates)


def _scheme(scheme: str) -> None:
    if scheme not in ("", "http"):
        raise BadRequest(f"{scheme}: proxying to a pod over {scheme} is not supported here "
                         "(the API server has no client certificate a pod would trust); use "
                         "http or kubectl port-forward")


def handle(registry: Registry, target: Target, req: Request) -> Response:
    if req.method not in _METHODS:
        raise MethodNotAllowed(f"{req.method} is not supported on {target.resource}/proxy")
    if target.resource == "nodes":
        # As kube-apiserver's node ResourceLocation: a missing node is 404
        # before anything is said about reaching its kubelet.
        registry.get("nodes", "", split_name(target.name or "")[1])
        raise ServiceUnavailable("nodes/proxy is not served: this control plane's kubelets run "
                                 "in-process and have no HTTP endpoint")
    namespace = target.namespace or "default"
    raw = target.name or ""
    if target.resource == "pods":
        host, port = _pod_location(registry, namespace, raw)
    else:
        host, port = _service_location(registry, namespace, raw)
    path = "/" + (target.rest or "").lstrip("/")
    if req.raw_query:
        path += "?" + req.raw_query
    headers = {k: v for k, v in req.header_list
               if k not in _HOP and k != "authorization" and not k.startswith("impersonate-")}
    conn = http.client.HTTPConnection(host, port, timeout=_TIMEOUT)
    try:
        conn.request(req.method, path, body=req.body or None, headers=headers)
        answer = conn.getresponse()
    except OSError as exc:
        conn.close()
        # kube-apiserver's proxy words (for pods too), with Go's dial error.
        reason = exc.strerror.lower() if exc.strerror else str(exc)
        raise ServiceUnavailable(f"error trying to reach service: dial tcp {host}:{port}: "
                                 f"connect: {reason}") from None
    out_headers = [(k, v) for k, v in answer.getheaders()
                   if k.lower() not in _HOP and k.lower() != "content-type"]
    content_type = answer.getheader("content-type") or "application/octet-stream"
    if req.method == "HEAD":
        conn.close()
        return Response(answer.status, b"", content_type, headers=out_headers)

    def body(alive: Any) -> Iterator[bytes]:
        try:
            while alive():
                chunk = answer.read1(65536)
                if not chunk:
                    return
                yield chunk
        finally:
            conn.close()

    return Response(answer.status, content_type=content_type, headers=out_headers,
                    stream=body)
