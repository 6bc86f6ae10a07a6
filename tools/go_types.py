"""Read the type declarations of a Kubernetes API package's Go source.

Kubernetes' ``types.go`` files are written in a small, regular subset of Go,
and only that subset is read here:

* the ``import`` block (alias -> import path);
* ``type Name struct { ... }`` with one field per line, each field a Go name
  (or an embedded type), a type expression and a back-quoted struct tag;
* ``type Name Underlying`` and ``type Name = Other`` (named strings, lists,
  maps, aliases);
* typed string constants (``PodPending PodPhase = "Pending"``), alone or in a
  ``const ( ... )`` block, which give the values of ``+enum`` types;
* ``// +marker`` and ``// +marker=value`` comment lines, which attach to the
  next type or field declaration (``+optional``, ``+listType=map``, ...).

Anything else at the top level (functions, variables) is skipped; anything
unexpected *inside* a struct is an error naming the line, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["GoField", "GoNamed", "GoPackage", "GoStruct", "GoSyntaxError", "parse", "strip"]


class GoSyntaxError(ValueError):
    """A line the reader does not understand, with its number."""


Markers = dict[str, list[str]]


@dataclass
class GoField:
    """One struct field. ``name`` is empty for an embedded type; ``json`` is
    the JSON name from the tag (empty for ``json:",inline"``)."""

    name: str
    type: str
    json: str
    inline: bool
    omitempty: bool
    tags: dict[str, str]
    markers: Markers


@dataclass
class GoStruct:
    name: str
    fields: list[GoField]
    markers: Markers


@dataclass
class GoNamed:
    """``type Name Underlying`` (``alias`` for ``type Name = Other``)."""

    name: str
    type: str
    markers: Markers
    alias: bool = False


@dataclass
class GoPackage:
    imports: dict[str, str] = field(default_factory=dict)
    structs: dict[str, GoStruct] = field(default_factory=dict)
    named: dict[str, GoNamed] = field(default_factory=dict)
    constants: dict[str, list[str]] = field(default_factory=dict)

    def merge(self, other: GoPackage) -> None:
        """Add the declarations of another file of the same package."""
        self.imports.update(other.imports)
        self.structs.update(other.structs)
        self.named.update(other.named)
        for type_name, values in other.constants.items():
            self.constants.setdefault(type_name, []).extend(values)


_IMPORT_LINE = re.compile(r'^(?:(\w+)\s+)?"([^"]+)"$')
_STRUCT_START = re.compile(r"^type\s+(\w+)\s+struct\s*\{\s*$")
_EMPTY_STRUCT = re.compile(r"^type\s+(\w+)\s+struct\s*\{\s*\}\s*$")
_NAMED = re.compile(r"^type\s+(\w+)\s+(=\s*)?([\w.\[\]*]+)\s*$")
_FIELD = re.compile(r"^(?:(\w+)\s+)?(\*?[\w.\[\]*{}]+)\s+`([^`]*)`\s*(//.*)?$")
_TAG = re.compile(r'(\w+):"([^"]*)"')
_CONST = re.compile(r'^(?:const\s+)?(\w+)\s+(\w+)\s*=\s*"([^"]*)"\s*(//.*)?$')
_MARKER = re.compile(r"^//\s*\+([\w:.\-/]+)(?:=(.*))?$")


def _marker(line: str, markers: Markers) -> None:
    found = _MARKER.match(line)
    if found:
        markers.setdefault(found.group(1), []).append((found.group(2) or "").strip())


def _field(line: str, number: int, markers: Markers) -> GoField:
    found = _FIELD.match(line)
    if not found:
        raise GoSyntaxError(f"line {number}: not a struct field: {line!r}")
    name: str = found.group(1) or ""
    type_expr: str = found.group(2)
    tags: dict[str, str] = dict(_TAG.findall(found.group(3)))
    # No json tag: encoding/json uses the Go name (only custom-marshalled
    # types, which the generator maps as a whole, have such fields).
    json_name, _, options = tags.get("json", name).partition(",")
    return GoField(
        name=name, type=type_expr, json=json_name,
        inline="inline" in options.split(","), omitempty="omitempty" in options.split(","),
        tags=tags, markers=markers,
    )


def _declaration_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of ``text`` outside block comments and outside
    functions and variables (skipped with their bodies, braces counted)."""
    depth = 0
    in_block_comment = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if in_block_comment or line.startswith("/*"):
            in_block_comment = "*/" not in line
            continue
        if depth:
            depth += raw.count("{") - raw.count("}")
            continue
        if line.startswith(("func ", "var ")):
            depth = raw.count("{") - raw.count("}")
            continue
        yield number, raw


def parse(text: str) -> GoPackage:
    """The declarations of one Go file (see the module docstring)."""
    out = GoPackage()
    markers: Markers = {}
    struct: GoStruct | None = None
    in_imports = in_consts = False
    for number, raw in _declaration_lines(text):
        line = raw.strip()
        if struct is not None:
            if line == "}":
                out.structs[struct.name] = struct
                struct, markers = None, {}
            elif line.startswith("//"):
                _marker(line, markers)
            elif line:
                struct.fields.append(_field(line, number, markers))
                markers = {}
            else:
                markers = {}  # markers belong to the comment right above a field
            continue
        if in_imports:
            if line == ")":
                in_imports = False
            elif line and not line.startswith("//"):
                found = _IMPORT_LINE.match(line)
                if not found:
                    raise GoSyntaxError(f"line {number}: not an import: {line!r}")
                path = found.group(2)
                out.imports[found.group(1) or path.rsplit("/", 1)[-1]] = path
            continue
        if in_consts:
            if line == ")":
                in_consts = False
            else:
                constant = _CONST.match(line)
                if constant:
                    out.constants.setdefault(constant.group(2), []).append(constant.group(3))
            continue
        if line.startswith("//"):
            _marker(line, markers)
            continue
        if not line:
            markers = {}
            continue
        if line == "import (":
            in_imports = True
        elif line.startswith("import "):
            found = _IMPORT_LINE.match(line[len("import "):].strip())
            if found:
                path = found.group(2)
                out.imports[found.group(1) or path.rsplit("/", 1)[-1]] = path
        elif line == "const (":
            in_consts = True
        elif line.startswith("const "):
            constant = _CONST.match(line)
            if constant:
                out.constants.setdefault(constant.group(2), []).append(constant.group(3))
        elif empty := _EMPTY_STRUCT.match(line):
            out.structs[empty.group(1)] = GoStruct(empty.group(1), [], markers)
        elif start := _STRUCT_START.match(line):
            struct = GoStruct(start.group(1), [], markers)
            markers = {}
        elif _NAMED.match(line):
            found = _NAMED.match(line)
            assert found is not None
            out.named[found.group(1)] = GoNamed(
                found.group(1), found.group(3), markers, alias=bool(found.group(2)))
        elif line.startswith("type "):
            raise GoSyntaxError(f"line {number}: unsupported type declaration: {line!r}")
        markers = {}
    if struct is not None:
        raise GoSyntaxError(f"struct {struct.name} is not closed")
    return out


def strip(text: str) -> str:
    """``text`` without what :func:`parse` does not read: doc comments (marker
    lines are kept), functions and variables. Parsing the result gives the
    same declarations as parsing ``text``."""
    kept: list[str] = []
    for _, raw in _declaration_lines(text):
        line = raw.strip()
        if line.startswith("//") and not _MARKER.match(line):
            continue
        if not line and (not kept or not kept[-1].strip()):
            continue
        kept.append(raw.rstrip())
    return "\n".join(kept).strip() + "\n"
