"""The 403 a denied request gets, in kube-apiserver's words
(``responsewriters.Forbidden`` / ``forbiddenMessage`` and
``apierrors.NewForbidden``)::

    pods is forbidden: User "system:serviceaccount:default:bot" cannot list
    resource "pods" in API group "" in the namespace "default"
    secrets "db" is forbidden: User "u" cannot get resource "secrets" in API
    group "" at the cluster scope
    forbidden: User "u" cannot get path "/metrics"

followed by ``: <reason>`` when the authorizer gave one. ``&``, ``<`` and
``>`` are HTML-escaped, as Kubernetes' sanitizer does.
"""

from __future__ import annotations

from typing import Any

from .attributes import Attributes

__all__ = ["forbidden_message", "forbidden_status_message", "go_quote"]

# responsewriters' sanitizer: nothing in the message may look like HTML.
_SANITIZE = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
               "\t": "\\t", "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``): double quotes, ``\\`` and
    ``\\"`` escaped, control and other non-printable characters as ``\\n``,
    ``\\x1b``, ``\\u00a0``..., printable Unicode as it is."""
    out = ['"']
    for ch in text:
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():
            # unicode.IsPrint and str.isprintable agree: letters, marks,
            # numbers, punctuation, symbols and the ASCII space.
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _sanitized(text: str) -> str:
    for raw, escaped in _SANITIZE:
        text = text.replace(raw, escaped)
    return text


def forbidden_message(attrs: Attributes) -> str:
    """``forbiddenMessage``: what the user may not do, without the reason."""
    user = go_quote(attrs.user.name)
    if not attrs.resource_request:
        return f"User {user} cannot {attrs.verb} path {go_quote(attrs.path)}"
    resource = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    head = (f"User {user} cannot {attrs.verb} resource {go_quote(resource)} in API group "
            f"{go_quote(attrs.api_group)}")
    if attrs.namespace:
        return f"{head} in the namespace {go_quote(attrs.namespace)}"
    return f"{head} at the cluster scope"


def forbidden_status_message(attrs: Attributes, reason: str) -> tuple[str, dict[str, Any]]:
    """``(message, details)`` of the Forbidden ``Status``
    (``ForbiddenStatusError``): the sanitized :func:`forbidden_message`, then
    ``: reason`` (not sanitized) when there is one, wrapped by
    ``NewForbidden(GroupResource{group, resource}, name, err)``:
    ``<resource>[.<group>] ["<name>" ]is forbidden: ...``, or
    ``forbidden: ...`` when group and resource are both empty (non-resource
    requests). ``details`` holds ``group``, ``kind`` (the resource) and
    ``name``, each only when non-empty (``omitempty``)."""
    why = _sanitized(forbidden_message(attrs))
    if reason:
        why = f"{why}: {reason}"
    resource, group, name = attrs.resource, attrs.api_group, attrs.name
    details: dict[str, Any] = {}
    if group:
        details["group"] = group
    if resource:
        details["kind"] = resource
    if name:
        details["name"] = name
    if not resource and not group:
        return f"forbidden: {why}", details
    qualified = f"{resource}.{group}" if group else resource
    if name:
        return f"{qualified} {go_quote(name)} is forbidden: {why}", details
    return f"{qualified} is forbidden: {why}", details
