"""Who is asking: the authenticated user an authorizer decides for.

:class:`UserInfo` is ``k8s.io/apiserver/pkg/authentication/user.DefaultInfo``:
a name, groups, a uid and extra values. The well-known names and groups are
Kubernetes' own (``user.go``, ``serviceaccount/util.go``), because RBAC
bindings and the bootstrap policy name them:

* a service account authenticates as ``system:serviceaccount:<ns>:<name>``
  in the groups ``system:serviceaccounts`` and ``system:serviceaccounts:<ns>``
  (:func:`service_account_user`), plus ``system:authenticated``;
* the daemon's admin credential is a member of ``system:masters``, the group
  kube-apiserver lets do anything before any authorizer is asked
  (:func:`admin_user`);
* a request without credentials is ``system:anonymous`` in
  ``system:unauthenticated`` (:func:`anonymous_user`).

Every authenticated user gets ``system:authenticated`` the way
kube-apiserver's ``AuthenticatedGroupAdder`` adds it
(:func:`with_authenticated_group`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "ADMIN_USERNAME",
    "ALL_AUTHENTICATED",
    "ALL_SERVICE_ACCOUNTS",
    "ALL_UNAUTHENTICATED",
    "ANONYMOUS",
    "MONITORING_GROUP",
    "SERVICE_ACCOUNT_PREFIX",
    "SYSTEM_MASTERS",
    "UserInfo",
    "admin_user",
    "anonymous_user",
    "service_account_groups",
    "service_account_user",
    "service_account_username",
    "split_service_account_username",
    "with_authenticated_group",
]

#: ``user.SystemPrivilegedGroup``: allowed everything, whatever RBAC says.
SYSTEM_MASTERS: Final = "system:masters"
#: ``user.AllAuthenticated``.
ALL_AUTHENTICATED: Final = "system:authenticated"
#: ``user.AllUnauthenticated``.
ALL_UNAUTHENTICATED: Final = "system:unauthenticated"
#: ``user.Anonymous``.
ANONYMOUS: Final = "system:anonymous"
#: ``user.MonitoringGroup`` (bound to ``system:monitoring``).
MONITORING_GROUP: Final = "system:monitoring"
#: ``serviceaccount.ServiceAccountUsernamePrefix``.
SERVICE_ACCOUNT_PREFIX: Final = "system:serviceaccount:"
#: ``serviceaccount.AllServiceAccountsGroup``.
ALL_SERVICE_ACCOUNTS: Final = "system:serviceaccounts"
_SA_GROUP_PREFIX: Final = "system:serviceaccounts:"
#: The user name of the daemon's admin credential (kubeconfig).
ADMIN_USERNAME: Final = "minikube-py-admin"


@dataclass(frozen=True, slots=True)
class UserInfo:
    """``user.Info``: immutable, so one value can be shared between requests.

    ``groups`` keeps its order (reasons and reviews print it as given);
    ``extra`` maps a key to its values (``authentication.kubernetes.io/
    pod-name`` and the like for bound service-account tokens).
    """

    name: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Accept any iterable of groups but keep the value hashable-ish and
        # immune to the caller mutating its list afterwards.
        object.__setattr__(self, "groups", tuple(self.groups))
        object.__setattr__(self, "extra", {k: tuple(v) for k, v in self.extra.items()})


def service_account_username(namespace: str, name: str) -> str:
    """``serviceaccount.MakeUsername``: ``system:serviceaccount:<ns>:<name>``."""
    return f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"


def split_service_account_username(username: str) -> tuple[str, str] | None:
    """``serviceaccount.SplitUsername``: ``(namespace, name)`` of a
    service-account user name, ``None`` for any other name (also for a
    malformed one: a missing part, or a ``:`` inside the name)."""
    if not username.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    parts = username[len(SERVICE_ACCOUNT_PREFIX):].split(":")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return parts[0], parts[1]


def service_account_groups(namespace: str) -> tuple[str, str]:
    """``serviceaccount.MakeGroupNames``: every service account's group and
    its namespace's."""
    return ALL_SERVICE_ACCOUNTS, f"{_SA_GROUP_PREFIX}{namespace}"


def service_account_user(namespace: str, name: str, *, uid: str = "",
                         extra: Mapping[str, Iterable[str]] | None = None) -> UserInfo:
    """The user a service-account token authenticates as, once the
    authenticated group was added: groups ``system:serviceaccounts``,
    ``system:serviceaccounts:<ns>``, ``system:authenticated``."""
    return UserInfo(service_account_username(namespace, name),
                    (*service_account_groups(namespace), ALL_AUTHENTICATED),
                    uid, {k: tuple(v) for k, v in (extra or {}).items()})


def admin_user() -> UserInfo:
    """The daemon's own admin credential: a member of ``system:masters``, as
    minikube's and kubeadm's admin certificates are."""
    return UserInfo(ADMIN_USERNAME, (SYSTEM_MASTERS, ALL_AUTHENTICATED))


def anonymous_user() -> UserInfo:
    """``system:anonymous`` (kube-apiserver's anonymous authenticator)."""
    return UserInfo(ANONYMOUS, (ALL_UNAUTHENTICATED,))


def with_authenticated_group(user: UserInfo) -> UserInfo:
    """``AuthenticatedGroupAdder``: ``system:authenticated`` appended, unless
    the user is ``system:anonymous`` or already in ``system:authenticated``
    or ``system:unauthenticated``."""
    if user.name == ANONYMOUS:
        return user
    if ALL_AUTHENTICATED in user.groups or ALL_UNAUTHENTICATED in user.groups:
        return user
    return UserInfo(user.name, (*user.groups, ALL_AUTHENTICATED), user.uid, user.extra)
