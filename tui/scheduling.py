"""The scheduler's debug endpoints, read over the API, as typed values.

``GET /debug/scheduler/queue`` gives the scheduling queue (active, backoff,
unschedulable, in flight) and ``GET /debug/scheduler/decisions/NS/NAME`` a
pod's remembered decision records (see
:meth:`minikube_py.scheduler.decision.Decision.to_dict`). Both are fetched on
demand (a view being shown, a pod being selected, pods changing), never in a
tight loop. Errors are the client's: :class:`~minikube_py.api.errors.StatusError`
or :class:`OSError`; callers show them as notifications.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from .model import DashboardClient

#: The queue sections, in the order the view shows them.
SECTIONS: Final = ("active", "backoff", "unschedulable", "inFlight")


@dataclass(frozen=True, slots=True)
class QueuedPod:
    """One pod waiting in (or being taken from) the scheduling queue.

    ``retry_at`` is the absolute time (the fetch time plus the server's
    ``retryInSeconds``) at which a backing-off pod may be tried again.
    """

    section: str
    pod: str
    priority: int
    attempts: int
    last_failure: str
    retry_at: float


@dataclass(frozen=True, slots=True)
class QueueSnapshot:
    """The queue as fetched at ``fetched_at`` (seconds since the epoch)."""

    pods: tuple[QueuedPod, ...]
    fetched_at: float

    def count(self, section: str) -> int:
        return sum(1 for p in self.pods if p.section == section)

    @property
    def empty(self) -> bool:
        return not self.pods


def parse_queue(data: Any, *, now: float) -> QueueSnapshot:
    """The snapshot of a ``/debug/scheduler/queue`` answer (missing parts are empty)."""
    pods: list[QueuedPod] = []
    if isinstance(data, dict):
        for section in SECTIONS:
            for entry in data.get(section) or []:
                if not isinstance(entry, dict):
                    continue
                pods.append(QueuedPod(
                    section=section, pod=str(entry.get("pod", "")),
                    priority=int(entry.get("priority") or 0),
                    attempts=int(entry.get("attempts") or 0),
                    last_failure=str(entry.get("lastFailure") or ""),
                    retry_at=now + float(entry.get("retryInSeconds") or 0.0)))
    return QueueSnapshot(tuple(pods), now)


def fetch_queue(client: DashboardClient, *, now: float) -> QueueSnapshot:
    """The scheduling queue now (one request)."""
    _, body, _ = client.request("GET", "/debug/scheduler/queue")
    return parse_queue(json.loads(body), now=now)


def fetch_decisions(client: DashboardClient, namespace: str, name: str) -> list[dict[str, Any]]:
    """The pod's remembered decision records, oldest first (one request)."""
    path = f"/debug/scheduler/decisions/{quote(namespace, safe='')}/{quote(name, safe='')}"
    _, body, _ = client.request("GET", path)
    records = json.loads(body).get("decisions") or []
    return [r for r in records if isinstance(r, dict)]
