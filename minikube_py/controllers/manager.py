"""The controller manager: every reconcile loop of ``kube-controller-manager``
that minikube-py runs, over one set of shared informers.

Contract: :meth:`ControllerManager.start` starts the informers and then each
controller (workers begin once their caches have synced); :meth:`stop` stops
the controllers first, then the informers, and is idempotent. Controllers talk
to the rest of the system only through the ``client`` they are given, so the
same manager runs in-process (a ``LocalClient``) or against a remote API.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..client.base import Client
from ..client.shared import SharedInformers
from .base import Controller
from .clusterroleaggregation import ClusterRoleAggregationController
from .clusterservices import ClusterService, ClusterServicesController
from .deployment import DeploymentController
from .endpoints import EndpointsController
from .endpointslice import EndpointSliceController
from .endpointslicemirroring import EndpointSliceMirroringController
from .garbagecollector import GarbageCollector
from .job import JobController
from .namespace import NamespaceController
from .nodelifecycle import DEFAULT_GRACE_PERIOD, DEFAULT_MONITOR_PERIOD, NodeLifecycleController
from .podgc import PodGC
from .replicaset import ReplicaSetController
from .rootcapublisher import RootCACertPublisher
from .serviceaccounts import ServiceAccountsController
from .servicelb import DEFAULT_POOL, ServiceLBController
from .ttlafterfinished import TTLAfterFinishedController

__all__ = ["ControllerManager", "ManagerOptions"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ManagerOptions:
    """The controller manager's flags that minikube-py exposes."""

    #: ``--node-monitor-grace-period``: seconds without a heartbeat before a node
    #: is Unknown (Kubernetes 1.32: 50 s).
    node_grace_period: float = DEFAULT_GRACE_PERIOD
    #: ``--node-monitor-period``: how often every node's health is re-checked.
    node_monitor_period: float = DEFAULT_MONITOR_PERIOD
    #: Workers per controller (``--concurrent-*-syncs``; small: two cores here).
    workers: int = 2
    #: Addresses LoadBalancer Services get (``--load-balancer-ips``).
    load_balancer_ips: tuple[str, ...] = DEFAULT_POOL
    #: The system Services (``kubernetes``, ``kube-dns``) and their endpoints.
    cluster_services: tuple[ClusterService, ...] = ()
    #: The cluster CA (PEM) the root-ca-cert-publisher puts in every namespace's
    #: ``kube-root-ca.crt`` (``--root-ca-file``); ``None``: that controller is off.
    root_ca: str | None = None


class ControllerManager:
    """Builds, starts and stops the controllers (see the module contract)."""

    def __init__(self, client: Client, *, options: ManagerOptions | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        opts = options or ManagerOptions()
        self.informers = SharedInformers(client)
        workers = opts.workers
        self.controllers: list[Controller] = [
            ReplicaSetController(client, self.informers, workers=workers, clock=clock),
            DeploymentController(client, self.informers, workers=workers, clock=clock),
            GarbageCollector(client, self.informers, workers=workers, clock=clock),
            NamespaceController(client, self.informers, workers=1, clock=clock),
            PodGC(client, self.informers, clock=clock),
            JobController(client, self.informers, workers=workers, clock=clock),
            TTLAfterFinishedController(client, self.informers, workers=1, clock=clock),
            NodeLifecycleController(client, self.informers, clock=clock,
                                    grace_period=opts.node_grace_period,
                                    monitor_period=opts.node_monitor_period),
            EndpointsController(client, self.informers, workers=workers, clock=clock),
            EndpointSliceController(client, self.informers, workers=workers, clock=clock),
            EndpointSliceMirroringController(client, self.informers, workers=1, clock=clock),
            ServiceLBController(client, self.informers, clock=clock,
                                pool=opts.load_balancer_ips),
            ClusterServicesController(client, self.informers, clock=clock,
                                      services=opts.cluster_services),
            ClusterRoleAggregationController(client, self.informers, clock=clock),
            ServiceAccountsController(client, self.informers, workers=1, clock=clock),
        ]
        if opts.root_ca is not None:
            self.controllers.append(RootCACertPublisher(client, self.informers, workers=1,
                                                        clock=clock, root_ca=opts.root_ca))
        self._started = False

    def get(self, kind: type[Controller]) -> Controller:
        """The running controller of that class (tests and the dashboard look in)."""
        for controller in self.controllers:
            if isinstance(controller, kind):
                return controller
        raise KeyError(kind.__name__)

    def start(self) -> None:
        self.informers.start()
        for controller in self.controllers:
            controller.start()
        self._started = True
        log.info("controllers started: %s", ", ".join(c.name for c in self.controllers))

    def wait_synced(self, timeout: float | None = None) -> bool:
        return self.informers.wait_synced(timeout)

    def stop(self) -> None:
        if not self._started:
            return
        self._started = False
        for controller in self.controllers:
            try:
                controller.stop()
            except Exception:  # one stuck controller must not keep the others running
                log.exception("stopping %s failed", controller.name)
        self.informers.stop()
