"""Nodes (``DescribeNode``): roles, taints, conditions, capacity, system info,
and the node's non-terminated pods with what they request and limit against
its allocatable resources."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..access import mapping as _m
from ..access import mappings as _maps
from ..podrequests import combine_containers
from ..quantity import Quantity
from .sections import describe_events, print_annotations, print_labels
from .values import Obj, go_bool, qstr, quantity, rfc1123z, since, str_map
from .values import list_field as _l
from .values import str_field as _s
from .writer import Ctx, Out

_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
_NODE_ROLE_LABEL = "kubernetes.io/role"


def _taint_string(taint: Obj) -> str:
    """``Taint.ToString``."""
    key, value, effect = _s(taint.get("key")), _s(taint.get("value")), _s(taint.get("effect"))
    if not effect:
        return f"{key}={value}:" if value else key
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def _print_taints(w: Out, title: str, taints: list[Obj]) -> None:
    w.write(0, f"{title}:\t")
    if not taints:
        w.line("<none>")
        return
    ordered = sorted(taints, key=lambda t: _s(t.get("effect")) + "," + _s(t.get("key")))
    for i, taint in enumerate(ordered):
        if i:
            w.write(0, "")
            w.write(0, "\t")
        w.write(0, _taint_string(taint) + "\n")


def _resource_list(value: Any) -> dict[str, Quantity]:
    out: dict[str, Quantity] = {}
    for name, raw in _m(value).items():
        q = quantity(raw)
        if q is not None:
            out[str(name)] = q
    return out


def _add_resources(acc: dict[str, Quantity], items: Mapping[str, Quantity]) -> None:
    for name, q in items.items():
        acc[name] = acc[name] + q if name in acc else q  # Quantity keeps its format


def _pod_resources(pod: Obj, field: str) -> dict[str, Quantity]:
    """``resourcehelper.PodRequests`` / ``PodLimits``: the app containers' sum,
    sidecars (restartable init containers) included, or the largest init-time
    need if that is more; pod-level resources and overhead on top."""
    spec = _m(pod.get("spec"))
    pod_level = _resource_list(_m(spec.get("resources")).get(field))
    pod_level = {k: v for k, v in pod_level.items() if k in ("cpu", "memory")}
    overhead = _resource_list(spec.get("overhead"))
    if field == "limits" and pod_level:
        limits = dict(pod_level)
        _add_resources(limits, overhead)
        return limits
    total = combine_containers(
        spec, lambda c: _resource_list(_m(c.get("resources")).get(field)))
    if field == "requests":
        total.update(pod_level)
        _add_resources(total, overhead)
    else:
        _add_resources(total, {k: v for k, v in overhead.items() if k in total})
    return total


def _percent(part: int, whole: int) -> int:
    # int64(float64(part) / float64(whole) * 100), truncating toward zero.
    return int(part / whole * 100) if whole else 0


def _node_roles(labels: Mapping[str, str]) -> list[str]:
    roles: set[str] = set()
    for key, value in labels.items():
        if key.startswith(_NODE_ROLE_PREFIX):
            role = key.removeprefix(_NODE_ROLE_PREFIX)
            if role:
                roles.add(role)
        elif key == _NODE_ROLE_LABEL and value:
            roles.add(value)
    return sorted(roles)


def _print_lease(w: Out, name: str, leases: list[Obj], ctx: Ctx) -> None:
    """``describeNodeLease``, or the line kubectl writes when the Get fails."""
    if not leases:
        w.write(0, f'Lease:\tFailed to get lease: leases.coordination.k8s.io "{name}" '
                   "not found\n")
        return
    spec = _m(leases[0].get("spec"))
    w.write(0, "Lease:\n")
    holder = spec.get("holderIdentity")
    w.write(1, f"HolderIdentity:\t{_s(holder) if holder is not None else '<unset>'}\n")
    for field, label in (("acquireTime", "AcquireTime"), ("renewTime", "RenewTime")):
        value = spec.get(field)
        w.write(1, f"{label}:\t{rfc1123z(value, ctx) if value else '<unset>'}\n")


def describe_node(node: Obj, pods: list[Obj], events: list[Obj] | None, ctx: Ctx, *,
                  leases: list[Obj] | None = None) -> str:
    """``DescribeNode``; ``pods`` may hold pods of other nodes (left out).
    ``leases``: the node's Lease in ``kube-node-lease`` as a list of 0 or 1
    (none: kubectl's "Failed to get lease" line); ``None`` leaves the section out."""
    meta, spec, status = _m(node.get("metadata")), _m(node.get("spec")), _m(node.get("status"))
    labels = str_map(meta.get("labels"))
    w = Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Roles:\t{','.join(_node_roles(labels)) or '<none>'}\n")
    print_labels(w, "Labels", labels)
    print_annotations(w, "Annotations", str_map(meta.get("annotations")))
    w.write(0, f"CreationTimestamp:\t{rfc1123z(meta.get('creationTimestamp'), ctx)}\n")
    _print_taints(w, "Taints", _maps(spec.get("taints")))
    w.write(0, f"Unschedulable:\t{go_bool(spec.get('unschedulable'))}\n")
    if leases is not None:
        _print_lease(w, _s(meta.get("name")), leases, ctx)
    conditions = _maps(status.get("conditions"))
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\t"
                   "Reason\tMessage\n")
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(1, f"{_s(c.get('type'))} \t{_s(c.get('status'))} \t"
                       f"{rfc1123z(c.get('lastHeartbeatTime'), ctx)} \t"
                       f"{rfc1123z(c.get('lastTransitionTime'), ctx)} \t"
                       f"{_s(c.get('reason'))} \t{_s(c.get('message'))}\n")
    w.write(0, "Addresses:\n")
    for address in _maps(status.get("addresses")):
        w.write(1, f"{_s(address.get('type'))}:\t{_s(address.get('address'))}\n")
    for title, key in (("Capacity", "capacity"), ("Allocatable", "allocatable")):
        resources = _m(status.get(key))
        if resources:
            w.write(0, f"{title}:\n")
            for name in sorted(resources):
                w.write(0, f"  {name}:\t{qstr(resources[name])}\n")
    info = _m(status.get("nodeInfo"))
    w.write(0, "System Info:\n")
    for title, key in (("Machine ID", "machineID"), ("System UUID", "systemUUID"),
                       ("Boot ID", "bootID"), ("Kernel Version", "kernelVersion"),
                       ("OS Image", "osImage"), ("Operating System", "operatingSystem"),
                       ("Architecture", "architecture"),
                       ("Container Runtime Version", "containerRuntimeVersion"),
                       ("Kubelet Version", "kubeletVersion"),
                       ("Kube-Proxy Version", "kubeProxyVersion")):
        w.write(0, f"  {title}:\t{_s(info.get(key))}\n")
    if spec.get("podCIDR"):
        w.write(0, f"PodCIDR:\t{_s(spec.get('podCIDR'))}\n")
    if _l(spec.get("podCIDRs")):
        w.write(0, f"PodCIDRs:\t{','.join(_s(c) for c in _l(spec.get('podCIDRs')))}\n")
    if spec.get("providerID"):
        w.write(0, f"ProviderID:\t{_s(spec.get('providerID'))}\n")
    name = _s(meta.get("name"))
    running = [p for p in pods
               if _s(_m(p.get("spec")).get("nodeName")) == name
               and _s(_m(p.get("status")).get("phase")) not in ("Succeeded", "Failed")]
    running.sort(key=lambda p: (_s(_m(p.get("metadata")).get("namespace")),
                                _s(_m(p.get("metadata")).get("name"))))
    _describe_node_resource(running, status, w, ctx)
    describe_events(events, w, ctx)
    return w.render()


def _describe_node_resource(pods: list[Obj], status: Obj, w: Out, ctx: Ctx) -> None:
    w.write(0, f"Non-terminated Pods:\t({len(pods)} in total)\n")
    w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\t"
               "Memory Limits\tAge\n")
    w.write(1, "---------\t----\t\t------------\t----------\t---------------\t"
               "-------------\t---\n")
    allocatable = _resource_list(status.get("allocatable")) or _resource_list(
        status.get("capacity"))
    zero = Quantity(0)
    alloc_cpu = allocatable.get("cpu", zero).milli_value()
    alloc_mem = allocatable.get("memory", zero).value()
    for pod in pods:
        meta = _m(pod.get("metadata"))
        req, lim = _pod_resources(pod, "requests"), _pod_resources(pod, "limits")
        cpu_req, cpu_lim = req.get("cpu", zero), lim.get("cpu", zero)
        mem_req, mem_lim = req.get("memory", zero), lim.get("memory", zero)
        w.write(1, f"{_s(meta.get('namespace'))}\t{_s(meta.get('name'))}\t\t"
                   f"{cpu_req} ({_percent(cpu_req.milli_value(), alloc_cpu)}%)\t"
                   f"{cpu_lim} ({_percent(cpu_lim.milli_value(), alloc_cpu)}%)\t"
                   f"{mem_req} ({_percent(mem_req.value(), alloc_mem)}%)\t"
                   f"{mem_lim} ({_percent(mem_lim.value(), alloc_mem)}%)\t"
                   f"{since(meta.get('creationTimestamp'), ctx)}\n")
    w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., "
               "overcommitted.)\n")
    w.write(1, "Resource\tRequests\tLimits\n")
    w.write(1, "--------\t--------\t------\n")
    reqs: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    for pod in pods:
        _add_resources(reqs, _pod_resources(pod, "requests"))
        _add_resources(limits, _pod_resources(pod, "limits"))
    for name, scale in (("cpu", "milli"), ("memory", "unit"), ("ephemeral-storage", "unit")):
        whole = allocatable.get(name, zero)
        r, lmt = reqs.get(name, zero), limits.get(name, zero)
        if scale == "milli":
            rp, lp = (_percent(r.milli_value(), whole.milli_value()),
                      _percent(lmt.milli_value(), whole.milli_value()))
        else:
            rp, lp = _percent(r.value(), whole.value()), _percent(lmt.value(), whole.value())
        w.write(1, f"{name}\t{r} ({rp}%)\t{lmt} ({lp}%)\n")
    hugepages = sorted(n for n in allocatable if n.startswith("hugepages-"))
    extended = sorted(n for n in allocatable if not n.startswith("hugepages-")
                      and n not in ("cpu", "memory", "ephemeral-storage", "pods"))
    for name in hugepages:
        whole = allocatable[name]
        r, lmt = reqs.get(name, zero), limits.get(name, zero)
        w.write(1, f"{name}\t{r} ({_percent(r.value(), whole.value())}%)\t"
                   f"{lmt} ({_percent(lmt.value(), whole.value())}%)\n")
    for name in extended:
        w.write(1, f"{name}\t{reqs.get(name, zero)}\t{limits.get(name, zero)}\n")
