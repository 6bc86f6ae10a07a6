"""ConfigMaps, Secrets, the downward API and tokens through a kubelet on the
fake runtime: CreateContainerConfigError with Kubernetes' message until the
object (or key) appears, FailedMount keeping the pod in ContainerCreating until
a volume can be set up, mounted files following edits at the resync, subPath
bound to the file as it was, read-only mounts, the pod's private directory
removed with the pod."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from minikube_py.kubelet import Kubelet
from minikube_py.runtime.base import PROPAGATION_HOST_TO_CONTAINER, PROPAGATION_PRIVATE
from tests.waiting import wait_for

from .conftest import (
    TIMEOUT,
    container_status,
    create_pod,
    event_messages,
    events_for,
    get_pod,
    pod_in_phase,
)

IMAGE = "busybox:1.36"


def configmap(client: Any, name: str, data: dict[str, str]) -> dict[str, Any]:
    return client.create({"apiVersion": "v1", "kind": "ConfigMap",
                          "metadata": {"name": name, "namespace": "default"}, "data": data})


def waiting(client: Any, pod: str, container: str = "app") -> dict[str, Any]:
    return container_status(client, pod, container).get("state", {}).get("waiting") or {}


def wait_waiting(client: Any, pod: str, reason: str) -> dict[str, Any]:
    return wait_for(lambda: w if (w := waiting(client, pod)).get("reason") == reason else None,
                    f"{pod} waiting {reason}", TIMEOUT)


def config_of(runtime: Any, container: str = "app") -> Any:
    found = [c for c in runtime.list_containers() if c.name == container]
    assert found, f"no container {container}"
    return runtime.container_config(found[-1].id)


def volume_dir(kubelet: Kubelet, pod: Mapping[str, Any], plugin: str, name: str) -> Path:
    return (kubelet.state_dir / "pods" / pod["metadata"]["uid"] / "volumes" /
            f"kubernetes.io~{plugin}" / name)


def test_a_missing_configmap_is_create_container_config_error_until_it_appears(
        client, kubelet, runtime):
    create_pod(client, "web", containers=[{
        "name": "app", "image": IMAGE,
        "env": [{"name": "LEVEL", "valueFrom": {"configMapKeyRef": {
            "name": "app-config", "key": "LOG_LEVEL"}}}]}])
    state = wait_waiting(client, "web", "CreateContainerConfigError")
    assert state["message"] == 'configmap "app-config" not found'
    assert get_pod(client, "web")["status"]["phase"] == "Pending"
    assert 'Error: configmap "app-config" not found' in event_messages(client, "web", "Failed")
    assert not [c for c in runtime.list_containers() if c.name == "app"]

    configmap(client, "app-config", {"other": "x"})
    state = wait_for(lambda: w if (w := waiting(client, "web")).get("message", "").startswith(
        "couldn't") else None, "the missing key reported", TIMEOUT)
    assert state == {"reason": "CreateContainerConfigError",
                     "message": "couldn't find key LOG_LEVEL in ConfigMap default/app-config"}

    client.patch("configmaps", "default", "app-config", "merge",
                 {"data": {"LOG_LEVEL": "debug"}})
    pod_in_phase(client, "web", "Running")
    assert dict(config_of(runtime).env)["LEVEL"] == "debug"
    assert waiting(client, "web") == {}


def test_a_missing_secret_for_env_from_then_created(client, kubelet, runtime):
    create_pod(client, "web", containers=[{
        "name": "app", "image": IMAGE,
        "envFrom": [{"secretRef": {"name": "db"}, "prefix": "DB_"},
                    {"configMapRef": {"name": "maybe", "optional": True}}]}])
    state = wait_waiting(client, "web", "CreateContainerConfigError")
    assert state["message"] == 'secret "db" not found'
    client.create({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "db", "namespace": "default"},
                   "stringData": {"password": "pw", "user": "admin"}})
    pod_in_phase(client, "web", "Running")
    env = dict(config_of(runtime).env)
    assert env["DB_password"] == "pw" and env["DB_user"] == "admin"


def held_by_a_missing_configmap(client: Any, runtime: Any) -> tuple[dict[str, Any], str]:
    """Create pod ``web`` mounting ConfigMap ``app-config`` (absent) and wait
    until it is held: FailedMount, ContainerCreating, no sandbox. Returns the
    pod and the event's message."""
    pod = create_pod(client, "web", containers=[{
        "name": "app", "image": IMAGE,
        "volumeMounts": [{"name": "cfg", "mountPath": "/etc/app"}]}],
        volumes=[{"name": "cfg", "configMap": {"name": "app-config"}}])
    message = 'MountVolume.SetUp failed for volume "cfg" : configmap "app-config" not found'
    wait_for(lambda: message in event_messages(client, "web", "FailedMount"), "FailedMount",
             TIMEOUT)
    wait_waiting(client, "web", "ContainerCreating")
    assert get_pod(client, "web")["status"]["phase"] == "Pending"
    assert runtime.list_sandboxes() == []  # nothing starts before its volumes
    return pod, message


def test_a_missing_volume_source_is_failed_mount_and_container_creating(
        client, kubelet, runtime):
    pod, message = held_by_a_missing_configmap(client, runtime)

    configmap(client, "app-config", {"app.conf": "x=1"})
    pod_in_phase(client, "web", "Running")
    target = volume_dir(kubelet, pod, "configmap", "cfg")
    assert (target / "app.conf").read_text() == "x=1"
    [mount] = config_of(runtime).mounts
    assert (mount.host_path, mount.container_path, mount.read_only) == (
        str(target), "/etc/app", True)
    # The event is not repeated at every retry.
    assert event_messages(client, "web", "FailedMount").count(message) == 1


def test_mounted_configmaps_and_secrets_follow_edits_at_the_resync_but_not_subpaths(
        client, make_kubelet, runtime):
    kubelet = make_kubelet(resync_interval=0.3)
    configmap(client, "settings", {"mode": "fast", "level": "3"})
    client.create({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "db", "namespace": "default"},
                   "stringData": {"password": "one"}})
    pod = create_pod(client, "web", containers=[{
        "name": "app", "image": IMAGE,
        "volumeMounts": [{"name": "settings", "mountPath": "/etc/settings"},
                         {"name": "settings", "mountPath": "/etc/pinned", "subPath": "mode"},
                         {"name": "db", "mountPath": "/etc/db", "readOnly": False},
                         {"name": "all", "mountPath": "/etc/all"}]}],
        volumes=[{"name": "settings", "configMap": {"name": "settings"}},
                 {"name": "db", "secret": {"secretName": "db", "defaultMode": 0o400}},
                 {"name": "all", "projected": {"sources": [
                     {"configMap": {"name": "settings",
                                    "items": [{"key": "level", "path": "cfg/level"}]}},
                     {"downwardAPI": {"items": [{"path": "name", "fieldRef": {
                         "fieldPath": "metadata.name"}}]}}]}}])
    pod_in_phase(client, "web", "Running")
    cm_dir = volume_dir(kubelet, pod, "configmap", "settings")
    secret_dir = volume_dir(kubelet, pod, "secret", "db")
    projected = volume_dir(kubelet, pod, "projected", "all")
    assert (cm_dir / "mode").read_text() == "fast"
    assert (secret_dir / "password").read_text() == "one"
    assert stat.S_IMODE((secret_dir / "password").stat().st_mode) == 0o400
    assert (projected / "cfg" / "level").read_text() == "3"
    assert (projected / "name").read_text() == "web"
    mounts = {m.container_path: m for m in config_of(runtime).mounts}
    assert all(m.read_only for m in mounts.values())  # API data is always read-only
    pinned = Path(mounts["/etc/pinned"].host_path)
    assert pinned.parent.name.startswith("..") and pinned.read_text() == "fast"

    client.patch("configmaps", "default", "settings", "merge", {"data": {"mode": "slow",
                                                                       "level": "4"}})
    client.patch("secrets", "default", "db", "merge", {"stringData": {"password": "two"}})
    wait_for(lambda: (cm_dir / "mode").read_text() == "slow", "configMap volume updated",
             TIMEOUT)
    wait_for(lambda: (secret_dir / "password").read_text() == "two", "secret volume updated",
             TIMEOUT)
    wait_for(lambda: (projected / "cfg" / "level").read_text() == "4",
             "projected volume updated", TIMEOUT)
    # The subPath mount still names the first version's file, which the swap
    # removed from the volume (a real bind mount keeps its content).
    assert mounts["/etc/pinned"].host_path == str(pinned)
    assert not pinned.exists()
    # One timestamped directory each: the old ones are gone.
    assert len([e for e in os.listdir(cm_dir) if e.startswith("..2")]) == 1
    # The containers were not restarted for it.
    assert container_status(client, "web", "app")["restartCount"] == 0


def test_service_account_token_in_a_projected_volume(client, make_kubelet, runtime):
    issued: list[tuple[str, str, int]] = []

    class Tokens:
        def token(self, pod: Mapping[str, Any], audience: str,
                  expiration_seconds: int) -> tuple[str, float]:
            issued.append((pod["metadata"]["name"], audience, expiration_seconds))
            return f"token-{len(issued)}", 4_000_000_000.0

    kubelet = make_kubelet(token_source=Tokens())
    pod = create_pod(client, "web", containers=[{
        "name": "app", "image": IMAGE,
        "volumeMounts": [{"name": "api", "mountPath": "/var/run/secrets/x"}]}],
        volumes=[{"name": "api", "projected": {"defaultMode": 0o440, "sources": [
            {"serviceAccountToken": {"path": "token", "audience": "vault",
                                     "expirationSeconds": 3607}}]}}],
        serviceAccountName="default")
    pod_in_phase(client, "web", "Running")
    target = volume_dir(kubelet, pod, "projected", "api")
    assert (target / "token").read_text() == "token-1"
    assert stat.S_IMODE((target / "token").stat().st_mode) == 0o440
    assert issued == [("web", "vault", 3607)]


def test_mount_propagation_reaches_the_runtime(client, make_kubelet, runtime, tmp_path):
    make_kubelet()
    create_pod(client, "web", containers=[{
        "name": "app", "image": IMAGE,
        "volumeMounts": [{"name": "scratch", "mountPath": "/a"},
                         {"name": "scratch", "mountPath": "/b",
                          "mountPropagation": "HostToContainer"}]}],
        volumes=[{"name": "scratch", "emptyDir": {}}])
    pod_in_phase(client, "web", "Running")
    mounts = {m.container_path: m for m in config_of(runtime).mounts}
    assert mounts["/a"].propagation == PROPAGATION_PRIVATE
    assert mounts["/b"].propagation == PROPAGATION_HOST_TO_CONTAINER
    # An emptyDir is writable by any user of the container.
    assert stat.S_IMODE(Path(mounts["/a"].host_path).stat().st_mode) == 0o777


def test_the_pods_directory_is_private_and_goes_with_the_pod(client, kubelet, runtime):
    configmap(client, "settings", {"mode": "fast"})
    pod = create_pod(client, "web", containers=[{
        "name": "app", "image": IMAGE,
        "volumeMounts": [{"name": "settings", "mountPath": "/etc/settings"},
                         {"name": "scratch", "mountPath": "/tmp/x"}]}],
        volumes=[{"name": "settings", "configMap": {"name": "settings"}},
                 {"name": "scratch", "emptyDir": {}}],
        terminationGracePeriodSeconds=0)
    pod_in_phase(client, "web", "Running")
    root = kubelet.state_dir / "pods" / pod["metadata"]["uid"]
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert stat.S_IMODE(root.parent.stat().st_mode) == 0o700
    assert (root / "volumes" / "kubernetes.io~empty-dir" / "scratch").is_dir()
    client.delete("pods", "default", "web", grace_period_seconds=0)
    wait_for(lambda: not root.exists(), "the pod's directory removed", TIMEOUT)


def test_a_deleted_configmap_keeps_the_mounted_files_and_the_pod_going(
        client, make_kubelet, runtime):
    kubelet = make_kubelet(resync_interval=0.3)
    configmap(client, "settings", {"mode": "fast"})
    pod = create_pod(client, "web", containers=[{
        "name": "app", "image": IMAGE,
        "volumeMounts": [{"name": "settings", "mountPath": "/etc/settings"}]}],
        volumes=[{"name": "settings", "configMap": {"name": "settings"}}])
    pod_in_phase(client, "web", "Running")
    client.delete("configmaps", "default", "settings")
    message = 'MountVolume.SetUp failed for volume "settings" : configmap "settings" not found'
    wait_for(lambda: message in event_messages(client, "web", "FailedMount"), "FailedMount",
             TIMEOUT)
    assert (volume_dir(kubelet, pod, "configmap", "settings") / "mode").read_text() == "fast"
    # The pod is still looked after: a container that dies is restarted.
    [app] = [c for c in runtime.list_containers() if c.name == "app"]
    runtime.kill_container(app.id, 1)
    wait_for(lambda: container_status(client, "web", "app").get("restartCount") == 1,
             "the container restarted", TIMEOUT)
    assert get_pod(client, "web")["status"]["phase"] == "Running"


# ------------------------------------------------------------ hollow nodes: no files


def test_hollow_volumes_are_built_and_failed_as_usual_but_never_written(
        client, make_kubelet, runtime):
    kubelet = make_kubelet(resync_interval=0.3, volume_files=False)
    # The payload is still built from the API: a missing ConfigMap holds the pod.
    pod, message = held_by_a_missing_configmap(client, runtime)
    configmap(client, "app-config", {"app.conf": "x=1"})
    pod_in_phase(client, "web", "Running")
    assert not (kubelet.state_dir / "pods" / pod["metadata"]["uid"]).exists()
    # Set up once, a volume whose ConfigMap goes keeps the pod going (mounted).
    client.delete("configmaps", "default", "app-config")

    def failed_mounts() -> int:  # the same event again is counted, not repeated
        return sum(int(e.get("count") or 1) for e in events_for(client, "web")
                   if e["reason"] == "FailedMount" and e["message"] == message)

    wait_for(lambda: failed_mounts() >= 2, "FailedMount again", TIMEOUT)
    [app] = [c for c in runtime.list_containers() if c.name == "app"]
    runtime.kill_container(app.id, 1)
    wait_for(lambda: container_status(client, "web", "app").get("restartCount") == 1,
             "the container restarted", TIMEOUT)
    assert get_pod(client, "web")["status"]["phase"] == "Running"
    assert not (kubelet.state_dir / "pods").exists()


def test_hollow_volume_bookkeeping_goes_with_the_pod(client, make_kubelet, runtime):
    kubelet = make_kubelet(volume_files=False)
    configmap(client, "app-config", {"app.conf": "x=1"})
    pod = create_pod(client, "web", containers=[{"name": "app", "image": IMAGE}],
                     volumes=[{"name": "cfg", "configMap": {"name": "app-config"}}])
    pod_in_phase(client, "web", "Running")
    volumes = kubelet.syncer.volumes
    assert volumes is not None
    uid = pod["metadata"]["uid"]
    assert volumes._set_up == {uid: {"cfg"}}
    client.delete("pods", "default", "web", grace_period_seconds=0)
    wait_for(lambda: uid not in volumes._set_up, "the pod's volumes forgotten", TIMEOUT)
