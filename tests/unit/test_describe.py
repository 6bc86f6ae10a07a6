"""``minikube-py describe``: golden output modelled on kubectl's describe_test.go
and on real ``kubectl describe`` output.

Golden strings are written with a ``|`` closing every line so that kubectl's
trailing spaces (``Status:       ``, ``Ready   True ``) stay visible.
"""

from __future__ import annotations

import copy
import textwrap
from datetime import UTC, timedelta, timezone
from typing import Any

import pytest

from minikube_py.api.describe import Out, describe, human_duration, tabwrite
from minikube_py.api.describe.generic import _print_unstructured, _smart_label
from minikube_py.api.describe.sections import print_annotations

NOW = 1714564800.0  # 2024-05-01T12:00:00Z


def golden(text: str) -> str:
    lines = textwrap.dedent(text).strip("\n").split("\n")
    assert all(line.endswith("|") for line in lines), "every golden line ends with |"
    return "\n".join(line[:-1] for line in lines) + "\n"


def ago(seconds: float) -> str:
    """An RFC3339 timestamp ``seconds`` before NOW (microsecond precision)."""
    from datetime import datetime

    dt = datetime.fromtimestamp(NOW - seconds, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def run(kind: str, obj: dict[str, Any], **kwargs: Any) -> str:
    kwargs.setdefault("tz", UTC)
    return describe(kind, obj, now=NOW, **kwargs)


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


# ========================================================================== Pod


def running_pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "nginx-7c5ddbdf54-x8f9k", "namespace": "default", "uid": "p1",
            "creationTimestamp": "2024-05-01T11:50:00Z",
            "labels": {"app": "nginx", "pod-template-hash": "7c5ddbdf54"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                 "name": "nginx-7c5ddbdf54", "uid": "rs1",
                                 "controller": True, "blockOwnerDeletion": True}],
        },
        "spec": {
            "nodeName": "minikube", "serviceAccountName": "default", "priority": 0,
            "initContainers": [{
                "name": "init-db", "image": "busybox:1.36",
                "command": ["sh", "-c", "until nslookup db; do sleep 2; done"],
            }],
            "containers": [{
                "name": "nginx", "image": "nginx:1.25",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"},
                              "requests": {"cpu": "250m", "memory": "64Mi"}},
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": 80, "scheme": "HTTP"},
                                  "initialDelaySeconds": 5, "timeoutSeconds": 1,
                                  "periodSeconds": 10, "successThreshold": 1,
                                  "failureThreshold": 3},
                "env": [{"name": "MODE", "value": "prod"},
                        {"name": "POD_NAME", "valueFrom": {"fieldRef": {
                            "apiVersion": "v1", "fieldPath": "metadata.name"}}}],
                "volumeMounts": [{"name": "html", "mountPath": "/usr/share/nginx/html",
                                  "readOnly": True}],
            }],
            "volumes": [{"name": "html", "emptyDir": {}}],
            "tolerations": [
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                 "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                 "effect": "NoExecute", "tolerationSeconds": 300},
            ],
        },
        "status": {
            "phase": "Running", "hostIP": "192.168.49.2", "podIP": "10.244.0.5",
            "podIPs": [{"ip": "10.244.0.5"}], "startTime": "2024-05-01T11:50:01Z",
            "qosClass": "Burstable",
            "conditions": [{"type": "Initialized", "status": "True"},
                           {"type": "Ready", "status": "True"}],
            "initContainerStatuses": [{
                "name": "init-db", "containerID": "podman://abc",
                "imageID": "docker.io/library/busybox@sha256:1",
                "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                         "startedAt": "2024-05-01T11:50:02Z",
                                         "finishedAt": "2024-05-01T11:50:03Z"}},
                "ready": True, "restartCount": 0}],
            "containerStatuses": [{
                "name": "nginx", "containerID": "podman://def",
                "imageID": "docker.io/library/nginx@sha256:2",
                "state": {"running": {"startedAt": "2024-05-01T11:50:05Z"}},
                "ready": True, "restartCount": 0}],
        },
    }


POD_EVENTS: list[dict[str, Any]] = [
    {"type": "Normal", "reason": "Pulled", "source": {"component": "kubelet"},
     "message": 'Container image "nginx:1.25" already present on machine',
     "involvedObject": {"fieldPath": "spec.containers{nginx}"},
     "firstTimestamp": "2024-05-01T11:50:04Z", "lastTimestamp": "2024-05-01T11:58:00Z",
     "count": 3},
    {"type": "Normal", "reason": "Scheduled", "source": {"component": "default-scheduler"},
     "message": "Successfully assigned default/nginx-7c5ddbdf54-x8f9k to minikube",
     "firstTimestamp": "2024-05-01T11:50:00Z", "lastTimestamp": "2024-05-01T11:50:00Z",
     "count": 1},
]


def test_running_pod_golden() -> None:
    assert run("pod", running_pod(), events=POD_EVENTS) == golden("""
        Name:             nginx-7c5ddbdf54-x8f9k|
        Namespace:        default|
        Priority:         0|
        Service Account:  default|
        Node:             minikube/192.168.49.2|
        Start Time:       Wed, 01 May 2024 11:50:01 +0000|
        Labels:           app=nginx|
                          pod-template-hash=7c5ddbdf54|
        Annotations:      <none>|
        Status:           Running|
        IP:               10.244.0.5|
        IPs:|
          IP:           10.244.0.5|
        Controlled By:  ReplicaSet/nginx-7c5ddbdf54|
        Init Containers:|
          init-db:|
            Container ID:  podman://abc|
            Image:         busybox:1.36|
            Image ID:      docker.io/library/busybox@sha256:1|
            Port:          <none>|
            Host Port:     <none>|
            Command:|
              sh|
              -c|
              until nslookup db; do sleep 2; done|
            State:          Terminated|
              Reason:       Completed|
              Exit Code:    0|
              Started:      Wed, 01 May 2024 11:50:02 +0000|
              Finished:     Wed, 01 May 2024 11:50:03 +0000|
            Ready:          True|
            Restart Count:  0|
            Environment:    <none>|
            Mounts:         <none>|
        Containers:|
          nginx:|
            Container ID:   podman://def|
            Image:          nginx:1.25|
            Image ID:       docker.io/library/nginx@sha256:2|
            Port:           80/TCP|
            Host Port:      0/TCP|
            State:          Running|
              Started:      Wed, 01 May 2024 11:50:05 +0000|
            Ready:          True|
            Restart Count:  0|
            Limits:|
              cpu:     500m|
              memory:  128Mi|
            Requests:|
              cpu:     250m|
              memory:  64Mi|
            Liveness:  http-get http://:80/healthz delay=5s timeout=1s period=10s #success=1 #failure=3|
            Environment:|
              MODE:      prod|
              POD_NAME:  nginx-7c5ddbdf54-x8f9k (v1:metadata.name)|
            Mounts:|
              /usr/share/nginx/html from html (ro)|
        Conditions:|
          Type          Status|
          Initialized   True |
          Ready         True |
        Volumes:|
          html:|
            Type:        EmptyDir (a temporary directory that shares a pod's lifetime)|
            Medium:      |
            SizeLimit:   <unset>|
        QoS Class:       Burstable|
        Node-Selectors:  <none>|
        Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s|
                         node.kubernetes.io/unreachable:NoExecute op=Exists for 300s|
        Events:|
          Type    Reason     Age                 From               Message|
          ----    ------     ----                ----               -------|
          Normal  Scheduled  10m                 default-scheduler  Successfully assigned default/nginx-7c5ddbdf54-x8f9k to minikube|
          Normal  Pulled     2m (x3 over 9m56s)  kubelet            spec.containers{nginx}: Container image "nginx:1.25" already present on machine|
    """)  # noqa: E501


def test_pod_with_only_an_image_volume_matches_kubectl() -> None:
    # describe_test.go TestDescribePodVolumes, verbatim.
    pod = {"metadata": {"name": "bar", "namespace": "foo"},
           "spec": {"volumes": [{"name": "image", "image": {"reference": "image",
                                                            "pullPolicy": "IfNotPresent"}}]}}
    assert run("Pod", pod) == golden("""
        Name:         bar|
        Namespace:    foo|
        Node:         <none>|
        Labels:       <none>|
        Annotations:  <none>|
        Status:       |
        IP:           |
        IPs:          <none>|
        Containers: <none>|
        Volumes:|
          image:|
            Type:        Image (a container image or OCI artifact)|
            Reference:   image|
            PullPolicy:  IfNotPresent|
        QoS Class:       BestEffort|
        Node-Selectors:  <none>|
        Tolerations:     <none>|
        Events:          <none>|
    """)


def kitchen_sink_pod() -> dict[str, Any]:
    return {
        "metadata": {
            "name": "batch-1", "namespace": "jobs",
            "deletionTimestamp": "2024-05-01T11:59:30Z", "deletionGracePeriodSeconds": 30,
            "annotations": {"note": "line one\nline two\n", "long": "x" * 150,
                            "kubectl.kubernetes.io/last-applied-configuration": "{}"},
        },
        "spec": {
            "priority": 1000, "priorityClassName": "high", "runtimeClassName": "crun",
            "securityContext": {"seccompProfile": {"type": "Localhost",
                                                   "localhostProfile": "profiles/audit.json"}},
            "readinessGates": [{"conditionType": "example.com/feature-1"},
                               {"conditionType": "example.com/feature-2"}],
            "initContainers": [{
                "name": "sidecar", "image": "envoy:1.30", "restartPolicy": "Always",
                "readinessProbe": {"tcpSocket": {"port": 9901}, "periodSeconds": 5,
                                   "timeoutSeconds": 1, "successThreshold": 1,
                                   "failureThreshold": 3},
                "startupProbe": {"grpc": {"port": 9000, "service": "health"},
                                 "periodSeconds": 1, "timeoutSeconds": 1,
                                 "successThreshold": 1, "failureThreshold": 30},
            }],
            "containers": [{
                "name": "app", "image": "python:3.12",
                "command": ["python", "-c", "print(1)\nprint(2)"], "args": ["--verbose"],
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                          {"containerPort": 9090, "hostPort": 19090, "protocol": "UDP"}],
                "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
                "livenessProbe": {"exec": {"command": ["cat", "/tmp/healthy"]},
                                  "initialDelaySeconds": 3, "periodSeconds": 10,
                                  "timeoutSeconds": 1, "successThreshold": 1,
                                  "failureThreshold": 3},
                "envFrom": [{"configMapRef": {"name": "app-config"}},
                            {"prefix": "DB_", "secretRef": {"name": "db", "optional": True}}],
                "env": [
                    {"name": "MULTI", "value": "a\nb"},
                    {"name": "NODE", "valueFrom": {"fieldRef": {
                        "apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
                    {"name": "NS", "valueFrom": {"fieldRef": {
                        "apiVersion": "v1", "fieldPath": "metadata.namespace"}}},
                    {"name": "CPU_LIMIT", "valueFrom": {"resourceFieldRef": {
                        "resource": "limits.cpu"}}},
                    {"name": "MEM_REQ_MI", "valueFrom": {"resourceFieldRef": {
                        "resource": "requests.memory", "divisor": "1Mi"}}},
                    {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {
                        "name": "db", "key": "password"}}},
                    {"name": "LEVEL", "valueFrom": {"configMapKeyRef": {
                        "name": "app-config", "key": "level", "optional": True}}},
                ],
                "resources": {"requests": {"memory": "256Mi"}},
                "volumeMounts": [{"name": "data", "mountPath": "/data", "subPath": "app"},
                                 {"name": "cfg", "mountPath": "/etc/app", "readOnly": True}],
                "volumeDevices": [{"name": "raw", "devicePath": "/dev/xvdb"}],
            }],
            "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "data-pvc"}},
                {"name": "cfg", "configMap": {"name": "app-config", "defaultMode": 420}},
                {"name": "creds", "secret": {"secretName": "db", "optional": True}},
                {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}},
                {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
                {"name": "podinfo", "downwardAPI": {"items": [
                    {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                    {"path": "cpu", "resourceFieldRef": {"containerName": "app",
                                                         "resource": "limits.cpu"}}]}},
                {"name": "token", "projected": {"sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"name": "kube-root-ca.crt"}},
                    {"downwardAPI": {"items": []}},
                    {"secret": {"name": "extra", "optional": False}}]}},
                {"name": "raw", "ephemeral": {"volumeClaimTemplate": {
                    "metadata": {"labels": {"type": "raw"}},
                    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                             "volumeMode": "Block",
                             "resources": {"requests": {"storage": "1Gi"}}}}}},
                {"name": "csi", "csi": {"driver": "inline.storage.example.com",
                                        "volumeAttributes": {"foo": "bar", "size": "1"}}},
                {"name": "cache", "cephfs": {"monitors": ["1.2.3.4"]}},
            ],
            "nodeSelector": {"disktype": "ssd", "kubernetes.io/os": "linux"},
            "tolerations": [{"operator": "Exists"}, {"key": "key1", "value": "value1"},
                            {"effect": "NoSchedule", "operator": "Exists"}],
            "topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"app": "web"}, "matchExpressions": [
                     {"key": "tier", "operator": "In", "values": ["b", "a"]}]}},
                {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname",
                 "whenUnsatisfiable": "ScheduleAnyway"},
            ],
        },
        "status": {
            "phase": "Pending", "reason": "Evicting", "message": "node is low on memory",
            "nominatedNodeName": "other",
            "conditions": [{"type": "example.com/feature-1", "status": "False"},
                           {"type": "PodScheduled", "status": "True"}],
            "initContainerStatuses": [{"name": "sidecar", "ready": False, "restartCount": 0,
                                       "state": {"waiting": {"reason": "PodInitializing"}}}],
            "containerStatuses": [{
                "name": "app", "containerID": "podman://0123", "ready": False,
                "restartCount": 4,
                "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
                "lastState": {"terminated": {
                    "exitCode": 137, "signal": 9, "reason": "OOMKilled", "message": "killed",
                    "startedAt": "2024-05-01T11:58:00Z",
                    "finishedAt": "2024-05-01T11:58:30Z"}}}],
        },
    }


KITCHEN_SINK_EVENTS: list[dict[str, Any]] = [
    {"type": "Warning", "reason": "BackOff", "reportingComponent": "kubelet",
     "message": "  Back-off restarting failed container  ",
     "involvedObject": {"fieldPath": "spec.containers{app}"},
     "eventTime": "2024-05-01T11:40:00.123456Z",
     "series": {"count": 12, "lastObservedTime": "2024-05-01T11:59:50.000001Z"}},
    {"type": "Normal", "reason": "Killing", "message": "Stopping container app",
     "source": {"component": "kubelet"}, "firstTimestamp": "2024-05-01T11:59:30Z",
     "lastTimestamp": "2024-05-01T11:59:30Z", "count": 1},
]


def test_kitchen_sink_pod_golden() -> None:
    """Terminating, seccomp, readiness gates, a sidecar with tcp/grpc probes,
    exec probe, every env source, envFrom, subPath, devices, every common
    volume type (and kubectl's nested-writer quirks for ephemeral and CSI
    volumes), tolerations, topology spread, event series, non-UTC zone."""
    out = describe("Pod", kitchen_sink_pod(), events=KITCHEN_SINK_EVENTS, now=NOW,
                   tz=timezone(timedelta(hours=-7)))
    assert out == golden("""
        Name:                      batch-1|
        Namespace:                 jobs|
        Priority:                  1000|
        Priority Class Name:       high|
        Runtime Class Name:        crun|
        Node:                      <none>|
        Labels:                    <none>|
        Annotations:               long:|
                                     xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...|
                                   note:|
                                     line one|
                                     line two|
        Status:                    Terminating (lasts 30s)|
        Termination Grace Period:  30s|
        Reason:                    Evicting|
        Message:                   node is low on memory|
        SeccompProfile:            Localhost|
        LocalhostProfile:          profiles/audit.json|
        IP:                        |
        IPs:                       <none>|
        NominatedNodeName:         other|
        Init Containers:|
          sidecar:|
            Container ID:   |
            Image:          envoy:1.30|
            Image ID:       |
            Port:           <none>|
            Host Port:      <none>|
            State:          Waiting|
              Reason:       PodInitializing|
            Ready:          False|
            Restart Count:  0|
            Readiness:      tcp-socket :9901 delay=0s timeout=1s period=5s #success=1 #failure=3|
            Startup:        grpc <pod>:9000 health delay=0s timeout=1s period=1s #success=1 #failure=30|
            Environment:    <none>|
            Mounts:         <none>|
        Containers:|
          app:|
            Container ID:    podman://0123|
            Image:           python:3.12|
            Image ID:        |
            Ports:           8080/TCP (http), 9090/UDP|
            Host Ports:      0/TCP (http), 19090/UDP|
            SeccompProfile:  RuntimeDefault|
            Command:|
              python|
              -c|
              print(1)|
              print(2)|
            Args:|
              --verbose|
            State:          Waiting|
              Reason:       CrashLoopBackOff|
            Last State:     Terminated|
              Reason:       OOMKilled|
              Message:      killed|
              Exit Code:    137|
              Signal:       9|
              Started:      Wed, 01 May 2024 04:58:00 -0700|
              Finished:     Wed, 01 May 2024 04:58:30 -0700|
            Ready:          False|
            Restart Count:  4|
            Requests:|
              memory:  256Mi|
            Liveness:  exec [cat /tmp/healthy] delay=3s timeout=1s period=10s #success=1 #failure=3|
            Environment Variables from:|
              app-config  ConfigMap                 Optional: false|
              db          Secret with prefix 'DB_'  Optional: true|
            Environment:|
              MULTI:       a|
                           b|
              NODE:         (v1:spec.nodeName)|
              NS:          jobs (v1:metadata.namespace)|
              CPU_LIMIT:   node allocatable (limits.cpu)|
              MEM_REQ_MI:  256 (requests.memory)|
              PASSWORD:    <set to the key 'password' in secret 'db'>           Optional: false|
              LEVEL:       <set to the key 'level' of config map 'app-config'>  Optional: true|
            Mounts:|
              /data from data (rw,path="app")|
              /etc/app from cfg (ro)|
            Devices:|
              /dev/xvdb from raw|
        Readiness Gates:|
          Type                    Status|
          example.com/feature-1   False |
          example.com/feature-2   <none> |
        Conditions:|
          Type                    Status|
          example.com/feature-1   False |
          PodScheduled            True |
        Volumes:|
          data:|
            Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)|
            ClaimName:  data-pvc|
            ReadOnly:   false|
          cfg:|
            Type:      ConfigMap (a volume populated by a ConfigMap)|
            Name:      app-config|
            Optional:  false|
          creds:|
            Type:        Secret (a volume populated by a Secret)|
            SecretName:  db|
            Optional:    true|
          host:|
            Type:          HostPath (bare host directory volume)|
            Path:          /var/log|
            HostPathType:  Directory|
          scratch:|
            Type:       EmptyDir (a temporary directory that shares a pod's lifetime)|
            Medium:     Memory|
            SizeLimit:  1Gi|
          podinfo:|
            Type:  DownwardAPI (a volume populated by information about the pod)|
            Items:|
              metadata.labels -> labels|
              limits.cpu -> cpu|
          token:|
            Type:                    Projected (a volume that contains injected data from multiple sources)|
            TokenExpirationSeconds:  3607|
            ConfigMapName:           kube-root-ca.crt|
            Optional:                false|
            DownwardAPI:             true|
            SecretName:              extra|
            Optional:                false|
          raw:|
            Type:          EphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)|
            StorageClass:  fast|
            Volume:        |
            Labels:            type=raw|
            Annotations:       <none>|
            Capacity:      |
            Access Modes:  |
            VolumeMode:    Block|
          csi:|
            Type:              CSI (a Container Storage Interface (CSI) volume source)|
            Driver:            inline.storage.example.com|
            FSType:            |
            ReadOnly:          false|
            VolumeAttributes:      foo=bar|
                                   size=1|
          cache:|
          <unknown>|
        QoS Class:                    Burstable|
        Node-Selectors:               disktype=ssd|
                                      kubernetes.io/os=linux|
        Tolerations:                  op=Exists|
                                      :NoSchedule op=Exists|
                                      key1=value1|
        Topology Spread Constraints:  kubernetes.io/hostname:ScheduleAnyway when max skew 2 is exceeded|
                                      zone:DoNotSchedule when max skew 1 is exceeded for selector app=web,tier in (a,b)|
        Events:|
          Type     Reason   Age                From     Message|
          ----     ------   ----               ----     -------|
          Normal   Killing  30s                kubelet  Stopping container app|
          Warning  BackOff  9s (x12 over 19m)  kubelet  spec.containers{app}: Back-off restarting failed container|
    """)  # noqa: E501


@pytest.mark.parametrize(("phase", "wanted"), [
    # describe_test.go TestDescribePod: a deletion timestamp 10 years ago.
    ("Running", ["Status:                    Terminating (lasts 10y)",
                 "Termination Grace Period:  1234s"]),
    ("Pending", ["Terminating (lasts 10y)"]),
    ("Succeeded", ["Status:       Succeeded"]),
    ("Failed", ["Status:       Failed"]),
])
def test_pod_terminating_status(phase: str, wanted: list[str]) -> None:
    pod = {"metadata": {"name": "bar", "namespace": "foo",
                        "deletionTimestamp": ago(10 * 365 * 86400 + 3 * 86400),
                        "deletionGracePeriodSeconds": 1234},
           "status": {"phase": phase}}
    out = run("Pod", pod)
    for want in wanted:
        assert want in out
    if phase in ("Succeeded", "Failed"):
        assert "Terminating" not in out
        assert "Termination Grace Period" not in out


def test_pod_tolerations_match_kubectl() -> None:
    # describe_test.go TestDescribePodTolerations.
    pod = {"metadata": {"name": "bar", "namespace": "foo"}, "spec": {"tolerations": [
        {"operator": "Exists"},
        {"effect": "NoSchedule", "operator": "Exists"},
        {"key": "key0", "operator": "Exists"},
        {"key": "key1", "value": "value1"},
        {"key": "key2", "operator": "Equal", "value": "value2", "effect": "NoSchedule"},
        {"key": "key3", "value": "value3", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "key4", "effect": "NoExecute", "tolerationSeconds": 60},
    ]}}
    out = run("Pod", pod, show_events=False)
    for want in ("  op=Exists\n", ":NoSchedule op=Exists\n", "key0 op=Exists\n",
                 "key1=value1\n", "key2=value2:NoSchedule\n",
                 "key3=value3:NoExecute for 300s\n", "key4:NoExecute for 60s\n", "Tolerations:"):
        assert want in out
    assert "Events:" not in out


def test_pod_topology_spread_constraints_match_kubectl() -> None:
    # describe_test.go TestDescribeTopologySpreadConstraints.
    pod = {"metadata": {"name": "bar", "namespace": "foo"}, "spec": {
        "topologySpreadConstraints": [
            {"maxSkew": 3, "topologyKey": "topology.kubernetes.io/test1",
             "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"key1": "val1", "key2": "val2"}}},
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/test2",
             "whenUnsatisfiable": "ScheduleAnyway"}]}}
    out = run("Pod", pod)
    assert ("topology.kubernetes.io/test1:DoNotSchedule when max skew 3 is exceeded "
            "for selector key1=val1,key2=val2\n") in out
    assert "topology.kubernetes.io/test2:ScheduleAnyway when max skew 1 is exceeded\n" in out


def test_pod_node_and_nominated_node() -> None:
    # describe_test.go TestDescribePodNode.
    pod = {"metadata": {"name": "bar", "namespace": "foo"},
           "spec": {"nodeName": "all-in-one"},
           "status": {"hostIP": "127.0.0.1", "nominatedNodeName": "nodeA"}}
    out = run("Pod", pod)
    assert "Node:               all-in-one/127.0.0.1\n" in out
    assert "NominatedNodeName:  nodeA\n" in out


def test_pod_qos_is_computed_when_status_has_none() -> None:
    def qos(resources: dict[str, Any]) -> str:
        pod = {"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "c", "image": "i", "resources": resources}]}}
        line = next(x for x in run("Pod", pod).splitlines() if x.startswith("QoS Class:"))
        return line.split()[-1]

    assert qos({"limits": {"cpu": "1", "memory": "1Gi"},
                "requests": {"cpu": "1", "memory": "1Gi"}}) == "Guaranteed"
    # As GetPodQOS computes it: without the API's request defaulting, limits
    # alone do not make a pod Guaranteed.
    assert qos({"limits": {"cpu": "1", "memory": "1Gi"}}) == "Burstable"
    assert qos({}) == "BestEffort"


def test_pod_probe_urls_and_defaults() -> None:
    def probe_line(probe: dict[str, Any]) -> str:
        pod = {"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "c", "image": "i", "readinessProbe": probe}]}}
        out = run("Pod", pod)
        return next(line for line in out.splitlines() if "Readiness:" in line).split(
            "Readiness:", 1)[1].strip()

    assert probe_line({"httpGet": {"host": "10.0.0.1", "port": "http", "path": "ready",
                                   "scheme": "HTTPS"}}) == (
        "http-get https://10.0.0.1:http/ready delay=0s timeout=0s period=0s "
        "#success=0 #failure=0")
    assert probe_line({"httpGet": {"host": "::1", "port": 8080, "path": "/",
                                   "scheme": "HTTP"}}).startswith("http-get http://[::1]:8080/ ")
    assert probe_line({}).startswith("unknown delay=0s")


# ========================================================================= Node


def minikube_node() -> dict[str, Any]:
    resources = {"cpu": "2", "memory": "4Gi", "ephemeral-storage": "20Gi", "pods": "110",
                 "hugepages-2Mi": "0", "example.com/gpu": "2"}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "minikube", "uid": "n1", "creationTimestamp": "2024-04-30T12:00:00Z",
                     "labels": {"kubernetes.io/hostname": "minikube",
                                "node-role.kubernetes.io/control-plane": ""},
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0"}},
        "spec": {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"],
                 "taints": [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"},
                            {"key": "node.kubernetes.io/disk-pressure", "effect": "NoExecute"}]},
        "status": {
            "capacity": dict(resources), "allocatable": dict(resources),
            "conditions": [
                {"type": "MemoryPressure", "status": "False",
                 "lastHeartbeatTime": "2024-05-01T11:59:00Z",
                 "lastTransitionTime": "2024-04-30T12:00:30Z",
                 "reason": "KubeletHasSufficientMemory",
                 "message": "kubelet has sufficient memory available"},
                {"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-05-01T11:59:00Z",
                 "lastTransitionTime": "2024-04-30T12:00:30Z", "reason": "KubeletReady",
                 "message": "kubelet is posting ready status"}],
            "addresses": [{"type": "InternalIP", "address": "192.168.49.2"},
                          {"type": "Hostname", "address": "minikube"}],
            "nodeInfo": {"machineID": "c0ffee", "systemUUID": "5a1e", "bootID": "b007",
                         "kernelVersion": "6.1.0-18-amd64", "osImage": "Debian GNU/Linux 12",
                         "operatingSystem": "linux", "architecture": "amd64",
                         "containerRuntimeVersion": "podman://4.9.3",
                         "kubeletVersion": "v1.32.0"},
        },
    }


def node_pod(name: str, namespace: str = "default", *, node: str = "minikube",
             phase: str = "Running", created: str = "2024-05-01T11:00:00Z",
             **resources: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace, "creationTimestamp": created},
            "spec": {"nodeName": node, "containers": [{"name": "c", "resources": resources}]},
            "status": {"phase": phase}}


def test_node_golden() -> None:
    pods = [
        node_pod("web", requests={"cpu": "250m", "memory": "64Mi"},
                 limits={"cpu": "500m", "memory": "128Mi"}),
        node_pod("coredns-668d6bf9bc-abcde", "kube-system", created="2024-04-30T12:01:00Z",
                 requests={"cpu": "100m", "memory": "70Mi"}, limits={"memory": "170Mi"}),
        node_pod("finished", requests={"cpu": "1"}, phase="Succeeded"),
        node_pod("elsewhere", node="other", requests={"cpu": "1"}),
    ]
    events = [
        {"type": "Normal", "reason": "Starting", "message": "Starting kubelet.",
         "source": {"component": "kubelet", "host": "minikube"},
         "firstTimestamp": "2024-04-30T12:00:00Z", "lastTimestamp": "2024-04-30T12:00:00Z",
         "count": 1},
        {"type": "Normal", "reason": "NodeReady",
         "message": "Node minikube status is now: NodeReady",
         "source": {"component": "kubelet", "host": "minikube"},
         "firstTimestamp": "2024-04-30T12:00:30Z", "lastTimestamp": "2024-04-30T12:00:30Z",
         "count": 1},
    ]
    assert run("node", minikube_node(), related={"pods": pods}, events=events) == golden("""
        Name:               minikube|
        Roles:              control-plane|
        Labels:             kubernetes.io/hostname=minikube|
                            node-role.kubernetes.io/control-plane=|
        Annotations:        node.alpha.kubernetes.io/ttl: 0|
        CreationTimestamp:  Tue, 30 Apr 2024 12:00:00 +0000|
        Taints:             node.kubernetes.io/disk-pressure:NoExecute|
                            dedicated=infra:NoSchedule|
        Unschedulable:      false|
        Conditions:|
          Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message|
          ----             ------  -----------------                 ------------------                ------                       -------|
          MemoryPressure   False   Wed, 01 May 2024 11:59:00 +0000   Tue, 30 Apr 2024 12:00:30 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available|
          Ready            True    Wed, 01 May 2024 11:59:00 +0000   Tue, 30 Apr 2024 12:00:30 +0000   KubeletReady                 kubelet is posting ready status|
        Addresses:|
          InternalIP:  192.168.49.2|
          Hostname:    minikube|
        Capacity:|
          cpu:                2|
          ephemeral-storage:  20Gi|
          example.com/gpu:    2|
          hugepages-2Mi:      0|
          memory:             4Gi|
          pods:               110|
        Allocatable:|
          cpu:                2|
          ephemeral-storage:  20Gi|
          example.com/gpu:    2|
          hugepages-2Mi:      0|
          memory:             4Gi|
          pods:               110|
        System Info:|
          Machine ID:                 c0ffee|
          System UUID:                5a1e|
          Boot ID:                    b007|
          Kernel Version:             6.1.0-18-amd64|
          OS Image:                   Debian GNU/Linux 12|
          Operating System:           linux|
          Architecture:               amd64|
          Container Runtime Version:  podman://4.9.3|
          Kubelet Version:            v1.32.0|
        PodCIDR:                      10.244.0.0/24|
        PodCIDRs:                     10.244.0.0/24|
        Non-terminated Pods:          (2 in total)|
          Namespace                   Name                        CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age|
          ---------                   ----                        ------------  ----------  ---------------  -------------  ---|
          default                     web                         250m (12%)    500m (25%)  64Mi (1%)        128Mi (3%)     60m|
          kube-system                 coredns-668d6bf9bc-abcde    100m (5%)     0 (0%)      70Mi (1%)        170Mi (4%)     23h|
        Allocated resources:|
          (Total limits may be over 100 percent, i.e., overcommitted.)|
          Resource           Requests    Limits|
          --------           --------    ------|
          cpu                350m (17%)  500m (25%)|
          memory             134Mi (3%)  298Mi (7%)|
          ephemeral-storage  0 (0%)      0 (0%)|
          hugepages-2Mi      0 (0%)      0 (0%)|
          example.com/gpu    0           0|
        Events:|
          Type    Reason     Age   From     Message|
          ----    ------     ----  ----     -------|
          Normal  Starting   24h   kubelet  Starting kubelet.|
          Normal  NodeReady  23h   kubelet  Node minikube status is now: NodeReady|
    """)  # noqa: E501


def hugepage_node() -> dict[str, Any]:
    # describe_test.go TestDescribeNode: capacity vs allocatable with hugepages.
    return {"metadata": {"name": "bar", "uid": "uid"}, "spec": {"unschedulable": True},
            "status": {
                "capacity": {"hugepages-2Mi": "4Gi", "cpu": "8", "memory": "24Gi",
                             "hugepages-1Gi": "0"},
                "allocatable": {"hugepages-2Mi": "2Gi", "cpu": "4", "memory": "12Gi",
                                "hugepages-1Gi": "0"}}}


def test_node_allocated_resources_match_kubectl() -> None:
    pod = {"metadata": {"name": "pod-with-resources", "namespace": "foo"},
           "spec": {"nodeName": "bar", "containers": [
               {"name": "cpu-mem", "image": "image:latest", "resources": {
                   "requests": {"cpu": "1", "memory": "1Gi"},
                   "limits": {"cpu": "2", "memory": "2Gi"}}},
               {"name": "hugepages", "image": "image:latest", "resources": {
                   "requests": {"hugepages-2Mi": "512Mi"},
                   "limits": {"hugepages-2Mi": "512Mi"}}}]},
           "status": {"phase": "Running"}}
    events = [
        {"message": "Node bar status is now: NodeHasNoDiskPressure", "type": "Normal",
         "firstTimestamp": "2014-01-15T00:00:00Z", "lastTimestamp": "2014-01-15T00:00:00Z",
         "count": 1},
        {"message": "Node bar status is now: NodeReady", "type": "Normal",
         "firstTimestamp": "2014-01-15T00:00:00Z", "lastTimestamp": "2014-01-15T00:00:00Z",
         "count": 2},
    ]
    out = run("Node", hugepage_node(), related={"pods": [pod]}, events=events)
    assert "Unschedulable:      true\n" in out
    assert textwrap.dedent("""\
        Allocated resources:
          (Total limits may be over 100 percent, i.e., overcommitted.)
          Resource           Requests     Limits
          --------           --------     ------
          cpu                1 (25%)      2 (50%)
          memory             1Gi (8%)     2Gi (16%)
          ephemeral-storage  0 (0%)       0 (0%)
          hugepages-1Gi      0 (0%)       0 (0%)
          hugepages-2Mi      512Mi (25%)  512Mi (25%)
        """) in out
    assert "Node bar status is now: NodeHasNoDiskPressure" in out
    assert "10y (x2 over 10y)" in out


def test_node_counts_sidecars_like_kubectl() -> None:
    # describe_test.go TestDescribeNodeWithSidecar.
    pod = {"metadata": {"name": "pod-with-resources", "namespace": "foo"},
           "spec": {"nodeName": "bar",
                    "initContainers": [
                        {"name": "init-container-1", "restartPolicy": "Always",
                         "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
                        {"name": "init-container-2",
                         "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
                    "containers": [
                        {"name": "cpu-mem", "resources": {
                            "requests": {"cpu": "1", "memory": "1Gi"},
                            "limits": {"cpu": "2", "memory": "2Gi"}}},
                        {"name": "hugepages", "resources": {
                            "requests": {"hugepages-2Mi": "512Mi"},
                            "limits": {"hugepages-2Mi": "512Mi"}}}]},
           "status": {"phase": "Running"}}
    out = run("Node", hugepage_node(), related={"pods": [pod]})
    assert ("\n  cpu                2 (50%)      2 (50%)"
            "\n  memory             2Gi (16%)    2Gi (16%)"
            "\n  ephemeral-storage  0 (0%)       0 (0%)"
            "\n  hugepages-1Gi      0 (0%)       0 (0%)"
            "\n  hugepages-2Mi      512Mi (25%)  512Mi (25%)\n") in out


def test_node_uses_pod_level_resources_like_kubectl() -> None:
    # describe_test.go TestDescribeNodeWithPodLevelResources.
    node = {"metadata": {"name": "bar"},
            "status": {"capacity": {"cpu": "8", "memory": "24Gi"},
                       "allocatable": {"cpu": "4", "memory": "12Gi"}}}
    pod = {"metadata": {"name": "pod-with-pod-level-resources", "namespace": "foo"},
           "spec": {"nodeName": "bar",
                    "resources": {"requests": {"cpu": "2", "memory": "4Gi"},
                                  "limits": {"cpu": "4", "memory": "8Gi"}},
                    "containers": [{"name": "container-1", "image": "image:latest"},
                                   {"name": "container-2", "image": "image:latest"}]},
           "status": {"phase": "Running"}}
    out = run("Node", node, related={"pods": [pod]})
    assert ("pod-with-pod-level-resources    2 (50%)       4 (100%)    4Gi (33%)        "
            "8Gi (66%)") in out
    assert textwrap.dedent("""\
        Allocated resources:
          (Total limits may be over 100 percent, i.e., overcommitted.)
          Resource           Requests   Limits
          --------           --------   ------
          cpu                2 (50%)    4 (100%)
          memory             4Gi (33%)  8Gi (66%)
          ephemeral-storage  0 (0%)     0 (0%)
        """) in out


def test_bare_node_golden() -> None:
    assert run("no", {"metadata": {"name": "bare"}}, events=[]) == golden("""
        Name:               bare|
        Roles:              <none>|
        Labels:             <none>|
        Annotations:        <none>|
        CreationTimestamp:  Mon, 01 Jan 0001 00:00:00 +0000|
        Taints:             <none>|
        Unschedulable:      false|
        Addresses:|
        System Info:|
          Machine ID:                 |
          System UUID:                |
          Boot ID:                    |
          Kernel Version:             |
          OS Image:                   |
          Operating System:           |
          Architecture:               |
          Container Runtime Version:  |
          Kubelet Version:            |
        Non-terminated Pods:          (0 in total)|
          Namespace                   Name    CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age|
          ---------                   ----    ------------  ----------  ---------------  -------------  ---|
        Allocated resources:|
          (Total limits may be over 100 percent, i.e., overcommitted.)|
          Resource           Requests  Limits|
          --------           --------  ------|
          cpu                0 (0%)    0 (0%)|
          memory             0 (0%)    0 (0%)|
          ephemeral-storage  0 (0%)    0 (0%)|
        Events:              <none>|
    """)  # noqa: E501


def test_node_roles_from_both_label_styles() -> None:
    node = {"metadata": {"name": "n", "labels": {
        "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/": "x",
        "kubernetes.io/role": "infra"}}}
    assert "Roles:              infra,worker\n" in run("Node", node)


# =================================================================== Deployment


def nginx_template(image: str = "nginx:1.25", **extra_labels: str) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "nginx", **extra_labels}},
            "spec": {"containers": [{"name": "nginx", "image": image,
                                     "ports": [{"containerPort": 80, "protocol": "TCP"}],
                                     "resources": {},
                                     "terminationMessagePath": "/dev/termination-log",
                                     "imagePullPolicy": "IfNotPresent"}],
                     "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                     "dnsPolicy": "ClusterFirst", "securityContext": {},
                     "schedulerName": "default-scheduler"}}


def nginx_deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "nginx", "namespace": "default", "uid": "d1",
                     "creationTimestamp": "2024-05-01T11:00:00Z", "labels": {"app": "nginx"},
                     "annotations": {"deployment.kubernetes.io/revision": "2"}},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "nginx"}},
                 "template": nginx_template("nginx:1.26"),
                 "strategy": {"type": "RollingUpdate",
                              "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
                 "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
        "status": {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 3,
                   "availableReplicas": 3, "observedGeneration": 2,
                   "conditions": [
                       {"type": "Available", "status": "True",
                        "reason": "MinimumReplicasAvailable"},
                       {"type": "Progressing", "status": "True",
                        "reason": "NewReplicaSetAvailable"}]},
    }


def replica_set(name: str, template: dict[str, Any], *, replicas: int, current: int,
                created: str, owner_uid: str = "d1", uid: str | None = None) -> dict[str, Any]:
    template = copy.deepcopy(template)
    pod_hash = name.rsplit("-", 1)[1]
    template["metadata"]["labels"]["pod-template-hash"] = pod_hash
    return {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default", "uid": uid or f"uid-{name}",
                     "creationTimestamp": created,
                     "labels": {"app": "nginx", "pod-template-hash": pod_hash},
                     "annotations": {"deployment.kubernetes.io/desired-replicas": "3",
                                     "deployment.kubernetes.io/max-replicas": "4",
                                     "deployment.kubernetes.io/revision": "2"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                          "name": "nginx", "uid": owner_uid,
                                          "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"replicas": replicas,
                 "selector": {"matchLabels": {"app": "nginx", "pod-template-hash": pod_hash}},
                 "template": template},
        "status": {"replicas": current, "readyReplicas": current, "availableReplicas": current},
    }


def test_deployment_golden_after_a_rollout() -> None:
    old = replica_set("nginx-7c5ddbdf54", nginx_template("nginx:1.25"), replicas=0, current=0,
                      created="2024-05-01T11:00:00Z")
    new = replica_set("nginx-5d9f8b7c6d", nginx_template("nginx:1.26"), replicas=3, current=3,
                      created="2024-05-01T11:40:00Z")
    foreign = replica_set("nginx-aaaaaaaaaa", nginx_template("nginx:1.26"), replicas=1,
                          current=1, created="2024-05-01T10:00:00Z", owner_uid="someone-else")
    events = [
        {"type": "Normal", "reason": "ScalingReplicaSet", "source": {"component":
                                                                    "deployment-controller"},
         "message": "Scaled up replica set nginx-7c5ddbdf54 to 3",
         "firstTimestamp": "2024-05-01T11:00:00Z", "lastTimestamp": "2024-05-01T11:00:00Z",
         "count": 1},
        {"type": "Normal", "reason": "ScalingReplicaSet", "source": {"component":
                                                                    "deployment-controller"},
         "message": "Scaled up replica set nginx-5d9f8b7c6d to 1",
         "firstTimestamp": "2024-05-01T11:40:00Z", "lastTimestamp": "2024-05-01T11:40:00Z",
         "count": 1},
        {"type": "Normal", "reason": "ScalingReplicaSet", "reportingComponent":
            "deployment-controller",
         "message": "Scaled down replica set nginx-7c5ddbdf54 to 0 from 1",
         "eventTime": "2024-05-01T11:40:20.000000Z"},
    ]
    out = run("deployments.apps", nginx_deployment(),
              related={"replicasets": [new, foreign, old]}, events=events)
    assert out == golden("""
        Name:                   nginx|
        Namespace:              default|
        CreationTimestamp:      Wed, 01 May 2024 11:00:00 +0000|
        Labels:                 app=nginx|
        Annotations:            deployment.kubernetes.io/revision: 2|
        Selector:               app=nginx|
        Replicas:               3 desired | 3 updated | 3 total | 3 available | 0 unavailable|
        StrategyType:           RollingUpdate|
        MinReadySeconds:        0|
        RollingUpdateStrategy:  25% max unavailable, 25% max surge|
        Pod Template:|
          Labels:  app=nginx|
          Containers:|
           nginx:|
            Image:         nginx:1.26|
            Port:          80/TCP|
            Host Port:     0/TCP|
            Environment:   <none>|
            Mounts:        <none>|
          Volumes:         <none>|
          Node-Selectors:  <none>|
          Tolerations:     <none>|
        Conditions:|
          Type           Status  Reason|
          ----           ------  ------|
          Available      True    MinimumReplicasAvailable|
          Progressing    True    NewReplicaSetAvailable|
        OldReplicaSets:  nginx-7c5ddbdf54 (0/0 replicas created)|
        NewReplicaSet:   nginx-5d9f8b7c6d (3/3 replicas created)|
        Events:|
          Type    Reason             Age   From                   Message|
          ----    ------             ----  ----                   -------|
          Normal  ScalingReplicaSet  60m   deployment-controller  Scaled up replica set nginx-7c5ddbdf54 to 3|
          Normal  ScalingReplicaSet  20m   deployment-controller  Scaled up replica set nginx-5d9f8b7c6d to 1|
          Normal  ScalingReplicaSet  19m   deployment-controller  Scaled down replica set nginx-7c5ddbdf54 to 0 from 1|
    """)  # noqa: E501


def test_deployment_rollout_matches_kubectl_test() -> None:
    # describe_test.go TestDescribeDeployment, "deployment after successful rollout".
    labels = {"foo": "bar"}

    def template(image: str) -> dict[str, Any]:
        return {"metadata": {"name": "bar", "namespace": "foo", "labels": dict(labels)},
                "spec": {"containers": [{"image": image, "volumeMounts": [
                    {"name": "vol-foo", "mountPath": "/tmp/vol-foo"},
                    {"name": "vol-bar", "mountPath": "/tmp/vol-bar"}]}],
                    "volumes": [{"name": "vol-foo", "emptyDir": {}},
                                {"name": "vol-bar", "emptyDir": {}}]}}

    uid = "00000000-0000-0000-0000-000000000001"
    owner = [{"controller": True, "uid": uid}]
    deployment = {
        "metadata": {"name": "bar", "namespace": "foo", "labels": labels, "uid": uid,
                     "creationTimestamp": "2021-01-01T00:00:00Z"},
        "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                 "template": template("mytest-image:v2.0")},
        "status": {"replicas": 2, "updatedReplicas": 2, "availableReplicas": 2,
                   "unavailableReplicas": 0}}
    replica_sets = [
        {"metadata": {"name": "bar-001", "namespace": "foo", "labels": labels, "uid": uid,
                      "ownerReferences": owner},
         "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                  "template": template("mytest-image:v1.0")},
         "status": {"replicas": 0}},
        {"metadata": {"name": "bar-002", "namespace": "foo", "labels": labels,
                      "uid": "00000000-0000-0000-0000-000000000002", "ownerReferences": owner},
         "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                  "template": template("mytest-image:v2.0")},
         "status": {"replicas": 2}},
    ]

    def event(message: str, **when: Any) -> dict[str, Any]:
        return {"type": "Normal", "reason": "ScalingReplicaSet", "message": message, **when}

    controller = {"source": {"component": "deployment-controller"}}
    reporting = {"reportingComponent": "deployment-controller"}
    events = [
        event("Scaled up replica set bar-002 from 0 to 1", **reporting, eventTime=ago(20 * 60),
              series={"count": 3, "lastObservedTime": ago(12 * 60)}),
        event("Scaled up replica set bar-001 from 0 to 2", **controller,
              firstTimestamp=ago(10 * 60)),
        event("Scaled up replica set bar-002 from 0 to 1", **controller,
              firstTimestamp=ago(2 * 60)),
        event("Scaled down replica set bar-002 from 2 to 1", **reporting, eventTime=ago(60)),
        event("Scaled up replica set bar-002 from 0 to 2", **reporting, eventTime=ago(15)),
        event("Scaled down replica set bar-001 from 2 to 0", **reporting, eventTime=ago(3)),
    ]
    out = run("Deployment", deployment, related={"replicasets": replica_sets}, events=events)
    for want in (
        "Replicas:           2 desired | 2 updated | 2 total | 2 available | 0 unavailable",
        "Image:        mytest-image:v2.0",
        "OldReplicaSets:    bar-001 (0/0 replicas created)",
        "NewReplicaSet:     bar-002 (2/2 replicas created)",
        "Events:\n",
        "Normal  ScalingReplicaSet  12m (x3 over 20m)  deployment-controller  "
        "Scaled up replica set bar-002 from 0 to 1",
        "Normal  ScalingReplicaSet  10m                deployment-controller  "
        "Scaled up replica set bar-001 from 0 to 2",
        "Normal  ScalingReplicaSet  2m                 deployment-controller  "
        "Scaled up replica set bar-002 from 0 to 1",
        "Normal  ScalingReplicaSet  60s                deployment-controller  "
        "Scaled down replica set bar-002 from 2 to 1",
        "Normal  ScalingReplicaSet  15s                deployment-controller  "
        "Scaled up replica set bar-002 from 0 to 2",
        "Normal  ScalingReplicaSet  3s                 deployment-controller  "
        "Scaled down replica set bar-001 from 2 to 0",
    ):
        assert want in out
    assert "RollingUpdateStrategy" not in out  # no rollingUpdate block, no line


def test_deployment_without_replica_sets_and_recreate_strategy() -> None:
    deployment = nginx_deployment()
    deployment["spec"]["strategy"] = {"type": "Recreate"}
    deployment["spec"]["minReadySeconds"] = 5
    deployment["status"] = {"replicas": 3, "updatedReplicas": 1, "availableReplicas": 2,
                            "unavailableReplicas": 1}
    out = run("Deployment", deployment, related={"replicasets": []})
    assert "StrategyType:       Recreate\nMinReadySeconds:    5\nPod Template:\n" in out
    assert "Replicas:           3 desired | 1 updated | 3 total | 2 available | 1 unavailable\n" \
        in out
    assert "ReplicaSet" not in out
    assert "Conditions:" not in out
    assert out.endswith("Events:            <none>\n")


def test_deployment_template_with_init_containers_and_volumes() -> None:
    deployment = nginx_deployment()
    template = deployment["spec"]["template"]
    template["metadata"]["annotations"] = {"prometheus.io/scrape": "true"}
    template["spec"].update({
        "serviceAccountName": "web", "priorityClassName": "high",
        "initContainers": [{"name": "migrate", "image": "migrate:1", "args": ["up"]}],
        "volumes": [{"name": "cfg", "configMap": {"name": "web-config"}}],
        "nodeSelector": {"disktype": "ssd"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web",
                         "effect": "NoSchedule"}],
    })
    out = run("Deployment", deployment, show_events=False)
    start = out.index("Pod Template:")
    assert out[start:out.index("Conditions:")] == golden("""
        Pod Template:|
          Labels:           app=nginx|
          Annotations:      prometheus.io/scrape: true|
          Service Account:  web|
          Init Containers:|
           migrate:|
            Image:      migrate:1|
            Port:       <none>|
            Host Port:  <none>|
            Args:|
              up|
            Environment:  <none>|
            Mounts:       <none>|
          Containers:|
           nginx:|
            Image:        nginx:1.26|
            Port:         80/TCP|
            Host Port:    0/TCP|
            Environment:  <none>|
            Mounts:       <none>|
          Volumes:|
           cfg:|
            Type:               ConfigMap (a volume populated by a ConfigMap)|
            Name:               web-config|
            Optional:           false|
          Priority Class Name:  high|
          Node-Selectors:       disktype=ssd|
          Tolerations:          dedicated=web:NoSchedule|
    """)
    assert "Events:" not in out


# =================================================================== ReplicaSet


def rs_pod(name: str, phase: str, *, owner: str | None = "uid-nginx-7c5ddbdf54",
           labels: dict[str, str] | None = None) -> dict[str, Any]:
    refs = [] if owner is None else [{"kind": "ReplicaSet", "name": "nginx-7c5ddbdf54",
                                      "uid": owner, "controller": True}]
    return {"metadata": {"name": name, "namespace": "default",
                         "labels": labels if labels is not None else {
                             "app": "nginx", "pod-template-hash": "7c5ddbdf54"},
                         "ownerReferences": refs},
            "status": {"phase": phase}}


def test_replica_set_golden() -> None:
    rs = replica_set("nginx-7c5ddbdf54", nginx_template(), replicas=3, current=3,
                     created="2024-05-01T11:00:00Z")
    rs["status"]["conditions"] = [{"type": "ReplicaFailure", "status": "True",
                                   "reason": "FailedCreate"}]
    pods = [rs_pod("a", "Running"), rs_pod("b", "Running"), rs_pod("c", "Pending"),
            rs_pod("d", "Succeeded"), rs_pod("e", "Failed"), rs_pod("f", "Unknown"),
            rs_pod("orphan", "Running", owner=None),
            rs_pod("adopted-elsewhere", "Running", owner="other"),
            rs_pod("unselected", "Running", labels={"app": "nginx"})]
    events = [{"type": "Warning", "reason": "FailedCreate",
               "message": 'pods "nginx-7c5ddbdf54-zz" is forbidden: exceeded quota',
               "source": {"component": "replicaset-controller"},
               "firstTimestamp": "2024-05-01T11:00:00Z", "lastTimestamp": "2024-05-01T11:55:00Z",
               "count": 7}]
    assert run("rs", rs, related={"pods": pods}, events=events) == golden("""
        Name:           nginx-7c5ddbdf54|
        Namespace:      default|
        Selector:       app=nginx,pod-template-hash=7c5ddbdf54|
        Labels:         app=nginx|
                        pod-template-hash=7c5ddbdf54|
        Annotations:    deployment.kubernetes.io/desired-replicas: 3|
                        deployment.kubernetes.io/max-replicas: 4|
                        deployment.kubernetes.io/revision: 2|
        Controlled By:  Deployment/nginx|
        Replicas:       3 current / 3 desired|
        Pods Status:    2 Running / 1 Waiting / 1 Succeeded / 1 Failed|
        Pod Template:|
          Labels:  app=nginx|
                   pod-template-hash=7c5ddbdf54|
          Containers:|
           nginx:|
            Image:         nginx:1.25|
            Port:          80/TCP|
            Host Port:     0/TCP|
            Environment:   <none>|
            Mounts:        <none>|
          Volumes:         <none>|
          Node-Selectors:  <none>|
          Tolerations:     <none>|
        Conditions:|
          Type             Status  Reason|
          ----             ------  ------|
          ReplicaFailure   True    FailedCreate|
        Events:|
          Type     Reason        Age               From                   Message|
          ----     ------        ----              ----                   -------|
          Warning  FailedCreate  5m (x7 over 60m)  replicaset-controller  pods "nginx-7c5ddbdf54-zz" is forbidden: exceeded quota|
    """)  # noqa: E501


def test_replica_set_without_selector_or_owner() -> None:
    rs = {"metadata": {"name": "bare", "namespace": "default"}, "spec": {}, "status": {}}
    out = run("ReplicaSet", rs, related={"pods": [rs_pod("a", "Running")]})
    assert out.startswith(golden("""
        Name:         bare|
        Namespace:    default|
        Selector:     <none>|
        Labels:       <none>|
        Annotations:  <none>|
        Replicas:     0 current / 1 desired|
        Pods Status:  0 Running / 0 Waiting / 0 Succeeded / 0 Failed|
        Pod Template:|
    """))
    assert "  Containers: <none>\n" in out


# ==================================================================== Namespace


def test_namespace_golden() -> None:
    namespace = {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "example", "labels": {"kubernetes.io/metadata.name": "example",
                                                   "team": "a"},
                     "annotations": {"owner": "ops"}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Terminating", "conditions": [
            {"type": "NamespaceDeletionContentFailure", "status": "True",
             "lastTransitionTime": "2014-01-15T00:00:00Z", "reason": "example reason",
             "message": "example message"}]},
    }
    # kubectl's namespace describer shows no events.
    assert run("namespaces", namespace, events=POD_EVENTS) == golden("""
        Name:         example|
        Labels:       kubernetes.io/metadata.name=example|
                      team=a|
        Annotations:  owner: ops|
        Status:       Terminating|
        Conditions:|
          Type                             Status  LastTransitionTime               Reason          Message|
          ----                             ------  ------------------               ------          -------|
          NamespaceDeletionContentFailure  True    Wed, 15 Jan 2014 00:00:00 +0000  example reason  example message|
    """)  # noqa: E501


def test_active_namespace_golden() -> None:
    namespace = {"metadata": {"name": "default",
                              "labels": {"kubernetes.io/metadata.name": "default"}},
                 "status": {"phase": "Active"}}
    assert run("ns", namespace) == golden("""
        Name:         default|
        Labels:       kubernetes.io/metadata.name=default|
        Annotations:  <none>|
        Status:       Active|
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


def test_inputs_are_not_mutated() -> None:
    pod = kitchen_sink_pod()
    before = copy.deepcopy(pod)
    events = copy.deepcopy(KITCHEN_SINK_EVENTS)
    run("Pod", pod, events=events)
    assert pod == before
    assert events == KITCHEN_SINK_EVENTS
