"""Job (batch/v1): pods run until a number of them succeed.

The job strategy's ``PrepareForCreate`` (``generateSelectorIfNeeded``):
unless ``spec.manualSelector`` is true, the template gains ``controller-uid``
/ ``batch.kubernetes.io/controller-uid`` (the job's uid) and ``job-name`` /
``batch.kubernetes.io/job-name`` labels (those the user set are kept, and
validation rejects wrong values) and the selector gains
``matchLabels: {batch.kubernetes.io/controller-uid: <uid>}``; a job without
labels then carries its template's labels (``SetDefaults_Job`` applied again
on read, as Kubernetes does). Generation tracks the spec; status only through
``jobs/status``; the ``status.successful`` field label is
``status.succeeded`` (0 when unset).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..access import mapping as _m
from ..defaults import default_job
from ..generated import batch_v1
from ..printers import (
    D_CONTAINERS,
    D_CREATED,
    D_IMAGES,
    D_NAME,
    NONE,
    age_of,
    cell_int,
    cell_list,
    cell_str,
    epoch,
    human_duration,
    workload_wide_cells,
)
from ..resource import Column, KindInfo, Resource
from ..validation_batch import validate_job, validate_job_update

INFO = KindInfo("Job", "batch", "v1", "jobs", "job", True, (),
                field_labels=("status.successful",), subresources=("status",))

_JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_JOB_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


def generate_selector(job: dict[str, Any]) -> None:
    """``generateSelectorIfNeeded`` (see the module docstring); needs the uid."""
    spec = job.get("spec")
    if not isinstance(spec, dict) or spec.get("manualSelector") is True:
        return
    meta = job["metadata"]
    template = spec.get("template")
    if not isinstance(template, dict):
        template = spec["template"] = {}
    template_meta = template.get("metadata")
    if not isinstance(template_meta, dict):
        template_meta = template["metadata"] = {}
    labels = template_meta.get("labels")
    if not isinstance(labels, dict):
        labels = template_meta["labels"] = {}
    for key in _JOB_NAME_LABELS:
        labels.setdefault(key, meta.get("name", ""))
    for key in _JOB_UID_LABELS:
        labels.setdefault(key, meta["uid"])
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        selector = spec["selector"] = {}
    match = selector.get("matchLabels")
    if not isinstance(match, dict):
        match = selector["matchLabels"] = {}
    match.setdefault("batch.kubernetes.io/controller-uid", meta["uid"])
    if not meta.get("labels"):
        # SetDefaults_Job copies the template labels when the object is read back.
        meta["labels"] = dict(labels)


def field_value(job: Mapping[str, Any], label: str) -> object | None:
    if label != "status.successful":
        return None
    status = job.get("status")
    succeeded = status.get("succeeded") if isinstance(status, Mapping) else None
    return succeeded if isinstance(succeeded, int) else 0


JOB_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Status", "string", "Status of the job."),
    Column("Completions", "string",
           "The number of pods which reached phase Succeeded. The value increases monotonically "
           "for a given spec. However, it may decrease in reaction to scale down of elastic "
           "indexed jobs."),
    Column("Duration", "string", "Time required to complete the job."),
    Column("Age", "string", D_CREATED),
    Column("Containers", "string", D_CONTAINERS, priority=1),
    Column("Images", "string", D_IMAGES, priority=1),
    Column("Selector", "string",
           "A label query over pods that should match the pod count. Normally, the system sets "
           "this field for you. More info: "
           "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
           "#label-selectors", priority=1),
)


#: ``printJob``'s STATUS: the first of these conditions that is True, in order
#: (``Terminating`` for a job being deleted sits between Failed and Suspended).
#: v1.32 has no ``SuccessCriteriaMet`` case (kubernetes#132832 added it in 1.34):
#: a job that met its criteria but still has terminating pods prints Running.
_JOB_STATUS_ORDER: Final = ("Complete", "Failed", "", "Suspended", "FailureTarget")


def _job_condition(conditions: Sequence[Any], kind: str) -> bool:
    """``hasJobCondition``: the first condition of ``kind`` decides."""
    for cond in conditions:
        c = _m(cond)
        if c.get("type") == kind:
            return c.get("status") == "True"
    return False


def _job_status(obj: Mapping[str, Any]) -> str:
    conditions = cell_list(_m(obj.get("status")).get("conditions"))
    for kind in _JOB_STATUS_ORDER:
        if not kind:
            if _m(obj.get("metadata")).get("deletionTimestamp"):
                return "Terminating"
        elif _job_condition(conditions, kind):
            return kind
    return "Running"


def _print_job(obj: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(obj.get("metadata"))
    spec = _m(obj.get("spec"))
    status = _m(obj.get("status"))
    succeeded = cell_int(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{cell_int(spec.get('completions'))}"
    elif cell_int(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {cell_int(spec.get('parallelism'))}"
    else:
        completions = f"{succeeded}/1"
    start = epoch(status.get("startTime"))
    end = epoch(status.get("completionTime"))
    if start is None:
        duration = ""
    elif end is None:
        duration = human_duration(now - start)
    else:
        duration = human_duration(end - start)
    return [
        cell_str(metadata.get("name")),
        _job_status(obj),
        completions,
        duration,
        age_of(epoch(metadata.get("creationTimestamp")), now),
        *workload_wide_cells(spec, empty=NONE, invalid="<error>"),  # FormatLabelSelector
    ], None



RESOURCE = Resource(
    INFO, batch_v1.Job,
    defaults=default_job,
    validate=validate_job,
    validate_update=validate_job_update,
    generation="spec",
    initial_status=lambda obj: {},  # every JobStatus field is omitempty
    prepare_for_create=generate_selector,
    field_value=field_value,
    columns=JOB_COLUMNS,
    row=_print_job,
)
