"""The registry: every write's path into the store, as Kubernetes' generic registry.

Create: kind check -> namespace from the request -> strict decode (types,
unknown fields) -> generateName -> defaults -> Priority and
DefaultTolerationSeconds admission (pods) -> PrepareForCreate (uid,
creationTimestamp, generation, status reset, a Job's generated selector) ->
validation -> Priority admission (PriorityClasses: one global default) ->
canonical quantities -> namespace lifecycle admission -> store.

Update: the same, with PrepareForUpdate against the stored object: immutable
metadata kept, status kept on the main resource and only status taken from the
``status`` subresource, generation bumped when the spec changes, and update
validation. Both the HTTP API server and in-process clients write through
here, so no path can store an unchecked object.

Priority admission is Kubernetes' ``Priority`` plugin:

* A pod created with ``spec.priorityClassName`` gets that class's ``value`` and
  ``preemptionPolicy``; a class that does not exist is ``Forbidden``. A pod
  naming no class gets the global-default class (name included) when there is
  one, else priority ``0`` and ``PreemptLowerPriority``. A ``priority`` or
  ``preemptionPolicy`` given in the pod that differs from the computed one is
  ``Forbidden``. On update a pod that omits them keeps the stored ones.
  Pod templates (Deployments, ReplicaSets) are left alone, as in Kubernetes.
* Only one PriorityClass may be ``globalDefault`` (a second is ``Forbidden``);
  the built-in ``system-node-critical`` / ``system-cluster-critical`` classes
  are created by :meth:`Registry.ensure_system_priority_classes` and cannot be
  deleted.

DefaultTolerationSeconds admission is Kubernetes' plugin of that name: a pod
created or updated (not through a subresource) that does not already tolerate
``node.kubernetes.io/not-ready:NoExecute`` (resp. ``unreachable``) - a
toleration with that key or an empty key, and effect ``NoExecute`` or empty -
gets ``{key, operator: Exists, effect: NoExecute, tolerationSeconds: N}``
appended, ``N`` being ``default_toleration_seconds`` (300, the plugin's
default; ``None`` turns the plugin off). Pod templates are left alone.

A Job gets what the job strategy's ``PrepareForCreate`` does: unless
``spec.manualSelector`` is true, the template gains ``controller-uid`` /
``batch.kubernetes.io/controller-uid`` (the job's uid) and ``job-name`` /
``batch.kubernetes.io/job-name`` labels (those the user set are kept, and
validation rejects wrong values) and the selector gains
``matchLabels: {batch.kubernetes.io/controller-uid: <uid>}``; a job without
labels then carries its template's labels (``SetDefaults_Job`` applied again
on read, as Kubernetes does).

Contracts:

* Bad input raises a :class:`~minikube_py.api.errors.StatusError` naming what
  is wrong and leaves the store unchanged.
* ``dry_run=True`` runs every check and returns what would be stored, writing
  nothing.
* Objects passed in are never mutated.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from ..api import kinds, schema
from ..api.defaults import apply_defaults, canonicalize
from ..api.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
)
from ..api.qos import qos_class
from ..api.timefmt import format_time
from ..api.validation import check_create, check_update
from ..api.validation_scheduling import (
    DEFAULT_PRIORITY,
    SYSTEM_PRIORITY_CLASSES,
    system_priority_class,
)
from . import patching, podsecurity, subresources
from .podsecurity import SecurityPolicy
from .store import DeleteResult, Object, Store

#: Namespaces every cluster has, created at start-up if missing.
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")

#: Namespaces that can never be deleted (Kubernetes' NamespaceLifecycle).
_IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})

#: Kinds whose ``metadata.generation`` tracks spec changes.
_GENERATION_KINDS = frozenset({"Pod", "Deployment", "ReplicaSet", "Job"})
#: Kinds whose create sets ``metadata.generation`` to 1 without ever bumping it
#: (the PriorityClass strategy's ``PrepareForCreate``).
_CREATE_GENERATION_KINDS = _GENERATION_KINDS | {"PriorityClass"}
#: Kinds with a ``status`` subresource: the main resource cannot change status.
_STATUS_KINDS = frozenset({"Pod", "Node", "Namespace", "Deployment", "ReplicaSet", "Job"})

#: The taints DefaultTolerationSeconds admission makes every pod tolerate for a while.
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
#: The plugin's ``--default-not-ready-toleration-seconds`` / ``-unreachable-`` default.
DEFAULT_TOLERATION_SECONDS = 300

# Kubernetes' generateName alphabet: no vowels (no words), no confusable characters.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

FieldValidation = str  # "Strict" | "Warn" | "Ignore"


class Registry:
    """Admission in front of a :class:`Store` (see the module contract)."""

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.time,
                 new_uid: Callable[[], str] = lambda: str(uuid.uuid4()),
                 security: SecurityPolicy | None = None,
                 default_toleration_seconds: int | None = DEFAULT_TOLERATION_SECONDS) -> None:
        self.store = store
        self.clock = clock
        self._new_uid = new_uid
        self.security = security or SecurityPolicy()
        self.default_toleration_seconds = default_toleration_seconds

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _namespace_for(info: kinds.KindInfo, obj: Mapping[str, Any],
                       namespace: str | None) -> str:
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        assert isinstance(meta, Mapping)
        own = meta.get("namespace") or ""
        if not info.namespaced:
            return ""
        if own and namespace and own != namespace:
            raise BadRequest("the namespace of the provided object does not match the "
                             "namespace sent on the request")
        return str(own or namespace or "default")

    def _decode(self, obj: Mapping[str, Any], field_validation: FieldValidation
                ) -> tuple[Object, list[str]]:
        if field_validation not in ("Strict", "Warn", "Ignore"):
            raise BadRequest(f'fieldValidation "{field_validation}" is not supported: use '
                             '"Strict", "Warn" or "Ignore"')
        warnings: list[str] = []
        if field_validation == "Warn":
            warnings = [f'unknown field "{f}"' for f in schema.unknown_fields(obj)]
        return schema.decode(obj, strict=field_validation == "Strict"), warnings

    def _check_namespace_admits(self, info: kinds.KindInfo, namespace: str, name: str) -> None:
        """NamespaceLifecycle admission: the namespace must exist and not be going."""
        if not info.namespaced:
            return
        try:
            ns = self.store.get("namespaces", None, namespace)
        except NotFound:
            raise NotFound.of("namespaces", namespace) from None
        if (ns.get("metadata") or {}).get("deletionTimestamp") or \
                (ns.get("status") or {}).get("phase") == "Terminating":
            raise _forbidden(info, name, f"unable to create new content in namespace "
                             f"{namespace} because it is being terminated")

    # ------------------------------------------------------------------ create

    def create(self, obj: Mapping[str, Any], *, namespace: str | None = None,
               field_validation: FieldValidation = "Strict", dry_run: bool = False,
               warnings: list[str] | None = None) -> Object:
        """Admit and store a new object; returns it as stored.

        With ``field_validation="Warn"`` unknown fields are dropped and reported
        by appending to ``warnings`` (the API server sends them as ``Warning``
        headers, as Kubernetes does).
        """
        info = kinds.for_object(obj)
        ns = self._namespace_for(info, obj, namespace)
        decoded, found = self._decode(obj, field_validation)
        if warnings is not None:
            warnings.extend(found)
        meta = decoded.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise BadRequest(f"{info.kind}: metadata must be an object")
        if meta.get("resourceVersion"):
            raise BadRequest("resourceVersion should not be set on objects to be created")
        if info.namespaced:
            meta["namespace"] = ns
        else:
            meta.pop("namespace", None)  # as Kubernetes: cluster-scoped objects have none
        # Mutating admission runs before the name is generated: its errors name
        # the object by generateName (admission.NewForbidden).
        admission_name = str(meta.get("name") or meta.get("generateName") or "Unknown")
        if not meta.get("name") and isinstance(meta.get("generateName"), str) \
                and meta["generateName"]:
            meta["name"] = meta["generateName"] + "".join(
                secrets.choice(_NAME_ALPHABET) for _ in range(5))
        obj2 = apply_defaults(decoded, create=True)
        if info.kind == "Pod":
            self._admit_pod_priority(obj2, admission_name)
            self._admit_default_tolerations(obj2)
        self._prepare_for_create(info, obj2)
        check_create(obj2)
        if info.kind == "Pod":
            podsecurity.admit(obj2, self.security)
        if info.kind == "PriorityClass":
            self._admit_priority_class(obj2, update=False)
        stored = canonicalize(obj2)
        self._check_namespace_admits(info, ns, stored["metadata"]["name"])
        if dry_run:
            key_ns = ns if info.namespaced else None
            try:
                self.store.get_raw(info.plural, key_ns, stored["metadata"]["name"])
            except NotFound:
                return stored
            raise AlreadyExists.of(info.plural, stored["metadata"]["name"], group=info.group)
        return self.store.create(info.plural, stored)

    def _prepare_for_create(self, info: kinds.KindInfo, obj: Object) -> None:
        meta = obj["metadata"]
        meta["uid"] = self._new_uid()
        meta["creationTimestamp"] = format_time(self.clock())
        for transient in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
            meta.pop(transient, None)
        if info.kind in _CREATE_GENERATION_KINDS:
            meta["generation"] = 1
        else:
            meta.pop("generation", None)
        if info.kind == "Pod":
            status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
            assert isinstance(status, dict)
            # Clients cannot create a pod in a state of their choosing.
            obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj)}
        elif info.kind == "Deployment":
            obj["status"] = {}  # every DeploymentStatus field is omitempty
        elif info.kind == "ReplicaSet":
            obj["status"] = {"replicas": 0}  # ReplicaSetStatus.replicas is always serialised
        elif info.kind == "Namespace":
            obj["status"] = {"phase": "Active"}
        elif info.kind == "Job":
            _generate_job_selector(obj)
            obj["status"] = {}  # every JobStatus field is omitempty

    # ------------------------------------------------------------------ update

    def update(self, obj: Mapping[str, Any], *, namespace: str | None = None,
               subresource: str | None = None, field_validation: FieldValidation = "Strict",
               dry_run: bool = False, warnings: list[str] | None = None) -> Object:
        """Admit and store a replacement (PUT), with compare-and-swap.

        With ``metadata.resourceVersion`` set the write fails with Conflict if it is
        stale; without it the update is unconditional (retried internally so that
        validation always runs against the version actually replaced).
        """
        if subresource not in (None, "status", "finalize"):
            raise NotFound(f'the server could not find the requested resource '
                           f'"{subresource}"')
        info = kinds.for_object(obj)
        ns = self._namespace_for(info, obj, namespace)
        decoded, found = self._decode(obj, field_validation)
        if warnings is not None:
            warnings.extend(found)
        meta = decoded.get("metadata")
        if not isinstance(meta, dict) or not meta.get("name"):
            raise BadRequest(f"{info.kind}: metadata.name is required for an update")
        if info.namespaced:
            meta["namespace"] = ns
        else:
            meta.pop("namespace", None)
        name = meta["name"]
        wanted_rv = str(meta.get("resourceVersion") or "")
        for _ in range(100):
            old = self.store.get(info.plural, ns or None, name)
            if wanted_rv and wanted_rv != old["metadata"]["resourceVersion"]:
                # The precondition comes first, as in Kubernetes: a stale write is a
                # Conflict even if it would also fail validation against the new state.
                raise Conflict.of(info.plural, name, "the object has been modified; please "
                                  "apply your changes to the latest version and try again",
                                  group=info.group)
            new = apply_defaults(decoded, create=False)
            # Unconditional updates compare-and-swap against the version validated.
            new["metadata"]["resourceVersion"] = wanted_rv or old["metadata"]["resourceVersion"]
            if info.kind == "Pod" and subresource is None:
                _keep_pod_priority(new, old)
                self._admit_default_tolerations(new)
            self._prepare_for_update(info, new, old, subresource)
            check_update(new, old)
            if info.kind == "PriorityClass" and subresource is None:
                self._admit_priority_class(new, update=True)
            stored = canonicalize(new)
            if dry_run:
                if wanted_rv and wanted_rv != old["metadata"]["resourceVersion"]:
                    raise Conflict.of(info.plural, name, "the object has been modified; "
                                      "please apply your changes to the latest version and "
                                      "try again", group=info.group)
                return stored
            try:
                return self.store.update(info.plural, stored)
            except Conflict:
                if wanted_rv:
                    raise
        raise Conflict.of(info.plural, name, "too many concurrent updates", group=info.group)

    @staticmethod
    def _prepare_for_update(info: kinds.KindInfo, new: Object, old: Object,
                            subresource: str | None) -> None:
        meta, old_meta = new["metadata"], old["metadata"]
        # rest.BeforeUpdate: these are the server's to set.
        meta["creationTimestamp"] = old_meta.get("creationTimestamp")
        if not meta.get("uid"):
            meta["uid"] = old_meta.get("uid")
        if "generation" in old_meta:
            meta["generation"] = old_meta["generation"]
        else:
            meta.pop("generation", None)
        if subresource == "finalize":
            # Namespaces only: spec.finalizers from the request, everything else kept.
            finalizers = (new.get("spec") or {}).get("finalizers")
            new.clear()
            new.update(old)
            new["metadata"] = {**old_meta, "resourceVersion": meta.get("resourceVersion")}
            new["spec"] = {**(old.get("spec") or {}), "finalizers": finalizers or []}
            return
        if subresource == "status":
            # Only status comes from the request; spec and metadata stay as stored.
            status = new.get("status")
            new.clear()
            new.update({k: v for k, v in old.items() if k != "status"})
            new["metadata"] = {**old_meta, "resourceVersion": meta.get("resourceVersion")}
            if status is not None:
                new["status"] = status
            return
        if info.kind in _STATUS_KINDS:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)
        if info.kind == "Namespace":
            # spec.finalizers change only through the finalize subresource.
            new["spec"] = old.get("spec", {})
        if info.kind in _GENERATION_KINDS and new.get("spec") != old.get("spec"):
            meta["generation"] = int(old_meta.get("generation") or 0) + 1

    # ------------------------------------------------------------------ delete

    def delete(self, resource: str, namespace: str | None, name: str, *,
               grace_period_seconds: int | None = None,
               propagation_policy: str | None = None,
               preconditions: Mapping[str, str] | None = None,
               dry_run: bool = False) -> DeleteResult:
        """Delete as Kubernetes does for each kind.

        Pods bound to a node and not finished get a graceful deletion
        (``spec.terminationGracePeriodSeconds`` unless the request gives one); the
        kubelet finishes it. Namespaces with ``spec.finalizers`` become
        ``Terminating`` and are finished by the namespace controller.
        """
        info = kinds.by_plural(resource)
        ns = namespace if info.namespaced else None
        if info.kind == "PriorityClass" and any(
                name == class_name for class_name, _, _ in SYSTEM_PRIORITY_CLASSES):
            # The priorityclasses REST storage's Delete, before anything else.
            raise _forbidden(info, name, "this is a system priority class and cannot be "
                             "deleted")
        current = self.store.get(resource, ns, name)
        if info.kind == "Namespace" and name in _IMMORTAL_NAMESPACES:
            # Before the dry-run exit: a dry run must refuse what the real delete
            # would (delete-collection relies on it to change nothing when refused).
            raise _immortal(name)
        if dry_run:
            return DeleteResult(current, True)
        grace = grace_period_seconds
        if info.kind == "Pod":
            grace = _pod_grace(current, grace)
        else:
            grace = 0  # only pods terminate gracefully
        if info.kind == "Namespace":
            return self._delete_namespace(current, preconditions)
        return self.store.delete(resource, ns, name, grace_period_seconds=grace,
                                 propagation_policy=propagation_policy,
                                 preconditions=preconditions)

    def _delete_namespace(self, ns: Object,
                          preconditions: Mapping[str, str] | None) -> DeleteResult:
        """An empty namespace goes at once; one with content, or with finalizers
        other than ``kubernetes``, turns Terminating and stays (refusing new
        content) until the namespace controller empties and finalizes it and
        every other finalizer is removed."""
        name = ns["metadata"]["name"]
        if name in _IMMORTAL_NAMESPACES:
            raise _immortal(name)
        spec_finalizers = (ns.get("spec") or {}).get("finalizers") or []
        # Only the namespace controller's own token on an empty namespace lets it
        # go at once (what the controller would do next); anything else waits.
        if spec_finalizers and (set(spec_finalizers) - {"kubernetes"}
                                or self._namespace_has_content(name)):
            if ns["metadata"].get("deletionTimestamp"):
                return DeleteResult(ns, False)

            def terminate(obj: Object) -> Object | None:
                obj["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}
                return obj

            self.store.guaranteed_update("namespaces", None, name, terminate)
            return self.store.delete("namespaces", None, name, preconditions=preconditions,
                                     hold=True)
        return self.store.delete("namespaces", None, name, preconditions=preconditions)

    def _namespace_has_content(self, name: str) -> bool:
        for info in kinds.KINDS:
            if info.namespaced and self.store.list(info.plural, namespace=name, limit=1).items:
                return True
        return False

    # ------------------------------------------------------------------ priority admission

    def _default_priority_class(self) -> Object | None:
        """The global-default PriorityClass; should several exist (a race), the
        one with the lowest value, as the Priority plugin picks."""
        found: Object | None = None
        for pc in self.store.list("priorityclasses").items:
            if pc.get("globalDefault") is True and (
                    found is None or _priority_value(pc) < _priority_value(found)):
                found = pc
        return found

    def _admit_pod_priority(self, pod: Object, name: str) -> None:
        """The Priority plugin's ``Admit`` for a pod being created (module docstring)."""
        spec = pod.get("spec")
        if not isinstance(spec, dict):
            return
        pods = kinds.by_kind("Pod")
        class_name = spec.get("priorityClassName") or ""
        policy: Any
        if not class_name:
            default = self._default_priority_class()
            if default is None:
                priority, policy = DEFAULT_PRIORITY, "PreemptLowerPriority"
            else:
                spec["priorityClassName"] = default["metadata"]["name"]
                priority, policy = _priority_value(default), default.get("preemptionPolicy")
        else:
            try:
                pc = self.store.get("priorityclasses", None, str(class_name))
            except NotFound:
                raise _forbidden(pods, name, f"no PriorityClass with name {class_name} was "
                                 "found") from None
            priority, policy = _priority_value(pc), pc.get("preemptionPolicy")
        given = spec.get("priority")
        if given is not None and given != priority:
            raise _forbidden(pods, name, f"the integer value of priority ({given}) must not be "
                             f"provided in pod spec; priority admission controller computed "
                             f"{priority} from the given PriorityClass name")
        spec["priority"] = priority
        if policy is not None:
            given_policy = spec.get("preemptionPolicy")
            if given_policy is not None and given_policy != policy:
                raise _forbidden(pods, name, f"the string value of PreemptionPolicy "
                                 f"({given_policy}) must not be provided in pod spec; priority "
                                 f"admission controller computed {policy} from the given "
                                 "PriorityClass name")
            spec["preemptionPolicy"] = policy

    # ------------------------------------------------------------------ default tolerations

    def _admit_default_tolerations(self, pod: Object) -> None:
        """DefaultTolerationSeconds (see the module docstring)."""
        seconds = self.default_toleration_seconds
        spec = pod.get("spec")
        if seconds is None or not isinstance(spec, dict):
            return
        tolerations = spec.get("tolerations")
        existing = [t for t in tolerations if isinstance(t, dict)] \
            if isinstance(tolerations, list) else []

        def tolerated(key: str) -> bool:
            return any(t.get("key") in (key, "", None) and t.get("effect") in ("NoExecute", "",
                                                                                 None)
                       for t in existing)

        added = [{"key": key, "operator": "Exists", "effect": "NoExecute",
                  "tolerationSeconds": seconds}
                 for key in (NOT_READY_TAINT, UNREACHABLE_TAINT) if not tolerated(key)]
        if added:
            spec["tolerations"] = [*(tolerations if isinstance(tolerations, list) else []),
                                   *added]

    def _admit_priority_class(self, pc: Object, *, update: bool) -> None:
        """The Priority plugin's ``Validate``: at most one global default."""
        if pc.get("globalDefault") is not True:
            return
        default = self._default_priority_class()
        if default is None:
            return
        name = pc["metadata"]["name"]
        default_name = default["metadata"]["name"]
        if not update or default_name != name:
            raise _forbidden(kinds.by_kind("PriorityClass"), name,
                             f"PriorityClass {default_name} is already marked as default. "
                             "Only one default can exist")

    # ------------------------------------------------------------------ patch & subresources

    def patch(self, resource: str, namespace: str | None, name: str, patch_type: str,
              body: Any, *, subresource: str | None = None, field_manager: str | None = None,
              force: bool = False, dry_run: bool = False,
              field_validation: FieldValidation = "Strict",
              warnings: list[str] | None = None) -> tuple[Object, bool]:
        """PATCH (see :mod:`.patching`); returns (object, created)."""
        return patching.patch(self, resource, namespace, name, patch_type, body,
                              subresource=subresource, field_manager=field_manager,
                              force=force, dry_run=dry_run, field_validation=field_validation,
                              warnings=warnings)

    def bind(self, namespace: str, name: str, node: str, *, uid: str | None = None,
             dry_run: bool = False) -> Object:
        """``pods/binding`` (see :mod:`.subresources`)."""
        return subresources.bind(self, namespace, name, node, uid=uid, dry_run=dry_run)

    def get_scale(self, resource: str, namespace: str, name: str) -> Object:
        return subresources.get_scale(self, resource, namespace, name)

    def update_scale(self, resource: str, namespace: str, name: str, scale: Any, *,
                     dry_run: bool = False) -> Object:
        return subresources.update_scale(self, resource, namespace, name, scale,
                                         dry_run=dry_run)

    def patch_scale(self, resource: str, namespace: str, name: str, patch_type: str,
                    body: Any, *, dry_run: bool = False) -> Object:
        return subresources.patch_scale(self, resource, namespace, name, patch_type, body,
                                        dry_run=dry_run)

    # ------------------------------------------------------------------ reads

    def get(self, resource: str, namespace: str | None, name: str) -> Object:
        info = kinds.by_plural(resource)
        return self.store.get(resource, namespace if info.namespaced else None, name)

    # ------------------------------------------------------------------ bootstrap

    def ensure_system_namespaces(self) -> list[str]:
        """Create the namespaces every cluster has; returns the names created."""
        created = []
        for name in SYSTEM_NAMESPACES:
            try:
                self.create({"apiVersion": "v1", "kind": "Namespace",
                             "metadata": {"name": name}})
                created.append(name)
            except AlreadyExists:
                pass
        return created

    def ensure_system_priority_classes(self) -> list[str]:
        """Create the built-in PriorityClasses (``system-node-critical``,
        ``system-cluster-critical``), as the API server's start-up hook does;
        returns the names created."""
        created = []
        for name, _, _ in SYSTEM_PRIORITY_CLASSES:
            try:
                self.create(system_priority_class(name))
                created.append(name)
            except AlreadyExists:
                pass
        return created


def _forbidden(info: kinds.KindInfo, name: str, why: str) -> Forbidden:
    """``apierrors.NewForbidden``: ``pods "web" is forbidden: <why>``."""
    return Forbidden.of(info.plural, name, why, group=info.group)


def _priority_value(pc: Mapping[str, Any]) -> int:
    value = pc.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


_JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_JOB_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


def _generate_job_selector(job: Object) -> None:
    """The job strategy's ``generateSelectorIfNeeded`` (see the module docstring)."""
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


def _keep_pod_priority(new: Object, old: Object) -> None:
    """The Priority plugin on pod update: what it set on create is kept when the
    update omits it (validation then refuses any other change)."""
    new_spec, old_spec = new.get("spec"), old.get("spec")
    if not isinstance(new_spec, dict) or not isinstance(old_spec, dict):
        return
    for key in ("priority", "preemptionPolicy"):
        if new_spec.get(key) is None and old_spec.get(key) is not None:
            new_spec[key] = old_spec[key]


def _immortal(name: str) -> Forbidden:
    return Forbidden.of("namespaces", name, "this namespace may not be deleted")


def _pod_grace(pod: Mapping[str, Any], requested: int | None) -> int:
    """Kubernetes' pod CheckGracefulDelete: unscheduled or finished pods go at once."""
    spec = pod.get("spec") or {}
    phase = (pod.get("status") or {}).get("phase")
    if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
        return 0
    if requested is not None:
        return max(requested, 0)
    return int(spec.get("terminationGracePeriodSeconds", 30))
