"""The HTTP front of the control plane: a Kubernetes-compatible REST server.

Contract:

* Listens on 127.0.0.1 unless told otherwise; HTTP/1.1 with keep-alive, one
  thread per connection (stdlib ``ThreadingHTTPServer``), so a slow or streaming
  client never blocks another.
* Every path but ``/livez``, ``/readyz``, ``/healthz`` and ``/version`` needs
  ``Authorization: Bearer <token>``: the admin token or a service-account
  token (:mod:`.authn`); a missing or wrong one is a 401 ``Status``. The
  user may act as another through ``Impersonate-*`` headers when allowed to
  (``kubectl --as``). Then the request is authorized (:mod:`.authz`:
  ``system:masters`` may do anything, everybody else what RBAC grants); a
  denial is a 403 in Kubernetes' words, before the request is looked at
  further.
* The create-only review resources and ``serviceaccounts/token`` are
  answered by :mod:`.reviews`.
* Every failure is a ``Status`` with Kubernetes' reason and code; an
  unexpected exception is logged with its traceback and answered 500, and the
  server keeps serving.
* Request bodies over 3 MiB are refused with 413 before being read.
* Requests the stdlib refuses before routing (a malformed request line, an
  unknown method, a URI or headers too long) are answered with a ``Status``
  too, never an HTML page; an unknown method is a 405, as in Kubernetes, and
  so is anything but GET on a read-only path (health, version, discovery,
  OpenAPI, the scheduler's records).
* A connection is closed "lingering": what the client still sends is read and
  dropped for up to a second, so an answer given before the whole request was
  read (413, 405) is not lost to a TCP reset.
* Streams (watch, ``log -f``) are chunked and end within about a second of
  the client going away or the server stopping.
"""

from __future__ import annotations

import contextlib
import json
import logging
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urlsplit

from ..api.errors import (
    BadRequest,
    InternalError,
    MethodNotAllowed,
    NotFound,
    RequestEntityTooLarge,
    StatusError,
)
from ..auth.attributes import attributes_for
from ..auth.impersonation import impersonate
from ..auth.requestinfo import request_info
from ..auth.user import UserInfo
from ..client.sockio import SharedSocket
from ..store.registry import Registry
from . import discovery, openapi, openapi_v2, reviews
from .authn import Authenticator
from .authz import Authorization, forbidden_error
from .handlers import MAX_BODY, LogSource, Request, ResourceHandlers, Response, json_response
from .routes import resolve
from .streaming.connect import Connect, StreamSource
from .tokens import TokenIssuer

log = logging.getLogger(__name__)

#: Oversized bodies up to this size are read and dropped so the 413 reaches the client.
_DRAIN_LIMIT = 16 * 1024 * 1024
#: How long a closing connection keeps reading (and dropping) what the client still sends.
_LINGER_SECONDS = 1.0
#: How long a new connection may take to start and finish its TLS handshake.
_HANDSHAKE_SECONDS = 30.0
#: ``IP_FREEBIND`` (linux/in.h): bind an address no interface has yet.
IP_FREEBIND = 15
#: What Go's net/http looks for where a TLS record header should be
#: (``tlsRecordHeaderLooksLikeHTTP``), and what it answers then.
_PLAIN_HTTP_STARTS = frozenset({b"GET /", b"HEAD ", b"POST ", b"PUT /", b"OPTIO"})
_PLAIN_HTTP_ANSWER = (b"HTTP/1.0 400 Bad Request\r\n\r\n"
                      b"Client sent an HTTP request to an HTTPS server.\n")

#: Status reasons for the codes the stdlib's request parsing can answer with;
#: codes Kubernetes has no reason for get the empty (Unknown) reason, as there.
_EARLY_REASONS = {400: "BadRequest", 405: "MethodNotAllowed", 408: "Timeout",
                  413: "RequestEntityTooLarge"}


class SchedulerInfo(Protocol):
    """What the scheduler shows through the API (wired in by the control plane)."""

    def decisions(self, namespace: str, name: str) -> list[dict[str, Any]]: ...

    def queue(self) -> dict[str, Any]: ...


class ListenError(RuntimeError):
    """The API server could not bind its address (in use, not permitted, ...)."""


class APIServer:
    """Serve ``registry`` over HTTP until :meth:`stop`."""

    def __init__(self, registry: Registry, *, token: str, host: str = "127.0.0.1",
                 port: int = 0, log_source: LogSource | None = None,
                 ready: Callable[[], bool] = lambda: True,
                 tls: ssl.SSLContext | None = None,
                 scheduler: SchedulerInfo | None = None,
                 also_listen: Sequence[tuple[str, int]] = (),
                 issuer: TokenIssuer | None = None,
                 streams: StreamSource | None = None) -> None:
        """``token`` is the admin credential; ``issuer`` signs and checks
        service-account tokens (None: only the admin token is accepted and
        ``serviceaccounts/token`` is not served); ``streams`` opens exec,
        attach and port-forward sessions on the kubelets (None: refused)."""
        if not token:
            raise ValueError("the API server needs a bearer token")
        self.authenticator = Authenticator(registry.store, admin_token=token, issuer=issuer)
        self.authorization = Authorization(registry.store)
        self.reviews = reviews.Reviews(registry.store, authenticator=self.authenticator,
                                       authorizer=self.authorization, issuer=issuer)
        self._ready = ready
        self._scheduler = scheduler
        self._stopping = threading.Event()
        self.handlers = ResourceHandlers(registry, log_source=log_source,
                                         stopping=self._stopping.is_set)
        self.connect = Connect(registry, streams, self._stopping.is_set)
        try:
            self._httpd = _Server((host, port), _Handler, self)
        except OSError as exc:
            hint = " (another minikube-py or cluster may be using it; choose another with " \
                "--listen)" if exc.errno == 98 else ""
            raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror}{hint}") from exc
        self._tls = tls is not None
        # Handshakes happen in each connection's thread (see _Server.secure), so a
        # slow or hostile client cannot stall the accept loop.
        self._httpd.tls = tls
        self._thread: threading.Thread | None = None
        # Where pods reach the API (the pod network's gateway): bound even before
        # the address exists on an interface (a bridge appears with its first pod).
        self._also: list[_Server] = []
        for extra_host, extra_port in also_listen:
            try:
                extra = _Server((extra_host, extra_port), _Handler, self, freebind=True)
            except OSError as exc:
                self._httpd.server_close()
                for done in self._also:
                    done.server_close()
                raise ListenError(f"cannot listen on {extra_host}:{extra_port}: "
                                  f"{exc.strerror}") from exc
            extra.tls = tls
            self._also.append(extra)
        self._also_threads: list[threading.Thread] = []

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        scheme = "https" if self._tls else "http"
        return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.5}, name="apiserver",
                                        daemon=True)
        self._thread.start()
        for extra in self._also:
            thread = threading.Thread(target=extra.serve_forever, kwargs={"poll_interval": 0.5},
                                      name="apiserver-pods", daemon=True)
            thread.start()
            self._also_threads.append(thread)
        log.info("API server listening on %s%s", self.url, "".join(
            f" and {e.server_address[0]!s}:{e.server_address[1]!s}" for e in self._also))

    def stop(self) -> None:
        """Stop accepting, end every stream, close the socket. Idempotent."""
        self._stopping.set()
        if self._thread is not None:
            waker = threading.Thread(target=self._httpd.shutdown, daemon=True)
            waker.start()
            # serve_forever notices the shutdown flag only when its select() wakes; a
            # connection wakes it now instead of after the poll interval.
            with contextlib.suppress(OSError):
                socket.create_connection(self.address, timeout=1).close()
            waker.join(timeout=5)
            self._thread.join(timeout=5)
            self._thread = None
        for extra, thread in zip(self._also, self._also_threads, strict=False):
            extra.shutdown()  # wakes within its poll interval
            thread.join(timeout=5)
        self._also_threads = []
        for extra in self._also:
            extra.server_close()
        self._httpd.server_close()

    # ------------------------------------------------------------------ routing

    def user(self, req: Request) -> UserInfo:
        """Who ``req`` acts as: authenticated, impersonation applied, and
        allowed to make this request (else 401 / 403)."""
        user = self.authenticator.authenticate(req.headers)
        if any(k.startswith("impersonate-") for k in req.headers):
            user = impersonate(user, req.header_list or list(req.headers.items()),
                               self.authorization.authorize)
        info = request_info(req.method, req.path, req.query)
        attrs = attributes_for(user, info)
        decision = self.authorization.authorize(attrs)
        if not decision.allowed:
            raise forbidden_error(attrs, decision.reason)
        if req.method == "GET" and info.subresource in _CREATE_ON_GET:
            # A WebSocket exec/attach/port-forward is a GET, but it runs
            # something in the pod: kube-apiserver (1.31+,
            # AuthorizePodWebsocketUpgradeCreatePermission) asks for create too.
            create = attributes_for(user, replace(info, verb="create"))
            decision = self.authorization.authorize(create)
            if not decision.allowed:
                raise forbidden_error(create, decision.reason)
        return user

    def route(self, req: Request) -> Response:
        path = req.path.rstrip("/") or "/"
        if path in ("/livez", "/healthz", "/readyz", "/version") and req.method != "GET":
            raise _read_only(req.method)
        if path in ("/livez", "/healthz"):
            return Response(200, b"ok", "text/plain")
        if path == "/readyz":
            if self._ready() and not self._stopping.is_set():
                return Response(200, b"ok", "text/plain")
            return Response(500, b"readyz check failed: control plane is not running",
                            "text/plain")
        if path == "/version":
            return json_response(discovery.version())
        user = self.user(req)
        virtual = reviews.match(path)
        if virtual is not None:
            return self.reviews.handle(virtual, req, user)
        target = resolve(req.path if "/proxy" in req.path else path)
        if target is not None:
            if target.subresource in _CONNECT:
                return self.connect.handle(target, req)
            return self.handlers.handle(target, req)
        resp = self._non_resource(path, req)
        if req.method != "GET":
            # Discovery, OpenAPI and the scheduler's records are read-only; the
            # lookup above ran first so an unknown path stays a 404.
            raise _read_only(req.method)
        return resp

    def _non_resource(self, path: str, req: Request) -> Response:
        host = req.headers.get("host", "127.0.0.1")
        if path == "/api":
            return json_response(discovery.api_versions(host))
        if path == "/apis":
            return json_response(discovery.api_group_list())
        if path == "/api/v1":
            return json_response(discovery.resource_list("", "v1"))
        parts = path.strip("/").split("/")
        if parts[0] == "apis" and len(parts) == 2:
            group = discovery.api_group(parts[1])
            if group is not None:
                return json_response(group)
        if parts[0] == "apis" and len(parts) == 3:
            listing = discovery.resource_list(parts[1], parts[2])
            if listing is not None:
                return json_response(listing)
        if path.startswith("/debug/scheduler/"):
            return self._scheduler_info(parts[2:])
        if path == "/openapi/v2":
            return _openapi_v2(req.headers.get("accept", ""))
        if path == "/openapi/v3":
            return json_response(openapi.index())
        if path.startswith("/openapi/v3/"):
            doc = openapi.documents().get(path[len("/openapi/v3/"):])
            if doc is not None:
                return Response(200, doc[0], headers=[("Cache-Control", "public, immutable")])
        raise NotFound(f'the server could not find the requested resource "{path}"')

    def _scheduler_info(self, parts: list[str]) -> Response:
        """``/debug/scheduler/decisions/NS/NAME`` and ``/debug/scheduler/queue``: the
        scheduler's decision records and queue, for ``explain`` and the dashboard."""
        if self._scheduler is None:
            raise NotFound("this control plane runs no scheduler")
        if parts == ["queue"]:
            return json_response(self._scheduler.queue())
        if len(parts) == 3 and parts[0] == "decisions":
            records = self._scheduler.decisions(parts[1], parts[2])
            return json_response({"pod": f"{parts[1]}/{parts[2]}", "decisions": records})
        raise NotFound("use /debug/scheduler/decisions/NAMESPACE/NAME or /debug/scheduler/queue")


def _openapi_v2(accept: str) -> Response:
    """``/openapi/v2`` as kube-openapi serves it: gnostic protobuf to clients that
    ask for it (kubectl does), JSON otherwise."""
    wants_protobuf = any(t in accept for t in (openapi_v2.PROTOBUF, _PROTOBUF_V2))
    body, etag = openapi_v2.encoded(openapi_v2.PROTOBUF if wants_protobuf else "json")
    return Response(200, body, _PROTOBUF_V2 if wants_protobuf else "application/json",
                    headers=[("ETag", etag), ("Cache-Control", "no-cache, private")])


#: Subresources served by :class:`~.streaming.connect.Connect`.
_CONNECT = frozenset({"exec", "attach", "portforward", "proxy"})
#: Connect subresources whose WebSocket GET also needs ``create``.
_CREATE_ON_GET = frozenset({"exec", "attach", "portforward"})

#: The content type kube-openapi answers protobuf requests with.
_PROTOBUF_V2 = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def _read_only(method: str) -> MethodNotAllowed:
    return MethodNotAllowed(f"{method} is not supported here: this path is read-only")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    #: Serve TLS with this context (None: plain HTTP, for tests).
    tls: ssl.SSLContext | None = None

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                 api: APIServer, *, freebind: bool = False) -> None:
        self.api = api
        self.freebind = freebind
        super().__init__(address, handler)

    def server_bind(self) -> None:
        if self.freebind:
            self.socket.setsockopt(socket.SOL_IP, IP_FREEBIND, 1)
        super().server_bind()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """One connection, in its own thread: TLS first (when serving it), then HTTP."""
        conn = request
        try:
            if self.tls is not None:
                conn = self.secure(request, client_address)
                if conn is None:
                    conn = request
                    return
            self.finish_request(conn, client_address)
        except (ConnectionError, TimeoutError, ssl.SSLError) as exc:
            log.debug("connection from %s ended: %s", client_address, exc)
        except Exception:
            self.handle_error(conn, client_address)
        finally:
            self.shutdown_request(conn)

    def secure(self, sock: socket.socket, client_address: Any) -> ssl.SSLSocket | None:
        """The TLS connection over ``sock``, or None when there is none to serve.

        A client speaking plain HTTP to this port gets what Go's TLS server
        (and so kube-apiserver) answers, ``HTTP/1.0 400 Bad Request`` with
        "Client sent an HTTP request to an HTTPS server.", recognised the way
        Go does: the first five bytes, where a TLS record header would be, are
        ``GET /``, ``HEAD ``, ``POST ``, ``PUT /`` or ``OPTIO``. Anything else
        that is not TLS fails its handshake and is closed.
        """
        assert self.tls is not None
        sock.settimeout(_HANDSHAKE_SECONDS)
        try:
            head = sock.recv(5, socket.MSG_PEEK | socket.MSG_WAITALL)
            if head in _PLAIN_HTTP_STARTS:
                sock.sendall(_PLAIN_HTTP_ANSWER)
                return None
            tls = self.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        except OSError as exc:
            log.debug("connection from %s ended before TLS: %s", client_address, exc)
            return None
        try:
            tls.do_handshake()
        except (ssl.SSLError, OSError) as exc:
            log.debug("TLS handshake with %s failed: %s", client_address, exc)
            tls.close()
            return None
        tls.settimeout(_Handler.timeout)
        return tls

    def shutdown_request(self, request: Any) -> None:
        """Close a connection without losing the last answer ("lingering close").

        When we answer before reading all a client sent (a refused chunked
        body, an unknown method with a body, a 413), closing a socket with
        unread input makes the kernel send a reset, and the client's kernel
        may then drop our answer before the client reads it. So: stop
        writing (the client sees the end of our answer), read and drop what
        is still coming for a moment, then close.
        """
        with contextlib.suppress(OSError):
            request.shutdown(socket.SHUT_WR)
        deadline, drained = time.monotonic() + _LINGER_SECONDS, 0
        with contextlib.suppress(OSError, ValueError):
            while drained < _DRAIN_LIMIT:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                request.settimeout(remaining)
                chunk = request.recv(1 << 16)
                if not chunk:
                    break
                drained += len(chunk)
        self.close_request(request)


def _header_text(value: str) -> str:
    """``value`` as ``send_header`` must get it to put its UTF-8 bytes on the
    wire (it encodes Latin-1, and fails on anything beyond): Go's net/http,
    kube-apiserver's, writes a header's bytes as they are, and a Warning
    names whatever unknown field a client sent. A lone surrogate becomes
    ``?`` (Go's JSON decoder had made it U+FFFD)."""
    if value.isascii():
        return value
    return value.encode("utf-8", "replace").decode("latin-1")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "minikube-py"
    sys_version = ""
    timeout = 600  # an idle keep-alive connection's thread goes after 10 minutes
    # A buffered writer: a response's head and body (up to 8 KB together) leave
    # in one TLS record and one send, not two; the stdlib flushes after each
    # request, streams and upgrades flush themselves. A pod created over HTTPS
    # cost its request thread 646 us of CPU instead of 700.
    wbufsize = -1
    server: _Server

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def handle_expect_100(self) -> bool:
        """Send the ``100 Continue`` now: the buffered writer would hold it
        until the response, and the client waits for it before its body."""
        ok = super().handle_expect_100()
        self.wfile.flush()
        return ok

    def setup(self) -> None:
        # A big body goes out in writes of its own; without TCP_NODELAY, Nagle's
        # algorithm holds the second until the client's delayed ACK: +40 ms a request.
        with contextlib.suppress(OSError):
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().setup()

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionAbortedError, ssl.SSLError, TimeoutError):
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """Answer what the stdlib refused before routing with a ``Status``.

        ``BaseHTTPRequestHandler`` calls this for a malformed request line, an
        unsupported HTTP version, a request line or headers too long, and a
        method with no ``do_*`` (its 501, Kubernetes' 405). Its own answer is an
        HTML page, which no Kubernetes client can read. The connection is
        closed afterwards: what follows the bad request cannot be trusted.
        """
        if code == HTTPStatus.NOT_IMPLEMENTED:
            code, message = 405, f"the server does not allow the method {self.command!r}"
        if self.request_version == "HTTP/0.9":
            # The request line was unreadable, so its version is the stdlib's
            # default, whose answers have no status line: answer in HTTP/1.1.
            self.request_version = "HTTP/1.1"
        phrase = self.responses.get(code, ("Error", ""))[0]
        status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": message or phrase, "reason": _EARLY_REASONS.get(code, ""),
                  "code": code}
        if code == HTTPStatus.METHOD_NOT_ALLOWED:
            status = MethodNotAllowed(message or phrase).to_status()  # with its details
        body = json.dumps(status, separators=(",", ":")).encode()
        log.debug("refused %r from %s: %d %s", self.requestline, self.address_string(), code,
                  message)
        self.close_connection = True
        self.send_response(code)
        self.send_header("Connection", "close")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # ------------------------------------------------------------------ serving

    def _serve(self, method: str) -> None:
        started = time.monotonic()
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            split = urlsplit(self.path)
            query_list = parse_qsl(split.query, keep_blank_values=True)
            body = self._read_body(headers)
            req = Request(method, unquote(split.path), dict(query_list), headers, body,
                          [(k.lower(), v) for k, v in self.headers.items()],
                          query_list=query_list, raw_query=split.query)
            resp = self.server.api.route(req)
        except StatusError as exc:
            resp = json_response(exc.to_status(), exc.code)
        except Exception:
            log.exception("internal error serving %s %s", method, self.path)
            err = InternalError.of(f"unexpected error serving {method} {self.path}; see the "
                                   "daemon log")
            resp = json_response(err.to_status(), 500)
        self._send(resp)
        log.debug("%s %s -> %d in %.1f ms", method, self.path, resp.status,
                  (time.monotonic() - started) * 1000)

    def _read_body(self, headers: dict[str, str]) -> bytes:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self.close_connection = True
            raise RequestEntityTooLarge("chunked request bodies are not supported; send "
                                        "Content-Length")
        try:
            length = int(headers.get("content-length") or 0)
        except ValueError:
            self.close_connection = True
            raise BadRequest("Content-Length is not a number") from None
        if length < 0:
            # rfile.read(-n) would read until the client hangs up (or fail).
            self.close_connection = True
            raise BadRequest("Content-Length must not be negative")
        if length > MAX_BODY:
            # Read (and drop) a moderately oversized body so the client, still sending,
            # gets the 413 instead of a broken pipe; past that, just hang up.
            if length <= _DRAIN_LIMIT:
                remaining = length
                while remaining > 0:
                    chunk = self.rfile.read(min(remaining, 1 << 16))
                    if not chunk:
                        break
                    remaining -= len(chunk)
            self.close_connection = True
            raise RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY}")
        return self.rfile.read(length) if length else b""

    def _upgrade(self, run: Callable[[SharedSocket], None]) -> None:
        """Hand the connection to ``run`` after the 101's head (exec, attach,
        port-forward); it is closed afterwards, whatever happened."""
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        buffered = b""
        with contextlib.suppress(OSError, ValueError):
            # Whatever the client sent right after its request (it should
            # wait for our 101, but need not) is already in our read buffer.
            self.connection.setblocking(False)
            buffered = getattr(self.rfile, "peek", lambda: b"")() or b""
            if buffered:
                buffered = self.rfile.read(len(buffered))
        sock = SharedSocket(self.connection, buffered)
        try:
            run(sock)
        except Exception:
            log.exception("stream on %s failed", self.path)
        finally:
            sock.close()
            with contextlib.suppress(OSError):
                self.connection.setblocking(True)

    def _alive(self) -> bool:
        """False once the client has closed its end.

        While a stream is being sent, a client never sends anything (no client
        pipelines requests behind a watch), so a readable socket means EOF or a TLS
        close_notify: the client is gone.
        """
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return not readable
        except (OSError, ValueError):
            return False

    def _send(self, resp: Response) -> None:
        try:
            self.send_response(resp.status)
            self.send_header("Content-Type", resp.content_type)
            if self.close_connection:
                # Say so (after a refused body, say): a client that reuses the
                # connection would otherwise send its next request into a close.
                self.send_header("Connection", "close")
            for name, value in resp.headers:
                self.send_header(name, _header_text(value))
            if resp.upgrade is not None:
                self._upgrade(resp.upgrade)
                return
            if resp.stream is None:
                self.send_header("Content-Length", str(len(resp.body)))
                self.end_headers()
                self.wfile.write(resp.body)
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            for chunk in resp.stream(self._alive):
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True
        except Exception:
            # Headers are gone already: all we can do is log and drop the connection,
            # which the client sees as the end of the stream.
            log.exception("stream for %s failed", self.path)
            self.close_connection = True


__all__ = ["APIServer"]
