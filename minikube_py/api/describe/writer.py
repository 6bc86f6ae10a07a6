"""The output side of every describer: kubectl's prefix writer, its column
aligner, and the clock and timezone a description is rendered for.

* :class:`Out` is kubectl's ``PrefixWriter``. Describers write tab-separated
  cells at a nesting level; :meth:`Out.render` aligns the whole text at the
  end, so cells line up across sections as kubectl's do.
* :func:`tabwrite` is the aligner on its own, for other commands that print
  tables like kubectl (``rollout history``).
* :class:`Ctx` carries ``now`` (Unix seconds) and ``tz`` (``None``: the local
  timezone) to every function that prints a time or an age.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo

__all__ = ["Ctx", "Out", "tabwrite"]


def _escape(text: str) -> str:
    # printers.WriteEscaped: keep terminal control sequences inert.
    return text.replace("\x1b", "^[").replace("\r", "\\r")


class Out:
    """kubectl's ``PrefixWriter``: two spaces per level, into a shared buffer.

    :meth:`nested` is ``NewNestedPrefixWriter``: every write, continuation
    writes included, gets the extra levels (kubectl's quirks come along).
    """

    def __init__(self, parts: list[str] | None = None, indent: int = 0) -> None:
        self.parts: list[str] = parts if parts is not None else []
        self.indent = indent

    def write(self, level: int, text: str) -> None:
        self.parts.append(_escape("  " * (level + self.indent) + text))

    def line(self, text: str = "") -> None:
        """``WriteLine``: the text and a newline, indented only when nested."""
        self.parts.append(_escape("  " * self.indent + text + "\n"))

    def nested(self, indent: int) -> Out:
        return Out(self.parts, self.indent + indent)

    def render(self) -> str:
        return tabwrite("".join(self.parts))


def tabwrite(text: str, padding: int = 2) -> str:
    """Go's ``text/tabwriter`` as kubectl configures it (minwidth 0, padding 2,
    pad with spaces, no flags).

    Cells are tab-terminated; the text after a line's last tab is not part of
    any column. A column is a run of consecutive lines that all have a cell at
    that index; its width is its widest cell plus ``padding``.
    """
    lines = [line.split("\t") for line in text.split("\n")]
    out: list[str] = []
    _tab_format(lines, [], 0, len(lines), padding, out)
    return "\n".join(out)


def _tab_format(lines: list[list[str]], widths: list[int], line0: int, line1: int,
                padding: int, out: list[str]) -> None:
    column = len(widths)
    this = line0
    while this < line1:
        if column >= len(lines[this]) - 1:
            this += 1
            continue
        # A cell exists in this column: print what came before, then the block.
        _tab_write_lines(lines, widths, line0, this, out)
        line0 = this
        width = 0
        while this < line1 and column < len(lines[this]) - 1:
            width = max(width, len(lines[this][column]) + padding)
            this += 1
        widths.append(width)
        _tab_format(lines, widths, line0, this, padding, out)
        widths.pop()
        line0 = this
    _tab_write_lines(lines, widths, line0, line1, out)


def _tab_write_lines(lines: list[list[str]], widths: list[int], line0: int, line1: int,
                     out: list[str]) -> None:
    for i in range(line0, line1):
        pieces: list[str] = []
        for j, cell in enumerate(lines[i]):
            pieces.append(cell)
            if j < len(widths):
                pieces.append(" " * (widths[j] - len(cell)))
        out.append("".join(pieces))


@dataclass(frozen=True)
class Ctx:
    """What a description is rendered for: ``now`` (Unix seconds) gives the
    ages, ``tz`` the timestamps' zone (``None``: the local timezone)."""

    now: float
    tz: tzinfo | None
