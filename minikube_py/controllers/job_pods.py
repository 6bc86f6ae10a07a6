"""Which pods a Job gets and which it gives up: the pod built from the job's
template (``GetPodFromTemplate`` plus the tracking finalizer and, for
``Indexed`` jobs, the completion index as annotation, label, hostname and
``JOB_COMPLETION_INDEX``), the job's controller reference, the lowest
completion indexes still to run, and the order in which excess pods go.

Pure functions over Kubernetes-shaped dicts: no API calls, no clock, no
mutation of their arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from ..api.access import mapping as _m
from ..api.jsoncopy import deep_copy
from ..api.timefmt import parse_time as _parse_time
from ..client.base import Object
from .job_util import (
    COMPLETION_INDEX_ANNOTATION,
    JOB_API_VERSION,
    JOB_TRACKING_FINALIZER,
    as_int,
    completion_index,
    is_indexed,
    is_pod_ready,
    phase_of,
)

#: ``names.MaxGeneratedNameLength``: 63 less the 5 random characters.
MAX_GENERATED_NAME_LENGTH: Final = 58


# ------------------------------------------------------------------ creation


def owner_ref(job: Mapping[str, Any]) -> dict[str, Any]:
    """The controller reference a job's pods carry."""
    meta = _m(job.get("metadata"))
    return {"apiVersion": JOB_API_VERSION, "kind": "Job", "name": meta.get("name"),
            "uid": meta.get("uid"), "controller": True, "blockOwnerDeletion": True}


def generate_name_with_index(job_name: str, index: int) -> str:
    """``podGenerateNameWithIndex``: ``<job>-<index>-``, the job name cut so the
    whole prefix fits a generated name (the index must survive in the name)."""
    suffix = f"-{index}-"
    prefix = job_name + suffix
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = job_name[:MAX_GENERATED_NAME_LENGTH - len(suffix)] + suffix
    return prefix


def pod_from_template(job: Object, index: int | None) -> Object:
    """``GetPodFromTemplate`` plus the tracking finalizer and the index bits."""
    template = deep_copy(_m(_m(job.get("spec")).get("template")))
    t_meta = _m(template.get("metadata"))
    job_name = str(job["metadata"].get("name"))
    labels = dict(_m(t_meta.get("labels")))
    annotations = dict(_m(t_meta.get("annotations")))
    finalizers = list(t_meta.get("finalizers") or [])
    if JOB_TRACKING_FINALIZER not in finalizers:
        finalizers.append(JOB_TRACKING_FINALIZER)
    pod_spec = dict(_m(template.get("spec")))
    generate_name = f"{job_name}-"
    if index is not None:
        annotations[COMPLETION_INDEX_ANNOTATION] = str(index)
        labels[COMPLETION_INDEX_ANNOTATION] = str(index)
        pod_spec["hostname"] = f"{job_name}-{index}"
        generate_name = generate_name_with_index(job_name, index)
        for kind in ("containers", "initContainers"):
            containers = []
            for container in pod_spec.get(kind) or []:
                c = dict(container)
                env = list(c.get("env") or [])
                if not any(_m(e).get("name") == "JOB_COMPLETION_INDEX" for e in env):
                    env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                        "fieldPath": f"metadata.annotations['{COMPLETION_INDEX_ANNOTATION}']"
                    }}})
                c["env"] = env
                containers.append(c)
            if containers:
                pod_spec[kind] = containers
    metadata: dict[str, Any] = {"generateName": generate_name,
                                "namespace": job["metadata"].get("namespace"),
                                "ownerReferences": [owner_ref(job)],
                                "finalizers": finalizers}
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod_spec}


def pending_indexes(job: Mapping[str, Any], succeeded_indexes: set[int], active: list[Object],
                    count: int) -> Iterable[int]:
    """``firstPendingIndexes``: the lowest indexes neither succeeded nor running."""
    completions = as_int(_m(job.get("spec")).get("completions"))
    busy = succeeded_indexes | {completion_index(p) for p in active}
    out = 0
    for index in range(completions):
        if out >= count:
            return
        if index not in busy:
            out += 1
            yield index


# ------------------------------------------------------------------ removal


def removal_rank(pod: Mapping[str, Any]) -> tuple[Any, ...]:
    """``controller.ActivePods`` order: pods earlier in their life go first."""
    status = _m(pod.get("status"))
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(phase_of(pod), 1)
    restarts = sum(as_int(_m(cs).get("restartCount")) for cs in status.get("containerStatuses")
                   or [])
    created = _parse_time(_m(pod.get("metadata")).get("creationTimestamp")) or 0.0
    return (bool(_m(pod.get("spec")).get("nodeName")), phase_rank, is_pod_ready(pod), -restarts,
            -created)


def pods_for_removal(job: Mapping[str, Any], active: list[Object],
                     at_least: int) -> list[Object]:
    """``activePodsForRemoval``: duplicated or out-of-range indexes, then the
    least advanced pods."""
    doomed: list[Object] = []
    left = active
    if is_indexed(job):
        completions = as_int(_m(job.get("spec")).get("completions"))
        seen: set[int] = set()
        left = []
        for pod in sorted(active, key=completion_index):
            index = completion_index(pod)
            if not 0 <= index < completions or index in seen:
                doomed.append(pod)
            else:
                seen.add(index)
                left.append(pod)
    if len(doomed) < at_least:
        doomed += sorted(left, key=removal_rank)[:at_least - len(doomed)]
    return doomed
