"""The API's certificates (apiserver/tls.py, apiserver/tls_issue.py): issued once by
a helper process, checked with the standard library on every start, issued again
when the names, the files or the expiry call for it."""

from __future__ import annotations

import hashlib
import json
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cryptography import x509

from minikube_py.apiserver import tls


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def handshake(ca: Path, crt: Path, key: Path, server_hostname: str) -> None:
    """A TLS handshake against ``server_context(crt, key)`` verifying with ``ca``."""
    server_ctx = tls.server_context(crt, key)
    client_ctx = ssl.create_default_context(cafile=str(ca))
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def serve() -> None:
            conn, _ = listener.accept()
            with server_ctx.wrap_socket(conn, server_side=True) as s:
                s.recv(1)

        t = threading.Thread(target=serve, daemon=True)
        t.start()
        with socket.create_connection(("127.0.0.1", port)) as raw, \
                client_ctx.wrap_socket(raw, server_hostname=server_hostname) as c:
            c.sendall(b"x")
        t.join(5)


def test_a_fresh_state_dir_gets_a_ca_and_a_server_certificate(tmp_path: Path):
    ca, crt, key = tls.ensure(tmp_path, "127.0.0.1")
    assert (ca, crt, key) == (tmp_path / "pki/ca.crt", tmp_path / "pki/apiserver.crt",
                              tmp_path / "pki/apiserver.key")
    assert (tmp_path / "pki").stat().st_mode & 0o777 == 0o700
    for path, mode in ((key, 0o600), (tmp_path / "pki/ca.key", 0o600), (crt, 0o644),
                       (ca, 0o644)):
        assert path.stat().st_mode & 0o777 == mode, path
    cert = x509.load_pem_x509_certificate(crt.read_bytes())
    issuer = x509.load_pem_x509_certificate(ca.read_bytes())
    assert cert.issuer == issuer.subject
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert set(san.get_values_for_type(x509.DNSName)) == {"localhost", "minikube-py"}
    assert {str(ip) for ip in san.get_values_for_type(x509.IPAddress)} == {"127.0.0.1", "::1"}
    for name in ("localhost", "127.0.0.1"):
        handshake(ca, crt, key, name)


def test_a_valid_certificate_is_kept_without_running_the_helper(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    tls.ensure(tmp_path, "127.0.0.1")
    before = {p.name: sha(p) for p in (tmp_path / "pki").iterdir()}

    def no_helper(*args: object, **kwargs: object) -> None:
        raise AssertionError("the helper ran for certificates that were fine")

    monkeypatch.setattr(subprocess, "run", no_helper)
    tls.ensure(tmp_path, "127.0.0.1")
    tls.ensure(tmp_path, "0.0.0.0")  # a wildcard address needs no new name
    assert {p.name: sha(p) for p in (tmp_path / "pki").iterdir()} == before


@pytest.mark.parametrize("change, reissued", [
    ("new address", True),
    ("certificate replaced", True),
    ("record lost", True),
    ("record corrupt", True),
    ("server key lost", True),
    ("nothing", False),
])
def test_what_makes_the_server_certificate_issued_again(tmp_path: Path, change: str,
                                                         reissued: bool):
    ca, crt, key = tls.ensure(tmp_path, "127.0.0.1")
    ca_before, crt_before = sha(ca), sha(crt)
    record = tmp_path / "pki" / tls.RECORD
    host = "127.0.0.1"
    if change == "new address":
        host = "10.1.2.3"
    elif change == "certificate replaced":
        crt.write_bytes(ca.read_bytes())
    elif change == "record lost":
        record.unlink()
    elif change == "record corrupt":
        record.write_text("{not json")
    elif change == "server key lost":
        key.unlink()
    tls.ensure(tmp_path, host)
    assert (sha(crt) != crt_before) is reissued
    assert sha(ca) == ca_before  # the CA is kept: kubeconfigs stay valid
    handshake(ca, crt, key, host if change == "new address" else "localhost")


def test_a_certificate_near_its_expiry_is_not_current(tmp_path: Path):
    tls.ensure(tmp_path, "127.0.0.1")
    pki = tmp_path / "pki"
    not_after = json.loads((pki / tls.RECORD).read_text())["notAfter"]
    assert tls.current(pki, "127.0.0.1", now=not_after - 31 * 86400)
    assert not tls.current(pki, "127.0.0.1", now=not_after - 29 * 86400)


def test_a_state_dir_that_is_a_file_is_a_clear_error(tmp_path: Path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    with pytest.raises(tls.CertificateError, match=r"cannot issue the API's certificates .*"):
        tls.ensure(not_a_dir, "127.0.0.1")


def test_the_daemon_side_never_imports_the_crypto_library(tmp_path: Path):
    code = ("import sys\nfrom pathlib import Path\nfrom minikube_py.apiserver import tls\n"
            "import minikube_py.controlplane, minikube_py.apiserver.tokens\n"
            "from minikube_py.cli.main import build_parser\nbuild_parser()\n"
            f"tls.ensure(Path({str(tmp_path)!r}), '127.0.0.1')\n"
            "print('cryptography' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
    assert (tmp_path / "pki" / "apiserver.crt").is_file()
