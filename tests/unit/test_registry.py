"""The registry: what create/update/delete do to objects on their way into the store."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
)
from minikube_py.api.manifest import load_paths
from minikube_py.store.registry import SYSTEM_NAMESPACES, Registry
from minikube_py.store.store import Store

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"
NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "s", clock=lambda: NOW)
    yield s
    s.close()


@pytest.fixture
def registry(store: Store) -> Registry:
    counter = itertools.count(1)
    reg = Registry(store, clock=lambda: NOW, new_uid=lambda: f"uid-{next(counter)}")
    reg.ensure_system_namespaces()
    return reg


def pod(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


def deployment(name: str = "web", image: str = "busybox:1.36") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": image}]}}}}


# ------------------------------------------------------------------------ create


def test_create_pod_fills_metadata_defaults_and_status(registry: Registry):
    src = pod(containers=[{"name": "c", "image": "busybox",
                           "resources": {"requests": {"cpu": "0.5", "memory": "1Gi"},
                                         "limits": {"cpu": "0.5", "memory": "1024Mi"}}}])
    before = copy.deepcopy(src)
    created = registry.create(src, namespace=None)
    assert src == before  # input untouched
    meta = created["metadata"]
    assert meta["namespace"] == "default"
    assert meta["uid"].startswith("uid-")
    assert meta["creationTimestamp"] == "2027-01-15T08:00:00Z"
    assert meta["generation"] == 1
    assert meta["resourceVersion"].isdigit()
    spec = created["spec"]
    assert spec["restartPolicy"] == "Always"
    assert spec["terminationGracePeriodSeconds"] == 30
    container = spec["containers"][0]
    assert container["imagePullPolicy"] == "Always"  # no tag
    # Quantities are stored in canonical form, as Kubernetes serves them back.
    assert container["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    assert container["resources"]["limits"] == {"cpu": "500m", "memory": "1Gi"}
    assert created["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}
    assert registry.get("pods", "default", "web") == created


def test_create_ignores_client_supplied_status_uid_and_timestamps(registry: Registry):
    src = pod()
    src["metadata"].update(uid="mine", creationTimestamp="2000-01-01T00:00:00Z",
                           deletionTimestamp="2000-01-01T00:00:00Z", generation=7)
    src["status"] = {"phase": "Running"}
    created = registry.create(src)
    assert created["metadata"]["uid"] != "mine"
    assert created["metadata"]["creationTimestamp"] == "2027-01-15T08:00:00Z"
    assert "deletionTimestamp" not in created["metadata"]
    assert created["metadata"]["generation"] == 1
    assert created["status"]["phase"] == "Pending"


def test_create_deployment_defaults(registry: Registry):
    created = registry.create(deployment())
    spec = created["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "RollingUpdate",
                                "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600
    assert spec["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert created["metadata"]["generation"] == 1
    assert created["status"] == {}


def test_create_replicaset_status_always_has_replicas(registry: Registry):
    rs = deployment("rs")
    rs["kind"] = "ReplicaSet"
    del rs["spec"]["template"]["spec"]["containers"][0]["image"]
    rs["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:1.36"
    assert registry.create(rs)["status"] == {"replicas": 0}


def test_create_namespace_is_active_with_kubernetes_finalizer(registry: Registry):
    ns = registry.create({"apiVersion": "v1", "kind": "Namespace",
                          "metadata": {"name": "team"}})
    assert ns["spec"] == {"finalizers": ["kubernetes"]}
    assert ns["status"] == {"phase": "Active"}
    assert "generation" not in ns["metadata"]


def test_cluster_scoped_objects_lose_a_namespace(registry: Registry):
    node = registry.create({"apiVersion": "v1", "kind": "Node",
                            "metadata": {"name": "n1", "namespace": "default"}})
    assert "namespace" not in node["metadata"]


def test_generate_name_appends_five_characters(registry: Registry):
    created = registry.create({"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"generateName": "web-"},
                               "spec": {"containers": [{"name": "c", "image": "b"}]}})
    name = created["metadata"]["name"]
    assert name.startswith("web-") and len(name) == 9
    assert set(name[4:]) <= set("bcdfghjklmnpqrstvwxz2456789")


def _web(**meta: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": dict(meta),
            "spec": {"containers": [{"name": "c", "image": "b"}]}}


def test_create_raw_returns_the_stored_text_and_a_dry_run_stores_nothing(
        registry: Registry, store: Store) -> None:
    raw = registry.create_raw(_web(name="web"))
    assert raw == store.get_raw("pods", "default", "web")
    assert json.loads(raw)["metadata"]["resourceVersion"] == str(store.resource_version)
    dry = registry.create_raw(_web(name="dry"), dry_run=True)
    assert json.loads(dry)["metadata"]["name"] == "dry"
    assert json.loads(dry)["metadata"]["uid"]
    with pytest.raises(NotFound):
        store.get_raw("pods", "default", "dry")
    with pytest.raises(AlreadyExists):
        registry.create_raw(_web(name="web"))


@pytest.mark.parametrize("taken, dry_run", [(0, False), (1, False), (7, False), (8, False),
                                            (3, True), (8, True)])
def test_a_generated_name_that_is_taken_is_generated_again_up_to_8_attempts(
        registry: Registry, taken: int, dry_run: bool):
    """RetryGenerateName (GA in Kubernetes 1.32): the API server tries 8
    generated names in all before answering AlreadyExists."""
    for i in range(taken):
        registry.create(_web(name=f"web-{i:05d}"))
    suffixes = iter(f"{i:05d}" for i in range(100))
    registry.name_suffix = lambda: next(suffixes)
    before = {p["metadata"]["name"] for p in registry.store.list("pods").items}
    if taken >= 8:
        with pytest.raises(AlreadyExists, match='pods "web-00007" already exists'):
            registry.create(_web(generateName="web-"), dry_run=dry_run)
    else:
        created = registry.create(_web(generateName="web-"), dry_run=dry_run)
        assert created["metadata"]["name"] == f"web-{taken:05d}"
    after = {p["metadata"]["name"] for p in registry.store.list("pods").items}
    assert after - before == (set() if dry_run or taken >= 8 else {f"web-{taken:05d}"})


def test_an_explicit_name_that_is_taken_is_not_retried(registry: Registry):
    registry.create(_web(name="web"))
    registry.name_suffix = lambda: pytest.fail("no name is generated for an explicit name")
    with pytest.raises(AlreadyExists):
        registry.create(_web(name="web", generateName="web-"))


def test_a_long_generate_name_is_cut_to_58_characters(registry: Registry):
    created = registry.create(_web(generateName="a" * 70))
    assert created["metadata"]["name"][:58] == "a" * 58 and len(created["metadata"]["name"]) == 63


@pytest.mark.parametrize("mutate, error, fragment", [
    (lambda o: o["metadata"].update(resourceVersion="5"), BadRequest,
     "resourceVersion should not be set on objects to be created"),
    (lambda o: o["metadata"].update(namespace="other"), BadRequest,
     "does not match the namespace sent on the request"),
    (lambda o: o["spec"]["containers"][0].update(imagee="x"), BadRequest,
     'strict decoding error: unknown field "spec.containers[0].imagee"'),
    (lambda o: o["spec"]["containers"][0].pop("image"), Invalid,
     'Pod "web" is invalid: spec.containers[0].image: Required value'),
    (lambda o: o["spec"].update(restartPolicy="Sometimes"), Invalid,
     'spec.restartPolicy: Unsupported value: "Sometimes"'),
    (lambda o: o["spec"]["containers"][0].update(
        resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}), Invalid,
     "must be less than or equal to cpu limit"),
    (lambda o: o["spec"]["containers"][0].update(resources={"requests": {"cpu": "lots"}}),
     Invalid, "spec.containers[0].resources.requests[cpu]: Invalid value: \"lots\""),
    (lambda o: o.update(apiVersion="v2"), BadRequest,
     'no matches for kind "Pod" in version "v2"'),
])
def test_bad_creates_are_refused_and_store_nothing(registry: Registry, store: Store,
                                                   mutate: Any, error: type, fragment: str):
    obj = pod()
    mutate(obj)
    rv = store.resource_version
    with pytest.raises(error) as err:
        registry.create(obj, namespace="default")
    assert fragment in str(err.value)
    assert store.resource_version == rv and store.count("pods") == 0


def test_invalid_carries_field_causes(registry: Registry):
    obj = pod()
    obj["spec"]["containers"].append({"name": "c"})
    with pytest.raises(Invalid) as err:
        registry.create(obj)
    status = err.value.to_status()
    assert status["code"] == 422 and status["reason"] == "Invalid"
    fields = {c["field"]: c["reason"] for c in status["details"]["causes"]}
    assert fields["spec.containers[1].name"] == "FieldValueDuplicate"
    assert fields["spec.containers[1].image"] == "FieldValueRequired"


def test_field_validation_ignore_and_warn(registry: Registry):
    obj = pod("ignored")
    obj["spec"]["bogus"] = 1
    assert "bogus" not in registry.create(obj, field_validation="Ignore")["spec"]
    obj["metadata"]["name"] = "warned"
    warnings: list[str] = []
    assert "bogus" not in registry.create(obj, field_validation="Warn",
                                          warnings=warnings)["spec"]
    assert warnings == ['unknown field "spec.bogus"']
    with pytest.raises(BadRequest, match="fieldValidation"):
        registry.create(pod("x"), field_validation="Loose")


def test_create_in_missing_namespace_is_not_found(registry: Registry):
    with pytest.raises(NotFound, match='namespaces "nowhere" not found'):
        registry.create(pod(), namespace="nowhere")


def test_dry_run_create_checks_everything_and_writes_nothing(registry: Registry, store: Store):
    rv = store.resource_version
    result = registry.create(pod(), dry_run=True)
    assert result["spec"]["restartPolicy"] == "Always"
    assert store.resource_version == rv
    registry.create(pod())
    with pytest.raises(AlreadyExists):
        registry.create(pod(), dry_run=True)


@pytest.mark.parametrize("manifest", sorted(MANIFESTS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_manifest_is_accepted(registry: Registry, manifest: Path):
    for item in load_paths([manifest]):
        obj = registry.create(item.obj)
        assert obj["metadata"]["uid"]


# ------------------------------------------------------------------------ update


def test_update_keeps_server_fields_and_bumps_generation_on_spec_change(registry: Registry):
    created = registry.create(deployment())
    change = copy.deepcopy(created)
    del change["metadata"]["uid"]
    change["metadata"]["creationTimestamp"] = "1999-01-01T00:00:00Z"
    change["metadata"]["labels"] = {"team": "a"}
    labelled = registry.update(change)
    assert labelled["metadata"]["generation"] == 1  # metadata change: same generation
    assert labelled["metadata"]["uid"] == created["metadata"]["uid"]
    assert labelled["metadata"]["creationTimestamp"] == created["metadata"]["creationTimestamp"]
    labelled["spec"]["replicas"] = 3
    scaled = registry.update(labelled)
    assert scaled["metadata"]["generation"] == 2


def test_main_resource_update_cannot_change_status(registry: Registry):
    created = registry.create(pod())
    created["status"] = {"phase": "Running"}
    created["metadata"]["labels"] = {"a": "b"}
    updated = registry.update(created)
    assert updated["status"]["phase"] == "Pending"
    assert updated["metadata"]["labels"] == {"a": "b"}


def test_status_update_changes_only_status(registry: Registry):
    created = registry.create(pod())
    created["status"] = {"phase": "Running", "podIP": "10.88.0.2"}
    created["metadata"]["labels"] = {"ignored": "yes"}
    created["spec"]["activeDeadlineSeconds"] = 5
    updated = registry.update(created, subresource="status")
    assert updated["status"] == {"phase": "Running", "podIP": "10.88.0.2"}
    assert "labels" not in updated["metadata"]
    assert "activeDeadlineSeconds" not in updated["spec"]
    assert updated["metadata"]["generation"] == 1


def test_status_write_of_the_shared_spec_stores_what_a_copy_does(registry: Registry):
    # An in-process writer (a kubelet) sends back the store's shared spec: that
    # spec is not decoded again, and the result is what an equal copy gives.
    registry.create(pod("a", nodeName="n1"))
    registry.create(pod("b", nodeName="n1"))
    shared = registry.get("pods", "default", "a", shared=True)
    before = copy.deepcopy(shared)
    status = {"phase": "Running", "podIP": "10.88.0.2"}
    by_shared = registry.update({**shared, "status": status}, subresource="status")
    assert shared == before  # the shared copy is read, never changed
    copied = copy.deepcopy(registry.get("pods", "default", "b"))
    by_copy = registry.update({**copied, "status": status}, subresource="status")
    for got in (by_shared, by_copy):
        got["metadata"].pop("resourceVersion")
        got["metadata"].pop("uid")
        got["metadata"]["name"] = "x"
    assert by_shared == by_copy
    assert by_shared["status"] == status and by_shared["spec"] == before["spec"]


@pytest.mark.parametrize("spec_change, error", [
    ({"bogus": 1}, 'unknown field "spec.bogus"'),
    ({"enableServiceLinks": 1}, "spec.enableServiceLinks"),
])
def test_status_write_still_decodes_a_spec_that_is_not_the_stored_one(
        registry: Registry, spec_change: dict[str, Any], error: str):
    # Kubernetes decodes the whole body of a status write: a malformed spec is
    # refused even though the stored spec is kept. (1 == True in Python: only
    # the stored version's own spec object is taken as already decoded.)
    registry.create(pod("a"))  # enableServiceLinks: true, defaulted
    shared = registry.get("pods", "default", "a", shared=True)
    body = {**shared, "spec": {**shared["spec"], **spec_change},
            "status": {"phase": "Running"}}
    with pytest.raises(BadRequest, match=error):
        registry.update(body, subresource="status")
    assert registry.get("pods", "default", "a")["status"]["phase"] == "Pending"


def test_status_write_makes_the_status_quantities_canonical(registry: Registry):
    node = registry.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    node["status"] = {"capacity": {"cpu": "4000m", "memory": "1024Mi"}}
    updated = registry.update(node, subresource="status")
    assert updated["status"]["capacity"] == {"cpu": "4", "memory": "1Gi"}
    assert updated["status"]["allocatable"] == {"cpu": "4", "memory": "1Gi"}


def test_stale_update_is_conflict_and_unconditional_update_wins(registry: Registry):
    created = registry.create(pod())
    first = copy.deepcopy(created)
    first["metadata"]["labels"] = {"v": "1"}
    registry.update(first)
    stale = copy.deepcopy(created)
    stale["metadata"]["labels"] = {"v": "2"}
    with pytest.raises(Conflict):
        registry.update(stale)
    del stale["metadata"]["resourceVersion"]
    assert registry.update(stale)["metadata"]["labels"] == {"v": "2"}


@pytest.mark.parametrize("mutate, fragment", [
    (lambda o: o["spec"].update(restartPolicy="Never"),
     "spec: Forbidden: pod updates may not change fields other than"),
    (lambda o: o["metadata"].update(uid="other"), "metadata.uid: Invalid value"),
])
def test_forbidden_pod_updates(registry: Registry, mutate: Any, fragment: str):
    created = registry.create(pod())
    mutate(created)
    with pytest.raises(Invalid) as err:
        registry.update(created)
    assert fragment in str(err.value)


def test_pod_image_may_change(registry: Registry):
    created = registry.create(pod())
    created["spec"]["containers"][0]["image"] = "busybox:1.37"
    assert registry.update(created)["spec"]["containers"][0]["image"] == "busybox:1.37"


def test_deployment_selector_is_immutable(registry: Registry):
    created = registry.create(deployment())
    created["spec"]["selector"] = {"matchLabels": {"app": "web", "v": "2"}}
    created["spec"]["template"]["metadata"]["labels"]["v"] = "2"
    with pytest.raises(Invalid, match="field is immutable"):
        registry.update(created)


def test_update_missing_is_not_found(registry: Registry):
    with pytest.raises(NotFound):
        registry.update(pod("ghost"))


def test_unknown_subresource_is_not_found(registry: Registry):
    created = registry.create(pod())
    with pytest.raises(NotFound):
        registry.update(created, subresource="bogus")


# ------------------------------------------------------------------------ delete


def _bind(registry: Registry, name: str, node: str = "n1") -> None:
    # A direct store write stands in for the scheduler's binding here.
    obj = registry.store.get("pods", "default", name)
    obj["spec"]["nodeName"] = node
    registry.store.update("pods", obj)


@pytest.mark.parametrize("bound, phase, requested, expect_finished, expect_grace", [
    (False, "Pending", None, True, None),      # never scheduled: nothing to stop
    (True, "Running", None, False, 30),        # the pod's terminationGracePeriodSeconds
    (True, "Running", 5, False, 5),            # the request's grace period
    (True, "Running", 0, True, None),          # --grace-period=0 --force
    (True, "Succeeded", None, True, None),     # finished: nothing to stop
])
def test_pod_deletion_grace(registry: Registry, bound: bool, phase: str,
                            requested: int | None, expect_finished: bool,
                            expect_grace: int | None):
    registry.create(pod())
    if bound:
        _bind(registry, "web")
    obj = registry.store.get("pods", "default", "web")
    obj["status"]["phase"] = phase
    registry.store.update("pods", obj)
    result = registry.delete("pods", "default", "web", grace_period_seconds=requested)
    assert result.finished is expect_finished
    if expect_grace is not None:
        assert result.object["metadata"]["deletionGracePeriodSeconds"] == expect_grace


def test_deleting_an_empty_namespace_removes_it(registry: Registry):
    registry.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tmp"}})
    assert registry.delete("namespaces", None, "tmp").finished


def test_namespace_with_content_terminates_and_refuses_new_content(registry: Registry):
    registry.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    registry.create(pod(), namespace="team")
    result = registry.delete("namespaces", None, "team")
    assert not result.finished
    ns = registry.get("namespaces", None, "team")
    assert ns["status"]["phase"] == "Terminating" and ns["metadata"]["deletionTimestamp"]
    with pytest.raises(Forbidden, match="because it is being terminated"):
        registry.create(pod("late"), namespace="team")
    # Deleting again changes nothing (the namespace controller finishes the job).
    assert not registry.delete("namespaces", None, "team").finished


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_system_namespaces_cannot_be_deleted(registry: Registry, name: str):
    with pytest.raises(Forbidden, match="may not be deleted"):
        registry.delete("namespaces", None, name)


def test_dry_run_delete_keeps_the_object(registry: Registry):
    registry.create(pod())
    assert registry.delete("pods", "default", "web", dry_run=True).finished
    assert registry.get("pods", "default", "web")


def test_system_namespaces_are_created_once(registry: Registry, store: Store):
    assert sorted(o["metadata"]["name"] for o in store.list("namespaces").items) == sorted(
        SYSTEM_NAMESPACES)
    assert registry.ensure_system_namespaces() == []


def test_stale_version_is_conflict_before_validation(registry: Registry):
    created = registry.create(pod())
    registry.bind("default", "web", "node-1")  # the stored spec moves on
    created["metadata"]["labels"] = {"late": "edit"}
    # Against the new state this edit would also be an invalid pod update (it drops
    # spec.nodeName); the stale resourceVersion must be reported first, as 409.
    with pytest.raises(Conflict):
        registry.update(created)


def test_a_bind_returns_the_bound_pod_as_the_store_shares_it(registry: Registry, store: Store):
    registry.create(pod())
    rehearsed = registry.bind("default", "web", "node-1", dry_run=True)
    assert rehearsed["spec"]["nodeName"] == "node-1"
    assert "nodeName" not in store.get("pods", "default", "web")["spec"]  # nothing stored
    bound = registry.bind("default", "web", "node-1")
    # No copy of its own (its callers answer with a Status): the one every cache reads.
    assert bound is store.get_shared("pods", "default", "web")
    assert bound["spec"]["nodeName"] == "node-1"
    assert [c["type"] for c in bound["status"]["conditions"]
            if c["status"] == "True"] == ["PodScheduled"]
    assert store.verify_shared() == ()
