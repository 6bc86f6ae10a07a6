"""``events``: the events of a namespace (or all), oldest first, as ``kubectl events``.

:func:`list_events` lists them, optionally only those about one object
(``--for KIND/NAME``) and of some types; :func:`watch_events` follows the new
ones from the listing's resourceVersion. Both take the same
:class:`EventQuery`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..client.base import Client, Object
from .wording import resolve_kind

__all__ = ["EventQuery", "event_time", "list_events", "watch_events"]

#: The resource events are stored as.
EVENTS = "events"


@dataclass(frozen=True, slots=True)
class EventQuery:
    namespace: str | None  # None: all namespaces
    #: ``KIND/NAME`` of the object the events must be about, or None.
    about: str | None = None
    #: Only these types (``Normal``, ``Warning``), or all.
    types: frozenset[str] | None = None

    def field_selector(self) -> str | None:
        """``involvedObject.kind=K,involvedObject.name=N`` for ``about``;
        an unknown kind raises :class:`~.errors.OpError`."""
        if not self.about:
            return None
        kind, _, name = self.about.partition("/")
        return f"involvedObject.kind={resolve_kind(kind).kind},involvedObject.name={name}"

    def wants(self, event: Mapping[str, Any]) -> bool:
        return not self.types or event.get("type") in self.types


def event_time(event: Mapping[str, Any]) -> str:
    """When the event last happened (``lastTimestamp``, else ``eventTime``,
    else its creation): what ``kubectl events`` sorts and ages by."""
    return str(event.get("lastTimestamp") or event.get("eventTime") or
               (event.get("metadata") or {}).get("creationTimestamp") or "")


def list_events(client: Client, query: EventQuery) -> tuple[list[Object], str]:
    """The matching events, oldest first, and the listing's resourceVersion."""
    listing = client.list(EVENTS, namespace=query.namespace,
                          field_selector=query.field_selector())
    return sorted((e for e in listing.items if query.wants(e)), key=event_time), \
        listing.resource_version


def watch_events(client: Client, query: EventQuery, resource_version: str) -> Iterator[Object]:
    """Each new or changed matching event after ``resource_version``, until
    the caller stops iterating."""
    stream = client.watch(EVENTS, namespace=query.namespace,
                          field_selector=query.field_selector(),
                          resource_version=resource_version)
    try:
        for ev in stream:
            if ev.type != "DELETED" and query.wants(ev.object):
                yield ev.object
    finally:
        stream.stop()
