"""``minikube-py describe`` for Deployments and ReplicaSets: golden output
modelled on kubectl's describe_test.go and on real ``kubectl describe`` output.

Golden strings are written with a ``|`` closing every line (see
``describe_helpers.golden``) so that kubectl's trailing spaces stay visible.
"""

from __future__ import annotations

import copy
from typing import Any

from .describe_helpers import ago, golden, run

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
