"""When a pod's next periodic resync falls, counted from the sync just done.

:func:`resync_delay` gives the seconds from ``now`` (the monotonic clock, the
work queue's) to a pod's next resync:

* **without jitter** (Podman nodes): exactly ``interval`` later;
* **with jitter** ``j`` (hollow nodes): on the pod's own **slot**, the first
  instant at least ``interval`` later that is ``offset + k * period`` for a
  whole ``k``, where ``period = interval * (1 + j / 2)`` and ``offset`` comes
  from a hash of the pod's key, spread evenly over one period. A pod left
  alone resyncs once a period, every period; a pod synced for an event
  resyncs at least ``interval`` and less than ``interval + period`` later.

Why slots and not Kubernetes' draw: its pod workers draw each resync at
random in ``[interval, interval * (1 + j)]`` (``wait.Jitter`` with
``workerResyncIntervalJitterFactor`` 0.5, pkg/kubelet/pod_workers.go). The
mean period is the same, ``interval * (1 + j / 2)``, but pods synced within
one minute (100,000 pods created in a burst) draw their first resyncs within
``interval * j`` of one another: five minutes of resyncs at two and a half
times the rate that follows (8-10 % of a core at 100,000 hollow pods,
bench/RESULTS.md, twenty-seventh session). On slots, the pods of a burst
resync spread over a whole period from the first round, at the steady rate.

``granularity`` (hollow nodes: the pool's timer tick) puts the resync off to
the next multiple of that many seconds on the monotonic clock, less than one
step later, so the resyncs due within one step run back to back.

The hash is Python's string hash: fixed within the process, which is all
that is needed (a restarted kubelet syncs every pod at once and finds its
slots again from there).
"""

from __future__ import annotations

from .pleg import next_tick

__all__ = ["resync_delay", "resync_period"]

_HASH_SPAN = float(1 << 32)


def resync_period(interval: float, jitter: float) -> float:
    """The seconds between two resyncs of a pod nothing else syncs: the mean
    of Kubernetes' jittered draw, ``interval * (1 + jitter / 2)``."""
    return interval * (1.0 + jitter / 2.0)


def resync_delay(key: str, now: float, *, interval: float, jitter: float = 0.0,
                 granularity: float = 0.0) -> float:
    """Seconds from ``now`` to the next resync of the pod ``key`` (see the
    module contract). ``interval`` > 0; ``jitter`` and ``granularity`` >= 0."""
    delay = interval
    if jitter > 0:
        period = resync_period(interval, jitter)
        offset = (hash(key) & 0xFFFFFFFF) / _HASH_SPAN * period
        # The first slot at or after now + interval: slots are offset + k * period.
        delay += (offset - (now + interval)) % period
    if granularity > 0:
        delay += next_tick(granularity, now + delay)
    return delay
