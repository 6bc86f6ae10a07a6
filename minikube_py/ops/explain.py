"""``explain``: the scheduler's decision records for a pod, read through the API.

The kind explained is the one the scheduler binds (the resource serving the
``binding`` subresource: pods). The records come from the control plane's
``/debug/scheduler/decisions/NAMESPACE/NAME``; the pod is read first, so a pod
that does not exist is Kubernetes' NotFound.
"""

from __future__ import annotations

import json
from typing import Any

from ..api import kinds
from ..api.kinds import KindInfo
from ..client.base import Object
from ..client.http import HTTPClient

__all__ = ["decisions", "explains"]


def explains(info: KindInfo) -> bool:
    """Whether ``explain`` works on ``info``'s kind (what the scheduler binds)."""
    return info == kinds.serving("binding")


def decisions(client: HTTPClient, namespace: str,
              name: str) -> tuple[Object, list[dict[str, Any]]]:
    """The pod and its decision records, oldest first."""
    pod = client.get(kinds.serving("binding").plural, namespace, name)
    _, body, _ = client.request("GET", f"/debug/scheduler/decisions/{namespace}/{name}")
    records: list[dict[str, Any]] = json.loads(body)["decisions"]
    return pod, records
