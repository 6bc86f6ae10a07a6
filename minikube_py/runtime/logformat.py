"""How every runtime hands log lines to the kubelet.

Both runtimes produce ``(time, line)`` pairs from their own storage; this
module is the one place that turns them into what ``kubectl logs`` prints:
the RFC 3339 time with nanoseconds in front when ``timestamps`` is asked for,
and a ``limitBytes`` budget that cuts the last line short and then ends the
stream (as the kubelet's ``LimitWriter`` does).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

__all__ = ["format_log_lines", "rfc3339_nano"]


def rfc3339_nano(ts: float) -> str:
    """``2027-01-15T08:00:00.123456789Z`` (what ``kubectl logs --timestamps`` prints)."""
    ns = round(ts * 1e9)
    base = datetime.fromtimestamp(ns // 1_000_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{base}.{ns % 1_000_000_000:09d}Z"


def format_log_lines(source: Iterable[tuple[float, bytes]], *, timestamps: bool,
                     limit_bytes: int | None) -> Iterator[bytes]:
    """Each line of ``source``, time-stamped when asked, until ``limit_bytes``
    (``None``: no limit) have been yielded. Stops reading ``source`` as soon as
    the budget is spent, so a followed stream ends there too."""
    budget = limit_bytes
    for ts, line in source:
        if budget is not None and budget <= 0:
            return
        out = (rfc3339_nano(ts).encode() + b" " + line) if timestamps else line
        if budget is not None:
            out = out[:budget]
            budget -= len(out)
        yield out
