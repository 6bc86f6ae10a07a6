"""One Podman network per cluster: the pod network.

Every cluster's pods join a bridge network of their own, named
``minikube-py-<cluster id>`` on a Linux bridge ``mk<cluster id>``, with a
subnet no other network or interface on this host uses. So clusters are
isolated from each other (and from Podman's default network), pod IPs are
stable in meaning (the subnet is the cluster's pod CIDR), and the Service
rules and cluster DNS can match this cluster's traffic by its bridge.

* **Subnet.** ``--pod-network-cidr`` if given; otherwise the first free /20
  of 10.244.0.0/14 (the block kubeadm's flannel add-on made familiar), free
  meaning it overlaps no Podman network and no address on any host
  interface. The choice is kept in ``STATE_DIR/network.json``, so a restart
  finds the same network (and the kernel rules that refer to it).
* **Gateway** is the subnet's first address; it is the bridge's address on the
  host, where the cluster DNS server and the API server listen for pods.
* **Podman's own DNS** (``dns_enabled``, dnsname/aardvark) is off: cluster DNS
  is ours.
* :func:`remove_network` deletes the network (its pods must be gone first)
  and the state file; a network that is already gone is fine.
  :func:`collect_dead_networks` removes those whose cluster's state directory
  (a label on the network) no longer exists.

Talks to Podman's libpod API only through :class:`~.podman_api.PodmanAPI`.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import psutil

from .base import LABEL_CLUSTER, ContainerRuntimeError
from .podman_api import PodmanAPI, PodmanNotFound

__all__ = ["LABEL_STATE_DIR", "ClusterNetwork", "choose_subnet", "collect_dead_networks",
           "ensure_network", "interface_name", "network_name", "remove_network"]

log = logging.getLogger(__name__)

STATE_FILE: Final = "network.json"
#: The state directory of the cluster a network belongs to: a network whose
#: directory is gone belongs to a removed cluster (:func:`collect_dead_networks`).
LABEL_STATE_DIR: Final = "minikube-py.io/state-dir"
#: Where automatic subnets are taken from, and their size.
AUTO_POOL: Final = ipaddress.IPv4Network("10.244.0.0/14")
AUTO_PREFIX: Final = 20


@dataclass(frozen=True)
class ClusterNetwork:
    """The cluster's pod network as created in Podman."""

    name: str
    subnet: str
    gateway: str
    interface: str


def network_name(cluster: str) -> str:
    return f"minikube-py-{cluster}"


def interface_name(cluster: str) -> str:
    """The bridge's name: at most 15 characters (the kernel's IFNAMSIZ - 1)."""
    return f"mk{cluster}"[:15]


def host_networks() -> list[ipaddress.IPv4Network]:
    """The IPv4 networks of every interface on this host."""
    out = []
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family.name != "AF_INET" or not address.netmask:
                continue
            try:
                out.append(ipaddress.IPv4Network(f"{address.address}/{address.netmask}",
                                                 strict=False))
            except ValueError:
                continue
    return out


def choose_subnet(taken: Iterable[ipaddress.IPv4Network]) -> ipaddress.IPv4Network:
    """The first /20 of :data:`AUTO_POOL` that overlaps nothing in ``taken``."""
    used = list(taken)
    for candidate in AUTO_POOL.subnets(new_prefix=AUTO_PREFIX):
        if not any(candidate.overlaps(net) for net in used):
            return candidate
    raise ContainerRuntimeError(
        f"no free /{AUTO_PREFIX} subnet in {AUTO_POOL} for the pod network: every one "
        "overlaps a Podman network or a host interface; pass --pod-network-cidr")


def _subnets_of(network: dict[str, Any]) -> list[ipaddress.IPv4Network]:
    out = []
    for entry in network.get("subnets") or []:
        try:
            net = ipaddress.ip_network(str(entry.get("subnet")), strict=False)
        except ValueError:
            continue
        if isinstance(net, ipaddress.IPv4Network):
            out.append(net)
    return out


def _read_state(state_dir: Path) -> ClusterNetwork | None:
    try:
        data = json.loads((state_dir / STATE_FILE).read_text())
        return ClusterNetwork(**{k: str(data[k]) for k in ("name", "subnet", "gateway",
                                                           "interface")})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_state(state_dir: Path, network: ClusterNetwork) -> None:
    path = state_dir / STATE_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(network), indent=1) + "\n")
    os.replace(tmp, path)


def _inspect(api: PodmanAPI, name: str) -> dict[str, Any] | None:
    try:
        data = api.json("GET", f"/networks/{name}/json", what=f"network {name}")
    except PodmanNotFound:
        return None
    return dict(data or {})


def ensure_network(api: PodmanAPI, cluster: str, state_dir: Path,
                   subnet: str | None = None) -> ClusterNetwork:
    """The cluster's network, created if missing (see the module docstring).

    Raises :class:`~.base.ContainerRuntimeError` naming the problem: a
    ``subnet`` that overlaps another network, or differs from the one this
    cluster's network already has."""
    name = network_name(cluster)
    wanted = ipaddress.IPv4Network(subnet, strict=True) if subnet else None
    existing = _inspect(api, name)
    if existing is not None:
        nets = _subnets_of(existing)
        if not nets:
            raise ContainerRuntimeError(f"Podman network {name} has no IPv4 subnet")
        if wanted is not None and nets[0] != wanted:
            raise ContainerRuntimeError(
                f"--pod-network-cidr {wanted}: this cluster's pod network {name} already "
                f"uses {nets[0]}; a cluster keeps its pod network")
        gateway = str((existing.get("subnets") or [{}])[0].get("gateway") or
                      next(nets[0].hosts()))
        network = ClusterNetwork(name, str(nets[0]), gateway,
                                 str(existing.get("network_interface") or
                                     interface_name(cluster)))
        _write_state(state_dir, network)
        return network
    others = api.json("GET", "/networks/json", what="networks") or []
    taken = [net for other in others for net in _subnets_of(other)]
    recorded = _read_state(state_dir)
    if wanted is None and recorded is not None and recorded.name == name:
        wanted = ipaddress.IPv4Network(recorded.subnet)  # recreate what we had
    if wanted is not None:
        clash = next((net for net in taken if net.overlaps(wanted)), None)
        if clash is not None:
            raise ContainerRuntimeError(f"pod network {wanted} overlaps the Podman network "
                                        f"subnet {clash}; choose another --pod-network-cidr")
        chosen = wanted
    else:
        chosen = choose_subnet([*taken, *host_networks()])
    gateway = str(next(chosen.hosts()))
    body = {"name": name, "driver": "bridge", "network_interface": interface_name(cluster),
            "subnets": [{"subnet": str(chosen), "gateway": gateway}],
            "dns_enabled": False, "internal": False, "ipv6_enabled": False,
            "labels": {LABEL_CLUSTER: cluster, LABEL_STATE_DIR: str(state_dir.resolve())}}
    api.json("POST", "/networks/create", body=body, what=f"creating network {name}")
    network = ClusterNetwork(name, str(chosen), gateway, interface_name(cluster))
    _write_state(state_dir, network)
    log.info("created the pod network %s: %s on bridge %s (gateway %s)", name, chosen,
             network.interface, gateway)
    return network


def collect_dead_networks(api: PodmanAPI) -> list[str]:
    """Remove the pod networks of clusters whose state directory is gone (and
    that no container uses any more); returns their names."""
    removed = []
    for network in api.json("GET", "/networks/json", what="networks") or []:
        labels = network.get("labels") or {}
        owner = labels.get(LABEL_STATE_DIR)
        cluster = labels.get(LABEL_CLUSTER)
        if not owner or not cluster or os.path.isdir(owner):
            continue
        try:
            api.json("DELETE", f"/networks/{network.get('name')}",
                     what=f"removing network {network.get('name')}")
        except ContainerRuntimeError as exc:  # still in use: its pods are still running
            log.info("left the pod network %s of a removed cluster: %s", network.get("name"),
                     exc)
            continue
        removed.append(str(network.get("name")))
        log.info("removed the pod network %s: its cluster's state directory %s is gone",
                 network.get("name"), owner)
    return removed


def remove_network(api: PodmanAPI, cluster: str, state_dir: Path | None = None) -> bool:
    """Delete the cluster's network; True if there was one. Its pods must be gone."""
    name = network_name(cluster)
    try:
        api.json("DELETE", f"/networks/{name}", what=f"removing network {name}")
        removed = True
    except PodmanNotFound:
        removed = False
    if state_dir is not None:
        (state_dir / STATE_FILE).unlink(missing_ok=True)
    return removed
