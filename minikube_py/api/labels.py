"""Label selectors: Kubernetes' string syntax, ``LabelSelector`` objects, matching
and validation.

Contracts:

* :func:`parse_selector` accepts exactly what ``labels.Parse`` accepts
  (``a=b``, ``a==b``, ``a!=b``, ``a in (x,y)``, ``a notin (x)``, ``a``, ``!a``,
  ``a>1``, ``a<1``, comma-separated, spaces/tabs/newlines between tokens) and
  rejects the rest with :class:`SelectorError` (a 400 ``BadRequest``) whose
  message is the parser's (``found 'x', expected: ...`` or
  ``unable to parse requirement: ...``). Keys must be qualified names, values
  valid label values, ``>``/``<`` operands 64-bit integers. Set values are
  de-duplicated and sorted, requirements sorted by key, so ``str()`` is the
  canonical form Kubernetes prints.
* :func:`selector_from_label_selector` is ``metav1.LabelSelectorAsSelector``:
  ``None`` selects nothing, ``{}`` selects everything.
* :meth:`Selector.matches` runs for every object on every list and watch, so a
  :class:`Requirement` precomputes what it compares against (a frozenset of
  values, an ``int`` bound) and matching does no parsing and no regex.
* :func:`validate_labels` / :func:`validate_label_selector` return
  :class:`~.errors.FieldError` lists worded like ``metav1/validation``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, overload

from .errors import (
    BadRequest,
    FieldError,
    FieldPath,
    forbidden,
    invalid,
    not_supported,
    required,
    type_invalid,
)
from .names import is_qualified_name, is_valid_label_value

__all__ = [
    "BINARY_OPERATORS",
    "OPERATORS",
    "Requirement",
    "Selector",
    "SelectorError",
    "format_labels",
    "parse_selector",
    "selector_from_label_selector",
    "validate_label_selector",
    "validate_labels",
]

# Operator spellings are Kubernetes' ``selection.Operator`` values.
EQUALS = "="
DOUBLE_EQUALS = "=="
NOT_EQUALS = "!="
IN = "in"
NOT_IN = "notin"
EXISTS = "exists"
DOES_NOT_EXIST = "!"
GREATER_THAN = "gt"
LESS_THAN = "lt"

#: In the order Kubernetes lists them in "expected: ..." messages.
BINARY_OPERATORS: tuple[str, ...] = (
    IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN,
)
OPERATORS: tuple[str, ...] = (*BINARY_OPERATORS, EXISTS, DOES_NOT_EXIST)


class SelectorError(BadRequest):
    """A label selector that cannot be parsed or built (HTTP 400)."""


# ----------------------------------------------------------------- int64


_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def _parse_int64(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 64)``: optional sign, ASCII digits
    only, in int64 range. Python's ``int()`` is laxer (spaces, ``_``, other
    scripts' digits), which would match labels Kubernetes would not."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    number = int(text)
    if number < _INT64_MIN or number > _INT64_MAX:
        return None
    return number


# ----------------------------------------------------------- requirements


def _render_errors(errors: Sequence[FieldError]) -> str:
    # utilerrors.Aggregate: one error prints bare, several inside brackets.
    rendered = [str(e) for e in errors]
    return rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"


@dataclass(frozen=True)
class Requirement:
    """One ``key <operator> values`` term; a selector ANDs them.

    Construct validated requirements with :meth:`create`; the plain
    constructor trusts its input (the parser validates before building).
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()
    _value_set: frozenset[str] = field(init=False, repr=False, compare=False)
    _bound: int | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "_value_set", frozenset(self.values))
        bound = None
        if self.operator in (GREATER_THAN, LESS_THAN) and len(self.values) == 1:
            bound = _parse_int64(self.values[0])
        object.__setattr__(self, "_bound", bound)

    @classmethod
    def create(cls, key: str, operator: str, values: Iterable[str] = ()) -> Requirement:
        """``labels.NewRequirement``: validate, then build.

        Raises :class:`SelectorError` with Kubernetes' aggregated field errors,
        e.g. ``values: Invalid value: []: for 'in', 'notin' operators, values
        set can't be empty``.
        """
        vals = tuple(values)
        errors = cls.check(key, operator, vals)
        if errors:
            raise SelectorError(_render_errors(errors))
        return cls(key, operator, vals)

    @staticmethod
    def check(key: str, operator: str, values: Sequence[str]) -> list[FieldError]:
        """The field errors ``NewRequirement`` would report (empty when valid)."""
        errors: list[FieldError] = []
        key_msgs = is_qualified_name(key)
        if key_msgs:
            errors.append(invalid("key", key, "; ".join(key_msgs)))
        values_path = FieldPath.root("values")
        if operator in (IN, NOT_IN):
            if not values:
                errors.append(invalid(values_path, list(values),
                                      "for 'in', 'notin' operators, values set can't be empty"))
        elif operator in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
            if len(values) != 1:
                errors.append(invalid(values_path, list(values),
                                      "exact-match compatibility requires one single value"))
        elif operator in (EXISTS, DOES_NOT_EXIST):
            if values:
                errors.append(invalid(values_path, list(values),
                                      "values set must be empty for exists and does not exist"))
        elif operator in (GREATER_THAN, LESS_THAN):
            if len(values) != 1:
                errors.append(invalid(values_path, list(values),
                                      "for 'Gt', 'Lt' operators, exactly one value is required"))
            for i, value in enumerate(values):
                if _parse_int64(value) is None:
                    errors.append(invalid(values_path.index(i), value,
                                          "for 'Gt', 'Lt' operators, the value must be an integer"))
        else:
            errors.append(not_supported("operator", operator, OPERATORS))
        for i, value in enumerate(values):
            msgs = is_valid_label_value(value)
            if msgs:
                errors.append(invalid(values_path.index(i).key(key), value, "; ".join(msgs)))
        return errors

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Kubernetes' ``Requirement.Matches``.

        A missing key satisfies only ``!=``, ``notin`` and ``!``; ``gt``/``lt``
        need the label to be an integer too.
        """
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            value = labels.get(self.key)
            return value is not None and value in self._value_set
        if op in (NOT_IN, NOT_EQUALS):
            value = labels.get(self.key)
            return value is None or value not in self._value_set
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        if op in (GREATER_THAN, LESS_THAN):
            value = labels.get(self.key)
            if value is None or self._bound is None:
                return False
            actual = _parse_int64(value)
            if actual is None:
                return False
            return actual > self._bound if op == GREATER_THAN else actual < self._bound
        return False

    def __str__(self) -> str:
        op = self.operator
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op == IN:
            return f"{self.key} in ({values})"
        if op == NOT_IN:
            return f"{self.key} notin ({values})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(op, op)
        return f"{self.key}{symbol}{values}"


# --------------------------------------------------------------- selector


class _NothingFlag:
    """``Selector.nothing``: the factory on the class, the flag on instances.

    The API wants both a ``nothing`` attribute on every selector (is this the
    match-nothing selector?) and ``Selector.nothing()`` to build that selector,
    like Kubernetes' ``labels.Nothing()``. A descriptor serves each use its own
    type, for mypy as well as at runtime.
    """

    @overload
    def __get__(self, instance: None, owner: type[Selector]) -> Callable[[], Selector]: ...

    @overload
    def __get__(self, instance: Selector, owner: type[Selector]) -> bool: ...

    def __get__(
        self, instance: Selector | None, owner: type[Selector]
    ) -> Callable[[], Selector] | bool:
        if instance is None:
            return owner.nothing_selector
        return instance._nothing


class Selector:
    """An AND of requirements, or the special selector that matches nothing.

    Immutable and hashable; equal when requirements and ``nothing`` are.
    Requirements are kept sorted by key (as Kubernetes keeps them), which is
    what makes ``str()`` canonical. ``Selector.everything()`` and
    ``Selector.nothing()`` build the two special selectors; on an instance,
    ``sel.nothing`` is the flag.
    """

    __slots__ = ("_nothing", "requirements")

    requirements: tuple[Requirement, ...]
    _nothing: bool
    nothing = _NothingFlag()

    _EVERYTHING: ClassVar[Selector]
    _NOTHING: ClassVar[Selector]

    def __init__(self, requirements: Iterable[Requirement] = (), nothing: bool = False) -> None:
        ordered = tuple(sorted(requirements, key=lambda r: r.key))
        object.__setattr__(self, "requirements", ordered)
        object.__setattr__(self, "_nothing", bool(nothing))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Selector is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Selector is immutable; cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Selector):
            return NotImplemented
        return self._nothing == other._nothing and self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash((self.requirements, self._nothing))

    def __repr__(self) -> str:
        return f"Selector(requirements={self.requirements!r}, nothing={self._nothing!r})"

    @classmethod
    def everything(cls) -> Selector:
        """Matches every object (the empty selector)."""
        return cls._EVERYTHING

    @classmethod
    def nothing_selector(cls) -> Selector:
        """Matches no object (what a ``null`` LabelSelector means); the same
        object ``Selector.nothing()`` returns."""
        return cls._NOTHING

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self._nothing:
            return False
        present: Mapping[str, str] = labels if labels is not None else {}
        # A plain loop: no generator object per call on the list/watch hot path.
        for requirement in self.requirements:  # noqa: SIM110
            if not requirement.matches(present):
                return False
        return True

    def empty(self) -> bool:
        """True when the selector does not restrict anything."""
        return not self._nothing and not self.requirements

    def __str__(self) -> str:
        if self._nothing:
            return ""
        return ",".join(str(r) for r in self.requirements)


Selector._EVERYTHING = Selector(())
Selector._NOTHING = Selector((), nothing=True)


# ------------------------------------------------------------------ lexer

# Token kinds.
_END = "end"
_IDENT = "identifier"
_COMMA = ","
_OPEN = "("
_CLOSE = ")"
_NOT = "!"
_EQ = "="
_DEQ = "=="
_NEQ = "!="
_GT = ">"
_LT = "<"
_IN = "in"
_NOTIN = "notin"

_SYMBOL_TOKENS: dict[str, str] = {
    ",": _COMMA, "(": _OPEN, ")": _CLOSE, "!": _NOT, "=": _EQ, "==": _DEQ,
    "!=": _NEQ, ">": _GT, "<": _LT,
}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")


def _lex(text: str) -> list[tuple[str, str]]:
    """Split ``text`` into ``(kind, literal)`` tokens, ending with ``_END``.

    Runs of operator characters take the longest prefix that is a token, so
    ``!=`` is one token and ``=!`` is two. Anything that is neither an
    operator character nor whitespace belongs to an identifier; ``in`` and
    ``notin`` are keywords only where the parser expects an operator.
    """
    tokens: list[tuple[str, str]] = []
    pos, size = 0, len(text)
    while True:
        while pos < size and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= size:
            tokens.append((_END, ""))
            return tokens
        ch = text[pos]
        if ch in _SPECIAL:
            best = ch
            end = pos + 1
            while end < size and text[end] in _SPECIAL:
                candidate = text[pos:end + 1]
                if candidate not in _SYMBOL_TOKENS:
                    break
                best = candidate
                end += 1
            tokens.append((_SYMBOL_TOKENS[best], best))
            pos += len(best)
            continue
        start = pos
        while pos < size and text[pos] not in _SPECIAL and text[pos] not in _WHITESPACE:
            pos += 1
        word = text[start:pos]
        kind = _IN if word == "in" else _NOTIN if word == "notin" else _IDENT
        tokens.append((kind, word))


# ----------------------------------------------------------------- parser


class _ParseError(Exception):
    pass


class _Parser:
    """Recursive descent over the token list, mirroring ``labels.Parser``.

    ``in``/``notin`` read as plain identifiers except where an operator is
    expected, so ``in in (in)`` is a valid selector on the key ``in``.
    """

    def __init__(self, text: str) -> None:
        self.tokens = _lex(text)
        self.pos = 0

    def _peek(self, *, as_value: bool = True) -> tuple[str, str]:
        kind, literal = self.tokens[self.pos]
        if as_value and kind in (_IN, _NOTIN):
            kind = _IDENT
        return kind, literal

    def _take(self, *, as_value: bool = True) -> tuple[str, str]:
        token = self._peek(as_value=as_value)
        self.pos += 1
        return token

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            kind, literal = self._peek()
            if kind == _END:
                return requirements
            if kind not in (_IDENT, _NOT):
                raise _ParseError(
                    f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self._requirement())
            except _ParseError as exc:
                raise _ParseError(f"unable to parse requirement: {exc}") from None
            kind, literal = self._take()
            if kind == _END:
                return requirements
            if kind != _COMMA:
                raise _ParseError(f"found '{literal}', expected: ',' or 'end of string'")
            kind, literal = self._peek()
            if kind not in (_IDENT, _NOT):
                raise _ParseError(f"found '{literal}', expected: identifier after ','")

    def _requirement(self) -> Requirement:
        negated = False
        kind, literal = self._take()
        if kind == _NOT:
            negated = True
            kind, literal = self._take()
        if kind != _IDENT:
            raise _ParseError(f"found '{literal}', expected: identifier")
        key = literal
        key_msgs = is_qualified_name(key)
        if key_msgs:
            # Kubernetes reports this with a nil field path ("<nil>: Invalid
            # value: ..."); the path adds nothing, so it is left out here.
            raise _ParseError(invalid("", key, "; ".join(key_msgs)).body())
        if negated:
            # "!key" takes no operator; whatever follows is the caller's
            # problem (so "!x=a" fails with "found '=' ...").
            return self._build(key, DOES_NOT_EXIST, ())
        if self._peek()[0] in (_END, _COMMA):
            return self._build(key, EXISTS, ())
        operator = self._operator()
        if operator in (IN, NOT_IN):
            values = self._value_set()
        else:
            values = self._exact_value()
        # Kubernetes collects values in a string set: de-duplicated, sorted.
        return self._build(key, operator, tuple(sorted(values)))

    @staticmethod
    def _build(key: str, operator: str, values: tuple[str, ...]) -> Requirement:
        errors = Requirement.check(key, operator, values)
        if errors:
            raise _ParseError(_render_errors(errors))
        return Requirement(key, operator, values)

    def _operator(self) -> str:
        kind, literal = self._take(as_value=False)
        operator = {
            _IN: IN, _NOTIN: NOT_IN, _EQ: EQUALS, _DEQ: DOUBLE_EQUALS, _NEQ: NOT_EQUALS,
            _GT: GREATER_THAN, _LT: LESS_THAN,
        }.get(kind)
        if operator is None:
            raise _ParseError(f"found '{literal}', expected: {', '.join(BINARY_OPERATORS)}")
        return operator

    def _value_set(self) -> set[str]:
        kind, literal = self._take()
        if kind != _OPEN:
            raise _ParseError(f"found '{literal}' expected: '('")
        kind, literal = self._peek()
        if kind == _CLOSE:
            # "()" is the set holding only the empty string.
            self._take()
            return {""}
        if kind not in (_IDENT, _COMMA):
            raise _ParseError(f"found '{literal}', expected: ',', ')' or identifier")
        values: set[str] = set()
        while True:
            kind, literal = self._take()
            if kind == _IDENT:
                values.add(literal)
                after, after_literal = self._peek()
                if after == _CLOSE:
                    break
                if after != _COMMA:
                    raise _ParseError(f"found '{after_literal}', expected: ',' or ')'")
            elif kind == _COMMA:
                # An empty slot between commas (or next to a parenthesis) is
                # the empty-string value: "(,a)", "(a,)", "(a,,b)".
                if not values:
                    values.add("")
                after = self._peek()[0]
                if after == _CLOSE:
                    values.add("")
                    break
                if after == _COMMA:
                    values.add("")
            else:
                raise _ParseError(f"found '{literal}', expected: ',', or identifier")
        self._take()  # the ")" the loop stopped in front of
        return values

    def _exact_value(self) -> set[str]:
        kind, _ = self._peek()
        if kind in (_END, _COMMA):
            return {""}
        kind, literal = self._take()
        if kind == _IDENT:
            return {literal}
        raise _ParseError(f"found '{literal}', expected: identifier")


def parse_selector(text: str) -> Selector:
    """Parse Kubernetes' label selector syntax; raises :class:`SelectorError`."""
    try:
        requirements = _Parser(text).parse()
    except _ParseError as exc:
        raise SelectorError(str(exc)) from None
    if not requirements:
        return Selector.everything()
    return Selector(tuple(requirements))


# ------------------------------------------------------- LabelSelector objects

_LABEL_SELECTOR_OPERATORS: dict[str, str] = {
    "In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST,
}


def _go_quote(value: object) -> str:
    # Go's %q for the operator string; JSON quoting agrees for printable text.
    # A null operator decodes to "" in Go.
    if value is None:
        value = ""
    return json.dumps(value if isinstance(value, str) else str(value))


def selector_from_label_selector(ls: Mapping[str, Any] | None) -> Selector:
    """``metav1.LabelSelectorAsSelector``.

    ``None`` selects nothing, a selector without terms selects everything,
    otherwise ``matchLabels`` become ``=`` requirements and
    ``matchExpressions`` map ``In``/``NotIn``/``Exists``/``DoesNotExist``.
    Invalid input raises :class:`SelectorError` with Kubernetes' message.
    """
    if ls is None:
        return Selector.nothing_selector()
    match_labels = ls.get("matchLabels") or {}
    match_expressions = ls.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping):
        raise SelectorError(str(type_invalid("matchLabels", match_labels, "must be an object")))
    if not isinstance(match_expressions, list):
        raise SelectorError(
            str(type_invalid("matchExpressions", match_expressions, "must be an array")))
    if not match_labels and not match_expressions:
        return Selector.everything()
    requirements: list[Requirement] = []
    for key, value in match_labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise SelectorError(str(type_invalid(
                FieldPath.root("matchLabels").key(str(key)), value, "must be a string")))
        requirements.append(Requirement.create(key, EQUALS, (value,)))
    for expr in match_expressions:
        if not isinstance(expr, Mapping):
            raise SelectorError(str(type_invalid("matchExpressions", expr, "must be an object")))
        raw_op = expr.get("operator", "")
        operator = _LABEL_SELECTOR_OPERATORS.get(raw_op) if isinstance(raw_op, str) else None
        if operator is None:
            raise SelectorError(f"{_go_quote(raw_op)} is not a valid label selector operator")
        key = expr.get("key", "")
        values = expr.get("values") or []
        if not isinstance(key, str) or not isinstance(values, list) or not all(
            isinstance(v, str) for v in values
        ):
            raise SelectorError(str(type_invalid(
                "matchExpressions", expr, "key must be a string and values a list of strings")))
        requirements.append(Requirement.create(key, operator, values))
    return Selector(tuple(requirements))


def format_labels(labels: object) -> str:
    """``labels.FormatLabels``: ``k=v`` pairs sorted by key and joined by
    commas; ``<none>`` for an empty or missing map (how kubectl prints a
    Service's selector)."""
    if not isinstance(labels, Mapping) or not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


# ----------------------------------------------------------------- validation


def validate_labels(labels: object, path: FieldPath) -> list[FieldError]:
    """``metav1 ValidateLabels``: keys are qualified names, values label values.

    Like Kubernetes, format errors are reported at ``path`` itself (the map),
    with the offending key or value as the bad value. Non-string keys/values
    (which Kubernetes' decoder would reject) are ``TypeInvalid`` at the entry.
    """
    if labels is None:
        return []
    if not isinstance(labels, Mapping):
        return [type_invalid(path, labels, "must be a map of string keys to string values")]
    errors: list[FieldError] = []
    for key, value in labels.items():
        if not isinstance(key, str):
            errors.append(type_invalid(path, key, "label keys must be strings"))
            continue
        errors.extend(invalid(path, key, msg) for msg in is_qualified_name(key))
        if not isinstance(value, str):
            errors.append(type_invalid(path.key(key), value, "must be a string"))
            continue
        errors.extend(invalid(path, value, msg) for msg in is_valid_label_value(value))
    return errors


def validate_label_selector(ls: object, path: FieldPath, *,
                            allow_invalid_values: bool = False) -> list[FieldError]:
    """``metav1 ValidateLabelSelector``.

    ``In``/``NotIn`` need values, ``Exists``/``DoesNotExist`` forbid them, any
    other operator is ``Invalid: not a valid selector operator``; keys must be
    qualified names and every value a valid label value, unless
    ``allow_invalid_values`` (``AllowInvalidLabelValueInSelector``, which
    updates use when the stored selector already had such values).
    """
    if ls is None:
        return []
    if not isinstance(ls, Mapping):
        return [type_invalid(path, ls, "must be an object")]
    errors = validate_labels(ls.get("matchLabels"), path.child("matchLabels"))
    expressions = ls.get("matchExpressions")
    if expressions is None:
        return errors
    expr_path = path.child("matchExpressions")
    if not isinstance(expressions, list):
        errors.append(type_invalid(expr_path, expressions, "must be an array"))
        return errors
    for i, expr in enumerate(expressions):
        errors.extend(_validate_requirement(expr, expr_path.index(i),
                                            allow_invalid_values=allow_invalid_values))
    return errors


def _validate_requirement(expr: object, path: FieldPath, *,
                          allow_invalid_values: bool) -> list[FieldError]:
    if not isinstance(expr, Mapping):
        return [type_invalid(path, expr, "must be an object")]
    errors: list[FieldError] = []
    values_path = path.child("values")
    raw_values = expr.get("values")
    values: list[object]
    if raw_values is None:
        values = []
    elif isinstance(raw_values, list):
        values = raw_values
    else:
        errors.append(type_invalid(values_path, raw_values, "must be an array"))
        values = []
    operator = expr.get("operator", "")
    if operator in ("In", "NotIn"):
        if not values:
            errors.append(required(values_path,
                                   "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errors.append(forbidden(
                values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    else:
        errors.append(invalid(path.child("operator"), operator, "not a valid selector operator"))
    key = expr.get("key", "")
    key_path = path.child("key")
    if isinstance(key, str):
        errors.extend(invalid(key_path, key, msg) for msg in is_qualified_name(key))
    else:
        errors.append(type_invalid(key_path, key, "must be a string"))
    for i, value in enumerate(values):
        if not isinstance(value, str):
            errors.append(type_invalid(values_path.index(i), value, "must be a string"))
        elif not allow_invalid_values:
            errors.extend(invalid(values_path.index(i), value, msg)
                          for msg in is_valid_label_value(value))
    return errors
