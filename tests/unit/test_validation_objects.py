"""Validation of Deployments, ReplicaSets, Nodes, Namespaces and Events, one
or more rows per rule, with the exact rendered messages.

Every expected line is what ``kubectl`` shows for the same manifest against a
v1.32 API server (``str(FieldError)`` is the part after ``is invalid:``).
Objects go through ``apply_defaults`` first, as on the API server, unless a
row needs the raw object.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from minikube_py.api.errors import Invalid
from minikube_py.api.validation import check_update, validate_update

from .validation_helpers import (
    LABEL_VALUE,
    QNAME,
    Mutator,
    built,
    container,
    messages,
    raw_deployment,
    raw_event,
    raw_namespace,
    raw_node,
    raw_replica_set,
    set_in,
)

# ----------------------------------------------------------- Deployment / RS

EMPTY_SELECTOR = ("&LabelSelector{MatchLabels:map[string]string{},"
                  "MatchExpressions:[]LabelSelectorRequirement{},}")

APPS_CASES: list[tuple[str, Callable[[], dict], Mutator | None, Mutator | None, str]] = [
    ("selector required", raw_deployment, lambda o: o["spec"].pop("selector"), None,
     "spec.selector: Required value"),
    ("selector required, labels then mismatch", raw_deployment,
     lambda o: o["spec"].pop("selector"), None,
     'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` '
     "does not match template `labels`"),
    ("empty selector", raw_deployment, set_in("spec.selector", {}), None,
     f"spec.selector: Invalid value: {EMPTY_SELECTOR}: empty selector is invalid for "
     "deployment"),
    ("empty selector for replica sets", raw_replica_set, set_in("spec.selector", {}), None,
     f"spec.selector: Invalid value: {EMPTY_SELECTOR}: empty selector is invalid for "
     "deployment"),
    ("selector must match", raw_deployment,
     set_in("spec.template.metadata.labels", {"app": "other", "tier": "x"}), None,
     'spec.template.metadata.labels: Invalid value: map[string]string{"app":"other", '
     '"tier":"x"}: `selector` does not match template `labels`'),
    ("replica set selector must match", raw_replica_set,
     set_in("spec.template.metadata.labels", {}), None,
     "spec.template.metadata.labels: Invalid value: map[string]string{}: `selector` does not "
     "match template `labels`"),
    ("selector expression", raw_deployment, set_in("spec.selector", {"matchExpressions": [
        {"key": "app", "operator": "Maybe"}]}), None,
     'spec.selector.matchExpressions[0].operator: Invalid value: "Maybe": not a valid selector '
     "operator"),
    ("invalid selector skips template", raw_deployment, set_in("spec.selector", {
        "matchExpressions": [{"key": "app", "operator": "Maybe"}]}), None,
     "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},"
     "MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:app,"
     "Operator:Maybe,Values:[],},},}: invalid label selector"),
    ("replicas", raw_deployment, set_in("spec.replicas", -1), None,
     "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
    ("replica set replicas", raw_replica_set, set_in("spec.replicas", -2), None,
     "spec.replicas: Invalid value: -2: must be greater than or equal to 0"),
    ("template restartPolicy", raw_deployment, set_in("spec.template.spec.restartPolicy",
                                                      "Never"), None,
     'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: '
     '"Always"'),
    ("template activeDeadlineSeconds", raw_replica_set,
     set_in("spec.template.spec.activeDeadlineSeconds", 10), None,
     "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet "
     "is not Supported"),
    ("template labels", raw_deployment, lambda o: (
        o["spec"]["template"]["metadata"]["labels"].update({"bad key": "x"})), None,
     f'spec.template.labels: Invalid value: "bad key": {QNAME}'),
    ("template container", raw_deployment, lambda o: container(o).update(image=""), None,
     "spec.template.spec.containers[0].image: Required value"),
    ("template hostNetwork port", raw_deployment, lambda o: (
        o["spec"]["template"]["spec"].update(hostNetwork=True),
        container(o).update(ports=[{"containerPort": 80, "hostPort": 81}])), None,
     "spec.template.spec.containers[0].ports[0].hostPort: Invalid value: 81: must match "
     "`containerPort` when `hostNetwork` is true"),
    ("strategy type", raw_deployment, set_in("spec.strategy", {"type": "BlueGreen"}), None,
     'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", '
     'RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", '
     '"RollingUpdate"'),
    ("rollingUpdate with Recreate", raw_deployment, None,
     set_in("spec.strategy", {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}),
     "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is "
     "'Recreate'"),
    ("both zero", raw_deployment, set_in("spec.strategy", {"rollingUpdate": {
        "maxSurge": 0, "maxUnavailable": 0}}), None,
     "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when "
     "`maxSurge` is 0"),
    ("both zero percent", raw_deployment, set_in("spec.strategy", {"rollingUpdate": {
        "maxSurge": "0%", "maxUnavailable": "0%"}}), None,
     "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0%: may not be 0 when "
     "`maxSurge` is 0"),
    ("maxUnavailable above 100%", raw_deployment, set_in("spec.strategy", {"rollingUpdate": {
        "maxUnavailable": "150%"}}), None,
     "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 150%: must not be greater "
     "than 100%"),
    ("maxSurge not a percent", raw_deployment, set_in("spec.strategy", {"rollingUpdate": {
        "maxSurge": "25"}}), None,
     "spec.strategy.rollingUpdate.maxSurge: Invalid value: 25: a valid percent string must be "
     "a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for "
     "validation is '[0-9]+%')"),
    ("maxSurge negative", raw_deployment, set_in("spec.strategy", {"rollingUpdate": {
        "maxSurge": -1}}), None,
     "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal "
     "to 0"),
    ("minReadySeconds", raw_deployment, set_in("spec.minReadySeconds", -1), None,
     "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
    ("revisionHistoryLimit", raw_deployment, set_in("spec.revisionHistoryLimit", -1), None,
     "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"),
    ("progressDeadlineSeconds", raw_deployment, lambda o: o["spec"].update(
        minReadySeconds=10, progressDeadlineSeconds=10), None,
     "spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"),
]


@pytest.mark.parametrize(("case", "factory", "mutate", "after", "expected"), APPS_CASES,
                         ids=[c[0] for c in APPS_CASES])
def test_apps(case, factory, mutate, after, expected):
    assert expected in messages(built(factory, mutate, after=after))


def test_invalid_selector_does_not_validate_the_template():
    got = messages(built(raw_deployment, lambda o: (
        o["spec"].update(selector={"matchExpressions": [{"key": "app", "operator": "Maybe"}]}),
        container(o).update(image=""))))
    assert not any(m.startswith("spec.template") for m in got)


@pytest.mark.parametrize("factory", [raw_deployment, raw_replica_set])
def test_selector_is_immutable(factory):
    old = built(factory)
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["spec"]["selector"] = {"matchLabels": {"app": "api"}}
    new["spec"]["template"]["metadata"]["labels"] = {"app": "api"}
    assert [str(e) for e in validate_update(new, old)] == [
        "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{app: api,},"
        "MatchExpressions:[]LabelSelectorRequirement{},}: field is immutable"]
    with pytest.raises(Invalid) as exc:
        check_update(new, old)
    assert str(exc.value).startswith(
        f'{factory()["kind"]}.apps "web" is invalid: spec.selector: Invalid value: ')
    scaled = copy.deepcopy(old)
    scaled["spec"]["replicas"] = 5
    scaled["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    assert validate_update(scaled, old) == []


# ------------------------------------------------------------------------ Node

NODE_CASES: list[tuple[str, Mutator, str]] = [
    ("taint effect", set_in("spec.taints", [{"key": "k", "effect": "NoRun"}]),
     'metadata.taints[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", '
     '"PreferNoSchedule", "NoExecute"'),
    ("taint effect required", set_in("spec.taints", [{"key": "k"}]),
     "metadata.taints[0].effect: Required value"),
    ("taint key", set_in("spec.taints", [{"key": "bad key", "effect": "NoSchedule"}]),
     f'metadata.taints[0].key: Invalid value: "bad key": {QNAME}'),
    ("taint value", set_in("spec.taints", [{"key": "k", "value": "a b",
                                            "effect": "NoSchedule"}]),
     f'metadata.taints[0].value: Invalid value: "a b": {LABEL_VALUE}'),
    ("taints unique by key and effect", set_in("spec.taints", [
        {"key": "k", "value": "a", "effect": "NoSchedule"},
        {"key": "k", "value": "b", "effect": "NoSchedule"}]),
     'metadata.taints[1]: Duplicate value: core.Taint{Key:"k", Value:"b", Effect:"NoSchedule",'
     " TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair"),
    ("capacity", set_in("status.capacity", {"cpu": "-1"}),
     'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0'),
    ("allocatable", set_in("status.allocatable", {"memory": "-1Gi"}),
     'status.allocatable.memory: Invalid value: "-1Gi": must be greater than or equal to 0'),
    ("podCIDRs", set_in("spec.podCIDRs", ["10.0.0.0/33"]),
     'spec.podCIDRs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. '
     "10.9.8.0/24 or 2001:db8::/64)"),
]


@pytest.mark.parametrize(("case", "mutate", "expected"), NODE_CASES,
                         ids=[c[0] for c in NODE_CASES])
def test_node(case, mutate, expected):
    assert expected in messages(built(raw_node, mutate))


def test_same_taint_key_with_other_effects_is_fine():
    node = built(raw_node, set_in("spec.taints", [{"key": "k", "effect": "NoSchedule"},
                                                  {"key": "k", "effect": "NoExecute"}]))
    assert messages(node) == []


def test_node_update():
    old = built(raw_node, lambda o: o["spec"].update(podCIDRs=["10.244.0.0/24"],
                                                     providerID="p://1"))
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["spec"]["unschedulable"] = True
    new["spec"]["taints"] = [{"key": "k", "effect": "NoSchedule"}]
    assert validate_update(new, old) == []
    new["spec"]["podCIDRs"] = ["10.245.0.0/24"]
    new["spec"]["providerID"] = "p://2"
    assert [str(e) for e in validate_update(new, old)] == [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
        'spec.providerID: Forbidden: node updates may not change providerID except from "" to '
        "valid",
    ]


# ------------------------------------------------------------------- Namespace


@pytest.mark.parametrize(("finalizers", "expected"), [
    (["kubernetes"], []),
    (["example.com/cleanup"], []),
    (["cleanup"], ['spec.finalizers: Invalid value: "cleanup": name is neither a standard '
                   "finalizer name nor is it fully qualified"]),
    (["bad name"], [f'spec.finalizers: Invalid value: "bad name": {QNAME}',
                    'spec.finalizers: Invalid value: "bad name": name is neither a standard '
                    "finalizer name nor is it fully qualified"]),
])
def test_namespace_finalizers(finalizers, expected):
    ns = built(raw_namespace, set_in("spec.finalizers", finalizers))
    ns["spec"]["finalizers"] = finalizers
    assert messages(ns) == expected


def test_namespace_update_keeps_name():
    old = built(raw_namespace)
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["metadata"]["name"] = "team-b"
    assert 'metadata.name: Invalid value: "team-b": field is immutable' in [
        str(e) for e in validate_update(new, old)]


# ----------------------------------------------------------------------- Event

EVENT_CASES: list[tuple[str, Mutator, str | None]] = [
    ("namespace must match", set_in("involvedObject.namespace", "other"),
     'involvedObject.namespace: Invalid value: "other": does not match event.namespace'),
    ("cluster-scoped object, default namespace", lambda o: o.update(
        involvedObject={"kind": "Node", "name": "node-1"}), None),
    ("cluster-scoped object, other namespace", lambda o: (
        o.update(involvedObject={"kind": "Node", "name": "node-1"}),
        o["metadata"].update(namespace="kube-system")),
     'involvedObject.namespace: Invalid value: "": does not match event.namespace'),
    ("new-style events need reporting fields", lambda o: o.update(
        eventTime="2024-05-01T10:00:00.000000Z", action="Started"),
     "reportingController: Required value"),
    ("new-style reason length", lambda o: o.update(
        eventTime="2024-05-01T10:00:00.000000Z", action="A", reportingComponent="kubelet",
        reportingInstance="node-1", reason="R" * 129),
     'reason: Invalid value: "": can have at most 128 characters'),
    ("name is a path segment", set_in("metadata.name", "web/1"),
     "metadata.name: Invalid value: \"web/1\": may not contain '/'"),
    ("upper case names are accepted", set_in("metadata.name", "Web.1"), None),
    ("name required", set_in("metadata.name", ""),
     "metadata.name: Required value: name or generateName is required"),
]


@pytest.mark.parametrize(("case", "mutate", "expected"), EVENT_CASES,
                         ids=[c[0] for c in EVENT_CASES])
def test_event(case, mutate, expected):
    got = messages(built(raw_event, mutate))
    if expected is None:
        assert got == []
    else:
        assert expected in got


def test_event_update_validates_metadata():
    old = built(raw_event)
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["count"] = 2
    assert validate_update(new, old) == []
    new["metadata"]["namespace"] = "other"
    new["involvedObject"]["namespace"] = "other"
    assert 'metadata.namespace: Invalid value: "other": field is immutable' in [
        str(e) for e in validate_update(new, old)]
