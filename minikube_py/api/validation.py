"""Validation of every served kind, as the Kubernetes v1.32 API server does it.

Contracts
---------
* :func:`validate` checks an object for *create*; :func:`validate_update`
  checks ``new`` against the stored ``old``. Both expect objects that went
  through :func:`~.schema.decode` and :func:`~.defaults.apply_defaults` (so
  JSON types are right and defaulted fields are present) and return the
  :class:`~.errors.FieldError` list Kubernetes would report, in Kubernetes'
  order, with its paths and messages (``str(err)`` is the rendered line).
* :func:`check_create` / :func:`check_update` raise
  :class:`~.errors.Invalid` (``Pod "web" is invalid: ...``, group-qualified
  for apps kinds) when that list is not empty; repeated identical messages are
  reported once, as Kubernetes' aggregate does.
* Updates need ``metadata.resourceVersion`` on ``new``, as in Kubernetes: for
  an unconditional update, fill it in from ``old`` before calling.
* An object with ``generateName`` and no ``name`` passes name validation when
  the prefix is valid (Kubernetes generates the name before validating; the
  generated name is valid exactly when the prefix is).

Each kind's validation is what its resource declares (``validate`` and
``validate_update``, see :mod:`.resource`): Pod in ``validation_pod``,
Deployment and ReplicaSet in ``validation_apps``, Job in ``validation_batch``,
PriorityClass in ``validation_scheduling``, Service in
``core/service_validation``, Node, Namespace, Event, ConfigMap, Endpoints and
EndpointSlice in their resource modules under ``core/`` and ``discovery/``.
This module dispatches and raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import kinds
from .errors import BadRequest, FieldError, Invalid, NotFound
from .resource import Resource

__all__ = ["check_create", "check_update", "validate", "validate_update"]

# --------------------------------------------------------------- dispatch

def _resource(obj: Mapping[str, Any]) -> Resource:
    kind = obj.get("kind")
    try:
        return kinds.resource(kind if isinstance(kind, str) else "")
    except NotFound:
        raise BadRequest(f'no validation for kind "{kind}"') from None


def validate(obj: Mapping[str, Any]) -> list[FieldError]:
    """The field errors Kubernetes reports when ``obj`` is created."""
    return list(_resource(obj).validate(obj))


def validate_update(new: Mapping[str, Any], old: Mapping[str, Any],
                    subresource: str | None = None) -> list[FieldError]:
    """The field errors Kubernetes reports when ``old`` is replaced by ``new``
    (through ``subresource``, when one validates its own way)."""
    res = _resource(new)
    if old.get("kind") != res.kind:
        raise BadRequest(f'cannot update a {old.get("kind")} with a {res.kind}')
    special = res.validate_subresource_update.get(subresource or "")
    if special is not None:
        return list(special(new, old))
    return list(res.validate_update(new, old))


def _unique(errs: list[FieldError]) -> list[FieldError]:
    seen: set[str] = set()
    out: list[FieldError] = []
    for err in errs:
        text = str(err)
        if text not in seen:
            seen.add(text)
            out.append(err)
    return out


def _raise(obj: Mapping[str, Any], errs: list[FieldError]) -> None:
    if not errs:
        return
    info = _resource(obj).info
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else ""
    raise Invalid.of(info.kind, str(name or ""), _unique(errs), group=info.group)


def check_create(obj: Mapping[str, Any]) -> None:
    """Raise :class:`~.errors.Invalid` when :func:`validate` finds errors."""
    _raise(obj, validate(obj))


def check_update(new: Mapping[str, Any], old: Mapping[str, Any],
                 subresource: str | None = None) -> None:
    """Raise :class:`~.errors.Invalid` when :func:`validate_update` finds errors."""
    _raise(new, validate_update(new, old, subresource))
