"""Merging, comparing and pruning typed values (structured-merge-diff's typed ops).

Split off :mod:`.apply`: ``TypedValue.Merge``, ``Compare`` and ``RemoveItems``
over the shapes of :mod:`.apply_fields`, plus :data:`MISSING`, the absent value.
"""

from __future__ import annotations

from typing import Any

from .apply_fields import (
    _GRANULAR_LISTS,
    _GRANULAR_MAPS,
    PE,
    Path,
    _child,
    _item_pes,
    _shape,
    _with_prefix,
)
from .schema_model import Schema


class _Missing:
    """An absent value (distinct from JSON ``null``)."""


MISSING: Any = _Missing()


# ======================================================================= merge


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(v, right[k]) for k, v in left.items())
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right,
                                                                            strict=True))
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    return bool(left == right) and (left is None) == (right is None)


def _is(value: Any, kind: type) -> bool:
    return value is MISSING or isinstance(value, kind)


def merge(lhs: Any, rhs: Any, schema: Schema | None) -> Any:
    """TypedValue.Merge: ``rhs`` (the configuration) merged into ``lhs``."""
    shape = _shape(schema, rhs if rhs is not MISSING else lhs)
    if shape in _GRANULAR_MAPS and _is(lhs, dict) and _is(rhs, dict):
        left = lhs if lhs is not MISSING else {}
        right = rhs if rhs is not MISSING else {}
        if not left and not right:
            return rhs if rhs is not MISSING else lhs
        out = {}
        for key, value in left.items():
            out[key] = merge(value, right.get(key, MISSING), _child(schema, shape, key)[0])
        for key, value in right.items():
            if key not in left:
                out[key] = merge(MISSING, value, _child(schema, shape, key)[0])
        return out
    if shape in _GRANULAR_LISTS and _is(lhs, list) and _is(rhs, list):
        assert schema is not None
        left = lhs if lhs is not MISSING else []
        right = rhs if rhs is not MISSING else []
        if not left and not right:
            return rhs if rhs is not MISSING else lhs
        return _merge_list(left, right, schema, shape)
    return rhs if rhs is not MISSING else lhs


def _merge_list(lhs: list[Any], rhs: list[Any], schema: Schema, shape: str) -> list[Any]:
    """visitListItems: lhs-only items keep their place, shared ones follow rhs order."""
    l_pes, r_pes = _item_pes(schema, shape, lhs), _item_pes(schema, shape, rhs)
    l_map = dict(zip(l_pes, lhs, strict=True))
    r_map = dict(zip(r_pes, rhs, strict=True))
    shared = [pe for pe in r_pes if pe in l_map]
    next_shared = shared.pop(0) if shared else None
    items = schema.items
    out: list[Any] = []
    li = ri = 0
    while li < len(l_pes) or ri < len(r_pes):
        if li < len(l_pes) and ri < len(r_pes):
            pe = l_pes[li]
            if pe == r_pes[ri]:
                out.append(merge(l_map[pe], r_map[pe], items))
                li, ri = li + 1, ri + 1
                next_shared = shared.pop(0) if shared else None
                continue
            if pe in r_map and next_shared is not None and next_shared != pe:
                li += 1
                continue
        if li < len(l_pes) and l_pes[li] not in r_map:
            out.append(merge(l_map[l_pes[li]], MISSING, items))
            li += 1
            continue
        if ri < len(r_pes):
            pe = r_pes[ri]
            out.append(merge(l_map.get(pe, MISSING), r_map[pe], items))
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop(0) if shared else None
        else:
            li += 1  # a shared item already merged from the rhs side
    return out


def compare(lhs: Any, rhs: Any, schema: Schema | None
            ) -> tuple[set[Path], set[Path], set[Path]]:
    """TypedValue.Compare: (added, modified, removed) going from lhs to rhs."""
    added: set[Path] = set()
    modified: set[Path] = set()
    removed: set[Path] = set()
    _compare(lhs, rhs, schema, (), added, modified, removed)
    return added, modified, removed


def _compare(lhs: Any, rhs: Any, schema: Schema | None, path: Path, added: set[Path],
             modified: set[Path], removed: set[Path]) -> None:
    shape = _shape(schema, rhs if rhs is not MISSING else lhs)
    if shape in _GRANULAR_MAPS and _is(lhs, dict) and _is(rhs, dict):
        left = lhs if lhs is not MISSING else {}
        right = rhs if rhs is not MISSING else {}
        for key in [*left, *(k for k in right if k not in left)]:
            _compare(left.get(key, MISSING), right.get(key, MISSING),
                     _child(schema, shape, key)[0], (*path, ("f", key)), added, modified,
                     removed)
    elif shape in _GRANULAR_LISTS and _is(lhs, list) and _is(rhs, list):
        assert schema is not None
        left = lhs if lhs is not MISSING else []
        right = rhs if rhs is not MISSING else []
        l_map = dict(zip(_item_pes(schema, shape, left), left, strict=True))
        r_map = dict(zip(_item_pes(schema, shape, right), right, strict=True))
        for pe, item in r_map.items():
            _compare(l_map.get(pe, MISSING), item, schema.items, (*path, pe), added, modified,
                     removed)
        for pe, item in l_map.items():
            if pe not in r_map:
                _compare(item, MISSING, schema.items, (*path, pe), added, modified, removed)
    else:
        if lhs is MISSING:
            added.add(path)
        elif rhs is MISSING:
            removed.add(path)
        elif not _same(lhs, rhs):
            modified.add(path)
        return
    if lhs is MISSING:
        added.add(path)
    elif rhs is MISSING:
        removed.add(path)


def remove_items(value: Any, schema: Schema | None, paths: set[Path]) -> Any:
    """TypedValue.RemoveItems: drop every owned path (with its subtree)."""
    shape = _shape(schema, value)
    if shape in _GRANULAR_MAPS and isinstance(value, dict):
        if not value:
            return None
        out = {}
        for key, item in value.items():
            pe: PE = ("f", key)
            if (pe,) in paths:
                continue
            sub = _with_prefix(paths, pe)
            out[key] = remove_items(item, _child(schema, shape, key)[0], sub) if sub else item
        return out or None
    if shape in _GRANULAR_LISTS and isinstance(value, list):
        assert schema is not None
        if not value:
            return None
        kept = []
        for pe, item in zip(_item_pes(schema, shape, value), value, strict=True):
            if (pe,) in paths:
                continue
            sub = _with_prefix(paths, pe)
            kept.append(remove_items(item, schema.items, sub) if sub else item)
        return kept or None
    return value


def _drop_nulls(value: Any) -> Any:
    """What a typed round trip does to ``null``: the field is simply absent."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value if v is not None]
    return value
