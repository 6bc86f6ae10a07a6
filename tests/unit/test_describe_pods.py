"""``minikube-py describe pod``: golden output modelled on kubectl's
describe_test.go and on real ``kubectl describe`` output.

Golden strings are written with a ``|`` closing every line (see
``describe_helpers.golden``) so that kubectl's trailing spaces (``Status:       ``,
``Ready   True ``) stay visible.
"""

from __future__ import annotations

import copy
from datetime import timedelta, timezone
from typing import Any

import pytest

from minikube_py.api.describe import describe

from .describe_helpers import NOW, POD_EVENTS, ago, golden, run

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


def test_inputs_are_not_mutated() -> None:
    pod = kitchen_sink_pod()
    before = copy.deepcopy(pod)
    events = copy.deepcopy(KITCHEN_SINK_EVENTS)
    run("Pod", pod, events=events)
    assert pod == before
    assert events == KITCHEN_SINK_EVENTS
