"""Admission: the plugins every write passes between decoding and storage.

The registry (:mod:`minikube_py.store.registry`) runs one :class:`Chain` and
knows no kind by name; each plugin here says which resources it acts on, as
Kubernetes' admission plugins check ``a.GetResource()``:

* :mod:`.serviceaccount` - ``ServiceAccount`` (pods get an account and,
  unless told not to, its token volume; off unless the chain is built with
  ``service_accounts=True``, so bare registries in tests need no accounts);
* :mod:`.priority` - ``Priority`` (pods get their class's priority; one global
  default class; built-in classes cannot be deleted);
* :mod:`.tolerations` - ``DefaultTolerationSeconds``;
* :mod:`.podsecurity` - what a pod may ask of the host;
* :mod:`.namespaces` - ``NamespaceLifecycle`` and the namespace storage's
  finalizing delete;
* :mod:`.services` - the service storage's allocation of cluster IPs and node
  ports (``beginCreate``/``beginUpdate``/``afterDelete``), as transactions the
  registry commits once the store took the write.

Layering: imports :mod:`minikube_py.api` only; the store is reached through
the :class:`.storage.Storage` protocol the registry passes in.
"""

from __future__ import annotations

from typing import Any

from ..api.kinds import KindInfo
from . import namespaces, podsecurity, priority, tolerations
from .podsecurity import SecurityPolicy
from .serviceaccount import ServiceAccountAdmission
from .services import NOTHING, SERVICES, ServiceAllocation, ServiceNetwork, Txn
from .storage import Create, Object, Storage

__all__ = ["Chain", "SecurityPolicy", "ServiceNetwork", "Txn"]

_PODS = priority.PODS
_CLASSES = priority.CLASSES


class Chain:
    """Every admission plugin, in Kubernetes' order, over one storage."""

    def __init__(self, storage: Storage, *, security: SecurityPolicy,
                 toleration_seconds: int | None,
                 service_network: ServiceNetwork | None = None,
                 service_accounts: bool = False,
                 mount_service_account_token: bool = True) -> None:
        self.storage = storage
        self._default_class = priority.DefaultClass()
        self.security = security
        self.toleration_seconds = toleration_seconds
        self.services = ServiceAllocation(storage, service_network)
        #: ``None``: the ServiceAccount plugin is off.
        self.service_accounts = ServiceAccountAdmission(
            storage, mount_token=mount_service_account_token) if service_accounts else None

    def begin_create(self, info: KindInfo, obj: Object) -> Txn:
        """Allocation for a new object, after mutating admission and before the
        strategy (kube-apiserver's ``BeginCreate``); the caller commits the
        transaction once the store took the object and reverts it otherwise."""
        if info.plural == SERVICES:
            return self.services.begin_create(obj)
        return NOTHING

    def begin_update(self, info: KindInfo, new: Object, old: Object,
                     subresource: str | None) -> Txn:
        """Allocation for an update (``BeginUpdate``), as :meth:`begin_create`."""
        if info.plural == SERVICES and subresource is None:
            return self.services.begin_update(new, old)
        return NOTHING

    def after_delete(self, info: KindInfo, obj: Object) -> None:
        """What an object held is given back once it is gone (``AfterDelete``)."""
        if info.plural == SERVICES:
            self.services.after_delete(obj)

    def mutate_create(self, info: KindInfo, obj: Object, name: str) -> None:
        """Mutating admission on create (before the strategy prepares the
        object); ``name`` is what errors call it (its generateName if unnamed)."""
        if info.plural == _PODS:
            if self.service_accounts is not None:  # before Priority, as in Kubernetes
                self.service_accounts.admit_create(obj, name)
            priority.admit_pod(self.storage, obj, name, self._default_class)
            tolerations.admit(obj, self.toleration_seconds)

    def mutate_update(self, info: KindInfo, new: Object, old: Object,
                      subresource: str | None) -> None:
        """Mutating admission on update; subresource writes are left alone."""
        if info.plural == _PODS and subresource is None:
            if self.service_accounts is not None:
                self.service_accounts.admit_update(new)
            priority.keep_pod_priority(new, old)
            tolerations.admit(new, self.toleration_seconds)

    def validate_create(self, info: KindInfo, obj: Object, namespace: str) -> None:
        """Validating admission on create (after the object is valid)."""
        if info.plural == _PODS:
            podsecurity.admit(obj, self.security)
        if info.plural == _CLASSES:
            priority.validate_class(self.storage, obj, update=False)

    def validate_namespace(self, info: KindInfo, namespace: str, name: str) -> None:
        """NamespaceLifecycle: new content needs a live namespace."""
        namespaces.check_create(self.storage, info, namespace, name)

    def validate_update(self, info: KindInfo, obj: Object, subresource: str | None) -> None:
        if info.plural == _CLASSES and subresource is None:
            priority.validate_class(self.storage, obj, update=True)

    def validate_delete(self, info: KindInfo, name: str) -> None:
        """Refuse deleting what may never go (built-in classes and namespaces),
        before anything else, dry runs included."""
        if info.plural == _CLASSES:
            priority.check_delete(name)
        if info.plural == namespaces.NAMESPACES:
            namespaces.check_delete(name)

    def delete(self, info: KindInfo, current: Object, preconditions: Any) -> tuple[bool, Any]:
        """A kind whose storage deletes its own way: ``(True, result)`` with
        the store's result (``None``: already terminating, nothing changed);
        ``(False, None)`` for the generic delete."""
        if info.plural == namespaces.NAMESPACES:
            return True, namespaces.delete(self.storage, current, preconditions)
        return False, None

    def ensure_system_namespaces(self, create: Create) -> list[str]:
        return namespaces.ensure_system(create)

    def ensure_system_priority_classes(self, create: Create) -> list[str]:
        return priority.ensure_system_classes(create)
