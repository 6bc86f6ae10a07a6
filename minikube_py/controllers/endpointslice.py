"""The EndpointSlice controller (``pkg/controller/endpointslice``, v1.32).

For each Service with a selector (not ExternalName), the pods it selects
(:mod:`.endpoints_common`) become endpoints of ``discovery.k8s.io/v1``
EndpointSlices with address type IPv4:

* **Endpoint**: the pod's IP, conditions ``ready`` (ready and not terminating,
  or always with ``publishNotReadyAddresses``), ``serving`` (ready) and
  ``terminating`` (being deleted: terminating pods stay, so the data plane
  can fall back to them), ``targetRef``, ``nodeName``, ``zone`` (the node's
  ``topology.kubernetes.io/zone``) and the hostname rule.
* **Ports**: one per service port the pod has (named ``targetPort`` looked up
  per pod); endpoints with the same port set share slices.
* **Slices** hold at most ``max_endpoints_per_slice`` endpoints (100, as
  ``--max-endpoints-per-slice``), are named ``<service>-<random>``, labelled
  ``kubernetes.io/service-name`` and ``endpointslice.kubernetes.io/managed-by:
  endpointslice-controller.k8s.io`` plus the Service's own labels (and
  ``service.kubernetes.io/headless`` when headless), and owned by the Service
  (controller reference), so deleting the Service deletes them.
* **Churn** is kept low as the controller's reconciler does: an endpoint stays
  in the slice it is in while it exists; new endpoints fill slices with room
  before new slices are made; a slice is written only when its content
  changed; slices left empty are deleted.
* A Service with no endpoints keeps one **placeholder** slice (no ports, no
  endpoints), as in Kubernetes.
* Slices managed by someone else (another ``managed-by``) are never touched.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..api.access import labels_of, meta, spec_of, uid_of
from ..api.errors import NotFound
from ..api.jsoncopy import deep_copy
from ..client.base import Client, Object
from ..client.shared import SharedInformers
from .base import Controller
from .endpoints_common import (
    endpoint_hostname,
    find_port,
    is_pod_ready,
    managed_selector,
    pod_ip,
    should_pod_be_in_endpoints,
    target_ref,
    watch_pods_for_services,
)

__all__ = ["CONTROLLER_NAME", "MANAGED_BY", "SERVICE_NAME", "EndpointSliceController",
           "desired_endpoints"]

log = logging.getLogger(__name__)

SERVICE_NAME: Final = "kubernetes.io/service-name"
MANAGED_BY: Final = "endpointslice.kubernetes.io/managed-by"
CONTROLLER_NAME: Final = "endpointslice-controller.k8s.io"
HEADLESS: Final = "service.kubernetes.io/headless"
ZONE: Final = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE: Final = 100

PortSet = tuple[tuple[str, int, str], ...]


def _ports(svc: Mapping[str, Any], pod: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for svc_port in spec_of(svc).get("ports") or []:
        number = find_port(pod, svc_port)
        if number is None:
            continue
        port: dict[str, Any] = {"name": str(svc_port.get("name") or ""), "port": number,
                                "protocol": str(svc_port.get("protocol") or "TCP")}
        if svc_port.get("appProtocol"):
            port["appProtocol"] = svc_port["appProtocol"]
        out.append(port)
    return out


def _port_set(ports: Sequence[Mapping[str, Any]]) -> PortSet:
    return tuple(sorted((str(p.get("name") or ""), int(p.get("port") or 0),
                         str(p.get("protocol") or "TCP")) for p in ports))


def _endpoint(pod: Mapping[str, Any], svc: Mapping[str, Any],
              nodes: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    serving = is_pod_ready(pod)
    terminating = bool(meta(pod).get("deletionTimestamp"))
    ready = spec_of(svc).get("publishNotReadyAddresses") is True or (serving and not terminating)
    endpoint: dict[str, Any] = {
        "addresses": [pod_ip(pod)],
        "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
        "targetRef": target_ref(pod)}
    hostname = endpoint_hostname(pod, svc)
    if hostname:
        endpoint["hostname"] = hostname
    node_name = str(spec_of(pod).get("nodeName") or "")
    if node_name:
        endpoint["nodeName"] = node_name
        zone = labels_of(nodes.get(node_name) or {}).get(ZONE)
        if zone:
            endpoint["zone"] = zone
    return endpoint


def desired_endpoints(svc: Mapping[str, Any], pods: Sequence[Mapping[str, Any]],
                      nodes: Mapping[str, Mapping[str, Any]]
                      ) -> dict[PortSet, tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]]:
    """Port set -> (its ports, endpoints by address) for the pods ``svc`` selects."""
    out: dict[PortSet, tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]] = {}
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, include_terminating=True):
            continue
        ports = _ports(svc, pod)
        if not ports and spec_of(svc).get("ports"):
            continue  # the pod has none of the Service's ports
        entry = out.setdefault(_port_set(ports), (ports, {}))
        entry[1][pod_ip(pod)] = _endpoint(pod, svc, nodes)
    return out


def slice_labels(svc: Mapping[str, Any]) -> dict[str, str]:
    """``setEndpointSliceLabels``: the Service's labels, headless, name, manager."""
    labels = {k: v for k, v in labels_of(svc).items() if k not in (SERVICE_NAME, MANAGED_BY)}
    if spec_of(svc).get("clusterIP") == "None":
        labels[HEADLESS] = ""
    else:
        labels.pop(HEADLESS, None)
    labels[SERVICE_NAME] = str(meta(svc).get("name") or "")
    labels[MANAGED_BY] = CONTROLLER_NAME
    return labels


def _owner(svc: Mapping[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "name": str(meta(svc).get("name") or ""),
            "uid": uid_of(svc), "controller": True, "blockOwnerDeletion": True}


def _content(obj: Mapping[str, Any]) -> tuple[Any, ...]:
    """What this controller writes of a slice (empty lists read back as absent)."""
    m = meta(obj)
    return (dict(m.get("labels") or {}), m.get("ownerReferences") or [],
            obj.get("ports") or [], obj.get("endpoints") or [])


def _sorted(endpoints: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [endpoints[ip] for ip in sorted(endpoints)]


class EndpointSliceController(Controller):
    """See the module docstring."""

    name = "endpointslice-controller"

    def __init__(self, client: Client, informers: SharedInformers, *,
                 max_endpoints_per_slice: int = MAX_ENDPOINTS_PER_SLICE, **kwargs: Any) -> None:
        super().__init__(client, informers, **kwargs)
        self.max_per_slice = max_endpoints_per_slice
        self.services = self.watch("services")
        self.pods = informers.get("pods")
        self.nodes = informers.get("nodes")
        self.slices = self.watch("endpointslices", key=self._slice_owner)
        watch_pods_for_services(self.pods, self.services, self.enqueue)
        self.synced_before_start = (self.services, self.pods, self.nodes, self.slices)

    @staticmethod
    def _slice_owner(obj: Mapping[str, Any]) -> list[str] | None:
        name = labels_of(obj).get(SERVICE_NAME)
        if not name or labels_of(obj).get(MANAGED_BY) != CONTROLLER_NAME:
            return None
        return [f"{meta(obj).get('namespace')}/{name}"]

    def _owned(self, namespace: str, name: str) -> list[Object]:
        return [s for s in self.slices.list()
                if meta(s).get("namespace") == namespace
                and labels_of(s).get(SERVICE_NAME) == name
                and labels_of(s).get(MANAGED_BY) == CONTROLLER_NAME]

    def reconcile(self, key: str) -> float | None:
        namespace, _, name = key.partition("/")
        svc = self.services.get(key)
        existing = self._owned(namespace, name)
        selector = managed_selector(svc) if svc is not None else None
        if svc is None or selector is None:
            # The garbage collector removes slices of a deleted Service through
            # their owner reference; a Service that lost its selector keeps none.
            if svc is not None:
                for stale in existing:
                    with contextlib.suppress(NotFound):
                        self.client.delete("endpointslices", namespace, meta(stale)["name"])
            return None
        pods = [p for p in self.pods.list() if meta(p).get("namespace") == namespace
                and selector.matches(labels_of(p))]
        nodes = {str(meta(n).get("name")): n for n in self.nodes.list()}
        desired = desired_endpoints(svc, pods, nodes)
        labels = slice_labels(svc)
        owner = _owner(svc)
        keep: list[Object] = []
        writes: list[tuple[Object | None, dict[str, Any]]] = []  # (old, new)
        for port_set, (ports, endpoints) in sorted(desired.items()):
            mine = [s for s in existing if _port_set(s.get("ports") or []) == port_set
                    and s.get("endpoints")]
            placed: dict[str, dict[str, Any]] = {}
            filled: list[tuple[Object, dict[str, dict[str, Any]]]] = []
            for current in mine:
                kept = {}
                for ep in current.get("endpoints") or []:
                    ip = (ep.get("addresses") or [""])[0]
                    if ip in endpoints and ip not in placed:
                        kept[ip] = placed[ip] = endpoints[ip]
                filled.append((current, kept))
            waiting = [ip for ip in sorted(endpoints) if ip not in placed]
            for current, kept in filled:
                while waiting and len(kept) < self.max_per_slice:
                    ip = waiting.pop(0)
                    kept[ip] = endpoints[ip]
                if kept:
                    keep.append(current)
                    writes.append((current, self._body(current, svc, labels, owner, ports,
                                                       _sorted(kept))))
            while waiting:
                chunk, waiting = waiting[:self.max_per_slice], waiting[self.max_per_slice:]
                writes.append((None, self._body(None, svc, labels, owner, ports,
                                                [endpoints[ip] for ip in chunk])))
        if not desired:
            placeholder = next((s for s in existing if not s.get("endpoints")), None)
            if placeholder is not None:
                keep.append(placeholder)
            writes.append((placeholder, self._body(placeholder, svc, labels, owner, [], [])))
        for old, new in writes:
            if old is None:
                self.client.create(new, namespace=namespace)
            elif _content(new) != _content(old):
                self.client.update(new)
        kept_names = {meta(s)["name"] for s in keep}
        for stale in existing:
            if meta(stale)["name"] not in kept_names:
                with contextlib.suppress(NotFound):
                    self.client.delete("endpointslices", namespace, meta(stale)["name"])
        return None

    def _body(self, current: Object | None, svc: Mapping[str, Any], labels: dict[str, str],
              owner: dict[str, Any], ports: list[dict[str, Any]],
              endpoints: list[dict[str, Any]]) -> dict[str, Any]:
        if current is None:
            prefix = f"{meta(svc).get('name')}-"
            if len(prefix) > 58:  # the name must stay a DNS subdomain with 5 random chars
                prefix = "endpointslice-"
            body: dict[str, Any] = {
                "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"generateName": prefix, "namespace": meta(svc).get("namespace"),
                             "labels": labels, "ownerReferences": [owner]},
                "addressType": "IPv4"}
        else:
            body = deep_copy(current)
            body["metadata"]["labels"] = labels
            body["metadata"]["ownerReferences"] = [owner]
        body["ports"] = ports
        body["endpoints"] = endpoints
        return body
