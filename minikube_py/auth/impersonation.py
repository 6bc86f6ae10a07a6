"""Acting as another user: the ``Impersonate-*`` headers (kubectl ``--as``,
``--as-group``, ``--as-uid``), as kube-apiserver 1.32's impersonation filter
(staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go) does.

Each identity asked for is authorized for the *requesting* user with the
verb ``impersonate``, in this order:

* ``Impersonate-User: system:serviceaccount:<ns>:<name>`` — resource
  ``serviceaccounts`` (group ``""``) named ``name`` in ``ns``; the user then
  also gets the service-account groups unless groups are impersonated too;
* any other ``Impersonate-User`` (the first such header) — ``users`` named
  so, cluster scope;
* each ``Impersonate-Group`` — ``groups``;
* each ``Impersonate-Extra-<key>`` value — ``userextras/<key>`` (group
  ``authentication.k8s.io``, version ``v1``); the key is lower-cased, then
  percent-decoded (kept as sent when that fails, like ``url.PathUnescape``);
* ``Impersonate-Uid`` — ``uids`` (group ``authentication.k8s.io``).

The first one refused is the 403 (Kubernetes' Forbidden for that
impersonation, e.g. ``users "jane" is forbidden: User "bob" cannot
impersonate resource "users" in API group "" at the cluster scope``).
Groups, extras or a uid without a user: :class:`BadRequest` with
kube-apiserver's words (``requested [{Group  a    }] without impersonating
a user``; kube-apiserver itself answers that one with a plain-text 500).

The new user is in ``system:authenticated`` unless that or
``system:unauthenticated`` is among its groups; ``system:anonymous`` gets
``system:unauthenticated`` instead (unless already there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
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
_HEX = frozenset("0123456789abcdefABCDEF")

Headers = Mapping[str, str] | Iterable[tuple[str, str]]


def wants_impersonation(headers: Headers) -> bool:
    """Whether any header asks to impersonate."""
    return any(name.lower().startswith("impersonate-") for name, _ in _pairs(headers))


def _pairs(headers: Headers) -> list[tuple[str, str]]:
    items = headers.items() if isinstance(headers, Mapping) else headers
    return [(str(n).lower(), str(v)) for n, v in items]


def _path_unescape(key: str) -> str:
    """``unescapeExtraKey``: ``url.PathUnescape``, or the key as sent when a
    ``%`` is not followed by two hex digits."""
    i = key.find("%")
    while i != -1:
        if len(key) < i + 3 or key[i + 1] not in _HEX or key[i + 2] not in _HEX:
            return key
        i = key.find("%", i + 3)
    return unquote(key, errors="surrogateescape")


def _go_reference(kind: str, name: str, *, namespace: str = "", api_version: str = "",
                  field_path: str = "") -> str:
    # %v of a v1.ObjectReference: {Kind Namespace Name UID APIVersion
    # ResourceVersion FieldPath}, fields joined by one space.
    return "{" + " ".join((kind, namespace, name, "", api_version, "", field_path)) + "}"


def impersonate(requester: UserInfo, headers: Headers,
                authorize: Callable[[Attributes], Decision]) -> UserInfo:
    """The user the request acts as (module contract): ``requester`` itself
    when no identity is asked for. ``headers`` is a mapping (one value a
    name) or every header as ``(name, value)`` pairs, repeated ones included;
    names in any case. Raises :class:`Forbidden` / :class:`BadRequest`."""
    pairs = _pairs(headers)
    requested_user = next((v for n, v in pairs if n == _USER), "")
    groups_asked = [v for n, v in pairs if n == _GROUP]
    extras = [(_path_unescape(n[len(_EXTRA):]), v) for n, v in pairs if n.startswith(_EXTRA)]
    uid = next((v for n, v in pairs if n == _UID), "")
    if not requested_user:
        if groups_asked or extras or uid:
            refs = [_go_reference("Group", g) for g in groups_asked]
            refs += [_go_reference("UserExtra", v, api_version=f"{_AUTHN}/v1", field_path=k)
                     for k, v in extras]
            if uid:
                refs.append(_go_reference("UID", uid, api_version=f"{_AUTHN}/v1"))
            raise BadRequest(f"requested [{' '.join(refs)}] without impersonating a user")
        return requester

    def check(attrs: Attributes) -> None:
        decision = authorize(attrs)
        if not decision.allowed:
            message, details = forbidden_status_message(attrs, decision.reason)
            raise Forbidden(message, details=details)

    groups: list[str] = []
    sa = split_service_account_username(requested_user)
    if sa is not None:
        # The ObjectReferences of users, groups and service accounts carry
        # no apiVersion, so their attributes have neither group nor version.
        check(Attributes(requester, "impersonate", True, namespace=sa[0],
                         resource="serviceaccounts", name=sa[1]))
        username = service_account_username(*sa)
        if not groups_asked:
            groups = list(service_account_groups(sa[0]))
    else:
        check(Attributes(requester, "impersonate", True, resource="users",
                         name=requested_user))
        username = requested_user
    for group in groups_asked:
        check(Attributes(requester, "impersonate", True, resource="groups", name=group))
        groups.append(group)
    extra: dict[str, list[str]] = {}
    for key, value in extras:
        check(Attributes(requester, "impersonate", True, api_group=_AUTHN, api_version="v1",
                         resource="userextras", subresource=key, name=value))
        extra.setdefault(key, []).append(value)
    if uid:
        check(Attributes(requester, "impersonate", True, api_group=_AUTHN, api_version="v1",
                         resource="uids", name=uid))
    if username != ANONYMOUS:
        if ALL_AUTHENTICATED not in groups and ALL_UNAUTHENTICATED not in groups:
            groups.append(ALL_AUTHENTICATED)
    elif ALL_UNAUTHENTICATED not in groups:
        groups.append(ALL_UNAUTHENTICATED)
    return UserInfo(username, tuple(groups), uid, {k: tuple(v) for k, v in extra.items()})
