"""The generated field schemas: current, complete, and true to Kubernetes.

* The files in ``minikube_py/api/generated/`` are exactly what
  ``tools/gen_schemas.py`` makes of ``tools/upstream`` and
  ``tools/schema_text`` (every type and field described, no description of
  something that does not exist), and the check notices a change.
* The Go reader reads what Kubernetes' ``types.go`` files say (a table of
  snippets) and refuses what it does not understand.
* The result agrees with Kubernetes facts, spot-checked in a table, and with
  an independent source for every field: the official Python client's
  models, generated upstream from the same types' OpenAPI, give the JSON name
  and shape of each field we generate (the client is newer than v1.32, so it
  may have fields we do not; it must have every one we do).
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import kubernetes.client
import pytest

from minikube_py.api.schema_model import Schema

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import gen_schemas  # noqa: E402
import go_types  # noqa: E402

MODULES = [p.module for p in gen_schemas.PACKAGES]


def _module(name: str):
    return importlib.import_module(f"minikube_py.api.generated.{name}")


# ------------------------------------------------------------------- currency


def test_generated_files_are_current_and_every_field_is_described():
    files, problems = gen_schemas.generate()
    assert problems == []
    on_disk = {p.name for p in gen_schemas.OUTPUT.glob("*.py")}
    assert on_disk == set(files), "a generated module is missing or left over"
    stale = [n for n, text in files.items() if (gen_schemas.OUTPUT / n).read_text() != text]
    assert stale == [], f"run: python tools/gen_schemas.py (stale: {stale})"


def test_the_currency_check_notices_a_changed_or_missing_description(tmp_path):
    texts = tmp_path / "texts"
    shutil.copytree(gen_schemas.TEXT, texts)
    core = texts / "core_v1.yaml"
    core.write_text(core.read_text().replace(
        "  restartPolicy: Always, OnFailure or Never.\n",
        "  restartPolicy: Changed.\n", 1))
    files, problems = gen_schemas.generate(text_dir=texts)
    assert problems == []
    assert '"Changed."' in files["core_v1.py"]
    assert files["core_v1.py"] != (gen_schemas.OUTPUT / "core_v1.py").read_text()

    core.write_text(core.read_text().replace("  restartPolicy: Changed.\n", "", 1))
    _, problems = gen_schemas.generate(text_dir=texts)
    assert problems == ["missing description: core_v1: PodSpec.restartPolicy"]


def test_a_description_of_nothing_is_reported(tmp_path):
    texts = tmp_path / "texts"
    shutil.copytree(gen_schemas.TEXT, texts)
    with (texts / "policy_v1.yaml").open("a") as out:
        out.write("Eviction:\n  nosuch: A field that does not exist.\n")
    _, problems = gen_schemas.generate(text_dir=texts)
    assert "description of nothing: policy_v1: Eviction.nosuch" in problems


def test_upstream_copies_record_their_origin_and_parse():
    for package in gen_schemas.PACKAGES:
        for name in package.files:
            text = (gen_schemas.UPSTREAM / package.module / name).read_text()
            assert f"{package.directory}/{name} at {gen_schemas.TAG}" in text.splitlines()[0]
            assert "(commit " in text.splitlines()[1]
            # Stripping again changes nothing: the copy holds only what is read.
            body = text.split("\n\n", 1)[1]
            assert go_types.strip(body) == body
            assert go_types.parse(body).structs


# ------------------------------------------------------------------ Go reader

_GO = '''
package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase is a phase.
// +enum
type Phase string

const (
	// PhaseA is a.
	PhaseA Phase = "A"
	PhaseB Phase = "B" // trailing comment
)

const Single Phase = "C"

type Names []string

// Thing is a thing.
// +structType=atomic
type Thing struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The items.
	// +listType=map
	// +listMapKey=name
	// +listMapKey=port
	Items []Item `json:"items" patchStrategy:"merge" patchMergeKey:"name"`

	// +optional

	Detached string `json:"detached"`
	Skipped string `json:"-"`
	Size *resource.Quantity `json:"size,omitempty"`
}

func (t Thing) String() string {
	if t.Detached != "" {
		return "}"
	}
	return ""
}
'''


def test_go_reader_reads_tags_markers_enums_and_imports():
    pkg = go_types.parse(_GO)
    assert pkg.imports == {"resource": "k8s.io/apimachinery/pkg/api/resource",
                           "metav1": "k8s.io/apimachinery/pkg/apis/meta/v1"}
    assert pkg.constants["Phase"] == ["A", "B", "C"]
    assert pkg.named["Phase"].markers == {"enum": [""]}
    assert pkg.named["Names"].type == "[]string"
    thing = pkg.structs["Thing"]
    assert thing.markers == {"structType": ["atomic"]}
    fields = {f.json or f.type: f for f in thing.fields}
    assert fields["metav1.TypeMeta"].inline and fields["metav1.TypeMeta"].name == ""
    meta = fields["metadata"]
    assert (meta.type, meta.omitempty, meta.markers) == (
        "metav1.ObjectMeta", True, {"optional": [""]})
    items = fields["items"]
    assert items.markers == {"listType": ["map"], "listMapKey": ["name", "port"]}
    assert items.tags["patchStrategy"] == "merge" and items.tags["patchMergeKey"] == "name"
    # A blank line detaches a marker from the next field, as in gengo.
    assert fields["detached"].markers == {}
    assert fields["-"].name == "Skipped"
    assert fields["size"].type == "*resource.Quantity"
    # The function after the struct, braces and all, is skipped.
    assert set(pkg.structs) == {"Thing"}


@pytest.mark.parametrize("body, message", [
    ("type Bad struct {\n\tName string\n}\n", "not a struct field"),
    ("type Bad struct {\n\tName string `json:\"name\"`\n", "struct Bad is not closed"),
    ("type Bad interface{ X() }\n", "unsupported type declaration"),
])
def test_go_reader_refuses_what_it_does_not_understand(body, message):
    with pytest.raises(go_types.GoSyntaxError, match=message):
        go_types.parse(body)


def test_strip_keeps_markers_and_declarations_only():
    stripped = go_types.strip(_GO)
    assert "// +enum" in stripped and "// +listMapKey=port" in stripped
    assert "Thing is a thing" not in stripped and "func " not in stripped
    assert go_types.parse(stripped) == go_types.parse(_GO)


# ------------------------------------------------------- Kubernetes facts


def _at(module: str, path: str) -> Schema:
    """The schema at ``Type.field.field`` (``[]`` steps into list items)."""
    type_name, *steps = path.split(".")
    node: Schema = getattr(_module(module), type_name)
    for step in steps:
        if step == "[]":
            assert node.items is not None
            node = node.items
        else:
            child = node.child(step)
            assert child is not None, f"{module}.{path}: no {step}"
            node = child
    return node


@pytest.mark.parametrize("module, path, facts", [
    ("core_v1", "PodSpec.containers", {"type": "list", "merge_key": "name",
                                       "patch_strategy": "merge", "list_map_keys": ("name",)}),
    ("core_v1", "PodSpec.volumes", {"patch_strategy": "merge,retainKeys"}),
    ("core_v1", "Volume.nfs.server", {"type": "string"}),  # VolumeSource inlined
    ("core_v1", "Container", {"required": ("name",)}),
    ("core_v1", "Taint", {"required": ("key", "effect")}),
    ("core_v1", "Probe.periodSeconds", {"type": "integer", "fmt": "int32"}),
    ("core_v1", "Probe.httpGet.port", {"type": "int-or-string"}),  # ProbeHandler inlined
    ("core_v1", "PodSpec.restartPolicy", {"enum": ("Always", "Never", "OnFailure")}),
    ("core_v1", "PodSpec.nodeSelector", {"type": "map", "map_type": "atomic"}),
    ("core_v1", "PodStatus.hostIPs", {"list_type": "atomic", "merge_key": "ip"}),
    ("core_v1", "ServiceSpec.ports", {"list_type": "map", "list_map_keys": ("port", "protocol"),
                                      "merge_key": "port"}),
    ("core_v1", "ServiceSpec.clusterIPs", {"list_type": "atomic"}),
    ("core_v1", "ServiceSpec.ipFamilyPolicy", {"enum": ("PreferDualStack", "RequireDualStack",
                                                        "SingleStack")}),
    ("core_v1", "Secret.data.x", {"type": "string", "fmt": "byte"}),
    ("core_v1", "ResourceRequirements.limits.cpu", {"type": "quantity"}),
    ("core_v1", "ObjectReference", {"map_type": "atomic"}),
    ("meta_v1", "ObjectMeta.generation", {"type": "integer", "fmt": "int64"}),
    ("meta_v1", "ObjectMeta.finalizers", {"list_type": "set", "patch_strategy": "merge"}),
    ("meta_v1", "ObjectMeta.creationTimestamp", {"type": "time"}),
    ("meta_v1", "ObjectMeta.managedFields.[].fieldsV1", {"type": "free-form"}),
    ("meta_v1", "LabelSelector", {"map_type": "atomic"}),
    ("apps_v1", "DeploymentSpec.strategy", {"patch_strategy": "retainKeys"}),
    ("apps_v1", "DeploymentSpec.template.spec.containers", {"merge_key": "name"}),
    ("batch_v1", "JobStatus.conditions", {"list_type": "atomic", "merge_key": "type"}),
    ("discovery_v1", "EndpointSlice.endpoints", {"list_type": "atomic"}),
    ("discovery_v1", "EndpointSlice", {"required": ("addressType", "endpoints")}),
    ("policy_v1", "PodDisruptionBudgetSpec.minAvailable", {"type": "int-or-string"}),
    ("rbac_v1", "PolicyRule.verbs", {"list_type": "atomic"}),
    ("rbac_v1", "RoleBinding", {"required": ("roleRef",)}),
    ("storage_v1", "StorageClass", {"required": ("provisioner",)}),
    ("coordination_v1", "LeaseSpec.renewTime", {"type": "time"}),
    ("autoscaling_v2", "MetricTarget.averageValue", {"type": "quantity"}),
    ("autoscaling_v1", "Scale.spec.replicas", {"fmt": "int32"}),
    ("networking_v1", "NetworkPolicySpec.podSelector", {"name": "io.k8s.apimachinery.pkg.apis"
                                                       ".meta.v1.LabelSelector"}),
    ("apiextensions_v1", "JSONSchemaProps.x-kubernetes-preserve-unknown-fields",
     {"type": "boolean"}),
    ("apiextensions_v1", "JSONSchemaProps.default", {"type": "any"}),
    ("apiregistration_v1", "APIServiceSpec.caBundle", {"fmt": "byte"}),
])
def test_generated_schema_states_kubernetes_facts(module, path, facts):
    node = _at(module, path)
    for attribute, expected in facts.items():
        assert getattr(node, attribute) == expected, f"{module}.{path}.{attribute}"


def test_a_shape_inside_itself_is_one_shape():
    props = _module("apiextensions_v1").JSONSchemaProps
    assert props.child("properties").items is props
    assert props.child("allOf").items is props


@pytest.mark.parametrize("module, kinds", [
    ("core_v1", {"Pod", "Node", "Namespace", "Event", "ConfigMap", "Secret", "Service",
                 "Endpoints", "ServiceAccount", "PersistentVolume", "PersistentVolumeClaim",
                 "Binding"}),
    ("apps_v1", {"Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "ControllerRevision"}),
    ("batch_v1", {"Job", "CronJob"}),
    ("discovery_v1", {"EndpointSlice"}),
    ("policy_v1", {"PodDisruptionBudget", "Eviction"}),
    ("rbac_v1", {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}),
    ("storage_v1", {"StorageClass", "CSIDriver", "VolumeAttachment"}),
    ("coordination_v1", {"Lease"}),
    ("autoscaling_v2", {"HorizontalPodAutoscaler"}),
    ("networking_v1", {"NetworkPolicy", "Ingress", "IngressClass"}),
    ("scheduling_v1", {"PriorityClass"}),
    ("apiextensions_v1", {"CustomResourceDefinition"}),
    ("apiregistration_v1", {"APIService"}),
])
def test_each_group_has_the_kinds_the_coming_issues_serve(module, kinds):
    assert kinds <= set(_module(module).KINDS)


# ------------------------------------------------ the official client's view


def _client_model(module: str, type_name: str):
    group, version = module.rsplit("_", 1)
    version = version.upper()
    for name in (version + type_name, group.capitalize() + version + type_name):
        model = getattr(kubernetes.client, name, None)
        if model is not None and hasattr(model, "attribute_map"):
            return model
    return None


def _client_type(node: Schema) -> tuple[str, ...]:
    """The client's ``openapi_types`` spellings a generated node may have."""
    if node.type == "list":
        return tuple(f"List[{t}]" for t in _client_type(node.items))
    if node.type == "map":
        return tuple(f"Dict[str, {t}]" for t in _client_type(node.items))
    if node.type == "object":
        # An object with no fields (CustomResourceSubresourceStatus) is a
        # plain object to the client.
        return ("model",) if node.fields else ("model", "object")
    if node.fmt == "byte":
        return ("str", "bytearray", "bytes")
    return {"string": ("str",), "integer": ("int",), "boolean": ("bool",),
            "number": ("float",), "time": ("datetime",), "quantity": ("str",),
            "int-or-string": ("object",), "free-form": ("object",),
            "any": ("object",)}[node.type]


def _spelling(client_type: str) -> str:
    """A client type with model names replaced by ``model``."""
    for scalar in ("str", "int", "bool", "float", "datetime", "object", "bytearray", "bytes"):
        if client_type == scalar:
            return scalar
    for wrapper in ("List[", "Dict[str, "):
        if client_type.startswith(wrapper):
            return wrapper + _spelling(client_type[len(wrapper):-1]) + "]"
    return "model"


def test_every_generated_field_matches_the_official_client():
    checked = 0
    wrong: list[str] = []
    for module in MODULES:
        for type_name, node in vars(_module(module)).items():
            if not isinstance(node, Schema) or node.type != "object":
                continue
            model = _client_model(module, type_name)
            if model is None:
                continue  # a type the published OpenAPI leaves out (options, internals)
            by_json = {json: attr for attr, json in model.attribute_map.items()}
            for field, child in node.fields.items():
                checked += 1
                if field not in by_json:
                    wrong.append(f"{module}.{type_name}.{field}: unknown to the client")
                    continue
                theirs = _spelling(model.openapi_types[by_json[field]])
                if theirs not in _client_type(child):
                    wrong.append(f"{module}.{type_name}.{field}: {child.type} vs {theirs}")
    assert wrong == []
    assert checked > 1500  # the comparison really covered the groups
