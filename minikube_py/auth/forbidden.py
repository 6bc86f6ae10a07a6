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

__all__ = ["forbidden_message", "forbidden_status_message"]

_SANITIZE = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))


def _sanitized(text: str) -> str:
    for raw, escaped in _SANITIZE:
        text = text.replace(raw, escaped)
    return text


def forbidden_message(attrs: Attributes) -> str:
    """``forbiddenMessage``: what the user may not do."""
    user = attrs.user.name
    if not attrs.resource_request:
        return f'User "{user}" cannot {attrs.verb} path "{attrs.path}"'
    resource = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    if attrs.namespace:
        return (f'User "{user}" cannot {attrs.verb} resource "{resource}" in API group '
                f'"{attrs.api_group}" in the namespace "{attrs.namespace}"')
    return (f'User "{user}" cannot {attrs.verb} resource "{resource}" in API group '
            f'"{attrs.api_group}" at the cluster scope')


def forbidden_status_message(attrs: Attributes, reason: str) -> tuple[str, dict[str, Any]]:
    """``(message, details)`` of the Forbidden ``Status``."""
    why = _sanitized(forbidden_message(attrs))
    if reason:
        why = f"{why}: {reason}"
    resource = attrs.resource if attrs.resource_request else ""
    group = attrs.api_group if attrs.resource_request else ""
    if not resource and not group:
        return f"forbidden: {why}", {}
    qualified = f"{resource}.{group}" if group else resource
    details: dict[str, Any] = {"kind": resource}
    if group:
        details["group"] = group
    if attrs.name:
        details["name"] = attrs.name
        return f'{qualified} "{attrs.name}" is forbidden: {why}', details
    return f"{qualified} is forbidden: {why}", details
