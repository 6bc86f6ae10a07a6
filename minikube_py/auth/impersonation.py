"""Acting as another user: the ``Impersonate-*`` headers (kubectl ``--as``,
``--as-group``, ``--as-uid``), as kube-apiserver's impersonation filter
(staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go) does.

Each identity asked for is authorized for the *requesting* user with the
verb ``impersonate``:

* ``Impersonate-User: system:serviceaccount:<ns>:<name>`` — resource
  ``serviceaccounts`` (group ``""``) named ``name`` in ``ns``; the user then
  also gets the service-account groups unless groups are impersonated too;
* any other ``Impersonate-User`` — ``users`` named so, cluster scope;
* each ``Impersonate-Group`` — ``groups``;
* each ``Impersonate-Extra-<key>`` value — ``userextras/<key>`` (group
  ``authentication.k8s.io``); the key is percent-decoded;
* ``Impersonate-Uid`` — ``uids`` (group ``authentication.k8s.io``).

The first one refused is the 403 (Kubernetes' Forbidden for that
impersonation). Groups, extras or a uid without a user are a 400. The new
user is in ``system:authenticated`` unless ``system:authenticated`` or
``system:unauthenticated`` was among the groups asked for (``system:anonymous``
gets ``system:unauthenticated`` likewise).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from urllib.parse import unquote

from ..api.errors import BadRequest, Forbidden
from .attributes import Attributes
from .forbidden import forbidden_status_message
from .rbac import Decision
from .user import (
    ALL_AUTHENTICATED,
    ALL_UNAUTHENTICATED,
    ANONYMOUS,
    UserInfo,
    service_account_groups,
    service_account_username,
    split_service_account_username,
)

__all__ = ["impersonate", "wants_impersonation"]

_USER = "impersonate-user"
_GROUP = "impersonate-group"
_UID = "impersonate-uid"
_EXTRA = "impersonate-extra-"
_AUTHN = "authentication.k8s.io"


def wants_impersonation(headers: Iterable[tuple[str, str]]) -> bool:
    """Whether any header asks to impersonate."""
    return any(name.lower().startswith("impersonate-") for name, _ in headers)


def impersonate(requester: UserInfo, headers: Iterable[tuple[str, str]],
                authorize: Callable[[Attributes], Decision]) -> UserInfo:
    """The user the request acts as (module contract). ``headers`` are every
    header of the request, repeated ones included, names in any case."""
    pairs = [(n.lower(), v) for n, v in headers]
    requested_user = next((v for n, v in pairs if n == _USER), "")
    groups_asked = [v for n, v in pairs if n == _GROUP]
    extras = [(unquote(n[len(_EXTRA):]), v) for n, v in pairs if n.startswith(_EXTRA)]
    uid = next((v for n, v in pairs if n == _UID), "")
    if not requested_user:
        if groups_asked or extras or uid:
            raise BadRequest("requested impersonation of groups, extra values or a uid "
                             "without impersonating a user")
        return requester

    def check(attrs: Attributes) -> None:
        decision = authorize(attrs)
        if not decision.allowed:
            message, details = forbidden_status_message(attrs, decision.reason)
            raise Forbidden(message, details=details)

    groups: list[str] = []
    sa = split_service_account_username(requested_user)
    if sa is not None:
        check(Attributes(requester, "impersonate", True, namespace=sa[0], api_version="v1",
                         resource="serviceaccounts", name=sa[1]))
        username = service_account_username(*sa)
        if not groups_asked:
            groups = list(service_account_groups(sa[0]))
    else:
        check(Attributes(requester, "impersonate", True, api_version="v1", resource="users",
                         name=requested_user))
        username = requested_user
    for group in groups_asked:
        check(Attributes(requester, "impersonate", True, api_version="v1", resource="groups",
                         name=group))
        groups.append(group)
    extra: dict[str, list[str]] = {}
    for key, value in extras:
        check(Attributes(requester, "impersonate", True, api_group=_AUTHN, api_version="v1",
                         resource="userextras", subresource=key, name=value))
        extra.setdefault(key, []).append(value)
    if uid:
        check(Attributes(requester, "impersonate", True, api_group=_AUTHN, api_version="v1",
                         resource="uids", name=uid))
    marker = ALL_UNAUTHENTICATED if username == ANONYMOUS else ALL_AUTHENTICATED
    if not any(g in (ALL_AUTHENTICATED, ALL_UNAUTHENTICATED) for g in groups):
        groups.append(marker)
    return UserInfo(username, tuple(groups), uid, {k: tuple(v) for k, v in extra.items()})
