"""Kubernetes' ``metav1.Time`` on the wire: RFC 3339 in UTC at second precision.

Contract: :func:`format_time` writes what Kubernetes serialises
(``2026-11-21T12:00:00Z``); :func:`parse_time` reads any RFC 3339 /
ISO 8601 timestamp with a zone (``Z`` or an offset, fractions allowed) as
epoch seconds, and gives ``None`` for anything else instead of raising, since
callers read timestamps out of objects a client may have written.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

__all__ = ["format_time", "parse_time"]


def format_time(ts: float) -> str:
    """Epoch seconds as ``metav1.Time`` (fractions dropped, as Kubernetes does)."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(value: Any) -> float | None:
    """An RFC 3339 timestamp as epoch seconds; ``None`` when absent or malformed."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None  # a time without a zone is not RFC 3339: refuse to guess
    return parsed.timestamp()
