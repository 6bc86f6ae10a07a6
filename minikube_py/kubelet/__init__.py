"""The per-node agent: registers its Node, runs the pods bound to it through a
:class:`~minikube_py.runtime.ContainerRuntime`, and reports their status.

* :mod:`.kubelet` -- :class:`Kubelet`: threads, pod watch + cache, PLEG
  (runtime events and a cheap relist), work queue, logs.
* :mod:`.sync` -- one pod's reconcile (admission, sandbox, images, init and
  app containers, restarts with back-off, liveness kills, graceful termination).
* :mod:`.admission` -- does a pod fit the node (OutOfcpu, OutOfmemory, ...).
* :mod:`.backoff` -- CrashLoopBackOff delays per container.
* :mod:`.probes` -- liveness, readiness and startup probe workers.
* :mod:`.terminator` -- teardown on its own threads (grace periods, preStop).
* :mod:`.status` -- the pod status as a pure function of spec + runtime state.
* :mod:`.pull` -- image pulls per imagePullPolicy, with their events.
* :mod:`.containers` -- pod spec -> runtime sandbox/container configs (env,
  downward API, ``$(VAR)`` expansion).
* :mod:`.node_status` -- Node registration, heartbeat, usage annotations.
* :mod:`.node_cgroup` -- the node's cgroup, limited to its allocatable.
* :mod:`.pleg` -- the runtime relist's fingerprints.

This package talks to the API only through :class:`~minikube_py.client.base.Client`
and never imports the store, the scheduler or the controllers.
"""

from __future__ import annotations

from .admission import Admitter, Rejection
from .backoff import RestartBackoff
from .kubelet import Kubelet
from .node_cgroup import NodeCgroup
from .node_status import NodeStatusReporter
from .probes import ProbeManager
from .status import pod_status
from .sync import PodSyncer
from .terminator import Terminator

__all__ = ["Admitter", "Kubelet", "NodeCgroup", "NodeStatusReporter", "PodSyncer",
           "ProbeManager", "Rejection", "RestartBackoff", "Terminator", "pod_status"]
