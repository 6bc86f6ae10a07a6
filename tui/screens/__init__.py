"""The dashboard's full-screen views and modal dialogs.

* :class:`LogsScreen`: a pod's container logs, streamed without blocking the UI.
* :class:`DescribeScreen`: ``kubectl describe`` text or the object's YAML.
* :class:`PortForwardScreen`: start, list and stop port-forwards to a pod.
* :class:`ConfirmDialog`, :class:`ScaleDialog`, :class:`ApplyDialog`: modal
  questions whose answer comes back through ``push_screen``'s callback (or
  ``push_screen_wait``).

Screens reach the cluster only through a client (the API), and do their
network I/O off the UI thread.
"""

from __future__ import annotations

from .describe import DescribeScreen, describe_texts
from .dialogs import ApplyDialog, ConfirmDialog, ManifestTree, ScaleDialog, parse_replicas
from .logs import LogSource, LogsScreen, default_container, pod_containers
from .portforward import PortForwardScreen, parse_ports

__all__ = [
    "ApplyDialog",
    "ConfirmDialog",
    "DescribeScreen",
    "LogSource",
    "LogsScreen",
    "ManifestTree",
    "PortForwardScreen",
    "ScaleDialog",
    "default_container",
    "describe_texts",
    "parse_ports",
    "parse_replicas",
    "pod_containers",
]
