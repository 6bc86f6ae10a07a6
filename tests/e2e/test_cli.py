"""Our own CLI against a running daemon: output and exit codes as kubectl's."""

from __future__ import annotations

import json
import textwrap

import pytest
import yaml

from tests.waiting import wait_for

from .conftest import MANIFESTS, Daemon, Lines

pytestmark = pytest.mark.e2e


def test_apply_reports_created_unchanged_configured(daemon: Daemon, tmp_path):
    web = MANIFESTS / "web-deployment.yaml"
    assert daemon.cli("apply", "-f", str(web)).stdout == "deployment.apps/web created\n"
    assert daemon.cli("apply", "-f", str(web)).stdout == "deployment.apps/web unchanged\n"
    changed = yaml.safe_load(web.read_text())
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = \
        "localhost/minikube-py/busybox:1.36"
    f = tmp_path / "web.yaml"
    f.write_text(yaml.safe_dump(changed))
    assert daemon.cli("apply", "-f", str(f)).stdout == "deployment.apps/web configured\n"


def test_apply_directory_recursive_and_stdin(daemon: Daemon, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: cli-a}\n")
    (tmp_path / "sub" / "b.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: cli-b}\n")
    flat = daemon.cli("apply", "-f", str(tmp_path)).stdout
    assert flat == "namespace/cli-a created\n"
    deep = daemon.cli("apply", "-R", "-f", str(tmp_path)).stdout
    assert deep == "namespace/cli-a unchanged\nnamespace/cli-b created\n"
    piped = daemon.cli("apply", "-f", "-", input=(tmp_path / "a.yaml").read_text()).stdout
    assert piped == "namespace/cli-a unchanged\n"


def test_get_table_name_and_formats(daemon: Daemon):
    daemon.cli("apply", "-f", str(MANIFESTS / "hello-pod.yaml"))
    table = daemon.cli("get", "pods").stdout.splitlines()
    assert table[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    hello = next(r.split() for r in table[1:] if r.startswith("hello "))
    assert hello[2] in ("Pending", "ContainerCreating", "Running")
    assert "NOMINATED NODE" in daemon.cli("get", "pods", "-o", "wide").stdout
    assert daemon.cli("get", "pod", "hello", "-o", "name").stdout == "pod/hello\n"
    assert yaml.safe_load(daemon.cli("get", "pod", "hello", "-o", "yaml").stdout)[
        "metadata"]["name"] == "hello"
    listing = json.loads(daemon.cli("get", "pods", "-A", "-o", "json").stdout)
    assert listing["kind"] == "List"
    all_ns = daemon.cli("get", "pods", "-A").stdout.splitlines()
    assert all_ns[0].split()[0] == "NAMESPACE"
    assert daemon.cli("get", "nodes", "-l", "kubernetes.io/hostname=node-2",
                      "-o", "name").stdout == "node/node-2\n"


def test_describe_logs_delete_of_a_running_pod(daemon: Daemon):
    daemon.cli("apply", "-f", "-", input=textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: cli-run}
        spec:
          nodeName: node-2
          containers: [{name: main, image: localhost/minikube-py/busybox:1.35}]
        """))
    daemon.kubectl("wait", "--for=condition=Ready", "pod/cli-run", "--timeout=30s")
    described = daemon.cli("describe", "pod", "cli-run").stdout
    assert "Events:" in described and "Started" in described.split("Events:")[1]
    assert "as default/cli-run/main" in daemon.cli("logs", "cli-run").stdout
    assert "as default/cli-run/main" in daemon.cli("logs", "pod/cli-run", "--tail", "5").stdout
    events = daemon.cli("events", "--for", "pod/cli-run").stdout
    assert "Started" in events and "pod/cli-run" in events
    assert daemon.cli("delete", "pod", "cli-run").stdout == 'pod "cli-run" deleted\n'
    gone = daemon.cli("get", "pod", "cli-run", check=False)
    assert gone.returncode == 1
    assert gone.stderr == 'Error from server (NotFound): pods "cli-run" not found\n'


def test_scale_and_delete_from_file(daemon: Daemon):
    daemon.cli("apply", "-f", str(MANIFESTS / "web-deployment.yaml"))
    assert daemon.cli("scale", "deployment", "web", "--replicas", "7").stdout == \
        "deployment.apps/web scaled\n"
    assert daemon.get_json("deployment", "web")["spec"]["replicas"] == 7
    out = daemon.cli("delete", "-f", str(MANIFESTS / "web-deployment.yaml")).stdout
    assert out == 'deployment.apps "web" deleted\n'


@pytest.mark.parametrize("args, stderr", [
    (("get", "widgets"), 'error: the server doesn\'t have a resource type "widgets"\n'),
    (("get", "pod", "nope"), 'Error from server (NotFound): pods "nope" not found\n'),
    (("apply", "-f", "/no/such.yaml"), 'error: the path "/no/such.yaml" does not exist\n'),
    (("scale", "deployment", "nope", "--replicas", "1"),
     'Error from server (NotFound): deployments.apps "nope" not found\n'),
])
def test_errors_are_kubectl_shaped(daemon: Daemon, args: tuple[str, ...], stderr: str):
    result = daemon.cli(*args, check=False)
    assert result.returncode == 1
    assert result.stderr == stderr


def test_invalid_manifest_names_file_and_field(daemon: Daemon, tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\n"
                 "spec: {containers: [{name: c}]}\n")
    result = daemon.cli("apply", "-f", str(f), check=False)
    assert result.returncode == 1
    assert 'Pod "bad" is invalid: spec.containers[0].image: Required value' in result.stderr
    assert f"({f}:1)" in result.stderr


def test_without_a_daemon_it_says_how_to_start_one(tmp_path):
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "minikube_py", "--kubeconfig",
                             str(tmp_path / "none"), "get", "pods"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "no minikube-py control plane is running" in result.stderr
    assert "minikube-py daemon" in result.stderr


def test_get_watch_prints_changes(daemon: Daemon):
    """``get -w`` prints a row per change made after it started: the new pod
    Pending first, then Running."""
    import subprocess
    import sys
    # A pod nothing schedules or runs, in the watched selector: the watcher prints
    # its row once its list is done, and watches from that list on.
    daemon.cli("apply", "-f", "-", input=textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: cli-anchor, labels: {app: cli-watch}}
        spec:
          schedulerName: unscheduled
          containers: [{name: main, image: localhost/minikube-py/busybox:1.35}]
        """))
    watcher = subprocess.Popen([sys.executable, "-m", "minikube_py", "get", "pods", "-w",
                                "-l", "app=cli-watch"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=daemon.env())
    assert watcher.stdout is not None and watcher.stderr is not None
    out, err = Lines(watcher.stdout), Lines(watcher.stderr)

    def rows() -> list[list[str]]:
        return [line.split() for line in out.starting("cli-watch")]

    try:
        wait_for(lambda: out.starting("cli-anchor"), "the watcher's first row", timeout=30)
        daemon.cli("apply", "-f", "-", input=textwrap.dedent("""\
            apiVersion: v1
            kind: Pod
            metadata: {name: cli-watch, labels: {app: cli-watch}}
            spec:
              nodeName: node-1
              containers: [{name: main, image: localhost/minikube-py/busybox:1.35}]
            """))
        daemon.kubectl("wait", "--for=condition=Ready", "pod/cli-watch", "--timeout=30s")
        wait_for(lambda: any(r[1:3] == ["1/1", "Running"] for r in rows()),
                 "a Running row for pod cli-watch", timeout=30)
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)
        daemon.kubectl("delete", "pod", "cli-anchor", "--ignore-not-found")
    assert rows()[0][:3] == ["cli-watch", "0/1", "Pending"], out.text() + err.text()
