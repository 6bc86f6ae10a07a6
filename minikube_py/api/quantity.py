"""Kubernetes resource quantities (``k8s.io/apimachinery/pkg/api/resource``).

Contract
--------
:class:`Quantity` is an immutable, exact fixed-point number that parses,
compares and prints the way Kubernetes' ``resource.Quantity`` does:

* **Parsing** follows Kubernetes' hand-written scanner, which accepts
  ``<sign>? <digits>? (. <digits>?)? <suffix>`` where the suffix is one of
  ``n u m "" k M G T P E`` (DecimalSI), ``Ki Mi Gi Ti Pi Ei`` (BinarySI) or
  ``e<int>`` / ``E<int>`` (DecimalExponent). A malformed string raises
  :class:`QuantityError` carrying Kubernetes' own message (the regular-expression
  message for shape errors, ``unable to parse quantity's suffix`` for an
  unknown suffix). Surrounding whitespace is rejected, as ``ParseQuantity`` does.
* **Precision**: values are kept as an exact integer number of nano-units
  (``nanos``). Anything finer than ``1n`` is rounded *up*, away from zero, as
  Kubernetes does ("if you want some resources, you should get some").
* **Format** is remembered from the suffix. A BinarySI value whose magnitude is
  strictly between 0 and 1 becomes DecimalSI; a parsed BinarySI value above
  2^63-1 is capped at 2^63-1 (DecimalSI and DecimalExponent are not capped).
* **Canonical form** (``str()``): no precision lost, no fractional digits, and
  the exponent/suffix as large as possible; zero is always ``"0"``. BinarySI
  values that are not whole multiples of a binary suffix, or lie strictly
  between -1024 and 1024, print as DecimalSI, and so do values past ``Ei``
  (2^70 prints as ``1180591620717411303424``). DecimalSI values whose exponent
  is past ``E`` print in exponent form (``1000E`` -> ``1e21``), as Kubernetes
  does since it stopped dropping that magnitude.
* **Value()/MilliValue()** round to an integer away from zero (``-1.5`` -> -2).
* **Ordering and equality** are numeric and ignore the format; the hash agrees.
* **Arithmetic** (``+``, ``-``, unary ``-``) is exact. The result has the left
  operand's format, except that a zero left operand takes the right operand's
  format, as ``Quantity.Add``/``Sub`` do (so sums that start from ``0`` keep
  the suffix style of what was added).

* **validate_quantity** gives the field errors Kubernetes gives: ``Invalid
  value`` with the parse message, or, for a negative value, ``must be greater
  than or equal to 0`` showing the canonical string.

Python ints are unbounded, so unlike Go there is no int64 fast path to
overflow. To keep work bounded, magnitudes of 10^1000 or more are rejected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Final, Literal

from minikube_py.api import errors
from minikube_py.api.errors import FieldError, FieldPath

__all__ = [
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Format",
    "Quantity",
    "QuantityError",
    "canonical",
    "parse_quantity",
    "validate_quantity",
]

Format = Literal["DecimalSI", "BinarySI", "DecimalExponent"]

# Kubernetes' error texts, verbatim, so users see the messages they know.
_SPLIT_RE_STRING: Final = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG: Final = f"quantities must match the regular expression '{_SPLIT_RE_STRING}'"
ERR_NUMERIC: Final = "unable to parse numeric part of quantity"
ERR_SUFFIX: Final = "unable to parse quantity's suffix"
_NEGATIVE_MSG: Final = "must be greater than or equal to 0"


class QuantityError(ValueError):
    """A string (or value) that is not a Kubernetes quantity."""


_NANO: Final = 10**9
_MILLI_IN_NANOS: Final = 10**6
# Kubernetes caps parsed BinarySI quantities at the largest int64.
_MAX_INT64: Final = (1 << 63) - 1
_MAX_INT64_NANOS: Final = _MAX_INT64 * _NANO
# Go parses the exponent as int64 and (since it stopped truncating) rejects
# anything outside int32, the range of its internal scale.
_MAX_EXPONENT: Final = (1 << 31) - 1
# Our own bound (Go has none): values must be below 10**_MAX_ORDER so that
# 10**exponent never explodes and str() stays within Python's digit limit.
_MAX_ORDER: Final = 1000
_MAX_VALUE: Final = 10**_MAX_ORDER
# Python refuses int(str) above 4300 digits; we split longer digit runs.
_INT_CHUNK: Final = 4000

# The scanner, as one regex: sign, integer digits, optional "." and fraction
# digits, then the suffix run (suffix letters, optional sign, digits). Matching
# greedily is equivalent to Kubernetes' left-to-right scanner.
_SPLIT_RE: Final = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)")
# Go: a suffix of length > 1 starting with e/E whose rest strconv.ParseInt accepts.
_EXPONENT_RE: Final = re.compile(r"[eE]([+-]?)([0-9]+)")

# suffix -> (base, exponent, format)
_SUFFIXES: Final[dict[str, tuple[int, int, Format]]] = {
    "n": (10, -9, "DecimalSI"),
    "u": (10, -6, "DecimalSI"),
    "m": (10, -3, "DecimalSI"),
    "": (10, 0, "DecimalSI"),
    "k": (10, 3, "DecimalSI"),
    "M": (10, 6, "DecimalSI"),
    "G": (10, 9, "DecimalSI"),
    "T": (10, 12, "DecimalSI"),
    "P": (10, 15, "DecimalSI"),
    "E": (10, 18, "DecimalSI"),
    "Ki": (2, 10, "BinarySI"),
    "Mi": (2, 20, "BinarySI"),
    "Gi": (2, 30, "BinarySI"),
    "Ti": (2, 40, "BinarySI"),
    "Pi": (2, 50, "BinarySI"),
    "Ei": (2, 60, "BinarySI"),
}
_DECIMAL_SUFFIX_BY_EXPONENT: Final = {
    exp: s for s, (base, exp, _) in _SUFFIXES.items() if base == 10
}
# Index = number of factors of 1024; Kubernetes has no suffix past Ei.
_BINARY_SUFFIX_BY_POWER: Final = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


@dataclass(frozen=True, slots=True, eq=False)
class Quantity:
    """An exact quantity: ``nanos`` is the value times 10**9.

    Build one with :meth:`parse`, :meth:`from_int` or :meth:`from_milli`.
    Equality, ordering and hashing use the numeric value only.
    """

    nanos: int
    format: Format = "DecimalSI"

    # ------------------------------------------------------------ constructors

    @classmethod
    def parse(cls, value: str | int | float) -> Quantity:
        """Parse like ``resource.ParseQuantity``; raise :class:`QuantityError`.

        Strings are parsed as Kubernetes does. Ints become DecimalSI (as the
        JSON number ``1024`` does). Floats are first written the way Go's
        ``encoding/json`` writes a float64 (which is what Kubernetes would
        receive), then parsed. ``bool`` and other types are rejected with the
        same message Kubernetes gives when JSON ``true`` meets a quantity.
        """
        if isinstance(value, str):
            return _parse_string(value)
        if isinstance(value, bool):
            raise QuantityError(ERR_FORMAT_WRONG)
        if isinstance(value, int):
            if abs(value) >= _MAX_VALUE:
                raise QuantityError(_too_large_message())
            return cls(value * _NANO, "DecimalSI")
        if isinstance(value, float):
            return _parse_string(_go_json_float(value))
        raise QuantityError(ERR_FORMAT_WRONG)

    @classmethod
    def from_int(cls, value: int, fmt: Format = "DecimalSI") -> Quantity:
        """``resource.NewQuantity(value, fmt)``."""
        return cls(_require_int(value) * _NANO, fmt)

    @classmethod
    def from_milli(cls, milli: int, fmt: Format = "DecimalSI") -> Quantity:
        """``resource.NewMilliQuantity(milli, fmt)``: the value is milli/1000."""
        return cls(_require_int(milli) * _MILLI_IN_NANOS, fmt)

    # -------------------------------------------------------------- accessors

    def __str__(self) -> str:
        return _render(self.nanos, self.format)

    def value(self) -> int:
        """``Value()``: the value rounded to an integer away from zero."""
        return _div_away_from_zero(self.nanos, _NANO)

    def milli_value(self) -> int:
        """``MilliValue()``: the value in milli-units, rounded away from zero."""
        return _div_away_from_zero(self.nanos, _MILLI_IN_NANOS)

    def is_zero(self) -> bool:
        return self.nanos == 0

    def sign(self) -> int:
        return (self.nanos > 0) - (self.nanos < 0)

    # ------------------------------------------------- comparison and hashing

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.nanos == other.nanos

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.nanos != other.nanos

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.nanos < other.nanos

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.nanos <= other.nanos

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.nanos > other.nanos

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.nanos >= other.nanos

    def __hash__(self) -> int:
        # Format is ignored by __eq__, so it must be ignored here too.
        return hash(self.nanos)

    # ------------------------------------------------------------- arithmetic

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        # Quantity.Add: a zero receiver adopts the addend's format.
        fmt = self.format if self.nanos else other.format
        return Quantity(self.nanos + other.nanos, fmt)

    def __radd__(self, other: int) -> Quantity:
        # Only so that sum(quantities) works: sum() starts from the int 0.
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self
        return NotImplemented

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        # Quantity.Sub: a zero receiver adopts the subtrahend's format.
        fmt = self.format if self.nanos else other.format
        return Quantity(self.nanos - other.nanos, fmt)

    def __neg__(self) -> Quantity:
        return Quantity(-self.nanos, self.format)


def parse_quantity(value: str | int | float) -> Quantity:
    """Same as :meth:`Quantity.parse`."""
    return Quantity.parse(value)


def canonical(value: str | int | float) -> str:
    """The canonical string Kubernetes would store for ``value``."""
    return str(Quantity.parse(value))


def validate_quantity(
    value: object, path: FieldPath | str, *, non_negative: bool = True
) -> list[FieldError]:
    """Field errors for a quantity in a manifest, as Kubernetes reports them.

    An unparsable value gives ``Invalid value`` with Kubernetes' parse message.
    A negative one (when ``non_negative``) gives ``ValidateNonnegativeQuantity``'s
    error, which shows the canonical string (``value.String()``), not the input.
    """
    if isinstance(value, Quantity):
        q = value
    elif isinstance(value, str | int | float):
        try:
            q = Quantity.parse(value)
        except QuantityError as err:
            return [errors.invalid(path, value, str(err))]
    else:
        return [errors.invalid(path, value, ERR_FORMAT_WRONG)]
    if non_negative and q.nanos < 0:
        return [errors.invalid(path, str(q), _NEGATIVE_MSG)]
    return []


# ------------------------------------------------------------------ internals


def _too_large_message() -> str:
    return f"{ERR_NUMERIC}: magnitude must be below 10^{_MAX_ORDER}"


def _require_int(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an int, got {type(value).__name__}")
    return value


def _div_away_from_zero(n: int, d: int) -> int:
    q, r = divmod(abs(n), d)
    if r:
        q += 1
    return q if n >= 0 else -q


def _digits_to_int(digits: str) -> int:
    """``int(digits)`` without tripping Python's 4300-digit conversion limit."""
    if len(digits) <= _INT_CHUNK:
        return int(digits) if digits else 0
    half = len(digits) // 2
    scale: int = 10 ** (len(digits) - half)
    return _digits_to_int(digits[:half]) * scale + _digits_to_int(digits[half:])


def _go_json_float(value: float) -> str:
    """Write a float the way Go's encoding/json writes a float64.

    Go uses plain decimal notation for 1e-6 <= |x| < 1e21 and exponent notation
    outside it, always with the shortest digits that round-trip (as repr does).
    The notation matters: it decides DecimalSI versus DecimalExponent.
    """
    if value == 0 or 1e-6 <= abs(value) < 1e21:
        return format(Decimal(repr(value)), "f")
    return repr(value)  # "1e-07", "1.5e+21", or "inf"/"nan" which fail to parse


@lru_cache(maxsize=4096)
def _parse_string(text: str) -> Quantity:
    # Quantities are immutable, so a parse cache is safe; the scheduler parses
    # the same few strings ("100m", "128Mi", ...) over and over.
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    match = _SPLIT_RE.fullmatch(text)
    if match is None:
        raise QuantityError(ERR_FORMAT_WRONG)
    sign, whole, frac, suffix = match.groups()

    entry = _SUFFIXES.get(suffix)
    if entry is not None:
        base, exponent, fmt = entry
    else:
        exp_match = _EXPONENT_RE.fullmatch(suffix)
        if exp_match is None:
            raise QuantityError(ERR_SUFFIX)
        exp_sign, exp_digits = exp_match.groups()
        exp_digits = exp_digits.lstrip("0") or "0"
        if len(exp_digits) > 10 or int(exp_digits) > _MAX_EXPONENT:
            raise QuantityError(ERR_SUFFIX)
        base, fmt = 10, "DecimalExponent"
        exponent = -int(exp_digits) if exp_sign == "-" else int(exp_digits)

    # Leading zeros of the integer part and trailing zeros of the fraction do
    # not change the value; dropping them keeps the digit strings short.
    whole = whole.lstrip("0")
    frac = (frac or "").rstrip("0")
    if not whole and not frac:
        # Any spelling of zero ("0", "0Ki", "-.", "0e99") is zero in the suffix's
        # format; Kubernetes keeps BinarySI for "0Ki".
        return Quantity(0, fmt)

    digits = whole + frac  # the value is int(digits) * 10**-len(frac) * base**exponent
    if base == 10:
        # Count the value's integer digits before building any 10**n.
        if whole:
            order = len(whole) + exponent
        else:
            order = exponent - (len(frac) - len(frac.lstrip("0")))
        if order > _MAX_ORDER:
            raise QuantityError(_too_large_message())
        shift = exponent + 9 - len(frac)  # nanos = int(digits) * 10**shift
        if shift >= 0:
            magnitude = _digits_to_int(digits) * 10**shift
        else:
            # Keep the digits down to 1n and round up if anything finer is
            # non-zero; works for any exponent without building 10**-shift.
            cut = len(digits) + shift
            kept, dropped = (digits[:cut], digits[cut:]) if cut > 0 else ("", digits)
            magnitude = _digits_to_int(kept)
            if dropped.strip("0"):
                magnitude += 1
    elif len(whole) > 19:
        # At least 10**19 > 2**63-1: Kubernetes caps parsed BinarySI values.
        magnitude = _MAX_INT64_NANOS
    else:
        scaled = _digits_to_int(digits) << exponent
        if len(frac) <= 9:
            magnitude = scaled * 10 ** (9 - len(frac))
        else:
            magnitude, rest = divmod(scaled, 10 ** (len(frac) - 9))
            if rest:
                magnitude += 1
        if magnitude > _MAX_INT64_NANOS:
            magnitude = _MAX_INT64_NANOS
        if magnitude < _NANO:
            # 0 < |value| < 1 cannot be written with a binary suffix.
            fmt = "DecimalSI"
    return Quantity(-magnitude if sign == "-" else magnitude, fmt)


@lru_cache(maxsize=4096)
def _render(nanos: int, fmt: str) -> str:
    """Kubernetes' ``CanonicalizeBytes``."""
    if nanos == 0:
        return "0"
    sign = "-" if nanos < 0 else ""
    magnitude = -nanos if nanos < 0 else nanos

    if fmt == "BinarySI":
        # Between -1024 and 1024, or fractional: BinarySI would round, so print
        # as DecimalSI instead ("Don't lose precision").
        if magnitude >= 1024 * _NANO and magnitude % _NANO == 0:
            n = magnitude // _NANO
            power = 0
            while n & 1023 == 0:
                n >>= 10
                power += 1
            if power < len(_BINARY_SUFFIX_BY_POWER):
                return f"{sign}{n}{_BINARY_SUFFIX_BY_POWER[power]}"
            # Past Ei there is no binary suffix; print the exact decimal value.
        fmt = "DecimalSI"

    # Move every factor of 10 into the exponent, then lower the exponent to a
    # multiple of 3 so it lines up with the SI suffixes.
    mantissa = magnitude
    exponent = -9
    if mantissa % _NANO == 0:
        mantissa //= _NANO
        exponent = 0
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    extra = exponent % 3
    if extra:
        mantissa *= 10**extra
        exponent -= extra

    if fmt == "DecimalSI":
        suffix = _DECIMAL_SUFFIX_BY_EXPONENT.get(exponent)
        if suffix is None:
            # No SI suffix past E: fall back to exponent notation rather than
            # silently dropping the magnitude.
            suffix = f"e{exponent}"
    else:
        # DecimalExponent, and (as in Go) any unknown format.
        suffix = f"e{exponent}" if exponent else ""
    return f"{sign}{mantissa}{suffix}"
