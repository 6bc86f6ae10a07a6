#!/usr/bin/env python3
"""Generate ``minikube_py/api/proto_schema.py`` from Kubernetes' protobuf definitions.

Usage::

    python tools/gen_proto_schema.py SOURCE_DIR [OUTPUT]

``SOURCE_DIR`` holds copies of the upstream files (not kept in this repository;
fetch them from kubernetes/kubernetes ``staging/src/k8s.io/...``). Comments may
be left in or stripped; messages and struct fields the served kinds do not reach
may be left out, since only the reachable closure is emitted:

==============================  =====================================================
file                            upstream
==============================  =====================================================
``core_v1.proto``               ``k8s.io/api/core/v1/generated.proto``
``core_v1_types.go``            ``k8s.io/api/core/v1/types.go``
``apps_v1.proto``               ``k8s.io/api/apps/v1/generated.proto``
``apps_v1_types.go``            ``k8s.io/api/apps/v1/types.go``
``batch_v1.proto``              ``k8s.io/api/batch/v1/generated.proto``
``batch_v1_types.go``           ``k8s.io/api/batch/v1/types.go``
``scheduling_v1.proto``         ``k8s.io/api/scheduling/v1/generated.proto``
``scheduling_v1_types.go``      ``k8s.io/api/scheduling/v1/types.go``
``discovery_v1.proto``          ``k8s.io/api/discovery/v1/generated.proto``
``discovery_v1_types.go``       ``k8s.io/api/discovery/v1/types.go``
``rbac_v1.proto``               ``k8s.io/api/rbac/v1/generated.proto``
``rbac_v1_types.go``            ``k8s.io/api/rbac/v1/types.go``
``authentication_v1.proto``     ``k8s.io/api/authentication/v1/generated.proto``
``authentication_v1_types.go``  ``k8s.io/api/authentication/v1/types.go``
``authorization_v1.proto``      ``k8s.io/api/authorization/v1/generated.proto``
``authorization_v1_types.go``   ``k8s.io/api/authorization/v1/types.go``
``meta_v1.proto``               ``k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto``
``meta_v1_types.go``            ``k8s.io/apimachinery/pkg/apis/meta/v1/types.go``
``runtime.proto``               ``k8s.io/apimachinery/pkg/runtime/generated.proto``
``resource.proto``              ``k8s.io/apimachinery/pkg/api/resource/generated.proto``
``intstr.proto``                ``k8s.io/apimachinery/pkg/util/intstr/generated.proto``
==============================  =====================================================

The checked-in table comes from the published ``k8s.io/api`` and
``k8s.io/apimachinery`` repositories at tag ``v0.32.9`` (Kubernetes 1.32, the
version kubectl and the client speak here), each copy starting with a
``// ... commit <sha>`` line the header records, e.g.::

    git -C api show v0.32.9:core/v1/generated.proto > SRC/core_v1.proto
    git -C apimachinery show v0.32.9:pkg/apis/meta/v1/types.go > SRC/meta_v1_types.go

Why both files of a package: the ``.proto`` is the wire format (field numbers,
wire types, which fields are repeated or maps, the message type of each field),
but the JSON shape of a field comes from the Go struct tag next to it:

* ``json:",inline"`` embeds the field's message into its parent (``Volume``
  inlines ``VolumeSource``, ``Probe`` inlines ``ProbeHandler``, ...);
* a scalar that is a Go pointer, or has no ``omitempty``, keeps its zero value
  (``replicas: 0`` stays; go-protobuf writes such fields only when set), while a
  plain ``omitempty`` scalar drops it, exactly as ``encoding/json`` would
  (go-protobuf writes non-pointer scalars unconditionally, zero or not);
* the JSON name is the ``json`` tag's name (it equals the proto field name but
  for case, which is checked: ``BoundObjectReference``'s proto ``uID`` is JSON
  ``uid``).

Every reachable scalar field must be described by a Go field with the same
protobuf number, and every Go field must exist in the proto: a version skew
between the two copies is an error, not a guess.

A message is named by its Go type (``Pod``); where two packages reach a type
of the same name (core/v1 and discovery/v1 both have ``EndpointPort``), each of
them is named with its package too (``core.v1.EndpointPort``,
``discovery.v1.EndpointPort``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import go_types

# (proto file, Go file or None, proto package)
SOURCES: tuple[tuple[str, str | None, str], ...] = (
    ("core_v1.proto", "core_v1_types.go", "k8s.io.api.core.v1"),
    ("apps_v1.proto", "apps_v1_types.go", "k8s.io.api.apps.v1"),
    ("batch_v1.proto", "batch_v1_types.go", "k8s.io.api.batch.v1"),
    ("scheduling_v1.proto", "scheduling_v1_types.go", "k8s.io.api.scheduling.v1"),
    ("discovery_v1.proto", "discovery_v1_types.go", "k8s.io.api.discovery.v1"),
    ("rbac_v1.proto", "rbac_v1_types.go", "k8s.io.api.rbac.v1"),
    ("coordination_v1.proto", "coordination_v1_types.go", "k8s.io.api.coordination.v1"),
    ("authentication_v1.proto", "authentication_v1_types.go", "k8s.io.api.authentication.v1"),
    ("authorization_v1.proto", "authorization_v1_types.go", "k8s.io.api.authorization.v1"),
    ("meta_v1.proto", "meta_v1_types.go", "k8s.io.apimachinery.pkg.apis.meta.v1"),
    ("runtime.proto", None, "k8s.io.apimachinery.pkg.runtime"),
    ("resource.proto", None, "k8s.io.apimachinery.pkg.api.resource"),
    ("intstr.proto", None, "k8s.io.apimachinery.pkg.util.intstr"),
)

#: Objects a request body may carry: (apiVersion, kind) -> proto message.
ROOTS: tuple[tuple[str, str, str], ...] = (
    ("v1", "Pod", "k8s.io.api.core.v1.Pod"),
    ("v1", "Node", "k8s.io.api.core.v1.Node"),
    ("v1", "Namespace", "k8s.io.api.core.v1.Namespace"),
    ("v1", "Event", "k8s.io.api.core.v1.Event"),
    ("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap"),
    ("v1", "Endpoints", "k8s.io.api.core.v1.Endpoints"),
    ("v1", "Service", "k8s.io.api.core.v1.Service"),
    ("v1", "Secret", "k8s.io.api.core.v1.Secret"),
    ("v1", "ServiceAccount", "k8s.io.api.core.v1.ServiceAccount"),
    ("apps/v1", "Deployment", "k8s.io.api.apps.v1.Deployment"),
    ("apps/v1", "ReplicaSet", "k8s.io.api.apps.v1.ReplicaSet"),
    ("batch/v1", "Job", "k8s.io.api.batch.v1.Job"),
    ("scheduling.k8s.io/v1", "PriorityClass", "k8s.io.api.scheduling.v1.PriorityClass"),
    ("discovery.k8s.io/v1", "EndpointSlice", "k8s.io.api.discovery.v1.EndpointSlice"),
    *(("rbac.authorization.k8s.io/v1", kind, f"k8s.io.api.rbac.v1.{kind}")
      for kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")),
    ("coordination.k8s.io/v1", "Lease", "k8s.io.api.coordination.v1.Lease"),
    # Served by the API server's token and review handlers (create only).
    ("authentication.k8s.io/v1", "TokenRequest", "k8s.io.api.authentication.v1.TokenRequest"),
    *(("authentication.k8s.io/v1", kind, f"k8s.io.api.authentication.v1.{kind}")
      for kind in ("TokenReview", "SelfSubjectReview")),
    *(("authorization.k8s.io/v1", kind, f"k8s.io.api.authorization.v1.{kind}")
      for kind in ("SubjectAccessReview", "SelfSubjectAccessReview",
                   "LocalSubjectAccessReview", "SelfSubjectRulesReview")),
    # client-go sends DeleteOptions in the version of the client that deletes.
    *((version, "DeleteOptions", "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions")
      for version in ("meta.k8s.io/v1", "v1", "apps/v1", "batch/v1", "scheduling.k8s.io/v1",
                      "discovery.k8s.io/v1", "rbac.authorization.k8s.io/v1",
                      "coordination.k8s.io/v1")),
)

#: Types with a hand-written JSON form, decoded by name rather than field by field.
SPECIAL: dict[str, str] = {
    "k8s.io.apimachinery.pkg.apis.meta.v1.Time": "Time",
    "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "MicroTime",
    "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "FieldsV1",
    "k8s.io.apimachinery.pkg.api.resource.Quantity": "Quantity",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
    "k8s.io.apimachinery.pkg.runtime.RawExtension": "RawExtension",
    # ``type ExtraValue []string``: a JSON array the proto wraps in a message.
    "k8s.io.api.authentication.v1.ExtraValue": "StringList",
    "k8s.io.api.authorization.v1.ExtraValue": "StringList",
}

SCALARS = frozenset({"string", "bytes", "bool", "int32", "int64", "uint32", "uint64",
                     "double", "float"})


class GenError(Exception):
    pass


# ------------------------------------------------------------------ .proto parsing


@dataclass(frozen=True)
class ProtoField:
    name: str
    number: int
    label: str  # "opt" | "rep" | "map"
    type: str  # scalar name or fully-qualified message name (map: the value type)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


_MESSAGE = re.compile(r"\bmessage\s+(\w+)\s*\{([^{}]*)\}", re.S)
_FIELD = re.compile(
    r"^(optional|repeated|required)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*(\[[^\]]*\])?$")
_MAP = re.compile(r"^map\s*<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*(\[[^\]]*\])?$")


def _qualify(type_name: str, package: str) -> str:
    if type_name in SCALARS:
        return type_name
    if type_name.startswith("."):
        return type_name[1:]
    if "." in type_name:
        return type_name
    return f"{package}.{type_name}"


def parse_proto(text: str, package: str) -> dict[str, list[ProtoField]]:
    """Messages of one proto2 file: fully-qualified name -> fields."""
    body = _strip_comments(text)
    declared = re.search(r"\bpackage\s+([\w.]+)\s*;", body)
    if declared is None or declared.group(1) != package:
        raise GenError(f"expected package {package}, found "
                       f"{declared.group(1) if declared else 'none'}")
    messages: dict[str, list[ProtoField]] = {}
    for match in _MESSAGE.finditer(body):
        name, inner = match.group(1), match.group(2)
        fields: list[ProtoField] = []
        for statement in inner.split(";"):
            statement = " ".join(statement.split())
            if not statement:
                continue
            if m := _FIELD.match(statement):
                label = "rep" if m.group(1) == "repeated" else "opt"
                fields.append(ProtoField(m.group(3), int(m.group(4)), label,
                                         _qualify(m.group(2), package)))
            elif m := _MAP.match(statement):
                if m.group(1) != "string":
                    raise GenError(f"{name}.{m.group(3)}: map key {m.group(1)} unsupported")
                fields.append(ProtoField(m.group(3), int(m.group(4)), "map",
                                         _qualify(m.group(2), package)))
            elif statement.startswith(("reserved", "option")):
                continue
            else:
                raise GenError(f"message {name}: cannot parse {statement!r}")
        numbers = [f.number for f in fields]
        if len(numbers) != len(set(numbers)):
            raise GenError(f"message {name}: duplicate field numbers")
        messages[f"{package}.{name}"] = fields
    return messages


# --------------------------------------------------------------------- Go parsing


@dataclass(frozen=True)
class GoField:
    number: int
    json_name: str
    omitempty: bool
    inline: bool
    pointer: bool


def parse_go(text: str, package: str) -> dict[str, dict[int, GoField]]:
    """Struct fields that carry a protobuf tag: proto message name -> number -> field
    (the declarations read by :mod:`go_types`, shared with ``gen_schemas.py``)."""
    structs: dict[str, dict[int, GoField]] = {}
    for struct in go_types.parse(text).structs.values():
        current = structs.setdefault(f"{package}.{struct.name}", {})
        for go_field in struct.fields:
            if "protobuf" not in go_field.tags:
                continue
            number = int(go_field.tags["protobuf"].split(",")[1])
            if number in current:
                raise GenError(f"{struct.name}: protobuf field {number} declared twice")
            current[number] = GoField(
                number=number,
                json_name=go_field.json,
                omitempty=go_field.omitempty,
                inline=go_field.inline or (not go_field.name and go_field.json == ""),
                pointer=go_field.type.startswith("*"),
            )
    return structs


# ---------------------------------------------------------------------- generation


def _short(full: str, ambiguous: frozenset[str] = frozenset()) -> str:
    """The table's name of message ``full``: its type name, qualified by its
    package (``discovery.v1.EndpointPort``) when that name is in ``ambiguous``."""
    if full in SPECIAL:
        return SPECIAL[full]
    package, name = full.rsplit(".", 1)
    if name not in ambiguous:
        return name
    return f"{package.removeprefix('k8s.io.api.').removeprefix('k8s.io.apimachinery.pkg.')}.{name}"


def provenance(source: Path) -> list[str]:
    """``file: commit`` for each source copy that names the commit it was taken from."""
    lines = []
    for proto_file, go_file, _ in SOURCES:
        for name in (proto_file, go_file):
            if name is None:
                continue
            found = re.search(r"\bcommit ([0-9a-f]{40})\b", (source / name).read_text())
            lines.append(f"{name}: {found.group(1) if found else 'commit not recorded'}")
    return lines


Messages = dict[str, dict[int, tuple[str, str, str, str]]]
Roots = list[tuple[str, str, str]]


def build(source: Path) -> tuple[Messages, Roots, list[str]]:
    """The field table of every message the roots reach, the roots by table
    name, and what is inconsistent between the copies."""
    protos: dict[str, list[ProtoField]] = {}
    gos: dict[str, dict[int, GoField]] = {}
    for proto_file, go_file, package in SOURCES:
        protos.update(parse_proto((source / proto_file).read_text(), package))
        if go_file is not None:
            gos.update(parse_go((source / go_file).read_text(), package))

    errors: list[str] = []
    reachable: list[str] = []
    pending = [root for _, _, root in ROOTS]
    while pending:
        name = pending.pop()
        if name in reachable or name in SPECIAL:
            continue
        if name not in protos:
            errors.append(f"message {name} is referenced but not defined")
            continue
        reachable.append(name)
        pending.extend(f.type for f in protos[name] if f.type not in SCALARS)

    seen: dict[str, str] = {}
    clashes: set[str] = set()
    for name in reachable:
        if seen.setdefault(_short(name), name) != name:
            clashes.add(_short(name))
    ambiguous = frozenset(clashes)

    def short(full: str) -> str:
        return _short(full, ambiguous)

    messages: dict[str, dict[int, tuple[str, str, str, str]]] = {}
    for name in sorted(reachable, key=short):
        go = gos.get(name, {})
        entries: dict[int, tuple[str, str, str, str]] = {}
        numbers = {f.number for f in protos[name]}
        for stray in sorted(set(go) - numbers):
            errors.append(f"{short(name)}: Go field {stray} is not in the proto")
        for f in protos[name]:  # declaration order, which is the Go struct's order
            info = go.get(f.number)
            json_name = f.name
            flags = ""
            if info is not None and not info.inline:
                json_name = info.json_name or f.name
                if json_name.lower() != f.name.lower():
                    errors.append(f"{short(name)}.{f.name}: JSON name {json_name} differs")
            if f.label == "opt" and f.type in SCALARS:
                if info is None:
                    errors.append(f"{short(name)}.{f.name} ({f.number}): no Go field says "
                                  "whether its zero value is kept")
                elif info.pointer or not info.omitempty:
                    flags = "keep"
            elif f.label == "opt" and info is not None and info.inline:
                if f.type in SPECIAL or f.type in SCALARS:
                    errors.append(f"{short(name)}.{f.name}: only messages can be inlined")
                json_name, flags = "", "inline"
            type_name = f.type if f.type in SCALARS else short(f.type)
            entries[f.number] = (json_name, f.label, type_name, flags)
        messages[short(name)] = entries
    roots = [(api_version, kind, short(message)) for api_version, kind, message in ROOTS]
    return messages, roots, errors


HEADER = '''"""Kubernetes' protobuf field table for the kinds minikube-py serves. GENERATED.

Do not edit by hand: regenerate with ``tools/gen_proto_schema.py`` from the
upstream ``generated.proto`` and ``types.go`` files (see that script).

:data:`MESSAGES` maps a message name to its fields by number; each field is
``(json_name, label, type, flags)``:

* ``label``: ``"opt"`` (singular), ``"rep"`` (repeated) or ``"map"`` (a
  ``map<string, type>``, entries carry key = 1, value = 2);
* ``type``: a scalar (``string``, ``bytes``, ``bool``, ``int32``, ``int64``, ...),
  one of :data:`SPECIAL` (types with a hand-written JSON form), or a message name;
* ``flags``: ``"keep"`` for a scalar whose zero value is kept (a Go pointer, or
  a field without ``omitempty``); ``""`` for a scalar whose zero value is
  dropped, as ``encoding/json`` drops it; ``"inline"`` for a message embedded
  with ``json:",inline"`` whose fields belong to the parent (its ``json_name`` is
  empty).

:data:`ROOTS` maps ``(apiVersion, kind)`` to the message of a whole object.

Generated from (kubernetes/kubernetes ``staging/src/k8s.io``, or a vendored copy):

@PROVENANCE@
"""

from __future__ import annotations

from typing import Final

Field = tuple[str, str, str, str]

SPECIAL: Final = frozenset({
@SPECIAL@
})

ROOTS: Final[dict[tuple[str, str], str]] = {
'''


def render(messages: Messages, roots: Roots, sources: list[str]) -> str:
    header = HEADER.replace("@PROVENANCE@", "\n".join(f"* {line}" for line in sources))
    out = [header.replace("@SPECIAL@", "".join(
        f"    {s!r},\n" for s in sorted(set(SPECIAL.values()))).rstrip("\n"))]
    for api_version, kind, message in roots:
        out.append(f"    ({api_version!r}, {kind!r}): {message!r},\n")
    out.append("}\n\nMESSAGES: Final[dict[str, dict[int, Field]]] = {\n")
    for name, fields in messages.items():
        out.append(f"    {name!r}: {{\n")
        for number, entry in fields.items():
            line = f"        {number}: {entry!r},\n"
            if len(line) > 100:  # keep within the project's line length
                line = f"        {number}: (\n" + "".join(
                    f"            {part!r},\n" for part in entry) + "        ),\n"
            out.append(line)
        out.append("    },\n")
    out.append("}\n")
    return "".join(out)


def main(argv: Iterable[str]) -> int:
    args = list(argv)
    if not 1 <= len(args) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(args[0])
    target = Path(args[1]) if len(args) == 2 else (
        Path(__file__).resolve().parent.parent / "minikube_py" / "api" / "proto_schema.py")
    try:
        messages, roots, errors = build(source)
    except (GenError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if errors:
        for error in errors:
            print(f"error: {error}", file=sys.stderr)
        return 1
    target.write_text(render(messages, roots, provenance(source)))
    print(f"wrote {target}: {len(messages)} messages, "
          f"{sum(len(f) for f in messages.values())} fields")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
