"""The registry of kinds minikube-py serves.

One :class:`KindInfo` per kind says everything the other layers need to route,
store and describe it: group/version, the plural resource name (also the store's
table name, as etcd keys by resource), scope, short names for the CLI, and the
extra field-selector labels Kubernetes supports for it.

Adding a kind is adding a row here plus its schema and validation; nothing else
branches on kind names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import BadRequest, NotFound


@dataclass(frozen=True, slots=True)
class KindInfo:
    """Static facts about one kind."""

    kind: str
    group: str
    version: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    #: Field selector labels beyond ``metadata.name`` / ``metadata.namespace``.
    field_labels: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        """``v1`` for the core group, ``group/version`` otherwise."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """``deployments.apps`` style name used in messages; bare for core."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


KINDS: tuple[KindInfo, ...] = (
    KindInfo(
        "Pod", "", "v1", "pods", "pod", True, ("po",),
        (
            "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
            "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
            "status.podIP", "status.nominatedNodeName",
        ),
    ),
    KindInfo("Node", "", "v1", "nodes", "node", False, ("no",), ("spec.unschedulable",)),
    KindInfo("Namespace", "", "v1", "namespaces", "namespace", False, ("ns",), ("status.phase",)),
    KindInfo(
        "Event", "", "v1", "events", "event", True, ("ev",),
        (
            "involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
            "involvedObject.uid", "involvedObject.apiVersion",
            "involvedObject.resourceVersion", "involvedObject.fieldPath",
            "reason", "reportingComponent", "source", "type",
        ),
    ),
    KindInfo("Deployment", "apps", "v1", "deployments", "deployment", True, ("deploy",)),
    KindInfo("ReplicaSet", "apps", "v1", "replicasets", "replicaset", True, ("rs",),
             ("status.replicas",)),
    KindInfo("PriorityClass", "scheduling.k8s.io", "v1", "priorityclasses", "priorityclass",
             namespaced=False, short_names=("pc",)),
    KindInfo("Job", "batch", "v1", "jobs", "job", True, (), ("status.successful",)),
)

_BY_KIND: dict[str, KindInfo] = {k.kind: k for k in KINDS}
_BY_PLURAL: dict[str, KindInfo] = {k.plural: k for k in KINDS}
_BY_ANY_NAME: dict[str, KindInfo] = {}
for _k in KINDS:
    for _name in (_k.kind.lower(), _k.plural, _k.singular, *_k.short_names,
                  f"{_k.plural}.{_k.group}" if _k.group else _k.plural):
        _BY_ANY_NAME[_name] = _k


def by_kind(kind: str) -> KindInfo:
    """Look up by ``kind`` (``Pod``); raises :class:`NotFound` for unknown kinds."""
    try:
        return _BY_KIND[kind]
    except KeyError:
        raise NotFound(f'no kind "{kind}" is registered') from None


def by_plural(plural: str) -> KindInfo:
    """Look up by resource (``pods``); raises :class:`NotFound` when not served."""
    try:
        return _BY_PLURAL[plural]
    except KeyError:
        raise NotFound(f'the server could not find the requested resource "{plural}"') from None


def resolve(name: str) -> KindInfo:
    """Resolve what a user typed on a command line: ``po``, ``pods``, ``Deployment``,
    ``deployments.apps``. Case-insensitive. Unknown names raise :class:`BadRequest`
    with kubectl's wording."""
    info = _BY_ANY_NAME.get(name.lower())
    if info is None:
        raise BadRequest(f'the server doesn\'t have a resource type "{name}"')
    return info


def for_object(obj: Mapping[str, Any]) -> KindInfo:
    """The kind of a manifest; checks that its ``apiVersion`` matches ours.

    Raises :class:`BadRequest` naming what is wrong, as kubectl's
    ``no matches for kind "X" in version "Y"``.
    """
    kind = obj.get("kind")
    api_version = obj.get("apiVersion")
    if not isinstance(kind, str) or not kind:
        raise BadRequest("Object 'Kind' is missing")
    if not isinstance(api_version, str) or not api_version:
        raise BadRequest(f"Object 'apiVersion' is missing in kind {kind}")
    info = _BY_KIND.get(kind)
    if info is None or info.api_version != api_version:
        raise BadRequest(f'no matches for kind "{kind}" in version "{api_version}"')
    return info
