"""The cluster state the scheduler sees, kept incrementally as NumPy arrays.

A :class:`Snapshot` plays kube-scheduler's cache *and* its per-cycle snapshot:
the scheduling loop feeds it node and pod events, assumes pods it has just
placed, and hands it to :meth:`Framework.schedule`. Nothing is rebuilt per
cycle; every update touches only what changed.

Layout
------
Each node owns a *slot*: a row in dense arrays of allocatable and requested
resources (``[slot, resource]``; cpu in millicores, memory and
ephemeral-storage in bytes, ``pods`` as a count, extended resources in
units), non-zero requests for scoring, ``spec.unschedulable``, an interned
taint-set id, one int32 column per label key (value ids, -1 when absent),
one bool column per image name and a count of host ports in use. Slots are
stable while a node exists and are reused after it is removed, so plugins
compute over whole columns and gather the nodes they need.

Contract
--------
* **Accounting follows Kubernetes' pod request rules** (:mod:`.requests`):
  sums of app containers and sidecars, the largest init-container phase,
  plus overhead; non-zero requests use the 100m / 200Mi defaults.
* **Never negative**: a pod's contribution is remembered when it is added and
  exactly that is subtracted when it leaves (and the arrays are clamped at 0).
* **Unknown is a no-op**: removing a pod or node the snapshot never saw, or
  forgetting a pod that is not assumed, does nothing.
* Pods are keyed by ``metadata.uid`` (``namespace/name`` when there is none).
  Only pods with ``spec.nodeName`` are accounted; pods in phase ``Succeeded``
  or ``Failed`` are dropped, as kube-scheduler's informer filters them out.
  A pod may arrive before its node: it is kept and charged when the node
  appears, and it survives the node's removal (as in kube-scheduler's cache).
* :meth:`assume` charges a pod to a node exactly like a bound one and is
  idempotent; the bound pod arriving later (``add_pod``/``update_pod``)
  replaces the assumed record; :meth:`forget` undoes only an assumption.
* :meth:`nominate` records a pod that preemption made room for. Nominated
  pods are not charged to their node's arrays; Filter adds those of priority
  greater than or equal to the pod being scheduled (kube-scheduler's
  ``addNominatedPods``). Assuming or binding a pod clears its nomination.
* Node order (:meth:`order`) is kube-scheduler's node tree: nodes grouped by
  zone (``region:\\x00:zone``), zones in order of first appearance, and the
  list interleaves zones round-robin.
* Namespace labels (for ``namespaceSelector`` in pod affinity) come from
  :meth:`set_namespace`; unknown namespaces have no labels.

Not thread-safe: one scheduling loop owns a snapshot. During preemption
dry-runs :class:`~.framework.Framework` temporarily detaches and re-attaches
pods; the state afterwards is identical.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..api.access import mapping as _map
from ..api.podrequests import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    is_scalar_resource_name,
    resource_list_values,
)
from .podinfo import HostPort, PodInfo, Taint, pod_uid

__all__ = ["COL_CPU", "COL_EPHEMERAL", "COL_MEMORY", "COL_PODS", "PodRecord", "Slots",
           "Snapshot"]

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
#: Node slots, and every other array used to index one: of NumPy's own index
#: type. A gather with int32 indices casts them first, and that cast hands
#: the interpreter lock away at any size (a wait of up to the 5 ms switch
#: interval in a busy daemon); with ``intp`` a gather of a few hundred
#: elements keeps it.
Slots = npt.NDArray[np.intp]
BoolArr = npt.NDArray[np.bool_]
F64 = npt.NDArray[np.float64]

COL_CPU: Final = 0
COL_MEMORY: Final = 1
COL_EPHEMERAL: Final = 2
COL_PODS: Final = 3
_FIXED: Final = {CPU: COL_CPU, MEMORY: COL_MEMORY, EPHEMERAL_STORAGE: COL_EPHEMERAL,
                 PODS: COL_PODS}
_TERMINAL: Final = frozenset({"Succeeded", "Failed"})
_ZONE_LABELS: Final = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")
_REGION_LABELS: Final = ("failure-domain.beta.kubernetes.io/region",
                         "topology.kubernetes.io/region")
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1




def zone_key(labels: Mapping[str, str]) -> str:
    """``utilnode.GetZoneKey``: beta labels win over GA ones; "" without either."""
    zone = next((labels[k] for k in _ZONE_LABELS if k in labels), "")
    region = next((labels[k] for k in _REGION_LABELS if k in labels), "")
    if not zone and not region:
        return ""
    return f"{region}:\x00:{zone}"


def _int_value(text: str) -> float:
    """The label value as a number when it is a Go int64 literal, else NaN."""
    try:
        value = int(text, 10)
    except ValueError:
        return float("nan")
    if "_" in text or not _INT64_MIN <= value <= _INT64_MAX:
        return float("nan")
    return float(value)


def _same_charge(old: PodInfo, new: PodInfo) -> bool:
    """``new`` is indexed and charged exactly as ``old``: every field a record's
    links and charge are made of is the same object (as :meth:`PodInfo.updated`
    leaves them) or equal."""
    return (old.uid == new.uid and old.namespace == new.namespace
            and (old.requests is new.requests or old.requests == new.requests)
            and old.nonzero_cpu == new.nonzero_cpu and old.nonzero_memory == new.nonzero_memory
            and (old.host_ports is new.host_ports or old.host_ports == new.host_ports)
            and old.has_affinity == new.has_affinity
            and bool(old.required_anti_affinity_terms) == bool(new.required_anti_affinity_terms))


class PodRecord:
    """One accounted pod: its parsed info and what it was charged."""

    __slots__ = ("assumed", "charge", "entry", "info")

    def __init__(self, info: PodInfo, entry: _NodeEntry, assumed: bool,
                 charge: tuple[tuple[int, int], ...]) -> None:
        self.info = info
        self.entry = entry
        self.assumed = assumed
        self.charge = charge

    @property
    def node_name(self) -> str:
        return self.entry.name

    @property
    def slot(self) -> int:
        return self.entry.slot


class _NodeEntry:
    __slots__ = ("images", "labels", "name", "node", "pods", "ports", "slot", "taints", "zone")

    def __init__(self, name: str) -> None:
        self.name = name
        self.slot = -1
        self.node: Mapping[str, Any] | None = None
        self.labels: dict[str, str] = {}
        self.taints: tuple[Taint, ...] = ()
        self.pods: dict[str, PodRecord] = {}
        self.ports: dict[HostPort, int] = {}
        self.images: frozenset[str] = frozenset()
        self.zone = ""


class Snapshot:
    """Incremental cluster state for scheduling; see the module docstring."""

    def __init__(self, capacity: int = 64) -> None:
        cap = max(1, capacity)
        self._cap = cap
        self._res_index: dict[str, int] = dict(_FIXED)
        self._res_names: list[str] = [CPU, MEMORY, EPHEMERAL_STORAGE, PODS]
        r = len(self._res_names)
        self._alloc: I64 = np.zeros((cap, r), np.int64)
        self._req: I64 = np.zeros((cap, r), np.int64)
        self._nonzero: I64 = np.zeros((cap, 2), np.int64)
        self._valid: BoolArr = np.zeros(cap, np.bool_)
        self._unsched: BoolArr = np.zeros(cap, np.bool_)
        self._taint_set: Slots = np.zeros(cap, np.intp)  # indexes look-up tables
        self._port_count: I64 = np.zeros(cap, np.int64)
        self._labels: dict[str, I32] = {}
        self._absent: I32 = np.full(cap, -1, np.int32)
        self._value_ids: dict[str, int] = {}
        self._value_strs: list[str] = []
        self._value_ints: list[float] = []
        self._value_ints_arr: F64 | None = None
        self._images: dict[str, BoolArr] = {}
        self._image_size: dict[str, int] = {}
        self._image_count: dict[str, int] = {}
        self._taint_sets: list[tuple[Taint, ...]] = [()]
        self._taint_set_ids: dict[tuple[Taint, ...], int] = {(): 0}
        self._entries: dict[str, _NodeEntry] = {}
        self._by_slot: list[_NodeEntry | None] = [None] * cap
        self._free: list[int] = list(range(cap - 1, -1, -1))
        self._zones: dict[str, list[str]] = {}
        self._order: Slots | None = None
        self._names: tuple[str, ...] | None = None
        self._num_nodes = 0
        self._pods: dict[str, PodRecord] = {}
        self._by_ns: dict[str, dict[str, PodRecord]] = {}
        self._with_affinity: dict[str, PodRecord] = {}
        self._with_required_anti: dict[str, PodRecord] = {}
        self._nominated: dict[str, tuple[PodInfo, str]] = {}
        self._nominated_by_node: dict[str, dict[str, PodInfo]] = {}
        self._namespaces: dict[str, dict[str, str]] = {}
        #: Bumped whenever the set of nodes changes (slots/names/order).
        self.generation = 0

    # ------------------------------------------------------------------ nodes

    def add_node(self, node: Mapping[str, Any]) -> None:
        """Add a node (or update it when already known)."""
        name = str(_map(node.get("metadata")).get("name") or "")
        if not name:
            return
        entry = self._entries.get(name)
        if entry is not None and entry.slot >= 0:
            self.update_node(node)
            return
        if entry is None:
            entry = self._entries[name] = _NodeEntry(name)
        slot = self._take_slot()
        entry.slot = slot
        self._by_slot[slot] = entry
        self._valid[slot] = True
        self._num_nodes += 1
        self._set_node_fields(entry, node)
        for rec in entry.pods.values():
            self._charge(slot, rec, +1)
            self._add_ports(entry, rec.info.host_ports, +1)
        self._tree_add(entry)
        self._membership_changed()

    def update_node(self, node: Mapping[str, Any]) -> None:
        """Replace a node's labels, taints, allocatable, images; pods stay."""
        name = str(_map(node.get("metadata")).get("name") or "")
        entry = self._entries.get(name)
        if entry is None or entry.slot < 0:
            self.add_node(node)
            return
        old_zone = entry.zone
        self._set_node_fields(entry, node)
        if entry.zone != old_zone:
            # nodeTree.updateNode: remove from the old zone, append to the new.
            self._tree_remove(entry, old_zone)
            self._tree_add(entry)
            self._order = None

    def remove_node(self, node: Mapping[str, Any] | str) -> None:
        """Remove a node; its pods stay known (charged again if it returns)."""
        name = node if isinstance(node, str) else str(
            _map(node.get("metadata")).get("name") or "")
        entry = self._entries.get(name)
        if entry is None or entry.slot < 0:
            return
        slot = entry.slot
        self._clear_labels(entry)
        self._set_images(entry, frozenset(), slot)
        self._tree_remove(entry, entry.zone)
        self._alloc[slot] = 0
        self._req[slot] = 0
        self._nonzero[slot] = 0
        self._valid[slot] = False
        self._unsched[slot] = False
        self._taint_set[slot] = 0
        self._port_count[slot] = 0
        self._by_slot[slot] = None
        self._free.append(slot)
        entry.slot = -1
        entry.node = None
        entry.taints = ()
        entry.ports = {}
        self._num_nodes -= 1
        if not entry.pods:
            del self._entries[name]
        self._membership_changed()

    def _set_node_fields(self, entry: _NodeEntry, node: Mapping[str, Any]) -> None:
        slot = entry.slot
        meta = _map(node.get("metadata"))
        spec = _map(node.get("spec"))
        status = _map(node.get("status"))
        entry.node = node
        alloc = resource_list_values(status.get("allocatable"))
        self._alloc[slot] = 0
        for res_name, value in alloc.items():
            if res_name in _FIXED or is_scalar_resource_name(res_name):
                col = self._resource(res_name)  # may widen the arrays: look up first
                self._alloc[slot, col] = max(0, value)
        self._unsched[slot] = bool(spec.get("unschedulable"))
        taints = tuple(t for t in map(Taint.parse, spec.get("taints") or []) if t is not None)
        entry.taints = taints
        self._taint_set[slot] = self._intern_taints(taints)
        labels = {str(k): str(v) for k, v in _map(meta.get("labels")).items()}
        self._clear_labels(entry)
        entry.labels = labels
        for key, text in labels.items():
            column = self._labels.get(key)
            if column is None:
                column = self._labels[key] = np.full(self._cap, -1, np.int32)
            column[slot] = self._intern_value(text)
        entry.zone = zone_key(labels)
        images: dict[str, int] = {}
        for image in status.get("images") or []:
            image = _map(image)
            size = image.get("sizeBytes")
            for image_name in image.get("names") or []:
                images.setdefault(str(image_name), size if isinstance(size, int) else 0)
        self._set_images(entry, frozenset(images), slot, images)

    def _clear_labels(self, entry: _NodeEntry) -> None:
        for key in entry.labels:
            self._labels[key][entry.slot] = -1
        entry.labels = {}

    def _set_images(self, entry: _NodeEntry, names: frozenset[str], slot: int,
                    sizes: Mapping[str, int] | None = None) -> None:
        for name in entry.images - names:
            self._images[name][slot] = False
            self._image_count[name] -= 1
            if self._image_count[name] == 0:
                # kube-scheduler drops an image state with no nodes left.
                del self._image_count[name], self._image_size[name], self._images[name]
        for name in names - entry.images:
            if name not in self._images:
                self._images[name] = np.zeros(self._cap, np.bool_)
                self._image_count[name] = 0
                # The first node to report an image decides its size.
                self._image_size[name] = (sizes or {}).get(name, 0)
            self._images[name][slot] = True
            self._image_count[name] += 1
        entry.images = names

    # ------------------------------------------------------------------- pods

    def add_pod(self, pod: Mapping[str, Any] | PodInfo) -> None:
        """Account a pod bound to a node (``spec.nodeName``); replaces any
        earlier record of the same pod, including an assumed one."""
        if isinstance(pod, PodInfo):
            info = pod
            old = self._pods.get(info.uid)
        else:
            old = self._pods.get(pod_uid(pod))
            # A newer version of a pod accounted already (its binding confirmed,
            # its status written) reuses what was parsed from its spec.
            info = PodInfo(pod) if old is None else old.info.updated(pod)
        if not info.node_name or info.phase in _TERMINAL:
            self.remove_pod(info)
            return
        self._clear_nomination(info.uid)
        if old is not None and old.entry.name == info.node_name and _same_charge(old.info, info):
            # The same footprint on the same node: the record stays where it is
            # and reads the new version (no charge taken off and put back).
            old.info = info
            old.assumed = False
            return
        if old is not None:
            self._detach(old)
        self._attach(info, info.node_name, assumed=False)

    def update_pod(self, pod: Mapping[str, Any] | PodInfo) -> None:
        """Same as :meth:`add_pod`: the new object replaces the old one."""
        self.add_pod(pod)

    def remove_pod(self, pod: Mapping[str, Any] | PodInfo | str) -> None:
        """Stop accounting a pod (by object, PodInfo or uid); unknown is a no-op."""
        if isinstance(pod, str):
            uid = pod
        else:
            uid = pod.uid if isinstance(pod, PodInfo) else PodInfo(pod).uid
        rec = self._pods.get(uid)
        if rec is not None:
            self._detach(rec)

    def assume(self, pod: Mapping[str, Any] | PodInfo, node_name: str) -> None:
        """Charge ``pod`` to ``node_name`` before the binding is confirmed.

        Idempotent; assuming on another node moves the pod. A bound record of
        the same pod on the same node is left as it is.
        """
        info = pod if isinstance(pod, PodInfo) else PodInfo(pod)
        old = self._pods.get(info.uid)
        if old is not None:
            if old.node_name == node_name:
                return
            self._detach(old)
        self._clear_nomination(info.uid)
        self._attach(info, node_name, assumed=True)

    def forget(self, pod: Mapping[str, Any] | PodInfo | str) -> None:
        """Undo :meth:`assume` (binding failed); bound pods are not touched."""
        if isinstance(pod, str):
            uid = pod
        else:
            uid = pod.uid if isinstance(pod, PodInfo) else PodInfo(pod).uid
        rec = self._pods.get(uid)
        if rec is not None and rec.assumed:
            self._detach(rec)

    def is_assumed(self, uid: str) -> bool:
        rec = self._pods.get(uid)
        return rec is not None and rec.assumed

    def detach(self, rec: PodRecord) -> None:
        """Take an accounted pod out temporarily (preemption dry runs)."""
        self._detach(rec)

    def reattach(self, rec: PodRecord) -> None:
        """Put back a record taken out with :meth:`detach`, unchanged."""
        if rec.info.uid not in self._pods:
            self._link(rec)

    def _attach(self, info: PodInfo, node_name: str, *, assumed: bool) -> PodRecord:
        entry = self._entries.get(node_name)
        if entry is None:
            entry = self._entries[node_name] = _NodeEntry(node_name)
        charge = tuple((self._resource(name), value) for name, value in info.requests.items()
                       if value and (name in (CPU, MEMORY, EPHEMERAL_STORAGE)
                                     or is_scalar_resource_name(name)))
        rec = PodRecord(info, entry, assumed, charge)
        self._link(rec)
        return rec

    def _link(self, rec: PodRecord) -> None:
        info, entry = rec.info, rec.entry
        if entry.name not in self._entries:
            self._entries[entry.name] = entry
        entry.pods[info.uid] = rec
        if entry.slot >= 0:
            self._charge(entry.slot, rec, +1)
            self._add_ports(entry, info.host_ports, +1)
        self._pods[info.uid] = rec
        self._by_ns.setdefault(info.namespace, {})[info.uid] = rec
        if info.has_affinity:
            self._with_affinity[info.uid] = rec
        if info.required_anti_affinity_terms:
            self._with_required_anti[info.uid] = rec

    def _detach(self, rec: PodRecord) -> None:
        info, entry = rec.info, rec.entry
        if entry.pods.pop(info.uid, None) is None:
            return
        if entry.slot >= 0:
            self._charge(entry.slot, rec, -1)
            self._add_ports(entry, info.host_ports, -1)
        elif not entry.pods:
            self._entries.pop(entry.name, None)
        self._pods.pop(info.uid, None)
        ns = self._by_ns.get(info.namespace)
        if ns is not None:
            ns.pop(info.uid, None)
            if not ns:
                del self._by_ns[info.namespace]
        self._with_affinity.pop(info.uid, None)
        self._with_required_anti.pop(info.uid, None)

    def _charge(self, slot: int, rec: PodRecord, sign: int) -> None:
        req = self._req
        for col, value in rec.charge:
            req[slot, col] = max(0, int(req[slot, col]) + sign * value)
        req[slot, COL_PODS] = max(0, int(req[slot, COL_PODS]) + sign)
        nz = self._nonzero
        nz[slot, 0] = max(0, int(nz[slot, 0]) + sign * rec.info.nonzero_cpu)
        nz[slot, 1] = max(0, int(nz[slot, 1]) + sign * rec.info.nonzero_memory)

    def _add_ports(self, entry: _NodeEntry, ports: Iterable[HostPort], sign: int) -> None:
        for port in ports:
            count = entry.ports.get(port, 0) + sign
            if count > 0:
                entry.ports[port] = count
            else:
                entry.ports.pop(port, None)
            self._port_count[entry.slot] = max(0, int(self._port_count[entry.slot]) + sign)

    # ------------------------------------------------------------- nomination

    def nominate(self, pod: Mapping[str, Any] | PodInfo, node_name: str) -> None:
        """Record that ``pod`` is expected on ``node_name`` (after preemption)."""
        info = pod if isinstance(pod, PodInfo) else PodInfo(pod)
        self._clear_nomination(info.uid)
        self._nominated[info.uid] = (info, node_name)
        self._nominated_by_node.setdefault(node_name, {})[info.uid] = info

    def clear_nomination(self, pod: Mapping[str, Any] | PodInfo | str) -> None:
        if isinstance(pod, str):
            uid = pod
        else:
            uid = pod.uid if isinstance(pod, PodInfo) else PodInfo(pod).uid
        self._clear_nomination(uid)

    def _clear_nomination(self, uid: str) -> None:
        old = self._nominated.pop(uid, None)
        if old is None:
            return
        by_node = self._nominated_by_node.get(old[1])
        if by_node is not None:
            by_node.pop(uid, None)
            if not by_node:
                del self._nominated_by_node[old[1]]

    def nominated_pods(self, node_name: str) -> list[PodInfo]:
        return list(self._nominated_by_node.get(node_name, {}).values())

    def nominated_node(self, uid: str) -> str | None:
        entry = self._nominated.get(uid)
        return entry[1] if entry else None

    def nominated_charges(self, priority: int, uid: str
                          ) -> list[tuple[int, list[PodInfo]]]:
        """Per node slot, the nominated pods that count against a pod of
        ``priority`` (``>=``, never the pod itself), as ``addNominatedPods``."""
        out: list[tuple[int, list[PodInfo]]] = []
        for node_name, pods in self._nominated_by_node.items():
            entry = self._entries.get(node_name)
            if entry is None or entry.slot < 0:
                continue
            counted = [p for p in pods.values() if p.priority >= priority and p.uid != uid]
            if counted:
                out.append((entry.slot, counted))
        return out

    def charge_vector(self, info: PodInfo) -> I64:
        """``info``'s requests as a row over the resource columns (pods = 1)."""
        row = np.zeros(len(self._res_names), np.int64)
        for name, value in info.requests.items():
            if name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar_resource_name(name):
                row[self._resource(name)] += value
        row[COL_PODS] = 1
        return row

    # ------------------------------------------------------------ namespaces

    def set_namespace(self, namespace: Mapping[str, Any]) -> None:
        meta = _map(namespace.get("metadata"))
        name = str(meta.get("name") or "")
        if name:
            self._namespaces[name] = {str(k): str(v) for k, v in _map(meta.get("labels")).items()}

    def remove_namespace(self, namespace: Mapping[str, Any] | str) -> None:
        name = namespace if isinstance(namespace, str) else str(
            _map(namespace.get("metadata")).get("name") or "")
        self._namespaces.pop(name, None)

    def namespace_labels(self, name: str) -> dict[str, str] | None:
        return self._namespaces.get(name)

    def namespaces(self) -> Mapping[str, Mapping[str, str]]:
        return self._namespaces

    # ---------------------------------------------------------------- queries

    @property
    def num_nodes(self) -> int:
        return self._num_nodes

    @property
    def node_names(self) -> list[str]:
        """Node names in scheduling (node-tree) order."""
        names = self.names_by_slot()
        return [names[s] for s in self.order()]

    @property
    def capacity(self) -> int:
        return self._cap

    def order(self) -> Slots:
        """Slots of all nodes in node-tree order (zones interleaved)."""
        if self._order is None:
            lists = list(self._zones.values())
            names: list[str] = []
            i = 0
            while len(names) < self._num_nodes:
                for zone_nodes in lists:
                    if i < len(zone_nodes):
                        names.append(zone_nodes[i])
                i += 1
            self._order = np.fromiter((self._entries[n].slot for n in names), np.intp,
                                      len(names))
        return self._order

    def names_by_slot(self) -> tuple[str, ...]:
        """Node name per slot ("" for free slots); shared until nodes change."""
        if self._names is None:
            self._names = tuple(e.name if e is not None else "" for e in self._by_slot)
        return self._names

    def slot_of(self, name: str) -> int:
        entry = self._entries.get(name)
        return entry.slot if entry is not None else -1

    def name_of(self, slot: int) -> str:
        entry = self._by_slot[slot]
        return entry.name if entry is not None else ""

    def node(self, name: str) -> Mapping[str, Any] | None:
        entry = self._entries.get(name)
        return entry.node if entry is not None else None

    def labels_of(self, slot: int) -> Mapping[str, str]:
        entry = self._by_slot[slot]
        return entry.labels if entry is not None else {}

    def taints_of(self, slot: int) -> tuple[Taint, ...]:
        entry = self._by_slot[slot]
        return entry.taints if entry is not None else ()

    def ports_of(self, slot: int) -> Mapping[HostPort, int]:
        entry = self._by_slot[slot]
        return entry.ports if entry is not None else {}

    def pods_on(self, slot: int) -> Iterable[PodRecord]:
        entry = self._by_slot[slot]
        return tuple(entry.pods.values()) if entry is not None else ()

    def pods_on_node(self, name: str) -> list[PodRecord]:
        entry = self._entries.get(name)
        return list(entry.pods.values()) if entry is not None else []

    def pods(self) -> Iterator[PodRecord]:
        return iter(tuple(self._pods.values()))

    def pod(self, uid: str) -> PodRecord | None:
        return self._pods.get(uid)

    def pods_in_namespace(self, namespace: str) -> Iterable[PodRecord]:
        return tuple(self._by_ns.get(namespace, {}).values())

    def pods_with_affinity(self) -> Iterable[PodRecord]:
        return tuple(self._with_affinity.values())

    def pods_with_required_anti_affinity(self) -> Iterable[PodRecord]:
        return tuple(self._with_required_anti.values())

    @property
    def num_pods(self) -> int:
        return len(self._pods)

    # Arrays: read-only by convention; rows are slots (see order()/valid).
    @property
    def allocatable(self) -> I64:
        return self._alloc

    @property
    def requested(self) -> I64:
        return self._req

    @property
    def nonzero_requested(self) -> I64:
        """``[slot, 0]`` millicores and ``[slot, 1]`` bytes, with defaults."""
        return self._nonzero

    @property
    def valid(self) -> BoolArr:
        return self._valid

    @property
    def unschedulable(self) -> BoolArr:
        return self._unsched

    @property
    def taint_set_ids(self) -> Slots:
        return self._taint_set

    @property
    def taint_sets(self) -> list[tuple[Taint, ...]]:
        return self._taint_sets

    @property
    def port_counts(self) -> I64:
        return self._port_count

    @property
    def resource_names(self) -> list[str]:
        return self._res_names

    def resource_column(self, name: str) -> int:
        """Column of a resource, or -1 when no node or pod has mentioned it."""
        return self._res_index.get(name, -1)

    def label_column(self, key: str) -> I32:
        """Value ids of label ``key`` per slot (-1 when absent)."""
        col = self._labels.get(key)
        return col if col is not None else self._absent

    def value_id(self, value: str) -> int:
        """Id of a label value, or -2 (matches nothing) if no node carries it."""
        return self._value_ids.get(value, -2)

    def value_str(self, vid: int) -> str:
        return self._value_strs[vid]

    def value_count(self) -> int:
        return len(self._value_ints)

    def value_ints(self) -> F64:
        """Per value id, the value as an int64 number, NaN when it is not one."""
        if self._value_ints_arr is None or len(self._value_ints_arr) != len(self._value_ints):
            self._value_ints_arr = np.array(self._value_ints, np.float64)
        return self._value_ints_arr

    def image_column(self, name: str) -> BoolArr | None:
        return self._images.get(name)

    def image_state(self, name: str) -> tuple[int, int]:
        """``(size_bytes, num_nodes)`` of a normalised image name; (0, 0) if unknown."""
        return self._image_size.get(name, 0), self._image_count.get(name, 0)

    def allocatable_of(self, name: str) -> dict[str, int]:
        slot = self.slot_of(name)
        if slot < 0:
            return {}
        return {r: int(self._alloc[slot, i]) for i, r in enumerate(self._res_names)}

    def requested_of(self, name: str) -> dict[str, int]:
        slot = self.slot_of(name)
        if slot < 0:
            return {}
        return {r: int(self._req[slot, i]) for i, r in enumerate(self._res_names)}

    # -------------------------------------------------------------- internals

    def _resource(self, name: str) -> int:
        col = self._res_index.get(name)
        if col is None:
            col = len(self._res_names)
            self._res_index[name] = col
            self._res_names.append(name)
            pad = np.zeros((self._cap, 1), np.int64)
            self._alloc = np.hstack((self._alloc, pad))
            self._req = np.hstack((self._req, pad))
        return col

    def _intern_value(self, value: str) -> int:
        vid = self._value_ids.get(value)
        if vid is None:
            vid = self._value_ids[value] = len(self._value_ints)
            self._value_strs.append(value)
            self._value_ints.append(_int_value(value))
        return vid

    def _intern_taints(self, taints: tuple[Taint, ...]) -> int:
        tid = self._taint_set_ids.get(taints)
        if tid is None:
            tid = self._taint_set_ids[taints] = len(self._taint_sets)
            self._taint_sets.append(taints)
        return tid

    def _take_slot(self) -> int:
        if not self._free:
            self._grow(self._cap * 2)
        return self._free.pop()

    def _grow(self, cap: int) -> None:
        old = self._cap
        extra = cap - old

        def grow(arr: Any, fill: Any = 0) -> Any:
            pad = np.full((extra, *arr.shape[1:]), fill, arr.dtype)
            return np.concatenate((arr, pad))

        self._alloc = grow(self._alloc)
        self._req = grow(self._req)
        self._nonzero = grow(self._nonzero)
        self._valid = grow(self._valid, False)
        self._unsched = grow(self._unsched, False)
        self._taint_set = grow(self._taint_set)
        self._port_count = grow(self._port_count)
        self._labels = {k: grow(v, -1) for k, v in self._labels.items()}
        self._absent = np.full(cap, -1, np.int32)
        self._images = {k: grow(v, False) for k, v in self._images.items()}
        self._by_slot.extend([None] * extra)
        self._free = list(range(cap - 1, old - 1, -1)) + self._free
        self._cap = cap
        self._names = None

    def _tree_add(self, entry: _NodeEntry) -> None:
        self._zones.setdefault(entry.zone, []).append(entry.name)
        self._order = None

    def _tree_remove(self, entry: _NodeEntry, zone: str) -> None:
        names = self._zones.get(zone)
        if names is None:
            return
        try:
            names.remove(entry.name)
        except ValueError:
            return
        if not names:
            del self._zones[zone]
        self._order = None

    def _membership_changed(self) -> None:
        self._order = None
        self._names = None
        self.generation += 1
