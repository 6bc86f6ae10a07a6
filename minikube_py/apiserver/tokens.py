"""Service-account tokens: issuing bound tokens and checking them.

What kube-apiserver's service-account token issuer and authenticator do
(pkg/serviceaccount/jwt.go, claims.go), for one cluster:

* **Issue** (``TokenRequest``, ``kubectl create token``): a JWT with the claims
  Kubernetes puts in a bound token: ``iss`` (``https://kubernetes.default.svc.
  <domain>``, kubeadm's default), ``sub`` (``system:serviceaccount:<ns>:<name>``),
  ``aud`` (the request's audiences, else the issuer), ``iat``/``nbf``/``exp``
  (``expirationSeconds``: default 3600, at least 600), ``jti``, and the private
  ``kubernetes.io`` claim naming the namespace, the service account (name,
  uid) and, for a token bound to a pod, the pod and its node.
* **Sign**: HMAC-SHA256 (``HS256``, RFC 7518) with a 32-byte key kept in
  ``STATE_DIR/sa-signing.key`` (0600). Kubernetes signs with an RSA or EC key
  so that outside parties can verify tokens against its published JWKS;
  nothing outside this daemon verifies ours (the API server checks every
  token it receives, as TokenReview does), so a symmetric key serves. The
  compact JWS framing (three base64url parts, RFC 7515) is written here with
  the standard library: PyJWT, the maintained library, imports the
  ``cryptography`` package whenever it is installed, which maps ~8 MB into a
  process for good and which the daemon deliberately never loads (see
  :mod:`.tls`).
* **Check** (:meth:`TokenIssuer.verify`): the signature, ``iss``, that ``aud``
  shares an audience with the API server's, ``exp``/``nbf`` (60 s leeway,
  kube-apiserver's), the required claims. Whether the service account and
  the bound pod still exist (with the same uids) is the caller's check, from
  the claims returned (:class:`TokenClaims`): a token outlives nothing it is
  bound to.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..api.randomness import new_uid
from ..store.atomicfile import write_atomically

__all__ = ["DEFAULT_EXPIRATION", "MIN_EXPIRATION", "TokenClaims", "TokenError", "TokenIssuer",
           "issuer_for"]

KEY_FILE: Final = "sa-signing.key"
DEFAULT_EXPIRATION: Final = 3600
#: ``TokenRequest`` refuses shorter tokens ("may not specify a duration less than 10 minutes").
MIN_EXPIRATION: Final = 600
LEEWAY: Final = 60
_ALGORITHM: Final = "HS256"


class TokenError(Exception):
    """A token that is not ours, not valid now, or not for this audience."""


def issuer_for(domain: str) -> str:
    """kubeadm's default ``--service-account-issuer``."""
    return f"https://kubernetes.default.svc.{domain.rstrip('.')}"


@dataclass(frozen=True)
class TokenClaims:
    """What a verified token says."""

    namespace: str
    service_account: str
    service_account_uid: str
    audiences: tuple[str, ...]
    expires: float
    #: ``(kind, name, uid)`` of what the token is bound to (a Pod or Secret), if any.
    bound: tuple[str, str, str] | None = None
    node: tuple[str, str] | None = None
    token_id: str = ""

    @property
    def username(self) -> str:
        return f"system:serviceaccount:{self.namespace}:{self.service_account}"


def _load_key(path: Path) -> bytes:
    """The signing key, made once (0600) and kept: tokens survive restarts."""
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = secrets.token_bytes(32)
        write_atomically(path, key)
        return key
    if len(key) != 32:
        raise TokenError(f"{path}: a service-account signing key is 32 bytes, not {len(key)}")
    return key


class TokenIssuer:
    """Issues and checks one cluster's service-account tokens (module docstring)."""

    def __init__(self, key: bytes, *, issuer: str, audiences: Sequence[str] = (),
                 clock: Callable[[], float] = time.time) -> None:
        self._key = key
        self.issuer = issuer
        #: What the API server accepts (``--api-audiences``; default: the issuer).
        self.audiences = tuple(audiences) or (issuer,)
        self._clock = clock
        # A key id lets a future rotation tell keys apart; it names no secret.
        self._kid = uuid.uuid5(uuid.NAMESPACE_OID, key.hex()).hex[:16]

    @classmethod
    def load(cls, state_dir: Path, *, issuer: str,
             clock: Callable[[], float] = time.time) -> TokenIssuer:
        return cls(_load_key(state_dir / KEY_FILE), issuer=issuer, clock=clock)

    def issue(self, *, namespace: str, service_account: str, service_account_uid: str,
              audiences: Sequence[str] = (), expiration_seconds: int = DEFAULT_EXPIRATION,
              bound: tuple[str, str, str] | None = None,
              node: tuple[str, str] | None = None) -> tuple[str, float]:
        """A signed token and when it expires (epoch seconds)."""
        now = int(self._clock())
        expires = now + int(expiration_seconds)
        private: dict[str, Any] = {
            "namespace": namespace,
            "serviceaccount": {"name": service_account, "uid": service_account_uid}}
        if bound is not None:
            private[bound[0].lower()] = {"name": bound[1], "uid": bound[2]}
        if node is not None:
            private["node"] = {"name": node[0], "uid": node[1]}
        claims = {"aud": list(audiences) or list(self.audiences), "exp": expires, "iat": now,
                  "nbf": now, "iss": self.issuer, "jti": new_uid(),
                  "kubernetes.io": private,
                  "sub": f"system:serviceaccount:{namespace}:{service_account}"}
        return _sign({"alg": _ALGORITHM, "kid": self._kid, "typ": "JWT"}, claims,
                     self._key), float(expires)

    def verify(self, token: str) -> TokenClaims:
        """The claims of a token this issuer signed for one of the API server's
        audiences, valid now; :class:`TokenError` naming why not otherwise."""
        claims = _verified(token, self._key)
        now = self._clock()
        for field in ("exp", "iat", "iss", "aud", "sub"):
            if field not in claims:
                raise TokenError(f"invalid token: the {field!r} claim is missing")
        if claims["iss"] != self.issuer:
            raise TokenError("invalid token: the issuer is not this cluster's")
        if not _number(claims["exp"]) or now > float(claims["exp"]) + LEEWAY:
            raise TokenError("the token has expired")
        if _number(claims.get("nbf")) and now < float(claims["nbf"]) - LEEWAY:
            raise TokenError("the token is not valid yet")
        aud = claims["aud"]
        audiences = aud if isinstance(aud, list) else [aud]
        if not set(map(str, audiences)) & set(self.audiences):
            raise TokenError("the token's audiences are not accepted by this server")
        private = claims.get("kubernetes.io")
        if not isinstance(private, dict):
            raise TokenError("the token names no service account")
        sa = private.get("serviceaccount") or {}
        namespace = str(private.get("namespace") or "")
        name = str(sa.get("name") or "")
        if claims.get("sub") != f"system:serviceaccount:{namespace}:{name}" or not name:
            raise TokenError("the token's subject does not match its service account")
        bound = None
        for kind in ("pod", "secret"):
            ref = private.get(kind)
            if isinstance(ref, dict):
                bound = (kind.capitalize(), str(ref.get("name") or ""), str(ref.get("uid") or ""))
        node = private.get("node")
        return TokenClaims(
            namespace=namespace, service_account=name, service_account_uid=str(sa.get("uid") or ""),
            audiences=tuple(map(str, audiences)),
            expires=float(claims["exp"]), bound=bound,
            node=(str(node.get("name") or ""), str(node.get("uid") or ""))
            if isinstance(node, dict) else None, token_id=str(claims.get("jti") or ""))


# --------------------------------------------------------------------- compact JWS (HS256)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _sign(header: dict[str, Any], claims: dict[str, Any], key: bytes) -> str:
    signing_input = (_b64(json.dumps(header, separators=(",", ":")).encode()) + "." +
                     _b64(json.dumps(claims, separators=(",", ":")).encode()))
    mac = hmac.new(key, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + _b64(mac)


def _verified(token: str, key: bytes) -> dict[str, Any]:
    """The claims of a compact JWS signed with ``key`` (HS256 only)."""
    parts = token.split(".")
    if len(parts) != 3:
        raise TokenError("not a JWT: it must have three parts")
    try:
        header = json.loads(_unb64(parts[0]))
        signature = _unb64(parts[2])
    except (ValueError, UnicodeDecodeError):
        raise TokenError("not a JWT: the header or signature does not decode") from None
    if not isinstance(header, dict) or header.get("alg") != _ALGORITHM:
        raise TokenError("unexpected signing algorithm")
    expected = hmac.new(key, f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise TokenError("invalid token: the signature does not match")
    try:
        claims = json.loads(_unb64(parts[1]))
    except (ValueError, UnicodeDecodeError):
        raise TokenError("invalid token: the claims do not decode") from None
    if not isinstance(claims, dict):
        raise TokenError("invalid token: the claims are not an object")
    return claims
