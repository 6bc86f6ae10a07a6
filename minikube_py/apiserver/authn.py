"""Authentication: who a request is from, as kube-apiserver's authenticators decide.

Two credentials are accepted, both as ``Authorization: Bearer <token>``:

* **The admin token** (``STATE_DIR/token``, written into the kubeconfig):
  the user :func:`~minikube_py.auth.user.admin_user`, a member of
  ``system:masters`` — what minikube's and kubeadm's admin credentials are.
  Compared in constant time.
* **Service-account tokens** (JWTs signed by :class:`.tokens.TokenIssuer`:
  ``TokenRequest``, projected ``serviceAccountToken`` volumes). After the
  signature, issuer, audience and expiry checks of ``TokenIssuer.verify``,
  the objects the token names must still exist with the same uids, as
  kube-apiserver's ``validator.Validate`` (pkg/serviceaccount/claims.go)
  insists: the service account, and the pod or secret it is bound to; a
  bound pod being deleted for more than 60 s invalidates the token. The user
  is ``system:serviceaccount:<ns>:<name>`` in ``system:serviceaccounts``,
  ``system:serviceaccounts:<ns>`` and ``system:authenticated``, with the
  service account's uid and, for a pod-bound token, the ``extra`` values
  Kubernetes sets (``authentication.kubernetes.io/pod-name``, ``pod-uid``,
  ``node-name``, ``node-uid``, ``credential-id``).

Anything else — no header, another scheme, an unknown or invalid token — is
:class:`~minikube_py.api.errors.Unauthorized` (401 ``Unauthorized``, the only
thing kube-apiserver tells the client); why is logged at debug level.
Anonymous requests are not accepted (kube-apiserver's ``--anonymous-auth=false``):
the health and version endpoints are served before authentication instead.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..api.core import pod, secret, serviceaccount
from ..api.errors import NotFound, Unauthorized
from ..api.timefmt import parse_time
from ..auth.user import UserInfo, admin_user, service_account_user
from ..store.store import Store
from .tokens import TokenClaims, TokenError, TokenIssuer

__all__ = ["Authenticator", "bearer_token"]

log = logging.getLogger(__name__)

#: kube-apiserver keeps honouring a pod-bound token this long after the pod's
#: deletion started (``validator``'s ``invalidIfDeletedBefore``).
DELETION_LEEWAY: Final = 60.0

_EXTRA: Final = "authentication.kubernetes.io/"
#: What a token may be bound to: kind -> resource.
_BINDABLE: Final = {info.kind: info.plural for info in (pod.INFO, secret.INFO)}


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer`` header (lower-case keys), if any."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


class Authenticator:
    """Maps a request's credential to a :class:`UserInfo` (module contract)."""

    def __init__(self, store: Store, *, admin_token: str, issuer: TokenIssuer | None,
                 clock: Callable[[], float] = time.time) -> None:
        if not admin_token:
            raise ValueError("the API server needs an admin token")
        self._store = store
        self._admin = admin_token.encode()
        self.issuer = issuer
        self._clock = clock

    def authenticate(self, headers: Mapping[str, str]) -> UserInfo:
        """The requesting user; :class:`Unauthorized` when there is none."""
        presented = bearer_token(headers)
        if presented is None:
            raise Unauthorized("Unauthorized")
        user = self.user_of(presented)
        if user is None:
            raise Unauthorized("Unauthorized")
        return user

    def user_of(self, token: str) -> UserInfo | None:
        """The user ``token`` authenticates, None if it authenticates nobody
        (``TokenReview``'s question)."""
        return self.review(token)[0]

    def review(self, credential: str, audiences: tuple[str, ...] = ()
               ) -> tuple[UserInfo | None, tuple[str, ...], str]:
        """``(user, audiences, error)``: the user ``credential`` is (None if none),
        the audiences it was accepted for, and why not (TokenReview's status).

        ``audiences`` (a TokenReview's ``spec.audiences``) narrows what a
        service-account token must be for; the admin token is audience-free."""
        if hmac.compare_digest(credential.encode(), self._admin):
            return admin_user(), audiences, ""
        if self.issuer is None or credential.count(".") != 2:  # not a JWT
            return None, (), "invalid bearer token"
        try:
            claims = self.issuer.verify(credential)
            accepted = tuple(a for a in audiences if a in claims.audiences) if audiences \
                else tuple(a for a in claims.audiences if a in self.issuer.audiences)
            if audiences and not accepted:
                raise TokenError("token audiences are not accepted by the reviewer")
            user = self._service_account_user(claims)
        except TokenError as exc:
            log.debug("service-account token refused: %s", exc)
            return None, (), f"[invalid bearer token, {exc}]"
        return user, accepted, ""

    def _service_account_user(self, claims: TokenClaims) -> UserInfo:
        """Check that what the token names still exists (claims.go's ``Validate``)."""
        sa = self._get(serviceaccount.INFO.plural, claims.namespace, claims.service_account)
        if sa is None:
            raise TokenError(f"service account {claims.namespace}/{claims.service_account} "
                             f"has been deleted")
        sa_uid = str(sa["metadata"].get("uid", ""))
        if claims.service_account_uid and sa_uid != claims.service_account_uid:
            raise TokenError(f"service account UID ({sa_uid}) does not match claim "
                             f"({claims.service_account_uid})")
        extra: dict[str, list[str]] = {}
        if claims.bound is not None:
            kind, name, uid = claims.bound
            resource = _BINDABLE.get(kind)
            if resource is None:
                raise TokenError(f"token is bound to an unsupported kind {kind}")
            obj = self._get(resource, claims.namespace, name)
            if obj is None:
                raise TokenError(f"{kind.lower()} {claims.namespace}/{name} has been deleted")
            meta = obj["metadata"]
            if str(meta.get("uid", "")) != uid:
                raise TokenError(f"{kind.lower()} UID ({meta.get('uid', '')}) does not match "
                                 f"claim ({uid})")
            deleting = parse_time(meta.get("deletionTimestamp"))
            if deleting is not None and deleting < self._clock() - DELETION_LEEWAY:
                raise TokenError("token has been invalidated")
            if kind == pod.INFO.kind:
                extra[_EXTRA + "pod-name"] = [name]
                extra[_EXTRA + "pod-uid"] = [uid]
        if claims.node is not None:
            extra[_EXTRA + "node-name"] = [claims.node[0]]
            extra[_EXTRA + "node-uid"] = [claims.node[1]]
        if claims.token_id:
            extra[_EXTRA + "credential-id"] = [f"JTI={claims.token_id}"]
        return service_account_user(claims.namespace, claims.service_account, uid=sa_uid,
                                    extra=extra)

    def _get(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            return self._store.get(resource, namespace, name)
        except NotFound:
            return None
