"""What the Endpoints and EndpointSlice controllers share: which pods a
Service selects and what each contributes (``pkg/controller/util/endpoint``
and ``pkg/api/v1/pod``, v1.32), and the event wiring that maps a pod change
to the Services that select it.

* A Service is managed only when it has a selector and is not ExternalName
  (selectorless Services are their owner's to fill).
* A pod takes part when it has an IP and is not terminal (Succeeded/Failed);
  a pod being deleted takes part only where terminating endpoints are
  published (EndpointSlices) or the Service publishes not-ready addresses.
* A service port maps to a pod port by ``targetPort``: a number is taken as
  is, a name is looked up among the pod's container ports with the same
  protocol (``FindPort``); a pod without that named port is left out of that
  port only.
* An endpoint's ``hostname`` is the pod's ``spec.hostname`` when the pod's
  ``spec.subdomain`` names this Service (same namespace): that is how
  ``hostname.subdomain.ns.svc.cluster.local`` resolves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..api.access import labels_of, meta, namespace_of, spec_of, status_of
from ..api.labels import Selector, SelectorError, selector_from_label_selector
from ..client.informer import Handlers, Informer, key_of
from .replicaset import is_pod_ready

__all__ = ["endpoint_hostname", "find_port", "is_pod_ready", "managed_selector",
           "pod_ip", "services_selecting", "should_pod_be_in_endpoints", "target_ref",
           "watch_pods_for_services"]


def managed_selector(svc: Mapping[str, Any]) -> Selector | None:
    """The Service's pod selector when a controller fills its endpoints, else ``None``."""
    spec = spec_of(svc)
    selector = spec.get("selector")
    if spec.get("type") == "ExternalName" or not isinstance(selector, Mapping) or \
            not selector:
        return None
    try:
        return selector_from_label_selector({"matchLabels": dict(selector)})
    except SelectorError:
        return None


def pod_ip(pod: Mapping[str, Any]) -> str:
    return str(status_of(pod).get("podIP") or "")


def should_pod_be_in_endpoints(pod: Mapping[str, Any], *, include_terminating: bool) -> bool:
    """``ShouldPodBeInEndpoints``: an IP, not terminal, and terminating only if asked."""
    if not pod_ip(pod):
        return False
    if status_of(pod).get("phase") in ("Succeeded", "Failed"):
        return False
    return include_terminating or not meta(pod).get("deletionTimestamp")


def find_port(pod: Mapping[str, Any], service_port: Mapping[str, Any]) -> int | None:
    """``FindPort``: the pod's port for ``service_port``'s ``targetPort``."""
    target = service_port.get("targetPort")
    if target is None:
        target = service_port.get("port")
    if isinstance(target, int) and not isinstance(target, bool):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    protocol = str(service_port.get("protocol") or "TCP")
    for container in spec_of(pod).get("containers") or []:
        for port in (container or {}).get("ports") or []:
            if port.get("name") == target and str(port.get("protocol") or "TCP") == protocol:
                number = port.get("containerPort")
                return int(number) if isinstance(number, int) else None
    return None


def endpoint_hostname(pod: Mapping[str, Any], svc: Mapping[str, Any]) -> str:
    spec = spec_of(pod)
    if spec.get("hostname") and spec.get("subdomain") == meta(svc).get("name") and \
            namespace_of(pod) == namespace_of(svc):
        return str(spec["hostname"])
    return ""


def target_ref(pod: Mapping[str, Any]) -> dict[str, str]:
    m = meta(pod)
    return {"kind": "Pod", "namespace": str(m.get("namespace") or ""),
            "name": str(m.get("name") or ""), "uid": str(m.get("uid") or "")}


def services_selecting(services: Iterable[Mapping[str, Any]],
                       pod: Mapping[str, Any]) -> list[str]:
    """Keys of the managed Services in the pod's namespace whose selector matches it."""
    ns = namespace_of(pod)
    out = []
    for svc in services:
        if namespace_of(svc) != ns:
            continue
        selector = managed_selector(svc)
        if selector is not None and selector.matches(labels_of(pod)):
            out.append(key_of(svc))
    return out


def watch_pods_for_services(pods: Informer, services: Informer,
                            enqueue: Callable[[str], None]) -> None:
    """Enqueue the Services that select a pod (before or after a change)."""

    def on(pod: Mapping[str, Any]) -> None:
        for key in services_selecting(services.list(), pod):
            enqueue(key)

    def on_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        keys = set(services_selecting(services.list(), new))
        if labels_of(old) != labels_of(new):
            keys.update(services_selecting(services.list(), old))
        for key in keys:
            enqueue(key)

    pods.add_handlers(Handlers(on_add=on, on_update=on_update, on_delete=on))
