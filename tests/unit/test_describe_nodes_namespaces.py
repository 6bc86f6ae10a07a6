"""``minikube-py describe`` for the cluster-scoped Node and Namespace: golden
output modelled on kubectl's describe_test.go and on real ``kubectl describe``
output.

Golden strings are written with a ``|`` closing every line (see
``describe_helpers.golden``) so that kubectl's trailing spaces stay visible.
"""

from __future__ import annotations

import textwrap
from typing import Any

from .describe_helpers import POD_EVENTS, golden, run

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
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
             "metadata": {"name": "minikube", "namespace": "kube-node-lease"},
             "spec": {"holderIdentity": "minikube", "leaseDurationSeconds": 40,
                      "renewTime": "2024-05-01T11:59:30.123456Z"}}
    assert run("node", minikube_node(), related={"pods": pods, "lease": [lease]},
               events=events) == golden("""
        Name:               minikube|
        Roles:              control-plane|
        Labels:             kubernetes.io/hostname=minikube|
                            node-role.kubernetes.io/control-plane=|
        Annotations:        node.alpha.kubernetes.io/ttl: 0|
        CreationTimestamp:  Tue, 30 Apr 2024 12:00:00 +0000|
        Taints:             node.kubernetes.io/disk-pressure:NoExecute|
                            dedicated=infra:NoSchedule|
        Unschedulable:      false|
        Lease:|
          HolderIdentity:  minikube|
          AcquireTime:     <unset>|
          RenewTime:       Wed, 01 May 2024 11:59:30 +0000|
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
          Kube-Proxy Version:         |
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
          Kube-Proxy Version:         |
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


def test_node_without_a_lease_says_so_as_kubectl() -> None:
    # describeNode writes the Get's error when the node has no Lease (yet).
    text = run("node", minikube_node(), related={"pods": [], "lease": []}, events=[])
    assert 'Lease:              Failed to get lease: leases.coordination.k8s.io "minikube" ' \
        "not found\n" in text
