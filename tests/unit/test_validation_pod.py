"""Validation of Pods, on create and on update, one or more rows per rule,
with the exact rendered messages.

Every expected line is what ``kubectl`` shows for the same manifest against a
v1.32 API server (``str(FieldError)`` is the part after ``is invalid:``).
Objects go through ``apply_defaults`` first, as on the API server, unless a
row needs the raw object.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from minikube_py.api.errors import Invalid
from minikube_py.api.validation import check_create, validate_update

from .validation_helpers import (
    DNS_LABEL,
    LABEL_VALUE,
    QNAME,
    SUBDOMAIN,
    Mutator,
    built,
    container,
    messages,
    raw_pod,
    set_in,
)

PORT_RANGE = "must be between 1 and 65535, inclusive"
UPDATABLE = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
    "set to 1 if it was previously negative)")


# ------------------------------------------------------------------- Pod spec


def add_container(**fields: Any) -> Mutator:
    return lambda o: o["spec"]["containers"].append({"name": "second", "image": "x", **fields})


def in_container(**fields: Any) -> Mutator:
    return lambda o: container(o).update(fields)


POD_CASES: list[tuple[str, Mutator | None, Mutator | None, str]] = [
    # containers
    ("containers required", set_in("spec.containers", []), None,
     "spec.containers: Required value"),
    ("container name label", in_container(name="Web"), None,
     f'spec.containers[0].name: Invalid value: "Web": {DNS_LABEL}'),
    ("container name required", in_container(name=""), None,
     "spec.containers[0].name: Required value"),
    ("duplicate container", add_container(name="web"), None,
     'spec.containers[1].name: Duplicate value: "web"'),
    ("init duplicates regular", set_in("spec.initContainers", [{"name": "web", "image": "x"}]),
     None, 'spec.initContainers[0].name: Duplicate value: "web"'),
    ("image required", in_container(image=""), None, "spec.containers[0].image: Required value"),
    ("image whitespace", in_container(image=" nginx"), None,
     'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing '
     "whitespace"),
    # enums
    ("restartPolicy", set_in("spec.restartPolicy", "Sometimes"), None,
     'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", '
     '"OnFailure", "Never"'),
    ("restartPolicy required", None, set_in("spec.restartPolicy", ""),
     "spec.restartPolicy: Required value"),
    ("imagePullPolicy", in_container(imagePullPolicy="Sometimes"), None,
     'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: '
     '"Always", "IfNotPresent", "Never"'),
    ("dnsPolicy", set_in("spec.dnsPolicy", "Cluster"), None,
     'spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet",'
     ' "ClusterFirst", "Default", "None"'),
    ("terminationMessagePolicy", in_container(terminationMessagePolicy="Log"), None,
     'spec.containers[0].terminationMessagePolicy: Unsupported value: "Log": supported values: '
     '"File", "FallbackToLogsOnError"'),
    ("protocol", in_container(ports=[{"containerPort": 80, "protocol": "HTTP"}]), None,
     'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: '
     '"SCTP", "TCP", "UDP"'),
    ("preemptionPolicy", set_in("spec.preemptionPolicy", "Always"), None,
     'spec.preemptionPolicy: Unsupported value: "Always": supported values: '
     '"PreemptLowerPriority", "Never"'),
    # ports
    ("containerPort required", in_container(ports=[{"containerPort": 0}]), None,
     "spec.containers[0].ports[0].containerPort: Required value"),
    ("containerPort range", in_container(ports=[{"containerPort": 70000}]), None,
     f"spec.containers[0].ports[0].containerPort: Invalid value: 70000: {PORT_RANGE}"),
    ("hostPort range", in_container(ports=[{"containerPort": 80, "hostPort": -1}]), None,
     f"spec.containers[0].ports[0].hostPort: Invalid value: -1: {PORT_RANGE}"),
    ("port name too long", in_container(ports=[{"containerPort": 80,
                                                "name": "a-very-long-port-name"}]), None,
     'spec.containers[0].ports[0].name: Invalid value: "a-very-long-port-name": must be no '
     "more than 15 characters"),
    ("port name letters", in_container(ports=[{"containerPort": 80, "name": "8080"}]), None,
     'spec.containers[0].ports[0].name: Invalid value: "8080": must contain at least one '
     "letter (a-z)"),
    ("port name unique", in_container(ports=[{"containerPort": 80, "name": "http"},
                                             {"containerPort": 81, "name": "http"}]), None,
     'spec.containers[0].ports[1].name: Duplicate value: "http"'),
    ("hostPort conflict", add_container(ports=[{"containerPort": 80, "hostPort": 8080}]),
     lambda o: container(o).update(ports=[{"containerPort": 81, "hostPort": 8080,
                                           "protocol": "TCP"}]),
     'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'),
    ("hostNetwork hostPort", lambda o: (o["spec"].update(hostNetwork=True), container(o).update(
        ports=[{"containerPort": 80, "hostPort": 81}])), None,
     "spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when "
     "`hostNetwork` is true"),
    # env
    ("env name", in_container(env=[{"name": "A=B", "value": "1"}]), None,
     'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name '
     "must consist only of printable ASCII characters other than '='"),
    ("env name required", in_container(env=[{"name": "", "value": "1"}]), None,
     "spec.containers[0].env[0].name: Required value"),
    ("env value and valueFrom", in_container(env=[{"name": "A", "value": "1", "valueFrom": {
        "fieldRef": {"fieldPath": "metadata.name"}}}]), None,
     'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when '
     "`value` is not empty"),
    ("valueFrom empty", in_container(env=[{"name": "A", "valueFrom": {}}]), None,
     'spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`,'
     " `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"),
    ("valueFrom two sources", in_container(env=[{"name": "A", "valueFrom": {
        "fieldRef": {"fieldPath": "metadata.name"},
        "secretKeyRef": {"name": "s", "key": "k"}}}]), None,
     'spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field '
     "specified at a time"),
    ("fieldRef unknown", in_container(env=[{"name": "A", "valueFrom": {
        "fieldRef": {"fieldPath": "spec.foo"}}}]), None,
     'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.foo": error '
     "converting fieldPath: field label not supported: spec.foo"),
    ("fieldRef not for env", in_container(env=[{"name": "A", "valueFrom": {
        "fieldRef": {"fieldPath": "status.phase"}}}]), None,
     'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: '
     '"status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", '
     '"spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", '
     '"status.podIP", "status.podIPs"'),
    ("fieldRef labels need a key", in_container(env=[{"name": "A", "valueFrom": {
        "fieldRef": {"fieldPath": "metadata.labels"}}}]), None,
     'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: '
     '"metadata.labels": supported values: "metadata.name", "metadata.namespace", '
     '"metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", '
     '"status.hostIPs", "status.podIP", "status.podIPs"'),
    ("fieldRef label key", in_container(env=[{"name": "A", "valueFrom": {
        "fieldRef": {"fieldPath": "metadata.labels['bad key']"}}}]), None,
     f'spec.containers[0].env[0].valueFrom.fieldRef: Invalid value: "bad key": {QNAME}'),
    ("fieldRef version", in_container(env=[{"name": "A", "valueFrom": {
        "fieldRef": {"fieldPath": "metadata.name", "apiVersion": "v2"}}}]), None,
     'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.name": '
     "error converting fieldPath: unsupported pod version: v2"),
    ("resourceFieldRef", in_container(env=[{"name": "A", "valueFrom": {
        "resourceFieldRef": {"resource": "limits.gpu"}}}]), None,
     'spec.containers[0].env[0].valueFrom.resourceFieldRef.resource: Unsupported value: '
     '"limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", '
     '"limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"'),
    ("configMapKeyRef key", in_container(env=[{"name": "A", "valueFrom": {
        "configMapKeyRef": {"name": "cfg", "key": ""}}}]), None,
     "spec.containers[0].env[0].valueFrom.configMapKeyRef.key: Required value"),
    ("envFrom source", in_container(envFrom=[{"prefix": "X_"}]), None,
     'spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or '
     "`secretRef`"),
    # resources
    ("requests above limits", in_container(resources={"limits": {"cpu": "1"},
                                                      "requests": {"cpu": "2"}}), None,
     'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to '
     "cpu limit of 1"),
    ("requests above limits canonical", in_container(resources={
        "limits": {"memory": "1Gi"}, "requests": {"memory": "2048Mi"}}), None,
     'spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal '
     "to memory limit of 1Gi"),
    ("negative quantity", in_container(resources={"requests": {"cpu": "-1"}}), None,
     'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or '
     "equal to 0"),
    ("resource name", in_container(resources={"limits": {"gpu": "1"}}), None,
     'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard '
     "resource for containers"),
    ("resource name qualified", in_container(resources={"limits": {"bad name/x": "1"}}), None,
     'spec.containers[0].resources.limits[bad name/x]: Invalid value: "bad name/x": prefix '
     f"part {SUBDOMAIN}"),
    ("extended resource integer", in_container(resources={
        "limits": {"example.com/gpu": "500m"}}), None,
     "spec.containers[0].resources.limits[example.com/gpu]: Invalid value: 500m: must be an "
     "integer"),
    ("extended resource needs limit", None,
     lambda o: container(o).update(resources={"requests": {"example.com/gpu": "1"}}),
     "spec.containers[0].resources.limits: Required value: Limit must be set for non "
     "overcommitable resources"),
    ("extended resource equal", in_container(resources={
        "limits": {"example.com/gpu": "2"}, "requests": {"example.com/gpu": "1"}}), None,
     'spec.containers[0].resources.requests: Invalid value: "1": must be equal to '
     "example.com/gpu limit of 2"),
    ("hugepages need cpu or memory", in_container(resources={
        "limits": {"hugepages-2Mi": "4Mi"}}), None,
     "spec.containers[0].resources: Forbidden: HugePages require cpu or memory"),
    ("hugepages multiple", in_container(resources={
        "limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}}), None,
     'spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not '
     "positive integer multiple of hugepages-2Mi"),
    ("overhead", set_in("spec.overhead", {"cpu": "-10m"}), None,
     'spec.overhead.limits[cpu]: Invalid value: "-10m": must be greater than or equal to 0'),
    # volumes and mounts
    ("volume name", set_in("spec.volumes", [{"name": "Data", "emptyDir": {}}]), None,
     f'spec.volumes[0].name: Invalid value: "Data": {DNS_LABEL}'),
    ("volume name unique", set_in("spec.volumes", [{"name": "d", "emptyDir": {}},
                                                   {"name": "d", "emptyDir": {}}]), None,
     'spec.volumes[1].name: Duplicate value: "d"'),
    ("one volume source", set_in("spec.volumes", [
        {"name": "d", "emptyDir": {}, "hostPath": {"path": "/x"}}]), None,
     "spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"),
    ("volume source required", None, set_in("spec.volumes", [{"name": "d"}]),
     "spec.volumes[0]: Required value: must specify a volume type"),
    ("hostPath path", set_in("spec.volumes", [{"name": "d", "hostPath": {"path": ""}}]), None,
     "spec.volumes[0].hostPath.path: Required value"),
    ("hostPath type", set_in("spec.volumes", [{"name": "d", "hostPath": {
        "path": "/x", "type": "Dir"}}]), None,
     'spec.volumes[0].hostPath.type: Unsupported value: "Dir": supported values: "", '
     '"BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", '
     '"Socket"'),
    ("hostPath backsteps", set_in("spec.volumes", [{"name": "d", "hostPath": {
        "path": "/a/../etc"}}]), None,
     "spec.volumes[0].hostPath.path: Invalid value: \"/a/../etc\": must not contain '..'"),
    ("secret name", set_in("spec.volumes", [{"name": "d", "secret": {}}]), None,
     "spec.volumes[0].secret.secretName: Required value"),
    ("configMap mode", set_in("spec.volumes", [{"name": "d", "configMap": {
        "name": "c", "defaultMode": 0o1000}}]), None,
     "spec.volumes[0].configMap.defaultMode: Invalid value: 512: must be a number between 0 "
     "and 0777 (octal), both inclusive"),
    ("pvc claimName", set_in("spec.volumes", [{"name": "d", "persistentVolumeClaim": {
        "claimName": ""}}]), None,
     "spec.volumes[0].persistentVolumeClaim.claimName: Required value"),
    ("emptyDir size", set_in("spec.volumes", [{"name": "d", "emptyDir": {
        "sizeLimit": "-1Gi"}}]), None,
     "spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource "
     "quantity"),
    ("mount of unknown volume", in_container(volumeMounts=[{"name": "missing",
                                                            "mountPath": "/x"}]), None,
     'spec.containers[0].volumeMounts[0].name: Not found: "missing"'),
    ("mountPath unique", lambda o: (o["spec"].update(volumes=[{"name": "d", "emptyDir": {}}]),
                                    container(o).update(volumeMounts=[
                                        {"name": "d", "mountPath": "/data"},
                                        {"name": "d", "mountPath": "/data"}])), None,
     'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique'),
    ("mountPath required", lambda o: (o["spec"].update(volumes=[{"name": "d", "emptyDir": {}}]),
                                      container(o).update(volumeMounts=[{"name": "d"}])), None,
     "spec.containers[0].volumeMounts[0].mountPath: Required value"),
    # probes and lifecycle
    ("probe handler required", in_container(livenessProbe={"periodSeconds": 5}), None,
     "spec.containers[0].livenessProbe: Required value: must specify a handler type"),
    ("probe one handler", in_container(readinessProbe={
        "exec": {"command": ["true"]}, "httpGet": {"port": 80}}), None,
     "spec.containers[0].readinessProbe.httpGet: Forbidden: may not specify more than 1 "
     "handler type"),
    ("probe timings", in_container(readinessProbe={"exec": {"command": ["true"]},
                                                   "initialDelaySeconds": -1}), None,
     "spec.containers[0].readinessProbe.initialDelaySeconds: Invalid value: -1: must be "
     "greater than or equal to 0"),
    ("liveness successThreshold", in_container(livenessProbe={
        "tcpSocket": {"port": 80}, "successThreshold": 2}), None,
     "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"),
    ("startup successThreshold", in_container(startupProbe={
        "tcpSocket": {"port": 80}, "successThreshold": 3}), None,
     "spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1"),
    ("exec command", in_container(livenessProbe={"exec": {}}), None,
     "spec.containers[0].livenessProbe.exec.command: Required value"),
    ("httpGet port", in_container(readinessProbe={"httpGet": {"port": 0}}), None,
     f"spec.containers[0].readinessProbe.httpGet.port: Invalid value: 0: {PORT_RANGE}"),
    ("httpGet scheme", in_container(readinessProbe={"httpGet": {"port": 80,
                                                                "scheme": "FTP"}}), None,
     'spec.containers[0].readinessProbe.httpGet.scheme: Unsupported value: "FTP": supported '
     'values: "HTTP", "HTTPS"'),
    ("readiness grace", in_container(readinessProbe={
        "tcpSocket": {"port": 80}, "terminationGracePeriodSeconds": 5}), None,
     "spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must "
     "not be set for readinessProbes"),
    ("lifecycle handler", in_container(lifecycle={"preStop": {}}), None,
     "spec.containers[0].lifecycle.preStop: Required value: must specify a handler type"),
    ("sleep within grace period", in_container(lifecycle={"preStop": {"sleep": {
        "seconds": 60}}}), None,
     "spec.containers[0].lifecycle.preStop.sleep: Invalid value: 60: must be greater than 0 "
     "and less than terminationGracePeriodSeconds (30). Enable "
     "AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."),
    ("init container probes", set_in("spec.initContainers", [{
        "name": "init", "image": "x", "livenessProbe": {"exec": {"command": ["true"]}}}]), None,
     "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers "
     "without restartPolicy=Always"),
    ("init container restartPolicy", set_in("spec.initContainers", [{
        "name": "init", "image": "x", "restartPolicy": "OnFailure"}]), None,
     'spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: '
     '"Always"'),
    ("container restartPolicy", in_container(restartPolicy="Always"), None,
     "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"),
    # scheduling
    ("toleration Exists with value", set_in("spec.tolerations", [
        {"key": "k", "operator": "Exists", "value": "v"}]), None,
     "spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` "
     "is 'Exists'"),
    ("toleration operator", set_in("spec.tolerations", [{"key": "k", "operator": "In"}]), None,
     'spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", '
     '"Exists"'),
    ("toleration effect", set_in("spec.tolerations", [
        {"key": "k", "operator": "Exists", "effect": "NoRun"}]), None,
     'spec.tolerations[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", '
     '"PreferNoSchedule", "NoExecute"'),
    ("toleration empty key", set_in("spec.tolerations", [{"operator": "Equal", "value": "v"}]),
     None,
     'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` '
     'is empty, which means "match all values and all keys"'),
    ("toleration seconds", set_in("spec.tolerations", [
        {"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]),
     None,
     "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' "
     "when `tolerationSeconds` is set"),
    ("toleration key", set_in("spec.tolerations", [{"key": "bad key", "operator": "Exists"}]),
     None, f'spec.tolerations[0].key: Invalid value: "bad key": {QNAME}'),
    ("nodeSelector value", set_in("spec.nodeSelector", {"disk": "fast ssd"}), None,
     f'spec.nodeSelector: Invalid value: "fast ssd": {LABEL_VALUE}'),
    ("node affinity In needs values", set_in("spec.affinity", {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In"}]}]}}}), None,
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when "
     "`operator` is 'In' or 'NotIn'"),
    ("node affinity Exists takes none", set_in("spec.affinity", {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "Exists",
                                   "values": ["a"]}]}]}}}), None,
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be specified when "
     "`operator` is 'Exists' or 'DoesNotExist'"),
    ("node affinity Gt single value", set_in("spec.affinity", {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "cores", "operator": "Gt",
                                   "values": ["1", "2"]}]}]}}}), None,
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single "
     "value when `operator` is 'Lt' or 'Gt'"),
    ("node affinity operator", set_in("spec.affinity", {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "Equals",
                                   "values": ["a"]}]}]}}}), None,
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     'nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Equals": not a valid '
     "selector operator"),
    ("node affinity terms required", set_in("spec.affinity", {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}), None,
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms: Required value: must have at least one node selector term"),
    ("preferred weight", set_in("spec.affinity", {"nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 0, "preference": {}}]}}), None,
     "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
     "Invalid value: 0: must be in the range 1-100"),
    ("pod affinity topologyKey", set_in("spec.affinity", {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}}]}}), None,
     "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
     "Required value: can not be empty"),
    ("pod anti-affinity selector", set_in("spec.affinity", {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]},
             "topologyKey": "zone"}]}}), None,
     "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
     "labelSelector.matchExpressions[0].values: Required value: must be specified when "
     "`operator` is 'In' or 'NotIn'"),
    ("spread maxSkew", set_in("spec.topologySpreadConstraints", [
        {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]), None,
     "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"),
    ("spread whenUnsatisfiable", set_in("spec.topologySpreadConstraints", [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Maybe"}]), None,
     'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": '
     'supported values: "DoNotSchedule", "ScheduleAnyway"'),
    ("spread topologyKey", set_in("spec.topologySpreadConstraints", [
        {"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "DoNotSchedule"}]), None,
     "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty"),
    ("spread duplicate", set_in("spec.topologySpreadConstraints", [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]), None,
     "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "
     '"{zone, DoNotSchedule}"'),
    # pod-level scalars
    ("terminationGracePeriodSeconds required", None,
     lambda o: o["spec"].pop("terminationGracePeriodSeconds"),
     "spec.terminationGracePeriodSeconds: Required value"),
    ("activeDeadlineSeconds", set_in("spec.activeDeadlineSeconds", 0), None,
     "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
     "inclusive"),
    ("priorityClassName", set_in("spec.priorityClassName", "High"), None,
     f'spec.priorityClassName: Invalid value: "High": {SUBDOMAIN}'),
    ("serviceAccountName", set_in("spec.serviceAccountName", "My SA"), None,
     f'spec.serviceAccountName: Invalid value: "My SA": {SUBDOMAIN}'),
    ("nodeName", set_in("spec.nodeName", "Node_1"), None,
     f'spec.nodeName: Invalid value: "Node_1": {SUBDOMAIN}'),
    ("hostname", set_in("spec.hostname", "-web"), None,
     f'spec.hostname: Invalid value: "-web": {DNS_LABEL}'),
    ("subdomain", set_in("spec.subdomain", "Web"), None,
     f'spec.subdomain: Invalid value: "Web": {DNS_LABEL}'),
    ("readinessGates", set_in("spec.readinessGates", [{"conditionType": "bad type"}]), None,
     f'spec.readinessGates[0].conditionType: Invalid value: "bad type": {QNAME}'),
    ("runAsUser", set_in("spec.securityContext", {"runAsUser": -1}), None,
     "spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, "
     "inclusive"),
    ("seccomp type", in_container(securityContext={"seccompProfile": {"type": "Strict"}}), None,
     'spec.containers[0].securityContext.seccompProfile.type: Unsupported value: "Strict": '
     'supported values: "Localhost", "RuntimeDefault", "Unconfined"'),
    ("hostAliases ip", set_in("spec.hostAliases", [{"ip": "999.1.1.1"}]), None,
     'spec.hostAliases[0].ip: Invalid value: "999.1.1.1": must be a valid IP address, (e.g. '
     "10.9.8.7 or 2001:db8::ffff)"),
    ("os name", set_in("spec.os", {"name": "plan9"}), None,
     'spec.os: Unsupported value: "plan9": supported values: "linux", "windows"'),
    # create-only rules
    ("ephemeral containers on create", set_in("spec.ephemeralContainers", [
        {"name": "debug", "image": "busybox"}]), None,
     "spec.ephemeralContainers: Forbidden: cannot be set on create"),
    ("nodeName with gates", lambda o: o["spec"].update(
        nodeName="node-1", schedulingGates=[{"name": "example.com/wait"}]), None,
     "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"),
    ("scheduling gate name", set_in("spec.schedulingGates", [{"name": "bad gate"}]), None,
     f'spec.schedulingGates[0]: Invalid value: "bad gate": {QNAME}'),
]


@pytest.mark.parametrize(("case", "mutate", "after", "expected"), POD_CASES,
                         ids=[c[0] for c in POD_CASES])
def test_pod(case, mutate, after, expected):
    got = messages(built(raw_pod, mutate, after=after))
    assert expected in got


def test_negative_grace_period_is_not_an_error():
    obj = built(raw_pod, set_in("spec.terminationGracePeriodSeconds", -1))
    assert messages(obj) == []


def test_port_name_with_several_problems_gets_one_error_per_rule():
    obj = built(raw_pod, in_container(ports=[{"containerPort": 80, "name": "-HTTP"}]))
    assert messages(obj) == [
        'spec.containers[0].ports[0].name: Invalid value: "-HTTP": must contain only '
        "alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        'spec.containers[0].ports[0].name: Invalid value: "-HTTP": must contain at least one '
        "letter (a-z)",
        'spec.containers[0].ports[0].name: Invalid value: "-HTTP": must not begin or end with '
        "a hyphen",
    ]


def test_check_create_raises_invalid_with_kubernetes_message():
    with pytest.raises(Invalid) as exc:
        check_create(built(raw_pod, in_container(image="")))
    assert str(exc.value) == 'Pod "web" is invalid: spec.containers[0].image: Required value'
    assert exc.value.code == 422
    with pytest.raises(Invalid) as exc:
        check_create(built(raw_pod, lambda o: o["spec"]["containers"].append(
            {"name": "web", "image": ""})))
    assert str(exc.value) == (
        'Pod "web" is invalid: [spec.containers[1].image: Required value, '
        'spec.containers[1].name: Duplicate value: "web"]')
    check_create(built(raw_pod))  # no error


# ----------------------------------------------------------------- Pod update


def stored_pod(mutate: Mutator | None = None) -> dict:
    obj = built(raw_pod, mutate)
    obj["metadata"].update(uid="u1", resourceVersion="5",
                           creationTimestamp="2024-01-01T00:00:00Z")
    return obj


POD_UPDATE_CASES: list[tuple[str, Mutator | None, Mutator, str | None]] = [
    ("image may change", None, lambda n: container(n).update(image="nginx:1.28"), None),
    ("labels may change", None, set_in("metadata.labels", {"tier": "web"}), None),
    ("restartPolicy may not", None, set_in("spec.restartPolicy", "Never"),
     f"spec: Forbidden: {UPDATABLE}\n"),
    ("containers may not be added", None, add_container(),
     "spec.containers: Forbidden: pod updates may not add or remove containers"),
    ("image still required", None, lambda n: container(n).update(image=""),
     "spec.containers[0].image: Required value"),
    ("activeDeadlineSeconds may be set", None, set_in("spec.activeDeadlineSeconds", 60), None),
    ("activeDeadlineSeconds may decrease", set_in("spec.activeDeadlineSeconds", 100),
     set_in("spec.activeDeadlineSeconds", 50), None),
    ("activeDeadlineSeconds may not increase", set_in("spec.activeDeadlineSeconds", 100),
     set_in("spec.activeDeadlineSeconds", 200),
     "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous "
     "value"),
    ("activeDeadlineSeconds may not be removed", set_in("spec.activeDeadlineSeconds", 100),
     lambda n: n["spec"].pop("activeDeadlineSeconds"),
     "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer "
     "to nil value"),
    ("tolerations may be added", set_in("spec.tolerations", [{"key": "a", "operator": "Exists"}]),
     lambda n: n["spec"]["tolerations"].append({"key": "b", "operator": "Exists"}), None),
    ("tolerationSeconds may change", set_in("spec.tolerations", [
        {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}]),
     lambda n: n["spec"]["tolerations"][0].update(tolerationSeconds=20), None),
    ("tolerations may not be changed", set_in("spec.tolerations", [
        {"key": "a", "operator": "Exists"}]),
     set_in("spec.tolerations", [{"key": "b", "operator": "Exists"}]),
     "spec.tolerations: Forbidden: existing toleration can not be modified except its "
     "tolerationSeconds"),
    ("scheduling gates may be removed", set_in("spec.schedulingGates", [{"name": "a"},
                                                                        {"name": "b"}]),
     set_in("spec.schedulingGates", [{"name": "b"}]), None),
    ("scheduling gates may not be added", set_in("spec.schedulingGates", [{"name": "a"}]),
     set_in("spec.schedulingGates", [{"name": "a"}, {"name": "b"}]),
     "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new "
     "scheduling gate 'b'"),
    ("gated pods may gain nodeSelector entries", set_in("spec.schedulingGates", [{"name": "a"}]),
     set_in("spec.nodeSelector", {"disk": "ssd"}), None),
    ("ungated pods may not", None, set_in("spec.nodeSelector", {"disk": "ssd"}),
     f"spec: Forbidden: {UPDATABLE}\n"),
    ("grace period may not change", None, set_in("spec.terminationGracePeriodSeconds", 10),
     f"spec: Forbidden: {UPDATABLE}\n"),
    ("negative grace period may become 1", set_in("spec.terminationGracePeriodSeconds", -1),
     set_in("spec.terminationGracePeriodSeconds", 1), None),
    ("negative grace period may not become 2", set_in("spec.terminationGracePeriodSeconds", -1),
     set_in("spec.terminationGracePeriodSeconds", 2), f"spec: Forbidden: {UPDATABLE}\n"),
    ("name is immutable", None, set_in("metadata.name", "other"),
     'metadata.name: Invalid value: "other": field is immutable'),
    ("namespace is immutable", None, set_in("metadata.namespace", "other"),
     'metadata.namespace: Invalid value: "other": field is immutable'),
    ("uid is immutable", None, set_in("metadata.uid", "u2"),
     'metadata.uid: Invalid value: "u2": field is immutable'),
    ("creationTimestamp is immutable", None,
     set_in("metadata.creationTimestamp", "2024-01-02T00:00:00Z"),
     "metadata.creationTimestamp: Invalid value: 2024-01-02 00:00:00 +0000 UTC: field is "
     "immutable"),
    ("resourceVersion required", None, lambda n: n["metadata"].pop("resourceVersion"),
     'metadata.resourceVersion: Invalid value: "": must be specified for an update'),
    ("generation may not decrease", set_in("metadata.generation", 3),
     set_in("metadata.generation", 2),
     "metadata.generation: Invalid value: 2: must not be decremented"),
    ("no new finalizers while deleting", set_in("metadata.deletionTimestamp",
                                                "2024-01-03T00:00:00Z"),
     set_in("metadata.finalizers", ["example.com/x"]),
     "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being "
     'deleted, found new finalizers []string{"example.com/x"}'),
]


@pytest.mark.parametrize(("case", "prepare", "change", "expected"), POD_UPDATE_CASES,
                         ids=[c[0] for c in POD_UPDATE_CASES])
def test_pod_update(case, prepare, change, expected):
    old = stored_pod(prepare)
    new = copy.deepcopy(old)
    change(new)
    got = [str(e) for e in validate_update(new, old)]
    if expected is None:
        assert got == []
    elif expected.endswith("\n"):
        assert any(m.startswith(expected) for m in got), got
    else:
        assert expected in got


def test_pod_update_forbidden_message_lists_the_change():
    old = stored_pod()
    new = copy.deepcopy(old)
    new["spec"]["restartPolicy"] = "Never"
    (err,) = validate_update(new, old)
    assert err.path == "spec"
    assert '- \trestartPolicy: "Always",' in str(err)
    assert '+ \trestartPolicy: "Never",' in str(err)
