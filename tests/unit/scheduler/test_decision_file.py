"""Decisions on disk: what a restarted scheduler reads back is what it showed.

The round trip is checked in a *fresh process*: verdict ids are interned per
process, so only a new interpreter proves the file carries what it needs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minikube_py.scheduler.decision import Decision, DecisionLog
from minikube_py.scheduler.decision_file import DecisionFile, iter_records

from .builders import framework, node, pod, schedule, snapshot

TAINT = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]


def varied_decisions() -> list[Decision]:
    """Scheduled (with scores and rejections), unschedulable, preempting, no nodes."""
    snap = snapshot([node("big", cpu="8", memory="16Gi"), node("mid", cpu="4", memory="8Gi"),
                     node("tainted", cpu="8", memory="16Gi", taints=TAINT),
                     node("tiny", cpu="500m", memory="8Gi")])
    fw = framework()
    out = [schedule(fw, pod("web", requests=[{"cpu": "1", "memory": "1Gi"}]), snap).decision,
           schedule(fw, pod("huge", requests=[{"cpu": "64"}]), snap).decision]
    small = snapshot([node("n1", cpu="2")],
                     [pod("victim", node_name="n1", requests=[{"cpu": "2"}], priority=1)])
    out.append(schedule(fw, pod("vip", requests=[{"cpu": "2"}], priority=100), small).decision)
    out.append(schedule(fw, pod("lonely"), snapshot([])).decision)
    return out


def shown(decisions: list[Decision]) -> list[tuple[str, str]]:
    return [(json.dumps(d.to_dict(), sort_keys=True), d.render()) for d in decisions]


_READER = """
import json, sys
from pathlib import Path
from minikube_py.scheduler.decision import DecisionLog
from minikube_py.scheduler.decision_file import DecisionFile
from minikube_py.scheduler.status import REASONS
# A different interning order than the writer's: ids must be remapped.
for i in range(5):
    REASONS.intern("Other", REASONS.get(0).code, f"unrelated {i}")
log = DecisionLog(file=DecisionFile(Path(sys.argv[1])))
log.load()
print(json.dumps([[json.dumps(d.to_dict(), sort_keys=True), d.render()]
                  for d in reversed(log.recent())]))
"""


def read_in_a_fresh_process(path: Path) -> list[tuple[str, str]]:
    out = subprocess.run([sys.executable, "-c", _READER, str(path)], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    return [tuple(x) for x in json.loads(out)]  # type: ignore[misc]


def test_a_restarted_scheduler_shows_exactly_what_it_showed(tmp_path: Path):
    path = tmp_path / "scheduler" / "decisions.jsonl"
    log = DecisionLog(file=DecisionFile(path))
    decisions = varied_decisions()
    for d in decisions:
        log.record(d)
    log.close()
    assert read_in_a_fresh_process(path) == shown(decisions)
    # Node tables and verdicts are written once each, not once per decision.
    kinds = [r["t"] for r in iter_records(path)]
    assert kinds.count("d") == 4
    assert kinds.count("n") <= 3


def test_decision_lines_carry_no_null_and_older_lines_with_nulls_still_load(tmp_path: Path):
    """A skipped scorer is written as [name, weight] and a decision without a
    node has no "n" (the JSON writer then never has to look for a NaN behind a
    null); a file from before, with nulls in their place, reads the same."""
    path = tmp_path / "scheduler" / "decisions.jsonl"
    log = DecisionLog(file=DecisionFile(path))
    decisions = varied_decisions()
    assert any(c.skipped for d in decisions for c in d.scorers)
    assert any(d.node is None for d in decisions)
    for d in decisions:
        log.record(d)
    log.close()
    lines = path.read_bytes().splitlines()
    assert not [line for line in lines if b'"t":"d"' in line and b"null" in line]
    older = []
    for line in lines:
        r = json.loads(line)
        if r["t"] == "d":
            r.setdefault("n", None)
            r["sc"] = [c if len(c) == 5 else [*c, None, None, None] for c in r["sc"]]
        older.append(json.dumps(r).encode())
    path.write_bytes(b"\n".join(older) + b"\n")
    assert b"null" in path.read_bytes()
    assert read_in_a_fresh_process(path) == shown(decisions)


def test_written_before_record_returns(tmp_path: Path):
    """What kill -9 may find: every recorded decision is in the file already."""
    path = tmp_path / "d.jsonl"
    log = DecisionLog(file=DecisionFile(path))
    for i, d in enumerate(varied_decisions()):
        log.record(d)
        assert sum(r["t"] == "d" for r in iter_records(path)) == i + 1


def test_a_torn_last_line_and_garbage_are_skipped_not_fatal(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture):
    path = tmp_path / "d.jsonl"
    log = DecisionLog(file=DecisionFile(path))
    decisions = varied_decisions()
    for d in decisions[:2]:
        log.record(d)
    log.close()
    with open(path, "ab") as f:
        f.write(b'{"t":"d","k":"default/x","u":"torn","ts":1.0,"o":"Sch')  # killed mid-write
    again = DecisionLog(file=DecisionFile(path))
    assert again.load() == 2
    assert "skipped 1 unreadable line" in caplog.text
    assert shown(list(reversed(again.recent()))) == shown(decisions[:2])
    # Appending after the torn line still works: the next record starts on its own line.
    again.record(decisions[2])
    again.close()
    third = DecisionLog(file=DecisionFile(path))
    assert third.load() == 3


def test_an_unwritable_file_keeps_the_log_working_in_memory(tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture):
    blocker = tmp_path / "scheduler"
    blocker.write_text("not a directory")
    log = DecisionLog(file=DecisionFile(blocker / "decisions.jsonl"))
    for d in varied_decisions():
        log.record(d)
    assert len(log) == 4
    assert caplog.text.count("kept in memory only") == 1


def test_a_failing_write_keeps_the_log_working_in_memory(caplog: pytest.LogCaptureFixture):
    # /dev/full opens, and every write to it fails with ENOSPC: a full disk.
    log = DecisionLog(file=DecisionFile(Path("/dev/full")))
    for d in varied_decisions():
        log.record(d)
    assert len(log) == 4
    assert caplog.text.count("kept in memory only") == 1
    assert "No space left on device" in caplog.text


def test_forgotten_pods_stay_forgotten_and_the_file_is_compacted(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    log = DecisionLog(capacity=20, per_pod=2, file=DecisionFile(path))
    template = varied_decisions()[0]
    for i in range(600):
        log.record(Decision(f"default/p{i % 30}", f"u{i % 30}", float(i), template.outcome,
                            template.node, template.message, template.names,
                            template.num_nodes, template.order, template.start,
                            template.count, template.status, template.absent,
                            template.scorers))
    log.forget("u29")
    log.close()
    lines = sum(1 for _ in iter_records(path))
    assert lines <= 2 * 20 + 256 + 10  # compacted as it went, not 600+ lines
    again = DecisionLog(capacity=20, per_pod=2, file=DecisionFile(path))
    again.load()
    uids = {d.pod_uid for d in again.recent()}
    assert len(again) == 20 and "u29" not in uids
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_retain_after_a_restart_drops_pods_deleted_meanwhile(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    log = DecisionLog(file=DecisionFile(path))
    decisions = varied_decisions()
    for d in decisions:
        log.record(d)
    log.close()
    restarted = DecisionLog(file=DecisionFile(path))
    restarted.load()
    assert restarted.retain({decisions[0].pod_uid}) == 3
    restarted.close()
    final = DecisionLog(file=DecisionFile(path))
    final.load()
    assert [d.pod_uid for d in final.recent()] == [decisions[0].pod_uid]
