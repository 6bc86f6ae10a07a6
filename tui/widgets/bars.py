"""Bars and sparklines as Rich ``Text``, so they fit in DataTable cells.

:func:`bar` draws ``used / total`` as a fixed-width bar with its percentage,
coloured green below 70 %, yellow below 90 % and red from there (a node whose
requests reach its allocatable cannot take another pod of that size).
:func:`sparkline` draws a series scaled to a ceiling (the node's allocatable,
so heights compare across nodes). Both are pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.text import Text

_BLOCKS: Final = " ▁▂▃▄▅▆▇█"
_FULL: Final = "█"
_EMPTY: Final = "░"


def level_style(fraction: float) -> str:
    """The colour of a fill level (0..1, more than 1 when overcommitted)."""
    if fraction >= 0.9:
        return "red"
    if fraction >= 0.7:
        return "yellow"
    return "green"


def bar(used: float, total: float, *, width: int = 8) -> Text:
    """``████░░░░  52%``: ``used`` of ``total`` (``total`` 0 draws an empty ``n/a`` bar)."""
    if total <= 0:
        return Text(_EMPTY * width + "  n/a", style="dim")
    fraction = max(0.0, used / total)
    filled = min(width, round(fraction * width))
    if fraction > 0 and filled == 0:
        filled = 1  # anything requested shows
    text = Text()
    text.append(_FULL * filled, style=level_style(fraction))
    text.append(_EMPTY * (width - filled), style="dim")
    text.append(f" {round(fraction * 100):>3}%")
    return text


def sparkline(values: Sequence[float], ceiling: float, *, width: int = 12) -> Text:
    """The last ``width`` values as block characters, 0 at the bottom and
    ``ceiling`` (or the largest value, if higher) at the top; padded on the
    left so the newest value is always at the right edge."""
    recent = list(values)[-width:]
    top = max([ceiling, *recent]) if recent else ceiling
    chars = []
    for value in recent:
        level = 0 if top <= 0 else round(max(0.0, value) / top * (len(_BLOCKS) - 1))
        if value > 0 and level == 0:
            level = 1
        chars.append(_BLOCKS[level])
    line = "".join(chars).rjust(width, " ")
    style = level_style(recent[-1] / top) if recent and top > 0 else "dim"
    return Text(line, style=style)


def cpu_text(millis: int) -> str:
    """Millicores the way kubectl prints cpu: ``250m``, ``2``, ``1500m``."""
    if millis % 1000 == 0:
        return str(millis // 1000)
    return f"{millis}m"


def bytes_text(value: int) -> str:
    """Bytes in binary units with up to one decimal: ``512Mi``, ``1.5Gi``."""
    for unit, size in (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if value >= size:
            amount = value / size
            return f"{amount:.0f}{unit}" if amount >= 10 or amount == int(amount) \
                else f"{amount:.1f}{unit}"
    return f"{value}B"
