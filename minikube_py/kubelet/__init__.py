"""The per-node agent: registers its Node, runs the pods bound to it through a
:class:`~minikube_py.runtime.ContainerRuntime`, and reports their status.

* :mod:`.kubelet` -- :class:`Kubelet`: threads, pod watch + cache, work queue, logs.
* :mod:`.sync` -- one pod's reconcile (sandbox, images, init and app
  containers, restarts, graceful termination).
* :mod:`.status` -- the pod status as a pure function of spec + runtime state.
* :mod:`.containers` -- pod spec -> runtime sandbox/container configs.
* :mod:`.node_status` -- Node registration and heartbeat.

This package talks to the API only through :class:`~minikube_py.client.base.Client`
and never imports the store, the scheduler or the controllers.
"""

from __future__ import annotations

from .kubelet import Kubelet
from .node_status import NodeStatusReporter
from .status import pod_status
from .sync import PodSyncer

__all__ = ["Kubelet", "NodeStatusReporter", "PodSyncer", "pod_status"]
