"""Plain HTTP sent to the HTTPS port is answered as Go's TLS server answers it.

kube-apiserver runs on Go's net/http: when the first five bytes of a
connection (where a TLS record header belongs) are ``GET /``, ``HEAD ``,
``POST ``, ``PUT /`` or ``OPTIO``, it writes ``HTTP/1.0 400 Bad Request`` with
"Client sent an HTTP request to an HTTPS server." and closes; anything else
that is not TLS just fails its handshake. ``curl http://...`` against a real
cluster prints that sentence; ours used to reset the connection.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from minikube_py.apiserver import tls
from minikube_py.apiserver.server import APIServer
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

ANSWER = b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[APIServer, Path]]:
    state = Path(tmp_path_factory.mktemp("plain"))
    store = Store(state / "s")
    ca, crt, key = tls.ensure(state, "127.0.0.1")
    api = APIServer(Registry(store), token="t", port=0, tls=tls.server_context(crt, key))
    api.start()
    yield api, ca
    api.stop()
    store.close()


def _exchange(address: tuple[str, int], data: bytes) -> bytes:
    """Send ``data`` on a plain TCP connection; everything read until the server
    closes it (a reset counts as closing: unread input makes the kernel send one)."""
    received = b""
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall(data)
        try:
            while chunk := sock.recv(4096):
                received += chunk
        except ConnectionResetError:
            pass
    return received


@pytest.mark.parametrize("request_line", [
    b"GET / HTTP/1.1", b"GET /api/v1/pods HTTP/1.1", b"HEAD / HTTP/1.1",
    b"POST /api/v1/namespaces HTTP/1.1", b"PUT /api/v1/namespaces/x HTTP/1.1",
    b"OPTIONS * HTTP/1.1",
])
def test_plain_http_gets_gos_answer(server: tuple[APIServer, Path], request_line: bytes):
    api, _ = server
    got = _exchange(api.address, request_line + b"\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    assert got == ANSWER


def test_what_a_client_library_sees(server: tuple[APIServer, Path]):
    api, _ = server
    conn = http.client.HTTPConnection(*api.address, timeout=10)
    conn.request("GET", "/version")
    resp = conn.getresponse()
    assert (resp.status, resp.version) == (400, 10)
    assert resp.read() == b"Client sent an HTTP request to an HTTPS server.\n"
    conn.close()


@pytest.mark.parametrize("start", [b"PATCH /x HTTP/1.1\r\n\r\n", b"DELETE /x HTTP/1.1\r\n\r\n",
                                   b"hello there\r\n", b"\x00\x01\x02\x03\x04\x05"])
def test_other_non_tls_bytes_are_closed_without_an_answer(server: tuple[APIServer, Path],
                                                          start: bytes):
    """Go only recognises the five prefixes; everything else fails the handshake."""
    api, _ = server
    got = _exchange(api.address, start)
    assert b"Client sent an HTTP request" not in got
    assert not got.startswith(b"HTTP/")


def test_https_is_served_before_and_after(server: tuple[APIServer, Path]):
    api, ca = server
    context = ssl.create_default_context(cafile=str(ca))
    for _ in range(2):
        conn = http.client.HTTPSConnection(*api.address, context=context, timeout=10)
        conn.request("GET", "/livez")
        resp = conn.getresponse()
        assert (resp.status, resp.read()) == (200, b"ok")
        conn.close()
        assert _exchange(api.address, b"GET / HTTP/1.0\r\n\r\n") == ANSWER
