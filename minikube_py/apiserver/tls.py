"""TLS for the API: a private CA per state directory and a server certificate.

Why TLS on loopback: Kubernetes clients (client-go, so kubectl) refuse to send
a bearer token over plain HTTP, and a token sent in clear text would be
readable by anyone who can sniff loopback. So the daemon serves HTTPS only.

Contract:

* ``STATE_DIR/pki/ca.crt`` + ``ca.key`` are created once (ECDSA P-256, ten
  years) and kept, so kubeconfigs stay valid across restarts; the CA's
  certificate goes into the kubeconfig as ``certificate-authority-data``.
* ``apiserver.crt`` + ``apiserver.key`` are (re)issued by that CA whenever the
  names it must cover change (``localhost``, ``127.0.0.1``, ``::1`` and the
  listen address) or it is within 30 days of expiry.
* Keys are written 0600, certificates 0644, atomically and durably (fsync).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import ssl
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_DAY = dt.timedelta(days=1)


def _write(path: Path, data: bytes, mode: int) -> None:
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


def _names(host: str) -> tuple[list[str], list[str]]:
    dns = ["localhost", "minikube-py"]
    ips = ["127.0.0.1", "::1"]
    if host and host not in ("0.0.0.0", "::"):
        try:
            ipaddress.ip_address(host)
            if host not in ips:
                ips.append(host)
        except ValueError:
            if host not in dns:
                dns.append(host)
    return dns, ips


def _load_ca(pki: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
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
    _write(key, _key_bytes(private), 0o600)
    _write(crt, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return cert, private


def _covers(cert: x509.Certificate, dns: list[str], ips: list[str]) -> bool:
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    have_dns = set(san.get_values_for_type(x509.DNSName))
    have_ips = {str(ip) for ip in san.get_values_for_type(x509.IPAddress)}
    fresh = cert.not_valid_after_utc - dt.datetime.now(dt.UTC) > 30 * _DAY
    return fresh and set(dns) <= have_dns and set(ips) <= have_ips


def ensure(state_dir: Path, host: str) -> tuple[Path, Path, Path]:
    """Make sure the CA and a server certificate for ``host`` exist.

    Returns (ca.crt, apiserver.crt, apiserver.key).
    """
    pki = state_dir / "pki"
    pki.mkdir(mode=0o700, exist_ok=True)
    ca_cert, ca_key = _load_ca(pki)
    crt, key = pki / "apiserver.crt", pki / "apiserver.key"
    dns, ips = _names(host)
    if crt.exists() and key.exists():
        cert = x509.load_pem_x509_certificate(crt.read_bytes())
        if _covers(cert, dns, ips) and cert.issuer == ca_cert.subject:
            return pki / "ca.crt", crt, key
    private = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    san = [x509.DNSName(d) for d in dns] + [x509.IPAddress(ipaddress.ip_address(i))
                                            for i in ips]
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "minikube-py")]))
            .issuer_name(ca_cert.subject).public_key(private.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - _DAY).not_valid_after(now + 825 * _DAY)
            .add_extension(x509.SubjectAlternativeName(san), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    _write(key, _key_bytes(private), 0o600)
    _write(crt, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return pki / "ca.crt", crt, key


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert, key)
    return ctx
