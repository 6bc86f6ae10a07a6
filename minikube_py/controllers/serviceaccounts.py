"""The service account controller: a ``default`` ServiceAccount in every
namespace, as Kubernetes' ``pkg/controller/serviceaccount``
(``ServiceAccountsController``, v1.32).

Contract:

* Keys are namespace names. A namespace added or updated is looked at; so is
  the namespace of any ServiceAccount deleted, so a deleted ``default`` comes
  back.
* ``reconcile(namespace)``: nothing unless the namespace is cached and
  ``Active`` (a terminating one gets nothing new); each account of
  ``accounts`` missing from the cache is created. ``AlreadyExists`` (the cache
  lagging our own create) and the namespace going away meanwhile are success;
  other failures are retried.
* :meth:`start` first does the same for every namespace that exists,
  synchronously through the client, so the accounts of the namespaces made at
  control-plane start exist before the API reports ready; a failure there is
  logged and left to the workers.

Pods created right after their namespace may still find no account yet (a
``Forbidden``, as in Kubernetes); reacting to the namespace watch within
milliseconds and the admission plugin's retries make that rare.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ..api.access import meta
from ..api.errors import AlreadyExists, Forbidden, NotFound
from ..client.base import Client
from ..client.informer import Handlers
from ..client.shared import SharedInformers
from .base import Controller

__all__ = ["DEFAULT_ACCOUNTS", "ServiceAccountsController", "namespace_active"]

log = logging.getLogger(__name__)

#: ``DefaultServiceAccountsControllerOptions``: the accounts every namespace gets.
DEFAULT_ACCOUNTS: Final = ("default",)


def namespace_active(ns: Mapping[str, Any] | None) -> bool:
    """``ns.Status.Phase == NamespaceActive`` (and not being deleted)."""
    return ns is not None and not meta(ns).get("deletionTimestamp") and \
        (ns.get("status") or {}).get("phase") == "Active"


class ServiceAccountsController(Controller):
    """Ensures :data:`DEFAULT_ACCOUNTS` in every active namespace (module contract)."""

    name = "serviceaccount-controller"

    def __init__(self, client: Client, informers: SharedInformers, *,
                 accounts: Sequence[str] = DEFAULT_ACCOUNTS, **kwargs: Any) -> None:
        super().__init__(client, informers, **kwargs)
        self.accounts = tuple(accounts)
        self.namespaces = informers.get("namespaces")
        self.service_accounts = informers.get("serviceaccounts")
        self.namespaces.add_handlers(Handlers(
            on_add=lambda ns: self.enqueue(str(meta(ns).get("name"))),
            on_update=lambda _old, ns: self.enqueue(str(meta(ns).get("name")))))
        self.service_accounts.add_handlers(Handlers(
            on_delete=lambda sa: self.enqueue(str(meta(sa).get("namespace")))))
        self.synced_before_start = (self.namespaces, self.service_accounts)

    def start(self) -> None:
        self.ensure_existing()
        super().start()

    def ensure_existing(self) -> None:
        """The first sync, synchronous and live: every active namespace's accounts."""
        try:
            namespaces = self.client.list("namespaces").items
            have = {f"{meta(sa).get('namespace')}/{meta(sa).get('name')}"
                    for sa in self.client.list("serviceaccounts").items}
            for ns in namespaces:
                if namespace_active(ns):
                    self._ensure(str(meta(ns).get("name")), lambda key: key in have)
        except Exception as exc:  # the workers converge anyway
            log.warning("%s: first sync failed (%s); the workers will retry", self.name, exc)

    def reconcile(self, key: str) -> float | None:
        if not namespace_active(self.namespaces.get(key)):
            return None  # gone, or terminating: nothing new in it
        self._ensure(key, lambda k: self.service_accounts.get(k) is not None)
        return None

    def _ensure(self, namespace: str, exists: Callable[[str], bool]) -> None:
        for name in self.accounts:
            if exists(f"{namespace}/{name}"):
                continue
            try:
                self.client.create({"apiVersion": "v1", "kind": "ServiceAccount",
                                    "metadata": {"name": name, "namespace": namespace}},
                                   namespace=namespace)
                log.debug("%s: created %s/%s", self.name, namespace, name)
            except AlreadyExists:
                continue
            except (NotFound, Forbidden):
                # The namespace went away or began terminating meanwhile
                # (Kubernetes ignores NamespaceTerminating); anything else is a
                # real failure, retried.
                if self._namespace_live(namespace):
                    raise
                return

    def _namespace_live(self, namespace: str) -> bool:
        try:
            return namespace_active(self.client.get("namespaces", None, namespace))
        except NotFound:
            return False
