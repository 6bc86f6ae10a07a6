"""Strict decoding, the field schema and its OpenAPI rendering.

Expected messages follow the Kubernetes API server's wording
(``<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error:
unknown field "..."``); type-error wording is minikube-py's (Kubernetes prints
Go unmarshal errors there).
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from minikube_py.api import schema
from minikube_py.api.defaults import apply_defaults
from minikube_py.api.errors import BadRequest, Invalid
from minikube_py.api.validation import validate

# ------------------------------------------------------------------ fixtures

VALID_MANIFESTS: list[dict] = [
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "nginx"}},
            "strategy": {"type": "RollingUpdate",
                         "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}},
            "revisionHistoryLimit": 5,
            "progressDeadlineSeconds": 120,
            "minReadySeconds": 5,
            "template": {
                "metadata": {"labels": {"app": "nginx"},
                             "annotations": {"example.com/owner": "team-a"}},
                "spec": {
                    "containers": [{
                        "name": "nginx",
                        "image": "nginx:1.27",
                        "ports": [{"containerPort": 80, "name": "http"}],
                        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                                      "limits": {"cpu": 0.5, "memory": "128Mi"}},
                        "readinessProbe": {"httpGet": {"path": "/", "port": "http"},
                                           "initialDelaySeconds": 2},
                        "livenessProbe": {"tcpSocket": {"port": 80}},
                    }],
                },
            },
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "full", "namespace": "apps",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": "rs", "uid": "1234", "controller": True,
                                          "blockOwnerDeletion": True}],
                     "finalizers": ["example.com/cleanup"]},
        "spec": {
            "initContainers": [{"name": "init", "image": "busybox",
                                "command": ["sh", "-c", "true"]},
                               {"name": "sidecar", "image": "envoy:v1", "restartPolicy": "Always",
                                "startupProbe": {"grpc": {"port": 9901}}}],
            "containers": [{
                "name": "app",
                "image": "registry.example.com:5000/team/app@sha256:" + "a" * 64,
                "command": ["/app"],
                "args": ["--port=8080"],
                "workingDir": "/srv",
                "env": [
                    {"name": "MODE", "value": "prod"},
                    {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "APP", "valueFrom": {
                        "fieldRef": {"fieldPath": "metadata.labels['app']"}}},
                    {"name": "CPU", "valueFrom": {"resourceFieldRef": {
                        "resource": "limits.cpu", "divisor": "1m"}}},
                    {"name": "CFG", "valueFrom": {"configMapKeyRef": {"name": "cfg",
                                                                      "key": "mode"}}},
                    {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "s", "key": "pw",
                                                                  "optional": True}}},
                ],
                "envFrom": [{"configMapRef": {"name": "cfg"}, "prefix": "CFG_"}],
                "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"},
                          {"containerPort": 9090, "hostPort": 9090, "protocol": "UDP"}],
                "volumeMounts": [{"name": "data", "mountPath": "/data"},
                                 {"name": "cfg", "mountPath": "/etc/cfg", "readOnly": True},
                                 {"name": "info", "mountPath": "/etc/info"},
                                 {"name": "proj", "mountPath": "/etc/proj"},
                                 {"name": "host", "mountPath": "/host", "subPath": "logs"}],
                "resources": {"limits": {"cpu": "1", "memory": "1Gi", "example.com/gpu": 1},
                              "requests": {"cpu": "250m", "example.com/gpu": 1}},
                "securityContext": {"runAsUser": 1000, "runAsNonRoot": True,
                                    "readOnlyRootFilesystem": True,
                                    "allowPrivilegeEscalation": False,
                                    "capabilities": {"drop": ["ALL"]},
                                    "seccompProfile": {"type": "RuntimeDefault"}},
                "lifecycle": {"preStop": {"exec": {"command": ["sleep", "5"]}},
                              "postStart": {"httpGet": {"port": 8080, "path": "/ready"}}},
                "livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5},
                "terminationMessagePolicy": "FallbackToLogsOnError",
                "stdin": False, "tty": False,
            }],
            "volumes": [
                {"name": "data", "emptyDir": {"sizeLimit": "1Gi", "medium": "Memory"}},
                {"name": "cfg", "configMap": {"name": "cfg", "items": [
                    {"key": "a", "path": "a.conf", "mode": 0o600}]}},
                {"name": "info", "downwardAPI": {"items": [
                    {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                    {"path": "cpu", "resourceFieldRef": {"containerName": "app",
                                                         "resource": "requests.cpu"}}]}},
                {"name": "proj", "projected": {"sources": [
                    {"secret": {"name": "s"}},
                    {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}]}},
                {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}},
                {"name": "claim", "persistentVolumeClaim": {"claimName": "pvc"}},
                {"name": "nfs", "nfs": {"server": "nfs.example.com", "path": "/exports"}},
            ],
            "restartPolicy": "OnFailure",
            "terminationGracePeriodSeconds": 60,
            "activeDeadlineSeconds": 3600,
            "dnsPolicy": "None",
            "dnsConfig": {"nameservers": ["10.0.0.10"], "searches": ["svc.cluster.local."],
                          "options": [{"name": "ndots", "value": "2"}]},
            "nodeSelector": {"disktype": "ssd"},
            "serviceAccountName": "app",
            "automountServiceAccountToken": False,
            "hostname": "app-0",
            "subdomain": "app",
            "securityContext": {"fsGroup": 2000, "runAsGroup": 3000,
                                "supplementalGroups": [4000],
                                "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]},
            "imagePullSecrets": [{"name": "regcred"}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In",
                                               "values": ["linux"]},
                                              {"key": "cores", "operator": "Gt",
                                               "values": ["4"]}]}]},
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 10, "preference": {"matchExpressions": [
                            {"key": "zone", "operator": "Exists"}]}}],
                },
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 100, "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {"app": "x"}},
                        "topologyKey": "kubernetes.io/hostname"}}]},
            },
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu",
                             "effect": "NoSchedule"},
                            {"operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 30}],
            "hostAliases": [{"ip": "127.0.0.1", "hostnames": ["foo.local"]}],
            "priorityClassName": "high",
            "readinessGates": [{"conditionType": "example.com/ready"}],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                           "whenUnsatisfiable": "ScheduleAnyway",
                                           "labelSelector": {"matchLabels": {"app": "x"}}}],
            "os": {"name": "linux"},
            "overhead": {"cpu": "10m"},
            "enableServiceLinks": False,
            "setHostnameAsFQDN": True,
            "schedulerName": "my-scheduler",
        },
    },
    {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "web-5d4f", "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"matchExpressions": [
            {"key": "app", "operator": "In", "values": ["web"]}]},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "web"}]}}},
        "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2,
                   "fullyLabeledReplicas": 2, "observedGeneration": 1,
                   "conditions": [{"type": "ReplicaFailure", "status": "False"}]},
    },
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
        "spec": {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"],
                 "unschedulable": False, "providerID": "minikube-py://node-1",
                 "taints": [{"key": "node-role.kubernetes.io/control-plane",
                             "effect": "NoSchedule"}]},
        "status": {
            "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "allocatable": {"cpu": "3800m", "memory": "7Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True",
                            "lastHeartbeatTime": "2024-05-01T10:00:00Z",
                            "lastTransitionTime": "2024-05-01T09:00:00Z",
                            "reason": "KubeletReady", "message": "kubelet is posting ready"}],
            "addresses": [{"type": "InternalIP", "address": "192.168.1.10"},
                          {"type": "Hostname", "address": "node-1"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b",
                         "kernelVersion": "6.1", "osImage": "Debian",
                         "containerRuntimeVersion": "podman://5.0", "kubeletVersion": "v1.32.0",
                         "kubeProxyVersion": "", "operatingSystem": "linux",
                         "architecture": "amd64"},
            "images": [{"names": ["nginx:1.27"], "sizeBytes": 1000}],
        },
    },
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"},
     "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}},
    {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.17a2b3c4d5e6f7a8", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web",
                           "uid": "u-1", "apiVersion": "v1", "fieldPath": "spec.containers{web}"},
        "reason": "Pulled",
        "message": "Successfully pulled image",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2024-05-01T10:00:00Z",
        "lastTimestamp": "2024-05-01T10:00:05Z",
        "count": 2,
        "type": "Normal",
        "reportingComponent": "kubelet",
        "reportingInstance": "node-1",
    },
]


def _kind_and_name(manifest: dict) -> str:
    return f"{manifest['kind']}/{manifest['metadata']['name']}"


# ------------------------------------------------------------- valid manifests


@pytest.mark.parametrize("manifest", VALID_MANIFESTS, ids=_kind_and_name)
def test_valid_manifests_decode_unchanged(manifest):
    original = copy.deepcopy(manifest)
    decoded = schema.decode(manifest)
    assert decoded == manifest
    assert manifest == original  # input never touched
    assert schema.unknown_fields(manifest) == []


@pytest.mark.parametrize("manifest", VALID_MANIFESTS, ids=_kind_and_name)
def test_valid_manifests_pass_validation_after_defaults(manifest):
    errors = [str(e) for e in validate(apply_defaults(schema.decode(manifest)))]
    # Valid for Kubernetes; minikube-py refuses only the volume types its
    # kubelet cannot provide (tests/unit/test_unsupported_volumes.py).
    assert [e for e in errors if "volumes are not supported by minikube-py" not in e] == []


def test_decode_returns_a_deep_copy():
    manifest = copy.deepcopy(VALID_MANIFESTS[0])
    decoded = schema.decode(manifest)
    decoded["spec"]["template"]["spec"]["containers"][0]["image"] = "changed"
    assert manifest["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"


# ----------------------------------------------------------------- unknown fields

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
       "spec": {"containers": [{"name": "web", "image": "nginx"}]}}


def _with(base: dict, path: list, value) -> dict:
    obj = copy.deepcopy(base)
    node = obj
    for step in path[:-1]:
        if isinstance(step, str) and step not in node:
            node[step] = {}
        node = node[step]
    node[path[-1]] = value
    return obj


UNKNOWN_FIELD_CASES = [
    ("top level", _with(POD, ["foo"], 1), ["foo"]),
    ("spec", _with(POD, ["spec", "foo"], 1), ["spec.foo"]),
    ("list item", _with(POD, ["spec", "containers", 0, "imagee"], "x"),
     ["spec.containers[0].imagee"]),
    ("nested list item", _with(POD, ["spec", "containers", 0, "ports"],
                               [{"containerPort": 80}, {"containerport": 81}]),
     ["spec.containers[0].ports[1].containerport"]),
    ("case matters", _with(POD, ["spec", "containers", 0, "Image"], "x"),
     ["spec.containers[0].Image"]),
    ("metadata", _with(POD, ["metadata", "labelz"], {}), ["metadata.labelz"]),
    ("volume source", _with(POD, ["spec", "volumes"], [{"name": "v", "emptyDir": {"size": 1}}]),
     ["spec.volumes[0].emptyDir.size"]),
    ("status", _with(POD, ["status", "phasee"], "Running"), ["status.phasee"]),
]


@pytest.mark.parametrize(("case", "manifest", "unknown"), UNKNOWN_FIELD_CASES,
                         ids=[c[0] for c in UNKNOWN_FIELD_CASES])
def test_unknown_fields_are_listed_with_their_paths(case, manifest, unknown):
    assert schema.unknown_fields(manifest) == unknown


def test_strict_decoding_error_message():
    manifest = _with(POD, ["spec", "containers", 0, "imagee"], "x")
    manifest["spec"]["foo"] = {"bar": 1}
    with pytest.raises(BadRequest) as exc:
        schema.decode(manifest)
    assert str(exc.value) == (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "spec.containers[0].imagee", unknown field "spec.foo"')
    assert exc.value.code == 400


def test_strict_false_drops_unknown_fields_silently():
    manifest = _with(POD, ["spec", "containers", 0, "imagee"], "x")
    manifest["spec"]["foo"] = 1
    decoded = schema.decode(manifest, strict=False)
    assert decoded == POD
    assert "imagee" in manifest["spec"]["containers"][0]  # input untouched


def test_apps_kinds_report_their_version_without_group():
    manifest = copy.deepcopy(VALID_MANIFESTS[0])
    manifest["spec"]["paused2"] = True
    with pytest.raises(BadRequest, match=r'^Deployment in version "v1" cannot be handled as a '
                                         r'Deployment: strict decoding error: unknown field '
                                         r'"spec.paused2"$'):
        schema.decode(manifest)


# --------------------------------------------------------------------- types

TYPE_CASES = [
    ("integer from string", ["spec", "terminationGracePeriodSeconds"], "30",
     'spec.terminationGracePeriodSeconds: expected integer, got string "30"'),
    ("integer from float", ["spec", "priority"], 1.5,
     "spec.priority: expected integer, got number 1.5"),
    ("integer from bool", ["spec", "priority"], True,
     "spec.priority: expected integer, got boolean true"),
    ("int32 overflow", ["spec", "priority"], 2**31,
     "spec.priority: integer 2147483648 out of range for int32"),
    ("boolean", ["spec", "hostNetwork"], "yes",
     'spec.hostNetwork: expected boolean, got string "yes"'),
    ("string", ["spec", "nodeName"], 5, "spec.nodeName: expected string, got integer 5"),
    ("list", ["spec", "containers"], {"name": "web"},
     "spec.containers: expected array, got object"),
    ("object", ["spec", "securityContext"], [],
     "spec.securityContext: expected object, got array"),
    ("map value", ["metadata", "labels"], {"app": 1},
     "metadata.labels[app]: expected string, got integer 1"),
    ("quantity type", ["spec", "containers", 0, "resources"], {"limits": {"cpu": True}},
     "spec.containers[0].resources.limits[cpu]: expected quantity (string or number), "
     "got boolean true"),
    ("int-or-string", ["spec", "containers", 0, "livenessProbe"],
     {"tcpSocket": {"port": 8.5}},
     "spec.containers[0].livenessProbe.tcpSocket.port: expected integer or string, "
     "got number 8.5"),
    ("time", ["metadata", "creationTimestamp"], "yesterday",
     'metadata.creationTimestamp: invalid RFC 3339 time "yesterday"'),
    ("time type", ["metadata", "creationTimestamp"], 1700000000,
     "metadata.creationTimestamp: expected string (RFC 3339 time), got integer 1700000000"),
    ("free-form", ["spec", "volumes"], [{"name": "v", "nfs": "server:/path"}],
     'spec.volumes[0].nfs: expected object, got string "server:/path"'),
]


@pytest.mark.parametrize(("case", "path", "value", "message"), TYPE_CASES,
                         ids=[c[0] for c in TYPE_CASES])
def test_type_errors(case, path, value, message):
    with pytest.raises(BadRequest) as exc:
        schema.decode(_with(POD, path, value))
    assert str(exc.value) == f'Pod in version "v1" cannot be handled as a Pod: {message}'


def test_all_type_errors_are_reported_in_document_order_before_unknown_fields():
    manifest = _with(POD, ["spec", "priority"], "high")
    manifest["spec"]["hostPID"] = 1
    manifest["spec"]["bogus"] = 1
    with pytest.raises(BadRequest) as exc:
        schema.decode(manifest)
    assert str(exc.value) == (
        'Pod in version "v1" cannot be handled as a Pod: '
        'spec.priority: expected integer, got string "high", '
        "spec.hostPID: expected boolean, got integer 1")


def test_int_or_string_and_quantity_accept_both_forms():
    deployment = copy.deepcopy(VALID_MANIFESTS[0])
    assert schema.decode(deployment)["spec"]["strategy"]["rollingUpdate"] == {
        "maxSurge": 1, "maxUnavailable": "25%"}
    pod = _with(POD, ["spec", "containers", 0, "resources"],
                {"limits": {"cpu": 1, "memory": "1Gi"}, "requests": {"cpu": 0.25}})
    assert schema.decode(pod)["spec"]["containers"][0]["resources"]["requests"] == {"cpu": 0.25}


def test_null_means_absent():
    manifest = _with(POD, ["spec", "nodeName"], None)
    manifest["metadata"]["labels"] = {"a": None}
    manifest["spec"]["containers"][0]["args"] = ["x", None]
    decoded = schema.decode(manifest)
    assert "nodeName" not in decoded["spec"]
    assert decoded["metadata"]["labels"] == {"a": ""}
    assert decoded["spec"]["containers"][0]["args"] == ["x", ""]


# ----------------------------------------------------------------- kind checks


@pytest.mark.parametrize(("manifest", "message"), [
    ({"apiVersion": "v1"}, "Object 'Kind' is missing"),
    ({"kind": "Pod"}, "Object 'apiVersion' is missing in kind Pod"),
    ({"apiVersion": "v1", "kind": "Deployment"},
     'no matches for kind "Deployment" in version "v1"'),
    ({"apiVersion": "v1", "kind": "Widget"}, 'no matches for kind "Widget" in version "v1"'),
])
def test_unresolvable_kinds(manifest, message):
    with pytest.raises(BadRequest, match=f"^{message}$"):
        schema.decode(manifest)


def test_list_items_are_decoded_by_their_own_kind():
    manifest = {"apiVersion": "v1", "kind": "List", "metadata": {},
                "items": [POD, _with(POD, ["spec", "containers", 0, "imagee"], "x"),
                          {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"a": 1}}]}
    assert schema.unknown_fields(manifest) == ["items[1].spec.containers[0].imagee"]
    with pytest.raises(BadRequest, match=re.escape(
            'unknown field "items[1].spec.containers[0].imagee"')):
        schema.decode(manifest)
    decoded = schema.decode(manifest, strict=False)
    assert decoded["items"][1] == POD
    assert decoded["items"][2] == {"apiVersion": "example.com/v1", "kind": "Widget",
                                   "spec": {"a": 1}}


# ------------------------------------------------------------ lookup helpers

MERGE_KEYS = [
    ("Pod", ["spec", "containers"], "name", "merge"),
    ("Pod", ["spec", "initContainers"], "name", "merge"),
    ("Pod", ["spec", "containers", 0, "ports"], "containerPort", "merge"),
    ("Pod", ["spec", "containers", 0, "env"], "name", "merge"),
    ("Pod", ["spec", "containers", 0, "volumeMounts"], "mountPath", "merge"),
    ("Pod", ["spec", "volumes"], "name", "merge,retainKeys"),
    ("Pod", ["spec", "imagePullSecrets"], "name", "merge"),
    ("Pod", ["spec", "tolerations"], None, ""),
    ("Pod", ["spec", "containers", 0, "command"], None, ""),
    ("Pod", ["spec", "containers", 0, "envFrom"], None, ""),
    ("Pod", ["status", "conditions"], "type", "merge"),
    ("Pod", ["metadata", "ownerReferences"], "uid", "merge"),
    ("Pod", ["metadata", "finalizers"], None, "merge"),
    ("Node", ["spec", "taints"], None, ""),
    ("Node", ["spec", "podCIDRs"], None, "merge"),
    ("Node", ["status", "addresses"], "type", "merge"),
    ("Node", ["status", "conditions"], "type", "merge"),
    ("Deployment", ["spec", "template", "spec", "containers"], "name", "merge"),
    ("Deployment", ["status", "conditions"], "type", "merge"),
    ("ReplicaSet", ["status", "conditions"], "type", "merge"),
    ("Namespace", ["spec", "finalizers"], None, ""),
]


@pytest.mark.parametrize(("kind", "path", "key", "strategy"), MERGE_KEYS,
                         ids=[f"{k}:{'.'.join(map(str, p))}" for k, p, _, _ in MERGE_KEYS])
def test_patch_merge_keys_and_strategies(kind, path, key, strategy):
    assert schema.merge_key(kind, path) == key
    assert schema.patch_strategy(kind, path) == strategy


def test_lookup_walks_objects_maps_and_lists():
    assert schema.lookup("Pod", ["spec", "containers", 3, "resources", "limits", "cpu"]).type == (
        "quantity")
    assert schema.lookup("Pod", ["metadata", "labels", "anything"]).type == "string"
    assert schema.lookup("Pod", ["spec", "nope"]) is None
    # Volume sources are described field by field (generated from types.go);
    # inside a free-form value (fieldsV1) the schema ends.
    assert schema.lookup("Pod", ["spec", "volumes", 0, "nfs", "server"]).type == "string"
    assert schema.lookup("Pod", ["metadata", "managedFields", 0, "fieldsV1", "f:spec"]) is None
    assert schema.patch_strategy("Deployment", ["spec", "strategy"]) == "retainKeys"
    assert schema.field_schema("Event").child("involvedObject") is not None
    with pytest.raises(BadRequest):
        schema.field_schema("Widget")


# ------------------------------------------------------------------- OpenAPI


def test_openapi_schema_shape():
    doc = schema.openapi_schema("Deployment")
    assert doc["type"] == "object"
    assert doc["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}]
    spec = doc["properties"]["spec"]
    assert spec["properties"]["replicas"] == {
        "type": "integer", "format": "int32", "description": "Desired number of pods."}
    assert spec["properties"]["strategy"]["x-kubernetes-patch-strategy"] == "retainKeys"
    rolling = spec["properties"]["strategy"]["properties"]["rollingUpdate"]["properties"]
    assert rolling["maxSurge"]["x-kubernetes-int-or-string"] is True
    pod_spec = spec["properties"]["template"]["properties"]["spec"]
    containers = pod_spec["properties"]["containers"]
    assert containers["type"] == "array"
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert containers["x-kubernetes-list-type"] == "map"
    ports = containers["items"]["properties"]["ports"]
    assert ports["x-kubernetes-patch-merge-key"] == "containerPort"
    assert ports["x-kubernetes-list-map-keys"] == ["containerPort", "protocol"]
    assert "x-kubernetes-patch-strategy" not in pod_spec["properties"]["tolerations"]
    assert pod_spec["properties"]["tolerations"]["x-kubernetes-list-type"] == "atomic"
    limits = containers["items"]["properties"]["resources"]["properties"]["limits"]
    assert limits["additionalProperties"]["oneOf"] == [{"type": "string"}, {"type": "number"}]
    assert doc["properties"]["metadata"]["properties"]["creationTimestamp"]["format"] == (
        "date-time")
    json.dumps(doc)  # plain JSON


def test_openapi_core_kinds_have_empty_group():
    assert schema.openapi_schema("Pod")["x-kubernetes-group-version-kind"] == [
        {"group": "", "kind": "Pod", "version": "v1"}]


def test_openapi_document_shares_named_definitions():
    doc = schema.openapi_document(["Pod", "Node"])
    components = doc["components"]["schemas"]
    assert doc["openapi"].startswith("3.")
    assert {"io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.Node",
            "io.k8s.api.core.v1.Container",
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"} <= set(components)
    containers = components["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    # A list's items are the shape itself: its description is in the shared
    # definition only; a field's own description sits beside its reference.
    assert containers["items"] == {
        "allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}]}
    assert components["io.k8s.api.core.v1.Container"]["description"] == "A container of a pod."
    assert components["io.k8s.api.core.v1.PodSpec"]["properties"]["securityContext"][
        "description"] == "Pod-level security attributes."
    assert components["io.k8s.api.core.v1.PodSecurityContext"]["description"] != (
        "Pod-level security attributes.")
    assert components["io.k8s.api.core.v1.Pod"]["x-kubernetes-group-version-kind"] == [
        {"group": "", "kind": "Pod", "version": "v1"}]
    refs = set()

    def collect(node):
        if isinstance(node, dict):
            if "$ref" in node:
                refs.add(node["$ref"].rsplit("/", 1)[1])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(doc)
    assert refs <= set(components)


def test_bad_quantity_syntax_is_a_field_error_not_a_decoding_error():
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "i",
                                    "resources": {"requests": {"memory": "1 Gi"}}}]}}
    with pytest.raises(Invalid) as err:
        schema.decode(obj)
    assert str(err.value) == (
        'Pod "p" is invalid: spec.containers[0].resources.requests[memory]: Invalid value: '
        '"1 Gi": quantities must match the regular expression '
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    assert err.value.to_status()["details"]["causes"][0]["field"] == (
        "spec.containers[0].resources.requests[memory]")
