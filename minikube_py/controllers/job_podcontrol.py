"""The Job controller's writes to pods (its ``podControl`` and
``ControllerRefManager``): creating pods in slow-start batches, deleting them
with or without their tracking finalizer, removing that finalizer, and
adopting orphans or releasing pods the job's selector no longer matches.

Creations and deletions are recorded in the controller's expectations before
they are made (and taken back when they fail), so a stale cache never makes
the controller act twice; ``SuccessfulCreate`` / ``FailedCreate`` /
``SuccessfulDelete`` / ``FailedDelete`` events go to the job. Errors that
should fail the sync are appended to the caller's ``errors`` list.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from ..api.access import mapping as _m
from ..api.errors import Conflict, NotFound, StatusError
from ..client.base import Client, Object
from ..client.events import EVENT_NORMAL, EVENT_WARNING
from ..client.expectations import ControllerExpectations
from .job_pods import owner_ref, pod_from_template
from .job_util import (
    JOB_TRACKING_FINALIZER,
    has_tracking_finalizer,
    is_deleting,
    is_pod_ready,
    uid_of,
)

#: ``Controller.event``: (object, type, reason, message).
EventFunc = Callable[[Mapping[str, Any], str, str, str], None]


class JobPodControl:
    """Creates, deletes, adopts and releases a job's pods through ``client``."""

    def __init__(self, client: Client, expectations: ControllerExpectations,
                 event: EventFunc) -> None:
        self.client = client
        self.expectations = expectations
        self.event = event

    # ------------------------------------------------------------------ create

    def create_pods(self, key: str, job: Object, indexes: list[int | None],
                    errors: list[StatusError]) -> int:
        """Create pods in slow-start batches (1, 2, 4, ...); stop after a failing batch."""
        self.expectations.expect_creations(key, len(indexes))
        created = 0
        batch = 1
        pending = list(indexes)
        while pending:
            failed = False
            for index in pending[:batch]:
                try:
                    pod = self.client.create(pod_from_template(job, index))
                except StatusError as exc:
                    self.expectations.creation_observed(key)
                    failed = True
                    if "is being terminated" in str(exc):
                        continue  # the namespace is going: nothing to report
                    self.event(job, EVENT_WARNING, "FailedCreate", f"Error creating: {exc}")
                    errors.append(exc)
                else:
                    created += 1
                    self.event(job, EVENT_NORMAL, "SuccessfulCreate",
                               f"Created pod: {pod['metadata']['name']}")
            pending = pending[batch:]
            if failed and pending:
                self.expectations.creation_observed(key, len(pending))  # never attempted
                break
            batch *= 2
        return created

    # ------------------------------------------------------------------ delete

    def delete_pod(self, job: Object, pod: Object, errors: list[StatusError]) -> bool:
        meta = _m(pod.get("metadata"))
        try:
            self.client.delete("pods", str(meta.get("namespace")), str(meta.get("name")))
        except NotFound:
            return True
        except StatusError as exc:
            self.event(job, EVENT_WARNING, "FailedDelete", f"Error deleting: {exc}")
            errors.append(exc)
            return False
        self.event(job, EVENT_NORMAL, "SuccessfulDelete", f"Deleted pod: {meta.get('name')}")
        return True

    def delete_job_pods(self, key: str, job: Object, pods: list[Object],
                        errors: list[StatusError]) -> tuple[int, int]:
        """``deleteJobPods``: finalizer off first, so the pod is not counted at all."""
        self.expectations.expect_deletions(key, [uid_of(p) for p in pods])
        removed = removed_ready = 0
        for pod in pods:
            if self.remove_finalizer(pod, errors) and self.delete_pod(job, pod, errors):
                removed += 1
                removed_ready += is_pod_ready(pod)
            else:
                self.expectations.deletion_observed(key, uid_of(pod))
        return removed_ready, removed

    def delete_active_pods(self, job: Object, pods: list[Object],
                           errors: list[StatusError]) -> tuple[int, int]:
        """``deleteActivePods``: the job failed; finalizers stay so the pods count."""
        removed = removed_ready = 0
        for pod in pods:
            if self.delete_pod(job, pod, errors):
                removed += 1
                removed_ready += is_pod_ready(pod)
        return removed_ready, removed

    def remove_finalizer(self, pod: Mapping[str, Any], errors: list[StatusError]) -> bool:
        if not has_tracking_finalizer(pod):
            return True
        meta = _m(pod.get("metadata"))
        body = {"metadata": {"$deleteFromPrimitiveList/finalizers": [JOB_TRACKING_FINALIZER]}}
        try:
            self.client.patch("pods", str(meta.get("namespace")), str(meta.get("name")),
                              "strategic", body)
        except NotFound:
            return True
        except StatusError as exc:
            errors.append(exc)
            return False
        return True

    # ------------------------------------------------------------------ claim

    def can_adopt(self, job: Object) -> bool:
        """``RecheckDeletionTimestamp``: a fresh read, never the cache, decides."""
        meta = job["metadata"]
        try:
            fresh = self.client.get("jobs", meta.get("namespace"), str(meta.get("name")))
        except NotFound:
            return False
        return uid_of(fresh) == meta.get("uid") and not is_deleting(fresh)

    def adopt(self, job: Object, pod: Object) -> Object | None:
        meta = _m(pod.get("metadata"))
        finalizers = list(meta.get("finalizers") or [])
        if JOB_TRACKING_FINALIZER not in finalizers:
            finalizers.append(JOB_TRACKING_FINALIZER)
        body = {"metadata": {"uid": meta.get("uid"), "finalizers": finalizers,
                             "ownerReferences": [owner_ref(job)]}}
        try:
            return self.client.patch("pods", str(meta.get("namespace")), str(meta.get("name")),
                                     "strategic", body)
        except (NotFound, Conflict):
            return None

    def release(self, job: Object, pod: Object) -> None:
        meta = _m(pod.get("metadata"))
        body: dict[str, Any] = {"metadata": {
            "uid": meta.get("uid"),
            "ownerReferences": [{"$patch": "delete", "uid": uid_of(job)}]}}
        if has_tracking_finalizer(pod):
            body["metadata"]["$deleteFromPrimitiveList/finalizers"] = [JOB_TRACKING_FINALIZER]
        with contextlib.suppress(NotFound, Conflict):
            self.client.patch("pods", str(meta.get("namespace")), str(meta.get("name")),
                              "strategic", body)
