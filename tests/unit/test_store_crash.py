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

import pytest
from tinydb import TinyDB

from minikube_py.store.store import Store

WRITER = Path(__file__).with_name("crash_writer.py")
ROOT = Path(__file__).resolve().parents[2]


def run_and_kill(directory: Path, seed: int) -> list[tuple[str, str, int, int]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, str(WRITER), str(directory), str(seed)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
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
    assert len(acks) > 20, "the writer should have acknowledged writes before the kill"

    last: dict[str, tuple[str, int, int]] = {}
    for op, key, rv, counter in acks:
        last[key] = (op, rv, counter)

    with Store(directory) as store:
        assert store.resource_version >= acks[-1][2]
        for key, (op, rv, counter) in last.items():
            try:
                obj = store.get("pods", "default", key)
            except Exception:
                obj = None
            if op == "put":
                # The acknowledged version, or a later one the writer made but had
                # not yet acknowledged when it died.
                assert obj is not None, f"{key}: acknowledged write at rv {rv} lost"
                got_rv = int(obj["metadata"]["resourceVersion"])
                assert got_rv >= rv, f"{key}: rv {got_rv} older than acknowledged {rv}"
                if got_rv == rv:
                    assert obj["metadata"]["annotations"]["n"] == str(counter)
            else:
                assert obj is None or int(obj["metadata"]["resourceVersion"]) > rv
        live = store.count("pods")

    # The state file is a valid TinyDB database holding exactly the same objects.
    db = TinyDB(directory / "state.json", access_mode="r")
    try:
        assert len(db.table("pods").all()) == live
    finally:
        db.close()
