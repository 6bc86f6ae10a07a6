"""Plugin verdicts as values: status codes, :class:`Status`, and the reason table.

Expected rejections are values, never exceptions (kube-scheduler's
``framework.Status``). The codes and their numbers are Kubernetes' own.

Filters run over many nodes at once, so per-node verdicts are small integers:
a **reason id** names one ``(plugin, code, reasons)`` triple in the
process-wide :data:`REASONS` table, and ``0`` means "passed". Decisions store
those ids (two bytes per node) and turn them back into text only when someone
asks. The table only grows with *distinct* verdicts (a few dozen in practice:
one per resource combination or taint), is shared by every framework in the
process, and is safe to use from several threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

__all__ = ["PASS", "REASONS", "Code", "ReasonTable", "Status"]


class Code(IntEnum):
    """``framework.Code``, same order and values as Kubernetes."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def label(self) -> str:
        """Kubernetes' spelling (``UnschedulableAndUnresolvable``)."""
        return _LABELS[self]

    @property
    def rejected(self) -> bool:
        """``Status.IsRejected``: Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)


_LABELS: Final = {
    Code.SUCCESS: "Success", Code.ERROR: "Error", Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable", Code.WAIT: "Wait",
    Code.SKIP: "Skip", Code.PENDING: "Pending",
}


@dataclass(frozen=True, slots=True)
class Status:
    """One verdict: a code, the reasons shown to users, and who gave it."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @classmethod
    def success(cls) -> Status:
        return _SUCCESS

    @classmethod
    def skip(cls) -> Status:
        return _SKIP

    @classmethod
    def unschedulable(cls, *reasons: str, plugin: str = "",
                      unresolvable: bool = False) -> Status:
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
        return cls(code, reasons, plugin)

    @classmethod
    def error(cls, message: str, plugin: str = "") -> Status:
        return cls(Code.ERROR, (message,), plugin)

    @property
    def ok(self) -> bool:
        return self.code is Code.SUCCESS

    @property
    def is_skip(self) -> bool:
        return self.code is Code.SKIP

    @property
    def rejected(self) -> bool:
        return self.code.rejected

    @property
    def message(self) -> str:
        """``Status.Message``: the reasons joined by ``", "``."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        return Status(self.code, self.reasons, plugin)


_SUCCESS: Final = Status()
_SKIP: Final = Status(Code.SKIP)

#: Reason id meaning "this node passed".
PASS: Final = 0
_MAX_ID: Final = 0xFFFF


class ReasonTable:
    """Interns ``(plugin, code, reasons)`` as small ids; id 0 is "passed"."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[Status] = [Status()]
        self._ids: dict[Status, int] = {Status(): 0}

    def intern(self, plugin: str, code: Code, *reasons: str) -> int:
        key = Status(code, reasons, plugin)
        rid = self._ids.get(key)
        if rid is not None:
            return rid
        with self._lock:
            rid = self._ids.get(key)
            if rid is None:
                if len(self._entries) > _MAX_ID:
                    # Out of ids: fold into one catch-all verdict for this plugin
                    # rather than fail scheduling (unreachable in practice).
                    return self.intern(plugin, code, "(too many distinct reasons)")
                rid = len(self._entries)
                self._entries.append(key)
                self._ids[key] = rid
            return rid

    def intern_status(self, status: Status) -> int:
        if status.ok:
            return PASS
        return self.intern(status.plugin, status.code, *status.reasons)

    def get(self, rid: int) -> Status:
        return self._entries[rid]

    def __len__(self) -> int:
        return len(self._entries)


#: The process-wide table every plugin and decision uses.
REASONS: Final = ReasonTable()
