"""A deliberately low-level client for hostile-input, fuzz and security tests.

Our own :class:`~minikube_py.client.http.HTTPClient` turns answers into
objects and errors; these tests need the raw exchange instead: any method,
any path bytes, any headers and body, and the answer exactly as sent (status,
headers, body), so they can check that *every* answer is a well-formed
``Status``. The endpoint, token and CA come from the daemon's kubeconfig,
through :func:`minikube_py.client.kubeconfig.load`, as every client's do.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from minikube_py.api import kinds
from minikube_py.client import kubeconfig

#: Seconds any one request may take before the test calls it a hang.
REQUEST_TIMEOUT = 15.0


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class RawApi:
    """Requests over TLS to the daemon its kubeconfig names, one keep-alive
    connection reused until the server closes it."""

    def __init__(self, kubeconfig_path: Path) -> None:
        endpoint = kubeconfig.load(kubeconfig_path)
        url = urlsplit(endpoint.server)
        assert url.scheme == "https" and url.hostname and url.port, endpoint.server
        self.host: str = url.hostname
        self.port: int = url.port
        self.token = endpoint.token
        assert endpoint.ca_data, "the daemon's kubeconfig carries its CA"
        self.tls = ssl.create_default_context(cadata=endpoint.ca_data.decode())
        self._conn: http.client.HTTPSConnection | None = None

    def connection(self, timeout: float = REQUEST_TIMEOUT) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(self.host, self.port, context=self.tls,
                                           timeout=timeout)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def request(self, method: str, path: str, body: bytes | None = None, *,
                headers: Mapping[str, str] | None = None, token: str | None = "",
                timeout: float = REQUEST_TIMEOUT) -> Reply:
        """One request; ``token=""`` sends ours, ``None`` none, anything else that.

        ``path`` goes on the request line as given (percent-encode odd
        characters first: http.client refuses control characters itself).
        """
        sent = {"Accept": "application/json"}
        if token is not None:
            sent["Authorization"] = f"Bearer {token or self.token}"
        sent.update(headers or {})
        if self._conn is None:
            self._conn = self.connection(timeout)
        conn = self._conn
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        try:
            conn.request(method, path, body=body, headers=sent)
            resp = conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException) as exc:
            # No retry: the server says "Connection: close" when it closes, so a
            # broken exchange means an answer was lost (or never came: a hang).
            self.close()
            raise AssertionError(f"{method} {path}: no answer: {exc!r}") from exc
        reply = Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, data)
        if resp.will_close:
            self.close()
        return reply

    def get_json(self, path: str) -> Any:
        reply = self.request("GET", path)
        assert reply.status == 200, (path, reply.status, reply.body[:300])
        return reply.json()

    def ready(self) -> bool:
        """The control plane answers /readyz with 200 (on a fresh connection)."""
        conn = self.connection(5)
        try:
            conn.request("GET", "/readyz")
            resp = conn.getresponse()
            return resp.status == 200 and resp.read() == b"ok"
        except OSError:
            return False
        finally:
            conn.close()

    def raw(self, data: bytes, *, timeout: float = 5.0) -> bytes:
        """Send ``data`` as is over a new TLS connection; everything the server
        answers until it closes the connection (or ``timeout`` passes)."""
        out = b""
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        with self.tls.wrap_socket(sock, server_hostname=self.host) as tls:
            tls.sendall(data)
            deadline = time.monotonic() + timeout
            with contextlib.suppress(TimeoutError, ssl.SSLError, ConnectionResetError):
                while time.monotonic() < deadline:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    out += chunk
        return out


def check_status(reply: Reply, allowed: Iterable[int]) -> dict[str, Any]:
    """Assert ``reply`` is a well-formed ``Status`` whose code is the HTTP status
    and one of ``allowed``; return it."""
    allowed = set(allowed)
    assert reply.status in allowed, \
        f"HTTP {reply.status} not in {sorted(allowed)}: {reply.body[:500]!r}"
    assert reply.headers.get("content-type", "").startswith("application/json"), reply.headers
    try:
        status = json.loads(reply.body)
    except ValueError:
        raise AssertionError(f"not JSON: {reply.body[:300]!r}") from None
    assert isinstance(status, dict) and status.get("kind") == "Status", status
    assert status.get("apiVersion") == "v1", status
    assert status.get("code") == reply.status, status
    assert status.get("status") == "Failure", status
    assert isinstance(status.get("message"), str) and status["message"], status
    return status


def parse_http(raw: bytes) -> Reply:
    """The first HTTP/1.1 response in ``raw`` (as :meth:`RawApi.raw` returns it)."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    assert sep, f"no HTTP response: {raw[:300]!r}"
    lines = head.decode("iso-8859-1").split("\r\n")
    version, code, _ = (lines[0] + " ").split(" ", 2)
    assert version == "HTTP/1.1", f"bad status line: {lines[0]!r}"
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", len(body)))
    return Reply(int(code), headers, body[:length])


#: Everything the store holds that a snapshot compares, by resource plural.
#: Events are left out: components record them asynchronously, on their own.
SNAPSHOT_RESOURCES = tuple(k.plural for k in kinds.KINDS if k.plural != "events")


def collection(plural: str) -> str:
    info = kinds.by_plural(plural)
    prefix = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    return f"{prefix}/{plural}"


def snapshot(api: RawApi) -> dict[str, dict[str, tuple[str, str]]]:
    """Every stored object's (uid, resourceVersion), by resource and
    ``namespace/name``. Nodes and their Leases in ``kube-node-lease`` keep only
    their uid: kubelets heartbeat them (status, lease renewals)."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for plural in SNAPSHOT_RESOURCES:
        items = api.get_json(collection(plural))["items"]
        out[plural] = {
            f'{i["metadata"].get("namespace", "")}/{i["metadata"]["name"]}':
                (i["metadata"]["uid"],
                 "" if _heartbeat(plural, i) else i["metadata"]["resourceVersion"])
            for i in items}
    return out


def _heartbeat(plural: str, obj: Mapping[str, Any]) -> bool:
    """Whether kubelets rewrite ``obj`` on their own, as a heartbeat."""
    return plural == "nodes" or (plural == "leases"
                                 and obj["metadata"].get("namespace") == "kube-node-lease")


def diff(before: Mapping[str, Mapping[str, Any]],
         after: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What changed between two snapshots, one line per object."""
    lines = []
    for plural in sorted(set(before) | set(after)):
        old, new = before.get(plural, {}), after.get(plural, {})
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                lines.append(f"{plural} {key}: {old.get(key)} -> {new.get(key)}")
    return lines


def global_rv(api: RawApi) -> str:
    """The store's current resourceVersion (every write moves it)."""
    return str(api.get_json("/api/v1/namespaces?limit=1")["metadata"]["resourceVersion"])
