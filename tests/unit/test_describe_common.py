"""``minikube-py describe``: the shared machinery: human durations, the
tabwriter, annotations, the generic (unstructured) describer, event tables,
kind aliases, time zones and escaping. Golden output is modelled on kubectl's
describe_test.go and on real ``kubectl describe`` output.

Golden strings are written with a ``|`` closing every line (see
``describe_helpers.golden``) so that kubectl's trailing spaces stay visible.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

import pytest

from minikube_py.api.describe import Out, describe, human_duration, tabwrite
from minikube_py.api.describe.generic import _print_unstructured, _smart_label
from minikube_py.api.describe.sections import print_annotations

from .describe_helpers import NOW, POD_EVENTS, ago, golden, run

# ===================================================================== duration


@pytest.mark.parametrize(("seconds", "want"), [
    # apimachinery duration_test.go: TestHumanDuration / TestHumanDurationBoundaries
    (1, "1s"), (70, "70s"), (190, "3m10s"), (70 * 60, "70m"), (47 * 3600, "47h"),
    (49 * 3600, "2d1h"), ((8 * 24 + 2) * 3600, "8d"), (367 * 24 * 3600, "367d"),
    ((365 * 2 * 24 + 25) * 3600, "2y1d"), ((365 * 8 * 24 + 2) * 3600, "8y"),
    (-2, "<invalid>"), (-2 + 1e-9, "0s"), (0, "0s"), (0.999, "0s"), (119.999, "119s"),
    (120, "2m"), (121, "2m1s"), (599.999, "9m59s"), (600, "10m"), (601, "10m"),
    (3 * 3600 - 0.001, "179m"), (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"),
    (8 * 3600 - 0.001, "7h59m"), (8 * 3600, "8h"), (8 * 3600 + 59 * 60, "8h"),
    (48 * 3600 - 0.001, "47h"), (48 * 3600, "2d"), (49 * 3600, "2d1h"),
    (8 * 86400 - 0.001, "7d23h"), (8 * 86400, "8d"), (8 * 86400 + 23 * 3600, "8d"),
    (2 * 365 * 86400 - 0.001, "729d"), (2 * 365 * 86400, "2y"),
    (2 * 365 * 86400 + 86400 - 0.001, "2y"), (2 * 365 * 86400 + 86400, "2y1d"),
    (7 * 365 * 86400, "7y"), (8 * 365 * 86400 - 0.001, "7y364d"), (8 * 365 * 86400, "8y"),
    (9 * 365 * 86400, "9y"),
])
def test_human_duration_matches_apimachinery(seconds: float, want: str) -> None:
    assert human_duration(seconds) == want


# ==================================================================== tabwriter


def test_tabwrite_reproduces_kubectl_ingress_layout() -> None:
    # describe_test.go TestDescribeIngress: a cell-less continuation and a
    # second column that only two lines share.
    raw = ("Name:\tbar\nLabels:\t<none>\nNamespace:\tfoo\nAddress:\t\nIngress Class:\ttest\n"
           "Default backend:\t<default>\nRules:\n  Host\tPath\tBackends\n"
           "  ----\t----\t--------\n  foo.bar.com\t\n"
           "    \t/foo \tdefault-backend:80 (<error: services \"default-backend\" not found>)\n"
           "Annotations:\t<none>\nEvents:\t<none>\n")
    assert tabwrite(raw) == golden("""
        Name:             bar|
        Labels:           <none>|
        Namespace:        foo|
        Address:          |
        Ingress Class:    test|
        Default backend:  <default>|
        Rules:|
          Host         Path  Backends|
          ----         ----  --------|
          foo.bar.com  |
                       /foo   default-backend:80 (<error: services "default-backend" not found>)|
        Annotations:   <none>|
        Events:        <none>|
    """)


def test_tabwrite_reproduces_kubectl_endpointslice_layout() -> None:
    # describe_test.go TestDescribeEndpointSlice: a tab-less line ends a block,
    # so "Events:" aligns with the last endpoint's fields only.
    raw = ("Name:\tfoo.123\nNamespace:\tbar\nLabels:\t<none>\nAnnotations:\t<none>\n"
           "AddressType:\tIPv4\nPorts:\n  Name\tPort\tProtocol\n  ----\t----\t--------\n"
           "  <unset>\t80\tTCP\nEndpoints:\n"
           "  - Addresses:\t1.2.3.4, 1.2.3.5\n    Conditions:\n      Ready:\ttrue\n"
           "    Hostname:\t<unset>\n    TargetRef:\tPod/test-123\n    NodeName:\tnode-1\n"
           "    Zone:\tus-central1-a\n"
           "  - Addresses:\t1.2.3.6, 1.2.3.7\n    Conditions:\n      Ready:\ttrue\n"
           "    Hostname:\t<unset>\n    TargetRef:\tPod/test-124\n    NodeName:\tnode-2\n"
           "    Zone:\t<unset>\nEvents:\t<none>\n")
    assert tabwrite(raw) == golden("""
        Name:         foo.123|
        Namespace:    bar|
        Labels:       <none>|
        Annotations:  <none>|
        AddressType:  IPv4|
        Ports:|
          Name     Port  Protocol|
          ----     ----  --------|
          <unset>  80    TCP|
        Endpoints:|
          - Addresses:  1.2.3.4, 1.2.3.5|
            Conditions:|
              Ready:    true|
            Hostname:   <unset>|
            TargetRef:  Pod/test-123|
            NodeName:   node-1|
            Zone:       us-central1-a|
          - Addresses:  1.2.3.6, 1.2.3.7|
            Conditions:|
              Ready:    true|
            Hostname:   <unset>|
            TargetRef:  Pod/test-124|
            NodeName:   node-2|
            Zone:       <unset>|
        Events:         <none>|
    """)


def test_tabwrite_keeps_text_without_trailing_newline() -> None:
    assert tabwrite("a\tb\nccc\td") == "a    b\nccc  d"
    assert tabwrite("") == ""


# ================================================== labels, annotations, generic


@pytest.mark.parametrize(("annotations", "want"), [
    # describe_test.go TestPrintLabelsMultiline (raw PrefixWriter output).
    ({"col1": "asd", "COL2": "zxc"}, "Annotations:\tCOL2: zxc\n\tcol1: asd\n"),
    ({"MaxLenAnnotation": "a" * 122}, "Annotations:\tMaxLenAnnotation: " + "a" * 122 + "\n"),
    ({"MaxLenAnnotation": "a" * 123},
     "Annotations:\tMaxLenAnnotation:\n\t  " + "a" * 123 + "\n"),
    ({"MaxLenAnnotation": "a" * 244},
     "Annotations:\tMaxLenAnnotation:\n\t  " + "a" * 138 + "...\n"),
    ({"key": "value\nwith\nnewlines\n"}, "Annotations:\tkey:\n\t  value\n\t  with\n\t  newlines\n"),
    ({}, "Annotations:\t<none>\n"),
    ({"kubectl.kubernetes.io/last-applied-configuration": "{}"}, "Annotations:\t<none>\n"),
])
def test_annotations_multiline(annotations: dict[str, str], want: str) -> None:
    out = Out()
    print_annotations(out, "Annotations", annotations)
    assert "".join(out.parts) == want


def test_unstructured_content_matches_kubectl() -> None:
    # describe_test.go TestDescribeUnstructuredContent.
    obj = {
        "apiVersion": "v1", "kind": "Test", "dummyDummy": "present", "dummy/dummy": "present",
        "dummy-dummy@dummy": "present", "dummy-dummy": "present", "dummy1": "present",
        "dummy2": "present",
        "metadata": {"name": "MyName", "namespace": "MyNamespace",
                     "creationTimestamp": "2017-04-01T00:00:00Z", "resourceVersion": 123,
                     "uid": "00000000-0000-0000-0000-000000000001", "dummy3": "present"},
        "items": [{"itemBool": True, "itemInt": 42}],
        "url": "http://localhost", "status": "ok",
    }
    out = Out()
    _print_unstructured(out, 0, obj, "", (".dummy1", ".metadata.dummy3"))
    assert "".join(out.parts) == (
        "API Version:\tv1\nDummy - Dummy:\tpresent\ndummy-dummy@dummy:\tpresent\n"
        "dummy/dummy:\tpresent\ndummy2:\tpresent\nDummy Dummy:\tpresent\nItems:\n"
        "  Item Bool:\ttrue\n  Item Int:\t42\nKind:\tTest\nMetadata:\n"
        "  Creation Timestamp:\t2017-04-01T00:00:00Z\n  Name:\tMyName\n"
        "  Namespace:\tMyNamespace\n  Resource Version:\t123\n"
        "  UID:\t00000000-0000-0000-0000-000000000001\nStatus:\tok\nURL:\thttp://localhost\n")


@pytest.mark.parametrize(("field", "label"), [
    ("apiVersion", "API Version"), ("podIP", "Pod IP"), ("uid", "UID"), ("url", "URL"),
    ("involvedObject", "Involved Object"), ("dummy-dummy", "Dummy - Dummy"),
    ("key_with_underscore", "key_with_underscore"), ("x1", "x1"), ("APIVersion", "APIVersion"),
    ("reportingComponent", "Reporting Component"),
])
def test_smart_label(field: str, label: str) -> None:
    assert _smart_label(field) == label


def test_generic_describer_for_unknown_kind() -> None:
    widget = {
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w1", "namespace": "default", "uid": "abc",
                     "labels": {"app": "w"}, "annotations": {"team": "infra"},
                     "managedFields": [{"manager": "kubectl"}]},
        "spec": {"size": 3, "ratio": 1.5, "big": 1e6, "small": 0.00001, "whole": 100.0,
                 "enabled": True, "nothing": None, "tags": ["a", "b"], "matrix": [[1, 2]],
                 "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]},
    }
    assert run("Widget", widget) == golden("""
        Name:         w1|
        Namespace:    default|
        Labels:       app=w|
        Annotations:  team: infra|
        API Version:  example.com/v1|
        Kind:         Widget|
        Metadata:|
          UID:  abc|
        Spec:|
          Big:      1e+06|
          Enabled:  true|
          Matrix:|
            [1 2]|
          Nothing:  <nil>|
          Ports:|
            Name:  http|
            Port:  80|
            Name:  https|
            Port:  443|
          Ratio:   1.5|
          Size:    3|
          Small:   1e-05|
          Tags:|
            a|
            b|
          Whole:  100|
        Events:   <none>|
    """)


def test_events_are_described_generically() -> None:
    event = {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "web.17c", "namespace": "default", "uid": "e1",
                     "resourceVersion": "42", "creationTimestamp": "2024-05-01T11:00:00Z"},
        "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web",
                           "namespace": "default"},
        "reason": "Started", "message": "Started container web", "type": "Normal",
        "count": 1, "source": {"component": "kubelet", "host": "minikube"},
        "firstTimestamp": "2024-05-01T11:00:00Z", "lastTimestamp": "2024-05-01T11:00:00Z",
        "eventTime": None,
    }
    assert run("ev", event) == golden("""
        Name:             web.17c|
        Namespace:        default|
        Labels:           <none>|
        Annotations:      <none>|
        API Version:      v1|
        Count:            1|
        Event Time:       <nil>|
        First Timestamp:  2024-05-01T11:00:00Z|
        Involved Object:|
          API Version:   v1|
          Kind:          Pod|
          Name:          web|
          Namespace:     default|
        Kind:            Event|
        Last Timestamp:  2024-05-01T11:00:00Z|
        Message:         Started container web|
        Metadata:|
          Creation Timestamp:  2024-05-01T11:00:00Z|
          Resource Version:    42|
          UID:                 e1|
        Reason:                Started|
        Source:|
          Component:  kubelet|
          Host:       minikube|
        Type:         Normal|
        Events:       <none>|
    """)


# ======================================================================= Events


def test_events_sorted_like_kubectl() -> None:
    # describe_test.go TestPodDescribeResultsSorted / sorted_event_list_test.go.
    def event(message: str, when: str, component: str) -> dict[str, Any]:
        return {"message": message, "type": "Normal", "count": 1,
                "source": {"component": component},
                "firstTimestamp": when, "lastTimestamp": when}

    events = [event("Item 1", "2014-01-15T00:00:00Z", "kubelet"),
              event("Item 2", "1987-06-17T00:00:00Z", "scheduler"),
              event("Item 3", "2002-12-25T00:00:00Z", "kubelet")]
    out = run("Pod", {"metadata": {"name": "bar", "namespace": "foo"}}, events=events)
    assert out.index("Item 2") < out.index("Item 3") < out.index("Item 1")
    # The events have no reason: the empty cell still pads its column.
    assert "  Normal          36y   scheduler  Item 2\n" in out


def test_many_events_with_mixed_timestamps() -> None:
    events: list[dict[str, Any]] = []
    for i in range(12):
        events.append({"type": "Normal" if i % 3 else "Warning", "reason": f"R{i:02d}",
                       "message": f"message {i}", "source": {"component": "kubelet"},
                       "firstTimestamp": ago(3600 - i * 60), "lastTimestamp": ago(1800 - i * 60),
                       "count": i + 1})
    events.reverse()
    out = run("Pod", {"metadata": {"name": "p", "namespace": "d"}}, events=events)
    table = out[out.index("Events:\n"):].splitlines()
    assert table[1].split() == ["Type", "Reason", "Age", "From", "Message"]
    rows = table[3:]
    assert [row.split()[1] for row in rows] == [f"R{i:02d}" for i in range(12)]
    # A single occurrence shows its first timestamp; repeats show the last
    # one and the span since the first.
    assert rows[0] == "  Warning  R00     60m                 kubelet  message 0"
    assert rows[1] == "  Normal   R01     29m (x2 over 59m)   kubelet  message 1"
    assert rows[11] == "  Normal   R11     19m (x12 over 49m)  kubelet  message 11"


def test_event_age_edge_cases() -> None:
    events = [
        {"type": "Normal", "reason": "NoTime", "message": "m", "source": {"component": "x"}},
        {"type": "Normal", "reason": "Future", "message": "m", "source": {"component": "x"},
         "firstTimestamp": ago(-30), "lastTimestamp": ago(-30)},
    ]
    out = run("Pod", {"metadata": {"name": "p"}}, events=events)
    assert "  Normal  NoTime  <unknown>  x     m\n" in out
    assert "  Normal  Future  <invalid>  x     m\n" in out


def test_events_none_and_hidden() -> None:
    pod = {"metadata": {"name": "p"}}
    assert run("Pod", pod).endswith("Events:          <none>\n")
    assert "Events" not in run("Pod", pod, events=POD_EVENTS, show_events=False)
    assert "Events" not in run("Node", {"metadata": {"name": "n"}}, show_events=False)


# ====================================================================== various


@pytest.mark.parametrize("kind", ["Pod", "pod", "pods", "po", "PODS"])
def test_kind_aliases_pick_the_pod_describer(kind: str) -> None:
    assert "QoS Class:" in describe(kind, {"metadata": {"name": "p"}}, now=NOW, tz=UTC)


def test_local_timezone_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        out = describe("Namespace", {"metadata": {"name": "n"}, "status": {"conditions": [
            {"type": "X", "status": "True", "lastTransitionTime": "2024-05-01T00:00:00Z"}]}},
            now=NOW)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert "Wed, 01 May 2024 05:30:00 +0530" in out


def test_terminal_escapes_are_neutralised() -> None:
    pod = {"metadata": {"name": "p", "labels": {"evil": "\x1b[31mred\r"}}}
    out = run("Pod", pod)
    assert "\x1b" not in out and "\r" not in out
    assert "evil=^[[31mred\\r" in out
