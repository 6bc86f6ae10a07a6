"""The sections most describers share, as kubectl prints them: labels,
annotations (long or multi-line values on lines of their own, the
last-applied configuration left out) and the Events table."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..access import mapping as _m
from .values import Obj, parse_time, shorten, since, str_map
from .values import int_field as _i
from .values import str_field as _s
from .writer import Ctx, Out

_SKIP_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})
MAX_ANNOTATION_LEN = 140


def _byte_len(text: str) -> int:
    return len(text.encode())


def print_labels(w: Out, title: str, labels: Mapping[str, str], *,
                 initial_indent: str = "", inner_indent: str = "\t") -> None:
    """``printLabelsMultilineWithIndent``."""
    w.write(0, f"{initial_indent}{title}:{inner_indent}")
    if not labels:
        w.line("<none>")
        return
    for i, key in enumerate(sorted(labels)):
        if i:
            w.write(0, initial_indent)
            w.write(0, inner_indent)
        w.write(0, f"{key}={labels[key]}\n")


def print_name_header(w: Out, meta: Mapping[str, Any]) -> None:
    """``Name``, ``Namespace``, ``Labels``, ``Annotations``: how the generic
    describer and several dedicated ones (ConfigMap, ...) begin."""
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Namespace:\t{_s(meta.get('namespace'))}\n")
    print_labels(w, "Labels", str_map(meta.get("labels")))
    print_annotations(w, "Annotations", str_map(meta.get("annotations")))


def print_annotations(w: Out, title: str, annotations: Mapping[str, str]) -> None:
    """``printAnnotationsMultiline``: long or multi-line values on their own lines."""
    w.write(0, f"{title}:\t")
    keys = sorted(k for k in annotations if k not in _SKIP_ANNOTATIONS)
    if not keys:
        w.line("<none>")
        return
    indent = "\t"
    for i, key in enumerate(keys):
        if i:
            w.write(0, indent)
        value = annotations[key].removesuffix("\n")
        if _byte_len(value) + _byte_len(key) + 2 > MAX_ANNOTATION_LEN or "\n" in value:
            w.write(0, f"{key}:\n")
            for part in value.split("\n"):
                w.write(0, f"{indent}  {shorten(part, MAX_ANNOTATION_LEN - 2)}\n")
        else:
            w.write(0, f"{key}: {value}\n")


def describe_events(events: Sequence[Obj] | None, w: Out, ctx: Ctx) -> None:
    """``DescribeEvents``."""
    if events is None:
        return
    if not events:
        w.write(0, "Events:\t<none>\n")
        return
    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(1, "----\t------\t----\t----\t-------\n")
    for event in sorted(events, key=_event_sort_key):
        event_time = event.get("eventTime")
        first = since(event_time, ctx) if parse_time(event_time) else since(
            event.get("firstTimestamp"), ctx)
        series = event.get("series")
        count = _i(event.get("count"))
        if isinstance(series, Mapping):
            interval = (f"{since(series.get('lastObservedTime'), ctx)} "
                        f"(x{_i(series.get('count'))} over {first})")
        elif count > 1:
            interval = f"{since(event.get('lastTimestamp'), ctx)} (x{count} over {first})"
        else:
            interval = first
        source = _s(_m(event.get("source")).get("component")) or _s(
            event.get("reportingComponent"))
        message = _s(event.get("message")).strip()
        field_path = _s(_m(event.get("involvedObject")).get("fieldPath"))
        if field_path:
            message = f"{field_path}: {message}"
        w.write(1, f"{_s(event.get('type'))}\t{_s(event.get('reason'))}\t{interval}\t"
                   f"{source}\t{message}\n")


def _event_sort_key(event: Obj) -> float:
    """kubectl's ``SortableEvents``: series last-observed time, else
    ``lastTimestamp``, else ``eventTime``; unset sorts first."""
    series = event.get("series")
    if isinstance(series, Mapping):
        raw = series.get("lastObservedTime")
    elif parse_time(event.get("lastTimestamp")) is not None:
        raw = event.get("lastTimestamp")
    else:
        raw = event.get("eventTime")
    dt = parse_time(raw)
    return dt.timestamp() if dt is not None else -math.inf
