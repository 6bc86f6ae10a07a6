"""A deep run of the API fuzz test, recorded in ``bench/RESULTS.md``.

``make test`` runs ``tests/e2e/test_api_fuzz.py`` with a few hundred random
requests; this runs the same test against a real daemon with many more
(default 20,000; ``--examples``), a fresh seed unless ``--seed`` replays one,
and records the status codes it got. The claim it checks is the test's own:
no 5xx, every refusal a well-formed Status, nothing changed by a refused
request.

    .venv/bin/python bench/api_fuzz_deep.py [--examples 20000] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import machine, record, table

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stats_file = Path(tmp) / "stats.json"
        env = {**os.environ, "MINIKUBE_PY_FUZZ_EXAMPLES": str(args.examples),
               "MINIKUBE_PY_FUZZ_STATS": str(stats_file)}
        if args.seed is not None:
            env["MINIKUBE_PY_FUZZ_SEED"] = str(args.seed)
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
             "tests/e2e/test_api_fuzz.py::test_api_fuzz"], cwd=ROOT, env=env, check=False)
        stats = json.loads(stats_file.read_text())
    codes = {int(k): v for k, v in stats["codes"].items()}
    server_errors = sum(v for k, v in codes.items() if k >= 500)
    verdict = "passed" if run.returncode == 0 and stats["passed"] else "FAILED"
    print(f"deep fuzz {verdict}: {sum(codes.values())} requests, {server_errors} 5xx, "
          f"seed {stats['seed']}")
    rows = [[f"{sum(codes.values()):,}", f"{stats['examples']:,}", str(stats["seed"]),
             f"{stats['seconds']:.0f} s", str(stats["resets"]), f"**{server_errors}**",
             ", ".join(f"{k}: {v:,}" for k, v in sorted(codes.items())), verdict]]
    record("api_fuzz_deep", "\n".join([
        "## API fuzz, deep run (`bench/api_fuzz_deep.py`)",
        "",
        f"Run: {machine()}. The fuzz test of `make test` (`tests/e2e/test_api_fuzz.py`) "
        "against a real daemon (fake runtime) with many more requests: random paths, "
        "methods, queries, headers and bodies (schema-shaped objects, mutations, patches, "
        "YAML, protobuf, bombs). Every answer must be a well-formed Status or a parseable "
        "2xx, a refused request must change nothing, and the daemon must stay ready. "
        "`MINIKUBE_PY_FUZZ_SEED` replays the run.",
        "",
        table(["requests", "examples", "seed", "took", "resets", "5xx", "status codes",
               "result"], rows),
    ]))
    return 0 if verdict == "passed" else 1


if __name__ == "__main__":
    sys.exit(main())
