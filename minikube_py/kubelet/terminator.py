"""Off-worker teardown: graceful stops run on their own threads.

Stopping a container may take its whole grace period (SIGTERM, wait, SIGKILL:
30 s by default), and a pod's preStop hooks come first. The kubelet's pod
workers are few and shared, so a worker that waited for that would hold up
every other pod's sync. :class:`Terminator` runs such jobs instead, one
thread per job (as Kubernetes' pod workers use one goroutine per pod):

* :meth:`~Terminator.submit` starts ``fn`` on a new thread unless a job with
  the same key is still running (so a pod is torn down once, however often
  it is synced meanwhile) and returns whether it started one.
* :meth:`~Terminator.busy` tells whether a key's job runs.
* :meth:`~Terminator.stop` refuses new jobs and joins the running ones
  within a timeout (a job blocked in the runtime is left to finish: its
  thread is a daemon).
* :func:`parallel` runs a few callables at once and waits for all (every
  container of a pod is stopped concurrently, as Kubernetes does).

A job's exception is logged, never raised: teardown is retried by the next
sync, which is level-triggered.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from ..runtime.base import RuntimeClosing

__all__ = ["Terminator", "parallel"]

log = logging.getLogger(__name__)


def parallel(jobs: Sequence[Callable[[], None]], *, name: str = "parallel") -> None:
    """Run ``jobs`` concurrently and wait for all of them (errors are logged).

    Raises :class:`RuntimeClosing` if any job was abandoned because the runtime
    is shutting down, so the teardown stops there instead of carrying on as if
    the containers were stopped.
    """
    closing: list[RuntimeClosing] = []
    if len(jobs) == 1:
        _guarded(jobs[0], name, closing)
    else:
        threads = [threading.Thread(target=_guarded, args=(job, name, closing), daemon=True,
                                    name=f"{name}-{i}") for i, job in enumerate(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if closing:
        raise closing[0]


def _guarded(job: Callable[[], None], name: str, closing: list[RuntimeClosing]) -> None:
    try:
        job()
    except RuntimeClosing as exc:
        closing.append(exc)
    except Exception:  # one failing stop must not hide the others
        log.exception("%s: job failed", name)


class Terminator:
    """Runs teardown jobs on dedicated threads (see the module contract)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._jobs: dict[str, threading.Thread] = {}
        self._stopped = False

    def submit(self, key: str, fn: Callable[[], None]) -> bool:
        with self._lock:
            if self._stopped or key in self._jobs:
                return False
            t = threading.Thread(target=self._run, args=(key, fn), daemon=True,
                                 name=f"{self.name}-terminate-{key}")
            self._jobs[key] = t
        t.start()
        return True

    def _run(self, key: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except RuntimeClosing as exc:  # shutting down: the next start finishes it
            log.info("%s: teardown %s left for the next start (%s)", self.name, key, exc)
        except Exception:  # the next sync retries
            log.exception("%s: teardown %s failed", self.name, key)
        finally:
            with self._lock:
                self._jobs.pop(key, None)

    def busy(self, key: str) -> bool:
        with self._lock:
            return key in self._jobs

    def running(self) -> list[str]:
        with self._lock:
            return sorted(self._jobs)

    def stop(self, timeout: float = 5.0) -> None:
        with self._lock:
            self._stopped = True
            threads = list(self._jobs.values())
        deadline = time.monotonic() + timeout
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
