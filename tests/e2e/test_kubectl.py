"""The real kubectl (v1.32) against a running daemon, as a user would use it."""

from __future__ import annotations

import json
import re
import textwrap

import pytest
import yaml

from tests.waiting import wait_for

from .conftest import MANIFESTS, Daemon, Lines

pytestmark = pytest.mark.e2e

PLACED_POD = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata:
      name: {name}
      labels: {{app: placed}}
    spec:
      nodeName: node-1
      containers:
      - name: main
        image: localhost/minikube-py/busybox:1.35
        imagePullPolicy: IfNotPresent
    """)
# A pod nothing schedules or runs: it only stands in a watched selector, so that a
# watcher prints its row as soon as its list is done.
ANCHOR_POD = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata:
      name: {name}
      labels: {{app: {app}}}
    spec:
      schedulerName: unscheduled
      containers:
      - name: main
        image: localhost/minikube-py/busybox:1.35
    """)


def test_version_and_discovery(daemon: Daemon):
    version = json.loads(daemon.kubectl("version", "-o", "json").stdout)
    assert version["serverVersion"]["major"] == "1"
    assert version["serverVersion"]["minor"] == "32"
    resources = daemon.kubectl("api-resources", "--no-headers").stdout
    for line in ("pods", "po", "deployments", "deploy", "replicasets", "nodes", "namespaces",
                 "events"):
        assert line in resources.split(), line
    assert "apps/v1" in daemon.kubectl("api-versions").stdout.split()


def test_apply_file_again_and_changed(daemon: Daemon, tmp_path):
    hello = MANIFESTS / "hello-pod.yaml"
    assert daemon.kubectl("apply", "-f", str(hello)).stdout.strip() == "pod/hello created"
    assert daemon.kubectl("apply", "-f", str(hello)).stdout.strip() == "pod/hello unchanged"
    changed = yaml.safe_load(hello.read_text())
    changed["metadata"]["labels"]["tier"] = "demo"
    f = tmp_path / "hello.yaml"
    f.write_text(yaml.safe_dump(changed))
    assert daemon.kubectl("apply", "-f", str(f)).stdout.strip() == "pod/hello configured"
    assert daemon.get_json("pod", "hello")["metadata"]["labels"]["tier"] == "demo"


def test_apply_directory_and_multi_document_file(daemon: Daemon):
    out = daemon.kubectl("apply", "-f", str(MANIFESTS)).stdout.splitlines()
    assert "namespace/batch created" in out or "namespace/batch unchanged" in out
    assert any(line.startswith("deployment.apps/web ") for line in out)
    assert any(line.startswith("pod/countdown ") for line in out)
    multi = daemon.kubectl("apply", "-f", str(MANIFESTS / "batch-namespace.yaml")).stdout
    assert multi.splitlines() == ["namespace/batch unchanged", "pod/countdown unchanged"]
    assert daemon.get_json("pod", "countdown", "-n", "batch")["spec"]["restartPolicy"] == \
        "OnFailure"


def test_get_in_every_output_format(daemon: Daemon):
    daemon.kubectl("apply", "-f", str(MANIFESTS / "hello-pod.yaml"))
    wide = daemon.kubectl("get", "pods", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                               "NOMINATED", "NODE", "READINESS", "GATES"]
    assert any(row.startswith("hello ") for row in wide[1:])
    as_yaml = yaml.safe_load(daemon.kubectl("get", "pod", "hello", "-o", "yaml").stdout)
    assert as_yaml["kind"] == "Pod" and as_yaml["spec"]["containers"][0]["name"] == "hello"
    as_json = daemon.get_json("pods")
    assert as_json["kind"] == "List"
    assert "hello" in [p["metadata"]["name"] for p in as_json["items"]]
    nodes = daemon.kubectl("get", "nodes").stdout.splitlines()
    assert nodes[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert [n.split()[:2] for n in nodes[1:]] == [["node-1", "Ready"], ["node-2", "Ready"]]
    names = daemon.kubectl("get", "pods", "-l", "app=hello", "-o", "name").stdout.split()
    assert names == ["pod/hello"]


def test_describe_logs_events_and_delete_of_a_running_pod(daemon: Daemon):
    daemon.kubectl("apply", "-f", "-", input=PLACED_POD.format(name="placed"))
    daemon.kubectl("wait", "--for=condition=Ready", "pod/placed", "--timeout=30s")
    described = daemon.kubectl("describe", "pod", "placed").stdout
    assert re.search(r"^Node:\s+node-1/", described, re.M)
    assert re.search(r"^Status:\s+Running$", described, re.M)
    events_section = described.split("Events:", 1)[1]
    for reason in ("Pulled", "Created", "Started"):
        assert reason in events_section, reason
    logs = daemon.kubectl("logs", "placed").stdout
    assert "as default/placed/main" in logs
    assert daemon.kubectl("logs", "placed", "--tail=1").stdout.count("\n") == 1
    events = daemon.kubectl("get", "events", "--field-selector",
                            "involvedObject.name=placed").stdout
    assert "Started" in events and "pod/placed" in events
    deleted = daemon.kubectl("delete", "pod", "placed").stdout.strip()
    assert deleted == 'pod "placed" deleted'
    missing = daemon.kubectl("get", "pod", "placed", check=False)
    assert missing.returncode == 1
    assert 'Error from server (NotFound): pods "placed" not found' in missing.stderr


def test_scale(daemon: Daemon):
    daemon.kubectl("apply", "-f", str(MANIFESTS / "web-deployment.yaml"))
    out = daemon.kubectl("scale", "deployment", "web", "--replicas=5").stdout.strip()
    assert out == "deployment.apps/web scaled"
    dep = daemon.get_json("deployment", "web")
    assert dep["spec"]["replicas"] == 5
    assert dep["metadata"]["generation"] >= 2


def test_patch_types(daemon: Daemon):
    daemon.kubectl("apply", "-f", str(MANIFESTS / "hello-pod.yaml"))
    daemon.kubectl("patch", "pod", "hello", "--type=merge", "-p",
                   '{"metadata":{"annotations":{"note":"merge"}}}')
    daemon.kubectl("patch", "pod", "hello", "--type=json", "-p",
                   '[{"op":"add","path":"/metadata/labels/json","value":"yes"}]')
    daemon.kubectl("patch", "pod", "hello", "-p",  # strategic is the default
                   '{"spec":{"containers":[{"name":"hello",'
                   '"image":"localhost/minikube-py/busybox:1.36"}]}}')
    pod = daemon.get_json("pod", "hello")
    assert pod["metadata"]["annotations"]["note"] == "merge"
    assert pod["metadata"]["labels"]["json"] == "yes"
    assert pod["spec"]["containers"][0]["image"] == "localhost/minikube-py/busybox:1.36"
    assert len(pod["spec"]["containers"]) == 1  # merged by name, not replaced


def test_server_side_apply(daemon: Daemon):
    pod = PLACED_POD.format(name="ssa").replace("nodeName: node-1\n  ", "")
    out = daemon.kubectl("apply", "--server-side", "-f", "-", input=pod).stdout.strip()
    assert out == "pod/ssa serverside-applied"
    managers = [e["manager"] for e in daemon.get_json(
        "pod", "ssa", "--show-managed-fields")["metadata"]["managedFields"]]
    assert "kubectl" in managers


@pytest.mark.parametrize("mutate, message", [
    (lambda p: p["spec"]["containers"][0].__setitem__("imagee", "x"),
     'strict decoding error: unknown field "spec.containers[0].imagee"'),
    (lambda p: p["spec"]["containers"][0].pop("image"),
     'The Pod "bad" is invalid: spec.containers[0].image: Required value'),
    (lambda p: p["spec"]["containers"][0].__setitem__(
        "resources", {"requests": {"memory": "lots"}}),
     "spec.containers[0].resources.requests[memory]: Invalid value: \"lots\""),
])
def test_bad_manifests_are_refused_with_the_field_named(daemon: Daemon, mutate, message):
    pod = yaml.safe_load(PLACED_POD.format(name="bad"))
    mutate(pod)
    result = daemon.kubectl("apply", "-f", "-", input=yaml.safe_dump(pod), check=False)
    assert result.returncode == 1
    assert message in result.stderr
    assert daemon.kubectl("get", "pod", "bad", check=False).returncode == 1


def test_watch_sees_changes(daemon: Daemon):
    """``kubectl get -w`` prints the changes made after it started, up to Running."""
    import subprocess
    daemon.kubectl("apply", "-f", "-", input=ANCHOR_POD.format(name="watch-anchor",
                                                               app="watched"))
    watcher = subprocess.Popen(
        ["kubectl", "--cache-dir", str(daemon.state / "kubectl-cache"), "get", "pods",
         "-l", "app=watched", "-w", "--request-timeout=20s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=daemon.env())
    assert watcher.stdout is not None and watcher.stderr is not None
    out = Lines(watcher.stdout)
    Lines(watcher.stderr)  # read, so that kubectl never blocks on a full pipe

    def running_rows() -> list[list[str]]:
        rows = [line.split() for line in out.starting("watched")]
        return [row for row in rows if row[2:3] == ["Running"]]

    try:
        # Its list is printed (the anchor's row): it watches from there on, so the
        # pod made now is a change it must see.
        wait_for(lambda: out.starting("watch-anchor"), "the watcher's first row", timeout=30)
        pod = PLACED_POD.format(name="watched").replace("app: placed", "app: watched")
        daemon.kubectl("apply", "-f", "-", input=pod)
        daemon.kubectl("wait", "--for=condition=Ready", "pod/watched", "--timeout=30s")
        wait_for(running_rows, "a Running row for pod watched", timeout=30)
        daemon.kubectl("delete", "pod", "watched")
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)
        daemon.kubectl("delete", "pod", "watch-anchor", "--ignore-not-found")


def test_logs_follow_streams_until_interrupted(daemon: Daemon):
    """``kubectl logs -f`` does not stop at the lines written so far: a line the
    container writes later (its exit line, once the pod is deleted) reaches it."""
    import subprocess
    daemon.kubectl("apply", "-f", "-", input=PLACED_POD.format(name="follow"))
    daemon.kubectl("wait", "--for=condition=Ready", "pod/follow", "--timeout=30s")
    proc = subprocess.Popen(
        ["kubectl", "--cache-dir", str(daemon.state / "kubectl-cache"), "logs", "-f",
         "--timestamps", "follow"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=daemon.env())
    assert proc.stdout is not None and proc.stderr is not None
    out, err = Lines(proc.stdout), Lines(proc.stderr)
    try:
        # "ready" is the last line a running fake container writes.
        wait_for(lambda: any(line.endswith(" ready") for line in out.lines),
                 "the lines written so far", timeout=30)
        assert proc.poll() is None, "logs -f ended while the container still runs"
        daemon.kubectl("delete", "pod", "follow")
        wait_for(lambda: any("received SIGTERM" in line for line in out.lines),
                 "the exit line, written after logs -f started", timeout=30)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    text = out.text()
    first = text.splitlines()[0]
    # --timestamps: an RFC 3339 time, then the line itself (which has its own time).
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ", first), first + err.text()
    assert "as default/follow/main" in text


def test_debug_adds_an_ephemeral_container(daemon: Daemon):
    """``kubectl debug`` (no terminal) patches ``pods/ephemeralcontainers``; the
    hollow kubelet starts the container and reports it (never ready)."""
    daemon.kubectl("apply", "-f", "-", input=PLACED_POD.format(name="debugged"))
    daemon.kubectl("wait", "--for=condition=Ready", "pod/debugged", "--timeout=60s")
    result = daemon.kubectl("debug", "debugged", "--profile=general",
                            "--image=localhost/minikube-py/busybox:1.35", "--", "true",
                            timeout=30)
    assert "panic" not in result.stderr, result.stderr
    pod = daemon.get_json("pod", "debugged")
    names = [c["name"] for c in pod["spec"]["ephemeralContainers"]]
    assert len(names) == 1 and names[0].startswith("debugger-")
    statuses = wait_for(lambda: daemon.get_json("pod", "debugged")["status"].get(
        "ephemeralContainerStatuses"), timeout=30, what="the ephemeral container's status")
    assert statuses[0]["name"] == names[0] and statuses[0]["ready"] is False
    daemon.kubectl("delete", "pod", "debugged", "--grace-period=0")


UNSERVED_AND_SERVED = textwrap.dedent("""\
    apiVersion: v1
    kind: ResourceQuota
    metadata: {name: mixed}
    spec: {hard: {pods: "1"}}
    ---
    apiVersion: networking.k8s.io/v1
    kind: Ingress
    metadata: {name: mixed}
    spec: {}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: mixed}
    spec:
      replicas: 0
      selector: {matchLabels: {app: mixed}}
      template:
        metadata: {labels: {app: mixed}}
        spec:
          containers: [{name: c, image: localhost/minikube-py/busybox:1.35}]
    """)


def test_an_unserved_kind_fails_alone_and_the_rest_of_the_file_applies(daemon: Daemon):
    """As on a real cluster: kubectl names the kinds it cannot map and applies
    the others (it used to drop the whole file: "failed to download openapi")."""
    result = daemon.kubectl("apply", "-f", "-", input=UNSERVED_AND_SERVED, check=False)
    assert result.returncode == 1
    assert "deployment.apps/mixed created" in result.stdout, result.stderr
    assert 'no matches for kind "ResourceQuota" in version "v1"' in result.stderr
    assert 'no matches for kind "Ingress" in version "networking.k8s.io/v1"' in result.stderr
    assert "openapi" not in result.stderr
    assert daemon.get_json("deployment", "mixed")["spec"]["replicas"] == 0
    daemon.kubectl("delete", "deployment", "mixed")


def test_a_list_applies_and_its_items_are_validated_by_kubectl(daemon: Daemon):
    """``kind: List`` goes through kubectl's OpenAPI v2 validation, as on a real
    cluster: valid items apply, an unknown field is kubectl's own error."""
    items = [yaml.safe_load(PLACED_POD.format(name="listed"))]
    as_list = {"apiVersion": "v1", "kind": "List", "items": items}
    out = daemon.kubectl("apply", "-f", "-", input=yaml.safe_dump(as_list)).stdout
    assert out.strip() == "pod/listed created"
    items[0]["spec"]["containers"][0]["bogus"] = 1
    result = daemon.kubectl("apply", "-f", "-", input=yaml.safe_dump(as_list), check=False)
    assert result.returncode == 1
    assert 'unknown field "bogus" in io.k8s.api.core.v1.Container' in result.stderr
    daemon.kubectl("delete", "pod", "listed", "--grace-period=0")


def test_explain_reads_the_generated_schema(daemon: Daemon):
    """``kubectl explain`` shows what tools/gen_schemas.py took from types.go
    (enum values, required fields, volume sources typed field by field) with
    our descriptions, the field's own and its type's."""
    restart = daemon.kubectl("explain", "pod.spec.restartPolicy").stdout
    assert re.search(r"ENUM:\s+Always\s+Never\s+OnFailure", restart)
    assert "Always, OnFailure or Never." in restart
    nfs = daemon.kubectl("explain", "pod.spec.volumes.nfs").stdout
    assert "FIELD: nfs <NFSVolumeSource>" in nfs
    assert re.search(r"server\s+<string> -required-", nfs)
    strategy = daemon.kubectl("explain", "deployment.spec.strategy").stdout
    assert "Update strategy." in strategy  # the field's own description
    assert "How a deployment replaces old pods with new ones." in strategy  # the type's
    recursive = daemon.kubectl("explain", "job.spec.podFailurePolicy", "--recursive").stdout
    assert re.search(r"onExitCodes\s+<PodFailurePolicyOnExitCodesRequirement>", recursive)


def test_a_wrongly_typed_field_of_any_volume_source_is_refused(daemon: Daemon):
    pod = yaml.safe_load(PLACED_POD.format(name="badvolume"))
    pod["spec"]["volumes"] = [{"name": "v", "nfs": {"server": 5, "path": "/x"}}]
    result = daemon.kubectl("apply", "-f", "-", input=yaml.safe_dump(pod), check=False)
    assert result.returncode == 1
    assert "spec.volumes[0].nfs.server: expected string, got integer 5" in result.stderr
    assert daemon.kubectl("get", "pod", "badvolume", check=False).returncode == 1
