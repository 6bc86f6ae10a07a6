"""The state store: durable, versioned, watchable Kubernetes objects.

What it promises (the contract every loop relies on):

* **Durability.** A call that returns has its change in the journal (see
  :mod:`.journal` for the two durability levels). Reopening the directory after
  any crash restores every acknowledged change.
* **One global resourceVersion**, strictly increasing across all resources,
  stored in ``metadata.resourceVersion`` as a decimal string.
* **Compare-and-swap.** ``update`` with a ``metadata.resourceVersion`` succeeds
  only if it is the current one (else ``Conflict``); an empty one means
  "unconditional", as Kubernetes allows. An update that changes nothing writes
  nothing and sends no event.
* **Graceful deletion.** ``delete`` with a grace period or with finalizers
  present sets ``deletionTimestamp`` instead of removing; the object goes when
  its finalizers are emptied by an update (or a delete with grace 0).
  Finalizers cannot be added once deletion has started.
* **Isolation.** Every object returned is a fresh dict; callers can never
  change stored state except through these methods.
* **Watch** from any resourceVersion still in the bounded history (else
  ``Expired``), events in order, no polling. See :mod:`.watch`.
* **Thread safety.** All methods may be called from any thread. Writes are
  serialised by one lock (like a single etcd leader); reads of single objects
  take no lock. :meth:`Store.exclusive` holds that lock across several calls of
  one thread (a batch of small writes pays for the lock once).
* **Encryption at rest.** Objects of the resources in ``encrypted`` (Secrets
  by default) reach the TinyDB file and the journal only encrypted, with just
  namespace, name and resourceVersion in clear (see :mod:`.encryption`).
  Everything above the store, and its memory, sees plaintext; plaintext left
  by an older version is read and rewritten encrypted when the store opens.

The store knows nothing of validation or defaulting: that is the registry's job
(:mod:`.registry`). It checks only what it needs to key objects.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..api import jsontext, kinds
from ..api.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Expired,
    FieldPath,
    InternalError,
    Invalid,
    NotFound,
    ServiceUnavailable,
    forbidden,
)
from ..api.fields import FieldSelector, field_extractor
from ..api.labels import Selector
from ..api.timefmt import format_time
from .encryption import DEFAULT_ENCRYPTED, Cipher, is_sealed
from .fieldvalues import FieldValues, field_names
from .journal import (
    Durability,
    Journal,
    JournalWriteError,
    encode_delete,
    encode_put,
    list_segments,
    replay,
)
from .listing import Page, decode_continue, encode_continue, index_key, matcher
from .lockfile import DirLock
from .snapshot import read_snapshot, write_snapshot
from .watch import ADDED, DELETED, MODIFIED, Entry, History, Watch, WatchEvent

log = logging.getLogger(__name__)

STATE_FILE = "state.json"
#: The journal is folded into the state file once it is this fraction of the
#: file's size (see Store.compaction_due): Redis rewrites its append-only file
#: at 100 % growth; a quarter keeps restarts quick and costs a quarter as much.
COMPACT_RATIO = 0.25
#: Entries a paged list takes under the write lock at a time.
_LIST_CHUNK = 2000
Object = dict[str, Any]
Clock = Callable[[], float]


class StoreWriteError(InternalError):
    """The change could not be persisted; it was not applied."""


#: The labels of an object that has none: one shared read-only mapping, not an
#: empty dict per stored version (a cluster keeps hundreds of thousands of Events).
_NO_LABELS: Mapping[str, str] = MappingProxyType({})
#: KindInfo.field_labels -> the field-name index of its stored versions.
_FIELD_INDEXES: dict[tuple[str, ...], dict[str, int]] = {}
#: KindInfo -> the function computing its field labels' values (api.fields).
_FIELD_EXTRACTORS: dict[kinds.KindInfo, Callable[[Mapping[str, Any]], list[str]]] = {}


def _spec_finalizers(info: kinds.KindInfo, obj: Mapping[str, Any]) -> bool:
    """Whether a namespace still waits on ``spec.finalizers`` (its controllers'
    tokens): Kubernetes keeps a terminating namespace until those are empty
    too, not only ``metadata.finalizers`` (``ShouldDeleteNamespaceDuringUpdate``)."""
    if not info.spec_finalizers:
        return False
    spec = obj.get("spec")
    return isinstance(spec, Mapping) and bool(spec.get("finalizers"))


def encode_stored(obj: Any) -> str:
    """The stored text of a write (:mod:`..api.jsontext`); BadRequest for what
    the store cannot keep exactly."""
    try:
        return jsontext.dumps(obj)
    except (TypeError, ValueError) as exc:
        raise BadRequest(f"object is not valid JSON: {exc}") from None


def _dumps_loaded(obj: Any, source: Path) -> str:
    """The stored text of an object read back from ``source`` at start-up. An
    earlier version wrote with :mod:`json`, which also took integers beyond 64
    bits and unpaired surrogates; such an object is kept as :mod:`json`
    writes it (with a warning) rather than refused, so the daemon still starts
    and nothing is lost (jsontext.loads reads it; an integer beyond 64 bits
    then reads as a float, as Kubernetes' own decoder reads it)."""
    try:
        return jsontext.dumps(obj)
    except (TypeError, ValueError) as exc:
        name = (obj.get("metadata") or {}).get("name") if isinstance(obj, dict) else None
        log.warning("%s: object %r holds what the store no longer writes (%s); kept as "
                    "written before", source, name, exc)
        return json.dumps(obj, separators=(",", ":"))


#: Items as fresh dicts (for loops) or as JSON text (for the API server).
ListResult = Page[Object]
RawList = Page[str]


@dataclass(frozen=True, slots=True)
class DeleteResult:
    """``finished`` is False while deletion waits for a grace period or finalizers."""

    object: Object
    finished: bool


class _Table:
    """The objects of one resource: key -> current Entry, plus a sorted key cache."""

    __slots__ = ("encrypted", "entries", "history", "info", "sorted_keys")

    def __init__(self, info: kinds.KindInfo, history_size: int) -> None:
        self.info = info
        self.encrypted = False  # sealed on disk (see .encryption)
        self.entries: dict[str, Entry] = {}
        self.history = History(history_size)
        self.sorted_keys: list[str] | None = []

    def keys_in_order(self) -> list[str]:
        if self.sorted_keys is None:
            self.sorted_keys = sorted(self.entries)
        return self.sorted_keys


class Store:
    """A durable store rooted at a state directory (see the module contract)."""

    def __init__(
        self,
        directory: str | Path,
        *,
        durability: Durability = "flush",
        history_size: int = 10_000,
        compact_records: int = 100_000,
        compact_interval: float = 60.0,
        compact_ratio: float = COMPACT_RATIO,
        clock: Clock = time.time,
        encrypted: Collection[str] = DEFAULT_ENCRYPTED,
    ) -> None:
        """``encrypted`` names the resources kept encrypted on disk; names this
        version does not serve are ignored (so the default is harmless without
        them). The key file is created when the first served one is named.

        The journal is folded into the state file in the background: looked at
        every ``compact_interval`` seconds and at once when its records reach
        the due count (see :meth:`compaction_due` for ``compact_records`` and
        ``compact_ratio``), and always when the store closes."""
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.state_path = self.directory / STATE_FILE
        self._clock = clock
        self._compact_records = compact_records
        self._compact_interval = compact_interval
        self._compact_ratio = compact_ratio
        # What the last state file held (see compaction_due); set by compact().
        self._state_bytes = 0
        self._due_records = compact_records
        self._lock = threading.RLock()
        # Watchers reached inside an exclusive() block, woken at its end; None
        # outside one. Only the thread holding the lock touches these.
        self._batch_depth = 0
        self._batch_wakes: set[Watch] | None = None
        self._compact_lock = threading.Lock()
        self._closed = False
        self._dirlock = DirLock(self.directory)
        try:
            self._tables = {k.plural: _Table(k, history_size) for k in kinds.KINDS}
            self._cipher = Cipher(self.directory)  # reads the key file, if any
            for resource in encrypted:
                if resource in self._tables:
                    self._tables[resource].encrypted = True
            self._rv = 0
            self._disk_form_stale = False  # objects on disk not in their configured form
            replayed = self._load()
            if self.state_path.exists():
                self._state_bytes = self.state_path.stat().st_size
            self._due_records = max(compact_records,
                                    sum(len(t.entries) for t in self._tables.values()))
            if any(t.encrypted for t in self._tables.values()):
                self._cipher.ensure_key()  # after loading: a lost key must not be replaced
            last_seq = max((seq for seq, _ in list_segments(self.directory)), default=0)
            self._journal = Journal(self.directory, last_seq + 1, durability=durability)
            if replayed or self._disk_form_stale:
                # Fold the replayed journal into the state file now, so a crash loop
                # never has to replay an ever-growing journal; and leave no plaintext
                # of an encrypted resource on disk longer than needed.
                self.compact()
        except BaseException:
            self._dirlock.release()
            raise
        self._wake_compactor = threading.Event()
        self._compactor = threading.Thread(
            target=self._compact_loop, name="store-compactor", daemon=True)
        self._compactor.start()

    # ------------------------------------------------------------------ loading

    def _load(self) -> int:
        snap_rv, tables = read_snapshot(self.state_path)
        for resource, docs in tables.items():
            table = self._table_or_none(resource)
            if table is None:
                log.warning("%s: ignoring table %r: not a resource this version serves",
                            self.state_path, resource)
                continue
            for doc in docs:
                obj = self._readable(table, doc, self.state_path)
                self._install(table, obj, int(obj["metadata"]["resourceVersion"]),
                              self.state_path)
        self._rv = snap_rv
        segments = list_segments(self.directory)
        replayed = 0
        for i, (_, path) in enumerate(segments):
            for rec in replay(path, is_last=i == len(segments) - 1):
                replayed += 1
                if rec.rv <= snap_rv:
                    continue  # already folded into the snapshot
                table = self._table_or_none(rec.resource)
                if table is None:
                    log.warning("%s: skipping record for unknown resource %r", path, rec.resource)
                    continue
                if rec.op == "put" and rec.obj is not None:
                    self._install(table, self._readable(table, rec.obj, path), rec.rv, path)
                else:
                    table.entries.pop(rec.key, None)
                    table.sorted_keys = None
                self._rv = max(self._rv, rec.rv)
        log.info("store loaded from %s: resourceVersion %d, %d objects, %d journal records",
                 self.directory, self._rv, sum(len(t.entries) for t in self._tables.values()),
                 replayed)
        return replayed

    def _readable(self, table: _Table, doc: Object, source: Path) -> Object:
        """The plaintext object of a document read from ``source`` (see :mod:`.encryption`)."""
        sealed = is_sealed(doc)
        if sealed != table.encrypted:
            self._disk_form_stale = True
        if not sealed:
            return doc
        return self._cipher.unseal(doc, resource=table.info.plural,
                                   namespaced=table.info.namespaced, source=source)

    def _install(self, table: _Table, obj: Object, rv: int, source: Path) -> None:
        entry = self._entry(table.info, obj, _dumps_loaded(obj, source), rv)
        key = self._key(table.info, entry.namespace, entry.name)
        if key not in table.entries:
            table.sorted_keys = None
        entry.go_live()
        table.entries[key] = entry

    # ------------------------------------------------------------------ helpers

    def _table_or_none(self, resource: str) -> _Table | None:
        return self._tables.get(resource)

    def _table(self, resource: str) -> _Table:
        table = self._tables.get(resource)
        if table is None:
            raise NotFound(f'the server could not find the requested resource "{resource}"')
        return table

    @staticmethod
    def _key(info: kinds.KindInfo, namespace: str, name: str) -> str:
        return f"{namespace}/{name}" if info.namespaced else name

    def _identity(self, info: kinds.KindInfo, obj: Mapping[str, Any]) -> tuple[str, str]:
        meta = obj.get("metadata")
        if not isinstance(meta, Mapping):
            raise BadRequest(f"{info.kind}: metadata is required")
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"{info.kind}: metadata.name is required")
        namespace = meta.get("namespace") or ""
        if not isinstance(namespace, str):
            raise BadRequest(f"{info.kind} {name}: metadata.namespace must be a string")
        if info.namespaced and not namespace:
            raise BadRequest(f"{info.kind} {name}: metadata.namespace is required")
        if not info.namespaced:
            namespace = ""
        return namespace, name

    @staticmethod
    def _entry(info: kinds.KindInfo, obj: Mapping[str, Any], raw: str, rv: int) -> Entry:
        meta = obj.get("metadata") or {}
        labels = meta.get("labels") or _NO_LABELS
        name = meta.get("name", "")
        namespace = meta.get("namespace", "") if info.namespaced else ""
        index = _FIELD_INDEXES.get(info.field_labels)
        if index is None:
            index = _FIELD_INDEXES[info.field_labels] = field_names(
                ("metadata.name", "metadata.namespace", *info.field_labels))
        extract = _FIELD_EXTRACTORS.get(info)
        if extract is None:
            extract = _FIELD_EXTRACTORS[info] = field_extractor(info.kind, info.field_labels)
        values = (name, namespace, *extract(obj))
        return Entry(raw, rv, namespace, name, labels, FieldValues(index, values))

    def _check_open(self) -> None:
        if self._closed:
            raise ServiceUnavailable("the store is closed")

    def _persist(self, line: bytes) -> None:
        try:
            self._journal.append(line)
        except JournalWriteError as exc:
            raise StoreWriteError(f"{exc.strerror}; the change was not applied") from exc

    def _put(self, table: _Table, key: str, obj: Object, event: str,
             old: Entry | None, *, encoded: str | None = None, shared: bool = False) -> Object:
        """:meth:`_commit`; returns a fresh copy, or with ``shared`` the stored
        version's shared read-only one."""
        entry = self._commit(table, key, obj, event, old, encoded=encoded, shared=shared)
        result: Object = entry.shared() if shared else jsontext.loads(entry.raw)
        return result

    def _commit(self, table: _Table, key: str, obj: Object, event: str,
                old: Entry | None, *, encoded: str | None = None,
                shared: bool = False) -> Entry:
        """Assign the next resourceVersion and commit ``obj`` (caller holds the
        lock); returns the stored version.

        ``encoded``: ``obj`` already encoded with the old version's
        resourceVersion (an update's no-op check), reused when that value occurs
        exactly once in it. ``shared``: decode the shared copy now, from the
        old version's (see :meth:`Entry.shared_from`)."""
        rv = self._rv + 1
        meta = dict(obj.get("metadata") or {})
        meta["resourceVersion"] = str(rv)
        stored = {**obj, "metadata": meta}
        raw = None
        if encoded is not None and old is not None:
            # Re-encoding a whole object for its new resourceVersion costs as much
            # as the first encoding; the text differs only there. Exactly one
            # occurrence is metadata's own (a label or annotation could repeat it).
            needle = f'"resourceVersion":"{old.rv}"'
            if encoded.count(needle) == 1:
                raw = encoded.replace(needle, f'"resourceVersion":"{rv}"')
        if raw is None:
            raw = encode_stored(stored)
        entry = self._entry(table.info, stored, raw, rv)
        if table.encrypted:
            self._persist(encode_put(rv, table.info.plural, key, self._sealed(entry)))
        else:
            self._persist(encode_put(rv, table.info.plural, key, raw))
        if key not in table.entries:
            table.sorted_keys = None
        # Taken before the old version lets its shared copy go: the new one is
        # decoded from it (the parts an update left alone), once the write is
        # in place.
        previous = old.decoded() if shared and old is not None else None
        entry.go_live()
        table.entries[key] = entry
        if old is not None:
            old.retire()
        self._rv = rv
        table.history.append(event, entry, old, self._batch_wakes)
        self._after_write()
        if shared:
            entry.shared_from(previous)
        return entry

    def _sealed(self, entry: Entry) -> str:
        return self._cipher.seal(entry.raw, entry.namespace, entry.name, entry.rv)

    def _remove(self, table: _Table, key: str, final: Object, old: Entry) -> Object:
        """Delete ``key``; the DELETED event carries ``final`` at the new version."""
        rv = self._rv + 1
        meta = dict(final.get("metadata") or {})
        meta["resourceVersion"] = str(rv)
        stored = {**final, "metadata": meta}
        raw = encode_stored(stored)
        self._persist(encode_delete(rv, table.info.plural, key))
        del table.entries[key]
        old.retire()
        table.sorted_keys = None
        self._rv = rv
        table.history.append(DELETED, self._entry(table.info, stored, raw, rv), old,
                             self._batch_wakes)
        self._after_write()
        return stored

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the write lock for the block: this thread's calls inside it run
        one after the other with no other writer in between, and take the lock
        (reentrant) without waiting.

        For batches of small writes from one thread (thousands of node lease
        renewals): under load, every acquisition of a contended lock costs a
        wait for the interpreter lock too (the thread that gets it must be
        scheduled again before it can run), so a batch pays that once instead
        of once per write. Other writers wait meanwhile: keep blocks short, and
        never wait inside one for another thread that may need the store.

        Each write is in the journal when its call returns, as outside a block;
        the watchers it reached are woken once, when the block ends (their
        events are queued at once and a reader that is awake sees them): a
        watcher woken per write would take the interpreter lock from this
        thread once per write (500 lease renewals a second at 5,000 nodes).
        """
        wakes: set[Watch] | None = None
        try:
            with self._lock:
                outer = self._batch_depth == 0
                if outer:
                    self._batch_wakes = set()
                self._batch_depth += 1
                try:
                    yield
                finally:
                    self._batch_depth -= 1
                    if outer:
                        wakes, self._batch_wakes = self._batch_wakes, None
        finally:
            # Also when the block failed: the writes it made are stored.
            for watch in wakes or ():
                watch.wake()

    def _after_write(self) -> None:
        if self._journal.records >= self._due_records:
            self._wake_compactor.set()

    def compaction_due(self) -> bool:
        """Whether the journal should be folded into the state file now.

        Folding costs as much as the whole state (every object is written
        again), so it waits until the journal is worth it: at least
        ``compact_ratio`` of the state file's size, or as many records as the
        state held objects (and at least ``compact_records``). A small state
        is still folded every ``compact_interval``; a large one (100,000 pods
        and their events, a gigabyte) no longer every minute for a few hundred
        kilobytes of lease renewals. Replaying the journal at the next start
        then costs at most about what loading the state file does.
        """
        journal = self._journal
        return journal.records >= self._due_records or (
            journal.records > 0 and journal.size >= self._compact_ratio * self._state_bytes)

    # ------------------------------------------------------------------ reads

    @property
    def resource_version(self) -> int:
        """The newest resourceVersion committed."""
        return self._rv

    def changes(self, resource: str) -> int:
        """How many changes of ``resource`` this store has seen since it opened:
        read without a lock, it grows once a write's object is in place, so a
        value computed from a read that began after it matches that state or a
        newer one."""
        return self._table(resource).history.head

    def count(self, resource: str) -> int:
        return len(self._table(resource).entries)

    def get(self, resource: str, namespace: str | None, name: str) -> Object:
        """A fresh copy of one object; raises NotFound."""
        return jsontext.loads(self.get_raw(resource, namespace, name))  # type: ignore[no-any-return]

    def get_raw(self, resource: str, namespace: str | None, name: str) -> str:
        return self._stored(resource, namespace, name).raw

    def get_shared(self, resource: str, namespace: str | None, name: str) -> Object:
        """As :meth:`get`, but the decoded object every cache shares (read-only:
        never change it); decoded once per stored version instead of per read."""
        return self._stored(resource, namespace, name).shared()

    def _stored(self, resource: str, namespace: str | None, name: str) -> Entry:
        table = self._table(resource)
        entry = table.entries.get(self._key(table.info, namespace or "", name))
        if entry is None:
            raise NotFound.of(table.info.plural, name, group=table.info.group)
        return entry

    def _select(self, resource: str, namespace: str | None, label_selector: Selector | None,
                field_selector: FieldSelector | None, limit: int | None,
                continue_token: str | None) -> tuple[list[Entry], int, str | None, int | None]:
        """One page of matching entries in key order: (entries, resourceVersion,
        continue token, remainingItemCount).

        A page costs what it returns (plus the non-matching entries skipped on
        the way), not the size of the table: the scan starts at the namespace's
        keys or after the continue token and stops after ``limit`` matches.
        Entries are taken under the write lock in chunks and matched outside it.
        As in kube-apiserver, remainingItemCount is given only when nothing but
        the namespace selects (it is a count of keys, not of matches).
        """
        table = self._table(resource)
        info = table.info
        matches = matcher(info, namespace, label_selector, field_selector)
        plain = (label_selector is None or label_selector.empty()) and \
            (field_selector is None or not field_selector.requirements)
        start_after: str | None = None
        token_rv: int | None = None
        if continue_token:
            token_rv, start_after = decode_continue(continue_token)
        ns = namespace if info.namespaced and namespace else None
        selected: list[Entry] = []
        remaining: int | None = None
        more = False
        rv: int | None = None
        position: str | None = start_after
        while True:
            with self._lock:
                if rv is None:
                    rv = self._rv  # with the first chunk: one acquisition for most lists
                keys = table.keys_in_order()
                lo, hi = 0, len(keys)
                if ns is not None:  # "ns/name" keys: the namespace's are contiguous
                    lo, hi = bisect.bisect_left(keys, ns + "/"), bisect.bisect_left(keys, ns + "0")
                if position is not None:
                    lo = max(lo, bisect.bisect_right(keys, position))
                # Without a limit everything is taken at once (one consistent view).
                chunk_end = hi if not limit else min(hi, lo + max(_LIST_CHUNK, limit + 1))
                chunk = [table.entries[k] for k in keys[lo:chunk_end]]
                left_after_chunk = hi - chunk_end
            for i, entry in enumerate(chunk):
                if not matches(entry):
                    continue
                if limit and len(selected) == limit:
                    more = True
                    if plain:
                        remaining = len(chunk) - i + left_after_chunk
                    break
                selected.append(entry)
            if more or not chunk or left_after_chunk == 0:
                break
            position = self._key(info, chunk[-1].namespace, chunk[-1].name)
        assert rv is not None
        if token_rv is not None:
            # Later pages are served from current state but report the first page's
            # version, so a watch started from it misses nothing.
            rv = token_rv
        next_token = None
        if more:
            last = selected[-1]
            next_token = encode_continue(rv, self._key(info, last.namespace, last.name))
        return selected, rv, next_token, remaining

    def list(self, resource: str, *, namespace: str | None = None,
             label_selector: Selector | None = None, field_selector: FieldSelector | None = None,
             limit: int | None = None, continue_token: str | None = None) -> ListResult:
        """Objects sorted by namespace/name; ``limit`` pages with a continue token."""
        entries, rv, token, remaining = self._select(
            resource, namespace, label_selector, field_selector, limit, continue_token)
        return Page([jsontext.loads(e.raw) for e in entries], rv, token, remaining)

    def list_shared(self, resource: str, *, namespace: str | None = None,
                    label_selector: Selector | None = None,
                    field_selector: FieldSelector | None = None,
                    limit: int | None = None, continue_token: str | None = None) -> ListResult:
        """As :meth:`list`, but with the decoded objects shared by every cache of
        this process (see :mod:`.watch`): read-only, never to be changed."""
        entries, rv, token, remaining = self._select(
            resource, namespace, label_selector, field_selector, limit, continue_token)
        return Page([e.shared() for e in entries], rv, token, remaining)

    def verify_shared(self) -> tuple[str, ...]:
        """Keys of objects whose shared decoded copy was changed by someone (a
        broken read-only promise); empty when all is well. For tests."""
        return tuple(f"{name}/{key}" for name, table in self._tables.items()
                     for key, entry in tuple(table.entries.items())
                     if not entry.verify_shared())

    def list_raw(self, resource: str, *, namespace: str | None = None,
                 label_selector: Selector | None = None,
                 field_selector: FieldSelector | None = None,
                 limit: int | None = None, continue_token: str | None = None) -> RawList:
        entries, rv, token, remaining = self._select(
            resource, namespace, label_selector, field_selector, limit, continue_token)
        return Page([e.raw for e in entries], rv, token, remaining)

    # ------------------------------------------------------------------ writes

    def create(self, resource: str, obj: Mapping[str, Any]) -> Object:
        """Store a new object; raises AlreadyExists. Returns the stored copy."""
        created: Object = jsontext.loads(self.create_raw(resource, obj))
        return created

    def create_raw(self, resource: str, obj: Mapping[str, Any]) -> str:
        """:meth:`create`, returning the stored object's JSON text (nothing
        decoded: an API answer sends it as it is, an event recorder drops it)."""
        table = self._table(resource)
        namespace, name = self._identity(table.info, obj)
        key = self._key(table.info, namespace, name)
        with self._lock:
            self._check_open()
            if key in table.entries:
                raise AlreadyExists.of(table.info.plural, name, group=table.info.group)
            return self._commit(table, key, dict(obj), ADDED, None).raw

    def update(self, resource: str, obj: Mapping[str, Any], *,
               shared: bool = False) -> Object:
        """Replace an object (compare-and-swap on ``metadata.resourceVersion``);
        returns it as stored: a fresh copy, or with ``shared`` the shared
        read-only one every cache reads (never change it).

        ``deletionTimestamp``/``deletionGracePeriodSeconds`` cannot be changed by an
        update (they are kept from the stored object). Emptying the finalizers of
        an object being deleted (with no grace period pending) removes it.
        """
        table = self._table(resource)
        info = table.info
        namespace, name = self._identity(info, obj)
        key = self._key(info, namespace, name)
        wanted_rv = (obj.get("metadata") or {}).get("resourceVersion") or ""
        with self._lock:
            self._check_open()
            current = table.entries.get(key)
            if current is None:
                raise NotFound.of(info.plural, name, group=info.group)
            if wanted_rv and str(wanted_rv) != str(current.rv):
                raise Conflict.of(info.plural, name, "the object has been modified; please "
                                  "apply your changes to the latest version and try again",
                                  group=info.group)
            # Read only (the shared decoded version, usually decoded already for
            # the caches); a caller gets a fresh copy below.
            old_meta = current.shared().get("metadata") or {}
            meta = dict(obj.get("metadata") or {})
            for field in ("deletionTimestamp", "deletionGracePeriodSeconds"):
                if field in old_meta:
                    meta[field] = old_meta[field]
                else:
                    meta.pop(field, None)
            new = {**obj, "metadata": meta}
            if "deletionTimestamp" in old_meta:
                added = [f for f in meta.get("finalizers") or []
                         if f not in (old_meta.get("finalizers") or [])]
                if added:
                    raise Invalid.of(info.kind, name, [forbidden(
                        FieldPath.root("metadata", "finalizers"),
                        "no new finalizers can be added if the object is being deleted, "
                        f"found new finalizers {json.dumps(added)}")], group=info.group)
                if not meta.get("finalizers") and not meta.get("deletionGracePeriodSeconds") \
                        and not _spec_finalizers(info, new):
                    return self._remove(table, key, new, current)
            meta["resourceVersion"] = str(current.rv)
            encoded = encode_stored(new)
            if encoded == current.raw:
                # Nothing changed: no write, no event, no new version.
                unchanged: Object = current.shared() if shared else jsontext.loads(current.raw)
                return unchanged
            return self._put(table, key, new, MODIFIED, current, encoded=encoded,
                             shared=shared)

    def guaranteed_update(self, resource: str, namespace: str | None, name: str,
                          mutate: Callable[[Object], Object | None], *,
                          attempts: int = 100, shared: bool = False) -> Object:
        """Read-modify-write with optimistic retries on Conflict.

        ``mutate`` gets a fresh copy and returns the new object, or ``None`` to
        leave it unchanged. It may run several times, so it must be pure.
        Returns the object as stored: a fresh copy, or with ``shared`` the
        shared read-only one (see :meth:`update`).
        """
        for _ in range(attempts):
            current = self.get(resource, namespace, name)
            rv = current["metadata"]["resourceVersion"]
            new = mutate(current)
            if new is None:
                return current
            new.setdefault("metadata", {})["resourceVersion"] = rv
            try:
                return self.update(resource, new, shared=shared)
            except Conflict:
                continue
        raise Conflict(f"{resource} {name}: too many concurrent updates; gave up after "
                       f"{attempts} attempts")

    def delete(self, resource: str, namespace: str | None, name: str, *,
               grace_period_seconds: int | None = None,
               preconditions: Mapping[str, str] | None = None,
               propagation_policy: str | None = None, hold: bool = False) -> DeleteResult:
        """Delete, gracefully when asked or when finalizers are present.

        ``grace_period_seconds`` > 0 sets ``deletionTimestamp`` to now + grace and
        leaves the object for its owner (the kubelet) to finish. A later delete may
        shorten the grace period, never lengthen it. ``propagation_policy``
        ``Foreground``/``Orphan`` adds the ``foregroundDeletion``/``orphan``
        finalizer for the garbage collector, as Kubernetes does. ``hold`` keeps
        the object (marked with ``deletionTimestamp``) for a controller to finish
        with a later delete, as a namespace waits for its content to go.
        """
        table = self._table(resource)
        info = table.info
        key = self._key(info, namespace or "", name)
        if propagation_policy not in (None, "", "Background", "Foreground", "Orphan"):
            raise BadRequest(f'propagationPolicy "{propagation_policy}" is not supported: '
                             'use "Background", "Foreground" or "Orphan"')
        if grace_period_seconds is not None and grace_period_seconds < 0:
            grace_period_seconds = 0  # Kubernetes treats negative as "now"
        with self._lock:
            self._check_open()
            current = table.entries.get(key)
            if current is None:
                raise NotFound.of(info.plural, name, group=info.group)
            obj = jsontext.loads(current.raw)
            meta = dict(obj.get("metadata") or {})
            for field, value in (preconditions or {}).items():
                have = meta.get("uid" if field == "uid" else "resourceVersion")
                if value and str(value) != str(have):
                    what = "UID" if field == "uid" else "ResourceVersion"
                    raise Conflict.of(info.plural, name,
                                      f"Precondition failed: {what} in precondition: {value}, "
                                      f"{what} in object meta: {have}", group=info.group)
            finalizers = list(meta.get("finalizers") or [])
            extra = {"Foreground": "foregroundDeletion", "Orphan": "orphan"}.get(
                propagation_policy or "")
            if extra and extra not in finalizers and "deletionTimestamp" not in meta:
                finalizers.append(extra)
            grace = grace_period_seconds or 0
            now = self._clock()
            if "deletionTimestamp" in meta:
                pending = meta.get("deletionGracePeriodSeconds") or 0
                if hold:
                    return DeleteResult(obj, False)
                if grace == 0 and not finalizers:
                    return DeleteResult(self._remove(table, key, obj, current), True)
                if grace >= pending:
                    return DeleteResult(obj, False)  # already being deleted, no sooner
                # A second delete may shorten the grace period, never lengthen it.
                meta["deletionTimestamp"] = format_time(now + grace)
                meta["deletionGracePeriodSeconds"] = grace
                return DeleteResult(self._put(table, key, {**obj, "metadata": meta},
                                              MODIFIED, current), False)
            if grace == 0 and not finalizers and not hold:
                return DeleteResult(self._remove(table, key, obj, current), True)
            meta["deletionTimestamp"] = format_time(now + grace)
            meta["deletionGracePeriodSeconds"] = grace
            meta["finalizers"] = finalizers
            if not finalizers:
                del meta["finalizers"]
            if "generation" in meta:
                meta["generation"] = int(meta["generation"]) + 1
            return DeleteResult(self._put(table, key, {**obj, "metadata": meta},
                                          MODIFIED, current), False)

    # ------------------------------------------------------------------ watch

    def watch(self, resource: str, *, namespace: str | None = None,
              label_selector: Selector | None = None,
              field_selector: FieldSelector | None = None,
              resource_version: str | int | None = None, linger: float = 0.0) -> Watch:
        """Watch changes after ``resource_version``.

        ``None``, ``""`` or ``"0"``: first an ADDED event for every matching
        object, then changes (Kubernetes' "get state and start at most recent").
        Any other value: changes after that version, or ``Expired`` when it is no
        longer in the history. ``linger``: seconds a woken reader waits for more
        changes before it takes them (0: at once; see :mod:`.watch`).
        """
        table = self._table(resource)
        matches = matcher(table.info, namespace, label_selector, field_selector)
        key = index_key(table.info, namespace, field_selector)
        rv = _parse_rv(resource_version)
        with self._lock:
            self._check_open()
            if rv is None:
                initial = [WatchEvent(ADDED, e.raw, e.rv, e)
                           for e in (table.entries[k] for k in table.keys_in_order())
                           if matches(e)]
                start = table.history.head
            else:
                initial = []
                start = table.history.start_after(rv)
            watch = Watch(table.history, matches, initial, key=key, linger=linger)
            table.history.subscribe(watch, start)
            return watch

    # ------------------------------------------------------------------ compaction

    def compact(self) -> None:
        """Write the state file from memory and drop the journal it covers.

        The write lock is held only to rotate the journal and take references to
        the (immutable) entries; encoding and the disk write happen outside it.
        A failure (e.g. disk full) keeps the journal, so nothing is lost.
        """
        with self._compact_lock:
            with self._lock:
                old = self._journal
                segments_before = list_segments(self.directory)
                if old.records == 0 and len(segments_before) <= 1 and self.state_path.exists() \
                        and not self._disk_form_stale:
                    return
                try:
                    self._journal = Journal(self.directory, old.seq + 1,
                                            durability=old.durability)
                except OSError as exc:
                    # Read-only or full directory: keep appending to the old segment
                    # (it holds every acknowledged write); a later compaction retries.
                    log.error("compaction failed, keeping the journal: cannot start a new "
                              "journal segment: %s", exc)
                    return
                old.close()
                rv = self._rv
                tables = {name: [e.raw for e in t.entries.values()]
                          for name, t in self._tables.items() if t.entries and not t.encrypted}
                to_seal = {name: list(t.entries.values())
                           for name, t in self._tables.items() if t.entries and t.encrypted}
            # Sealed outside the write lock: ~10 µs an object adds up over thousands.
            for name, entries in to_seal.items():
                tables[name] = [self._sealed(e) for e in entries]
            try:
                size = write_snapshot(self.state_path, rv, tables)
            except OSError as exc:
                log.error("compaction failed, keeping the journal: %s", exc)
                return
            self._state_bytes = size
            self._due_records = max(self._compact_records, sum(map(len, tables.values())))
            self._disk_form_stale = False
            for seq, path in segments_before:
                if seq <= old.seq:
                    path.unlink(missing_ok=True)

    def _compact_loop(self) -> None:
        while True:
            self._wake_compactor.wait(self._compact_interval)
            self._wake_compactor.clear()
            if self._is_closed():
                return
            try:
                if self.compaction_due():
                    self.compact()
            except Exception:  # a compaction bug must not kill the store
                log.exception("background compaction failed")

    def _is_closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Compact, stop every watch and release the directory. Idempotent."""
        with self._lock:
            if self._closed:
                return
        try:
            self.compact()
        finally:
            with self._lock:
                self._closed = True
                self._journal.close()
            self._wake_compactor.set()
            if self._compactor is not threading.current_thread():
                self._compactor.join(timeout=5)
            for table in self._tables.values():
                table.history.close()
            self._dirlock.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def resources(self) -> Iterable[str]:
        return self._tables.keys()

    @property
    def encrypted_resources(self) -> frozenset[str]:
        """The served resources kept encrypted on disk."""
        return frozenset(name for name, t in self._tables.items() if t.encrypted)


def _parse_rv(value: str | int | None) -> int | None:
    if value is None or value in ("", "0", 0):
        return None
    try:
        rv = int(value)
    except (TypeError, ValueError):
        raise BadRequest(f'invalid resourceVersion "{value}": must be a decimal integer') from None
    if rv < 0:
        raise BadRequest(f'invalid resourceVersion "{value}": must not be negative')
    return rv


__all__ = [
    "DeleteResult", "Expired", "ListResult", "Page", "RawList", "Store", "StoreWriteError",
    "encode_stored", "format_time",
]
