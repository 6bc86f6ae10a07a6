"""Kubernetes' ``DefaultTolerationSeconds`` admission plugin.

A pod created or updated (not through a subresource) that does not already
tolerate ``node.kubernetes.io/not-ready:NoExecute`` (resp. ``unreachable``) -
a toleration with that key or an empty key, and effect ``NoExecute`` or empty
- gets ``{key, operator: Exists, effect: NoExecute, tolerationSeconds: N}``
appended, ``N`` being the configured seconds (300, the plugin's default;
``None`` turns the plugin off). Pod templates are left alone.
"""

from __future__ import annotations

from .storage import Object

#: The taints every pod tolerates for a while.
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
#: The plugin's ``--default-not-ready-toleration-seconds`` / ``-unreachable-`` default.
DEFAULT_TOLERATION_SECONDS = 300


def admit(pod: Object, seconds: int | None) -> None:
    """Append the missing default tolerations to ``pod`` (module docstring)."""
    spec = pod.get("spec")
    if seconds is None or not isinstance(spec, dict):
        return
    tolerations = spec.get("tolerations")
    existing = [t for t in tolerations if isinstance(t, dict)] \
        if isinstance(tolerations, list) else []

    def tolerated(key: str) -> bool:
        return any(t.get("key") in (key, "", None) and t.get("effect") in ("NoExecute", "", None)
                   for t in existing)

    added = [{"key": key, "operator": "Exists", "effect": "NoExecute",
              "tolerationSeconds": seconds}
             for key in (NOT_READY_TAINT, UNREACHABLE_TAINT) if not tolerated(key)]
    if added:
        spec["tolerations"] = [*(tolerations if isinstance(tolerations, list) else []), *added]
