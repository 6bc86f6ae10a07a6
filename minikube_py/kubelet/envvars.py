"""Service environment variables: the kubelet's ``getServiceEnvVarMap`` and
``envvars.FromServices`` (pkg/kubelet, v1.32).

A container sees, for every Service with a cluster IP (not headless, not
ExternalName) in its pod's namespace when ``enableServiceLinks`` is true (the
default), and always for the ``kubernetes`` Service of ``default``:

* ``<NAME>_SERVICE_HOST`` (the cluster IP), ``<NAME>_SERVICE_PORT`` (the first
  port) and ``<NAME>_SERVICE_PORT_<PORTNAME>`` for each named port;
* the Docker link variables: ``<NAME>_PORT=tcp://ip:port`` (first port), and
  per port ``<NAME>_PORT_<port>_<PROTO>`` with ``_PROTO``, ``_PORT``, ``_ADDR``.

``<NAME>`` is the Service's name upper-cased with ``-`` as ``_``. The
container's own ``env`` wins over these, and may refer to them with
``$(VAR)``; those not overridden follow the declared ones, sorted by name
(Kubernetes appends them in map order, which is random).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = ["MASTER_SERVICES", "service_env"]

#: Services of ``default`` every pod sees, whatever its namespace.
MASTER_SERVICES: Final = frozenset({"kubernetes"})


def _has_cluster_ip(svc: Mapping[str, Any]) -> bool:
    """``IsServiceIPSet``: a cluster IP that is neither empty nor ``None``."""
    ip = (svc.get("spec") or {}).get("clusterIP")
    return bool(ip) and ip != "None"


def _var(name: str) -> str:
    return name.upper().replace("-", "_")


def _join(ip: str, port: Any) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _from_service(svc: Mapping[str, Any]) -> list[tuple[str, str]]:
    spec = svc.get("spec") or {}
    ports = [p for p in spec.get("ports") or [] if isinstance(p, Mapping)]
    if not ports:
        return []
    ip = str(spec.get("clusterIP"))
    prefix = _var(str((svc.get("metadata") or {}).get("name") or ""))
    out = [(f"{prefix}_SERVICE_HOST", ip), (f"{prefix}_SERVICE_PORT", str(ports[0].get("port")))]
    for port in ports:
        if port.get("name"):
            out.append((f"{prefix}_SERVICE_PORT_{_var(str(port['name']))}",
                        str(port.get("port"))))
    for i, port in enumerate(ports):
        proto = str(port.get("protocol") or "TCP")
        address = f"{proto.lower()}://{_join(ip, port.get('port'))}"
        if i == 0:
            out.append((f"{prefix}_PORT", address))
        base = f"{prefix}_PORT_{port.get('port')}_{proto.upper()}"
        out += [(base, address), (f"{base}_PROTO", proto.lower()),
                (f"{base}_PORT", str(port.get("port"))), (f"{base}_ADDR", ip)]
    return out


def service_env(services: Iterable[Mapping[str, Any]], namespace: str, *,
                enable_service_links: bool) -> dict[str, str]:
    """The variables the Services give a container of a pod in ``namespace``."""
    chosen: dict[str, Mapping[str, Any]] = {}
    for svc in services:
        meta = svc.get("metadata") or {}
        name = str(meta.get("name") or "")
        if not _has_cluster_ip(svc):
            continue
        if meta.get("namespace") == "default" and name in MASTER_SERVICES:
            chosen.setdefault(name, svc)
        elif meta.get("namespace") == namespace and enable_service_links:
            chosen[name] = svc
    env: dict[str, str] = {}
    for svc in chosen.values():
        env.update(_from_service(svc))
    return env
