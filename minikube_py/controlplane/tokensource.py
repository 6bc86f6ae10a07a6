"""The kubelets' service-account tokens, issued in-process.

Kubernetes' kubelet asks kube-apiserver for each projected
``serviceAccountToken`` with a ``TokenRequest`` bound to the pod. The
kubelets here run inside the daemon and talk to the registry without HTTP,
so :class:`LocalTokenSource` runs the very code behind the endpoint
(:func:`~minikube_py.apiserver.tokenrequest.request_token`): same checks
(the service account and the pod exist, the pod runs as that account), same
token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api.timefmt import parse_time
from ..apiserver.tokenrequest import request_token
from ..apiserver.tokens import TokenIssuer
from ..store.store import Store

__all__ = ["LocalTokenSource"]


class LocalTokenSource:
    """A kubelet ``TokenSource`` over this control plane's issuer."""

    def __init__(self, store: Store, issuer: TokenIssuer) -> None:
        self._store = store
        self._issuer = issuer

    def token(self, pod: Mapping[str, Any], audience: str,
              expiration_seconds: int) -> tuple[str, float]:
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        answer = request_token(
            self._store, self._issuer, str(meta.get("namespace") or "default"),
            str(spec.get("serviceAccountName") or "default"),
            {"audiences": [audience] if audience else [],
             "expirationSeconds": int(expiration_seconds),
             "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                                "name": str(meta.get("name") or ""),
                                "uid": str(meta.get("uid") or "")}})
        status = answer["status"]
        expires = parse_time(status["expirationTimestamp"])
        if expires is None:  # request_token always formats one
            raise ValueError("the token request answered no expiration time")
        return str(status["token"]), expires
