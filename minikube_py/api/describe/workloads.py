"""Deployments (``DescribeDeployment``, with their old and new ReplicaSets)
and ReplicaSets (``DescribeReplicaSet``, with their pods counted by phase)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..access import mapping as _m
from ..access import mappings as _maps
from .pods import describe_pod_template
from .sections import describe_events, print_annotations, print_labels
from .values import (
    Obj,
    controller_of,
    format_label_selector,
    label_selector,
    parse_time,
    rfc1123z,
    str_map,
)
from .values import int_field as _i
from .values import str_field as _s
from .writer import Ctx, Out

_HASH_LABEL = "pod-template-hash"


def _int_or_string(value: Any) -> str:
    """``intstr.IntOrString.String()`` of a pointer field (``<nil>`` when unset)."""
    if value is None:
        return "<nil>"
    return _s(value)


def _controlled_by(obj: Obj, owner: Obj) -> bool:
    """``metav1.IsControlledBy``: the controller reference names the owner's UID."""
    ref = controller_of(obj)
    return ref is not None and _s(ref.get("uid")) == _s(_m(owner.get("metadata")).get("uid"))


def _describe_conditions_short(conditions: list[Obj], w: Out) -> None:
    """The Type / Status / Reason table of Deployments and ReplicaSets."""
    if not conditions:
        return
    w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
    w.write(1, "----\t------\t------\n")
    for c in conditions:
        w.write(1, f"{_s(c.get('type'))} \t{_s(c.get('status'))}\t{_s(c.get('reason'))}\n")


def _normalized(value: Any) -> Any:
    """A JSON value with Go zero values and empty containers dropped, so that
    templates compare as ``equality.Semantic.DeepEqual`` compares structs."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            norm = _normalized(item)
            if norm not in (None, "", 0, False, {}, []):
                out[key] = norm
        return out
    if isinstance(value, list | tuple):
        return [_normalized(v) for v in value]
    return value


def _template_without_hash(template: Any) -> Any:
    t = dict(_m(template))
    meta = dict(_m(t.get("metadata")))
    labels = {k: v for k, v in _m(meta.get("labels")).items() if k != _HASH_LABEL}
    meta["labels"] = labels
    t["metadata"] = meta
    return _normalized(t)


def _replica_sets_by_labels(replica_sets: list[Obj]) -> str:
    rendered = [f"{_s(_m(rs.get('metadata')).get('name'))} "
                f"({_i(_m(rs.get('status')).get('replicas'))}/"
                f"{_i(_m(rs.get('spec')).get('replicas'), 1)} replicas created)"
                for rs in replica_sets]
    return ", ".join(rendered) or "<none>"


def _creation_key(obj: Obj) -> tuple[float, str]:
    meta = _m(obj.get("metadata"))
    dt = parse_time(meta.get("creationTimestamp"))
    return (dt.timestamp() if dt is not None else -math.inf, _s(meta.get("name")))


def _split_replica_sets(deployment: Obj, replica_sets: list[Obj]) -> tuple[list[Obj], list[Obj]]:
    """``deploymentutil.GetAllReplicaSets``: (all old, [new]) of those the
    deployment selects and controls, oldest first."""
    selector = label_selector(_m(deployment.get("spec")).get("selector"))
    owned = [rs for rs in replica_sets
             if selector is not None
             and selector.matches(str_map(_m(rs.get("metadata")).get("labels")))
             and _controlled_by(rs, deployment)]
    owned.sort(key=_creation_key)
    wanted = _template_without_hash(_m(deployment.get("spec")).get("template"))
    new = next((rs for rs in owned
                if _template_without_hash(_m(rs.get("spec")).get("template")) == wanted), None)
    old = [rs for rs in owned if rs is not new]
    return old, [new] if new is not None else []


def describe_deployment(deployment: Obj, replica_sets: list[Obj],
                        events: list[Obj] | None, ctx: Ctx) -> str:
    """``DescribeDeployment``: Old/NewReplicaSets come from ``replica_sets``."""
    meta = _m(deployment.get("metadata"))
    spec, status = _m(deployment.get("spec")), _m(deployment.get("status"))
    w = Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Namespace:\t{_s(meta.get('namespace'))}\n")
    w.write(0, f"CreationTimestamp:\t{rfc1123z(meta.get('creationTimestamp'), ctx)}\n")
    print_labels(w, "Labels", str_map(meta.get("labels")))
    print_annotations(w, "Annotations", str_map(meta.get("annotations")))
    selector = label_selector(spec.get("selector"))
    w.write(0, f"Selector:\t{str(selector) if selector is not None else '<error>'}\n")
    w.write(0, f"Replicas:\t{_i(spec.get('replicas'), 1)} desired | "
               f"{_i(status.get('updatedReplicas'))} updated | "
               f"{_i(status.get('replicas'))} total | "
               f"{_i(status.get('availableReplicas'))} available | "
               f"{_i(status.get('unavailableReplicas'))} unavailable\n")
    strategy = _m(spec.get("strategy"))
    w.write(0, f"StrategyType:\t{_s(strategy.get('type'))}\n")
    w.write(0, f"MinReadySeconds:\t{_i(spec.get('minReadySeconds'))}\n")
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, Mapping):
        w.write(0, f"RollingUpdateStrategy:\t{_int_or_string(rolling.get('maxUnavailable'))} "
                   f"max unavailable, {_int_or_string(rolling.get('maxSurge'))} max surge\n")
    describe_pod_template(_m(spec.get("template")), w, ctx)
    _describe_conditions_short(_maps(status.get("conditions")), w)
    old, new = _split_replica_sets(deployment, replica_sets)
    if old or new:
        w.write(0, f"OldReplicaSets:\t{_replica_sets_by_labels(old)}\n")
        w.write(0, f"NewReplicaSet:\t{_replica_sets_by_labels(new)}\n")
    describe_events(events, w, ctx)
    return w.render()


def describe_replica_set(rs: Obj, pods: list[Obj], events: list[Obj] | None,
                         ctx: Ctx) -> str:
    """``DescribeReplicaSet``: "Pods Status" counts the ``pods`` it controls."""
    meta, spec, status = _m(rs.get("metadata")), _m(rs.get("spec")), _m(rs.get("status"))
    w = Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Namespace:\t{_s(meta.get('namespace'))}\n")
    w.write(0, f"Selector:\t{format_label_selector(spec.get('selector'))}\n")
    print_labels(w, "Labels", str_map(meta.get("labels")))
    print_annotations(w, "Annotations", str_map(meta.get("annotations")))
    controller = controller_of(rs)
    if controller is not None:
        w.write(0, f"Controlled By:\t{_s(controller.get('kind'))}/{_s(controller.get('name'))}\n")
    w.write(0, f"Replicas:\t{_i(status.get('replicas'))} current / "
               f"{_i(spec.get('replicas'), 1)} desired\n")
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    selector = label_selector(spec.get("selector"))
    for pod in pods:
        labels = str_map(_m(pod.get("metadata")).get("labels"))
        if selector is None or not selector.matches(labels) or not _controlled_by(pod, rs):
            continue
        phase = _s(_m(pod.get("status")).get("phase"))
        if phase in counts:
            counts[phase] += 1
    w.write(0, "Pods Status:\t")
    w.write(0, f"{counts['Running']} Running / {counts['Pending']} Waiting / "
               f"{counts['Succeeded']} Succeeded / {counts['Failed']} Failed\n")
    describe_pod_template(_m(spec.get("template")), w, ctx)
    _describe_conditions_short(_maps(status.get("conditions")), w)
    describe_events(events, w, ctx)
    return w.render()
