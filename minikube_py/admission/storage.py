"""What admission reads and writes: the store's shape, as a protocol.

Admission sits between the object model and the store (the store's registry
runs it), so it cannot import the store; it talks to whatever the registry
hands it through these methods, which :class:`minikube_py.store.store.Store`
has.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

Object = dict[str, Any]


class Storage(Protocol):
    def get(self, resource: str, namespace: str | None, name: str) -> Object: ...

    def get_shared(self, resource: str, namespace: str | None, name: str) -> Object:
        """As :meth:`get`, the store's shared decoded copy: read it, never change it."""
        ...

    def list(self, resource: str, *, namespace: str | None = None,
             limit: int | None = None) -> Any: ...

    def changes(self, resource: str) -> int:
        """A number that grows with every write of ``resource`` (a cache
        computed from a list stays valid while it is unchanged)."""
        ...

    def guaranteed_update(self, resource: str, namespace: str | None, name: str,
                          mutate: Callable[[Object], Object | None]) -> Object: ...

    def delete(self, resource: str, namespace: str | None, name: str, *,
               preconditions: Mapping[str, str] | None = None,
               hold: bool = False) -> Any: ...


#: ``create(obj)`` through the registry; raises AlreadyExists when present.
Create = Callable[[Mapping[str, Any]], Object]
