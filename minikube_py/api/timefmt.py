"""Kubernetes' ``metav1.Time`` on the wire: RFC 3339 in UTC at second precision.

The one place timestamps are written and read. Contract:

* :func:`format_time` writes what Kubernetes serialises (``2026-11-21T12:00:00Z``).
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

import re
from datetime import UTC, datetime
from typing import Any

__all__ = ["format_time", "parse_datetime", "parse_time"]

_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?")


def format_time(ts: float) -> str:
    """Epoch seconds as ``metav1.Time`` (fractions dropped, as Kubernetes does)."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
