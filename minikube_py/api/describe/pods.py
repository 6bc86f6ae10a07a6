"""Pods (``DescribePod``) and pod templates (``DescribePodTemplate``, the
template of a Deployment, a ReplicaSet or a ``rollout history`` revision)."""

from __future__ import annotations

from collections.abc import Mapping

from ..access import mapping as _m
from ..access import mappings as _maps
from ..qos import qos_class
from .containers import describe_containers, describe_resources
from .sections import describe_events, print_annotations, print_labels
from .values import Obj, controller_of, format_label_selector, parse_time, rfc1123z, since, str_map
from .values import int_field as _i
from .values import str_field as _s
from .volumes import describe_volumes
from .writer import Ctx, Out


def _print_tolerations(w: Out, title: str, tolerations: list[Obj]) -> None:
    w.write(0, f"{title}:\t")
    if not tolerations:
        w.line("<none>")
        return
    for i, tol in enumerate(sorted(tolerations, key=lambda t: _s(t.get("key")))):
        if i:
            w.write(0, "")
            w.write(0, "\t")
        key, value, effect = _s(tol.get("key")), _s(tol.get("value")), _s(tol.get("effect"))
        text = key
        if value:
            text += f"={value}"
        if effect:
            text += f":{effect}"
        if tol.get("operator") == "Exists" and not value:
            text += " op=Exists" if key or effect else "op=Exists"
        seconds = tol.get("tolerationSeconds")
        if isinstance(seconds, int) and not isinstance(seconds, bool):
            text += f" for {seconds}s"
        w.write(0, text + "\n")


def _describe_topology_spread(constraints: list[Obj], w: Out, space: str) -> None:
    if not constraints:
        return
    w.write(0, f"{space}Topology Spread Constraints:\t")
    for i, tsc in enumerate(sorted(constraints, key=lambda c: _s(c.get("topologyKey")))):
        if i:
            w.write(0, space)
            w.write(0, "\t")
        text = (f"{_s(tsc.get('topologyKey'))}:{_s(tsc.get('whenUnsatisfiable'))} "
                f"when max skew {_i(tsc.get('maxSkew'))} is exceeded")
        if isinstance(tsc.get("labelSelector"), Mapping):
            text += f" for selector {format_label_selector(tsc.get('labelSelector'))}"
        w.write(0, text + "\n")


def describe_pod_template(template: Obj, w: Out, ctx: Ctx) -> None:
    """``DescribePodTemplate``."""
    w.write(0, "Pod Template:\n")
    meta, spec = _m(template.get("metadata")), _m(template.get("spec"))
    print_labels(w, "  Labels", str_map(meta.get("labels")))
    annotations = str_map(meta.get("annotations"))
    if annotations:
        print_annotations(w, "  Annotations", annotations)
    if spec.get("serviceAccountName"):
        w.write(1, f"Service Account:\t{_s(spec.get('serviceAccountName'))}\n")
    init = _maps(spec.get("initContainers"))
    if init:
        describe_containers("Init Containers", init, None, None, w, "  ", ctx)
    describe_containers("Containers", _maps(spec.get("containers")), None, None, w, "  ", ctx)
    describe_volumes(_maps(spec.get("volumes")), w, "  ")
    _describe_topology_spread(_maps(spec.get("topologySpreadConstraints")), w, "  ")
    if spec.get("priorityClassName"):
        w.write(1, f"Priority Class Name:\t{_s(spec.get('priorityClassName'))}\n")
    print_labels(w, "  Node-Selectors", str_map(spec.get("nodeSelector")))
    _print_tolerations(w, "  Tolerations", _maps(spec.get("tolerations")))


def describe_pod(pod: Obj, events: list[Obj] | None, ctx: Ctx) -> str:
    """``DescribePod``; ``events`` ``None`` leaves the Events section out."""
    meta, spec, status = _m(pod.get("metadata")), _m(pod.get("spec")), _m(pod.get("status"))
    w = Out()
    w.write(0, f"Name:\t{_s(meta.get('name'))}\n")
    w.write(0, f"Namespace:\t{_s(meta.get('namespace'))}\n")
    if isinstance(spec.get("priority"), int) and not isinstance(spec.get("priority"), bool):
        w.write(0, f"Priority:\t{spec['priority']}\n")
    if spec.get("priorityClassName"):
        w.write(0, f"Priority Class Name:\t{_s(spec.get('priorityClassName'))}\n")
    if spec.get("runtimeClassName"):
        w.write(0, f"Runtime Class Name:\t{_s(spec.get('runtimeClassName'))}\n")
    if spec.get("serviceAccountName"):
        w.write(0, f"Service Account:\t{_s(spec.get('serviceAccountName'))}\n")
    node_name = _s(spec.get("nodeName"))
    if node_name:
        w.write(0, f"Node:\t{node_name}/{_s(status.get('hostIP'))}\n")
    else:
        w.write(0, "Node:\t<none>\n")
    if parse_time(status.get("startTime")) is not None:
        w.write(0, f"Start Time:\t{rfc1123z(status.get('startTime'), ctx)}\n")
    print_labels(w, "Labels", str_map(meta.get("labels")))
    print_annotations(w, "Annotations", str_map(meta.get("annotations")))
    phase = _s(status.get("phase"))
    if meta.get("deletionTimestamp") and phase not in ("Failed", "Succeeded"):
        w.write(0, f"Status:\tTerminating (lasts {since(meta.get('deletionTimestamp'), ctx)})\n")
        w.write(0, f"Termination Grace Period:\t{_i(meta.get('deletionGracePeriodSeconds'))}s\n")
    else:
        w.write(0, f"Status:\t{phase}\n")
    if status.get("reason"):
        w.write(0, f"Reason:\t{_s(status.get('reason'))}\n")
    if status.get("message"):
        w.write(0, f"Message:\t{_s(status.get('message'))}\n")
    seccomp = _m(spec.get("securityContext")).get("seccompProfile")
    if isinstance(seccomp, Mapping):
        w.write(0, f"SeccompProfile:\t{_s(seccomp.get('type'))}\n")
        if seccomp.get("type") == "Localhost":
            w.write(0, f"LocalhostProfile:\t{_s(seccomp.get('localhostProfile'))}\n")
    w.write(0, f"IP:\t{_s(status.get('podIP'))}\n")
    pod_ips = _maps(status.get("podIPs"))
    if pod_ips:
        w.write(0, "IPs:\n")
        for ip in pod_ips:
            w.write(1, f"IP:\t{_s(ip.get('ip'))}\n")
    else:
        w.write(0, "IPs:\t<none>\n")
    controller = controller_of(pod)
    if controller is not None:
        w.write(0, f"Controlled By:\t{_s(controller.get('kind'))}/{_s(controller.get('name'))}\n")
    if status.get("nominatedNodeName"):
        w.write(0, f"NominatedNodeName:\t{_s(status.get('nominatedNodeName'))}\n")
    if isinstance(spec.get("resources"), Mapping):
        w.write(0, "Resources:\n")
        describe_resources(spec.get("resources"), w, 1)
    init = _maps(spec.get("initContainers"))
    if init:
        describe_containers("Init Containers", init, _maps(status.get("initContainerStatuses")),
                            pod, w, "", ctx)
    describe_containers("Containers", _maps(spec.get("containers")),
                        _maps(status.get("containerStatuses")), pod, w, "", ctx)
    ephemeral = _maps(spec.get("ephemeralContainers"))
    if ephemeral:
        describe_containers("Ephemeral Containers", ephemeral,
                            _maps(status.get("ephemeralContainerStatuses")), pod, w, "", ctx)
    conditions = _maps(status.get("conditions"))
    gates = _maps(spec.get("readinessGates"))
    if gates:
        w.write(0, "Readiness Gates:\n  Type\tStatus\n")
        for gate in gates:
            gate_status = next((_s(c.get("status")) for c in conditions
                                if c.get("type") == gate.get("conditionType")), "<none>")
            w.write(1, f"{_s(gate.get('conditionType'))} \t{gate_status} \n")
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\n")
        for c in conditions:
            w.write(1, f"{_s(c.get('type'))} \t{_s(c.get('status'))} \n")
    describe_volumes(_maps(spec.get("volumes")), w, "")
    w.write(0, f"QoS Class:\t{_s(status.get('qosClass')) or qos_class(pod)}\n")
    print_labels(w, "Node-Selectors", str_map(spec.get("nodeSelector")))
    _print_tolerations(w, "Tolerations", _maps(spec.get("tolerations")))
    _describe_topology_spread(_maps(spec.get("topologySpreadConstraints")), w, "")
    describe_events(events, w, ctx)
    return w.render()
