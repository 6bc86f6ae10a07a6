"""Real kubectl against an in-process API server: the ``create`` commands that send
their objects as Kubernetes protobuf (client-go does, and does not fall back to JSON
on a 415) succeed, and what is stored is what the command asked for.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from minikube_py.apiserver import tls
from minikube_py.apiserver.server import APIServer
from minikube_py.client import kubeconfig
from minikube_py.store.registry import Registry
from minikube_py.store.store import Store

KUBECTL = shutil.which("kubectl")

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")

TOKEN = "protobuf-test-token"
IMAGE = "localhost/minikube-py/busybox:1.35"


@dataclass
class Cluster:
    registry: Registry
    kubeconfig: Path
    cache: Path
    home: Path

    def kubectl(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert KUBECTL is not None
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.home)}
        return subprocess.run(
            [KUBECTL, "--kubeconfig", str(self.kubeconfig), "--cache-dir", str(self.cache),
             *args],
            capture_output=True, text=True, timeout=60, env=env, check=False)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    store = Store(tmp_path / "store")
    registry = Registry(store)
    registry.ensure_system_namespaces()
    state = tmp_path / "state"
    state.mkdir()
    ca, crt, key = tls.ensure(state, "127.0.0.1")
    server = APIServer(registry, token=TOKEN, port=0, tls=tls.server_context(crt, key))
    server.start()
    config = tmp_path / "kubeconfig"
    kubeconfig.write(config, server.url, TOKEN, ca_pem=ca.read_bytes())
    home = tmp_path / "home"
    home.mkdir()
    try:
        yield Cluster(registry, config, tmp_path / "cache", home)
    finally:
        server.stop()
        store.close()


def created(result: subprocess.CompletedProcess[str], line: str) -> None:
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == line, (result.stdout, result.stderr)


def test_create_namespace_sends_protobuf(cluster: Cluster) -> None:
    result = cluster.kubectl("create", "namespace", "pb-ns", "-v=8")
    created(result, "namespace/pb-ns created")
    # The body really was protobuf (kubectl logs its request headers at -v=8).
    assert "Content-Type: application/vnd.kubernetes.protobuf" in result.stderr
    ns = cluster.registry.get("namespaces", None, "pb-ns")
    assert ns["metadata"]["name"] == "pb-ns"
    assert ns["status"]["phase"] == "Active"


def test_create_deployment(cluster: Cluster) -> None:
    result = cluster.kubectl("create", "deployment", "web", f"--image={IMAGE}",
                             "--replicas=2", "--port=8080")
    created(result, "deployment.apps/web created")
    deploy = cluster.registry.get("deployments", "default", "web")
    assert deploy["metadata"]["labels"] == {"app": "web"}
    spec = deploy["spec"]
    assert spec["replicas"] == 2
    assert spec["selector"] == {"matchLabels": {"app": "web"}}
    assert spec["template"]["metadata"]["labels"] == {"app": "web"}
    [container] = spec["template"]["spec"]["containers"]
    assert container["name"] == "busybox"
    assert container["image"] == IMAGE
    assert container["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]
    assert spec["strategy"]["type"] == "RollingUpdate"


def test_create_deployment_keeps_zero_replicas(cluster: Cluster) -> None:
    created(cluster.kubectl("create", "deployment", "idle", f"--image={IMAGE}",
                            "--replicas=0"), "deployment.apps/idle created")
    assert cluster.registry.get("deployments", "default", "idle")["spec"]["replicas"] == 0


def test_create_priorityclass(cluster: Cluster) -> None:
    result = cluster.kubectl("create", "priorityclass", "high", "--value=1000",
                             "--description=x")
    created(result, "priorityclass.scheduling.k8s.io/high created")
    pc = cluster.registry.get("priorityclasses", None, "high")
    assert pc["value"] == 1000
    assert pc["description"] == "x"
    assert pc.get("globalDefault", False) is False


def test_same_object_as_the_json_path(cluster: Cluster, tmp_path: Path) -> None:
    """kubectl's own JSON for the same command stores the same spec."""
    created(cluster.kubectl("create", "deployment", "proto", f"--image={IMAGE}",
                            "--replicas=3"), "deployment.apps/proto created")
    rendered = cluster.kubectl("create", "deployment", "json", f"--image={IMAGE}",
                               "--replicas=3", "--dry-run=client", "-o", "json")
    assert rendered.returncode == 0, rendered.stderr
    manifest = tmp_path / "json.json"
    manifest.write_text(rendered.stdout)
    created(cluster.kubectl("create", "-f", str(manifest)), "deployment.apps/json created")

    def spec(name: str) -> object:
        obj = cluster.registry.get("deployments", "default", name)
        return json.loads(json.dumps(obj["spec"]).replace(f'"{name}"', '"NAME"'))

    assert spec("proto") == spec("json")
