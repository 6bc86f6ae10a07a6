#!/usr/bin/env python3
"""Generate ``minikube_py/api/generated/`` — the field schemas — from Kubernetes' Go types.

Usage::

    python tools/gen_schemas.py                 # regenerate the schema modules
    python tools/gen_schemas.py --check         # exit 1 if any is out of date
    python tools/gen_schemas.py sync --mirror DIR [--tag v0.32.9]

Inputs, all in this repository:

* ``tools/upstream/<module>/*.go``: the type declarations of each API package
  (``k8s.io/api``, ``k8s.io/apimachinery``, ``k8s.io/apiextensions-apiserver``,
  ``k8s.io/kube-aggregator`` at one tag), with their doc comments left out and
  the ``// +marker`` lines kept. ``sync`` refreshes them from git mirrors of
  those four repositories (``DIR/kubernetes+api/repo`` and so on, as the
  workplace's ``fetch`` lays them out) and records the commit in each header;
* ``tools/schema_text/<module>.yaml``: our own short description of every
  type (key ``.``) and field (its JSON name), by Go type name.

From the Go declarations come the field names (the ``json`` tag), JSON types,
integer widths, required fields (neither ``omitempty`` nor ``+optional``, or
``+required``), ``patchStrategy`` / ``patchMergeKey`` tags, ``+listType`` /
``+listMapKey`` / ``+mapType`` / ``+structType`` markers, inline embedding and
the values of ``+enum`` types, as Kubernetes' OpenAPI generator reads them.
Every object shape of a package becomes a module-level :class:`Schema` named
after its Go type; ``KINDS`` maps each top-level kind (a type with ``TypeMeta``
inline and ``ObjectMeta`` metadata) to its schema.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from go_types import GoPackage, GoStruct, parse, strip

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT / "tools" / "upstream"
TEXT = ROOT / "tools" / "schema_text"
OUTPUT = ROOT / "minikube_py" / "api" / "generated"
TAG = "v0.32.9"


@dataclass(frozen=True)
class Package:
    module: str  # Python module name, e.g. core_v1
    repo: str  # mirror directory name, e.g. kubernetes+api
    directory: str  # package directory inside the repository
    files: tuple[str, ...]
    go_path: str  # Go import path
    prefix: str  # OpenAPI definition-name prefix
    title: str  # group/version as users write it


def _api(directory: str, title: str) -> Package:
    """A package of ``k8s.io/api`` (``core/v1``, ...)."""
    return Package(directory.replace("/", "_"), "kubernetes+api", directory, ("types.go",),
                   f"k8s.io/api/{directory}", f"io.k8s.api.{directory.replace('/', '.')}.",
                   title)


PACKAGES: tuple[Package, ...] = (
    Package("meta_v1", "kubernetes+apimachinery", "pkg/apis/meta/v1", ("types.go",),
            "k8s.io/apimachinery/pkg/apis/meta/v1", "io.k8s.apimachinery.pkg.apis.meta.v1.",
            "meta.k8s.io/v1"),
    *(_api(directory, title) for directory, title in (
        ("core/v1", "core/v1"),
        ("apps/v1", "apps/v1"),
        ("authentication/v1", "authentication.k8s.io/v1"),
        ("authorization/v1", "authorization.k8s.io/v1"),
        ("batch/v1", "batch/v1"),
        ("autoscaling/v1", "autoscaling/v1"),
        ("autoscaling/v2", "autoscaling/v2"),
        ("coordination/v1", "coordination.k8s.io/v1"),
        ("discovery/v1", "discovery.k8s.io/v1"),
        ("networking/v1", "networking.k8s.io/v1"),
        ("policy/v1", "policy/v1"),
        ("rbac/v1", "rbac.authorization.k8s.io/v1"),
        ("scheduling/v1", "scheduling.k8s.io/v1"),
        ("storage/v1", "storage.k8s.io/v1"),
    )),
    Package("apiextensions_v1", "kubernetes+apiextensions-apiserver",
            "pkg/apis/apiextensions/v1", ("types.go", "types_jsonschema.go"),
            "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.",
            "apiextensions.k8s.io/v1"),
    Package("apiregistration_v1", "kubernetes+kube-aggregator", "pkg/apis/apiregistration/v1",
            ("types.go",), "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
            "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.",
            "apiregistration.k8s.io/v1"),
)

_META = "k8s.io/apimachinery/pkg/apis/meta/v1"
_EXT = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

#: Types that marshal themselves: (Go import path, name) -> constructor.
SPECIAL: dict[tuple[str, str], str] = {
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): "quantity",
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): "int_or_string",
    (_META, "Time"): "time",
    (_META, "MicroTime"): "time",
    (_META, "Duration"): "string",
    (_META, "FieldsV1"): "free_form",
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): "free_form",
    ("k8s.io/apimachinery/pkg/runtime", "Object"): "free_form",
    ("k8s.io/apimachinery/pkg/types", "UID"): "string",
    ("k8s.io/apimachinery/pkg/types", "NodeName"): "string",
    (_EXT, "JSON"): "any_value",
    (_EXT, "JSONSchemaPropsOrArray"): "any_value",
    (_EXT, "JSONSchemaPropsOrBool"): "any_value",
    (_EXT, "JSONSchemaPropsOrStringArray"): "any_value",
}

_SCALARS = {
    "string": "string", "bool": "boolean", "int32": "int32", "int64": "int64",
    "int": "int32", "float64": "number", "float32": "number", "interface{}": "any_value",
}


class GenerationError(ValueError):
    """Input the generator cannot map, naming the type and field."""


# -------------------------------------------------------------------- reading


def read_package(package: Package, source: Path = UPSTREAM) -> GoPackage:
    out = GoPackage()
    for name in package.files:
        out.merge(parse((source / package.module / name).read_text()))
    return out


def read_all(source: Path = UPSTREAM) -> dict[str, GoPackage]:
    """Go import path -> its declarations, for every package."""
    return {p.go_path: read_package(p, source) for p in PACKAGES}


def read_texts(text_dir: Path = TEXT) -> dict[str, dict[str, dict[str, str]]]:
    out: dict[str, dict[str, dict[str, str]]] = {}
    for package in PACKAGES:
        path = text_dir / f"{package.module}.yaml"
        loaded = yaml.safe_load(path.read_text()) if path.exists() else None
        out[package.module] = {t: dict(f or {}) for t, f in (loaded or {}).items()}
    return out


# ------------------------------------------------------------------- rendering


def _py(text: str) -> str:
    """A Python string literal for ``text`` (double quotes, like ruff)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _tuple(values: Iterable[str]) -> str:
    """A Python tuple literal of strings, formatted as ruff would."""
    items = [_py(v) for v in values]
    return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def _markers_value(markers: dict[str, list[str]], name: str) -> str:
    values = markers.get(name)
    return values[-1] if values else ""


@dataclass
class _Ref:
    """A resolved type: a local or foreign struct, or a constructor call."""

    struct: GoStruct | None = None
    owner: Package | None = None
    call: str = ""  # e.g. string(, enum=...) as a template with {desc}


class Generator:
    """Renders every package's module from the parsed Go declarations."""

    def __init__(self, go: dict[str, GoPackage],
                 texts: dict[str, dict[str, dict[str, str]]]) -> None:
        self.go = go
        self.texts = texts
        self.by_path = {p.go_path: p for p in PACKAGES}
        self.missing: list[str] = []
        self.used_texts: set[tuple[str, str, str]] = set()

    # ---- descriptions

    def text(self, package: Package, type_name: str, field: str = ".") -> str:
        found = self.texts.get(package.module, {}).get(type_name, {}).get(field)
        if not found:
            self.missing.append(f"{package.module}: {type_name}"
                                + ("" if field == "." else f".{field}"))
            return ""
        self.used_texts.add((package.module, type_name, field))
        return " ".join(str(found).split())

    # ---- type resolution

    def resolve_name(self, package: Package, expr: str) -> tuple[Package, str]:
        if "." in expr:
            alias, name = expr.split(".", 1)
            path = self.go[package.go_path].imports.get(alias)
            if path is None:
                raise GenerationError(f"{package.module}: unknown import alias {alias!r}")
            if (path, name) in SPECIAL:
                return Package("", "", "", (), path, "", ""), name
            if path not in self.by_path:
                raise GenerationError(f"{package.module}: {expr} is from {path}, "
                                      "which is not a generated package")
            return self.by_path[path], name
        if (package.go_path, expr) in SPECIAL:
            return Package("", "", "", (), package.go_path, "", ""), expr
        return package, expr

    def is_struct(self, package: Package, expr: str) -> GoStruct | None:
        owner, name = self.resolve_name(package, expr.lstrip("*"))
        if not owner.module:
            return None
        return self.go[owner.go_path].structs.get(name)

    def struct_ref(self, package: Package, owner: Package, name: str) -> str:
        return name if owner.module == package.module else f"{owner.module}.{name}"

    def value(self, package: Package, expr: str, desc: str, markers: dict[str, list[str]],
              tags: dict[str, str], where: str) -> str:
        """The Python expression of a value of Go type ``expr``."""
        expr = expr.lstrip("*")
        if expr == "[]byte":
            return f"byte_string({_py(desc)})" if desc else "byte_string()"
        if expr.startswith("[]"):
            item = self.value(package, expr[2:], "", {}, {}, where)
            args = [item]
            if desc:
                args.append(_py(desc))
            merge_key = tags.get("patchMergeKey", "")
            strategy = tags.get("patchStrategy", "")
            list_type = _markers_value(markers, "listType")
            map_keys = tuple(markers.get("listMapKey", ()))
            if merge_key:
                args.append(f"merge_key={_py(merge_key)}")
            if strategy:
                args.append(f"strategy={_py(strategy)}")
            if list_type:
                args.append(f"list_type={_py(list_type)}")
            if map_keys:
                args.append(f"map_keys={_tuple(map_keys)}")
            return "list_of(" + ", ".join(args) + ")"
        if expr.startswith("map["):
            value_expr = expr[expr.index("]") + 1:]
            item = self.value(package, value_expr, "", {}, {}, where)
            args = [item]
            if desc:
                args.append(_py(desc))
            map_type = _markers_value(markers, "mapType")
            if map_type:
                args.append(f"map_type={_py(map_type)}")
            return "map_of(" + ", ".join(args) + ")"
        if expr in _SCALARS:
            return f"{_SCALARS[expr]}({_py(desc)})" if desc else f"{_SCALARS[expr]}()"
        owner, name = self.resolve_name(package, expr)
        if not owner.module:
            call = SPECIAL[(owner.go_path, name)]
            return f"{call}({_py(desc)})" if desc else f"{call}()"
        go = self.go[owner.go_path]
        if name in go.structs:
            ref = self.struct_ref(package, owner, name)
            args = [ref]
            if desc:
                args.append(_py(desc))
            strategy = tags.get("patchStrategy", "")
            if strategy:
                args.append(f"strategy={_py(strategy)}")
            struct_type = _markers_value(markers, "structType")
            if struct_type:
                args.append(f"map_type={_py(struct_type)}")
            return ref if len(args) == 1 else "ref(" + ", ".join(args) + ")"
        if name in go.named:
            named = go.named[name]
            merged = {**named.markers, **markers}
            if named.type == "string" and "enum" in named.markers:
                values = sorted(set(go.constants.get(name, ())))
                enum = _tuple(values)
                return (f"string({_py(desc)}, enum={enum})" if desc
                        else f"string(enum={enum})")
            return self.value(owner, named.type, desc, merged, tags, where)
        raise GenerationError(f"{where}: unknown type {expr!r}")

    # ---- structs

    def fields(self, package: Package, struct: GoStruct) -> list[tuple[str, str]]:
        """(JSON name, Python item) pairs; inline embeds become ``**X.fields``."""
        out: list[tuple[str, str]] = []
        for go_field in struct.fields:
            if go_field.json == "-":
                continue
            where = f"{package.module}.{struct.name}.{go_field.name or go_field.type}"
            if go_field.inline:
                owner, name = self.resolve_name(package, go_field.type.lstrip("*"))
                if not owner.module or name not in self.go[owner.go_path].structs:
                    raise GenerationError(f"{where}: only structs can be inlined")
                out.append(("", f"**inline({self.struct_ref(package, owner, name)})"))
                continue
            desc = self.text(package, struct.name, go_field.json)
            out.append((go_field.json, self.value(package, go_field.type, desc,
                                                   go_field.markers, go_field.tags, where)))
        return out

    def required(self, package: Package, struct: GoStruct) -> list[str]:
        out: list[str] = []
        for go_field in struct.fields:
            if go_field.json == "-":
                continue
            if go_field.inline:
                owner, name = self.resolve_name(package, go_field.type.lstrip("*"))
                out.extend(self.required(owner, self.go[owner.go_path].structs[name]))
                continue
            # As Kubernetes' OpenAPI generator: +required wins, then +optional
            # or omitempty make a field optional.
            optional = "optional" in go_field.markers or go_field.omitempty
            if "required" in go_field.markers or not optional:
                out.append(go_field.json)
        return out

    def dependencies(self, package: Package, struct: GoStruct) -> list[str]:
        """Structs of the same package this one's fields name."""
        out: list[str] = []
        go = self.go[package.go_path]
        for go_field in struct.fields:
            expr = go_field.type.lstrip("*")
            while True:
                if expr.startswith("[]"):
                    expr = expr[2:].lstrip("*")
                elif expr.startswith("map["):
                    expr = expr[expr.index("]") + 1:].lstrip("*")
                elif expr in go.named and not go.named[expr].type.startswith(
                        ("string", "int", "bool")) and "." not in go.named[expr].type:
                    expr = go.named[expr].type.lstrip("*")
                else:
                    break
            if "." not in expr and expr in go.structs:
                out.append(expr)
        return out

    def skipped(self, package: Package, struct: GoStruct) -> bool:
        """Types with no schema of their own: left out of OpenAPI upstream, or
        marshalled by their own code (mapped by :data:`SPECIAL` instead)."""
        return (_markers_value(struct.markers, "k8s:openapi-gen") == "false"
                or (package.go_path, struct.name) in SPECIAL)

    def is_kind(self, package: Package, struct: GoStruct) -> bool:
        names = {(f.type, f.json) for f in struct.fields}
        return any(t.endswith("TypeMeta") for t, j in names if j == "") and any(
            t.endswith("ObjectMeta") and j == "metadata" for t, j in names)

    def render(self, package: Package) -> str:
        go = self.go[package.go_path]
        structs = {n: s for n, s in go.structs.items() if not self.skipped(package, s)}
        order: list[str] = []
        forward: set[str] = set()
        state: dict[str, int] = {}

        def visit(name: str) -> None:
            state[name] = 1
            for dep in self.dependencies(package, structs[name]):
                if dep not in structs:
                    continue
                if state.get(dep) == 1:
                    forward.add(dep)
                elif dep not in state:
                    visit(dep)
            state[name] = 2
            order.append(name)

        for name in sorted(structs):
            if name not in state:
                visit(name)

        body: list[str] = []
        for name in sorted(forward):
            struct = structs[name]
            body.append(f"{name} = obj(_P + {_py(name)}, {{}}, "
                        f"{_py(self.text(package, name))}{self._obj_options(package, struct)})")
        if forward:
            body.append("")
        for name in order:
            struct = structs[name]
            items = self.fields(package, struct)
            lines = [f"    {_py(k)}: {v}," if k else f"    {v}," for k, v in items]
            if name in forward:
                body.append(f"fill({name}, {{")
                body.extend(lines)
                body.append("})")
            else:
                body.append(f"{name} = obj(_P + {_py(name)}, {{")
                body.extend(lines)
                desc = self.text(package, name)
                body.append(f"}}, {_py(desc)}{self._obj_options(package, struct)})")
            body.append("")
        kinds = [n for n in order if self.is_kind(package, structs[n])]
        text = "\n".join(body)
        used = sorted(c for c in _CONSTRUCTORS if re.search(rf"\b{c}\(", text))
        imports = sorted({m for m in (p.module for p in PACKAGES)
                          if m != package.module and re.search(rf"\b{m}\.", text)})
        return _HEADER.format(
            constructors="".join(f"    {c},\n" for c in ["Schema", *used]),
            title=package.title, module=package.module,
            go_path=package.go_path, tag=TAG,
            imports=f"from . import {', '.join(imports)}\n" if imports else "",
            noqa="\n# ruff: noqa: E501\n" if any(len(ln) > 100 for ln in text.splitlines())
            else "",
            prefix=package.prefix,
            body=text,
            kinds="".join(f"    {_py(k)}: {k},\n" for k in kinds),
        )

    def _obj_options(self, package: Package, struct: GoStruct) -> str:
        out = ""
        required = self.required(package, struct)
        if required:
            out += f", required={_tuple(required)}"
        struct_type = _markers_value(struct.markers, "structType")
        if struct_type:
            out += f", map_type={_py(struct_type)}"
        return out


_HEADER = '''"""Field schemas of {title}, generated from Kubernetes' Go types. Do not edit.

Generated by ``python tools/gen_schemas.py`` from ``tools/upstream/{module}/``
(the type declarations of ``{go_path}`` at ``{tag}``) and our
descriptions in ``tools/schema_text/{module}.yaml``; edit those (or the
generator) and run it again. ``tests/unit/test_generated_schemas.py`` fails
when this file is not what the generator makes of them.
"""
{noqa}
from __future__ import annotations

from ..schema_model import (
{constructors})
{imports}
_P = "{prefix}"

{body}
#: Top-level kinds (``TypeMeta`` inline, ``ObjectMeta`` metadata) -> schema.
KINDS: dict[str, Schema] = {{
{kinds}}}
'''


def generate(source: Path = UPSTREAM, text_dir: Path = TEXT
             ) -> tuple[dict[str, str], list[str]]:
    """Module file name -> its text, and the descriptions that are missing."""
    generator = Generator(read_all(source), read_texts(text_dir))
    files = {f"{p.module}.py": generator.render(p) for p in PACKAGES}
    files["__init__.py"] = _INIT
    unused = [
        f"{module}: {type_name}" + ("" if field == "." else f".{field}")
        for module, types in generator.texts.items()
        for type_name, fields in types.items()
        for field in fields
        if (module, type_name, field) not in generator.used_texts
    ]
    problems = [f"missing description: {m}" for m in generator.missing]
    problems += [f"description of nothing: {u}" for u in unused]
    return files, problems


_CONSTRUCTORS = (
    "any_value", "boolean", "byte_string", "fill", "free_form", "inline", "int32", "int64",
    "int_or_string", "list_of", "map_of", "number", "obj", "quantity", "ref", "string", "time",
)

_INIT = '''"""Field schemas generated from Kubernetes' Go types (see tools/gen_schemas.py)."""
'''


# ------------------------------------------------------------------------ texts


def rewrite_texts(additions: Iterable[Path] = (), source: Path = UPSTREAM,
                  text_dir: Path = TEXT) -> list[str]:
    """Rewrite ``tools/schema_text`` in Go declaration order (each type's own
    description, key ``.``, first), with an empty entry for every type and
    field that still needs a description, after adding the lines of the
    ``module<TAB>Type<TAB>field<TAB>description`` files in ``additions``.
    Returns the entries dropped because no type or field has that name."""
    go = read_all(source)
    texts = read_texts(text_dir)
    for path in additions:
        for line in path.read_text().splitlines():
            if line.strip():
                module, type_name, field, text = line.split("\t")
                texts.setdefault(module, {}).setdefault(type_name, {})[field] = text.strip()
    generator = Generator(go, texts)
    dropped: list[str] = []
    for package in PACKAGES:
        structs = go[package.go_path].structs
        old = texts.get(package.module, {})
        new: dict[str, dict[str, str]] = {}
        for name, struct in structs.items():
            if generator.skipped(package, struct):
                continue
            keys = [".", *(f.json for f in struct.fields if not f.inline and f.json != "-")]
            new[name] = {k: old.get(name, {}).get(k) or "" for k in keys}
        dropped += [f"{package.module}: {t}.{f}" for t, fields in old.items() for f in fields
                    if f not in new.get(t, {})]
        (text_dir / f"{package.module}.yaml").write_text(
            f"# Our descriptions of the {package.title} types, by Go type name: `.` is the\n"
            "# type's own, the other keys are JSON field names. Read by tools/gen_schemas.py;\n"
            "# `python tools/gen_schemas.py texts` adds an empty entry for anything new.\n"
            + yaml.safe_dump(new, sort_keys=False, width=96, allow_unicode=True))
    return dropped


# ------------------------------------------------------------------------- sync


def sync(mirror: Path, tag: str, dest: Path = UPSTREAM) -> None:
    """Refresh ``tools/upstream`` from git mirrors of the upstream repositories."""
    for package in PACKAGES:
        repo = mirror / package.repo / "repo"
        commit = subprocess.run(["git", "-C", str(repo), "rev-list", "-n1", tag],
                                check=True, capture_output=True, text=True).stdout.strip()
        target = dest / package.module
        target.mkdir(parents=True, exist_ok=True)
        for name in package.files:
            path = f"{package.directory}/{name}"
            text = subprocess.run(["git", "-C", str(repo), "show", f"{tag}:{path}"],
                                  check=True, capture_output=True, text=True).stdout
            origin = package.repo.split("+", 1)[1]
            header = (f"// The type declarations of k8s.io/{origin} {path} at {tag}\n"
                      f"// (commit {commit}), doc comments left out, `// +marker` lines kept;\n"
                      "// written by tools/gen_schemas.py sync.\n"
                      "// Copyright The Kubernetes Authors. Licensed under the Apache License,"
                      " Version 2.0.\n\n")
            (target / name).write_text(header + strip(text))


# ------------------------------------------------------------------------- main


def main(argv: Iterable[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    sync_parser = sub.add_parser("sync", help="refresh tools/upstream from git mirrors")
    sync_parser.add_argument("--mirror", type=Path, required=True)
    sync_parser.add_argument("--tag", default=TAG)
    texts_parser = sub.add_parser("texts", help="rewrite tools/schema_text in Go order, "
                                  "with empty entries for what needs a description")
    texts_parser.add_argument("--add", type=Path, nargs="*", default=[],
                              help="module<TAB>Type<TAB>field<TAB>text files to merge in")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a generated file is out of date")
    args = parser.parse_args(list(argv))
    if args.command == "sync":
        sync(args.mirror, args.tag)
        return 0
    if args.command == "texts":
        for entry in rewrite_texts(args.add):
            print(f"dropped (no such type or field): {entry}", file=sys.stderr)
        return 0
    files, problems = generate()
    for problem in problems:
        print(problem, file=sys.stderr)
    stale = [n for n, t in files.items()
             if not (OUTPUT / n).exists() or (OUTPUT / n).read_text() != t]
    if args.check:
        for name in stale:
            print(f"out of date: minikube_py/api/generated/{name}", file=sys.stderr)
        return 1 if stale or problems else 0
    OUTPUT.mkdir(parents=True, exist_ok=True)
    for name in stale:
        (OUTPUT / name).write_text(files[name])
        print(f"wrote minikube_py/api/generated/{name}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
