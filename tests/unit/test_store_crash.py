"""Crash safety: SIGKILL a writer at a random moment; every acknowledged write
must survive, the state file must stay valid, and reopening must not crash-loop.

Twenty trials with different seeds and kill times, as the foundation issue asks.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tinydb import TinyDB

from minikube_py.store.store import Store

WRITER = Path(__file__).with_name("crash_writer.py")
ROOT = Path(__file__).resolve().parents[2]


def run_and_kill(directory: Path, seed: int, *extra: str) -> list[tuple[str, str, int, int]]:
    """Run crash_writer.py (``extra``: its optional arguments), kill it, return its acks."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # Unbuffered: a buffered readline() of "ready" could take acknowledgement lines
    # into its buffer, where communicate() (reading the raw pipe) never sees them.
    proc = subprocess.Popen([sys.executable, str(WRITER), str(directory), str(seed), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            bufsize=0)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first == b"ready\n", proc.stderr.read().decode() if proc.stderr else first
    # Kill somewhere between "just started" and "well into compactions".
    time.sleep(random.Random(seed).uniform(0.02, 0.6))
    proc.send_signal(signal.SIGKILL)
    rest, err = proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    acks = []
    for line in rest.decode().splitlines():
        parts = line.split()
        if len(parts) == 4:  # the last line may be cut mid-write: not acknowledged
            acks.append((parts[0], parts[1], int(parts[2]), int(parts[3])))
    return acks


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_acknowledged_writes_survive_sigkill(tmp_path: Path, seed: int):
    directory = tmp_path / "state"
    acks = run_and_kill(directory, seed)
    assert_recovered(directory, acks)


def assert_recovered(directory: Path, acks: list[tuple[str, str, int, int]],
                     **store_args: Any) -> None:
    """Reopening ``directory`` (a Store with ``store_args``) finds exactly the acknowledged
    writes, and leaves a valid state file."""
    assert len(acks) > 20, "the writer should have acknowledged writes before the kill"

    # The state the acknowledged writes describe: key -> (rv, counter).
    expected: dict[str, tuple[int, int]] = {}
    for op, key, rv, counter in acks:
        if op == "put":
            expected[key] = (rv, counter)
        else:
            expected.pop(key, None)
    last_rv = acks[-1][2]

    with Store(directory, **store_args) as store:
        found = {o["metadata"]["name"]: (int(o["metadata"]["resourceVersion"]),
                                         int(o["metadata"]["annotations"]["n"]))
                 for o in store.list("pods").items}
        final_rv = store.resource_version

    # One writer, so at most one write was in flight (durable or not) at the kill:
    # the store holds exactly the acknowledged state, or that state plus the one
    # write at last_rv + 1. Anything else is a lost or invented write.
    assert final_rv in (last_rv, last_rv + 1), (final_rv, last_rv)
    differing = {k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k)}
    if final_rv == last_rv:
        assert not differing, f"acknowledged writes lost or changed: {sorted(differing)}"
    else:
        assert len(differing) == 1, f"more than the in-flight write differs: {sorted(differing)}"
        (key,) = differing
        if key in found:  # the in-flight write was a create or an update
            assert found[key][0] == last_rv + 1
        else:             # the in-flight write was a delete of an acknowledged object
            assert key in expected

    # The state file is a valid TinyDB database holding exactly the same objects.
    db = TinyDB(directory / "state.json", access_mode="r")
    try:
        assert len(db.table("pods").all()) == len(found)
    finally:
        db.close()
