"""Lists: which stored entries a list or watch selects, and paging through them.

Split out of :mod:`.store` because it needs none of the store's state: it
works on the immutable :class:`~.watch.Entry` values the store hands over, so
it runs outside the store's write lock.

Contracts:

* :func:`matcher` checks a field selector up front (``BadRequest`` for a field
  the resource does not support) and returns a predicate over entries: the
  namespace (namespaced resources only), the label selector against the
  indexed labels, the field selector against the indexed fields.
* :func:`index_key` names the one (field, value) a watch's selector
  requires, which the watch is filed under (see :mod:`.watch`).
* :func:`encode_continue` makes the continue token of a page: the listing's
  resourceVersion and the last key returned (the store pages, see
  ``Store._select``).
* Continue tokens are opaque, URL-safe base64 of ``{"v", "rv", "start"}`` (the
  shape Kubernetes uses); :func:`decode_continue` raises ``BadRequest`` for
  anything this server did not issue.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..api import kinds
from ..api.errors import BadRequest
from ..api.fields import FieldSelector, check_supported
from ..api.labels import Selector
from .watch import Entry

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """A page of a list: items, the listing's resourceVersion, the next token.

    ``continue_token`` is set when more items match; ``remaining`` then counts them.
    """

    items: list[T]
    resource_version: int
    continue_token: str | None = None
    remaining: int | None = None


def matcher(info: kinds.KindInfo, namespace: str | None, label_selector: Selector | None,
            field_selector: FieldSelector | None) -> Callable[[Entry], bool]:
    """The predicate selecting entries of ``info``'s resource (see the module contract)."""
    ns = (namespace or None) if info.namespaced else None
    labels = None
    if label_selector is not None and not label_selector.empty():
        labels = label_selector
    reqs: tuple[Any, ...] = ()
    if field_selector is not None:
        check_supported(field_selector, info)
        reqs = tuple(field_selector.requirements)

    def matches(entry: Entry) -> bool:
        if ns is not None and entry.namespace != ns:
            return False
        if labels is not None and not labels.matches(entry.labels):
            return False
        for req in reqs:
            equal = entry.fields.get(req.field, "") == req.value
            if equal == (req.operator == "!="):
                return False
        return True

    return matches


def index_key(info: kinds.KindInfo, namespace: str | None,
              field_selector: FieldSelector | None) -> tuple[str, str] | None:
    """The (field label, value) every object a watch selects must have, or None.

    The most selective one: an object's name, else another equality of the
    field selector (``spec.nodeName=NODE``: each kubelet's pods), else the
    namespace. Label selectors are not indexed: a write reaches every watcher
    whose key it matches, and the watcher's own matcher decides the rest.
    """
    equalities = [req for req in (field_selector.requirements if field_selector else ())
                  if req.operator != "!="]
    for req in equalities:
        if req.field == "metadata.name":
            return req.field, req.value
    for req in equalities:
        if req.field != "metadata.namespace":
            return req.field, req.value
    for req in equalities:  # metadata.namespace=NS as a field selector
        return req.field, req.value
    if info.namespaced and namespace:
        return "metadata.namespace", namespace
    return None


def encode_continue(rv: int, start: str) -> str:
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, str]:
    """(resourceVersion, last key returned) of a token from :func:`encode_continue`."""
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        return int(data["rv"]), str(data["start"])
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise BadRequest("invalid continue token: it was not returned by this server; "
                         "restart the list without it") from None
