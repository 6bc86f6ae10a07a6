"""Defaulting and quantity canonicalisation, per kind, as Kubernetes v1.32 does it.

Expectations come from ``pkg/apis/core/v1/defaults.go``,
``pkg/apis/apps/v1/defaults.go``, ``pkg/apis/scheduling/v1/defaults.go`` and the
namespace / pod registry strategies. Pod priority is not a default: the
Priority admission step in the registry sets it (tests/unit/test_priorityclass.py).
"""

from __future__ import annotations

import copy

import pytest

from minikube_py.api.defaults import apply_defaults, canonicalize, image_pull_policy

DIGEST = "sha256:" + "0123456789abcdef" * 4


def pod(spec: dict | None = None, **meta) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", **meta},
            "spec": spec if spec is not None else {"containers": [{"name": "c",
                                                                   "image": "nginx:1.27"}]}}


def defaulted(obj: dict, **kwargs) -> dict:
    """apply_defaults, checking on the way that the input is left alone."""
    before = copy.deepcopy(obj)
    out = apply_defaults(obj, **kwargs)
    assert obj == before
    return out


# ------------------------------------------------------------------------ Pod


def test_pod_spec_defaults():
    out = defaulted(pod())
    assert out["spec"] == {
        "containers": [{
            "name": "c", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent",
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "securityContext": {},
        "schedulerName": "default-scheduler",
        "enableServiceLinks": True,
    }
    assert "status" not in out


@pytest.mark.parametrize(("image", "policy"), [
    ("nginx", "Always"),
    ("nginx:latest", "Always"),
    ("nginx:1.27", "IfNotPresent"),
    ("docker.io/library/nginx", "Always"),
    ("localhost:5000/app", "Always"),
    ("localhost:5000/app:v2", "IfNotPresent"),
    (f"nginx@{DIGEST}", "IfNotPresent"),
    (f"nginx:latest@{DIGEST}", "Always"),
    (f"nginx:1.27@{DIGEST}", "IfNotPresent"),
    ("Nginx", "IfNotPresent"),  # does not parse: no tag found
    ("", "IfNotPresent"),
])
def test_image_pull_policy_by_tag(image, policy):
    assert image_pull_policy(image) == policy
    spec = {"containers": [{"name": "c", "image": image}],
            "initContainers": [{"name": "i", "image": image}]}
    out = defaulted(pod(spec))
    assert out["spec"]["containers"][0]["imagePullPolicy"] == policy
    assert out["spec"]["initContainers"][0]["imagePullPolicy"] == policy


POD_CASES = [
    ("explicit values are kept",
     {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0, "dnsPolicy": "Default",
      "schedulerName": "mine", "enableServiceLinks": False,
      "securityContext": {"runAsUser": 1},
      "containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Never",
                      "terminationMessagePath": "/tmp/t",
                      "terminationMessagePolicy": "FallbackToLogsOnError"}]},
     {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0, "dnsPolicy": "Default",
      "schedulerName": "mine", "enableServiceLinks": False,
      "securityContext": {"runAsUser": 1}},
     {"imagePullPolicy": "Never", "terminationMessagePath": "/tmp/t",
      "terminationMessagePolicy": "FallbackToLogsOnError"}),
    ("ports get protocol TCP",
     {"containers": [{"name": "c", "image": "x", "ports": [
         {"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}]}]},
     {},
     {"ports": [{"containerPort": 80, "protocol": "TCP"},
                {"containerPort": 53, "protocol": "UDP"}]}),
    ("requests default to limits",
     {"containers": [{"name": "c", "image": "x", "resources": {
         "limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}}]},
     {},
     {"resources": {"limits": {"cpu": "1", "memory": "1Gi"},
                    "requests": {"cpu": "500m", "memory": "1Gi"}}}),
    ("requests created from limits",
     {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"cpu": "2"}}}]},
     {},
     {"resources": {"limits": {"cpu": "2"}, "requests": {"cpu": "2"}}}),
    ("no limits, no requests",
     {"containers": [{"name": "c", "image": "x", "resources": {}}]}, {}, {"resources": {}}),
    ("probe timings and httpGet",
     {"containers": [{"name": "c", "image": "x",
                      "livenessProbe": {"httpGet": {"port": 80}},
                      "readinessProbe": {"exec": {"command": ["true"]}, "timeoutSeconds": 5,
                                         "periodSeconds": 0},
                      "startupProbe": {"grpc": {"port": 9000}}}]},
     {},
     {"livenessProbe": {"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
                        "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1,
                        "failureThreshold": 3},
      "readinessProbe": {"exec": {"command": ["true"]}, "timeoutSeconds": 5,
                         "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
      "startupProbe": {"grpc": {"port": 9000, "service": ""}, "timeoutSeconds": 1,
                       "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}}),
    ("lifecycle httpGet",
     {"containers": [{"name": "c", "image": "x", "lifecycle": {
         "preStop": {"httpGet": {"port": 80, "scheme": "HTTPS"}}}}]},
     {},
     {"lifecycle": {"preStop": {"httpGet": {"port": 80, "scheme": "HTTPS", "path": "/"}}}}),
    ("env fieldRef apiVersion",
     {"containers": [{"name": "c", "image": "x", "env": [
         {"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
         {"name": "V", "value": "1"}]}]},
     {},
     {"env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name",
                                                        "apiVersion": "v1"}}},
              {"name": "V", "value": "1"}]}),
]


@pytest.mark.parametrize(("case", "spec", "spec_expected", "container_expected"), POD_CASES,
                         ids=[c[0] for c in POD_CASES])
def test_pod_defaults(case, spec, spec_expected, container_expected):
    out = defaulted(pod(spec))
    for key, value in spec_expected.items():
        assert out["spec"][key] == value
    container = out["spec"]["containers"][0]
    for key, value in container_expected.items():
        assert container[key] == value


def test_pod_volume_defaults():
    spec = {"containers": [{"name": "c", "image": "x"}], "volumes": [
        {"name": "scratch"},
        {"name": "host", "hostPath": {"path": "/var"}},
        {"name": "s", "secret": {"secretName": "s"}},
        {"name": "cm", "configMap": {"name": "cm", "defaultMode": 0o400}},
        {"name": "d", "downwardAPI": {"items": [
            {"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        {"name": "p", "projected": {"sources": [
            {"serviceAccountToken": {"path": "token"}},
            {"downwardAPI": {"items": [{"path": "l", "fieldRef": {
                "fieldPath": "metadata.labels"}}]}}]}},
    ]}
    volumes = defaulted(pod(spec))["spec"]["volumes"]
    assert volumes == [
        {"name": "scratch", "emptyDir": {}},
        {"name": "host", "hostPath": {"path": "/var", "type": ""}},
        {"name": "s", "secret": {"secretName": "s", "defaultMode": 420}},
        {"name": "cm", "configMap": {"name": "cm", "defaultMode": 0o400}},
        {"name": "d", "downwardAPI": {"defaultMode": 420, "items": [
            {"path": "n", "fieldRef": {"fieldPath": "metadata.name", "apiVersion": "v1"}}]}},
        {"name": "p", "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
            {"downwardAPI": {"items": [{"path": "l", "fieldRef": {
                "fieldPath": "metadata.labels", "apiVersion": "v1"}}]}}]}},
    ]


@pytest.mark.parametrize("create", [True, False])
@pytest.mark.parametrize("spec_extra", [
    {},
    {"preemptionPolicy": "Never"},
    {"priority": 7},
    {"priorityClassName": "system-node-critical"},
    {"priorityClassName": "high"},
])
def test_pod_priority_is_not_defaulted(spec_extra, create):
    # SetDefaults_Pod leaves priority alone: the Priority admission step sets it.
    spec = {"containers": [{"name": "c", "image": "x"}], **spec_extra}
    out = defaulted(pod(spec), create=create)["spec"]
    for key in ("priority", "preemptionPolicy", "priorityClassName"):
        assert out.get(key) == spec_extra.get(key)


@pytest.mark.parametrize(("fields", "expected"), [
    ({}, {"value": 0, "preemptionPolicy": "PreemptLowerPriority"}),
    ({"value": 10, "preemptionPolicy": "Never", "globalDefault": True},
     {"value": 10, "preemptionPolicy": "Never", "globalDefault": True}),
])
def test_priority_class_defaults(fields, expected):
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
          "metadata": {"name": "high"}, **fields}
    assert defaulted(pc) == {**pc, **expected}


def test_host_network_ports_default_host_port():
    spec = {"hostNetwork": True, "containers": [{"name": "c", "image": "x", "ports": [
        {"containerPort": 8080}, {"containerPort": 9090, "hostPort": 9090}]}]}
    ports = defaulted(pod(spec))["spec"]["containers"][0]["ports"]
    assert ports == [{"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"},
                     {"containerPort": 9090, "hostPort": 9090, "protocol": "TCP"}]


def test_negative_grace_period_is_kept():
    # Only graceful deletion turns a negative period into 1; the object keeps it.
    spec = {"containers": [{"name": "c", "image": "x"}], "terminationGracePeriodSeconds": -5}
    assert defaulted(pod(spec))["spec"]["terminationGracePeriodSeconds"] == -5


# ----------------------------------------------------------------- Deployment


def deployment(spec: dict) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "default"}, "spec": spec}


TEMPLATE = {"metadata": {"labels": {"app": "d"}},
            "spec": {"containers": [{"name": "c", "image": "nginx",
                                     "resources": {"limits": {"cpu": "1"}}}]}}

DEPLOYMENT_CASES = [
    ("all defaults", {},
     {"replicas": 1, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
      "strategy": {"type": "RollingUpdate",
                   "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}}),
    ("explicit zero replicas kept", {"replicas": 0, "revisionHistoryLimit": 0},
     {"replicas": 0, "revisionHistoryLimit": 0}),
    ("recreate gets no rollingUpdate", {"strategy": {"type": "Recreate"}},
     {"strategy": {"type": "Recreate"}}),
    ("partial rollingUpdate", {"strategy": {"rollingUpdate": {"maxSurge": 0}}},
     {"strategy": {"type": "RollingUpdate",
                   "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "25%"}}}),
]


@pytest.mark.parametrize(("case", "spec", "expected"), DEPLOYMENT_CASES,
                         ids=[c[0] for c in DEPLOYMENT_CASES])
def test_deployment_defaults(case, spec, expected):
    out = defaulted(deployment({**spec, "template": copy.deepcopy(TEMPLATE)}))["spec"]
    for key, value in expected.items():
        assert out[key] == value


def test_template_gets_pod_spec_defaults_but_not_pod_only_ones():
    template = defaulted(deployment({"template": copy.deepcopy(TEMPLATE)}))["spec"]["template"]
    spec = template["spec"]
    assert spec["restartPolicy"] == "Always"
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["securityContext"] == {}
    assert spec["containers"][0]["imagePullPolicy"] == "Always"
    # SetDefaults_Pod and the Priority admission plugin act on Pods only.
    assert spec["containers"][0]["resources"] == {"limits": {"cpu": "1"}}
    for key in ("enableServiceLinks", "priority", "preemptionPolicy"):
        assert key not in spec


def test_replica_set_defaults():
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "r", "namespace": "default"},
          "spec": {"template": copy.deepcopy(TEMPLATE)}}
    out = defaulted(rs)["spec"]
    assert out["replicas"] == 1
    assert out["template"]["spec"]["restartPolicy"] == "Always"
    assert "strategy" not in out


# ------------------------------------------------------ Namespace, Node, Event


def test_namespace_defaults_on_create():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    assert defaulted(ns) == {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "team", "labels": {"kubernetes.io/metadata.name": "team"}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def test_namespace_finalizer_appended_once():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"},
          "spec": {"finalizers": ["example.com/x"]}, "status": {"phase": "Terminating"}}
    out = defaulted(ns)
    assert out["spec"]["finalizers"] == ["example.com/x", "kubernetes"]
    assert out["status"]["phase"] == "Terminating"
    assert defaulted(out)["spec"]["finalizers"] == ["example.com/x", "kubernetes"]


def test_namespace_finalizer_not_restored_on_update():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"},
          "spec": {}, "status": {"phase": "Terminating"}}
    assert defaulted(ns, create=False)["spec"] == {}


def test_node_allocatable_defaults_to_capacity():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi"}}}
    out = defaulted(node)
    assert out["status"]["allocatable"] == {"cpu": "4", "memory": "8Gi"}
    out["status"]["allocatable"]["cpu"] = "3"
    assert out["status"]["capacity"]["cpu"] == "4"  # a copy, not shared
    explicit = copy.deepcopy(node)
    explicit["status"]["allocatable"] = {"cpu": "3"}
    assert defaulted(explicit)["status"]["allocatable"] == {"cpu": "3"}


def test_event_and_unknown_kinds_are_copied_unchanged():
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "d"},
             "involvedObject": {"kind": "Pod", "name": "p", "namespace": "d"}, "reason": "R"}
    assert defaulted(event) == event
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {}}
    assert defaulted(widget) == widget


def test_list_items_are_defaulted_by_kind():
    lst = {"apiVersion": "v1", "kind": "List", "items": [pod(), deployment({})]}
    out = defaulted(lst)
    assert out["items"][0]["spec"]["restartPolicy"] == "Always"
    assert out["items"][1]["spec"]["replicas"] == 1


# --------------------------------------------------------------- canonicalize

CANONICAL_CASES = [
    ("0.5", "500m"),
    (0.5, "500m"),
    (1, "1"),
    ("1000m", "1"),
    ("1024Mi", "1Gi"),
    ("1.5Gi", "1536Mi"),
    ("0.0001", "1m"),  # resource lists are rounded up to milli-units
    ("1e3", "1e3"),
    ("2000", "2k"),
    ("0", "0"),
]


@pytest.mark.parametrize(("value", "expected"), CANONICAL_CASES)
def test_canonicalize_resource_lists(value, expected):
    obj = pod({"containers": [{"name": "c", "image": "x", "resources": {
        "limits": {"cpu": value}, "requests": {"memory": value}}}],
        "overhead": {"cpu": value}})
    before = copy.deepcopy(obj)
    out = canonicalize(obj)
    assert obj == before
    resources = out["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"cpu": expected}, "requests": {"memory": expected}}
    assert out["spec"]["overhead"] == {"cpu": expected}


def test_canonicalize_scalar_quantities_are_not_rounded():
    obj = pod({"containers": [{"name": "c", "image": "x", "env": [
        {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu",
                                                           "divisor": "0.0001"}}}]}],
        "volumes": [{"name": "v", "emptyDir": {"sizeLimit": "1024Mi"}}]})
    out = canonicalize(obj)
    assert out["spec"]["volumes"][0]["emptyDir"]["sizeLimit"] == "1Gi"
    divisor = out["spec"]["containers"][0]["env"][0]["valueFrom"]["resourceFieldRef"]["divisor"]
    assert divisor == "100u"


def test_canonicalize_node_and_template_and_list():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"capacity": {"cpu": 4, "memory": "8192Mi", "pods": "110"},
                       "allocatable": {"cpu": "3.5"}}}
    out = canonicalize(node)
    assert out["status"]["capacity"] == {"cpu": "4", "memory": "8Gi", "pods": "110"}
    assert out["status"]["allocatable"] == {"cpu": "3500m"}
    dep = deployment({"template": {"spec": {"containers": [
        {"name": "c", "image": "x", "resources": {"requests": {"cpu": 0.1}}}]}}})
    lst = {"apiVersion": "v1", "kind": "List", "items": [dep]}
    item = canonicalize(lst)["items"][0]
    assert item["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "100m"}}


def test_canonicalize_leaves_other_fields_alone():
    obj = pod({"containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 80}]}]})
    assert canonicalize(obj) == obj


def _two_containers(first_cpu: object) -> dict:
    return pod({"containers": [
        {"name": "a", "image": "x", "resources": {"requests": {"cpu": first_cpu}}},
        {"name": "b", "image": "x", "resources": {"requests": {"memory": "500Mi"}}}],
        "volumes": [{"name": "v", "emptyDir": {"sizeLimit": "1Gi"}}]})


@pytest.mark.parametrize("owned", [True, False])
@pytest.mark.parametrize(("first_cpu", "expected"), [("100m", "100m"), ("0.5", "500m"),
                                                      (2, "2")])
def test_canonicalize_copies_on_write_and_never_changes_its_input(owned, first_cpu, expected):
    """Only what holds a rewritten quantity is rebuilt; the input stays as it
    was, owned or not; without ``owned`` nothing is shared with it."""
    obj = _two_containers(first_cpu)
    before = copy.deepcopy(obj)
    out = canonicalize(obj, owned=owned)
    assert obj == before
    assert out["spec"]["containers"][0]["resources"]["requests"]["cpu"] == expected
    rewritten = expected != first_cpu
    containers_in, containers_out = obj["spec"]["containers"], out["spec"]["containers"]
    if not owned:
        assert containers_out[1] is not containers_in[1]
        assert out["spec"]["volumes"] is not obj["spec"]["volumes"]
    elif rewritten:
        assert containers_out is not containers_in and containers_out[0] is not containers_in[0]
        assert containers_out[1] is containers_in[1]  # untouched: shared, not copied
        assert out["spec"]["volumes"] is obj["spec"]["volumes"]
    else:
        assert out["spec"] is obj["spec"]  # nothing to rewrite: nothing rebuilt


def test_canonical_forms_are_remembered_within_a_bound(monkeypatch):
    from minikube_py.api import defaults

    monkeypatch.setattr(defaults, "_CANONICAL", {})
    monkeypatch.setattr(defaults, "_CANONICAL_LIMIT", 8)
    for i in range(20):
        obj = pod({"containers": [{"name": "c", "image": "x",
                                   "resources": {"limits": {"cpu": f"{i}000m"}}}]})
        cpu = canonicalize(obj)["spec"]["containers"][0]["resources"]["limits"]["cpu"]
        assert cpu == str(i)
        assert len(defaults._CANONICAL) <= 8
    assert ("19000m", True) in defaults._CANONICAL  # what a resource list asked last
