"""The JSON reader of manifests: a stream of JSON values with line numbers.

Split off :mod:`.manifest`. The stdlib's pure-Python decoder driven by our own
scanner, for positions of List items and duplicate keys, the depth cap, and
``NaN``/``Infinity`` refused where they occur.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import math
import re
from collections.abc import Callable
from typing import Any

from .manifest_doc import MAX_DEPTH, ManifestError, _Doc


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
