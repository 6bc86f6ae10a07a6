"""Deployment arithmetic, table-driven with Kubernetes' own cases where it has them
(deployment_util_test.go, rolling_test.go, sync_test.go)."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.timefmt import format_time
from minikube_py.controllers import deployment_progress as dp
from minikube_py.controllers import deployment_scaling as ds
from minikube_py.controllers import deployment_util as du
from minikube_py.controllers.deployment_progress import (
    min_ready_requeue,
    paused_condition,
    progress_requeue,
    rollout_status,
)

NEW = "2016-05-20T02:00:00Z"
OLD = "2016-05-20T01:00:00Z"
OLDER = "2016-05-20T00:00:00Z"


def deployment(replicas: int = 1, *, surge: Any = 0, unavailable: Any = 0,
               strategy: str = "RollingUpdate", history: int | None = None,
               **status: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
                     "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
        "strategy": {"type": strategy},
        "progressDeadlineSeconds": 600,
    }
    if strategy == "RollingUpdate":
        spec["strategy"]["rollingUpdate"] = {"maxSurge": surge, "maxUnavailable": unavailable}
    if history is not None:
        spec["revisionHistoryLimit"] = history
    return {"metadata": {"name": "web", "namespace": "default", "generation": 1},
            "spec": spec, "status": status}


def rs(name: str, replicas: int, created: str = NEW, *, available: int = 0,
       status_replicas: int = 0, revision: int | None = None,
       **annotations: str) -> dict[str, Any]:
    ann = dict(annotations)
    if revision is not None:
        ann[du.REVISION_ANNOTATION] = str(revision)
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "creationTimestamp": created, "annotations": ann},
            "spec": {"replicas": replicas},
            "status": {"replicas": status_replicas, "availableReplicas": available}}


# ------------------------------------------------------------------ fenceposts


@pytest.mark.parametrize("surge, unavailable, desired, want_surge, want_unavailable", [
    # TestResolveFenceposts
    ("0%", "0%", 0, 0, 1),
    ("39%", "39%", 10, 4, 3),
    (None, "39%", 10, 0, 3),
    ("39%", None, 10, 4, 0),
    (None, None, 10, 0, 1),
    # rounding: surge up, unavailable down
    ("25%", "25%", 8, 2, 2),
    ("25%", "25%", 3, 1, 0),
    ("25%", "25%", 1, 1, 0),
    (1, 1, 2, 1, 1),
    (0, 0, 5, 0, 1),
    ("10%", "10%", 1, 1, 0),
])
def test_resolve_fenceposts(surge, unavailable, desired, want_surge, want_unavailable):
    assert du.resolve_fenceposts(surge, unavailable, desired) == (want_surge, want_unavailable)


@pytest.mark.parametrize("surge, unavailable", [("oops", "39%"), ("55%", "urg"), ("5", "1")])
def test_resolve_fenceposts_errors(surge, unavailable):
    with pytest.raises(du.IntOrStringError, match="invalid value for IntOrString"):
        du.resolve_fenceposts(surge, unavailable, 10)


@pytest.mark.parametrize("replicas, unavailable, want", [
    # TestMaxUnavailable
    (10, 5, 5), (10, 10, 10), (5, 10, 5), (0, 10, 0),
    (10, "50%", 5), (10, "100%", 10), (5, "100%", 5),
])
def test_max_unavailable(replicas, unavailable, want):
    assert du.max_unavailable(deployment(replicas, surge=1, unavailable=unavailable)) == want


def test_max_unavailable_and_surge_are_zero_for_recreate():
    d = deployment(3, strategy="Recreate")
    assert du.max_unavailable(d) == 0
    assert du.max_surge(d) == 0


# ------------------------------------------------------------------ NewRSNewReplicas


@pytest.mark.parametrize("strategy, dep_replicas, new_rs_replicas, surge, want", [
    # TestNewRSNewReplicas: all ReplicaSets are one old RS of 5 replicas
    ("RollingUpdate", 1, 5, 1, 5),   # cannot scale up
    ("RollingUpdate", 6, 2, 10, 6),  # scale up, capped at the deployment's replicas
    ("Recreate", 3, 1, 1, 3),
])
def test_new_rs_new_replicas(strategy, dep_replicas, new_rs_replicas, surge, want):
    d = deployment(dep_replicas, surge=surge, unavailable=1, strategy=strategy)
    if strategy == "Recreate":
        d["spec"]["strategy"]["rollingUpdate"] = {"maxSurge": surge, "maxUnavailable": 1}
    new = rs("new", new_rs_replicas)
    assert ds.new_rs_new_replicas(d, [rs("old", 5)], new) == want


@pytest.mark.parametrize("dep_replicas, surge, old, new, want", [
    # TestDeploymentController_reconcileNewReplicaSet (maxUnavailable 0)
    (10, 0, 10, 0, 0),
    (10, 2, 10, 0, 2),
    (10, 2, 5, 0, 7),
    (10, 2, 10, 2, 2),
    (10, 2, 2, 11, 10),  # scales down to replicas
])
def test_new_rs_target(dep_replicas, surge, old, new, want):
    d = deployment(dep_replicas, surge=surge, unavailable=0)
    new_rs = rs("foo-new", new)
    assert ds.new_rs_target(d, [new_rs, rs("foo-old", old)], new_rs) == want


# ------------------------------------------------------------------ scale-down math


@pytest.mark.parametrize("replicas, unavailable, old, new, old_ready, new_ready, want_old", [
    # TestDeploymentController_reconcileOldReplicaSets (maxSurge 0)
    (10, 0, 10, 0, 10, 0, 9),   # 0/0 resolves to maxUnavailable 1
    (10, 2, 10, 0, 10, 0, 8),
    (10, 2, 10, 0, 8, 0, 8),    # the unhealthy replicas are cleaned up
    (10, 2, 10, 0, 9, 0, 8),    # 1 unhealthy cleaned, 1 ready scaled down
    (10, 2, 8, 2, 8, 0, 8),     # unavailable new pods block further scale-down
])
def test_old_replica_set_scale_down(replicas, unavailable, old, new, old_ready, new_ready,
                                    want_old):
    d = deployment(replicas, surge=0, unavailable=unavailable)
    new_rs = rs("foo-new", new, available=new_ready)
    old_rs = rs("foo-old", old, available=old_ready)
    all_rss = [old_rs, new_rs]
    budget = ds.max_scaled_down(d, all_rss, new_rs)
    if budget <= 0:
        assert want_old == old
        return
    sizes = {"foo-old": old}
    for target, size in ds.unhealthy_cleanup_plan([old_rs], budget):
        sizes[du.name_of(target)] = size
    after = rs("foo-old", sizes["foo-old"], available=old_ready)
    for target, size in ds.rolling_scale_down_plan(d, [after, new_rs], [after]):
        sizes[du.name_of(target)] = size
    assert sizes["foo-old"] == want_old


@pytest.mark.parametrize("old, ready, max_cleanup, want", [
    # TestDeploymentController_cleanupUnhealthyReplicas
    (10, 8, 1, 1), (10, 8, 3, 2), (10, 8, 0, 0), (10, 10, 3, 0),
])
def test_unhealthy_cleanup(old, ready, max_cleanup, want):
    plan = ds.unhealthy_cleanup_plan([rs("foo-v2", old, available=ready)], max_cleanup)
    assert sum(old - size for _, size in plan) == want


@pytest.mark.parametrize("replicas, unavailable, ready, old, want", [
    # TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate
    (10, 0, 10, 10, 9),
    (10, 2, 10, 10, 8),
    (10, 2, 8, 10, None),
    (10, 2, 10, 0, None),
    (10, 2, 1, 10, None),
])
def test_rolling_scale_down(replicas, unavailable, ready, old, want):
    d = deployment(replicas, surge=0, unavailable=unavailable)
    old_rs = rs("foo-v2", old, available=ready)
    plan = ds.rolling_scale_down_plan(d, [old_rs], [old_rs])
    if want is None:
        assert plan == []
    else:
        assert [(du.name_of(r), size) for r, size in plan] == [("foo-v2", want)]


def test_scale_down_takes_oldest_first():
    d = deployment(4, surge=0, unavailable=1)
    older, old = rs("a-older", 2, OLDER, available=2), rs("b-old", 2, OLD, available=2)
    new = rs("c-new", 2, NEW, available=2)
    plan = ds.rolling_scale_down_plan(d, [old, older, new], [old, older])
    assert [(du.name_of(r), size) for r, size in plan] == [("a-older", 0), ("b-old", 1)]


# ------------------------------------------------------------------ proportional scaling


def _annotated(r: dict[str, Any], desired: int, max_replicas: int) -> dict[str, Any]:
    du.set_replicas_annotations(r, desired, max_replicas)
    return r


@pytest.mark.parametrize("name, new_size, old_size, surge, new, olds, want_new, want_olds", [
    # TestScale (sync_test.go)
    ("proportional scaling: 5 -> 10", 10, 5, 0, ("foo-v2", 2), [("foo-v1", 3, OLD)],
     4, [6]),
    ("proportional scaling: 5 -> 3", 3, 5, 0, ("foo-v2", 2), [("foo-v1", 3, OLD)], 1, [2]),
    ("proportional scaling: 9 -> 4", 4, 9, 0, ("foo-v2", 8), [("foo-v1", 1, OLD)], 4, [0]),
    ("proportional scaling: 7 -> 10", 10, 7, 0, ("foo-v3", 2),
     [("foo-v2", 3, OLD), ("foo-v1", 2, OLDER)], 3, [4, 3]),
    ("proportional scaling: 13 -> 8", 8, 13, 0, ("foo-v3", 2),
     [("foo-v2", 8, OLD), ("foo-v1", 3, OLDER)], 1, [5, 2]),
    ("leftover distribution: 3 -> 4", 4, 3, 0, ("foo-v3", 1),
     [("foo-v2", 1, OLD), ("foo-v1", 1, OLDER)], 2, [1, 1]),
    ("leftover distribution: 3 -> 2", 2, 3, 0, ("foo-v3", 1),
     [("foo-v2", 1, OLD), ("foo-v1", 1, OLDER)], 1, [1, 0]),
    ("proportional scaling (no new rs): 4 -> 5", 5, 4, 0, None,
     [("foo-v2", 2, OLD), ("foo-v1", 2, OLDER)], None, [3, 2]),
    ("proportional scaling: 6 -> 0", 0, 6, 0, ("foo-v3", 3),
     [("foo-v2", 2, OLD), ("foo-v1", 1, OLDER)], 0, [0, 0]),
    ("deployment with surge pods", 20, 10, 2, ("foo-v2", 6), [("foo-v1", 6, OLD)], 11, [11]),
])
def test_proportional_scaling(name, new_size, old_size, surge, new, olds, want_new, want_olds):
    d = deployment(new_size, surge=surge)
    old_max = old_size + surge
    new_rs = _annotated(rs(new[0], new[1], NEW), old_size, old_max) if new else None
    old_rss = [_annotated(rs(n, size, created), old_size, old_max) for n, size, created in olds]
    plan, _ = ds.proportional_scale_plan(d, du.filter_active([*old_rss, new_rs]))
    sizes = {du.name_of(r): size for r, size in plan}
    if new_rs is not None:
        assert sizes.get(new[0], new[1]) == want_new, name
    assert [sizes.get(n, size) for n, size, _ in olds] == want_olds, name


def test_proportional_scaling_change_both_surge_and_size():
    # TestScale "change both surge and size": 10 (surge 3) -> 50 (surge 6)
    d = deployment(50, surge=6)
    new_rs = _annotated(rs("foo-v2", 5, NEW), 10, 13)
    old_rs = _annotated(rs("foo-v1", 8, OLD), 10, 13)
    plan, operation = ds.proportional_scale_plan(d, [old_rs, new_rs])
    assert operation == "up"
    assert {du.name_of(r): size for r, size in plan} == {"foo-v2": 22, "foo-v1": 34}


def test_proportion_rounds_half_away_from_zero():
    # 2 * 5 / 4 = 2.5 -> 3 (Go's math.Round), not Python's banker's 2
    d = deployment(5)
    r = _annotated(rs("a", 2), 4, 4)
    assert ds.replica_set_fraction(r, d) == 1


def test_find_active_or_latest():
    a, b = rs("a", 0, OLDER), rs("b", 0, OLD)
    assert du.find_active_or_latest(None, [a, b]) is b  # none active: the newest
    new = rs("n", 0)
    assert du.find_active_or_latest(new, [a, b]) is new
    c = rs("c", 2, OLD)
    assert du.find_active_or_latest(new, [a, c]) is c
    assert du.find_active_or_latest(rs("n", 1), [c]) is None


def test_is_saturated():
    d = deployment(3)
    r = _annotated(rs("a", 3, available=3), 3, 3)
    assert ds.is_saturated(d, r)
    assert not ds.is_saturated(d, _annotated(rs("a", 3, available=2), 3, 3))
    assert not ds.is_saturated(d, _annotated(rs("a", 3, available=3), 2, 3))
    assert not ds.is_saturated(d, rs("a", 3, available=3))


# ------------------------------------------------------------------ history cleanup


@pytest.mark.parametrize("sizes, limit, want", [
    # TestDeploymentController_cleanupDeployment: (spec, status) replicas
    ([(0, 0), (0, 0), (0, 0)], 1, 2),
    ([(0, 0), (0, 1), (1, 0), (1, 1)], 0, 1),
    ([(0, 0), (0, 0)], 0, 2),
    ([(1, 1), (1, 1)], 0, 0),
])
def test_cleanup_candidates(sizes, limit, want):
    olds = [rs(f"foo-{i}", s, status_replicas=st, revision=i + 1)
            for i, (s, st) in enumerate(sizes)]
    assert len(ds.cleanup_candidates(olds, limit)) == want


def test_cleanup_deletes_oldest_revisions_first():
    olds = [rs("r3", 0, OLDER, revision=3), rs("r1", 0, NEW, revision=1),
            rs("r2", 0, OLD, revision=2)]
    assert [du.name_of(r) for r in ds.cleanup_candidates(olds, 1)] == ["r1", "r2"]


def test_cleanup_skips_unobserved_generations():
    r = rs("r1", 0, revision=1)
    r["metadata"]["generation"] = 2
    r["status"]["observedGeneration"] = 1
    assert ds.cleanup_candidates([r], 0) == []


# ------------------------------------------------------------------ hashing


TEMPLATE = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}


def test_hash_is_stable_and_safe():
    h = du.compute_hash(TEMPLATE, None)
    assert h == du.compute_hash({"spec": TEMPLATE["spec"], "metadata": TEMPLATE["metadata"]},
                                None)
    assert set(h) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert 1 <= len(h) <= 10


def test_hash_changes_with_template_and_collision_count():
    h = du.compute_hash(TEMPLATE, None)
    other = {**TEMPLATE, "spec": {"containers": [{"name": "c", "image": "nginx:1.26"}]}}
    assert du.compute_hash(other, None) != h
    assert du.compute_hash(TEMPLATE, 0) != h
    assert du.compute_hash(TEMPLATE, 1) != du.compute_hash(TEMPLATE, 0)
    assert du.compute_hash(TEMPLATE, 1) == du.compute_hash(TEMPLATE, 1)


def test_hash_ignores_empty_fields():
    noisy = {"metadata": {"labels": {"app": "web"}, "annotations": {}},
             "spec": {"containers": [{"name": "c", "image": "nginx:1.25", "env": []}]}}
    assert du.compute_hash(noisy, None) == du.compute_hash(TEMPLATE, None)


def test_safe_encode_string():
    # rand.SafeEncodeString maps each byte into the alphabet by its value mod 27
    assert du.safe_encode_string("0123") == "".join(
        "bcdfghjklmnpqrstvwxz2456789"[b % 27] for b in b"0123")


def test_equal_ignore_hash():
    with_hash = {"metadata": {"labels": {"app": "web", "pod-template-hash": "abc"}},
                 "spec": TEMPLATE["spec"]}
    assert du.equal_ignore_hash(with_hash, TEMPLATE)
    assert not du.equal_ignore_hash(with_hash, {**TEMPLATE, "spec": {"containers": []}})


def test_find_new_replica_set_takes_the_oldest_match():
    d = deployment(1)
    a = rs("a", 1, NEW)
    b = rs("b", 1, OLD)
    for r in (a, b):
        r["spec"]["template"] = {"metadata": {"labels": {"app": "web", "pod-template-hash": "x"}},
                                 "spec": d["spec"]["template"]["spec"]}
    assert du.find_new_replica_set(d, [a, b]) is b
    required, every = du.find_old_replica_sets(d, [a, b])
    assert every == [a] and required == [a]


# ------------------------------------------------------------------ annotations


def test_new_replica_set_annotations():
    d = deployment(4, surge=1)
    d["metadata"]["annotations"] = {"kubernetes.io/change-cause": "v2",
                                    du.LAST_APPLIED_ANNOTATION: "{}",
                                    du.REVISION_ANNOTATION: "7"}
    r: dict[str, Any] = {"metadata": {}, "spec": {"replicas": 0}}
    assert du.set_new_replica_set_annotations(d, r, "3", exists=False)
    assert r["metadata"]["annotations"] == {
        "kubernetes.io/change-cause": "v2", du.REVISION_ANNOTATION: "3",
        du.DESIRED_REPLICAS_ANNOTATION: "4", du.MAX_REPLICAS_ANNOTATION: "5"}
    assert not du.set_new_replica_set_annotations(d, r, "3", exists=True)


def test_rollback_to_an_old_replica_set_keeps_its_revision_history():
    d = deployment(1)
    r = rs("a", 1, revision=2)
    assert du.set_new_replica_set_annotations(d, r, "5", exists=True)
    assert du.annotations_of(r)[du.REVISION_ANNOTATION] == "5"
    assert du.annotations_of(r)[du.REVISION_HISTORY_ANNOTATION] == "2"
    du.set_new_replica_set_annotations(d, r, "7", exists=True)
    assert du.annotations_of(r)[du.REVISION_HISTORY_ANNOTATION] == "2,5"
    # A lower revision never lowers it.
    assert not du.set_new_replica_set_annotations(d, r, "6", exists=True)


def test_max_revision_ignores_garbage():
    assert du.max_revision([rs("a", 0, revision=3), rs("b", 0, revision=11),
                            rs("c", 0, **{du.REVISION_ANNOTATION: "x"}), None]) == 11


# ------------------------------------------------------------------ conditions & progress


def test_set_condition_keeps_transition_time_while_status_holds():
    st: dict[str, Any] = {}
    dp.set_condition(st, dp.new_condition("Progressing", "True", "A", "a", 100))
    dp.set_condition(st, dp.new_condition("Progressing", "True", "B", "b", 200))
    (cond,) = st["conditions"]
    assert cond["reason"] == "B"
    assert cond["lastTransitionTime"] == format_time(100)
    assert cond["lastUpdateTime"] == format_time(200)
    dp.set_condition(st, dp.new_condition("Progressing", "True", "B", "again", 300))
    assert st["conditions"][0]["message"] == "b"  # same status and reason: unchanged


@pytest.mark.parametrize("desired, current, updated, available, want", [
    # TestDeploymentComplete
    (5, 5, 5, 4, False), (5, 5, 5, 3, False), (5, 5, 5, 5, True), (5, 5, 4, 5, False),
    (1, 2, 1, 1, False), (1, 1, 1, 0, False),
])
def test_deployment_complete(desired, current, updated, available, want):
    d = deployment(desired)
    st = {"replicas": current, "updatedReplicas": updated, "availableReplicas": available,
          "observedGeneration": 1}
    assert dp.deployment_complete(d, st) is want


@pytest.mark.parametrize("old, new, want", [
    # TestDeploymentProgressing: (current, updated, ready, available)
    ((10, 4, 4, 4), (10, 6, 4, 4), True),
    ((10, 4, 4, 4), (10, 4, 4, 4), False),
    ((10, 4, 6, 6), (8, 4, 6, 6), True),
    ((10, 7, 3, 3), (10, 6, 3, 3), False),
    ((10, 4, 7, 7), (8, 8, 5, 5), True),
    ((10, 10, 9, 8), (10, 10, 10, 8), True),
    ((10, 10, 10, 9), (10, 10, 10, 10), True),
])
def test_deployment_progressing(old, new, want):
    keys = ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas")
    d = deployment(10)
    d["status"] = dict(zip(keys, old, strict=True))
    assert dp.deployment_progressing(d, dict(zip(keys, new, strict=True))) is want


@pytest.mark.parametrize("deadline, reason, since, now, want", [
    # TestDeploymentTimedOut (times in seconds)
    (None, "", 69, 80, False),
    (du.MAX_INT32, "", 69, 80, False),
    (10, "", 69, 80, True),
    (10, "", 71, 80, False),
    (10, du.NEW_RS_AVAILABLE_REASON, 0, 80, False),
])
def test_deployment_timed_out(deadline, reason, since, now, want):
    d = deployment(1)
    if deadline is None:
        del d["spec"]["progressDeadlineSeconds"]
    else:
        d["spec"]["progressDeadlineSeconds"] = deadline
    st = {"conditions": [{"type": "Progressing", "status": "True", "reason": reason,
                          "lastUpdateTime": format_time(since)}]}
    assert dp.deployment_timed_out(d, st, now) is want


def test_rollout_status_reports_deadline_exceeded():
    d = deployment(2, surge=1, unavailable=0)
    d["spec"]["progressDeadlineSeconds"] = 30
    d["status"] = {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1,
                   "conditions": [dp.new_condition("Progressing", "True",
                                                   du.NEW_REPLICA_SET_REASON, "x", 1000)]}
    new = rs("web-abc", 2, status_replicas=1)
    st = rollout_status(d, [new], new, now=1020)
    assert dp.get_condition(st, "Progressing")["reason"] == du.NEW_REPLICA_SET_REASON
    assert progress_requeue(d, st, now=1020) == pytest.approx(11.0)
    st = rollout_status(d, [new], new, now=1031)
    cond = dp.get_condition(st, "Progressing")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "ProgressDeadlineExceeded", 'ReplicaSet "web-abc" has timed out progressing.')
    avail = dp.get_condition(st, "Available")
    assert (avail["status"], avail["reason"], avail["message"]) == (
        "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")


def test_paused_conditions():
    d = deployment(1)
    d["spec"]["paused"] = True
    assert paused_condition(d, 5)
    cond = dp.get_condition(d["status"], "Progressing")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "Unknown", "DeploymentPaused", "Deployment is paused")
    assert not paused_condition(d, 6)
    d["spec"]["paused"] = False
    assert paused_condition(d, 7)
    assert dp.get_condition(d["status"], "Progressing")["reason"] == "DeploymentResumed"


def test_min_ready_requeue():
    def pod(ready_since: float) -> dict[str, Any]:
        return {"metadata": {}, "status": {"conditions": [
            {"type": "Ready", "status": "True",
             "lastTransitionTime": format_time(ready_since)}]}}
    assert min_ready_requeue([pod(100)], 0, 101) is None
    assert min_ready_requeue([pod(100), pod(95)], 10, 101) == pytest.approx(5.0)
    assert min_ready_requeue([pod(80)], 10, 101) is None  # already available
