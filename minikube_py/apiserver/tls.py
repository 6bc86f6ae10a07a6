"""TLS for the API: a private CA per state directory and a server certificate.

Why TLS on loopback: Kubernetes clients (client-go, so kubectl) refuse to send
a bearer token over plain HTTP, and a token sent in clear text would be
readable by anyone who can sniff loopback. So the daemon serves HTTPS only.

Contract of :func:`ensure`:

* ``STATE_DIR/pki/ca.crt`` + ``ca.key`` are created once (ECDSA P-256, ten
  years) and kept, so kubeconfigs stay valid across restarts; the CA's
  certificate goes into the kubeconfig as ``certificate-authority-data``.
* ``apiserver.crt`` + ``apiserver.key`` are (re)issued by that CA whenever the
  names it must cover change (``localhost``, ``127.0.0.1``, ``::1``, the
  listen address and the names pods use, :func:`names`), it is within 30
  days of expiry, it or the CA was replaced, or the record of what was
  issued is missing.
* Keys are written 0600, certificates 0644, atomically and durably (fsync).
* A failure raises :class:`CertificateError` with the reason (e.g. a
  read-only state directory).

Issuing needs the ``cryptography`` package, which maps about 8 MB into a
process for good. So this module uses only the standard library: the
certificates are issued by :mod:`.tls_issue` in a short-lived child process,
which also records what it issued (names, expiry, SHA-256 of both
certificates) in ``pki/apiserver.json``; each start compares that record with
the files and the wanted names, and the daemon itself never loads the crypto
library.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import ssl
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["RECORD", "CertificateError", "ensure", "names", "server_context"]

#: The helper's record of the server certificate it issued (see :mod:`.tls_issue`).
RECORD = "apiserver.json"
#: A certificate this close to its expiry is issued again.
RENEW_BEFORE = 30 * 86400.0
#: The package's parent directory: where the helper process imports it from.
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
_ISSUE_TIMEOUT = 60.0


class CertificateError(Exception):
    """The API's certificates could not be issued; the message says why."""


def names(host: str, extra: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """The DNS names and IP addresses the server certificate must cover for a
    daemon listening on ``host`` (a wildcard address adds nothing), plus
    ``extra`` names or addresses (how pods reach it: ``kubernetes.default.svc``,
    the ``kubernetes`` Service's cluster IP, the pod network's gateway)."""
    dns = ["localhost", "minikube-py"]
    ips = ["127.0.0.1", "::1"]
    for name in (host, *extra):
        if not name or name in ("0.0.0.0", "::"):
            continue
        try:
            ipaddress.ip_address(name)
            if name not in ips:
                ips.append(name)
        except ValueError:
            if name not in dns:
                dns.append(name)
    return dns, ips


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def current(pki: Path, host: str, *, now: float | None = None,
            extra: Sequence[str] = ()) -> bool:
    """Whether the certificates in ``pki`` serve ``host`` as they are (see the
    module contract); False for anything missing, unreadable or different."""
    try:
        record: Any = json.loads((pki / RECORD).read_text())
        if not (pki / "apiserver.key").is_file() or not (pki / "ca.key").is_file():
            return False
        fresh = float(record["notAfter"]) - (time.time() if now is None else now) > \
            RENEW_BEFORE
        same_files = (record["sha256"] == _sha256(pki / "apiserver.crt")
                      and record["caSha256"] == _sha256(pki / "ca.crt"))
        dns, ips = names(host, extra)
        covered = set(dns) <= set(record["dns"]) and set(ips) <= set(record["ips"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return bool(fresh and same_files and covered)


def ensure(state_dir: Path, host: str, extra: Sequence[str] = ()) -> tuple[Path, Path, Path]:
    """Make sure the CA and a server certificate for ``host`` (and ``extra``
    names and addresses, see :func:`names`) exist.

    Returns (ca.crt, apiserver.crt, apiserver.key).
    """
    pki = Path(state_dir) / "pki"
    if not current(pki, host, extra=extra):
        _issue(Path(state_dir), host, extra)
        if not current(pki, host, extra=extra):  # the helper left no usable record
            raise CertificateError(f"the certificates issued in {pki} do not check out")
    return pki / "ca.crt", pki / "apiserver.crt", pki / "apiserver.key"


def _issue(state_dir: Path, host: str, extra: Sequence[str]) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(_PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "minikube_py.apiserver.tls_issue", str(state_dir), host,
             *extra],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
            timeout=_ISSUE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CertificateError(f"cannot run the certificate helper: {exc}") from None
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise CertificateError(reason[0])


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert, key)
    return ctx
