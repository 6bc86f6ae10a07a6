"""``ValidatePodStatusUpdate``: what a write to ``pods/status`` is checked for.

Kubernetes' pod status strategy keeps the stored spec and validates the
status write on its own terms, not the whole pod again (the spec was
validated when it was written, and a status write cannot change it):

* the metadata update rules (``ValidateObjectMetaUpdate``);
* ``spec.nodeName`` may not change (``status.nodeName: Forbidden: may not be
  changed directly``; the registry keeps the stored spec, so this guards
  callers that would not);
* a new, non-empty ``status.nominatedNodeName`` must be a valid node name
  (a DNS subdomain);
* a container that terminated and may not restart stays terminated
  (``ValidateContainerStateTransition``): with ``restartPolicy`` Never, or
  OnFailure after exit code 0, a status that shows it not terminated is
  ``Forbidden: may not be transitioned to non-terminated state``. Init
  containers likewise, except restartable ones (sidecars, their own
  ``restartPolicy: Always``); ephemeral containers always (the kubelet never
  restarts them).

Not checked here (Kubernetes checks them; a status written by anything but a
kubelet is not refused for them): ``status.conditions``, ``podIPs`` and
``hostIPs`` (valid addresses, one of each family), ``resourceClaimStatuses``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import FieldError, FieldPath, forbidden, invalid
from .names import name_is_dns_subdomain
from .validation_meta import as_list, as_map, as_str, validate_object_meta_update

__all__ = ["validate_pod_status_update"]

_TRANSITION = "may not be transitioned to non-terminated state"


def validate_pod_status_update(new: Mapping[str, Any], old: Mapping[str, Any]
                               ) -> list[FieldError]:
    """The field errors of replacing ``old``'s status with ``new``'s (module
    docstring)."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    status_path = FieldPath.root("status")
    new_spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    if as_str(new_spec.get("nodeName")) != as_str(old_spec.get("nodeName")):
        errs.append(forbidden(status_path.child("nodeName"), "may not be changed directly"))
    status, old_status = as_map(new.get("status")), as_map(old.get("status"))
    nominated = as_str(status.get("nominatedNodeName"))
    if nominated and nominated != as_str(old_status.get("nominatedNodeName")):
        errs.extend(invalid(status_path.child("nominatedNodeName"), nominated, msg)
                    for msg in name_is_dns_subdomain(nominated, False))
    policy = as_str(old_spec.get("restartPolicy"))
    sidecars = {as_str(as_map(c).get("name")) for c in as_list(old_spec.get("initContainers"))
                if as_map(c).get("restartPolicy") == "Always"}
    for key, container_policy, skip in (("containerStatuses", policy, frozenset[str]()),
                                        ("initContainerStatuses", policy, sidecars),
                                        ("ephemeralContainerStatuses", "Never", frozenset())):
        errs.extend(_transitions(status.get(key), old_status.get(key),
                                 status_path.child(key), container_policy, skip))
    return errs


def _transitions(new_statuses: Any, old_statuses: Any, path: FieldPath, policy: str,
                 restartable: set[str] | frozenset[str]) -> list[FieldError]:
    """``ValidateContainerStateTransition`` (and its init-container form, which
    lets restartable init containers leave the terminated state)."""
    if policy == "Always":
        return []
    errs: list[FieldError] = []
    news = [as_map(s) for s in as_list(new_statuses)]
    for i, raw in enumerate(as_list(old_statuses)):
        old_status = as_map(raw)
        terminated = as_map(old_status.get("state")).get("terminated")
        if terminated is None:
            continue
        if policy == "OnFailure" and as_map(terminated).get("exitCode") not in (0, None):
            continue
        name = as_str(old_status.get("name"))
        if name in restartable:
            continue
        for new_status in news:
            if as_str(new_status.get("name")) == name and \
                    as_map(new_status.get("state")).get("terminated") is None:
                errs.append(forbidden(path.index(i).child("state"), _TRANSITION))
    return errs
