"""Field selectors: Kubernetes' ``fieldSelector`` syntax, matching and the
per-kind list of selectable fields.

Contracts:

* :func:`parse_field_selector` accepts what ``fields.ParseSelector`` accepts:
  comma-separated ``field=value``, ``field==value`` or ``field!=value`` terms.
  In values, ``\\,``, ``\\=`` and ``\\\\`` are escapes for a literal comma,
  equals sign and backslash; any other escape, a lone trailing backslash or an
  unescaped ``,``/``=`` in a value is an error. Errors are
  :class:`~.errors.BadRequest` with Kubernetes' wording, e.g.
  ``invalid selector: 'x'; can't understand 'x'``. Terms are sorted by their
  text, as Kubernetes sorts them, so ``str()`` is deterministic.
* :meth:`FieldSelector.matches` compares against the string Kubernetes would
  put in the object's field set: the value at the dotted path, ``""`` when
  missing, ``true``/``false`` for booleans, decimal for integers. Two fields
  are derived, not read, where the kind's resource says so (its
  ``field_value`` hook): an Event's ``source`` is ``source.component``
  (falling back to ``reportingComponent``), a Pod's ``status.podIP`` falls
  back to the first ``status.podIPs`` entry, and a Job's
  ``status.successful`` is its ``status.succeeded`` (``0`` when unset).
* :func:`check_supported` rejects fields the kind does not index, with
  Kubernetes' ``field label not supported: <field>``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from . import kinds
from .errors import BadRequest
from .kinds import KindInfo

__all__ = [
    "FieldRequirement",
    "FieldSelector",
    "check_supported",
    "escape_value",
    "field_extractor",
    "field_value",
    "parse_field_selector",
]

#: Fields every kind supports, beyond ``KindInfo.field_labels``.
COMMON_FIELDS: frozenset[str] = frozenset({"metadata.name", "metadata.namespace"})

# Checked in this order at each position, so "==" wins over "=" and no stray
# "=" is left at the start of the value.
_TERM_OPERATORS = ("!=", "==", "=")


def escape_value(value: str) -> str:
    """Escape a literal value for use in a field selector (``fields.EscapeValue``)."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


@dataclass(frozen=True)
class FieldRequirement:
    """One ``field <op> value`` term; ``=`` and ``==`` mean the same."""

    field: str
    operator: str
    value: str
    _path: tuple[str, ...] = dc_field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.operator not in _TERM_OPERATORS:
            raise ValueError(f"unsupported field selector operator {self.operator!r}")
        # Split once here rather than on every object matched.
        object.__setattr__(self, "_path", tuple(self.field.split(".")))

    def matches(self, obj: Mapping[str, Any]) -> bool:
        actual = _field_value(obj, self.field, self._path)
        return actual != self.value if self.operator == "!=" else actual == self.value

    def __str__(self) -> str:
        # Kubernetes prints "==" terms back as "=".
        symbol = "!=" if self.operator == "!=" else "="
        return f"{self.field}{symbol}{escape_value(self.value)}"


@dataclass(frozen=True)
class FieldSelector:
    """An AND of field requirements; no requirements selects everything."""

    requirements: tuple[FieldRequirement, ...] = ()

    def matches(self, obj: Mapping[str, Any]) -> bool:
        # A plain loop: no generator object per call on the list/watch hot path.
        for requirement in self.requirements:  # noqa: SIM110
            if not requirement.matches(obj):
                return False
        return True

    def empty(self) -> bool:
        return not self.requirements

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


# ------------------------------------------------------------------ values


def _stringify(value: object) -> str:
    # The string forms Kubernetes' field-set builders produce.
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    # Objects and lists are never selectable; nothing can equal them.
    return ""


def _walk(obj: Mapping[str, Any], path: tuple[str, ...]) -> object:
    current: object = obj
    for part in path:
        # A plain dict (nearly always) needs no Mapping ABC check.
        if type(current) is not dict and not isinstance(current, Mapping):
            return None
        current = current.get(part)
    return current


def field_value(obj: Mapping[str, Any], name: str, kind: str | None = None) -> str:
    """The string a selector on ``name`` compares for ``obj`` (see the module
    contract); ``kind`` is the object's kind when it may lack ``kind``.

    The store precomputes these per object so list and watch filtering need no
    walk of the object.
    """
    return _field_value(obj, name, tuple(name.split(".")), kind)


def field_extractor(kind: str,
                    labels: tuple[str, ...]) -> Callable[[Mapping[str, Any]], list[str]]:
    """A function giving ``[field_value(obj, label, kind) for label in labels]``
    for an object of ``kind``, with each label's path split and the kind's
    derivation hook looked up once, not per object (the store computes every
    label of every object it writes: eleven per Event)."""
    res = kinds.find(kind)
    derive = res.field_value if res is not None else None
    plan = tuple((label, tuple(label.split("."))) for label in labels)

    def values(obj: Mapping[str, Any]) -> list[str]:
        out: list[str] = []
        for label, path in plan:
            if derive is not None:
                derived = derive(obj, label)
                if derived is not None:
                    out.append(_stringify(derived))
                    continue
            current = _walk(obj, path)
            out.append(current if type(current) is str else _stringify(current))
        return out

    return values


def _field_value(obj: Mapping[str, Any], name: str, path: tuple[str, ...],
                 kind: str | None = None) -> str:
    kind = kind or obj.get("kind")
    res = kinds.find(kind) if isinstance(kind, str) else None
    if res is not None:
        derived = res.field_value(obj, name)
        if derived is not None:
            return _stringify(derived)
    return _stringify(_walk(obj, path))


# ------------------------------------------------------------------- parse


def _split_terms(text: str) -> list[str]:
    # Split on commas that are not escaped; escapes stay in the terms.
    if not text:
        return []
    terms: list[str] = []
    start = 0
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    # The field name has no escapes, so the first operator found splits it.
    for i in range(len(term)):
        for op in _TERM_OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op):]
    return None


def _unescape(value: str) -> str:
    if "\\" not in value and "," not in value and "=" not in value:
        return value
    out: list[str] = []
    escaped = False
    for ch in value:
        if escaped:
            if ch not in "\\,=":
                raise BadRequest(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            # Kubernetes formats the rune with %v, i.e. as its code point.
            raise BadRequest(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if escaped:
        raise BadRequest("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def parse_field_selector(text: str) -> FieldSelector:
    """Parse a ``fieldSelector``; raises :class:`~.errors.BadRequest`."""
    requirements: list[FieldRequirement] = []
    for term in sorted(_split_terms(text)):
        if not term:
            continue
        split = _split_term(term)
        if split is None:
            raise BadRequest(f"invalid selector: '{text}'; can't understand '{term}'")
        name, op, raw_value = split
        requirements.append(FieldRequirement(name, op, _unescape(raw_value)))
    return FieldSelector(tuple(requirements))


def check_supported(sel: FieldSelector, info: KindInfo) -> None:
    """Raise :class:`~.errors.BadRequest` (``field label not supported: f``)
    for the first field ``info``'s kind cannot be selected on."""
    for requirement in sel.requirements:
        name = requirement.field
        if name not in COMMON_FIELDS and name not in info.field_labels:
            raise BadRequest(f"field label not supported: {name}")
