"""The HTTP client: the :class:`~.base.Client` contract over the REST API.

One keep-alive connection per thread (``http.client`` connections are not
thread-safe). A non-2xx answer carrying a ``Status`` is raised as the matching
:class:`~minikube_py.api.errors.StatusError` subclass, so callers handle
NotFound or Conflict the same way over HTTP as in-process. A refused
connection raises :class:`Unreachable`, whose message says how to start a
control plane.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import ssl
import threading
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

from ..api import errors, kinds
from .base import Event, Object, ObjectList
from .kubeconfig import Endpoint

_BY_REASON: dict[str, type[errors.StatusError]] = {
    cls.reason: cls for cls in vars(errors).values()
    if isinstance(cls, type) and issubclass(cls, errors.StatusError)
}
_PATCH_TYPES = {"strategic": "application/strategic-merge-patch+json",
                "merge": "application/merge-patch+json",
                "json": "application/json-patch+json",
                "apply": "application/apply-patch+yaml"}


class Unreachable(ConnectionError):
    """No control plane answers at the configured address."""


def status_error(code: int, body: bytes) -> errors.StatusError:
    """The StatusError a failed response stands for."""
    try:
        status = json.loads(body)
    except ValueError:
        status = None
    if isinstance(status, dict) and status.get("kind") == "Status":
        cls = _BY_REASON.get(str(status.get("reason")), errors.StatusError)
        if cls is errors.Invalid:
            causes = (status.get("details") or {}).get("causes") or []
            errs = [errors.FieldError("Invalid", c.get("field", ""), detail=c.get("message", ""))
                    for c in causes]
            return errors.Invalid(status.get("message", ""), details=status.get("details"),
                                  errors=errs)
        err = cls(str(status.get("message", "")), details=status.get("details"))
        if cls is errors.StatusError:
            err.code = code  # type: ignore[misc]
        return err
    text = body.decode(errors="replace").strip() or http.client.responses.get(code, "")
    return errors.StatusError(f"the server responded with {code}: {text}")


def object_path(info: kinds.KindInfo, namespace: str | None, name: str | None = None,
                subresource: str | None = None) -> str:
    prefix = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    path = f"{prefix}/namespaces/{namespace}/{info.plural}" if info.namespaced and namespace \
        else f"{prefix}/{info.plural}"
    if name:
        path += f"/{name}"
    if subresource:
        path += f"/{subresource}"
    return path


class HTTPWatch:
    """A watch read from a chunked response by a background thread."""

    def __init__(self, conn: http.client.HTTPConnection,
                 resp: http.client.HTTPResponse) -> None:
        self._conn = conn
        self._resp = resp
        self._queue: queue.Queue[Event | BaseException | None] = queue.Queue()
        self._stopped = False
        self._thread = threading.Thread(target=self._read, daemon=True, name="http-watch")
        self._thread.start()

    def _read(self) -> None:
        try:
            while not self._stopped:
                line = self._resp.readline()
                if not line:
                    break
                ev = json.loads(line)
                if ev.get("type") == "ERROR":
                    self._queue.put(status_error(int(ev["object"].get("code", 500)),
                                                 json.dumps(ev["object"]).encode()))
                    break
                self._queue.put(Event(ev["type"], ev["object"]))
        except Exception as exc:  # the reader must end quietly, whatever broke
            if not self._stopped:
                self._queue.put(exc)
        finally:
            # Only this thread closes the connection: closing it under a blocked
            # readline() races inside http.client.
            with contextlib.suppress(Exception):
                self._conn.close()
            self._queue.put(None)

    def next(self, timeout: float | None = None) -> Event | None:
        if self._stopped:
            return None
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is None:
            self._stopped = True
            return None
        if isinstance(item, BaseException):
            self._stopped = True
            raise item
        return item

    @property
    def stopped(self) -> bool:
        return self._stopped

    def stop(self) -> None:
        self._stopped = True
        # Shut the socket down so the reader thread's blocking readline returns now;
        # the reader then closes the connection.
        with contextlib.suppress(OSError):
            if self._conn.sock is not None:
                self._conn.sock.shutdown(2)

    def __iter__(self) -> Iterator[Event]:
        while True:
            ev = self.next()
            if ev is None:
                return
            yield ev


class HTTPClient:
    """:class:`~.base.Client` over HTTP(S) with a bearer token."""

    def __init__(self, endpoint: Endpoint, *, timeout: float = 30.0) -> None:
        self.endpoint = endpoint
        url = urlsplit(endpoint.server)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"unsupported server URL {endpoint.server!r}")
        self._scheme, self._host = url.scheme, url.hostname
        self._port = url.port or (443 if url.scheme == "https" else 80)
        self._timeout = timeout
        self._local = threading.local()
        self._ssl: ssl.SSLContext | None = None
        if url.scheme == "https":
            self._ssl = ssl.create_default_context(
                cadata=endpoint.ca_data.decode() if endpoint.ca_data else None)
            if endpoint.insecure:
                self._ssl.check_hostname = False
                self._ssl.verify_mode = ssl.CERT_NONE

    # ------------------------------------------------------------------ transport

    @property
    def host(self) -> str:
        return self._host

    @property
    def port(self) -> int:
        return self._port

    @property
    def tls(self) -> ssl.SSLContext | None:
        """The TLS settings of this endpoint (None: plain HTTP)."""
        return self._ssl

    def _connect(self, timeout: float | None) -> http.client.HTTPConnection:
        if self._scheme == "https":
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout,
                                               context=self._ssl)
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None,
                body: Any = None, content_type: str = "application/json",
                accept: str = "application/json") -> tuple[int, bytes, dict[str, str]]:
        """One request; returns (status, body, headers) for 2xx, raises otherwise."""
        if query:
            path += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        data = None
        headers = {"Accept": accept, "Authorization": f"Bearer {self.endpoint.token}",
                   "User-Agent": "minikube-py"}
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = content_type
        for attempt in (1, 2):
            conn = getattr(self._local, "conn", None)
            if conn is None:
                conn = self._local.conn = self._connect(self._timeout)
            try:
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
                break
            except ConnectionRefusedError:
                self._local.conn = None
                raise Unreachable(
                    f"no minikube-py control plane answers at {self.endpoint.server}: start "
                    "one with `minikube-py daemon` (or `make run`)") from None
            except (http.client.HTTPException, OSError):
                # A stale keep-alive connection: reconnect once.
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise
        if resp.status >= 300:
            raise status_error(resp.status, payload)
        return resp.status, payload, {k.lower(): v for k, v in resp.getheaders()}

    def _json(self, *args: Any, **kwargs: Any) -> Any:
        _, payload, _ = self.request(*args, **kwargs)
        return json.loads(payload) if payload else None

    # ------------------------------------------------------------------ Client

    def get(self, resource: str, namespace: str | None, name: str) -> Object:
        info = kinds.by_plural(resource)
        result: Object = self._json("GET", object_path(info, namespace, name))
        return result

    def list(self, resource: str, *, namespace: str | None = None,
             label_selector: str | None = None, field_selector: str | None = None,
             limit: int | None = None, continue_token: str | None = None) -> ObjectList:
        info = kinds.by_plural(resource)
        data = self._json("GET", object_path(info, namespace), query={
            "labelSelector": label_selector, "fieldSelector": field_selector, "limit": limit,
            "continue": continue_token})
        meta = data.get("metadata") or {}
        return ObjectList(data.get("items") or [], str(meta.get("resourceVersion", "")),
                          meta.get("continue") or None)

    def watch(self, resource: str, *, namespace: str | None = None,
              label_selector: str | None = None, field_selector: str | None = None,
              resource_version: str | None = None,
              accept: str = "application/json") -> HTTPWatch:
        """``accept`` may ask for Table events (as ``get -w`` does)."""
        info = kinds.by_plural(resource)
        query = {"watch": "true", "labelSelector": label_selector,
                 "fieldSelector": field_selector, "resourceVersion": resource_version}
        path = object_path(info, namespace) + "?" + urlencode(
            {k: v for k, v in query.items() if v is not None})
        conn = self._connect(None)
        try:
            conn.request("GET", path, headers={"Accept": accept,
                                               "Authorization": f"Bearer {self.endpoint.token}"})
            resp = conn.getresponse()
        except ConnectionRefusedError:
            raise Unreachable(f"no minikube-py control plane answers at "
                              f"{self.endpoint.server}") from None
        if resp.status >= 300:
            payload = resp.read()
            conn.close()
            raise status_error(resp.status, payload)
        return HTTPWatch(conn, resp)

    def create(self, obj: Mapping[str, Any], *, namespace: str | None = None) -> Object:
        info = kinds.for_object(obj)
        ns = namespace or (obj.get("metadata") or {}).get("namespace") or \
            self.endpoint.namespace
        result: Object = self._json("POST", object_path(info, ns), body=dict(obj))
        return result

    def update(self, obj: Mapping[str, Any], *, subresource: str | None = None) -> Object:
        info = kinds.for_object(obj)
        meta = obj.get("metadata") or {}
        ns = meta.get("namespace") or self.endpoint.namespace
        result: Object = self._json("PUT", object_path(info, ns, meta.get("name"), subresource),
                                    body=dict(obj))
        return result

    def patch(self, resource: str, namespace: str | None, name: str, patch_type: str,
              body: Any, *, subresource: str | None = None,
              field_manager: str | None = None, force: bool = False,
              dry_run: bool = False) -> Object:
        info = kinds.by_plural(resource)
        result: Object = self._json(
            "PATCH", object_path(info, namespace, name, subresource),
            query={"fieldManager": field_manager, "force": "true" if force else None,
                   "dryRun": "All" if dry_run else None},
            body=body, content_type=_PATCH_TYPES[patch_type])
        return result

    def delete(self, resource: str, namespace: str | None, name: str, *,
               grace_period_seconds: int | None = None,
               propagation_policy: str | None = None,
               preconditions: Mapping[str, str] | None = None) -> Object:
        info = kinds.by_plural(resource)
        opts: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if grace_period_seconds is not None:
            opts["gracePeriodSeconds"] = grace_period_seconds
        if propagation_policy:
            opts["propagationPolicy"] = propagation_policy
        if preconditions:
            opts["preconditions"] = dict(preconditions)
        result: Object = self._json("DELETE", object_path(info, namespace, name), body=opts)
        return result

    def bind(self, namespace: str, name: str, node: str) -> None:
        info = kinds.by_plural("pods")
        self._json("POST", object_path(info, namespace, name, "binding"), body={
            "apiVersion": "v1", "kind": "Binding",
            "metadata": {"name": name, "namespace": namespace},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}})

    def create_subresource(self, resource: str, namespace: str | None, name: str,
                           subresource: str, body: Mapping[str, Any]) -> Object:
        """POST to ``<resource>/<name>/<subresource>`` (see :class:`~.base.Client`)."""
        info = kinds.by_plural(resource)
        result: Object = self._json("POST", object_path(info, namespace, name, subresource),
                                    body=dict(body))
        return result

    def logs(self, namespace: str, name: str, *, container: str | None = None,
             follow: bool = False, previous: bool = False, tail_lines: int | None = None,
             timestamps: bool = False) -> Iterator[bytes]:
        """Container log bytes as they come (``follow`` streams until the pod ends)."""
        info = kinds.by_plural("pods")
        query = {"container": container, "follow": "true" if follow else None,
                 "previous": "true" if previous else None, "tailLines": tail_lines,
                 "timestamps": "true" if timestamps else None}
        path = object_path(info, namespace, name, "log") + "?" + urlencode(
            {k: v for k, v in query.items() if v is not None})
        conn = self._connect(None if follow else self._timeout)
        try:
            conn.request("GET", path, headers={"Authorization": f"Bearer {self.endpoint.token}"})
            resp = conn.getresponse()
            if resp.status >= 300:
                raise status_error(resp.status, resp.read())
            while True:
                chunk = resp.read1(65536)
                if not chunk:
                    return
                yield chunk
        finally:
            conn.close()
