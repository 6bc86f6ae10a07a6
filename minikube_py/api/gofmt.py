"""Go's ``fmt`` ``%v`` of decoded JSON values: the one copy.

Kubernetes puts values into messages with ``%v`` (strategic merge patch and
server-side apply errors, ``kubectl describe`` of unstructured fields), so
reproducing its words needs Go's formatting: ``<nil>``, ``true``,
``[a b]``, ``map[k:v]`` with keys sorted, and floats as
``strconv.FormatFloat(f, 'g', -1, 64)``: the shortest digits that read back
as the same float, in exponent form when the exponent is below -4 or at
least 6 (Go decides with precision 6 for the shortest form: ``1e+06``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

__all__ = ["go_float", "go_value"]


def go_float(value: float) -> str:
    """``strconv.FormatFloat(v, 'g', -1, 64)``, which ``%v`` uses for float64."""
    if value != value:
        return "NaN"
    if value in (math.inf, -math.inf):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    dec = Decimal(repr(abs(value))).normalize()
    digits = "".join(str(d) for d in dec.as_tuple().digits)
    exp = len(digits) + int(dec.as_tuple().exponent) - 1
    if exp < -4 or exp >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    return sign + format(dec, "f")


def go_value(value: Any) -> str:
    """``fmt.Sprintf("%v", v)`` of a decoded JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{k}:{go_value(value[k])}"
                                 for k in sorted(value, key=str)) + "]"
    return str(value)
