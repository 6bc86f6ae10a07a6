"""Talking to the Podman service: the small HTTP layer under the Podman runtime.

Everything here goes through the ``podman`` package's :class:`~podman.PodmanClient`
(its ``APIClient``, a ``requests`` session that speaks HTTP over the unix
socket) against Podman's libpod REST API. We use the raw API rather than the
package's docker-shaped managers because we need exact control of the libpod
``SpecGenerator`` (pods, rlimits, OCI runtime, cgroup parent) and because the
service here may be older (4.x) than the package (5.x).

What this module promises:

* :class:`PodmanAPI` is thread-safe: each thread gets its own session (a
  ``requests`` session is not documented as thread-safe); long-lived streams
  (logs, events, exec) get a dedicated client that the caller closes.
* Failures become :class:`~.base.ContainerRuntimeError` with Podman's own
  message; a 404 becomes :class:`PodmanNotFound` so callers can turn it into
  ``SandboxNotFound``/``ContainerNotFound``/``ImageNotFound``.
* Small pure helpers: libpod time strings to epoch floats, RFC 3339 (ns)
  formatting, and the docker stream-multiplexing frame decoder used by the
  logs and exec endpoints.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import weakref
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from podman import PodmanClient
from podman.errors import APIError

from .base import ContainerRuntimeError
from .logformat import rfc3339_nano

__all__ = [
    "DEFAULT_TIMEOUT",
    "FrameDecoder",
    "close_client",
    "PodmanAPI",
    "PodmanNotFound",
    "error_message",
    "normalize_url",
    "parse_time",
    "rfc3339_nano",
    "shutdown_response",
]

#: Seconds an ordinary (non-streaming) API call may take.
DEFAULT_TIMEOUT = 60.0

_TIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$")


class PodmanNotFound(ContainerRuntimeError):
    """Podman answered 404 (no such pod, container, image or exec session)."""


def normalize_url(socket_or_url: str) -> str:
    """A socket path or URL as the ``podman`` package wants it.

    ``/run/podman/podman.sock`` -> ``unix:///run/podman/podman.sock``; URLs
    (``unix://``, ``http+unix://``, ``tcp://``, ``http://``) are kept.
    """
    text = socket_or_url.strip()
    if text.startswith("/"):
        return "unix://" + text
    return text


def parse_time(text: Any) -> float | None:
    """A libpod time (RFC 3339 with up to 9 fraction digits) as epoch seconds;
    ``None`` for Go's zero time or anything unparsable."""
    if not isinstance(text, str) or not text or text.startswith("0001-01-01"):
        return None
    m = _TIME.match(text.strip())
    if m is None:
        return None
    base = datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    frac = m.group(2) or ""
    return base.timestamp() + (int(frac) / 10 ** len(frac) if frac else 0.0)


def error_message(response: Any) -> str:
    """Podman's explanation of a failed call (its JSON ``message``), else the body."""
    text = ""
    try:
        text = str(response.text or "")
        body = json.loads(text)
        if isinstance(body, Mapping):
            message = body.get("message") or body.get("cause") or body.get("error")
            if message:
                return str(message).strip()
            errs = body.get("Errs")
            if isinstance(errs, list) and errs:
                return "; ".join(str(e).strip() for e in errs)
    except (ValueError, TypeError, AttributeError):
        pass
    return text.strip() or f"HTTP {getattr(response, 'status_code', '?')}"


def close_client(client: PodmanClient) -> None:
    """Close a client's HTTP session (its pooled connections)."""
    with contextlib.suppress(Exception):
        client.api.close()


def shutdown_response(response: Any) -> None:
    """Close a streaming response so that a thread blocked reading it wakes up.

    ``close()`` alone does not interrupt a ``recv`` blocked in another thread;
    shutting the socket down does.
    """
    conn = getattr(getattr(response, "raw", None), "connection", None)
    sock = getattr(conn, "sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(Exception):
        response.close()


class FrameDecoder:
    """Splits Docker's multiplexed stream (8-byte header: stream, 0, 0, 0,
    big-endian length) into ``(stream, payload)`` frames; ``stream`` is 1 for
    stdout, 2 for stderr. A stream that does not start with a valid header is
    passed through raw as stdout (a TTY stream)."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._raw: bool | None = None

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        if self._raw:
            return [(1, data)] if data else []
        self._buf.extend(data)
        out: list[tuple[int, bytes]] = []
        while len(self._buf) >= 8:
            header = self._buf[:8]
            if self._raw is None:
                self._raw = not (header[0] in (0, 1, 2) and header[1:4] == b"\0\0\0")
                if self._raw:
                    rest, self._buf = bytes(self._buf), bytearray()
                    return [(1, rest)]
            size = int.from_bytes(header[4:8], "big")
            if len(self._buf) < 8 + size:
                break
            out.append((header[0] or 1, bytes(self._buf[8:8 + size])))
            del self._buf[:8 + size]
        return out

    def flush(self) -> list[tuple[int, bytes]]:
        """What is left when the stream ends (a truncated frame, as raw bytes)."""
        rest, self._buf = bytes(self._buf), bytearray()
        return [(1, rest)] if rest else []


class PodmanAPI:
    """Per-thread clients for one Podman service, and JSON calls on them."""

    def __init__(self, base_url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.base_url = normalize_url(base_url)
        self.timeout = timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        # Weak: a thread's client goes away with the thread (its threading.local).
        self._clients: weakref.WeakSet[PodmanClient] = weakref.WeakSet()

    # ------------------------------------------------------------------ clients

    def _client(self) -> PodmanClient:
        client: PodmanClient | None = getattr(self._local, "client", None)
        if client is None:
            client = self._make(timeout=self.timeout)
            self._local.client = client
            with self._lock:
                self._clients.add(client)
        return client

    def _make(self, *, timeout: float | None) -> PodmanClient:
        try:
            if timeout is None:
                return PodmanClient(base_url=self.base_url)
            return PodmanClient(base_url=self.base_url, timeout=timeout)
        except (ValueError, APIError) as exc:
            raise ContainerRuntimeError(f"bad Podman URL {self.base_url!r}: {exc}") from exc

    def stream_client(self) -> PodmanClient:
        """A new client without a read timeout, for one long-lived stream;
        the caller closes it."""
        return self._make(timeout=None)

    def close(self) -> None:
        with self._lock:
            clients = list(self._clients)
            self._clients.clear()
        for client in clients:
            with contextlib.suppress(Exception):
                close_client(client)

    # ------------------------------------------------------------------ calls

    def call(self, method: str, path: str, *, params: Mapping[str, Any] | None = None,
             body: Any = None, data: bytes | None = None, timeout: float | None = None,
             stream: bool = False, headers: Mapping[str, str] | None = None,
             client: PodmanClient | None = None) -> Any:
        """One request; returns the response whatever its status. Connection
        failures raise :class:`ContainerRuntimeError`."""
        api = (client or self._client()).api
        hdrs = dict(headers or {})
        payload: bytes | str | None = data
        if body is not None:
            payload = json.dumps(body)
            hdrs.setdefault("content-type", "application/json")
        kwargs: dict[str, Any] = {"params": dict(params or {}), "headers": hdrs,
                                  "timeout": timeout, "stream": stream}
        try:
            if method == "GET":
                return api.get(path, **kwargs)
            if method == "DELETE":
                return api.delete(path, **kwargs)
            return api.post(path, data=payload, **kwargs)
        except APIError as exc:
            raise ContainerRuntimeError(
                f"cannot reach the Podman service at {self.base_url}: "
                f"{exc.__cause__ or exc}") from exc
        except OSError as exc:  # requests' ConnectionError, timeouts, ...
            raise ContainerRuntimeError(
                f"Podman service at {self.base_url} failed: {exc}") from exc

    def json(self, method: str, path: str, *, params: Mapping[str, Any] | None = None,
             body: Any = None, timeout: float | None = None, what: str = "") -> Any:
        """A call whose success is a JSON body (or none); 404 raises
        :class:`PodmanNotFound`, other errors :class:`ContainerRuntimeError`."""
        response = self.call(method, path, params=params, body=body, timeout=timeout)
        self.check(response, what or f"{method} {path}")
        if response.status_code in (204, 304) or not response.content:
            return None
        try:
            return response.json()
        except ValueError as exc:
            raise ContainerRuntimeError(f"{what or path}: Podman sent bad JSON: {exc}") from exc

    @staticmethod
    def check(response: Any, what: str) -> None:
        status = int(response.status_code)
        if status == 404:
            raise PodmanNotFound(f"{what}: {error_message(response)}")
        if status >= 400:
            raise ContainerRuntimeError(f"{what}: {error_message(response)}")


def iter_json_lines(response: Any) -> Iterator[dict[str, Any]]:
    """The JSON objects of a line-delimited streaming response."""
    for line in response.iter_lines():
        if not line:
            continue
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            yield item
