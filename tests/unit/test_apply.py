"""Server-side apply and managedFields.

Expectations follow Kubernetes' documented and implemented behaviour
("Server-Side Apply" in the Kubernetes docs; sigs.k8s.io/structured-merge-diff
and k8s.io/apimachinery/pkg/util/managedfields): the fieldsV1 encoding, the
conflict message of handlers' NewConflictError, ownership moves on Update and
on force, removal of fields a manager stops applying, shared ownership, the
before-first-apply manager, kubectl's last-applied upgrade path and the cap of
ten Update entries.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from minikube_py.api import errors
from minikube_py.api.apply import apply_patch, record_update

T0, T1, T2, T3 = (f"2024-05-01T10:0{i}:00Z" for i in range(4))


def y(text: str) -> Any:
    return yaml.safe_load(text)


DEPLOY = y("""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: {app: web}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        ports:
        - containerPort: 80
""")

DEPLOY_FIELDS = y("""
f:metadata:
  f:labels:
    f:app: {}
f:spec:
  f:replicas: {}
  f:selector: {}
  f:template:
    f:metadata:
      f:labels:
        f:app: {}
    f:spec:
      f:containers:
        k:{"name":"web"}:
          .: {}
          f:image: {}
          f:name: {}
          f:ports:
            k:{"containerPort":80,"protocol":"TCP"}:
              .: {}
              f:containerPort: {}
""")


def apply(live: Any, config: Any, manager: str = "kubectl", *, force: bool = False,
          now: str = T1, kind: str = "Deployment") -> dict[str, Any]:
    return apply_patch(live, config, kind=kind, manager=manager, force=force, now=now)


def managed(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """managedFields by manager name (operation suffixed when not Apply)."""
    out = {}
    for entry in obj["metadata"].get("managedFields", []):
        name = entry["manager"] + ("" if entry["operation"] == "Apply" else "/update")
        out[name] = entry
    return out


def without_managed(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"].pop("managedFields", None)
    return out


def edit(obj: dict[str, Any], manager: str, now: str, change: Any) -> dict[str, Any]:
    """A non-apply write (PUT / patch) by ``manager`` that runs ``change``."""
    new = copy.deepcopy(obj)
    change(new)
    return record_update(obj, new, kind="Deployment", manager=manager, now=now)


# =================================================================== create


def test_create_records_an_apply_entry_in_kubernetes_encoding() -> None:
    obj = apply(None, DEPLOY)
    assert without_managed(obj) == DEPLOY
    assert obj["metadata"]["managedFields"] == [{
        "manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1", "time": T1,
        "fieldsType": "FieldsV1", "fieldsV1": DEPLOY_FIELDS,
    }]


def test_sets_and_atomic_values_encoding() -> None:
    pod = y("""
apiVersion: v1
kind: Pod
metadata:
  name: p
  finalizers: [example.com/a]
spec:
  nodeSelector: {disk: ssd}
  tolerations: [{key: k, operator: Exists}]
  containers:
  - name: c
    image: i
    args: [a, b]
    resources: {}
""")
    fields = apply(None, pod, "m", kind="Pod")["metadata"]["managedFields"][0]["fieldsV1"]
    assert fields == y("""
f:metadata:
  f:finalizers:
    v:"example.com/a": {}
f:spec:
  f:containers:
    k:{"name":"c"}:
      .: {}
      f:args: {}
      f:image: {}
      f:name: {}
      f:resources: {}
  f:nodeSelector: {}
  f:tolerations: {}
""")


def test_structs_marked_atomic_upstream_are_owned_whole() -> None:
    # OwnerReference and ConfigMapKeySelector carry +structType=atomic in
    # types.go (read from the generated schema): their fields are not listed
    # one by one, as a real cluster's managedFields show for a ReplicaSet's
    # pods. Container (granular) is, as the test above shows; a list without
    # a list type is atomic.
    pod = y("""
apiVersion: v1
kind: Pod
metadata:
  name: p
  ownerReferences: [{apiVersion: v1, kind: X, name: o, uid: u1}]
spec:
  containers:
  - name: c
    image: i
    env: [{name: E, valueFrom: {configMapKeyRef: {name: cm, key: k}}}]
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: a}}
        topologyKey: kubernetes.io/hostname
""")
    fields = apply(None, pod, "m", kind="Pod")["metadata"]["managedFields"][0]["fieldsV1"]
    assert fields["f:metadata"]["f:ownerReferences"] == {'k:{"uid":"u1"}': {}}
    env = fields["f:spec"]["f:containers"]['k:{"name":"c"}']["f:env"]['k:{"name":"E"}']
    assert env["f:valueFrom"] == {"f:configMapKeyRef": {}}
    assert fields["f:spec"]["f:affinity"]["f:podAffinity"][
        "f:requiredDuringSchedulingIgnoredDuringExecution"] == {}


def test_status_in_an_apply_configuration_is_ignored() -> None:
    config = {**DEPLOY, "status": {"replicas": 7}}
    obj = apply(None, config)
    assert "status" not in obj
    assert "f:status" not in obj["metadata"]["managedFields"][0]["fieldsV1"]


# ================================================================== updates


def test_reapply_removes_fields_the_manager_stopped_applying() -> None:
    live = apply(None, DEPLOY, now=T1)
    config = copy.deepcopy(DEPLOY)
    del config["metadata"]["labels"]
    del config["spec"]["template"]["spec"]["containers"][0]["ports"]
    obj = apply(live, config, now=T2)
    assert "labels" not in obj["metadata"]
    assert obj["spec"]["template"]["spec"]["containers"] == [{"name": "web", "image": "nginx"}]
    entry = managed(obj)["kubectl"]
    assert entry["time"] == T2
    assert "f:metadata" not in entry["fieldsV1"]


def test_reapplying_the_same_configuration_changes_nothing() -> None:
    live = apply(None, DEPLOY, now=T1)
    assert apply(live, DEPLOY, now=T2) == live


def test_field_shared_with_another_applier_survives_when_one_omits_it() -> None:
    live = apply(None, DEPLOY, "a", now=T1)
    other = {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": "web", "labels": {"app": "web"}}}
    live = apply(live, other, "b", now=T2)  # same value: shared ownership, no conflict
    config = copy.deepcopy(DEPLOY)
    del config["metadata"]["labels"]
    obj = apply(live, config, "a", now=T3)
    assert obj["metadata"]["labels"] == {"app": "web"}
    assert managed(obj)["b"]["fieldsV1"] == {"f:metadata": {"f:labels": {"f:app": {}}}}
    assert "f:metadata" not in managed(obj)["a"]["fieldsV1"]


def test_list_items_merge_by_key_with_other_managers_items() -> None:
    live = apply(None, DEPLOY, "a", now=T1)
    sidecar = y("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - {name: sidecar, image: busybox}
""")
    obj = apply(live, sidecar, "b", now=T2)
    assert [c["name"] for c in obj["spec"]["template"]["spec"]["containers"]] == [
        "web", "sidecar"]
    again = apply(obj, DEPLOY, "a", now=T3)
    assert [c["name"] for c in again["spec"]["template"]["spec"]["containers"]] == [
        "web", "sidecar"]


# ================================================================ conflicts


def test_update_takes_ownership_and_apply_then_conflicts() -> None:
    live = apply(None, DEPLOY, now=T1)
    scaled = edit(live, "kubectl-client-side-apply", T2,
                  lambda o: o["spec"].__setitem__("replicas", 5))
    entries = managed(scaled)
    assert entries["kubectl-client-side-apply/update"] == {
        "manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1",
        "time": T2, "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}
    assert "f:replicas" not in entries["kubectl"]["fieldsV1"]["f:spec"]
    with pytest.raises(errors.Conflict) as exc:
        apply(scaled, DEPLOY, "other", now=T3)
    assert exc.value.code == 409
    assert exc.value.message == ('Apply failed with 1 conflict: conflict with '
                                 '"kubectl-client-side-apply" using apps/v1: .spec.replicas')
    assert exc.value.to_status()["details"] == {"causes": [{
        "reason": "FieldManagerConflict",
        "message": 'conflict with "kubectl-client-side-apply" using apps/v1',
        "field": ".spec.replicas"}]}


def test_conflict_with_an_applier_and_several_conflicts() -> None:
    live = apply(None, DEPLOY, "a", now=T1)
    config = copy.deepcopy(DEPLOY)
    config["spec"]["replicas"] = 4
    config["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    with pytest.raises(errors.Conflict) as exc:
        apply(live, config, "b", now=T2)
    assert exc.value.message == (
        'Apply failed with 2 conflicts: conflicts with "a":\n'
        "- .spec.replicas\n"
        '- .spec.template.spec.containers[name="web"].image')


def test_force_takes_ownership() -> None:
    live = apply(None, DEPLOY, "a", now=T1)
    config = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"replicas": 9}}
    obj = apply(live, config, "b", force=True, now=T2)
    assert obj["spec"]["replicas"] == 9
    assert managed(obj)["b"]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in managed(obj)["a"]["fieldsV1"]["f:spec"]
    # "a" no longer owns replicas: applying without force now conflicts with "b".
    with pytest.raises(errors.Conflict) as exc:
        apply(obj, DEPLOY, "a", now=T3)
    assert exc.value.message == ('Apply failed with 1 conflict: conflict with "b": '
                                 ".spec.replicas")


def test_removed_field_owned_by_an_updater_is_kept() -> None:
    live = apply(None, DEPLOY, "a", now=T1)
    live = edit(live, "editor", T2,
                lambda o: o["metadata"]["labels"].__setitem__("tier", "web"))
    config = copy.deepcopy(DEPLOY)
    config["metadata"]["labels"]["tier"] = "web"
    live = apply(live, config, "a", now=T2)  # same value: shared with the updater
    del config["metadata"]["labels"]["tier"]
    obj = apply(live, config, "a", now=T3)
    assert obj["metadata"]["labels"] == {"app": "web", "tier": "web"}


# ========================================================= untracked objects


def test_first_apply_to_an_untracked_object_uses_before_first_apply() -> None:
    live = copy.deepcopy(DEPLOY)
    live["metadata"]["uid"] = "u-1"
    config = copy.deepcopy(DEPLOY)
    config["spec"]["replicas"] = 5
    with pytest.raises(errors.Conflict) as exc:
        apply(live, config, "ci", now=T1)
    assert exc.value.message == ('Apply failed with 1 conflict: conflict with '
                                 '"before-first-apply" using apps/v1: .spec.replicas')
    obj = apply(live, DEPLOY, "ci", now=T1)
    entries = managed(obj)
    assert set(entries) == {"ci", "before-first-apply/update"}
    assert entries["before-first-apply/update"]["time"] == T1
    assert "f:uid" not in entries["before-first-apply/update"]["fieldsV1"].get("f:metadata", {})


def test_kubectl_upgrades_from_client_side_apply() -> None:
    """kubectl --server-side may take fields recorded in last-applied whose
    live value is unchanged, and keeps the annotation in sync."""
    annotation = "kubectl.kubernetes.io/last-applied-configuration"
    live = copy.deepcopy(DEPLOY)
    live["metadata"]["annotations"] = {annotation: json.dumps(DEPLOY)}
    config = copy.deepcopy(DEPLOY)
    config["spec"]["replicas"] = 5
    obj = apply(live, config, "kubectl", now=T1)
    assert obj["spec"]["replicas"] == 5
    assert obj["metadata"]["annotations"][annotation] == json.dumps(
        config, sort_keys=True, separators=(",", ":")) + "\n"
    # Another manager gets no such allowance.
    with pytest.raises(errors.Conflict):
        apply(live, config, "someone", now=T1)
    # Nor does kubectl when the live value drifted from last-applied.
    drifted = copy.deepcopy(live)
    drifted["spec"]["replicas"] = 4
    with pytest.raises(errors.Conflict):
        apply(drifted, config, "kubectl", now=T1)


# =================================================================== errors


@pytest.mark.parametrize(("config", "message"), [
    ({**DEPLOY, "kind": "Pod"}, "invalid object type: apps/v1, Kind=Pod"),
    ({**DEPLOY, "apiVersion": "v1"}, "invalid object type: /v1, Kind=Deployment"),
    ({"kind": "Deployment"}, "invalid object type: /, Kind=Deployment"),
    ({**DEPLOY, "metadata": {"name": "web", "managedFields": []}},
     "metadata.managedFields must be nil"),
])
def test_bad_apply_configurations(config: dict[str, Any], message: str) -> None:
    with pytest.raises(errors.BadRequest) as exc:
        apply(None, config)
    assert exc.value.message == message


def test_apply_configuration_that_does_not_type_check() -> None:
    config = copy.deepcopy(DEPLOY)
    containers = config["spec"]["template"]["spec"]["containers"]
    containers.append(dict(containers[0]))
    with pytest.raises(errors.BadRequest) as exc:
        apply(None, config)
    assert exc.value.message == (
        "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): "
        '.spec.template.spec.containers: duplicate entries for key [name="web"]')
    config = copy.deepcopy(DEPLOY)
    config["spec"]["resources"] = {}
    with pytest.raises(errors.BadRequest) as exc:
        apply(None, config)
    assert exc.value.message.endswith(": .spec.resources: field not declared in schema")


def test_apply_never_mutates_its_inputs() -> None:
    live = apply(None, DEPLOY, now=T1)
    frozen_live, frozen_config = copy.deepcopy(live), copy.deepcopy(DEPLOY)
    config = copy.deepcopy(DEPLOY)
    config["spec"]["replicas"] = 1
    apply(live, config, now=T2)
    assert live == frozen_live and frozen_config == DEPLOY


# ============================================================ record_update


def test_record_update_leaves_untracked_objects_alone() -> None:
    old = copy.deepcopy(DEPLOY)
    new = copy.deepcopy(DEPLOY)
    new["spec"]["replicas"] = 2
    assert record_update(old, new, kind="Deployment", manager="m", now=T1) == new
    assert record_update(None, new, kind="Deployment", manager="m", now=T1) == new


def test_record_update_without_changes_adds_nothing() -> None:
    live = apply(None, DEPLOY, now=T1)
    assert record_update(live, copy.deepcopy(live), kind="Deployment", manager="m",
                         now=T2) == live


def test_record_update_merges_into_the_writers_previous_entry() -> None:
    live = apply(None, DEPLOY, now=T1)
    one = edit(live, "editor", T2, lambda o: o["spec"].__setitem__("replicas", 5))
    two = edit(one, "editor", T3, lambda o: o["metadata"]["labels"].__setitem__("x", "y"))
    assert managed(two)["editor/update"]["fieldsV1"] == {
        "f:metadata": {"f:labels": {"f:x": {}}}, "f:spec": {"f:replicas": {}}}
    assert managed(two)["editor/update"]["time"] == T3


def test_record_update_with_reset_managed_fields_clears_them() -> None:
    live = apply(None, DEPLOY, now=T1)
    new = copy.deepcopy(live)
    new["metadata"]["managedFields"] = [{}]
    out = record_update(live, new, kind="Deployment", manager="m", now=T2)
    assert "managedFields" not in out["metadata"]


def test_record_update_keeps_live_managed_fields_when_the_writer_omits_them() -> None:
    live = apply(None, DEPLOY, now=T1)
    new = without_managed(live)
    new["spec"]["replicas"] = 6
    out = record_update(live, new, kind="Deployment", manager="m", now=T2)
    assert set(managed(out)) == {"kubectl", "m/update"}


def test_record_update_removed_fields_leave_every_owner() -> None:
    live = apply(None, DEPLOY, now=T1)
    out = edit(live, "m", T2, lambda o: o["metadata"].pop("labels"))
    assert "f:metadata" not in managed(out)["kubectl"]["fieldsV1"]
    assert "m/update" not in managed(out)  # removing a field owns nothing


def test_update_managers_are_capped_at_ten() -> None:
    obj = apply(None, DEPLOY, now=T0)
    for i in range(11):
        obj = edit(obj, f"writer-{i:02d}", f"2024-05-01T11:{i:02d}:00Z",
                   lambda o, i=i: o["metadata"]["labels"].__setitem__(f"k{i}", "v"))
    entries = managed(obj)
    updaters = [name for name in entries if name.endswith("/update")]
    assert len(updaters) == 10
    assert "ancient-changes/update" in entries
    assert "writer-00/update" not in entries and "writer-01/update" not in entries
    assert entries["ancient-changes/update"]["fieldsV1"] == {
        "f:metadata": {"f:labels": {"f:k0": {}, "f:k1": {}}}}
    assert entries["ancient-changes/update"]["time"] == "2024-05-01T11:01:00Z"
