"""The test run behind ``make test``: two pytest processes side by side.

* **host**: ``tests/integration`` and ``tests/e2e``, which use this host's
  Podman, nftables and daemon processes one test after the other, as they
  were written to; they spend most of their time waiting on containers.
* **unit**: ``tests/unit``, which only uses the CPU.

They share nothing but the machine, so running them at once takes about as
long as the host suite alone (two cores: the unit tests use the one the host
suite mostly leaves idle). The host run streams to the terminal; the unit
run's output is printed when it ends. Each has its own ``--basetemp``. The
exit status is the first failure's (0 when both pass).

With arguments (``make test ARGS="tests/unit/test_store.py -k compaction"``),
a single ``pytest ARGS`` runs instead.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTEST = [sys.executable, "-m", "pytest"]


def main(argv: list[str]) -> int:
    if argv:
        return subprocess.call([*PYTEST, *argv], cwd=ROOT)
    base = Path(tempfile.gettempdir()) / "minikube-py-tests"
    base.mkdir(exist_ok=True)  # pytest makes --basetemp itself, not its parent
    with tempfile.TemporaryFile(mode="w+") as unit_out:
        unit = subprocess.Popen([*PYTEST, "tests/unit", f"--basetemp={base / 'unit'}"],
                                cwd=ROOT, stdout=unit_out, stderr=subprocess.STDOUT, text=True)
        try:
            host = subprocess.call([*PYTEST, "tests/integration", "tests/e2e",
                                    f"--basetemp={base / 'host'}"], cwd=ROOT)
        finally:
            code = unit.wait()
        unit_out.seek(0)
        print("\n======== tests/unit (ran alongside) ========", flush=True)
        sys.stdout.write(unit_out.read())
    print(f"\nmake test: host tests {'passed' if host == 0 else 'FAILED'}, "
          f"unit tests {'passed' if code == 0 else 'FAILED'}")
    return host or code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
