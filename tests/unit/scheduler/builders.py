"""Node and pod builders for the scheduler tests (like kube-scheduler's st.MakeNode/MakePod).

Nodes built here have allocatable == capacity, as the Kubernetes test helpers
do. A pod's ``requests`` is a list of per-container request maps (each entry is
one container, like ``st.MakePod().Req(...)``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from minikube_py.scheduler.framework import CycleState, Framework, Profile
from minikube_py.scheduler.podinfo import PodInfo
from minikube_py.scheduler.snapshot import Snapshot

MB = 1024 * 1024


def node(name: str, *, cpu: str | None = None, memory: str | None = None,
         pods: int | None = 110, milli_cpu: int | None = None, mem_bytes: int | None = None,
         labels: Mapping[str, str] | None = None, taints: Sequence[Mapping[str, str]] = (),
         unschedulable: bool = False, extra: Mapping[str, Any] | None = None,
         images: Sequence[tuple[Sequence[str], int]] = (),
         zone: str | None = None) -> dict[str, Any]:
    alloc: dict[str, Any] = {}
    if milli_cpu is not None:
        alloc["cpu"] = f"{milli_cpu}m"
    if cpu is not None:
        alloc["cpu"] = cpu
    if mem_bytes is not None:
        alloc["memory"] = str(mem_bytes)
    if memory is not None:
        alloc["memory"] = memory
    if pods is not None:
        alloc["pods"] = str(pods)
    alloc.update(extra or {})
    lbls = {"kubernetes.io/hostname": name, **(labels or {})}
    if zone is not None:
        lbls["topology.kubernetes.io/zone"] = zone
    out: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": lbls},
        "spec": {"taints": [dict(t) for t in taints]},
        "status": {"capacity": dict(alloc), "allocatable": alloc,
                   "images": [{"names": list(n), "sizeBytes": s} for n, s in images]},
    }
    if unschedulable:
        out["spec"]["unschedulable"] = True
    return out


_counter = [0]


def pod(name: str | None = None, *, namespace: str = "default", uid: str | None = None,
        node_name: str | None = None, requests: Sequence[Mapping[str, str]] = (),
        containers: Sequence[Mapping[str, Any]] | None = None,
        init_containers: Sequence[Mapping[str, Any]] = (),
        overhead: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
        priority: int | None = None, tolerations: Sequence[Mapping[str, str]] = (),
        affinity: Mapping[str, Any] | None = None, node_selector: Mapping[str, str] | None = None,
        spread: Sequence[Mapping[str, Any]] = (), host_ports: Sequence[Mapping[str, Any]] = (),
        images: Sequence[str] = (), nominated: str | None = None,
        preemption_policy: str | None = None, start_time: str | None = None,
        phase: str | None = None, deleting: bool = False) -> dict[str, Any]:
    if name is None:
        _counter[0] += 1
        name = f"pod-{_counter[0]}"
    if containers is None:
        containers = [{"name": f"c{i}", "image": "busybox",
                       "resources": {"requests": dict(r)}} for i, r in enumerate(requests)]
        if images:
            containers = [{"name": f"i{i}", "image": img} for i, img in enumerate(images)]
    containers = [dict(c) for c in containers]
    if host_ports:
        if not containers:
            containers = [{"name": "c0", "image": "busybox"}]
        containers[0]["ports"] = [dict(p) for p in host_ports]
    spec: dict[str, Any] = {"containers": containers}
    if init_containers:
        spec["initContainers"] = [dict(c) for c in init_containers]
    if overhead:
        spec["overhead"] = dict(overhead)
    if node_name:
        spec["nodeName"] = node_name
    if priority is not None:
        spec["priority"] = priority
    if tolerations:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if affinity:
        spec["affinity"] = affinity
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    if spread:
        spec["topologySpreadConstraints"] = [dict(s) for s in spread]
    if preemption_policy:
        spec["preemptionPolicy"] = preemption_policy
    meta: dict[str, Any] = {"name": name, "namespace": namespace,
                            "uid": uid or f"uid-{namespace}-{name}",
                            "labels": dict(labels or {})}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    status: dict[str, Any] = {}
    if nominated:
        status["nominatedNodeName"] = nominated
    if start_time:
        status["startTime"] = start_time
    if phase:
        status["phase"] = phase
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": status}


def snapshot(nodes: Sequence[Mapping[str, Any]] = (),
             pods: Sequence[Mapping[str, Any]] = ()) -> Snapshot:
    snap = Snapshot()
    for n in nodes:
        snap.add_node(n)
    for p in pods:
        snap.add_pod(p)
    return snap


def slots_of(snap: Snapshot, names: Sequence[str]) -> np.ndarray:
    return np.array([snap.slot_of(n) for n in names], np.int32)


def run_score(plugin: Any, p: Mapping[str, Any], snap: Snapshot,
              names: Sequence[str], *, normalize: bool = True,
              state: CycleState | None = None) -> list[int] | None:
    """PreScore (if any) + Score (+ NormalizeScore) on ``names`` in order.

    Returns None when PreScore says Skip.
    """
    info = PodInfo(p)
    state = state or CycleState(random.Random(0))
    slots = slots_of(snap, names)
    if hasattr(plugin, "pre_score"):
        st = plugin.pre_score(state, info, snap, slots)
        if st.is_skip:
            return None
        assert st.ok, st
    raw = plugin.score(state, info, snap, slots)
    if normalize:
        raw = plugin.normalize(state, info, snap, slots, raw.copy())
    return [int(x) for x in raw]


def run_filter(plugin: Any, p: Mapping[str, Any], snap: Snapshot,
               names: Sequence[str]) -> list[tuple[str, ...] | None]:
    """PreFilter (if any) + Filter; per node None (passes) or the reasons."""
    from minikube_py.scheduler.status import REASONS

    info = PodInfo(p)
    state = CycleState(random.Random(0))
    if hasattr(plugin, "pre_filter"):
        _, st = plugin.pre_filter(state, info, snap)
        if st.is_skip:
            return [None] * len(names)
        if not st.ok:
            return [(f"PreFilter: {st.message}",)] * len(names)
    out = plugin.filter(state, info, snap, slots_of(snap, names))
    if out is None:
        return [None] * len(names)
    return [None if rid == 0 else REASONS.get(int(rid)).reasons for rid in out.tolist()]


def filter_codes(plugin: Any, p: Mapping[str, Any], snap: Snapshot,
                 names: Sequence[str]) -> list[str | None]:
    from minikube_py.scheduler.status import REASONS

    info = PodInfo(p)
    state = CycleState(random.Random(0))
    if hasattr(plugin, "pre_filter"):
        _, st = plugin.pre_filter(state, info, snap)
        if st.is_skip:
            return [None] * len(names)
    out = plugin.filter(state, info, snap, slots_of(snap, names))
    if out is None:
        return [None] * len(names)
    return [None if rid == 0 else REASONS.get(int(rid)).code.label for rid in out.tolist()]


def framework(profile: Profile | None = None, **kw: Any) -> Framework:
    return Framework(profile, clock=lambda: 1_700_000_000.0, **kw)


def schedule(fw: Framework, p: Mapping[str, Any], snap: Snapshot, seed: int = 0) -> Any:
    result = fw.schedule(p, snap, rng=random.Random(seed))
    assert result.error is None, result.error
    return result
