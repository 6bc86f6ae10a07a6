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

import os
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import yaml

from .manifest_doc import MAX_ALIAS_NODES as MAX_ALIAS_NODES
from .manifest_doc import MAX_DEPTH as MAX_DEPTH
from .manifest_doc import ManifestError as ManifestError
from .manifest_doc import _Doc
from .manifest_doc import describe_value as describe_value
from .manifest_json import _JsonSyntaxError, _parse_json
from .manifest_yaml import _DUMPER, _LOADER, _read_yaml, _write_yaml
from .manifest_yaml import _PyDumper as _PyDumper

if hasattr(yaml, "CSafeDumper"):
    from .manifest_yaml import _CDumper as _CDumper

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
#: Extensions read from directories, as kubectl's builder (``FileExtensions``).
EXTENSIONS = (".json", ".yaml", ".yml")

STDIN = "<stdin>"


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


def _parse_yaml(data: bytes, source: str) -> list[_Doc]:
    # Reads this module's _LOADER at call time, so a caller (the tests) can swap
    # in PyYAML's pure-Python parser by setting manifest._LOADER.
    return _read_yaml(data, source, _LOADER)


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


def dump_yaml(obj: Any) -> str:
    """Block-style YAML as ``kubectl -o yaml`` prints it.

    Keys keep insertion order, no anchors or aliases, strings that would read
    back as another type (``"true"``, ``"1.0"``, ``"08"``, ``"null"``, ``""``)
    are quoted, long strings are not folded, non-ASCII is written as is.
    ``load_text(dump_yaml(x))`` gives back ``x`` for any object it accepts.
    """
    # Reads this module's _DUMPER at call time: tests swap in _PyDumper here.
    return _write_yaml(obj, _DUMPER)
