"""Resource verbs: get, list, watch, create, update, patch, delete (+ collection),
and the subresources (status, binding, scale, log, finalize).

Everything here is plain request -> :class:`Response`; HTTP plumbing (auth,
sockets, chunking) lives in :mod:`.server`. Every write goes through the
registry, so the API can store nothing the registry would refuse. Errors are
raised as :class:`~minikube_py.api.errors.StatusError` and rendered by the server.

Response codes follow Kubernetes: create 201; get/update/patch 200 (an apply
that creates, 201); delete 200 when gone, 202 while waiting for a grace period
or finalizers; a deleted object is returned for pods (which carry their final
status) and a ``Status`` of success for other kinds, as Kubernetes does.

No handler reads a request body itself: :mod:`.bodies` decodes and
type-checks every body first (objects, DeleteOptions, Binding; patch and
Scale documents are typed by the registry), so a body of the wrong shape is a
400 naming the field. A request that is refused changes nothing in the store:
a delete-collection checks every deletion (dry run) before doing any.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import yaml

from ..api import jsontext, kinds, printers
from ..api.errors import BadRequest, Expired, MethodNotAllowed, NotFound, StatusError
from ..api.fields import parse_field_selector
from ..api.labels import parse_selector
from ..store.registry import Registry
from ..store.watch import WatchEvent
from . import bodies
from .bodies import MAX_BODY, query_int
from .negotiation import Wanted, negotiate
from .routes import Target

if TYPE_CHECKING:
    from ..client.sockio import SharedSocket

Alive = Callable[[], bool]


class LogSource(Protocol):
    """Where container logs come from (the node's runtime, wired by the control plane)."""

    def logs(self, pod: Mapping[str, Any], container: str, *, follow: bool, previous: bool,
             tail_lines: int | None, timestamps: bool, since_seconds: int | None,
             limit_bytes: int | None, alive: Alive) -> Iterator[bytes]: ...


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: Mapping[str, str]
    body: bytes = b""
    #: Every header as sent (names lower-case), repeated ones included
    #: (``Impersonate-Group`` may come several times); ``headers`` keeps the last.
    header_list: list[tuple[str, str]] = field(default_factory=list)
    #: Every query parameter as sent, repeated ones included (``command`` of
    #: exec comes once per word); ``query`` keeps the last of each.
    query_list: list[tuple[str, str]] = field(default_factory=list)
    #: The query string as sent (proxied on unchanged).
    raw_query: str = ""


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: list[tuple[str, str]] = field(default_factory=list)
    #: For streams (watch, log -f): called with a liveness check of the client.
    stream: Callable[[Alive], Iterator[bytes]] | None = None
    #: For upgrades (status 101: exec, attach, port-forward): called with the
    #: connection once the answer's head is sent; the connection is closed
    #: when it returns.
    upgrade: Callable[[SharedSocket], None] | None = None


def json_response(obj: Any, status: int = 200, *, yaml_out: bool = False,
                  warnings: list[str] | None = None) -> Response:
    if yaml_out:
        body = yaml.safe_dump(obj, sort_keys=False).encode()
        resp = Response(status, body, "application/yaml")
    else:
        try:
            body = jsontext.dumps_bytes(obj)
        except (TypeError, ValueError):  # what orjson does not write (an integer beyond
            # 64 bits, a key not a string) is answered as before
            body = json.dumps(obj, separators=(",", ":")).encode()
        resp = Response(status, body)
    return _warned(resp, warnings)


def _warned(resp: Response, warnings: list[str] | None) -> Response:
    """``resp`` with a ``Warning`` header for each of ``warnings``."""
    for w in warnings or ():
        resp.headers.append(("Warning", f'299 - "{w}"'.replace("\n", " ")))
    return resp


def _flag(query: Mapping[str, str], name: str) -> bool:
    return query.get(name, "").lower() in ("1", "true", "yes")


def _meta_only(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": obj.get("metadata", {})}


class ResourceHandlers:
    """The verbs over one registry."""

    def __init__(self, registry: Registry, *, log_source: LogSource | None = None,
                 clock: Callable[[], float] = time.time,
                 stopping: Callable[[], bool] = lambda: False) -> None:
        self.registry = registry
        self.store = registry.store
        self.log_source = log_source
        self.clock = clock
        self.stopping = stopping

    # ------------------------------------------------------------------ dispatch

    def handle(self, target: Target, req: Request) -> Response:
        wanted = negotiate(req.headers.get("accept"))
        q = req.query
        sub = target.subresource
        if sub == "log":
            if req.method != "GET":
                raise MethodNotAllowed(f"{req.method} is not supported on pods/log")
            return self._log(target, q)
        if sub == "binding":
            return self._binding(target, req)
        if sub == "scale":
            return self._scale(target, req)
        if target.name is None:
            if req.method == "GET":
                if _flag(q, "watch"):
                    return self._watch(target, q, wanted)
                return self._list(target, q, wanted)
            if req.method == "POST":
                return self._create(target, req, wanted)
            if req.method == "DELETE":
                return self._delete_collection(target, req)
            raise MethodNotAllowed(f"{req.method} is not supported on a collection")
        if req.method == "GET":
            if _flag(q, "watch"):
                return self._watch(target, {**q, "fieldSelector": self._name_selector(
                    target, q)}, wanted)
            return self._get(target, wanted)
        if req.method == "PUT":
            return self._update(target, req, wanted)
        if req.method == "PATCH":
            return self._patch(target, req, wanted)
        if req.method == "DELETE":
            return self._delete(target, req)
        raise MethodNotAllowed(f"{req.method} is not supported on {target.resource}")

    @staticmethod
    def _name_selector(target: Target, q: Mapping[str, str]) -> str:
        own = q.get("fieldSelector", "")
        name = f"metadata.name={target.name}"
        return f"{own},{name}" if own else name

    # ------------------------------------------------------------------ reads

    def _render(self, target: Target, obj: dict[str, Any], wanted: Wanted,
                status: int = 200, warnings: list[str] | None = None) -> Response:
        if wanted.shape == "table":
            return json_response(printers.table(target.info.kind, [obj], now=self.clock(),
                                                include_object="Metadata",
                                                resource_version=obj["metadata"].get(
                                                    "resourceVersion", "")), status)
        if wanted.shape == "metadata":
            return json_response(_meta_only(obj), status)
        return json_response(obj, status, yaml_out=wanted.yaml, warnings=warnings)

    def _get(self, target: Target, wanted: Wanted) -> Response:
        obj = self.registry.get(target.resource, target.namespace, target.name or "")
        return self._render(target, obj, wanted)

    def _list(self, target: Target, q: Mapping[str, str], wanted: Wanted) -> Response:
        label = parse_selector(q["labelSelector"]) if q.get("labelSelector") else None
        fields = parse_field_selector(q["fieldSelector"]) if q.get("fieldSelector") else None
        limit = query_int(q, "limit")
        if limit is not None and limit < 0:
            raise BadRequest("limit must not be negative")
        if q.get("resourceVersionMatch") == "Exact":
            rv = q.get("resourceVersion", "")
            if rv and rv != str(self.store.resource_version):
                raise Expired(f"resourceVersion {rv} is not available: only the current "
                              f"version ({self.store.resource_version}) can be listed")
        page = self.store.list_raw(target.resource, namespace=target.namespace,
                                   label_selector=label, field_selector=fields,
                                   limit=limit or None, continue_token=q.get("continue") or None)
        meta: dict[str, Any] = {"resourceVersion": str(page.resource_version)}
        if page.continue_token:
            meta["continue"] = page.continue_token
            meta["remainingItemCount"] = page.remaining
        if wanted.shape == "table":
            objs = [json.loads(r) for r in page.items]
            table = printers.table(target.info.kind, objs, now=self.clock(),
                                   include_object=q.get("includeObject", "Metadata"),
                                   resource_version=meta["resourceVersion"],
                                   continue_token=page.continue_token)
            if "remainingItemCount" in meta:
                table["metadata"]["remainingItemCount"] = meta["remainingItemCount"]
            return json_response(table)
        if wanted.shape == "metadata":
            items = ",".join(json.dumps(_meta_only(json.loads(r))) for r in page.items)
            head = {"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                    "metadata": meta}
        else:
            items = ",".join(page.items)
            head = {"kind": f"{target.info.kind}List", "apiVersion": target.info.api_version,
                    "metadata": meta}
        if wanted.yaml:
            return json_response({**head, "items": [json.loads(r) for r in page.items]},
                                 yaml_out=True)
        # Splice the stored JSON text in directly: no decode/encode per item.
        text = json.dumps(head, separators=(",", ":"))[:-1] + ',"items":[' + items + "]}"
        return Response(200, text.encode())

    # ------------------------------------------------------------------ watch

    def _watch(self, target: Target, q: Mapping[str, str], wanted: Wanted) -> Response:
        label = parse_selector(q["labelSelector"]) if q.get("labelSelector") else None
        fields = parse_field_selector(q["fieldSelector"]) if q.get("fieldSelector") else None
        timeout = query_int(q, "timeoutSeconds")
        rv = q.get("resourceVersion") or None
        try:
            watch = self.store.watch(target.resource, namespace=target.namespace,
                                     label_selector=label, field_selector=fields,
                                     resource_version=rv)
            early_error: StatusError | None = None
        except Expired as exc:
            early_error = exc
        kind = target.info.kind
        include = q.get("includeObject", "Metadata")

        def encode(ev: WatchEvent, first: bool) -> bytes:
            if wanted.shape == "object":
                return (ev.to_json() + "\n").encode()
            obj = ev.object
            if wanted.shape == "metadata":
                payload: Any = _meta_only(obj)
            else:
                payload = printers.table(kind, [obj], now=self.clock(), include_object=include,
                                         resource_version=str(ev.resource_version))
                if not first:
                    payload["columnDefinitions"] = []
            return (json.dumps({"type": ev.type, "object": payload},
                               separators=(",", ":")) + "\n").encode()

        def stream(alive: Alive) -> Iterator[bytes]:
            if early_error is not None:
                yield _error_event(early_error)
                return
            deadline = None if timeout is None else time.monotonic() + timeout
            first = True
            try:
                while not self.stopping():
                    wait = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
                    if wait <= 0:
                        return
                    try:
                        ev = watch.next(timeout=wait)
                    except Expired as exc:
                        yield _error_event(exc)
                        return
                    if ev is None:
                        if watch.stopped or not alive():
                            return
                        continue
                    yield encode(ev, first)
                    first = False
            finally:
                watch.stop()

        return Response(200, stream=stream)

    # ------------------------------------------------------------------ writes

    def _object_body(self, target: Target, req: Request) -> dict[str, Any]:
        return bodies.object_body(req.body, req.headers.get("content-type"), target.info)

    def _create(self, target: Target, req: Request, wanted: Wanted) -> Response:
        obj = self._object_body(target, req)
        warnings: list[str] = []
        created = self.registry.create_raw(
            obj, namespace=target.namespace, dry_run=bodies.dry_run(req.query),
            field_validation=req.query.get("fieldValidation") or "Strict", warnings=warnings)
        if wanted.shape == "object" and not wanted.yaml:
            # The stored text is the JSON answer: no decode and encode again.
            return _warned(Response(201, created.encode()), warnings)
        return self._render(target, jsontext.loads(created), wanted, 201, warnings)

    def _update(self, target: Target, req: Request, wanted: Wanted) -> Response:
        obj = self._object_body(target, req)
        name = (obj.get("metadata") or {}).get("name")
        if name != target.name:
            raise BadRequest(f"the name of the object ({name}) does not match the name on the "
                             f"URL ({target.name})")
        warnings: list[str] = []
        updated = self.registry.update(
            obj, namespace=target.namespace, subresource=target.subresource,
            dry_run=bodies.dry_run(req.query),
            field_validation=req.query.get("fieldValidation") or "Strict", warnings=warnings)
        return self._render(target, updated, wanted, 200, warnings)

    def _patch(self, target: Target, req: Request, wanted: Wanted) -> Response:
        kind, body = bodies.patch_body(req.body, req.headers.get("content-type"))
        warnings: list[str] = []
        q = req.query
        obj, created = self.registry.patch(
            target.resource, target.namespace, target.name or "", kind, body,
            subresource=target.subresource, field_manager=q.get("fieldManager") or None,
            force=_flag(q, "force"), dry_run=bodies.dry_run(q),
            field_validation=q.get("fieldValidation") or "Strict", warnings=warnings)
        return self._render(target, obj, wanted, 201 if created else 200, warnings)

    def _delete_options(self, req: Request) -> bodies.DeleteOptions:
        return bodies.delete_options(req.body, req.headers.get("content-type"), req.query)

    def _delete(self, target: Target, req: Request) -> Response:
        opts = self._delete_options(req)
        result = self.registry.delete(
            target.resource, target.namespace, target.name or "",
            grace_period_seconds=opts.grace_period_seconds,
            propagation_policy=opts.propagation_policy, preconditions=opts.preconditions,
            dry_run=opts.dry_run)
        if not result.finished:
            return json_response(result.object, 202)
        if target.info.returns_deleted_object:
            return json_response(result.object)
        meta = result.object.get("metadata", {})
        details = {"name": meta.get("name"), "kind": target.resource,
                   "uid": meta.get("uid")}
        if target.info.group:
            details["group"] = target.info.group
        return json_response({"kind": "Status", "apiVersion": "v1", "metadata": {},
                              "status": "Success", "details": details})

    def _delete_collection(self, target: Target, req: Request) -> Response:
        opts = self._delete_options(req)
        q = req.query
        label = parse_selector(q["labelSelector"]) if q.get("labelSelector") else None
        fields = parse_field_selector(q["fieldSelector"]) if q.get("fieldSelector") else None
        items = self.store.list(target.resource, namespace=target.namespace,
                                label_selector=label, field_selector=fields).items
        deleted: list[dict[str, Any]] = []
        # Two passes: every deletion is first tried as a dry run, so one refused
        # item (a system namespace or priority class) fails the request before
        # any other item is gone — a refused request changes nothing.
        passes = (True,) if opts.dry_run else (True, False)
        for dry_run in passes:
            deleted = []
            for obj in items:
                meta = obj["metadata"]
                try:
                    deleted.append(self.registry.delete(
                        target.resource, meta.get("namespace"), meta["name"],
                        grace_period_seconds=opts.grace_period_seconds,
                        propagation_policy=opts.propagation_policy,
                        dry_run=dry_run).object)
                except NotFound:
                    continue  # gone meanwhile: that is what was asked
        return json_response({"kind": f"{target.info.kind}List",
                              "apiVersion": target.info.api_version,
                              "metadata": {"resourceVersion": str(self.store.resource_version)},
                              "items": deleted})

    # ------------------------------------------------------------------ subresources

    def _binding(self, target: Target, req: Request) -> Response:
        if req.method != "POST":
            raise MethodNotAllowed(f"{req.method} is not supported on {target.resource}/binding")
        bind = bodies.binding(req.body, req.headers.get("content-type"), target.name)
        self.registry.bind(target.namespace or "default", bind.name, bind.node, uid=bind.uid,
                           dry_run=bodies.dry_run(req.query), resource=target.resource)
        return json_response({"kind": "Status", "apiVersion": "v1", "metadata": {},
                              "status": "Success", "code": 201}, 201)

    def _scale(self, target: Target, req: Request) -> Response:
        ns, name = target.namespace or "default", target.name or ""
        if req.method == "GET":
            return json_response(self.registry.get_scale(target.resource, ns, name))
        dry_run = bodies.dry_run(req.query)
        if req.method == "PUT":
            scale = bodies.decode(req.body, req.headers.get("content-type"))
            return json_response(self.registry.update_scale(target.resource, ns, name, scale,
                                                            dry_run=dry_run))
        if req.method == "PATCH":
            kind, body = bodies.patch_body(req.body, req.headers.get("content-type"))
            return json_response(self.registry.patch_scale(target.resource, ns, name, kind,
                                                           body, dry_run=dry_run))
        raise MethodNotAllowed(f"{req.method} is not supported on {target.resource}/scale")

    def _log(self, target: Target, q: Mapping[str, str]) -> Response:
        pod = self.registry.get(target.resource, target.namespace, target.name or "")
        spec = pod.get("spec") or {}
        names = [c.get("name") for c in spec.get("containers") or []]
        init_names = [c.get("name") for c in spec.get("initContainers") or []]
        container = q.get("container")
        if not container:
            default = (pod["metadata"].get("annotations") or {}).get(
                "kubectl.kubernetes.io/default-container")
            if default:
                container = default
            elif len(names) == 1:
                container = names[0]
            else:
                raise BadRequest(f"a container name must be specified for pod "
                                 f"{target.name}, choose one of: [{' '.join(map(str, names))}]"
                                 + (f" or one of the init containers: "
                                    f"[{' '.join(map(str, init_names))}]" if init_names else ""))
        if container not in names and container not in init_names:
            raise BadRequest(f"container {container} is not valid for pod {target.name}")
        if not spec.get("nodeName") or self.log_source is None:
            raise BadRequest(f'container "{container}" in pod "{target.name}" is waiting to '
                             "start: the pod is not running on a node yet")
        follow = _flag(q, "follow")
        source = self.log_source
        previous, timestamps = _flag(q, "previous"), _flag(q, "timestamps")
        tail, since = query_int(q, "tailLines"), query_int(q, "sinceSeconds")
        limit = query_int(q, "limitBytes")

        def chunks_of(alive: Alive) -> Iterator[bytes]:
            return source.logs(pod, str(container), follow=follow, previous=previous,
                               tail_lines=tail, timestamps=timestamps, since_seconds=since,
                               limit_bytes=limit, alive=alive)

        if follow:
            return Response(200, content_type="text/plain", stream=chunks_of)
        return Response(200, b"".join(chunks_of(lambda: True)), "text/plain")


def _error_event(exc: StatusError) -> bytes:
    return (json.dumps({"type": "ERROR", "object": exc.to_status()},
                       separators=(",", ":")) + "\n").encode()


__all__ = ["MAX_BODY", "LogSource", "Request", "ResourceHandlers", "Response", "kinds"]
