"""The root CA certificate publisher: a ConfigMap ``kube-root-ca.crt`` in every
namespace, as Kubernetes' ``pkg/controller/certificates/rootcacertpublisher``
(v1.32).

Contract:

* The ConfigMap holds ``data: {ca.crt: <the cluster CA, PEM>}`` and the
  annotation ``kubernetes.io/description`` with Kubernetes' text; pods read it
  through their ``kube-api-access-*`` volume to trust the API server.
* Keys are namespace names: a namespace added, or updated while ``Active``;
  the namespace of a ``kube-root-ca.crt`` updated or deleted.
* ``reconcile(namespace)``: missing (in the cache) -> create it; a namespace
  that is gone or terminating makes that a no-op, as Kubernetes ignores
  NotFound and NamespaceTerminating; ``AlreadyExists`` looks again shortly
  (the cache lagging, or a user's ConfigMap to correct). Present -> when its ``data`` differs
  from the wanted (other keys included) or the annotation is empty, ``data``
  is replaced and the annotation set (a copy, updated with compare-and-swap;
  ``binaryData`` and other annotations are left alone, as Kubernetes does).
* :meth:`start` first creates the missing ConfigMaps of existing namespaces,
  synchronously through the client (pods started right after the control
  plane find theirs); a failure there is logged and left to the workers.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Any, Final

from ..api.access import meta
from ..api.errors import AlreadyExists, Forbidden, NotFound
from ..api.jsoncopy import deep_copy
from ..client.base import Client
from ..client.informer import Handlers
from ..client.shared import SharedInformers
from .base import Controller
from .serviceaccounts import namespace_active

__all__ = ["CONFIGMAP_NAME", "DESCRIPTION", "DESCRIPTION_ANNOTATION", "RootCACertPublisher"]

log = logging.getLogger(__name__)

#: ``RootCACertConfigMapName``.
CONFIGMAP_NAME: Final = "kube-root-ca.crt"
DESCRIPTION_ANNOTATION: Final = "kubernetes.io/description"
DESCRIPTION: Final = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters.")


class RootCACertPublisher(Controller):
    """Keeps ``kube-root-ca.crt`` in every namespace (module contract)."""

    name = "root-ca-cert-publisher"

    def __init__(self, client: Client, informers: SharedInformers, *, root_ca: str,
                 **kwargs: Any) -> None:
        super().__init__(client, informers, **kwargs)
        self.root_ca = root_ca
        self.namespaces = informers.get("namespaces")
        self.configmaps = informers.get("configmaps")
        self.namespaces.add_handlers(Handlers(
            on_add=lambda ns: self.enqueue(str(meta(ns).get("name"))),
            on_update=self._namespace_updated))
        self.configmaps.add_handlers(Handlers(
            on_update=lambda _old, cm: self._configmap_changed(cm),
            on_delete=self._configmap_changed))
        # Kubernetes waits for the ConfigMap cache only; the namespace one too
        # here, since reconcile reads it to tell a terminating namespace.
        self.synced_before_start = (self.configmaps, self.namespaces)

    def _namespace_updated(self, _old: Mapping[str, Any], ns: Mapping[str, Any]) -> None:
        if (ns.get("status") or {}).get("phase") == "Active":
            self.enqueue(str(meta(ns).get("name")))

    def _configmap_changed(self, cm: Mapping[str, Any]) -> None:
        if meta(cm).get("name") == CONFIGMAP_NAME:
            self.enqueue(str(meta(cm).get("namespace")))

    # ------------------------------------------------------------------ syncing

    def wanted(self) -> dict[str, Any]:
        """The ConfigMap as it is created."""
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": CONFIGMAP_NAME,
                             "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
                "data": {"ca.crt": self.root_ca}}

    def start(self) -> None:
        self.ensure_existing()
        super().start()

    def ensure_existing(self) -> None:
        """The first sync, synchronous and live: create what is missing."""
        try:
            have = {meta(cm).get("namespace")
                    for cm in self.client.list("configmaps").items
                    if meta(cm).get("name") == CONFIGMAP_NAME}
            for ns in self.client.list("namespaces").items:
                name = str(meta(ns).get("name"))
                if namespace_active(ns) and name not in have:
                    with contextlib.suppress(AlreadyExists):  # the workers check it
                        self._create(name)
        except Exception as exc:  # the workers converge anyway
            log.warning("%s: first sync failed (%s); the workers will retry", self.name, exc)

    def reconcile(self, key: str) -> float | None:
        cm = self.configmaps.get(f"{key}/{CONFIGMAP_NAME}")
        if cm is None:
            try:
                self._create(key)
            except AlreadyExists:
                # Not in the cache yet (ours, or a user's made just before):
                # look again once it is, to check its content.
                return 0.05
            return None
        data = {"ca.crt": self.root_ca}
        annotations = meta(cm).get("annotations") or {}
        if cm.get("data") == data and annotations.get(DESCRIPTION_ANNOTATION):
            return None
        updated = deep_copy(dict(cm))  # never the cache's own object
        updated["data"] = data
        updated["metadata"]["annotations"] = {**annotations, DESCRIPTION_ANNOTATION: DESCRIPTION}
        self.client.update(updated)  # a Conflict is retried with the fresh object
        return None

    def _create(self, namespace: str) -> None:
        """Create the ConfigMap; ``AlreadyExists`` is the caller's."""
        try:
            self.client.create(self.wanted(), namespace=namespace)
        except (NotFound, Forbidden):
            # Don't retry a create in a namespace that is gone or terminating.
            if not self._namespace_terminating_or_gone(namespace):
                raise

    def _namespace_terminating_or_gone(self, namespace: str) -> bool:
        try:
            ns = self.client.get("namespaces", None, namespace)
        except NotFound:
            return True
        return bool(meta(ns).get("deletionTimestamp")) or \
            (ns.get("status") or {}).get("phase") == "Terminating"
