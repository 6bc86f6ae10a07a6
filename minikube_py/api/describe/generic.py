"""Namespaces (``DescribeNamespace``) and every kind without a dedicated
describer (``Event``, ``PriorityClass``, ``Job``, ...): kubectl's generic
describer prints every field as nested ``Key:  value`` lines under "smart"
labels (``apiVersion`` -> ``API Version``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..access import mapping as _m
from ..access import mappings as _maps
from ..gofmt import go_value as _go_value
from .sections import describe_events, print_annotations, print_labels, print_name_header
from .values import Obj, rfc1123z, str_map
from .values import str_field as _s
from .writer import Ctx, Out


def describe_namespace(namespace: Obj, ctx: Ctx) -> str:
    """``DescribeNamespace`` (no quota or limit-range sections, no events)."""
    meta, status = _m(namespace.get("metadata")), _m(namespace.get("status"))
    w = Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    print_labels(w, "Labels", str_map(meta.get("labels")))
    print_annotations(w, "Annotations", str_map(meta.get("annotations")))
    w.write(0, f"Status:\t{_s(status.get('phase'))}\n")
    conditions = _maps(status.get("conditions"))
    if conditions:
        w.write(0, "Conditions:\n")
        w.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n")
        w.write(1, "----\t------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(1, f"{_s(c.get('type'))}\t{_s(c.get('status'))}\t"
                       f"{rfc1123z(c.get('lastTransitionTime'), ctx)}\t"
                       f"{_s(c.get('reason'))}\t{_s(c.get('message'))}\n")
    return w.render()


def _camelcase_split(text: str) -> list[str]:
    """``github.com/fatih/camelcase.Split``."""
    runs: list[list[str]] = []
    last = 0
    for ch in text:
        cls = 1 if ch.islower() else 2 if ch.isupper() else 3 if ch.isdigit() else 4
        if cls == last and runs:
            runs[-1].append(ch)
        else:
            runs.append([ch])
        last = cls
    for i in range(len(runs) - 1):
        if runs[i] and runs[i][0].isupper() and runs[i + 1] and runs[i + 1][0].islower():
            runs[i + 1].insert(0, runs[i].pop())
    return ["".join(run) for run in runs if run]


def _smart_label(field: str) -> str:
    """kubectl's ``smartLabelFor``: ``apiVersion`` -> ``API Version``; names with
    characters other than letters and ``-`` are kept as they are."""
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    parts = _camelcase_split(field)
    merged: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if i < len(parts) - 1:
            following = parts[i + 1]
            if (len(part) >= 2 and all(not ch.isalpha() or ch.isupper() for ch in part)
                    and following and following[0].isupper()):
                merged.append(part + following)
                i += 2
                continue
        merged.append(part)
        i += 1
    result = []
    for part in merged:
        if part == "_":
            continue
        if part.upper() in ("API", "URL", "UID", "GUID"):
            part = part.upper()
        elif part.lower() == part:
            part = part[:1].upper() + part[1:]
        result.append(part)
    return " ".join(result)


def _print_unstructured(w: Out, level: int, content: Obj, skip_prefix: str,
                        skip: Iterable[str]) -> None:
    skip = tuple(skip)
    for field in sorted(content, key=str):
        value = content[field]
        skip_expr = f"{skip_prefix}.{field}"
        if skip_expr in skip:
            continue
        if isinstance(value, Mapping):
            w.write(level, f"{_smart_label(str(field))}:\n")
            _print_unstructured(w, level + 1, value, skip_expr, skip)
        elif isinstance(value, list | tuple):
            w.write(level, f"{_smart_label(str(field))}:\n")
            for child in value:
                if isinstance(child, Mapping):
                    _print_unstructured(w, level + 1, child, skip_expr, skip)
                else:
                    w.write(level + 1, f"{_go_value(child)}\n")
        else:
            w.write(level, f"{_smart_label(str(field))}:\t{_go_value(value)}\n")


def describe_generic(obj: Obj, events: list[Obj] | None, ctx: Ctx) -> str:
    """kubectl's generic describer, for every kind without a dedicated one."""
    meta = _m(obj.get("metadata"))
    w = Out()
    print_name_header(w, meta)
    _print_unstructured(w, 0, obj, "", (".metadata.managedFields", ".metadata.name",
                                        ".metadata.namespace", ".metadata.labels",
                                        ".metadata.annotations"))
    describe_events(events, w, ctx)
    return w.render()
