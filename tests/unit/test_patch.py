"""PATCH: strategic merge patch, JSON merge patch, JSON patch and body parsing.

Expectations come from Kubernetes and the RFCs, not from running our code:

* strategic merge patch: the cases of k8s.io/apimachinery's
  ``strategicpatch/patch_test.go`` (v0.36), translated from its test type
  ``mergeItem`` to Pod fields with the same patch tags: ``mergingList`` (merge by
  ``name``) -> ``spec.containers`` with ``value`` -> ``image`` and ``other`` ->
  ``workingDir``; ``mergingIntList`` (merge, primitives) -> ``metadata.finalizers``;
  ``nonMergingIntList`` -> ``spec.dnsConfig.nameservers``; ``simpleMap`` ->
  ``metadata.labels``; the scalars ``name``/``value``/``other`` ->
  ``spec.hostname``/``spec.subdomain``/``spec.nodeName``. Each case keeps its
  upstream description. Patches are the upstream "threeWay" patch applied to
  "current" (expecting "result") or "twoWay" applied to "original".
* JSON merge patch: RFC 7386 appendix A.
* JSON patch: RFC 6902 appendix A, with failures reported as the API server
  reports them (handlers/patch.go + evanphx/json-patch v4).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from minikube_py.api import errors
from minikube_py.api.patch import (
    PATCH_TYPES,
    json_merge_patch,
    json_patch,
    parse_patch_body,
    strategic_merge_patch,
)

UNPROCESSABLE = "the server rejected our request due to an error in our request"


def y(text: str) -> Any:
    return yaml.safe_load(text)


# =========================================================== strategic merge patch

# (upstream description, current, patch, expected result)
SMP_CASES: list[tuple[str, str, str, str]] = [
    ("add field to map",
     "spec: {hostname: '1', nodeName: a}",
     "spec: {subdomain: '1'}",
     "spec: {hostname: '1', subdomain: '1', nodeName: a}"),
    ("add field and delete field from map",
     "spec: {hostname: '1', nodeName: a}",
     "spec: {hostname: null, subdomain: '1'}",
     "spec: {subdomain: '1', nodeName: a}"),
    ("delete field from nested map",
     "metadata: {labels: {key1: '1', key2: '1', other: a}}",
     "metadata: {labels: {key2: null}}",
     "metadata: {labels: {key1: '1', other: a}}"),
    ("delete all fields from map",
     "spec: {hostname: '1', subdomain: '1', nodeName: a}",
     "spec: {hostname: null, subdomain: null}",
     "spec: {nodeName: a}"),
    ("add field and delete all fields from map with conflict",
     "spec: {hostname: '1', subdomain: '1', nodeName: b}",
     "spec: {hostname: null, subdomain: null, nodeName: a}",
     "spec: {nodeName: a}"),
    ("replace list of scalars with conflict",
     "spec: {dnsConfig: {nameservers: ['1', '4']}}",
     "spec: {dnsConfig: {nameservers: ['2', '3']}}",
     "spec: {dnsConfig: {nameservers: ['2', '3']}}"),
    ("delete all maps from merging list with conflict",
     "spec: {containers: [{name: '1', workingDir: a}, {name: '2', workingDir: b}]}",
     "spec: {containers: [{name: '1', $patch: delete}, {name: '2', $patch: delete}]}",
     "spec: {containers: []}"),
    ("delete all maps from empty merging list",
     "spec: {containers: []}",
     "spec: {containers: [{name: '1', $patch: delete}, {name: '2', $patch: delete}]}",
     "spec: {containers: []}"),
    ("merge empty merging lists",
     "spec: {containers: []}",
     "{}",
     "spec: {containers: []}"),
    ("defined null values should propagate overwrite current fields (with conflict)",
     "spec: {hostname: a, nodeName: a}",
     "spec: {hostname: '1', subdomain: '1', nodeName: null}",
     "spec: {hostname: '1', subdomain: '1'}"),
    ("delete items in lists of scalars",
     "metadata: {finalizers: ['1', '2', '3', '4']}",
     """metadata:
          $setElementOrder/finalizers: ['1', '2']
          $deleteFromPrimitiveList/finalizers: ['3']""",
     "metadata: {finalizers: ['1', '2', '4']}"),
    ("delete all duplicate items in lists of scalars",
     "metadata: {finalizers: ['1', '2', '3', '3', '4']}",
     """metadata:
          $setElementOrder/finalizers: ['1', '2']
          $deleteFromPrimitiveList/finalizers: ['3']""",
     "metadata: {finalizers: ['1', '2', '4']}"),
    ("add and delete items in lists of scalars",
     "metadata: {finalizers: ['1', '2', '3']}",
     """metadata:
          $setElementOrder/finalizers: ['1', '2', '4']
          $deleteFromPrimitiveList/finalizers: ['3']
          finalizers: ['4']""",
     "metadata: {finalizers: ['1', '2', '4']}"),
    ("merge lists of maps",
     "spec: {containers: [{name: '1', workingDir: a}, {name: '2', image: '2', workingDir: b}]}",
     """spec:
          $setElementOrder/containers: [{name: '4'}, {name: '1'}, {name: '2'}, {name: '3'}]
          containers: [{name: '4', image: '4'}, {name: '3', image: '3'}]""",
     """spec:
          containers:
          - {name: '4', image: '4'}
          - {name: '1', workingDir: a}
          - {name: '2', image: '2', workingDir: b}
          - {name: '3', image: '3'}"""),
    ("merge lists of maps with conflict",
     "spec: {containers: [{name: '1', workingDir: a}, {name: '2', image: '3', workingDir: b}]}",
     """spec:
          $setElementOrder/containers: [{name: '1'}, {name: '2'}, {name: '3'}]
          containers: [{name: '2', image: '2'}, {name: '3', image: '3'}]""",
     """spec:
          containers:
          - {name: '1', workingDir: a}
          - {name: '2', image: '2', workingDir: b}
          - {name: '3', image: '3'}"""),
    ("add field to map in merging list with conflict",
     "spec: {containers: [{name: '1', workingDir: a}, {name: '3', image: '2', workingDir: b}]}",
     """spec:
          $setElementOrder/containers: [{name: '1'}, {name: '2'}]
          containers: [{name: '1', image: '1'}, {name: '2', image: '2'}]""",
     """spec:
          containers:
          - {name: '1', image: '1', workingDir: a}
          - {name: '2', image: '2'}
          - {name: '3', image: '2', workingDir: b}"""),
    ("replace map field value in merging list with conflict",
     "spec: {containers: [{name: '1', image: '3', workingDir: a}, "
     "{name: '2', image: '2', workingDir: b}]}",
     """spec:
          $setElementOrder/containers: [{name: '1'}, {name: '2'}]
          containers: [{name: '1', image: a}]""",
     """spec:
          containers:
          - {name: '1', image: a, workingDir: a}
          - {name: '2', image: '2', workingDir: b}"""),
    ("delete map from merging list",
     "spec: {containers: [{name: '1'}, {name: '2', workingDir: b}]}",
     """spec:
          $setElementOrder/containers: [{name: '2'}]
          containers: [{name: '1', $patch: delete}]""",
     "spec: {containers: [{name: '2', workingDir: b}]}"),
    ("delete missing map from merging list with conflict",
     "spec: {containers: [{name: '3', workingDir: a}]}",
     """spec:
          $setElementOrder/containers: [{name: '2'}]
          containers: [{name: '2'}, {name: '1', $patch: delete}]""",
     "spec: {containers: [{name: '2'}, {name: '3', workingDir: a}]}"),
    # The result order depends on Go slices sharing their backing array.
    ("add map and delete map from merging list",
     "spec: {containers: [{name: '1'}, {name: '2', workingDir: b}, {name: '4', workingDir: c}]}",
     """spec:
          $setElementOrder/containers: [{name: '2'}, {name: '3'}]
          containers: [{name: '3'}, {name: '1', $patch: delete}]""",
     """spec:
          containers:
          - {name: '2', workingDir: b}
          - {name: '4', workingDir: c}
          - {name: '3'}"""),
    ("add map and delete map from merging list with conflict",
     "spec: {containers: [{name: '1', workingDir: a}, {name: '4', workingDir: c}]}",
     """spec:
          $setElementOrder/containers: [{name: '2'}, {name: '3'}]
          containers: [{name: '2'}, {name: '3'}, {name: '1', $patch: delete}]""",
     """spec:
          containers:
          - {name: '4', workingDir: c}
          - {name: '2'}
          - {name: '3'}"""),
    ("delete field from map in merging list",
     "spec: {containers: [{name: '1', image: '1', workingDir: a}, "
     "{name: '2', image: '2', workingDir: b}]}",
     """spec:
          $setElementOrder/containers: [{name: '1'}, {name: '2'}]
          containers: [{name: '1', image: null}]""",
     """spec:
          containers:
          - {name: '1', workingDir: a}
          - {name: '2', image: '2', workingDir: b}"""),
    ("nested patch merge with empty list (threeWay)",
     "spec: {hostname: hi, containers: [{name: hello2}]}",
     """spec:
          $setElementOrder/containers: [{name: hello}, {name: doesntexist}]
          containers: [{name: hello}]""",
     "spec: {hostname: hi, containers: [{name: hello}, {name: hello2}]}"),
    ("nested patch merge with empty list (twoWay)",
     "spec: {hostname: hi}",
     "spec: {containers: [{name: hello}, {$patch: delete, name: doesntexist}]}",
     "spec: {hostname: hi, containers: [{name: hello}]}"),
    # customStrategicMergePatchTestCaseData
    ("unique scalars when merging lists",
     "metadata: {finalizers: ['1', '2']}",
     "metadata: {finalizers: ['2', '3']}",
     "metadata: {finalizers: ['1', '2', '3']}"),
    ("delete map from nested map",
     "metadata: {labels: {key1: '1', key2: '1'}}",
     "metadata: {labels: {$patch: delete}}",
     "metadata: {labels: {}}"),
    ("delete all items from merging list",
     "spec: {containers: [{name: '1'}, {name: '2'}]}",
     "spec: {containers: [{$patch: replace}]}",
     "spec: {containers: []}"),
    ("delete all keys from map",
     "spec: {hostname: '1', subdomain: '1'}",
     "spec: {$patch: replace}",
     "spec: {}"),
    ("add key and delete all keys from map",
     "spec: {hostname: '1', subdomain: '1'}",
     "spec: {nodeName: a, $patch: replace}",
     "spec: {nodeName: a}"),
    ("delete all duplicate entries in a merging list",
     "spec: {containers: [{name: '1'}, {name: '1'}, {name: '2', image: a}, "
     "{name: '3'}, {name: '3'}]}",
     "spec: {containers: [{name: '1', $patch: delete}, {name: '3', $patch: delete}]}",
     "spec: {containers: [{name: '2', image: a}]}"),
    ("preserve the order from the patch in a merging list",
     "spec: {containers: [{name: '1'}, {name: '2', image: b}, {name: '3'}]}",
     "spec: {containers: [{name: '3', image: c}, {name: '1', image: a}, "
     "{name: '2', workingDir: x}]}",
     "spec: {containers: [{name: '3', image: c}, {name: '1', image: a}, "
     "{name: '2', image: b, workingDir: x}]}"),
    ("preserve the order from the patch in a merging list 2",
     "spec: {containers: [{name: '1'}, {name: '2', image: b}, {name: '3'}]}",
     "spec: {containers: [{name: '3', image: c}, {name: '1', image: a}]}",
     "spec: {containers: [{name: '2', image: b}, {name: '3', image: c}, "
     "{name: '1', image: a}]}"),
    ("preserve the order from the patch in a merging int list",
     "metadata: {finalizers: ['1', '2', '3']}",
     "metadata: {finalizers: ['3', '1', '2']}",
     "metadata: {finalizers: ['3', '1', '2']}"),
    ("preserve the order from the patch in a merging int list (2)",
     "metadata: {finalizers: ['1', '2', '3']}",
     "metadata: {finalizers: ['3', '1']}",
     "metadata: {finalizers: ['2', '3', '1']}"),
    ("$setElementOrder contains item that is not present in the list to be merged",
     "spec: {containers: [{name: '1'}, {name: '3'}]}",
     """spec:
          $setElementOrder/containers: [{name: '3'}, {name: '2'}, {name: '1'}]
          containers: [{name: '3', image: '3'}, {name: '1', image: '1'}]""",
     "spec: {containers: [{name: '3', image: '3'}, {name: '1', image: '1'}]}"),
    ("$setElementOrder contains item that is not present in the int list to be merged",
     "metadata: {finalizers: ['1', '3']}",
     "metadata: {$setElementOrder/finalizers: ['3', '2', '1']}",
     "metadata: {finalizers: ['3', '1']}"),
    ("$deleteFromPrimitiveList of nonexistent item in primitive list should not add the item",
     "metadata: {finalizers: ['1', '2']}",
     "metadata: {$deleteFromPrimitiveList/finalizers: ['3']}",
     "metadata: {finalizers: ['1', '2']}"),
    ("$deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list",
     "metadata: {name: bar}",
     "metadata: {$deleteFromPrimitiveList/finalizers: ['3']}",
     "metadata: {name: bar}"),
    ("$deleteFromPrimitiveList should delete item from a list with merge patch strategy",
     "metadata: {finalizers: ['1', '2', '3']}",
     "metadata: {$deleteFromPrimitiveList/finalizers: ['2']}",
     "metadata: {finalizers: ['1', '3']}"),
    ("$deleteFromPrimitiveList should delete item from a list without merge patch strategy",
     "spec: {dnsConfig: {nameservers: ['1', '2', '3']}}",
     "spec: {dnsConfig: {$deleteFromPrimitiveList/nameservers: ['2']}}",
     "spec: {dnsConfig: {nameservers: ['1', '3']}}"),
]


@pytest.mark.parametrize(("current", "patch", "expected"),
                         [c[1:] for c in SMP_CASES], ids=[c[0] for c in SMP_CASES])
def test_strategic_merge_patch_upstream_cases(current: str, patch: str, expected: str) -> None:
    assert strategic_merge_patch(y(current), y(patch), "Pod") == y(expected)


@pytest.mark.parametrize(("current", "patch", "message"), [
    # upstream: "should check if order in $setElementOrder and patch list match"
    ("spec: {containers: [{name: '1'}, {name: '3'}, {name: '2'}]}",
     """spec:
          $setElementOrder/containers: [{name: '1'}, {name: '2'}, {name: '3'}]
          containers: [{name: '3', image: '3'}, {name: '1', image: '1'}]""",
     "doesn't match"),
    ("metadata: {finalizers: ['1', '3', '2']}",
     """metadata:
          $setElementOrder/finalizers: ['1', '2', '3']
          finalizers: ['3', '1']""",
     "doesn't match"),
    # upstream: "missing merge key should error out"
    ("spec: {containers: [{name: '1', image: a}]}",
     "spec: {containers: [{image: b}]}",
     "map: map[image:b] does not contain declared merge key: name"),
])
def test_strategic_merge_patch_upstream_errors(current: str, patch: str, message: str) -> None:
    with pytest.raises(errors.BadRequest) as exc:
        strategic_merge_patch(y(current), y(patch), "Pod")
    assert message in exc.value.message


@pytest.mark.parametrize(("patch", "message"), [
    ({"spec": {"$patch": "foo", "hostname": "x"}},
     "unknown patch type: foo in map: map[$patch:foo hostname:x]"),
    ({"spec": {"$patch": "merge"}}, "unknown patch type: merge in map: map[$patch:merge]"),
    ({"spec": {"containers": [{"name": "a", "$patch": "foo"}]}},
     "unknown patch type: foo in map: map[$patch:foo name:a]"),
    ({"spec": {"containers": [{"name": "a", "$patch": "merge"}]}},
     "merging lists cannot yet be specified in the patch"),
    ({"spec": {"containers": [{"$patch": "delete"}]}},
     "map: map[$patch:delete] does not contain declared merge key: name"),
    ({"metadata": {"$deleteFromPrimitiveListX/finalizers": ["a"]}},
     "invalid patch format of primitive list"),
    ({"spec": {"$retainKeys": "hostname", "hostname": "b"}}, "invalid patch format of retainKeys"),
    ({"spec": {"$retainKeys": ["subdomain"], "hostname": "b"}},
     "invalid patch format of retainKeys"),
])
def test_strategic_merge_patch_directive_errors(patch: dict[str, Any], message: str) -> None:
    current = {"metadata": {"finalizers": ["a"]},
               "spec": {"hostname": "a", "containers": [{"name": "a"}]}}
    with pytest.raises(errors.BadRequest) as exc:
        strategic_merge_patch(current, patch, "Pod")
    assert exc.value.message == message
    assert exc.value.code == 400


def test_strategic_merge_patch_list_of_lists_is_unprocessable() -> None:
    with pytest.raises(errors.Invalid) as exc:
        strategic_merge_patch({"metadata": {"finalizers": [["a"]]}},
                              {"metadata": {"finalizers": [["b"]]}}, "Pod")
    assert exc.value.code == 422
    assert exc.value.message == UNPROCESSABLE


POD = y("""
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
  finalizers: [a]
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u1}
spec:
  containers:
  - name: web
    image: nginx:1.0
    ports:
    - {containerPort: 80, name: http}
    env:
    - {name: A, value: '1'}
    - {name: B, value: '2'}
    volumeMounts:
    - {name: data, mountPath: /data}
  - name: sidecar
    image: busybox
  tolerations:
  - {key: k1, operator: Exists}
  - {key: k2, operator: Exists}
  volumes:
  - name: data
    emptyDir: {}
status:
  conditions:
  - {type: Ready, status: 'False'}
  - {type: PodScheduled, status: 'True'}
""")


def test_kubernetes_patch_tags_drive_list_merging() -> None:
    """containers by name, ports by containerPort, env by name, volumeMounts by
    mountPath, ownerReferences by uid, conditions by type; tolerations replace."""
    patch = y("""
metadata:
  ownerReferences: [{apiVersion: v1, kind: X, name: x, uid: u2}]
spec:
  containers:
  - name: web
    image: nginx:2.0
    ports: [{containerPort: 80, protocol: TCP}, {containerPort: 443}]
    env: [{name: B, value: '3'}, {name: C, value: '4'}]
    volumeMounts: [{mountPath: /data, readOnly: true}]
  tolerations: [{key: k3, operator: Exists}]
status:
  conditions: [{type: Ready, status: 'True'}]
""")
    out = strategic_merge_patch(POD, patch, "Pod")
    web, sidecar = out["spec"]["containers"]
    assert web["image"] == "nginx:2.0"
    assert sidecar == {"name": "sidecar", "image": "busybox"}
    assert web["ports"] == [{"containerPort": 80, "name": "http", "protocol": "TCP"},
                            {"containerPort": 443}]
    assert web["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"},
                          {"name": "C", "value": "4"}]
    assert web["volumeMounts"] == [{"name": "data", "mountPath": "/data", "readOnly": True}]
    assert out["spec"]["tolerations"] == [{"key": "k3", "operator": "Exists"}]
    # Items new to the list come before server-only ones (mergeSortedSlice), as in
    # upstream's "nested patch merge with empty list".
    assert [r["uid"] for r in out["metadata"]["ownerReferences"]] == ["u2", "u1"]
    assert out["status"]["conditions"] == [{"type": "Ready", "status": "True"},
                                           {"type": "PodScheduled", "status": "True"}]


def test_delete_and_replace_list_items_and_maps() -> None:
    patch = y("""
metadata:
  labels: {$patch: replace, tier: db}
spec:
  containers:
  - {name: sidecar, $patch: delete}
  - name: web
    env: [{$patch: replace}, {name: Z, value: '9'}]
""")
    out = strategic_merge_patch(POD, patch, "Pod")
    assert out["metadata"]["labels"] == {"tier": "db"}
    assert [c["name"] for c in out["spec"]["containers"]] == ["web"]
    assert out["spec"]["containers"][0]["env"] == [{"name": "Z", "value": "9"}]


def test_finalizers_merge_as_a_set_and_delete_from_primitive_list() -> None:
    out = strategic_merge_patch(POD, {"metadata": {"finalizers": ["b", "a"]}}, "Pod")
    assert out["metadata"]["finalizers"] == ["b", "a"]
    out = strategic_merge_patch(out, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}},
                                "Pod")
    assert out["metadata"]["finalizers"] == ["b"]


def test_retain_keys_on_deployment_strategy_and_pod_volumes() -> None:
    """kubectl sends $retainKeys for retainKeys fields: switching a Deployment to
    Recreate must drop rollingUpdate; switching a volume's source drops the old one."""
    deploy = {"spec": {"strategy": {"type": "RollingUpdate",
                                    "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}}
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate",
                                   "rollingUpdate": None}}}
    assert strategic_merge_patch(deploy, patch, "Deployment") == {
        "spec": {"strategy": {"type": "Recreate"}}}
    # upstream: "retainKeys map can add a field when no retainKeys directive present"
    patch = {"spec": {"strategy": {"rollingUpdate": {"maxSurge": 2}}}}
    assert strategic_merge_patch(deploy, patch, "Deployment")["spec"]["strategy"] == {
        "type": "RollingUpdate", "rollingUpdate": {"maxSurge": 2, "maxUnavailable": 0}}
    patch = y("""
spec:
  $setElementOrder/volumes: [{name: data}]
  volumes:
  - {name: data, $retainKeys: [hostPath, name], hostPath: {path: /srv}}
""")
    out = strategic_merge_patch(POD, patch, "Pod")
    assert out["spec"]["volumes"] == [{"name": "data", "hostPath": {"path": "/srv"}}]


def test_new_values_lose_nulls_and_directives() -> None:
    patch = {"spec": {"nodeSelector": {"a": "b", "c": None},
                      "affinity": {"nodeAffinity": {"$patch": "delete"}, "podAffinity": {}}}}
    out = strategic_merge_patch({"spec": {}}, patch, "Pod")
    assert out == {"spec": {"nodeSelector": {"a": "b"}, "affinity": {"podAffinity": {}}}}


def test_strategic_merge_patch_never_mutates_inputs() -> None:
    original, patch = copy.deepcopy(POD), y("""
spec:
  $setElementOrder/containers: [{name: sidecar}, {name: web}]
  containers: [{name: web, image: x}, {name: gone, $patch: delete}]
metadata:
  $deleteFromPrimitiveList/finalizers: [a]
""")
    frozen_patch = copy.deepcopy(patch)
    strategic_merge_patch(original, patch, "Pod")
    assert original == POD and patch == frozen_patch


def test_strategic_merge_patch_must_be_an_object() -> None:
    with pytest.raises(errors.BadRequest) as exc:
        strategic_merge_patch(POD, [1], "Pod")  # type: ignore[arg-type]
    assert exc.value.message == ("json: cannot unmarshal array into Go value of type "
                                 "map[string]interface {}")


# ============================================================ JSON merge patch

# RFC 7386 appendix A, with an object target as an object's PATCH always has.
RFC7386 = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    # RFC 7386 section 3 example
    ({"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
      "tags": ["example", "sample"], "content": "This will be unchanged"},
     {"title": "Hello!", "phoneNumber": "+01-123-456-7890",
      "author": {"familyName": None}, "tags": ["example"]},
     {"title": "Hello!", "author": {"givenName": "John"}, "tags": ["example"],
      "content": "This will be unchanged", "phoneNumber": "+01-123-456-7890"}),
]


@pytest.mark.parametrize(("original", "patch", "expected"), RFC7386)
def test_json_merge_patch_rfc7386(original: Any, patch: Any, expected: Any) -> None:
    before = copy.deepcopy(original)
    assert json_merge_patch(original, patch) == expected
    assert original == before


@pytest.mark.parametrize("patch", [None, "bar", 3, True])
def test_json_merge_patch_non_object_is_bad_request(patch: Any) -> None:
    """RFC 7386 A: ``null`` / ``"bar"`` replace the whole document; Kubernetes
    (json-patch v4) rejects them with errBadJSONPatch."""
    with pytest.raises(errors.BadRequest) as exc:
        json_merge_patch({"a": "foo"}, patch)
    assert exc.value.message == "Invalid JSON Patch"


def test_json_merge_patch_array_replaces_document_which_is_not_an_object() -> None:
    """RFC 7386 A: {"a":"b"} + ["c"] is ["c"]; an object cannot become that (422)."""
    with pytest.raises(errors.Invalid) as exc:
        json_merge_patch({"a": "b"}, ["c"])
    assert exc.value.code == 422
    assert exc.value.message.startswith(' "" is invalid: patch: Invalid value: "[\\"c\\"]": ')


def test_json_merge_patch_drops_nulls_from_added_values() -> None:
    """json-patch v4 prunes nulls from values it adds, arrays included."""
    assert json_merge_patch({}, {"a": {"b": None, "c": [1, None, {"d": None}]}}) == {
        "a": {"c": [1, {}]}}


# ================================================================= JSON patch

# RFC 6902 appendix A: (section, document, patch, result)
RFC6902 = [
    ("A.1", {"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}],
     {"baz": "qux", "foo": "bar"}),
    ("A.2", {"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}],
     {"foo": ["bar", "qux", "baz"]}),
    ("A.3", {"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ("A.4", {"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}],
     {"foo": ["bar", "baz"]}),
    ("A.5", {"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}],
     {"baz": "boo", "foo": "bar"}),
    ("A.6", {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
     [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
     {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
    ("A.7", {"foo": ["all", "grass", "cows", "eat"]},
     [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
     {"foo": ["all", "cows", "eat", "grass"]}),
    ("A.8", {"baz": "qux", "foo": ["a", 2, "c"]},
     [{"op": "test", "path": "/baz", "value": "qux"},
      {"op": "test", "path": "/foo/1", "value": 2}],
     {"baz": "qux", "foo": ["a", 2, "c"]}),
    ("A.10", {"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
     {"foo": "bar", "child": {"grandchild": {}}}),
    ("A.11", {"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}],
     {"foo": "bar", "baz": "qux"}),
    ("A.14", {"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}],
     {"/": 9, "~1": 10}),
    ("A.16", {"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
     {"foo": ["bar", ["abc", "def"]]}),
    ("copy", {"a": {"b": [1]}}, [{"op": "copy", "from": "/a/b", "path": "/c"}],
     {"a": {"b": [1]}, "c": [1]}),
    ("escaped pointer", {"metadata": {"labels": {}}},
     [{"op": "add", "path": "/metadata/labels/app.kubernetes.io~1name", "value": "x"},
      {"op": "add", "path": "/metadata/labels/a~0b", "value": "y"}],
     {"metadata": {"labels": {"app.kubernetes.io/name": "x", "a~b": "y"}}}),
]


@pytest.mark.parametrize(("document", "patch", "expected"), [c[1:] for c in RFC6902],
                         ids=[c[0] for c in RFC6902])
def test_json_patch_rfc6902(document: Any, patch: Any, expected: Any) -> None:
    before = copy.deepcopy(document)
    assert json_patch(document, patch) == expected
    assert document == before


# (RFC section or case, document, patch, json-patch v4's explanation)
JSON_PATCH_FAILURES = [
    ("A.9", {"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}],
     "testing value /baz failed: test failed"),
    ("A.12", {"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}],
     'add operation does not apply: doc is missing path: "/baz/bat": missing value'),
    # A.13: duplicate "op" members decode to the last one, "remove" of a missing member.
    ("A.13", {"foo": "bar"}, json.loads('[{"op": "add", "path": "/baz", "value": "qux", '
                                        '"op": "remove"}]'),
     "error in remove for path: '/baz': Unable to remove nonexistent key: baz: missing value"),
    ("A.15", {"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}],
     "testing value /~01 failed: test failed"),
    ("index out of range", {"a": [1]}, [{"op": "add", "path": "/a/5", "value": 2}],
     "error in add for path: '/a/5': Unable to access invalid index: 5: invalid index "
     "referenced"),
    ("not an index", {"a": [1]}, [{"op": "remove", "path": "/a/x"}],
     "error in remove for path: '/a/x': strconv.Atoi: parsing \"x\": invalid syntax"),
    ("unknown op", {"a": 1}, [{"op": "frobnicate", "path": "/a"}], "Unexpected kind: frobnicate"),
    ("missing path", {"a": 1}, [{"op": "add", "value": 1}],
     "add operation failed to decode path: missing value"),
    ("add at the root", {"a": 1}, [{"op": "add", "path": "", "value": {}}],
     'add operation does not apply: doc is missing path: "": missing value'),
]


@pytest.mark.parametrize(("document", "patch", "why"), [c[1:] for c in JSON_PATCH_FAILURES],
                         ids=[c[0] for c in JSON_PATCH_FAILURES])
def test_json_patch_failures_are_422_with_kubernetes_message(document: Any, patch: Any,
                                                              why: str) -> None:
    with pytest.raises(errors.Invalid) as exc:
        json_patch(document, patch)
    assert exc.value.code == 422
    assert exc.value.reason == "Invalid"
    assert exc.value.message == UNPROCESSABLE
    assert str(exc.value.__cause__) == why


def test_json_patch_is_atomic() -> None:
    """RFC 6902 section 5: a failing operation leaves nothing applied."""
    doc = {"a": {"b": {"c": "C"}}}
    with pytest.raises(errors.Invalid):
        json_patch(doc, [{"op": "replace", "path": "/a/b/c", "value": 42},
                         {"op": "test", "path": "/a/b/c", "value": "C"}])
    assert doc == {"a": {"b": {"c": "C"}}}


def test_json_patch_v4_behaviour_kept() -> None:
    """Kubernetes uses json-patch v4: negative indices, replace-as-add on a
    missing member, a null test of a missing member."""
    assert json_patch({"a": [1, 2, 3]}, [{"op": "remove", "path": "/a/-1"}]) == {"a": [1, 2]}
    assert json_patch({"a": [1, 2]}, [{"op": "add", "path": "/a/-1", "value": 9}]) == {
        "a": [1, 2, 9]}
    assert json_patch({"m": {}}, [{"op": "replace", "path": "/m/x", "value": 1}]) == {
        "m": {"x": 1}}
    assert json_patch({"a": 1}, [{"op": "test", "path": "/b", "value": None}]) == {"a": 1}


@pytest.mark.parametrize(("operations", "message"), [
    ({"op": "add"}, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
    ("x", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"),
    (["add"], "json: cannot unmarshal string into Go value of type jsonpatch.Operation"),
])
def test_json_patch_malformed_document_is_bad_request(operations: Any, message: str) -> None:
    with pytest.raises(errors.BadRequest) as exc:
        json_patch({"a": 1}, operations)
    assert exc.value.message == message


def test_json_patch_operation_limit() -> None:
    ops = [{"op": "test", "path": "/a", "value": 1}] * 10001
    with pytest.raises(errors.RequestEntityTooLarge) as exc:
        json_patch({"a": 1}, ops)
    assert exc.value.message == ("Request entity too large: The allowed maximum operations "
                                 "in a JSON patch is 10000, got 10001")
    assert json_patch({"a": 1}, ops[:10000]) == {"a": 1}


def test_json_patch_replacing_the_document_with_an_array_is_invalid() -> None:
    with pytest.raises(errors.Invalid) as exc:
        json_patch({"a": 1}, [{"op": "replace", "path": "", "value": [1]}])
    assert exc.value.message.startswith(' "" is invalid: patch: Invalid value: "[1]"')


# ============================================================ parse_patch_body


def test_patch_types_in_kubernetes_order() -> None:
    assert PATCH_TYPES == ("application/json-patch+json", "application/merge-patch+json",
                           "application/strategic-merge-patch+json",
                           "application/apply-patch+yaml")


@pytest.mark.parametrize(("content_type", "body", "expected"), [
    ("application/strategic-merge-patch+json", b'{"spec": {}}', ("strategic", {"spec": {}})),
    ("application/strategic-merge-patch+json", b"null", ("strategic", {})),
    ("application/merge-patch+json; charset=utf-8", b'{"a": null}', ("merge", {"a": None})),
    ("application/json-patch+json", b'[{"op": "remove", "path": "/a"}]',
     ("json", [{"op": "remove", "path": "/a"}])),
    ("application/json-patch+json", b"null", ("json", [])),
    ("application/apply-patch+yaml", b"apiVersion: v1\nkind: Pod\n",
     ("apply", {"apiVersion": "v1", "kind": "Pod"})),
    ("application/apply-patch+yaml", b'{"apiVersion": "v1", "kind": "Pod"}',
     ("apply", {"apiVersion": "v1", "kind": "Pod"})),
])
def test_parse_patch_body(content_type: str, body: bytes, expected: tuple[str, Any]) -> None:
    assert parse_patch_body(body, content_type) == expected


@pytest.mark.parametrize("content_type", ["application/json", "text/plain", "",
                                          "application/apply-patch+cbor"])
def test_unsupported_patch_media_type(content_type: str) -> None:
    with pytest.raises(errors.UnsupportedMediaType) as exc:
        parse_patch_body(b"{}", content_type)
    assert exc.value.code == 415
    assert exc.value.message == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, "
        "application/strategic-merge-patch+json, application/apply-patch+yaml")


@pytest.mark.parametrize(("content_type", "body", "message"), [
    ("application/strategic-merge-patch+json", b"[1]",
     "json: cannot unmarshal array into Go value of type map[string]interface {}"),
    ("application/strategic-merge-patch+json", b'{"a": ', "unexpected end of JSON input"),
    ("application/strategic-merge-patch+json", b'{"a" 1}',
     "invalid character '1' after object key"),
    ("application/strategic-merge-patch+json", b"{x}",
     "invalid character 'x' looking for beginning of object key string"),
    ("application/merge-patch+json", b"{nope", "Invalid JSON Patch"),
    ("application/json-patch+json", b'{"op": "add"}',
     "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
    ("application/apply-patch+yaml", b"- a\n- b\n",
     "error decoding YAML: json: cannot unmarshal array into Go value of type "
     "map[string]interface {}"),
])
def test_malformed_patch_bodies(content_type: str, body: bytes, message: str) -> None:
    with pytest.raises(errors.BadRequest) as exc:
        parse_patch_body(body, content_type)
    assert exc.value.message == message


def test_unparsable_apply_yaml_names_the_problem() -> None:
    with pytest.raises(errors.BadRequest) as exc:
        parse_patch_body(b"a: [1\n", "application/apply-patch+yaml")
    assert exc.value.message.startswith("error decoding YAML: ")
