"""``create KIND NAME --from-...``: objects built from command-line sources,
as kubectl's generators build them, then created through the API.

One generator per kind here (:data:`GENERATORS`); the CLI offers a
subcommand for each. Today: ``configmap`` (``cm``), as ``kubectl create
configmap``:

* ``--from-literal=KEY=VALUE`` (split at the first ``=``);
* ``--from-file=[KEY=]PATH``: the file's content under KEY (default: the
  file's base name); a directory adds each regular file in it (not
  recursively) under its name. Text that is valid UTF-8 goes to ``data``,
  anything else to ``binaryData`` (base64).

Errors are kubectl's: a key that is not a config key (``"bad key" is not a
valid key name for a ConfigMap: ...``), a key given twice (``cannot add key
"x", another key by that name already exists in Data for ConfigMap "web"``),
a source that cannot be read. Nothing is created when any source is wrong.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..api.core.configmap import is_config_map_key
from ..client.base import Client, Object
from .errors import OpError

__all__ = ["GENERATORS", "Generator", "Sources", "config_map", "create"]


@dataclass(frozen=True, slots=True)
class Sources:
    """What the command line gave: ``--from-literal`` and ``--from-file`` values."""

    literals: Sequence[str] = ()
    files: Sequence[str] = ()


def _split_file_source(source: str) -> tuple[str, Path]:
    """``[KEY=]PATH`` -> (key, path); kubectl's ``ParseFileSource``."""
    key, sep, path = source.partition("=")
    if not sep:
        return Path(source).name, Path(source)
    if not key:
        raise OpError(f"key name for file path {path} missing")
    if not path:
        raise OpError(f"file path for key name {key} missing")
    return key, Path(path)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise OpError(f"error reading {path}: {exc.strerror or exc}") from None


def config_map(name: str, namespace: str, sources: Sources) -> Object:
    """The ConfigMap ``kubectl create configmap NAME`` would send."""
    data: dict[str, str] = {}
    binary: dict[str, str] = {}

    def add(key: str, value: bytes) -> None:
        msgs = is_config_map_key(key)
        if msgs:
            raise OpError(f'"{key}" is not a valid key name for a ConfigMap: {",".join(msgs)}')
        for bag, label in ((data, "Data"), (binary, "BinaryData")):
            if key in bag:
                raise OpError(f'cannot add key "{key}", another key by that name already '
                              f'exists in {label} for ConfigMap "{name}"')
        try:
            data[key] = value.decode("utf-8")
        except UnicodeDecodeError:
            binary[key] = base64.b64encode(value).decode("ascii")

    for literal in sources.literals:
        key, sep, value = literal.partition("=")
        if not sep or not key:
            raise OpError(f"invalid literal source {literal}, expected key=value")
        add(key, value.encode())
    for source in sources.files:
        key, path = _split_file_source(source)
        if path.is_dir():
            if "=" in source:
                raise OpError(f"cannot give a key name for a directory {path}")
            for item in sorted(path.iterdir()):
                if item.is_file():
                    add(item.name, _read(item))
        else:
            add(key, _read(path))
    obj: Object = {"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": name, "namespace": namespace}}
    if data:
        obj["data"] = data
    if binary:
        obj["binaryData"] = binary
    return obj


@dataclass(frozen=True, slots=True)
class Generator:
    """One ``create`` subcommand: its names, help and object builder."""

    name: str
    aliases: tuple[str, ...]
    help: str
    build: Callable[[str, str, Sources], Object]


GENERATORS: tuple[Generator, ...] = (
    Generator("configmap", ("cm",), "create a ConfigMap from literals and files", config_map),
)


def create(client: Client, generator: Generator, name: str, namespace: str,
           sources: Sources) -> Object:
    """Build the object and create it; returns what the server stored."""
    return client.create(generator.build(name, namespace, sources), namespace=namespace)
