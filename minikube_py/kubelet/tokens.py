"""Service-account tokens for ``projected`` volumes: the seam the control
plane fills, and the kubelet's token manager (pkg/kubelet/token).

* :class:`TokenSource` is what the kubelet is given:
  ``token(pod, audience, expiration_seconds) -> (token, expires_at)``, a
  token bound to the pod (its service account, ``audience`` or the API
  server's when empty) and its expiry in seconds since the epoch. The
  control plane implements it over the API's ``TokenRequest``; tests use a
  fake. It raises on failure (the volume's set-up fails with its message and
  is retried).
* :class:`TokenCache` keeps one token per (pod uid, audience, expiration)
  and asks for a new one as ``requiresRefresh`` does: once 80 % of its life
  has passed, or 24 hours after it was issued (the token manager's
  ``maxTTL``), whichever comes first. The jitter Kubernetes adds to spread
  refreshes is left out (one node's few pods do not stampede). A failed
  refresh keeps the held token while it has not expired. Thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from ..api.timefmt import parse_time
from ..client.base import Client

__all__ = ["ApiTokenSource", "TokenCache", "TokenSource", "token_request"]

#: A token is refreshed at the latest this long after it was issued.
MAX_TTL: Final = 24 * 3600.0


class TokenSource(Protocol):
    """Issues service-account tokens bound to a pod (see the module contract)."""

    def token(self, pod: Mapping[str, Any], audience: str,
              expiration_seconds: int) -> tuple[str, float]:
        """``(token, expires_at)`` for ``pod``'s service account."""
        ...


def token_request(pod: Mapping[str, Any], audience: str,
                  expiration_seconds: int) -> dict[str, Any]:
    """The ``TokenRequest`` the kubelet's token manager sends for ``pod``:
    its audience (``[]``: the API server's), its lifetime, bound to the pod."""
    meta = pod.get("metadata") or {}
    return {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "metadata": {"name": str((pod.get("spec") or {}).get("serviceAccountName")
                                     or "default"),
                         "namespace": str(meta.get("namespace") or "default")},
            "spec": {"audiences": [audience] if audience else [],
                     "expirationSeconds": int(expiration_seconds),
                     "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                                        "name": str(meta.get("name") or ""),
                                        "uid": str(meta.get("uid") or "")}}}


class ApiTokenSource:
    """A :class:`TokenSource` over the API: POSTs a :func:`token_request` to
    ``serviceaccounts/<sa>/token`` in the pod's namespace, as the kubelet's
    token manager does, and returns ``status.token`` with
    ``status.expirationTimestamp``. API errors propagate (NotFound for a
    missing service account, Forbidden, ...)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def token(self, pod: Mapping[str, Any], audience: str,
              expiration_seconds: int) -> tuple[str, float]:
        request = token_request(pod, audience, expiration_seconds)
        meta = request["metadata"]
        answer = self.client.create_subresource("serviceaccounts", meta["namespace"],
                                                meta["name"], "token", request)
        status = answer.get("status") or {}
        token = status.get("token")
        expires = parse_time(status.get("expirationTimestamp"))
        if not token or expires is None:
            raise ValueError("the TokenRequest was answered without a token and its expiry")
        return str(token), expires


@dataclass(frozen=True)
class _Issued:
    token: str
    issued_at: float
    expires_at: float


class TokenCache:
    """Tokens per pod, refreshed before they expire (see the module contract)."""

    def __init__(self, source: TokenSource | None, *, clock: Callable[[], float]) -> None:
        self.source = source
        self.clock = clock
        self._lock = threading.Lock()
        self._tokens: dict[tuple[str, str, int], _Issued] = {}

    def get(self, pod: Mapping[str, Any], audience: str, expiration_seconds: int) -> str:
        """A valid token; raises if none can be had (no source, or it failed)."""
        uid = str((pod.get("metadata") or {}).get("uid", ""))
        key = (uid, audience, expiration_seconds)
        now = self.clock()
        with self._lock:
            held = self._tokens.get(key)
        if held is not None and not self._needs_refresh(held, now):
            return held.token
        if self.source is None:
            raise RuntimeError("failed to fetch token: this kubelet has no token source")
        try:
            token, expires_at = self.source.token(pod, audience, expiration_seconds)
        except Exception:
            # As the token manager: a refresh that fails keeps a token that
            # has not expired yet; the next sync tries again.
            if held is not None and now < held.expires_at:
                return held.token
            raise
        with self._lock:
            self._tokens[key] = _Issued(token, now, float(expires_at))
        return token

    @staticmethod
    def _needs_refresh(held: _Issued, now: float) -> bool:
        life = max(0.0, held.expires_at - held.issued_at)
        return now >= held.issued_at + MAX_TTL or now >= held.expires_at - 0.2 * life

    def forget(self, uid: str) -> None:
        with self._lock:
            for key in [k for k in self._tokens if k[0] == uid]:
                del self._tokens[key]
