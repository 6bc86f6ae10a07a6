"""What configMap, secret, downwardAPI and projected volumes hold
(kubelet/volume_payloads.py): items, keys, paths, modes, ``optional``, the
projection order, service-account tokens, and Kubernetes' ``SetUp`` messages."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import pytest

from minikube_py.kubelet.atomic_writer import FileProjection
from minikube_py.kubelet.sources import CONFIGMAP, SECRET, ConfigError, SourceData
from minikube_py.kubelet.tokens import TokenCache
from minikube_py.kubelet.volume_payloads import volume_payload
from tests.clock import FakeClock

CM = {"metadata": {"name": "settings", "namespace": "prod"},
      "data": {"mode": "fast", "level": "3"},
      "binaryData": {"logo.png": base64.b64encode(b"\x89PNG").decode()}}
SECRET_OBJ = {"metadata": {"name": "db", "namespace": "prod"},
              "data": {"password": base64.b64encode(b"s3cr=t").decode(),
                       "user": base64.b64encode(b"admin").decode()}}
POD = {"metadata": {"name": "web", "namespace": "prod", "uid": "u-1",
                    "labels": {"app": "web", "tier": "be"},
                    "annotations": {"note": 'say "hi"\n'}},
       "spec": {"nodeName": "node-1", "serviceAccountName": "builder",
                "containers": [{"name": "app", "image": "x",
                                "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}]}}


class Objects:
    def __init__(self, *objects: tuple[str, Mapping[str, Any]]) -> None:
        self.table = {(kind, obj["metadata"]["namespace"], obj["metadata"]["name"]):
                      SourceData.from_object(kind, obj) for kind, obj in objects}

    def get(self, kind: str, namespace: str, name: str) -> SourceData | None:
        return self.table.get((kind, namespace, name))


class Tokens:
    """A TokenSource handing out numbered tokens valid for the asked life."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.calls: list[tuple[str, str, int]] = []

    def token(self, pod: Mapping[str, Any], audience: str,
              expiration_seconds: int) -> tuple[str, float]:
        self.calls.append((pod["metadata"]["name"], audience, expiration_seconds))
        return f"token-{len(self.calls)}", self.clock() + expiration_seconds


def payload(volume: dict[str, Any], *, tokens: TokenCache | None = None
            ) -> dict[str, FileProjection]:
    return volume_payload(POD, {"name": "v", **volume},
                          sources=Objects((CONFIGMAP, CM), (SECRET, SECRET_OBJ)),
                          tokens=tokens or TokenCache(None, clock=FakeClock()),
                          allocatable=(2000, 4 << 30))


def files(p: Mapping[str, FileProjection]) -> dict[str, tuple[bytes, int]]:
    return {path: (proj.data, proj.mode) for path, proj in p.items()}


@pytest.mark.parametrize(("volume", "expected"), [
    ({"configMap": {"name": "settings"}},
     {"mode": (b"fast", 0o644), "level": (b"3", 0o644), "logo.png": (b"\x89PNG", 0o644)}),
    ({"configMap": {"name": "settings", "defaultMode": 0o600,
                    "items": [{"key": "mode", "path": "conf/mode.txt"},
                              {"key": "level", "path": "level", "mode": 0o400}]}},
     {"conf/mode.txt": (b"fast", 0o600), "level": (b"3", 0o400)}),
    ({"configMap": {"name": "absent", "optional": True}}, {}),
    ({"configMap": {"name": "settings", "optional": True,
                    "items": [{"key": "nope", "path": "x"}, {"key": "mode", "path": "m"}]}},
     {"m": (b"fast", 0o644)}),
    ({"secret": {"secretName": "db"}},
     {"password": (b"s3cr=t", 0o644), "user": (b"admin", 0o644)}),
    ({"secret": {"secretName": "db", "defaultMode": 0o400,
                 "items": [{"key": "password", "path": "pw"}]}},
     {"pw": (b"s3cr=t", 0o400)}),
    ({"secret": {"secretName": "absent", "optional": True}}, {}),
], ids=["configmap all keys", "configmap items and modes", "optional missing configmap",
        "optional missing item key", "secret all keys", "secret items defaultMode",
        "optional missing secret"])
def test_configmap_and_secret_volumes(volume: dict[str, Any],
                                      expected: dict[str, tuple[bytes, int]]):
    assert files(payload(volume)) == expected


@pytest.mark.parametrize(("volume", "message"), [
    ({"configMap": {"name": "absent"}}, 'configmap "absent" not found'),
    ({"configMap": {"name": "settings", "items": [{"key": "nope", "path": "x"}]}},
     "configmap references non-existent config key: nope"),
    ({"secret": {"secretName": "absent"}}, 'secret "absent" not found'),
    ({"secret": {"secretName": "db", "items": [{"key": "nope", "path": "x"}]}},
     "references non-existent secret key: nope"),
    ({"projected": {"sources": [{"configMap": {"name": "absent"}},
                                {"secret": {"name": "gone"}}]}},
     '[configmap "absent" not found, secret "gone" not found]'),
    ({"projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
     "failed to fetch token: this kubelet has no token source"),
])
def test_set_up_failures_carry_the_plugins_message(volume: dict[str, Any], message: str):
    with pytest.raises(ConfigError) as err:
        payload(volume)
    assert str(err.value) == message


def test_downward_api_volume():
    got = files(payload({"downwardAPI": {"defaultMode": 0o640, "items": [
        {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
        {"path": "annotations", "fieldRef": {"fieldPath": "metadata.annotations"},
         "mode": 0o400},
        {"path": "info/name", "fieldRef": {"fieldPath": "metadata.name"}},
        {"path": "info/ns", "fieldRef": {"fieldPath": "metadata.namespace"}},
        {"path": "info/uid", "fieldRef": {"fieldPath": "metadata.uid"}},
        {"path": "tier", "fieldRef": {"fieldPath": "metadata.labels['tier']"}},
        {"path": "cpu", "resourceFieldRef": {"containerName": "app",
                                             "resource": "requests.cpu", "divisor": "1m"}},
        {"path": "mem", "resourceFieldRef": {"containerName": "app",
                                             "resource": "limits.memory", "divisor": "1Mi"}},
    ]}}))
    assert got == {
        "labels": (b'app="web"\ntier="be"', 0o640),
        "annotations": (b'note="say \\"hi\\"\\n"', 0o400),
        "info/name": (b"web", 0o640), "info/ns": (b"prod", 0o640),
        "info/uid": (b"u-1", 0o640), "tier": (b"be", 0o640),
        "cpu": (b"250", 0o640),
        "mem": (b"4096", 0o640),  # no memory limit: the node's allocatable
    }


def test_projected_volume_merges_sources_in_order_with_its_default_mode():
    clock = FakeClock()
    source = Tokens(clock)
    got = files(payload({"projected": {"defaultMode": 0o440, "sources": [
        {"configMap": {"name": "settings", "items": [{"key": "level", "path": "cfg/level"},
                                                     {"key": "mode", "path": "same"}]}},
        {"secret": {"name": "db", "items": [{"key": "user", "path": "user", "mode": 0o400},
                                            {"key": "password", "path": "same"}]}},
        {"downwardAPI": {"items": [{"path": "labels",
                                    "fieldRef": {"fieldPath": "metadata.labels"}}]}},
        {"serviceAccountToken": {"path": "token", "audience": "vault",
                                 "expirationSeconds": 7200}},
        {"configMap": {"name": "absent", "optional": True}},
    ]}}, tokens=TokenCache(source, clock=clock)))
    assert got == {"cfg/level": (b"3", 0o440), "same": (b"s3cr=t", 0o440),
                   "user": (b"admin", 0o400), "labels": (b'app="web"\ntier="be"', 0o440),
                   "token": (b"token-1", 0o440)}
    assert source.calls == [("web", "vault", 7200)]


def test_projected_default_mode_and_default_token_life():
    clock = FakeClock()
    source = Tokens(clock)
    got = files(payload({"projected": {"sources": [
        {"serviceAccountToken": {"path": "token"}}]}}, tokens=TokenCache(source, clock=clock)))
    assert got == {"token": (b"token-1", 0o644)}
    assert source.calls == [("web", "", 3600)]


def test_a_failing_token_source_fails_the_volume_with_its_message():
    class Failing:
        def token(self, pod: Mapping[str, Any], audience: str,
                  expiration_seconds: int) -> tuple[str, float]:
            raise RuntimeError('serviceaccounts "builder" not found')

    with pytest.raises(ConfigError, match=r'^serviceaccounts "builder" not found$'):
        payload({"projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
                tokens=TokenCache(Failing(), clock=FakeClock()))


@pytest.mark.parametrize("files", [True, False])
def test_the_volume_manager_asks_for_the_pod_directory_only_when_it_writes_files(
        tmp_path, files: bool) -> None:
    """A hollow node (no files) resyncs 100,000 pods: it never builds their paths;
    a real node writes each volume under the directory it is given."""
    from minikube_py.kubelet.volumes import VolumeManager

    asked: list[bool] = []

    def pod_root():
        asked.append(True)
        return tmp_path / "pods" / "u-1"

    manager = VolumeManager(Objects(("configmap", CM)), TokenCache(None, clock=FakeClock(0)),
                            files=files)
    pod = {**POD, "spec": {**POD["spec"], "volumes": [
        {"name": "conf", "configMap": {"name": "settings"}},
        {"name": "info", "downwardAPI": {"items": [
            {"path": "name", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        {"name": "scratch", "emptyDir": {}}]}}
    assert manager.set_up(pod, pod_root) == []
    written = tmp_path / "pods" / "u-1" / "volumes"
    if files:
        assert asked
        assert (written / "kubernetes.io~configmap" / "conf" / "mode").read_text() == "fast"
        assert (written / "kubernetes.io~downward-api" / "info" / "name").read_text() == "web"
    else:
        assert not asked
        assert not written.exists()
    missing = {**pod, "spec": {**pod["spec"], "volumes": [
        {"name": "gone", "configMap": {"name": "absent"}}]}}
    (failure,) = manager.set_up(missing, pod_root)
    assert failure[0] == "gone" and "not found" in failure[1] and failure[2] is False
