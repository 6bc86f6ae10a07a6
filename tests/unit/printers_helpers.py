"""Shared helpers for the server-side Table printing tests
(``test_printers_*.py``): a fixed NOW, timestamps relative to it, the cells of
a printed row (:func:`visible` for kubectl's default columns, :func:`wide` for
all), and v1 Pod / ContainerStatus builders.

The Go tests call the printers with ``Wide: false`` or ``Wide: true``. The API
server always prints wide and kubectl hides priority-1 columns, so a non-wide
Go expectation is compared with the priority-0 cells (:func:`visible`) and a
wide one with all cells.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from minikube_py.api.printers import table

NOW = 1_700_000_000.0
MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0


def ts(offset: float) -> str:
    """The RFC 3339 timestamp ``offset`` seconds from NOW (negative = past)."""
    return datetime.fromtimestamp(NOW + offset, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rows(kind: str, objects: list[dict[str, Any]], **kw: Any) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = table(kind, objects, now=NOW, **kw)["rows"]
    return result


def visible(kind: str, obj: dict[str, Any]) -> list[Any]:
    """The cells kubectl shows without ``-o wide`` (priority-0 columns)."""
    t = table(kind, [obj], now=NOW)
    cells = t["rows"][0]["cells"]
    return [c for c, col in zip(cells, t["columnDefinitions"], strict=True)
            if col["priority"] == 0]


def wide(kind: str, obj: dict[str, Any]) -> list[Any]:
    cells: list[Any] = table(kind, [obj], now=NOW)["rows"][0]["cells"]
    return cells

RUNNING: dict[str, Any] = {"running": {}}


def cs(*, ready: bool = False, restarts: int = 0, state: dict[str, Any] | None = None,
       finished: float | None = None, name: str = "", started: bool | None = None,
       ) -> dict[str, Any]:
    """A v1 ContainerStatus; ``finished`` is lastState.terminated.finishedAt
    as an offset from NOW."""
    status: dict[str, Any] = {"name": name, "ready": ready, "restartCount": restarts,
                              "state": state or {}}
    if finished is not None:
        status["lastState"] = {"terminated": {"finishedAt": ts(finished)}}
    if started is not None:
        status["started"] = started
    return status


def pod(name: str, *, containers: int = 0, init: int | list[dict[str, Any]] = 0,
        phase: str = "", reason: str = "", statuses: list[dict[str, Any]] | None = None,
        init_statuses: list[dict[str, Any]] | None = None,
        conditions: list[dict[str, Any]] | None = None, deleted: bool = False,
        **extra_status: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": ""} for _ in range(containers)]}
    if isinstance(init, int):
        if init:
            spec["initContainers"] = [{"name": ""} for _ in range(init)]
    else:
        spec["initContainers"] = init
    status: dict[str, Any] = {"phase": phase}
    if reason:
        status["reason"] = reason
    if statuses is not None:
        status["containerStatuses"] = statuses
    if init_statuses is not None:
        status["initContainerStatuses"] = init_statuses
    if conditions is not None:
        status["conditions"] = conditions
    status.update(extra_status)
    metadata: dict[str, Any] = {"name": name}
    if deleted:
        metadata["deletionTimestamp"] = ts(-10)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec,
            "status": status}


SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
              "message": "The pod has completed successfully."}]
