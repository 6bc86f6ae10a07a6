"""The scheduling brain: kube-scheduler v1.32's default profile, pure and explainable.

Pieces, bottom up:

* :mod:`.requests` -- pod requests as Kubernetes computes them (init
  containers, sidecars, overhead; non-zero defaults for scoring).
* :mod:`.podinfo` -- a pod parsed once (requests, tolerations, affinity terms,
  host ports, images).
* :mod:`.snapshot` -- :class:`Snapshot`, the incremental cluster state as
  NumPy arrays; the scheduling loop feeds it events and assumes pods into it.
* :mod:`.status` -- verdicts as values (:class:`Status`, codes, reason ids).
* :mod:`.framework` -- extension-point protocols, :class:`Profile`,
  :class:`Framework` and its ``schedule(pod, snapshot, rng=...)`` cycle.
* :mod:`.plugins` -- one module per in-tree plugin of the default profile.
* :mod:`.decision` -- :class:`Decision` (the explainable record of one
  attempt) and :class:`DecisionLog`.
* :mod:`.config` -- ``load_profile`` from a KubeSchedulerConfiguration file.

Everything here is synchronous and side-effect free with respect to the API:
no threads, no clients. The scheduling loop (queue, binding, events) lives
elsewhere and calls :meth:`Framework.schedule`, then :meth:`Snapshot.assume`
and binds, or records the failure and handles a preemption nomination.
Scores, messages and tie-breaking follow kube-scheduler exactly; the few
differences are listed in the modules that have them.
"""

from __future__ import annotations

from .decision import Decision, DecisionLog, Preemption, Victim
from .framework import Framework, Profile, ScheduleResult, default_profile
from .podinfo import PodInfo
from .snapshot import Snapshot
from .status import Code, Status

__all__ = [
    "Code", "Decision", "DecisionLog", "Framework", "PodInfo", "Preemption", "Profile",
    "ScheduleResult", "Snapshot", "Status", "Victim", "default_profile",
]
