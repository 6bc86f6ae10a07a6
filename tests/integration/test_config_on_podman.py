"""ConfigMaps, Secrets, the downward API and service-account tokens inside real
Podman containers: exact values through envFrom and volumes, updates of a
mounted ConfigMap within the sync period (a subPath mount keeping its first
value), CreateContainerConfigError until a missing ConfigMap appears, and an
unsupported volume refused at admission.

Values are read inside the containers with ``podman exec``."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import Daemon
from tests.hostclean import podman_daemon
from tests.inpod import app_container, in_pod, podman
from tests.waiting import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

IMAGE = "localhost/minikube-py/busybox:1.35"
SYNC = 2  # --sync-frequency: how soon a mounted ConfigMap must follow an edit


def manifests() -> str:
    container = {
        "name": "app", "image": IMAGE, "imagePullPolicy": "IfNotPresent",
        "command": ["sleep", "3600"],
        "envFrom": [{"configMapRef": {"name": "settings"}, "prefix": "CFG_"}],
        "env": [{"name": "DB_PASSWORD",
                 "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
                {"name": "MY_NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
                {"name": "MEM_MI", "valueFrom": {"resourceFieldRef": {
                    "resource": "limits.memory", "divisor": "1Mi"}}}],
        "resources": {"limits": {"memory": "64Mi"}},
        "volumeMounts": [
            {"name": "secret", "mountPath": "/etc/db"},
            {"name": "all", "mountPath": "/etc/all"},
            {"name": "settings", "mountPath": "/etc/settings"},
            {"name": "settings", "mountPath": "/etc/pinned.conf", "subPath": "mode"}]}
    docs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"},
         "data": {"mode": "fast", "level": "3"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"},
         "stringData": {"password": "s3cr=t with spaces", "user": "admin"}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "app"},
         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "cfg"}},
                  "template": {"metadata": {"labels": {"app": "cfg", "tier": "be"}}, "spec": {
                      "terminationGracePeriodSeconds": 1, "containers": [container],
                      "volumes": [
                          {"name": "secret", "secret": {"secretName": "db",
                                                        "defaultMode": 0o400}},
                          {"name": "settings", "configMap": {"name": "settings"}},
                          {"name": "all", "projected": {"sources": [
                              {"configMap": {"name": "settings",
                                             "items": [{"key": "level", "path": "cfg/level"}]}},
                              {"secret": {"name": "db",
                                          "items": [{"key": "user", "path": "user"}]}},
                              {"downwardAPI": {"items": [
                                  {"path": "labels", "fieldRef": {
                                      "fieldPath": "metadata.labels"}}]}}]}}]}}}},
    ]
    return yaml.safe_dump_all(docs)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    with podman_daemon(tmp_path_factory.mktemp("config") / "state",
                       "--sync-frequency", str(SYNC)) as d:
        d.kubectl("apply", "-f", "-", input=manifests())
        d.kubectl("rollout", "status", "deployment/app", "--timeout=120s")
        yield d


def sh(d: Daemon, pod: str, script: str) -> str:
    return in_pod(d, pod, script, check=True)


def app_pod(d: Daemon) -> dict[str, Any]:
    pods = d.get_json("pods", "-l", "app=cfg")["items"]
    assert len(pods) == 1
    return pods[0]  # type: ignore[no-any-return]


def test_a_deployment_sees_exact_values(daemon: Daemon):
    pod = app_pod(daemon)
    name = pod["metadata"]["name"]
    env = dict(line.split("=", 1) for line in sh(daemon, name, "env").splitlines()
               if "=" in line)
    assert env["CFG_mode"] == "fast" and env["CFG_level"] == "3"
    assert env["DB_PASSWORD"] == "s3cr=t with spaces"
    assert env["MY_NODE"] == pod["spec"]["nodeName"]
    assert env["MEM_MI"] == "64"
    assert sh(daemon, name, "cat /etc/db/password") == "s3cr=t with spaces"
    assert sh(daemon, name, "stat -L -c %a /etc/db/password").strip() == "400"
    assert sh(daemon, name, "cat /etc/all/cfg/level; echo; cat /etc/all/user") == "3\nadmin"
    labels = sh(daemon, name, "cat /etc/all/labels")
    assert 'app="cfg"' in labels and 'tier="be"' in labels
    # The atomic writer's layout, and API data is read-only.
    listing = sh(daemon, name, "ls -a /etc/settings")
    assert "..data" in listing.split() and "mode" in listing.split()
    denied = podman(daemon, "exec", app_container(daemon, name), "sh", "-c",
                    "echo x > /etc/settings/new", check=False)
    assert denied.returncode != 0


def test_the_service_account_token_is_mounted_and_accepted(daemon: Daemon):
    pod = app_pod(daemon)
    name = pod["metadata"]["name"]
    assert pod["spec"]["serviceAccountName"] == "default"
    base = "/var/run/secrets/kubernetes.io/serviceaccount"
    assert sh(daemon, name, f"cat {base}/namespace") == "default"
    ca = sh(daemon, name, f"cat {base}/ca.crt")
    assert ca.startswith("-----BEGIN CERTIFICATE-----")
    token = sh(daemon, name, f"cat {base}/token").strip()
    review = daemon.kubectl("create", "-o", "json", "-f", "-", input=json.dumps({
        "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
        "spec": {"token": token}}))
    status = json.loads(review.stdout)["status"]
    assert status["authenticated"] is True, status
    assert status["user"]["username"] == "system:serviceaccount:default:default"
    assert status["user"]["extra"]["authentication.kubernetes.io/pod-name"] == [name]


def test_an_edited_configmap_reaches_the_mounted_file_but_not_the_subpath(daemon: Daemon):
    name = app_pod(daemon)["metadata"]["name"]
    assert sh(daemon, name, "cat /etc/settings/mode") == "fast"
    daemon.kubectl("patch", "configmap", "settings", "-p", '{"data": {"mode": "slow"}}')
    wait_for(lambda: sh(daemon, name, "cat /etc/settings/mode") == "slow",
             "the mounted ConfigMap to follow the edit", 4 * SYNC + 5)
    assert sh(daemon, name, "cat /etc/pinned.conf") == "fast"  # subPath: as at start
    assert sh(daemon, name, "echo $CFG_mode") == "fast\n"        # env: as at start


def test_a_missing_configmap_holds_the_container_until_it_exists(daemon: Daemon):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "waits"}, "spec": {
        "terminationGracePeriodSeconds": 1, "containers": [{
            "name": "c", "image": IMAGE, "imagePullPolicy": "IfNotPresent",
            "command": ["sleep", "3600"],
            "env": [{"name": "LEVEL", "valueFrom": {"configMapKeyRef": {
                "name": "later", "key": "level"}}}]}]}}
    daemon.kubectl("apply", "-f", "-", input=json.dumps(pod))

    def waiting() -> dict[str, Any]:
        statuses = daemon.get_json("pod", "waits").get("status", {}).get(
            "containerStatuses") or [{}]
        return statuses[0].get("state", {}).get("waiting") or {}

    wait_for(lambda: waiting().get("reason") == "CreateContainerConfigError",
             "CreateContainerConfigError", 60)
    assert waiting()["message"] == 'configmap "later" not found'
    daemon.kubectl("create", "configmap", "later", "--from-literal=level=7")
    daemon.kubectl("wait", "--for=condition=Ready", "pod/waits", "--timeout=60s")
    assert sh(daemon, "waits", "echo $LEVEL") == "7\n"
    daemon.kubectl("delete", "pod", "waits", "--grace-period=0", "--force", check=False)


def test_an_unsupported_volume_is_refused_at_admission(daemon: Daemon):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pvc"}, "spec": {
        "containers": [{"name": "c", "image": IMAGE, "volumeMounts": [
            {"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]}}
    result = daemon.kubectl("apply", "-f", "-", input=json.dumps(pod), check=False)
    assert result.returncode == 1
    assert ('The Pod "pvc" is invalid: spec.volumes[0].persistentVolumeClaim: Forbidden: '
            "persistentVolumeClaim volumes are not supported by minikube-py (supported: "
            "configMap, downwardAPI, emptyDir, hostPath, projected, secret)") in result.stderr
    assert daemon.kubectl("get", "pod", "pvc", check=False).returncode == 1


def test_secrets_are_not_in_the_state_files(daemon: Daemon):
    needles = [b"s3cr=t with spaces", base64.b64encode(b"s3cr=t with spaces")]
    for path in daemon.state.iterdir():
        if path.is_file() and (path.name == "state.json" or path.name.startswith("journal")):
            content = path.read_bytes()
            assert not any(n in content for n in needles), path
