"""Server-side Table printing of Nodes, Events, Namespaces, Deployments and
ReplicaSets.

Expectations come from Kubernetes' own tests, translated from Go structs to v1
JSON: ``pkg/printers/internalversion/printers_test.go`` (TestPrintNode*,
TestPrintEvent, TestPrintNamespace, TestPrintDeployment, TestPrintReplicaSet).
A few extra rows follow printers.go's rules directly (marked "printers.go
rule").

The Go tests call the printers with ``Wide: false`` or ``Wide: true``. The API
server always prints wide and kubectl hides priority-1 columns, so a non-wide
Go expectation is compared with the priority-0 cells (:func:`visible`) and a
wide one with all cells.
"""

from __future__ import annotations

from typing import Any

import pytest

from .printers_helpers import DAY, ts, visible, wide

# ------------------------------------------------------------------- nodes


def node(name: str, *, conditions: list[dict[str, Any]] | None = None,
         unschedulable: bool = False, labels: dict[str, str] | None = None,
         node_info: dict[str, str] | None = None,
         addresses: list[dict[str, str]] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if labels is not None:
        metadata["labels"] = labels
    status: dict[str, Any] = {}
    if conditions is not None:
        status["conditions"] = conditions
    if node_info is not None:
        status["nodeInfo"] = node_info
    if addresses is not None:
        status["addresses"] = addresses
    spec = {"unschedulable": True} if unschedulable else {}
    return {"apiVersion": "v1", "kind": "Node", "metadata": metadata, "spec": spec,
            "status": status}


READY = {"type": "Ready", "status": "True"}
NOT_READY = {"type": "Ready", "status": "False"}
EXT = {"type": "ExternalIP", "address": "1.1.1.1"}


# printers_test.go TestPrintNodeStatus, TestPrintNodeRole, TestPrintNodeName
@pytest.mark.parametrize(("obj", "want"), [
    (node("foo1", conditions=[READY]), ["foo1", "Ready", "<none>", "<unknown>", ""]),
    (node("foo2", conditions=[READY], unschedulable=True),
     ["foo2", "Ready,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (node("foo3", conditions=[READY, READY]), ["foo3", "Ready", "<none>", "<unknown>", ""]),
    (node("foo4", conditions=[NOT_READY]), ["foo4", "NotReady", "<none>", "<unknown>", ""]),
    (node("foo5", conditions=[NOT_READY], unschedulable=True),
     ["foo5", "NotReady,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (node("foo6", conditions=[{"type": "InvalidValue", "status": "True"}]),
     ["foo6", "Unknown", "<none>", "<unknown>", ""]),
    (node("foo7", conditions=[{}]), ["foo7", "Unknown", "<none>", "<unknown>", ""]),
    (node("foo8", conditions=[{"type": "InvalidValue", "status": "True"}], unschedulable=True),
     ["foo8", "Unknown,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (node("foo9", conditions=[{}], unschedulable=True),
     ["foo9", "Unknown,SchedulingDisabled", "<none>", "<unknown>", ""]),
    (node("foo9"), ["foo9", "Unknown", "<none>", "<unknown>", ""]),
    (node("foo10", labels={"node-role.kubernetes.io/master": "",
                           "node-role.kubernetes.io/control-plane": "",
                           "node-role.kubernetes.io/proxy": "", "kubernetes.io/role": "node"}),
     ["foo10", "Unknown", "control-plane,master,node,proxy", "<unknown>", ""]),
    (node("foo11", labels={"kubernetes.io/role": "node"}),
     ["foo11", "Unknown", "node", "<unknown>", ""]),
    (node("127.0.0.1"), ["127.0.0.1", "Unknown", "<none>", "<unknown>", ""]),
    (node(""), ["", "Unknown", "<none>", "<unknown>", ""]),
])
def test_print_node(obj: dict[str, Any], want: list[Any]) -> None:
    assert visible("Node", obj) == want


# TestPrintNodeOSImage, TestPrintNodeKernelVersion, TestPrintNodeContainerRuntimeVersion,
# TestPrintNodeExternalIP, TestPrintNodeInternalIP (all Wide)
@pytest.mark.parametrize(("obj", "want"), [
    (node("foo1", node_info={"osImage": "fake-os-image"}, addresses=[EXT]),
     ["foo1", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "fake-os-image",
      "<unknown>", "<unknown>"]),
    (node("foo2", node_info={"kernelVersion": "fake-kernel-version"}, addresses=[EXT]),
     ["foo2", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "<unknown>",
      "fake-kernel-version", "<unknown>"]),
    (node("foo1", node_info={"containerRuntimeVersion": "foo://1.2.3"}, addresses=[EXT]),
     ["foo1", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "<unknown>",
      "<unknown>", "foo://1.2.3"]),
    (node("foo2", node_info={}, addresses=[EXT]),
     ["foo2", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "<unknown>",
      "<unknown>", "<unknown>"]),
    (node("foo1", addresses=[EXT]),
     ["foo1", "Unknown", "<none>", "<unknown>", "", "<none>", "1.1.1.1", "<unknown>",
      "<unknown>", "<unknown>"]),
    (node("foo2", addresses=[{"type": "InternalIP", "address": "1.1.1.1"}]),
     ["foo2", "Unknown", "<none>", "<unknown>", "", "1.1.1.1", "<none>", "<unknown>",
      "<unknown>", "<unknown>"]),
    (node("foo3", addresses=[{"type": "ExternalIP", "address": "2.2.2.2"},
                             {"type": "InternalIP", "address": "3.3.3.3"},
                             {"type": "ExternalIP", "address": "4.4.4.4"}]),
     ["foo3", "Unknown", "<none>", "<unknown>", "", "3.3.3.3", "2.2.2.2", "<unknown>",
      "<unknown>", "<unknown>"]),
    (node("foo3", addresses=[{"type": "InternalIP", "address": "2.2.2.2"},
                             {"type": "ExternalIP", "address": "3.3.3.3"},
                             {"type": "InternalIP", "address": "4.4.4.4"}]),
     ["foo3", "Unknown", "<none>", "<unknown>", "", "2.2.2.2", "3.3.3.3", "<unknown>",
      "<unknown>", "<unknown>"]),
])
def test_print_node_wide(obj: dict[str, Any], want: list[Any]) -> None:
    assert wide("Node", obj) == want


# ------------------------------------------------------------------ events


def event(name: str, *, kind: str = "Deployment", obj_name: str = "Deployment Name",
          etype: str = "Warning", **fields: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
        "involvedObject": {"kind": kind, "name": obj_name, "fieldPath": "spec.containers{foo}"},
        "reason": "Event Reason", "message": "Message Data", "type": etype,
    }
    ev.update(fields)
    return ev


KUBELET_NODE1 = {"component": "kubelet", "host": "Node1"}


# printers_test.go TestPrintEvent
def test_print_event_basic() -> None:
    ev = event("event1", kind="Pod", obj_name="Pod Name", etype="Normal",
               source={"component": "kubelet"}, firstTimestamp=ts(-3 * DAY),
               lastTimestamp=ts(-2 * DAY), count=6)
    # Columns: Last Seen, Type, Reason, Object, Message
    assert visible("Event", ev) == ["2d", "Normal", "Event Reason", "pod/Pod Name",
                                    "Message Data"]


@pytest.mark.parametrize(("ev", "want"), [
    # Basic event; generate options=Wide
    (event("event2", source=KUBELET_NODE1, firstTimestamp=ts(-3 * DAY),
           lastTimestamp=ts(-2 * DAY), count=6),
     ["2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 6, "event2"]),
    # w/o FirstTimestamp
    (event("event3", source=KUBELET_NODE1, eventTime=ts(-3 * DAY),
           lastTimestamp=ts(-3 * DAY), count=1),
     ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 1, "event3"]),
    # w/o LastTimestamp
    (event("event4", source=KUBELET_NODE1, eventTime=ts(-3 * DAY),
           firstTimestamp=ts(-3 * DAY), count=1),
     ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 1, "event4"]),
    # w/o FirstTimestamp and LastTimestamp
    (event("event5", source=KUBELET_NODE1, eventTime=ts(-3 * DAY), count=1),
     ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 1, "event5"]),
    # event series, w/o FirstTimestamp, LastTimestamp and Count
    (event("event6", source=KUBELET_NODE1, eventTime=ts(-3 * DAY),
           series={"count": 2, "lastObservedTime": ts(-2 * DAY)}),
     ["2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 2, "event6"]),
    # singleton event, w/o FirstTimestamp, LastTimestamp and Count
    (event("event7", source=KUBELET_NODE1, eventTime=ts(-3 * DAY)),
     ["3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, Node1", "Message Data", "3d", 1, "event7"]),
    # empty Source: reportingController (JSON reportingComponent) and reportingInstance
    (event("event2", reportingComponent="kubelet", reportingInstance="test",
           firstTimestamp=ts(-3 * DAY), lastTimestamp=ts(-2 * DAY), count=6),
     ["2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}",
      "kubelet, test", "Message Data", "3d", 6, "event2"]),
])
def test_print_event_wide(ev: dict[str, Any], want: list[Any]) -> None:
    assert wide("Event", ev) == want


def test_print_event_rules() -> None:
    # printers.go rules: kind alone when the object has no name; message trimmed;
    # no timestamps at all -> <unknown>.
    ev = {"involvedObject": {"kind": "Node"}, "message": "  hello \n", "type": "Normal"}
    assert wide("Event", ev) == ["<unknown>", "Normal", "", "node", "", "", "hello",
                                 "<unknown>", 1, ""]


# -------------------------------------------------------------- namespaces


# printers_test.go TestPrintNamespace
@pytest.mark.parametrize(("obj", "want"), [
    ({"metadata": {"name": "namespace1", "creationTimestamp": ts(1.9)},
      "status": {"phase": "FooStatus"}},
     ["namespace1", "FooStatus", "0s"]),
    ({"metadata": {"name": "namespace2"}}, ["namespace2", "", "<unknown>"]),
])
def test_print_namespace(obj: dict[str, Any], want: list[Any]) -> None:
    assert wide("Namespace", obj) == want


# --------------------------------------------------------------- workloads

TEMPLATE = {"spec": {"containers": [{"name": "fake-container1", "image": "fake-image1"},
                                    {"name": "fake-container2", "image": "fake-image2"}]}}


def test_print_deployment() -> None:
    # printers_test.go TestPrintDeployment
    deploy = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "test1", "creationTimestamp": ts(1.9)},
        "spec": {"replicas": 5, "template": TEMPLATE,
                 "selector": {"matchLabels": {"foo": "bar"}}},
        "status": {"replicas": 10, "updatedReplicas": 2, "availableReplicas": 1,
                   "unavailableReplicas": 4},
    }
    # Columns: Name, ReadyReplicas, UpdatedReplicas, AvailableReplicas, Age
    assert visible("Deployment", deploy) == ["test1", "0/5", 2, 1, "0s"]
    # + Containers, Images, Selectors
    assert wide("Deployment", deploy) == [
        "test1", "0/5", 2, 1, "0s", "fake-container1,fake-container2",
        "fake-image1,fake-image2", "foo=bar"]


def test_print_replicaset() -> None:
    # printers_test.go TestPrintReplicaSet
    rs = {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "test1", "creationTimestamp": ts(1.9)},
        "spec": {"replicas": 5, "template": TEMPLATE,
                 "selector": {"matchLabels": {"foo": "bar"}}},
        "status": {"replicas": 5, "readyReplicas": 2},
    }
    # Columns: Name, Desired, Current, Ready, Age
    assert visible("ReplicaSet", rs) == ["test1", 5, 5, 2, "0s"]
    # + Containers, Images, Selector
    assert wide("ReplicaSet", rs) == [
        "test1", 5, 5, 2, "0s", "fake-container1,fake-container2", "fake-image1,fake-image2",
        "foo=bar"]


def test_workload_selectors() -> None:
    # Deployment prints LabelSelectorAsSelector(...).String() ("" when empty,
    # <invalid> on error); ReplicaSet prints metav1.FormatLabelSelector
    # (<none> when empty, <error> on error).
    expr = {"matchLabels": {"b": "2"}, "matchExpressions": [
        {"key": "a", "operator": "In", "values": ["y", "x"]},
        {"key": "c", "operator": "DoesNotExist"}]}
    bad = {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}
    for selector, deploy_cell, rs_cell in [
        (expr, "a in (x,y),b=2,!c", "a in (x,y),b=2,!c"),
        ({}, "", "<none>"),
        (bad, "<invalid>", "<error>"),
    ]:
        spec = {"replicas": 1, "selector": selector}
        assert wide("Deployment", {"spec": spec})[7] == deploy_cell
        assert wide("ReplicaSet", {"spec": spec})[7] == rs_cell


def test_workload_defaults_when_fields_are_missing() -> None:
    # A missing spec.replicas is the API default (1); missing status counts are 0.
    assert wide("Deployment", {"metadata": {"name": "d"}}) == [
        "d", "0/1", 0, 0, "<unknown>", "", "", ""]
    assert wide("ReplicaSet", {"metadata": {"name": "r"}}) == [
        "r", 1, 0, 0, "<unknown>", "", "", "<none>"]
