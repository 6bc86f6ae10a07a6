"""The field-label values a stored version carries for field selectors.

Every stored version keeps the values its kind's field selectors match on
(``metadata.name``, ``spec.nodeName``, ``involvedObject.name``...), so lists
and watches filter without decoding. An Event has thirteen of them; as a dict
they took 464 bytes per object, more than half an Event's own text, and a
cluster of 100,000 pods keeps about 400,000 Events. :class:`FieldValues` keeps
the values in a tuple beside one name index per kind (about 200 bytes).

Contract: a read-only ``Mapping[str, str]`` with the names in the order given;
``get(name, default)`` as a dict's; equal to a dict with the same items.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, overload

__all__ = ["FieldValues", "field_names"]

_INDEXES: dict[tuple[str, ...], dict[str, int]] = {}


def field_names(names: tuple[str, ...]) -> dict[str, int]:
    """The shared name -> position index for ``names`` (one per distinct tuple)."""
    index = _INDEXES.get(names)
    if index is None:
        if len(set(names)) != len(names):
            raise ValueError(f"field names repeat: {names}")
        index = _INDEXES.setdefault(names, {n: i for i, n in enumerate(names)})
    return index


class FieldValues(Mapping[str, str]):
    """See the module contract; ``index`` comes from :func:`field_names`."""

    __slots__ = ("_index", "_values")

    def __init__(self, index: dict[str, int], values: tuple[str, ...]) -> None:
        if len(values) != len(index):
            raise ValueError(f"{len(values)} values for {len(index)} field names")
        self._index = index
        self._values = values

    def __getitem__(self, name: str) -> str:
        return self._values[self._index[name]]

    @overload
    def get(self, name: str) -> str | None: ...
    @overload
    def get(self, name: str, default: str) -> str: ...
    @overload
    def get(self, name: str, default: Any) -> Any: ...

    def get(self, name: str, default: Any = None) -> Any:
        i = self._index.get(name)
        return default if i is None else self._values[i]

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"FieldValues({dict(self)!r})"
