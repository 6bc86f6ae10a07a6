"""ConfigMaps and Secrets, and the pods that use each.

Top, every ConfigMap and Secret: KIND, NAMESPACE, NAME, TYPE (the Secret's
type; ``-`` for a ConfigMap), DATA (kubectl's count: ``data`` plus
``binaryData`` keys), AGE and USED BY: the pods of the namespace that refer
to it, comma-separated, the first few by name (:func:`used_by_cell`) and
``+N``.
Below, the keys of the object under the cursor with their sizes in bytes
and their values: a ConfigMap's value shows its first
:data:`VALUE_LINES` lines, joined with ``⏎`` (``…`` when there is more, or a
line is longer than :data:`VALUE_WIDTH`); a ``binaryData`` key shows
``<binary, N bytes>``. A Secret's values are hidden (``<hidden, N bytes>``)
until ``v`` reveals the values of that Secret (``v`` again hides them; the
pane's title says which); a revealed value that is not UTF-8 text shows
``<binary, N bytes>``.

Which pods refer to which objects is
:func:`minikube_py.api.podrefs.pod_references` (env ``valueFrom`` and
``envFrom`` of every kind of container, ``configMap`` / ``secret`` /
``projected`` volumes, ``imagePullSecrets``). Everything comes from the
model's informers (``configmaps``, ``secrets``, ``pods``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from rich.markup import escape
from rich.text import Text
from textual.binding import Binding, BindingType

from minikube_py.api.podrefs import CONFIGMAPS, SECRETS, pod_references

from ..widgets.table import Row
from .base import Selection, namespace_name, printed
from .split import Pane, SplitView

__all__ = ["ConfigView", "key_rows", "used_by_cell", "value_cell"]

CONFIG_COLUMNS: Final = ("KIND", "NAMESPACE", "NAME", "TYPE", "DATA", "AGE", "USED BY")
KEY_COLUMNS: Final = ("KEY", "SIZE", "VALUE")
#: Pods named in USED BY before ``+N``.
SHOWN_USERS: Final = 3
#: Characters of USED BY spent on names (the first name is always shown).
USERS_WIDTH: Final = 36
#: Lines of a value shown, and characters of each.
VALUE_LINES: Final = 3
VALUE_WIDTH: Final = 40
_KINDS: Final = {CONFIGMAPS: "ConfigMap", SECRETS: "Secret"}


def used_by_cell(pods: list[str]) -> str:
    """``a, b, c +2``: the pods by name, at most :data:`SHOWN_USERS` of them and
    only as many as fit in :data:`USERS_WIDTH` characters (at least one), then
    ``+N`` for the rest; ``-`` for none."""
    if not pods:
        return "-"
    names = sorted(set(pods))
    shown = [names[0]]
    for name in names[1:SHOWN_USERS]:
        if len(", ".join([*shown, name])) > USERS_WIDTH:
            break
        shown.append(name)
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" +{more}" if more else "")


def value_cell(value: str) -> str:
    """The first :data:`VALUE_LINES` lines of ``value``, each cut at
    :data:`VALUE_WIDTH`, joined with ``⏎``; ``…`` marks what is left out."""
    lines = value.split("\n")
    shown = [line if len(line) <= VALUE_WIDTH else line[:VALUE_WIDTH] + "…"
             for line in lines[:VALUE_LINES]]
    return " ⏎ ".join(shown) + (" …" if len(lines) > VALUE_LINES else "")


def _decoded(raw: Any) -> bytes:
    try:
        return base64.b64decode(str(raw or ""), validate=True)
    except (binascii.Error, ValueError):
        return b""


def _binary(size: int) -> Text:
    return Text(f"<binary, {size} bytes>", style="dim")


def key_rows(resource: str, obj: Mapping[str, Any], *, reveal: bool) -> list[Row]:
    """The lower table's rows: every key with its size in bytes and its value
    (a Secret's hidden unless ``reveal``), by key."""
    rows: list[Row] = []
    if resource == SECRETS:
        for key, raw in sorted((obj.get("data") or {}).items()):
            value = _decoded(raw)
            shown: str | Text
            if not reveal:
                shown = Text(f"<hidden, {len(value)} bytes>", style="dim")
            else:
                try:
                    shown = value_cell(value.decode())
                except UnicodeDecodeError:
                    shown = _binary(len(value))
            rows.append((key, (key, str(len(value)), shown)))
        return rows
    for key, text in sorted((obj.get("data") or {}).items()):
        string = str(text or "")
        rows.append((key, (key, str(len(string.encode())), value_cell(string))))
    for key, raw in sorted((obj.get("binaryData") or {}).items()):
        size = len(_decoded(raw))
        rows.append((key, (key, str(size), _binary(size))))
    return rows


class ConfigView(SplitView):
    """The Config tab (see the module docstring). Upper row keys are
    ``<resource>/<namespace>/<name>``."""

    UPPER = Pane("config", "Config", CONFIGMAPS, CONFIG_COLUMNS)
    LOWER = Pane("config-keys", "Keys", CONFIGMAPS, KEY_COLUMNS)
    WATCHES = frozenset({CONFIGMAPS, SECRETS, "pods"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "reveal", "Reveal"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Row keys of the Secrets whose values are shown.
        self.revealed: set[str] = set()
        #: (pods generation, pod names by (resource, namespace, name)).
        self._users: tuple[int, dict[tuple[str, str, str], list[str]]] = (-1, {})

    def users(self) -> dict[tuple[str, str, str], list[str]]:
        """(resource, namespace, name) -> names of the pods that refer to it;
        read again from the pods only when the pods changed."""
        generation = self.model.generation("pods")
        if self._users[0] == generation:
            return self._users[1]
        out: dict[tuple[str, str, str], list[str]] = {}
        for pod in self.model.objects("pods"):
            namespace, name = namespace_name(pod)
            for resource, ref in pod_references(pod):
                out.setdefault((resource, namespace, ref), []).append(name)
        self._users = (generation, out)
        return out

    def _objects(self) -> Iterable[tuple[str, Mapping[str, Any], list[Any]]]:
        now = self.clock()
        for resource, kind in _KINDS.items():
            objects = sorted(self.model.objects(resource), key=namespace_name)
            for obj, cells in printed(kind, objects, now=now):
                yield resource, obj, cells

    def upper_rows(self) -> list[Row]:
        users = self.users()
        rows: list[Row] = []
        for resource, obj, c in self._objects():
            namespace, name = namespace_name(obj)
            # kubectl's columns: ConfigMap NAME DATA AGE; Secret NAME TYPE DATA AGE.
            kind_type, data, age = ("-", c[1], c[2]) if resource == CONFIGMAPS \
                else (c[1], c[2], c[3])
            cells: tuple[str | Text, ...] = (
                _KINDS[resource], namespace, name, str(kind_type), str(data), str(age),
                used_by_cell(users.get((resource, namespace, name), [])))
            if self.filter.matches(obj, cells):
                rows.append((f"{resource}/{namespace}/{name}", cells))
        return rows

    @staticmethod
    def _split(key: str) -> tuple[str, str, str]:
        resource, _, rest = key.partition("/")
        namespace, _, name = rest.partition("/")
        return resource, namespace, name

    def lower_rows(self, key: str | None) -> list[Row]:
        if key is None:
            return []
        resource, namespace, name = self._split(key)
        obj = self.model.get(resource, f"{namespace}/{name}") or {}
        return key_rows(resource, obj, reveal=key in self.revealed)

    def lower_summary(self, key: str | None, rows: list[Row]) -> str:
        if key is None:
            return "[b]Keys[/b] (no ConfigMap or Secret)"
        resource, namespace, name = self._split(key)
        title = f"[b]Keys[/b] of {_KINDS.get(resource, resource)} {escape(namespace)}/" \
                f"{escape(name)}: {len(rows)}"
        if resource == SECRETS:
            title += ("  [yellow]values shown: v hides them[/yellow]" if key in self.revealed
                      else "  [dim]values hidden: v shows them[/dim]")
        return title

    def _selected(self) -> Selection | None:
        key = self.upper.current_key
        if key is None:
            return None
        resource, namespace, name = self._split(key)
        return Selection(resource, namespace, name)

    def selection(self) -> Selection | None:
        """The object under the upper cursor, whichever table has focus (a key
        row belongs to it)."""
        return self._selected()

    def lower_selection(self, key: str) -> Selection | None:
        return self._selected()

    def action_reveal(self) -> None:
        """Show or hide the values of the Secret under the cursor."""
        key = self.upper.current_key
        if key is None or not key.startswith(f"{SECRETS}/"):
            return
        self.revealed.symmetric_difference_update({key})
        self.render_lower()
