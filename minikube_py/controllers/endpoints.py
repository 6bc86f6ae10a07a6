"""The Endpoints controller: one Endpoints object per Service with a selector
(``pkg/controller/endpoint``, v1.32).

For each Service (key ``namespace/name``):

* gone: its Endpoints object is deleted (the service storage deletes it too);
* ExternalName or without selector: left alone (the owner writes its own);
* otherwise the selected pods (:mod:`.endpoints_common`) become addresses:
  ready pods (or every pod when ``publishNotReadyAddresses``) under
  ``addresses``, the others under ``notReadyAddresses``; terminating pods
  are left out unless not-ready addresses are published. Each address has
  the pod's IP, ``nodeName``, ``targetRef`` and the hostname rule. A
  headless Service without ports gets the addresses with no ports.
* ``RepackSubsets``: addresses with the same set of ports share a subset;
  addresses sort by IP, ports by name and number.
* At most 1000 addresses are kept; the rest are cut and the object is
  annotated ``endpoints.kubernetes.io/over-capacity: truncated``.
* Labels are the Service's, plus ``service.kubernetes.io/headless`` for a
  headless one; the object is written only when it changed.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..api.access import labels_of, meta, spec_of
from ..api.errors import AlreadyExists, NotFound
from ..api.jsoncopy import deep_copy
from ..client.base import Client
from ..client.informer import Handlers, key_of
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

__all__ = ["MAX_CAPACITY", "EndpointsController", "desired_subsets"]

log = logging.getLogger(__name__)

MAX_CAPACITY: Final = 1000
OVER_CAPACITY: Final = "endpoints.kubernetes.io/over-capacity"
HEADLESS: Final = "service.kubernetes.io/headless"


def _address(pod: Mapping[str, Any], svc: Mapping[str, Any]) -> dict[str, Any]:
    address: dict[str, Any] = {"ip": pod_ip(pod)}
    hostname = endpoint_hostname(pod, svc)
    if hostname:
        address["hostname"] = hostname
    node = spec_of(pod).get("nodeName")
    if node:
        address["nodeName"] = node
    address["targetRef"] = target_ref(pod)
    return address


def _port(svc_port: Mapping[str, Any], number: int) -> dict[str, Any]:
    port: dict[str, Any] = {"port": number, "protocol": svc_port.get("protocol") or "TCP"}
    if svc_port.get("name"):
        port["name"] = svc_port["name"]
    if svc_port.get("appProtocol"):
        port["appProtocol"] = svc_port["appProtocol"]
    return port


def _port_key(port: Mapping[str, Any]) -> tuple[str, int, str]:
    return (str(port.get("name") or ""), int(port.get("port") or 0),
            str(port.get("protocol") or ""))


def desired_subsets(svc: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]
                    ) -> tuple[list[dict[str, Any]], bool]:
    """The repacked subsets for ``svc`` over the pods it selects, and whether
    addresses had to be cut at :data:`MAX_CAPACITY`."""
    spec = spec_of(svc)
    tolerate = spec.get("publishNotReadyAddresses") is True
    headless_no_ports = spec.get("clusterIP") == "None" and not spec.get("ports")
    # ip -> (address, ready, {port key: port})
    entries: dict[tuple[str, str], tuple[dict[str, Any], bool, dict[Any, Any]]] = {}
    for pod in sorted(pods, key=lambda p: (pod_ip(p), meta(p).get("uid") or "")):
        if not should_pod_be_in_endpoints(pod, include_terminating=tolerate):
            continue
        address = _address(pod, svc)
        ready = tolerate or is_pod_ready(pod)
        key = (address["ip"], str(meta(pod).get("uid") or ""))
        ports: dict[Any, Any] = {}
        if headless_no_ports:
            entries[key] = (address, ready, ports)
            continue
        for svc_port in spec.get("ports") or []:
            number = find_port(pod, svc_port)
            if number is None:
                continue  # the pod lacks this named port: left out of it only
            port = _port(svc_port, number)
            ports[_port_key(port)] = port
        if ports:
            entries[key] = (address, ready, ports)
    truncated = len(entries) > MAX_CAPACITY
    kept = list(entries.values())[:MAX_CAPACITY]
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for address, ready, ports in kept:
        group_key = tuple(sorted(ports))
        subset = groups.setdefault(group_key, {"ports": [ports[k] for k in group_key]})
        subset.setdefault("addresses" if ready else "notReadyAddresses", []).append(address)
    subsets = []
    for group_key in sorted(groups):
        subset = groups[group_key]
        out: dict[str, Any] = {}
        for field in ("addresses", "notReadyAddresses"):
            if subset.get(field):
                out[field] = sorted(subset[field], key=lambda a: (a["ip"], a["targetRef"]["uid"]))
        if subset["ports"]:
            out["ports"] = subset["ports"]
        subsets.append(out)
    return subsets, truncated


class EndpointsController(Controller):
    """See the module docstring."""

    name = "endpoint-controller"

    def __init__(self, client: Client, informers: SharedInformers, **kwargs: Any) -> None:
        super().__init__(client, informers, **kwargs)
        self.services = self.watch("services")
        self.pods = informers.get("pods")
        self.endpoints = informers.get("endpoints")
        watch_pods_for_services(self.pods, self.services, self.enqueue)
        # An Endpoints object changed or deleted by someone else is put back; a
        # new one is not looked at (kube-controller-manager adds no handler for
        # it), so hand-made Endpoints of a Service yet to come are left alone.
        self.endpoints.add_handlers(Handlers(
            on_update=lambda _old, new: self.enqueue(key_of(new)),
            on_delete=lambda obj: self.enqueue(key_of(obj))))
        self.synced_before_start = (self.services, self.pods, self.endpoints)

    def reconcile(self, key: str) -> float | None:
        namespace, _, name = key.partition("/")
        svc = self.services.get(key)
        current = self.endpoints.get(key)
        if svc is None:
            if current is not None:
                with contextlib.suppress(NotFound):
                    self.client.delete("endpoints", namespace, name)
            return None
        selector = managed_selector(svc)
        if selector is None:
            return None
        pods = [p for p in self.pods.list() if meta(p).get("namespace") == namespace
                and selector.matches(labels_of(p))]
        subsets, truncated = desired_subsets(svc, pods)
        labels = dict(labels_of(svc))
        if spec_of(svc).get("clusterIP") == "None":
            labels[HEADLESS] = ""
        else:
            labels.pop(HEADLESS, None)
        annotations = dict(meta(current).get("annotations") or {}) if current else {}
        if truncated:
            annotations[OVER_CAPACITY] = "truncated"
        else:
            annotations.pop(OVER_CAPACITY, None)
        if current is not None and (current.get("subsets") or []) == subsets and \
                dict(labels_of(current)) == labels and \
                dict(meta(current).get("annotations") or {}) == annotations:
            return None
        if current is None:
            body: dict[str, Any] = {"apiVersion": "v1", "kind": "Endpoints",
                                    "metadata": {"name": name, "namespace": namespace,
                                                 "labels": labels}}
            if annotations:
                body["metadata"]["annotations"] = annotations
            if subsets:
                body["subsets"] = subsets
            try:
                self.client.create(body, namespace=namespace)
            except AlreadyExists:
                return 0.05  # the cache lags behind: look again shortly
            return None
        updated = deep_copy(current)
        updated["metadata"]["labels"] = labels
        if annotations:
            updated["metadata"]["annotations"] = annotations
        else:
            updated["metadata"].pop("annotations", None)
        if subsets:
            updated["subsets"] = subsets
        else:
            updated.pop("subsets", None)
        self.client.update(updated)
        return None

