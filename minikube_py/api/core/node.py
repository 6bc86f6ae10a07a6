"""Node (core/v1): a machine pods run on (here, a virtual node).

Validation is ``ValidateNode`` / ``ValidateNodeUpdate``; status only through
``nodes/status``; describe lists the node's pods; events about a node are
matched by name (kubelets report them with the node's name as the uid).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..access import mapping as _m
from ..defaults import default_node
from ..describe.nodes import describe_node
from ..errors import (
    FieldError,
    FieldPath,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from ..generated import core_v1
from ..names import NAMESPACE_NODE_LEASE, is_qualified_name, is_valid_label_value
from ..printers import (
    D_CREATED,
    D_NAME,
    NONE,
    UNKNOWN,
    age_of,
    cell_list,
    cell_str,
    epoch,
)
from ..quantity import Quantity, QuantityError, validate_quantity
from ..resource import Column, KindInfo, Related, Resource
from ..validation_meta import (
    Errs,
    GoValue,
    as_list,
    as_map,
    as_str,
    go_quote,
    qualified_name,
    validate_object_meta,
    validate_object_meta_update,
)

INFO = KindInfo("Node", "", "v1", "nodes", "node", False, ("no",),
                field_labels=("spec.unschedulable",), subresources=("status", "proxy"))

# ------------------------------------------------------------------ validation

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _taint_gosyntax(taint: Mapping[str, Any]) -> GoValue:
    added = taint.get("timeAdded")
    time_added = "(*v1.Time)(nil)" if not added else "(*v1.Time)(0x...)"
    return GoValue(f"core.Taint{{Key:{go_quote(as_str(taint.get('key')))}, "
                   f"Value:{go_quote(as_str(taint.get('value')))}, "
                   f"Effect:{go_quote(as_str(taint.get('effect')))}, TimeAdded:{time_added}}}")


def _node_taints(taints: Any, path: FieldPath) -> Errs:
    """``validateNodeTaints``: key, value, effect; unique by key and effect."""
    errs: Errs = []
    seen: set[tuple[str, str]] = set()
    for i, raw in enumerate(as_list(taints)):
        taint = as_map(raw)
        sub = path.index(i)
        key, value, effect = (as_str(taint.get(k)) for k in ("key", "value", "effect"))
        errs.extend(qualified_name(key, sub.child("key")))
        msgs = is_valid_label_value(value)
        if msgs:
            errs.append(invalid(sub.child("value"), value, ";".join(msgs)))
        if not effect:
            errs.append(required(sub.child("effect"), ""))
        elif effect not in _TAINT_EFFECTS:
            errs.append(not_supported(sub.child("effect"), effect, _TAINT_EFFECTS))
        if (key, effect) in seen:
            errs.append(FieldError("Duplicate", str(sub), _taint_gosyntax(taint),
                                   "taints must be unique by key and effect pair"))
            continue
        seen.add((key, effect))
    return errs


def _node_resources(node: Mapping[str, Any]) -> Errs:
    """``ValidateNodeResources``; Kubernetes builds these paths with ``Child``,
    so they read ``status.capacity.cpu``, not ``status.capacity[cpu]``."""
    errs: Errs = []
    status = as_map(node.get("status"))
    for key in ("capacity", "allocatable"):
        for name, value in as_map(status.get(key)).items():
            path = FieldPath.root("status", key, str(name))
            errs.extend(validate_quantity(value, path))
            if "/" in str(name) and "kubernetes.io/" not in str(name):
                try:
                    q = Quantity.parse(value)
                except (QuantityError, TypeError):
                    continue
                if not is_qualified_name("requests." + str(name)) and q.milli_value() % 1000:
                    errs.append(invalid(path, GoValue(str(q)), "must be an integer"))
    return errs


def _valid_cidr(value: str) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return "/" in value


def _validate_node(node: Mapping[str, Any]) -> Errs:
    """``ValidateNode``."""
    meta_path = FieldPath.root("metadata")
    errs = validate_object_meta(node.get("metadata"), namespaced=False, name_rule="subdomain")
    spec = as_map(node.get("spec"))
    # Kubernetes reports taint errors under metadata.taints (it passes the
    # metadata path); users see exactly that.
    errs.extend(_node_taints(spec.get("taints"), meta_path.child("taints")))
    errs.extend(_node_resources(node))
    cidrs = [as_str(c) for c in as_list(spec.get("podCIDRs"))]
    cidrs_path = FieldPath.root("spec", "podCIDRs")
    for i, cidr in enumerate(cidrs):
        if not _valid_cidr(cidr):
            errs.append(invalid(cidrs_path.index(i), cidr,
                                "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
    if len(cidrs) > 1:
        families = set()
        for cidr in cidrs:
            if _valid_cidr(cidr):
                families.add(ipaddress.ip_network(cidr, strict=False).version)
        if len(cidrs) > 2 or len(families) != 2:
            errs.append(invalid(cidrs_path, GoValue(
                "[]string{" + ", ".join(go_quote(c) for c in cidrs) + "}"),
                "may specify no more than one CIDR for each IP family"))
        seen: set[str] = set()
        for i, cidr in enumerate(cidrs):
            if cidr in seen:
                errs.append(duplicate(cidrs_path.index(i), cidr))
            seen.add(cidr)
    return errs


def _validate_node_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> Errs:
    """``ValidateNode(new)`` followed by ``ValidateNodeUpdate``, as the node
    strategy runs them."""
    errs = _validate_node(new)
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    errs.extend(_node_resources(new))
    seen: list[tuple[str, str]] = []
    for i, raw in enumerate(as_list(as_map(new.get("status")).get("addresses"))):
        address = as_map(raw)
        pair = (as_str(address.get("type")), as_str(address.get("address")))
        if pair in seen:
            errs.append(duplicate(
                FieldPath.root("status", "addresses").index(i),
                GoValue(f"core.NodeAddress{{Type:{go_quote(pair[0])}, "
                        f"Address:{go_quote(pair[1])}}}")))
        seen.append(pair)
    new_spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    old_cidrs, new_cidrs = as_list(old_spec.get("podCIDRs")), as_list(new_spec.get("podCIDRs"))
    cidr_msg = 'node updates may not change podCIDR except from "" to valid'
    cidrs_path = FieldPath.root("spec", "podCIDRs")
    if old_cidrs:
        if len(old_cidrs) != len(new_cidrs):
            errs.append(forbidden(cidrs_path, cidr_msg))
        else:
            errs.extend(forbidden(cidrs_path, cidr_msg)
                        for a, b in zip(old_cidrs, new_cidrs, strict=True) if a != b)
    old_provider = as_str(old_spec.get("providerID"))
    if old_provider and old_provider != as_str(new_spec.get("providerID")):
        errs.append(forbidden(FieldPath.root("spec", "providerID"),
                              'node updates may not change providerID except from "" to valid'))
    errs.extend(_node_taints(new_spec.get("taints"), FieldPath.root("metadata", "taints")))
    if as_str(new_spec.get("externalID")) != as_str(old_spec.get("externalID")):
        errs.append(forbidden(FieldPath.root("spec", "externalID"), "may not be updated"))
    return errs


# ------------------------------------------------------------------ table

_D_NODE_ADDRESSES: Final = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. "
    "More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This "
    "field is declared as mergeable, but the merge key is not sufficiently unique, which can "
    "cause data corruption when it is merged. Callers should instead use a full-replacement "
    "patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that "
    "addresses can change during the lifetime of a Node. However, there are some exceptions "
    "where this may not be possible, such as Pods that inherit a Node's address in its own "
    "status or consumers of the downward API (status.hostIP)."
)

NODE_COLUMNS: Final = (
    Column("Name", "string", D_NAME, format="name"),
    Column("Status", "string", "The status of the node"),
    Column("Roles", "string", "The roles of the node"),
    Column("Age", "string", D_CREATED),
    Column("Version", "string", "Kubelet Version reported by the node."),
    Column("Internal-IP", "string", _D_NODE_ADDRESSES, priority=1),
    Column("External-IP", "string", _D_NODE_ADDRESSES, priority=1),
    Column("OS-Image", "string",
           "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 "
           "(wheezy)).", priority=1),
    Column("Kernel-Version", "string",
           "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
           priority=1),
    Column("Container-Runtime", "string",
           "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
           "containerd://1.4.2).", priority=1),
)


_ROLE_PREFIX: Final = "node-role.kubernetes.io/"
_ROLE_LABEL: Final = "kubernetes.io/role"


def _node_roles(labels: Mapping[str, Any]) -> str:
    roles: set[str] = set()
    for key, value in labels.items():
        if key.startswith(_ROLE_PREFIX):
            role = key[len(_ROLE_PREFIX):]
            if role:
                roles.add(role)
        elif key == _ROLE_LABEL and value:
            roles.add(str(value))
    return ",".join(sorted(roles)) or NONE


def _node_address(addresses: Sequence[Any], kind: str) -> str:
    for address in addresses:
        a = _m(address)
        if a.get("type") == kind:
            return cell_str(a.get("address"))
    return NONE


def _print_node(node: Mapping[str, Any], now: float) -> tuple[list[Any], None]:
    metadata = _m(node.get("metadata"))
    spec = _m(node.get("spec"))
    status = _m(node.get("status"))
    info = _m(status.get("nodeInfo"))
    ready_status: Any = None  # the last Ready condition wins, as in the Go map
    for condition in cell_list(status.get("conditions")):
        c = _m(condition)
        if c.get("type") == "Ready":
            ready_status = c.get("status")
    if ready_status is None:
        state = "Unknown"
    else:
        state = "Ready" if ready_status == "True" else "NotReady"
    if spec.get("unschedulable") is True:
        state += ",SchedulingDisabled"
    addresses = cell_list(status.get("addresses"))
    cells: list[Any] = [
        cell_str(metadata.get("name")),
        state,
        _node_roles(_m(metadata.get("labels"))),
        age_of(epoch(metadata.get("creationTimestamp")), now),
        cell_str(info.get("kubeletVersion")),
        _node_address(addresses, "InternalIP"),
        _node_address(addresses, "ExternalIP"),
        cell_str(info.get("osImage")) or UNKNOWN,
        cell_str(info.get("kernelVersion")) or UNKNOWN,
        cell_str(info.get("containerRuntimeVersion")) or UNKNOWN,
    ]
    return cells, None


# ------------------------------------------------------------------ resource


def _describe(node: Mapping[str, Any], related: Mapping[str, Any], events: Any,
              ctx: Any) -> str:
    return describe_node(node, list(related.get("pods", ())), events, ctx,
                         leases=list(related["lease"]) if "lease" in related else None)


def _lease_of(node: Mapping[str, Any]) -> str:
    """The node's heartbeat Lease (kubectl describe node reads it)."""
    name = (node.get("metadata") or {}).get("name", "")
    return f"metadata.namespace={NAMESPACE_NODE_LEASE},metadata.name={name}"


def _pods_on(node: Mapping[str, Any]) -> str:
    return f"spec.nodeName={(node.get('metadata') or {}).get('name', '')}"


RESOURCE = Resource(
    INFO, core_v1.Node,
    defaults=default_node,
    validate=_validate_node,
    validate_update=_validate_node_update,
    columns=NODE_COLUMNS,
    row=_print_node,
    describe=_describe,
    related=(Related("pods", "pods", field_selector=_pods_on),
             Related("lease", "leases", field_selector=_lease_of)),
    events_by_uid=False,
)
