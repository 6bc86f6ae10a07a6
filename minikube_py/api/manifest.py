"""Loading manifests: the resource builder behind ``minikube-py apply -f``.

Contract
========

Inputs (:func:`load_paths`), in the order given, as kubectl's resource builder
reads them:

* a file: read whatever its extension;
* a directory: its files ending ``.json``, ``.yaml`` or ``.yml`` (case-sensitive),
  sorted by name; subdirectories are entered only with ``recursive=True``, at
  their place in that order (a depth-first walk, like Go's ``filepath.Walk``).
  Symlinked files are read; symlinked directories are not entered;
* ``"-"``: standard input (at most once).

A path that does not exist fails before any file is read, with kubectl's
wording: ``the path "x.yaml" does not exist``. Like every message here it has no
``error:`` prefix; the CLI adds that, as kubectl does.

Formats: a stream is JSON if the file ends in ``.json``, or if its first
non-blank character is ``{`` and it parses as JSON (a stream of JSON values,
like Go's ``json.Decoder``); otherwise it is YAML, possibly several documents
separated by ``---``. Empty documents, documents that are only comments and
``null`` documents are skipped but still counted, so "document 3" is the third
document of the file as its author sees it.

Every document must be a mapping with non-empty string ``apiVersion`` and
``kind``. A ``kind: List``, or any ``v1`` kind ending in ``List`` that has
``items`` (``PodList`` ...), is replaced by its items, recursively; each item
keeps its own line. Results are :class:`Manifest` values whose ``obj`` is plain
JSON data: ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, ``float``
(finite), ``bool`` and ``None``, with no object shared between two places.

Errors are :class:`ManifestError` (a 400 ``BadRequest``) whose message is the
complete user-facing text, always naming the file and line:

* ``deploy.yaml:7:10: mapping values are not allowed in this context`` (syntax;
  line and column are 1-based, the problem is the parser's own words);
* ``deploy.yaml:12: document 2: kind not set``;
* ``list.yaml:9: document 1: items[3]: apiVersion not set``.

When several files fail, each file's first error is reported, one per line, in
one :class:`ManifestError`; nothing is returned, so an apply is all-or-nothing.

YAML rules, and where they differ from kubectl (which reads YAML with go-yaml v2
and then converts it to JSON):

* Booleans are YAML 1.1's, as PyYAML reads them: ``true/false``, ``yes/no``,
  ``on/off`` in lower, Title and UPPER case. kubectl does the same (a label
  value ``on`` must be quoted there too); go-yaml additionally reads ``y``,
  ``Y``, ``n`` and ``N`` as booleans, which we keep as strings.
  :func:`dump_yaml` quotes all of them, so its output means the same to both.
* Timestamps (``2024-01-01``, ``2024-01-01T10:00:00Z``) stay the strings they
  were written as, never ``datetime``: Kubernetes time fields are strings, and
  kubectl keeps them as strings too.
* Base-60 numbers (``1:20``) are strings, not YAML 1.1's ``80``: go-yaml never
  reads them as numbers and silently turning ``22:22`` into 1342 is a classic
  trap. Other numbers are PyYAML's YAML 1.1 ones: ``0x1f``, octal ``017``,
  ``1_000``, and a float needs a dot. So ``1e3``, ``0o17`` and ``08`` stay
  strings here, where go-yaml reads the numbers 1000, 15 and 8.
* Keys must be strings: ``80: x`` or ``on: x`` is an error (kubectl would quietly
  turn the key into ``"80"``/``"true"``); quote such keys.
* Duplicate keys in one mapping are an error, naming both lines (go-yaml keeps
  the last one unless decoding strictly; silently losing a value is worse than
  refusing). Merge keys (``<<``) work, and explicit keys override merged ones,
  as YAML specifies.
* ``.nan``/``.inf`` (and JSON ``NaN``/``Infinity``, and numbers too large for a
  float) are errors: JSON cannot carry them.
* Only the standard tags are accepted (``!!str``, ``!!int``, ``!!float``,
  ``!!bool``, ``!!null``, ``!!timestamp`` as a string, ``!!map``, ``!!seq``);
  ``!!binary``, ``!!set``, ``!!omap`` and local tags such as ``!Ref`` are errors.

Hostile input: input larger than ``max_bytes`` (16 MiB by default) is refused
before parsing; nesting deeper than :data:`MAX_DEPTH` and more than
:data:`MAX_ALIAS_NODES` nodes produced by alias expansion in one file (the
"billion laughs" attack) are refused while parsing, before any expansion, so
they cost milliseconds. Input must be UTF-8 (a BOM is skipped).
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

import yaml
from yaml.reader import ReaderError

from .errors import BadRequest

__all__ = [
    "DEFAULT_MAX_BYTES",
    "EXTENSIONS",
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "Manifest",
    "ManifestError",
    "dump_yaml",
    "load_paths",
    "load_text",
]

#: Largest input read, in bytes. A Kubernetes object is at most ~1.5 MiB in etcd.
DEFAULT_MAX_BYTES = 16 * 2**20
#: Most nodes alias expansion may produce in one file (counted before copying).
MAX_ALIAS_NODES = 10_000
#: Deepest nesting of mappings/sequences. Real objects (CRD schemas included)
#: stay well under it; parsers are quadratic in nesting, so the cap matters.
MAX_DEPTH = 100
#: Extensions read from directories, as kubectl's builder (``FileExtensions``).
EXTENSIONS = (".json", ".yaml", ".yml")

STDIN = "<stdin>"


class ManifestError(BadRequest):
    """A manifest could not be read; ``message`` is the full user-facing text."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """One object read from a manifest and where it came from."""

    obj: dict[str, Any]
    #: The file path as given (joined with the directory for directory entries),
    #: or ``"<stdin>"``.
    source: str
    #: 1-based index of the document in its file (a List's items share it).
    document: int
    #: 1-based line where the document, or the List item, starts.
    line: int

    def where(self) -> str:
        """``deploy.yaml:12``: the prefix for messages about this object."""
        return f"{self.source}:{self.line}"


# ------------------------------------------------------------------------ entry points


def load_text(
    text: str, source: str = STDIN, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> list[Manifest]:
    """Load every object in ``text`` (YAML or JSON), named ``source`` in errors."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        # Lone surrogates, e.g. from bytes decoded with errors="surrogateescape".
        line = text.count("\n", 0, e.start) + 1
        raise ManifestError(f"{source}:{line}: not valid UTF-8 text") from None
    if len(data) > max_bytes:
        raise ManifestError(
            f"{source}: input is {len(data)} bytes, larger than the {_size(max_bytes)} limit"
        )
    return _load(text, data, source)


def load_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    recursive: bool = False,
    stdin: TextIO | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> list[Manifest]:
    """Load every object from ``paths`` in order; ``"-"`` reads ``stdin``.

    ``stdin`` defaults to ``sys.stdin``. Errors from several files are reported
    together (one line each) in a single :class:`ManifestError`.
    """
    # Expand everything first so a typo in the last path fails before any
    # (possibly large) file is parsed, as kubectl checks paths up front.
    sources: list[str] = []
    errors: list[str] = []
    seen_stdin = False
    for raw in paths:
        path = os.fspath(raw)
        if path == "-":
            if seen_stdin:
                errors.append('"-" (standard input) can only be given once')
            seen_stdin = True
            sources.append(path)
            continue
        try:
            sources.extend(_expand(path, recursive))
        except ManifestError as e:
            errors.append(e.message)
    if errors:
        raise ManifestError("\n".join(errors))

    out: list[Manifest] = []
    for path in sources:
        try:
            if path == "-":
                out.extend(_load_stdin(stdin if stdin is not None else sys.stdin, max_bytes))
            else:
                out.extend(_load_file(path, max_bytes))
        except ManifestError as e:
            errors.append(e.message)
    if errors:
        raise ManifestError("\n".join(errors))
    return out


def _expand(path: str, recursive: bool) -> list[str]:
    try:
        st = os.stat(path)  # follows symlinks: a linked directory given by name is walked
    except FileNotFoundError:
        raise ManifestError(f'the path "{path}" does not exist') from None
    except OSError as e:
        raise ManifestError(f"{path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        return _walk(path, recursive)
    return [path]


def _walk(directory: str, recursive: bool) -> list[str]:
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as e:
        raise ManifestError(f"{directory}: cannot read directory: {e.strerror}") from None
    out: list[str] = []
    for entry in entries:
        path = os.path.join(directory, entry.name)
        # Not following directory symlinks keeps a link loop from hanging us.
        if entry.is_dir(follow_symlinks=False):
            if recursive:
                out.extend(_walk(path, recursive))
        # is_file() follows symlinks and skips FIFOs/sockets that would block a read.
        elif entry.name.endswith(EXTENSIONS) and entry.is_file():
            out.append(path)
    return out


def _load_file(path: str, max_bytes: int) -> list[Manifest]:
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
                raise ManifestError(_too_large(path, st.st_size, max_bytes))
            # Read one byte past the limit: pipes (``-f <(...)``) have no size.
            raw = f.read(max_bytes + 1)
    except OSError as e:
        raise ManifestError(f"{path}: cannot read: {e.strerror}") from None
    if len(raw) > max_bytes:
        raise ManifestError(_too_large(path, None, max_bytes))
    text, data = _decode(raw, path)
    return _load(text, data, path)


def _load_stdin(stream: TextIO, max_bytes: int) -> list[Manifest]:
    # Prefer the byte layer so decoding is UTF-8 whatever the locale says.
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is not None:
            raw = buffer.read(max_bytes + 1)
            if len(raw) > max_bytes:
                raise ManifestError(_too_large(STDIN, None, max_bytes))
            text, data = _decode(raw, STDIN)
            return _load(text, data, STDIN)
        chars = stream.read(max_bytes + 1)
    except UnicodeDecodeError:
        raise ManifestError(f"{STDIN}: not valid UTF-8") from None
    except OSError as e:
        raise ManifestError(f"{STDIN}: cannot read: {e.strerror}") from None
    if len(chars) > max_bytes:
        raise ManifestError(_too_large(STDIN, None, max_bytes))
    return load_text(chars, STDIN, max_bytes=max_bytes)


def _decode(raw: bytes, source: str) -> tuple[str, bytes]:
    """UTF-8 text and its bytes, without a BOM."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ManifestError(f"{source}: file is UTF-16 encoded; save it as UTF-8")
    try:
        return raw.decode("utf-8"), raw
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ManifestError(
            f"{source}:{line}: not valid UTF-8 (byte 0x{raw[e.start]:02x} at offset {e.start})"
        ) from None


def _size(n: int) -> str:
    if n >= 2**20 and n % 2**20 == 0:
        return f"{n // 2**20} MiB"
    if n >= 2**10 and n % 2**10 == 0:
        return f"{n // 2**10} KiB"
    return f"{n} bytes"


def _too_large(source: str, size: int | None, limit: int) -> str:
    what = f"is {size} bytes" if size is not None else f"is more than {limit} bytes"
    return f"{source}: input {what}, larger than the {_size(limit)} limit"


# ------------------------------------------------------------------------- dispatch


def _load(text: str, data: bytes, source: str) -> list[Manifest]:
    docs: list[_Doc]
    if source.endswith(".json"):
        docs = _parse_json(text, source)
    elif text.lstrip(" \t\r\n").startswith("{"):
        # kubectl sniffs for "{" too, but then insists on JSON; a YAML flow
        # mapping such as "{kind: Pod}" is valid YAML, so fall back to it.
        try:
            docs = _parse_json(text, source)
        except _JsonSyntaxError:
            docs = _parse_yaml(data, source)
    else:
        docs = _parse_yaml(data, source)
    out: list[Manifest] = []
    for doc in docs:
        if doc.value is None:
            continue  # empty, comment-only or "null" document: skipped, as kubectl does
        _flatten(doc.value, source, doc.number, doc.line, "", doc.line_of, out)
    return out


@dataclass(slots=True)
class _Doc:
    value: Any
    number: int
    line: int
    #: Line of a mapping that is a list element (for List items), if known.
    line_of: Callable[[object], int | None]


def _flatten(
    value: Any,
    source: str,
    number: int,
    line: int,
    path: str,
    line_of: Callable[[object], int | None],
    out: list[Manifest],
) -> None:
    where = f"{source}:{line}: document {number}{': ' + path if path else ''}"
    if not isinstance(value, dict):
        raise ManifestError(
            f"{where}: expected a mapping with apiVersion and kind, found {describe_value(value)}"
        )
    _check_type_meta(value, where)
    kind, api_version = value["kind"], value["apiVersion"]
    is_list = kind == "List" or (kind.endswith("List") and api_version == "v1" and "items" in value)
    if not is_list:
        out.append(Manifest(value, source, number, line))
        return
    items = value.get("items")
    if items is None:
        return
    if not isinstance(items, list):
        raise ManifestError(f"{where}: items must be a list, found {describe_value(items)}")
    for i, item in enumerate(items):
        item_line = line_of(item) or line
        _flatten(item, source, number, item_line, f"{path + '.' if path else ''}items[{i}]",
                 line_of, out)


def _check_type_meta(obj: dict[str, Any], where: str) -> None:
    missing: list[str] = []
    for field in ("apiVersion", "kind"):
        v = obj.get(field)
        if v is None or v == "":
            missing.append(field)
        elif not isinstance(v, str):
            raise ManifestError(f"{where}: {field} must be a string, found {describe_value(v)}")
    if missing:
        raise ManifestError(f"{where}: {' and '.join(missing)} not set")


def describe_value(value: Any) -> str:
    """How an error message names a wrong value: ``a string ("x")``, ``a list``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({json.dumps(value[:40])})"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _copy(value: Any) -> Any:
    """Deep copy of plain data, so an alias never shares objects with its anchor."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


# ----------------------------------------------------------------------------- YAML


class _Events(Protocol):
    """The event interface shared by PyYAML's C and pure-Python parsers."""

    def check_event(self, *choices: type[yaml.Event]) -> bool: ...
    def peek_event(self) -> Any: ...
    def get_event(self) -> Any: ...
    def dispose(self) -> None: ...


# We use only the safe loader's *parser* (libyaml when available, for speed) and
# build values from its events ourselves: PyYAML's composer recurses in C without
# a depth limit and its constructor shares objects between aliases (so a billion
# laughs costs nothing until something walks it), and neither gives positions
# for values or lets us refuse bad input before doing the damage.
_LOADER: Callable[[bytes], _Events] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG = "tag:yaml.org,2002:"
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_BOOLS = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}
# PyYAML's YAML 1.1 patterns minus the base-60 forms (see the module docstring).
_INT_RE = re.compile(r"[-+]?(?:0b[01_]+|0[0-7_]+|0|[1-9][0-9_]*|0x[0-9a-fA-F_]+)")
_FLOAT_RE = re.compile(
    r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?"
    r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN)"
)


class _NotANumber(ValueError):
    pass


def _to_int(text: str) -> int:
    s = text.replace("_", "")
    sign = -1 if s.startswith("-") else 1
    if s[:1] in ("+", "-"):
        s = s[1:]
    if s.startswith("0b"):
        return sign * int(s[2:], 2)
    if s.startswith("0x"):
        return sign * int(s[2:], 16)
    if s.startswith("0") and len(s) > 1:
        return sign * int(s, 8)
    return sign * int(s)


def _to_float(text: str) -> float:
    s = text.replace("_", "").lower()
    sign = -1.0 if s.startswith("-") else 1.0
    if s[:1] in ("+", "-"):
        s = s[1:]
    if s in (".inf", ".nan"):
        raise _NotANumber(text)
    value = sign * float(s)
    if not math.isfinite(value):
        raise _NotANumber(text)
    return value


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


class _YamlReader:
    """Builds plain values from parser events, enforcing the limits as it goes."""

    def __init__(self, events: _Events, source: str) -> None:
        self.events = events
        self.source = source
        self.alias_nodes = 0  # per file: many small documents must not add up
        #: anchor -> (value, node count, height); None while the node is being built.
        self.anchors: dict[str, tuple[Any, int, int] | None] = {}
        #: id(mapping that is a sequence element) -> its 1-based line.
        self.lines: dict[int, int] = {}

    def error(self, mark: Any, message: str) -> ManifestError:
        return ManifestError(f"{self.source}:{mark.line + 1}:{mark.column + 1}: {message}")

    def documents(self) -> list[_Doc]:
        events = self.events
        docs: list[_Doc] = []
        events.get_event()  # StreamStartEvent
        number = 0
        while not events.check_event(yaml.StreamEndEvent):
            events.get_event()  # DocumentStartEvent
            number += 1
            line = events.peek_event().start_mark.line + 1
            self.anchors = {}  # anchors are scoped to their document
            value, _, _ = self.node(0)
            events.get_event()  # DocumentEndEvent
            docs.append(_Doc(value, number, line, lambda o: self.lines.get(id(o))))
        return docs

    def node(self, depth: int) -> tuple[Any, int, int]:
        """Next node as (value, node count, height); ``depth`` containers enclose it."""
        ev = self.events.get_event()
        if isinstance(ev, yaml.AliasEvent):
            return self.alias(ev, depth)
        anchor = ev.anchor
        if anchor is not None:
            self.anchors[anchor] = None
        result: tuple[Any, int, int]
        if isinstance(ev, yaml.ScalarEvent):
            result = (self.scalar(ev), 1, 0)
        elif isinstance(ev, yaml.SequenceStartEvent):
            result = self.sequence(ev, depth)
        elif isinstance(ev, yaml.MappingStartEvent):
            result = self.mapping(ev, depth)
        else:  # pragma: no cover - the parser guarantees a node here
            raise self.error(ev.start_mark, f"unexpected {type(ev).__name__}")
        if anchor is not None:
            self.anchors[anchor] = result
        return result

    def alias(self, ev: yaml.AliasEvent, depth: int) -> tuple[Any, int, int]:
        name = ev.anchor
        if name is None or name not in self.anchors:
            raise self.error(ev.start_mark, f"found undefined alias *{name}")
        entry = self.anchors[name]
        if entry is None:
            raise self.error(ev.start_mark, f"alias *{name} refers to a node that contains it")
        value, count, height = entry
        if depth + height > MAX_DEPTH:
            raise self.error(ev.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
        # Charge the expansion before copying anything: refusing costs nothing.
        self.alias_nodes += count
        if self.alias_nodes > MAX_ALIAS_NODES:
            raise self.error(
                ev.start_mark,
                f"aliases expand to more than {MAX_ALIAS_NODES} nodes (at *{name}); "
                "refusing a possible \"billion laughs\" document",
            )
        return _copy(value), count, height

    def enter(self, ev: Any, depth: int, tags: tuple[str, ...]) -> None:
        if depth + 1 > MAX_DEPTH:
            # Raised at the first level too deep: the parser's cost grows with
            # the square of nesting, so we stop reading right here.
            raise self.error(ev.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
        if ev.tag not in (None, "!", *tags):
            raise self.error(ev.start_mark, f"unsupported tag {_short_tag(ev.tag)}")

    def sequence(self, ev: yaml.SequenceStartEvent, depth: int) -> tuple[Any, int, int]:
        self.enter(ev, depth, (_TAG + "seq",))
        items: list[Any] = []
        count, height = 1, 0
        events = self.events
        while not events.check_event(yaml.SequenceEndEvent):
            line = events.peek_event().start_mark.line + 1
            value, n, h = self.node(depth + 1)
            if isinstance(value, dict):
                self.lines[id(value)] = line
            items.append(value)
            count += n
            height = max(height, h)
        events.get_event()
        return items, count, height + 1

    def mapping(self, ev: yaml.MappingStartEvent, depth: int) -> tuple[Any, int, int]:
        self.enter(ev, depth, (_TAG + "map",))
        result: dict[str, Any] = {}
        key_lines: dict[str, int] = {}
        merged: list[dict[str, Any]] = []
        count, height = 1, 0
        events = self.events
        while not events.check_event(yaml.MappingEndEvent):
            key_ev = events.peek_event()
            mark = key_ev.start_mark
            if (isinstance(key_ev, yaml.ScalarEvent) and key_ev.value == "<<"
                    and key_ev.tag is None and key_ev.implicit[0]):
                events.get_event()
                value, n, h = self.node(depth + 1)
                merged.extend(self.merge_sources(value, mark))
            else:
                key, n, h = self.node(depth + 1)
                if not isinstance(key, str):
                    raise self.error(mark, self.bad_key(key_ev, key))
                if key in key_lines:
                    raise self.error(
                        mark, f"duplicate key {json.dumps(key)} (first at line {key_lines[key]})"
                    )
                key_lines[key] = mark.line + 1
                value, n2, h2 = self.node(depth + 1)
                result[key] = value
                n, h = n + n2, max(h, h2)
            count += n
            height = max(height, h)
        events.get_event()
        if merged:
            # YAML merge: explicit keys win over merged ones, earlier sources
            # win over later ones.
            base: dict[str, Any] = {}
            for source in merged:
                for k, v in source.items():
                    base.setdefault(k, v)
            base.update(result)
            result = base
        return result, count, height + 1

    def merge_sources(self, value: Any, mark: Any) -> list[dict[str, Any]]:
        if isinstance(value, dict):
            return [value]
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            return list(value)
        raise self.error(mark, "merge key << needs a mapping or a list of mappings")

    @staticmethod
    def bad_key(key_ev: Any, key: Any) -> str:
        what = describe_value(key).split(" (")[0]  # "a number", not "a number (80)"
        if isinstance(key_ev, yaml.ScalarEvent):
            text = key_ev.value
            return (f"mapping key {text or '(empty)'} reads as {what}, not a string; "
                    f"quote it ({json.dumps(text)}) if it is a name")
        if isinstance(key_ev, yaml.AliasEvent):
            return f"mapping key *{key_ev.anchor} is {what}, not a string"
        return f"mapping key is {what}; keys must be strings"

    def scalar(self, ev: yaml.ScalarEvent) -> Any:
        text, tag = ev.value, ev.tag
        if tag is None:
            if not ev.implicit[0]:
                return text  # quoted: always a string
            return self.plain(ev)
        if tag == "!" or tag in (_TAG + "str", _TAG + "timestamp"):
            return text
        try:
            if tag == _TAG + "null":
                return None
            if tag == _TAG + "bool":
                return _BOOLS[text]
            if tag == _TAG + "int":
                return _to_int(text)
            if tag == _TAG + "float":
                return _to_float(text)
        except _NotANumber:
            raise self.error(ev.start_mark, self.not_finite(text)) from None
        except (KeyError, ValueError):
            raise self.error(
                ev.start_mark, f"cannot read {json.dumps(text)} as {_short_tag(tag)}"
            ) from None
        raise self.error(ev.start_mark, f"unsupported tag {_short_tag(tag)}")

    def plain(self, ev: yaml.ScalarEvent) -> Any:
        text: str = ev.value
        if text in _NULLS:
            return None
        if text in _BOOLS:
            return _BOOLS[text]
        if text[0] in "-+0123456789.":
            try:
                if _INT_RE.fullmatch(text):
                    return _to_int(text)
                if _FLOAT_RE.fullmatch(text):
                    return _to_float(text)
            except _NotANumber:
                raise self.error(ev.start_mark, self.not_finite(text)) from None
            except ValueError:
                return text  # e.g. "0x_": matches the pattern, has no digits
        return text

    @staticmethod
    def not_finite(text: str) -> str:
        return (f"{text} is not a finite number (JSON has no NaN or Infinity); "
                f"quote it if it is a string")


def _parse_yaml(data: bytes, source: str) -> list[_Doc]:
    events: _Events | None = None
    try:
        # Inside the try: the pure-Python reader checks the text when created.
        events = _LOADER(data)
        return _YamlReader(events, source).documents()
    except yaml.MarkedYAMLError as e:
        raise ManifestError(_yaml_message(e, source)) from None
    except ReaderError as e:
        # libyaml reports a byte offset, the pure-Python reader a character index.
        if _LOADER is yaml.SafeLoader:
            text = data.decode("utf-8")[: e.position]
        else:
            text = data[: e.position].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        # libyaml may report a raw byte value that is no code point: show it as is.
        char = chr(e.character) if isinstance(e.character, int) and \
            0 <= e.character < 0x110000 else e.character
        raise ManifestError(
            f"{source}:{line}:{col}: character {char!r} is not allowed in YAML"
        ) from None
    finally:
        if events is not None:
            events.dispose()


#: libyaml's own words for its nesting cap.
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


def _yaml_message(e: yaml.MarkedYAMLError, source: str) -> str:
    mark = e.problem_mark or e.context_mark
    problem = e.problem or e.context or "invalid YAML"
    if problem == _LIBYAML_TOO_DEEP:
        # libyaml (PyYAML >= 6.0.3's C loader) looks ahead and has its own cap at
        # 1000 levels, which it may hit before our reader reaches level 101 of a
        # flow collection: one message for one limit, whoever noticed it first.
        problem = f"nesting deeper than {MAX_DEPTH} levels"
    where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
    message = f"{where}: {problem}"
    # The context ("while scanning a simple key") often points at the real
    # mistake a few lines earlier, so name it when it is somewhere else.
    if e.problem and e.context and e.context_mark is not None and mark is not None and (
        e.context_mark.line != mark.line
    ):
        message += f" ({e.context} at line {e.context_mark.line + 1})"
    return message


# ----------------------------------------------------------------------------- JSON


class _JsonSyntaxError(ManifestError):
    """Malformed JSON; for sniffed (not ``.json``) input we then try YAML."""


# The stdlib's pure-Python object/array/string parsers, driven by our own
# scan function (the C scanner cannot be hooked). That gives us positions for
# List items and duplicate keys, a depth cap before Python's recursion limit,
# and NaN/Infinity refused where they occur.
_JSONObject: Callable[..., tuple[Any, int]] = json.decoder.JSONObject  # type: ignore[attr-defined]
_JSONArray: Callable[..., tuple[Any, int]] = json.decoder.JSONArray  # type: ignore[attr-defined]
_scanstring: Callable[[str, int, bool], tuple[str, int]] = (
    json.decoder.scanstring  # type: ignore[attr-defined]
)
_NUMBER_RE = json.scanner.NUMBER_RE
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _skip_ws(text: str, idx: int) -> int:
    m = _WHITESPACE.match(text, idx)
    return m.end() if m else idx


class _JsonReader:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.depth = 0
        self.memo: dict[str, str] = {}
        #: id(object) -> offset of its "{".
        self.starts: dict[int, int] = {}
        self._newlines: list[int] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_left(self._newlines, offset)
        col = offset - (self._newlines[line - 1] + 1 if line else 0)
        return line + 1, col + 1

    def error(self, offset: int, message: str) -> ManifestError:
        line, col = self.position(offset)
        return ManifestError(f"{self.source}:{line}:{col}: {message}")

    def line_of(self, obj: object) -> int | None:
        offset = self.starts.get(id(obj))
        return None if offset is None else self.position(offset)[0]

    def documents(self) -> list[_Doc]:
        text = self.text
        docs: list[_Doc] = []
        idx = _skip_ws(text, 0)
        while idx < len(text):
            try:
                value, end = self.scan(text, idx)
            except StopIteration as e:
                raise self.syntax(e.value, "Expecting value") from None
            except json.JSONDecodeError as e:
                raise self.syntax(e.pos, e.msg) from None
            docs.append(_Doc(value, len(docs) + 1, self.position(idx)[0], self.line_of))
            idx = _skip_ws(text, end)
        return docs

    def syntax(self, offset: int, message: str) -> _JsonSyntaxError:
        line, col = self.position(offset)
        return _JsonSyntaxError(f"{self.source}:{line}:{col}: {message}")

    def enter(self, idx: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(idx, f"nesting deeper than {MAX_DEPTH} levels")

    def scan(self, s: str, idx: int) -> tuple[Any, int]:
        """Parse the value at ``idx``; the protocol of ``json.scanner``'s scan_once."""
        try:
            ch = s[idx]
        except IndexError:
            raise StopIteration(idx) from None
        if ch == '"':
            return _scanstring(s, idx + 1, True)
        if ch == "{":
            self.enter(idx)
            pairs, end = _JSONObject((s, idx + 1), True, self.scan, None, _pairs, self.memo)
            self.depth -= 1
            obj: dict[str, Any] = {}
            for k, v in pairs:
                if k in obj:
                    raise self.error(idx, f"object has duplicate key {json.dumps(k)}")
                obj[k] = v
            self.starts[id(obj)] = idx
            return obj, end
        if ch == "[":
            self.enter(idx)
            result = _JSONArray((s, idx + 1), self.scan)
            self.depth -= 1
            return result
        for word, value in (("null", None), ("true", True), ("false", False)):
            if s.startswith(word, idx):
                return value, idx + len(word)
        m = _NUMBER_RE.match(s, idx)
        if m is not None:
            integer, frac, exp = m.groups()
            try:
                if frac or exp:
                    number: int | float = float(integer + (frac or "") + (exp or ""))
                    if not math.isfinite(number):
                        raise self.error(idx, f"number {m.group()} is out of range")
                else:
                    number = int(integer)
            except ValueError:  # more digits than int() accepts
                raise self.error(idx, "number is too long") from None
            return number, m.end()
        for word in ("NaN", "Infinity", "-Infinity"):
            if s.startswith(word, idx):
                raise self.error(idx, f"{word} is not valid JSON")
        raise StopIteration(idx)


def _pairs(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return pairs


def _parse_json(text: str, source: str) -> list[_Doc]:
    return _JsonReader(text, source).documents()


#: One parsed document with line information (``value``, ``number``, ``line``,
#: ``line_of(obj)``), for callers that read non-manifest YAML the same safe way.
Document = _Doc


def parse_documents(data: bytes, source: str, *, json: bool = False) -> list[Document]:
    """Parse YAML (or JSON) with the loader's safety limits and line tracking, but
    without requiring Kubernetes' ``apiVersion``/``kind`` (e.g. node configs).

    Raises :class:`ManifestError` naming ``source`` and the line; input that is not
    UTF-8 (a BOM is skipped) is such an error too, never a ``UnicodeDecodeError``.
    """
    # Decode up front, as load_text does: neither parser may see invalid UTF-8
    # (the JSON one would raise UnicodeDecodeError, libyaml reports garbage
    # "characters" that are not code points).
    text, data = _decode(data, source)
    if json:
        return _parse_json(text, source)
    return _parse_yaml(data, source)


# ------------------------------------------------------------------------------ dump


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    # Multi-line strings as literal blocks, as kubectl prints them; the emitter
    # falls back to quoting when a literal block could not hold the text.
    return dumper.represent_scalar(_TAG + "str", data, style="|" if "\n" in data else None)


def _setup_dumper(cls: Any) -> None:
    cls.add_representer(str, _represent_str)
    # A string is quoted when the dumper's resolver would read it as something
    # else. PyYAML's resolver already covers YAML 1.1 (timestamps, base 60,
    # yes/no ...); add what go-yaml (kubectl) reads as non-strings, so the
    # output means the same to kubectl: y/n booleans and YAML 1.2 numbers
    # such as 1e3, 08 or 0o17.
    cls.add_implicit_resolver(_TAG + "bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
    cls.add_implicit_resolver(
        _TAG + "float",
        re.compile(r"^[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?$"),
        list("-+.0123456789"),
    )
    cls.add_implicit_resolver(_TAG + "int", re.compile(r"^[-+]?0o[0-7_]+$"), list("-+0"))


class _PyDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # kubectl never prints anchors; repeated objects are written out


_setup_dumper(_PyDumper)
_DUMPER: type[Any] = _PyDumper

if hasattr(yaml, "CSafeDumper"):

    class _CDumper(yaml.CSafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    _setup_dumper(_CDumper)
    _DUMPER = _CDumper


def dump_yaml(obj: Any) -> str:
    """Block-style YAML as ``kubectl -o yaml`` prints it.

    Keys keep insertion order, no anchors or aliases, strings that would read
    back as another type (``"true"``, ``"1.0"``, ``"08"``, ``"null"``, ``""``)
    are quoted, long strings are not folded, non-ASCII is written as is.
    ``load_text(dump_yaml(x))`` gives back ``x`` for any object it accepts.
    """
    text: str = yaml.dump(
        obj,
        Dumper=_DUMPER,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=2**30,  # never fold long strings
    )
    # Both emitters may end with the "..." document-end marker (after a bare
    # root scalar, or libyaml after a keep-chomped "|+" block). At the end of
    # a stream it is optional and kubectl never prints it.
    if text.endswith("\n...\n"):
        text = text[:-4]
    return text
