"""The scaling math of a rollout (``rolling.go``, ``sync.go``'s ``scale()``,
``NewRSNewReplicas``, ``GetProportion``, ``cleanupDeployment``), as pure
functions returning plans of (ReplicaSet, new size) that the controller
applies one write at a time.

* :func:`new_rs_new_replicas` / :func:`new_rs_target`: the new ReplicaSet
  grows until all ReplicaSets together ask for ``replicas + maxSurge``.
* :func:`max_scaled_down`, :func:`unhealthy_cleanup_plan`,
  :func:`rolling_scale_down_plan`: old ReplicaSets shrink, oldest first,
  unavailable replicas before available ones, never leaving fewer than
  ``replicas - maxUnavailable`` available and never counting on new pods
  that are not available yet.
* :func:`proportional_scale_plan`: a change of ``spec.replicas`` during a
  rollout (or while paused) is spread over the active ReplicaSets in
  proportion to their share of the size they were made for (the
  max-replicas annotation), with ``GetProportion``'s clamping, leftovers to
  the first (largest) ReplicaSet, and Go's half-away-from-zero rounding.
* :func:`cleanup_candidates`: old ReplicaSets beyond ``revisionHistoryLimit``,
  oldest revision first, only those with no replicas left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .deployment_util import (
    RECREATE,
    ROLLING_UPDATE,
    Obj,
    available_replicas,
    by_creation,
    by_revision,
    by_size_newer,
    by_size_older,
    desired_replicas_annotation,
    int_value,
    max_replicas_annotation,
    max_surge,
    max_unavailable,
    meta,
    name_of,
    replicas,
    rolling_params,
    scaled_value,
    status_int,
    strategy_type,
    total_replicas,
)


def new_rs_new_replicas(d: Mapping[str, Any], all_rss: Iterable[Obj | None],
                        new_rs: Mapping[str, Any]) -> int:
    """``NewRSNewReplicas``: how far the new ReplicaSet may grow now."""
    kind = strategy_type(d)
    if kind == RECREATE:
        return replicas(d)
    if kind != ROLLING_UPDATE:
        raise ValueError(f"deployment type {kind} isn't supported")
    surge = scaled_value(rolling_params(d)[0], replicas(d), round_up=True)
    current = total_replicas(all_rss)
    max_total = replicas(d) + surge
    if current >= max_total:
        return replicas(new_rs)
    scale_up = min(max_total - current, replicas(d) - replicas(new_rs))
    return replicas(new_rs) + scale_up


def new_rs_target(d: Mapping[str, Any], all_rss: Iterable[Obj | None],
                  new_rs: Mapping[str, Any]) -> int:
    """The size ``reconcileNewReplicaSet`` gives the new ReplicaSet."""
    if replicas(new_rs) >= replicas(d):
        return replicas(d)
    return new_rs_new_replicas(d, all_rss, new_rs)


def is_saturated(d: Mapping[str, Any], rs: Mapping[str, Any] | None) -> bool:
    """``IsSaturated``: the ReplicaSet runs exactly the deployment's replicas,
    all available, and was sized for this replica count."""
    if rs is None:
        return False
    desired = desired_replicas_annotation(rs)
    if desired is None:
        return False
    want = replicas(d)
    return replicas(rs) == want and desired == want and \
        status_int(rs, "availableReplicas") == want


def max_scaled_down(d: Mapping[str, Any], all_rss: Sequence[Obj],
                    new_rs: Mapping[str, Any]) -> int:
    """``reconcileOldReplicaSets``' budget: all pods - min available - the new
    ReplicaSet's unavailable pods (so a broken new template never eats into
    the old pods' availability)."""
    minimum = replicas(d) - max_unavailable(d)
    new_unavailable = replicas(new_rs) - status_int(new_rs, "availableReplicas")
    return total_replicas(all_rss) - minimum - new_unavailable


def unhealthy_cleanup_plan(old_rss: Iterable[Obj], max_cleanup: int
                           ) -> list[tuple[Obj, int]]:
    """``cleanupUnhealthyReplicas``: (ReplicaSet, new size) pairs, oldest
    first, removing only replicas that are not available."""
    plan: list[tuple[Obj, int]] = []
    done = 0
    for rs in by_creation(old_rss):
        if done >= max_cleanup:
            break
        size = replicas(rs)
        avail = status_int(rs, "availableReplicas")
        if size == 0 or size == avail:
            continue
        count = min(max_cleanup - done, size - avail)
        new_size = size - count
        if new_size > size:
            raise ValueError(f"when cleaning up unhealthy replicas, got invalid request to "
                             f"scale down {meta(rs).get('namespace')}/{name_of(rs)} "
                             f"{size} -> {new_size}")
        plan.append((rs, new_size))
        done += count
    return plan


def rolling_scale_down_plan(d: Mapping[str, Any], all_rss: Sequence[Obj],
                            old_rss: Iterable[Obj]) -> list[tuple[Obj, int]]:
    """``scaleDownOldReplicaSetsForRollingUpdate``: oldest first, never below
    ``replicas - maxUnavailable`` available pods."""
    minimum = replicas(d) - max_unavailable(d)
    available = available_replicas(all_rss)
    if available <= minimum:
        return []
    budget = available - minimum
    plan: list[tuple[Obj, int]] = []
    done = 0
    for rs in by_creation(old_rss):
        if done >= budget:
            break
        size = replicas(rs)
        if size == 0:
            continue
        count = min(size, budget - done)
        plan.append((rs, size - count))
        done += count
    return plan


def _round_half_away(numerator: int, denominator: int) -> int:
    """``math.Round(numerator / denominator)`` for a positive denominator."""
    if numerator >= 0:
        return (2 * numerator + denominator) // (2 * denominator)
    return -((-2 * numerator + denominator) // (2 * denominator))


def replica_set_fraction(rs: Mapping[str, Any], d: Mapping[str, Any]) -> int:
    """``getReplicaSetFraction``: how much ``rs`` should grow (or shrink) for
    the deployment's new size, from its share of the size it was made for."""
    if replicas(d) == 0:
        return -replicas(rs)
    deployment_max = replicas(d) + max_surge(d)
    annotated = max_replicas_annotation(rs)
    if annotated is None:
        # No annotation (hand-edited ReplicaSet): fall back to the current size;
        # GetProportion's clamping keeps the result within bounds anyway.
        annotated = status_int(d, "replicas")
    if annotated == 0:
        return 0  # Kubernetes would divide by zero here
    return _round_half_away(replicas(rs) * deployment_max, annotated) - replicas(rs)


def proportion(rs: Mapping[str, Any] | None, d: Mapping[str, Any], to_add: int,
               added: int) -> int:
    """``GetProportion``: the share of ``to_add`` for ``rs``, clamped to what
    is left to add (or remove)."""
    if rs is None or replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = replica_set_fraction(rs, d)
    allowed = to_add - added
    if to_add > 0:
        return min(fraction, allowed)
    return max(fraction, allowed)


def proportional_scale_plan(d: Mapping[str, Any], active: Sequence[Obj]
                            ) -> tuple[list[tuple[Obj, int]], str]:
    """The rolling-update branch of ``scale()``: spread the difference between
    ``replicas + maxSurge`` and the active ReplicaSets' total over them in
    proportion to their sizes; leftovers go to the first (largest) one.

    Returns ((ReplicaSet, new size) for every active one, "up"/"down"/"").
    """
    current = total_replicas(active)
    allowed = replicas(d) + max_surge(d) if replicas(d) > 0 else 0
    to_add = allowed - current
    if to_add > 0:
        ordered, operation = by_size_newer(active), "up"
    elif to_add < 0:
        ordered, operation = by_size_older(active), "down"
    else:
        ordered, operation = list(active), ""
    sizes: list[int] = []
    added = 0
    for rs in ordered:
        if to_add != 0:
            share = proportion(rs, d, to_add, added)
            sizes.append(replicas(rs) + share)
            added += share
        else:
            sizes.append(replicas(rs))
    if ordered and to_add != 0:
        sizes[0] = max(0, sizes[0] + to_add - added)
    return list(zip(ordered, sizes, strict=True)), operation


def cleanup_candidates(old_rss: Iterable[Obj], limit: int) -> list[Obj]:
    """``cleanupDeployment``: the old ReplicaSets to delete to keep ``limit``,
    oldest revision first, skipping any that still has (or may have) pods."""
    alive = [rs for rs in old_rss if not meta(rs).get("deletionTimestamp")]
    diff = len(alive) - limit
    if diff <= 0:
        return []
    out = []
    for rs in by_revision(alive)[:diff]:
        if status_int(rs, "replicas") != 0 or replicas(rs) != 0:
            continue
        if int_value(meta(rs).get("generation")) > status_int(rs, "observedGeneration"):
            continue
        out.append(rs)
    return out
