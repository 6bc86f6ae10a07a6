"""``--nodes-config FILE``: nodes described one by one in YAML (or JSON).

::

    nodes:
    - name: node-a
      cpu: "2"             # a quantity: 2, 0.5, "1500m"
      memory: 4Gi          # a quantity: 4Gi, 512Mi, 4294967296
      pods: 110            # optional, default 110
      labels: {zone: a}    # optional
      taints:              # optional
      - {key: dedicated, value: gpu, effect: NoSchedule}

The file is read with the manifest loader's YAML rules (duplicate keys are
errors, ``yes``/``on`` are booleans, timestamps stay strings, alias bombs are
refused). Every problem is reported, one line each, as
``FILE:LINE: nodes[INDEX] (NAME): FIELD: PROBLEM``, in one
:class:`NodeConfigError`; field problems are worded the way Kubernetes words
field errors. Labels and taints are checked by the API's own Node validation.

Rules beyond Kubernetes' own:

* names are RFC 1123 labels (they become hostnames and container names), and
  unique;
* ``cpu`` must be a whole number of millicores and ``memory`` a whole number
  of bytes, both greater than zero;
* labels that minikube-py sets itself (``kubernetes.io/hostname``,
  ``kubernetes.io/os``/``arch`` and their ``beta.`` forms,
  ``node.kubernetes.io/instance-type``, ``minikube-py.io/node-index`` and
  ``minikube-py.io/primary``) may not be given;
* with the ``podman`` runtime each node needs at least 100m CPU and 128Mi,
  and the nodes together may not ask for more than the host's allocatable
  (host minus :func:`~.sizing.system_reserved`) unless ``overcommit``; the
  ``fake`` runtime runs nothing and accepts any positive sizes.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from minikube_py.api import errors
from minikube_py.api.errors import FieldError, FieldPath

# The manifest module's private readers give us its YAML/JSON rules and the
# line of every mapping in a list; its public loader insists on apiVersion and
# kind, which a node config does not have.
from minikube_py.api.manifest import ManifestError, describe_value, parse_documents
from minikube_py.api.names import is_dns1123_label
from minikube_py.api.quantity import Quantity, validate_quantity
from minikube_py.api.validation import validate

from .host import HostInfo
from .sizing import (
    DEFAULT_MAX_PODS,
    LABEL_NODE_INDEX,
    LABEL_PRIMARY,
    MIN_NODE_CPU_MILLIS,
    MIN_NODE_MEMORY_BYTES,
    NodeConfigError,
    NodeSpec,
    allocatable,
    describe_allocatable,
    format_cpu,
    format_memory,
    system_labels,
)

__all__ = ["MANAGED_LABELS", "MAX_CONFIG_BYTES", "NODE_FIELDS", "RUNTIMES", "load_config"]

RUNTIMES = ("podman", "fake")
NODE_FIELDS = ("name", "cpu", "memory", "pods", "labels", "taints")
TAINT_FIELDS = ("key", "value", "effect")
MAX_CONFIG_BYTES = 1 << 20

#: Labels minikube-py sets on every node; a config file may not set them.
MANAGED_LABELS = frozenset({
    "kubernetes.io/hostname",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "node.kubernetes.io/instance-type",
    LABEL_NODE_INDEX,
    LABEL_PRIMARY,
})

_NANOS_PER_MILLI = 10**6
_NANOS_PER_UNIT = 10**9


def load_config(path: str | Path, host: HostInfo, *, runtime: str,
                overcommit: bool) -> list[NodeSpec]:
    """The nodes described in ``path``; raises :class:`NodeConfigError`.

    See the module docstring for the format and the rules.
    """
    if runtime not in RUNTIMES:
        raise NodeConfigError(
            f"unknown runtime {json.dumps(runtime)}; expected one of "
            + ", ".join(json.dumps(r) for r in RUNTIMES))
    source = os.fspath(path)
    top, line, line_of = _read(source)
    entries = _node_list(top, source, line)

    problems: list[str] = []
    specs: list[NodeSpec] = []
    seen: dict[str, tuple[int, int]] = {}
    for i, entry in enumerate(entries):
        entry_line = line_of(entry) or line
        name = entry.get("name") if isinstance(entry, Mapping) else None
        where = f"{source}:{entry_line}: nodes[{i}]"
        if isinstance(name, str) and name:
            where += f" ({name})"
        spec, errs = _node(entry, i, runtime)
        if spec is not None and spec.name in seen:
            j, j_line = seen[spec.name]
            errs.append(str(FieldError("Duplicate", "name", spec.name,
                                       f"already used by nodes[{j}] at line {j_line}")))
        elif spec is not None:
            seen[spec.name] = (i, entry_line)
        problems.extend(f"{where}: {e}" for e in errs)
        if spec is not None and not errs:
            specs.append(spec)
    if problems:
        raise NodeConfigError("\n".join(problems), tuple(problems))
    if runtime == "podman" and not overcommit:
        _check_fits(specs, host, source)
    return specs


# ------------------------------------------------------------------ reading


def _read(source: str) -> tuple[Any, int, Callable[[object], int | None]]:
    """The single document of the file: (value, its line, line_of)."""
    try:
        with open(source, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise NodeConfigError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise NodeConfigError(f"{source}: is a directory, not a node config file") from None
    except OSError as e:
        raise NodeConfigError(f"{source}: cannot read: {e.strerror}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise NodeConfigError(f"{source}: larger than {MAX_CONFIG_BYTES >> 20} MiB; "
                              "is this really a node config file?")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise NodeConfigError(f"{source}:{line}: not valid UTF-8") from None
    try:
        docs = parse_documents(text.encode() if source.endswith(".json") else raw, source,
                               json=source.endswith(".json"))
    except ManifestError as e:
        raise NodeConfigError(e.message) from None
    docs = [d for d in docs if d.value is not None]
    if not docs:
        raise NodeConfigError(
            f'{source}: the file is empty; expected a mapping with a "nodes" list')
    if len(docs) > 1:
        raise NodeConfigError(
            f"{source}:{docs[1].line}: expected one document, found {len(docs)}; "
            'list every node under one "nodes" key')
    return docs[0].value, docs[0].line, docs[0].line_of


def _node_list(top: Any, source: str, line: int) -> list[Any]:
    where = f"{source}:{line}"
    if not isinstance(top, dict):
        raise NodeConfigError(
            f'{where}: expected a mapping with a "nodes" list, found {describe_value(top)}')
    problems = [f"{where}: {_unknown(key, ('nodes',))}" for key in top if key != "nodes"]
    nodes = top.get("nodes")
    if nodes is None:
        problems.append(f"{where}: nodes: Required value: list the nodes to create")
    elif not isinstance(nodes, list):
        problems.append(f"{where}: nodes: must be a list of nodes, found {describe_value(nodes)}")
    elif not nodes:
        problems.append(f"{where}: nodes: must list at least one node")
    if problems or not isinstance(nodes, list):
        raise NodeConfigError("\n".join(problems), tuple(problems))
    return nodes


# ------------------------------------------------------------------ one node


def _node(entry: Any, index: int, runtime: str) -> tuple[NodeSpec | None, list[str]]:
    """A node entry as a spec (None if unusable) and its problems."""
    if not isinstance(entry, Mapping):
        found = describe_value(entry)
        return None, [f"expected a mapping with name, cpu and memory, found {found}"]
    errs: list[str] = [_unknown(key, NODE_FIELDS) for key in entry if key not in NODE_FIELDS]

    name = _name(entry.get("name"), errs)
    cpu = _quantity(entry, "cpu", errs, runtime)
    memory = _quantity(entry, "memory", errs, runtime)
    pods = _pods(entry.get("pods"), errs)
    labels = entry.get("labels")
    taints, taint_errs = _taints(entry.get("taints"))
    errs.extend(taint_errs)
    errs.extend(str(e) for e in _api_errors(labels, taints if not taint_errs else []))
    if isinstance(labels, Mapping):
        errs.extend(
            str(errors.forbidden(FieldPath.root("labels").key(str(key)),
                                 "set by minikube-py on every node"))
            for key in labels if key in MANAGED_LABELS)

    if name is None:
        return None, errs
    if cpu is None or memory is None or pods is None:
        # Still a spec, so a duplicate name is caught, but never returned.
        return NodeSpec(name, 0, 0), errs
    own = {str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {}
    return NodeSpec(name=name, cpu_millis=cpu, memory_bytes=memory, pods=pods,
                    labels={**system_labels(index + 1), **own},
                    taints=tuple(taints)), errs


def _name(value: Any, errs: list[str]) -> str | None:
    if value is None or value == "":
        errs.append(str(errors.required("name")))
        return None
    if not isinstance(value, str):
        errs.append(str(errors.type_invalid("name", value, "must be a string")))
        return None
    msgs = is_dns1123_label(value)
    errs.extend(str(errors.invalid("name", value, msg)) for msg in msgs)
    return value


def _quantity(entry: Mapping[str, Any], key: str, errs: list[str], runtime: str) -> int | None:
    """``cpu`` in millicores or ``memory`` in bytes; None after an error."""
    value = entry.get(key)
    if value is None:
        errs.append(str(errors.required(key)))
        return None
    bad = validate_quantity(value, key)
    if bad:
        errs.extend(str(e) for e in bad)
        return None
    q = Quantity.parse(value)
    if q.sign() <= 0:
        errs.append(str(errors.invalid(key, value, "must be greater than 0")))
        return None
    if key == "cpu":
        if q.nanos % _NANOS_PER_MILLI:
            errs.append(str(errors.invalid(key, value,
                                           "must be a whole number of millicores (1m = 0.001)")))
            return None
        millis = q.nanos // _NANOS_PER_MILLI
        if runtime == "podman" and millis < MIN_NODE_CPU_MILLIS:
            errs.append(str(errors.invalid(
                key, value, f"must be at least {format_cpu(MIN_NODE_CPU_MILLIS)} "
                "for the podman runtime")))
            return None
        return millis
    if q.nanos % _NANOS_PER_UNIT:
        detail = "must be a whole number of bytes"
        if isinstance(value, str) and value.endswith("m"):
            detail += f' ("m" means milli; did you mean "{value[:-1]}Mi"?)'
        errs.append(str(errors.invalid(key, value, detail)))
        return None
    n = q.nanos // _NANOS_PER_UNIT
    if runtime == "podman" and n < MIN_NODE_MEMORY_BYTES:
        detail = f"must be at least {format_memory(MIN_NODE_MEMORY_BYTES)} for the podman runtime"
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            detail += f' (a number without a suffix is bytes; did you mean "{value}Gi"?)'
        errs.append(str(errors.invalid(key, value, detail)))
        return None
    return n


def _pods(value: Any, errs: list[str]) -> int | None:
    if value is None:
        return DEFAULT_MAX_PODS
    if isinstance(value, bool) or not isinstance(value, int):
        errs.append(str(errors.invalid("pods", value, "must be an integer")))
        return None
    if value < 1:
        errs.append(str(errors.invalid("pods", value, "must be at least 1")))
        return None
    return value


def _taints(value: Any) -> tuple[list[dict[str, str]], list[str]]:
    """Taints as ``{"key", ["value",] "effect"}`` dicts, and shape problems.

    The values themselves are checked by the API's Node validation.
    """
    if value is None:
        return [], []
    path = FieldPath.root("taints")
    if not isinstance(value, list):
        return [], [str(errors.type_invalid(path, value, "must be a list of taints"))]
    taints: list[dict[str, str]] = []
    errs: list[str] = []
    for j, raw in enumerate(value):
        sub = path.index(j)
        if not isinstance(raw, Mapping):
            errs.append(str(errors.type_invalid(
                sub, raw, "must be a mapping with key, value and effect")))
            continue
        errs.extend(f"{sub}: {_unknown(k, TAINT_FIELDS)}" for k in raw if k not in TAINT_FIELDS)
        taint: dict[str, str] = {}
        for k in TAINT_FIELDS:
            v = raw.get(k)
            if v is None:
                continue
            if not isinstance(v, str):
                errs.append(str(errors.type_invalid(sub.child(k), v, "must be a string")))
                continue
            if v or k != "value":
                taint[k] = v
        taints.append(taint)
    return taints, errs


def _api_errors(labels: Any, taints: Sequence[Mapping[str, str]]) -> list[FieldError]:
    """Labels and taints as the API server's Node validation sees them, with
    the paths rewritten from ``metadata.labels``/``metadata.taints`` to the
    config file's ``labels``/``taints``."""
    node: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node", **({"labels": labels} if labels is not None else {})},
        "spec": {"taints": list(taints)} if taints else {},
    }
    out: list[FieldError] = []
    for err in validate(node):
        for prefix, short in (("metadata.labels", "labels"), ("metadata.taints", "taints")):
            if err.path.startswith(prefix):
                out.append(dataclasses.replace(err, path=short + err.path[len(prefix):]))
                break
    return out


# --------------------------------------------------------------- the total


def _check_fits(specs: Sequence[NodeSpec], host: HostInfo, source: str) -> None:
    alloc_cpu, alloc_mem = allocatable(host)
    cpu = sum(s.cpu_millis for s in specs)
    memory = sum(s.memory_bytes for s in specs)
    over: list[str] = []
    if cpu > alloc_cpu:
        over.append(f"{format_cpu(cpu - alloc_cpu)} CPU")
    if memory > alloc_mem:
        over.append(f"{format_memory(memory - alloc_mem)} memory")
    if not over:
        return
    raise NodeConfigError(
        f"{source}: the {len(specs)} node{'s' if len(specs) != 1 else ''} ask for "
        f"{format_cpu(cpu)} CPU and {format_memory(memory)} memory, but this host can give "
        f"them {describe_allocatable(host)}: {' and '.join(over)} too much. "
        "Pass --overcommit to run them anyway, or make the nodes smaller."
    )


# ------------------------------------------------------------------ helpers


def _unknown(key: str, known: Sequence[str]) -> str:
    text = f"unknown field {json.dumps(key)}"
    close = difflib.get_close_matches(key, known, n=1)
    if close:
        text += f' (did you mean "{close[0]}"?)'
    return text + "; known fields: " + ", ".join(known)
