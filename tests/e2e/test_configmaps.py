"""ConfigMap (v1), added by following docs/adding-a-kind.md: the real kubectl,
the official Python client and minikube-py's CLI against a running daemon.

CRUD, watch, list with label and field selectors, the server's table, kubectl's
``create configmap --from-literal/--from-file`` and ``describe`` (kubectl's own
describer must print what ``minikube-py describe`` prints).
"""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client, config, watch

from tests.waiting import wait_for

from .conftest import Daemon, Lines

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def core(daemon: Daemon) -> Iterator[client.CoreV1Api]:
    api = config.new_client_from_config(config_file=str(daemon.kubeconfig))
    try:
        yield client.CoreV1Api(api)
    finally:
        api.close()


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    (tmp_path / "app.properties").write_text("color=blue\nsize: 3\n")
    (tmp_path / "blob.bin").write_bytes(bytes(range(250, 256)) + b"\x00\xff")
    return tmp_path


def test_kubectl_create_configmap_from_literal_and_file(daemon: Daemon, sources: Path):
    out = daemon.kubectl("create", "configmap", "web-config", "--from-literal=mode=prod",
                         f"--from-file={sources / 'app.properties'}",
                         f"--from-file=raw={sources / 'blob.bin'}").stdout
    assert out.strip() == "configmap/web-config created"
    cm = daemon.get_json("configmap", "web-config")
    assert cm["data"] == {"mode": "prod", "app.properties": "color=blue\nsize: 3\n"}
    assert base64.b64decode(cm["binaryData"]["raw"]) == (sources / "blob.bin").read_bytes()
    # The server's table, as kubectl prints it: DATA counts both maps.
    row = daemon.kubectl("get", "cm", "web-config", "--no-headers").stdout.split()
    assert row[:2] == ["web-config", "3"]
    wide = daemon.kubectl("get", "configmaps", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["NAME", "DATA", "AGE"]


def test_kubectl_refuses_what_kubernetes_refuses(daemon: Daemon):
    daemon.kubectl("create", "cm", "frozen", "--from-literal=k=v")
    daemon.kubectl("patch", "cm", "frozen", "-p", '{"immutable": true}')
    changed = daemon.kubectl("patch", "cm", "frozen", "-p", '{"data": {"k": "w"}}',
                             check=False)
    assert changed.returncode == 1
    assert 'The ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when ' \
        "`immutable` is set" in changed.stderr
    thawed = daemon.kubectl("patch", "cm", "frozen", "-p", '{"immutable": false}', check=False)
    assert "immutable: Forbidden: field is immutable when `immutable` is set" in thawed.stderr
    bad_key = daemon.kubectl("apply", "-f", "-", check=False, input=(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: badkey}\ndata: {'..x': '1'}\n"))
    assert "data[..x]: Invalid value: \"..x\": must not start with '..'" in bad_key.stderr
    assert daemon.kubectl("get", "cm", "badkey", check=False).returncode == 1


def test_kubectl_describe_prints_what_minikube_py_describe_prints(daemon: Daemon,
                                                                   sources: Path):
    daemon.kubectl("create", "cm", "described", "--from-literal=greeting=hello world",
                   f"--from-file=raw={sources / 'blob.bin'}")
    daemon.kubectl("label", "cm", "described", "tier=front")
    theirs = daemon.kubectl("describe", "configmap", "described").stdout
    ours = daemon.cli("describe", "configmap", "described").stdout
    assert ours == theirs
    assert "greeting:\n----\nhello world\n" in ours and "raw: 8 bytes" in ours


def test_kubectl_watch_and_selectors(daemon: Daemon):
    daemon.kubectl("create", "cm", "watch-anchor", "--from-literal=a=1")
    daemon.kubectl("label", "cm", "watch-anchor", "watched=yes")
    watcher = subprocess.Popen(
        ["kubectl", "--cache-dir", str(daemon.state / "kubectl-cache"), "get", "cm",
         "-l", "watched=yes", "-w", "--request-timeout=20s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=daemon.env())
    assert watcher.stdout is not None and watcher.stderr is not None
    out = Lines(watcher.stdout)
    Lines(watcher.stderr)
    try:
        wait_for(lambda: out.starting("watch-anchor"), "the watcher's first row", timeout=30)
        daemon.kubectl("create", "cm", "watched-later", "--from-literal=b=2")
        daemon.kubectl("label", "cm", "watched-later", "watched=yes")
        wait_for(lambda: out.starting("watched-later"), "a row for the new ConfigMap",
                 timeout=30)
    finally:
        watcher.kill()
        watcher.wait()
    names = daemon.kubectl("get", "cm", "-l", "watched=yes", "-o", "name").stdout.split()
    assert names == ["configmap/watch-anchor", "configmap/watched-later"]
    by_field = daemon.kubectl("get", "cm", "--field-selector", "metadata.name=watch-anchor",
                              "-o", "name").stdout.split()
    assert by_field == ["configmap/watch-anchor"]
    daemon.kubectl("delete", "cm", "watched-later")
    assert daemon.kubectl("get", "cm", "watched-later", check=False).returncode == 1


def test_official_client_crud_list_and_watch(core: client.CoreV1Api):
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-config",
                                                           labels={"owner": "py"}),
                              data={"k": "v"}, binary_data={"b": "AAE="})
    made = core.create_namespaced_config_map("default", body)
    assert made.data == {"k": "v"} and made.binary_data == {"b": "AAE="}
    listed = core.list_namespaced_config_map("default", label_selector="owner=py")
    assert [c.metadata.name for c in listed.items] == ["py-config"]
    made.data["k"] = "w"
    core.replace_namespaced_config_map("py-config", "default", made)
    core.patch_namespaced_config_map("py-config", "default", {"data": {"z": "1"}})
    assert core.read_namespaced_config_map("py-config", "default").data == {"k": "w", "z": "1"}
    seen = []
    stream = watch.Watch()
    for ev in stream.stream(core.list_namespaced_config_map, "default",
                            label_selector="owner=py",
                            resource_version=listed.metadata.resource_version,
                            timeout_seconds=10):
        seen.append((ev["type"], ev["object"].data))
        if len(seen) == 2:
            stream.stop()
    assert seen == [("MODIFIED", {"k": "w"}), ("MODIFIED", {"k": "w", "z": "1"})]
    core.delete_namespaced_config_map("py-config", "default")
    with pytest.raises(client.ApiException) as err:
        core.create_namespaced_config_map("default", client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="py-bad"), binary_data={"x": "!!"}))
    assert err.value.status == 400 and "illegal base64 data at input byte 0" in err.value.body


def test_minikube_py_create_get_describe_delete(daemon: Daemon, sources: Path):
    out = daemon.cli("create", "configmap", "cli-config", "--from-literal=a=1",
                     f"--from-file={sources}").stdout
    assert out.strip() == "configmap/cli-config created"
    cm = daemon.get_json("cm", "cli-config")
    assert cm["data"] == {"a": "1", "app.properties": "color=blue\nsize: 3\n"}
    assert set(cm["binaryData"]) == {"blob.bin"}
    rows = daemon.cli("get", "cm", "cli-config").stdout.splitlines()
    assert rows[0].split() == ["NAME", "DATA", "AGE"] and rows[1].split()[:2] == [
        "cli-config", "3"]
    again = daemon.cli("create", "cm", "cli-config", "--from-literal=a=1", check=False)
    assert again.returncode == 1
    assert 'configmaps "cli-config" already exists' in again.stderr
    twice = daemon.cli("create", "cm", "cli-twice", "--from-literal=a=1", "--from-literal=a=2",
                       check=False)
    assert twice.returncode == 1 and 'cannot add key "a"' in twice.stderr
    assert "cli-twice" not in daemon.kubectl("get", "cm", "-o", "name").stdout
    daemon.cli("delete", "cm", "cli-config")
    assert daemon.kubectl("get", "cm", "cli-config", check=False).returncode == 1
