"""The generic PLEG's relist: one cheap look at the runtime, compared with the last.

The runtime's event stream tells the kubelet about changes at once, but a
stream can break (the runtime restarted, a subscriber fell behind). Like
Kubernetes' generic PLEG, the kubelet therefore also relists the runtime
about once a second. To keep that cheap:

* :func:`runtime_snapshot` makes exactly two runtime calls (sandboxes with
  this node's label, then all containers) and reduces them to one
  fingerprint per pod key (``namespace/name``): the ids and states of its
  sandboxes and containers.
* :func:`changed_keys` names the pods whose fingerprint differs between two
  snapshots (appeared, vanished or changed), so only those are enqueued.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..runtime.base import LABEL_NAME, LABEL_NAMESPACE, LABEL_NODE, ContainerRuntime

__all__ = ["Snapshot", "changed_keys", "runtime_snapshot"]

#: namespace/name -> sorted (kind, id, state) of its sandboxes and containers.
Snapshot = dict[str, tuple[tuple[str, str, str], ...]]


def runtime_snapshot(runtime: ContainerRuntime, node: str) -> Snapshot:
    """The fingerprint of every pod the runtime runs for ``node``."""
    keys: dict[str, str] = {}
    parts: dict[str, list[tuple[str, str, str]]] = {}
    for sb in runtime.list_sandboxes({LABEL_NODE: node}):
        key = f"{sb.labels.get(LABEL_NAMESPACE, '')}/{sb.labels.get(LABEL_NAME, '')}"
        keys[sb.id] = key
        parts.setdefault(key, []).append(("sandbox", sb.id, f"{sb.state} {sb.ip}"))
    for c in runtime.list_containers():
        owner = keys.get(c.sandbox_id)
        if owner is not None:
            parts[owner].append(("container", c.id, c.state))
    return {key: tuple(sorted(items)) for key, items in parts.items()}


def changed_keys(before: Mapping[str, object], after: Mapping[str, object]) -> set[str]:
    """Keys that appeared, vanished or changed between two snapshots."""
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
