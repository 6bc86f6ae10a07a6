"""Snapshot accounting: incremental, never negative, Kubernetes' request rules."""

from __future__ import annotations

import pytest

from minikube_py.scheduler.snapshot import Snapshot, zone_key

from .builders import MB, node, pod, snapshot


def used(snap: Snapshot, name: str) -> dict[str, int]:
    return {k: v for k, v in snap.requested_of(name).items() if v}


def test_bound_pod_is_charged_and_removed() -> None:
    snap = snapshot([node("n1", cpu="4", memory="8Gi")])
    p = pod("a", node_name="n1", requests=[{"cpu": "500m", "memory": "1Gi"}])
    snap.add_pod(p)
    assert used(snap, "n1") == {"cpu": 500, "memory": 1024**3, "pods": 1}
    assert snap.nonzero_requested[snap.slot_of("n1")].tolist() == [500, 1024**3]
    snap.remove_pod(p)
    assert used(snap, "n1") == {}
    assert snap.nonzero_requested[snap.slot_of("n1")].tolist() == [0, 0]


def test_removing_unknown_pod_or_node_is_a_noop() -> None:
    snap = snapshot([node("n1", cpu="4")])
    snap.remove_pod(pod("ghost", node_name="n1", requests=[{"cpu": "1"}]))
    snap.remove_pod("no-such-uid")
    snap.remove_node("no-such-node")
    snap.forget(pod("ghost"))
    assert used(snap, "n1") == {}
    assert snap.num_nodes == 1


def test_best_effort_pod_counts_with_non_zero_defaults_for_scoring_only() -> None:
    snap = snapshot([node("n1", cpu="4")], [pod("a", node_name="n1",
                                                 containers=[{"name": "c", "image": "x"}])])
    assert used(snap, "n1") == {"pods": 1}
    assert snap.nonzero_requested[snap.slot_of("n1")].tolist() == [100, 200 * MB]


def test_init_containers_and_overhead_are_accounted() -> None:
    p = pod("a", node_name="n1", overhead={"cpu": "100m"},
            init_containers=[{"name": "i", "image": "x",
                              "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}],
            requests=[{"cpu": "1", "memory": "2Gi"}])
    snap = snapshot([node("n1", cpu="8", memory="8Gi")], [p])
    assert used(snap, "n1") == {"cpu": 2100, "memory": 2 * 1024**3, "pods": 1}


def test_assume_charges_like_bound_and_is_idempotent() -> None:
    snap = snapshot([node("n1", cpu="4"), node("n2", cpu="4")])
    p = pod("a", requests=[{"cpu": "1"}])
    snap.assume(p, "n1")
    snap.assume(p, "n1")
    assert used(snap, "n1") == {"cpu": 1000, "pods": 1}
    assert snap.is_assumed(p["metadata"]["uid"])
    # Assuming elsewhere moves it.
    snap.assume(p, "n2")
    assert used(snap, "n1") == {}
    assert used(snap, "n2") == {"cpu": 1000, "pods": 1}
    snap.forget(p)
    assert used(snap, "n2") == {}


def test_bound_pod_replaces_assumption_and_forget_leaves_it() -> None:
    snap = snapshot([node("n1", cpu="4")])
    p = pod("a", requests=[{"cpu": "1"}])
    snap.assume(p, "n1")
    bound = pod("a", node_name="n1", requests=[{"cpu": "1"}])
    snap.add_pod(bound)
    assert not snap.is_assumed(p["metadata"]["uid"])
    snap.forget(p)  # binding confirmed: forgetting must not drop it
    assert used(snap, "n1") == {"cpu": 1000, "pods": 1}


def test_update_pod_replaces_charge() -> None:
    snap = snapshot([node("n1", cpu="4")], [pod("a", node_name="n1", requests=[{"cpu": "1"}])])
    snap.update_pod(pod("a", node_name="n1", requests=[{"cpu": "3"}]))
    assert used(snap, "n1") == {"cpu": 3000, "pods": 1}


def _state(snap: Snapshot) -> tuple[object, ...]:
    """Everything the plugins read about the pods, for comparing snapshots."""
    return (snap.requested.tolist(), snap.nonzero_requested.tolist(),
            snap.port_counts.tolist(), [dict(snap.ports_of(s)) for s in range(snap.num_nodes)],
            sorted((r.info.uid, r.node_name, r.assumed, r.info.phase) for r in snap.pods()),
            sorted(r.info.uid for r in snap.pods_with_affinity()),
            sorted(r.info.uid for r in snap.pods_with_required_anti_affinity()),
            sorted(r.info.uid for r in snap.pods_in_namespace("default")))


ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}]}}


@pytest.mark.parametrize("assumed_first", [False, True], ids=["bound", "assumed"])
def test_newer_versions_of_a_pod_keep_its_record_and_match_a_fresh_snapshot(
        assumed_first: bool) -> None:
    nodes = [node("n1", cpu="4", memory="8Gi"), node("n2", cpu="4", memory="8Gi")]
    kw: dict[str, object] = {"requests": [{"cpu": "500m", "memory": "1Gi"}],
                             "host_ports": [{"containerPort": 80, "hostPort": 80}],
                             "affinity": ANTI, "labels": {"app": "a"}}
    snap = snapshot(nodes, [pod("other", node_name="n1", requests=[{"cpu": "1"}])])
    if assumed_first:
        snap.assume(pod("a", **kw), "n1")  # type: ignore[arg-type]
    else:
        snap.add_pod(pod("a", node_name="n1", **kw))  # type: ignore[arg-type]
    rec = snap.pod("uid-default-a")
    assert rec is not None
    versions = [pod("a", node_name="n1", **kw),  # type: ignore[arg-type]
                pod("a", node_name="n1", phase="Running", start_time="2026-11-29T08:00:00Z",
                    **kw)]  # type: ignore[arg-type]
    for version in versions:
        snap.update_pod(version)
        assert snap.pod("uid-default-a") is rec  # read the new version in place
        assert rec.info.pod is version and not rec.assumed
        fresh = snapshot(nodes, [pod("other", node_name="n1", requests=[{"cpu": "1"}]),
                                 version])
        assert _state(snap) == _state(fresh)
    assert rec.info.phase == "Running"
    # A version that changes what it is charged is re-charged, as before.
    resized = pod("a", node_name="n1", **{**kw, "requests": [{"cpu": "2"}]})  # type: ignore[arg-type]
    snap.update_pod(resized)
    assert _state(snap) == _state(snapshot(nodes, [
        pod("other", node_name="n1", requests=[{"cpu": "1"}]), resized]))
    assert used(snap, "n1") == {"cpu": 3000, "pods": 2}


def test_terminal_pods_are_dropped() -> None:
    snap = snapshot([node("n1", cpu="4")], [pod("a", node_name="n1", requests=[{"cpu": "1"}])])
    snap.update_pod(pod("a", node_name="n1", requests=[{"cpu": "1"}], phase="Succeeded"))
    assert used(snap, "n1") == {}
    assert snap.num_pods == 0


def test_pod_before_node_and_node_removal() -> None:
    snap = Snapshot()
    snap.add_pod(pod("a", node_name="n1", requests=[{"cpu": "1"}]))
    assert snap.num_nodes == 0
    snap.add_node(node("n1", cpu="4"))
    assert used(snap, "n1") == {"cpu": 1000, "pods": 1}
    snap.remove_node("n1")
    assert snap.num_nodes == 0 and snap.num_pods == 1
    snap.add_node(node("n1", cpu="4"))
    assert used(snap, "n1") == {"cpu": 1000, "pods": 1}


def test_never_negative() -> None:
    snap = snapshot([node("n1", cpu="4")])
    p = pod("a", node_name="n1", requests=[{"cpu": "1"}])
    snap.add_pod(p)
    snap.remove_pod(p)
    snap.remove_pod(p)
    snap.forget(p)
    assert (snap.requested >= 0).all() and (snap.nonzero_requested >= 0).all()


def test_update_node_keeps_pods_and_updates_allocatable_and_labels() -> None:
    snap = snapshot([node("n1", cpu="4", labels={"a": "1"})],
                    [pod("a", node_name="n1", requests=[{"cpu": "1"}])])
    snap.update_node(node("n1", cpu="8", labels={"b": "2"}))
    assert snap.allocatable_of("n1")["cpu"] == 8000
    assert used(snap, "n1") == {"cpu": 1000, "pods": 1}
    slot = snap.slot_of("n1")
    assert snap.label_column("a")[slot] == -1
    assert snap.label_column("b")[slot] == snap.value_id("2")


def test_slots_are_reused_and_capacity_grows() -> None:
    snap = Snapshot(capacity=2)
    for i in range(5):
        snap.add_node(node(f"n{i}", cpu="1"))
    assert snap.num_nodes == 5 and snap.capacity >= 5
    snap.remove_node("n2")
    snap.add_node(node("n9", cpu="1"))
    assert snap.capacity == 8
    assert sorted(snap.node_names) == ["n0", "n1", "n3", "n4", "n9"]


def test_extended_resources_and_images() -> None:
    n = node("n1", cpu="4", extra={"nvidia.com/gpu": "2"},
             images=[(["nginx:1.25", "docker.io/nginx:1.25"], 50 * MB)])
    snap = snapshot([n], [pod("a", node_name="n1", requests=[{"nvidia.com/gpu": "1"}])])
    assert snap.allocatable_of("n1")["nvidia.com/gpu"] == 2
    assert used(snap, "n1")["nvidia.com/gpu"] == 1
    assert snap.image_state("nginx:1.25") == (50 * MB, 1)
    snap.remove_node("n1")
    assert snap.image_state("nginx:1.25") == (0, 0)


def test_nominated_pods_are_not_charged() -> None:
    snap = snapshot([node("n1", cpu="4")])
    high = pod("high", priority=100, requests=[{"cpu": "3"}])
    snap.nominate(high, "n1")
    assert used(snap, "n1") == {}
    slot = snap.slot_of("n1")
    # Counted for pods of lower or equal priority, never for the pod itself.
    assert [s for s, _ in snap.nominated_charges(100, "other")] == [slot]
    assert snap.nominated_charges(101, "other") == []
    assert snap.nominated_charges(0, high["metadata"]["uid"]) == []
    snap.assume(high, "n1")
    assert snap.nominated_pods("n1") == []


@pytest.mark.parametrize(("labels", "key"), [
    ({}, ""),
    ({"topology.kubernetes.io/zone": "z1"}, ":\x00:z1"),
    ({"topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": "z"}, "r:\x00:z"),
    ({"failure-domain.beta.kubernetes.io/zone": "old", "topology.kubernetes.io/zone": "new"},
     ":\x00:old"),
])
def test_zone_key(labels: dict[str, str], key: str) -> None:
    assert zone_key(labels) == key


def test_node_tree_order_interleaves_zones() -> None:
    # nodeTree.list(): one node per zone per round, zones in order of arrival.
    snap = Snapshot()
    for name, zone in [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("c1", "c"),
                       ("b2", "b")]:
        snap.add_node(node(name, zone=zone))
    assert snap.node_names == ["a1", "b1", "c1", "a2", "b2", "a3"]
    snap.remove_node("b1")
    assert snap.node_names == ["a1", "b2", "c1", "a2", "a3"]
    # A zone change moves the node to the end of its new zone.
    snap.update_node(node("a1", zone="c"))
    assert snap.node_names == ["a2", "b2", "c1", "a3", "a1"]


def test_detach_and_reattach_restore_exactly() -> None:
    snap = snapshot([node("n1", cpu="4")], [pod("a", node_name="n1", requests=[{"cpu": "1"}])])
    before = snap.requested.copy()
    rec = next(iter(snap.pods_on(snap.slot_of("n1"))))
    snap.detach(rec)
    assert used(snap, "n1") == {}
    snap.reattach(rec)
    assert (snap.requested == before).all()
