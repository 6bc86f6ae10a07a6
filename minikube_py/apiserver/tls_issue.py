"""Issuing the API's certificates (run as a helper process by :mod:`.tls`).

``python -m minikube_py.apiserver.tls_issue STATE_DIR HOST [NAME...]`` makes sure that

* ``STATE_DIR/pki/ca.crt`` + ``ca.key`` exist (ECDSA P-256, ten years; an
  existing CA is kept, so kubeconfigs stay valid across restarts), and
* ``apiserver.crt`` + ``apiserver.key`` are issued by that CA for
  :func:`.tls.names` of ``HOST`` and each ``NAME``, valid 825 days,

then records what it issued in ``apiserver.json`` (:data:`.tls.RECORD`): the
names, the expiry and the SHA-256 of both certificates, which is what
:func:`.tls.ensure` checks on every start without parsing X.509.

It lives apart from :mod:`.tls` because it needs the ``cryptography`` package,
whose import maps about 8 MB into a process for good: the long-running daemon
never imports this module, it runs it as a child when a certificate must be
(re)issued. Keys are written 0600, certificates and the record 0644,
atomically and durably (fsync). Exit status 0 on success; otherwise 1, with
the reason on stderr.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .tls import RECORD, names

__all__ = ["issue", "main", "write_file"]

_DAY = dt.timedelta(days=1)


def write_file(path: Path, data: bytes, mode: int) -> None:
    """Write ``path`` atomically and durably with permissions ``mode``."""
    # fsync before the rename and of the directory after it: without them a power
    # loss (or a disk error that drops dirty pages) can persist the rename but not
    # the data, leaving an empty PEM the next start cannot load.
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _key_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _load_or_make_ca(pki: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    crt, key = pki / "ca.crt", pki / "ca.key"
    if crt.exists() and key.exists():
        cert = x509.load_pem_x509_certificate(crt.read_bytes())
        private = serialization.load_pem_private_key(key.read_bytes(), password=None)
        if isinstance(private, ec.EllipticCurvePrivateKey):
            return cert, private
    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "minikube-py-ca")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(private.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - _DAY).not_valid_after(now + 3650 * _DAY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                         crl_sign=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .sign(private, hashes.SHA256()))
    write_file(key, _key_bytes(private), 0o600)
    write_file(crt, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return cert, private


def issue(state_dir: Path, host: str, extra: Sequence[str] = ()) -> None:
    """Make sure the CA exists and issue a fresh server certificate for ``host``
    and ``extra`` names; record it (see the module docstring)."""
    pki = Path(state_dir) / "pki"
    pki.mkdir(mode=0o700, exist_ok=True)
    ca_cert, ca_key = _load_or_make_ca(pki)
    dns, ips = names(host, extra)
    private = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    not_after = now + 825 * _DAY
    san = [x509.DNSName(d) for d in dns] + [x509.IPAddress(ipaddress.ip_address(i))
                                            for i in ips]
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "minikube-py")]))
            .issuer_name(ca_cert.subject).public_key(private.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - _DAY).not_valid_after(not_after)
            .add_extension(x509.SubjectAlternativeName(san), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    write_file(pki / "apiserver.key", _key_bytes(private), 0o600)
    write_file(pki / "apiserver.crt", pem, 0o644)
    record = {"dns": dns, "ips": ips, "notAfter": int(not_after.timestamp()),
              "sha256": hashlib.sha256(pem).hexdigest(),
              "caSha256": hashlib.sha256((pki / "ca.crt").read_bytes()).hexdigest()}
    write_file(pki / RECORD, (json.dumps(record, indent=1) + "\n").encode(), 0o644)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        print("usage: python -m minikube_py.apiserver.tls_issue STATE_DIR HOST [NAME...]",
              file=sys.stderr)
        return 2
    try:
        issue(Path(args[0]), args[1], args[2:])
    except (OSError, ValueError) as exc:
        print(f"cannot issue the API's certificates in {args[0]}/pki: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
