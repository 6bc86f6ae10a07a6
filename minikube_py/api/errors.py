"""Errors as Kubernetes reports them: field errors and API ``Status`` errors.

Two layers, mirroring ``k8s.io/apimachinery/pkg/util/validation/field`` and
``k8s.io/apimachinery/pkg/api/errors``:

* :class:`FieldPath` and :class:`FieldError` describe one problem with one field,
  rendered exactly as Kubernetes renders it, e.g.
  ``spec.containers[0].image: Required value``.
* :class:`StatusError` (and its subclasses, one per canonical reason) is what
  crosses the API. ``to_status()`` gives the ``meta.k8s.io`` ``Status`` object
  that kubectl and the official client understand.

Expected failures are values of these classes, never bare ``ValueError``s, so
every layer can turn them into the same Status with the same HTTP code.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

# --------------------------------------------------------------------------- paths


@dataclass(frozen=True, slots=True)
class FieldPath:
    """An immutable path to a field, e.g. ``spec.containers[0].image``.

    Build it the way Kubernetes does: ``FieldPath.root("spec").child("containers")
    .index(0).child("image")``. ``key()`` renders map keys as ``[key]``.
    """

    parts: tuple[str, ...] = ()

    @classmethod
    def root(cls, *names: str) -> FieldPath:
        return cls(()).child(*names)

    def child(self, *names: str) -> FieldPath:
        parts = self.parts
        if len(names) == 1:
            # The usual call; validation builds a path for nearly every field.
            return FieldPath((*parts, "." + names[0] if parts else names[0]))
        grown = list(parts)
        for name in names:
            grown.append(("." if grown else "") + name)
        return FieldPath(tuple(grown))

    def index(self, i: int) -> FieldPath:
        return FieldPath((*self.parts, f"[{i}]"))

    def key(self, k: str) -> FieldPath:
        return FieldPath((*self.parts, f"[{k}]"))

    def __str__(self) -> str:
        return "".join(self.parts)


# -------------------------------------------------------------------- field errors

#: Field error types: (cause reason used in Status details, rendered prefix).
_FIELD_TYPES: dict[str, tuple[str, str]] = {
    "NotFound": ("FieldValueNotFound", "Not found"),
    "Required": ("FieldValueRequired", "Required value"),
    "Duplicate": ("FieldValueDuplicate", "Duplicate value"),
    "Invalid": ("FieldValueInvalid", "Invalid value"),
    "NotSupported": ("FieldValueNotSupported", "Unsupported value"),
    "Forbidden": ("FieldValueForbidden", "Forbidden"),
    "TooLong": ("FieldValueTooLong", "Too long"),
    "TooMany": ("FieldValueTooMany", "Too many"),
    "TypeInvalid": ("FieldValueTypeInvalid", "Invalid value"),
    "Internal": ("InternalError", "Internal error"),
}


@dataclass(frozen=True, slots=True)
class GoSyntax:
    """A bad value Kubernetes prints with ``%#v`` because it is a typed Go value
    (``[]string{"10.96.0.10"}`` for ``spec.clusterIPs``): its exact text."""

    text: str


def go_string_slice(values: Any) -> GoSyntax:
    """``%#v`` of a ``[]string``: ``[]string{"a", "b"}``."""
    items = values if isinstance(values, list | tuple) else []
    return GoSyntax("[]string{" + ", ".join(json.dumps(str(v)) for v in items) + "}")


def _render_value(value: Any) -> str:
    """Render a bad value the way Kubernetes' ``field.Error`` does.

    Strings are quoted, numbers and booleans are printed bare, composite values
    are shown as JSON so users can recognise what they wrote, except where the
    caller passes Go's own text (:class:`GoSyntax`).
    """
    if isinstance(value, GoSyntax):
        return value.text
    if isinstance(value, str):
        return json.dumps(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


_NO_VALUE: Any = object()


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem with one field.

    ``type`` is one of the keys of Kubernetes' ``field.ErrorType`` names
    (``Required``, ``Invalid``, ``NotSupported``, ``Duplicate``, ``Forbidden``,
    ``TooLong``, ``TooMany``, ``NotFound``, ``TypeInvalid``, ``Internal``).
    """

    type: str
    path: str
    value: Any = _NO_VALUE
    detail: str = ""

    def __post_init__(self) -> None:
        if self.type not in _FIELD_TYPES:
            raise ValueError(f"unknown field error type {self.type!r}")

    @property
    def reason(self) -> str:
        """The ``StatusCause.reason`` Kubernetes uses for this type."""
        return _FIELD_TYPES[self.type][0]

    def body(self) -> str:
        """The message without the field path, e.g. ``Required value``."""
        prefix = _FIELD_TYPES[self.type][1]
        if self.type in ("Required", "Forbidden", "TooLong", "Internal"):
            # Kubernetes omits the value for these types.
            return f"{prefix}: {self.detail}" if self.detail else prefix
        text = prefix
        if self.value is not _NO_VALUE:
            text += f": {_render_value(self.value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        # Go's ``Error()`` is "<field>: <body>" even when the field is empty
        # (a whole-object error such as a ConfigMap's size: ": Too long: ...").
        return f"{self.path}: {self.body()}"

    def cause(self) -> dict[str, str]:
        """A ``StatusCause`` dict for ``Status.details.causes``."""
        return {"reason": self.reason, "message": self.body(), "field": self.path}


def required(path: FieldPath | str, detail: str = "") -> FieldError:
    return FieldError("Required", str(path), detail=detail)


def invalid(path: FieldPath | str, value: Any, detail: str) -> FieldError:
    return FieldError("Invalid", str(path), value, detail)


def type_invalid(path: FieldPath | str, value: Any, detail: str) -> FieldError:
    return FieldError("TypeInvalid", str(path), value, detail)


def not_supported(path: FieldPath | str, value: Any, supported: Iterable[str]) -> FieldError:
    """``field.NotSupported`` listing ``supported`` in the order given.

    Kubernetes does not sort the list itself: call sites pass a sorted set or a
    hand-written order (``Always, OnFailure, Never``) and users see exactly that.
    """
    quoted = ", ".join(json.dumps(s) for s in supported)
    return FieldError("NotSupported", str(path), value, f"supported values: {quoted}")


def not_found(path: FieldPath | str, value: Any) -> FieldError:
    """``field.NotFound``, rendered ``Not found: "value"``."""
    return FieldError("NotFound", str(path), value)


def duplicate(path: FieldPath | str, value: Any) -> FieldError:
    return FieldError("Duplicate", str(path), value)


def forbidden(path: FieldPath | str, detail: str) -> FieldError:
    return FieldError("Forbidden", str(path), detail=detail)


def too_long(path: FieldPath | str, max_length: int) -> FieldError:
    return FieldError("TooLong", str(path), detail=f"may not be more than {max_length} bytes")


def too_many(path: FieldPath | str, actual: int, max_items: int) -> FieldError:
    """``field.TooMany`` as 1.32 renders it: ``Too many: 1001: must have at
    most 1000 items``."""
    return FieldError("TooMany", str(path), actual, f"must have at most {max_items} items")


# ------------------------------------------------------------------ status errors


class StatusError(Exception):
    """An error that crosses the API as a ``Status`` object.

    Subclasses fix ``reason`` and ``code`` to Kubernetes' canonical pairs.
    ``details`` follows ``metav1.StatusDetails`` (name, group, kind, causes,
    retryAfterSeconds) and is present exactly where kube-apiserver's
    constructor for that error sets it (``k8s.io/apimachinery/pkg/api/errors``):
    errors about a resource (NotFound, AlreadyExists, Conflict, Invalid,
    Forbidden, MethodNotAllowed) always carry it, empty (``{}``) when no
    resource is named, as ``NewGenericServerResponse`` leaves it; BadRequest,
    Unauthorized, Expired, Gone, RequestEntityTooLarge, UnsupportedMediaType,
    NotAcceptable and ServiceUnavailable never do. Clients rely on this:
    kubectl reads ``details.name`` of a 404 without checking for nil.
    """

    reason: ClassVar[str] = "InternalError"
    code: ClassVar[int] = 500
    #: Whether a Status of this class carries ``details`` when none are given.
    has_details: ClassVar[bool] = False

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if details is None and self.has_details:
            details = {}
        self.details: dict[str, Any] | None = details

    def to_status(self) -> dict[str, Any]:
        """The ``v1 Status`` object for this error."""
        status: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details is not None:
            # Every StatusDetails / StatusCause field is omitempty in Go.
            details = {k: v for k, v in self.details.items() if v not in ("", None, [], 0)}
            if "causes" in details:
                details["causes"] = [{k: v for k, v in c.items() if v not in ("", None)}
                                     for c in details["causes"]]
            status["details"] = details
        status["code"] = self.code
        return status

    def __str__(self) -> str:
        return self.message


def _resource_details(resource: str, name: str, group: str = "") -> dict[str, Any]:
    details: dict[str, Any] = {"name": name, "kind": resource}
    if group:
        details["group"] = group
    return details


def _qualified(resource: str, group: str) -> str:
    return f"{resource}.{group}" if group else resource


class NotFound(StatusError):
    has_details = True
    reason = "NotFound"
    code = 404

    @classmethod
    def of(cls, resource: str, name: str, *, group: str = "") -> NotFound:
        """``pods "web" not found`` — the resource is the plural, as Kubernetes says."""
        return cls(
            f'{_qualified(resource, group)} "{name}" not found',
            details=_resource_details(resource, name, group),
        )


class AlreadyExists(StatusError):
    has_details = True
    reason = "AlreadyExists"
    code = 409

    @classmethod
    def of(cls, resource: str, name: str, *, group: str = "") -> AlreadyExists:
        return cls(
            f'{_qualified(resource, group)} "{name}" already exists',
            details=_resource_details(resource, name, group),
        )


class Conflict(StatusError):
    has_details = True
    reason = "Conflict"
    code = 409

    @classmethod
    def of(cls, resource: str, name: str, why: str, *, group: str = "") -> Conflict:
        return cls(
            f'Operation cannot be fulfilled on {_qualified(resource, group)} "{name}": {why}',
            details=_resource_details(resource, name, group),
        )


class Invalid(StatusError):
    """422 with one ``cause`` per field error."""

    reason = "Invalid"
    code = 422
    has_details = True

    def __init__(self, message: str, *, details: dict[str, Any] | None = None,
                 errors: Sequence[FieldError] = ()) -> None:
        super().__init__(message, details=details)
        self.errors: tuple[FieldError, ...] = tuple(errors)

    @classmethod
    def of(cls, kind: str, name: str, errors: Sequence[FieldError], *, group: str = "") -> Invalid:
        """``Pod "web" is invalid: spec.containers[0].image: Required value``.

        Several errors are joined inside brackets, as Kubernetes' aggregate does.
        """
        if not errors:
            raise ValueError("Invalid needs at least one field error")
        rendered = [str(e) for e in errors]
        body = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
        qualified = f"{kind}.{group}" if group else kind
        details: dict[str, Any] = {"name": name, "kind": kind,
                                   "causes": [e.cause() for e in errors]}
        if group:
            details["group"] = group
        return cls(f'{qualified} "{name}" is invalid: {body}', details=details, errors=errors)


class BadRequest(StatusError):
    reason = "BadRequest"
    code = 400


class Unauthorized(StatusError):
    reason = "Unauthorized"
    code = 401


class Forbidden(StatusError):
    reason = "Forbidden"
    code = 403
    has_details = True

    @classmethod
    def of(cls, resource: str, name: str, why: str, *, group: str = "") -> Forbidden:
        """``pods "web" is forbidden: why`` (``NewForbidden``); no name: ``pods is
        forbidden: why``."""
        what = _qualified(resource, group)
        subject = f'{what} "{name}"' if name else what
        return cls(f"{subject} is forbidden: {why}",
                   details=_resource_details(resource, name, group))


class MethodNotAllowed(StatusError):
    reason = "MethodNotAllowed"
    code = 405
    has_details = True


class Gone(StatusError):
    reason = "Gone"
    code = 410


class Expired(StatusError):
    """A watch or list asked for a resourceVersion older than the kept history."""

    reason = "Expired"
    code = 410


class RequestEntityTooLarge(StatusError):
    reason = "RequestEntityTooLarge"
    code = 413


class UnsupportedMediaType(StatusError):
    reason = "UnsupportedMediaType"
    code = 415


class TooManyRequests(StatusError):
    reason = "TooManyRequests"
    code = 429

    @classmethod
    def retry_after(cls, message: str, seconds: int) -> TooManyRequests:
        """``NewTooManyRequests``: the client should come back in ``seconds``."""
        return cls(message, details={"retryAfterSeconds": seconds})


class InternalError(StatusError):
    reason = "InternalError"
    code = 500

    @classmethod
    def of(cls, cause: str) -> InternalError:
        """``NewInternalError``: ``Internal error occurred: cause``, with the
        cause in ``details.causes``."""
        return cls(f"Internal error occurred: {cause}", details={"causes": [{"message": cause}]})


class ServiceUnavailable(StatusError):
    reason = "ServiceUnavailable"
    code = 503


@dataclass(slots=True)
class ErrorList:
    """An accumulating list of :class:`FieldError`, like Go's ``field.ErrorList``."""

    errors: list[FieldError] = field(default_factory=list)

    def add(self, *errs: FieldError) -> None:
        self.errors.extend(errs)

    def extend(self, errs: Iterable[FieldError]) -> None:
        self.errors.extend(errs)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def __iter__(self) -> Iterator[FieldError]:
        return iter(self.errors)

    def __len__(self) -> int:
        return len(self.errors)
