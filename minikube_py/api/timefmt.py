"""Kubernetes' ``metav1.Time`` on the wire: RFC 3339 in UTC at second precision.

The one place timestamps are written and read. Contract:

* :func:`format_time` writes what Kubernetes serialises (``2026-11-21T12:00:00Z``);
  :func:`format_micro_time` writes ``metav1.MicroTime``
  (``2026-11-21T12:00:00.123456Z``). Both give exactly what
  ``datetime.fromtimestamp(ts, UTC).strftime(...)`` gives (microseconds
  rounded half to even), and remember the last second's text: thousands of
  hollow nodes stamp heartbeats every few milliseconds.
* :func:`parse_datetime` reads an RFC 3339 timestamp (``T``, ``t`` or a space
  between date and time; fractions of any length, kept to microseconds; ``Z``,
  ``z`` or an offset with or without a colon) as an aware datetime, and gives
  ``None`` for anything else instead of raising, since callers read
  timestamps out of objects a client may have written. A time without a zone
  is refused unless ``naive_utc`` says to read it as UTC (what Go's
  ``time.Parse`` does for layouts without a zone, and so what printers do).
* :func:`parse_time` is the same as epoch seconds.
"""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, datetime
from typing import Any

__all__ = ["format_micro_time", "format_time", "parse_datetime", "parse_time"]

_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?")


#: (epoch second, its text up to the seconds): the last second formatted.
_last_second: tuple[int, str] = (0, "1970-01-01T00:00:00")


def _split(ts: float) -> tuple[str, int]:
    """(``YYYY-MM-DDTHH:MM:SS`` of ``ts``, its microseconds), rounded as datetime does."""
    global _last_second
    # As CPython's datetime.fromtimestamp (_PyTime_DoubleToDenominator): the
    # fractional part times 1e6, rounded half to even, carried into the second.
    fpart, ipart = math.modf(ts)
    fraction, second = round(fpart * 1e6), int(ipart)
    if fraction >= 1_000_000:
        fraction, second = fraction - 1_000_000, second + 1
    elif fraction < 0:
        fraction, second = fraction + 1_000_000, second - 1
    cached = _last_second  # one read: another thread may replace it meanwhile
    if cached[0] != second:
        cached = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
        _last_second = cached
    return cached[1], fraction


def format_time(ts: float) -> str:
    """Epoch seconds as ``metav1.Time`` (fractions dropped, as Kubernetes does)."""
    return _split(ts)[0] + "Z"


def format_micro_time(ts: float) -> str:
    """Epoch seconds as ``metav1.MicroTime`` (RFC 3339 with microseconds, UTC)."""
    text, fraction = _split(ts)
    return f"{text}.{fraction:06d}Z"


def parse_datetime(value: Any, *, naive_utc: bool = False) -> datetime | None:
    """An RFC 3339 timestamp (or a datetime) as an aware datetime; ``None`` when
    absent or malformed (see the module contract)."""
    if isinstance(value, datetime):
        parsed: datetime | None = value
    elif isinstance(value, str) and _RFC3339.fullmatch(value.strip()):
        text = value.strip()
        text = text[:10] + "T" + text[11:]
        if text[-1] in "Zz":
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:  # well-formed but impossible (month 13, hour 25)
            return None
    else:
        return None
    if parsed is not None and parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC) if naive_utc else None
    return parsed


def parse_time(value: Any) -> float | None:
    """An RFC 3339 timestamp as epoch seconds; ``None`` when absent or malformed."""
    parsed = parse_datetime(value)
    return parsed.timestamp() if parsed is not None else None
