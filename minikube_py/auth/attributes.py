"""``authorizer.Attributes``: one question for an authorizer — may this user
do this verb to this resource (or path)?"""

from __future__ import annotations

from dataclasses import dataclass

from .requestinfo import RequestInfo
from .user import UserInfo

__all__ = ["Attributes", "attributes_for"]


@dataclass(frozen=True, slots=True)
class Attributes:
    """``authorizer.AttributesRecord``. ``path`` and the verb alone describe a
    non-resource request (``resource_request`` false)."""

    user: UserInfo
    verb: str
    resource_request: bool
    namespace: str = ""
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    path: str = ""


def attributes_for(user: UserInfo, info: RequestInfo) -> Attributes:
    """``GetAuthorizerAttributes``: the question a request asks."""
    if not info.is_resource_request:
        return Attributes(user, info.verb, False, path=info.path)
    return Attributes(user, info.verb, True, info.namespace, info.api_group, info.api_version,
                      info.resource, info.subresource, info.name, info.path)
