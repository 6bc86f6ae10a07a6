"""Decoding stored objects into the read-only copies every cache shares.

The informers, the scheduler's snapshot and the hollow kubelets' pod cache
hold one decoded dict per stored object (see :mod:`.watch`); at 100,000 pods
those dicts are the largest thing in the process. Most of a pod's parts are the
same in every pod of its Deployment or Job: its tolerations, its container's
resources, its projected service-account volume's sources, an empty
``securityContext``, a condition that became True in the same second. So the
decoder keeps one copy of each:

* **Equal to ``json.loads``.** ``decode(raw) == json.loads(raw)``, with the same
  key order and the same types (``true``, ``1`` and ``1.0`` stay apart: they
  are never merged although Python calls them equal), for every text the
  store writes: the text is read by :func:`..api.jsontext.loads` (orjson),
  whose one difference, an integer beyond 64 bits read as a float, is one
  :func:`..api.jsontext.dumps` refuses to write.
* **Strings once.** In texts of at least ``min_size``: every string value up
  to :data:`INTERN_MAX` characters (names, enums, timestamps, images; in
  objects and in arrays) is interned; object keys are one object per
  spelling through orjson's own key cache.
* **Equal parts once.** An object or array whose members are scalars or parts
  already kept is looked up by its contents and, when an equal one was decoded
  before, that one is returned instead (hash-consing, bottom-up: an object with
  one unique member, such as a pod's metadata, is itself unique and is kept as
  decoded). So the result must never be changed: the same promise a shared
  object already makes (``Store.verify_shared`` lets tests check it was kept),
  now for every object that holds the part too.
* **Bounded.** At most ``limit`` parts are remembered; when full, the memory
  starts over (parts already handed out stay with whoever holds them, so a
  repeated part then exists once more, not once per object).
* **A new version from the one before** (:meth:`SharedDecoder.decode_update`):
  the parts of the new text equal to the previous version's decoded parts are
  those parts, not walked again; only what changed is walked (a bind changes
  ``spec.nodeName`` and the resourceVersion, a status write the status). The
  result must encode to exactly the new text, or the new text is decoded in
  full: Python calls ``1``, ``1.0`` and ``true`` equal, JSON does not.
* **Small objects are decoded plainly.** A text shorter than ``min_size``
  (:data:`DEFAULT_MIN_SIZE`) is decoded by :func:`..api.jsontext.loads`
  (orjson) alone, its parts neither looked up nor remembered and its string
  values not interned. Such an object is mostly its own identity (a node Lease is
  its name, owner, resourceVersion and renew time), and the 500 Lease
  renewals a second of 5,000 hollow nodes would otherwise keep a stream of
  unique parts alive until the memory starts over, which made the garbage
  collector run full collections (measured: 2 full and 17 middle collections
  a minute instead of none and 1, 1.3 % of a core); orjson decodes a Lease in
  a sixth of the time the interning decoder took. The small objects held for
  long are few (Leases, Services, ConfigMaps: Events have no informer), so
  the values not interned cost little memory.

Safe to call from many threads: the memory is a plain dict, and two threads
decoding the same part at once each get a correct copy (one of them is kept).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..api.jsontext import encodes_as as _encodes_as
from ..api.jsontext import loads as _plain

__all__ = ["INTERN_MAX", "SharedDecoder"]

#: String values up to this long are interned; longer ones (tokens,
#: certificates, scripts) rarely repeat.
INTERN_MAX = 64
#: Parts remembered before the memory starts over: about 200 bytes each (the
#: key tuple and the dict slot), so a few megabytes at most.
DEFAULT_LIMIT = 20_000
#: Texts shorter than this are decoded plainly (see the module contract); a pod
#: or a node is 2-3 KB, a node Lease under 500 bytes.
DEFAULT_MIN_SIZE = 1024

# Marks an array's key, so that an array never looks like an object (an object
# whose first key is "[" would otherwise share its key with a one-item array).
_ARRAY = object()
_STR = str
_DICT = dict
_LIST = list


class SharedDecoder:
    """``decode(raw)``: see the module contract."""

    def __init__(self, limit: int = DEFAULT_LIMIT, *, min_size: int = DEFAULT_MIN_SIZE) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.min_size = min_size
        self._parts: dict[tuple[Any, ...], Any] = {}

    def __len__(self) -> int:
        """How many parts are remembered now."""
        return len(self._parts)

    def decode(self, raw: str) -> Any:
        """``raw`` decoded (see the module contract); never change the result."""
        # Decoded first, then shared bottom-up in one walk: a fifth less time
        # than sharing from json's object hook (a 2.8 KB Running pod: 50 against
        # 62 us), the C decoder doing all the parsing.
        return self._shared(_plain(raw), raw)

    def decode_update(self, raw: str, previous: Any) -> Any:
        """``decode(raw)`` for a new version of an object whose previous
        version decoded (by this decoder, never changed) to ``previous``; the
        parts equal to the previous version's are taken from it (see the
        module contract). Same result as :meth:`decode`, in less time when
        little changed."""
        value = _plain(raw)
        if len(raw) < self.min_size or type(value) is not _DICT or type(previous) is not _DICT:
            return self._shared(value, raw)
        result = self._object(value, previous)
        # Equal in Python is not equal in JSON (1, 1.0 and true): a reused part
        # must encode as the text it stands for. One encoding of the whole
        # object (a few microseconds) tells; on a difference, decode afresh.
        # A NaN cannot slip through: a part holds one only where the new text
        # has a NaN too, and orjson writes it null, which differs.
        if not _encodes_as(result, raw):
            return self._shared(_plain(raw), raw)
        return result

    def _shared(self, value: Any, raw: str) -> Any:
        """``value``, the plain decode of ``raw``, with its parts shared."""
        if len(raw) < self.min_size:
            return value
        t = type(value)
        if t is _DICT:
            return self._object(value)
        if t is _LIST:
            return self._array(value)
        return value

    def _keep(self, key: tuple[Any, ...], value: Any) -> Any:
        parts = self._parts
        found = parts.get(key)
        if found is not None:
            return found
        if len(parts) >= self.limit:
            parts.clear()
        parts[key] = value
        return value

    def _array(self, items: list[Any], _intern: Callable[[str], str] = sys.intern) -> list[Any]:
        """``items`` with its parts shared (in place: a fresh decode's own list)."""
        key: list[Any] = [_ARRAY]
        add = key.append
        for i, item in enumerate(items):
            t = type(item)
            if t is _STR:
                if len(item) <= INTERN_MAX:
                    item = items[i] = _intern(item)
                add(item)
            elif t is _DICT:
                item = items[i] = self._object(item)
                add(id(item))  # a kept part's id: see _object
            elif t is _LIST:
                item = items[i] = self._array(item)
                add(id(item))
            else:
                add((t, item))
        return self._keep(tuple(key), items)  # type: ignore[no-any-return]

    def _object(self, obj: dict[str, Any], previous: dict[str, Any] | None = None,
                _intern: Callable[[str], str] = sys.intern) -> dict[str, Any]:
        """``obj`` with its parts shared (in place: a fresh decode's own dict;
        a value is replaced by the kept part equal to it, the keys stay).
        With ``previous`` (a part decoded before, see :meth:`decode_update`),
        a dict or list member equal to ``previous``'s of the same key is
        taken from there without a walk."""
        key: list[Any] = []
        add = key.append
        get = previous.get if previous is not None else None
        for k, v in obj.items():
            t = type(v)
            if t is _STR:
                if len(v) <= INTERN_MAX:
                    v = obj[k] = _intern(v)
                add(k)
                add(v)
            elif t is _DICT:
                # A kept part's id is a safe key: the part stays alive as long
                # as any remembered key that names it (its parent holds it).
                before = get(k) if get is not None else None
                if type(before) is _DICT:
                    v = obj[k] = before if v == before else self._object(v, before)
                else:
                    v = obj[k] = self._object(v)
                add(k)
                add(id(v))
            elif t is _LIST:
                before = get(k) if get is not None else None
                v = obj[k] = before if type(before) is _LIST and v == before \
                    else self._array(v)
                add(k)
                add(id(v))
            else:
                add(k)
                add((t, v))
        return self._keep(tuple(key), obj)  # type: ignore[no-any-return]
