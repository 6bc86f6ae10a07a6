"""kubectl's words for objects and errors, shared by every verb and front-end."""

from __future__ import annotations

from ..api import kinds
from ..api.errors import StatusError
from .errors import OpError

__all__ = ["quoted_ref", "resolve_kind", "resource_ref", "server_error"]


def resource_ref(info: kinds.KindInfo, name: str) -> str:
    """``pod/web`` or ``deployment.apps/web``, as kubectl prints them."""
    kind = info.singular + (f".{info.group}" if info.group else "")
    return f"{kind}/{name}"


def quoted_ref(info: kinds.KindInfo, name: str) -> str:
    """``pod "web"`` / ``deployment.apps "web"`` (kubectl's delete/scale wording)."""
    kind = info.singular + (f".{info.group}" if info.group else "")
    return f'{kind} "{name}"'


def server_error(exc: StatusError) -> str:
    """``Error from server (NotFound): pods "x" not found``."""
    return f"Error from server ({exc.reason}): {exc.message}"


def resolve_kind(name: str) -> kinds.KindInfo:
    """A resource as a command line names it (``pods``, ``po``, ``Deployment``,
    ``deploy``); an unknown one is the caller's mistake (:class:`OpError`)."""
    try:
        return kinds.resolve(name)
    except StatusError as exc:
        raise OpError(exc.message) from None
