"""Record a benchmark's figures as one section of ``bench/RESULTS.md``.

Each benchmark owns the section between ``<!-- name:start -->`` and
``<!-- name:end -->`` and replaces it on every run, so the file always shows the
latest run of every benchmark, with the date, machine and commit it came from.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")
HEADER = (
    "# Benchmark results\n\n"
    "Written by the benchmarks in `bench/`; each section is replaced by its latest run.\n"
    "Figures from shared, noisy machines: compare the ratios against the baseline run\n"
    "side by side in the same process, not absolute numbers across runs.\n"
)


def machine() -> str:
    """One line naming where the figures come from."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=RESULTS.parent, check=False).stdout.strip()
    except OSError:
        rev = ""
    return (f"{dt.date.today().isoformat()}, {platform.system()} {platform.machine()}, "
            f"{os.cpu_count()} CPUs, Python {platform.python_version()}"
            + (f", commit {rev}" if rev else ""))


def record(name: str, body: str) -> None:
    """Replace (or append) the section ``name`` of RESULTS.md with ``body``."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    section = f"{start}\n{body.rstrip()}\n{end}\n"
    text = RESULTS.read_text() if RESULTS.exists() else HEADER
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1].lstrip("\n")
        text = before + section + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text)


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)
