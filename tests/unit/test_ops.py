"""The verbs both front-ends call (minikube_py.ops) against a real in-process
control plane on hollow (fake-runtime) nodes, over HTTP: the controllers and kubelets run, so a
Deployment really gets pods and a drained node really empties.

One control plane serves the module (it starts in well under a second); each
test works in its own namespace, and fixtures undo node changes, so tests do
not see each other's objects.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import NotFound
from minikube_py.client import kubeconfig
from minikube_py.client.http import HTTPClient
from minikube_py.controlplane import ControlPlane
from minikube_py.ops import apply, nodes, objects, rollout
from minikube_py.ops.errors import PartialFailure
from tests.planes import hollow_plane
from tests.waiting import wait_for

NODES = ("node-1", "node-2", "node-3")
_names = itertools.count(1)


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    with hollow_plane(tmp_path_factory.mktemp("plane")) as cp:
        yield cp


@pytest.fixture(scope="module")
def client(plane: ControlPlane) -> HTTPClient:
    return HTTPClient(kubeconfig.load(plane.kubeconfig_path))


def unique(prefix: str) -> str:
    return f"{prefix}-{next(_names)}"


@pytest.fixture
def ns(client: HTTPClient) -> Iterator[str]:
    """A fresh namespace; on teardown its pods are deleted and waited for, so
    a later drain never meets this test's bare pods."""
    name = unique("t")
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    yield name
    for pod in client.list("pods", namespace=name).items:
        with contextlib.suppress(NotFound):
            client.delete("pods", name, pod["metadata"]["name"], grace_period_seconds=0)
    client.delete("namespaces", None, name)
    wait_for(lambda: not client.list("pods", namespace=name).items, f"pods of {name} gone")


@pytest.fixture
def uncordon_all(client: HTTPClient) -> Iterator[None]:
    yield
    for node in NODES:
        nodes.uncordon(client, node)


def deployment(name: str, ns: str, replicas: int = 1, image: str = "busybox:1.36",
               **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {
                         "containers": [{"name": "c", "image": image}]}}, **spec}}


def bare_pod(name: str, ns: str, node: str | None = None, **spec: Any) -> dict[str, Any]:
    pod_spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox:1.36"}], **spec}
    if node:
        pod_spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": pod_spec}


def running_pods(client: HTTPClient, ns: str, app: str | None = None) -> list[dict[str, Any]]:
    items = client.list("pods", namespace=ns,
                        label_selector=f"app={app}" if app else None).items
    return [p for p in items if not p["metadata"].get("deletionTimestamp")
            and (p.get("status") or {}).get("phase") == "Running"]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


DEPLOY_YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {ns}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
        - name: c
          image: busybox:1.36
"""


# ------------------------------------------------------------------ apply


def test_apply_reports_created_unchanged_configured(client: HTTPClient, ns: str,
                                                    tmp_path: Path):
    f = write(tmp_path / "web.yaml", DEPLOY_YAML.format(ns=ns, replicas=1))
    assert apply.apply_paths(client, [f]) == ["deployment.apps/web created"]
    # Once the controller has annotated its revision, only status changes: the
    # controllers keep writing it, and an apply that changes nothing is unchanged.
    wait_for(lambda: (client.get("deployments", ns, "web")["metadata"].get("annotations")
                      or {}).get("deployment.kubernetes.io/revision"), "revision 1")
    for _ in range(5):
        assert apply.apply_paths(client, [f]) == ["deployment.apps/web unchanged"]
    write(f, DEPLOY_YAML.format(ns=ns, replicas=2))
    assert apply.apply_paths(client, [f]) == ["deployment.apps/web configured"]
    dep = client.get("deployments", ns, "web")
    assert dep["spec"]["replicas"] == 2
    # Server-side apply under the CLI's field manager, so the CLI and the dashboard
    # co-own the fields instead of conflicting.
    managers = {m["manager"] for m in dep["metadata"]["managedFields"]}
    assert "minikube-py" in managers
    wait_for(lambda: len(running_pods(client, ns, "web")) == 2, "two web pods")


def test_apply_directory_applies_namespaces_first(client: HTTPClient, tmp_path: Path):
    target = unique("applied")
    # The deployment's file sorts first; its namespace must still be created first.
    write(tmp_path / "a-deploy.yaml", DEPLOY_YAML.format(ns=target, replicas=1))
    write(tmp_path / "b-ns.yaml", f"apiVersion: v1\nkind: Namespace\nmetadata:\n"
                                  f"  name: {target}\n")
    write(tmp_path / "notes.txt", "not a manifest")
    try:
        assert apply.apply_paths(client, [tmp_path]) == [
            f"namespace/{target} created", "deployment.apps/web created"]
    finally:
        client.delete("namespaces", None, target)


def test_apply_reads_subdirectories_only_when_recursive(client: HTTPClient, ns: str,
                                                        tmp_path: Path):
    write(tmp_path / "nested" / "web.yaml", DEPLOY_YAML.format(ns=ns, replicas=0))
    with pytest.raises(ValueError, match=r"^no objects passed to apply$"):
        apply.apply_paths(client, [tmp_path])
    assert apply.apply_paths(client, [tmp_path], recursive=True) == [
        "deployment.apps/web created"]


def test_apply_puts_objects_without_namespace_in_the_given_one(client: HTTPClient, ns: str,
                                                               tmp_path: Path):
    f = write(tmp_path / "pod.json",
              '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo"},'
              ' "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}')
    assert apply.apply_paths(client, [f], namespace=ns) == ["pod/solo created"]
    assert client.get("pods", ns, "solo")["metadata"]["namespace"] == ns


@pytest.mark.parametrize(("files", "message"), [
    ({}, r'the path ".*missing.yaml" does not exist'),
    ({"bad.yaml": "kind: [unclosed\n"}, r"bad\.yaml:\d+"),
    ({"bad.json": '{"kind": "Pod",'}, r"bad\.json:\d+"),
], ids=["missing-path", "broken-yaml", "broken-json"])
def test_apply_rejects_unreadable_manifests_before_sending_anything(
        client: HTTPClient, ns: str, tmp_path: Path, files: dict[str, str], message: str):
    good = write(tmp_path / "good" / "web.yaml", DEPLOY_YAML.format(ns=ns, replicas=0))
    paths = [good] + [write(tmp_path / n, t) for n, t in files.items()]
    if not files:
        paths.append(tmp_path / "missing.yaml")
    with pytest.raises(ValueError, match=message) as err:
        apply.apply_paths(client, paths)
    assert not isinstance(err.value, PartialFailure)
    with pytest.raises(NotFound):
        client.get("deployments", ns, "web")


def test_apply_applies_the_good_objects_and_reports_each_bad_one(client: HTTPClient, ns: str,
                                                                 tmp_path: Path):
    text = (DEPLOY_YAML.format(ns=ns, replicas=1)
            + "---\napiVersion: v1\nkind: Widget\nmetadata: {name: w}\n"
            + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: nameless-has-no-containers}\n"
            + "spec: {containers: []}\n"
            + "---\napiVersion: v1\nkind: Pod\nmetadata: {}\n")
    f = write(tmp_path / "mixed.yaml", text)
    with pytest.raises(PartialFailure) as err:
        apply.apply_paths(client, [f])
    assert err.value.done == ["deployment.apps/web created"]
    assert len(err.value.errors) == 3
    widget, invalid, nameless = err.value.errors
    assert re.fullmatch(rf'error: {re.escape(str(f))}:\d+: no matches for kind "Widget" in '
                        r'version "v1"', widget)
    assert invalid.startswith("Error from server (Invalid): ")
    assert re.search(rf"\({re.escape(str(f))}:\d+\)$", invalid), invalid
    assert re.fullmatch(rf"error: {re.escape(str(f))}:\d+: metadata.name is required for "
                        r"apply", nameless)
    assert str(err.value) == "\n".join(err.value.errors)
    assert client.get("deployments", ns, "web")


def test_apply_needs_paths(client: HTTPClient):
    with pytest.raises(ValueError, match="no files or directories"):
        apply.apply_paths(client, [])


# ------------------------------------------------------------------ delete


def test_delete_returns_kubectls_line_and_is_not_found_the_second_time(client: HTTPClient,
                                                                       ns: str):
    client.create(bare_pod("victim", ns))
    client.create(deployment("web", ns, replicas=0))
    assert objects.delete(client, "pods", ns, "victim") == 'pod "victim" deleted'
    assert objects.delete(client, "deploy", ns, "web") == 'deployment.apps "web" deleted'
    wait_for(lambda: not client.list("pods", namespace=ns).items, "the pod gone")
    with pytest.raises(NotFound, match='pods "victim" not found'):
        objects.delete(client, "po", ns, "victim")


def test_delete_ignores_the_namespace_of_cluster_scoped_objects(client: HTTPClient):
    name = unique("gone")
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    assert objects.delete(client, "namespaces", "default", name) == f'namespace "{name}" deleted'


@pytest.mark.parametrize(("resource", "namespace", "message"), [
    ("widgets", "default", "the server doesn't have a resource type \"widgets\""),
    ("pods", None, "a namespace is required for pods"),
    ("pods", "", "a namespace is required for pods"),
])
def test_delete_rejects_what_it_cannot_address(client: HTTPClient, resource: str,
                                               namespace: str | None, message: str):
    with pytest.raises(ValueError, match=re.escape(message)):
        objects.delete(client, resource, namespace, "x")


# ------------------------------------------------------------------ scale


def test_scale_deployment_through_the_scale_subresource(client: HTTPClient, ns: str):
    client.create(deployment("web", ns, replicas=1))
    assert objects.scale(client, "deployments", ns, "web", 3) == "deployment.apps/web scaled"
    wait_for(lambda: len(running_pods(client, ns, "web")) == 3, "three pods")
    generation = client.get("deployments", ns, "web")["metadata"]["generation"]
    # Same count again: kubectl's words, and nothing changes.
    assert objects.scale(client, "deploy", ns, "web", 3) == "deployment.apps/web scaled"
    assert client.get("deployments", ns, "web")["metadata"]["generation"] == generation
    assert objects.scale(client, "deployment", ns, "web", 0) == "deployment.apps/web scaled"
    wait_for(lambda: not running_pods(client, ns, "web"), "no pods")


def test_scale_replicaset(client: HTTPClient, ns: str):
    rs = deployment("rs", ns, replicas=0)
    rs["kind"] = "ReplicaSet"
    client.create(rs)
    assert objects.scale(client, "rs", ns, "rs", 2) == "replicaset.apps/rs scaled"
    wait_for(lambda: len(running_pods(client, ns, "rs")) == 2, "two pods")


@pytest.mark.parametrize(("resource", "replicas", "message"), [
    ("deployments", -1, "replicas must be greater than or equal to 0, not -1"),
    ("deployments", True, "replicas must be a whole number, not True"),
    ("deployments", 1.5, "replicas must be a whole number, not 1.5"),
    ("pods", 1, "pods cannot be scaled: only deployments and replicasets"),
    ("nodes", 1, "nodes cannot be scaled: only deployments and replicasets"),
    ("widgets", 1, "the server doesn't have a resource type \"widgets\""),
])
def test_scale_rejects_bad_requests_before_sending(client: HTTPClient, resource: str,
                                                   replicas: Any, message: str):
    with pytest.raises(ValueError, match=re.escape(message)):
        objects.scale(client, resource, "default", "web", replicas)


def test_scale_of_a_missing_deployment_is_not_found(client: HTTPClient, ns: str):
    with pytest.raises(NotFound):
        objects.scale(client, "deployments", ns, "ghost", 1)


# ------------------------------------------------------------------ rollout restart


def replica_sets(client: HTTPClient, ns: str, app: str) -> list[dict[str, Any]]:
    return client.list("replicasets", namespace=ns, label_selector=f"app={app}").items


def test_rollout_restart_sets_restarted_at_and_rolls_out(client: HTTPClient, ns: str):
    client.create(deployment("web", ns, replicas=1))
    wait_for(lambda: len(replica_sets(client, ns, "web")) == 1, "the first replica set")
    assert rollout.restart(client, ns, "web") == "deployment.apps/web restarted"
    template = client.get("deployments", ns, "web")["spec"]["template"]
    stamp = template["metadata"]["annotations"][rollout.RESTARTED_AT_ANNOTATION]
    # Go's time.RFC3339: seconds, and Z or a numeric offset.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)", stamp), stamp
    # The labels survive: a strategic merge patch, not a replacement of the template.
    assert template["metadata"]["labels"] == {"app": "web"}
    wait_for(lambda: len(replica_sets(client, ns, "web")) == 2, "a second replica set")


def test_rollout_restart_refuses_a_paused_deployment(client: HTTPClient, ns: str):
    client.create(deployment("web", ns, replicas=0, paused=True))
    with pytest.raises(ValueError, match=re.escape(
            'deployments.apps "web" can\'t restart paused deployment (run rollout resume '
            "first)")):
        rollout.restart(client, ns, "web")
    annotations = client.get("deployments", ns, "web")["spec"]["template"]["metadata"].get(
        "annotations") or {}
    assert rollout.RESTARTED_AT_ANNOTATION not in annotations


def test_rollout_restart_of_a_missing_deployment_is_not_found(client: HTTPClient, ns: str):
    with pytest.raises(NotFound):
        rollout.restart(client, ns, "ghost")


# ------------------------------------------------------------------ rollout undo


def image_of(client: HTTPClient, ns: str, name: str) -> str:
    dep = client.get("deployments", ns, name)
    return str(dep["spec"]["template"]["spec"]["containers"][0]["image"])


def set_image(client: HTTPClient, ns: str, name: str, image: str) -> None:
    client.patch("deployments", ns, name, "strategic", {"spec": {"template": {"spec": {
        "containers": [{"name": "c", "image": image}]}}}})


def test_rollout_undo_goes_back_and_forth_through_history(client: HTTPClient, ns: str):
    client.create(deployment("web", ns, replicas=1, image="busybox:1.35"))
    wait_for(lambda: len(replica_sets(client, ns, "web")) == 1, "revision 1")
    set_image(client, ns, "web", "busybox:1.36")
    wait_for(lambda: len(replica_sets(client, ns, "web")) == 2, "revision 2")

    assert rollout.rollback(client, ns, "web") == "deployment.apps/web rolled back"
    assert image_of(client, ns, "web") == "busybox:1.35"
    # Revision 1 became revision 3; revision 2 is still there to go back to.
    wait_for(lambda: client.get("deployments", ns, "web")["metadata"]["annotations"].get(
        "deployment.kubernetes.io/revision") == "3", "revision 3")
    assert rollout.rollback(client, ns, "web", to_revision=2) == \
        "deployment.apps/web rolled back"
    assert image_of(client, ns, "web") == "busybox:1.36"
    wait_for(lambda: client.get("deployments", ns, "web")["metadata"]["annotations"].get(
        "deployment.kubernetes.io/revision") == "4", "revision 4")
    assert rollout.rollback(client, ns, "web", to_revision=4) == (
        "deployment.apps/web skipped rollback (current template already matches revision 4)")


@pytest.mark.parametrize(("to_revision", "message"), [
    (None, 'no rollout history found for deployment "web"'),
    (0, 'no rollout history found for deployment "web"'),
    (7, "unable to find specified revision 7 in history"),
    (-1, "unable to find specified revision -1 in history"),
])
def test_rollout_undo_without_that_revision(client: HTTPClient, ns: str,
                                            to_revision: int | None, message: str):
    client.create(deployment("web", ns, replicas=0))
    wait_for(lambda: replica_sets(client, ns, "web"), "revision 1")
    with pytest.raises(ValueError, match=re.escape(message)):
        rollout.rollback(client, ns, "web", to_revision)


def test_rollout_undo_of_a_missing_deployment_is_not_found(client: HTTPClient, ns: str):
    with pytest.raises(NotFound):
        rollout.rollback(client, ns, "ghost")


# ------------------------------------------------------------------ cordon / uncordon


def unschedulable(client: HTTPClient, node: str) -> bool:
    return bool(client.get("nodes", None, node)["spec"].get("unschedulable"))


@pytest.mark.usefixtures("uncordon_all")
def test_cordon_and_uncordon_say_what_kubectl_says(client: HTTPClient):
    steps = [(nodes.cordon, "node/node-1 cordoned", True),
             (nodes.cordon, "node/node-1 already cordoned", True),
             (nodes.uncordon, "node/node-1 uncordoned", False),
             (nodes.uncordon, "node/node-1 already uncordoned", False)]
    for action, message, state in steps:
        assert action(client, "node-1") == message
        assert unschedulable(client, "node-1") is state
    # Uncordoning removes the field, as kubectl's patch does.
    assert "unschedulable" not in client.get("nodes", None, "node-1")["spec"]


@pytest.mark.usefixtures("uncordon_all")
def test_a_cordoned_node_gets_no_new_pods(client: HTTPClient, ns: str):
    nodes.cordon(client, "node-1")
    nodes.cordon(client, "node-2")
    client.create(deployment("web", ns, replicas=3))
    pods = wait_for(lambda: (lambda r: r if len(r) == 3 else None)(
        running_pods(client, ns, "web")), "three pods")
    assert {p["spec"]["nodeName"] for p in pods} == {"node-3"}


@pytest.mark.parametrize("action", [nodes.cordon, nodes.uncordon])
def test_cordon_of_a_missing_node_is_not_found(client: HTTPClient,
                                               action: Callable[[Any, str], str]):
    with pytest.raises(NotFound, match='nodes "ghost" not found'):
        action(client, "ghost")


# ------------------------------------------------------------------ drain


UNMANAGED = "Pods that declare no controller (use --force to override)"
LOCAL = "Pods with local storage (use --delete-emptydir-data to override)"
OWNED = {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                              "uid": "u1", "controller": True}]}
DS_OWNED = {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds",
                                 "uid": "u2", "controller": True}]}
NOT_CONTROLLER = {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                       "name": "rs", "uid": "u1"}]}
MIRROR = {"annotations": {"kubernetes.io/config.mirror": "abc"}}
EMPTYDIR = {"volumes": [{"name": "scratch", "emptyDir": {}}]}


def pod_with(meta: dict[str, Any] | None = None, spec: dict[str, Any] | None = None,
             phase: str = "Running") -> dict[str, Any]:
    return {"metadata": {"name": "p", "namespace": "default", **(meta or {})},
            "spec": {"containers": [{"name": "c", "image": "x"}], **(spec or {})},
            "status": {"phase": phase}}


@pytest.mark.parametrize(("pod", "options", "expected"), [
    (pod_with(OWNED), {}, (True, "Okay", "")),
    (pod_with(), {}, (False, "Error", UNMANAGED)),
    (pod_with(NOT_CONTROLLER), {}, (False, "Error", UNMANAGED)),
    (pod_with(), {"force": True}, (True, "Warning", "deleting Pods that declare no controller")),
    (pod_with(phase="Succeeded"), {}, (True, "Okay", "")),
    (pod_with(phase="Failed"), {}, (True, "Okay", "")),
    (pod_with(DS_OWNED), {}, (False, "Warning", "ignoring DaemonSet-managed Pods")),
    (pod_with(DS_OWNED), {"force": True}, (False, "Warning", "ignoring DaemonSet-managed Pods")),
    (pod_with(DS_OWNED, phase="Failed"), {}, (True, "Okay", "")),
    (pod_with(MIRROR), {"force": True}, (False, "Skip", "")),
    (pod_with(OWNED, EMPTYDIR), {}, (False, "Error", LOCAL)),
    # The local-storage warning is replaced by the next filter's verdict, as in kubectl.
    (pod_with(OWNED, EMPTYDIR), {"delete_emptydir_data": True}, (True, "Okay", "")),
    (pod_with(None, EMPTYDIR), {"delete_emptydir_data": True}, (False, "Error", UNMANAGED)),
    (pod_with(None, EMPTYDIR), {"force": True}, (False, "Error", LOCAL)),
    (pod_with(OWNED, EMPTYDIR, phase="Succeeded"), {}, (True, "Okay", "")),
], ids=["managed", "bare", "owner-not-controller", "bare-force", "succeeded", "failed",
        "daemonset", "daemonset-force", "daemonset-finished", "mirror", "emptydir",
        "emptydir-allowed", "emptydir-allowed-bare", "emptydir-force", "emptydir-finished"])
def test_drain_filters_decide_as_kubectl(pod: dict[str, Any], options: dict[str, bool],
                                         expected: tuple[bool, str, str]):
    assert nodes.drain_pod_status(pod, **options) == expected


def pods_on(client: HTTPClient, node: str, ns: str) -> list[dict[str, Any]]:
    return client.list("pods", namespace=ns, field_selector=f"spec.nodeName={node}").items


@pytest.mark.usefixtures("uncordon_all")
def test_drain_empties_the_node_and_the_pods_come_back_elsewhere(client: HTTPClient, ns: str):
    client.create(deployment("web", ns, replicas=6))
    pods = wait_for(lambda: (lambda r: r if len(r) == 6 else None)(
        running_pods(client, ns, "web")), "six pods")
    node = pods[0]["spec"]["nodeName"]
    victims = {p["metadata"]["name"] for p in pods if p["spec"]["nodeName"] == node}

    lines = nodes.drain(client, node)

    assert lines[0] == f"node/{node} cordoned"
    assert lines[-1] == f"node/{node} drained"
    assert sorted(lines[1:-1]) == sorted(f"pod/{v} deleted" for v in victims)
    assert unschedulable(client, node)
    assert not pods_on(client, node, ns)
    after = wait_for(lambda: (lambda r: r if len(r) == 6 else None)(
        running_pods(client, ns, "web")), "six pods again")
    assert node not in {p["spec"]["nodeName"] for p in after}
    # Again: nothing left to do, in kubectl's words.
    assert nodes.drain(client, node) == [f"node/{node} already cordoned",
                                           f"node/{node} drained"]


@pytest.mark.usefixtures("uncordon_all")
def test_drain_refuses_unmanaged_pods_unless_forced(client: HTTPClient, ns: str):
    client.create(bare_pod("bare", ns, node="node-3"))
    client.create(bare_pod("other", ns, node="node-3"))
    client.create(bare_pod("elsewhere", ns, node="node-2"))
    wait_for(lambda: len(running_pods(client, ns)) == 3, "three running pods")

    with pytest.raises(PartialFailure) as err:
        nodes.drain(client, "node-3")
    assert err.value.done == ["node/node-3 cordoned"]
    assert err.value.errors == [
        'unable to drain node "node-3" due to error:cannot delete Pods that declare no '
        f"controller (use --force to override): {ns}/bare, {ns}/other"]
    # Refused: nothing was deleted, and the node stays cordoned (as kubectl leaves it).
    assert len(running_pods(client, ns)) == 3
    assert unschedulable(client, "node-3")

    lines = nodes.drain(client, "node-3", force=True)
    assert lines[0] == "node/node-3 already cordoned"
    assert lines[1] == f"WARNING: deleting Pods that declare no controller: {ns}/bare, {ns}/other"
    assert sorted(lines[2:4]) == ["pod/bare deleted", "pod/other deleted"]
    assert lines[4:] == ["node/node-3 drained"]
    assert [p["metadata"]["name"] for p in client.list("pods", namespace=ns).items] == [
        "elsewhere"]


@pytest.mark.usefixtures("uncordon_all")
def test_drain_refuses_pods_with_local_storage_unless_allowed(client: HTTPClient, ns: str):
    client.create(bare_pod("scratch", ns, node="node-3",
                           volumes=[{"name": "s", "emptyDir": {}}]))
    with pytest.raises(PartialFailure, match=re.escape(
            f"due to error:cannot delete {LOCAL}: {ns}/scratch")):
        nodes.drain(client, "node-3", force=True)
    lines = nodes.drain(client, "node-3", force=True, delete_emptydir_data=True)
    assert "pod/scratch deleted" in lines


@pytest.mark.usefixtures("uncordon_all")
def test_drain_reports_several_refusals_as_kubectls_aggregate(client: HTTPClient, ns: str):
    client.create(bare_pod("bare", ns, node="node-3"))
    client.create(bare_pod("scratch", ns, node="node-3",
                           volumes=[{"name": "s", "emptyDir": {}}]))
    with pytest.raises(PartialFailure) as err:
        nodes.drain(client, "node-3")
    assert err.value.errors == [
        f'unable to drain node "node-3" due to error:[cannot delete {LOCAL}: {ns}/scratch, '
        f"cannot delete {UNMANAGED}: {ns}/bare]"] or err.value.errors == [
        f'unable to drain node "node-3" due to error:[cannot delete {UNMANAGED}: {ns}/bare, '
        f"cannot delete {LOCAL}: {ns}/scratch]"]


@pytest.mark.usefixtures("uncordon_all")
def test_drain_gives_up_after_its_timeout_and_names_the_pending_pods(client: HTTPClient,
                                                                     ns: str):
    # Ignores SIGTERM, so it takes its whole grace period to go.
    client.create(bare_pod("stubborn", ns, node="node-3", terminationGracePeriodSeconds=30,
                           containers=[{"name": "c", "image": "busybox:1.36", "env": [
                               {"name": "FAKE_IGNORE_SIGTERM", "value": "1"}]}]))
    wait_for(lambda: running_pods(client, ns), "the pod running")
    started = time.monotonic()
    with pytest.raises(PartialFailure) as err:
        nodes.drain(client, "node-3", force=True, timeout=0.5)
    assert time.monotonic() - started < 5
    assert err.value.errors == [
        'unable to drain node "node-3" due to error:timed out waiting for the condition',
        'There are pending pods in node "node-3" when an error occurred: timed out waiting '
        "for the condition",
        "pod/stubborn"]
    assert err.value.done[0] == "node/node-3 cordoned"


@pytest.mark.usefixtures("uncordon_all")
def test_drain_grace_period_overrides_the_pods_own(client: HTTPClient, ns: str):
    client.create(bare_pod("stubborn", ns, node="node-3", terminationGracePeriodSeconds=30,
                           containers=[{"name": "c", "image": "busybox:1.36", "env": [
                               {"name": "FAKE_IGNORE_SIGTERM", "value": "1"}]}]))
    wait_for(lambda: running_pods(client, ns), "the pod running")
    started = time.monotonic()
    lines = nodes.drain(client, "node-3", force=True, grace_period=0, timeout=10)
    assert "pod/stubborn deleted" in lines
    assert time.monotonic() - started < 10


def test_drain_of_a_missing_node_is_not_found(client: HTTPClient):
    with pytest.raises(NotFound):
        nodes.drain(client, "ghost")

