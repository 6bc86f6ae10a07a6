"""What a request asks for, in authorization's terms (kube-apiserver 1.32's
``RequestInfoFactory.NewRequestInfo``,
staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go, with the
API prefixes ``api`` and ``apis`` and ``api`` the groupless one).

A *resource request* is a path ``/api/{version}/...`` or
``/apis/{group}/{version}/...`` with at least one segment after the version;
everything else (``/``, ``/api``, ``/apis/apps/v1``, ``/openapi/v2``,
``/healthz``) is a *non-resource request* whose verb is the lower-case HTTP
method.

For resource requests:

* the verb comes from the method (POST create, GET/HEAD get, PUT update,
  PATCH patch, DELETE delete, anything else ``""``), or from a leading
  ``watch``/``proxy`` segment (the deprecated ``/api/v1/watch/...`` form);
* ``namespaces/{ns}/...`` sets the namespace; ``namespaces/{name}``,
  ``namespaces/{name}/status`` and ``namespaces/{name}/finalize`` address
  the namespace object itself (resource ``namespaces``, name ``{name}``);
* what follows is ``{resource}/{name}/{subresource}/...`` (``proxy`` has no
  subresource: the rest is the proxied path);
* a GET without a name is a ``list``, or a ``watch`` unless the ``watch``
  parameter is ``0``/``false`` (any other value, even empty, means true, as
  ``Convert_Slice_string_To_bool``); it takes its name from a
  ``metadata.name=X`` field selector (kubectl's ``get NAME --watch``), unless
  the list options do not decode (a bad selector, a ``limit`` or
  ``timeoutSeconds`` that is no int64), which also leaves the verb to the
  ``watch`` parameter alone;
* a DELETE without a name is a ``deletecollection``;
* ``list``/``watch``/``deletecollection`` not reached through the path
  prefix keep the raw ``fieldSelector``/``labelSelector`` (the
  ``AuthorizeWithSelectors`` feature, on by default in 1.32).

``/api/v1/watch`` (a special verb and nothing after it) is the one error:
:class:`RequestInfoError`, a 500 as kube-apiserver answers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode

from ..api.errors import BadRequest, InternalError
from ..api.fields import parse_field_selector
from ..api.labels import parse_selector

__all__ = ["RequestInfo", "RequestInfoError", "request_info"]

_PREFIXES: Final = frozenset({"api", "apis"})
_GROUPLESS: Final = frozenset({"api"})
_SPECIAL_VERBS: Final = frozenset({"proxy", "watch"})
_NO_SUBRESOURCE_VERBS: Final = frozenset({"proxy"})
_NAMESPACE_SUBRESOURCES: Final = frozenset({"status", "finalize"})
_VERBS_WITH_SELECTORS: Final = frozenset({"list", "watch", "deletecollection"})
_METHOD_VERBS: Final = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update",
                        "PATCH": "patch", "DELETE": "delete"}
_INT64: Final = (-(1 << 63), (1 << 63) - 1)


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """``request.RequestInfo``. ``parts`` starts at ``{resource}`` (after
    the namespace prefix), as Kubernetes' ``Parts``."""

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
    field_selector: str = ""
    label_selector: str = ""


class RequestInfoError(InternalError):
    """A path kube-apiserver cannot make a :class:`RequestInfo` of (its
    ``WithRequestInfo`` filter answers 500)."""


def _split_path(path: str) -> list[str]:
    # splitPath: empty segments inside the path are kept ("/api//v1" has three).
    trimmed = path.strip("/")
    return trimmed.split("/") if trimmed else []


def _watch(value: str) -> bool:
    # Convert_Slice_string_To_bool: only "0" and "false" (any case) are false.
    return value != "0" and value.lower() != "false"


def _is_int64(text: str) -> bool:
    # strconv.ParseInt(text, 10, 64): optional sign, ASCII digits, in range.
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return False
    return _INT64[0] <= int(text) <= _INT64[1]


def _list_options(query: Mapping[str, str]) -> tuple[bool, str] | None:
    """``(watch, exact metadata.name)`` of the decoded ListOptions, None when
    ``DecodeParameters`` fails."""
    for key in ("limit", "timeoutSeconds"):
        if key in query and not _is_int64(query[key]):
            return None
    try:
        parse_selector(query.get("labelSelector", ""))
        selector = parse_field_selector(query.get("fieldSelector", ""))
    except BadRequest:
        return None
    name = ""
    # fields.Selector.RequiresExactMatch: the first "=" / "==" term on the
    # field, in the parser's (sorted) order; "!=" never pins a name.
    for requirement in selector.requirements:
        if requirement.field == "metadata.name" and requirement.operator != "!=":
            name = requirement.value
            break
    return "watch" in query and _watch(query["watch"]), name


def _valid_path_segment(name: str) -> bool:
    # path.IsValidPathSegmentName.
    return name not in (".", "..") and "/" not in name and "%" not in name


def request_info(method: str, path: str, query: Mapping[str, str]) -> RequestInfo:
    """The :class:`RequestInfo` of a request (module contract). ``query``
    holds each query parameter's first value; raises
    :class:`RequestInfoError` for a special verb with nothing after it."""
    non_resource = RequestInfo(False, path, method.lower())
    parts = _split_path(path)
    if len(parts) < 3 or parts[0] not in _PREFIXES:
        return non_resource
    prefix, parts = parts[0], parts[1:]
    group = ""
    if prefix not in _GROUPLESS:
        if len(parts) < 3:
            return non_resource
        group, parts = parts[0], parts[1:]
    version, parts = parts[0], parts[1:]
    verb_via_path = parts[0] in _SPECIAL_VERBS
    if verb_via_path:
        if len(parts) < 2:
            url = path + ("?" + urlencode(query) if query else "")
            raise RequestInfoError(
                f"failed to create RequestInfo: unable to determine kind and namespace "
                f"from url, {url}")
        verb, parts = parts[0], parts[1:]
    else:
        verb = _METHOD_VERBS.get(method, "")
    namespace = ""
    if parts[0] == "namespaces" and len(parts) > 1:
        namespace = parts[1]
        # A step after the namespace name that is no namespace subresource
        # is a namespaced resource: parts become relative to it.
        if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    resource = name = subresource = ""
    if len(parts) >= 3 and verb not in _NO_SUBRESOURCE_VERBS:
        subresource = parts[2]
    if len(parts) >= 2:
        name = parts[1]
    resource = parts[0]
    if not name and verb == "get":
        options = _list_options(query)
        if options is None:
            # DecodeParameters failed: the verb from "watch" alone, no name.
            options = ("watch" in query and _watch(query["watch"]), "")
        verb = "watch" if options[0] else "list"
        if options[1] and _valid_path_segment(options[1]):
            name = options[1]
    if not name and verb == "delete":
        verb = "deletecollection"
    field_selector = label_selector = ""
    if not verb_via_path and verb in _VERBS_WITH_SELECTORS:
        field_selector = query.get("fieldSelector", "")
        label_selector = query.get("labelSelector", "")
    return RequestInfo(True, path, verb, prefix, group, version, namespace, resource,
                       subresource, name, tuple(parts), field_selector, label_selector)
