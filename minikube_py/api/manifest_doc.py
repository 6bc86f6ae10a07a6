"""What the manifest parsers share: parsed documents, their error, their limits.

Split off :mod:`.manifest` so that the YAML and JSON readers
(:mod:`.manifest_yaml`, :mod:`.manifest_json`) need not import the loader.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import BadRequest

#: Most nodes alias expansion may produce in one file (counted before copying).
MAX_ALIAS_NODES = 10_000
#: Deepest nesting of mappings/sequences. Real objects (CRD schemas included)
#: stay well under it; parsers are quadratic in nesting, so the cap matters.
MAX_DEPTH = 100


class ManifestError(BadRequest):
    """A manifest could not be read; ``message`` is the full user-facing text."""


@dataclass(slots=True)
class _Doc:
    value: Any
    number: int
    line: int
    #: Line of a mapping that is a list element (for List items), if known.
    line_of: Callable[[object], int | None]


def describe_value(value: Any) -> str:
    """How an error message names a wrong value: ``a string ("x")``, ``a list``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({json.dumps(value[:40])})"
    if isinstance(value, list):
        return "a list"
    return "a mapping"
