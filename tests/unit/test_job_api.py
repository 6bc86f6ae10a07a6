"""The Job API (batch/v1): what the registry stores for a Job (the job strategy's
generated selector, ``SetDefaults_Job``), what it refuses (with the messages a
v1.32 API server gives, ``pkg/apis/batch/validation``) and how ``kubectl get
jobs`` prints it (``printJob``)."""

from __future__ import annotations

import copy
import itertools
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import Invalid, NotFound
from minikube_py.api.printers import column_definitions, table
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z
RESTART = 'valid values: "OnFailure", "Never"'
GENERATED = ("batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name",
             "controller-uid", "job-name")


def ts(offset: float) -> str:
    """RFC 3339, ``offset`` seconds from NOW."""
    return datetime.fromtimestamp(NOW + offset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def registry(tmp_path: Path):
    store = Store(tmp_path / "s", clock=lambda: NOW)
    counter = itertools.count(1)
    reg = Registry(store, clock=lambda: NOW, new_uid=lambda: f"uid-{next(counter)}")
    reg.ensure_system_namespaces()
    yield reg
    store.close()


def job(name: str = "pi", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36"}]}}}
    body.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default"}, "spec": body}


def errors_of(registry: Registry, obj: dict[str, Any], *, update: bool = False) -> list[str]:
    """The rendered field errors of a refused write, uids shown as ``<uid>``."""
    with pytest.raises(Invalid) as caught:
        if update:
            registry.update(obj)
        else:
            registry.create(obj)
    return [re.sub(r"uid-\d+", "<uid>", str(e)) for e in caught.value.errors]


def unversioned(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` as an unconditional update (no resourceVersion precondition)."""
    out = copy.deepcopy(obj)
    out["metadata"].pop("resourceVersion", None)
    return out


# ------------------------------------------------------------------ create


def test_create_generates_the_selector_and_the_template_labels(registry):
    created = registry.create(job())
    uid = created["metadata"]["uid"]
    expected = {"batch.kubernetes.io/controller-uid": uid,
                "batch.kubernetes.io/job-name": "pi", "controller-uid": uid, "job-name": "pi"}
    assert created["spec"]["selector"] == {
        "matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert created["spec"]["template"]["metadata"]["labels"] == expected
    # SetDefaults_Job gives a job without labels its template's labels.
    assert created["metadata"]["labels"] == expected
    assert created["metadata"]["generation"] == 1
    assert created["status"] == {}
    assert registry.get("jobs", "default", "pi") == created


def test_create_keeps_user_template_labels_and_job_labels(registry):
    src = job()
    src["spec"]["template"]["metadata"] = {"labels": {"app": "pi"}}
    created = registry.create(src)
    uid = created["metadata"]["uid"]
    labels = created["spec"]["template"]["metadata"]["labels"]
    assert labels == {"app": "pi", "batch.kubernetes.io/controller-uid": uid,
                      "batch.kubernetes.io/job-name": "pi", "controller-uid": uid,
                      "job-name": "pi"}
    # Defaulting copied the template's labels before the generated ones were added.
    assert created["metadata"]["labels"] == {"app": "pi"}
    assert src["spec"]["template"]["metadata"] == {"labels": {"app": "pi"}}  # not mutated


def test_manual_selector_is_honoured(registry):
    src = job(manualSelector=True, selector={"matchLabels": {"app": "pi"}})
    src["spec"]["template"]["metadata"] = {"labels": {"app": "pi"}}
    created = registry.create(src)
    assert created["spec"]["selector"] == {"matchLabels": {"app": "pi"}}
    assert created["spec"]["template"]["metadata"]["labels"] == {"app": "pi"}
    assert created["spec"]["manualSelector"] is True
    assert created["metadata"]["labels"] == {"app": "pi"}
    assert not any(k in created["spec"]["template"]["metadata"]["labels"] for k in GENERATED)


@pytest.mark.parametrize(("spec", "want"), [
    ({}, {"parallelism": 1, "completions": 1, "backoffLimit": 6,
          "completionMode": "NonIndexed", "suspend": False,
          "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": False}),
    # completions is defaulted only when parallelism is unset too (a work queue).
    ({"parallelism": 3}, {"parallelism": 3, "completions": None}),
    ({"completions": 5}, {"parallelism": 1, "completions": 5}),
    # With a per-index limit the global one is effectively off (MaxInt32).
    ({"completionMode": "Indexed", "completions": 2, "backoffLimitPerIndex": 1},
     {"backoffLimit": 2**31 - 1}),
    ({"backoffLimit": 0, "suspend": True}, {"backoffLimit": 0, "suspend": True}),
    # A podFailurePolicy only replaces failed pods.
    ({"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [
        {"type": "DisruptionTarget"}]}]}},
     {"podReplacementPolicy": "Failed"}),
])
def test_defaults(registry, spec, want):
    created = registry.create(job(**spec))["spec"]
    for key, value in want.items():
        assert created.get(key) == value, key
    # The pod template gets pod defaults too.
    assert created["template"]["spec"]["terminationGracePeriodSeconds"] == 30


def test_a_pod_failure_policy_rule_pattern_defaults_its_status(registry):
    spec = {"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [
        {"type": "DisruptionTarget"}]}]}}
    created = registry.create(job(**spec))["spec"]
    assert created["podFailurePolicy"]["rules"][0]["onPodConditions"] == [
        {"type": "DisruptionTarget", "status": "True"}]


# ------------------------------------------------------------------ validation


def _with_template(labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    obj = job(**spec)
    obj["spec"]["template"]["metadata"] = {"labels": labels}
    return obj


def _restart(policy: str | None) -> dict[str, Any]:
    obj = job()
    if policy is None:
        del obj["spec"]["template"]["spec"]["restartPolicy"]
    else:
        obj["spec"]["template"]["spec"]["restartPolicy"] = policy
    return obj


INVALID = [
    ("negative completions", job(completions=-1),
     ["spec.completions: Invalid value: -1: must be greater than or equal to 0"]),
    ("negative parallelism, deadline and backoff limit",
     job(parallelism=-1, activeDeadlineSeconds=-5, backoffLimit=-2),
     ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
      "spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0",
      "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0"]),
    # SetDefaults_PodSpec turns an omitted policy into Always, so since 1.28 the
    # job validation reports both as a missing value.
    ("restartPolicy Always", _restart("Always"),
     [f"spec.template.spec.restartPolicy: Required value: {RESTART}"]),
    ("restartPolicy omitted", _restart(None),
     [f"spec.template.spec.restartPolicy: Required value: {RESTART}"]),
    ("restartPolicy unknown", _restart("Sometimes"),
     ['spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
      '"Always", "OnFailure", "Never"',
      'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
      '"OnFailure", "Never"']),
    ("manual selector not matching the template",
     _with_template({"app": "web"}, manualSelector=True,
                    selector={"matchLabels": {"app": "pi"}}),
     ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: '
      "`selector` does not match template `labels`"]),
    ("manual selector missing", job(manualSelector=True), ["spec.selector: Required value"]),
    ("generated label set to another job", _with_template({"job-name": "other"}),
     ["spec.template.metadata.labels[job-name]: Invalid value: map[string]string{"
      '"batch.kubernetes.io/controller-uid":"<uid>", "batch.kubernetes.io/job-name":"pi", '
      '"controller-uid":"<uid>", "job-name":"other"}: must be \'pi\''
      ]),
    ("unknown completion mode", job(completionMode="Sideways"),
     ['spec.completionMode: Unsupported value: "Sideways": supported values: "NonIndexed", '
      '"Indexed"']),
    ("indexed without completions", job(completionMode="Indexed", parallelism=2),
     ["spec.completions: Required value: when completion mode is Indexed"]),
    ("indexed pod hostname too long", job("a" * 62, completionMode="Indexed", completions=10),
     [f'metadata.name: Invalid value: "{"a" * 62}": will not able to create pod with '
      f"invalid DNS label: {'a' * 62}-9"]),
    ("per-index limit on a non-indexed job", job(backoffLimitPerIndex=1),
     ["spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"]),
    ("unknown replacement policy", job(podReplacementPolicy="Never"),
     ['spec.podReplacementPolicy: Unsupported value: "Never": supported values: "Failed", '
      '"TerminatingOrFailed"']),
]


@pytest.mark.parametrize(("obj", "want"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_invalid_jobs_are_refused_with_kubernetes_messages(registry, obj, want):
    assert errors_of(registry, obj) == want
    with pytest.raises(NotFound):
        registry.get("jobs", "default", obj["metadata"]["name"])


def test_the_whole_invalid_message(registry):
    with pytest.raises(Invalid) as caught:
        registry.create(job(completions=-1, parallelism=-1))
    assert caught.value.message == (
        'Job.batch "pi" is invalid: [spec.parallelism: Invalid value: -1: must be greater '
        "than or equal to 0, spec.completions: Invalid value: -1: must be greater than or "
        "equal to 0]")
    assert caught.value.code == 422


# ------------------------------------------------------------------ update


def test_the_template_is_immutable(registry):
    stored = registry.create(job())
    changed = unversioned(stored)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:1.37"
    [error] = errors_of(registry, changed, update=True)
    # Kubernetes prints the whole core.PodTemplateSpec with %#v here.
    assert error.startswith("spec.template: Invalid value: core.PodTemplateSpec{")
    assert error.endswith("}: field is immutable")


@pytest.mark.parametrize(("change", "want"), [
    (lambda s: s.update(completions=3), ["spec.completions: Invalid value: 3: field is immutable"]),
    (lambda s: s.update(completionMode="Indexed"),
     ['spec.completionMode: Invalid value: "Indexed": field is immutable']),
    (lambda s: s["selector"]["matchLabels"].update(extra="x"),
     None),  # checked separately below: three errors
])
def test_immutable_spec_fields(registry, change, want):
    stored = registry.create(job())
    changed = unversioned(stored)
    change(changed["spec"])
    errors = errors_of(registry, changed, update=True)
    if want is not None:
        assert errors == want
    else:
        assert errors[-1].startswith("spec.selector: Invalid value: &LabelSelector{")
        assert errors[-1].endswith(": field is immutable")


def test_mutable_fields_and_scheduling_directives_of_a_suspended_unstarted_job(registry):
    stored = registry.create(job(suspend=True))
    changed = unversioned(stored)
    changed["spec"]["parallelism"] = 4
    changed["spec"]["activeDeadlineSeconds"] = 60
    changed["spec"]["template"]["spec"]["nodeSelector"] = {"disk": "ssd"}
    updated = registry.update(changed)
    assert updated["spec"]["template"]["spec"]["nodeSelector"] == {"disk": "ssd"}
    assert updated["metadata"]["generation"] == 2
    # Once it has started, the template is frozen again.
    started = unversioned(updated)
    started["status"] = {"startTime": ts(0)}
    registry.update(started, subresource="status")
    again = unversioned(registry.get("jobs", "default", "pi"))
    again["spec"]["template"]["spec"]["nodeSelector"] = {"disk": "hdd"}
    [error] = errors_of(registry, again, update=True)
    assert error.endswith(": field is immutable")


def test_indexed_completions_change_only_with_parallelism(registry):
    stored = registry.create(job(completionMode="Indexed", completions=3, parallelism=3))
    alone = unversioned(stored)
    alone["spec"]["completions"] = 4
    assert errors_of(registry, alone, update=True) == [
        "spec.completions: Invalid value: 4: can only be modified in tandem with "
        "spec.parallelism"]
    together = unversioned(stored)
    together["spec"]["completions"] = together["spec"]["parallelism"] = 5
    assert registry.update(together)["spec"]["completions"] == 5


def test_status_counters_never_decrease(registry):
    stored = registry.create(job())
    counted = unversioned(stored)
    counted["status"] = {"startTime": ts(0), "failed": 2}
    registry.update(counted, subresource="status")
    lower = unversioned(registry.get("jobs", "default", "pi"))
    lower["status"]["failed"] = 1
    # The main resource keeps the stored status whatever the request says...
    assert registry.update(lower)["status"]["failed"] == 2
    # ...and the status subresource refuses to go back.
    with pytest.raises(Invalid) as caught:
        registry.update(lower, subresource="status")
    assert [str(e) for e in caught.value.errors] == [
        "status.failed: Invalid value: 1: cannot decrease the failed counter"]


# ------------------------------------------------------------------ printing


def printed(obj: dict[str, Any]) -> list[Any]:
    """The cells kubectl shows without ``-o wide``."""
    t = table("Job", [obj], now=NOW)
    return [c for c, col in zip(t["rows"][0]["cells"], t["columnDefinitions"], strict=True)
            if col["priority"] == 0]


def stored_job(*, spec: dict[str, Any] | None = None, status: dict[str, Any] | None = None,
               created: float = -600, deleting: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "pi", "namespace": "default",
                            "creationTimestamp": ts(created)}
    if deleting:
        meta["deletionTimestamp"] = ts(0)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"completions": 1, "parallelism": 1, **(spec or {})},
            "status": status or {}}


def cond(kind: str, value: str = "True") -> dict[str, str]:
    return {"type": kind, "status": value}


PRINTED = [
    ("created, not started", stored_job(), ["pi", "Running", "0/1", "", "10m"]),
    ("running for 42 seconds", stored_job(status={"startTime": ts(-42), "active": 1}),
     ["pi", "Running", "0/1", "42s", "10m"]),
    ("complete: duration from start to completion",
     stored_job(status={"startTime": ts(-400), "completionTime": ts(-70), "succeeded": 1,
                        "conditions": [cond("SuccessCriteriaMet"), cond("Complete")]}),
     ["pi", "Complete", "1/1", "5m30s", "10m"]),
    ("completions out of many",
     stored_job(spec={"completions": 5, "parallelism": 2},
                status={"startTime": ts(-3900), "succeeded": 3}, created=-4000),
     ["pi", "Running", "3/5", "65m", "66m"]),
    ("work queue with parallelism",
     stored_job(spec={"completions": None, "parallelism": 3}, status={"succeeded": 1}),
     ["pi", "Running", "1/1 of 3", "", "10m"]),
    ("work queue without parallelism", stored_job(spec={"completions": None}),
     ["pi", "Running", "0/1", "", "10m"]),
    ("failed", stored_job(status={"startTime": ts(-60), "failed": 7, "conditions": [
        cond("FailureTarget"), cond("Failed")]}),
     ["pi", "Failed", "0/1", "60s", "10m"]),
    ("failure target: pods still terminating",
     stored_job(status={"startTime": ts(-60), "conditions": [cond("FailureTarget")]}),
     ["pi", "FailureTarget", "0/1", "60s", "10m"]),
    # v1.32 has no SuccessCriteriaMet status (kubectl shows it from 1.34).
    ("success criteria met: pods still terminating",
     stored_job(status={"startTime": ts(-60), "succeeded": 1,
                        "conditions": [cond("SuccessCriteriaMet")]}),
     ["pi", "Running", "1/1", "60s", "10m"]),
    ("suspended", stored_job(spec={"suspend": True},
                             status={"conditions": [cond("Suspended")]}),
     ["pi", "Suspended", "0/1", "", "10m"]),
    ("resumed", stored_job(status={"startTime": ts(-5),
                                   "conditions": [cond("Suspended", "False")]}),
     ["pi", "Running", "0/1", "5s", "10m"]),
    ("being deleted", stored_job(deleting=True, status={"conditions": [cond("Suspended")]}),
     ["pi", "Terminating", "0/1", "", "10m"]),
    ("complete beats being deleted",
     stored_job(deleting=True, status={"startTime": ts(-9), "completionTime": ts(-2),
                                       "succeeded": 1, "conditions": [cond("Complete")]}),
     ["pi", "Complete", "1/1", "7s", "10m"]),
]


@pytest.mark.parametrize(("obj", "want"), [c[1:] for c in PRINTED], ids=[c[0] for c in PRINTED])
def test_printed_columns(obj, want):
    assert printed(obj) == want


def test_job_columns_and_wide_cells(registry):
    assert [(c.name, c.priority) for c in column_definitions("Job")] == [
        ("Name", 0), ("Status", 0), ("Completions", 0), ("Duration", 0), ("Age", 0),
        ("Containers", 1), ("Images", 1), ("Selector", 1)]
    created = registry.create(job())
    [row] = table("Job", [created], now=NOW + 3)["rows"]
    assert row["cells"] == ["pi", "Running", "0/1", "", "3s", "c", "busybox:1.36",
                            f"batch.kubernetes.io/controller-uid={created['metadata']['uid']}"]
