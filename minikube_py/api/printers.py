"""Server-side printing: ``meta.k8s.io/v1`` Table objects, as kubectl shows them.

Contract
--------
:func:`table` turns stored objects of one kind into the Table the Kubernetes API
server returns for ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io``
(``pkg/printers/internalversion/printers.go`` behind the apiserver's
``asTable``):

* **Columns** and cells come from the kind's resource (``columns`` and
  ``row``, Kubernetes' own column definitions and printers for ``Pod``,
  ``Node``, ``Namespace``, ``Event``, ``Deployment``, ``ReplicaSet``, ``Job``,
  ``PriorityClass``, ``ConfigMap``, ``Service``, ``Endpoints`` and
  ``EndpointSlice``): name, type, format, description, priority.
  Priority ``0`` columns are always shown, priority ``1`` only by
  ``kubectl -o wide``. As in Kubernetes the server always fills *every*
  column (it prints with ``Wide: true``); hiding priority-1 columns is the
  client's job. Any other kind gets the apiserver's default
  table: ``Name`` and ``Created At`` (UTC RFC 3339, ``0001-01-01T00:00:00Z``
  when the timestamp is missing, as Go prints its zero time).
* **Cells** follow the printers' rules: pod STATUS/READY/RESTARTS as kubectl
  shows them (see :mod:`.core.pod_table`), ``<none>``/``<unknown>``
  placeholders,
  integer cells as ``int``, ages through :func:`human_duration`.
* **Rows** are ``{"cells": [...], "object": ...}``; a pod whose phase is
  ``Succeeded``/``Failed`` also carries the row ``conditions`` Kubernetes adds
  (``Completed`` / ``True``). ``include_object`` is the ``includeObject``
  query parameter: ``"Object"`` embeds the object itself, ``"Metadata"`` (the
  default; ``""`` means the same) a ``PartialObjectMetadata``, ``"None"``
  ``null``. Any other value raises :class:`~.errors.BadRequest` with the
  apiserver's message. Embedded objects and metadata are the caller's
  mappings, not copies.
* **Table metadata** carries ``resourceVersion`` and ``continue`` when they are
  non-empty (Kubernetes omits empty ``ListMeta`` fields).
* **Time**: every age is relative to the ``now`` argument (seconds since the
  epoch), never the wall clock, so output is deterministic. Timestamps are RFC
  3339 strings (``metav1.Time`` / ``MicroTime``); a missing, empty, zero
  (``0001-01-01T00:00:00Z``) or unparsable timestamp prints ``<unknown>``.
  Parsing is cached, so a refresh that re-renders the same objects parses
  nothing twice.

Values the defaulting layer normally fills in are read with the API defaults
when absent (``spec.replicas`` is 1), because the server prints defaulted
objects. :func:`human_duration`, :func:`short_human_duration` and :func:`age`
are public for the CLI and the dashboard; the cell helpers (``cell_*``,
:func:`age_of`, :func:`layout_containers`, ...) for the resources' row
printers. Per-row work is dictionary lookups and string formatting: no
regular expressions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Final

from . import kinds
from .access import mapping as _m
from .errors import BadRequest, NotFound
from .labels import SelectorError, selector_from_label_selector
from .resource import Column, Resource, Row
from .timefmt import parse_datetime

__all__ = [
    "INCLUDE_OBJECT_VALUES",
    "TABLE_API_VERSION",
    "Column",
    "age",
    "column_definitions",
    "human_duration",
    "short_human_duration",
    "table",
]

TABLE_API_VERSION: Final = "meta.k8s.io/v1"
INCLUDE_OBJECT_VALUES: Final = ("None", "Metadata", "Object")

NO_ITEMS: Final[tuple[Any, ...]] = ()
UNKNOWN: Final = "<unknown>"
NONE: Final = "<none>"


# ------------------------------------------------------------------ durations


def human_duration(seconds: float) -> str:
    """``duration.HumanDuration``: about 2-3 significant figures.

    ``0s`` .. ``119s``, ``2m1s`` .. ``9m59s``, ``10m`` .. ``179m``, ``3h`` ..
    ``7h59m``, ``8h`` .. ``47h``, ``2d`` .. ``7d23h``, ``8d`` .. ``729d``,
    ``2y`` .. ``7y364d``, then whole years. Up to 2 seconds in the future
    (clock skew) prints ``0s``; further ahead ``<invalid>``.
    """
    if not math.isfinite(seconds):
        return "<invalid>"
    secs = int(seconds)  # Go's int(d.Seconds()) truncates toward zero
    if secs < -1:
        return "<invalid>"
    if secs < 0:
        return "0s"
    if secs < 120:
        return f"{secs}s"
    minutes = secs // 60
    if minutes < 10:
        rest = secs % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = secs // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        rest = hours % 24
        return f"{days}d" if rest == 0 else f"{days}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        rest = days % 365
        return f"{years}y" if rest == 0 else f"{years}y{rest}d"
    return f"{years}y"


def short_human_duration(seconds: float) -> str:
    """``duration.ShortHumanDuration``: one unit only (``59s``, ``1m``, ``23h``,
    ``364d``, ``2y``); the same clock-skew tolerance as :func:`human_duration`."""
    if not math.isfinite(seconds):
        return "<invalid>"
    secs = int(seconds)
    if secs < -1:
        return "<invalid>"
    if secs < 0:
        return "0s"
    if secs < 60:
        return f"{secs}s"
    minutes = int(seconds / 60)
    if minutes < 60:
        return f"{minutes}m"
    hours = int(seconds / 3600)
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    return f"{int(seconds / 3600 / 24 / 365)}y"


# ----------------------------------------------------------------- timestamps

_GO_ZERO_TIME: Final = datetime(1, 1, 1, tzinfo=UTC)
_GO_ZERO_TEXT: Final = "0001-01-01T00:00:00Z"


@lru_cache(maxsize=16384)
def parse_time(text: str) -> tuple[float, datetime] | None:
    """RFC 3339 text -> (epoch seconds, aware datetime); ``None`` for the zero
    time or text that is not a timestamp. Cached: timestamps repeat across
    refreshes."""
    parsed = parse_datetime(text, naive_utc=True)
    if parsed is None or parsed == _GO_ZERO_TIME:
        return None
    return parsed.timestamp(), parsed


def epoch(value: Any) -> float | None:
    if not value or not isinstance(value, str):
        return None
    parsed = parse_time(value)
    return None if parsed is None else parsed[0]


def age(timestamp: str | None, *, now: float) -> str:
    """``translateTimestampSince``: :func:`human_duration` of ``now - timestamp``,
    ``<unknown>`` when the timestamp is missing or zero."""
    when = epoch(timestamp)
    if when is None:
        return UNKNOWN
    return human_duration(now - when)


def age_of(when: float | None, now: float) -> str:
    return UNKNOWN if when is None else human_duration(now - when)


def rfc3339_utc(value: Any) -> str:
    """Go's ``t.UTC().Format(time.RFC3339)`` (whole seconds); zero time if unset."""
    if not value or not isinstance(value, str):
        return _GO_ZERO_TEXT
    parsed = parse_time(value)
    if parsed is None:
        return _GO_ZERO_TEXT
    return parsed[1].astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -------------------------------------------------------------- small helpers


def cell_list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else NO_ITEMS


def cell_int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return 0


def cell_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


# Go's unicode.IsSpace set, which strings.TrimSpace strips.
GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def layout_containers(containers: Sequence[Any]) -> tuple[str, str]:
    """``layoutContainerCells``: names and images joined with commas."""
    names = []
    images = []
    for container in containers:
        c = _m(container)
        names.append(cell_str(c.get("name")))
        images.append(cell_str(c.get("image")))
    return ",".join(names), ",".join(images)


def template_cells(spec: Mapping[str, Any]) -> tuple[str, str]:
    """The CONTAINERS and IMAGES cells of a workload: its pod template's
    containers, laid out by :func:`layout_containers`."""
    return layout_containers(
        cell_list(_m(_m(spec.get("template")).get("spec")).get("containers")))


def workload_wide_cells(spec: Mapping[str, Any], *, empty: str, invalid: str) -> list[str]:
    """The CONTAINERS, IMAGES and SELECTOR cells kubectl appends for ``-o wide``
    on a workload. ``empty`` is printed for a selector that selects everything
    and ``invalid`` for one that does not parse: kubectl's printers differ per
    kind there (metav1.FormatLabelSelector prints ``<none>``/``<error>``)."""
    names, images = template_cells(spec)
    try:
        selector = selector_string(spec.get("selector")) or empty
    except SelectorError:
        selector = invalid
    return [names, images, selector]


def join_host_port(host: str, port: int) -> str:
    """``net.JoinHostPort``: IPv6 hosts in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def join_with_more(shown: Sequence[str], total: int, limit: int, more: bool) -> str:
    """The end of kubectl's endpoint and port lists: ``shown`` joined by commas,
    then `` + N more...`` (``N = total - limit``) when ``more`` is set."""
    text = ",".join(shown)
    return f"{text} + {total - limit} more..." if more else text


def spec_replicas(spec: Mapping[str, Any]) -> int:
    """``spec.replicas`` as printed: the API default 1 when unset."""
    replicas = spec.get("replicas")
    return 1 if replicas is None else cell_int(replicas)


def selector_string(selector: Any) -> str:
    """``LabelSelectorAsSelector(sel).String()``; raises :class:`SelectorError`."""
    ls = selector if isinstance(selector, Mapping) else None
    return str(selector_from_label_selector(ls))


# ---------------------------------------------------------------- columns


# Descriptions are the Kubernetes API field docs the Go code reads through
# SwaggerDoc() (core/v1 and meta/v1; extensions/v1beta1 for the workloads).
D_NAME: Final = (
    "Name must be unique within a namespace. Is required when creating resources, although "
    "some resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
D_CREATED: Final = (
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.  Populated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
D_CONTAINERS: Final = "Names of each container in the template."
D_IMAGES: Final = "Images referenced by each container in the template."

DEFAULT_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Created At", "date", D_CREATED),
)


def _print_default(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    return [cell_str(metadata.get("name")), rfc3339_utc(metadata.get("creationTimestamp"))], None


# ------------------------------------------------------------------ table

def _resource(kind: str) -> Resource | None:
    try:
        return kinds.resource(kind)
    except NotFound:
        return None


def column_definitions(kind: str) -> tuple[Column, ...]:
    """The columns :func:`table` uses for ``kind`` (the default pair for kinds
    without a printer)."""
    res = _resource(kind)
    return DEFAULT_COLUMNS if res is None or res.columns is None else res.columns


def table(
    kind: str,
    objects: Sequence[Mapping[str, Any]],
    *,
    now: float,
    include_object: str = "Metadata",
    resource_version: str = "",
    continue_token: str | None = None,
) -> dict[str, Any]:
    """A ``meta.k8s.io/v1`` Table of ``objects`` (all of ``kind``); see the
    module docstring for the contract."""
    if include_object == "":
        include_object = "Metadata"
    if include_object not in INCLUDE_OBJECT_VALUES:
        raise BadRequest(f"unrecognized includeObject value: {json.dumps(include_object)}")
    res = _resource(kind)
    columns: tuple[Column, ...]
    printer: Callable[[Mapping[str, Any], float], Row]
    if res is None or res.columns is None or res.row is None:
        columns, printer = DEFAULT_COLUMNS, _print_default
    else:
        columns, printer = res.columns, res.row
    rows: list[dict[str, Any]] = []
    append = rows.append
    for obj in objects:
        cells, condition = printer(obj, now)
        row: dict[str, Any] = {"cells": cells}
        if condition is not None:
            row["conditions"] = [dict(condition)]
        if include_object == "Object":
            row["object"] = obj
        elif include_object == "Metadata":
            row["object"] = {
                "kind": "PartialObjectMetadata",
                "apiVersion": TABLE_API_VERSION,
                "metadata": meta if isinstance(meta := obj.get("metadata"), Mapping) else {},
            }
        else:
            row["object"] = None
        append(row)
    metadata: dict[str, Any] = {}
    if resource_version:
        metadata["resourceVersion"] = resource_version
    if continue_token:
        metadata["continue"] = continue_token
    return {
        "kind": "Table",
        "apiVersion": TABLE_API_VERSION,
        "metadata": metadata,
        "columnDefinitions": [column.to_dict() for column in columns],
        "rows": rows,
    }
