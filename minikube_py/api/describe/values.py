"""Fields as kubectl's Go code sees them: a missing field is its Go zero value
(``""``, ``0``, ``false``, an empty list), and quantities, times, label
selectors and owner references print as Go prints them.

The three accessors every describer calls on nearly every line are imported
under short names: ``str_field as _s``, ``int_field as _i``, ``list_field as
_l`` (with :mod:`minikube_py.api.access`'s ``mapping as _m`` and ``mappings as
_maps``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from ..access import mapping as _m
from ..access import mappings as _maps
from ..labels import Selector, SelectorError, selector_from_label_selector
from ..printers import human_duration
from ..quantity import Quantity, QuantityError
from ..timefmt import parse_datetime
from .writer import Ctx

Obj = Mapping[str, Any]

_GO_ZERO_TIME = "Mon, 01 Jan 0001 00:00:00 +0000"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun",
           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def list_field(value: Any) -> list[Any]:
    """A list field; Go's zero value (empty) when missing or not a list."""
    return list(value) if isinstance(value, list | tuple) else []


def str_field(value: Any) -> str:
    """A string field; Go's zero value ``""`` when missing."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def int_field(value: Any, default: int = 0) -> int:
    """An integer field; ``default`` when missing or not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value)


def go_bool(value: Any) -> str:
    """Go's ``%v`` of a bool field (``false`` when missing)."""
    return "true" if value is True else "false"


def str_map(value: Any) -> dict[str, str]:
    return {str(k): str_field(v) for k, v in _m(value).items()}


def quantity(value: Any) -> Quantity | None:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        return Quantity.parse(value)
    except QuantityError:
        return None


def qstr(value: Any) -> str:
    q = quantity(value)
    return str(q) if q is not None else str_field(value)


def parse_time(value: Any) -> datetime | None:
    return parse_datetime(value, naive_utc=True)


def rfc1123z(value: Any, ctx: Ctx) -> str:
    """Go's ``Time.Format(time.RFC1123Z)``; the zero time when unset."""
    dt = parse_time(value)
    if dt is None:
        return _GO_ZERO_TIME
    local = dt.astimezone(ctx.tz) if ctx.tz is not None else dt.astimezone()
    offset = local.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hh, mm = divmod(abs(minutes), 60)
    return (f"{_DAYS[local.weekday()]}, {local.day:02d} {_MONTHS[local.month - 1]} "
            f"{local.year:04d} {local.hour:02d}:{local.minute:02d}:{local.second:02d} "
            f"{sign}{hh:02d}{mm:02d}")


def since(value: Any, ctx: Ctx) -> str:
    """``translateTimestampSince``: the age, or ``<unknown>`` when unset."""
    dt = parse_time(value)
    if dt is None:
        return "<unknown>"
    return human_duration(ctx.now - dt.timestamp())


def label_selector(ls: Any) -> Selector | None:
    try:
        return selector_from_label_selector(ls if isinstance(ls, Mapping) else None)
    except SelectorError:
        return None


def format_label_selector(ls: Any) -> str:
    """``metav1.FormatLabelSelector``."""
    sel = label_selector(ls)
    if sel is None:
        return "<error>"
    return str(sel) or "<none>"


def controller_of(obj: Obj) -> Obj | None:
    for ref in _maps(_m(obj.get("metadata")).get("ownerReferences")):
        if ref.get("controller") is True:
            return ref
    return None


def shorten(text: str, max_len: int) -> str:
    raw = text.encode()
    if len(raw) > max_len:
        return raw[:max_len].decode(errors="ignore") + "..."
    return text
