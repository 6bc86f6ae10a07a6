"""Shared helpers for the ``minikube-py describe`` golden tests
(``test_describe_*.py``), modelled on kubectl's describe_test.go and on real
``kubectl describe`` output.

Golden strings are written with a ``|`` closing every line so that kubectl's
trailing spaces (``Status:       ``, ``Ready   True ``) stay visible.
"""

from __future__ import annotations

import textwrap
from datetime import UTC
from typing import Any

from minikube_py.api.describe import describe

NOW = 1714564800.0  # 2024-05-01T12:00:00Z


def golden(text: str) -> str:
    lines = textwrap.dedent(text).strip("\n").split("\n")
    assert all(line.endswith("|") for line in lines), "every golden line ends with |"
    return "\n".join(line[:-1] for line in lines) + "\n"


def ago(seconds: float) -> str:
    """An RFC3339 timestamp ``seconds`` before NOW (microsecond precision)."""
    from datetime import datetime

    dt = datetime.fromtimestamp(NOW - seconds, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def run(kind: str, obj: dict[str, Any], **kwargs: Any) -> str:
    kwargs.setdefault("tz", UTC)
    return describe(kind, obj, now=NOW, **kwargs)


POD_EVENTS: list[dict[str, Any]] = [
    {"type": "Normal", "reason": "Pulled", "source": {"component": "kubelet"},
     "message": 'Container image "nginx:1.25" already present on machine',
     "involvedObject": {"fieldPath": "spec.containers{nginx}"},
     "firstTimestamp": "2024-05-01T11:50:04Z", "lastTimestamp": "2024-05-01T11:58:00Z",
     "count": 3},
    {"type": "Normal", "reason": "Scheduled", "source": {"component": "default-scheduler"},
     "message": "Successfully assigned default/nginx-7c5ddbdf54-x8f9k to minikube",
     "firstTimestamp": "2024-05-01T11:50:00Z", "lastTimestamp": "2024-05-01T11:50:00Z",
     "count": 1},
]
