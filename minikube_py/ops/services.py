"""Reaching a Service from this host: ``minikube-py service NAME --url``.

``minikube service --url`` prints, for each port of a Service, an address a
browser or ``curl`` on the host can use. Here every Service type has one,
because the Service data plane serves this host too (the ``output`` hook of
the cluster's nftables table):

* LoadBalancer with an address: ``http://<ingress ip>:<port>``;
* NodePort (and LoadBalancer still pending): ``http://127.0.0.1:<nodePort>``
  (node ports answer on every host address, loopback included);
* ClusterIP: ``http://<cluster ip>:<port>``.

Headless and ExternalName Services have no address of their own: asking for
one is an :class:`~.errors.OpError` saying so (``minikube service`` fails
there too). The scheme is ``https`` for a port named ``https`` or numbered
443, as ``kubectl cluster-info`` guesses it, else ``http`` (``--https``
forces it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..api.access import spec_of, status_of
from ..client.base import Client
from .errors import OpError

__all__ = ["ServiceURL", "service_urls"]


@dataclass(frozen=True)
class ServiceURL:
    """One port of a Service and where the host reaches it."""

    port_name: str
    target_port: str
    url: str


def _scheme(port: Mapping[str, Any], https: bool) -> str:
    return "https" if https or port.get("name") == "https" or port.get("port") == 443 \
        else "http"


def service_urls(client: Client, namespace: str, name: str, *,
                 https: bool = False) -> list[ServiceURL]:
    """The URLs of Service ``namespace/name`` (see the module docstring)."""
    svc = client.get("services", namespace, name)
    spec, who = spec_of(svc), f"{namespace}/{name}"
    kind = str(spec.get("type") or "ClusterIP")
    if kind == "ExternalName":
        raise OpError(f"service {who} is of type ExternalName: it is only a DNS name for "
                      f"{spec.get('externalName')}, with no address of its own")
    cluster_ip = str(spec.get("clusterIP") or "")
    if kind == "ClusterIP" and cluster_ip in ("", "None"):
        raise OpError(f"service {who} is headless (clusterIP: None): it has no address of its "
                      "own; reach its pods by their DNS names")
    ingress = [str(i.get("ip") or i.get("hostname"))
               for i in (status_of(svc).get("loadBalancer") or {}).get("ingress") or []
               if i.get("ip") or i.get("hostname")]
    out = []
    for port in spec.get("ports") or []:
        if kind == "LoadBalancer" and ingress:
            host, number = ingress[0], port.get("port")
        elif kind in ("NodePort", "LoadBalancer") and port.get("nodePort"):
            host, number = "127.0.0.1", port.get("nodePort")
        else:
            host, number = cluster_ip, port.get("port")
        target = port.get("targetPort", port.get("port"))
        out.append(ServiceURL(str(port.get("name") or ""), str(target),
                              f"{_scheme(port, https)}://{host}:{number}"))
    if not out:
        raise OpError(f"service {who} has no ports")
    return out
