"""What a request asks for, in authorization's terms (kube-apiserver's
``RequestInfoFactory.NewRequestInfo``,
staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go).

A *resource request* is a path ``/api/{version}/...`` or
``/apis/{group}/{version}/...`` with at least one segment after the version;
everything else (``/api``, ``/apis/apps/v1``, ``/openapi/v2``, ``/healthz``)
is a *non-resource request* whose verb is the lower-case HTTP method.

For resource requests:

* the verb comes from the method (POST create, GET/HEAD get, PUT update,
  PATCH patch, DELETE delete), or from a leading ``watch``/``proxy`` path
  segment (the deprecated ``/api/v1/watch/...`` form);
* ``namespaces/{ns}/{resource}/...`` sets the namespace; a path
  ``namespaces/{name}[/status|/finalize]`` addresses the namespace object;
* what follows is ``{resource}/{name}/{subresource}`` (no subresource for
  ``proxy``);
* a GET without a name is a ``list``, or a ``watch`` with ``watch=true``,
  and takes its name from a ``metadata.name=`` field selector (kubectl's
  ``get NAME --watch``); a DELETE without a name is a ``deletecollection``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

__all__ = ["RequestInfo", "request_info"]

_PREFIXES: Final = frozenset({"api", "apis"})
_GROUPLESS: Final = frozenset({"api"})
_SPECIAL_VERBS: Final = frozenset({"proxy", "watch"})
_NO_SUBRESOURCE_VERBS: Final = frozenset({"proxy"})
_NAMESPACE_SUBRESOURCES: Final = frozenset({"status", "finalize"})
_METHOD_VERBS: Final = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update",
                        "PATCH": "patch", "DELETE": "delete"}


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """``request.RequestInfo``."""

    is_resource_request: bool
    path: str
    verb: str
    api_prefix: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    parts: tuple[str, ...] = ()


def _true(value: str | None) -> bool:
    # ListOptions' ``watch`` is a bool query parameter: Go's strconv.ParseBool.
    return (value or "").lower() in ("1", "t", "true")


def _exact_name(field_selector: str) -> str:
    """The name a ``metadata.name=X`` / ``metadata.name==X`` requirement pins, if any."""
    for term in field_selector.split(","):
        key, op, value = term.partition("==") if "==" in term else term.partition("=")
        if op and not key.endswith("!") and key.strip() == "metadata.name":
            value = value.strip()
            # path.IsValidPathSegmentName: no "/" or "%", not "." or "..".
            if value and "/" not in value and "%" not in value and value not in (".", ".."):
                return value
    return ""


def request_info(method: str, path: str, query: Mapping[str, str]) -> RequestInfo:
    """The :class:`RequestInfo` of a request (module contract)."""
    non_resource = RequestInfo(False, path, method.lower())
    parts = [p for p in path.strip("/").split("/") if p] if path.strip("/") else []
    if len(parts) < 3 or parts[0] not in _PREFIXES:
        return non_resource
    prefix, parts = parts[0], parts[1:]
    group = ""
    if prefix not in _GROUPLESS:
        if len(parts) < 3:
            return non_resource
        group, parts = parts[0], parts[1:]
    version, parts = parts[0], parts[1:]
    if parts and parts[0] in _SPECIAL_VERBS:
        if len(parts) < 2:
            return non_resource
        verb, parts = parts[0], parts[1:]
    else:
        verb = _METHOD_VERBS.get(method.upper(), "")
    namespace = ""
    if parts and parts[0] == "namespaces" and len(parts) > 1:
        namespace = parts[1]
        if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    resource = name = subresource = ""
    if len(parts) >= 3 and verb not in _NO_SUBRESOURCE_VERBS:
        subresource = parts[2]
    if len(parts) >= 2:
        name = parts[1]
    if len(parts) >= 1:
        resource = parts[0]
    if not name and verb == "get":
        verb = "watch" if _true(query.get("watch")) else "list"
        name = _exact_name(query.get("fieldSelector", ""))
    if not name and verb == "delete":
        verb = "deletecollection"
    return RequestInfo(True, path, verb, prefix, group, version, namespace, resource,
                       subresource, name, tuple(parts))
