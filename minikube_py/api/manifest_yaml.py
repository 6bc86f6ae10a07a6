"""The YAML dialect of manifests: reading documents safely, writing kubectl-style YAML.

Split off :mod:`.manifest`, whose docstring states the rules: values are built
from parser events with the depth and alias-expansion limits enforced as they
are read; output quotes every string kubectl (go-yaml) would read as another type.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any, Protocol

import yaml
from yaml.reader import ReaderError

from .jsoncopy import deep_copy
from .manifest_doc import MAX_ALIAS_NODES, MAX_DEPTH, ManifestError, _Doc, describe_value

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
        # A copy, so an alias never shares objects with its anchor.
        return deep_copy(value), count, height

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


def _read_yaml(data: bytes, source: str, loader: Callable[[bytes], _Events]) -> list[_Doc]:
    """The documents of ``data``, parsed by ``loader`` (:data:`_LOADER` or ``SafeLoader``)."""
    events: _Events | None = None
    try:
        # Inside the try: the pure-Python reader checks the text when created.
        events = loader(data)
        return _YamlReader(events, source).documents()
    except yaml.MarkedYAMLError as e:
        raise ManifestError(_yaml_message(e, source)) from None
    except ReaderError as e:
        # libyaml reports a byte offset, the pure-Python reader a character index.
        if loader is yaml.SafeLoader:
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


def _write_yaml(obj: Any, dumper: type[Any]) -> str:
    """:func:`~.manifest.dump_yaml` with ``dumper`` (:data:`_DUMPER` or :class:`_PyDumper`)."""
    text: str = yaml.dump(
        obj,
        Dumper=dumper,
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
