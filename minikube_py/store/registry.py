"""The registry: every write's path into the store, as Kubernetes' generic registry.

Create: kind check -> namespace from the request -> strict decode (types,
unknown fields) -> generateName -> defaults -> mutating admission ->
PrepareForCreate (uid, creationTimestamp, generation, status reset, then the
resource's own preparation) -> validation -> validating admission ->
canonical quantities -> namespace lifecycle admission -> store.

Update: the same, with PrepareForUpdate against the stored object: immutable
metadata kept, status kept on the main resource and only status taken from the
``status`` subresource, generation bumped when the spec changes, and update
validation. Both the HTTP API server and in-process clients write through
here, so no path can store an unchecked object.

What differs between kinds is asked of the kind's resource
(:mod:`minikube_py.api.resource`: generation and status rules, initial status,
preparation, subresource writes, graceful deletion) and of the admission chain
(:mod:`minikube_py.admission`: Priority, DefaultTolerationSeconds, pod
security, NamespaceLifecycle and the namespace storage's delete); nothing here
branches on a kind's name.

Contracts:

* Bad input raises a :class:`~minikube_py.api.errors.StatusError` naming what
  is wrong and leaves the store unchanged.
* ``dry_run=True`` runs every check and returns what would be stored, writing
  nothing.
* Objects passed in are never mutated.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from ..admission import Chain, SecurityPolicy, ServiceNetwork
from ..admission.namespaces import SYSTEM_NAMESPACES
from ..admission.tolerations import (
    DEFAULT_TOLERATION_SECONDS,
    NOT_READY_TAINT,
    UNREACHABLE_TAINT,
)
from ..api import jsontext, kinds, randomness, schema
from ..api.defaults import apply_defaults, canonicalize
from ..api.errors import AlreadyExists, BadRequest, Conflict, NotFound
from ..api.timefmt import format_time
from ..api.validation import check_create, check_update
from . import patching, subresources
from .store import DeleteResult, Object, Store, encode_stored

__all__ = ["DEFAULT_TOLERATION_SECONDS", "NOT_READY_TAINT", "SYSTEM_NAMESPACES",
           "UNREACHABLE_TAINT", "FieldValidation", "Registry"]

#: ``names.MaxGeneratedNameLength``: the base is cut so base + 5 fits in 63.
_MAX_GENERATED_BASE = 58
#: RetryGenerateName (GA in 1.32): a generated name already taken is generated
#: again, up to this many attempts in all, before AlreadyExists is returned.
_NAME_ATTEMPTS = 8

FieldValidation = str  # "Strict" | "Warn" | "Ignore"


class Registry:
    """Admission in front of a :class:`Store` (see the module contract)."""

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.time,
                 new_uid: Callable[[], str] = randomness.new_uid,
                 security: SecurityPolicy | None = None,
                 default_toleration_seconds: int | None = DEFAULT_TOLERATION_SECONDS,
                 service_network: ServiceNetwork | None = None,
                 service_accounts: bool = False,
                 mount_service_account_token: bool = True) -> None:
        self.store = store
        self.clock = clock
        self._new_uid = new_uid
        #: The five characters a generated name ends with (tests replace it).
        self.name_suffix: Callable[[], str] = randomness.name_suffix
        # service_accounts: the ServiceAccount admission plugin (pods need an
        # existing account), off by default so a bare registry needs no
        # controller creating ``default`` accounts; the control plane turns it on.
        self.admission = Chain(store, security=security or SecurityPolicy(),
                               toleration_seconds=default_toleration_seconds,
                               service_network=service_network,
                               service_accounts=service_accounts,
                               mount_service_account_token=mount_service_account_token)

    @property
    def service_network(self) -> ServiceNetwork:
        """The service CIDR and node-port range Services are allocated from."""
        return self.admission.services.network

    def repair_allocations(self) -> list[str]:
        """Rebuild the Service allocators from the store (Kubernetes' repair
        controllers); returns the problems found, as sentences."""
        return self.admission.services.repair()

    @property
    def default_toleration_seconds(self) -> int | None:
        """DefaultTolerationSeconds' period (``None``: the plugin is off)."""
        return self.admission.toleration_seconds

    @default_toleration_seconds.setter
    def default_toleration_seconds(self, seconds: int | None) -> None:
        self.admission.toleration_seconds = seconds

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

    # ------------------------------------------------------------------ create

    def create(self, obj: Mapping[str, Any], *, namespace: str | None = None,
               field_validation: FieldValidation = "Strict", dry_run: bool = False,
               warnings: list[str] | None = None) -> Object:
        """Admit and store a new object; returns it as stored.

        With ``field_validation="Warn"`` unknown fields are dropped and reported
        by appending to ``warnings`` (the API server sends them as ``Warning``
        headers, as Kubernetes does).
        """
        created: Object = jsontext.loads(self.create_raw(
            obj, namespace=namespace, field_validation=field_validation, dry_run=dry_run,
            warnings=warnings))
        return created

    def create_raw(self, obj: Mapping[str, Any], *, namespace: str | None = None,
                   field_validation: FieldValidation = "Strict", dry_run: bool = False,
                   warnings: list[str] | None = None) -> str:
        """:meth:`create`, returning the stored object's JSON text: nothing is
        decoded for a caller that sends it on as it is (the API server's
        answer) or drops it (an event recorder)."""
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
        base = ""
        if not meta.get("name") and isinstance(meta.get("generateName"), str) \
                and meta["generateName"]:
            base = meta["generateName"][:_MAX_GENERATED_BASE]
            meta["name"] = base + self.name_suffix()
        # decoded is our own deep copy: defaulted and canonicalised without more copies.
        obj2 = apply_defaults(decoded, create=True, in_place=True)
        self.admission.mutate_create(info, obj2, admission_name)
        txn = self.admission.begin_create(info, obj2)
        try:
            self._prepare_for_create(info, obj2)
            check_create(obj2)
            self.admission.validate_create(info, obj2, ns)
            stored = canonicalize(obj2, owned=True)
            self.admission.validate_namespace(info, ns, stored["metadata"]["name"])
            created = self._store_new(info, ns, stored, base, dry_run)
            if dry_run:
                txn.revert()
                return created
        except BaseException:
            txn.revert()
            raise
        txn.commit()
        return created

    def _store_new(self, info: kinds.KindInfo, ns: str, stored: Object, base: str,
                   dry_run: bool) -> str:
        """Store ``stored`` (or, for a dry run, check its name is free) and
        return its text; a name generated from ``base`` that is taken is
        generated again (RetryGenerateName)."""
        for attempt in range(_NAME_ATTEMPTS):
            try:
                if not dry_run:
                    return self.store.create_raw(info.plural, stored)
                try:
                    self.store.get_raw(info.plural, ns if info.namespaced else None,
                                       stored["metadata"]["name"])
                except NotFound:
                    return encode_stored(stored)
                raise AlreadyExists.of(info.plural, stored["metadata"]["name"],
                                       group=info.group)
            except AlreadyExists:
                if not base or attempt == _NAME_ATTEMPTS - 1:
                    raise
                stored["metadata"]["name"] = base + self.name_suffix()
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _prepare_for_create(self, info: kinds.KindInfo, obj: Object) -> None:
        res = kinds.resource_of(info)
        meta = obj["metadata"]
        meta["uid"] = self._new_uid()
        meta["creationTimestamp"] = format_time(self.clock())
        for transient in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
            meta.pop(transient, None)
        if res.generation != "none":
            meta["generation"] = 1
        else:
            meta.pop("generation", None)
        if res.initial_status is not None:
            # Clients cannot create an object in a state of their choosing.
            obj["status"] = res.initial_status(obj)
        res.prepare_for_create(obj)

    # ------------------------------------------------------------------ update

    def update(self, obj: Mapping[str, Any], *, namespace: str | None = None,
               subresource: str | None = None, field_validation: FieldValidation = "Strict",
               dry_run: bool = False, warnings: list[str] | None = None,
               shared: bool = False) -> Object:
        """Admit and store a replacement (PUT), with compare-and-swap; returns it
        as stored (with ``shared``: the store's read-only shared copy).

        With ``metadata.resourceVersion`` set the write fails with Conflict if it is
        stale; without it the update is unconditional (retried internally so that
        validation always runs against the version actually replaced).
        """
        info = kinds.for_object(obj)
        if subresource is not None and (
                subresource not in info.subresources
                or (subresource != "status"
                    and subresource not in kinds.resource_of(info).update_subresource)):
            raise NotFound(f'the server could not find the requested resource '
                           f'"{subresource}"')
        ns = self._namespace_for(info, obj, namespace)
        body = self._status_body(info, obj, ns) if subresource == "status" else obj
        decoded, found = self._decode(body, field_validation)
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
        for attempt in range(100):
            if attempt:
                # The previous attempt defaulted its copy in place: start from a
                # fresh decode (only after a Conflict of an unconditional update).
                decoded = self._decode(body, "Ignore")[0]
                if info.namespaced:
                    decoded["metadata"]["namespace"] = ns
                else:
                    decoded["metadata"].pop("namespace", None)
            # A status write builds what it stores from the old version and
            # the sent status, and nothing on its way changes either in place
            # (only the status is rebuilt, by _canonical_status): the old one
            # can be the store's shared copy, a decode saved per write. A dry
            # run hands back what it built, so it gets a copy of its own.
            old = self.store.get_shared(info.plural, ns or None, name) \
                if subresource == "status" and not dry_run else \
                self.store.get(info.plural, ns or None, name)
            if wanted_rv and wanted_rv != old["metadata"]["resourceVersion"]:
                # The precondition comes first, as in Kubernetes: a stale write is a
                # Conflict even if it would also fail validation against the new state.
                raise Conflict.of(info.plural, name, "the object has been modified; please "
                                  "apply your changes to the latest version and try again",
                                  group=info.group)
            new = apply_defaults(decoded, create=False, in_place=True)
            # Unconditional updates compare-and-swap against the version validated.
            new["metadata"]["resourceVersion"] = wanted_rv or old["metadata"]["resourceVersion"]
            self.admission.mutate_update(info, new, old, subresource)
            txn = self.admission.begin_update(info, new, old, subresource)
            try:
                new = self._prepare_for_update(info, new, old, subresource)
                check_update(new, old, subresource)
                self.admission.validate_update(info, new, subresource)
                stored = _canonical_status(new) if subresource == "status" else \
                    canonicalize(new, owned=True)
                if dry_run:
                    txn.revert()
                    if wanted_rv and wanted_rv != old["metadata"]["resourceVersion"]:
                        raise Conflict.of(info.plural, name, "the object has been modified; "
                                          "please apply your changes to the latest version "
                                          "and try again", group=info.group)
                    return stored
                updated = self.store.update(info.plural, stored, shared=shared)
            except Conflict:
                txn.revert()
                if wanted_rv:
                    raise
                continue
            except BaseException:
                txn.revert()
                raise
            txn.commit()
            if updated["metadata"].get("deletionTimestamp") is None or \
                    self._still_stored(info, ns, name):
                return updated
            self.admission.after_delete(info, updated)  # the last finalizer went
            return updated
        raise Conflict.of(info.plural, name, "too many concurrent updates", group=info.group)

    def _status_body(self, info: kinds.KindInfo, obj: Mapping[str, Any],
                     ns: str) -> Mapping[str, Any]:
        """What of a status write's body is decoded: all of it, but for a
        ``spec`` that is the very object the store holds decoded for the
        current version (an in-process writer such as a kubelet sends back the
        shared copy it read). The write keeps the stored spec whatever is sent
        (the status strategy), so that spec would be decoded, defaulted and
        dropped, about a sixth of a hollow pod's status write; being the stored
        version's own, it decodes without error. A spec that is merely equal
        is still decoded, for the errors a malformed one must get (``1`` equals
        ``True`` in Python, not in the schema)."""
        spec = obj.get("spec")
        meta = obj.get("metadata")
        if spec is None or type(meta) is not dict:
            return obj
        name = meta.get("name")
        if type(name) is not str or not name:
            return obj
        try:
            current = self.store.get_shared(info.plural, ns or None, name)
        except NotFound:
            return obj  # the write fails below, after the body's own errors
        if current.get("spec") is not spec:
            return obj
        return {k: v for k, v in obj.items() if k != "spec"}

    @staticmethod
    def _prepare_for_update(info: kinds.KindInfo, new: Object, old: Object,
                            subresource: str | None) -> Object:
        """PrepareForUpdate; returns what is to be stored."""
        res = kinds.resource_of(info)
        meta, old_meta = new["metadata"], old["metadata"]
        # rest.BeforeUpdate: these are the server's to set.
        meta["creationTimestamp"] = old_meta.get("creationTimestamp")
        if not meta.get("uid"):
            meta["uid"] = old_meta.get("uid")
        if "generation" in old_meta:
            meta["generation"] = old_meta["generation"]
        else:
            meta.pop("generation", None)
        if subresource is not None and subresource != "status":
            return res.update_subresource[subresource](new, old)
        if subresource == "status":
            # Only status comes from the request; spec and metadata stay as stored.
            status = new.get("status")
            out = {k: v for k, v in old.items() if k != "status"}
            out["metadata"] = {**old_meta, "resourceVersion": meta.get("resourceVersion")}
            if status is not None:
                out["status"] = status
            return out
        if res.status_subresource:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)
        res.prepare_for_update(new, old)
        if res.generation == "spec" and new.get("spec") != old.get("spec"):
            meta["generation"] = int(old_meta.get("generation") or 0) + 1
        return new

    # ------------------------------------------------------------------ delete

    def delete(self, resource: str, namespace: str | None, name: str, *,
               grace_period_seconds: int | None = None,
               propagation_policy: str | None = None,
               preconditions: Mapping[str, str] | None = None,
               dry_run: bool = False) -> DeleteResult:
        """Delete as Kubernetes does for each kind.

        The resource's ``grace_period`` decides graceful deletion (pods bound
        to a node and not finished; the kubelet finishes it); a kind whose
        storage deletes its own way (namespaces with ``spec.finalizers`` turn
        ``Terminating`` and the namespace controller finishes them) is the
        admission chain's.
        """
        info = kinds.by_plural(resource)
        ns = namespace if info.namespaced else None
        # Before the dry-run exit: a dry run must refuse what the real delete
        # would (delete-collection relies on it to change nothing when refused).
        self.admission.validate_delete(info, name)
        current = self.store.get(resource, ns, name)
        if dry_run:
            return DeleteResult(current, True)
        handled, result = self.admission.delete(info, current, preconditions)
        if handled:
            return DeleteResult(current, False) if result is None else result
        grace = kinds.resource_of(info).grace_period(current, grace_period_seconds)
        result = self.store.delete(resource, ns, name, grace_period_seconds=grace,
                                   propagation_policy=propagation_policy,
                                   preconditions=preconditions)
        if result.finished:
            self.admission.after_delete(info, result.object)
        return result

    def _still_stored(self, info: kinds.KindInfo, namespace: str, name: str) -> bool:
        try:
            self.store.get_raw(info.plural, namespace or None, name)
        except NotFound:
            return False
        return True

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
             dry_run: bool = False, resource: str | None = None) -> Object:
        """``<resource>/binding`` (see :mod:`.subresources`); the resource is
        the one that serves ``binding`` unless named. Returns the bound pod,
        the store's shared read-only copy."""
        return subresources.bind(self, namespace, name, node, uid=uid, dry_run=dry_run,
                                 resource=resource)

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

    def get(self, resource: str, namespace: str | None, name: str, *,
            shared: bool = False) -> Object:
        """One object (a fresh copy; with ``shared`` the store's read-only shared one)."""
        info = kinds.by_plural(resource)
        read = self.store.get_shared if shared else self.store.get
        return read(resource, namespace if info.namespaced else None, name)

    # ------------------------------------------------------------------ bootstrap

    def ensure_system_namespaces(self) -> list[str]:
        """Create the namespaces every cluster has; returns the names created."""
        return self.admission.ensure_system_namespaces(self.create)

    def ensure_system_priority_classes(self) -> list[str]:
        """Create the built-in PriorityClasses (``system-node-critical``,
        ``system-cluster-critical``), as the API server's start-up hook does;
        returns the names created."""
        return self.admission.ensure_system_priority_classes(self.create)


def _canonical_status(new: Object) -> Object:
    """A status write's object with quantities canonical: only its status can
    have any that are not (everything else is the stored version's, already
    canonical), so only the status is walked."""
    if "status" not in new:
        return new
    walked = canonicalize({"kind": new.get("kind"), "status": new["status"]}, owned=True)
    return {**new, "status": walked["status"]}
