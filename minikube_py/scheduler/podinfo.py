"""A pod as the scheduler sees it: parsed once, immutable, cheap to keep.

:class:`PodInfo` is kube-scheduler's ``framework.PodInfo`` plus the few facts
every cycle needs (requests, tolerations, host ports, images, priority).
Parsing happens once per pod object, both for the pod being scheduled and for
every pod the :class:`~minikube_py.scheduler.snapshot.Snapshot` holds, so the
hot paths never touch the raw dict again.

Contracts (all Kubernetes' own):

* Affinity terms parse like ``framework.NewPodInfo``: a list containing an
  invalid term yields *no* terms for that list, and the error is kept in
  :attr:`PodInfo.parse_errors` (the InterPodAffinity PreFilter reports it).
* A term without ``namespaces`` and without ``namespaceSelector`` applies to
  the pod's own namespace; a ``null`` selector matches nothing, ``{}`` matches
  everything.
* Tolerations match taints by ``Toleration.ToleratesTaint``: an empty effect
  matches every effect, an empty key (with ``Exists``) every key, and the
  operator defaults to ``Equal``.
* Image names are normalised as ImageLocality does (``:latest`` is appended
  when no tag is given).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from minikube_py.api.labels import Selector, SelectorError, selector_from_label_selector

from ..api.access import items as _list
from ..api.access import mapping as _map
from ..api.podrequests import is_sidecar, pod_nonzero_requests, pod_requests
from ..api.timefmt import parse_datetime

__all__ = [
    "AffinityTerm",
    "HostPort",
    "PodInfo",
    "Taint",
    "Toleration",
    "WeightedAffinityTerm",
    "normalized_image_name",
    "parse_time_ns",
    "tolerations_tolerate",
]

NO_SCHEDULE: Final = "NoSchedule"
NO_EXECUTE: Final = "NoExecute"
PREFER_NO_SCHEDULE: Final = "PreferNoSchedule"
DEFAULT_BIND_ALL_HOST_IP: Final = "0.0.0.0"

#: (hostIP, protocol, hostPort), defaults applied: "0.0.0.0" and "TCP".
HostPort = tuple[str, str, int]


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str

    @classmethod
    def parse(cls, raw: object) -> Taint | None:
        if not isinstance(raw, Mapping):
            return None
        return cls(str(raw.get("key") or ""), str(raw.get("value") or ""),
                   str(raw.get("effect") or ""))


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str
    operator: str
    value: str
    effect: str

    @classmethod
    def parse(cls, raw: object) -> Toleration | None:
        if not isinstance(raw, Mapping):
            return None
        return cls(str(raw.get("key") or ""), str(raw.get("operator") or ""),
                   str(raw.get("value") or ""), str(raw.get("effect") or ""))

    def tolerates(self, taint: Taint) -> bool:
        """``v1.Toleration.ToleratesTaint``."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return self.operator == "Exists"


def tolerations_tolerate(tolerations: Sequence[Toleration], taint: Taint) -> bool:
    """``v1helper.TolerationsTolerateTaint``: any toleration tolerates it."""
    return any(t.tolerates(taint) for t in tolerations)


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """``framework.AffinityTerm``: a parsed PodAffinityTerm."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector

    def matches(self, namespace: str, labels: Mapping[str, str],
                ns_labels: Mapping[str, str] | None) -> bool:
        """``AffinityTerm.Matches``: the namespace is listed or selected, and
        the labels match. ``ns_labels`` are the labels of ``namespace``."""
        if namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(labels)
        return False

    def with_namespaces(self, extra: Sequence[str]) -> AffinityTerm:
        """The term with ``extra`` namespaces merged in and the namespace
        selector replaced by *nothing* (InterPodAffinity's
        ``mergeAffinityTermNamespacesIfNotEmpty``)."""
        return AffinityTerm(self.namespaces | frozenset(extra), self.selector,
                            self.topology_key, Selector.nothing_selector())


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


def normalized_image_name(name: str) -> str:
    """ImageLocality's ``normalizedImageName``: append ``:latest`` if untagged."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def parse_time_ns(value: object) -> int | None:
    """An RFC 3339 timestamp as integer nanoseconds since the epoch, or None."""
    dt = parse_datetime(value)
    if dt is None:
        return None
    return int(dt.timestamp()) * 10**9 + dt.microsecond * 1000






def _str_map(value: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in _map(value).items()}


def _affinity_term(namespace: str, raw: object) -> AffinityTerm:
    term = _map(raw)
    selector = selector_from_label_selector(term.get("labelSelector"))
    raw_ns_sel = term.get("namespaceSelector")
    ns_selector = selector_from_label_selector(raw_ns_sel)
    namespaces = [str(n) for n in _list(term.get("namespaces"))]
    if not namespaces and raw_ns_sel is None:
        namespaces = [namespace]
    return AffinityTerm(frozenset(namespaces), selector, str(term.get("topologyKey") or ""),
                        ns_selector)


def _terms(namespace: str, raw: object, what: str,
           errors: list[str]) -> tuple[AffinityTerm, ...]:
    try:
        return tuple(_affinity_term(namespace, t) for t in _list(raw))
    except SelectorError as exc:
        errors.append(f"{what}: {exc}")
        return ()


def _weighted(namespace: str, raw: object, what: str,
              errors: list[str]) -> tuple[WeightedAffinityTerm, ...]:
    try:
        return tuple(
            WeightedAffinityTerm(_affinity_term(namespace, _map(t).get("podAffinityTerm")),
                                 int(_map(t).get("weight") or 0))
            for t in _list(raw))
    except (SelectorError, TypeError, ValueError) as exc:
        errors.append(f"{what}: {exc}")
        return ()


def _host_ports(spec: Mapping[str, Any]) -> tuple[HostPort, ...]:
    # schedutil.GetHostPorts: app containers and sidecars, hostPort > 0 only.
    containers = [c for c in _list(spec.get("initContainers"))
                  if isinstance(c, Mapping) and is_sidecar(c)]
    containers += [c for c in _list(spec.get("containers")) if isinstance(c, Mapping)]
    ports: list[HostPort] = []
    for container in containers:
        for port in _list(container.get("ports")):
            if not isinstance(port, Mapping):
                continue
            host_port = port.get("hostPort")
            if isinstance(host_port, int) and not isinstance(host_port, bool) and host_port > 0:
                ports.append((str(port.get("hostIP") or DEFAULT_BIND_ALL_HOST_IP),
                              str(port.get("protocol") or "TCP"), host_port))
    return tuple(ports)


def pod_uid(pod: Mapping[str, Any]) -> str:
    """The uid a PodInfo files ``pod`` under (its namespace/name when it has none)."""
    meta = _map(pod.get("metadata"))
    uid = meta.get("uid")
    if uid:
        return str(uid)
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def _same_spec(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Equal specs, ``nodeName`` aside. Usually the same object or equal parts
    (the store's shared decoding hands out one copy of each), so cheap."""
    if old is new:
        return True
    if old.get("nodeName") == new.get("nodeName"):
        return old == new
    return len(old.keys() - {"nodeName"}) == len(new.keys() - {"nodeName"}) and all(
        k == "nodeName" or (k in new and new[k] == v) for k, v in old.items())


class PodInfo:
    """Everything the scheduler reads from one pod object. Treat as immutable."""

    __slots__ = (
        "deleting",
        "has_affinity",
        "host_ports",
        "images",
        "key",
        "labels",
        "name",
        "namespace",
        "node_name",
        "nominated_node_name",
        "nonzero_cpu",
        "nonzero_memory",
        "num_containers",
        "parse_errors",
        "phase",
        "pod",
        "preemption_policy",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "priority",
        "requests",
        "required_affinity_terms",
        "required_anti_affinity_terms",
        "start_time_ns",
        "terminating_by_preemption",
        "tolerations",
        "uid",
    )

    pod: Mapping[str, Any]
    key: str
    uid: str
    namespace: str
    name: str
    labels: dict[str, str]
    priority: int
    node_name: str
    nominated_node_name: str
    phase: str
    requests: dict[str, int]
    nonzero_cpu: int
    nonzero_memory: int
    tolerations: tuple[Toleration, ...]
    host_ports: tuple[HostPort, ...]
    images: tuple[str, ...]
    num_containers: int
    required_affinity_terms: tuple[AffinityTerm, ...]
    required_anti_affinity_terms: tuple[AffinityTerm, ...]
    preferred_affinity_terms: tuple[WeightedAffinityTerm, ...]
    preferred_anti_affinity_terms: tuple[WeightedAffinityTerm, ...]
    has_affinity: bool
    parse_errors: tuple[str, ...]
    preemption_policy: str
    start_time_ns: int | None
    deleting: bool
    terminating_by_preemption: bool

    def __init__(self, pod: Mapping[str, Any]) -> None:
        meta = _map(pod.get("metadata"))
        spec = _map(pod.get("spec"))
        status = _map(pod.get("status"))
        self.pod = pod
        self.namespace = str(meta.get("namespace") or "default")
        self.name = str(meta.get("name") or "")
        self.key = f"{self.namespace}/{self.name}"
        self.uid = pod_uid(pod)
        self.labels = _str_map(meta.get("labels"))
        priority = spec.get("priority")
        self.priority = priority if isinstance(priority, int) else 0
        self.requests = pod_requests(pod)
        self.nonzero_cpu, self.nonzero_memory = pod_nonzero_requests(pod)
        self.tolerations = tuple(t for t in map(Toleration.parse, _list(spec.get("tolerations")))
                                 if t is not None)
        self.host_ports = _host_ports(spec)
        containers = [*_list(spec.get("initContainers")), *_list(spec.get("containers"))]
        self.num_containers = len(containers)
        self.images = tuple(normalized_image_name(str(c.get("image")))
                            for c in containers if isinstance(c, Mapping) and c.get("image"))
        affinity = _map(spec.get("affinity"))
        pod_aff = _map(affinity.get("podAffinity"))
        pod_anti = _map(affinity.get("podAntiAffinity"))
        errors: list[str] = []
        ns = self.namespace
        req = "requiredDuringSchedulingIgnoredDuringExecution"
        pref = "preferredDuringSchedulingIgnoredDuringExecution"
        self.required_affinity_terms = _terms(ns, pod_aff.get(req), "requiredAffinityTerms",
                                              errors)
        self.required_anti_affinity_terms = _terms(ns, pod_anti.get(req),
                                                   "requiredAntiAffinityTerms", errors)
        self.preferred_affinity_terms = _weighted(ns, pod_aff.get(pref),
                                                  "preferredAffinityTerms", errors)
        self.preferred_anti_affinity_terms = _weighted(ns, pod_anti.get(pref),
                                                       "preferredAntiAffinityTerms", errors)
        self.parse_errors = tuple(errors)
        self.has_affinity = bool(pod_aff or pod_anti)
        self.preemption_policy = str(spec.get("preemptionPolicy") or "PreemptLowerPriority")
        self._read_state(meta, spec, status)

    def _read_state(self, meta: Mapping[str, Any], spec: Mapping[str, Any],
                    status: Mapping[str, Any]) -> None:
        """The fields a pod's life changes without touching its spec's other
        parts: its node, its status, its deletion."""
        self.node_name = str(spec.get("nodeName") or "")
        self.nominated_node_name = str(status.get("nominatedNodeName") or "")
        self.phase = str(status.get("phase") or "")
        self.start_time_ns = parse_time_ns(status.get("startTime"))
        self.deleting = bool(meta.get("deletionTimestamp"))
        self.terminating_by_preemption = self.deleting and any(
            isinstance(c, Mapping) and c.get("type") == "DisruptionTarget"
            and c.get("status") == "True" and c.get("reason") == "PreemptionByScheduler"
            for c in _list(status.get("conditions")))

    def updated(self, pod: Mapping[str, Any]) -> PodInfo:
        """``PodInfo(pod)`` for a newer version of this pod: what this one
        parsed from the spec and metadata is reused when ``pod`` has the same
        spec (its ``nodeName`` aside: the binding sets it), uid, namespace, name
        and labels, as a status write or a binding leaves them; otherwise
        everything is parsed afresh. The parts reused are shared, never copied
        (a PodInfo is immutable), so callers can tell them unchanged by identity."""
        meta = _map(pod.get("metadata"))
        spec = _map(pod.get("spec"))
        old_meta = _map(self.pod.get("metadata"))
        if pod_uid(pod) != self.uid or meta.get("namespace") != old_meta.get("namespace") \
                or meta.get("name") != old_meta.get("name") \
                or meta.get("labels") != old_meta.get("labels") \
                or not _same_spec(_map(self.pod.get("spec")), spec):
            return PodInfo(pod)
        new = PodInfo.__new__(PodInfo)
        for slot in _SPEC_SLOTS:
            setattr(new, slot, getattr(self, slot))
        new.pod = pod
        new._read_state(meta, spec, _map(pod.get("status")))
        return new

    @property
    def spec(self) -> Mapping[str, Any]:
        return _map(self.pod.get("spec"))

    def __repr__(self) -> str:
        return f"PodInfo({self.key!r}, uid={self.uid!r}, node={self.node_name!r})"


#: What :meth:`PodInfo.updated` reuses: everything but the pod object itself
#: and what :meth:`PodInfo._read_state` reads.
_SPEC_SLOTS: Final = tuple(sorted(set(PodInfo.__slots__) - {
    "pod", "node_name", "nominated_node_name", "phase", "start_time_ns", "deleting",
    "terminating_by_preemption"}))
