"""Decisions: rendering, JSON, compact storage, and the bounded thread-safe log."""

from __future__ import annotations

import json
import re
import threading

from minikube_py.scheduler.decision import Decision, DecisionLog

from .builders import framework, node, pod, schedule, snapshot

TAINT = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]


def scheduled_decision() -> Decision:
    snap = snapshot([node("big", cpu="8", memory="16Gi"), node("mid", cpu="4", memory="8Gi"),
                     node("tainted", cpu="8", memory="16Gi", taints=TAINT),
                     node("tiny", cpu="500m", memory="8Gi")])
    return schedule(framework(), pod("web", requests=[{"cpu": "1", "memory": "1Gi"}]),
                    snap).decision


def test_render_orders_chosen_then_total_then_rejected() -> None:
    d = scheduled_decision()
    text = d.render()
    lines = text.splitlines()
    assert lines[0].startswith("Pod default/web (uid uid-default-web) at ")
    assert lines[0].endswith(": Scheduled -> big")
    assert lines[1] == "Nodes: 4 total, 4 evaluated, 2 feasible, 2 rejected"
    assert text.index("big ") < text.index("mid ") < text.index("tainted") < text.index("tiny")
    assert re.search(r"tainted +TaintToleration +node\(s\) had untolerated taint "
                     r"\{dedicated: gpu\}", text)
    assert re.search(r"tiny +NodeResourcesFit +Insufficient cpu$", text, re.M)
    assert "Skipped scorers: NodeAffinity, PodTopologySpread, InterPodAffinity" in text
    assert lines[-1] == "Successfully assigned default/web to big"


def test_render_limits_rows() -> None:
    text = scheduled_decision().render(max_nodes=1)
    assert "... 1 more feasible node(s)" in text
    assert "... 1 more rejected node(s)" in text


def test_to_dict_is_plain_json() -> None:
    d = scheduled_decision()
    out = d.to_dict()
    assert json.loads(json.dumps(out)) == out
    assert out["outcome"] == "Scheduled" and out["node"] == "big"
    assert out["nodesTotal"] == 4 and out["nodesEvaluated"] == 4 and out["feasibleNodes"] == 2
    chosen = out["nodes"][0]
    assert chosen["name"] == "big" and chosen["chosen"] is True
    fit = chosen["scores"]["NodeResourcesFit"]
    assert fit["weighted"] == fit["normalized"] * 1
    assert chosen["total"] == sum(s["weighted"] for s in chosen["scores"].values())
    rejected = {n["name"]: n for n in out["nodes"] if not n["feasible"]}
    assert rejected["tiny"] == {"name": "tiny", "feasible": False, "plugin": "NodeResourcesFit",
                                "code": "Unschedulable", "reasons": ["Insufficient cpu"]}
    assert rejected["tainted"]["code"] == "UnschedulableAndUnresolvable"


def test_unschedulable_decision_ends_with_kubernetes_message() -> None:
    snap = snapshot([node("a", cpu="1"), node("b", cpu="1")])
    result = schedule(framework(), pod("big", requests=[{"cpu": "4"}]), snap)
    text = result.decision.render()
    assert text.splitlines()[-1] == result.message
    assert result.decision.to_dict()["message"] == result.message


def test_preemption_is_rendered() -> None:
    snap = snapshot([node("n1", cpu="2")],
                    [pod("victim", node_name="n1", requests=[{"cpu": "2"}], priority=1)])
    result = schedule(framework(), pod("vip", requests=[{"cpu": "2"}], priority=100), snap)
    text = result.decision.render()
    assert "Preemption: nominated node n1; victims:" in text
    assert ("default/victim (priority 1): Preempted by pod uid-default-vip on node n1"
            in text)
    assert result.decision.to_dict()["preemption"] == {
        "node": "n1", "victims": [{"namespace": "default", "name": "victim",
                                   "uid": "uid-default-victim", "priority": 1}]}


def test_decisions_are_compact_for_a_big_cluster() -> None:
    snap = snapshot([node(f"n{i:04d}", cpu="64", memory="256Gi", zone=f"z{i % 3}")
                     for i in range(5000)])
    fw = framework()
    decisions = [schedule(fw, pod(requests=[{"cpu": "100m"}]), snap, seed).decision
                 for seed in range(300)]
    own = sum(d.nbytes() for d in decisions)
    print(f"\n300 decisions over 5000 nodes: {own / 1e6:.2f} MB of own arrays")
    # Name table and node order are shared with the snapshot, not copied.
    assert all(d.names is decisions[0].names for d in decisions)
    assert own < 8_000_000


def test_log_is_bounded_and_keeps_latest_per_pod() -> None:
    log = DecisionLog(capacity=3)
    d = scheduled_decision()
    made = []
    for i in range(5):
        copy = Decision(f"default/p{i % 2}", f"u{i}", float(i), d.outcome, d.node, d.message,
                        d.names, d.num_nodes)
        made.append(copy)
        log.add(copy)
    assert len(log) == 3
    assert [x.pod_uid for x in log.recent()] == ["u4", "u3", "u2"]
    assert log.latest("default/p0") is made[4]
    assert [x.pod_uid for x in log.for_pod("default/p1")] == ["u3"]
    assert log.latest("default/missing") is None and log.for_pod("default/missing") == []


def test_log_keeps_every_pods_latest_before_anyone_elses_older_ones() -> None:
    log = DecisionLog(capacity=2)
    d = scheduled_decision()
    log.record(Decision("default/a", "u0", 0.0, d.outcome, d.node, d.message, d.names, 1))
    for i in range(2):
        log.record(Decision("default/b", f"u{i + 1}", 1.0, d.outcome, d.node, d.message,
                            d.names, 1))
    # Over the total: b's older attempt goes, a's only (latest) one stays.
    assert [x.pod_uid for x in log.recent()] == ["u2", "u0"]
    assert [x.pod_uid for x in log.for_pod("default/a")] == ["u0"]
    log.record(Decision("default/c", "u3", 2.0, d.outcome, d.node, d.message, d.names, 1))
    # Only latest ones left: the pod recorded longest ago loses its record.
    assert log.latest("default/a") is None
    assert [x.pod_uid for x in log.recent()] == ["u3", "u2"]


def test_log_is_bounded_per_pod() -> None:
    log = DecisionLog(capacity=100, per_pod=3)
    d = scheduled_decision()
    for i in range(10):
        log.record(Decision("default/retried", f"u-{i}", float(i), d.outcome, d.node,
                            d.message, d.names, 1))
    assert [x.time for x in log.for_pod("default/retried")] == [9.0, 8.0, 7.0]
    assert len(log) == 3


def test_forget_and_retain_drop_a_pods_decisions_by_uid() -> None:
    log = DecisionLog(capacity=10)
    d = scheduled_decision()
    for key, uid in (("default/a", "ua"), ("default/a", "ua"), ("default/b", "ub"),
                     ("default/c", "uc")):
        log.record(Decision(key, uid, 0.0, d.outcome, d.node, d.message, d.names, 1))
    log.forget("ua")
    assert log.for_pod("default/a") == [] and len(log) == 2
    log.forget("nobody")  # nothing to forget: nothing happens
    assert log.retain({"uc", "someone-else"}) == 1
    assert [x.pod_uid for x in log.recent()] == ["uc"]


def test_many_attempts_of_one_pod_do_not_grow_the_log() -> None:
    """Superseded decisions are queued for eviction; the queue itself stays bounded."""
    log = DecisionLog(capacity=5, per_pod=2)
    d = scheduled_decision()
    for i in range(1000):
        log.record(Decision("default/loop", f"u{i}", 0.0, d.outcome, d.node, d.message,
                            d.names, 1))
    assert len(log) == 2
    assert len(log._older) <= 2 * log.capacity + 1


def test_log_is_thread_safe() -> None:
    log = DecisionLog(capacity=50)
    d = scheduled_decision()

    def writer(k: int) -> None:
        for i in range(500):
            log.add(Decision(f"default/p{k}-{i % 7}", f"{k}-{i}", 0.0, d.outcome, d.node,
                             d.message, d.names, 1))
            log.recent(5)
            log.for_pod(f"default/p{k}-1")

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(log) == 50


def test_the_uid_index_follows_every_way_a_decision_goes() -> None:
    """Evicted, trimmed and forgotten decisions all leave the uid index: it never
    outgrows what is kept, and forgetting finds exactly the pod's decisions."""
    log = DecisionLog(capacity=6, per_pod=2)
    d = scheduled_decision()
    for i in range(200):
        log.record(Decision(f"default/p{i % 9}", f"u{i % 9}", float(i), d.outcome, d.node,
                            d.message, d.names, 1))
    kept = {x.pod_uid for x in log.recent()}
    assert set(log._uids) == kept and sum(n for _, n in log._uids.values()) == len(log) == 6
    victim = next(iter(kept))
    log.forget(victim)
    assert victim not in {x.pod_uid for x in log.recent()} and victim not in log._uids
    assert log.retain(set()) == len(kept) - 1
    assert len(log) == 0 and log._uids == {}
