"""Kubernetes' ``Priority`` admission plugin, and the built-in classes.

* A pod created with ``spec.priorityClassName`` gets that class's ``value`` and
  ``preemptionPolicy``; a class that does not exist is ``Forbidden``. A pod
  naming no class gets the global-default class (name included) when there is
  one, else priority ``0`` and ``PreemptLowerPriority``. A ``priority`` or
  ``preemptionPolicy`` given in the pod that differs from the computed one is
  ``Forbidden``. On update a pod that omits them keeps the stored ones.
  Pod templates (Deployments, ReplicaSets) are left alone, as in Kubernetes.
* Only one PriorityClass may be ``globalDefault`` (a second is ``Forbidden``);
  the built-in ``system-node-critical`` / ``system-cluster-critical`` classes
  are created by :func:`ensure_system_classes` and cannot be deleted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..api import kinds
from ..api.errors import AlreadyExists, Forbidden, NotFound
from ..api.validation_scheduling import (
    DEFAULT_PRIORITY,
    SYSTEM_PRIORITY_CLASSES,
    system_priority_class,
)
from .storage import Create, Object, Storage

PODS = "pods"
CLASSES = "priorityclasses"


def _forbidden(resource: str, name: str, why: str) -> Forbidden:
    """``apierrors.NewForbidden``: ``pods "web" is forbidden: <why>``."""
    info = kinds.by_plural(resource)
    return Forbidden.of(info.plural, name, why, group=info.group)


def _value(pc: Mapping[str, Any]) -> int:
    value = pc.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def default_class(storage: Storage) -> Object | None:
    """The global-default PriorityClass; should several exist (a race), the
    one with the lowest value, as the Priority plugin picks."""
    found: Object | None = None
    for pc in storage.list(CLASSES).items:
        if pc.get("globalDefault") is True and (found is None or _value(pc) < _value(found)):
            found = pc
    return found


class DefaultClass:
    """:func:`default_class`, listed again only after a PriorityClass changed
    (as the plugin reads them from an informer's lister, not from storage: every
    pod create would otherwise list the classes under the store's lock). Safe
    from any thread; what it returns is shared: read it, never change it."""

    def __init__(self) -> None:
        # (changes seen, result) in one attribute: replaced, never half-updated.
        self._cached: tuple[int, Object | None] = (-1, None)

    def __call__(self, storage: Storage) -> Object | None:
        seen = storage.changes(CLASSES)
        cached = self._cached
        if cached[0] == seen:
            return cached[1]
        found = default_class(storage)
        self._cached = (seen, found)
        return found


def admit_pod(storage: Storage, pod: Object, name: str,
              find_default: Callable[[Storage], Object | None] = default_class) -> None:
    """The plugin's ``Admit`` for a pod being created (module docstring);
    ``name`` names the pod in errors (its generateName before one is made);
    ``find_default`` finds the global-default class (:class:`DefaultClass`
    caches it)."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return
    class_name = spec.get("priorityClassName") or ""
    policy: Any
    if not class_name:
        default = find_default(storage)
        if default is None:
            priority, policy = DEFAULT_PRIORITY, "PreemptLowerPriority"
        else:
            spec["priorityClassName"] = default["metadata"]["name"]
            priority, policy = _value(default), default.get("preemptionPolicy")
    else:
        try:
            pc = storage.get_shared(CLASSES, None, str(class_name))  # read only
        except NotFound:
            raise _forbidden(PODS, name, f"no PriorityClass with name {class_name} was "
                             "found") from None
        priority, policy = _value(pc), pc.get("preemptionPolicy")
    given = spec.get("priority")
    if given is not None and given != priority:
        raise _forbidden(PODS, name, f"the integer value of priority ({given}) must not be "
                         f"provided in pod spec; priority admission controller computed "
                         f"{priority} from the given PriorityClass name")
    spec["priority"] = priority
    if policy is not None:
        given_policy = spec.get("preemptionPolicy")
        if given_policy is not None and given_policy != policy:
            raise _forbidden(PODS, name, f"the string value of PreemptionPolicy "
                             f"({given_policy}) must not be provided in pod spec; priority "
                             f"admission controller computed {policy} from the given "
                             "PriorityClass name")
        spec["preemptionPolicy"] = policy


def keep_pod_priority(new: Object, old: Object) -> None:
    """On pod update, what the plugin set on create is kept when the update
    omits it (validation then refuses any other change)."""
    new_spec, old_spec = new.get("spec"), old.get("spec")
    if not isinstance(new_spec, dict) or not isinstance(old_spec, dict):
        return
    for key in ("priority", "preemptionPolicy"):
        if new_spec.get(key) is None and old_spec.get(key) is not None:
            new_spec[key] = old_spec[key]


def validate_class(storage: Storage, pc: Object, *, update: bool) -> None:
    """The plugin's ``Validate``: at most one global default."""
    if pc.get("globalDefault") is not True:
        return
    default = default_class(storage)
    if default is None:
        return
    name = pc["metadata"]["name"]
    default_name = default["metadata"]["name"]
    if not update or default_name != name:
        raise _forbidden(CLASSES, name, f"PriorityClass {default_name} is already marked as "
                         "default. Only one default can exist")


def check_delete(name: str) -> None:
    """The priorityclasses REST storage's ``Delete``: built-in classes stay."""
    if any(name == class_name for class_name, _, _ in SYSTEM_PRIORITY_CLASSES):
        raise _forbidden(CLASSES, name, "this is a system priority class and cannot be "
                         "deleted")


def ensure_system_classes(create: Create) -> list[str]:
    """Create the built-in classes, as the API server's start-up hook does;
    returns the names created."""
    created = []
    for name, _, _ in SYSTEM_PRIORITY_CLASSES:
        try:
            create(system_priority_class(name))
            created.append(name)
        except AlreadyExists:
            pass
    return created
